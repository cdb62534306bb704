"""NumPy functions on resident arrays: vp.ndarray.__array_function__.

`np.concatenate(x)`, `np.sum(x)`, `np.sort(x)` on a vp.ndarray come here
(NEP 18). A NumPy function VulPy implements runs on the device: the call
goes to vp.<same name> (or to the few adapters below, where NumPy's
signature differs) and returns a resident array. Any other raises a
TypeError that names the function and says how to get a NumPy array
explicitly (`x.numpy()` / `np.asarray(x)`): a NumPy function never
downloads a resident array silently. np.asarray / np.array stay explicit
conversions (they do not go through __array_function__).

Layering: this module imports nothing from the package but _types. The
vulpy package is bound once with bind() (by _array.bind_ops, which
vulpy/__init__.py calls); names are looked up at call time, so functions
added to vp later are found too.
"""
import numpy as np

from . import _types

_NS = None  # the vulpy package, set by bind()
_STUBS = frozenset(id(f) for f in _types.KERNEL_STUBS.values())


def bind(namespace):
    """Where vp.<name> is looked up (the vulpy package module)."""
    global _NS
    _NS = namespace


# NumPy ufuncs VulPy implements outside vulpy/_ufunc.py's table: np.matmul
# (a ufunc in NumPy; vp.matmul, _matmul.py), np.conjugate (_complex.py) and
# NumPy 2's gufuncs np.vecdot, np.matvec, np.vecmat (_morefuncs.py)
_UFUNCS_ELSEWHERE = ("matmul", "conjugate", "vecdot", "matvec", "vecmat")


def ufunc(name):
    """The vp function that NumPy ufunc `name` runs on the device, or None
    (ndarray.__array_ufunc__ and vp.jit's tracer ask)."""
    f = _NS._ufunc.BY_NUMPY.get(name)
    if f is None and name in _UFUNCS_ELSEWHERE:
        f = getattr(_NS, name)
    return f


# NumPy's two-output ufuncs VulPy runs (out= a pair): ndarray.__array_ufunc__
_UFUNCS_TWO_OUT = ("divmod", "modf", "frexp")


def ufunc_two_out(name):
    """The vp function for NumPy's two-output ufunc `name`, or None."""
    return getattr(_NS, name) if name in _UFUNCS_TWO_OUT else None


def _reshape(a, *args, **kwargs):
    shape = kwargs.pop("shape", kwargs.pop("newshape", None))
    if args:
        shape = args[0]
        args = args[1:]
    order = kwargs.pop("order", args[0] if args else "C")
    copy = kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"numpy.reshape on a vp.ndarray: unexpected {', '.join(map(repr, kwargs))}")
    return _NS._shapeops.reshape(a, shape, order, copy=copy)


def _ravel(a, order="C"):
    return _NS._shapeops.ravel(a, order)


def _created(name):
    """numpy.<name>(..., like=x) for eye, identity, ones, full, zeros,
    empty, arange: NumPy hands its whole signature on (order=, device=),
    which vp.<name> has not (C order on the CPU-less default device is what
    VulPy makes), and the dtype without dtype= is NumPy's (float64 where
    vp.<name>'s is float32)."""
    def create(*args, order="C", device=None, **kwargs):
        if order not in ("C", "K", "A"):
            raise NotImplementedError(f"numpy.{name}(..., like=vp.ndarray): order={order!r}; "
                                      f"VulPy arrays are C-ordered (order='C')")
        if device not in (None, "cpu"):
            raise ValueError(f"numpy.{name}(..., like=vp.ndarray): device={device!r}; only "
                             f"None is accepted (the array goes to the current context)")
        if kwargs.get("dtype") is None:
            # NumPy's default dtype, as the caller of numpy.<name> expects
            # (vp.<name>'s is float32 for Python floats): float64, full's
            # fill value's own, arange's bounds' promoted
            if name == "full":
                fill = kwargs.get("fill_value", args[1] if len(args) > 1 else None)
                kwargs["dtype"] = np.asarray(fill).dtype
            elif name == "arange":
                # NumPy's own choice, from an empty arange of the same types
                pos = list(args[:3]) + [None] * (3 - len(args[:3]))
                vals = [kwargs.get(k, pos[i]) for i, k in enumerate(("start", "stop", "step"))]
                like0 = [None if v is None else type(v)(1 if i == 2 else 0)
                         for i, v in enumerate(vals)]
                kwargs["dtype"] = np.arange(*[v for v in like0[:2] if v is not None],
                                            **({"step": like0[2]} if like0[2] is not None
                                               else {})).dtype
            else:
                kwargs["dtype"] = np.float64
        return getattr(_NS, name)(*args, **kwargs)
    return create


# NumPy name -> function(args...) where vp has no function of the same name
# and NumPy semantics (metadata functions answer without touching the data).
ADAPTERS = {
    "shape": lambda a: tuple(a.shape),
    "ndim": lambda a: a.ndim,
    "size": lambda a, axis=None: a.size if axis is None else a.shape[axis],
    "result_type": lambda *xs: np.result_type(*(getattr(x, "dtype", x) for x in xs)),
    "reshape": _reshape,
    "ravel": _ravel,
    "copy": lambda a, order="K", subok=False: a.copy(),
    "min": lambda *a, **k: getattr(_NS, "amin")(*a, **k),
    "max": lambda *a, **k: getattr(_NS, "amax")(*a, **k),
    **{n: _created(n) for n in ("eye", "identity", "ones", "full", "zeros", "empty", "arange")},
}
# NumPy submodules whose functions vp.<submodule> implements by name
SUBMODULES = {"numpy.linalg": "linalg", "numpy.fft": "fft"}
# vp names whose meaning differs from NumPy's function of the same name
EXCLUDED = frozenset({"compile", "array", "asarray"})


def lookup(func):
    """The VulPy implementation of NumPy function `func`, or None."""
    if getattr(func, "__module__", "").split(".")[0] != "numpy":
        return None
    name = func.__name__
    sub = SUBMODULES.get(func.__module__)
    if sub is not None and _NS is not None:  # np.linalg.norm -> vp.linalg.norm, ...
        f = getattr(getattr(_NS, sub, None), name, None)
        return f if callable(f) and getattr(getattr(np, sub), name, None) is func else None
    if _NS is None or getattr(np, name, None) is not func:
        return None  # not a top-level NumPy function
    if name in ADAPTERS:
        return ADAPTERS[name]
    if name in EXCLUDED:
        return None
    f = getattr(_NS, name, None)
    if f is None or not callable(f) or id(f) in _STUBS or isinstance(f, type):
        return None
    return f


def _public_name(func):
    """'linalg.norm' for numpy.linalg.norm, 'sum' for numpy.sum."""
    name = getattr(func, "__name__", repr(func))
    parts = getattr(func, "__module__", "numpy").split(".")[1:]
    sub = [p for p in parts if not p.startswith("_")]
    return ".".join(sub[:1] + [name]) if sub and len(sub) == len(parts) else name


def array_function(func, types, args, kwargs):
    """ndarray.__array_function__: run `func` on the device or refuse."""
    from_vp = [t for t in types if not issubclass(t, np.ndarray)]
    if any(getattr(t, "__module__", "").split(".")[0] != "vulpy" for t in from_vp):
        return NotImplemented  # another library's array type takes part: let it answer
    f = lookup(func)
    if f is None:
        name = _public_name(func)
        raise TypeError(
            f"numpy.{name} is not implemented for vp.ndarray (resident GPU arrays) and VulPy "
            f"does not copy to the host silently; run it on a NumPy copy made explicitly: "
            f"numpy.{name}(x.numpy(), ...) or numpy.{name}(np.asarray(x), ...)")
    return f(*args, **kwargs)


def ufunc_error(ufunc, method, keywords=()):
    """The TypeError for a NumPy ufunc (or ufunc method) VulPy has not."""
    what = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
    if keywords:
        what += " with " + ", ".join(f"{k}=" for k in keywords)
    return TypeError(
        f"numpy.{what} is not implemented for vp.ndarray (resident GPU arrays) and VulPy does "
        f"not copy to the host silently; call it on x.numpy() or np.asarray(x) explicitly")


def ufunc_unhandled(ufunc, method, inputs, kwargs):
    """ndarray.__array_ufunc__ for a ufunc, method or keyword VulPy has not:
    NotImplemented when another library's array type takes part (it may
    answer), else the TypeError."""
    for x in inputs + tuple(kwargs.get("out", None) or ()):
        t = type(x)
        if hasattr(t, "__array_ufunc__") and not issubclass(t, np.ndarray) and \
                getattr(t, "__module__", "").split(".")[0] != "vulpy":
            return NotImplemented
    raise ufunc_error(ufunc, method, sorted(set(kwargs) - {"out"}))
