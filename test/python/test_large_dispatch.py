"""Library kernels past one dispatch's reach: lavapipe (and many GPUs)
take at most 65,535 workgroups in x, so a one-invocation-per-element kernel
of local size 64 covers 4,194,240 elements (256: 16,776,960) in one
dispatch. vp.convolve, vp.frexp (float32) and ufunc.at were a
vp.VulkanError ("78126 workgroups in x, more than the 65535 ... allows")
past that; vp.vectorize and vp.ElementwiseKernel too (test_npnames.py,
test_cupy_kernels.py). They dispatch in blocks now; NumPy's values."""
import numpy as np

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

N = 9_000_003  # past 65,535 x 64 twice


def test_convolve_of_many_outputs():
    h = (np.arange(N) % 7).astype(np.float32)
    got = vp.convolve(vp.asarray(h), vp.asarray(np.array([1, 2, 1], np.float32)))
    np.testing.assert_array_equal(got.numpy(), np.convolve(h, np.array([1, 2, 1], np.float32)))


def test_frexp_of_many_elements():
    h = ((np.arange(N) % 1000) * 3.5 - 1700).astype(np.float32)
    m, e = vp.frexp(vp.asarray(h))
    wm, we = np.frexp(h)
    np.testing.assert_array_equal(m.numpy(), wm)
    np.testing.assert_array_equal(e.numpy(), we)


def test_ufunc_at_of_many_indices():
    n = 16_777_100  # past 65,535 workgroups of 256 (int64 positions stay under 128 MiB)
    idx = (np.arange(n) % 1000).astype(np.int32)
    t = vp.zeros(1000, np.float32)
    vp.add.at(t, vp.asarray(idx), vp.asarray(np.ones(n, np.float32)))
    np.testing.assert_array_equal(t.numpy(), np.bincount(idx, minlength=1000).astype(np.float32))
    m = vp.zeros(1000, np.int32)
    vals = np.arange(n, dtype=np.int32)
    vp.maximum.at(m, vp.asarray(idx), vp.asarray(vals))
    want = np.zeros(1000, np.int32)
    np.maximum.at(want, idx, vals)
    np.testing.assert_array_equal(m.numpy(), want)
