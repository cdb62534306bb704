"""Overlapping in-place ufuncs give NumPy's answer (issue 14, issue 20).

NumPy's rule: when out= overlaps an input in a way that changes the result,
the result is computed as if the inputs had been copied first. Every entry
path is checked against NumPy: operators, in-place operators, out=, index
assignment and vp.jit with out=. Sizes are large enough (many workgroups)
that a race shows on lavapipe, and small ones check the exact values.
"""
import numpy as np
import pytest

import vulpy as vp

pytestmark = pytest.mark.usefixtures("ctx")

SIZES = [10, 4099]


def _both(n, dtype=np.float32):
    h = np.arange(n, dtype=dtype)
    return h, vp.asarray(h)


@pytest.mark.parametrize("n", SIZES)
def test_iadd_shifted_view(n):
    h, v = _both(n)
    h[1:] += h[:-1]
    v[1:] += v[:-1]
    np.testing.assert_array_equal(v.numpy(), h)
    if n == 10:
        assert v.numpy()[9] == 17


@pytest.mark.parametrize("n", SIZES)
def test_ufunc_out_shifted_view(n):
    h, v = _both(n)
    np.add(h[1:], h[:-1], out=h[1:])
    vp.add(v[1:], v[:-1], out=v[1:])
    np.testing.assert_array_equal(v.numpy(), h)


@pytest.mark.parametrize("n", SIZES)
def test_ufunc_out_shifted_the_other_way(n):
    h, v = _both(n)
    np.multiply(h[:-1], h[1:], out=h[:-1])
    vp.multiply(v[:-1], v[1:], out=v[:-1])
    np.testing.assert_array_equal(v.numpy(), h)


@pytest.mark.parametrize("n", SIZES)
def test_reversed_input_into_its_own_buffer(n):
    h, v = _both(n)
    np.subtract(h[::-1], 1, out=h)
    vp.subtract(v[::-1], 1, out=v)
    np.testing.assert_array_equal(v.numpy(), h)


@pytest.mark.parametrize("n", SIZES)
def test_inplace_operator_reversed(n):
    h, v = _both(n)
    h += h[::-1]
    v += v[::-1]
    np.testing.assert_array_equal(v.numpy(), h)


def test_numpy_ufunc_entry_on_resident_arrays():
    h, v = _both(4099)
    np.add(h[2:], h[:-2], out=h[2:])
    np.add(v[2:], v[:-2], out=v[2:])  # __array_ufunc__
    np.testing.assert_array_equal(v.numpy(), h)


def test_broadcast_row_of_the_output():
    # input a[0] (a contiguous prefix view at offset 0) broadcast over the
    # output a: row 0 is overwritten while the other rows read it
    h = np.arange(64 * 256, dtype=np.float32).reshape(64, 256)
    v = vp.asarray(h)
    np.add(h, h[0], out=h)
    vp.add(v, v[0], out=v)
    np.testing.assert_array_equal(v.numpy(), h)


def test_transposed_input_into_its_own_buffer():
    h = np.arange(128 * 128, dtype=np.float32).reshape(128, 128)
    v = vp.asarray(h)
    np.add(h, h.T, out=h)
    vp.add(v, v.T, out=v)
    np.testing.assert_array_equal(v.numpy(), h)


def test_identical_views_still_work_in_place():
    h, v = _both(4099)
    h[1:] *= 2
    v[1:] *= 2
    np.testing.assert_array_equal(v.numpy(), h)
    h *= h
    v *= v
    np.testing.assert_array_equal(v.numpy(), h)


def test_disjoint_views_of_one_buffer():
    h, v = _both(4096)
    np.add(h[:2048], 1, out=h[2048:])
    vp.add(v[:2048], 1, out=v[2048:])
    np.testing.assert_array_equal(v.numpy(), h)


@pytest.mark.parametrize("n", SIZES)
def test_setitem_shifted(n):
    h, v = _both(n)
    h[1:] = h[:-1]
    v[1:] = v[:-1]
    np.testing.assert_array_equal(v.numpy(), h)
    h[:-3] = h[3:]
    v[:-3] = v[3:]
    np.testing.assert_array_equal(v.numpy(), h)


@pytest.mark.parametrize("n", SIZES)
def test_setitem_reversed(n):
    h, v = _both(n)
    h[:] = h[::-1]
    v[:] = v[::-1]
    np.testing.assert_array_equal(v.numpy(), h)


@pytest.mark.parametrize("n", SIZES)
def test_jit_out_is_a_reversed_input(n):
    f = vp.jit(lambda a: a * 2 + 1)
    h, v = _both(n)
    f(v[::-1], out=v)
    np.testing.assert_array_equal(v.numpy(), h[::-1] * 2 + 1)


def test_jit_out_shifted_and_two_inputs():
    f = vp.jit(lambda a, b: a + b)
    h, v = _both(4099)
    f(v[1:], v[:-1], out=v[1:])
    h[1:] = h[1:] + h[:-1]
    np.testing.assert_array_equal(v.numpy(), h)


def test_jit_in_place_same_array_still_in_place():
    f = vp.jit(lambda a: a * 3)
    h, v = _both(4099)
    f(v, out=v)
    np.testing.assert_array_equal(v.numpy(), h * 3)


def test_prefix_view_out_leaves_the_rest_alone():
    # the vec4 kernels of whole arrays wrote the tail past a prefix view
    for n in (10, 4099):
        h, v = _both(n)
        vp.add(v[:-1], 1, out=v[:-1])
        h[:-1] += 1
        np.testing.assert_array_equal(v.numpy(), h)
        vp.add(v[:-1], v[:-1], out=v[:-1])  # the C path of the planned signature
        h[:-1] += h[:-1]
        np.testing.assert_array_equal(v.numpy(), h)


def test_jit_reads_its_own_out_reversed_inside():
    # the function reverses its input itself: the one out= array is also
    # the argument, element for element, but the kernel reads other elements
    f = vp.jit(lambda a: a[::-1] + 1)
    h, v = _both(4099)
    f(v, out=v)
    np.testing.assert_array_equal(v.numpy(), h[::-1] + 1)


def test_jit_reduction_of_its_own_out():
    f = vp.jit(lambda a, b: a * 2 + b.sum())
    h, v = _both(4099)
    f(v, v, out=v)
    np.testing.assert_allclose(v.numpy(), h * 2 + h.sum(), rtol=1e-6)
    # the same signature again: the copied form is cached
    h2, v2 = _both(4099)
    f(v2, v2, out=v2)
    np.testing.assert_allclose(v2.numpy(), h2 * 2 + h2.sum(), rtol=1e-6)


def test_convenience_mode_numpy_overlap():
    # NumPy in, NumPy out=: the output is computed into its own buffer first
    for n in (10, 5000):
        h = np.arange(n, dtype=np.float32)
        g = h.copy()
        vp.add(h[1:], h[:-1], out=h[1:])
        np.add(g[1:], g[:-1], out=g[1:])
        np.testing.assert_array_equal(h, g)


def test_writes_into_views_land_at_their_elements():
    h = np.zeros(20, np.float32)
    v = vp.asarray(h)
    x = vp.arange(5, dtype=np.float32)
    f = vp.jit(lambda a: a * 2 + 1)
    f(x, out=v[3:8])
    f(x, out=v[10::2])
    vp.sin(x, out=v[-5:][::-1])
    h[3:8] = np.arange(5) * 2 + 1
    h[10::2] = np.arange(5) * 2 + 1
    h[-5:][::-1] = np.sin(np.arange(5, dtype=np.float32))
    np.testing.assert_allclose(v.numpy(), h, rtol=1e-6)


def test_mask_and_scatter_assignment_read_the_old_values():
    n = 4099
    h, v = _both(n)
    m = (np.arange(n) % 3) == 0
    h[m] = h[::-1][m]
    v[m] = v[::-1][m]
    np.testing.assert_array_equal(v.numpy(), h)
    idx = np.arange(0, n - 1, 2)
    h[idx] = h[1::2][: len(idx)]
    v[idx] = v[1::2][: len(idx)]
    np.testing.assert_array_equal(v.numpy(), h)
    h[1:] = h[:-1][::-1]
    v[1:] = v[:-1][::-1]
    np.testing.assert_array_equal(v.numpy(), h)
