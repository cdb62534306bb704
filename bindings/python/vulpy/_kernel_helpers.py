"""Kernel-language helpers that VulPy's own kernel programs share
(_compact_kernels.py, and the sort kernels _sort_kernels.py and
_sort_onesweep.py build from their templates), written once, against the public API like user kernels.

A kernel program, as test/python/test_layers.py defines it: this module
imports vulpy and nothing else, and what uses it imports it at first use.
A kernel reaches these functions through its `helpers=` keyword (the
frontend follows functions by name only outside the vulpy package).
"""
import vulpy as vp

SCAN_L = 128   # the workgroup size block_exclusive is written for
B = 256        # digits_exclusive's: one invocation per 8-bit digit


def block_exclusive(tot, lid: vp.uint32, s: vp.uint32) -> vp.uint32:
    """The sum of the values s of invocations 0 .. lid - 1 of a group of
    SCAN_L (128) invocations: a Hillis-Steele scan in the shared array
    tot (SCAN_L words); every invocation of the group calls it."""
    tot[lid] = s
    vp.barrier()
    for k in vp.static(range(7)):   # 2**7 = SCAN_L
        w = vp.uint32(1 << k)
        v = tot[lid]
        if lid >= w:
            v += tot[lid - w]
        vp.barrier()
        tot[lid] = v
        vp.barrier()
    return tot[lid] - s


def digits_exclusive(tot, d: vp.uint32, s: vp.uint32) -> vp.uint32:
    """The sum of the values s of invocations 0 .. d - 1 of a group of B
    (256) invocations, one per 8-bit digit (the radix sorts' scan over
    digits): the same Hillis-Steele scan in the shared array tot (B
    words); every invocation of the group calls it."""
    tot[d] = s
    vp.barrier()
    for k in vp.static(range(8)):   # 2**8 = B
        w = vp.uint32(1 << k)
        v = tot[d]
        if d >= w:
            v += tot[d - w]
        vp.barrier()
        tot[d] = v
        vp.barrier()
    return tot[d] - s


def tile_id(gx: vp.uint32) -> vp.uint32:
    """The workgroup's index on a 2-D grid (rows of gx workgroups)."""
    return vp.workgroup_id(1) * gx + vp.workgroup_id(0)
