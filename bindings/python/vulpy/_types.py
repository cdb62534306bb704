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
    "subgroup_shuffle_up subgroup_shuffle_down subgroup_ballot subgroup_elect subgroup_barrier "
    "atomic_add "
    "atomic_sub atomic_min atomic_max atomic_and atomic_or atomic_xor atomic_exchange "
    "atomic_compare_exchange atomic_load atomic_store barrier memory_barrier var bitcast "
    "inversesqrt rsqrt fract mod mix step smoothstep fma dot cross length distance normalize "
    "reflect isnan isinf any all select transpose func bit_count find_lsb find_msb"
).split()


# What each kernel-only name does, for help(vp.<name>) (docs/language.md has
# the full list with types).
_KERNEL_DOCS = {
    "global_id": "global_id(): this invocation's index in the dispatch (uint32; "
                 "vec3 components .x/.y/.z on 2-D/3-D grids)",
    "local_id": "local_id(): this invocation's index within its workgroup",
    "workgroup_id": "workgroup_id(): the workgroup's index in the dispatch",
    "num_workgroups": "num_workgroups(): the number of workgroups dispatched",
    "workgroup_size": "workgroup_size(): the workgroup's size (local_size_x ...)",
    "local_index": "local_index(): the flattened index within the workgroup",
    "subgroup_id": "subgroup_id(): the subgroup's index within the workgroup",
    "subgroup_size": "subgroup_size(): invocations per subgroup (warp / wave)",
    "subgroup_lane": "subgroup_lane(): this invocation's lane in its subgroup",
    "subgroup_invocation_id": "subgroup_invocation_id(): this invocation's lane",
    "num_subgroups": "num_subgroups(): subgroups per workgroup",
    "subgroup_add": "subgroup_add(x): the sum of x over the subgroup",
    "subgroup_mul": "subgroup_mul(x): the product of x over the subgroup",
    "subgroup_min": "subgroup_min(x): the minimum of x over the subgroup",
    "subgroup_max": "subgroup_max(x): the maximum of x over the subgroup",
    "subgroup_and": "subgroup_and(x): bitwise and of x over the subgroup",
    "subgroup_or": "subgroup_or(x): bitwise or of x over the subgroup",
    "subgroup_xor": "subgroup_xor(x): bitwise xor of x over the subgroup",
    "subgroup_inclusive_add": "subgroup_inclusive_add(x): the running sum of x over the "
                              "lanes up to and including this one",
    "subgroup_exclusive_add": "subgroup_exclusive_add(x): the running sum of x over the "
                              "lanes before this one",
    "subgroup_all": "subgroup_all(cond): True when cond holds in every active lane",
    "subgroup_any": "subgroup_any(cond): True when cond holds in some active lane",
    "subgroup_broadcast_first": "subgroup_broadcast_first(x): x of the first active lane",
    "subgroup_broadcast": "subgroup_broadcast(x, lane): x of lane `lane` (a constant)",
    "subgroup_shuffle": "subgroup_shuffle(x, lane): x of lane `lane`",
    "subgroup_shuffle_xor": "subgroup_shuffle_xor(x, mask): x of lane (this lane ^ mask)",
    "subgroup_shuffle_up": "subgroup_shuffle_up(x, delta): x of lane (this lane - delta)",
    "subgroup_shuffle_down": "subgroup_shuffle_down(x, delta): x of lane (this lane + delta)",
    "subgroup_ballot": "subgroup_ballot(cond): a uvec4 mask of the lanes where cond holds",
    "subgroup_elect": "subgroup_elect(): True in exactly one active lane",
    "subgroup_barrier": "subgroup_barrier(): every active lane of the subgroup reaches it "
                        "before any goes on, and what the lanes wrote before it (shared "
                        "memory, buffers) is seen by the lanes after it",
    "atomic_add": "atomic_add(buf[i], value): adds value to buf[i] atomically; returns "
                  "the old value",
    "atomic_sub": "atomic_sub(buf[i], value): subtracts atomically; returns the old value",
    "atomic_min": "atomic_min(buf[i], value): keeps the smaller atomically; returns the "
                  "old value",
    "atomic_max": "atomic_max(buf[i], value): keeps the larger atomically; returns the "
                  "old value",
    "atomic_and": "atomic_and(buf[i], value): bitwise and, atomically; returns the old value",
    "atomic_or": "atomic_or(buf[i], value): bitwise or, atomically; returns the old value",
    "atomic_xor": "atomic_xor(buf[i], value): bitwise xor, atomically; returns the old value",
    "atomic_exchange": "atomic_exchange(buf[i], value): stores value; returns the old value",
    "atomic_compare_exchange": "atomic_compare_exchange(buf[i], expected, value): stores "
                               "value where buf[i] == expected; returns the old value",
    "atomic_load": "atomic_load(buf[i]): an atomic read (sees other invocations' atomics)",
    "atomic_store": "atomic_store(buf[i], value): an atomic write",
    "barrier": "barrier(): waits until every invocation of the workgroup reaches it, "
               "with shared-memory writes visible (every invocation must reach it)",
    "memory_barrier": "memory_barrier(): orders this invocation's memory accesses (device "
                      "scope, acquire-release)",
    "var": "var(x): a mutable local variable of x's type (host vp.var is numpy.var)",
    "bitcast": "bitcast(x, vp.uint32): x's bits as another type of the same size",
    "inversesqrt": "inversesqrt(x): 1 / sqrt(x)",
    "rsqrt": "rsqrt(x): 1 / sqrt(x) (inversesqrt)",
    "fract": "fract(x): x - floor(x)",
    "mod": "mod(x, y): x - y * floor(x / y), GLSL's mod",
    "mix": "mix(x, y, a): x * (1 - a) + y * a",
    "step": "step(edge, x): 0.0 where x < edge, else 1.0",
    "smoothstep": "smoothstep(e0, e1, x): the Hermite step from 0 at e0 to 1 at e1",
    "fma": "fma(a, b, c): a * b + c with one rounding",
    "dot": "dot(u, v): the dot product of two vectors (host vp.dot is numpy.dot)",
    "cross": "cross(u, v): the cross product of two vec3",
    "length": "length(v): the Euclidean length of vector v",
    "distance": "distance(u, v): length(u - v)",
    "normalize": "normalize(v): v / length(v)",
    "reflect": "reflect(i, n): i - 2 * dot(n, i) * n",
    "isnan": "isnan(x): True where x is NaN",
    "isinf": "isinf(x): True where x is infinite",
    "any": "any(bvec): True when some component holds",
    "all": "all(bvec): True when every component holds",
    "select": "select(cond, a, b): a where cond else b, without a branch",
    "transpose": "transpose(m): the transposed matrix",
    "bit_count": "bit_count(x): the number of set bits of a 32-bit integer, in its type",
    "find_lsb": "find_lsb(x): the index of the lowest set bit of a 32-bit integer, -1 for 0",
    "find_msb": "find_msb(x): the index of the highest set bit of a 32-bit integer (of a "
                "negative int32, the highest clear bit), -1 for 0 and -1",
    "func": "@vp.func: marks a helper function that kernels call (optional: module-level "
            "functions a kernel calls are helpers already)",
}


def _kernel_only(name):
    def stub(*args, **kwargs):
        raise RuntimeError(f"vp.{name}() is part of the kernel language: it works inside a "
                           f"@vp.kernel function or a .vul.py file, not in host Python")

    stub.__name__ = stub.__qualname__ = name
    stub.__module__ = "vulpy"
    what = _KERNEL_DOCS.get(name, f"{name}(...)")
    stub.__doc__ = (f"vp.{what}.\n\nKernel language only: it works inside a @vp.kernel "
                    f"function or a .vul.py file (docs/language.md lists the builtins and "
                    f"their types); called from host Python it raises RuntimeError.")
    return stub


KERNEL_STUBS = {name: _kernel_only(name) for name in KERNEL_ONLY}


# Names that are both a host function (NumPy's meaning, in host Python) and
# a kernel-language builtin (inside @vp.kernel / .vul.py): vp.var, vp.dot,
# vp.round. The frontend reads a kernel's AST, so `vp.var(expr)` in a kernel
# never calls the Python object; kernel_name marks the host function so.


def kernel_name(f, name):
    """Marks host function f as also the kernel language's `vp.<name>`."""
    f.__vp_kernel_builtin__ = name
    f.__doc__ = (f.__doc__ or "") + (f"\n\nInside a kernel, vp.{name}(...) is the kernel "
                                     f"language's builtin (docs/language.md).")
    return f


# VIR scalar spellings (manifests) -> the NumPy names a user writes, and
# NumPy names -> VIR spellings (raw GLSL kernels' declared push constants).
VIR_NAMES = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
             "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
             "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool"}
VIR_SPELLINGS = {n: v for v, n in VIR_NAMES.items()}
_DTYPES = {n: np.dtype(n) for n in VIR_NAMES.values() if n != "bool"}


def entry_dtype(entry):
    """The NumPy dtype of one component of a manifest buffer or field (the
    extension parses the VIR spelling once: its "dtype" and "lanes"), or
    None for a struct."""
    return _DTYPES.get(entry["dtype"])


def python_name(spelling):
    """A VIR spelling as a user writes it: 'f32' -> 'float32', 'vec4<i32>' -> 'ivec4'."""
    if spelling in VIR_NAMES:
        return VIR_NAMES[spelling]
    if spelling.startswith(("vec", "mat")):
        scalar = spelling[spelling.index("<") + 1:spelling.rindex(">")] if "<" in spelling \
            else "f32"
        return {"i32": "i", "u32": "u", "f64": "d", "bool": "b"}.get(scalar, "") + spelling[:4]
    return spelling.lstrip("@")
