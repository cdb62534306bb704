

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
    with _gated(ctx, 0.3):
        y = x * 2
        _HOST_WRITES[write](x, n)
    np.testing.assert_array_equal(y.numpy(), h * 2)


def test_pending_results_read_copied_and_freed(ctx):
    """Reads, copies and exports of results still queued see them; a freed
    input whose read is queued is not handed to a new array (NumPy's
    values throughout)."""
    import copy
    import pickle
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
