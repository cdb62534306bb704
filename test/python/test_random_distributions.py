"""vp.random's distributions past uniform / normal / exponential (issue 19,
"vp.random"; bindings/python/vulpy/_distributions.py): each is compared
with NumPy's Generator of the same name, continuous ones by a two-sample
Kolmogorov-Smirnov statistic against NumPy's own samples, discrete ones by
a chi-square test against the exact probabilities; array parameters (each
element its own method: Poisson's two, the gamma's two, the binomial's
two and its p > 1/2 flip), dtypes, out= and NumPy's parameter errors.
The seeds are fixed, so each test is deterministic; a wrong formula moves
the statistic far past its 1e-4 critical value."""
import math

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

N = 20000
KS_CRIT = math.sqrt(-0.5 * math.log(1e-4 / 2)) * math.sqrt(2.0 / N)


def _ks(x, y):
    """The two-sample Kolmogorov-Smirnov statistic sup |F_x - F_y|."""
    x, y = np.sort(np.ravel(x)), np.sort(np.ravel(y))
    grid = np.concatenate([x, y])
    fx = np.searchsorted(x, grid, side="right") / x.size
    fy = np.searchsorted(y, grid, side="right") / y.size
    return float(np.max(np.abs(fx - fy)))


def _chi2_crit(df, z=3.719):  # z: the normal quantile of 1 - 1e-4
    """Wilson and Hilferty's approximation of the chi-square quantile."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def _chi2(samples, logpmf, lo=0):
    """Pearson's chi-square of integer samples against exp(logpmf(k)),
    cells with at least 5 expected, the tails lumped into the end cells."""
    s = np.asarray(samples).ravel()
    n = s.size
    hi = int(s.max())
    ks = np.arange(lo, hi + 1)
    p = np.array([math.exp(logpmf(int(k))) for k in ks])
    counts = np.bincount(s - lo, minlength=ks.size)[:ks.size].astype(float)
    assert counts.sum() == n and s.min() >= lo
    p[-1] += max(1.0 - p.sum(), 0.0)  # the mass above the largest sample: its tail cell
    exp_, obs = [], []
    acc_e = acc_o = 0.0
    for e, o in zip(p * n, counts):
        acc_e += e
        acc_o += o
        if acc_e >= 5:
            exp_.append(acc_e)
            obs.append(acc_o)
            acc_e = acc_o = 0.0
    exp_[-1] += acc_e
    obs[-1] += acc_o
    exp_, obs = np.array(exp_), np.array(obs)
    stat = float(((obs - exp_) ** 2 / exp_).sum())
    return stat, _chi2_crit(max(len(exp_) - 1, 1))


CONTINUOUS = [
    ("lognormal", (0.3, 0.7)), ("laplace", (1.0, 2.0)), ("logistic", (-1.0, 0.5)),
    ("gumbel", (0.5, 2.0)), ("rayleigh", (1.5,)), ("weibull", (0.7,)), ("weibull", (3.0,)),
    ("pareto", (2.5,)), ("power", (0.4,)), ("power", (3.0,)), ("standard_cauchy", ()),
    ("triangular", (-1.0, 0.5, 3.0)), ("triangular", (0.0, 0.0, 1.0)), ("wald", (1.5, 0.8)),
    ("standard_gamma", (0.3,)), ("standard_gamma", (1.0,)), ("standard_gamma", (7.5,)),
    ("gamma", (2.2, 3.0)), ("chisquare", (0.6,)), ("chisquare", (4.0,)),
    ("standard_t", (3.0,)), ("beta", (0.4, 0.7)), ("beta", (1.0, 1.0)), ("beta", (2.5, 0.6)),
    ("f", (4.0, 9.0)), ("noncentral_chisquare", (3.0, 2.0)),
    ("noncentral_chisquare", (0.5, 2.0)), ("noncentral_chisquare", (3.0, 0.0)),
    ("noncentral_f", (3.0, 5.0, 2.0)), ("vonmises", (0.5, 2.0)), ("vonmises", (3.0, 0.5)),
    ("vonmises", (-2.0, 1e-9)), ("vonmises", (1.0, 1e7)), ("vonmises", (0.0, 1e-6)),
]


@pytest.mark.parametrize("name,args", CONTINUOUS, ids=[f"{c[0]}{c[1]}" for c in CONTINUOUS])
def test_continuous_matches_numpys_distribution(name, args):
    got = getattr(vp.random.default_rng(11), name)(*args, size=N)
    assert isinstance(got, vp.ndarray) and got.dtype == np.float64 and got.shape == (N,)
    g = got.numpy()
    assert np.isfinite(g).all(), name
    want = getattr(np.random.default_rng(5), name)(*args, size=N)
    d = _ks(g, want)
    assert d < KS_CRIT, f"{name}{args}: KS statistic {d:.4f} >= {KS_CRIT:.4f}"


_ZETA25 = sum(k ** -2.5 for k in range(1, 200000)) + 200000 ** -1.5 / 1.5  # zeta(2.5)


def _lfact(k):
    return math.lgamma(k + 1.0)


def _lhyp(g, b, s, k):
    """log of the hypergeometric pmf C(g, k) C(b, s - k) / C(g + b, s)."""
    if k < max(0, s - b) or k > min(g, s):
        return -math.inf
    lc = lambda n, r: _lfact(n) - _lfact(r) - _lfact(n - r)  # noqa: E731
    return lc(g, k) + lc(b, s - k) - lc(g + b, s)


DISCRETE = [
    ("poisson", (0.3,), lambda k: -0.3 + k * math.log(0.3) - _lfact(k), 0),
    ("poisson", (6.5,), lambda k: -6.5 + k * math.log(6.5) - _lfact(k), 0),
    ("poisson", (10.0,), lambda k: -10.0 + k * math.log(10.0) - _lfact(k), 0),
    ("poisson", (417.0,), lambda k: -417.0 + k * math.log(417.0) - _lfact(k), 0),
    ("binomial", (12, 0.3), lambda k: _lfact(12) - _lfact(k) - _lfact(12 - k) +
     k * math.log(0.3) + (12 - k) * math.log(0.7), 0),
    ("binomial", (400, 0.2), lambda k: _lfact(400) - _lfact(k) - _lfact(400 - k) +
     k * math.log(0.2) + (400 - k) * math.log(0.8), 0),
    ("binomial", (90, 0.85), lambda k: _lfact(90) - _lfact(k) - _lfact(90 - k) +
     k * math.log(0.85) + (90 - k) * math.log(0.15), 0),
    ("binomial", (5000, 0.5), lambda k: _lfact(5000) - _lfact(k) - _lfact(5000 - k) +
     5000 * math.log(0.5), 0),
    ("geometric", (0.15,), lambda k: (k - 1) * math.log(0.85) + math.log(0.15), 1),
    ("geometric", (0.6,), lambda k: (k - 1) * math.log(0.4) + math.log(0.6), 1),
    ("negative_binomial", (3.5, 0.3), lambda k: math.lgamma(k + 3.5) - _lfact(k) -
     math.lgamma(3.5) + 3.5 * math.log(0.3) + k * math.log(0.7), 0),
    ("logseries", (0.6,), lambda k: k * math.log(0.6) - math.log(k) - math.log(-math.log1p(-0.6)),
     1),
    ("logseries", (0.97,), lambda k: k * math.log(0.97) - math.log(k) -
     math.log(-math.log1p(-0.97)), 1),
    ("zipf", (2.5,), lambda k: -2.5 * math.log(k) - math.log(_ZETA25), 1),
    ("hypergeometric", (5, 5, 3), lambda k: _lhyp(5, 5, 3, k), 0),
    ("hypergeometric", (50, 30, 20), lambda k: _lhyp(50, 30, 20, k), 0),
    ("hypergeometric", (1000, 200, 500), lambda k: _lhyp(1000, 200, 500, k), 0),
    ("hypergeometric", (7, 3, 9), lambda k: _lhyp(7, 3, 9, k), 0),
    ("hypergeometric", (20, 20, 35), lambda k: _lhyp(20, 20, 35, k), 0),
]


@pytest.mark.parametrize("name,args,logpmf,lo", DISCRETE,
                         ids=[f"{d[0]}{d[1]}" for d in DISCRETE])
def test_discrete_matches_the_exact_probabilities(name, args, logpmf, lo):
    got = getattr(vp.random.default_rng(3), name)(*args, size=N)
    assert got.dtype == np.int64 and got.shape == (N,)
    stat, crit = _chi2(got.numpy(), logpmf, lo)
    assert stat < crit, f"{name}{args}: chi-square {stat:.1f} >= {crit:.1f}"


def test_array_parameters_take_each_elements_method():
    """lam across the multiplication / PTRS boundary, gamma shapes across
    1 (and 0), binomial n p across 30 and p across 1/2, per column."""
    g = vp.random.default_rng(21)
    lam = np.array([0.0, 0.4, 3.0, 9.9, 10.0, 75.0])
    x = g.poisson(vp.asarray(lam), size=(N // 4, lam.size)).numpy()
    assert x.shape == (N // 4, lam.size) and x.dtype == np.int64
    assert (x[:, 0] == 0).all()
    for j in range(1, lam.size):
        m = lam[j]
        stat, crit = _chi2(x[:, j], lambda k: -m + k * math.log(m) - _lfact(k))
        assert stat < crit, (m, stat, crit)
    shape = np.array([0.0, 0.35, 1.0, 4.0])
    y = g.standard_gamma(shape, size=(N // 2, shape.size)).numpy()
    assert (y[:, 0] == 0).all()
    for j in range(1, shape.size):
        want = np.random.default_rng(j).standard_gamma(shape[j], size=N // 2)
        assert _ks(y[:, j], want) < KS_CRIT * math.sqrt(2), shape[j]
    n = np.array([[0], [12], [400], [90]])
    p = np.array([0.2, 0.85])
    b = g.binomial(n, p, size=(N // 4, 4, 2)).numpy()
    assert (b[:, 0, :] == 0).all()
    for i in range(1, 4):
        for j in range(2):
            nn, pp = int(n[i, 0]), p[j]
            stat, crit = _chi2(b[:, i, j], lambda k: _lfact(nn) - _lfact(k) - _lfact(nn - k) +
                               k * math.log(pp) + (nn - k) * math.log(1 - pp))
            assert stat < crit, (nn, pp, stat, crit)
    hg = g.hypergeometric(np.array([5, 50, 1000, 7]), np.array([5, 30, 200, 3]),
                          np.array([3, 20, 500, 9]), size=(N // 4, 4)).numpy()
    for j, (gd, bd, sm) in enumerate(((5, 5, 3), (50, 30, 20), (1000, 200, 500), (7, 3, 9))):
        stat, crit = _chi2(hg[:, j], lambda k: _lhyp(gd, bd, sm, k))
        assert stat < crit, ((gd, bd, sm), stat, crit)
    kap = np.array([1e-9, 0.5, 4.0, 2e6])
    vm = g.vonmises(1.0, kap, size=(N // 2, kap.size)).numpy()
    for j in range(kap.size):
        want = np.random.default_rng(j).vonmises(1.0, kap[j], size=N // 2)
        assert _ks(vm[:, j], want) < KS_CRIT * math.sqrt(2), kap[j]
    df = np.array([0.7, 4.0])
    nc = g.noncentral_chisquare(df, np.array([[0.0], [3.0]]), size=(N // 4, 2, 2)).numpy()
    for i, c in enumerate((0.0, 3.0)):
        for j in range(2):
            want = np.random.default_rng(i + 2 * j).noncentral_chisquare(df[j], c, size=N // 4)
            assert _ks(nc[:, i, j], want) < KS_CRIT * 2, (c, df[j])
    a = np.array([0.5, 3.0])
    bt = g.beta(a, 0.8, size=(N // 2, 2)).numpy()
    for j in range(2):
        want = np.random.default_rng(9).beta(a[j], 0.8, size=N // 2)
        assert _ks(bt[:, j], want) < KS_CRIT * math.sqrt(2), a[j]


def test_dtypes_sizes_out_and_module_functions():
    g = vp.random.default_rng(4)
    x = g.standard_gamma(2.0, size=(N,), dtype=np.float32)
    assert x.dtype == np.float32
    assert _ks(x.numpy(), np.random.default_rng(1).standard_gamma(2.0, size=N)) < KS_CRIT
    assert g.laplace(size=7, dtype=np.float32).dtype == np.float32
    out = vp.empty((100, 3), np.float64)
    assert g.standard_gamma(0.5, out=out) is out and (out.numpy() > 0).all()
    s = g.gamma(3.0)
    assert s.shape == () and s.dtype == np.float64 and float(s) > 0
    assert g.poisson(4.0, size=0).shape == (0,)
    assert g.binomial(10, 0.5, size=(2, 0)).shape == (2, 0)
    assert g.poisson(vp.asarray(np.array([1.0, 2.0]))).shape == (2,)
    vp.random.seed(3)
    for name, args in (("poisson", (2.0,)), ("gamma", (2.0,)), ("binomial", (5, 0.5)),
                       ("beta", (2.0, 2.0)), ("lognormal", ()), ("standard_cauchy", ()),
                       ("geometric", (0.5,)), ("triangular", (0, 1, 2))):
        r = getattr(vp.random, name)(*args, size=5)
        assert r.shape == (5,) and r.dtype == getattr(np.random, name)(*args, size=5).dtype
    assert (g.binomial(7.9, 1.0, size=50).numpy() == 7).all()  # n truncated, as NumPy's
    assert (g.geometric(1.0, size=50).numpy() == 1).all()
    assert (g.weibull(0.0, size=5).numpy() == 0).all()


@pytest.mark.parametrize("call", [
    "gamma(-1.0)", "gamma(1.0, -0.5)", "standard_gamma(-0.0)", "beta(0.0, 1.0)",
    "beta(1.0, -1.0)", "chisquare(0.0)", "standard_t(-2.0)", "f(0.0, 1.0)", "f(1.0, 0.0)",
    "lognormal(0.0, -1.0)", "laplace(0.0, -1.0)", "logistic(0.0, -1.0)", "gumbel(0.0, -1.0)",
    "rayleigh(-1.0)", "weibull(-1.0)", "pareto(0.0)", "power(-1.0)", "triangular(1.0, 0.0, 2.0)",
    "triangular(0.0, 3.0, 2.0)", "triangular(1.0, 1.0, 1.0)", "geometric(0.0)",
    "geometric(1.5)", "geometric(float('nan'))", "wald(0.0, 1.0)", "wald(1.0, 0.0)",
    "poisson(-1.0)", "poisson(float('nan'))", "poisson(1e19)", "binomial(-1, 0.5)",
    "binomial(5, 1.5)", "binomial(5, float('nan'))", "negative_binomial(0.0, 0.5)",
    "negative_binomial(1.0, 0.0)", "gamma(np.array([1.0, -1.0]))", "vonmises(0.0, -1.0)",
    "logseries(1.0)", "logseries(-0.1)", "logseries(float('nan'))", "zipf(1.0)",
    "zipf(np.array([2.0, 0.5]))", "noncentral_chisquare(0.0, 1.0)",
    "noncentral_chisquare(1.0, -1.0)", "noncentral_f(0.0, 1.0, 1.0)", "noncentral_f(1.0, 1.0, -1.0)",
    "hypergeometric(-1, 5, 3)", "hypergeometric(5, -1, 3)", "hypergeometric(5, 5, -1)",
    "hypergeometric(5, 5, 11)", "hypergeometric(10 ** 9, 5, 3)",
    "hypergeometric(np.array([5, 2]), 5, 8)",
    "poisson(np.array([1.0, -1.0]))", "binomial(np.array([3, 4]), np.array([0.5, 2.0]))"])
def test_parameter_errors_are_numpys(call):
    with pytest.raises(ValueError) as want:
        eval("g." + call, {"g": np.random.default_rng(0), "np": np})
    with pytest.raises(ValueError) as got:
        eval("g." + call, {"g": vp.random.default_rng(0), "np": np})
    assert str(want.value) in str(got.value), (str(got.value), str(want.value))
    assert "Generator." in str(got.value)


def test_multinomial_marginals_and_totals():
    """Each category's count is binomial(n, p_j) (chi-square per marginal),
    the counts sum to n, the last category takes the rest (pvals whose
    head sums to at most 1, as NumPy's); n and pvals broadcast."""
    g = vp.random.default_rng(8)
    pv = [0.1, 0.25, 0.3, 0.35]
    x = g.multinomial(60, pv, size=N)
    assert x.dtype == np.int64 and x.shape == (N, 4)
    x = x.numpy()
    assert (x.sum(axis=1) == 60).all()
    for j, pj in enumerate(pv):
        stat, crit = _chi2(x[:, j], lambda k: _lfact(60) - _lfact(k) - _lfact(60 - k) +
                           k * math.log(pj) + (60 - k) * math.log(1 - pj))
        assert stat < crit, (j, stat, crit)
    # category pairs are negatively correlated: cov = -n p_i p_j
    c = np.cov(x[:, 0], x[:, 3])[0, 1]
    assert abs(c - (-60 * 0.1 * 0.35)) < 0.15, c
    y = g.multinomial(vp.asarray(np.array([[5.0], [40.0]])), [[0.5, 0.5], [0.2, 0.9]],
                      size=(N // 10, 2, 2)).numpy()
    assert y.shape == (N // 10, 2, 2, 2)
    assert (y[:, 0].sum(-1) == 5).all() and (y[:, 1].sum(-1) == 40).all()
    assert abs(y[:, 1, 1, 0].mean() - 8.0) < 0.3  # 40 * 0.2; the last takes 0.8
    assert g.multinomial(7, [1.0]).numpy().tolist() == [7]
    want = np.random.default_rng(0).multinomial(10, [0.2, 0.8], size=3)
    got = g.multinomial(10, [0.2, 0.8], size=3)
    assert got.shape == want.shape and got.dtype == want.dtype


@pytest.mark.parametrize("alpha", [[0.5, 1.0, 2.0], [0.02, 0.05, 0.01], [3.0, 0.0, 1.0]],
                         ids=str)
def test_dirichlet_matches_numpys_distribution(alpha):
    """Each component against NumPy's samples (normalized gammas, or the
    stick breaking of betas below max(alpha) = 0.1); rows sum to 1."""
    got = vp.random.default_rng(2).dirichlet(alpha, size=N)
    assert got.shape == (N, 3) and got.dtype == np.float64
    g = got.numpy()
    np.testing.assert_allclose(g.sum(axis=1), 1.0, rtol=1e-12)
    want = np.random.default_rng(3).dirichlet(alpha, size=N)
    for j in range(3):
        if alpha[j] == 0:
            assert (g[:, j] == 0).all()
            continue
        assert _ks(g[:, j], want[:, j]) < KS_CRIT, (alpha, j)


@pytest.mark.parametrize("call", [
    "multinomial(10, [0.2, -0.3, 0.5])", "multinomial(10, [0.7, 0.6, 0.1])",
    "multinomial(-1, [0.5, 0.5])", "multinomial(10, 0.5)", "multinomial(10, [])",
    "dirichlet([-1.0, 1.0])"])
def test_vector_distribution_errors_are_numpys(call):
    with pytest.raises(ValueError) as want:
        eval("g." + call, {"g": np.random.default_rng(0)})
    with pytest.raises(ValueError) as got:
        eval("g." + call, {"g": vp.random.default_rng(0)})
    assert str(want.value) in str(got.value), (str(got.value), str(want.value))


@pytest.mark.parametrize("method", ["svd", "eigh", "cholesky"])
def test_multivariate_normal_moments_and_projections(method):
    """Mean and covariance within their sampling error, and a projection
    onto a fixed direction against NumPy's samples (KS); NumPy's checks."""
    mean = np.array([1.0, -2.0, 3.0])
    cov = np.array([[2.0, 0.5, 0.3], [0.5, 1.0, -0.2], [0.3, -0.2, 0.5]])
    got = vp.random.default_rng(6).multivariate_normal(mean, cov, size=N, method=method)
    assert got.shape == (N, 3) and got.dtype == np.float64
    x = got.numpy()
    np.testing.assert_allclose(x.mean(axis=0), mean, atol=5 * math.sqrt(2.0 / N))
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.06)
    want = np.random.default_rng(6).multivariate_normal(mean, cov, size=N, method=method)
    d = np.array([0.3, -1.0, 0.7])
    assert _ks(x @ d, want @ d) < KS_CRIT
    g = vp.random.default_rng(1)
    assert g.multivariate_normal(mean, cov).shape == (3,)
    assert g.multivariate_normal(mean, cov, size=(2, 4)).shape == (2, 4, 3)
    assert g.multivariate_normal(mean, cov, dtype=np.float32).dtype == np.float32
    bad = [[1.0, 2.0], [2.0, 1.0]]
    if method != "cholesky":
        with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
            g.multivariate_normal([0.0, 0.0], bad, method=method)
        with pytest.raises(ValueError, match="positive-semidefinite"):
            g.multivariate_normal([0.0, 0.0], bad, check_valid="raise", method=method)
    for m, c, msg in (([[0.0]], [[1.0]], "mean must be 1 dimensional"),
                      ([0.0, 1.0], [[1.0, 0.0]], "cov must be 2 dimensional and square"),
                      ([0.0], [[1.0, 0.0], [0.0, 1.0]], "mean and cov must have same length")):
        with pytest.raises(ValueError, match=msg):
            np.random.default_rng(0).multivariate_normal(m, c)
        with pytest.raises(ValueError, match=msg):
            g.multivariate_normal(m, c)


def test_permuted_shuffles_each_slice_independently_and_uniformly():
    """Generator.permuted (missing): each slice along axis a permutation of
    its own, independent of the others; the 6 orders of 3 elements equally
    likely (chi-square over 6000 rows); axis None, out= (x itself too),
    NumPy in -> NumPy out."""
    g = vp.random.default_rng(12)
    rows = np.tile(np.arange(3), (6000, 1))
    got = g.permuted(vp.asarray(rows), axis=1).numpy()
    assert (np.sort(got, axis=1) == rows).all()
    codes = got[:, 0] * 9 + got[:, 1] * 3 + got[:, 2]
    counts = np.array([np.sum(codes == c) for c in np.unique(codes)])
    assert counts.size == 6
    assert ((counts - 1000.0) ** 2 / 1000.0).sum() < _chi2_crit(5)
    x = np.arange(24).reshape(4, 6)
    col = g.permuted(vp.asarray(x), axis=0).numpy()
    assert (np.sort(col, axis=0) == x).all() and not (col == x).all()
    flat = g.permuted(vp.asarray(x))
    assert flat.shape == (4, 6) and sorted(flat.numpy().ravel().tolist()) == list(range(24))
    y = vp.asarray(x.copy())
    assert g.permuted(y, axis=1, out=y) is y
    assert (np.sort(y.numpy(), axis=1) == x).all()
    assert isinstance(g.permuted(x, axis=1), np.ndarray)
    with pytest.raises(ValueError, match="same shape"):
        g.permuted(vp.asarray(x), out=vp.empty((2, 2), np.int64))
