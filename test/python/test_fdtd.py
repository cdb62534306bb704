"""The 3-D Yee FDTD reference application (examples/fdtd3d.py, docs/fdtd.md):
its physics (the discrete dispersion relation, the discrete energy), its
three versions against each other (stepped dispatches, one persistent
dispatch, NumPy), live steering through the ControlBuffer and streaming
through a MemSock. Small grids: each runs in seconds on lavapipe."""
import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import ROOT, needs_target

sys.path.insert(0, str(ROOT / "examples"))
import fdtd3d as fd  # noqa: E402

import vulpy as vp  # noqa: E402

pytestmark = needs_target
S = fd.S_DEFAULT


def fields32(f):
    return {k: np.asarray(v, np.float32) for k, v in f.items()}


def max_rel(a, b):
    peak = max(max(np.abs(v).max() for v in b.values()), 1e-30)
    return max(np.abs(a[k].astype(np.float64) - b[k]).max() for k in fd.FIELDS) / peak


def bits_equal(a, b):
    return all(np.array_equal(a[k].view(np.uint32), b[k].view(np.uint32)) for k in fd.FIELDS)


def driven(n=12, **kw):
    """A sphere of eps_r 4 lit by the soft source."""
    args = dict(s=S, eps=fd.sphere(n, n / 5, 4.0), period=9, amp=1.0)
    args.update(kw)
    return fd.Sim(n, **args)


def float64_or_skip(dtype):
    if dtype == np.float64 and "float64" not in vp.default_context().info.get("features", ()):
        pytest.skip("no float64 on this device")


# float32: rounding; float64: the same check 10^8 times tighter
TOL = {np.float32: 1e-6, np.float64: 1e-12}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cavity_mode_oscillates_at_the_discrete_dispersion_relation(dtype):
    """A seeded eigenmode (1, 2, 3) of the PEC cavity keeps its shape and
    oscillates as cos(n w dt) with sin^2(w dt/2) = S^2 sum sin^2(k_i dx/2),
    to the float type's rounding; the continuum's w = S |k dx| is told apart."""
    float64_or_skip(dtype)
    n, steps, every = 12, 240, 8
    mode, w = fd.cavity_mode(n, (1, 2, 3), S)
    sim = fd.Sim(n, s=S, dtype=dtype)
    sim.set(mode)
    e0 = {k: mode[k] for k in ("ex", "ey", "ez")}
    norm = sum((v * v).sum() for v in e0.values())
    amp, times = [], []
    for t in range(every, steps + 1, every):
        sim.step(every)
        f = sim.get()
        amp.append(sum((f[k].astype(np.float64) * e0[k]).sum() for k in e0) / norm)
        times.append(t)
    amp, times = np.array(amp), np.array(times)
    k = np.array([1, 2, 3]) * math.pi / (n - 1)
    w_pde = S * np.linalg.norm(k)
    err = np.abs(amp - np.cos(times * w)).max()
    err_pde = np.abs(amp - np.cos(times * w_pde)).max()
    assert err < TOL[dtype], err          # float32 on lavapipe: 3e-8 over 240 steps
    assert err_pde > 100 * err, (err, err_pde)   # the continuum's w: 1.4 off
    # and the mode keeps its shape: what is left after the projection is rounding
    f = sim.get()
    rest = max(np.abs(f[k] - amp[-1] * e0[k]).max() for k in e0)
    assert rest < 20 * TOL[dtype], rest


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_energy_of_a_lossless_pec_cavity_is_constant(dtype):
    """The Yee invariant sum eps |E^n|^2 + sum H^{n-1/2} . H^{n+1/2} stays
    put over 10^3 float32 steps (<= 1e-5 relative), with a dielectric sphere
    inside; the naive sum eps |E|^2 + |H^{n-1/2}|^2, not an invariant of the
    scheme, moves by far more (the check can tell them apart)."""
    float64_or_skip(dtype)
    n, steps = 14, 1000
    eps = fd.sphere(n, n / 5, 3.0)
    sim = fd.Sim(n, s=S, eps=eps, dtype=dtype)
    z, y, x = np.meshgrid(*(np.arange(n),) * 3, indexing="ij")
    g = np.exp(-((x - 4.3) ** 2 + (y - 6.1) ** 2 + (z - 7.2) ** 2) / 3.0)
    f0 = {"ex": 0.5 * g, "ez": g, "hy": 0.2 * g}
    f0 = fd.numpy_run({k: f0.get(k, np.zeros((n, n, n))) for k in fd.FIELDS}, 1, S,
                      sim.ce_host, dtype=dtype)   # a step: the walls' values are the scheme's
    sim.set(f0)
    eff = sim.eps_eff

    def naive(f):
        e2 = sum(f[k].astype(np.float64) ** 2 for k in ("ex", "ey", "ez"))
        return (eff * e2).sum() + sum((f[k].astype(np.float64) ** 2).sum() for k in ("hx", "hy", "hz"))

    w0, v0 = fd.energy(sim.get(), S, eff), naive(sim.get())
    drift = naive_drift = 0.0
    for _ in range(steps // 100):
        sim.step(100)
        f = sim.get()
        drift = max(drift, abs(fd.energy(f, S, eff) - w0) / w0)
        naive_drift = max(naive_drift, abs(naive(f) - v0) / v0)
    assert drift <= (1e-5 if dtype == np.float32 else 1e-12), drift   # lavapipe: 2.7e-7
    assert naive_drift > 100 * drift, (drift, naive_drift)             # 7.9e-2


def test_stepped_matches_numpy():
    """Driven, with a dielectric: the stepped version against the NumPy
    update, float32, the same order of operations: bit for bit on lavapipe
    without the source, to the sin's rounding with it (to rounding elsewhere:
    a GPU compiler may fuse a * b + c)."""
    n, steps = 12, 60
    sim = driven(n)
    sim.step(steps)
    got = sim.get()
    want = fd.numpy_run({k: np.zeros((n, n, n), np.float32) for k in fd.FIELDS}, steps, S,
                        sim.ce_host, sim.src, 0, 9, 1.0)
    d = max_rel(got, want)
    assert d < 1e-5, d
    assert np.abs(want["ez"]).max() > 0.1
    lavapipe = sim.ctx.info.get("driver_name") == "llvmpipe"
    if lavapipe:
        # the source's sin differs from NumPy's float32 sin by an ulp now
        # and then: the driven fields agree to that (3e-7 of the peak)
        assert d < 1e-6, d
    # without the source: the same bits
    mode, _ = fd.cavity_mode(n, (2, 1, 3), S)
    sim = fd.Sim(n, s=S, eps=fd.sphere(n, n / 4, 2.5))
    sim.set(mode)
    sim.step(steps)
    want = fd.numpy_run(mode, steps, S, sim.ce_host)
    got = sim.get()
    assert max_rel(got, want) < 1e-5
    if lavapipe:
        assert bits_equal(got, want)
    # vacuum (the uniform branch that reads no coefficient) too
    sim = driven(n, eps=None)
    sim.step(steps)
    want = fd.numpy_run({k: np.zeros((n, n, n), np.float32) for k in fd.FIELDS}, steps, S,
                        None, sim.src, 0, 9, 1.0)
    assert max_rel(sim.get(), want) < 1e-5


def test_float64_stepped_matches_numpy():
    """The float64 kernels (the same helpers, float64 signatures) against
    NumPy in float64, driven, with a dielectric."""
    float64_or_skip(np.float64)
    n, steps = 12, 40
    sim = driven(n, dtype=np.float64)
    sim.step(steps)
    got = sim.get()
    assert got["ez"].dtype == np.float64
    want = fd.numpy_run({k: np.zeros((n, n, n)) for k in fd.FIELDS}, steps, S, sim.ce_host,
                        sim.src, 0, 9, 1.0, dtype=np.float64)
    assert max_rel(got, want) < 1e-13
    with pytest.raises(NotImplementedError, match="float32 only"):
        sim.launch(1)


def test_persistent_matches_stepped_bit_for_bit():
    """One persistent dispatch (several, resumed, where lavapipe's loop
    budget asks for it) gives the stepped version's bits."""
    n, steps = 12, 50
    a = driven(n)
    a.step(steps)
    b = driven(n)
    chunk = min(b.chunk(), 20)          # at least two launches: resuming is tested too
    done = 0
    while done < steps:
        k = min(chunk, steps - done)
        b.launch(k, first=done)
        done += k
    assert b.n == steps
    fa, fb = a.get(), b.get()
    if a.ctx.info.get("driver_name") == "llvmpipe":
        assert bits_equal(fa, fb)
    assert max_rel(fb, fa) < 1e-5


def test_courant_number_is_checked():
    with pytest.raises(ValueError, match="Courant"):
        fd.Sim(8, s=0.6)


def test_steering_period_pause_stop_while_it_runs():
    """The host changes the source's period, pauses, resumes and stops a
    running persistent simulation through the ControlBuffer; the GPU's log
    says what each step saw, and a NumPy replay of that log gives the same
    fields; paused steps leave the clock and the fields alone."""
    n = 14
    sim = driven(n)
    steps = min(sim.chunk(), 4000)
    ctrl = vp.ControlBuffer(["period", "pause"])
    ctrl["period"] = 9
    h = sim.launch(steps, ctrl=ctrl, sync=False)

    def until(k):
        t0 = time.monotonic()
        while h.steps < k and not h.done and time.monotonic() - t0 < 60:
            time.sleep(0)

    until(10)
    ctrl["period"] = 5
    until(steps // 4)
    ctrl["pause"] = 1
    until(steps // 2)
    ctrl["pause"] = 0
    until(3 * steps // 4)
    h.stop()
    sim.finish(h)
    done = h.steps
    log = sim.log.numpy()[:done]
    period, ran = log >> 1, log & 1
    assert set(np.unique(period)) <= {9, 5}
    assert (np.diff(period.astype(np.int64)) <= 0).all()     # one switch, never back
    assert (period == 5).any(), "the period change was never seen"
    assert sim.n == int(ran.sum())                              # the clock stood while paused
    if done < steps:                                            # stopped early
        assert (ran == 0).any(), "the pause was never seen"
        assert ran[-1] == 1                                     # and resumed
    # the replay: the running steps, with the periods they saw
    f = {k: np.zeros((n, n, n), np.float32) for k in fd.FIELDS}
    clock = 0
    for p, r in zip(period, ran):
        if r:
            fd.numpy_step(f, S, sim.ce_host, sim.src, clock, int(p), 1.0)
            clock += 1
    assert max_rel(sim.get(), f) < 1e-5


def test_memsock_streams_slices_and_energy():
    """Every `every` steps the persistent kernel fires a z-slice of Ez with
    (step, energy): the frames are the NumPy replay's slices at those steps,
    and in a source-free cavity the energies are the discrete invariant
    computed on the host, the same every frame."""
    n, steps, every, zs = 12, 60, 5, 5
    # driven: the slices
    sim = driven(n)
    pipe = sim.memsock(capacity=steps // every + 2)
    sim.launch(steps, pipe=pipe, every=every, zs=zs)
    frames = []
    while True:
        try:
            fr, pl = pipe.next(timeout=0)
        except TimeoutError:
            break
        frames.append((fr.copy(), pl.step, pl.energy))
    assert pipe.stats["dropped"] == 0
    pipe.close()
    assert [st for _, st, _ in frames] == list(range(every, steps, every))
    f = {k: np.zeros((n, n, n), np.float32) for k in fd.FIELDS}
    want = {}
    for t in range(steps):
        fd.numpy_step(f, S, sim.ce_host, sim.src, t, 9, 1.0)
        want[t + 1] = f["ez"][zs].copy()
    for fr, st, _ in frames:
        assert fr.shape == (n, n)
        assert np.abs(fr - want[st]).max() <= 1e-5 * np.abs(want[st]).max() + 1e-30, st
    # source-free cavity with a dielectric: the payload's energy
    mode, _ = fd.cavity_mode(n, (2, 1, 1), S)
    sim = fd.Sim(n, s=S, eps=fd.sphere(n, n / 4, 2.0))
    sim.set(mode)
    pipe = sim.memsock(capacity=steps // every + 2)
    sim.launch(steps, pipe=pipe, every=every)
    got = []
    while True:
        try:
            _, pl = pipe.next(timeout=0)
        except TimeoutError:
            break
        got.append(pl.energy)
    pipe.close()
    assert len(got) == steps // every - 1
    prev = {k: np.array(v, np.float32) for k, v in mode.items()}
    cur = {k: v.copy() for k, v in prev.items()}
    fd.numpy_step(cur, S, sim.ce_host)
    w = fd.energy_half(prev, cur, sim.eps_eff)
    got = np.array(got, np.float64)
    assert np.abs(got - w).max() / w < 1e-5, (got, w)


def test_launch_writes_the_magnitude_of_e_of_each_slice_into_mag():
    """mag= (lesson 11): with each streamed slice the persistent kernel writes
    |E| of that plane into an (ny, nx) array, here a vp.HostArray's pages:
    after the run they hold NumPy's |E| at the last slice's step; a mag= of
    the wrong shape is a ValueError naming it."""
    n, steps, every, zs = 12, 40, 6, 4
    sim = driven(n)
    mag = vp.HostArray((n, n), np.float32)
    pipe = sim.memsock(capacity=steps // every + 2)
    sim.launch(steps, pipe=pipe, every=every, zs=zs, mag=mag.on(sim.ctx))
    pipe.close()
    last = (steps - 1) // every * every
    f = {k: np.zeros((n, n, n), np.float32) for k in fd.FIELDS}
    for t in range(last):
        fd.numpy_step(f, S, sim.ce_host, sim.src, t, 9, 1.0)
    want = np.sqrt(f["ex"][zs] ** 2 + f["ey"][zs] ** 2 + f["ez"][zs] ** 2)
    got = mag.numpy()
    assert want.max() > 0
    assert np.abs(got - want).max() <= 1e-5 * want.max(), np.abs(got - want).max()
    with pytest.raises(ValueError, match="mag="):
        sim.launch(2, mag=vp.zeros((n, n + 1), np.float32))


def test_the_example_runs():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "fdtd3d.py"), "--size", "12",
                        "--steps", "30"], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "fdtd3d: OK" in r.stdout
    assert "stepped vs persistent: max difference" in r.stdout
    assert "Validation Error" not in r.stderr


def test_bench_suite_runs_here_without_cupy():
    """bench/bench_fdtd.py at its small sizes: every VulPy record has a
    figure, no check failed, and CuPy rows are figures or say why skipped."""
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_fdtd
    from types import SimpleNamespace
    recs = bench_fdtd.run(SimpleNamespace(quick=True, build=None))
    errors = [r for r in recs if r.get("error")]
    assert not errors, errors
    cases = {(r["case"], r["backend"]) for r in recs if r.get("median")}
    for want in [("Gcells/s", "vulpy stepped"), ("Gcells/s", "vulpy persistent"),
                 ("steps/s, small grid", "vulpy persistent"),
                 ("streaming", "slice every 10 steps"), ("streaming cost", "vulpy persistent")]:
        assert want in cases, want
    for r in recs:
        if r["backend"].startswith("cupy"):
            assert r.get("median") or r.get("skipped"), r
