"""A hunt for silent wrong answers in the asynchronous, lifetime and
memory-reuse parts, called the way a CuPy user would: eager (queued, not
waited) resident ops, sync=False handles, in-place ops and host writes
while queued work reads an array, freed arrays whose memory the pool hands
out again, views that outlive their base, DLPack, pickling and copies of
pending results, several contexts. Differential against NumPy.

Each test named after a bug fails on the code before its fix."""
import contextlib
import copy
import pickle
import threading

import numpy as np
import pytest

import vulpy as vp

from conftest import needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

N = 1 << 12  # 16 KiB of float32: past the pool's small-buffer CPU zeroing


def _dirty_pool(ctx, value=7.0, dtype=np.float32, memory="device"):
    """Leaves a freed, finished buffer of N elements full of `value` + 1 in
    the pool, the one the next array of that size class takes."""
    j = vp.full(N, value, dtype=dtype, memory=memory, context=ctx)
    j += 1
    del j
    ctx.synchronize()


# ---------------------------------------------------------------- zero fills

def test_zeros_then_add_out_itself_with_context_keeps_the_zeros(ctx):
    """x = vp.zeros(n); vp.add(x, 3, out=x, context=ctx) gave 11 (the old
    contents of the pooled buffer, 7 + 1, plus 3) where NumPy gives 3: the
    ufunc's planned path dropped the new array's owed zero fill because
    out= is written whole, though out= was also an input and so read."""
    for _ in range(3):  # plans the signature, then the planned path
        _dirty_pool(ctx)
        x = vp.zeros(N, np.float32, memory="device", context=ctx)
        vp.add(x, 3, out=x, context=ctx)
        np.testing.assert_array_equal(x.numpy(), np.full(N, 3, np.float32))


def test_zeros_then_iadd_keeps_the_zeros(ctx):
    """acc = vp.zeros(n); acc += 3 gave 11 (the pooled buffer's old 8s + 3)
    once the signature ran in C, where NumPy gives 3; the same for acc *=
    acc, acc **= 2, np.add(acc, 3, out=acc), np.add(acc[...], 3, out=acc)
    and acc.reshape(...) += 3: the
    C launcher dropped the new array's owed zero fill as if out= were only
    written. The operators now take the Python path for that first write."""
    forms = [lambda x: x.__iadd__(3), lambda x: x.__imul__(x),
             lambda x: x.__ipow__(2), lambda x: np.add(x, 3, out=x),
             lambda x: x.reshape(64, N // 64).__iadd__(3), lambda x: x[:].__isub__(3),
             lambda x: np.add(x[...], 3, out=x)]
    wants = [3, 0, 0, 3, 3, -3, 3]
    for f, want in zip(forms, wants):
        for _ in range(3):  # plans the signature, then the C path
            _dirty_pool(ctx)
            x = vp.zeros(N, np.float32, memory="device", context=ctx)
            f(x)
            np.testing.assert_array_equal(x.numpy(), np.full(N, want, np.float32))
    for _ in range(3):  # empty_like/zeros_like are vp.empty: zeroed, as documented
        _dirty_pool(ctx)
        x = vp.zeros_like(vp.ones(N, np.float32, memory="device", context=ctx))
        x += 1
        np.testing.assert_array_equal(x.numpy(), np.ones(N, np.float32))


def test_zeros_then_ufunc_out_itself_keeps_the_zeros_c_path(ctx):
    """acc = vp.zeros(n); vp.add(acc, 3, out=acc) gives 11 (stale pool
    data) once the signature runs in C; NumPy gives 3. Same for
    vp.sin(x, out=x), vp.maximum(x, -1, out=x): any vp ufunc called with
    out= one of its inputs as the first use of a new vp.zeros / vp.empty
    array in 'device' or 'rebar' memory, and vp.where(m, a, o, out=o).
    Launcher.ufunc (launch.c) dropped the owed zero fill of every out=."""
    got = []
    w = vp.ones(N, np.float32, memory="device", context=ctx)
    for _ in range(3):
        vp.add(w, 3, out=w)  # this signature's launcher is the ufunc's C call's
        _dirty_pool(ctx)
        x = vp.zeros(N, np.float32, memory="device", context=ctx)
        vp.add(x, 3, out=x)
        got.append(float(x.numpy()[0]))
    assert got == [3.0, 3.0, 3.0]


def test_ufunc_where_into_new_zeros_keeps_the_zeros_where_false(ctx):
    """o = vp.zeros(n); vp.add(a, 1, out=o, where=m) gave the pooled
    buffer's old 8s where m is False, once vp.where's signature ran in C;
    NumPy keeps out='s values there (0). The where= path calls
    vp.where(m, r, o, out=o), whose Launcher.ufunc dropped o's zero fill."""
    h = np.arange(N, dtype=np.float32)
    a = vp.asarray(h, memory="device", context=ctx)
    m = vp.asarray(h % 2 == 0, memory="device", context=ctx)
    want = np.where(h % 2 == 0, h + 1, 0).astype(np.float32)
    for _ in range(3):
        _dirty_pool(ctx)
        o = vp.zeros(N, np.float32, memory="device", context=ctx)
        vp.add(a, 1, out=o, where=m)
        np.testing.assert_array_equal(o.numpy(), want)
        _dirty_pool(ctx)
        o = vp.zeros(N, np.float32, memory="device", context=ctx)
        np.add(a, 1, out=o, where=m)
        np.testing.assert_array_equal(o.numpy(), want)


_jit_axpb = vp.jit(lambda a, b: a * b + 1.0)


def test_zeros_then_jit_out_itself_keeps_the_zeros(ctx):
    """f = vp.jit(lambda a, b: a * b + 1.0); y = vp.zeros(n); f(y, y, out=y)
    gave 65 (the pooled buffer's old 8 * 8 + 1) once f ran in C (its
    Launcher.ufunc drops out='s owed zero fill), where NumPy gives 1."""
    w = vp.ones(N, np.float32, memory="device", context=ctx)
    w2 = vp.ones(N, np.float32, memory="device", context=ctx)
    for _ in range(3):
        _jit_axpb(w, w, out=w2)  # the C path of this signature
        _dirty_pool(ctx)
        y = vp.zeros(N, np.float32, memory="device", context=ctx)
        _jit_axpb(y, y, out=y)
        np.testing.assert_array_equal(y.numpy(), np.ones(N, np.float32))
    assert _jit_axpb._fast is not None


def test_zeros_then_out_not_an_input_is_written_whole(ctx):
    """The drop is right when out= is not read: vp.add(a, b, out=z) of a
    new z gives a + b."""
    a = vp.full(N, 2.0, np.float32, memory="device", context=ctx)
    for _ in range(3):
        _dirty_pool(ctx)
        z = vp.zeros(N, np.float32, memory="device", context=ctx)
        vp.add(a, 3, out=z)
        np.testing.assert_array_equal(z.numpy(), np.full(N, 5, np.float32))


# ------------------------------------------------------------ the gate helper

@contextlib.contextmanager
def _gated(ctx, delay=1.0):
    """Holds the GPU back for `delay` seconds where a stream shares the
    default stream's queue (lavapipe: one queue), so work submitted in the
    block is still queued when the host does what follows it: a gate event
    on a stream, with one operation queued behind it; a timer opens it (a
    host wait in the block then waits for the timer, never forever)."""
    s = vp.Stream(context=ctx)
    g = vp.Event(ctx, gate=True)
    s.wait_event(g)
    x = vp.asarray(np.zeros(4, np.float32), context=ctx)
    with s:
        y = x + 1  # noqa: F841 - the gated work
    t = threading.Timer(delay, g.set)
    t.start()
    try:
        yield
    finally:
        t.join()
        s.synchronize()


# ------------------------------------------------ sync=False convenience calls

def test_async_convenience_call_copies_a_convenience_result_input(ctx):
    """r = vp.sin(a) (a NumPy array over a pooled buffer); h =
    vp.multiply(r, 2, sync=False); r[:] = -1; h.wait() gave -2 everywhere
    where NumPy (and the documented copy of sync=False inputs) gives
    sin(a) * 2: the call bound r's buffer itself instead of a copy."""
    h = np.linspace(-3, 3, N, dtype=np.float32)
    r = vp.sin(h, context=ctx)
    want = np.multiply(r, np.float32(2))
    for _ in range(2):  # the planned call, then the fast path
        r = vp.sin(h, context=ctx)
        with _gated(ctx):
            hd = vp.multiply(r, 2, sync=False, context=ctx)
            r[:] = -1
        np.testing.assert_array_equal(hd.wait(), want)


# ----------------------------------------------------- kernels on copied views

@vp.kernel
def _times3(a: vp.Buffer[vp.float32], b: vp.Buffer[vp.float32]):
    i = vp.global_id()
    b[i] = a[i] * 3.0


def test_async_kernel_into_an_unaligned_view_is_ordered_before_later_work(ctx):
    """k(x, y[1:n+1], sync=False); y += 100; h.wait() gave y[1] = 0 + 0
    (the kernel's 0 copied back over the += at wait()) where stream order
    (CuPy, NumPy run in order) gives 100 + 0 * 3 = 100, 103, 106, ...; and
    with the handle dropped unwaited the kernel's writes never reached y.
    A view at an offset the device cannot bind is bound as a copy; its
    write-back is now a GPU copy queued right after the kernel."""
    n = 256
    h = np.arange(n, dtype=np.float32)
    x = vp.asarray(h, context=ctx)
    y = vp.zeros(2 * n, np.float32, context=ctx)
    hd = _times3(x, y[1:n + 1], dispatch=n, sync=False)
    y += 100
    hd.wait()
    want = np.zeros(2 * n, np.float32)
    want[1:n + 1] = h * 3
    want += 100
    np.testing.assert_array_equal(y.numpy(), want)
    y = vp.zeros(2 * n, np.float32, context=ctx)
    hd = _times3(x, y[1:n + 1], dispatch=n, sync=False)
    del hd
    want = np.zeros(2 * n, np.float32)
    want[1:n + 1] = h * 3
    np.testing.assert_array_equal(y.numpy(), want)


# ------------------------------------------------------------------- DLPack

def test_from_dlpack_copy_true_of_a_resident_array_copies(ctx):
    """y = vp.from_dlpack(x, copy=True, context=x.context); y += 1 changed
    x too (y was x: context= took the x.to(context) path, which is x itself
    on its own context); NumPy's from_dlpack(copy=True) is a copy, so x
    stays. copy=False to another context is a BufferError, as documented
    for copies."""
    h = np.arange(N, dtype=np.float32)
    x = vp.asarray(h, context=ctx)
    for kw in ({"copy": True, "context": ctx}, {"copy": True}):
        y = vp.from_dlpack(x, **kw)
        assert y is not x
        y += 1
        np.testing.assert_array_equal(x.numpy(), h)
        np.testing.assert_array_equal(y.numpy(), h + 1)
    assert vp.from_dlpack(x, context=ctx) is x and vp.from_dlpack(x, copy=False) is x
    other = vp.Context()
    with pytest.raises(BufferError, match="copy=False"):
        vp.from_dlpack(x, copy=False, context=other)
    z = vp.from_dlpack(x, context=other)
    assert z.context is other
    np.testing.assert_array_equal(z.numpy(), h)


def test_array_copies_as_numpy_and_cupy(ctx):
    """y = vp.array(x); y += 1 changed x (vp.array was vp.asarray, which
    hands a resident array back as is), and vp.array(a, memory='host') of a
    page-aligned NumPy array shared its pages (a[:] = 5 changed the
    result); numpy.array and cupy.array copy (copy=True by default)."""
    h = np.arange(N, dtype=np.float32)
    x = vp.asarray(h, context=ctx)
    y = vp.array(x)
    y += 1
    np.testing.assert_array_equal(x.numpy(), h)
    np.testing.assert_array_equal(y.numpy(), h + 1)
    a = vp.aligned_empty(N, np.float32)
    a[:] = h
    z = vp.array(a, memory="host", context=ctx)
    a[:] = 5
    np.testing.assert_array_equal(z.numpy(), h)
    s = vp.HostArray(N, np.float32)
    s.numpy()[:] = h
    w = vp.array(s, context=ctx)
    s.numpy()[:] = 7
    np.testing.assert_array_equal(w.numpy(), h)
    assert vp.array(x, copy=None) is x
    with pytest.raises(ValueError, match="copy=False"):
        vp.array(h, copy=False, context=ctx)


# ------------------------------------------------------------ several contexts

def test_to_another_context_is_a_copy_for_host_memory(ctx):
    """t = x.to(other) of a memory='host' array, then x += 1: t changed
    too (t was other's import of x's own pages: x.to went through
    vp.asarray(x.numpy_view(), memory='host'), which imports page-aligned
    NumPy memory), where the documented copy (and NumPy's np.copy) keeps
    the values at the call."""
    h = np.arange(N, dtype=np.float32)
    src, other = vp.Context(), vp.Context()  # a fresh pool: page-aligned buffers
    for mem in ("host", "cached", "device"):
        x = vp.asarray(h, memory=mem, context=src)
        t = x.to(other)
        u = x.to(other, memory="host")
        x += 1
        src.synchronize()
        np.testing.assert_array_equal(t.numpy(), h)
        np.testing.assert_array_equal(u.numpy(), h)
        assert t.context is other and u.memory == "host"


def test_hostarray_numpy_waits_for_arrays_handed_out_before_release(ctx):
    """a = h.on(ctx); h.release(ctx); k(x, a, sync=False); h.numpy() gave
    the pages before the kernel wrote them (zeros) where the documented
    wait for the GPU work on them gives x * 3: release() forgot the array,
    which keeps working over the pages, so wait() no longer waited for it."""
    n = 1024
    h = np.arange(n, dtype=np.float32)
    x = vp.asarray(h, context=ctx)
    s = vp.HostArray(n, np.float32)
    a = s.on(ctx)
    s.release(ctx)
    with _gated(ctx, 0.3):
        hd = _times3(x, a, dispatch=n, sync=False)
        got = s.numpy().copy()
    hd.wait()
    np.testing.assert_array_equal(got, h * 3)


def test_view_words_of_a_bool_view_are_its_own_words(ctx):
    """b = x > 3; b[5:].view_words() gave the buffer's first 3 words
    ([0 0 0]) and b[::2].view_words() its first 4, where the view's own
    elements are [1 1 1] and [0 0 1 1] (numpy_view() of a view is the
    view's elements; view_words ignored the offset and strides)."""
    x = vp.asarray(np.arange(8, dtype=np.float32), memory="host", context=ctx)
    b = x > 3
    want = (np.arange(8) > 3).astype(np.uint32)
    np.testing.assert_array_equal(b.view_words(), want)
    np.testing.assert_array_equal(b[5:].view_words(), want[5:])
    np.testing.assert_array_equal(b[::2].view_words(), want[::2])
    np.testing.assert_array_equal(b.reshape(2, 4).T.view_words(), want.reshape(2, 4).T)


_SHADER = """import vulpy as vp

class PushConstants:
    N: vp.uint32

def main(pos: vp.Buffer[vp.float32], vel: vp.Buffer[vp.float32]):
    i = vp.global_id()
    if i < pc.N:
        pos[i] = pos[i] + vel[i]
"""


def test_shader_upload_into_a_bound_view_writes_the_view(ctx, tmp_path):
    """sh.bind('pos', big[100:200]); sh.upload('pos', fives) wrote the
    fives over big[0:100] and left the view at 0 (the upload went to the
    buffer's first bytes); NumPy's big[100:200] = fives changes only the
    view's elements."""
    path = tmp_path / "k.vul.py"
    path.write_text(_SHADER)
    sh = vp.compile(str(path), local_size_x=64, context=ctx)
    big = vp.zeros(300, np.float32, context=ctx)
    sh.bind("pos", big[100:200])
    sh.upload("pos", np.full(100, 5, np.float32))
    sh.upload("vel", np.ones(100, np.float32))
    sh.run(dispatch=100, N=100)
    want = np.zeros(300, np.float32)
    want[100:200] = 6
    np.testing.assert_array_equal(big.numpy(), want)
    np.testing.assert_array_equal(sh.download("pos"), want[100:200])


# ------------------------------------------------- checked and found right

_HOST_WRITES = {
    "set": lambda x, n: x.set(np.zeros(n, np.float32)),
    "setitem": lambda x, n: x.__setitem__(Ellipsis, np.zeros(n, np.float32)),
    "fill": lambda x, n: x.fill(0.0),
    "numpy_view": lambda x, n: x.numpy_view().__setitem__(Ellipsis, 0.0),
    "iadd": lambda x, n: x.__iadd__(1.0),
}


@pytest.mark.parametrize("mem", ["device", "host"])
@pytest.mark.parametrize("write", sorted(_HOST_WRITES))
def test_write_after_a_queued_read_is_ordered_after_it(ctx, write, mem):
    """y = x * 2 is still queued (the GPU held back) when x is written from
    the host or the GPU: y has the old x, as NumPy's in-order run does."""
    n = 1024
    h = np.arange(n, dtype=np.float32)
    x = vp.asarray(h, memory=mem, context=ctx)
    if write == "numpy_view" and not x._buf.mapped:
        pytest.skip("memory='device' is not host-visible on this device (a dGPU)")
    with _gated(ctx, 0.3):
        y = x * 2
        _HOST_WRITES[write](x, n)
    np.testing.assert_array_equal(y.numpy(), h * 2)


def test_pending_results_read_copied_and_freed(ctx):
    """Reads, copies and exports of results still queued see them; a freed
    input whose read is queued is not handed to a new array (NumPy's
    values throughout)."""
    n = 1024
    h = np.arange(n, dtype=np.float32)
    x = vp.asarray(h, memory="host", context=ctx)
    with _gated(ctx, 0.3):
        y = x * 2
        v = x[2:]
        del x
        z = vp.asarray(np.full(n, 9, np.float32), memory="host", context=ctx)
        w = v * 1
        p = pickle.loads(pickle.dumps(y))
        d = copy.deepcopy(y)
        y += 1
        e = np.from_dlpack(y)
        s = float(y.sum())
        f = f"{y[3]:.1f}"
    np.testing.assert_array_equal(w.numpy(), h[2:])
    np.testing.assert_array_equal(z.numpy(), np.full(n, 9, np.float32))
    np.testing.assert_array_equal(p.numpy(), h * 2)
    np.testing.assert_array_equal(d.numpy(), h * 2)
    np.testing.assert_array_equal(e, h * 2 + 1)
    assert s == float((h * 2 + 1).sum()) and f == "7.0"
