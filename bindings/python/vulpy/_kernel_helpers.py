"""Kernel-language helpers that VulPy's own kernel programs share
(_compact_kernels.py, and the sort kernels _sort_kernels.py builds from its
template), written once, against the public API like user kernels.

A kernel program, as test/python/test_layers.py defines it: this module
imports vulpy and nothing else, and what uses it imports it at first use.
A kernel reaches these functions through its `helpers=` keyword (the
frontend follows functions by name only outside the vulpy package).
"""
import vulpy as vp

SCAN_L = 128   # the workgroup size block_exclusive is written for


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


def tile_id(gx: vp.uint32) -> vp.uint32:
    """The workgroup's index on a 2-D grid (rows of gx workgroups)."""
    return vp.workgroup_id(1) * gx + vp.workgroup_id(0)
