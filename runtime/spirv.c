/* spirv.c - reading a kernel's interface from SPIR-V words, and validation.
 *
 * The runtime checks a manifest against the module it describes, so it needs
 * a few facts from the SPIR-V: the GLCompute entry points, the local size
 * (literal, or specialization constants, through LocalSize, LocalSizeId or the
 * WorkgroupSize built-in), the (set, binding) of every buffer variable, and
 * the size of the push-constant block. One pass over the instructions records,
 * per result id, the defining opcode and its operands and the decorations;
 * the facts are read from that table. Malformed modules (bad magic, an
 * instruction running past the end, an id past the bound) are errors, so
 * nothing malformed reaches the driver. Full validation is SPIRV-Tools'
 * (spirv_validate.c); this file needs no library, so fuzz_spirv_reflect
 * fuzzes it on its own.
 */
#include "internal.h"

#include <stdio.h>
#include <spirv/unified1/spirv.h>
#include <stdlib.h>
#include <string.h>

typedef struct id_info {
  uint32_t op;      /* defining opcode, 0 if none */
  uint32_t word;    /* index of the defining instruction */
  int32_t spec_id;  /* SpecId decoration, -1 */
  int32_t set, binding, builtin;
  uint32_t array_stride;
  bool block, buffer_block;
} id_info;

typedef struct member_offset {
  uint32_t type, member, offset;
} member_offset;

typedef struct module {
  const uint32_t *w;
  size_t n;
  uint32_t bound;
  id_info *ids;
  member_offset *offsets;
  uint32_t noffsets, capoffsets;
} module;

static bool add_offset(module *m, uint32_t type, uint32_t member, uint32_t offset) {
  if (m->noffsets == m->capoffsets) {
    uint32_t cap = m->capoffsets ? m->capoffsets * 2 : 32;
    member_offset *p = realloc(m->offsets, cap * sizeof *p);
    if (!p)
      return false;
    m->offsets = p;
    m->capoffsets = cap;
  }
  m->offsets[m->noffsets++] = (member_offset){type, member, offset};
  return true;
}

/* The literal value of a 32-bit constant or spec constant id, or 0. */
static uint32_t const_value(module *m, uint32_t id) {
  if (id >= m->bound || !m->ids[id].op)
    return 0;
  const uint32_t *ins = m->w + m->ids[id].word;
  uint32_t op = m->ids[id].op;
  if ((op == SpvOpConstant || op == SpvOpSpecConstant) && (ins[0] >> 16) >= 4)
    return ins[3];
  return 0;
}

/* Byte size of a type as laid out in a block (std430/push constants). */
static uint32_t type_size(module *m, uint32_t id, int depth) {
  if (id >= m->bound || !m->ids[id].op || depth > 16)
    return 0;
  const uint32_t *ins = m->w + m->ids[id].word;
  uint32_t wc = ins[0] >> 16;
  switch (m->ids[id].op) {
  case SpvOpTypeBool: return 4;
  case SpvOpTypeInt:
  case SpvOpTypeFloat: return wc >= 3 ? ins[2] / 8 : 0;
  case SpvOpTypeVector: return wc >= 4 ? type_size(m, ins[2], depth + 1) * ins[3] : 0;
  case SpvOpTypeMatrix: {
    uint32_t col = wc >= 4 ? type_size(m, ins[2], depth + 1) : 0;
    return (col % 16 ? (col + 15) / 16 * 16 : col) * (wc >= 4 ? ins[3] : 0);
  }
  case SpvOpTypeArray: {
    if (wc < 4)
      return 0;
    uint32_t stride = m->ids[id].array_stride ? m->ids[id].array_stride
                                              : type_size(m, ins[2], depth + 1);
    return stride * const_value(m, ins[3]);
  }
  case SpvOpTypeStruct: {
    uint32_t size = 0;
    for (uint32_t i = 2; i < wc; i++) {
      uint32_t member = i - 2, offset = 0;
      for (uint32_t k = 0; k < m->noffsets; k++)
        if (m->offsets[k].type == id && m->offsets[k].member == member)
          offset = m->offsets[k].offset;
      uint32_t end = offset + type_size(m, ins[i], depth + 1);
      size = end > size ? end : size;
    }
    return size;
  }
  default: return 0;
  }
}

/* A local-size component given by id: its value and, if it is a spec
 * constant with a SpecId, that id. */
static void size_component(module *m, uint32_t id, vrt_spirv_info *out, int dim) {
  out->local[dim] = const_value(m, id);
  if (id < m->bound && m->ids[id].op == SpvOpSpecConstant)
    out->spec_id[dim] = m->ids[id].spec_id;
}

/* Where the result id of the instructions we read sits (0: not one of them). */
static uint32_t result_position(uint32_t op) {
  switch (op) {
  case SpvOpTypeBool: case SpvOpTypeInt: case SpvOpTypeFloat: case SpvOpTypeVector:
  case SpvOpTypeMatrix: case SpvOpTypeArray: case SpvOpTypeRuntimeArray: case SpvOpTypeStruct:
  case SpvOpTypePointer:
    return 1;
  case SpvOpConstant: case SpvOpConstantComposite: case SpvOpSpecConstant:
  case SpvOpSpecConstantComposite: case SpvOpVariable:
    return 2;
  default:
    return 0;
  }
}

static bool malformed(vp_diags *d, const char *what, size_t word) {
  vp_error(d, (vp_loc){0}, "malformed SPIR-V: %s (word %zu)", what, word);
  return false;
}

bool vrt__spirv_reflect(const uint32_t *words, size_t nwords, const char *entry,
                        vrt_spirv_info *out, vp_diags *d) {
  memset(out, 0, sizeof *out);
  out->spec_id[0] = out->spec_id[1] = out->spec_id[2] = -1;
  out->local[0] = out->local[1] = out->local[2] = 1;
  if (nwords < 5) {
    vp_error(d, (vp_loc){0}, "not SPIR-V: %zu bytes is shorter than a module header",
             nwords * 4);
    return false;
  }
  if (words[0] != SpvMagicNumber) {
    vp_error(d, (vp_loc){0}, "not SPIR-V: the magic number is 0x%08x, not 0x07230203%s",
             words[0], words[0] == 0x03022307 ? " (the module is byte-swapped)" : "");
    return false;
  }
  module m = {words, nwords, words[3], NULL, NULL, 0, 0};
  if (m.bound == 0 || m.bound > (1u << 22))
    return malformed(d, "id bound out of range", 3);
  m.ids = calloc(m.bound, sizeof *m.ids);
  if (!m.ids) {
    vp_error(d, (vp_loc){0}, "out of host memory");
    return false;
  }
  for (uint32_t i = 0; i < m.bound; i++)
    m.ids[i].spec_id = m.ids[i].set = m.ids[i].binding = m.ids[i].builtin = -1;

  bool ok = true;
  uint32_t entry_id = UINT32_MAX;
  size_t nentries = 0;
  /* Pass 1: definitions and decorations. */
  for (size_t i = 5; i < nwords && ok;) {
    uint32_t wc = words[i] >> 16, op = words[i] & 0xffff;
    if (wc == 0 || i + wc > nwords) {
      ok = malformed(d, "an instruction runs past the end of the module", i);
      break;
    }
    const uint32_t *ins = words + i;
    uint32_t rpos = result_position(op);
    if (rpos && wc > rpos) {
      uint32_t id = ins[rpos];
      if (id >= m.bound) {
        ok = malformed(d, "a result id is past the id bound", i);
        break;
      }
      m.ids[id].op = op;
      m.ids[id].word = (uint32_t)i;
    }
    switch (op) {
    case SpvOpEntryPoint: {
      if (wc < 4) {
        ok = malformed(d, "OpEntryPoint is too short", i);
        break;
      }
      const char *name = (const char *)(ins + 3);
      size_t maxlen = (wc - 3) * 4;
      if (strnlen(name, maxlen) == maxlen) {
        ok = malformed(d, "OpEntryPoint name is not terminated", i);
        break;
      }
      if (ins[1] == SpvExecutionModelGLCompute) {
        size_t len = strlen(out->entries);
        snprintf(out->entries + len, sizeof out->entries - len, "%s'%s'", nentries ? ", " : "",
                 name);
        nentries++;
        if (strcmp(name, entry) == 0)
          entry_id = ins[2];
      }
      break;
    }
    case SpvOpDecorate:
      if (wc >= 3 && ins[1] < m.bound) {
        id_info *t = &m.ids[ins[1]];
        uint32_t v = wc >= 4 ? ins[3] : 0;
        switch (ins[2]) {
        case SpvDecorationSpecId: t->spec_id = (int32_t)v; break;
        case SpvDecorationDescriptorSet: t->set = (int32_t)v; break;
        case SpvDecorationBinding: t->binding = (int32_t)v; break;
        case SpvDecorationBuiltIn: t->builtin = (int32_t)v; break;
        case SpvDecorationArrayStride: t->array_stride = v; break;
        case SpvDecorationBlock: t->block = true; break;
        case SpvDecorationBufferBlock: t->buffer_block = true; break;
        default: break;
        }
      }
      break;
    case SpvOpMemberDecorate:
      if (wc >= 5 && ins[3] == SpvDecorationOffset && !add_offset(&m, ins[1], ins[2], ins[4]))
        ok = malformed(d, "out of memory", i);
      break;
    default:
      break;
    }
    i += wc;
  }
  if (ok && entry_id == UINT32_MAX) {
    vp_error(d, (vp_loc){0}, "the SPIR-V has no GLCompute entry point '%s'", entry);
    if (nentries)
      vp_diag_hint(d, "its compute entry points: %s", out->entries);
    else
      vp_diag_hint(d, "it has no compute entry point at all");
    ok = false;
  }
  /* Pass 2: the entry's execution modes, variables, the push block. */
  for (size_t i = 5; i < nwords && ok;) {
    uint32_t wc = words[i] >> 16, op = words[i] & 0xffff;
    const uint32_t *ins = words + i;
    if ((op == SpvOpExecutionMode || op == SpvOpExecutionModeId) && wc >= 6 &&
        ins[1] == entry_id) {
      if (op == SpvOpExecutionMode && ins[2] == SpvExecutionModeLocalSize) {
        for (int k = 0; k < 3; k++)
          out->local[k] = ins[3 + k];
      } else if (ins[2] == SpvExecutionModeLocalSizeId) {
        for (int k = 0; k < 3; k++)
          size_component(&m, ins[3 + k], out, k);
      }
    } else if (op == SpvOpVariable && wc >= 4) {
      uint32_t var = ins[2], storage = ins[3], ptr = ins[1];
      uint32_t pointee = ptr < m.bound && m.ids[ptr].op == SpvOpTypePointer
                             ? words[m.ids[ptr].word + 3]
                             : 0;
      if (storage == SpvStorageClassPushConstant) {
        out->push_bytes = type_size(&m, pointee, 0);
      } else if (storage == SpvStorageClassStorageBuffer || storage == SpvStorageClassUniform) {
        if (out->nbindings < 64) {
          id_info *pi = pointee < m.bound ? &m.ids[pointee] : NULL;
          out->bindings[out->nbindings].set = m.ids[var].set < 0 ? 0 : (uint32_t)m.ids[var].set;
          out->bindings[out->nbindings].binding =
              m.ids[var].binding < 0 ? 0 : (uint32_t)m.ids[var].binding;
          out->bindings[out->nbindings].uniform =
              storage == SpvStorageClassUniform && pi && !pi->buffer_block;
          out->nbindings++;
        }
      }
    }
    i += wc;
  }
  /* The WorkgroupSize built-in overrides the execution mode. */
  for (uint32_t id = 0; ok && id < m.bound; id++) {
    if (m.ids[id].builtin != SpvBuiltInWorkgroupSize || !m.ids[id].op)
      continue;
    const uint32_t *ins = words + m.ids[id].word;
    uint32_t wc = ins[0] >> 16;
    if ((m.ids[id].op == SpvOpSpecConstantComposite || m.ids[id].op == SpvOpConstantComposite) &&
        wc >= 6)
      for (int k = 0; k < 3; k++)
        size_component(&m, ins[3 + k], out, k);
  }
  out->found = ok;
  free(m.ids);
  free(m.offsets);
  return ok;
}
