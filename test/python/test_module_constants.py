"""Module constants read by a kernel: the same constant, with the same type
and value, through @vp.kernel (the live module), vp.compile and
vulpy-translate (the file's text) - issue 14.

Each case writes a module, imports it, and compares the GLSL the three
paths print (the constant's declaration, and the whole shader between
@vp.kernel and vp.compile), then runs the kernel on the device and compares
what it computes from the constant with NumPy in the declared type (0.1 as
float64 is not 0.1 as float32; int8 100 * 100 wraps; a uint64 above 2**63
round-trips).
"""
import importlib.util
import itertools
import linecache
import os
import subprocess
import sys

import numpy as np
import pytest

import vulpy as vp

from conftest import ROOT, needs_target

BUILD = ROOT / "build"
TRANSLATE = BUILD / "bin" / "vulpy-translate"

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

_count = itertools.count()


def _module(tmp_path, text, name=None):
    """Imports `text` as a fresh module (a file, so kernels have source)."""
    name = name or f"_vp_mc_{os.getpid()}_{next(_count)}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, path


def _translate(path, kernel="k"):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    ast = subprocess.run([sys.executable, "-m", "vulpy", "dump-ast", str(path), "--kernel", kernel],
                         capture_output=True, text=True, env=env)
    assert ast.returncode == 0, ast.stderr
    r = subprocess.run([str(TRANSLATE), "--from=ast", "--to=glsl", f"--kernel={kernel}", "-"],
                       input=ast.stdout, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _consts(glsl):
    return [ln for ln in glsl.splitlines() if ln.startswith("const ")]


INTS = {"int8": 100, "int16": 30000, "int32": 100000, "int64": 100000,
        "uint8": 200, "uint16": 60000, "uint32": 4000000000, "uint64": 0xFFFFFFFF}
FLOATS = {"float16": 0.1, "float32": 0.1, "float64": 0.1}

INT_BODY = """
@vp.kernel
def k(o: vp.Buffer[vp.{buf}]):
    t = C
    o[0] = t
    o[1] = t * t
    o[2] = (t * t) // 3
"""
FLOAT_BODY = """
@vp.kernel
def k(o: vp.Buffer[vp.{buf}]):
    t = C
    o[0] = t
    o[1] = t * t
    o[2] = -t
"""
BOOL_BODY = """
@vp.kernel
def k(o: vp.Buffer[vp.{buf}]):
    t = C
    o[0] = 1 if t else 0
    o[1] = 1 if not t else 0
"""


def _expected(dtype, value):
    t = np.array(value, dtype)
    with np.errstate(over="ignore"):
        if dtype == np.bool_:
            return np.array([t, not t])
        if dtype.kind == "f":
            return np.array([t, t * t, -t], dtype)
        return np.array([t, t * t, (t * t) // 3], dtype)


def _cases():
    """(declaration line, buffer dtype name, declared dtype, value)."""
    out = []
    for name, v in list(INTS.items()) + list(FLOATS.items()):
        out.append((f"C: vp.{name} = {v!r}", name, name, v))
    out.append(("C: vp.uint64 = 0xD2E7470EE14C6C93", "uint64", "uint64", 0xD2E7470EE14C6C93))
    out.append(("C: vp.bool = True", "int32", "bool", True))
    out.append(("C = False", "int32", "bool", False))
    out.append(("C: vp.int64 = -(2**63)", "int64", "int64", -(2**63)))
    # casts, and NumPy scalars (np.float32(0.1) is a float32 in the source too)
    out.append(("C = vp.float64(0.1)", "float64", "float64", 0.1))
    out.append(("C = np.float32(0.1)", "float32", "float32", 0.1))
    out.append(("C = np.float64(0.1)", "float64", "float64", 0.1))
    out.append(("C = np.int8(100)", "int8", "int8", 100))
    out.append(("C = np.uint64(0xD2E7470EE14C6C93)", "uint64", "uint64", 0xD2E7470EE14C6C93))
    out.append(("C = np.uint32(4000000000)", "uint32", "uint32", 4000000000))
    # no type of its own: the literal's default (int32, float32; wider when it does not fit)
    out.append(("C = 100000", "int32", "int32", 100000))
    out.append(("C = 0.1", "float32", "float32", 0.1))
    out.append(("C = 3000000000", "int64", "int64", 3000000000))
    out.append(("C = 2**63 + 5", "uint64", "uint64", 2**63 + 5))
    return out


@pytest.mark.parametrize("decl,buf,declared,value", _cases(), ids=[c[0] for c in _cases()])
def test_constant_same_on_every_path(tmp_path, decl, buf, declared, value):
    dt = np.dtype(declared)
    body = BOOL_BODY if dt == np.bool_ else FLOAT_BODY if dt.kind == "f" else INT_BODY
    text = "import numpy as np\nimport vulpy as vp\n\n" + decl + "\n" + body.format(buf=buf)
    mod, path = _module(tmp_path, text)
    live = mod.k.glsl
    source = vp.compile(path, kernel="k").glsl
    assert _consts(live) == _consts(source), (live, source)
    assert live == source
    if TRANSLATE.exists():
        assert _consts(_translate(path)) == _consts(source)
    want = _expected(dt, value)
    o = np.zeros(len(want), np.dtype(buf))
    mod.k(o, dispatch=1)
    np.testing.assert_array_equal(o, want.astype(o.dtype))


def test_random_kernels_uint64_constants_are_uint64():
    """The Philox constants of vulpy's own random kernels (vp.uint64
    annotations, some below 2**32) are uint64 in the shader."""
    from vulpy import _random_kernels as rk
    glsl = rk.raw_u64.glsl
    for name in ("PHILOX_M0", "LOW32"):
        decl = [ln for ln in _consts(glsl) if f" {name} " in ln]
        assert decl and decl[0].startswith("const uint64_t "), decl


# ------------------------------------------------------------ scopes


def test_closure_constant_keeps_its_annotation(tmp_path):
    mod, _ = _module(tmp_path, """import vulpy as vp

def make():
    D: vp.float64 = 0.1

    @vp.kernel
    def k(o: vp.Buffer[vp.float64]):
        t = D
        o[0] = t
    return k
""")
    k = mod.make()
    o = np.zeros(1)
    k(o, dispatch=1)
    assert o[0] == 0.1  # float32(0.1) would be 0.10000000149011612
    assert "const double D = 0.1lf;" in k.glsl


def test_imported_constant_keeps_its_annotation(tmp_path):
    name = f"_vp_mc_consts_{os.getpid()}"
    _module(tmp_path, "import vulpy as vp\nD: vp.float64 = 0.1\nU: vp.uint64 = 1\n", name)
    mod, _ = _module(tmp_path, f"""import vulpy as vp
from {name} import D, U as V

@vp.kernel
def k(o: vp.Buffer[vp.float64], u: vp.Buffer[vp.uint64]):
    t = D
    o[0] = t
    w = V
    u[0] = w - 2
""")
    o, u = np.zeros(1), np.zeros(1, np.uint64)
    mod.k(o, u, dispatch=1)
    assert o[0] == 0.1
    assert u[0] == np.uint64(2**64 - 1)  # uint64 1 - 2 wraps; int64 would store -1's bits too,
    assert "const uint64_t V" in mod.k.glsl  # so the declaration says which it is


def test_notebook_cell_constant_from_live_annotations():
    """A constant defined in another cell (not in the kernel's source text):
    its type comes from the namespace's __annotations__."""
    ns = {"__name__": "__vp_cells__"}
    for i, src in enumerate(["import vulpy as vp\nD: vp.float64 = 0.1\n",
                             "@vp.kernel\ndef k(o: vp.Buffer[vp.float64]):\n    t = D\n"
                             "    o[0] = t\n"]):
        fname = f"<vp-cell-{os.getpid()}-{i}>"
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        exec(compile(src, fname, "exec"), ns)
    o = np.zeros(1)
    ns["k"](o, dispatch=1)
    assert o[0] == 0.1


def test_future_annotations_module(tmp_path):
    mod, path = _module(tmp_path, """from __future__ import annotations
import vulpy as vp
D: vp.float64 = 0.1

@vp.kernel
def k(o: vp.Buffer[vp.float64]):
    t = D
    o[0] = t
""")
    assert _consts(mod.k.glsl) == _consts(vp.compile(path, kernel="k").glsl)
    o = np.zeros(1)
    mod.k(o, dispatch=1)
    assert o[0] == 0.1


def test_reassigned_constant_keeps_declared_type(tmp_path):
    mod, path = _module(tmp_path, """import vulpy as vp
D: vp.float64 = 0.5
D = 0.1

@vp.kernel
def k(o: vp.Buffer[vp.float64]):
    t = D
    o[0] = t
""")
    assert _consts(mod.k.glsl) == _consts(vp.compile(path, kernel="k").glsl) == \
        ["const double D = 0.1lf;"]


def test_local_shadows_module_constant(tmp_path):
    mod, path = _module(tmp_path, """import vulpy as vp
D: vp.uint8 = 7

@vp.kernel
def k(o: vp.Buffer[vp.float64], D: vp.float64):
    o[0] = D

@vp.kernel
def k2(o: vp.Buffer[vp.float64]):
    D = 2.5
    t = vp.float64(D) * 2.0
    o[0] = t
""")
    o = np.zeros(1)
    mod.k(o, dispatch=1, D=0.25)
    assert o[0] == 0.25
    mod.k2(o, dispatch=1)
    assert o[0] == 5.0
    assert mod.k2.glsl == vp.compile(path, kernel="k2").glsl


def test_helper_reads_its_own_module_constant(tmp_path):
    """A helper from another module reading a constant of the same name as
    the kernel's module: one value would be silently wrong; a clear error."""
    name = f"_vp_mc_helper_{os.getpid()}"
    _module(tmp_path, "import vulpy as vp\nK = 3\n\ndef helper(x: vp.float32):\n"
                      "    return x * K\n", name)
    mod, _ = _module(tmp_path, f"""import vulpy as vp
from {name} import helper
K = 2

@vp.kernel
def k(o: vp.Buffer[vp.float32]):
    o[0] = helper(1.0) + K
""")
    with pytest.raises(vp.CompileError, match="'K' = 3.*'K' = 2|'K' = 2.*'K' = 3"):
        mod.k(np.zeros(1, np.float32), dispatch=1)


def test_helpers_of_one_name_from_two_modules(tmp_path):
    """A helper's module defines `sub`, the kernel's module another `sub`:
    the C side has one namespace of functions; one of them would silently
    run in place of the other."""
    name = f"_vp_mc_sub_{os.getpid()}"
    _module(tmp_path, "import vulpy as vp\n\ndef sub(x: vp.float32):\n    return x * 3.0\n\n"
                      "def helper(x: vp.float32):\n    return sub(x)\n", name)
    mod, _ = _module(tmp_path, f"""import vulpy as vp
from {name} import helper

def sub(x: vp.float32):
    return x * 2.0

@vp.kernel
def k(o: vp.Buffer[vp.float32]):
    o[0] = sub(1.0) + helper(1.0) * 10.0
""")
    with pytest.raises(vp.CompileError, match="two functions or classes named 'sub'"):
        mod.k(np.zeros(1, np.float32), dispatch=1)


def test_helper_same_constant_value_is_fine(tmp_path):
    name = f"_vp_mc_helper2_{os.getpid()}"
    _module(tmp_path, "import vulpy as vp\nK = 3\n\ndef helper(x: vp.float32):\n"
                      "    return x * K\n", name)
    mod, _ = _module(tmp_path, f"""import vulpy as vp
from {name} import helper, K

@vp.kernel
def k(o: vp.Buffer[vp.float32]):
    o[0] = helper(1.0) + K
""")
    o = np.zeros(1, np.float32)
    mod.k(o, dispatch=1)
    assert o[0] == 6.0


def test_module_attribute_is_a_clear_error(tmp_path):
    name = f"_vp_mc_attr_{os.getpid()}"
    _module(tmp_path, "C = 0.5\n", name)
    mod, _ = _module(tmp_path, f"""import vulpy as vp
import {name}

@vp.kernel
def k(o: vp.Buffer[vp.float32]):
    o[0] = {name}.C
""")
    with pytest.raises(vp.CompileError, match=f"'{name}' is a module"):
        mod.k(np.zeros(1, np.float32), dispatch=1)


def test_class_attribute_is_a_clear_error(tmp_path):
    mod, _ = _module(tmp_path, """import vulpy as vp

class K:
    D: vp.float64 = 0.1

@vp.kernel
def k(o: vp.Buffer[vp.float64]):
    o[0] = K.D
""")
    with pytest.raises(vp.CompileError):
        mod.k(np.zeros(1), dispatch=1)


def test_numpy_bool_and_annotation_mismatch(tmp_path):
    mod, path = _module(tmp_path, """import numpy as np
import vulpy as vp
B = np.bool_(True)
F: vp.float64 = vp.float32(0.1)

@vp.kernel
def k(o: vp.Buffer[vp.int32]):
    if B:
        o[0] = 1

@vp.kernel
def bad(o: vp.Buffer[vp.float64]):
    t = F
    o[0] = t
""")
    o = np.zeros(1, np.int32)
    mod.k(o, dispatch=1)
    assert o[0] == 1
    # the same error, at the same place, on both paths
    with pytest.raises(vp.CompileError) as live:
        mod.bad(np.zeros(1), dispatch=1)
    with pytest.raises(vp.CompileError) as source:
        vp.compile(path, kernel="bad")
    assert "is f32 but annotated f64" in str(live.value)
    assert str(live.value).splitlines()[0] == str(source.value).splitlines()[0]


# ------------------------------------------------------------ when values are read


def test_redecorated_kernel_sees_new_tuple_and_numpy_values(tmp_path):
    """The compile caches' key holds the values of tuple and NumPy-scalar
    globals, not only their types: a kernel decorated again after they
    change compiles with the new values."""
    mod, _ = _module(tmp_path, """import numpy as np
import vulpy as vp
W = (1.0, 2.0)
S = np.float32(0.5)

def body(o: vp.Buffer[vp.float32]):
    o[0] = W[1] + S
""")
    o = np.zeros(1, np.float32)
    vp.kernel(mod.body)(o, dispatch=1)
    assert o[0] == 2.5
    mod.W, mod.S = (1.0, 5.0), np.float32(4.0)
    vp.kernel(mod.body)(o, dispatch=1)
    assert o[0] == 9.0


def test_redecorated_kernel_sees_new_annotation_value(tmp_path):
    mod, _ = _module(tmp_path, """import vulpy as vp
D: vp.float64 = 0.1

def body(o: vp.Buffer[vp.float64]):
    t = D
    o[0] = t
""")
    o = np.zeros(1)
    vp.kernel(mod.body)(o, dispatch=1)
    assert o[0] == 0.1
    mod.D = 0.3
    vp.kernel(mod.body)(o, dispatch=1)
    assert o[0] == 0.3


def test_values_are_read_at_first_compile(tmp_path):
    """Documented (docs/language.md, Module constants): a kernel reads its
    module's numbers when it first compiles; rebinding one later does not
    change that kernel (decorate again to compile with the new value)."""
    mod, _ = _module(tmp_path, """import vulpy as vp
N = 2.0

@vp.kernel
def k(o: vp.Buffer[vp.float32]):
    o[0] = N
""")
    o = np.zeros(1, np.float32)
    mod.k(o, dispatch=1)
    mod.N = 3.0
    mod.k(o, dispatch=1)
    assert o[0] == 2.0
    vp.kernel(mod.k.fn)(o, dispatch=1)
    assert o[0] == 3.0


def test_fast_key_holds_imported_and_live_annotations(tmp_path):
    """The compile caches' fast key (looked up before the source is parsed)
    changes with the declaration that types a constant: another module's
    (from M import C) and a namespace's live __annotations__."""
    from vulpy import _compiler
    name = f"_vp_mc_key_{os.getpid()}"
    m, _ = _module(tmp_path, "import vulpy as vp\nC: vp.float64 = 0.1\n", name)
    mod, _ = _module(tmp_path, f"""import vulpy as vp
from {name} import C

def body(o: vp.Buffer[vp.float64]):
    t = C
    o[0] = t
""")
    before = _compiler.function_key(mod.body, {}, {})
    m.__annotations__["C"] = vp.float32  # as if M declared C: vp.float32 = 0.1
    assert _compiler.function_key(mod.body, {}, {}) != before
    mod.__annotations__["Z"] = vp.float32  # not a name the file holds: no change
    m.__annotations__["C"] = vp.float64
    assert _compiler.function_key(mod.body, {}, {}) == before
    mod.__annotations__["C"] = vp.float32
    assert _compiler.function_key(mod.body, {}, {}) != before
