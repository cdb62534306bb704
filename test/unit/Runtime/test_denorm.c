/* test_denorm.c - the float-controls patches (runtime/denorm.c) on SPIR-V
 * made by our compiler (VIR -> GLSL -> glslang) for SPIR-V 1.0, 1.3, 1.5 and
 * 1.6: every patched module passes SPIRV-Tools' validator, has exactly one
 * mode per width asked for and used, one capability, the extension only
 * below SPIR-V 1.4, and patching it again changes nothing. Also the
 * per-device choice (denorm modes auto/preserve/emulate/default) from tables
 * of devices that are not in the machine. The same checks for
 * SignedZeroInfNanPreserve, and the NoContraction decoration on every float
 * arithmetic instruction. Needs no Vulkan device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../IR/check.h"

#include "vulpy/ir.h"
#include "vulpy/runtime.h"
#include "vulpy/target.h"

/* runtime/internal.h: the choice, without pulling in Vulkan's headers. */
uint32_t vrt__denorm_auto(uint32_t support, uint32_t independence);
bool vrt__denorm_choose(vrt_device_info *info, vrt_denorm_mode mode, vp_diags *d);
bool vrt__denorm_auto_emulate(const vrt_device_info *info);

static void print_diags(const vp_diags *d) {
  char *s = vp_diags_format(d, NULL);
  if (s)
    fputs(s, stderr);
  free(s);
}

enum { F16 = VRT_DENORM_F16, F32 = VRT_DENORM_F32, F64 = VRT_DENORM_F64, TIED = VRT_DENORM_TIED };
enum { OP_EXTENSION = 10, OP_EXT_INST_IMPORT = 11, OP_EXECUTION_MODE = 16, OP_CAPABILITY = 17 };
enum { MODE_DENORM_PRESERVE = 4459, CAP_DENORM_PRESERVE = 4464 };
enum { MODE_INF_NAN = 4461, CAP_INF_NAN = 4466, OP_DECORATE = 71, NO_CONTRACTION = 42 };
enum { OP_FNEGATE = 127, OP_FADD = 129, OP_FSUB = 131, OP_FMUL = 133, OP_FDIV = 136 };
/* VkShaderFloatControlsIndependence */
enum { INDEP_32_ONLY = 0, INDEP_ALL = 1, INDEP_NONE = 2 };

/* A precise-math kernel with float32 and float64 (exp of each), and one
 * with float32 only. */
static const char mixed_vir[] =
    "module \"denorm.vul.py\"\n"
    "buffer @a : f32[] binding(0, 0) readwrite\n"
    "buffer @d : f64[] binding(0, 1) readwrite\n"
    "kernel @main local_size(64, 1, 1) loc(1:1) {\n"
    "  %0 = global_id : vec3<u32> loc(2:5)\n"
    "  %i = extract %0[0] : u32 loc(2:5)\n"
    "  %1 = buffer.load @a[%i] : f32 loc(3:12)\n"
    "  %2 = exp %1 : f32 loc(3:12)\n"
    "  buffer.store @a[%i], %2 loc(3:5)\n"
    "  %3 = buffer.load @d[%i] : f64 loc(4:12)\n"
    "  %4 = log %3 : f64 loc(4:12)\n"
    "  buffer.store @d[%i], %4 loc(4:5)\n"
    "}\n";
static const char f32_vir[] =
    "module \"denorm32.vul.py\"\n"
    "buffer @a : f32[] binding(0, 0) readwrite\n"
    "kernel @main local_size(64, 1, 1) loc(1:1) {\n"
    "  %0 = global_id : vec3<u32> loc(2:5)\n"
    "  %i = extract %0[0] : u32 loc(2:5)\n"
    "  %1 = buffer.load @a[%i] : f32 loc(3:12)\n"
    "  %2 = log2 %1 : f32 loc(3:12)\n"
    "  buffer.store @a[%i], %2 loc(3:5)\n"
    "}\n";

/* GLSL that chose flush-to-zero for float32 itself (GL_EXT_spirv_intrinsics). */
static const char ftz_glsl[] =
    "#version 450\n"
    "#extension GL_EXT_spirv_intrinsics : require\n"
    "spirv_execution_mode(extensions = [\"SPV_KHR_float_controls\"], capabilities = [4465], "
    "4460, 32);\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, binding = 0) buffer B { double b[]; };\n"
    "void main() { b[gl_GlobalInvocationID.x] *= 2.0lf; }\n";

static uint32_t *compile_vir(const char *text, unsigned vulkan, size_t *n) {
  vp_diags d = {0};
  vir_module *m = vir_parse(text, strlen(text), "denorm.vir", &d);
  CHECK(m && vir_verify(m, &d));
  vtg_options o;
  vtg_options_init(&o);
  o.vulkan = vulkan;
  vp_strbuf out = {0};
  bool ok = m && vtg_emit_spirv(m, &o, &out, &d);
  CHECK(ok);
  if (d.count)
    print_diags(&d);
  vp_diags_free(&d);
  vir_module_destroy(m);
  if (!ok) {
    vp_strbuf_free(&out);
    return NULL;
  }
  *n = out.len / 4;
  uint32_t *w = malloc(out.len);
  memcpy(w, out.data, out.len);
  vp_strbuf_free(&out);
  return w;
}

/* What a module declares: modes per width (index 0/1/2 = 16/32/64) for its
 * one entry point, DenormPreserve capabilities, float-controls extensions. */
typedef struct facts {
  int modes[3], caps, exts;
} facts;

static facts scan(const uint32_t *w, size_t n) {
  facts f = {{0, 0, 0}, 0, 0};
  for (size_t i = 5; i < n;) {
    uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
    if (!wc)
      break;
    if (op == OP_EXECUTION_MODE && wc == 4 && w[i + 2] == MODE_DENORM_PRESERVE)
      f.modes[w[i + 3] == 16 ? 0 : w[i + 3] == 32 ? 1 : 2]++;
    if (op == OP_CAPABILITY && w[i + 1] == CAP_DENORM_PRESERVE)
      f.caps++;
    if (op == OP_EXTENSION && strcmp((const char *)(w + i + 1), "SPV_KHR_float_controls") == 0)
      f.exts++;
    i += wc;
  }
  return f;
}

static bool valid(const uint32_t *w, size_t n, unsigned vulkan) {
  vp_diags d = {0};
  bool ok = vtg_spirv_validate(w, n, vulkan, &d);
  if (!ok)
    print_diags(&d);
  vp_diags_free(&d);
  return ok;
}

/* Patches `w` with `widths`; checks the result, then that a second patch
 * changes nothing. Returns the widths added. */
static int patch_checked(const uint32_t *w, size_t n, uint32_t widths, unsigned vulkan,
                         const int want_modes[3]) {
  vp_diags d = {0};
  uint32_t *p = NULL;
  size_t np = 0;
  int added = vrt_spirv_preserve_denorms(w, n, widths, &p, &np, &d);
  CHECK(added > 0 && p && d.count == 0);
  if (added <= 0 || !p) {
    vp_diags_free(&d);
    return added;
  }
  CHECK(valid(p, np, vulkan));
  facts f = scan(p, np);
  for (int k = 0; k < 3; k++)
    CHECK(f.modes[k] == want_modes[k]);
  CHECK(f.caps == 1);
  /* below SPIR-V 1.4 the extension, once; from 1.4 on, only if it was there */
  CHECK(f.exts == (p[1] < 0x00010400 ? 1 : scan(w, n).exts));
  CHECK(p[1] == w[1]); /* the version stays */
  /* patched again: nothing to add */
  uint32_t *again = (uint32_t *)1;
  size_t nagain = 7;
  CHECK(vrt_spirv_preserve_denorms(p, np, widths, &again, &nagain, &d) == 0);
  CHECK(again == NULL && nagain == 0);
  free(p);
  vp_diags_free(&d);
  return added;
}

static void test_compiler_modules(void) {
  static const struct {
    unsigned vulkan;
    uint32_t version;
  } targets[] = {{10, 0x00010000}, {11, 0x00010300}, {12, 0x00010500}, {13, 0x00010600}};
  for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
    unsigned v = targets[t].vulkan;
    size_t n = 0;
    uint32_t *mixed = compile_vir(mixed_vir, v, &n);
    if (!mixed)
      continue;
    CHECK(mixed[1] == targets[t].version);
    facts before = scan(mixed, n);
    CHECK(before.caps == 0 && before.exts == 0 && before.modes[1] == 0);
    /* a device keeping every width independently (NVIDIA's): 32 and the
     * module's 64, not 16 (the module has no float16) */
    CHECK(patch_checked(mixed, n, F16 | F32 | F64, v, (const int[3]){0, 1, 1}) == (F32 | F64));
    /* float32 only */
    CHECK(patch_checked(mixed, n, F32, v, (const int[3]){0, 1, 0}) == F32);
    /* tied widths: all three, used or not */
    CHECK(patch_checked(mixed, n, F16 | F32 | F64 | TIED, v, (const int[3]){1, 1, 1}) ==
          (F16 | F32 | F64));
    /* nothing asked: nothing done */
    vp_diags d = {0};
    uint32_t *p = NULL;
    size_t np = 0;
    CHECK(vrt_spirv_preserve_denorms(mixed, n, 0, &p, &np, &d) == 0 && !p);
    free(mixed);

    uint32_t *f32 = compile_vir(f32_vir, v, &n);
    if (!f32)
      continue;
    CHECK(patch_checked(f32, n, F16 | F32 | F64, v, (const int[3]){0, 1, 0}) == F32);
    free(f32);
    vp_diags_free(&d);
  }
}

/* A module that chose DenormFlushToZero for float32 keeps it; float64 is
 * still added (it has no mode); under tied widths it is left alone. */
static void test_existing_mode(void) {
  vtg_options o;
  vtg_options_init(&o);
  vp_diags d = {0};
  uint32_t *w = NULL;
  size_t n = 0;
  CHECK(vtg_glsl_to_spirv(ftz_glsl, strlen(ftz_glsl), "ftz.glsl", &o, &w, &n, &d));
  if (!w) {
    print_diags(&d);
    vp_diags_free(&d);
    return;
  }
  CHECK(patch_checked(w, n, F32 | F64, 12, (const int[3]){0, 0, 1}) == F64);
  uint32_t *p = NULL;
  size_t np = 0;
  CHECK(vrt_spirv_preserve_denorms(w, n, F16 | F32 | F64 | TIED, &p, &np, &d) == 0 && !p);
  CHECK(vrt_spirv_preserve_denorms(w, n, F32, &p, &np, &d) == 0 && !p);
  free(w);
  vp_diags_free(&d);
}

static void test_malformed(void) {
  size_t n = 0;
  uint32_t *w = compile_vir(f32_vir, 12, &n);
  if (!w)
    return;
  vp_diags d = {0};
  uint32_t *p = NULL;
  size_t np = 0;
  /* cut inside the header sections: an instruction runs past the end */
  size_t cut = 5;
  while (cut < n && (w[cut] & 0xffff) != OP_EXT_INST_IMPORT)
    cut += w[cut] >> 16;
  CHECK(vrt_spirv_preserve_denorms(w, cut + 2, F32, &p, &np, &d) == -1 && !p);
  CHECK(d.nerrors == 1 && strstr(d.items[0].message, "malformed SPIR-V"));
  vp_diags_free(&d);
  uint32_t bogus[6] = {0x03022307, 0x00010500, 0, 1, 0, 0};
  CHECK(vrt_spirv_preserve_denorms(bogus, 6, F32, &p, &np, &d) == -1 && !p);
  CHECK(d.nerrors == 1 && strstr(d.items[0].message, "not SPIR-V"));
  vp_diags_free(&d);
  free(w);
}

static void test_choice(void) {
  /* auto, by support and denormBehaviorIndependence */
  CHECK(vrt__denorm_auto(0, INDEP_ALL) == 0); /* lavapipe */
  CHECK(vrt__denorm_auto(F16 | F64, INDEP_ALL) == 0);
  CHECK(vrt__denorm_auto(F32, INDEP_ALL) == F32);
  CHECK(vrt__denorm_auto(F16 | F32 | F64, INDEP_ALL) == (F16 | F32 | F64)); /* NVIDIA */
  CHECK(vrt__denorm_auto(F32 | F64, INDEP_32_ONLY) == F32);
  CHECK(vrt__denorm_auto(F16 | F32 | F64, INDEP_32_ONLY) == (F16 | F32 | F64 | TIED));
  CHECK(vrt__denorm_auto(F32 | F64, INDEP_NONE) == 0);
  CHECK(vrt__denorm_auto(F16 | F32 | F64, INDEP_NONE) == (F16 | F32 | F64 | TIED));

  vrt_device_info info = {0};
  snprintf(info.name, sizeof info.name, "test device");
  vp_diags d = {0};
  /* a device that keeps float32 */
  info.denorm_support = F32 | F64;
  info.denorm_preserve = F32 | F64;
  CHECK(vrt__denorm_choose(&info, VRT_DENORM_MODE_AUTO, &d) && info.denorm_preserve == (F32 | F64));
  CHECK(vrt__denorm_choose(&info, VRT_DENORM_MODE_AUTO, &d) && info.denorm_preserve == (F32 | F64));
  CHECK(vrt__denorm_choose(&info, VRT_DENORM_MODE_PRESERVE, &d) &&
        info.denorm_preserve == (F32 | F64));
  CHECK(vrt__denorm_choose(&info, VRT_DENORM_MODE_DEFAULT, &d) && info.denorm_preserve == 0);
  CHECK(d.count == 0);
  /* one that cannot: preserve is an error naming the property */
  info.denorm_support = 0;
  info.denorm_preserve = 0;
  CHECK(!vrt__denorm_choose(&info, VRT_DENORM_MODE_PRESERVE, &d));
  CHECK(d.nerrors == 1 && strstr(d.items[0].message, "shaderDenormPreserveFloat32 = false") &&
        strstr(d.items[0].message, "test device"));
  vp_diags_free(&d);
  /* one whose widths are tied to widths it cannot keep */
  info.denorm_support = F32 | F64;
  CHECK(!vrt__denorm_choose(&info, VRT_DENORM_MODE_PRESERVE, &d));
  CHECK(d.nerrors == 1 && strstr(d.items[0].message, "float16 and float64"));
  vp_diags_free(&d);
  /* a value outside the enum (VULPY_DENORM's spellings: test_env.c) */
  CHECK(!vrt__denorm_choose(&info, (vrt_denorm_mode)9, &d));
  CHECK(d.nerrors == 1 && strstr(d.items[0].message, "vrt_context_options.denorm = 9") &&
        strstr(d.items[0].message, "emulate"));
  vp_diags_free(&d);
}

/* Where the float32 helpers emulate subnormals (VP_DENORM_EMULATE). */
static void test_emulate_choice(void) {
  enum { DRIVER_NVIDIA = 4, DRIVER_LLVMPIPE = 13, DRIVER_RADV = 3 }; /* VkDriverId */
  vrt_device_info nv = {.driver_id = DRIVER_NVIDIA, .denorm_support = F16,
                        .denorm_preserve = 0};                 /* the H200 */
  vrt_device_info lvp = {.driver_id = DRIVER_LLVMPIPE};         /* keeps them unasked */
  vrt_device_info radv = {.driver_id = DRIVER_RADV, .denorm_support = F16 | F32 | F64,
                          .denorm_preserve = F16 | F32 | F64}; /* DenormPreserve instead */
  CHECK(vrt__denorm_auto_emulate(&nv));
  CHECK(!vrt__denorm_auto_emulate(&lvp));
  CHECK(!vrt__denorm_auto_emulate(&radv));
  vp_diags d = {0};
  nv.denorm_emulate = true;
  CHECK(vrt__denorm_choose(&nv, VRT_DENORM_MODE_AUTO, &d) &&
        nv.denorm_emulate && nv.denorm_preserve == 0);
  CHECK(vrt__denorm_choose(&nv, VRT_DENORM_MODE_DEFAULT, &d) && !nv.denorm_emulate);
  CHECK(vrt__denorm_choose(&lvp, VRT_DENORM_MODE_EMULATE, &d) &&
        lvp.denorm_emulate && lvp.denorm_preserve == 0);
  radv.denorm_emulate = false;
  CHECK(vrt__denorm_choose(&radv, VRT_DENORM_MODE_EMULATE, &d) &&
        radv.denorm_emulate && radv.denorm_preserve == 0);
  radv.denorm_preserve = F16 | F32 | F64;
  CHECK(vrt__denorm_choose(&radv, VRT_DENORM_MODE_PRESERVE, &d) && !radv.denorm_emulate);
  CHECK(d.count == 0);
  CHECK(VRT_DENORM_SPEC_ID == VTG_DENORM_SPEC_ID);
}

/* SignedZeroInfNanPreserve: one mode per width used, the capability, the
 * extension below SPIR-V 1.4, valid, and a second patch adds nothing. */
static void test_inf_nan(void) {
  static const unsigned vulkans[] = {10, 11, 12, 13};
  for (size_t t = 0; t < sizeof vulkans / sizeof *vulkans; t++) {
    size_t n = 0;
    uint32_t *w = compile_vir(mixed_vir, vulkans[t], &n);
    if (!w)
      continue;
    vp_diags d = {0};
    uint32_t *p = NULL, *again = NULL;
    size_t np = 0, nagain = 0;
    /* TIED means nothing here: 16 is not added to a module without float16 */
    CHECK(vrt_spirv_keep_inf_nan(w, n, F16 | F32 | F64 | TIED, &p, &np, &d) == (F32 | F64));
    if (p) {
      CHECK(valid(p, np, vulkans[t]));
      int modes[3] = {0, 0, 0}, caps = 0, exts = 0;
      for (size_t i = 5; i < np && (p[i] >> 16);) {
        uint32_t wc = p[i] >> 16, op = p[i] & 0xffff;
        if (op == OP_EXECUTION_MODE && wc == 4 && p[i + 2] == MODE_INF_NAN)
          modes[p[i + 3] == 16 ? 0 : p[i + 3] == 32 ? 1 : 2]++;
        caps += op == OP_CAPABILITY && p[i + 1] == CAP_INF_NAN;
        exts += op == OP_EXTENSION &&
                strcmp((const char *)(p + i + 1), "SPV_KHR_float_controls") == 0;
        i += wc;
      }
      CHECK(modes[0] == 0 && modes[1] == 1 && modes[2] == 1 && caps == 1);
      CHECK(exts == (p[1] < 0x00010400 ? 1 : 0));
      /* with DenormPreserve on top: one extension, both capabilities, valid */
      uint32_t *both = NULL;
      size_t nboth = 0;
      CHECK(vrt_spirv_preserve_denorms(p, np, F32 | F64, &both, &nboth, &d) == (F32 | F64));
      if (both) {
        CHECK(valid(both, nboth, vulkans[t]));
        CHECK(scan(both, nboth).exts == (p[1] < 0x00010400 ? 1 : 0));
        free(both);
      }
      CHECK(vrt_spirv_keep_inf_nan(p, np, F16 | F32 | F64, &again, &nagain, &d) == 0 &&
            !again);
      free(p);
    }
    CHECK(d.count == 0);
    free(w);
    vp_diags_free(&d);
  }
}

/* A kernel with float arithmetic of two widths and a vector product. */
static const char arith_vir[] =
    "module \"exact.vul.py\"\n"
    "buffer @a : f32[] binding(0, 0) readwrite\n"
    "buffer @d : f64[] binding(0, 1) readwrite\n"
    "kernel @main local_size(64, 1, 1) loc(1:1) {\n"
    "  %0 = global_id : vec3<u32> loc(2:5)\n"
    "  %i = extract %0[0] : u32 loc(2:5)\n"
    "  %1 = buffer.load @a[%i] : f32 loc(3:12)\n"
    "  %2 = sub %1, %1 : f32 loc(3:12)\n"
    "  %3 = mul %2, %1 : f32 loc(3:12)\n"
    "  %4 = div %3, %1 : f32 loc(3:12)\n"
    "  %5 = neg %4 : f32 loc(3:12)\n"
    "  buffer.store @a[%i], %5 loc(3:5)\n"
    "  %6 = buffer.load @d[%i] : f64 loc(4:12)\n"
    "  %7 = add %6, %6 : f64 loc(4:12)\n"
    "  buffer.store @d[%i], %7 loc(4:5)\n"
    "}\n";

/* NoContraction: every float arithmetic result decorated once, nothing
 * else, valid, and a second patch adds nothing. */
static void test_no_contraction(void) {
  static const unsigned vulkans[] = {10, 13};
  for (size_t t = 0; t < sizeof vulkans / sizeof *vulkans; t++) {
    size_t n = 0;
    uint32_t *w = compile_vir(arith_vir, vulkans[t], &n);
    if (!w)
      continue;
    int arith = 0;
    for (size_t i = 5; i < n && (w[i] >> 16); i += w[i] >> 16) {
      uint32_t op = w[i] & 0xffff;
      arith += op == OP_FNEGATE || op == OP_FADD || op == OP_FSUB || op == OP_FMUL ||
               op == OP_FDIV;
    }
    CHECK(arith >= 4); /* sub, mul, div, add (neg flips the sign bit) */
    vp_diags d = {0};
    uint32_t *p = NULL, *again = NULL;
    size_t np = 0, nagain = 0;
    CHECK(vrt_spirv_no_contraction(w, n, &p, &np, &d) == arith);
    if (p) {
      CHECK(np == n + 3 * (size_t)arith && valid(p, np, vulkans[t]));
      /* each float result has exactly one decoration */
      uint32_t bound = p[3];
      uint8_t *dec = calloc(bound, 1);
      for (size_t i = 5; i < np && (p[i] >> 16); i += p[i] >> 16)
        if ((p[i] & 0xffff) == OP_DECORATE && p[i + 2] == NO_CONTRACTION && p[i + 1] < bound)
          dec[p[i + 1]]++;
      for (size_t i = 5; i < np && (p[i] >> 16); i += p[i] >> 16) {
        uint32_t op = p[i] & 0xffff;
        if (op == OP_FNEGATE || op == OP_FADD || op == OP_FSUB || op == OP_FMUL ||
            op == OP_FDIV)
          CHECK(dec[p[i + 2]] == 1);
      }
      free(dec);
      CHECK(vrt_spirv_no_contraction(p, np, &again, &nagain, &d) == 0 && !again);
      free(p);
    }
    uint32_t bogus[6] = {0x03022307, 0x00010500, 0, 1, 0, 0};
    CHECK(vrt_spirv_no_contraction(bogus, 6, &p, &np, &d) == -1 && !p);
    CHECK(d.nerrors == 1 && strstr(d.items[0].message, "not SPIR-V"));
    free(w);
    vp_diags_free(&d);
  }
}

int main(void) {
  test_compiler_modules();
  test_inf_nan();
  test_no_contraction();
  test_existing_mode();
  test_malformed();
  test_choice();
  test_emulate_choice();
  if (check_failures)
    fprintf(stderr, "%d check(s) failed\n", check_failures);
  else
    printf("denorm: all checks passed\n");
  return check_failures ? 1 : 0;
}
