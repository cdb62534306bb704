"""vp.random's distributions past uniform, normal, exponential and integers
(issue 19): numpy.random.Generator's methods of the same names, made of
the generator's uniform, normal and exponential draws (random.py: the bit
generator, the basic draws and the parameter checks) and the ufuncs.

Each follows NumPy's own algorithm (numpy/random/src/distributions):
closed forms (laplace, logistic, gumbel, rayleigh, weibull, pareto, power,
lognormal, standard_cauchy, triangular, wald, geometric by inversion);
Marsaglia and Tsang's gamma (and NumPy's rejection for shape < 1), Johnk's
beta for a, b <= 1 (else a ratio of gammas), the multiplication method for
Poisson below lam = 10 and Hoermann's PTRS above, inversion for the
binomial below n p = 30. Above it NumPy takes BTPE; this takes Hoermann's
BTRS (the transformed rejection of PTRS for the binomial, as TensorFlow and
PyTorch do): the same distribution, a shorter test.

A rejection method runs in rounds over the whole sample: every round draws
for each element, keeps the draws its test accepts where no earlier round
accepted one, and stops once every element holds one (a read back of one
flag a round; ~95% of draws accept, so a million values take ~6 rounds).
A per-element loop (the multiplication method, inversion) runs the same
way, a step a round for the elements still searching. The values are not
NumPy's (the streams differ: Box-Muller normals, draws for every element);
the distributions are (test/python/test_random_distributions.py compares
each with NumPy's samples and with the exact probabilities).
"""
import math

import numpy as np

from . import _array, _reduce, _shapeops, _ufunc

_MAX_ROUNDS = 10000  # a rejection test that never accepts is a bug, not bad luck


def _where(c, x, y):
    return _ufunc.where(c, x, y)


def _any(x):
    return bool(_reduce.any(x))


def _rounds(draw, who):
    """draw() -> (candidates, accepted): rounds until every element holds
    an accepted candidate (see the module's docstring)."""
    res, done = draw()
    for _ in range(_MAX_ROUNDS):
        if bool(_reduce.all(done)):
            return res
        cand, ok = draw()
        res = _where(ok & ~done, cand, res)
        done = done | ok
    raise RuntimeError(f"{who}: rejection sampling did not accept a value for every element "
                       f"in {_MAX_ROUNDS} rounds (a bug: please report it)")


# ------------------------------------------------------------ closed forms
def lognormal(gen, mean, sigma, shape, dt):
    """exp(mean + sigma * N)."""
    return _ufunc.exp(gen.standard_normal(shape, dt) * sigma + mean)


def laplace(gen, loc, scale, shape, dt):
    """NumPy's random_laplace: loc -+ scale * log(2U) around U = 1/2 (U =
    0 drawn again)."""
    def draw():
        u = gen.random(shape, dt)
        lo = loc + scale * _ufunc.log(u + u)
        hi = loc - scale * _ufunc.log(2.0 - u - u)
        return _where(u >= 0.5, hi, lo), u > 0
    return _rounds(draw, "Generator.laplace")


def logistic(gen, loc, scale, shape, dt):
    """loc + scale * log(U / (1 - U)), U > 0."""
    def draw():
        u = gen.random(shape, dt)
        return loc + scale * _ufunc.log(u / (1.0 - u)), u > 0
    return _rounds(draw, "Generator.logistic")


def gumbel(gen, loc, scale, shape, dt):
    """loc - scale * log(-log(1 - U)), U > 0."""
    def draw():
        u = gen.random(shape, dt)
        return loc - scale * _ufunc.log(-_ufunc.log1p(-u)), u > 0
    return _rounds(draw, "Generator.gumbel")


def rayleigh(gen, scale, shape, dt):
    """scale * sqrt(2 E)."""
    return _ufunc.sqrt(gen.standard_exponential(shape, dt) * 2.0) * scale


def weibull(gen, a, shape, dt):
    """E ** (1 / a); 0 where a is 0."""
    e = gen.standard_exponential(shape, dt)
    if isinstance(a, float):
        return e * 0.0 if a == 0 else _ufunc.power(e, 1.0 / a)
    safe = _where(a == 0, 1.0, a)
    return _where(a == 0, 0.0, _ufunc.power(e, 1.0 / safe))


def pareto(gen, a, shape, dt):
    """expm1(E / a) (Lomax, as NumPy's pareto)."""
    return _ufunc.expm1(gen.standard_exponential(shape, dt) / a)


def power(gen, a, shape, dt):
    """(1 - exp(-E)) ** (1 / a)."""
    return _ufunc.power(-_ufunc.expm1(-gen.standard_exponential(shape, dt)), 1.0 / a)


def standard_cauchy(gen, shape, dt):
    """N1 / N2."""
    return gen.standard_normal(shape, dt) / gen.standard_normal(shape, dt)


def triangular(gen, left, mode, right, shape, dt):
    """NumPy's random_triangular (inversion of the two-sided CDF)."""
    base = right - left
    leftbase = mode - left
    ratio = leftbase / base
    leftprod = leftbase * base
    rightprod = (right - mode) * base
    u = gen.random(shape, dt)
    lo = left + _ufunc.sqrt(u * leftprod)
    hi = right - _ufunc.sqrt((1.0 - u) * rightprod)
    return _where(u <= ratio, lo, hi)


def wald(gen, mean, scale, shape, dt):
    """NumPy's random_wald (Michael, Schucany and Haas)."""
    mu_2l = mean / (2.0 * scale)
    y = gen.standard_normal(shape, dt)
    y = mean * y * y
    x = mean + mu_2l * (y - _ufunc.sqrt(4.0 * scale * y + y * y))
    u = gen.random(shape, dt)
    return _where(u <= mean / (mean + x), x, mean * mean / x)


def geometric(gen, p, shape):
    """ceil(E / -log1p(-p)) (inversion; at least 1, at most INT64_MAX)."""
    e = gen.standard_exponential(shape, np.float64)
    if isinstance(p, float):
        z = _ufunc.ceil(e * (-1.0 / math.log1p(-p))) if p < 1 else e * 0.0
    else:  # p = 1: E / inf is 0, made 1 below
        z = _ufunc.ceil(-e / _ufunc.log1p(-p))
    z = _ufunc.minimum(_ufunc.maximum(z, 1.0), 9.223372036854775e18)
    return z.astype(np.int64)


# ------------------------------------------------------------------ gamma
def _gamma_mt(gen, s, shape, dt):
    """Marsaglia and Tsang (shape s >= 1): (candidates, accepted)."""
    b = s - 1.0 / 3.0
    c = 1.0 / _ufunc.sqrt(b * 9.0) if not isinstance(b, float) else 1.0 / math.sqrt(9.0 * b)
    x = gen.standard_normal(shape, dt)
    v = 1.0 + c * x
    pos = v > 0
    v = _where(pos, v, 1.0)
    v = v * v * v
    u = gen.random(shape, dt)
    x2 = x * x
    ok = (u < 1.0 - 0.0331 * x2 * x2) | \
        (_ufunc.log(u) < 0.5 * x2 + b * (1.0 - v + _ufunc.log(v)))
    return b * v, pos & ok


def _gamma_small(gen, s, shape, dt):
    """NumPy's rejection for 0 < shape s < 1: (candidates, accepted)."""
    u = gen.random(shape, dt)
    v = gen.standard_exponential(shape, dt)
    x_lo = _ufunc.power(u, 1.0 / s)
    y = -_ufunc.log((1.0 - u) / s)
    x_hi = _ufunc.power(1.0 - s + s * y, 1.0 / s)
    lo = u <= 1.0 - s
    return _where(lo, x_lo, x_hi), _where(lo, x_lo <= v, x_hi <= v + y)


def standard_gamma(gen, s, shape, dt):
    """Gamma(s, 1): Marsaglia and Tsang for s >= 1, NumPy's rejection below
    1, 0 for s = 0 (arrays of s: both methods, each element its own)."""
    who = "Generator.standard_gamma"
    if isinstance(s, float):
        if s == 0:
            return gen.random(shape, dt) * 0.0
        if s == 1:
            return gen.standard_exponential(shape, dt)
        f = _gamma_mt if s > 1 else _gamma_small
        return _rounds(lambda: f(gen, s, shape, dt), who)
    small = s < 1
    has_small, has_big = _any(small), not bool(_reduce.all(small))
    s_big = _where(small, 1.0, s)
    s_small = _where(small & (s > 0), s, 0.5)

    def draw():
        if not has_small:
            return _gamma_mt(gen, s_big, shape, dt)
        if not has_big:
            return _gamma_small(gen, s_small, shape, dt)
        cb, ob = _gamma_mt(gen, s_big, shape, dt)
        cs, os_ = _gamma_small(gen, s_small, shape, dt)
        return _where(small, cs, cb), _where(small, os_, ob)
    r = _rounds(draw, who)
    return _where(s == 0, 0.0, r)


def beta(gen, a, b, shape, dt):
    """Johnk's algorithm where a <= 1 and b <= 1, else Ga / (Ga + Gb)."""
    def johnk(a_, b_):
        def draw():
            u = gen.random(shape, dt)
            v = gen.random(shape, dt)
            x = _ufunc.power(u, 1.0 / a_)
            y = _ufunc.power(v, 1.0 / b_)
            xpy = x + y
            ok = (xpy <= 1.0) & (u + v > 0)
            # both powers underflowed: the ratio from the logarithms
            lx = _ufunc.log(u) / a_
            ly = _ufunc.log(v) / b_
            lm = _ufunc.maximum(lx, ly)
            lx, ly = lx - lm, ly - lm
            logs = _ufunc.exp(lx - _ufunc.log(_ufunc.exp(lx) + _ufunc.exp(ly)))
            return _where(xpy > 0, x / _where(xpy > 0, xpy, 1.0), logs), ok
        return _rounds(draw, "Generator.beta")

    def ratio(a_, b_):
        ga = standard_gamma(gen, a_, shape, dt)
        gb = standard_gamma(gen, b_, shape, dt)
        return ga / (ga + gb)
    if isinstance(a, float) and isinstance(b, float):
        return johnk(a, b) if a <= 1 and b <= 1 else ratio(a, b)
    jk = (a <= 1.0) & (b <= 1.0)
    if isinstance(jk, (bool, np.bool_)):
        return johnk(a, b) if jk else ratio(a, b)
    if bool(_reduce.all(jk)):
        return johnk(a, b)
    if not _any(jk):
        return ratio(a, b)
    return _where(jk, johnk(_where(jk, a, 0.5), _where(jk, b, 0.5)),
                  ratio(_where(jk, 2.0, a), _where(jk, 2.0, b)))


# ---------------------------------------------------------------- Poisson
_LOG_FACT = [math.lgamma(k + 1.0) for k in range(7)]
_LOGGAM = [8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
           -5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03,
           6.410256410256410e-03, -2.955065359477124e-02, 1.796443723688307e-01,
           -1.39243221690590e+00]


def _log_factorial(k):
    """log(k!) of float64 k >= 0 (NumPy's loggam(k + 1): the Stirling
    series from 7 on, a table below)."""
    x0 = _ufunc.maximum(k + 1.0, 7.0)
    x2 = 1.0 / (x0 * x0)
    gl0 = x0 * 0.0 + _LOGGAM[9]
    for a in reversed(_LOGGAM[:9]):
        gl0 = gl0 * x2 + a
    r = gl0 / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * _ufunc.log(x0) - x0
    for j, v in enumerate(_LOG_FACT[:6]):
        r = _where(k == float(j), v, r)
    return r


def _poisson_ptrs(gen, lam, shape):
    """Hoermann's PTRS (lam >= 10), NumPy's random_poisson_ptrs."""
    sqrt_, log_ = (math.sqrt, math.log) if isinstance(lam, float) else (_ufunc.sqrt, _ufunc.log)
    slam, loglam = sqrt_(lam), log_(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    log_invalpha = log_(invalpha)

    def draw():
        u = gen.random(shape, np.float64) - 0.5
        v = gen.random(shape, np.float64)
        us = 0.5 - _ufunc.absolute(u)
        k = _ufunc.floor((2.0 * a / us + b) * u + lam + 0.43)
        box = (us >= 0.07) & (v <= vr)
        kk = _ufunc.maximum(k, 0.0)
        tail = (_ufunc.log(v) + log_invalpha - _ufunc.log(a / (us * us) + b)) <= \
            (-lam + kk * loglam - _log_factorial(kk))
        ok = box | ((k >= 0) & ~((us < 0.013) & (v > us)) & tail)
        return k, ok
    return _rounds(draw, "Generator.poisson")


def _poisson_mult(gen, lam, shape):
    """The multiplication method (lam < 10), NumPy's random_poisson_mult:
    the count of uniforms whose running product stays above exp(-lam),
    a step a round for the elements still multiplying."""
    enlam = math.exp(-lam) if isinstance(lam, float) else _ufunc.exp(-lam)
    x = _array.zeros(() if shape is None else shape, np.float64)
    prod = x + 1.0
    active = x == 0
    while True:
        prod = prod * _where(active, gen.random(shape, np.float64), 1.0)
        active = active & (prod > enlam)
        x = x + active
        if not _any(active):
            return x


def poisson(gen, lam, shape):
    """int64 Poisson samples: PTRS for lam >= 10, multiplication below."""
    if isinstance(lam, float):
        if lam == 0:
            return _array.zeros(() if shape is None else shape, np.int64)
        r = _poisson_ptrs(gen, lam, shape) if lam >= 10 else _poisson_mult(gen, lam, shape)
        return r.astype(np.int64)
    big = lam >= 10.0
    has_big, has_small = _any(big), not bool(_reduce.all(big))
    shape = tuple(np.broadcast_shapes(() if shape is None else shape, tuple(lam.shape)))
    if not has_small:
        return _poisson_ptrs(gen, lam, shape).astype(np.int64)
    small = _poisson_mult(gen, _where(big, 0.0, lam), shape)
    if not has_big:
        return small.astype(np.int64)
    return _where(big, _poisson_ptrs(gen, _where(big, lam, 10.0), shape), small).astype(np.int64)


# --------------------------------------------------------------- binomial
_TAIL = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287]


def _stirling_tail(k):
    """log(k!) - the Stirling approximation (a table below 10)."""
    k1 = k + 1.0
    sq = k1 * k1
    r = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / sq) / sq) / k1
    if isinstance(k, float):
        return _TAIL[int(k)] if k <= 9 else r
    for j, v in enumerate(_TAIL):
        r = _where(k == float(j), v, r)
    return r


def _binomial_btrs(gen, n, p, shape):
    """Hoermann's BTRS (n p > 30 with p <= 1/2), float64 counts."""
    f = (math.sqrt, math.log, math.floor) if isinstance(n, float) and isinstance(p, float) \
        else (_ufunc.sqrt, _ufunc.log, _ufunc.floor)
    sqrt_, log_, floor_ = f
    spq = sqrt_(n * p * (1.0 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    r = p / (1.0 - p)
    alpha = (2.83 + 5.1 / b) * spq
    m = floor_((n + 1.0) * p)
    fixed = (m + 0.5) * log_((m + 1.0) / (r * (n - m + 1.0))) + _stirling_tail(m) + \
        _stirling_tail(n - m)

    def draw():
        u = gen.random(shape, np.float64) - 0.5
        v = gen.random(shape, np.float64)
        us = 0.5 - _ufunc.absolute(u)
        k = _ufunc.floor((2.0 * a / us + b) * u + c)
        box = (us >= 0.07) & (v <= v_r)
        inside = (k >= 0) & (k <= n)
        kk = _ufunc.minimum(_ufunc.maximum(k, 0.0), n)
        lv = _ufunc.log(v * alpha / (a / (us * us) + b))
        bound = fixed + (n + 1.0) * _ufunc.log((n - m + 1.0) / (n - kk + 1.0)) + \
            (kk + 0.5) * _ufunc.log(r * (n - kk + 1.0) / (kk + 1.0)) - \
            _stirling_tail(kk) - _stirling_tail(n - kk)
        return k, box | (inside & (lv <= bound))
    return _rounds(draw, "Generator.binomial")


def _binomial_inversion(gen, n, p, shape):
    """NumPy's random_binomial_inversion (n p <= 30, p <= 1/2): the search
    of the CDF a step a round, restarted past its bound."""
    q = 1.0 - p
    if isinstance(n, float) and isinstance(p, float):
        qn = math.exp(n * math.log(q)) if q > 0 else 0.0
        np_ = n * p
        bound = min(n, np_ + 10.0 * math.sqrt(np_ * q + 1))
    else:
        qn = _ufunc.exp(n * _ufunc.log(q))
        np_ = n * p
        bound = _ufunc.minimum(n, np_ + 10.0 * _ufunc.sqrt(np_ * q + 1.0))
    x = _array.zeros(() if shape is None else shape, np.float64)
    px = x + qn
    u = gen.random(shape, np.float64)
    while True:
        active = u > px
        if not _any(active):
            return x
        x = x + active
        over = active & (x > bound)
        u = u - _where(active, px, 0.0)
        px = _where(active, ((n - x + 1.0) * p * px) / _where(active, x * q, 1.0), px)
        if _any(over):
            x = _where(over, 0.0, x)
            px = _where(over, qn, px)
            u = _where(over, gen.random(shape, np.float64), u)


def binomial(gen, n, p, shape):
    """int64 binomial samples (n float64 counts, p probabilities):
    n - binomial(n, 1 - p) for p > 1/2, inversion for n p <= 30, BTRS
    above (arrays: each element its own method)."""
    scalar = isinstance(n, float) and isinstance(p, float)
    if scalar:
        if n == 0 or p == 0:
            return _array.zeros(() if shape is None else shape, np.int64)
        flip = p > 0.5
        pp = 1.0 - p if flip else p
        if pp == 0:
            r = _array.zeros(() if shape is None else shape, np.float64)
        elif n * pp <= 30:
            r = _binomial_inversion(gen, n, pp, shape)
        else:
            r = _binomial_btrs(gen, n, pp, shape)
        return (n - r if flip else r).astype(np.int64)
    shape = tuple(np.broadcast_shapes(() if shape is None else shape,
                                      *(tuple(v.shape) for v in (n, p) if not isinstance(v, float))))
    flip = p > 0.5
    pp = _where(flip, 1.0 - p, p)
    zero = (n == 0.0) | (pp == 0.0)
    small = (n * pp <= 30.0) | zero
    has_small, has_big = _any(small), not bool(_reduce.all(small))
    r = None
    if has_small:
        r = _binomial_inversion(gen, _where(small, _where(zero, 1.0, n), 1.0),
                                _where(small, _where(zero, 0.5, pp), 0.5), shape)
        r = _where(zero, 0.0, r)
    if has_big:
        rb = _binomial_btrs(gen, _where(small, 100.0, n), _where(small, 0.5, pp), shape)
        r = rb if r is None else _where(small, r, rb)
    return _where(flip, n - r, r).astype(np.int64)


def negative_binomial(gen, n, p, shape):
    """NumPy's: Poisson(Gamma(n, (1 - p) / p))."""
    y = standard_gamma(gen, n, shape, np.float64) * ((1.0 - p) / p)
    return poisson(gen, y, None)


# ------------------------------------------------------ vector-valued ones
def multinomial(gen, n, pvals, batch):
    """NumPy's random_multinomial: category j is binomial(n left, p_j / p
    left), the last one takes what is left; n (float64: a number or a
    resident array) and pvals (a host float64 array, categories last)
    broadcast over the batch shape. int64, shape batch + (k,)."""
    k = pvals.shape[-1]
    left = _array.zeros(batch, np.float64) + n
    p_left = np.ones(pvals.shape[:-1])
    cols = []
    for j in range(k - 1):
        q = np.clip(np.divide(pvals[..., j], p_left, out=np.zeros_like(p_left),
                              where=p_left > 0), 0.0, 1.0)
        qv = float(q) if q.ndim == 0 else _array.asarray(np.ascontiguousarray(q))
        x = binomial(gen, left, qv, batch).astype(np.float64)
        cols.append(x)
        left = _ufunc.maximum(left - x, 0.0)
        p_left = p_left - pvals[..., j]
    cols.append(left)
    return _shapeops.stack(cols, axis=-1).astype(np.int64)


def dirichlet(gen, alpha, batch, dt):
    """NumPy's: normalized gammas, or below max(alpha) = 0.1 the stick
    breaking of betas (gammas of tiny shapes underflow to 0 / 0). alpha a
    host float64 array (k,); shape batch + (k,)."""
    k = alpha.size
    if k == 0:
        return _array.zeros(batch + (0,), dt)
    if alpha.max() < 0.1:
        csum = np.cumsum(alpha[::-1])[::-1]
        acc = _array.zeros(batch, dt) + 1.0
        cols = []
        for j in range(k - 1):
            if csum[j + 1] == 0:
                cols += [acc * 0.0] * (k - 1 - j)
                break
            v = beta(gen, float(alpha[j]), float(csum[j + 1]), batch, dt)
            cols.append(acc * v)
            acc = acc * (1.0 - v)
        cols.append(acc)
        return _shapeops.stack(cols, axis=-1)
    g = standard_gamma(gen, _array.asarray(alpha.astype(dt)), batch + (k,), dt)
    return g / _reduce.sum(g, axis=-1, keepdims=True)


# ------------------------------------------------------- the rarer ones
def noncentral_chisquare(gen, df, nonc, shape, dt):
    """NumPy's: chisquare(df - 1) + (N + sqrt(nonc))^2 for df > 1, else
    chisquare(df + 2 Poisson(nonc / 2)); chisquare(df) where nonc is 0."""
    def big(d, nc):  # df > 1
        n = gen.standard_normal(shape, dt) + _ufunc.sqrt(nc) if not isinstance(nc, float) \
            else gen.standard_normal(shape, dt) + math.sqrt(nc)
        return standard_gamma(gen, (d - 1.0) * 0.5, shape, dt) * 2.0 + n * n

    def small(d, nc):  # df <= 1
        i = poisson(gen, nc * 0.5, shape).astype(dt)
        return standard_gamma(gen, i * 2.0 * 0.5 + d * 0.5, shape, dt) * 2.0
    if isinstance(df, float) and isinstance(nonc, float):
        if nonc == 0:
            return standard_gamma(gen, df * 0.5, shape, dt) * 2.0
        return big(df, nonc) if df > 1 else small(df, nonc)
    shape = tuple(np.broadcast_shapes(() if shape is None else shape,
                                      *(tuple(v.shape) for v in (df, nonc)
                                        if not isinstance(v, float))))
    gt1 = df > 1.0
    r_big = big(_where(gt1, df, 2.0), nonc)
    r_small = small(_where(gt1, 0.5, df), nonc)
    central = standard_gamma(gen, df * 0.5, shape, dt) * 2.0
    return _where(nonc == 0.0, central, _where(gt1, r_big, r_small))


def vonmises(gen, mu, kappa, shape, dt):
    """NumPy's random_vonmises (Best and Fisher's rejection), uniform on
    [-pi, pi) below kappa = 1e-8, a wrapped normal past 1e6; the result
    mu + the angle, wrapped into [-pi, pi]."""
    pi = math.pi
    if isinstance(kappa, float):
        if kappa < 1e-8:
            return (gen.random(shape, dt) * 2.0 - 1.0) * pi
        if kappa > 1e6:
            r = gen.standard_normal(shape, dt) * math.sqrt(1.0 / kappa) + mu
            return _wrap(r, pi)
        if kappa < 1e-5:
            s = 1.0 / kappa + kappa
        else:
            r = 1 + math.sqrt(1 + 4 * kappa * kappa)
            rho = (r - math.sqrt(2 * r)) / (2 * kappa)
            s = (1 + rho * rho) / (2 * rho)
    else:
        k = _where(kappa < 1e-8, 1.0, kappa)
        r = 1.0 + _ufunc.sqrt(1.0 + 4.0 * k * k)
        rho = (r - _ufunc.sqrt(2.0 * r)) / (2.0 * k)
        s = _where(k < 1e-5, 1.0 / k + k, (1.0 + rho * rho) / (2.0 * rho))

    def draw():
        u = gen.random(shape, dt)
        z = _ufunc.cos(u * pi)
        w = (1.0 + s * z) / (s + z)
        y = (s - w) * (kappa if isinstance(kappa, float) else _where(kappa < 1e-8, 1.0, kappa))
        v = gen.random(shape, dt)
        ok = (y * (2.0 - y) - v >= 0) | (_ufunc.log(y / v) + 1.0 - y >= 0)
        return w, ok
    w = _rounds(draw, "Generator.vonmises")
    u = gen.random(shape, dt)
    ang = _ufunc.arccos(_ufunc.minimum(_ufunc.maximum(w, -1.0), 1.0))
    res = _wrap(_where(u < 0.5, -ang, ang) + mu, pi)
    if isinstance(kappa, float):
        return res
    uni = (gen.random(shape, dt) * 2.0 - 1.0) * pi
    wrapped = _wrap(gen.standard_normal(shape, dt) * _ufunc.sqrt(1.0 / _where(kappa > 1e6, kappa,
                                                                             1.0)) + mu, pi)
    return _where(kappa < 1e-8, uni, _where(kappa > 1e6, wrapped, res))


def _wrap(r, pi):
    """NumPy's wrap of an angle into [-pi, pi]: fmod(|r| + pi, 2 pi) - pi
    with r's sign."""
    m = _ufunc.fmod(_ufunc.absolute(r) + pi, 2.0 * pi) - pi
    return _where(r < 0, -m, m)


def logseries(gen, p, shape):
    """NumPy's random_logseries (Kemp's second accelerated generator), int64."""
    r = math.log1p(-p) if isinstance(p, float) else _ufunc.log1p(-p)

    def draw():
        v = gen.random(shape, np.float64)
        u = gen.random(shape, np.float64)
        q = -_ufunc.expm1(r * u)
        k = _ufunc.floor(1.0 + _ufunc.log(v) / _ufunc.log(q))
        deep = v <= q * q
        val = _where(v >= p, 1.0, _where(deep, k, _where(v >= q, 1.0, 2.0)))
        ok = (v >= p) | ~deep | ((k >= 1) & (v != 0))
        return val, ok
    return _rounds(draw, "Generator.logseries").astype(np.int64)


def zipf(gen, a, shape):
    """NumPy's random_zipf (Devroye's rejection), int64."""
    am1 = a - 1.0
    b = 2.0 ** am1 if isinstance(a, float) else _ufunc.power(2.0, am1)

    def draw():
        u = 1.0 - gen.random(shape, np.float64)
        v = gen.random(shape, np.float64)
        x = _ufunc.floor(_ufunc.power(u, -1.0 / am1))
        t = _ufunc.power(1.0 + 1.0 / x, am1)
        ok = (x <= 9.223372036854775e18) & (x >= 1.0) & \
            (v * x * (t - 1.0) / (b - 1.0) <= t / b)
        return _ufunc.minimum(_ufunc.maximum(x, 1.0), 9.2e18), ok
    return _rounds(draw, "Generator.zipf").astype(np.int64)


def _lf(k):
    """log(k!) of float64 counts (arrays or numbers)."""
    return _log_factorial(k) if not isinstance(k, float) else math.lgamma(k + 1.0)


def _hyper_hrua(gen, good, bad, sample, shape):
    """NumPy's hypergeometric_hrua (Stadlober's ratio of uniforms, for 10 <=
    sample <= good + bad - 10), float64 counts."""
    sq, fl, lg = (math.sqrt, math.floor, math.log) if all(
        isinstance(v, float) for v in (good, bad, sample)) else (_ufunc.sqrt, _ufunc.floor,
                                                                 _ufunc.log)
    mn = min if all(isinstance(v, float) for v in (good, bad, sample)) else _ufunc.minimum
    mx = max if all(isinstance(v, float) for v in (good, bad, sample)) else _ufunc.maximum
    pop = good + bad
    cs = mn(sample, pop - sample)
    ming, maxg = mn(good, bad), mx(good, bad)
    p, q = ming / pop, maxg / pop
    mu = cs * p
    a = mu + 0.5
    var = (pop - cs) * cs * p * q / (pop - 1.0)
    c = sq(var + 0.5)
    h = 1.7155277699214135 * c + 0.8989161620588988
    m = fl((cs + 1.0) * (ming + 1.0) / (pop + 2.0))
    g = _lf(m) + _lf(ming - m) + _lf(cs - m) + _lf(maxg - cs + m)
    b = mn(mn(cs, ming) + 1.0, fl(a + 16.0 * c))

    def draw():
        u = gen.random(shape, np.float64)
        v = gen.random(shape, np.float64)
        x = a + h * (v - 0.5) / u
        inside = (x >= 0.0) & (x < b)
        k = _ufunc.floor(_ufunc.minimum(_ufunc.maximum(x, 0.0), b - 1.0))
        gp = _log_factorial(k) + _log_factorial(ming - k) + _log_factorial(cs - k) + \
            _log_factorial(maxg - cs + k)
        t = g - gp
        ok = inside & ((u * (4.0 - u) - 3.0 <= t) |
                       (~(u * (u - t) >= 1.0) & (2.0 * _ufunc.log(u) <= t)))
        return k, ok
    k = _rounds(draw, "Generator.hypergeometric")
    k = _where(good > bad, cs - k, k)
    return _where(cs < sample, good - k, k)


def _hyper_sample(gen, good, bad, sample, shape):
    """NumPy's hypergeometric_sample (the urn drawn one ball a round, for
    samples below 10 or above the total less 10), float64 counts."""
    total = good + bad
    half = sample > _ufunc.floor(total / 2.0) if not isinstance(total, float) else \
        sample > math.floor(total / 2.0)
    cs = _where(half, total - sample, sample) if not isinstance(half, bool) else \
        (total - sample if half else sample)
    z = _array.zeros(() if shape is None else shape, np.float64)
    left, good_left, cs = z + total, z + good, z + cs
    while True:
        active = (cs > 0) & (good_left > 0) & (left > good_left)
        if not _any(active):
            break
        left = left - active
        pick = _ufunc.floor(gen.random(shape, np.float64) * (left + 1.0))
        good_left = good_left - (active & (pick < good_left))
        cs = cs - active
    good_left = _where(left == good_left, good_left - cs, good_left)
    return _where(half, good_left, good - good_left)


def hypergeometric(gen, good, bad, sample, shape):
    """int64 hypergeometric samples: the urn for small samples, HRUA else."""
    scalar = all(isinstance(v, float) for v in (good, bad, sample))
    if scalar:
        if sample == 0 or good == 0:
            return _array.zeros(() if shape is None else shape, np.int64)
        if 10 <= sample <= good + bad - 10:
            return _hyper_hrua(gen, good, bad, sample, shape).astype(np.int64)
        return _hyper_sample(gen, good, bad, sample, shape).astype(np.int64)
    shape = tuple(np.broadcast_shapes(() if shape is None else shape,
                                      *(tuple(v.shape) for v in (good, bad, sample)
                                        if not isinstance(v, float))))
    urn = (sample < 10.0) | (sample > good + bad - 10.0)
    zero = (sample == 0.0) | (good == 0.0)
    r = None
    if _any(urn):
        r = _hyper_sample(gen, good, bad, sample, shape)
    if not bool(_reduce.all(urn)):
        safe = lambda v, d: _where(urn, d, v) if not isinstance(v, float) else v  # noqa: E731
        rh = _hyper_hrua(gen, safe(good, 20.0), safe(bad, 20.0), safe(sample, 15.0), shape)
        r = rh if r is None else _where(urn, r, rh)
    return _where(zero, 0.0, r).astype(np.int64)
