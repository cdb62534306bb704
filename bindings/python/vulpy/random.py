"""vp.random: NumPy's Generator API on the GPU, on a counter-based Philox.

    rng = vp.random.default_rng(42)        # Generator(Philox(42))
    x = rng.random(1_000_000)              # resident float64, on the current context
    z = rng.standard_normal((1000, 1000), dtype=np.float32)

Philox4x64-10 makes each block of four uint64 words from (key, counter)
alone, so a call dispatches one invocation per block and no invocation keeps
state (_random_kernels.py). The host keeps the stream position (the counter
of the next block and how many of its words are used) and NumPy's 32-bit
half buffer, exactly as numpy/random/src/philox/philox.h does, so these
streams are bit-identical to NumPy's Generator(Philox(seed)), call after
call: random_raw, random() in float64 ((word >> 11) * 2^-53) and float32
((next_uint32 >> 8) * 2^-24, next_uint32 being the low then the high half of
a word, the high half kept for the next float32 call). The key comes from
NumPy's own Philox (SeedSequence), and `.state` reads and writes NumPy's
state dictionary, so a stream can move between VulPy and NumPy.

The rest uses parallel methods (docs/python-api.md, "Random numbers"):
standard_normal is Box-Muller on whole blocks (float32: on Philox4x32-10
words, four normals per Philox call, two calls per invocation by default,
_normal32_push; two paths, NORMAL32_PATHS, VULPY_NORMAL32_PATH), integers Lemire's
multiply without rejection (bias below span / 2^64), uniform, normal and
exponential are transforms of random / standard_normal.
"""
import inspect
import math
import numbers
import operator
import os

import numpy as np

from . import _array, _distributions, _reduce, _ufunc

__all__ = ["Generator", "Philox", "default_rng", "seed", "rand", "randn", "random_sample",
           "ranf", "sample", "randint"]  # and the Generator methods of _MODULE_FUNCTIONS, below

_MASK64 = (1 << 64) - 1
_MASK256 = (1 << 256) - 1
_MAX_N = (1 << 31) - 16  # push constants and indices are 32-bit
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_M0, _M1 = 0xD2E7470EE14C6C93, 0xCA5A826395121157
_W0, _W1 = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B


def _philox_host(ctr, key):
    """Philox4x64-10 of a 256-bit counter on the host (for the state dict and
    the buffered 32-bit half): the four words."""
    c = [(ctr >> (64 * i)) & _MASK64 for i in range(4)]
    k0, k1 = key
    for _ in range(10):
        p0, p1 = _M0 * c[0], _M1 * c[2]
        c = [(p1 >> 64) ^ c[1] ^ k0, p1 & _MASK64, (p0 >> 64) ^ c[3] ^ k1, p0 & _MASK64]
        k0, k1 = (k0 + _W0) & _MASK64, (k1 + _W1) & _MASK64
    return c


def _kernels():
    from . import _random_kernels
    return _random_kernels


def _size(size, who):
    """size= as a shape tuple (None is a scalar, returned as a 0-d array)."""
    if size is None:
        return ()
    if isinstance(size, (numbers.Integral, np.integer)) and not isinstance(size, bool):
        size = (int(size),)
    elif isinstance(size, (tuple, list)):
        try:
            size = tuple(operator.index(s) for s in size)
        except TypeError:
            raise TypeError(f"{who}: size= must be an int or a tuple of ints, "
                            f"got {size!r}") from None
    else:
        raise TypeError(f"{who}: size= must be an int or a tuple of ints, got {size!r}")
    if any(s < 0 for s in size):
        raise ValueError(f"{who}: size= must not be negative, got {size!r}")
    n = math.prod(size)
    if n > _MAX_N:
        raise ValueError(f"{who}: size= asks for {n} values; one call makes at most "
                         f"{_MAX_N} (split the request)")
    return size


def _float_dtype(dtype, who):
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{who}: dtype= must be float32 or float64, got {dtype!r}") from None
    if dt not in (_F32, _F64):
        raise TypeError(f"{who}: dtype= must be float32 or float64, got {dt.name}")
    return dt


def _target(shape, dt, out, who):
    """The result array: out= checked against shape and dtype, or a new one."""
    if out is None:
        return _array.empty(shape, dt)
    if not isinstance(out, _array.ndarray):
        raise TypeError(f"{who}: out= must be a vp.ndarray (resident), got "
                        f"{type(out).__name__}")
    if out.dtype != dt:
        raise _array.out_dtype_error(who, out, dt)
    if not _array.c_contiguous(out):
        raise ValueError(f"{who}: out= must be C-contiguous (a strided view gets its "
                         f"samples in another order than NumPy's): pass a contiguous array")
    if shape is not None and tuple(out.shape) != tuple(shape):
        raise ValueError(f"{who}: size= {shape} does not match out= of shape "
                         f"{tuple(out.shape)}")
    if math.prod(out.shape) > _MAX_N:
        raise ValueError(f"{who}: out= has {math.prod(out.shape)} elements; one call makes at "
                         f"most {_MAX_N}")
    return out


def _sample_target(size, dtype, out, who):
    """The float result of a sampler's size=, dtype= and out= (size None
    with out= given: out's shape)."""
    dt = _float_dtype(dtype, who)
    return _target(None if size is None and out is not None else _size(size, who), dt, out, who)


_GRID_X_GROUPS = None  # tests set a small x limit to check the 2-D fold

# How float32 standard normals are launched (n a multiple of 4; other n take
# normal_f32 of the path's math, scalar stores): docs/python-api.md, "float32
# normal paths", says what each path is, which runs where and why.
NORMAL32_PATHS = {
    "v8": "two Philox4x32 (eight normals) an invocation (out[t], out[t + h]), 64 wide; "
          "the exact math",
    "lean:v32/128": "eight an invocation, 128 wide, the split log and built-in sin / cos "
                    "(other values)",
}
# path -> (vec4s an invocation, workgroup width, math kind: _random_kernels.MATH_*)
_PATHS = {"v8": (2, 64, 0), "lean:v32/128": (8, 128, 4)}
# None: the device's default (_normal32_path): lean:v32/128 on NVIDIA, else v8
_NORMAL32_PATH = os.environ.get("VULPY_NORMAL32_PATH", "").strip() or None
_NVIDIA = 0x10DE


def _normal32_path(ctx):
    """The float32 normal path standard_normal / normal use on ctx's device."""
    if _NORMAL32_PATH is not None:
        return _NORMAL32_PATH
    return "lean:v32/128" if ctx.info.get("vendor_id") == _NVIDIA else "v8"


def _shape(path):
    """(vec4s an invocation, width, math kind) of a path of NORMAL32_PATHS
    (ValueError naming the paths for another)."""
    got = _PATHS.get(path) if isinstance(path, str) else None
    if got is None:
        raise ValueError(f"vp.random: no float32 normal path {path!r} (vp.random._NORMAL32_PATH"
                         f" or VULPY_NORMAL32_PATH); the paths are {', '.join(NORMAL32_PATHS)}")
    return got


def normal32_exact(path):
    """Whether path writes the documented stream (the exact math), or None
    for no path."""
    got = _PATHS.get(path) if isinstance(path, str) else None
    return None if got is None else got[2] == 0


def _launch(kern, arr, nblocks, local=64, bufs=(), **push):
    """One invocation per block; past the device's x workgroup limit
    (lavapipe: 65535 groups) a 2-D grid whose rows the kernels fold back
    (invocation_id; the surplus invocations of the last row write nothing).
    `local`: the kernel's workgroup width; `bufs`: its buffers after arr."""
    maxx = _GRID_X_GROUPS or arr._ctx.info["limits"]["max_workgroup_count"][0] or 65535
    maxx *= local
    if nblocks <= maxx:
        kern(arr, *bufs, dispatch=nblocks, row=nblocks, **push)
    else:
        kern(arr, *bufs, dispatch=(maxx, -(-nblocks // maxx)), row=maxx, **push)


class Philox:
    """Philox4x64-10, the counter-based bit generator of numpy.random.Philox,
    with the same seed, counter= and key= arguments and the same stream.

    seed: None, an int, a sequence of ints or a numpy SeedSequence; the key
    is derived by NumPy's SeedSequence exactly as numpy.random.Philox does
    (None draws fresh OS entropy). key= (a 128-bit int or two uint64 words)
    replaces the seed; counter= (a 256-bit int or four words) is the
    starting counter, 0 by default."""

    def __init__(self, seed=None, counter=None, key=None):
        ref = np.random.Philox(seed, counter=counter, key=key)  # NumPy checks and derives
        self.seed_seq = getattr(ref, "seed_seq", None)
        self.state = ref.state

    # The position: _ctr is the counter of the block that holds the next word,
    # _skip (0..3) how many of its words are used. NumPy's state has the
    # counter of the last block made and buffer_pos; the two convert below.
    @property
    def state(self):
        """NumPy's state dictionary (numpy.random.Philox().state): assign it
        to a NumPy Philox to continue this stream on the CPU, or assign a
        NumPy Philox's state here."""
        if self._skip == 0:
            ctr, pos = (self._ctr - 1) & _MASK256, 4
            buf = self._buffer if self._buffer is not None else _philox_host(ctr, self._key)
        else:
            ctr, pos = self._ctr, self._skip
            buf = _philox_host(ctr, self._key)
        words = lambda v, k: np.array([(v >> (64 * i)) & _MASK64 for i in range(k)],  # noqa: E731
                                      dtype=np.uint64)
        return {"bit_generator": "Philox",
                "state": {"counter": words(ctr, 4), "key": words(self._key[0] | self._key[1] << 64,
                                                                 2)},
                "buffer": np.array(buf, dtype=np.uint64), "buffer_pos": pos,
                "has_uint32": int(self._has32), "uinteger": int(self._u32)}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox":
            raise ValueError("state= must be a Philox state dictionary (numpy.random.Philox"
                             "().state)")
        ref = np.random.Philox(0)  # its state is replaced at once
        ref.state = value  # NumPy validates the fields
        st = ref.state
        c = [int(v) for v in st["state"]["counter"]]
        k = [int(v) for v in st["state"]["key"]]
        ctr = c[0] | c[1] << 64 | c[2] << 128 | c[3] << 192
        self._key = (k[0], k[1])
        pos = int(st["buffer_pos"])
        if pos >= 4:
            self._ctr, self._skip = (ctr + 1) & _MASK256, 0
            self._buffer = [int(v) for v in st["buffer"]]  # reported until the next block
        else:
            # NumPy's buffer holds block `ctr`: the same numbers are recomputed
            self._ctr, self._skip, self._buffer = ctr, pos, None
        self._has32 = bool(st["has_uint32"])
        self._u32 = int(st["uinteger"])

    # --------------------------------------------------------------- kernels
    def _take(self, nwords):
        """(counter words, skip) of the first block of nwords words, and steps."""
        ctr, skip = self._ctr, self._skip
        total = skip + nwords
        self._ctr = (ctr + total // 4) & _MASK256
        self._skip = total % 4
        if nwords:
            self._buffer = None
        return ctr, skip, (total + 3) // 4

    def _push(self, ctr):
        return dict(k0=self._key[0], k1=self._key[1], c0=ctr & _MASK64,
                    c1=(ctr >> 64) & _MASK64, c2=(ctr >> 128) & _MASK64, c3=ctr >> 192)

    def _fresh_blocks(self, nblocks):
        """nblocks whole blocks from the next unused one (a partly used block
        is left): the counter of the first."""
        if self._skip:
            self._ctr, self._skip = (self._ctr + 1) & _MASK256, 0
        ctr = self._ctr
        self._ctr = (ctr + nblocks) & _MASK256
        if nblocks:
            self._buffer = None
        return ctr

    def _fill_words(self, kern, arr, n):
        ctr, skip, nb = self._take(n)
        if n:
            _launch(kern, arr, nb, skip=skip, n=n, **self._push(ctr))

    def random_raw(self, size=None):
        """The next raw uint64 words of the stream (numpy's
        Philox.random_raw), as a resident uint64 array (0-d for size=None)."""
        shape = _size(size, "Philox.random_raw")
        out = _array.empty(shape, np.uint64)
        self._fill_words(_kernels().raw_u64, out, math.prod(shape))
        return out

    def advance(self, delta):
        """numpy.random.Philox.advance: the counter moves delta blocks on
        (the buffered words and half are dropped, as NumPy does); returns
        self."""
        self.state = self._numpy().advance(delta).state
        return self

    def jumped(self, jumps=1):
        """numpy.random.Philox.jumped: a new Philox whose stream starts
        jumps * 2^128 blocks on (independent streams for parallel work)."""
        new = Philox.__new__(Philox)
        new.seed_seq = self.seed_seq
        new.state = self._numpy().jumped(jumps).state
        return new

    def spawn(self, n_children):
        """numpy.random.Philox.spawn: n_children new Philox bit generators
        seeded from children of this one's SeedSequence (NumPy's, so each
        gives the stream of numpy's spawned Philox)."""
        seq = self.seed_seq
        if not isinstance(seq, np.random.SeedSequence):
            raise TypeError("Philox.spawn: this Philox has no SeedSequence to spawn from (it "
                            "was made from key= or a state)")
        return [Philox(c) for c in seq.spawn(n_children)]

    def _numpy(self):
        """A numpy.random.Philox at this stream's position."""
        ref = np.random.Philox(0)  # its state is replaced at once
        ref.state = self.state
        return ref

    def __repr__(self):
        return f"vp.random.Philox(key=0x{self._key[1] << 64 | self._key[0]:x})"


class Generator:
    """numpy.random.Generator on the GPU: methods return resident arrays on
    the current context (vp.default_context()). Generator(Philox(seed))
    matches NumPy's Generator(Philox(seed)) sample for sample in
    random() (float64 and float32) and bit_generator.random_raw();
    docs/python-api.md, "Random numbers", lists the other methods."""

    def __init__(self, bit_generator):
        if not isinstance(bit_generator, Philox):
            raise TypeError(f"Generator: bit_generator must be a vp.random.Philox, got "
                            f"{type(bit_generator).__name__}")
        self.bit_generator = bit_generator

    def __repr__(self):
        return f"vp.random.Generator({self.bit_generator!r})"

    def spawn(self, n_children):
        """numpy.random.Generator.spawn: n_children independent Generators
        on Philox.spawn's children (each one matches numpy's spawned
        Generator(Philox) where this one matches NumPy's)."""
        return [Generator(b) for b in self.bit_generator.spawn(n_children)]

    def bytes(self, length):
        """numpy.random.Generator.bytes: `length` random bytes (a Python
        bytes object), NumPy's from this stream, drawn on the host (the
        stream moves on as NumPy's does)."""
        ref = np.random.Generator(self.bit_generator._numpy())
        out = ref.bytes(length)
        self.bit_generator.state = ref.bit_generator.state
        return out

    def random(self, size=None, dtype=np.float64, out=None):
        """Uniform floats in [0, 1): NumPy's stream, bit for bit."""
        arr = _sample_target(size, dtype, out, "Generator.random")
        dt, n = arr.dtype, math.prod(arr.shape)
        bg, k = self.bit_generator, _kernels()
        if dt == _F64:
            bg._fill_words(k.uniform_f64, arr, n)
            return arr
        if n == 0:
            return arr
        # float32: next_uint32 halves; a buffered high half goes first
        has_buf, buf_val = bg._has32, bg._u32
        m = n - 1 if has_buf else n  # halves taken from fresh words
        words = (m + 1) // 2
        ctr, skip, nb = bg._take(words)
        if n % 8 == 0 and not skip and not has_buf:  # whole blocks: vector stores
            _launch(k.uniform_f32_v4, arr, nb, n4=n // 4, **bg._push(ctr))
        else:
            _launch(k.uniform_f32, arr, max(nb, 1), skip2=2 * skip, n=n, has_buf=int(has_buf),
                    buf_val=buf_val, **bg._push(ctr))
        if m:  # NumPy keeps the last word's high half (uinteger), still unused if m is odd
            last = skip + words - 1
            w = _philox_host((ctr + last // 4) & _MASK256, bg._key)[last % 4]
            bg._u32 = w >> 32
        bg._has32 = bool(m % 2)
        return arr

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """Standard normal samples by Box-Muller on whole Philox blocks (not
        NumPy's ziggurat: the values differ from NumPy's, the distribution
        is the same)."""
        arr = _sample_target(size, dtype, out, "Generator.standard_normal")
        dt, n = arr.dtype, math.prod(arr.shape)
        per = 8 if dt == _F32 else 4
        nb = (n + per - 1) // per
        if n == 0:
            return arr
        ctr = self.bit_generator._fresh_blocks(nb)
        if dt == _F64:
            _launch(_kernels().normal_f64, arr, nb, n=n, **self.bit_generator._push(ctr))
            return arr
        push = _normal32_push(ctr, self.bit_generator._key, nb)
        if n % 4 == 0:  # vec4 stores
            _normal32_v4(arr, n // 4, dict(push, scale=1.0, loc=0.0, affine=0),
                         _normal32_path(arr._ctx))
        else:
            _launch(_kernels().normal_f32(_shape(_normal32_path(arr._ctx))[2]), arr,
                    (n + 3) // 4, n=n, **push)
        return arr

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64):
        """loc + scale * standard_normal. loc and scale are numbers or
        arrays (NumPy, lists or resident) that broadcast to size (which
        defaults to their broadcast shape)."""
        who = "Generator.normal"
        dt = _float_dtype(dtype, who)
        loc, ls = _param(loc, who, "loc", dt)
        scale, ss = _param(scale, who, "scale", dt)
        _non_negative(scale, who, "scale")
        shape = _param_shape(size, (ls, ss), who)
        if dt == _F32 and isinstance(scale, float) and isinstance(loc, float):
            # numbers: scaled in the kernel's store (one pass, not three)
            z = _normal32_scaled(self, shape, scale, loc)
            if z is not None:
                return z
        z = self.standard_normal(shape, dt)
        return _affine(z, scale, loc)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        """Uniform floats in [low, high): low + (high - low) * random().
        low and high are numbers or arrays that broadcast to size. As
        NumPy, for numbers and arrays alike: a range high - low that is not
        finite is an OverflowError, a negative one a ValueError (arrays:
        one read back of two flags)."""
        who = "Generator.uniform"
        dt = _float_dtype(dtype, who)
        low, ls = _param(low, who, "low", dt)
        high, hs = _param(high, who, "high", dt)
        span = high - low
        if isinstance(span, float):
            finite, negative = math.isfinite(span), span < 0
        else:  # an array: NumPy checks arrays too ([1.] to [0.] is its ValueError)
            finite = not bool(_reduce.any(~_ufunc.isfinite(span)))
            negative = finite and bool(_reduce.any(span < 0))
        if not finite:
            raise OverflowError(f"{who}: high - low range exceeds valid bounds (low={low!r}, "
                                f"high={high!r})" if isinstance(span, float) else
                                f"{who}: high - low range exceeds valid bounds (not finite)")
        if negative:
            raise ValueError(f"{who}: low= must be <= high=, got low={low!r}, high={high!r}"
                             if isinstance(span, float) else
                             f"{who}: low= must be <= high= (high - low < 0 somewhere)")
        u = self.random(_param_shape(size, (ls, hs), who), dt)
        return _affine(u, span, low)

    def exponential(self, scale=1.0, size=None, dtype=np.float64):
        """Exponential samples by inversion: -scale * log(1 - random());
        scale a number or an array that broadcasts to size."""
        who = "Generator.exponential"
        dt = _float_dtype(dtype, who)
        scale, ss = _param(scale, who, "scale", dt)
        _non_negative(scale, who, "scale")
        u = self.random(_param_shape(size, (ss,), who), dt)
        e = _ufunc.log1p(-u)
        return _affine(e, -scale, 0.0)

    def standard_exponential(self, size=None, dtype=np.float64):
        """Exponential samples of scale 1 (exponential(1.0, size, dtype))."""
        return self.exponential(1.0, size, dtype)

    # ----------------------------------------------- more distributions
    # numpy.random.Generator's, in _distributions.py (its docstring says
    # how); NumPy's parameter checks and messages. The continuous ones take
    # dtype= (float64, or float32 for a device without float64) as a
    # keyword, VulPy's addition; the discrete ones give int64.
    def _draw(self, who, dtype, size, specs, f):
        dt = _float_dtype(dtype, who)
        vals, shapes = [], []
        for name, v, cons in specs:
            v, sh = _param(v, who, name, dt if cons != "count" else _F64)
            _constrain(who, name, v, cons)
            vals.append(v)
            shapes.append(sh)
        return f(*vals, _param_shape(size, shapes, who), dt)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, *, dtype=np.float64):
        """exp of normal(mean, sigma) samples (numpy's lognormal)."""
        return self._draw("Generator.lognormal", dtype, size,
                          (("mean", mean, None), ("sigma", sigma, "nonneg")),
                          lambda m, s, sh, dt: _distributions.lognormal(self, m, s, sh, dt))

    def laplace(self, loc=0.0, scale=1.0, size=None, *, dtype=np.float64):
        """Laplace (double exponential) samples (numpy's laplace)."""
        return self._draw("Generator.laplace", dtype, size,
                          (("loc", loc, None), ("scale", scale, "nonneg")),
                          lambda m, s, sh, dt: _distributions.laplace(self, m, s, sh, dt))

    def logistic(self, loc=0.0, scale=1.0, size=None, *, dtype=np.float64):
        """Logistic samples (numpy's logistic)."""
        return self._draw("Generator.logistic", dtype, size,
                          (("loc", loc, None), ("scale", scale, "nonneg")),
                          lambda m, s, sh, dt: _distributions.logistic(self, m, s, sh, dt))

    def gumbel(self, loc=0.0, scale=1.0, size=None, *, dtype=np.float64):
        """Gumbel (extreme value type I) samples (numpy's gumbel)."""
        return self._draw("Generator.gumbel", dtype, size,
                          (("loc", loc, None), ("scale", scale, "nonneg")),
                          lambda m, s, sh, dt: _distributions.gumbel(self, m, s, sh, dt))

    def rayleigh(self, scale=1.0, size=None, *, dtype=np.float64):
        """Rayleigh samples, scale * sqrt(2 E) (numpy's rayleigh)."""
        return self._draw("Generator.rayleigh", dtype, size, (("scale", scale, "nonneg"),),
                          lambda s, sh, dt: _distributions.rayleigh(self, s, sh, dt))

    def weibull(self, a, size=None, *, dtype=np.float64):
        """Weibull samples of shape a, E ** (1 / a) (numpy's weibull)."""
        return self._draw("Generator.weibull", dtype, size, (("a", a, "nonneg"),),
                          lambda a_, sh, dt: _distributions.weibull(self, a_, sh, dt))

    def pareto(self, a, size=None, *, dtype=np.float64):
        """Pareto II (Lomax) samples of shape a (numpy's pareto)."""
        return self._draw("Generator.pareto", dtype, size, (("a", a, "pos"),),
                          lambda a_, sh, dt: _distributions.pareto(self, a_, sh, dt))

    def power(self, a, size=None, *, dtype=np.float64):
        """Power-function samples in [0, 1] of exponent a - 1 (numpy's power)."""
        return self._draw("Generator.power", dtype, size, (("a", a, "pos"),),
                          lambda a_, sh, dt: _distributions.power(self, a_, sh, dt))

    def standard_cauchy(self, size=None, *, dtype=np.float64):
        """Cauchy (Lorentz) samples, N1 / N2 (numpy's standard_cauchy)."""
        return self._draw("Generator.standard_cauchy", dtype, size, (),
                          lambda sh, dt: _distributions.standard_cauchy(self, sh, dt))

    def triangular(self, left, mode, right, size=None, *, dtype=np.float64):
        """Triangular samples on [left, right] peaking at mode (numpy's
        triangular)."""
        who = "Generator.triangular"

        def f(lo, md, hi, sh, dt):
            _constrain(who, "left", (lo, md), "le")
            _constrain(who, "mode", (md, hi), "le")
            _constrain(who, "left", (lo, hi), "ne")
            return _distributions.triangular(self, lo, md, hi, sh, dt)
        return self._draw(who, dtype, size,
                          (("left", left, None), ("mode", mode, None), ("right", right, None)), f)

    def wald(self, mean, scale, size=None, *, dtype=np.float64):
        """Wald (inverse Gaussian) samples (numpy's wald)."""
        return self._draw("Generator.wald", dtype, size,
                          (("mean", mean, "pos"), ("scale", scale, "pos")),
                          lambda m, s, sh, dt: _distributions.wald(self, m, s, sh, dt))

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None):
        """Gamma(shape, 1) samples: Marsaglia and Tsang's method (numpy's
        standard_gamma; out= a resident array of the samples' shape and
        dtype)."""
        who = "Generator.standard_gamma"

        def f(k, sh, dt):
            if out is None:
                return _distributions.standard_gamma(self, k, sh, dt)
            tgt = _target(sh if sh is not None or size is not None else tuple(out.shape),
                          dt, out, who)
            tgt[...] = _distributions.standard_gamma(self, k, tuple(tgt.shape), dt)
            return tgt
        return self._draw(who, dtype, size, (("shape", shape, "nonneg"),), f)

    def gamma(self, shape, scale=1.0, size=None, *, dtype=np.float64):
        """Gamma(shape, scale) samples (numpy's gamma)."""
        return self._draw("Generator.gamma", dtype, size,
                          (("shape", shape, "nonneg"), ("scale", scale, "nonneg")),
                          lambda k, s, sh, dt: _distributions.standard_gamma(self, k, sh, dt) * s)

    def chisquare(self, df, size=None, *, dtype=np.float64):
        """Chi-square samples of df degrees of freedom, 2 Gamma(df / 2)."""
        return self._draw("Generator.chisquare", dtype, size, (("df", df, "pos"),),
                          lambda d, sh, dt: _distributions.standard_gamma(self, d * 0.5, sh,
                                                                          dt) * 2.0)

    def standard_t(self, df, size=None, *, dtype=np.float64):
        """Student's t samples of df degrees of freedom (numpy's standard_t)."""
        def f(d, sh, dt):
            num = self.standard_normal(sh, dt)
            g = _distributions.standard_gamma(self, d * 0.5, sh, dt)
            return _ufunc.sqrt(d * 0.5) * num / _ufunc.sqrt(g) if not isinstance(d, float) \
                else math.sqrt(d * 0.5) * num / _ufunc.sqrt(g)
        return self._draw("Generator.standard_t", dtype, size, (("df", df, "pos"),), f)

    def beta(self, a, b, size=None, *, dtype=np.float64):
        """Beta(a, b) samples (numpy's beta: Johnk's method for a, b <= 1)."""
        return self._draw("Generator.beta", dtype, size, (("a", a, "pos"), ("b", b, "pos")),
                          lambda a_, b_, sh, dt: _distributions.beta(self, a_, b_, sh, dt))

    def f(self, dfnum, dfden, size=None, *, dtype=np.float64):
        """F (Fisher-Snedecor) samples (numpy's f)."""
        def f(d1, d2, sh, dt):
            c1 = _distributions.standard_gamma(self, d1 * 0.5, sh, dt) * 2.0
            c2 = _distributions.standard_gamma(self, d2 * 0.5, sh, dt) * 2.0
            return (c1 * d2) / (c2 * d1)
        return self._draw("Generator.f", dtype, size,
                          (("dfnum", dfnum, "pos"), ("dfden", dfden, "pos")), f)

    def poisson(self, lam=1.0, size=None):
        """int64 Poisson samples of mean lam (numpy's poisson: PTRS from
        lam = 10, the multiplication method below)."""
        return self._draw("Generator.poisson", np.float64, size, (("lam", lam, "lam"),),
                          lambda m, sh, dt: _distributions.poisson(self, m, sh))

    def binomial(self, n, p, size=None):
        """int64 binomial samples of n trials of probability p (numpy's
        binomial; n truncated to an integer as NumPy casts it)."""
        def f(n_, p_, sh, dt):
            return _distributions.binomial(self, _ufunc.trunc(n_) if not isinstance(n_, float)
                                           else float(math.trunc(n_)), p_, sh)
        return self._draw("Generator.binomial", np.float64, size,
                          (("n", n, "count"), ("p", p, "p01")), f)

    def negative_binomial(self, n, p, size=None):
        """int64 negative binomial samples, Poisson(Gamma(n, (1 - p) / p))
        (numpy's negative_binomial)."""
        return self._draw("Generator.negative_binomial", np.float64, size,
                          (("n", n, "pos_notnan"), ("p", p, "p01_gt")),
                          lambda n_, p_, sh, dt: _distributions.negative_binomial(self, n_, p_,
                                                                                  sh))

    def multinomial(self, n, pvals, size=None):
        """int64 counts of n draws over the categories of pvals (the last
        axis; the last category takes what the others leave), of shape
        size + (k,) (numpy's multinomial, by its conditional binomials)."""
        who = "Generator.multinomial"
        pv = np.asarray(pvals.numpy() if isinstance(pvals, _array.ndarray) else pvals,
                        dtype=np.float64)
        if pv.ndim == 0 or pv.shape[-1] == 0:
            raise ValueError(f"{who}: pvals must have at least 1 dimension and the last "
                             f"dimension of pvals must be greater than 0.")
        if not ((pv >= 0) & (pv <= 1)).all():
            raise ValueError(f"{who}: pvals < 0, pvals > 1 or pvals contains NaNs")
        if (pv[..., :-1].sum(axis=-1) > 1.0 + 1e-12).any():
            raise ValueError(f"{who}: sum(pvals[:-1]) > 1.0")
        nv, ns = _param(n, who, "n", _F64)
        _constrain(who, "n", nv, "count")
        nv = _ufunc.trunc(nv) if not isinstance(nv, float) else float(math.trunc(nv))
        batch = _param_shape(size, (ns, pv.shape[:-1]), who) or ()
        return _distributions.multinomial(self, nv, pv, tuple(batch))

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                            method="svd", dtype=np.float64):
        """Samples of the normal distribution of mean (k,) and covariance
        cov (k, k), of shape size + (k,) (numpy's multivariate_normal: its
        methods, checks and messages). The factor of cov (svd, eigh or
        cholesky) is NumPy's, on the host (cov is a parameter, k x k); the
        samples are mean + z @ factor.T on the device, z standard normal."""
        import warnings
        who = "Generator.multivariate_normal"
        dt = _float_dtype(dtype, who)
        m = np.asarray(mean.numpy() if isinstance(mean, _array.ndarray) else mean, np.float64)
        c = np.asarray(cov.numpy() if isinstance(cov, _array.ndarray) else cov, np.float64)
        if m.ndim != 1:
            raise ValueError(f"{who}: mean must be 1 dimensional")
        if c.ndim != 2 or c.shape[0] != c.shape[1]:
            raise ValueError(f"{who}: cov must be 2 dimensional and square")
        if m.shape[0] != c.shape[0]:
            raise ValueError(f"{who}: mean and cov must have same length")
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError(f"{who}: method must be one of {{'svd', 'eigh', 'cholesky'}}, "
                             f"got {method!r}")
        shape = _size(size, who) + (m.shape[0],)
        if method == "svd":
            u, sv, vh = np.linalg.svd(c)
        elif method == "eigh":
            sv, u = np.linalg.eigh(c)
        else:
            factor = np.linalg.cholesky(c)
        if check_valid != "ignore" and method != "cholesky":
            if check_valid not in ("warn", "raise"):
                raise ValueError(f"{who}: check_valid must equal 'warn', 'raise', or 'ignore'")
            psd = np.allclose(np.dot(vh.T * sv, vh), c, rtol=tol, atol=tol) \
                if method == "svd" else not np.any(sv < -tol)
            if not psd:
                if check_valid == "warn":
                    warnings.warn("covariance is not symmetric positive-semidefinite.",
                                  RuntimeWarning, stacklevel=2)
                else:
                    raise ValueError(f"{who}: covariance is not symmetric "
                                     f"positive-semidefinite.")
        if method == "svd":
            factor = u * np.sqrt(sv)
        elif method == "eigh":
            factor = u * np.sqrt(np.abs(sv))
        z = self.standard_normal(shape, dt)
        f = _array.asarray(np.ascontiguousarray(factor.T.astype(dt)))
        return (z @ f) + _array.asarray(m.astype(dt))

    def dirichlet(self, alpha, size=None, *, dtype=np.float64):
        """Dirichlet samples of concentrations alpha (1-d, k of them), of
        shape size + (k,) (numpy's dirichlet)."""
        who = "Generator.dirichlet"
        dt = _float_dtype(dtype, who)
        a = np.asarray(alpha.numpy() if isinstance(alpha, _array.ndarray) else alpha,
                       dtype=np.float64)
        if a.ndim != 1:
            raise ValueError(f"{who}: alpha= must be one-dimensional, got shape {a.shape}")
        if (a < 0).any():
            raise ValueError(f"{who}: alpha < 0")
        return _distributions.dirichlet(self, a, _size(size, who), dt)

    def noncentral_chisquare(self, df, nonc, size=None, *, dtype=np.float64):
        """Noncentral chi-square samples (numpy's noncentral_chisquare)."""
        return self._draw("Generator.noncentral_chisquare", dtype, size,
                          (("df", df, "pos"), ("nonc", nonc, "nonneg")),
                          lambda d, c, sh, dt: _distributions.noncentral_chisquare(self, d, c, sh,
                                                                                   dt))

    def noncentral_f(self, dfnum, dfden, nonc, size=None, *, dtype=np.float64):
        """Noncentral F samples (numpy's noncentral_f)."""
        def f(d1, d2, c, sh, dt):
            t = _distributions.noncentral_chisquare(self, d1, c, sh, dt) * d2
            return t / (_distributions.standard_gamma(self, d2 * 0.5, sh, dt) * 2.0 * d1)
        return self._draw("Generator.noncentral_f", dtype, size,
                          (("dfnum", dfnum, "pos"), ("dfden", dfden, "pos"),
                           ("nonc", nonc, "nonneg")), f)

    def vonmises(self, mu, kappa, size=None, *, dtype=np.float64):
        """von Mises (circular normal) samples in [-pi, pi] (numpy's vonmises)."""
        return self._draw("Generator.vonmises", dtype, size,
                          (("mu", mu, None), ("kappa", kappa, "nonneg")),
                          lambda m, k, sh, dt: _distributions.vonmises(self, m, k, sh, dt))

    def logseries(self, p, size=None):
        """int64 logarithmic series samples (numpy's logseries)."""
        return self._draw("Generator.logseries", np.float64, size, (("p", p, "p01_lt"),),
                          lambda p_, sh, dt: _distributions.logseries(self, p_, sh))

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        """int64 counts of good items in nsample drawn without replacement
        from ngood good and nbad bad ones (numpy's hypergeometric: the urn
        below 10 draws, Stadlober's HRUA above; counts truncated to
        integers as NumPy casts them)."""
        who = "Generator.hypergeometric"

        def f(g, b, s, sh, dt):
            g, b, s = (float(math.trunc(v)) if isinstance(v, float) else _ufunc.trunc(v)
                       for v in (g, b, s))
            if _bad((g + b) < s):
                raise ValueError(f"{who}: ngood + nbad < nsample")
            if _bad((g >= 1e9) | (b >= 1e9) if not isinstance(g + b, float) else
                    g >= 1e9 or b >= 1e9):
                raise ValueError(f"{who}: both ngood and nbad must be less than 1000000000")
            return _distributions.hypergeometric(self, g, b, s, sh)
        return self._draw(who, np.float64, size,
                          (("ngood", ngood, "count"), ("nbad", nbad, "count"),
                           ("nsample", nsample, "count")), f)

    def zipf(self, a, size=None):
        """int64 Zipf samples of exponent a > 1 (numpy's zipf)."""
        return self._draw("Generator.zipf", np.float64, size, (("a", a, "gt1"),),
                          lambda a_, sh, dt: _distributions.zipf(self, a_, sh))

    def geometric(self, p, size=None):
        """int64 geometric samples (trials to the first success, >= 1) of
        probability p (numpy's geometric)."""
        return self._draw("Generator.geometric", np.float64, size, (("p", p, "p01_gt"),),
                          lambda p_, sh, dt: _distributions.geometric(self, p_, sh))

    def _order(self, n):
        """A uniformly random permutation of range(n) (int64, resident):
        the stable argsort of n random 64-bit words (two of them equal
        with probability below n^2 / 2^65)."""
        from . import _sort
        if n == 0:
            return _array.empty((0,), np.int64)
        return _sort.argsort(self.bit_generator.random_raw(n), kind="stable")

    def permutation(self, x, axis=0):
        """numpy.random.Generator.permutation: a permuted arange(x) for an
        int x, else a copy of x with its slices along `axis` permuted."""
        if isinstance(x, numbers.Integral) and not isinstance(x, bool):
            if x < 0:
                raise ValueError("Generator.permutation: x must be a non-negative integer")
            return self._order(int(x))
        a = x if isinstance(x, _array.ndarray) else _array.asarray(np.asarray(x))
        if a.ndim == 0:
            raise IndexError("Generator.permutation: x must be an integer or at least "
                             "1-dimensional")
        axis = _axis(axis, a.ndim)
        return _take(a, self._order(a.shape[axis]), axis)

    def shuffle(self, x, axis=0):
        """numpy.random.Generator.shuffle: permutes x's slices along `axis`
        in place (a resident array, or a writable NumPy array)."""
        if not isinstance(x, (_array.ndarray, np.ndarray)) or x.ndim == 0:
            raise TypeError("Generator.shuffle: x must be an array of at least one dimension")
        axis = _axis(axis, x.ndim)
        perm = self._order(x.shape[axis])
        if isinstance(x, np.ndarray):
            x[...] = np.take(x, perm.numpy(), axis=axis)
        else:
            x[...] = _take(x, perm, axis)

    def permuted(self, x, *, axis=None, out=None):
        """numpy.random.Generator.permuted: x with each slice along `axis`
        shuffled independently of the others (axis None: the flattened
        array as one slice, reshaped back); a new array, or written into
        out= (x itself shuffles in place). Each slice's order is the stable
        argsort of random 64-bit words along it."""
        from . import _sort
        who = "Generator.permuted"
        host = not isinstance(x, _array.ndarray)
        a = _array.asarray(np.asarray(x)) if host else x
        if out is not None and tuple(out.shape) != tuple(a.shape):
            raise ValueError(f"{who}: out= must have the same shape as x")
        if a.size == 0:
            r = a.copy()
        else:
            flat = axis is None
            v = a.reshape(-1) if flat else a
            ax = 0 if flat else _axis(axis, a.ndim)
            keys = self.bit_generator.random_raw(v.size).reshape(v.shape)
            order = _sort.argsort(keys, axis=ax, kind="stable")
            r = _array._ops.take_along_axis(v, order, axis=ax)
            r = r.reshape(a.shape) if flat else r
        if out is not None:
            if isinstance(out, np.ndarray):
                out[...] = r.numpy()
            else:
                out[...] = r
            return out
        return r.numpy() if host else r

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """numpy.random.Generator.choice: samples of arange(a) for an int a,
        else slices of a along `axis`; with replace=False each at most
        once, with p= by those probabilities (without replacement by
        exponential keys, Efraimidis and Spirakis: a weighted draw, not
        NumPy's stream). A scalar for size=None, as NumPy."""
        from . import _sort
        who = "Generator.choice"
        if isinstance(a, numbers.Integral) and not isinstance(a, bool):
            if a <= 0 and not (a == 0 and size is not None and math.prod(_size(size, who)) == 0):
                raise ValueError(f"{who}: a must be a positive integer unless no samples are "
                                 f"taken")
            n, pop = int(a), None
        else:
            pop = a if isinstance(a, _array.ndarray) else _array.asarray(np.asarray(a))
            if pop.ndim == 0:
                raise ValueError(f"{who}: a must be a sequence or an integer, not a 0-d array")
            axis = _axis(axis, pop.ndim)
            n = pop.shape[axis]
        shape = () if size is None else _size(size, who)
        k = math.prod(shape)
        if n == 0 and k:
            raise ValueError(f"{who}: a cannot be empty unless no samples are taken")
        w = None
        if p is not None:
            w = np.asarray(p.numpy() if isinstance(p, _array.ndarray) else p, np.float64)
            if w.ndim != 1:
                raise ValueError(f"{who}: p must be 1-dimensional")
            if w.size != n:
                raise ValueError(f"{who}: a and p must have same size")
            if not np.isfinite(w).all() or (w < 0).any():
                raise ValueError(f"{who}: probabilities are not non-negative")
            if abs(w.sum() - 1.0) > np.sqrt(np.finfo(np.float64).eps):
                raise ValueError(f"{who}: probabilities do not sum to 1")
        if not replace and k > n:
            raise ValueError(f"{who}: Cannot take a larger sample than population when "
                             f"replace is False")
        if not replace and w is not None and k > np.count_nonzero(w):
            raise ValueError(f"{who}: Fewer non-zero entries in p than size")
        if replace and w is None:
            idx = self.integers(0, n, k) if n else _array.empty((0,), np.int64)
        elif replace:
            cdf = np.cumsum(w)
            cdf /= cdf[-1]
            u = self.random(k)
            idx = _sort.searchsorted(_array.asarray(cdf), u, side="right")
            idx = _ufunc.minimum(idx, n - 1)  # u * (1 + rounding) past the last edge
        elif w is None:
            idx = self._order(n)[:k]
        else:
            # the k smallest of E_i / p_i (E exponential): P(i first) = p_i
            keys = _ufunc.divide(self.standard_exponential(n), _array.asarray(w))
            idx = _sort.argsort(keys, kind="stable")[:k]
        idx = idx.reshape(shape)
        if pop is None:
            return idx if size is not None else int(idx.get())
        r = _take(pop, idx.reshape(-1), axis)
        r = r.reshape(pop.shape[:axis] + shape + pop.shape[axis + 1:])
        return r if size is not None else (r.get()[()] if r.ndim == 0 else r)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Integers in [low, high) ([low, high] with endpoint=True); with
        high=None, in [0, low). One word per value: low + floor(word * span /
        2^64) (Lemire's multiply without rejection; its bias is below
        span / 2^64). dtype=bool draws from [0, 1] as NumPy does
        (integers(2, dtype=bool)). low and high are integers, or arrays of
        integers (NumPy, lists or resident) that broadcast with each other
        and with size=, as NumPy's: each element has its own bounds; the
        bounds are checked and their spans computed on the host (a
        resident array of bounds is downloaded for that)."""
        who = "Generator.integers"
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"{who}: dtype= must be an integer dtype, got {dtype!r}") from None
        if dt.kind not in "iub" or dt not in _array.DTYPES:
            raise TypeError(f"{who}: dtype= must be an integer dtype VulPy supports, or bool, "
                            f"got {dt.name}")
        if np.ndim(low) or (high is not None and np.ndim(high)):
            return self._integers_bounds(low, high, size, dt, endpoint)
        _check_int(low, who, "low")
        if high is None:
            low, high = 0, low
        else:
            _check_int(high, who, "high")
        low, high = int(low), int(high)
        top = high if endpoint else high - 1
        if top < low:
            raise ValueError(f"{who}: low= must be {'<=' if endpoint else '<'} high=, got "
                             f"low={low}, high={high}")
        info = np.iinfo(dt) if dt.kind != "b" else np.iinfo(np.uint8)
        if dt.kind == "b" and (low < 0 or top > 1):
            raise ValueError(f"{who}: [{low}, {top}] does not fit in bool ([0, 1])")
        if low < info.min or top > info.max:
            raise ValueError(f"{who}: [{low}, {top}] does not fit in {dt.name} "
                             f"([{info.min}, {info.max}])")
        span = (top - low + 1) & _MASK64  # 0 means all 2^64 values
        shape = _size(size, who)
        n = math.prod(shape)
        out = _array.empty(shape, np.int64)
        bg, k = self.bit_generator, _kernels()
        ctr, skip, nb = bg._take(n)
        if n:
            _launch(k.integers_i64, out, nb, skip=skip, n=n, low=low & _MASK64, span=span,
                    **bg._push(ctr))
        return out if dt == np.dtype(np.int64) else out.astype(dt)

    def _integers_bounds(self, low, high, size, dt, endpoint):
        """integers() with arrays of bounds (NumPy's broadcasting, checks
        and messages)."""
        who = "Generator.integers"

        def host(v, name):
            h = v.numpy() if isinstance(v, _array.ndarray) else np.asarray(v)
            if h.dtype.kind not in "iu":
                raise TypeError(f"{who}: {name}= must be integers, got an array of "
                                f"{h.dtype.name}")
            return h
        lo = host(low, "low")
        if high is None:
            lo, hi = np.zeros((), np.int64), lo
        else:
            hi = host(high, "high")
        try:
            shape = np.broadcast_shapes(lo.shape, hi.shape, *(
                () if size is None else (_size(size, who),)))
        except ValueError:
            raise ValueError(f"{who}: low= {lo.shape}, high= {hi.shape} and size= {size} "
                             f"cannot be broadcast to a single shape") from None
        if size is not None and shape != _size(size, who):
            raise ValueError(f"{who}: low= {lo.shape} and high= {hi.shape} do not broadcast "
                             f"to size= {_size(size, who)}")
        info = np.iinfo(dt) if dt.kind != "b" else np.iinfo(np.uint8)
        top_max = 1 if dt.kind == "b" else info.max
        e = 1 if endpoint else 0
        # (NumPy 2 compares int64 with uint64 and with Python ints exactly)
        if lo.size and hi.size:
            if (lo < info.min).any() or (lo > top_max).any():
                raise ValueError(f"{who}: low is out of bounds for {dt.name}")
            if (hi > top_max + 1 - e).any() or (hi < info.min + 1 - e).any():
                raise ValueError(f"{who}: high is out of bounds for {dt.name}")
            if (np.less(hi, lo) if endpoint else np.less_equal(hi, lo)).any():
                raise ValueError(f"{who}: low {'>' if endpoint else '>='} high")
        n = math.prod(shape)
        out = _array.empty(shape, np.int64)
        if n:
            # in the dtype's range now: uint64 words, arithmetic mod 2^64
            # (a span of 0 is all 2^64 values)
            lows = np.broadcast_to(lo, shape).astype(np.uint64)
            spans = np.broadcast_to(hi, shape).astype(np.uint64) - lows + np.uint64(e)
            bg, k = self.bit_generator, _kernels()
            ctr, skip, nb = bg._take(n)
            bufs = (_array.asarray(lows, context=out._ctx),
                    _array.asarray(spans, context=out._ctx))
            _launch(k.integers_i64_bounds, out, nb, bufs=bufs, skip=skip, n=n, **bg._push(ctr))
        return out if dt == np.dtype(np.int64) else out.astype(dt)


def _axis(axis, ndim):
    """axis as a non-negative index of ndim axes (NumPy's AxisError)."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _take(a, idx, axis):
    """a's slices along `axis` at resident int64 `idx` (a new array)."""
    from . import _indexing
    return _indexing.take(a, idx, axis=axis)


_MASK32 = 0xFFFFFFFF


def _fold32(upper):
    """(x2, x3 without its low bit) of Philox4x32 counters: the 192 bits of
    a block counter above its low word, folded to 63 (the jumped() streams,
    2^128 blocks apart, differ in the low word of d2, which x2 keeps
    whole)."""
    d1, d2, d3 = upper & _MASK64, (upper >> 64) & _MASK64, upper >> 128
    x2 = (d2 & _MASK32) ^ (d1 >> 32)
    x3 = (d1 ^ (d2 >> 32) ^ d3 ^ (d3 >> 32)) & _MASK32
    return x2, (x3 << 1) & _MASK32


def _normal32_push(ctr, key, nb):
    """Push constants of normal_f32(_v4) for nb blocks from counter ctr:
    float32 normals come from Philox4x32-10, four per output (the
    kernels' normal4), on a 64-bit fold of the 128-bit key and the counter
    of the Philox4x64 block they stand for, so a call still uses whole
    blocks of the stream and its samples depend on (key, block) alone."""
    k0, k1 = key
    d0, upper = ctr & _MASK64, ctr >> 64
    f2, f3 = _fold32(upper)
    f2w, f3w = _fold32((upper + 1) & ((1 << 192) - 1))
    first_wrap = (1 << 64) - d0  # the first block whose low word wraps to 0
    return dict(k0=(k0 ^ (k1 >> 32)) & _MASK32, k1=((k0 >> 32) ^ k1) & _MASK32,
                c0=d0 & _MASK32, c1=d0 >> 32, f2=f2, f3=f3, f2w=f2w, f3w=f3w,
                wrap=first_wrap if first_wrap < nb else _MASK32)


def _normal32_scaled(gen, shape, scale, loc):
    """float32 loc + scale * standard_normal(shape) of `gen` in one
    dispatch of the vec4 kernels, or None where n is not a multiple of 4
    (the caller scales standard_normal's result)."""
    if shape is None:
        return None
    n = math.prod(shape)
    if n == 0 or n % 4:
        return None
    arr = _target(shape, _F32, None, "Generator.normal")
    ctr = gen.bit_generator._fresh_blocks((n + 7) // 8)
    push = _normal32_push(ctr, gen.bit_generator._key, (n + 7) // 8)
    _normal32_v4(arr, n // 4, dict(push, scale=scale, loc=loc, affine=1),
                 _normal32_path(arr._ctx))
    return arr


def _normal32_v4(arr, n4, push, path):
    """Launches the float32 normal kernel of `path` (NORMAL32_PATHS) for
    out = arr viewed as n4 vec4s."""
    kern, h, local, extra = _normal32_plan(n4, path)
    _launch(kern, arr, h, local=local, **extra, **push)


def _normal32_plan(n4, path):
    """(kernel, invocations, workgroup width, push constants of the shape)
    of path's launch for n4 vec4s (a 2-D grid past the x workgroup limit:
    _launch, whose `row` is then the invocations of a 1-D launch).
    bench/bench_random.py records these same launches."""
    per, local, math = _shape(path)
    h = -(-n4 // per)
    return _kernels().normal_f32_split(per, local, math), h, local, dict(n4=n4, h=h)


def _param(v, who, name, dt):
    """A distribution parameter: (float, ()) for a number, else (a resident
    array of dt, its shape)."""
    if isinstance(v, bool):
        raise TypeError(f"{who}: {name}= must be a real number or an array of them, got {v!r}")
    if isinstance(v, (numbers.Real, np.floating, np.integer)):
        return float(v), ()
    if isinstance(v, _array.ndarray):
        if v.dtype.kind not in "fiu":
            raise TypeError(f"{who}: {name}= must hold real numbers, got {v.dtype.name}")
        return (v if v.dtype == dt else v.astype(dt)), tuple(v.shape)
    try:
        h = np.asarray(v, dtype=dt)
    except (TypeError, ValueError):
        raise TypeError(f"{who}: {name}= must be a real number or an array of them, "
                        f"got {v!r}") from None
    if h.ndim == 0:
        return float(h), ()
    return _array.asarray(h), h.shape


def _param_shape(size, shapes, who):
    """The sample shape: size (which the parameters must broadcast to), or
    the parameters' broadcast shape; None when all are numbers and size is."""
    try:
        bshape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"{who}: the parameters' shapes {list(shapes)} do not "
                         f"broadcast") from None
    if size is None:
        return bshape if bshape else None
    shape = _size(size, who)
    try:
        ok = np.broadcast_shapes(shape, bshape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{who}: size= {shape} does not fit the parameters' shape {bshape}")
    return shape


def _non_negative(v, who, name):
    """NumPy's check of scale=: the sign bit, NaN aside (-0.0 is its
    ValueError too)."""
    if isinstance(v, float):
        bad = math.copysign(1.0, v) < 0 and not math.isnan(v)
    else:  # an array: one read back of a flag
        bad = bool(_reduce.any(_ufunc.signbit(v) & ~_ufunc.isnan(v)))
    if bad:
        got = v if isinstance(v, float) else "an array with negative values"
        raise ValueError(f"{who}: {name}= must be >= 0, got {got}")


_POISSON_LAM_MAX = 9.223372006484771e18  # NumPy's: INT64_MAX - 10 sqrt(INT64_MAX)


def _constrain(who, name, v, cons):
    """NumPy's check of a distribution parameter (its _common.pyx
    constraints and messages): numbers in Python, arrays on the device with
    one read back. cons None: any value."""
    if cons is None:
        return
    if cons in ("le", "ne"):  # triangular's pairs
        x, y = v
        bad = (x > y) if cons == "le" else (x == y)
        msg = {"left": "left > mode" if cons == "le" else "left == right",
               "mode": "mode > right"}[name]
    else:
        scalar = isinstance(v, float)
        isnan = math.isnan(v) if scalar else _ufunc.isnan(v)
        signbit = (math.copysign(1.0, v) < 0) if scalar else _ufunc.signbit(v)
        bad, msg = {
            "nonneg": (lambda: signbit & ~isnan if not scalar else signbit and not isnan,
                       f"{name} < 0"),
            "count": (lambda: signbit & ~isnan if not scalar else signbit and not isnan,
                      f"{name} < 0"),
            "pos": (lambda: (signbit | (v == 0)) & ~isnan if not scalar else
                    (signbit or v == 0) and not isnan, f"{name} <= 0"),
            "pos_notnan": (lambda: ~(v > 0), f"{name} <= 0"),
            "p01": (lambda: ~((v >= 0) & (v <= 1)), "p < 0, p > 1 or p is NaN"),
            "p01_gt": (lambda: ~((v > 0) & (v <= 1)), "p <= 0, p > 1 or p contains NaNs"),
            "lam": (lambda: ~(v >= 0), "lam < 0 or lam is NaN"),
            "p01_lt": (lambda: ~((v >= 0) & (v < 1)), "p < 0, p >= 1 or p is NaN"),
            "gt1": (lambda: ~(v > 1), f"{name} <= 1 or {name} is NaN"),
        }[cons]
        bad = bad() if not scalar or cons not in ("pos_notnan", "p01", "p01_gt", "lam", "p01_lt",
                                                  "gt1") else {
            "pos_notnan": not v > 0, "p01": not 0 <= v <= 1, "p01_gt": not 0 < v <= 1,
            "lam": not v >= 0, "p01_lt": not 0 <= v < 1, "gt1": not v > 1}[cons]
        if not _bad(bad) and cons == "lam":
            bad, msg = (v > _POISSON_LAM_MAX), "lam value too large"
        if cons == "count" and not _bad(bad) and (v > 2 ** 63 if scalar else
                                                 _bad(v >= 2.0 ** 63)):
            raise ValueError(f"{who}: {name}= does not fit int64")
    if _bad(bad):
        if not isinstance(v, (float, tuple)):  # NumPy's wording for arrays
            msg = msg.replace("is NaN", "contains NaNs")
        raise ValueError(f"{who}: {msg}" + (f" (got {name}={v!r})" if isinstance(v, float) else ""))


def _bad(flag):
    return bool(flag) if isinstance(flag, (bool, np.bool_)) else bool(_reduce.any(flag))


def _affine(x, mul, add):
    """x * mul + add in place (mul, add numbers or resident arrays)."""
    if not isinstance(mul, float) or mul != 1.0:
        x *= mul
    if not isinstance(add, float) or add != 0.0:
        x += add
    return x


def _check_int(v, who, name):
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)):
        raise TypeError(f"{who}: {name}= must be an int, got {v!r}")


def default_rng(seed=None):
    """Generator(Philox(seed)) (NumPy's default_rng uses PCG64; VulPy's
    generator is Philox, counter-based, so NumPy's Generator(Philox(seed))
    is the stream to compare with). A Generator is returned as it is; a
    Philox is wrapped."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed)
    return Generator(Philox(seed))


# ----------------------------------------------------- CuPy's legacy helpers
_global = None


def _rng():
    global _global
    if _global is None:
        _global = default_rng()
    return _global


def seed(seed=None):
    """Reseeds the generator behind vp.random.rand, randn, ... (as
    cupy.random.seed; None draws OS entropy)."""
    global _global
    _global = default_rng(seed)


def rand(*size, dtype=np.float64):
    """Uniform [0, 1) of shape `size` (numpy.random.rand's spelling)."""
    return _rng().random(size, dtype)


def randn(*size, dtype=np.float64):
    """Standard normals of shape `size` (numpy.random.randn's spelling)."""
    return _rng().standard_normal(size, dtype)


def random_sample(size=None, dtype=np.float64):
    """Uniform [0, 1) (numpy.random.random_sample; also spelled ranf and
    sample)."""
    return _rng().random(size, dtype)


ranf = sample = random_sample


def _module_function(name):
    """numpy.random.<name> as a module function: Generator.<name> of the
    module's generator (vp.random.seed), with the method's signature and
    docstring."""
    method = getattr(Generator, name)

    def function(*args, **kwargs):
        return getattr(_rng(), name)(*args, **kwargs)
    sig = inspect.signature(method)
    function.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"numpy.random.{name} from the module's generator (vp.random.seed "
                        f"reseeds it): Generator.{name}.\n\n{inspect.getdoc(method)}")
    return function


_MODULE_FUNCTIONS = ("random", "uniform", "normal", "standard_normal", "exponential",
                     "standard_exponential", "integers", "permutation", "shuffle", "choice", "beta",
                     "binomial", "chisquare", "f", "gamma", "geometric", "gumbel", "laplace",
                     "logistic", "lognormal", "negative_binomial", "pareto", "poisson", "power",
                     "rayleigh", "standard_cauchy", "standard_gamma", "standard_t", "triangular",
                     "wald", "weibull", "noncentral_chisquare", "noncentral_f", "vonmises",
                     "hypergeometric", "logseries", "zipf", "multinomial", "multivariate_normal",
                     "dirichlet")
for _name in _MODULE_FUNCTIONS:
    globals()[_name] = _module_function(_name)
__all__ += _MODULE_FUNCTIONS


def randint(low, high=None, size=None, dtype=np.int64):
    """Integers in [low, high) (numpy.random.randint)."""
    return _rng().integers(low, high, size, dtype)
