"""The fast paths of calls and transfers, checked for correctness:

- convenience results are NumPy views of pooled, mapped Vulkan buffers that
  go back to the pool only when the last view dies; inputs are imported with
  no copy (cached per array, dropped with it), views of a result are bound
  directly, and asynchronous calls still snapshot their inputs;
- downloads (numpy(), get(out=)) of every memory kind and odd sizes, with one
  copy thread and with several;
- each wait strategy, and synchronize() on a lost device;
- the compile cache: a second process compiles nothing (it finds the kernel
  before dumping its AST), and a changed module constant is a new kernel.
"""
import gc
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vulpy as vp
from vulpy import _native

from conftest import ROOT, needs_target

pytestmark = needs_target


def _root_buffer(a):
    base = a.base
    while isinstance(base, np.ndarray):
        base = base.base
    return base.obj if isinstance(base, memoryview) else base


# ------------------------------------------------------------ convenience

def test_convenience_result_is_a_view_of_a_pooled_buffer(ctx):
    x = np.linspace(0, 3, 100_003, dtype=np.float32)
    y = vp.sin(x)
    assert type(y) is np.ndarray and y.shape == x.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, np.sin(x), rtol=2e-6, atol=1e-6)
    buf = _root_buffer(y)
    assert isinstance(buf, _native.ext().Buffer) and buf.pooled and buf.mapped
    assert y.__array_interface__["data"][0] == buf.address
    assert y.flags.writeable
    # While y lives, later calls never reuse its buffer.
    keep = y.copy()
    for _ in range(5):
        z = vp.exp(x)
        assert _root_buffer(z) is not buf
        del z
    np.testing.assert_array_equal(y, keep)
    # Once y dies, its buffer is back in the pool and the next call takes it.
    before = ctx._native.pool_info()["buffers"]
    del y, buf
    gc.collect()
    assert ctx._native.pool_info()["buffers"] >= before
    w = vp.cos(x)
    np.testing.assert_allclose(w, np.cos(x), rtol=2e-6, atol=1e-6)


def test_convenience_chains_bind_results_directly(ctx):
    x = np.linspace(-2, 2, 300_000, dtype=np.float32)
    s = vp.sin(x)
    assert ctx._host_input(s) is _root_buffer(s)  # no copy, no import
    e = vp.exp(s)
    np.testing.assert_allclose(e, np.exp(np.sin(x)), rtol=4e-6, atol=1e-6)
    r = vp.sin(x) + vp.exp(x)
    np.testing.assert_allclose(r, np.sin(x) + np.exp(x), rtol=4e-6, atol=1e-6)
    # two results as the operands of a binary ufunc
    t = vp.add(vp.sin(x), vp.exp(x))
    np.testing.assert_allclose(t, r, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n", [1, 3, 17, 65_536, 1_000_003])
def test_convenience_odd_sizes_and_shapes(ctx, n):
    x = (np.arange(n, dtype=np.float32) % 97) / 7
    np.testing.assert_allclose(vp.sqrt(x), np.sqrt(x), rtol=1e-6)
    x2 = x[: n - n % 3].reshape(-1, 3) if n >= 3 else x.reshape(1, -1)
    np.testing.assert_allclose(vp.negative(x2), -x2)
    np.testing.assert_array_equal(vp.less(x, 5.0), x < 5.0)  # bool: a copy


def test_convenience_imports_cached_per_array(ctx):
    if not ctx.host_import:
        pytest.skip("no external_memory_host")
    x = np.linspace(0, 1, 1 << 18, dtype=np.float32)  # 1 MiB: imported
    ctx._imports.clear()
    np.testing.assert_allclose(vp.exp(x), np.exp(x), rtol=2e-6)
    assert len(ctx._imports) == 1
    buf = next(iter(ctx._imports.values()))[3]
    assert buf.imported is False and buf.owner is None  # does not keep x alive
    np.testing.assert_allclose(vp.negative(x), -x)
    assert len(ctx._imports) == 1 and next(iter(ctx._imports.values()))[3] is buf
    # The GPU reads the array's pages as they are now.
    x[:] = 2.0
    assert np.all(vp.negative(x) == -2.0)
    # A view 16 bytes in is imported by its pages too; one 4 bytes in cannot
    # be bound there (minStorageBufferOffsetAlignment) and is copied.
    v = x[4:]
    v[:] = np.arange(v.size, dtype=np.float32)
    np.testing.assert_array_equal(vp.negative(v), -v)
    assert len(ctx._imports) == 2
    u = x[1:]
    np.testing.assert_array_equal(vp.negative(u), -u)
    assert len(ctx._imports) == 2
    # The import goes with the array.
    del u, v, x, buf
    gc.collect()
    assert len(ctx._imports) == 0


def test_convenience_fast_path_per_signature(ctx):
    a = np.linspace(0, 1, 5000, dtype=np.float32)
    b = np.linspace(1, 2, 5000, dtype=np.float32)
    np.testing.assert_allclose(vp.add(a, b), a + b)
    assert ("np", "add", a.dtype, b.dtype, a.shape) in ctx._ufast
    # the planned call again, with other arrays of the same signature
    for k in range(3):
        c = a * k
        np.testing.assert_allclose(vp.add(c, b), c + b)
        np.testing.assert_allclose(vp.add(b, c, sync=False).wait(), b + c)
    # anything else takes the planning path
    np.testing.assert_allclose(vp.add(a, b[:1]), a + b[0])
    np.testing.assert_allclose(vp.add(a, b.astype(np.float64)), a + b.astype(np.float64))
    np.testing.assert_allclose(vp.add(a[::2], b[::2]), a[::2] + b[::2])
    o = np.empty_like(a)
    assert vp.add(a, b, out=o) is o
    np.testing.assert_allclose(o, a + b)


def test_convenience_async_snapshots_its_inputs(ctx):
    x = np.full(1 << 18, 3.0, np.float32)
    h = vp.negative(x, sync=False)
    x[:] = 5.0
    assert np.all(h.wait() == -3.0)


def test_convenience_out_numpy(ctx):
    x = np.linspace(0, 1, 100_001, dtype=np.float32)
    out = np.empty_like(x)
    r = vp.exp(x, out=out)
    assert r is out
    np.testing.assert_allclose(out, np.exp(x), rtol=2e-6)
    outd = np.empty(x.shape, np.float64)
    vp.negative(x, out=outd)
    np.testing.assert_array_equal(outd, -x.astype(np.float64))


def test_import_range_keeps_the_object_when_asked(ctx):
    if not ctx.host_import:
        pytest.skip("no external_memory_host")
    a = np.arange(1000, dtype=np.float32)
    b = _native.ext().Buffer.import_range(ctx._native, a)
    assert b.owner is a and b.imported and b.address == a.__array_interface__["data"][0]
    assert b.size == a.nbytes
    with pytest.raises((BufferError, ValueError)):
        _native.ext().Buffer.import_range(ctx._native, np.arange(4.0)[::2])
    ro = np.arange(8, dtype=np.float32)
    ro.flags.writeable = False
    with pytest.raises((BufferError, ValueError)):
        _native.ext().Buffer.import_range(ctx._native, ro)


# -------------------------------------------------------------- downloads

@pytest.mark.parametrize("memory", ["device", "host", "cached", "rebar"])
@pytest.mark.parametrize("threads", [1, 3])
def test_downloads_every_kind_odd_sizes(memory, threads):
    c = vp.Context(copy_threads=threads)
    assert c.copy_threads == threads
    for n in (0, 1, 3, 4097, 1_000_003, (5 << 20) + 3):
        x = (np.arange(n, dtype=np.uint32) * 2654435761).astype(np.uint32)
        a = vp.asarray(x, memory=memory, context=c)
        np.testing.assert_array_equal(a.numpy(), x)
        out = np.full_like(x, 7)
        assert a.get(out=out) is out
        np.testing.assert_array_equal(out, x)
        np.testing.assert_array_equal(a.get(), x)
    f = vp.asarray(np.arange(10, dtype=np.float32), memory=memory, context=c)
    with pytest.raises(ValueError, match="out= is"):
        f.get(out=np.empty(9, np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        f.get(out=np.empty(20, np.float32)[::2])
    with pytest.raises(TypeError, match="NumPy array"):
        f.get(out=[0] * 10)


def test_copy_threads_setting(ctx):
    c = vp.Context(copy_threads=2)
    c.copy_threads = 4
    assert c.copy_threads == 4
    with pytest.raises(ValueError):
        c.copy_threads = 0
    with pytest.raises(ValueError):
        vp.Context(copy_threads=0)


# ------------------------------------------------------------------ waits

@pytest.mark.parametrize("mode", ["spin", "block", "spin-block"])
def test_wait_modes_give_the_same_results(mode):
    c = vp.Context(wait=mode)
    assert c.wait == mode

    @vp.kernel(local_size_x=64)
    def twice(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
        i = vp.global_id()
        y[i] = 2.0 * x[i]

    x = vp.asarray(np.arange(1000, dtype=np.float32), context=c)
    y = vp.empty_like(x)
    for k in range(20):
        twice(x, y, dispatch=1000 - k)
        assert y.numpy()[999 - k] == 2 * (999 - k)
    c.wait = "default"
    assert c.wait in ("block", "spin-block")
    with pytest.raises(ValueError, match="wait must be"):
        c.wait = "sleep"
    with pytest.raises(ValueError, match="wait must be"):
        vp.Context(wait="nap")


@pytest.mark.parametrize("mode,blocks", [("spin", False), ("block", True)])
def test_blocked_waits_are_counted(mode, blocks):
    # stats()['waits_blocked']: each synchronous call waits for a dispatch
    # it just submitted; 'block' waits in vkWaitSemaphores every time,
    # 'spin' never does (spin-block's choice in between adapts to how long
    # the waits take: test_dispatch.c's test_spin_extra)
    c = vp.Context(wait=mode)

    @vp.kernel(local_size_x=64)
    def twice(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
        i = vp.global_id()
        y[i] = 2.0 * x[i]

    x = vp.asarray(np.arange(1 << 16, dtype=np.float32), context=c)
    y = vp.empty_like(x)
    twice(x, y, dispatch=x.size)
    before = c.stats()["waits_blocked"]
    for _ in range(5):
        twice(x, y, dispatch=x.size)
    after = c.stats()["waits_blocked"]
    assert (after - before == 5) if blocks else after == before
    np.testing.assert_array_equal(y.numpy(), 2 * np.arange(1 << 16, dtype=np.float32))


def test_synchronize_fails_on_a_lost_device():
    c = vp.Context()
    c.synchronize()
    c._native.inject_fault("vkQueueSubmit", -4)  # VK_ERROR_DEVICE_LOST
    with pytest.raises(vp.DeviceLostError):
        vp.zeros(4, context=c).fill(1.0)
    # nothing is pending, and still: the device's results cannot be trusted
    with pytest.raises(vp.DeviceLostError):
        c.synchronize()


# ------------------------------------------------------------ compile cache

_PROBE = """
import json, sys
import numpy as np
sys.path.insert(0, {pkg!r})
sys.path.insert(0, {here!r})
import vulpy as vp
from vulpy import _compiler
import kmod
k = vp.kernel(local_size_x=64)(kmod.scale)
x = vp.asarray(np.arange(100, dtype=np.float32))
y = vp.empty_like(x)
k(x, y, dispatch=100)
print(json.dumps(dict(_compiler.stats, y3=float(y.numpy()[3]))))
"""


def _run_probe(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(_PROBE.format(pkg=str(ROOT / "bindings" / "python"), here=str(tmp_path)))
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("VULPY_NO_DISK_CACHE", None)
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_compile_cache_hit_in_a_second_process(tmp_path):
    src = textwrap.dedent("""
        import vulpy as vp
        FACTOR = 3.0

        def helper(v: vp.float32) -> vp.float32:
            return v * FACTOR

        def scale(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
            i = vp.global_id()
            y[i] = helper(x[i])
        """)
    (tmp_path / "kmod.py").write_text(src)
    first = _run_probe(tmp_path)
    assert first["compiled"] == 1 and first["y3"] == 9.0
    second = _run_probe(tmp_path)
    # found before the AST dump: no frontend, no glslang, no validation
    assert second["compiled"] == 0 and second["fast_disk_hits"] == 1
    assert second["y3"] == 9.0
    # a module constant the helper reads is part of the key
    (tmp_path / "kmod.py").write_text(src.replace("FACTOR = 3.0", "FACTOR = 5.0"))
    third = _run_probe(tmp_path)
    assert third["compiled"] == 1 and third["y3"] == 15.0
    # and so is the kernel's text
    (tmp_path / "kmod.py").write_text(src.replace("helper(x[i])", "helper(x[i]) + 1.0"))
    fourth = _run_probe(tmp_path)
    assert fourth["compiled"] == 1 and fourth["y3"] == 10.0


def test_function_key_sees_values_and_closures():
    from vulpy import _compiler

    def make(c):
        def k(x: vp.Buffer[vp.float32]):
            x[vp.global_id()] = c
        return k
    k1, k2 = make(1.0), make(2.0)
    a = _compiler.function_key(k1, {}, {})
    assert a and a == _compiler.function_key(make(1.0), {}, {})
    assert a != _compiler.function_key(k2, {}, {})
    assert a != _compiler.function_key(k1, {"local_size_x": 32}, {})
    assert a != _compiler.function_key(k1, {}, {"fast_math": True})
    # no source: no fast key (the slow path decides)
    ns = {}
    exec("def nosrc(x):\n    pass\n", ns)
    assert _compiler.function_key(ns["nosrc"], {}, {}) is None
