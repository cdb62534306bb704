"""The NumPy names VulPy supports (issue 19), each checked on a small input
against NumPy: as vp.<name> on resident arrays (a resident result) and, for
names NumPy dispatches (ufuncs, __array_function__), as np.<name> on
resident arrays too. A name that regresses - removed, renamed, or wrong -
fails here. Add a name when VulPy gains one; never remove one to get green.
"""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

F = np.array([[0.25, 0.5, 0.75], [0.125, 0.375, 0.625]], np.float32)   # in (0, 1)
G = np.array([[1.5, 0.25, 2.0], [0.5, 1.25, 3.0]], np.float32)        # positive
I = np.array([[3, -7, 12], [5, 0, -2]], np.int32)
J = np.array([[1, 2, 5], [3, 4, 6]], np.int32)
P = np.array([[True, False, True], [False, False, True]])
Q = np.array([[True, True, False], [False, True, True]])

UFUNCS_1 = {  # name -> operand
    **{n: F for n in ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
                      "arcsinh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10",
                      "log1p", "sqrt", "cbrt", "negative", "absolute", "sign", "reciprocal",
                      "floor", "ceil", "trunc", "rint", "square", "isnan", "isinf",
                      "isfinite")},
    "arccosh": G + 1, "logical_not": P, "invert": I,
}
UFUNCS_2 = {  # name -> operands
    **{n: (G, F) for n in ("add", "subtract", "multiply", "divide", "floor_divide",
                           "remainder", "power", "minimum", "maximum", "arctan2", "less",
                           "less_equal", "greater", "greater_equal", "equal", "not_equal")},
    **{n: (I, J) for n in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    **{n: (P, Q) for n in ("logical_and", "logical_or", "logical_xor")},
}
# vp's other spellings of NumPy's names (NumPy 2 has them too)
ALIASES = {"abs": "absolute", "true_divide": "divide", "asin": "arcsin", "acos": "arccos",
           "atan": "arctan", "atan2": "arctan2", "asinh": "arcsinh", "acosh": "arccosh",
           "atanh": "arctanh", "pow": "power", "mod": "remainder"}
# array functions: name -> (args, kwargs) on NumPy operands
FUNCTIONS = {
    "sum": ((F,), {"axis": 1}), "prod": ((G,), {"axis": 0}), "mean": ((F,), {}),
    "min": ((I,), {"axis": 1}), "max": ((F,), {}), "amin": ((F,), {"axis": 0}),
    "amax": ((I,), {}), "argmin": ((G,), {"axis": 1}), "argmax": ((I,), {}),
    "any": ((P,), {"axis": 0}), "all": ((Q,), {"axis": 1}), "cumsum": ((I,), {"axis": 1}),
    "cumprod": ((G,), {"axis": 0}), "var": ((G,), {"axis": 1}),
    "std": ((G,), {"ddof": 1}), "where": ((P, F, G), {}), "clip": ((G, 0.5, 1.5), {}),
    "take": ((F, [2, 0]), {"axis": 1}), "transpose": ((F,), {}),
    "zeros_like": ((F,), {}), "ones_like": ((I,), {}), "full_like": ((F, 7.0), {}),
    "empty_like": ((F,), {}), "dot": ((F, G.T), {}),
}
# creation functions (no array operand): name -> (args, kwargs)
CREATION = {
    "zeros": (((2, 3),), {"dtype": np.float32}), "ones": ((4,), {"dtype": np.int32}),
    "full": (((2, 2), 1.5), {"dtype": np.float32}), "empty": ((3,), {"dtype": np.float32}),
    "arange": ((1, 9, 2), {"dtype": np.int32}),
    "linspace": ((0.0, 1.0, 5), {"dtype": np.float32}),
    "asarray": ((F,), {}), "array": ((I,), {}),
}
METHODS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "any", "all", "cumsum",
           "cumprod", "var", "std", "reshape", "ravel", "flatten", "copy", "astype", "fill",
           "tolist", "item", "transpose", "take"]
ATTRIBUTES = ["shape", "dtype", "ndim", "size", "nbytes", "itemsize", "T"]

# --- issue 19: shape ops, more ufuncs, NaN/order statistics (test_array_api.py has the
# differential tests; these fail when a name regresses)
H = np.array([[1.0, np.nan, 3.0], [0.5, -2.0, np.nan]], np.float32)
UFUNCS_1.update({"fabs": F - 0.5, "signbit": F - 0.5, "spacing": G - 1, "bitwise_count": I, "deg2rad": G, "rad2deg": F,
                 "radians": G, "degrees": F})
UFUNCS_2.update({"fmod": (G, F), "hypot": (G, F), "fmax": (H, F), "fmin": (H, F),
                 "copysign": (G, F - 0.5), "logaddexp": (G, F), "logaddexp2": (G, F),
                 "heaviside": (G - 0.5, F), "nextafter": (G, F), "gcd": (I, J),
                 "lcm": (I, J), "float_power": (G, F),
                 "left_shift": (I, J), "right_shift": (I, J),
                 "ldexp": (F, J)})
FUNCTIONS.update({
    "reshape": ((F, (3, 2)), {}), "ravel": ((F,), {}), "swapaxes": ((F, 0, 1), {}),
    "moveaxis": ((F, 0, -1), {}), "expand_dims": ((F, 1), {}), "squeeze": ((F[:1],), {}),
    "concatenate": (([F, G],), {"axis": 1}), "stack": (([F, G],), {}),
    "hstack": (([F, G],), {}), "vstack": (([F, G],), {}), "dstack": (([F, G],), {}),
    "column_stack": (([F, G],), {}), "flip": ((F,), {"axis": 1}), "fliplr": ((F,), {}),
    "flipud": ((F,), {}), "roll": ((F, 1), {"axis": 1}), "broadcast_to": ((F[0], (4, 3)), {}),
    "tile": ((F, (2, 1)), {}), "repeat": ((F, 2), {"axis": 0}),
    "pad": ((I, 1), {"constant_values": 9}), "around": ((G, 1), {}), "round": ((G, 1), {}),
    "nansum": ((H,), {"axis": 1}), "nanprod": ((H,), {}), "nanmax": ((H,), {"axis": 0}),
    "nanmin": ((H,), {}), "nanmean": ((H,), {"axis": 1}), "nanvar": ((H,), {}),
    "nanstd": ((H,), {"axis": 1}), "median": ((G,), {"axis": 1}), "ptp": ((I,), {"axis": 0}),
    "count_nonzero": ((I,), {"axis": 1}), "average": ((G,), {"axis": 1, "weights": F[0]}),
    "flatnonzero": ((I,), {}), "argwhere": ((I,), {}), "outer": ((F[0], G[1]), {}),
})
# --- issue 19: linear algebra on the GEMM kernels (test_matmul.py has the differential tests)
FUNCTIONS.update({
    "matmul": ((F, G.T), {}), "vdot": ((F, G), {}), "inner": ((F, G), {}),
    "tensordot": ((F, G.T), {"axes": 1}), "einsum": (("ij,kj->ik", F, G), {}),
})
CREATION.update({"eye": ((3, 4, 1), {"dtype": np.float32}),
                 "identity": ((3,), {"dtype": np.float32})})
METHODS += ["squeeze", "round"]
# methods with arguments: name -> args
METHODS_ARGS = {"swapaxes": (0, 1), "repeat": (2,), "nonzero": (), "view": (np.int32,)}
# functions that return a list or tuple of resident arrays
SEQUENCES = {"split": ((F, 3), {"axis": 1}), "array_split": ((F, 2), {"axis": 1}),
             "hsplit": ((F, 3), {}), "vsplit": ((F, 2), {}), "nonzero": ((I,), {})}
LINALG = {"norm": [((F,), {}), ((F, 1), {"axis": 1}), ((F, "fro"), {}), ((F, np.inf), {})]}
# solve / inv / det / slogdet (LU on the device; test_linalg_solve.py has the differential tests)
SQ = np.array([[4.0, 1.0, 0.5], [1.0, -3.0, 2.0], [0.0, 2.0, 5.0]], np.float32)  # square
LINALG.update({"solve": [((SQ, G[0]), {}), ((SQ, G.T), {})], "inv": [((SQ,), {})],
               "det": [((SQ,), {})], "slogdet": [((SQ,), {})],
               "cholesky": [((SQ @ SQ.T,), {}), ((SQ @ SQ.T,), {"upper": True})],
               # the one-sided Jacobi SVD (test_linalg_svd.py)
               "svdvals": [((G,), {})], "pinv": [((G,), {})], "matrix_rank": [((SQ,), {})],
               "cond": [((SQ,), {}), ((SQ, 1), {})], "svd": [((G,), {"compute_uv": False})],
               # cyclic Jacobi (test_linalg_eigh.py; eigh's vectors are checked there)
               "eigvalsh": [((SQ + SQ.T,), {}), ((SQ + SQ.T,), {"UPLO": "U"})],
               # Householder (test_linalg_qr.py): Q and R as NumPy's, signs included
               "qr": [((G,), {}), ((SQ,), {"mode": "complete"}), ((G.T,), {"mode": "r"})],
               # NumPy 2's compositions (test_linalg_api.py)
               "matmul": [((G, G.T), {})], "outer": [((F[0], G[0]), {})],
               "trace": [((SQ,), {"offset": 1})], "diagonal": [((SQ,), {})],
               "matrix_transpose": [((G,), {})], "vecdot": [((G, G), {})],
               "cross": [((SQ, SQ[::-1]), {})], "matrix_norm": [((G,), {"ord": 1})],
               "vector_norm": [((G,), {"axis": 1})], "matrix_power": [((SQ, 3), {})],
               "tensorinv": [((SQ.reshape(3, 3), 1), {})]})
# (lstsq returns a Python int among its arrays: test_linalg_svd.py checks it)
FUNCTIONS.update({"polyfit": ((np.arange(6.0), np.arange(6.0) ** 2, 2), {})})
# _morefuncs.py (test_morefuncs.py has the differential tests)
FUNCTIONS.update({"delete": ((G, [0, 2]), {"axis": 1}), "insert": ((F, 1, 7.0), {}),
                  "resize": ((I, (2, 7)), {}), "compress": (([True, False], G), {"axis": 0}),
                  "extract": ((I > 0, I), {}), "fix": ((H,), {}), "sinc": ((G,), {}),
                  "isposinf": ((H,), {}), "isneginf": ((H,), {}), "diagflat": ((G[0],), {}),
                  "rollaxis": ((G, 1), {}), "cumulative_sum": ((I,), {"axis": 0}),
                  "matrix_transpose": ((G,), {}),  # (unique_values: NumPy's order varies)
                  "polyadd": ((F[0], G[0]), {}), "polyder": ((F[0],), {})})
SEQUENCES.update({"unstack": ((G,), {}), "ix_": ((I[0], J[0]), {}),
                  "unique_counts": ((J % 3,), {})})


# --- issue 19: comparisons, differences, matrix-shape helpers (_numeric.py;
# test_numeric.py has the differential tests)
FUNCTIONS.update({
    "isclose": ((G, G + 1e-7), {}), "diff": ((I,), {"axis": 0}), "ediff1d": ((F,), {}),
    "tril": ((F,), {"k": 1}), "triu": ((G,), {}), "diagonal": ((G,), {"offset": 1}),
    "trace": ((G,), {}), "diag": ((G,), {}), "nan_to_num": ((H,), {}),
    "append": ((F, G), {"axis": 0}), "atleast_3d": ((F,), {}),
})
CREATION.update({"logspace": ((0.0, 2.0, 3), {"dtype": np.float32})})
SEQUENCES.update({"meshgrid": ((F[0], G[0]), {}),
                  "broadcast_arrays": ((F, G[0], I[:, :1]), {})})
# two-output ufuncs: np.divmod / np.modf on resident arrays run on the device
SEQUENCES.update({"divmod": ((I, J), {}), "modf": ((G,), {}), "frexp": ((G,), {})})
FUNCTIONS.update({"unwrap": ((G * 3,), {"axis": 0}), "vander": ((I[0], 4), {}),
                  "trim_zeros": ((np.array([0, 0, 3, 0, 5, 0], np.int32),), {"trim": "f"})})


# --- issue 19: sorting and searching (test_sort.py has the differential tests)
FUNCTIONS.update({"sort": ((I,), {"axis": 0}), "argsort": ((H,), {"axis": 1}),
                  "unique": ((I,), {}),
                  "searchsorted": ((np.sort(F.ravel()), G[0]), {"side": "right"}),
                  # rows of 3, kth 1: every valid partition is sorted, so NumPy's is exact
                  "partition": ((I, 1), {"axis": 1}), "argpartition": ((G, 1), {"axis": 1}),
                  "lexsort": (((I[0], J[0] % 2),), {})})
# --- issue 19: interpolation and differences (test_interp_gradient.py)
FUNCTIONS.update({"interp": ((F[1], np.sort(G[1]), F[0]), {}),
                  "gradient": ((G,), {"axis": 1, "edge_order": 2}),
                  "convolve": ((F[0], G[1]), {"mode": "same"}),
                  "correlate": ((G[0], F[1]), {"mode": "full"})})
# --- issue 19: blocks, functional helpers, windows, i0 (_numpyfuncs.py; test_numpyfuncs.py)
FUNCTIONS.update({"block": (([F, G],), {}), "choose": ((J % 3, [F, G, F + G]), {}),
                  "sort_complex": ((G,), {}), "i0": ((G,), {}),
                  "apply_along_axis": ((np.sum, 1, G), {}),
                  "apply_over_axes": ((np.sum, I, [0]), {})})
# the window functions: NumPy's float64 formula, resident as float32 (vp.linspace's rule)
WINDOWS = {"bartlett": (5,), "blackman": (6,), "hamming": (4,), "hanning": (7,),
           "kaiser": (8, 3.0)}
SEQUENCES["unique"] = ((J % 3,), {"return_index": True, "return_inverse": True,
                                  "return_counts": True})
METHODS += ["argsort"]

# --- issue 19: quantiles, unique(axis=), numpy.fft's helpers, einsum's sublist form
# (test_quantile_unique_fft_helpers.py has the differential tests)
FUNCTIONS.update({"percentile": ((G, 30.0), {"axis": 1}), "quantile": ((G, [0.2, 0.8]), {}),
                  "nanpercentile": ((H, [40.0]), {"axis": 1}), "nanquantile": ((H, 0.5), {})})
FORMS = {  # another form of a name above: label -> (name, args, kwargs)
    "unique axis=0": ("unique", (J % 2,), {"axis": 0}),
    "unique axis=1": ("unique", (I % 2,), {"axis": 1, "return_counts": True}),
    "einsum sublist": ("einsum", (F, [0, 1], G, [2, 1], [0, 2]), {}),
}
# --- issue 19: the reductions completed (test_hunt_reduce.py has the differential tests)
UFUNCS_1["positive"] = F - 0.5
FUNCTIONS.update({"nanargmin": ((H,), {"axis": 1}), "nanargmax": ((H,), {"axis": 0}),
                  "nanmedian": ((H,), {"axis": 1}), "nancumsum": ((H,), {"axis": 1}),
                  "nancumprod": ((H,), {})})
FORMS.update({
    "sum initial where": ("sum", (F,), {"axis": 1, "initial": 2.0, "where": P}),
    "prod where": ("prod", (G,), {"where": Q}),
    "max initial where": ("max", (I,), {"axis": 0, "initial": -1, "where": P}),
    "min initial": ("min", (G,), {"initial": 0.5}),
    "mean where": ("mean", (F,), {"axis": 1, "where": Q}),
    "std where": ("std", (G,), {"where": P}),
    "any where": ("any", (P,), {"axis": 0, "where": Q}),
    "nansum initial where": ("nansum", (H,), {"initial": 1.0, "where": P}),
    "nanmax initial": ("nanmax", (H,), {"axis": 1, "initial": 0.0}),
    "nanmean where": ("nanmean", (H,), {"where": Q}),
    "sum dtype=bool": ("sum", (I,), {"axis": 1, "dtype": np.bool_}),
    "mean dtype=int32": ("mean", (I,), {"axis": 0, "dtype": np.int32}),
})
FFT_HELPERS = {  # numpy.fft name -> (args, kwargs); NumPy arrays go in resident
    "fftfreq": ((8, 0.5), {}), "rfftfreq": ((9,), {}), "fftshift": ((F,), {"axes": 1}),
    "ifftshift": ((G,), {}),
}


# --- more NumPy functions: index helpers, set operations, binning, statistics
# (test_numpy_more.py has the differential tests)
S = np.array([3, 1, 4, 1, 5], np.int32)
FUNCTIONS.update({
    "take_along_axis": ((G, np.argsort(G, axis=1)), {"axis": 1}),
    "ravel_multi_index": (([np.array([0, 1]), np.array([2, 0])], (2, 3)), {}),
    "rot90": ((F,), {"k": 3}), "isin": ((I, J), {}), "union1d": ((I, J), {}),
    "intersect1d": ((I, J), {}), "setdiff1d": ((J, I), {}), "setxor1d": ((I, J), {}),
    "digitize": ((F, np.array([0.2, 0.5, 0.7])), {}), "bincount": ((S,), {"minlength": 7}),
    "cov": ((G.astype(np.float64),), {}), "corrcoef": ((G.astype(np.float64),), {}),
    "kron": ((I, J), {}), "trapezoid": ((G,), {"axis": 0}), "polyval": ((F[0], G), {}),
})
CREATION.update({"indices": (((2, 3),), {})})
# tri and geomspace (float32 by VulPy's creation rule; NumPy's values)
CREATION.update({"tri": ((3, 4, 1), {"dtype": np.float32}),
                 "geomspace": ((1.0, 1000.0, 4), {"dtype": np.float32})})
FUNCTIONS.update({"real_if_close": ((F.astype(np.complex64) + 1e-9j,), {})})
SEQUENCES.update({"unravel_index": ((np.array([1, 5]), (2, 3)), {}),
                  "histogram": ((G,), {"bins": 3}),
                  "histogram2d": ((F[0], G[0]), {"bins": 3})})
FUNCTIONS.update({"histogram_bin_edges": ((G,), {"bins": 4}),
                  "packbits": ((I > 2,), {"axis": 1}),
                  "unpackbits": ((np.array([[7, 200]], np.uint8),), {"axis": 1})})
FORMS.update({
    "intersect1d return_indices": ("intersect1d", (I, J), {"return_indices": True}),
    "histogram weights": ("histogram", (G,), {"bins": [0.0, 1.0, 3.0], "weights": F}),
})


def _res(x):
    if isinstance(x, (list, tuple)) and x and all(isinstance(e, np.ndarray) for e in x):
        return type(x)(vp.asarray(e) for e in x)  # concatenate([a, b]), lexsort((a, b))
    return vp.asarray(x) if isinstance(x, np.ndarray) else x


def _check(got, want, name):
    assert isinstance(got, vp.ndarray), f"{name}: {type(got).__name__}, not vp.ndarray"
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, name
    if name.replace("np.", "") in ("empty", "empty_like"):
        return
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6, err_msg=name)


# --- issue 19: the dtypes VulPy supports (resident arrays, ufuncs, reductions).
# test_small_dtypes.py tests the small ones in depth; this list only grows.
DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64"]


@pytest.mark.parametrize("name", DTYPES)
def test_dtype(name):
    dt = np.dtype(name)
    assert getattr(vp, name if name != "bool" else "bool_") is dt.type
    a = (np.arange(7) % 3).astype(dt)
    x = vp.asarray(a)
    assert x.dtype == dt and x.numpy().tobytes() == a.tobytes()
    _check(vp.zeros(3, dt), np.zeros(3, dt), f"zeros {name}")
    op = "logical_or" if name == "bool" else "add"  # (vp.add has no bool loop)
    _check(getattr(vp, op)(x, x), getattr(np, op)(a, a), f"{op} {name}")
    _check(vp.maximum(x, a[::-1]), np.maximum(a, a[::-1]), f"maximum {name}")
    _check(x == 1, a == 1, f"equal {name}")
    _check(x.astype(np.float32), a.astype(np.float32), f"astype {name}")
    _check(vp.asarray(vp.max(x)), np.asarray(np.max(a)), f"max {name}")
    _check(vp.asarray(vp.sum(x)), np.asarray(np.sum(a)), f"sum {name}")


@pytest.mark.parametrize("name", sorted(UFUNCS_1))
def test_unary_ufunc(name):
    a = UFUNCS_1[name]
    _check(getattr(vp, name)(vp.asarray(a)), getattr(np, name)(a), name)
    _check(getattr(np, name)(vp.asarray(a)), getattr(np, name)(a), "np." + name)


@pytest.mark.parametrize("name", sorted(UFUNCS_2))
def test_binary_ufunc(name):
    a, b = UFUNCS_2[name]
    _check(getattr(vp, name)(vp.asarray(a), vp.asarray(b)), getattr(np, name)(a, b), name)
    _check(getattr(np, name)(vp.asarray(a), vp.asarray(b)), getattr(np, name)(a, b),
           "np." + name)


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_alias(name):
    assert getattr(vp, name) is getattr(vp, ALIASES[name])
    assert getattr(np, name) is getattr(np, ALIASES[name])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function(name):
    args, kw = FUNCTIONS[name]
    want = getattr(np, name)(*args, **kw)
    _check(getattr(vp, name)(*map(_res, args), **kw), want, name)
    _check(getattr(np, name)(*map(_res, args), **kw), want, "np." + name)


@pytest.mark.parametrize("name", sorted(CREATION))
def test_creation(name):
    args, kw = CREATION[name]
    _check(getattr(vp, name)(*args, **kw), getattr(np, name)(*args, **kw), name)


@pytest.mark.parametrize("name", METHODS)
def test_method(name):
    x = vp.asarray(G)
    assert callable(getattr(x, name)), name
    call = {"reshape": ((3, 2),), "astype": (np.int32,), "fill": (2.0,), "take": ([1],)}
    if name == "item":
        assert vp.asarray(np.float32(2.5)).item() == 2.5
        return
    got = getattr(x, name)(*call.get(name, ()))
    want = getattr(G.copy(), name)(*call.get(name, ()))
    if name == "fill":
        got, want = x, np.full_like(G, 2.0)
    if name == "tolist":
        assert got == want
        return
    _check(got, want, name)


@pytest.mark.parametrize("name", ATTRIBUTES)
def test_attribute(name):
    got = getattr(vp.asarray(F), name)
    want = getattr(F, name)
    if name == "T":
        _check(got, want, name)
    else:
        assert got == want, name


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_sequence_function(name):
    args, kw = SEQUENCES[name]
    want = getattr(np, name)(*args, **kw)
    for got in (getattr(vp, name)(*map(_res, args), **kw),
                getattr(np, name)(*map(_res, args), **kw)):
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            _check(g, w, name)


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg(name):
    for args, kw in LINALG[name]:
        want = getattr(np.linalg, name)(*args, **kw)
        for f, label in ((vp.linalg, "linalg."), (np.linalg, "np.linalg.")):
            got = getattr(f, name)(*map(_res, args), **kw)
            for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
                _check(g, w, label + name)  # slogdet: (sign, logabsdet)


@pytest.mark.parametrize("name", sorted(METHODS_ARGS))
def test_method_with_args(name):
    got = getattr(vp.asarray(G), name)(*METHODS_ARGS[name])
    want = getattr(G.copy(), name)(*METHODS_ARGS[name])
    for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
        _check(g, w, name)
BOOLS = {"allclose": ((G, G + 1e-7), {}), "array_equal": ((I, I), {}),
         "array_equiv": ((I, I[0]), {})}


@pytest.mark.parametrize("name", sorted(BOOLS))
def test_bool_function(name):
    args, kw = BOOLS[name]
    want = getattr(np, name)(*args, **kw)
    for got in (getattr(vp, name)(*map(_res, args), **kw),
                getattr(np, name)(*map(_res, args), **kw)):
        assert got is want, name      # a Python bool, as NumPy's


# --- issue 19: numpy.random's Generator API (test_random.py has the stream and
# statistical tests). name -> (args, kwargs); the result's shape and dtype are
# NumPy's Generator(Philox(seed)) ones, and the BIT_IDENTICAL ones its values.
RANDOM_METHODS = {
    "random": (((2, 3),), {}), "standard_normal": ((5,), {"dtype": np.float32}),
    "normal": ((1.0, 2.0, 4), {}), "uniform": ((-1.0, 1.0, (2, 2)), {}),
    "integers": ((0, 10, 7), {}), "exponential": ((2.0, 3), {}),
    "lognormal": ((0.0, 1.0, 3), {}), "laplace": ((0.0, 1.0, (2, 2)), {}),
    "logistic": ((0.0, 1.0, 3), {}), "gumbel": ((0.0, 1.0, 3), {}), "rayleigh": ((1.0, 3), {}),
    "weibull": ((2.0, 3), {}), "pareto": ((2.0, 3), {}), "power": ((2.0, 3), {}),
    "standard_cauchy": ((3,), {}), "triangular": ((0.0, 1.0, 2.0, 3), {}),
    "wald": ((1.0, 1.0, 3), {}), "standard_gamma": ((2.0, 3), {"dtype": np.float32}),
    "gamma": ((2.0, 1.0, 3), {}), "chisquare": ((3.0, 3), {}), "standard_t": ((3.0, 3), {}),
    "beta": ((2.0, 3.0, 3), {}), "f": ((3.0, 4.0, 3), {}), "poisson": ((3.0, (2, 3)), {}),
    "binomial": ((10, 0.3, 4), {}), "negative_binomial": ((3, 0.5, 4), {}),
    "geometric": ((0.3, 4), {}), "multinomial": ((10, [0.2, 0.8], 3), {}),
    "dirichlet": (([0.5, 2.0], 3), {}),
    "multivariate_normal": (([0.0, 1.0], [[1.0, 0.2], [0.2, 1.0]], 3), {}),
    "noncentral_chisquare": ((3.0, 1.0, 3), {}), "noncentral_f": ((3.0, 4.0, 1.0, 3), {}),
    "vonmises": ((0.0, 1.0, 3), {}), "logseries": ((0.5, 3), {}), "zipf": ((2.0, 3), {}),
    "hypergeometric": ((20, 10, 15, 3), {}),
}
RANDOM_BIT_IDENTICAL = {"random"}
RANDOM_MODULE = ["default_rng", "Generator", "Philox", "seed", "rand", "randn", "random",
                 "random_sample", "uniform", "normal", "standard_normal", "integers",
                 "randint", "exponential", "lognormal", "laplace", "logistic", "gumbel",
                 "rayleigh", "weibull", "pareto", "power", "standard_cauchy", "triangular",
                 "wald", "standard_gamma", "gamma", "chisquare", "standard_t", "beta", "f",
                 "poisson", "binomial", "negative_binomial", "geometric", "multinomial",
                 "dirichlet", "multivariate_normal", "noncentral_chisquare", "noncentral_f",
                 "vonmises", "logseries", "zipf", "hypergeometric"]


@pytest.mark.parametrize("name", sorted(RANDOM_METHODS))
def test_random_generator_method(name):
    args, kw = RANDOM_METHODS[name]
    want = getattr(np.random.Generator(np.random.Philox(5)), name)(*args, **kw)
    got = getattr(vp.random.default_rng(5), name)(*args, **kw)
    assert isinstance(got, vp.ndarray), name
    assert got.shape == want.shape and got.dtype == want.dtype, name
    if name in RANDOM_BIT_IDENTICAL:
        np.testing.assert_array_equal(got.numpy(), want, err_msg=name)


@pytest.mark.parametrize("name", RANDOM_MODULE)
def test_random_module_name(name):
    assert callable(getattr(vp.random, name)), name
    # the spelling is NumPy's (a numpy.random function, or a Generator method)
    assert hasattr(np.random, name) or hasattr(np.random.Generator, name), name
    np.testing.assert_array_equal(vp.random.Philox(3).random_raw(6).numpy(),
                                  np.random.Philox(3).random_raw(6))


def test_method_sort_in_place():
    x = vp.asarray(I)
    assert x.sort(axis=0) is None
    _check(x, np.sort(I, axis=0), "ndarray.sort")


# --- issue 19: complex dtypes and numpy.fft (test_complex.py and test_fft.py have the
# differential tests; these fail when a name regresses)
Z = np.array([[1 + 2j, -0.5j, 3.0], [0.25 - 1j, 2 + 2j, -1.5 + 0.5j]], np.complex64)
FORMS.update({"sum complex": ("sum", (Z,), {"axis": 1}), "mean complex": ("mean", (Z,), {}),
              "cumsum complex": ("cumsum", (Z,), {"axis": 0})})
R = np.array([[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.75, 3.0]], np.float32)
COMPLEX_DTYPES = ["complex64", "complex128"]
COMPLEX_FUNCTIONS = {"real": (Z,), "imag": (Z,), "conj": (Z,), "conjugate": (Z,),
                     "angle": (Z,), "absolute": (Z,), "exp": (Z,), "negative": (Z,),
                     "add": (Z, Z), "subtract": (Z, R[:, :3]), "multiply": (Z, 2j),
                     "divide": (Z, Z + 1), "equal": (Z, Z), "not_equal": (Z, 1j),
                     "sqrt": (Z,), "log": (Z,), "log2": (Z,), "log10": (Z,), "square": (Z,),
                     "reciprocal": (Z,), "isnan": (Z,), "isinf": (Z,), "isfinite": (Z,),
                     "matmul": (Z, Z.T.copy()), "dot": (Z, Z.T.copy()), "vdot": (Z, Z),
                     "inner": (Z, Z), "tensordot": (Z, Z), "outer": (Z[0], Z[1]),
                     "kron": (Z, Z), "sin": (Z,), "cos": (Z,), "tan": (Z,), "sinh": (Z,),
                     "cosh": (Z,), "tanh": (Z,), "power": (Z, 3), "prod": (Z,),
                     "cumprod": (Z,), "var": (Z,), "std": (Z,), "nansum": (Z,),
                     "exp2": (Z,), "expm1": (Z,), "log1p": (Z,), "sign": (Z,),
                     "round": (Z, 1), "around": (Z,), "rint": (Z,), "arcsin": (Z,),
                     "arccos": (Z,), "arctan": (Z,), "arcsinh": (Z,), "arccosh": (Z,),
                     "arctanh": (Z,), "float_power": (Z, 2)}
COMPLEX_ATTRIBUTES = ["real", "imag", "conj", "conjugate"]
FFT = {  # numpy.fft name -> (operand, kwargs)
    "fft": (Z, {"axis": 0}), "ifft": (Z, {"n": 5}), "fft2": (Z, {}), "ifft2": (Z, {}),
    "fftn": (Z, {"axes": (1,)}), "ifftn": (Z, {"norm": "ortho"}), "rfft": (R, {}),
    "irfft": (np.fft.rfft(R).astype(np.complex64), {}), "rfft2": (R, {}),
    "irfft2": (np.fft.rfft2(R).astype(np.complex64), {"s": (2, 4)}), "rfftn": (R, {}),
    "irfftn": (np.fft.rfftn(R).astype(np.complex64), {"s": (2, 4), "axes": (0, 1)}),
    "hfft": (Z, {"n": 6}), "ihfft": (R, {"norm": "ortho"}),
}


def _check_tol(got, want, name, tol=2e-5):
    assert isinstance(got, vp.ndarray), f"{name}: {type(got).__name__}, not vp.ndarray"
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (name, got.dtype, want.dtype)
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * np.abs(want).max(),
                               err_msg=name)


@pytest.mark.parametrize("name", COMPLEX_DTYPES)
def test_complex_dtype(name):
    z = Z.astype(name)
    _check(vp.asarray(z), z, name)
    _check(vp.zeros((2, 3), name), np.zeros((2, 3), name), "zeros " + name)


@pytest.mark.parametrize("name", sorted(COMPLEX_FUNCTIONS))
def test_complex_function(name):
    args = COMPLEX_FUNCTIONS[name]
    want = getattr(np, name)(*args)
    _check_tol(getattr(vp, name)(*map(_res, args)), want, name)
    _check_tol(getattr(np, name)(*map(_res, args)), want, "np." + name)


@pytest.mark.parametrize("name", COMPLEX_ATTRIBUTES)
def test_complex_attribute(name):
    got, want = getattr(vp.asarray(Z), name), getattr(Z, name)
    if callable(want):
        got, want = got(), want()
    _check_tol(got, want, name)


@pytest.mark.parametrize("name", sorted(FFT))
def test_fft_name(name):
    a, kw = FFT[name]
    want = getattr(np.fft, name)(a, **kw)
    _check_tol(getattr(vp.fft, name)(vp.asarray(a), **kw), want, "vp.fft." + name)
    _check_tol(getattr(np.fft, name)(vp.asarray(a), **kw), want, "np.fft." + name)


@pytest.mark.parametrize("label", sorted(FORMS))
def test_function_form(label):
    name, args, kw = FORMS[label]
    want = getattr(np, name)(*args, **kw)
    for who, f in (("vp.", getattr(vp, name)), ("np.", getattr(np, name))):
        got = f(*map(_res, args), **kw)
        for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
            _check(g, w, who + label)


@pytest.mark.parametrize("name", sorted(FFT_HELPERS))
def test_fft_helper_name(name):
    args, kw = FFT_HELPERS[name]
    want = getattr(np.fft, name)(*args, **kw)
    _check(getattr(vp.fft, name)(*map(_res, args), **kw), want, "vp.fft." + name)
    if any(isinstance(a, np.ndarray) for a in args):
        _check(getattr(np.fft, name)(*map(_res, args), **kw), want, "np.fft." + name)


# --- issue 19: functions that write into their first argument (test_numeric.py and
# test_numpy_more.py have the differential tests): name -> (array, args, kwargs)
IN_PLACE = {
    "copyto": (I, (J,), {"where": P}), "putmask": (I, (P, J[0, :2]), {}),
    "place": (I, (Q, J[1]), {}),
    "put_along_axis": (G, (np.array([[2], [0]]), 9.0, 1), {}),
    "fill_diagonal": (G, (7.0,), {}),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_function(name):
    a, args, kw = IN_PLACE[name]
    want = a.copy()
    assert getattr(np, name)(want, *args, **kw) is None
    for f in (getattr(vp, name), getattr(np, name)):
        x = vp.asarray(a)
        assert f(x, *map(_res, args), **kw) is None, name
        _check(x, want, name)


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_window(name):
    _check(getattr(vp, name)(*WINDOWS[name]),
           getattr(np, name)(*WINDOWS[name]).astype(np.float32), name)
