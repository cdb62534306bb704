"""vp.bit_count, vp.find_lsb and vp.find_msb inside kernels, against NumPy
on the device (docs/language.md, "bits"): every 32-bit pattern class that
differs between them (0, -1, the sign bit alone, powers of two, random
words), as int32 and uint32."""
import numpy as np
import pytest

import vulpy as vp


@vp.kernel
def _bits(x: vp.Buffer, out: vp.Buffer):
    # generic: int32 or uint32 words, from the call's arrays
    i = vp.global_id().x
    out[3 * i] = vp.bit_count(x[i])
    out[3 * i + 1] = vp.find_lsb(x[i])
    out[3 * i + 2] = vp.find_msb(x[i])


def _words(rng):
    special = [0, 1, 2, 3, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0xFFFFFFFE, 0xF0F0, 0x00010000]
    pow2 = [1 << k for k in range(32)]
    return np.array(special + pow2 + list(rng.integers(0, 1 << 32, 200, dtype=np.uint64)),
                    dtype=np.uint64).astype(np.uint32)


def _reference(w, signed):
    """GLSL's bitCount / findLSB / findMSB, one word at a time."""
    out = []
    for u in w.tolist():
        lsb = (u & -u).bit_length() - 1 if u else -1
        v = u
        if signed and u >> 31:
            v = ~u & 0xFFFFFFFF  # a negative int32: its highest clear bit
        msb = v.bit_length() - 1 if v else -1
        out += [bin(u).count("1"), lsb, msb]
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("signed", [False, True], ids=["uint32", "int32"])
def test_bit_builtins_match_reference(signed):
    w = _words(np.random.default_rng(7))
    dt = np.int32 if signed else np.uint32
    x = vp.asarray(w.view(dt))
    out = vp.zeros(3 * w.size, dtype=dt)
    _bits(x, out, dispatch=w.size)
    want = _reference(w, signed).astype(np.int64).astype(dt)
    got = out.numpy()
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(hex(int(w[k // 3])), "count lsb msb".split()[k % 3], got[k], want[k])
                           for k in bad[:5]]


@vp.kernel(local_size_x=64)
def _digit_peers(d: vp.Buffer[vp.uint32], out: vp.Buffer[vp.uint32]):
    # the lanes of each subgroup sharing a 4-bit digit, by an atomic or into
    # a shared mask per (subgroup, digit) between two subgroup barriers
    # (CUB's WARP_MATCH_ATOMIC_OR); up to 64 subgroups of a workgroup
    masks = vp.Shared[vp.uint32, 64 * 16]
    at = vp.subgroup_id() * vp.uint32(16) + (d[vp.global_id().x] & vp.uint32(15))
    masks[at] = vp.uint32(0)
    vp.subgroup_barrier()
    vp.atomic_or(masks[at], vp.uint32(1) << vp.subgroup_lane())
    vp.subgroup_barrier()
    out[vp.global_id().x] = masks[at]


def test_subgroup_barrier_orders_shared_memory_between_lanes():
    # docs/language.md, "sync": each lane's mask must hold exactly the lanes
    # of its subgroup with its digit (a lane that read before the others'
    # atomic ors, or after a clear, would miss some)
    sg = vp.default_context().info["limits"]["subgroup_size"]
    if not sg or sg > 32:
        pytest.skip("the masks are 32-bit: subgroups of at most 32 lanes")
    rng = np.random.default_rng(3)
    n = 64 * 40
    d = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    out = vp.zeros(n, dtype=np.uint32)
    for _ in range(3):  # the races a missing barrier leaves show up at random
        _digit_peers(vp.asarray(d), out, dispatch=n)
        got = out.numpy()
        dig = (d & 15).reshape(-1, sg)
        want = np.zeros_like(dig)
        for lane in range(sg):
            want |= np.where(dig == dig[:, lane:lane + 1], np.uint32(1 << lane), np.uint32(0))
        np.testing.assert_array_equal(got, want.reshape(-1))
