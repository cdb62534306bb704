"""Resident views and aliasing in @vp.kernel, raw GLSL kernels and
vp.compile shaders (issue 14, issue 20).

A contiguous view binds its own elements (copy-in/copy-out through a buffer
of its own), never its base buffer from element 0; a strided view is a
ValueError naming the argument; the same memory bound twice where a binding
is written is a ValueError naming both arguments; a read-only NumPy array
bound where the kernel writes is a ValueError naming the argument.
"""
import numpy as np
import pytest

import vulpy as vp

from conftest import needs_cross, needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]


@vp.kernel(local_size_x=64)
def add_one(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    x[i] = x[i] + 1.0


@vp.kernel(local_size_x=64)
def count(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    if i == 0:
        x[0] = vp.float32(len(x))


@vp.kernel(local_size_x=64)
def copy_into(src: vp.Buffer[vp.float32], dst: vp.Buffer[vp.float32]):
    i = vp.global_id()
    dst[i] = src[i] * 2.0


@vp.kernel(local_size_x=64)
def bump_both(a: vp.Buffer[vp.float32], b: vp.Buffer[vp.float32]):
    i = vp.global_id()
    a[i] = a[i] + 1.0
    b[i] = b[i] + 1.0


@vp.kernel(local_size_x=64)
def dot3(a: vp.Buffer[vp.float32], b: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32]):
    i = vp.global_id()
    out[i] = a[i] * b[i]


def test_offset_view_writes_its_own_elements():
    h = np.arange(10, dtype=np.float32)
    v = vp.asarray(h)
    add_one(v[4:], dispatch=4)
    h[4:8] += 1
    np.testing.assert_array_equal(v.numpy(), h)


def test_offset_view_twice_uses_the_python_path_each_time():
    # the second call would go to the C launcher made after the first one
    h = np.arange(300, dtype=np.float32)
    v = vp.asarray(h)
    w = vp.zeros(64)
    add_one(w, dispatch=64)  # a whole array first: the launcher exists
    for _ in range(3):
        add_one(v[100:], dispatch=200)
    h[100:] += 3
    np.testing.assert_array_equal(v.numpy(), h)
    np.testing.assert_array_equal(w.numpy(), np.ones(64, np.float32))


def test_prefix_view_len_is_the_views():
    # (len() of a buffer counts its padding to 16 bytes, as for any array:
    # 36 float32 are exactly 144 bytes)
    v = vp.zeros(100)
    count(v[:36], dispatch=1)
    assert v.numpy()[0] == 36
    count(v[50:86], dispatch=1)
    assert v.numpy()[50] == 36
    count(v, dispatch=1)
    assert v.numpy()[0] == 100


def test_2d_row_view():
    h = np.arange(64, dtype=np.float32).reshape(8, 8)
    v = vp.asarray(h)
    add_one(v[3], dispatch=8)
    h[3] += 1
    np.testing.assert_array_equal(v.numpy(), h)


def test_read_only_offset_view_is_read_at_its_offset():
    h = np.arange(100, dtype=np.float32)
    v = vp.asarray(h)
    out = vp.zeros(50)
    copy_into(v[50:], out, dispatch=50)
    np.testing.assert_array_equal(out.numpy(), h[50:] * 2)
    np.testing.assert_array_equal(v.numpy(), h)


def test_async_view_copy_back_on_wait():
    h = np.arange(100, dtype=np.float32)
    v = vp.asarray(h)
    hd = add_one(v[10:20], dispatch=10, sync=False)
    hd.wait()
    h[10:20] += 1
    np.testing.assert_array_equal(v.numpy(), h)


@pytest.mark.parametrize("make", [lambda v: v[::2], lambda v: v.reshape(4, 4).T,
                                  lambda v: v[::-1]])
def test_strided_view_is_refused_naming_the_argument(make):
    v = vp.zeros(16)
    before = v.numpy()
    with pytest.raises(ValueError, match="'x'.*not contiguous|'x'.*strided"):
        add_one(make(v), dispatch=8)
    np.testing.assert_array_equal(v.numpy(), before)


def test_same_array_twice_where_written_is_refused():
    v = vp.zeros(64)
    with pytest.raises(ValueError, match="'a' and 'b'"):
        bump_both(v, v, dispatch=64)
    np.testing.assert_array_equal(v.numpy(), np.zeros(64, np.float32))
    # twice from the C launcher's side too: make it first
    w, u = vp.zeros(64), vp.zeros(64)
    bump_both(w, u, dispatch=64)
    with pytest.raises(ValueError, match="'a' and 'b'"):
        bump_both(w, w, dispatch=64)
    np.testing.assert_array_equal(w.numpy(), np.ones(64, np.float32))


def test_overlapping_views_where_written_are_refused():
    v = vp.zeros(64)
    with pytest.raises(ValueError, match="'a' and 'b'"):
        bump_both(v[:40], v[20:60], dispatch=20)


def test_disjoint_views_of_one_array_both_written():
    h = np.arange(64, dtype=np.float32)
    v = vp.asarray(h)
    bump_both(v[:32], v[32:], dispatch=32)
    np.testing.assert_array_equal(v.numpy(), h + 1)


def test_same_array_twice_read_only_is_fine():
    h = np.arange(64, dtype=np.float32)
    x = vp.asarray(h)
    out = vp.zeros(64)
    dot3(x, x, out, dispatch=64)
    np.testing.assert_array_equal(out.numpy(), h * h)


def test_same_numpy_array_twice_where_written_is_refused():
    h = np.zeros(64, np.float32)
    with pytest.raises(ValueError, match="'a' and 'b'"):
        bump_both(h, h, dispatch=64)
    with pytest.raises(ValueError, match="'a' and 'b'"):
        bump_both(h[:40], h[20:], dispatch=20)


def test_read_only_numpy_array_where_written_is_refused():
    h = np.zeros(64, np.float32)
    h.flags.writeable = False
    with pytest.raises(ValueError, match="'x'.*read-only"):
        add_one(h, dispatch=64)
    # read-only input of a kernel that only reads it: fine
    out = vp.zeros(64)
    copy_into(h, out, dispatch=64)


GLSL = """#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) x[i] += 1.0;
}
"""


@needs_cross
def test_raw_glsl_kernel_with_a_view():
    k = vp.kernel(GLSL, buffers=1, push=[("n", "uint32")])
    h = np.arange(32, dtype=np.float32)
    v = vp.asarray(h)
    k(v[8:16], dispatch=8, n=8)
    h[8:16] += 1
    np.testing.assert_array_equal(v.numpy(), h)
    with pytest.raises(ValueError, match="'x'"):
        k(v[::2], dispatch=8, n=8)


SHADER = '''import vulpy as vp

@vp.kernel(local_size_x=64)
def main(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    x[i] = x[i] + 1.0
'''


def test_shader_bind_view(tmp_path):
    p = tmp_path / "inc.vul.py"
    p.write_text(SHADER)
    s = vp.compile(p)
    h = np.arange(32, dtype=np.float32)
    v = vp.asarray(h)
    s.bind("x", v[16:])
    s.run(dispatch=16)
    h[16:] += 1
    np.testing.assert_array_equal(v.numpy(), h)
    s.bind("x", v[::2])
    with pytest.raises(ValueError, match="'x'"):
        s.run(dispatch=16)


@vp.kernel(local_size_x=64)
def add_one_bounded(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    if i < len(x):
        x[i] = x[i] + 1.0


def _align(ctx):
    return max(ctx.info["limits"]["min_storage_buffer_offset_alignment"], 4) // 4


@pytest.mark.parametrize("sync", [True, False])
@pytest.mark.parametrize("aligned", [True, False])
def test_aligned_views_bind_at_their_offset_others_copy(ctx, aligned, sync):
    # aligned: a descriptor range of the array's own Buffer; misaligned: a
    # copy in and out. Either way exactly the view's elements change, and
    # len() is the view's.
    start = 2 * _align(ctx) + (0 if aligned else 1)
    h = np.arange(256, dtype=np.float32)
    v = vp.asarray(h)
    r = add_one_bounded(v[start:start + 40], dispatch=256, sync=sync)
    if not sync:
        r.wait()
    h[start:start + 40] += 1
    np.testing.assert_array_equal(v.numpy(), h)


def test_bound_ranges_in_kernel_dispatch(ctx):
    # the extension's Kernel.dispatch takes (Buffer, offset, size) items; the
    # runtime checks the range against the buffer and the alignment
    prog = add_one_bounded.program()
    k = prog.native(ctx)
    a = _align(ctx) * 4
    v = vp.asarray(np.zeros(64, np.float32))
    k.dispatch([(v.buffer, a, 8)], prog.packer.pack({}), 64, 1, 1, False, True)
    want = np.zeros(64, np.float32)
    want[a // 4:a // 4 + 2] = 1
    np.testing.assert_array_equal(v.numpy(), want)
    with pytest.raises(vp.VulkanError, match="must lie inside it"):
        k.dispatch([(v.buffer, a, 4096)], None, 1, 1, 1, False, True)
    if a > 4:
        with pytest.raises(vp.VulkanError, match="minStorageBufferOffsetAlignment"):
            k.dispatch([(v.buffer, 4, 8)], None, 1, 1, 1, False, True)
    with pytest.raises(ValueError, match="bound range"):
        k.dispatch([(v.buffer, -1, 8)], None, 1, 1, 1, False, True)
    np.testing.assert_array_equal(v.numpy(), want)


def test_base_says_view_for_every_view():
    v = vp.zeros(16)
    assert v.base is None and v.reshape(4, 4).base is None and v[...].base is None
    assert v[:8].base is True and v[4:].base is True and v[::2].base is True
    assert v.reshape(4, 4)[1].base is True and v.reshape(4, 4).T.base is True
