"""The kernel-language patterns in their remaining forms (issue 22), on the
device against NumPy: struct buffers in resident mode (vp.asarray of a
structured array, the std430 layout checked, methods in kernels, readback
as a structured array), generic scalars (vp.Scalar) typed like the buffers,
vp.compile filling an N-d buffer's hidden shape/strides/offset, a private
array declared in a loop unrolled at compile time, and where kernels can be
defined (python -c, exec, the plain REPL)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vulpy as vp
from vulpy import _compiler
from conftest import ROOT, needs_target

pytestmark = needs_target


# ------------------------------------------------------------ struct buffers

@vp.struct
class Particle:
    pos: vp.vec3
    vel: vp.vec3
    mass: vp.float32

    def step(self, dt, g):
        self.vel.z -= g * dt
        self.pos += self.vel * dt

    def momentum(self):
        return self.mass * vp.length(self.vel)


@vp.kernel
def advance(p: vp.Buffer[Particle], mom: vp.Buffer[vp.float32], dt: vp.float32, steps: vp.int32):
    i = vp.global_id()
    for s in range(steps):
        p[i].step(dt, 9.81)
    mom[i] = p[i].momentum()


# std430: a vec3 is 16-byte aligned, so vel starts at 16, mass packs into
# vel's last 4 bytes at 28, and the array stride is 32
STD430 = np.dtype({"names": ["pos", "vel", "mass"], "formats": [(np.float32, 3), (np.float32, 3), np.float32],
                   "offsets": [0, 16, 28], "itemsize": 32})


def _integrate(pos, vel, dt, steps, runs):
    p, v = pos.astype(np.float32), vel.astype(np.float32)
    for _ in range(steps * runs):
        v[:, 2] -= np.float32(9.81) * np.float32(dt)
        p += v * np.float32(dt)
    return p, v


def test_struct_dtype_is_the_compilers_std430_layout(ctx):
    assert vp.struct_dtype(Particle) == STD430
    assert np.dtype(Particle) == STD430          # @vp.struct gives Particle.dtype
    assert np.zeros(3, Particle).dtype == STD430

    class Inner:
        a: vp.float32
        b: vp.vec2

    class Outer:
        x: vp.float32
        inner: Inner
        d: vp.float64

    # Inner: a at 0, b at 8 (vec2: 8-aligned), size 16; Outer: inner 8-aligned
    # at 8, d at 24, stride 32
    dt = vp.struct_dtype(Outer)
    assert [dt.fields[n][1] for n in dt.names] == [0, 8, 24] and dt.itemsize == 32
    assert [dt["inner"].fields[n][1] for n in ("a", "b")] == [0, 8]
    with pytest.raises(TypeError, match="annotated class"):
        vp.struct_dtype(np.float32)

    class Py:  # Python's int and float are int32 and float32, as in kernels
        n: int
        x: float
        v: vp.vec3

    dt = vp.struct_dtype(Py)
    assert [dt.fields[n][0] for n in dt.names] == [np.int32, np.float32, np.dtype((np.float32, 3))]
    assert [dt.fields[n][1] for n in dt.names] == [0, 4, 16] and dt.itemsize == 32

    class Flag:
        on: vp.bool_

    class Listy:
        xs: list

    with pytest.raises(vp.CompileError, match="bool fields have no memory layout"):
        vp.struct_dtype(Flag)
    with pytest.raises(TypeError, match="field 'xs' is annotated with <class 'list'>, which is not a kernel type"):
        vp.struct_dtype(Listy)


def test_struct_with_a_method_integrates_particles_resident(ctx):
    n, dt, steps = 200, 0.01, 10
    rng = np.random.default_rng(11)
    pos, vel = rng.random((n, 3), dtype=np.float32), rng.random((n, 3), dtype=np.float32)
    mass = rng.random(n, dtype=np.float32) + 1
    records = np.zeros(n, Particle)
    records["pos"], records["vel"], records["mass"] = pos, vel, mass
    p = vp.asarray(records, dtype=Particle)      # resident: the layout is checked here
    assert p.dtype == STD430 and p.shape == (n,)
    mom = vp.zeros(n, np.float32)
    for _ in range(3):                           # the structs stay on the device between calls
        advance(p, mom, dispatch=n, dt=dt, steps=steps)
    back = p.numpy()                             # a structured NumPy array
    assert back.dtype == STD430
    want_p, want_v = _integrate(pos, vel, dt, steps, 3)
    np.testing.assert_allclose(back["pos"], want_p, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(back["vel"], want_v, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(back["mass"], mass)
    np.testing.assert_allclose(mom.numpy(), mass * np.linalg.norm(want_v, axis=1), rtol=1e-4)
    # vp.zeros of a struct class: zeroed structs of that layout
    z = vp.zeros(5, Particle)
    assert z.dtype == STD430 and not z.numpy()["mass"].any()


def test_struct_layout_mismatch_prints_both_layouts(ctx):
    packed = np.zeros(4, [("pos", np.float32, 3), ("vel", np.float32, 3), ("mass", np.float32)])
    with pytest.raises(TypeError) as e:
        vp.asarray(packed, dtype=Particle)
    msg = str(e.value)
    assert "vel: ('<f4', (3,)) at offset 16" in msg and "vel: ('<f4', (3,)) at offset 12" in msg
    assert "(32 bytes)" in msg and "(28 bytes)" in msg and "vp.struct_dtype(Particle)" in msg
    mom = np.zeros(4, np.float32)
    # a NumPy array straight to the kernel, and a resident one made without dtype=
    for arg in (packed, vp.asarray(packed)):
        with pytest.raises(TypeError) as e:
            advance(arg, mom, dispatch=4, dt=0.1, steps=1)
        msg = str(e.value)
        assert "buffer 'p' holds struct Particle (std430, 32 bytes)" in msg
        assert "vel: vec3 at offset 16" in msg and "at offset 12" in msg, msg
    # a plain float array for a struct buffer (was bound as raw bytes)
    with pytest.raises(TypeError, match="not a structured dtype"):
        advance(np.zeros(32, np.float32), mom, dispatch=4, dt=0.1, steps=1)
    # a field renamed
    renamed = np.zeros(4, {"names": ["pos", "v", "mass"],
                           "formats": [(np.float32, 3), (np.float32, 3), np.float32],
                           "offsets": [0, 16, 28], "itemsize": 32})
    with pytest.raises(TypeError, match=r"v: \('<f4', \(3,\)\) at offset 16"):
        advance(renamed, mom, dispatch=4, dt=0.1, steps=1)
    with pytest.raises(TypeError, match="takes dtype=None or a struct class"):
        vp.asarray(packed, dtype=np.float32)


class Frame:
    rot: vp.mat3
    k: vp.float32


@vp.kernel
def apply_frame(f: vp.Buffer[Frame], out: vp.Buffer[vp.float32]):
    i = vp.global_id()
    v = f[i].rot @ vp.vec3(1.0, 2.0, 3.0)
    out[i] = v.x + 10.0 * v.y + 100.0 * v.z + f[i].k


def test_shader_struct_buffer_dtype_and_mismatch(ctx, tmp_path):
    """vp.compile's shader.dtype(name) is the std430 dtype; a struct buffer
    given another layout is a TypeError printing both and naming shader.dtype."""
    src = tmp_path / "structs.vul.py"
    src.write_text("import vulpy as vp\n\n\nclass P:\n    pos: vp.vec3\n    m: vp.float32\n\n\n"
                   "@vp.kernel\ndef main(p: vp.Buffer[P], n: vp.uint32):\n"
                   "    i = vp.global_id().x\n    if i < n:\n        p[i].m = p[i].m * 2.0\n")
    s = vp.compile(src, context=ctx)
    dt = s.dtype("p")
    assert dt.names == ("pos", "m") and dt.itemsize == 16 and dt.fields["m"][1] == 12
    a = np.zeros(4, dt)
    a["m"] = [1, 2, 3, 4]
    s.upload("p", a)
    s.run(dispatch=4, n=4)
    np.testing.assert_array_equal(s.download("p")["m"], a["m"] * 2)
    with pytest.raises(TypeError) as e:
        s.upload("p", np.zeros(4, [("m", np.float32), ("pos", np.float32, 3)]))
    msg = str(e.value)
    assert "buffer 'p' holds struct P (std430, 16 bytes)" in msg and "m: float32 at offset 0" in msg
    assert "(shader.dtype('p') is the matching dtype)" in msg


def test_struct_with_a_mat3_field_pads_its_columns(ctx):
    # std430 pads each column of a mat3 to four floats: the field is (3, 4)
    dt = vp.struct_dtype(Frame)
    assert dt.fields["rot"][0].shape == (3, 4) and dt.fields["k"][1] == 48 and dt.itemsize == 64
    n = 16
    cols = np.random.default_rng(6).random((n, 3, 3), dtype=np.float32)  # [i, column, row]
    rec = np.zeros(n, dt)
    rec["rot"][:, :, :3] = cols
    rec["k"] = np.arange(n)
    out = vp.zeros(n, np.float32)
    apply_frame(vp.asarray(rec, dtype=Frame), out, dispatch=n)
    v = np.einsum("icr,c->ir", cols, np.array([1, 2, 3], np.float32))
    np.testing.assert_allclose(out.numpy(), v[:, 0] + 10 * v[:, 1] + 100 * v[:, 2] + np.arange(n),
                               rtol=1e-5)


def test_asarray_of_records_as_python_tuples(ctx):
    p = vp.asarray([((1, 2, 3), (0, 0, 1), 2.0), ((4, 5, 6), (1, 0, 0), 3.0)], dtype=Particle)
    back = p.numpy()
    assert back.dtype == STD430
    np.testing.assert_array_equal(back["pos"], [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(back["mass"], [2, 3])


def test_python_api_md_struct_example_runs(tmp_path, capsys):
    """The example of docs/python-api.md's "Struct buffers", as written."""
    import re
    import runpy
    text = (ROOT / "docs" / "python-api.md").read_text()
    sec = text[text.index("## Struct buffers"):]
    f = tmp_path / "struct_example.py"
    f.write_text(re.search(r"```python\n(.*?)```", sec, re.S).group(1))
    scope = runpy.run_path(str(f))
    np.testing.assert_allclose(scope["p"].numpy()["pos"], np.tile([0, 0, 1.25], (1000, 1)))
    assert "[0.   0.   1.25]" in capsys.readouterr().out


# ------------------------------------------------------------ generic scalars

@vp.kernel
def gaxpy(x: vp.Buffer, y: vp.Buffer, a: vp.Scalar, n: vp.uint32):
    i = vp.global_id()
    if i < n:
        y[i] = a * x[i] + y[i]


@pytest.mark.parametrize("dtype,a", [(np.float32, 2.5), (np.float64, 1 / 3), (np.int32, 3),
                                     (np.float64, 7)])
def test_generic_axpy_with_a_scalar_typed_like_the_buffers(ctx, dtype, a):
    n = 100
    x = (np.arange(n) - 40).astype(dtype)
    y = np.full(n, 5, dtype)
    gaxpy(x, y, dispatch=n, a=a, n=n)
    assert y.dtype == dtype
    want = (dtype(a) * (np.arange(n) - 40).astype(dtype) + dtype(5)).astype(dtype)
    if dtype == np.float64:  # a float32 `a` would be off by ~1e-8 relative
        np.testing.assert_allclose(y, want, rtol=1e-15)
    else:
        np.testing.assert_allclose(y, want, rtol=1e-6)
    spec = gaxpy.specialize(x=dtype, y=dtype, a=dtype)
    c = {np.float32: "float", np.float64: "double", np.int32: "int"}[dtype]
    assert f"{c} a;" in spec.glsl, spec.glsl


def test_generic_scalar_compiles_once_per_signature(ctx):
    x, y = np.ones(8, np.float64), np.zeros(8, np.float64)
    gaxpy(x, y, dispatch=8, a=2.0, n=8)
    before = dict(_compiler.stats)
    sub = gaxpy.specialize(x=np.float64, y=np.float64, a=np.float64)
    for v in (3.0, 4, np.float64(5)):
        gaxpy(x, y, dispatch=8, a=v, n=8)
    assert gaxpy.specialize(x=np.float64, y=np.float64, a=np.float64) is sub
    assert _compiler.stats["compiled"] == before["compiled"]
    np.testing.assert_array_equal(y, np.full(8, 14.0))
    # a NumPy scalar brings its own type: float32 a with float32 buffers
    xf, yf = np.ones(8, np.float32), np.zeros(8, np.float32)
    gaxpy(xf, yf, dispatch=8, a=np.float32(0.5), n=8)
    np.testing.assert_array_equal(yf, np.full(8, 0.5, np.float32))


def test_generic_scalar_errors(ctx):
    xi = np.zeros(4, np.int32)
    with pytest.raises(TypeError, match=r"generic scalar 'a' follows the buffers' element type "
                                        r"\(int32\), but got the float 2.5"):
        gaxpy(xi, xi.copy(), dispatch=4, a=2.5, n=4)
    with pytest.raises(TypeError, match=r"generic scalar 'a' \(vp.Scalar\) needs a value"):
        gaxpy(xi, xi.copy(), dispatch=4, n=4)
    with pytest.raises(TypeError, match="generic scalar 'a' takes a number, got str"):
        gaxpy(xi, xi.copy(), dispatch=4, a="2", n=4)
    with pytest.raises(vp.CompileError, match=r"generic scalar 'a' \(vp.Scalar\) has no type yet"):
        gaxpy.specialize(x=np.float32, y=np.float32).glsl


@vp.kernel
def scale_only(y: vp.Buffer[vp.float64], s: vp.Scalar):
    i = vp.global_id()
    y[i] = y[i] * s


def test_generic_scalar_without_generic_buffers(ctx):
    # no generic buffer: a NumPy scalar's own type, else a Python float is a
    # float32 and an int an int32, as Warp types them
    y = np.full(4, 3.0)
    scale_only(y, dispatch=4, s=np.float64(0.1))
    np.testing.assert_array_equal(y, np.full(4, 3.0 * 0.1))
    y = np.full(4, 3.0)
    scale_only(y, dispatch=4, s=0.1)
    np.testing.assert_array_equal(y, np.full(4, 3.0 * float(np.float32(0.1))))
    assert "float s;" in scale_only.specialize(s=np.float32).glsl


# -------------------------------------------------- vp.compile of N-d buffers

STENCIL = '''
import vulpy as vp

def main(a: vp.Buffer[vp.float32, 2], b: vp.Buffer[vp.float32, 2]):
    x = vp.global_id(0)
    y = vp.global_id(1)
    h, w = a.shape
    if x >= 1 and y >= 1 and x + 1 < w and y + 1 < h:
        b[y, x] = 0.25 * (a[y - 1, x] + a[y + 1, x] + a[y, x - 1] + a[y, x + 1]) - a[y, x]
'''


def _laplace(a):
    want = np.zeros_like(a)
    want[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) - a[1:-1, 1:-1]
    return want


def test_compiled_nd_kernel_fills_the_hidden_push_fields(ctx, tmp_path):
    path = tmp_path / "stencil.vul.py"
    path.write_text(STENCIL)
    sh = vp.compile(path, local_size_x=8, local_size_y=8)
    assert "_vp_shape_a" in sh.push_names
    a = np.random.default_rng(2).random((30, 50), dtype=np.float32)
    sh.upload("a", a)
    sh.allocate(b=np.zeros_like(a))
    sh.run(dispatch=(50, 30))                   # no _vp_shape_/_strides_/_offset_ given
    np.testing.assert_allclose(sh.download("b"), _laplace(a), rtol=1e-6, atol=1e-6)
    # a strided resident view bound as the input: its own strides and offset
    big = vp.asarray(np.random.default_rng(3).random((60, 80), dtype=np.float32))
    view = big[5::2, 3::3]
    sh.bind("a", view)
    sh.allocate(b=np.zeros(view.shape, np.float32))
    sh.run(dispatch=(view.shape[1], view.shape[0]))
    np.testing.assert_allclose(sh.download("b"), _laplace(view.numpy()), rtol=1e-6, atol=1e-6)


# --------------------------------------- a private array in an unrolled loop

@vp.kernel
def digit_hist(data: vp.Buffer[vp.uint32], out: vp.Buffer[vp.uint32], per: vp.uint32):
    i = vp.global_id()
    for d in vp.static(range(3)):
        h = vp.Local[vp.uint32, 4]             # a fresh zeroed array in each copy
        for k in range(per):
            h[(data[i * per + k] >> (2 * d)) % 4] += 1
        for b in vp.static(range(4)):
            out[(i * 3 + d) * 4 + b] = h[b]


def test_private_array_declared_in_an_unrolled_loop(ctx):
    n, per = 64, 20
    data = np.random.default_rng(4).integers(0, 64, n * per).astype(np.uint32)
    out = np.zeros(n * 12, np.uint32)
    digit_hist(data, out, dispatch=n, per=per)
    rows = data.reshape(n, per)
    want = np.stack([np.stack([np.bincount((r >> (2 * d)) % 4, minlength=4) for d in range(3)])
                     for r in rows])
    np.testing.assert_array_equal(out.reshape(n, 3, 4), want)


# ------------------------------------------------ where kernels are defined

KERNEL = textwrap.dedent('''\
    import numpy as np
    import vulpy as vp
    @vp.kernel
    def k(x: vp.Buffer[vp.float32]):
        x[vp.global_id()] = 2.0

    x = np.zeros(4, np.float32)
    try:
        k(x, dispatch=4)
        print("ran", x.tolist())
    except vp.CompileError as e:
        print("CompileError", e)
    ''')


def _python(args, stdin=None):
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.mark.parametrize("how", ["-c", "exec", "repl"])
def test_kernels_without_source_say_where_kernels_can_be_defined(how):
    if how == "-c":
        r = _python(["-c", KERNEL])
    elif how == "exec":
        r = _python(["-c", f"exec({KERNEL!r})"])
    else:  # the plain interactive interpreter reading its standard input
        r = _python(["-i", "-q"], stdin=KERNEL + "\n")
    out = r.stdout + r.stderr
    assert "CompileError <string>: error: cannot read the source of 'k'" in out or \
        "CompileError <stdin>: error: cannot read the source of 'k'" in out, out
    assert "hint: define kernels in a file, a Jupyter/IPython cell, or register" in out, out
    assert "OSError" not in out and "Traceback" not in out, out


def test_exec_registered_in_linecache_runs_in_a_subprocess():
    code = ("import linecache\nsrc = " + repr(KERNEL) + "\nname = '<cell-1>'\n"
            "linecache.cache[name] = (len(src), None, src.splitlines(True), name)\n"
            "exec(compile(src, name, 'exec'), {})\n")
    r = _python(["-c", code])
    assert "ran [2.0, 2.0, 2.0, 2.0]" in r.stdout, r.stdout + r.stderr
