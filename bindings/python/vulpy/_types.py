"""The kernel language's names as Python objects.

A kernel is never run by Python: the C frontend reads its source. These
objects exist so that kernel files import, annotations evaluate
(`vp.Buffer[vp.vec4]`), and the same names work as NumPy dtypes on the host
(`vp.float32` IS `numpy.float32`; `vp.vec4` knows its NumPy layout).
docs/language.md (the frontend's reference) says what each name means
inside a kernel.
"""
import numpy as np

__all__ = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "Buffer", "Shared", "Control", "Scalar"]

# Scalars are NumPy's own types: vp.float32(1.0), np.dtype(vp.float32) and
# MemSock's dtype=vp.float32 all work as NumPy users expect.
bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64


class VectorType:
    """vecN / ivecN / uvecN / dvecN / bvecN and matN / dmatN.

    `.dtype` is the NumPy layout of one element in a std430 buffer (a vec3
    takes 16 bytes there, like a vec4)."""

    def __init__(self, name, scalar, n, cols=0):
        self.__name__ = self.name = name
        self.scalar = np.dtype(scalar)
        self.n, self.cols = n, cols
        self.__module__ = "vulpy"

    @property
    def dtype(self):
        if self.cols:
            return np.dtype((self.scalar, (self.cols, self.n)))
        return np.dtype((self.scalar, (self.n,)))

    def __call__(self, *args):
        raise TypeError(f"vp.{self.name}(...) builds a value inside a kernel; on the host use "
                        f"numpy arrays of shape (..., {self.n})")

    def __repr__(self):
        return f"vp.{self.name}"


def _vectors():
    out = {}
    for prefix, scalar in (("", np.float32), ("i", np.int32), ("u", np.uint32),
                           ("d", np.float64), ("b", np.bool_)):
        for n in (2, 3, 4):
            out[f"{prefix}vec{n}"] = VectorType(f"{prefix}vec{n}", scalar, n)
    for prefix, scalar in (("", np.float32), ("d", np.float64)):
        for n in (2, 3, 4):
            out[f"{prefix}mat{n}"] = VectorType(f"{prefix}mat{n}", scalar, n, n)
    return out


VECTORS = _vectors()
globals().update(VECTORS)


class _BufferAnnotation:
    """What `vp.Buffer[T]` evaluates to in an annotation."""

    def __init__(self, kind, elem):
        self.kind, self.elem = kind, elem

    def __repr__(self):
        name = getattr(self.elem, "__name__", repr(self.elem))
        return f"vp.{self.kind}[{name}]"


class Buffer:
    """`vp.Buffer[T]`: a kernel parameter bound to a storage buffer of T
    (a scalar, a vector, or an annotated class = a struct)."""

    def __class_getitem__(cls, elem):
        return _BufferAnnotation("Buffer", elem)


class Shared:
    """`vp.Shared[T, N]`: workgroup-shared memory inside a kernel."""

    def __class_getitem__(cls, args):
        return _BufferAnnotation("Shared", args)


class Control:
    """The annotation of a kernel parameter that receives a ControlBuffer.

    Inside the kernel it is a buffer of uint32 words (`vp.Buffer[vp.uint32]`):
    use the words by index, with the indices as module-level constants
    (`HOT = control.index("hot_count")`, or `control.words_as_constants()`),
    e.g. `vp.atomic_add(ctrl[HOT], 1)`. docs/python-api.md has an example."""


class Scalar:
    """The annotation of a generic kernel's scalar parameter (`a: vp.Scalar`,
    as Warp's `Any`): a push constant whose type the call gives. A NumPy
    scalar (np.float64(2.0)) brings its own dtype; a Python number takes the
    element type of the kernel's generic buffers (`vp.Buffer` without `[T]`),
    so one axpy serves float32, float64 and int32 arrays. One compile per
    signature, cached (docs/language.md, "Generic kernels")."""


# Names that mean something only inside a kernel. Calling one on the host is
# a mistake worth a clear message rather than a NameError.
KERNEL_ONLY = (
    "global_id local_id workgroup_id num_workgroups workgroup_size local_index subgroup_id "
    "subgroup_size subgroup_lane subgroup_invocation_id num_subgroups subgroup_add "
    "subgroup_mul subgroup_min subgroup_max subgroup_and subgroup_or subgroup_xor "
    "subgroup_inclusive_add subgroup_exclusive_add subgroup_all subgroup_any "
    "subgroup_broadcast_first subgroup_broadcast subgroup_shuffle subgroup_shuffle_xor "
    "subgroup_shuffle_up subgroup_shuffle_down subgroup_ballot subgroup_elect atomic_add "
    "atomic_sub atomic_min atomic_max atomic_and atomic_or atomic_xor atomic_exchange "
    "atomic_compare_exchange atomic_load atomic_store barrier memory_barrier var bitcast "
    "inversesqrt rsqrt fract mod mix step smoothstep fma dot cross length distance normalize "
    "reflect isnan isinf any all select transpose func bit_count"
).split()


def _kernel_only(name):
    def stub(*args, **kwargs):
        raise RuntimeError(f"vp.{name}() is part of the kernel language: it works inside a "
                           f"@vp.kernel function or a .vul.py file, not in host Python")

    stub.__name__ = stub.__qualname__ = name
    stub.__module__ = "vulpy"
    stub.__doc__ = f"vp.{name}: kernel language only (see docs/language.md)."
    return stub


KERNEL_STUBS = {name: _kernel_only(name) for name in KERNEL_ONLY}


# Names that are both a host function (NumPy's meaning, in host Python) and
# a kernel-language builtin (inside @vp.kernel / .vul.py): vp.var, vp.dot. The
# frontend reads a kernel's AST, so `vp.var(expr)` in a kernel never calls
# the Python object; the host function carries this marker, which says so.
HOST_AND_KERNEL = ("var", "dot")


def kernel_name(f, name):
    """Marks host function f as also the kernel language's `vp.<name>`."""
    f.__vp_kernel_builtin__ = name
    f.__doc__ = (f.__doc__ or "") + (f"\n\nInside a kernel, vp.{name}(...) is the kernel "
                                     f"language's builtin (docs/language.md).")
    return f

# VIR type spellings (manifests) -> NumPy dtypes of one element.
_VIR_SCALARS = {
    "bool": np.dtype(np.uint32),  # booleans live in buffers as 32-bit words
    "i8": np.dtype(np.int8), "i16": np.dtype(np.int16), "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64), "u8": np.dtype(np.uint8), "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32), "u64": np.dtype(np.uint64), "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
}


def vir_scalar(spelling):
    """The NumPy scalar dtype of a VIR type spelling's components
    ('vec4<f32>' -> float32), or None for structs."""
    s = spelling
    if "<" in s:
        s = s[s.index("<") + 1:s.rindex(">")]
    return _VIR_SCALARS.get(s.strip())


def vir_lanes(spelling):
    """Components of a VIR type: 'f32' 1, 'vec4<f32>' 4, 'mat4<f32>' 16."""
    if spelling.startswith("vec"):
        return int(spelling[3])
    if spelling.startswith("mat"):
        return int(spelling[3]) * int(spelling[3])
    return 1


def python_name(spelling):
    """A VIR spelling as a user writes it: 'f32' -> 'float32'."""
    names = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
             "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
             "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool"}
    if spelling in names:
        return names[spelling]
    if spelling.startswith(("vec", "mat")):
        scalar = vir_scalar(spelling)
        prefix = {"f32": "", "i32": "i", "u32": "u", "f64": "d", "bool": "b"}
        key = {np.float32: "f32", np.int32: "i32", np.uint32: "u32", np.float64: "f64"}
        return prefix.get(key.get(scalar.type, "f32"), "") + spelling[:4]
    return spelling.lstrip("@")
