/* push_pack.c - push-constant values into the block, the one packer.
 *
 * Three callers fill a kernel's push-constant block from values: vulpy-run
 * (text from --push), the Python extension's Launcher (a kernel call's
 * keywords, in C) and vp's PushPacker (Kernel.dispatch, vp.jit, ufuncs,
 * through the extension's push_pack). Each had its own rules for which
 * value a field holds; here they are written once:
 *   - a field's code is Python struct's letter for its VIR scalar (f32 'f',
 *     f64 'd', f16 'e', i8 'b', u8 'B', i16 'h', u16 'H', i32 'i', u32 'I',
 *     i64 'q', u64 'Q'; bool is a 32-bit word, 'I'), vectors and matrices
 *     that many lanes of it;
 *   - a float field takes a float or an integer value; a value too large
 *     for f32 / f16 is refused (struct's "float too large to pack");
 *   - an integer field takes an integer in its range and refuses a float;
 *   - little-endian bytes, as std430 on every host VulPy runs on.
 * vpm_push_parse turns vulpy-run's text into a value (integers in C's
 * bases, floats, true/false for bool fields), so the command line and
 * Python agree on what fits.
 */
#include "vulpy/manifest.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char scalar_code(const char *t, size_t len) {
  static const struct {
    const char *name;
    char code;
  } names[] = {{"f32", 'f'}, {"f64", 'd'}, {"f16", 'e'}, {"i8", 'b'},  {"u8", 'B'},
               {"i16", 'h'}, {"u16", 'H'}, {"i32", 'i'}, {"u32", 'I'}, {"i64", 'q'},
               {"u64", 'Q'}, {"bool", 'I'}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i].name) == len && strncmp(t, names[i].name, len) == 0)
      return names[i].code;
  return 0;
}

char vpm_push_code(const char *type, uint32_t *lanes) {
  *lanes = 1;
  if (!type)
    return 0;
  size_t len = strlen(type);
  if ((strncmp(type, "vec", 3) == 0 || strncmp(type, "mat", 3) == 0) &&
      isdigit((unsigned char)type[3]) && type[4] == '<' && len > 6 && type[len - 1] == '>') {
    uint32_t n = (uint32_t)(type[3] - '0');
    *lanes = type[0] == 'm' ? n * n : n;
    return scalar_code(type + 5, len - 6);
  }
  return scalar_code(type, len);
}

uint32_t vpm_push_code_size(char code) {
  switch (code) {
  case 'b': case 'B': return 1;
  case 'h': case 'H': case 'e': return 2;
  case 'i': case 'I': case 'f': return 4;
  case 'q': case 'Q': case 'd': return 8;
  default: return 0;
  }
}

/* IEEE half from a double, rounded to nearest even; false where it
 * overflows (struct's 'e' refuses those). */
static bool to_half(double x, uint16_t *out) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  if (isnan(x)) {
    *out = sign | 0x7e00;
    return true;
  }
  if (isinf(x)) {
    *out = sign | 0x7c00;
    return true;
  }
  if (a >= 65520.0) /* rounds past the largest half, 65504 */
    return false;
  if (a < 0x1p-14) { /* subnormal (or zero): units of 2^-24 */
    double m = nearbyint(a * 0x1p24); /* the default mode rounds to even */
    *out = sign | (uint16_t)m;
    return true;
  }
  int e;
  double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  double m = nearbyint((f * 2.0 - 1.0) * 1024.0);
  int exp = e - 1 + 15;
  if (m >= 1024.0) {
    m = 0;
    exp++;
  }
  if (exp >= 31)
    return false;
  *out = sign | (uint16_t)(exp << 10) | (uint16_t)m;
  return true;
}

bool vpm_push_store(char code, const vpm_value *v, unsigned char *dst) {
  if (code == 'f' || code == 'd' || code == 'e') {
    double x = v->kind == VPM_VAL_FLOAT ? v->f
               : v->kind == VPM_VAL_UINT ? (double)v->u
                                         : (double)v->i;
    if (code == 'd') {
      memcpy(dst, &x, 8);
      return true;
    }
    if (code == 'e') {
      uint16_t h;
      if (!to_half(x, &h))
        return false;
      dst[0] = (unsigned char)h;
      dst[1] = (unsigned char)(h >> 8);
      return true;
    }
    float y = (float)x;
    if (isinf(y) && !isinf(x))
      return false; /* struct: "float too large to pack with f format" */
    memcpy(dst, &y, 4);
    return true;
  }
  if (v->kind == VPM_VAL_FLOAT)
    return false; /* struct: "required argument is not an integer" */
  bool neg = v->kind == VPM_VAL_INT && v->i < 0;
  bool big = v->kind == VPM_VAL_UINT && v->u > (uint64_t)INT64_MAX;
  uint64_t u = v->kind == VPM_VAL_UINT ? v->u : (uint64_t)v->i;
  int64_t s = big ? 0 : (int64_t)u; /* the value, where int64 holds it */
  bool fits;
  switch (code) {
  case 'b': fits = !big && s >= INT8_MIN && s <= INT8_MAX; break;
  case 'B': fits = !neg && u <= UINT8_MAX; break;
  case 'h': fits = !big && s >= INT16_MIN && s <= INT16_MAX; break;
  case 'H': fits = !neg && u <= UINT16_MAX; break;
  case 'i': fits = !big && s >= INT32_MIN && s <= INT32_MAX; break;
  case 'I': fits = !neg && u <= UINT32_MAX; break;
  case 'q': fits = !big; break;
  case 'Q': fits = !neg; break;
  default: return false;
  }
  if (!fits)
    return false;
  /* little-endian: the low bytes of the two's complement value */
  uint32_t width = vpm_push_code_size(code);
  for (uint32_t i = 0; i < width; i++)
    dst[i] = (unsigned char)(u >> (8 * i));
  return true;
}

bool vpm_push_parse(char code, bool is_bool, const char *s, vpm_value *v) {
  char *end;
  errno = 0;
  if (is_bool) {
    bool t = strcmp(s, "true") == 0 || strcmp(s, "1") == 0;
    if (!t && strcmp(s, "false") != 0 && strcmp(s, "0") != 0)
      return false;
    *v = (vpm_value){.kind = VPM_VAL_INT, .i = t};
    return true;
  }
  if (code == 'f' || code == 'd' || code == 'e') {
    double x = strtod(s, &end);
    if (end == s || *end || errno)
      return false;
    *v = (vpm_value){.kind = VPM_VAL_FLOAT, .f = x};
    return true;
  }
  if (*s == '-') {
    long long x = strtoll(s, &end, 0);
    if (end == s || *end || errno)
      return false;
    *v = (vpm_value){.kind = VPM_VAL_INT, .i = x};
    return true;
  }
  unsigned long long x = strtoull(s, &end, 0);
  if (end == s || *end || errno)
    return false;
  *v = (vpm_value){.kind = VPM_VAL_UINT, .u = x};
  return true;
}
