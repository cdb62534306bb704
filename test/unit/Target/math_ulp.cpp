// math_ulp.cpp - the accuracy of VulPy's precise math helpers, measured on
// the CPU.
//
// mathlib_gen prints the helpers (the same templates as the GLSL ones) as
// C++; a small prelude below gives them GLSL's names. IEEE arithmetic with
// correctly rounded division and sqrt, exact fma and no contraction
// (-ffp-contract=off) is what the helpers assume on a GPU too, except that
// Vulkan lets division be off by 2.5 ULP and sqrt by 3 ULP: the helpers
// correct those (vp_div, vp_sqrt), which this test cannot see. The
// on-device test of the same functions comes with the runtime.
//
// References: double-precision libm for float functions, long double
// (x87, 64-bit mantissa) libm for double functions. Inputs: special values,
// log-uniform random magnitudes over each function's whole domain (huge
// arguments included), uniform random values near the interesting range,
// and multiples of pi/2 for the trigonometric functions.
//
//   math_ulp            checks the budgets (4 ULP float, 8 ULP double)
//   math_ulp --table    prints the markdown table for docs/math.md
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>

// ---- GLSL's names in C++ -------------------------------------------------
typedef unsigned int uint;
#define precise
using std::abs;
using std::floor;
using std::ceil;
#ifdef VP_UNFUSED_FMA
// A device whose fma() is a multiply and an add, each rounded (lavapipe:
// Vulkan does not require fma to be fused): the helpers must keep their
// bounds there too.
static inline float vp_unfused_fma(float a, float b, float c) { volatile float p = a * b; return p + c; }
static inline double vp_unfused_fma(double a, double b, double c) { volatile double p = a * b; return p + c; }
#define fma vp_unfused_fma
static const bool VP_FMA_FUSED = false; // the helpers' Dekker paths
#else
using std::fma;
static const bool VP_FMA_FUSED = true; // the helpers' fused-fma paths
#endif
// VP_DENORM_EMULATE: the float32 helpers' subnormal-safe paths (integer
// reads and writes of subnormals), as on a device that flushes float32
// subnormals. math_ulp_ftz turns it on and runs the float32 helpers with the
// x86 FTZ and DAZ bits set: subnormal inputs read as 0 and subnormal results
// flushed, in every SSE operation, compares included (NVIDIA's Vulkan driver).
static bool VP_DENORM_EMULATE = false;
using std::min;
using std::isinf;
using std::isnan;
using std::sqrt;
using std::trunc;

template <class T> struct tv2 {
  T x, y;
  tv2() {}
  tv2(T a, T b) : x(a), y(b) {}
  tv2 operator-() const { return tv2(-x, -y); }
  tv2 &operator*=(T s) { x *= s; y *= s; return *this; }
};
template <class T> struct tv3 {
  T x, y, z;
  tv3() {}
  tv3(T a, T b, T c) : x(a), y(b), z(c) {}
};
typedef tv2<float> vec2;
typedef tv2<double> dvec2;
typedef tv3<float> vec3;
typedef tv3<double> dvec3;
typedef tv2<uint> uvec2;
struct uvec4 {
  uint x, y, z, w;
  uvec4(uint a, uint b, uint c, uint d) : x(a), y(b), z(c), w(d) {}
};
using std::max;
template <class T> static inline T clamp(T x, T lo, T hi) { return std::min(std::max(x, lo), hi); }

static inline uint floatBitsToUint(float f) { uint u; memcpy(&u, &f, 4); return u; }
static inline float uintBitsToFloat(uint u) { float f; memcpy(&f, &u, 4); return f; }
static inline int floatBitsToInt(float f) { int i; memcpy(&i, &f, 4); return i; }
static inline float intBitsToFloat(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline uvec2 unpackDouble2x32(double d) {
  uint64_t u; memcpy(&u, &d, 8);
  return uvec2(uint(u), uint(u >> 32));
}
static inline double packDouble2x32(uvec2 v) {
  uint64_t u = (uint64_t)v.y << 32 | v.x; double d; memcpy(&d, &u, 8); return d;
}
static inline void umulExtended(uint a, uint b, uint &hi, uint &lo) {
  uint64_t p = (uint64_t)a * b; hi = uint(p >> 32); lo = uint(p);
}
static inline int findMSB(uint v) { return v ? 31 - __builtin_clz(v) : -1; }

#include "mathlib_host.inc"

// ---- a device that flushes float32 subnormals (math_ulp_ftz) --------------
// The float32 helpers run with MXCSR's FTZ (flush results) and DAZ (read
// subnormal inputs as 0) bits set, only for the call itself: the harness's
// own arithmetic keeps subnormals. A volatile asm with a memory clobber on
// each side of a call that is not inlined keeps the call between them.
#if defined(VP_FTZ_TEST) && (defined(__x86_64__) || defined(__i386__))
#define VP_FTZ_AVAILABLE 1
static bool ftz_active = false;
static unsigned ftz_saved;
static inline void ftz_enter() {
  if (!ftz_active) return;
  unsigned c;
  asm volatile("stmxcsr %0" : "=m"(c) : : "memory");
  ftz_saved = c;
  c |= 0x8040u; // FTZ (bit 15) | DAZ (bit 6)
  asm volatile("ldmxcsr %0" : : "m"(c) : "memory");
}
static inline void ftz_leave() {
  if (ftz_active) asm volatile("ldmxcsr %0" : : "m"(ftz_saved) : "memory");
}
#else
static inline void ftz_enter() {}
static inline void ftz_leave() {}
#endif
template <class F> __attribute__((noinline)) static float call_f32(F f) { return f(); }
#define F32CALL(expr) (ftz_enter(), [&] { float r_ = call_f32([&] { return (expr); }); ftz_leave(); return r_; }())

// ---- measuring ---------------------------------------------------------

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd() {
  rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
  return rng_state;
}
static double uniform() { return (rnd() >> 11) * (1.0 / 9007199254740992.0); }

// the ULP of `ref` in the target precision (denormal spacing at the bottom)
static long double ulp_of(long double ref, int bits) {
  int mant = bits == 32 ? 24 : 53, emin = bits == 32 ? -126 : -1022;
  int e = ref == 0 ? emin : ilogbl(ref);
  if (e < emin) e = emin;
  return ldexpl(1.0L, e - mant + 1);
}

struct stat {
  double max_ulp = 0, worst_x = 0, worst_y = 0;
  long n = 0, bad_special = 0;
};

template <class T> static void record(stat &s, T got, long double ref, int bits, T x, T y) {
  s.n++;
  long double lim = bits == 32 ? FLT_MAX : DBL_MAX;
  if (std::isnan(ref)) {
    if (!std::isnan(got)) { s.bad_special++; s.worst_x = x; s.worst_y = y; s.max_ulp = INFINITY; }
    return;
  }
  T refT = (T)ref;  // rounded: overflow gives inf
  if (std::isinf(refT) || fabsl(ref) > lim) {
    if (got != refT && !(std::isinf(got) && (got > 0) == (ref > 0))) {
      // a result just above the largest finite value may round either way
      long double e = fabsl((long double)got - ref) / ulp_of(lim, bits);
      if (e > s.max_ulp) { s.max_ulp = (double)e; s.worst_x = x; s.worst_y = y; }
    }
    return;
  }
  if (std::isnan(got) || std::isinf(got)) { s.bad_special++; s.max_ulp = INFINITY; s.worst_x = x; s.worst_y = y; return; }
  long double e = fabsl((long double)got - ref) / ulp_of(ref, bits);
  if (e > s.max_ulp) { s.max_ulp = (double)e; s.worst_x = x; s.worst_y = y; }
}

// inputs: log-uniform magnitude in [2^lo, 2^hi], random sign if `neg`
template <class T> static T logu(int lo, int hi, bool neg) {
  T m = (T)ldexp(1.0 + uniform(), lo + (int)(uniform() * (hi - lo)));
  return neg && (rnd() & 1) ? -m : m;
}

struct fn1 {
  const char *name;
  float (*f32)(float);
  double (*f64)(double);
  long double (*ref)(long double);
  int lo, hi;     // log2 magnitudes to sample
  bool neg;       // negative inputs too
  double ulo, uhi; // a uniform range
};

static long double ref_sin(long double x) { return sinl(x); }
static long double ref_cos(long double x) { return cosl(x); }
static long double ref_tan(long double x) { return tanl(x); }
static long double ref_asin(long double x) { return asinl(x); }
static long double ref_acos(long double x) { return acosl(x); }
static long double ref_atan(long double x) { return atanl(x); }
static long double ref_sinh(long double x) { return sinhl(x); }
static long double ref_cosh(long double x) { return coshl(x); }
static long double ref_tanh(long double x) { return tanhl(x); }
static long double ref_asinh(long double x) { return asinhl(x); }
static long double ref_acosh(long double x) { return acoshl(x); }
static long double ref_atanh(long double x) { return atanhl(x); }
static long double ref_exp(long double x) { return expl(x); }
static long double ref_exp2(long double x) { return exp2l(x); }
static long double ref_expm1(long double x) { return expm1l(x); }
static long double ref_log(long double x) { return logl(x); }
static long double ref_log2(long double x) { return log2l(x); }
static long double ref_log10(long double x) { return log10l(x); }
static long double ref_log1p(long double x) { return log1pl(x); }
static long double ref_cbrt(long double x) { return cbrtl(x); }

#define F1(n) static float n##_f(float x) { return F32CALL(vp_##n(x)); } static double n##_d(double x) { return vp_##n(x); }
F1(sin) F1(cos) F1(tan) F1(asin) F1(acos) F1(atan) F1(sinh) F1(cosh) F1(tanh) F1(asinh) F1(acosh)
F1(atanh) F1(exp) F1(exp2) F1(expm1) F1(log) F1(log2) F1(log10) F1(log1p) F1(cbrt)

static const fn1 fns[] = {
    {"sin", sin_f, sin_d, ref_sin, -40, 1023, true, -10, 10},
    {"cos", cos_f, cos_d, ref_cos, -40, 1023, true, -10, 10},
    {"tan", tan_f, tan_d, ref_tan, -40, 1023, true, -10, 10},
    {"asin", asin_f, asin_d, ref_asin, -40, 0, true, -1, 1},
    {"acos", acos_f, acos_d, ref_acos, -40, 0, true, -1, 1},
    {"atan", atan_f, atan_d, ref_atan, -40, 1023, true, -4, 4},
    {"sinh", sinh_f, sinh_d, ref_sinh, -40, 10, true, -5, 5},
    {"cosh", cosh_f, cosh_d, ref_cosh, -40, 10, true, -5, 5},
    {"tanh", tanh_f, tanh_d, ref_tanh, -40, 6, true, -3, 3},
    {"asinh", asinh_f, asinh_d, ref_asinh, -40, 1023, true, -5, 5},
    {"acosh", acosh_f, acosh_d, ref_acosh, 0, 1023, false, 1, 5},
    {"atanh", atanh_f, atanh_d, ref_atanh, -40, 0, true, -1, 1},
    {"exp", exp_f, exp_d, ref_exp, -40, 10, true, -5, 5},
    {"exp2", exp2_f, exp2_d, ref_exp2, -40, 11, true, -5, 5},
    {"expm1", expm1_f, expm1_d, ref_expm1, -40, 10, true, -2, 2},
    {"log", log_f, log_d, ref_log, -1074, 1023, false, 0.5, 2},
    {"log2", log2_f, log2_d, ref_log2, -1074, 1023, false, 0.5, 2},
    {"log10", log10_f, log10_d, ref_log10, -1074, 1023, false, 0.5, 2},
    {"log1p", log1p_f, log1p_d, ref_log1p, -60, 1023, false, -0.9, 2},
    {"cbrt", cbrt_f, cbrt_d, ref_cbrt, -1074, 1023, true, -10, 10},
};

// float32 subnormals (both signs, the whole range), the boundaries, and for
// exp/exp2 the arguments whose results are subnormal
static float subnormal_input(const fn1 &f, long i) {
  uint m = (uint)(rnd() % 0x7fffffu) + 1u;  // 1 .. 2^23 - 1: every subnormal
  float x = uintBitsToFloat(m | ((rnd() & 1) && f.neg ? 0x80000000u : 0u));
  if (!strcmp(f.name, "exp") && (i & 1)) return (float)(-87.3 - 16.8 * uniform());
  if (!strcmp(f.name, "exp2") && (i & 1)) return (float)(-126.0 - 24.5 * uniform());
  if (!f.neg && (rnd() & 1)) return -x; // the other sign too (NaN for log)
  return x;
}

template <class T> static stat run1(const fn1 &f, int bits, long n) {
  stat s;
  int maxe = bits == 32 ? 127 : 1023, mine = bits == 32 ? -149 : -1074;
  int lo = f.lo < mine ? mine : f.lo, hi = f.hi > maxe ? maxe : f.hi;
  T (*fn)(T) = bits == 32 ? (T(*)(T))(void *)f.f32 : (T(*)(T))(void *)f.f64;
  T specials[] = {0, -0.0, 1, -1, 0.5, -0.5, 2, (T)M_PI, (T)M_PI_2, (T)-M_PI_2, (T)1e-30,
                  std::numeric_limits<T>::min(), std::numeric_limits<T>::denorm_min(),
                  std::numeric_limits<T>::max(), -std::numeric_limits<T>::max(), (T)INFINITY,
                  (T)-INFINITY, (T)NAN, (T)0.99999, (T)1.00001, (T)88.7, (T)-88.7, (T)709.7, (T)-745};
  for (T x : specials) record<T>(s, fn(x), f.ref((long double)x), bits, x, 0);
  if (bits == 32) {
    float sub[] = {FLT_MIN, -FLT_MIN, std::nextafter(FLT_MIN, 0.0f), -std::nextafter(FLT_MIN, 0.0f),
                   FLT_TRUE_MIN, -FLT_TRUE_MIN, 2 * FLT_TRUE_MIN, FLT_MIN / 2, -FLT_MIN / 3,
                   -87.336544f, -87.3365479f, -103.972084f, -104.0f, -126.0f, -149.0f, -149.5f, -150.0f};
    for (float x : sub) record<T>(s, fn((T)x), f.ref((long double)x), bits, (T)x, 0);
    for (long i = 0; i < n / 4; i++) {
      float x = subnormal_input(f, i);
      record<T>(s, fn((T)x), f.ref((long double)x), bits, (T)x, 0);
    }
  }
  for (long i = 0; i < n; i++) {
    T x = logu<T>(lo, hi, f.neg);
    record<T>(s, fn(x), f.ref((long double)x), bits, x, 0);
    T u = (T)(f.ulo + (f.uhi - f.ulo) * uniform());
    record<T>(s, fn(u), f.ref((long double)u), bits, u, 0);
  }
  if (!strcmp(f.name, "sin") || !strcmp(f.name, "cos") || !strcmp(f.name, "tan"))
    for (long k = 1; k < n / 10; k++) {  // near multiples of pi/2, across the range
      long double t = (long double)k * (k % 7 ? 1.0L : 1e6L) * 1.5707963267948966192313216916397514L;
      T x = (T)t;
      for (int d = -2; d <= 2; d++) {
        T y = std::nextafter(x, d < 0 ? (T)-INFINITY : (T)INFINITY);
        T z = d == 0 ? x : y;
        record<T>(s, fn(z), f.ref((long double)z), bits, z, 0);
      }
    }
  return s;
}

static float atan2_t(float y, float x) { return F32CALL(vp_atan2(y, x)); }
static double atan2_t(double y, double x) { return vp_atan2(y, x); }
static float pow_t(float x, float y) { return F32CALL(vp_pow(x, y)); }
static double pow_t(double x, double y) { return vp_pow(x, y); }
static float subnormal32() { return uintBitsToFloat((uint)(rnd() % 0x7fffffu) + 1u); }

template <class T> static stat run_atan2(int bits, long n) {
  stat s;
  T sp[] = {0, -0.0, 1, -1, (T)INFINITY, (T)-INFINITY, (T)NAN, (T)1e-30, (T)1e30,
            std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
            std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), (T)1.66e-24};
  for (T y : sp)
    for (T x : sp) record<T>(s, atan2_t(y, x), atan2l((long double)y, (long double)x), bits, y, x);
  for (long i = 0; i < n; i++) {
    T y = logu<T>(-60, 60, true), x = logu<T>(-60, 60, true);
    record<T>(s, atan2_t(y, x), atan2l((long double)y, (long double)x), bits, y, x);
    T a = (T)(uniform() * 4 - 2), b = (T)(uniform() * 4 - 2);
    record<T>(s, atan2_t(a, b), atan2l((long double)a, (long double)b), bits, a, b);
    if (bits == 32 && i % 4 == 0) {
      // subnormal operands, and ratios below 2^-126 (subnormal results)
      T sy = (T)((rnd() & 1) ? -subnormal32() : subnormal32()), sx = logu<T>(-126, 60, true);
      record<T>(s, atan2_t(sy, sx), atan2l((long double)sy, (long double)sx), bits, sy, sx);
      record<T>(s, atan2_t(sx, sy), atan2l((long double)sx, (long double)sy), bits, sx, sy);
      T tx = (T)subnormal32();
      record<T>(s, atan2_t(sy, tx), atan2l((long double)sy, (long double)tx), bits, sy, tx);
      T ty = logu<T>(-126, -60, true), ux = logu<T>(30, 127, true);
      record<T>(s, atan2_t(ty, ux), atan2l((long double)ty, (long double)ux), bits, ty, ux);
    }
  }
  return s;
}

template <class T> static stat run_pow(int bits, long n) {
  stat s;
  T sp[] = {0, -0.0, 1, -1, 2, -2, 0.5, -0.5, 3, -3, (T)INFINITY, (T)-INFINITY, (T)NAN, (T)1e-30, (T)1e30};
  for (T x : sp)
    for (T y : sp) record<T>(s, pow_t(x, y), powl((long double)x, (long double)y), bits, x, y);
  int maxe = bits == 32 ? 127 : 1023;
  for (long i = 0; i < n; i++) {
    // x log-uniform, y such that |y log2 x| stays within the range (and beyond it)
    T x = logu<T>(-maxe, maxe, false);
    long double l2 = log2l((long double)x);
    T y = (T)((uniform() * 2 - 1) * (maxe + 20) / (fabsl(l2) > 1e-3L ? fabsl(l2) : 1e-3L));
    record<T>(s, pow_t(x, y), powl((long double)x, (long double)y), bits, x, y);
    // near 1 with large exponents
    T x1 = (T)(1 + (uniform() - 0.5) * 1e-3), y1 = (T)((uniform() - 0.5) * 1e5);
    record<T>(s, pow_t(x1, y1), powl((long double)x1, (long double)y1), bits, x1, y1);
    // negative bases with integer exponents
    T xn = -logu<T>(-10, 10, false), yn = (T)floor((uniform() - 0.5) * 40);
    record<T>(s, pow_t(xn, yn), powl((long double)xn, (long double)yn), bits, xn, yn);
    if (bits == 32 && i % 4 == 0) {
      // results below 2^-126, subnormal bases (integer exponents for
      // negative ones) and subnormal exponents
      T b = logu<T>(-20, 20, false);
      long double lb = log2l((long double)b);
      if (fabsl(lb) > 1e-3L) {
        T e = (T)((-126.0 - 24.0 * uniform()) / (double)lb);
        record<T>(s, pow_t(b, e), powl((long double)b, (long double)e), bits, b, e);
      }
      T sb = (T)subnormal32(), se = (T)(uniform() * 2 - 1.2);
      record<T>(s, pow_t(sb, se), powl((long double)sb, (long double)se), bits, sb, se);
      T ne = (T)floor(uniform() * 3 - 1);
      record<T>(s, pow_t(-sb, ne), powl(-(long double)sb, (long double)ne), bits, -sb, ne);
      T ye = (T)((rnd() & 1) ? -subnormal32() : subnormal32()), yb = (T)logu<T>(-60, 60, true);
      record<T>(s, pow_t(yb, ye), powl((long double)yb, (long double)ye), bits, yb, ye);
      record<T>(s, pow_t((T)0, ye), powl(0.0L, (long double)ye), bits, (T)0, ye);
    }
  }
  return s;
}

// The float32 ops whose result is an operand with its sign bit changed, one
// of the operands, or a constant picked by the sign (vp_negf, vp_fabsf,
// vp_signf, vp_minf, vp_maxf, vp_clampf, vp_floorf, vp_ceilf; and vp_sqrtf,
// correctly rounded here as the CPU's sqrt is): bit for bit
// what IEEE arithmetic that keeps subnormals gives, over subnormals of both
// signs, +-0, FLT_MIN, normals, inf and NaN. Returns the number of wrong
// results (printing the first few).
static int check_exact_ops() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -3.5f, FLT_MIN, -FLT_MIN,
                          (float)INFINITY, (float)-INFINITY, 1e30f, -1e-30f};
  for (uint b : {1u, 2u, 3u, 0x400000u, 0x7ffffeu, 0x7fffffu, 0x12345u})
    for (uint s : {0u, 0x80000000u}) v.push_back(uintBitsToFloat(b | s));
  for (int i = 0; i < 40; i++) v.push_back((rnd() & 1) ? -subnormal32() : subnormal32());
  int bad = 0;
  auto same = [&](const char *what, float got, float want, float x, float y) {
    if (floatBitsToUint(got) == floatBitsToUint(want) || (std::isnan(got) && std::isnan(want))) return;
    if (bad++ < 8)
      printf("  %s(%.9g, %.9g): got %.9g (0x%08x), want %.9g (0x%08x)\n", what, x, y, got, floatBitsToUint(got), want,
             floatBitsToUint(want));
  };
  for (float x : v) {
    // references in the harness's own arithmetic, which keeps subnormals
    float sg = x > 0 ? 1.0f : x < 0 ? -1.0f : 0.0f;
    same("neg", F32CALL(vp_negf(x)), uintBitsToFloat(floatBitsToUint(x) ^ 0x80000000u), x, 0);
    same("abs", F32CALL(vp_fabsf(x)), std::fabs(x), x, 0);
    same("sign", F32CALL(vp_signf(x)), sg, x, 0);
    same("floor", F32CALL(vp_floorf(x)), std::floor(x), x, 0);
    same("ceil", F32CALL(vp_ceilf(x)), std::ceil(x), x, 0);
    same("sqrt", F32CALL(vp_sqrtf(x)), std::sqrt(x), x, 0);
    for (float y : v) {
      if (x == y && floatBitsToUint(x) != floatBitsToUint(y)) continue; // +-0: either one
      same("min", F32CALL(vp_minf(x, y)), y < x ? y : x, x, y);
      same("max", F32CALL(vp_maxf(x, y)), x < y ? y : x, x, y);
      float lo = std::min(x, y), hi = std::max(x, y), h = x * 0.5f;
      if (lo != hi)
        same("clamp", F32CALL(vp_clampf(h, lo, hi)), std::min(std::max(h, lo), hi), h, lo);
    }
  }
  // pow(x, 2) is x x exactly, subnormal squares included (vp_sqr_tinyf: from
  // the bits where the device would flush them), and pow(x, -1) is 1 / x
  for (int i = 0; i < 20000; i++) {
    float x = std::ldexp(1.0f + (float)(rnd() & 0x7fffff) * 0x1p-23f, -100 + (int)(rnd() % 48));
    if (rnd() & 1) x = -x;
    same("pow(x, 2)", F32CALL(vp_pow(x, 2.0f)), x * x, x, 2.0f);
    same("pow(x, -1)", F32CALL(vp_pow(x, -1.0f)), 1.0f / x, x, -1.0f);
  }
  for (float x : {0x1p-63f, -0x1.fffffep-64f, 0x1.6a09e6p-75f, 0x1p-75f, 0x1.000002p-75f, 0x1.8p-75f, 0x1p-76f})
    same("pow(x, 2)", F32CALL(vp_pow(x, 2.0f)), x * x, x, 2.0f);
  float n = uintBitsToFloat(0x7fc00000u);
  same("sign", F32CALL(vp_signf(n)), n, n, 0);
  return bad;
}

// vp_div_roundf: a quotient q and a reciprocal y a few ULP off (as a Vulkan
// division may be: NVIDIA's is a * (1 / b)) rounded to exactly a / b, which
// the harness's division is. Every float32 significand of b once, each with a
// random a and q, y moved by -3..3 and -2..2 ULP, then random exponents over
// the whole range the helper corrects (tiny a scaled); outside it q comes back
// unchanged.
// Needs a fused fma: vp_divf calls it only where VP_FMA_FUSED is true.
static float ulp_step(float x, int k) {
  for (; k > 0; k--) x = std::nextafter(x, (float)INFINITY);
  for (; k < 0; k++) x = std::nextafter(x, (float)-INFINITY);
  return x;
}
static int check_div_round() {
  int bad = 0;
  long n = 0;
  auto one = [&](float a, float b, int kq, int ky) {
    float want = a / b;
    float got = F32CALL(vp_div_roundf(a, b, ulp_step(want, kq), ulp_step(1.0f / b, ky)));
    n++;
    if (floatBitsToUint(got) != floatBitsToUint(want) && bad++ < 8)
      printf("  div_round(%.9g, %.9g) from q %+d ULP, y %+d ULP: got %.9g (0x%08x), want %.9g (0x%08x)\n", a, b, kq,
             ky, got, floatBitsToUint(got), want, floatBitsToUint(want));
  };
  auto mag = [](int lo, int hi) { // a random float with exponent in [lo, hi]
    return std::ldexp(1.0f + (float)(rnd() & 0x7fffff) * 0x1p-23f, lo + (int)(rnd() % (uint64_t)(hi - lo + 1)));
  };
  for (uint m = 0; m < 0x800000u; m++) {
    float b = uintBitsToFloat(0x3f800000u | m) * ((m & 1) ? -1.0f : 1.0f);
    float a = uintBitsToFloat(0x3f800000u | (uint)(rnd() & 0x7fffff));
    one(a, b, (int)(m % 7) - 3, (int)(m / 7 % 5) - 2);
  }
  for (int i = 0; i < 1 << 20; i++) {
    float a = mag(-126, 127), b = mag(-126, 125);
    if (rnd() & 1) a = -a;
    if (rnd() & 1) b = -b;
    float q = a / b;
    if (std::fabs(q) < FLT_MIN || std::isinf(q)) continue;
    one(a, b, (int)(rnd() % 7) - 3, (int)(rnd() % 5) - 2);
  }
  // outside the range: q as given (1 / b or the quotient subnormal, inf, NaN)
  for (auto ab : {std::make_pair(1e-30f, 1e10f), std::make_pair(1.0f, 1e38f), std::make_pair(0.0f, 3.0f),
                  std::make_pair((float)INFINITY, 3.0f), std::make_pair(1.0f, 0.0f)}) {
    float a = ab.first, b = ab.second, q = ulp_step(a / b, 1);
    float got = F32CALL(vp_div_roundf(a, b, q, 1.0f / b));
    if (floatBitsToUint(got) != floatBitsToUint(q) && bad++ < 8)
      printf("  div_round(%.9g, %.9g) outside its range: got %.9g, want q = %.9g\n", a, b, got, q);
  }
  printf("div_round: %ld quotients %s\n", n, bad ? "WRONG (above)" : "correctly rounded");
  return bad;
}

int main(int argc, char **argv) {
  bool table = argc > 1 && !strcmp(argv[1], "--table");
  long n32 = 200000, n64 = 60000;
  double budget[2] = {4.0, 8.0};
  int failures = 0;
  if (table) {
    printf("| function | float32 max ULP | float64 max ULP |\n| --- | --- | --- |\n");
  }
  auto report = [&](const char *name, stat a, stat b) {
    bool bad = a.max_ulp > budget[0] || b.max_ulp > budget[1] || a.bad_special || b.bad_special;
    if (table)
      printf("| %s | %.2f | %.2f |\n", name, a.max_ulp, b.max_ulp);
    else
      printf("%-6s f32 %6.2f ULP (x=%.9g y=%.9g, %ld)   f64 %6.2f ULP (x=%.17g y=%.17g, %ld)%s\n", name,
             a.max_ulp, a.worst_x, a.worst_y, a.n, b.max_ulp, b.worst_x, b.worst_y, b.n,
             bad ? "   OVER BUDGET" : "");
    failures += bad;
  };
#ifdef VP_FTZ_TEST
  // float32 only (NVIDIA keeps float64 subnormals), with the subnormal-safe
  // paths on: first as lavapipe runs them (VULPY_DENORM=emulate), then with
  // the x86 FTZ and DAZ bits set around every call (a flushing device)
  VP_DENORM_EMULATE = true;
  stat none;
  for (int pass = 0; pass < 2; pass++) {
#ifdef VP_FTZ_AVAILABLE
    ftz_active = pass == 1;
#else
    if (pass == 1) { printf("(no x86 FTZ/DAZ here: the flushing pass is skipped)\n"); break; }
#endif
    printf("-- float32, VP_DENORM_EMULATE%s\n", pass ? ", FTZ+DAZ (a device that flushes)" : "");
    for (const fn1 &f : fns) report(f.name, run1<float>(f, 32, n32 / 4), none);
    report("atan2", run_atan2<float>(32, n32 / 4), none);
    report("pow", run_pow<float>(32, n32 / 4), none);
    int wrong = check_exact_ops();
    printf("neg abs sign min max clamp floor ceil sqrt: %s\n", wrong ? "WRONG (above)" : "bit for bit");
    failures += wrong != 0;
#ifndef VP_UNFUSED_FMA
    failures += check_div_round() != 0;
#endif
  }
#ifdef VP_FTZ_AVAILABLE
  // the harness can fail: without the subnormal-safe paths, FTZ+DAZ breaks
  // exp's subnormal results and log of a subnormal
  VP_DENORM_EMULATE = false;
  ftz_active = true;
  float e = exp_f(-100.0f), l = log_f(1e-40f);
  ftz_active = false;
  bool flushed = e == 0.0f && std::isinf(l);
  printf("control: without VP_DENORM_EMULATE, exp(-100) = %g, log(1e-40) = %g under FTZ+DAZ: %s\n",
         e, l, flushed ? "flushed, as on the device" : "NOT FLUSHED (the harness does not emulate a flush)");
  failures += !flushed;
  // and the exact ops: min of two subnormals, floor of a negative one
  ftz_active = true;
  int wrong = check_exact_ops();
  ftz_active = false;
  printf("control: without VP_DENORM_EMULATE, %d wrong of min max clamp floor ceil sqrt under FTZ+DAZ: %s\n", wrong,
         wrong ? "flushed, as on the device" : "NOT FLUSHED (the harness does not emulate a flush)");
  failures += !wrong;
  VP_DENORM_EMULATE = true;
#endif
#else
  for (const fn1 &f : fns) report(f.name, run1<float>(f, 32, n32), run1<double>(f, 64, n64));
  report("atan2", run_atan2<float>(32, n32), run_atan2<double>(64, n64));
  report("pow", run_pow<float>(32, n32), run_pow<double>(64, n64));
#ifndef VP_UNFUSED_FMA
  if (!table)
    failures += check_div_round() != 0;
#endif
#endif
  if (!table)
    printf("%s\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
