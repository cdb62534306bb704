"""Struct classes on the host: their std430 layout as a NumPy dtype
(docs/python-api.md, "Struct buffers"; docs/language.md, "Structs").

A kernel struct is an annotated class; on the host a buffer of structs is
a NumPy structured array with exactly its std430 layout. The layout is
asked of the compiler itself (a one-line kernel over a buffer of the class,
compiled to its manifest and cached like any kernel), so the host and the
kernel can never disagree. A structured array whose layout differs (field
names, order, dtypes, offsets, itemsize) is a TypeError that prints both
layouts.
"""
import threading
import typing
import weakref

import numpy as np

from ._types import VectorType, python_name

_cache = weakref.WeakKeyDictionary()  # class -> dtype
_lock = threading.Lock()


# ------------------------------------------------------- manifest -> dtype

def buffer_dtype(b):
    """The NumPy dtype of one element of manifest buffer `b`: a scalar,
    (lanes,) for a vector, (columns, rows) for a matrix, and for a struct
    the structured dtype with its std430 offsets and the buffer's stride as
    itemsize (the extension builds the np.dtype argument from the
    compiler's layout: "np_dtype"); None for a type the host has no dtype of."""
    spec = b["np_dtype"]
    return None if spec is None else np.dtype(spec)


def describe_struct(s, stride):
    """A struct's std430 layout, one field a line (`stride`: its array stride)."""
    lines = [f"struct {s['name']} (std430, {stride} bytes):"]
    for f in s["fields"]:
        lines.append(f"    {f['name']}: {python_name(f['type'])} at offset {f['offset']} "
                     f"({f['size']} bytes)")
    return "\n".join(lines)


def describe_dtype(dt):
    """A NumPy dtype as describe_struct prints a struct (a plain dtype: its name)."""
    if not dt.names:
        return f"numpy dtype {dt} ({dt.itemsize} bytes, not a structured dtype)"
    lines = [f"numpy dtype ({dt.itemsize} bytes):"]
    for name in dt.names:
        fdt, off = dt.fields[name][:2]
        lines.append(f"    {name}: {fdt} at offset {off} ({fdt.itemsize} bytes)")
    return "\n".join(lines)


def layout_matches(dt, want):
    """Whether structured dtype `dt` has exactly `want`'s layout."""
    if dt.names is None or dt.itemsize != want.itemsize or dt.names != want.names:
        return False
    for name in want.names:
        a, oa = dt.fields[name][:2]
        b, ob = want.fields[name][:2]
        if oa != ob:
            return False
        if a.names or b.names:
            if not a.names or not b.names or not layout_matches(a, b):
                return False
        elif a.base != b.base or a.shape != b.shape:
            return False
    return True


def check_struct_array(label, b, dtype, manifest, cache, fix=None):
    """TypeError (both layouts printed) unless an array of `dtype` can back
    buffer `b` (a manifest buffer of a struct type); `cache` keeps the
    buffer's dtype (one per compiled kernel); `fix` is the call the error
    names for the matching dtype (default: vp.struct_dtype(<the struct>))."""
    want = cache.get(b["name"])
    if want is None:
        want = cache[b["name"]] = buffer_dtype(b)
    if dtype is want or layout_matches(dtype, want):
        return
    s = buffer_struct(manifest, b)
    raise TypeError(f"{label}: buffer '{b['name']}' holds {describe_struct(s, want.itemsize)}\n"
                    f"but the array has {describe_dtype(dtype)}\n"
                    f"({fix or 'vp.struct_dtype(' + s['name'] + ')'} is the matching dtype)")


def buffer_struct(manifest, b):
    """The manifest struct of buffer `b`, or None for a buffer of scalars
    or vectors."""
    t = b["type"]
    if not t.startswith("@"):
        return None
    return next(x for x in manifest["structs"] if x["name"] == t[1:])


# ------------------------------------------------------- class -> dtype

def _is_struct_class(obj):
    return isinstance(obj, type) and not issubclass(obj, np.generic) and \
        bool(getattr(obj, "__annotations__", None))


def _hints(cls):
    try:
        return typing.get_type_hints(cls)
    except Exception:  # unresolvable string annotations: as written
        return dict(cls.__annotations__)


def _spelling(cls, name, t, classes):
    """How annotation `t` of field `name` is written in the generated
    kernel source; collects nested struct classes into `classes`."""
    if isinstance(t, VectorType):
        return f"vp.{t.name}"
    if isinstance(t, type) and issubclass(t, np.generic):
        return f"vp.{np.dtype(t).name}"
    if t in (int, float, bool):  # Python's names: int32 / float32 in a kernel
        return t.__name__
    if _is_struct_class(t):
        _collect(t, classes)
        return t.__name__
    if isinstance(t, str):
        return t
    raise TypeError(f"vp.struct_dtype({cls.__name__}): field '{name}' is annotated with "
                    f"{t!r}, which is not a kernel type (a vp scalar or vector type, or "
                    f"an annotated class)")


def _collect(cls, classes):
    """classes: name -> (class, [(field, spelling)]), inner ones first."""
    if cls.__name__ in classes:
        if classes[cls.__name__][0] is not cls:
            raise TypeError(f"vp.struct_dtype: two different classes are named "
                            f"{cls.__name__}; kernel structs are named by their class")
        return
    fields = [(n, _spelling(cls, n, t, classes)) for n, t in _hints(cls).items()]
    classes[cls.__name__] = (cls, fields)


def _layout_source(cls):
    classes = {}
    _collect(cls, classes)
    lines = ["import vulpy as vp", ""]
    for name, (_, fields) in classes.items():
        lines.append(f"class {name}:")
        lines += [f"    {f}: {s}" for f, s in fields] or ["    pass"]
        lines.append("")
    lines += [f"def main(_vp_layout: vp.Buffer[{cls.__name__}]):",
              "    _vp_layout[0] = _vp_layout[1]", ""]
    return "\n".join(lines)


def struct_dtype(cls):
    """The NumPy structured dtype of struct class `cls` as a storage buffer
    holds it (std430: field offsets, padding, the array stride), e.g. for
    np.zeros(n, vp.struct_dtype(Body)) or vp.asarray(records, dtype=Body).
    A structured np.dtype is returned as it is."""
    if isinstance(cls, np.dtype):
        return cls
    if not _is_struct_class(cls):
        raise TypeError(f"vp.struct_dtype() takes an annotated class (a kernel struct), "
                        f"not {cls!r}")
    hit = _cache.get(cls)
    if hit is not None:
        return hit
    from . import _compiler, _native
    src = _layout_source(cls)
    arts = _compiler.compile_source(src, f"<struct {cls.__name__}>",
                                    targets=("vir", "glsl", "spirv", "manifest"))
    man = _native.ext().manifest_parse(arts["manifest"])
    dt = buffer_dtype(man["buffers"][0])
    with _lock:
        _cache[cls] = dt
    return dt


class _DtypeAttr:
    """`Cls.dtype` of a @vp.struct class: its std430 dtype, computed on first
    use (np.dtype(Cls) and np.zeros(n, Cls) read this attribute)."""

    def __get__(self, obj, cls):
        return struct_dtype(cls)


def struct(cls):
    """Class decorator (optional, as Warp's @wp.struct): marks an annotated
    class as a kernel struct and gives it `cls.dtype`, its std430 NumPy
    dtype, so that np.dtype(cls), np.zeros(n, cls) and
    vp.asarray(records, dtype=cls) work. Kernels take the class with or
    without the decorator."""
    if not _is_struct_class(cls):
        raise TypeError(f"@vp.struct decorates a class with annotated fields, not {cls!r}")
    cls.dtype = _DtypeAttr()
    return cls


def as_struct_dtype(dtype):
    """The structured dtype `dtype` names (a struct class, a @vp.struct
    class or a structured np.dtype), or None when it names no struct."""
    if dtype is None:
        return None
    if _is_struct_class(dtype):
        return struct_dtype(dtype)
    if isinstance(dtype, np.dtype):
        return dtype if dtype.names else None
    return None
