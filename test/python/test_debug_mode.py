"""Debug mode (issue 20): @vp.kernel(debug=True), vp.compile(..., debug=True),
VULPY_DEBUG=1. Each fault kind comes back as vp.KernelError naming the
kernel's line, the index and the invocation; the faulting access is
skipped; debug=False kernels are unchanged. And the default build: an
out-of-bounds shared index no longer crashes the process (clamp-shared)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vulpy as vp

pytestmark = pytest.mark.usefixtures("ctx")


def _line(fn, text):
    """The source line number of `text` inside fn (in this file)."""
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if text in s)


def _read_oob(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32]):
    i = vp.global_id()
    out[i] = a[i + 1] * 2.0


def _write_oob(out: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    out[i + n] = 1.0


def _shared_oob(out: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    tile = vp.Shared[vp.float32, 64]
    tile[vp.local_index()] = vp.float32(i)
    vp.barrier()
    out[i] = tile[vp.local_index() + n]


def _asserting(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    assert x[i] >= 0.0, "negative"
    x[i] = vp.sqrt(x[i])


def test_buffer_read_out_of_bounds():
    k = vp.kernel(debug=True)(_read_oob)
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    with pytest.raises(vp.KernelError) as e:
        k(a, out, dispatch=64)
    err = e.value
    line = _line(_read_oob, "a[i + 1]")
    assert f"test_debug_mode.py:{line}:14: error:" in str(err)
    assert "buffer 'a' read: index 64 is out of bounds (length 64)" in str(err)
    assert err.kind == "buffer read" and err.name == "a"
    assert (err.line, err.index, err.length, err.invocation) == (line, 64, 64, (63, 0, 0))
    # every in-range element was computed; the bad read gave element 0
    np.testing.assert_array_equal(out[:63], np.arange(1, 64, dtype=np.float32) * 2)
    assert out[63] == 0.0


def test_buffer_write_out_of_bounds_touches_nothing():
    k = vp.kernel(debug=True)(_write_oob)
    big = vp.zeros(128, np.float32)
    out = big[:64]  # a view: the elements past it must stay 0
    with pytest.raises(vp.KernelError) as e:
        k(out, dispatch=1, n=100)
    err = e.value
    assert err.kind == "buffer write" and err.name == "out"
    assert (err.line, err.index, err.invocation) == (_line(_write_oob, "out[i + n]"), 100, (0, 0, 0))
    assert "index 100 is out of bounds" in str(err) and "out[i + n] = 1.0" in str(err)
    np.testing.assert_array_equal(big.numpy(), np.zeros(128, np.float32))


def test_shared_out_of_bounds():
    k = vp.kernel(debug=True)(_shared_oob)
    out = np.zeros(64, np.float32)
    with pytest.raises(vp.KernelError) as e:
        k(out, dispatch=64, n=1)
    err = e.value
    assert err.kind == "shared read" and err.name == "tile"
    assert err.line == _line(_shared_oob, "tile[vp.local_index() + n]")
    assert (err.index, err.length, err.invocation) == (64, 64, (63, 0, 0))
    assert "shared array 'tile' read: index 64" in str(err)
    np.testing.assert_array_equal(out[:63], np.arange(1, 64, dtype=np.float32))


def test_failed_assert():
    k = vp.kernel(debug=True)(_asserting)
    x = np.array([4.0, 9.0, -1.0, 16.0], np.float32)
    with pytest.raises(vp.KernelError) as e:
        k(x, dispatch=4)
    err = e.value
    assert err.kind == "assert" and err.invocation == (2, 0, 0)
    assert err.line == _line(_asserting, "assert x[i]")
    assert f":{err.line}:5: error: assertion failed in invocation (2, 0, 0)" in str(err)
    assert err.index is None
    # the failing invocation stopped at the assert; the others went on
    np.testing.assert_array_equal(x, [2.0, 3.0, -1.0, 4.0])


def test_no_fault_no_error_and_resident_arrays():
    k = vp.kernel(debug=True)(_read_oob)
    a = vp.asarray(np.arange(65, dtype=np.float32))
    out = vp.zeros(64, np.float32)
    k(a, out, dispatch=64)
    np.testing.assert_array_equal(out.numpy(), np.arange(1, 65, dtype=np.float32) * 2)
    h = k(a, out, dispatch=64, sync=False)
    assert h.wait() is None


def test_async_fault_raises_at_wait():
    k = vp.kernel(debug=True)(_read_oob)
    h = k(np.zeros(8, np.float32), np.zeros(8, np.float32), dispatch=8, sync=False)
    with pytest.raises(vp.KernelError, match="index 8 is out of bounds"):
        h.wait()


def test_debug_false_is_unaffected():
    k = vp.kernel(_read_oob)
    assert "_vp_assert" not in k.vir and "_vp_assert" not in k.glsl
    kd = vp.kernel(debug=True)(_read_oob)
    assert "_vp_assert" in kd.glsl and "atomicCompSwap" in kd.glsl
    a = np.arange(65, dtype=np.float32)
    out = np.zeros(64, np.float32)
    k(a, out, dispatch=64)
    np.testing.assert_array_equal(out, a[1:] * 2)
    # asserts are not compiled without debug: no error
    x = np.array([-1.0], np.float32)
    vp.kernel(_asserting)(x, dispatch=1)


def test_env_and_keywords(monkeypatch):
    monkeypatch.setenv("VULPY_DEBUG", "1")
    k = vp.kernel(_read_oob)
    assert k.debug
    with pytest.raises(vp.KernelError):
        k(np.zeros(4, np.float32), np.zeros(4, np.float32), dispatch=4)
    assert not vp.kernel(debug=False)(_read_oob).debug
    monkeypatch.delenv("VULPY_DEBUG")
    assert not vp.kernel(_read_oob).debug
    with pytest.raises(TypeError, match="debug=True"):
        vp.kernel(debug_asserts=True)(_read_oob)
    with pytest.raises(TypeError, match="debug= must be True or False"):
        vp.kernel(debug="yes")(_read_oob)
    k = vp.kernel(debug=True)(_read_oob)
    with pytest.raises(TypeError, match=r"takes 2 buffer\(s\) \(a, out\), got 1"):
        k(np.zeros(4, np.float32), dispatch=4)


def test_compile_debug(tmp_path):
    src = tmp_path / "k.vul.py"
    src.write_text(textwrap.dedent("""\
        import vulpy as vp

        def main(out: vp.Buffer[vp.float32], n: vp.uint32):
            i = vp.global_id()
            out[i + n] = 1.0
        """))
    sh = vp.compile(str(src), debug=True)
    assert sh.buffer_names == ["out"]
    sh.allocate(out=8)
    sh.run(dispatch=8, n=0)
    with pytest.raises(vp.KernelError) as e:
        sh.run(dispatch=8, n=1)
    assert str(e.value).startswith(f"{src}:5:5: error: buffer 'out' write: index 8")
    assert vp.compile(str(src)).buffer_names == ["out"]


_CRASHER = """
import numpy as np, vulpy as vp

@vp.kernel
def s(out: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    tile = vp.Shared[vp.float32, 64]
    tile[vp.local_index() * n] = 1.0
    vp.barrier()
    out[i] = tile[vp.local_index()]

out = np.zeros(1024, np.float32)
for r in range(20):
    s(out, n=1000000, dispatch=1024)
print("survived", out[0])
"""


def test_shared_out_of_bounds_does_not_crash(tmp_path):
    """Before clamp-shared this died with SIGSEGV/SIGABRT on lavapipe (a
    shared store past the array wrote the interpreter's heap)."""
    f = tmp_path / "crash.py"
    f.write_text(_CRASHER)
    r = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ))
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert "survived 1.0" in r.stdout


def test_robust_context():
    c = vp.Context(robust=True)
    assert c.robust
    k = vp.kernel(_read_oob)
    a = vp.asarray(np.arange(65, dtype=np.float32), context=c)
    out = vp.zeros(64, np.float32, context=c)
    k(a, out, dispatch=64)
    np.testing.assert_array_equal(out.numpy(), np.arange(1, 65, dtype=np.float32) * 2)


def _length(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.uint32]):
    out[0] = len(a)


def test_numpy_argument_length_is_the_arrays():
    """A NumPy argument goes through a pooled scratch buffer, which may be
    larger; the kernel sees the array's length (it saw the pool's: 64 for
    8 floats), so bounds checks and len() agree with the array."""
    out = np.zeros(1, np.uint32)
    vp.kernel(_length)(np.zeros(8, np.float32), out, dispatch=1)
    assert out[0] == 8


# ------------------------------------------------------------ vp.print

def _printer(a: vp.Buffer[vp.float32], n: vp.int32):
    i = vp.global_id()
    if i < 3:
        vp.print("i =", i, "a[i] =", a[i], n > 2, vp.int32(-5), vp.uint32(7))


def _flood(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    vp.print("x", a[i])


def test_print_like_python(capsys):
    a = np.array([1.5, 0.1, -3.0, 4.0], np.float32)
    vp.kernel(_printer)(a, dispatch=4, n=7)
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == ["i = 0 a[i] = 1.5 True -5 7", "i = 1 a[i] = 0.1 True -5 7",
                             "i = 2 a[i] = -3.0 True -5 7"]


def test_print_is_bounded(capsys):
    """More output than the ring holds: the kernel ends (no hang), the ring's
    records are printed and the rest is reported as dropped."""
    n = 20000  # 8 words a record (4 + 2 a value): 160000 words > 65535
    vp.kernel(_flood)(np.zeros(n, np.float32), dispatch=n)
    out = capsys.readouterr().out.splitlines()
    assert len(out) - 1 == 65535 // 8 and all(s == "x 0.0" for s in out[:-1])
    assert "ring of 65535 words was full" in out[-1] and "dropped" in out[-1]


def test_print_errors():
    def f64(a: vp.Buffer[vp.float64]):
        vp.print(a[0])

    with pytest.raises(vp.CompileError, match="64-bit value"):
        vp.kernel(f64)(np.zeros(1), dispatch=1)

    def vec(a: vp.Buffer[vp.float32]):
        vp.print(vp.vec2(a[0], a[1]))

    with pytest.raises(vp.CompileError, match="scalars and string constants"):
        vp.kernel(vec)(np.zeros(2, np.float32), dispatch=1)
