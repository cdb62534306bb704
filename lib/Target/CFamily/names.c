/* names.c - identifiers: Python names kept where legal, made unique.
 *
 * A Python name stays as it is unless it is a keyword or built-in name of
 * GLSL, C++ or CUDA (then it gets a trailing `_`), starts with `gl_` or
 * contains `__` (reserved in GLSL: `gl_x` becomes `gl_x_` is not enough, so
 * the prefix becomes `g_`, and `__` becomes `_`). A name already taken in
 * the scope gets `_2`, `_3`, ... The helper functions VulPy adds all start
 * with `vp_`, which user names therefore may not: `vp_x` becomes `vp_x_`.
 */
#include <stdlib.h>
#include <string.h>

#include "cfamily.h"

/* Sorted, for bsearch. GLSL 4.50 keywords and reserved words, the built-in
 * functions and variables a kernel may call or clash with, C++ and CUDA
 * keywords, and the names the CUDA/HIP prelude defines. */
static const char *const reserved[] = {
    "abs", "acos", "acosh", "active", "all", "allInvocations", "and", "any", "asin", "asinh",
    "asm", "atan", "atan2", "atanh", "atomicAdd", "atomicAnd", "atomicCAS", "atomicCompSwap",
    "atomicExch", "atomicExchange", "atomicLoad", "atomicMax", "atomicMin", "atomicOr",
    "atomicStore", "atomicXor", "atomic_uint", "attribute", "auto", "barrier", "bitCount",
    "bitfieldExtract", "bitfieldInsert", "bitfieldReverse", "blockDim", "blockIdx", "bool",
    "break", "buffer", "bvec2", "bvec3", "bvec4", "case", "cast", "catch", "cbrt", "ceil",
    "centroid", "char", "clamp", "class", "coherent", "common", "const", "const_cast",
    "constexpr", "continue", "cos", "cosh", "cross", "dFdx", "dFdy", "default", "degrees",
    "delete", "determinant", "discard", "distance", "dmat2", "dmat2x2", "dmat2x3", "dmat2x4",
    "dmat3", "dmat3x2", "dmat3x3", "dmat3x4", "dmat4", "dmat4x2", "dmat4x3", "dmat4x4", "do",
    "dot", "double", "dvec2", "dvec3", "dvec4", "dynamic_cast", "else", "enum", "equal", "exp",
    "exp2", "explicit", "expm1", "extern", "external", "f16vec2", "f16vec3", "f16vec4",
    "faceforward", "false", "filter", "findLSB", "findMSB", "fixed", "flat", "float",
    "float16_t", "float32_t", "float64_t", "floatBitsToInt", "floatBitsToUint", "floor", "fma",
    "fmod", "for", "fract", "frexp", "friend", "fvec2", "fvec3", "fvec4", "goto", "greaterThan",
    "greaterThanEqual", "gridDim", "half", "highp", "hvec2", "hvec3", "hvec4", "i16vec2",
    "i16vec3", "i16vec4", "i64vec2", "i64vec3", "i64vec4", "i8vec2", "i8vec3", "i8vec4", "if",
    "iimage1D", "iimage2D", "iimage3D", "image1D", "image2D", "image3D", "in", "inline",
    "inout", "input", "int", "int16_t", "int32_t", "int64_t", "int8_t", "intBitsToFloat",
    "interface", "invariant", "inverse", "inversesqrt", "isinf", "isnan", "ivec2", "ivec3",
    "ivec4", "layout", "ldexp", "length", "lessThan", "lessThanEqual", "log", "log10", "log1p",
    "log2", "long", "lowp", "main", "mat2", "mat2x2", "mat2x3", "mat2x4", "mat3", "mat3x2",
    "mat3x3", "mat3x4", "mat4", "mat4x2", "mat4x3", "mat4x4", "matrixCompMult", "max",
    "mediump", "memoryBarrier", "memoryBarrierBuffer", "memoryBarrierShared", "min", "mix",
    "mod", "modf", "mutable", "namespace", "new", "noinline", "noise1", "noperspective",
    "normalize", "not", "notEqual", "nullptr", "operator", "or", "out", "outerProduct",
    "output", "packDouble2x32", "packHalf2x16", "partition", "patch", "pow", "precise",
    "precision", "private", "protected", "public", "radians", "readonly", "reflect", "refract",
    "register", "reinterpret_cast", "resource", "restrict", "return", "round", "roundEven",
    "rsqrt", "sample", "sampler", "sampler1D", "sampler2D", "sampler3D", "shared", "short",
    "sign", "signed", "sin", "sinh", "sizeof", "smooth", "smoothstep", "sqrt", "static",
    "static_assert", "static_cast", "step", "struct", "subgroupAdd", "subgroupAll",
    "subgroupAnd", "subgroupAny", "subgroupBallot", "subgroupBarrier", "subgroupBroadcast",
    "subgroupBroadcastFirst", "subgroupElect", "subgroupExclusiveAdd", "subgroupInclusiveAdd",
    "subgroupMax", "subgroupMin", "subgroupMul", "subgroupOr", "subgroupShuffle",
    "subgroupShuffleDown", "subgroupShuffleUp", "subgroupShuffleXor", "subgroupXor",
    "subroutine", "superp", "switch", "tan", "tanh", "template", "this", "threadIdx", "throw",
    "transpose", "true", "trunc", "try", "typedef", "typeid", "typename", "u16vec2", "u16vec3",
    "u16vec4", "u64vec2", "u64vec3", "u64vec4", "u8vec2", "u8vec3", "u8vec4", "uimage1D",
    "uimage2D", "uimage3D", "uint", "uint16_t", "uint32_t", "uint64_t", "uint8_t",
    "uintBitsToFloat", "umulExtended", "uniform", "union", "unpackDouble2x32", "unsigned",
    "using", "uvec2", "uvec3", "uvec4", "varying", "vec2", "vec3", "vec4", "virtual", "void",
    "volatile", "warpSize", "while", "writeonly", "xor",
};

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool cf_is_reserved(const char *name) {
  return bsearch(&name, reserved, sizeof reserved / sizeof reserved[0], sizeof reserved[0],
                 cmp_str) != NULL;
}

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

void cf_names_init(cf_printer *p, cf_names *s, uint32_t cap) {
  uint32_t c = 64;
  while (c < cap * 2)
    c *= 2;
  s->slots = vp_arena_alloc(&p->arena, c * sizeof *s->slots);
  s->cap = s->slots ? c : 0;
  s->len = 0;
  if (!s->slots)
    p->failed = true;
}

bool cf_names_has(const cf_names *s, const char *name) {
  if (!s->cap)
    return false;
  for (uint32_t i = hash_str(name) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (!s->slots[i])
      return false;
    if (strcmp(s->slots[i], name) == 0)
      return true;
  }
}

static void grow(cf_printer *p, cf_names *s) {
  cf_names n;
  cf_names_init(p, &n, s->cap);
  if (!n.cap)
    return;
  for (uint32_t i = 0; i < s->cap; i++)
    if (s->slots[i])
      cf_names_add(p, &n, s->slots[i]);
  *s = n;
}

void cf_names_add(cf_printer *p, cf_names *s, const char *name) {
  if (!s->cap || (s->len + 1) * 2 > s->cap)
    grow(p, s);
  if (!s->cap)
    return;
  for (uint32_t i = hash_str(name) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (!s->slots[i]) {
      s->slots[i] = name;
      s->len++;
      return;
    }
    if (strcmp(s->slots[i], name) == 0)
      return;
  }
}

void cf_names_copy(cf_printer *p, cf_names *dst, const cf_names *src) {
  cf_names_init(p, dst, src->len + 16);
  for (uint32_t i = 0; i < src->cap; i++)
    if (src->slots[i])
      cf_names_add(p, dst, src->slots[i]);
}

/* The legal spelling of a wanted name (not yet unique). */
static char *legalize(cf_printer *p, const char *want, bool member) {
  if (!want || !*want)
    want = "t";
  size_t n = strlen(want);
  char *s = vp_arena_alloc(&p->arena, n + 8);
  if (!s)
    return "t";
  size_t j = 0;
  if (want[0] >= '0' && want[0] <= '9')
    s[j++] = 'n';
  for (size_t i = 0; i < n; i++) {
    char c = want[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok)
      c = '_';
    if (c == '_' && j > 0 && s[j - 1] == '_')
      continue; /* `__` is reserved in GLSL */
    s[j++] = c;
  }
  if (j == 0)
    s[j++] = 't';
  s[j] = 0;
  if (strncmp(s, "gl_", 3) == 0) {
    s[1] = '_'; /* "gl_x" -> "g_x" */
    memmove(s, s + 1, j);
    s[0] = 'g';
  }
  if ((!member && strncmp(s, "vp_", 3) == 0) || cf_is_reserved(s)) {
    size_t l = strlen(s);
    if (s[l - 1] != '_')
      s[l++] = '_';
    else
      s[l++] = 'v';
    s[l] = 0;
  }
  return s;
}

const char *cf_unique_name(cf_printer *p, cf_names *s, const char *want) {
  const char *base = legalize(p, want, false);
  if (!cf_names_has(s, base)) {
    cf_names_add(p, s, base);
    return base;
  }
  for (unsigned k = 2;; k++) {
    const char *cand = vp_arena_printf(&p->arena, "%s_%u", base, k);
    if (!cand)
      return base;
    if (!cf_names_has(s, cand)) {
      cf_names_add(p, s, cand);
      return cand;
    }
  }
}

const char *cf_member_name(cf_printer *p, const char *name) { return legalize(p, name, true); }

/* A source file's base name inside a `//` comment: bytes outside printable
 * ASCII become `?` (a newline in a name would end the comment and a line
 * starting with `#` would be a preprocessor directive), and so does a
 * trailing backslash (it would splice the next line into the comment). */
void cf_put_file_name(vp_strbuf *out, const char *path) {
  const char *s = strrchr(path, '/');
  s = s ? s + 1 : path;
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    bool ok = c >= 0x20 && c < 0x7f && !(c == '\\' && i + 1 == n);
    vp_strbuf_putc(out, ok ? (char)c : '?');
  }
}
