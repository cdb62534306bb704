"""The kernel-language source of every ufunc variant.

The templates are expressions of the operands a, b, c in the loop's dtype,
one per operation and dtype kind; _source wraps one in a whole kernel for a
layout (contiguous, push-constant scalar, or broadcast through strides) and
width (scalars, or vec4 / dvec2). Nothing here compiles: _ufunc hands the
text to the C compiler like any user kernel. docs/python-api.md, "How they
run", says why the variants are what they are.
"""
import numpy as np

from . import _array

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_I32, _U32 = np.dtype(np.int32), np.dtype(np.uint32)
_I64, _U64 = np.dtype(np.int64), np.dtype(np.uint64)
_BOOL = np.dtype(np.bool_)
KNAME = {_F32: "float32", _F64: "float64", _I32: "int32", _U32: "uint32", _I64: "int64",
         _U64: "uint64", _BOOL: "bool"}
VEC = {_F32: ("vec4", 4), _I32: ("ivec4", 4), _U32: ("uvec4", 4), _F64: ("dvec2", 2)}

# ------------------------------------------------------------- templates
# An expression of the operands a, b, c in the loop's dtype; a dict picks by
# the loop's input kind: 'f' float, 'i' signed, 'u' unsigned, 'b' bool.
_NAN_MIN = "vp.where(vp.isnan(a), a, vp.where(vp.isnan(b), b, min(a, b)))"
_NAN_MAX = "vp.where(vp.isnan(a), a, vp.where(vp.isnan(b), b, max(a, b)))"

ARITH = {
    "add": {"fiu": "a + b"},
    "subtract": {"fiu": "a - b"},
    "multiply": {"fiu": "a * b"},
    "divide": {"f": "a / b"},
    "floor_divide": {"f": "a // b", "iu": "vp.where(b == 0, 0, a // vp.where(b == 0, 1, b))"},
    "remainder": {"f": "a % b", "iu": "vp.where(b == 0, 0, a % vp.where(b == 0, 1, b))"},
    "power": {"f": "a ** b", "iu": None},  # ints: _INT_POWER
    "minimum": {"f": _NAN_MIN, "iu": "min(a, b)", "b": "a and b"},
    "maximum": {"f": _NAN_MAX, "iu": "max(a, b)", "b": "a or b"},
    "arctan2": {"f": "vp.atan2(a, b)"},
    "bitwise_and": {"iu": "a & b", "b": "a and b"},
    "bitwise_or": {"iu": "a | b", "b": "a or b"},
    "bitwise_xor": {"iu": "a ^ b", "b": "a != b"},
    "less": {"fiu": "a < b"}, "less_equal": {"fiu": "a <= b"},
    "greater": {"fiu": "a > b"}, "greater_equal": {"fiu": "a >= b"},
    "equal": {"fiu": "a == b", "b": "a == b"}, "not_equal": {"fiu": "a != b", "b": "a != b"},
    "logical_and": {"fiu": "(a != 0) and (b != 0)", "b": "a and b"},
    "logical_or": {"fiu": "(a != 0) or (b != 0)", "b": "a or b"},
    "logical_xor": {"fiu": "(a != 0) != (b != 0)", "b": "a != b"},
}

MATH = {  # numpy name -> kernel-language function
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "exp": "exp", "exp2": "exp2", "expm1": "expm1",
    "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt",
    "cbrt": "cbrt",
}

UNARY = {
    "negative": {"fi": "-a", "u": "0 - a"},
    "absolute": {"fi": "abs(a)", "u": "a", "b": "a"},
    "sign": {"f": "vp.where(vp.isnan(a), a, vp.sign(a))", "i": "vp.sign(a)", "u": "min(a, 1)"},
    "reciprocal": {"f": "1.0 / a", "i": "vp.where(a == 1, 1, vp.where(a == -1, -1, 0))",
                   "u": "vp.where(a == 1, a, a - a)"},
    "floor": {"f": "vp.floor(a)", "iub": "a"},
    "ceil": {"f": "vp.ceil(a)", "iub": "a"},
    "trunc": {"f": "vp.trunc(a)", "iub": "a"},
    "rint": {"f": "vp.round(a)"},  # GLSL round (a float); bare round() is an int
    "square": {"fiu": "a * a"},
    "logical_not": {"fiu": "a == 0", "b": "not a"},
    "invert": {"iu": "~a", "b": "not a"},
    "isnan": {"f": "vp.isnan(a)", "iub": "False"},
    "isinf": {"f": "vp.isinf(a)", "iub": "False"},
    "isfinite": {"f": "not (vp.isnan(a) or vp.isinf(a))", "iub": "True"},
}

_INT_POWER = """\
    r = vp.var(1 + 0 * a)
    base = vp.var(a)
    e = vp.var(b)
    while e > 0:
        if (e & 1) != 0:
            r = r * base
        base = base * base
        e = e >> 1
    r = vp.where(b < 0, 0 * a, r)"""


def _kind(dt):
    return "b" if dt == _BOOL else dt.kind  # 'f', 'i', 'u'


def expr_of(name, loop_dt):
    table = ARITH.get(name) or UNARY.get(name)
    if table is None:
        return None
    k = _kind(loop_dt)
    for kinds, expr in table.items():
        if k in kinds:
            return expr if expr is not None else _INT_POWER
    return None


def source(name, nin, expr, loop_in, out_dt, layout, storage, vec, ndim):
    """Kernel-language source of one variant."""
    lanes = 1
    params, loads = [], []
    vecname = None
    if vec:
        vecname, lanes = VEC[loop_in[0]]
    letters = "abc"
    for k in range(nin):
        L = layout[k]
        if L == "s":
            t = "uint32" if loop_in[k] == _BOOL else KNAME[loop_in[k]]
            params.append((f"s{k}", f"vp.{t}"))
            src = f"s{k}"
        else:
            st = storage[k]
            elem = vecname if vec else KNAME[_array.storage_dtype(st)]
            params.append((f"x{k}", f"vp.Buffer[vp.{elem}]"))
            idx = "i" if L == "c" else f"j{k}"
            src = f"x{k}[{idx}]"
        if loop_in[k] == _BOOL:
            src = f"({src} != 0)"
        elif L != "s" and storage[k] != loop_in[k]:
            src = f"vp.{KNAME[loop_in[k]]}({src})"
        loads.append(f"    {letters[k]} = {src}")
    out_elem = vecname if vec else KNAME[_array.storage_dtype(out_dt)]
    params.append(("out", f"vp.Buffer[vp.{out_elem}]"))
    params += [("n", "vp.uint32"), ("row", "vp.uint32")]
    strided = [k for k in range(nin) if layout[k] == "b"]
    if strided:
        params += [(f"d{d}", "vp.uint32") for d in range(1, ndim)]
        for k in strided:
            params += [(f"t{k}_{d}", "vp.uint32") for d in range(ndim)]
    lines = ["import vulpy as vp", "", "",
             "def main(" + ", ".join(f"{p}: {t}" for p, t in params) + "):",
             "    i = vp.global_id(1) * row + vp.global_id(0)",
             "    if i >= n:",
             "        return"]
    if strided:
        lines.append("    q = i")
        for d in range(ndim - 1, 0, -1):
            lines.append(f"    c{d} = q % d{d}")
            lines.append(f"    q = q // d{d}")
        lines.append("    c0 = q")
        for k in strided:
            terms = " + ".join(f"c{d} * t{k}_{d}" for d in range(ndim))
            lines.append(f"    j{k} = {terms}")
    lines += loads
    if "\n" in expr:
        lines.append(expr)
    else:
        lines.append(f"    r = {expr}")
    if out_dt == _BOOL:
        lines.append("    out[i] = vp.where(r, vp.uint32(1), vp.uint32(0))")
    else:
        lines.append("    out[i] = r")
    return "\n".join(lines) + "\n", lanes
