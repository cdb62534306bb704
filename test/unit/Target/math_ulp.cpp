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

// ---- GLSL's names in C++ -------------------------------------------------
typedef unsigned int uint;
#define precise
using std::abs;
using std::floor;
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

#define F1(n) static float n##_f(float x) { return vp_##n(x); } static double n##_d(double x) { return vp_##n(x); }
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

template <class T> static stat run_atan2(int bits, long n) {
  stat s;
  T sp[] = {0, -0.0, 1, -1, (T)INFINITY, (T)-INFINITY, (T)NAN, (T)1e-30, (T)1e30,
            std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
            std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), (T)1.66e-24};
  for (T y : sp)
    for (T x : sp) record<T>(s, vp_atan2(y, x), atan2l((long double)y, (long double)x), bits, y, x);
  for (long i = 0; i < n; i++) {
    T y = logu<T>(-60, 60, true), x = logu<T>(-60, 60, true);
    record<T>(s, vp_atan2(y, x), atan2l((long double)y, (long double)x), bits, y, x);
    T a = (T)(uniform() * 4 - 2), b = (T)(uniform() * 4 - 2);
    record<T>(s, vp_atan2(a, b), atan2l((long double)a, (long double)b), bits, a, b);
  }
  return s;
}

template <class T> static stat run_pow(int bits, long n) {
  stat s;
  T sp[] = {0, -0.0, 1, -1, 2, -2, 0.5, -0.5, 3, -3, (T)INFINITY, (T)-INFINITY, (T)NAN, (T)1e-30, (T)1e30};
  for (T x : sp)
    for (T y : sp) record<T>(s, vp_pow(x, y), powl((long double)x, (long double)y), bits, x, y);
  int maxe = bits == 32 ? 127 : 1023;
  for (long i = 0; i < n; i++) {
    // x log-uniform, y such that |y log2 x| stays within the range (and beyond it)
    T x = logu<T>(-maxe, maxe, false);
    long double l2 = log2l((long double)x);
    T y = (T)((uniform() * 2 - 1) * (maxe + 20) / (fabsl(l2) > 1e-3L ? fabsl(l2) : 1e-3L));
    record<T>(s, vp_pow(x, y), powl((long double)x, (long double)y), bits, x, y);
    // near 1 with large exponents
    T x1 = (T)(1 + (uniform() - 0.5) * 1e-3), y1 = (T)((uniform() - 0.5) * 1e5);
    record<T>(s, vp_pow(x1, y1), powl((long double)x1, (long double)y1), bits, x1, y1);
    // negative bases with integer exponents
    T xn = -logu<T>(-10, 10, false), yn = (T)floor((uniform() - 0.5) * 40);
    record<T>(s, vp_pow(xn, yn), powl((long double)xn, (long double)yn), bits, xn, yn);
  }
  return s;
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
  for (const fn1 &f : fns) report(f.name, run1<float>(f, 32, n32), run1<double>(f, 64, n64));
  report("atan2", run_atan2<float>(32, n32), run_atan2<double>(64, n64));
  report("pow", run_pow<float>(32, n32), run_pow<double>(64, n64));
  if (!table)
    printf("%s\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
