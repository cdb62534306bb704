/* denorm.c - keeping subnormals: the DenormPreserve execution mode.
 *
 * Vulkan lets a driver flush subnormal floats to zero unless the shader asks
 * for the SPIR-V execution mode DenormPreserve (SPV_KHR_float_controls, core
 * in SPIR-V 1.4), and NVIDIA's driver flushes float32 by default: exp of a
 * large negative number becomes 0 and log of a subnormal -inf (docs/math.md,
 * "Subnormals"). The precise math promises NumPy's results there, so the
 * runtime adds the mode to the kernels VulPy compiled with precise math,
 * for the widths the device can keep (shaderDenormPreserveFloat16/32/64).
 * It is an execution mode, not a specialization constant, so the module
 * itself is patched when its pipeline is made: one OpCapability, one
 * OpExtension below SPIR-V 1.4, and one OpExecutionMode per entry point and
 * width, each in the section where SPIR-V's logical layout wants it.
 *
 * The per-device choice (what denorm mode auto means) lives here too: a
 * device whose denormal modes are tied across widths
 * (denormBehaviorIndependence) gets either every tied width or none.
 *
 * The same kernels get their float arithmetic kept as written, as NumPy
 * computes it: SignedZeroInfNanPreserve where the device offers it (inf,
 * NaN and -0.0 are not assumed away), and a NoContraction decoration on
 * every float arithmetic instruction (without them Mesa's NIR folds x - x
 * to 0, (x + 1e20) - 1e20 to x and x * 0.0 to 0, and NVIDIA's compiler
 * still folds (x + 1e20) - 1e20 under SignedZeroInfNanPreserve).
 */
#include "internal.h"

#include <spirv/unified1/spirv.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- the choice */

uint32_t vrt__denorm_auto(uint32_t support, uint32_t independence) {
  if (!(support & VRT_DENORM_F32))
    return 0;
  uint32_t pair = VRT_DENORM_F16 | VRT_DENORM_F64;
  switch (independence) {
  case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL:
    return support & (pair | VRT_DENORM_F32);
  case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY:
    /* 16 and 64 bits share one mode: both kept, or neither given one. */
    return VRT_DENORM_F32 | ((support & pair) == pair ? pair | VRT_DENORM_TIED : 0);
  default: /* NONE: one mode for all three widths */
    return (support & (pair | VRT_DENORM_F32)) == (pair | VRT_DENORM_F32)
               ? pair | VRT_DENORM_F32 | VRT_DENORM_TIED
               : 0;
  }
}

/* Where float32 gets no DenormPreserve, the helpers emulate subnormals
 * unless the device is known to keep them by itself: lavapipe (measured:
 * it reports neither preserve nor flush and keeps them). Every other such
 * device is taken to flush, as NVIDIA's does (the H200 reports
 * shaderDenormPreserveFloat32 = false and flushes): the subnormal-safe
 * paths are right on a device that keeps subnormals too, only slower in
 * branches ordinary arguments do not take. */
bool vrt__denorm_flushes(const vrt_device_info *info) {
  return !(info->denorm_preserve & VRT_DENORM_F32) &&
         info->driver_id != VK_DRIVER_ID_MESA_LLVMPIPE;
}

bool vrt__denorm_auto_emulate(const vrt_device_info *info) { return vrt__denorm_flushes(info); }

const char *vrt_denorm_mode_name(vrt_denorm_mode mode) {
  switch (mode) {
  case VRT_DENORM_MODE_AUTO: return "auto";
  case VRT_DENORM_MODE_DEFAULT: return "default";
  case VRT_DENORM_MODE_PRESERVE: return "preserve";
  case VRT_DENORM_MODE_EMULATE: return "emulate";
  }
  return NULL;
}

bool vrt__denorm_choose(vrt_device_info *info, vrt_denorm_mode mode, vp_diags *d) {
  switch (mode) {
  case VRT_DENORM_MODE_AUTO:
    return true; /* info->denorm_preserve/emulate are the device's auto choice */
  case VRT_DENORM_MODE_DEFAULT:
    info->denorm_preserve = 0;
    info->denorm_emulate = false;
    return true;
  case VRT_DENORM_MODE_EMULATE:
    info->denorm_preserve = 0;
    info->denorm_emulate = true;
    return true;
  case VRT_DENORM_MODE_PRESERVE:
    break;
  default:
    vp_error(d, (vp_loc){0},
             "vrt_context_options.denorm = %d is not a vrt_denorm_mode (auto, default, "
             "preserve, emulate)",
             (int)mode);
    return false;
  }
  if (info->denorm_preserve & VRT_DENORM_F32) {
    info->denorm_emulate = false;
    return true;
  }
  if (!(info->denorm_support & VRT_DENORM_F32))
    vp_error(d, (vp_loc){0},
             "denorm mode preserve (VULPY_DENORM=preserve): device '%s' cannot keep float32 "
             "subnormals in a shader (it reports shaderDenormPreserveFloat32 = false)",
             info->name);
  else
    vp_error(d, (vp_loc){0},
             "denorm mode preserve (VULPY_DENORM=preserve): device '%s' keeps float32 "
             "subnormals only with the same mode for float16 and float64, which it cannot keep",
             info->name);
  vp_diag_hint(d, "unset VULPY_DENORM (or set it to auto or default; in C, "
                  "vrt_context_options.denorm): the device's own handling of subnormals then "
                  "applies (docs/runtime.md)");
  return false;
}

/* ------------------------------------------------------------ the patch */

enum {
  EXT_WORDS = 7, /* OpExtension "SPV_KHR_float_controls" (22 chars + NUL: 6 words) */
  CAP_WORDS = 2,
  MODE_WORDS = 4,
  SPIRV_1_4 = 0x00010400,
};
static const char float_controls[] = "SPV_KHR_float_controls";

typedef struct entry {
  uint32_t id;
  uint32_t have; /* widths with a denormal mode already (VRT_DENORM_F*) */
  uint32_t add;  /* widths to add */
} entry;

static uint32_t width_bit(uint32_t width) {
  return width == 16 ? VRT_DENORM_F16 : width == 32 ? VRT_DENORM_F32
                                      : width == 64 ? VRT_DENORM_F64
                                                    : 0;
}

static int bad(vp_diags *d, const char *what, size_t word) {
  vp_error(d, (vp_loc){0}, "malformed SPIR-V: %s (word %zu)", what, word);
  return -1;
}

/* Appends OpExecutionMode %id <mode> <w> for each width in `add`, 16, 32,
 * 64 in that order. */
static uint32_t *put_modes(uint32_t *o, uint32_t id, uint32_t mode, uint32_t add) {
  static const uint32_t widths[3] = {16, 32, 64};
  for (int k = 0; k < 3; k++)
    if (add & width_bit(widths[k])) {
      *o++ = (MODE_WORDS << 16) | SpvOpExecutionMode;
      *o++ = id;
      *o++ = mode;
      *o++ = widths[k];
    }
  return o;
}

/* One float-controls execution mode for every entry point (the two public
 * functions below): `mode` for the widths of `widths`, with `cap`; an
 * entry point's width with `mode` or `other` already keeps it, and under
 * VRT_DENORM_TIED an entry point with any of them is left alone. */
static int add_float_mode(const uint32_t *words, size_t nwords, uint32_t mode, uint32_t other,
                          uint32_t cap, uint32_t widths, uint32_t **out, size_t *nout,
                          vp_diags *d) {
  *out = NULL;
  *nout = 0;
  if (nwords < 5 || words[0] != SpvMagicNumber) {
    vp_error(d, (vp_loc){0}, "not SPIR-V: no module header");
    return -1;
  }
  /* One pass over the sections before the first function: where each of
   * the three insertions goes, what is declared already. */
  size_t cap_end = 5, ext_end = 0, mode_end = 0;
  bool have_cap = false, have_ext = false, float16 = false, float64 = false;
  entry *entries = NULL;
  uint32_t nentries = 0;
  for (size_t i = 5; i < nwords;) {
    uint32_t wc = words[i] >> 16, op = words[i] & 0xffff;
    if (wc == 0 || wc > nwords - i) {
      free(entries);
      return bad(d, "an instruction runs past the end of the module", i);
    }
    const uint32_t *ins = words + i;
    if (op == SpvOpFunction)
      break;
    switch (op) {
    case SpvOpCapability:
      if (wc >= 2) {
        have_cap |= ins[1] == cap;
        float16 |= ins[1] == SpvCapabilityFloat16;
        float64 |= ins[1] == SpvCapabilityFloat64;
      }
      cap_end = i + wc;
      break;
    case SpvOpExtension:
      have_ext |= (wc - 1) * 4 >= sizeof float_controls &&
                  memcmp(ins + 1, float_controls, sizeof float_controls) == 0;
      ext_end = i + wc;
      break;
    case SpvOpEntryPoint: {
      if (wc < 4) {
        free(entries);
        return bad(d, "OpEntryPoint is too short", i);
      }
      entry *e = realloc(entries, (nentries + 1) * sizeof *e);
      if (!e) {
        free(entries);
        vp_error(d, (vp_loc){0}, "out of host memory");
        return -1;
      }
      entries = e;
      entries[nentries++] = (entry){ins[2], 0, 0};
      mode_end = i + wc;
      break;
    }
    case SpvOpExecutionMode:
      if (wc >= 4 && (ins[2] == mode || (other && ins[2] == other)))
        for (uint32_t k = 0; k < nentries; k++)
          if (entries[k].id == ins[1])
            entries[k].have |= width_bit(ins[3]);
      mode_end = i + wc;
      break;
    case SpvOpExecutionModeId:
      mode_end = i + wc;
      break;
    default:
      break;
    }
    i += wc;
  }
  /* float32 always; float16/float64 where the module has them, or always
   * when the device ties their mode to the others'. */
  bool tied = widths & VRT_DENORM_TIED;
  uint32_t want = widths & VRT_DENORM_F32;
  if (tied || float16)
    want |= widths & VRT_DENORM_F16;
  if (tied || float64)
    want |= widths & VRT_DENORM_F64;
  uint32_t added = 0, added_widths = 0;
  for (uint32_t k = 0; k < nentries; k++) {
    /* Tied widths must share one mode: an entry that chose one for some
     * width already is left as it is. */
    entries[k].add = tied && entries[k].have ? 0 : want & ~entries[k].have;
    added_widths |= entries[k].add;
    for (uint32_t b = entries[k].add; b; b &= b - 1)
      added++;
  }
  if (!added) {
    free(entries);
    return 0;
  }
  bool need_ext = words[1] < SPIRV_1_4 && !have_ext;
  size_t ext_at = ext_end ? ext_end : cap_end;
  size_t n = nwords + (have_cap ? 0 : CAP_WORDS) + (need_ext ? EXT_WORDS : 0) +
             (size_t)added * MODE_WORDS;
  uint32_t *o = malloc(n * sizeof *o), *p = o;
  if (!o) {
    free(entries);
    vp_error(d, (vp_loc){0}, "out of host memory");
    return -1;
  }
  /* Copy, inserting at instruction boundaries: the capability after the
   * last OpCapability, the extension after the last OpExtension (or the
   * capabilities), the modes after the last entry point or mode. The scan
   * checked every instruction up to the last of these points; the rest of
   * the module is copied as it is. */
  size_t last = mode_end > ext_at ? mode_end : ext_at;
  last = last > cap_end ? last : cap_end;
  memcpy(p, words, 5 * sizeof *p);
  p += 5;
  for (size_t i = 5;;) {
    if (i == cap_end && !have_cap) {
      *p++ = (CAP_WORDS << 16) | SpvOpCapability;
      *p++ = cap;
    }
    if (i == ext_at && need_ext) {
      *p++ = (EXT_WORDS << 16) | SpvOpExtension;
      memset(p, 0, (EXT_WORDS - 1) * sizeof *p);
      memcpy(p, float_controls, sizeof float_controls);
      p += EXT_WORDS - 1;
    }
    if (i == mode_end)
      for (uint32_t k = 0; k < nentries; k++)
        p = put_modes(p, entries[k].id, mode, entries[k].add);
    if (i >= last) {
      memcpy(p, words + i, (nwords - i) * sizeof *p);
      p += nwords - i;
      break;
    }
    uint32_t wc = words[i] >> 16;
    memcpy(p, words + i, wc * sizeof *p);
    p += wc;
    i += wc;
  }
  free(entries);
  *out = o;
  *nout = n;
  return (int)added_widths;
}

int vrt_spirv_preserve_denorms(const uint32_t *words, size_t nwords, uint32_t widths,
                               uint32_t **out, size_t *nout, vp_diags *d) {
  return add_float_mode(words, nwords, SpvExecutionModeDenormPreserve,
                        SpvExecutionModeDenormFlushToZero, SpvCapabilityDenormPreserve, widths,
                        out, nout, d);
}

int vrt_spirv_keep_inf_nan(const uint32_t *words, size_t nwords, uint32_t widths,
                           uint32_t **out, size_t *nout, vp_diags *d) {
  return add_float_mode(words, nwords, SpvExecutionModeSignedZeroInfNanPreserve, 0,
                        SpvCapabilitySignedZeroInfNanPreserve,
                        widths & ~(uint32_t)VRT_DENORM_TIED, out, nout, d);
}

/* ------------------------------------------------ arithmetic as written */

/* The float arithmetic instructions NoContraction applies to. (Decorating
 * OpFConvert too did not keep NVIDIA's compiler from dropping the float16
 * rounding in float(float16_t(x + c)) - c: docs/runtime.md.) */
static bool float_arithmetic(uint32_t op) {
  switch (op) {
  case SpvOpFNegate:
  case SpvOpFAdd:
  case SpvOpFSub:
  case SpvOpFMul:
  case SpvOpFDiv:
  case SpvOpFRem:
  case SpvOpFMod:
  case SpvOpVectorTimesScalar:
  case SpvOpMatrixTimesScalar:
  case SpvOpVectorTimesMatrix:
  case SpvOpMatrixTimesVector:
  case SpvOpMatrixTimesMatrix:
  case SpvOpOuterProduct:
  case SpvOpDot:
    return true;
  default:
    return false;
  }
}

/* The sections before the first type: capabilities to annotations. */
static bool before_types(uint32_t op) {
  switch (op) {
  case SpvOpCapability:
  case SpvOpExtension:
  case SpvOpExtInstImport:
  case SpvOpMemoryModel:
  case SpvOpEntryPoint:
  case SpvOpExecutionMode:
  case SpvOpExecutionModeId:
  case SpvOpSourceContinued:
  case SpvOpSource:
  case SpvOpSourceExtension:
  case SpvOpName:
  case SpvOpMemberName:
  case SpvOpString:
  case SpvOpModuleProcessed:
  case SpvOpDecorate:
  case SpvOpMemberDecorate:
  case SpvOpDecorationGroup:
  case SpvOpGroupDecorate:
  case SpvOpGroupMemberDecorate:
  case SpvOpDecorateId:
  case SpvOpDecorateString:
  case SpvOpMemberDecorateString:
    return true;
  default:
    return false;
  }
}

int vrt_spirv_no_contraction(const uint32_t *words, size_t nwords, uint32_t **out, size_t *nout,
                             vp_diags *d) {
  *out = NULL;
  *nout = 0;
  if (nwords < 5 || words[0] != SpvMagicNumber) {
    vp_error(d, (vp_loc){0}, "not SPIR-V: no module header");
    return -1;
  }
  uint32_t bound = words[3];
  /* 1: decorated already (or an id out of bound), 2: to decorate */
  uint8_t *mark = calloc(bound ? bound : 1, 1);
  if (!mark) {
    vp_error(d, (vp_loc){0}, "out of host memory");
    return -1;
  }
  size_t at = 0, added = 0;
  for (size_t i = 5; i < nwords;) {
    uint32_t wc = words[i] >> 16, op = words[i] & 0xffff;
    if (wc == 0 || wc > nwords - i) {
      free(mark);
      return bad(d, "an instruction runs past the end of the module", i);
    }
    const uint32_t *ins = words + i;
    if (!at && !before_types(op))
      at = i;
    if (op == SpvOpDecorate && wc >= 3 && ins[2] == SpvDecorationNoContraction &&
        ins[1] < bound)
      mark[ins[1]] = 1;
    else if (float_arithmetic(op) && wc >= 3) {
      if (ins[2] >= bound) {
        free(mark);
        return bad(d, "a result id past the module's bound", i);
      }
      if (!mark[ins[2]]) {
        mark[ins[2]] = 2;
        added++;
      }
    }
    i += wc;
  }
  if (!added || !at) {
    free(mark);
    return 0;
  }
  size_t n = nwords + 3 * added;
  uint32_t *o = malloc(n * sizeof *o);
  if (!o) {
    free(mark);
    vp_error(d, (vp_loc){0}, "out of host memory");
    return -1;
  }
  /* The decorations go at the end of the annotations, before the first
   * type: the module up to `at`, one OpDecorate per result, the rest. */
  memcpy(o, words, at * sizeof *o);
  uint32_t *p = o + at;
  for (uint32_t id = 0; id < bound; id++)
    if (mark[id] == 2) {
      *p++ = (3u << 16) | SpvOpDecorate;
      *p++ = id;
      *p++ = SpvDecorationNoContraction;
    }
  memcpy(p, words + at, (nwords - at) * sizeof *p);
  free(mark);
  *out = o;
  *nout = n;
  return (int)added;
}
