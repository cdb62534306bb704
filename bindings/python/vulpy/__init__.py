"""VulPy: write Python, run on any GPU, inspect the GLSL it generates.

    import numpy as np
    import vulpy as vp

    x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
    y = vp.sin(x) + vp.exp(x)      # on the GPU; NumPy in, NumPy out

The modes, from the seed's table (docs/python-api.md is the reference):
  convenience   vp.sin, vp.add, ... on NumPy arrays           (_ufunc)
  resident      vp.asarray, vp.empty, ..., .numpy_view()       (_array)
  kernels       @vp.kernel, vp.kernel(GLSL_SOURCE, ...)        (_kernel)
  .vul.py       vp.compile(path, ...)                          (_shader)
  control       vp.ControlBuffer                               (_control)
  devices       vp.list_devices(), vp.Context                  (_context)

`import vulpy` works without the C extension (the AST dump, `python -m
vulpy dump-ast`, is pure Python); anything that needs the GPU or the
compiler then raises ExtensionMissingError saying how to build it.
"""
from ._version import __version__  # noqa: F401

from ._astjson import dump_file, dump_function, dump_source, to_json  # noqa: F401
from ._errors import (CompileError, DeviceLostError, ExtensionMissingError,  # noqa: F401
                      FeatureError, OutOfMemoryError, VulkanError)
from ._persistent import PersistentError, PersistentHandle  # noqa: F401
from ._errors import KernelError  # noqa: F401  (debug mode, issue 20)
from ._types import *  # noqa: F401,F403  (float32, vec4, Buffer, Control, ...)
from ._types import Buffer, Control, Shared, KERNEL_STUBS as _KS, VECTORS as _VECS  # noqa: F401
from ._context import (Context, default_context, list_devices,  # noqa: F401
                       set_default_context)
from ._context import MemoryPool, get_default_memory_pool  # noqa: F401  (memory pool)
from ._context import array_namespace_info as __array_namespace_info__  # noqa: F401 (array API)
__array_api_version__ = "2024.12"  # the array API revision x.__array_namespace__() follows
from ._array import (aligned_empty, arange, array, asarray, empty, empty_like,  # noqa: F401
                     full, full_like, linspace, ndarray, ones, ones_like, zeros, zeros_like,
                     MEMORY_KINDS)
from . import _array as _a  # noqa: E402
import sys as _sys  # noqa: E402
_a.bind_ops(_sys.modules[__name__])  # ndarray's methods call the op modules below through vp
del _a
from ._launch import Handle  # noqa: F401
from ._kernel import kernel  # noqa: F401
from ._shader import Shader, compile  # noqa: F401
from ._control import ControlBuffer  # noqa: F401
from ._memsock import MemSock  # noqa: F401  (GPU -> CPU frame channels)
from . import _ufunc
from ._jit import JitFunction, TracingError, fuse, jit  # noqa: F401  (fusion mode)
from . import _reduce, _indexing  # noqa: F401  (reductions, indexing, views on ndarray)
from . import _scatter  # noqa: E402,F401  (ufunc.at)
from ._reduce import (all, any, argmax, argmin, cumprod, cumsum, mean, prod,  # noqa: F401,A004
                      sum)
from ._indexing import take, transpose  # noqa: F401

# --- issue 19 (array API): host vp.var / vp.std (NumPy's; vp.var keeps its
# kernel-language meaning inside kernels), np.<function>(resident) dispatch
from ._reduce import std, var  # noqa: F401,E402
from ._types import kernel_name as _kn  # noqa: E402
_kn(var, "var")
del _kn, _sys

# ufuncs: vp.sin, vp.add, vp.where, ... and their GLSL-style aliases
for _n in _ufunc.ALL:
    globals()[_n] = getattr(_ufunc, _n)
# the kernel language's own names, where no host function has the name
for _n, _f in _KS.items():
    globals().setdefault(_n, _f)
globals().update(_VECS)
del _n, _f
# Python's names that kernels use for min/max/abs/round are the builtins;
# vp.min / vp.max are the NumPy-style two-argument forms on the host.
# vp.min(a) / vp.max(a) reduce like NumPy's; with a second array operand they
# are the elementwise minimum / maximum (_reduce.py).
min = _reduce.min  # noqa: A001
max = _reduce.max  # noqa: A001
amin, amax = _reduce.amin, _reduce.amax
bool = bool_  # noqa: A001,F405


def _has_extension():
    from . import _native
    return _native.available()


# --- issue 20 (trust): timeouts, the kernel cache's warnings ---
from ._errors import CacheWarning, CompileWarning, TimeoutError  # noqa: E402,F401,A004


# --- issue 18 (beyond one device): DLPack import ---
from ._array import from_dlpack  # noqa: E402,F401


# --- issue 18 (beyond one device): shared host pages ---
from ._hostarray import HostArray, SharingWarning  # noqa: E402,F401

# --- issue 19 (array API): shape ops, more ufuncs, NaN/order statistics, linalg.norm
from ._shapeops import (array_split, broadcast_arrays, broadcast_shapes,  # noqa: E402,F401
                        broadcast_to, column_stack, concatenate,
                        dstack, expand_dims, eye, flip, fliplr, flipud, hsplit, hstack,
                        identity, moveaxis, pad, ravel, repeat, reshape, roll, split, squeeze,
                        stack, swapaxes, tile, vsplit, vstack)
from ._stats import (argwhere, average, count_nonzero, flatnonzero, median,  # noqa: E402,F401
                     nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmedian,
                     nanmin, nanprod, nanstd, nansum, nanvar, nonzero, outer, ptp)
from ._ufunc import around  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
round = around  # noqa: A001  (host numpy.round; inside a kernel vp.round is GLSL's round)
_types.kernel_name(around, "round")  # noqa: F405

# --- issue 22 (kernel language): struct classes on the host (std430 dtypes) ---
from ._structs import struct, struct_dtype  # noqa: E402,F401

# --- issue 19 (array API): comparisons, differences, matrix-shape helpers ---
from ._numeric import (allclose, append, array_equal, array_equiv,  # noqa: E402,F401
                       atleast_1d, atleast_2d, atleast_3d, diag, diagonal, diff, divmod,
                       ediff1d, geomspace, isclose, logspace, meshgrid, nan_to_num, trace, tri,
                       tril, triu)
from ._numeric import copyto, frexp, modf, place, putmask, trim_zeros, unwrap, vander  # noqa: E402,F401

# --- issue 19 (array API): vp.random (Generator, Philox bit-identical to NumPy's) ---
from . import random  # noqa: E402,F401

# --- issue 19 (array API): sorting and searching (radix sort on the device) ---
from ._sort import (argpartition, argsort, lexsort, partition,  # noqa: E402,F401
                    searchsorted, sort, unique)

# --- issue 19 (array API): complex64/complex128 (_complex.py) and vp.fft ---
from ._complex import angle, conj, conjugate, imag, real  # noqa: E402,F401
from . import fft  # noqa: E402,F401
from . import testing  # noqa: E402,F401  (cupy.testing's array assertions)

# --- issue 18: streams and events (vulpy/_stream.py) ---
from ._stream import Event, Stream, current_stream  # noqa: E402,F401
from ._cuda import interop as cuda_interop  # noqa: E402,F401  (DLPack to CUDA)

# --- issue 19 (array API): matmul, @, dot, vdot, inner, tensordot, einsum on GEMM kernels;
# vp.dot stays the kernel language's vector dot inside kernels
from ._matmul import dot, einsum, inner, matmul, tensordot, vdot  # noqa: E402,F401
_types.kernel_name(dot, "dot")  # noqa: F405
# vp.cross / vp.select: numpy.cross / numpy.select in host Python, the kernel
# language's vec3 cross and branch-free select inside kernels
from ._numeric import cross, select  # noqa: E402,F401
_types.kernel_name(cross, "cross")  # noqa: F405
_types.kernel_name(select, "select")  # noqa: F405
from ._morefuncs import (compress, cumulative_prod, cumulative_sum, delete,  # noqa: E402,F401
                         diag_indices_from, diagflat, dsplit, extract, fix, insert, iscomplex,
                         iscomplexobj, isneginf, isposinf, isreal, isrealobj, ix_,
                         matrix_transpose, may_share_memory, polyadd, polyder, polyint, polymul,
                         polysub, put, real_if_close, resize, rollaxis, row_stack,
                         shares_memory, sinc,
                         tril_indices_from, triu_indices_from, unique_all, unique_counts,
                         unique_inverse, unique_values, unstack, vecdot, matvec, vecmat,
                         packbits, unpackbits)

# --- issue 19 (array API): quantiles (method='linear') on the device sort ---
from ._quantile import nanpercentile, nanquantile, percentile, quantile  # noqa: E402,F401
from ._interp import gradient, interp  # noqa: E402,F401
from ._convolve import convolve, correlate  # noqa: E402,F401

# --- more NumPy functions (docs/python-api.md, "More NumPy functions"): index helpers, set
# operations, binning, statistics; compositions of the device operations above
from ._indexfuncs import (fill_diagonal, indices, put_along_axis,  # noqa: E402,F401
                          ravel_multi_index, rot90, take_along_axis, unravel_index)
from ._setfuncs import intersect1d, isin, setdiff1d, setxor1d, union1d  # noqa: E402,F401
from ._histogram import bincount, digitize, histogram, histogram2d, histogramdd  # noqa: E402,F401
from ._histogram import histogram_bin_edges  # noqa: E402,F401
from ._statfuncs import corrcoef, cov, kron, polyfit, polyval, trapezoid  # noqa: E402,F401
# block, choose, piecewise, apply_along_axis / apply_over_axes, sort_complex, the window
# functions and i0 (_numpyfuncs.py)
from ._numpyfuncs import (apply_along_axis, apply_over_axes, bartlett, blackman,  # noqa: E402,F401
                          block, choose, hamming, hanning, i0, kaiser, piecewise, sort_complex)
# --- NumPy's constants, scalar types and dtype functions, CuPy's asnumpy /
# get_array_module, small helpers with resident results (_npnames.py)
from ._npnames import (asnumpy, ascontiguousarray, byte, can_cast, cdouble,  # noqa: E402,F401
                       common_type, complex64, complex128, complexfloating, copy, csingle,
                       diag_indices, double, dtype, e, euler_gamma, finfo, floating, frombuffer,
                       fromfunction, generic, get_array_module, half, iinfo, index_exp, inexact,
                       inf, int_, intc, integer, intp, isdtype, isscalar, issubdtype, load,
                       longlong, mgrid, min_scalar_type, mintypecode, nan, ndim, newaxis, number,
                       ogrid, pi, promote_types, result_type, s_, save, shape, short, signedinteger,
                       single, size, tril_indices, triu_indices, typename, ubyte, uintc, uintp,
                       ulonglong, unsignedinteger, ushort, uint, ulong, long, True_, False_,
                       typecodes, ScalarType, sctypeDict, little_endian, iterable, binary_repr,
                       base_repr, ndindex, set_printoptions, get_printoptions, printoptions,
                       astype, r_, c_, fromiter, savez, savez_compressed, asarray_chkfinite,
                       isfortran, loadtxt, savetxt, fromfile, einsum_path, vectorize,
                       array2string, array_str, array_repr, asfortranarray, require, broadcast,
                       in1d, poly, polydiv, fromstring, genfromtxt)
# CuPy's user-defined elementwise kernel, its operation in the kernel language (_elementwise.py)
from ._elementwise import ElementwiseKernel, ReductionKernel  # noqa: E402,F401
# NumPy 2's other spellings
asanyarray = asarray
bitwise_not = bitwise_invert = invert  # noqa: F821 (a ufunc bound above)
bitwise_left_shift, bitwise_right_shift = left_shift, right_shift  # noqa: F821
concat, permute_dims = concatenate, transpose  # noqa: F821
trapz = trapezoid  # noqa: F821 (NumPy 1's name)
ufunc = _ufunc.Ufunc
