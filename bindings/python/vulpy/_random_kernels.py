"""The kernels of vp.random (random.py), in VulPy's own kernel language.

Philox4x64-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
SC'11; the variant numpy.random.Philox implements): one output block of
four uint64 words is a pure function of a 256-bit counter and a 128-bit key,
so every invocation computes the block of its own counter (base + its id)
and no invocation keeps state. The host (random.py) tracks the stream
position and passes the first block's counter; the kernels add the
invocation id with carry across the four counter words, as NumPy's
philox_next does when it steps the counter.

The 64x64 -> 128-bit products Philox needs are made of four 32x32 -> 64-bit
products in uint64 arithmetic (mulhilo): GLSL's umulExtended is 32-bit only
and the kernel language has no 128-bit type. The multipliers are constants,
so their halves fold.

float32 normals are the exception: they need no NumPy stream, so they come
from Philox4x32-10 (philox32: 32-bit words, one wide multiply per product),
four per invocation (normal4), and Box-Muller without int -> float
conversions (unit_u1, log_unit, sincos_quadrant: box_muller32);
docs/python-api.md, "Random numbers", gives the formulas and the accuracy,
docs/performance.md, "random", the reasons. The float32 normal kernels
(normal_f32_split, normal_f32 for n not a multiple of 4) take a math kind
(MATH_*): the exact math, the documented stream, or lean in a fast_math
kernel (box_muller32_lean: neg2log_split, the built-in log2 only below
u1 = 1/2, where it is relative-accurate, a polynomial above, with the
built-in sin / cos, cuRAND's accuracy class). random.py's NORMAL32_PATHS
name the two paths (v8 and lean:v32/128); the other shapes and math were
retired (bench/notes/random.md keeps their figures).

Every kernel writes the outputs of its invocation's block that fall inside
[0, n) of the call (the first block may be partly used already: `skip`
words, or 2*skip 32-bit halves, of it are before the call's first output).
"""
import vulpy as vp

PHILOX_M0: vp.uint64 = 0xD2E7470EE14C6C93
PHILOX_M1: vp.uint64 = 0xCA5A826395121157
PHILOX_W0: vp.uint64 = 0x9E3779B97F4A7C15
PHILOX_W1: vp.uint64 = 0xBB67AE8584CAA73B
LOW32: vp.uint64 = 0xFFFFFFFF
# 2^-53 and 2^-24: NumPy's next_double / next_float scales
INV53: vp.float64 = 1.1102230246251565e-16
INV24: vp.float32 = 5.9604644775390625e-08
PIO2_22: vp.float32 = 3.745070282923245e-07  # (pi / 2) / 2^22
TWO_PI64: vp.float64 = 6.283185307179586
PI32: vp.float32 = 3.1415927
PIO4_32: vp.float32 = 0.7853982
NEG2LN2: vp.float32 = -1.3862944  # -2 ln 2
# The math of a float32 normal kernel (random.py's paths; box_muller32_lean)
MATH_EXACT: vp.uint32 = 0
MATH_LEAN: vp.uint32 = 4
# Philox4x32-10's multipliers and key increments (Random123's, cuRAND's)
PHILOX32_M0: vp.uint64 = 0xD2511F53
PHILOX32_M1: vp.uint64 = 0xCD9E8D57
PHILOX32_W0: vp.uint32 = 0x9E3779B9
PHILOX32_W1: vp.uint32 = 0xBB67AE85


def mulhilo(a: vp.uint64, b: vp.uint64):
    """(high, low) 64-bit halves of the 128-bit product a * b, from four
    32 x 32 -> 64-bit products of the zero-extended 32-bit halves (the shape
    GPU compilers turn into one wide multiply-add each: NVIDIA's IMAD.WIDE)."""
    a0 = vp.uint64(vp.uint32(a & LOW32))
    a1 = vp.uint64(vp.uint32(a >> 32))
    b0 = vp.uint64(vp.uint32(b & LOW32))
    b1 = vp.uint64(vp.uint32(b >> 32))
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> 32) + (p01 & LOW32) + (p10 & LOW32)
    hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)
    return hi, (mid << 32) | (p00 & LOW32)


def philox(c0: vp.uint64, c1: vp.uint64, c2: vp.uint64, c3: vp.uint64,
            k0: vp.uint64, k1: vp.uint64):
    """Philox4x64-10 of counter (c0..c3) under key (k0, k1): NumPy's
    philox4x64_R with its round function and key schedule."""
    for _r in vp.static(range(10)):
        hi0, lo0 = mulhilo(PHILOX_M0, c0)
        hi1, lo1 = mulhilo(PHILOX_M1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0 = k0 + PHILOX_W0
        k1 = k1 + PHILOX_W1
    return c0, c1, c2, c3


def philox32(x0: vp.uint32, x1: vp.uint32, x2: vp.uint32, x3: vp.uint32,
             k0: vp.uint32, k1: vp.uint32):
    """Philox4x32-10 of counter (x0..x3) under key (k0, k1), Random123's
    philox4x32_R (cuRAND's curandStatePhilox4_32_10): the same round as
    philox above on 32-bit words. Each 32 x 32 -> 64-bit product is one
    uint64 multiply of zero-extended words (NVIDIA's IMAD.WIDE.U32: high
    and low halves in one instruction), four times cheaper per output word
    than Philox4x64's emulated 64 x 64 -> 128-bit products."""
    for _r in vp.static(range(10)):
        p0 = PHILOX32_M0 * vp.uint64(x0)
        p1 = PHILOX32_M1 * vp.uint64(x2)
        x0, x1, x2, x3 = (vp.uint32(p1 >> 32) ^ x1 ^ k0, vp.uint32(p1 & LOW32),
                          vp.uint32(p0 >> 32) ^ x3 ^ k1, vp.uint32(p0 & LOW32))
        k0 = k0 + PHILOX32_W0
        k1 = k1 + PHILOX32_W1
    return x0, x1, x2, x3


def invocation_id(row: vp.uint32):
    """The invocation's index: x + y * row (a 2-D grid where the device
    limits the x workgroup count: lavapipe's 65535 groups)."""
    return vp.global_id(0) + vp.global_id(1) * row


def invocation_block(g: vp.uint32, k0: vp.uint64, k1: vp.uint64, c0: vp.uint64,
                     c1: vp.uint64, c2: vp.uint64, c3: vp.uint64):
    """The block of invocation g: counter (c0..c3) + g, with carry."""
    d0 = c0 + vp.uint64(g)
    cy1 = vp.uint64(1) if d0 < c0 else vp.uint64(0)
    d1 = c1 + cy1
    cy2 = vp.uint64(1) if d1 < cy1 else vp.uint64(0)
    d2 = c2 + cy2
    cy3 = vp.uint64(1) if d2 < cy2 else vp.uint64(0)
    return philox(d0, d1, d2, c3 + cy3, k0, k1)


def log_unit(x: vp.float32):
    """log x for x in [2^-24, 1]: the math library's vp_log (math.md) without
    its subnormal, zero, negative and infinite cases, which Box-Muller's u1
    never is (the same polynomial, so the same value)."""
    b = vp.bitcast(x, vp.uint32)
    e = vp.int32(b - 0x3F2AAAAB) >> 23
    f = vp.bitcast(b - (vp.uint32(e) << 23), vp.float32) - 1.0
    # float(e) without a conversion: e in the low bits of 1.5 2^23
    fe = vp.bitcast(e + 0x4B400000, vp.float32) - 12582912.0
    p = f * f * vp.fma(f, vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(
        -0.107905899, f, 0.117326878), f, -0.0973790068), f, 0.108294673), f, -0.125110807),
        f, 0.142976186), f, -0.166665048), f, 0.199998261), f, -0.250000004), f,
        0.333333337), -0.5)
    return vp.fma(fe, 0.693145752, f) + vp.fma(fe, 1.42860677e-6, p)


def unit_u1(a: vp.uint32):
    """Box-Muller's u1 = ((a >> 8) + 1) 2^-24 in (0, 1] from the word a,
    without an int -> float conversion (a quarter-rate instruction on
    NVIDIA GPUs): 1.b23..b9 - 1 (exact) plus 2^-24 or 2^-23 for bit 8 (the
    exponent field of 2^-24 raised by that bit)."""
    return (vp.bitcast(0x3F800000 | (a >> 9), vp.float32) - 1.0) + \
        vp.bitcast(0x33800000 + ((a & 0x100) << 15), vp.float32)


def neg2log_split(u1: vp.float32):
    """-2 log u1 for u1 in [2^-24, 1] (the "split" log of the lean path):
    below 1/2 the device's built-in log2 times -2 ln 2 (there
    |log2 u1| >= 1, where Vulkan bounds log2 by 3 ulp relative: NVIDIA's is
    within 2^-22.6 absolute everywhere); from 1/2 up a polynomial in
    f = u1 - 1 in [-1/2, 0] (exact by Sterbenz), f (-2 + f c1 + ... + f^8 c8),
    a minimax fit of -2 log1p(f) / f (relative 2.4e-8; within 1.9 ulp of
    -2 log u1 in float32 over every u1 of the stream there, 2.1 with fma
    unfused as on lavapipe). No exponent
    reduction and no split ln 2: 14 instructions against log_unit's 23."""
    f = u1 - 1.0
    p = f * vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(vp.fma(
        -2.8291003704071045, f, -3.279188871383667), f, -2.41743540763855), f,
        -0.36190763115882874), f, -0.5273825526237488), f, 0.48736512660980225), f,
        -0.6672642230987549), f, 0.9999904632568359), f, -2.0)
    return vp.log2(u1) * NEG2LN2 if u1 < 0.5 else p


def sincos_quadrant(b: vp.uint32, r: vp.float32):
    """(r cos theta, r sin theta) for the angle of the top 24 bits m of b:
    quadrant q = m >> 22 (b's top two bits) and y = ((m & (2^22 - 1)) -
    2^21) (pi/2) 2^-22 in [-pi/4, pi/4), theta = q pi/2 + y (uniform on the
    circle: 2 pi m 2^-24 turned by -pi/4). sin y and cos y are the
    polynomials of the math library's vp_sincos on |y| <= pi/4 (math.md),
    without its range reduction: the quadrant comes from the bits, and one
    y serves both. y's integer is the low bits of 1.5 2^23 (exact below
    2^22): no conversion."""
    y = (vp.bitcast(0x4B400000 | ((b >> 8) & 0x3FFFFF), vp.float32) - 14680064.0) * PIO2_22
    z = y * y
    s = vp.fma(y * z, vp.fma(vp.fma(-1.95777214e-4, z, 0.00833270025), z, -0.166666644), y)
    c = vp.fma(z, vp.fma(z, vp.fma(vp.fma(2.45377508e-5, z, -0.00138882549), z,
                                   0.0416666644), -0.5), 1.0)
    # (cos, sin) of q pi/2 + y: (c, s), (-s, c), (-c, -s), (s, -c): odd q
    # (bit 30 of b) swaps the two; the signs are sign bits put on r: sin < 0
    # for q = 2, 3 (bit 31 of b), cos < 0 for q = 1, 2 (bit 31 of b + 2^30)
    odd = (b & 0x40000000) != 0
    cq = s if odd else c
    sq = c if odd else s
    rb = vp.bitcast(r, vp.uint32)
    rc = vp.bitcast(rb ^ ((b + 0x40000000) & 0x80000000), vp.float32)
    rs = vp.bitcast(rb ^ (b & 0x80000000), vp.float32)
    return rc * cq, rs * sq


def sincos_builtin(b: vp.uint32, r: vp.float32):
    """sincos_quadrant's angle, theta = 2 pi m 2^-24 - pi / 4 for m = b >> 8,
    with the device's built-in sin and cos (a fast_math kernel): the top
    bit of b picks the half circle (a sign flip of r) and its next 23 bits
    f in [0, 1) the angle pi f - pi / 4, no conversion. On NVIDIA the
    built-ins are the special-function unit's (absolute error about 2^-21
    on [-pi, pi], cuRAND's __sincosf): r times that, absolute, in z."""
    f = vp.bitcast(0x3F800000 | ((b >> 8) & 0x7FFFFF), vp.float32) - 1.0
    th = vp.fma(f, PI32, -PIO4_32)
    rr = vp.bitcast(vp.bitcast(r, vp.uint32) ^ (b & 0x80000000), vp.float32)
    return rr * vp.cos(th), rr * vp.sin(th)


def box_muller32(a: vp.uint32, b: vp.uint32):
    """Two standard normals from two 32-bit words, the documented stream:
    r = sqrt(-2 log u1) (unit_u1, log_unit), the angle of sincos_quadrant.
    Every operation is the math library's own polynomial or an exact bit
    operation, so every device writes the same values (to its sqrt and
    fma)."""
    return sincos_quadrant(b, vp.sqrt(-2.0 * log_unit(unit_u1(a))))


def normal4_words(t: vp.uint32, k0: vp.uint32, k1: vp.uint32, c0: vp.uint32,
                  c1: vp.uint32, f2: vp.uint32, f3: vp.uint32, f2w: vp.uint32,
                  f3w: vp.uint32, wrap: vp.uint32):
    """The four Philox4x32-10 words behind invocation t's four normals
    (normal4 says which counter and key; normal4 and normal4_lean share
    them, so every path draws the same words)."""
    g = t >> 1
    lo = c0 + g
    hi = c1 + (vp.uint32(1) if lo < g else vp.uint32(0))
    w = g >= wrap
    x2 = f2w if w else f2
    x3 = (f3w if w else f3) | (t & 1)
    return philox32(lo, hi, x2, x3, k0, k1)


def normal4(t: vp.uint32, k0: vp.uint32, k1: vp.uint32, c0: vp.uint32, c1: vp.uint32,
            f2: vp.uint32, f3: vp.uint32, f2w: vp.uint32, f3w: vp.uint32, wrap: vp.uint32):
    """The four float32 normals of invocation t: half j = t & 1 of Philox4x64
    block g = t >> 1 of the call (counter D = C + g), made by Philox4x32-10
    of the 128-bit counter (D's low word, fold of D's upper words, j) under
    the 64-bit fold of the key (random.py computes the folds and the key),
    then Box-Muller on the word pairs (x0, x1) and (x2, x3). The low word of
    D wraps into the upper words at g >= wrap: their fold is then (f2w,
    f3w)."""
    y0, y1, y2, y3 = normal4_words(t, k0, k1, c0, c1, f2, f3, f2w, f3w, wrap)
    z0, z1 = box_muller32(y0, y1)
    z2, z3 = box_muller32(y2, y3)
    return z0, z1, z2, z3


def box_muller32_lean(a: vp.uint32, b: vp.uint32):
    """box_muller32's words in a fast_math kernel (MATH_LEAN): r from
    neg2log_split, the angle by the built-in sin / cos."""
    return sincos_builtin(b, vp.sqrt(neg2log_split(unit_u1(a))))


def normal4_lean(t: vp.uint32, k0: vp.uint32, k1: vp.uint32, c0: vp.uint32, c1: vp.uint32,
                 f2: vp.uint32, f3: vp.uint32, f2w: vp.uint32, f3w: vp.uint32,
                 wrap: vp.uint32):
    """normal4's words through box_muller32_lean."""
    y0, y1, y2, y3 = normal4_words(t, k0, k1, c0, c1, f2, f3, f2w, f3w, wrap)
    z0, z1 = box_muller32_lean(y0, y1)
    z2, z3 = box_muller32_lean(y2, y3)
    return z0, z1, z2, z3


def scaled4(z0: vp.float32, z1: vp.float32, z2: vp.float32, z3: vp.float32,
            scale: vp.float32, loc: vp.float32, affine: vp.uint32):
    """The vec4 of four normals, times scale plus loc where affine is 1
    (Generator.normal with number loc and scale: one pass over the output,
    not three). The device may fuse the two operations into one fma."""
    v = vp.vec4(z0, z1, z2, z3)
    if affine == 1:
        v = v * scale + loc
    return v


def put_normal4(out: vp.Buffer[vp.vec4], u: vp.uint32, n4: vp.uint32, k0: vp.uint32,
                k1: vp.uint32, c0: vp.uint32, c1: vp.uint32, f2: vp.uint32, f3: vp.uint32,
                f2w: vp.uint32, f3w: vp.uint32, wrap: vp.uint32, scale: vp.float32,
                loc: vp.float32, affine: vp.uint32):
    """out[u] = the four normals of slot u (normal4_of: the kernel's math),
    scaled, where u < n4: the body every launch shape repeats."""
    z0, z1, z2, z3 = normal4_of(u, k0, k1, c0, c1, f2, f3, f2w, f3w, wrap)
    if u < n4:
        out[u] = scaled4(z0, z1, z2, z3, scale, loc, affine)


def _math_slot(math):
    """The helper normal4_of of a kernel of the math kind `math` (one
    helper name for both kinds, so the bodies are written once and a
    kernel carries only its own math)."""
    if math == MATH_EXACT:
        def normal4_of(t: vp.uint32, k0: vp.uint32, k1: vp.uint32, c0: vp.uint32,
                       c1: vp.uint32, f2: vp.uint32, f3: vp.uint32, f2w: vp.uint32,
                       f3w: vp.uint32, wrap: vp.uint32):
            """normal4 (the exact math)."""
            return normal4(t, k0, k1, c0, c1, f2, f3, f2w, f3w, wrap)
    else:
        def normal4_of(t: vp.uint32, k0: vp.uint32, k1: vp.uint32, c0: vp.uint32,
                       c1: vp.uint32, f2: vp.uint32, f3: vp.uint32, f2w: vp.uint32,
                       f3w: vp.uint32, wrap: vp.uint32):
            """normal4_lean (MATH_LEAN)."""
            return normal4_lean(t, k0, k1, c0, c1, f2, f3, f2w, f3w, wrap)
    return normal4_of


# Functions of the vulpy package are not collected as helpers by name (they
# would be the kernel language's own names): the kernels list them.
HELPERS = (mulhilo, philox, philox32, invocation_id, invocation_block, log_unit, unit_u1,
           neg2log_split, sincos_quadrant, sincos_builtin, box_muller32, normal4_words,
           normal4, box_muller32_lean, normal4_lean, scaled4, put_normal4)


@vp.kernel(local_size_x=64, helpers=HELPERS)
def raw_u64(out: vp.Buffer[vp.uint64], k0: vp.uint64, k1: vp.uint64, c0: vp.uint64,
            c1: vp.uint64, c2: vp.uint64, c3: vp.uint64, skip: vp.uint32, n: vp.uint32,
            row: vp.uint32):
    """out[j] = word skip + j of the blocks from counter c (random_raw)."""
    g = invocation_id(row)
    w = invocation_block(g, k0, k1, c0, c1, c2, c3)
    t = g * 4
    for k in vp.static(range(4)):
        if t + k >= skip and t + k - skip < n:
            out[t + k - skip] = w[k]


@vp.kernel(local_size_x=64, helpers=HELPERS)
def uniform_f64(out: vp.Buffer[vp.float64], k0: vp.uint64, k1: vp.uint64, c0: vp.uint64,
                c1: vp.uint64, c2: vp.uint64, c3: vp.uint64, skip: vp.uint32, n: vp.uint32,
                row: vp.uint32):
    """NumPy's next_double: (word >> 11) * 2^-53, one word per output."""
    g = invocation_id(row)
    w = invocation_block(g, k0, k1, c0, c1, c2, c3)
    t = g * 4
    for k in vp.static(range(4)):
        if t + k >= skip and t + k - skip < n:
            out[t + k - skip] = vp.float64(w[k] >> 11) * INV53


@vp.kernel(local_size_x=64, helpers=HELPERS)
def uniform_f32(out: vp.Buffer[vp.float32], k0: vp.uint64, k1: vp.uint64, c0: vp.uint64,
                c1: vp.uint64, c2: vp.uint64, c3: vp.uint64, skip2: vp.uint32, n: vp.uint32,
                row: vp.uint32, has_buf: vp.uint32, buf_val: vp.uint32):
    """NumPy's next_float: (next_uint32 >> 8) * 2^-24, where next_uint32 is
    the low then the high half of each word. skip2 halves of the first block
    are used already; with has_buf, out[0] is the buffered half buf_val
    (NumPy's uinteger) and the block's halves start at out[1]."""
    g = invocation_id(row)
    w = invocation_block(g, k0, k1, c0, c1, c2, c3)
    if g == 0 and has_buf == 1 and n > 0:
        out[0] = vp.float32(buf_val >> 8) * INV24
    t = g * 8  # the first half of this block, counted in the call's halves
    m = n - has_buf
    for k in vp.static(range(4)):
        lo = vp.uint32(w[k] & LOW32)
        hi = vp.uint32(w[k] >> 32)
        h = t + 2 * k
        if h >= skip2 and h - skip2 < m:
            out[h - skip2 + has_buf] = vp.float32(lo >> 8) * INV24
        if h + 1 >= skip2 and h + 1 - skip2 < m:
            out[h + 1 - skip2 + has_buf] = vp.float32(hi >> 8) * INV24


def _normal_f32_scalar(out: vp.Buffer[vp.float32], k0: vp.uint32, k1: vp.uint32,
                       c0: vp.uint32, c1: vp.uint32, f2: vp.uint32, f3: vp.uint32,
                       f2w: vp.uint32, f3w: vp.uint32, wrap: vp.uint32, n: vp.uint32,
                       row: vp.uint32):
    """The vec4 kernels' values for any n: out[4t + k] = z[k] where inside
    [0, n) (scalar stores)."""
    t = invocation_id(row)
    z0, z1, z2, z3 = normal4_of(t, k0, k1, c0, c1, f2, f3, f2w, f3w, wrap)
    j = 4 * t
    if j < n:
        out[j] = z0
    if j + 1 < n:
        out[j + 1] = z1
    if j + 2 < n:
        out[j + 2] = z2
    if j + 3 < n:
        out[j + 3] = z3


_SCALAR = {}


def normal_f32(math=0):
    """The scalar-store kernel of float32 normals of math kind `math` (n not
    a multiple of 4), made at first use: the same values as that math's
    vec4 kernels, so a path's stream does not depend on n mod 4."""
    kern = _SCALAR.get(math)
    if kern is None:
        kern = _SCALAR[math] = vp.kernel(local_size_x=64, fast_math=math != MATH_EXACT,
                                         helpers=HELPERS + (_math_slot(math),))(
                                             _normal_f32_scalar)
    return kern


@vp.kernel(local_size_x=64, helpers=HELPERS)
def normal_f64(out: vp.Buffer[vp.float64], k0: vp.uint64, k1: vp.uint64, c0: vp.uint64,
               c1: vp.uint64, c2: vp.uint64, c3: vp.uint64, n: vp.uint32, row: vp.uint32):
    """Box-Muller in double: two pairs of 53-bit uniforms per block, four
    standard normals."""
    g = invocation_id(row)
    w = invocation_block(g, k0, k1, c0, c1, c2, c3)
    t = g * 4
    for k in vp.static(range(2)):
        u1 = (vp.float64(w[2 * k] >> 11) + 1.0) * INV53
        th = vp.float64(w[2 * k + 1] >> 11) * (INV53 * TWO_PI64)
        r = vp.sqrt(-2.0 * vp.log(u1))
        j = t + 2 * k
        if j < n:
            out[j] = r * vp.cos(th)
        if j + 1 < n:
            out[j + 1] = r * vp.sin(th)


@vp.kernel(local_size_x=64, helpers=HELPERS)
def integers_i64(out: vp.Buffer[vp.int64], k0: vp.uint64, k1: vp.uint64, c0: vp.uint64,
                 c1: vp.uint64, c2: vp.uint64, c3: vp.uint64, skip: vp.uint32, n: vp.uint32,
                 row: vp.uint32, low: vp.uint64, span: vp.uint64):
    """low + floor(word * span / 2^64) (Lemire's multiply, no rejection:
    the bias is below span / 2^64); span 0 means 2^64 (the word itself)."""
    g = invocation_id(row)
    w = invocation_block(g, k0, k1, c0, c1, c2, c3)
    t = g * 4
    for k in vp.static(range(4)):
        if t + k >= skip and t + k - skip < n:
            hi, lo = mulhilo(w[k], span)
            v = w[k] if span == 0 else hi
            out[t + k - skip] = vp.int64(low + v)


@vp.kernel(local_size_x=64, helpers=HELPERS)
def integers_i64_bounds(out: vp.Buffer[vp.int64], lows: vp.Buffer[vp.uint64],
                        spans: vp.Buffer[vp.uint64], k0: vp.uint64, k1: vp.uint64,
                        c0: vp.uint64, c1: vp.uint64, c2: vp.uint64, c3: vp.uint64,
                        skip: vp.uint32, n: vp.uint32, row: vp.uint32):
    """integers_i64 with a low and a span per element (arrays of bounds):
    the same words, so the same values as integers_i64 where the bounds
    are the same."""
    g = invocation_id(row)
    w = invocation_block(g, k0, k1, c0, c1, c2, c3)
    t = g * 4
    for k in vp.static(range(4)):
        if t + k >= skip and t + k - skip < n:
            i = t + k - skip
            span = spans[i]
            hi, lo = mulhilo(w[k], span)
            v = w[k] if span == 0 else hi
            out[i] = vp.int64(lows[i] + v)


# The vec4 kernels of float32 normals (n a multiple of 4; random.py's
# paths): kernels made at first use for K vec4s an invocation (a closure
# constant the kernel unrolls), a workgroup width W and the math (MATH_*;
# MATH_LEAN kernels are fast_math, for the built-ins). Each writes
# out[u] = normal4_of(u) for every u in [0, n4) exactly once
# (put_normal4). Every store instruction of a warp covers 32 neighbouring
# 16-byte slots.
_SPLITS = {}


def normal_f32_split(per, local, math=0):
    """The kernel with `per` vec4s an invocation, workgroups of `local` and
    the math kind `math`."""
    key = (per, local, math)
    kern = _SPLITS.get(key)
    if kern is None:
        kern = _SPLITS[key] = vp.kernel(local_size_x=local, fast_math=math != MATH_EXACT,
                                        helpers=HELPERS + (_math_slot(math),))(
                                            _split_shape(per))
    return kern


def _split_shape(K):
    def normal_f32_split(out: vp.Buffer[vp.vec4], k0: vp.uint32, k1: vp.uint32,
                         c0: vp.uint32, c1: vp.uint32, f2: vp.uint32, f3: vp.uint32,
                         f2w: vp.uint32, f3w: vp.uint32, wrap: vp.uint32, n4: vp.uint32,
                         h: vp.uint32, row: vp.uint32, scale: vp.float32, loc: vp.float32,
                         affine: vp.uint32):
        """Invocation t writes out[t + j h] for j < K (h = ceil(n4 / K)):
        K independent Philox chains, each of whose stores is one contiguous
        stretch of the warp's 16-byte writes (v8 is K = 2)."""
        t = invocation_id(row)
        for j in vp.static(range(K)):
            put_normal4(out, t + j * h, n4, k0, k1, c0, c1, f2, f3, f2w, f3w, wrap,
                        scale, loc, affine)
    return normal_f32_split


@vp.kernel(local_size_x=64, helpers=HELPERS)
def store_f32_v4(out: vp.Buffer[vp.vec4], v: vp.float32, n4: vp.uint32, row: vp.uint32):
    """The floor of the normal kernels' stores: one vec4 an invocation (the
    retired v4 path's grid), no arithmetic (bench/bench_random.py's 'store
    only' rows)."""
    t = invocation_id(row)
    if t < n4:
        out[t] = vp.vec4(v, v, v, v)


@vp.kernel(local_size_x=64, helpers=HELPERS)
def uniform_f32_v4(out: vp.Buffer[vp.vec4], k0: vp.uint64, k1: vp.uint64, c0: vp.uint64,
                   c1: vp.uint64, c2: vp.uint64, c3: vp.uint64, n4: vp.uint32,
                   row: vp.uint32):
    """uniform_f32 when n = 4 * n4 is a multiple of 8, no half is buffered
    and the call starts on a block."""
    g = invocation_id(row)
    w = invocation_block(g, k0, k1, c0, c1, c2, c3)
    z = vp.Local[vp.float32, 8]
    for k in vp.static(range(4)):
        z[2 * k] = vp.float32(vp.uint32(w[k] & LOW32) >> 8) * INV24
        z[2 * k + 1] = vp.float32(vp.uint32(w[k] >> 32) >> 8) * INV24
    if 2 * g + 1 < n4:
        out[2 * g] = vp.vec4(z[0], z[1], z[2], z[3])
        out[2 * g + 1] = vp.vec4(z[4], z[5], z[6], z[7])
