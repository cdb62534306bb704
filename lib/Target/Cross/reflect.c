/* reflect.c - the manifest of any SPIR-V compute module.
 *
 * The runtime checks raw GLSL kernels against what the caller passes, and
 * for that it needs the same manifest a VulPy kernel comes with. SPIRV-Cross
 * reflects the resources (storage buffers with their element type and array
 * stride, the push-constant block with member offsets and sizes, the local
 * size and the specialization constants that override it). A small scan of
 * the words adds what SPIRV-Cross does not report: the capabilities (the
 * manifest's features), the workgroup (shared) variables and the source
 * file name.
 *
 * Buffer names: a block holding only a runtime array is named after the
 * array (VulPy's own `buffer pos_buf { double pos[]; };` gives "pos"),
 * otherwise after the instance, otherwise after the block type.
 * Types are spelled as in VIR (f32, vec4<f32>, @Particle).
 */
#include <stdlib.h>
#include <string.h>

#include "cross_internal.h"
#include "vulpy/target.h"

/* ------------------------------------------------- a scan of the words */

/* Sizes of types declared in the module, for workgroup variables. */
typedef struct scan_type {
  uint32_t size, align;
} scan_type;

typedef struct scan {
  uint32_t features;
  uint32_t shared_bytes;
  const char *source; /* OpString named by OpSource, pointing into the words */
  size_t source_len;
} scan;

static uint32_t feature_of_capability(uint32_t cap) {
  switch (cap) {
  case SpvCapabilityFloat64: return VP_FEAT(FLOAT64);
  case SpvCapabilityInt64: return VP_FEAT(INT64);
  case SpvCapabilityInt16: return VP_FEAT(INT16);
  case SpvCapabilityFloat16: return VP_FEAT(FLOAT16);
  case SpvCapabilityInt8: return VP_FEAT(INT8);
  case SpvCapabilityStorageBuffer8BitAccess:
  case SpvCapabilityUniformAndStorageBuffer8BitAccess: return VP_FEAT(STORAGE8);
  case SpvCapabilityStoragePushConstant8: return VP_FEAT(PUSH8);
  case SpvCapabilityStorageBuffer16BitAccess:
  case SpvCapabilityUniformAndStorageBuffer16BitAccess: return VP_FEAT(STORAGE16);
  case SpvCapabilityStoragePushConstant16: return VP_FEAT(PUSH16);
  case SpvCapabilityInt64Atomics: return VP_FEAT(ATOMIC64);
  case SpvCapabilityAtomicFloat32AddEXT:
  case SpvCapabilityAtomicFloat64AddEXT: return VP_FEAT(ATOMIC_FLOAT);
  case SpvCapabilityGroupNonUniform: return VP_FEAT(SUBGROUP_BASIC);
  case SpvCapabilityGroupNonUniformArithmetic: return VP_FEAT(SUBGROUP_ARITH);
  case SpvCapabilityGroupNonUniformBallot: return VP_FEAT(SUBGROUP_BALLOT);
  case SpvCapabilityGroupNonUniformShuffle: return VP_FEAT(SUBGROUP_SHUFFLE);
  case SpvCapabilityGroupNonUniformShuffleRelative: return VP_FEAT(SUBGROUP_SHUFFLE_REL);
  case SpvCapabilityGroupNonUniformVote: return VP_FEAT(SUBGROUP_VOTE);
  case SpvCapabilityVulkanMemoryModel: return VP_FEAT(MEMORY_MODEL);
  case SpvCapabilityPhysicalStorageBufferAddresses: return VP_FEAT(BDA);
  case SpvCapabilityCooperativeMatrixNV: return VP_FEAT(COOPMAT);
  default: return 0;
  }
}

static uint32_t round_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

/* One pass over the instructions. Type sizes follow std430 (what GLSL's
 * `shared` variables get on every driver we know; the number is advisory:
 * the runtime compares it with maxComputeSharedMemorySize). */
static bool scan_module(const uint32_t *w, size_t n, scan *s, vp_diags *d) {
  memset(s, 0, sizeof *s);
  if (n < 5 || w[0] != SpvMagicNumber) {
    vp_error(d, vtg_cross_loc(), "not a SPIR-V module (bad magic number)");
    return false;
  }
  uint32_t bound = w[3];
  if (bound > (1u << 22)) { /* SPIRV-Tools' own limit (kDefaultMaxIdBound) */
    vp_error(d, vtg_cross_loc(), "malformed SPIR-V: id bound %u is out of range", bound);
    return false;
  }
  scan_type *ty = calloc(bound ? bound : 1, sizeof *ty);
  uint32_t *cval = calloc(bound ? bound : 1, sizeof *cval); /* OpConstant values */
  uint32_t source_file = 0;
  if (!ty || !cval) {
    free(ty);
    free(cval);
    vp_error(d, vtg_cross_loc(), "out of memory");
    return false;
  }
  for (size_t i = 5; i < n;) {
    uint32_t op = w[i] & 0xffff, wc = w[i] >> 16;
    if (wc == 0 || i + wc > n) {
      free(ty);
      free(cval);
      vp_error(d, vtg_cross_loc(), "malformed SPIR-V: instruction at word %zu runs past the end", i);
      return false;
    }
    const uint32_t *a = w + i + 1; /* operands */
    uint32_t id = wc > 1 ? a[0] : 0;
    /* the operands read below, for words that were not validated */
    uint32_t need = op == SpvOpCapability || op == SpvOpTypeBool || op == SpvOpTypeStruct ? 2
                    : op == SpvOpTypeInt || op == SpvOpTypeFloat                         ? 3
                    : op == SpvOpTypeVector || op == SpvOpTypeMatrix || op == SpvOpTypeArray ||
                            op == SpvOpTypePointer
                        ? 4
                        : 1;
    if (wc < need)
      op = SpvOpNop;
    switch (op) {
    case SpvOpCapability: s->features |= feature_of_capability(a[0]); break;
    case SpvOpSource:
      if (wc > 3)
        source_file = a[2];
      break;
    case SpvOpTypeBool: if (id < bound) ty[id] = (scan_type){4, 4}; break;
    case SpvOpTypeInt:
    case SpvOpTypeFloat:
      if (id < bound)
        ty[id] = (scan_type){a[1] / 8, a[1] / 8};
      break;
    case SpvOpTypeVector:
      if (id < bound && a[1] < bound) {
        uint32_t e = ty[a[1]].size, c = a[2];
        ty[id] = (scan_type){e * c, e * (c == 3 ? 4 : c)};
      }
      break;
    case SpvOpTypeMatrix:
      if (id < bound && a[1] < bound)
        ty[id] = (scan_type){round_up(ty[a[1]].size, ty[a[1]].align) * a[2], ty[a[1]].align};
      break;
    case SpvOpTypeArray:
      if (id < bound && a[1] < bound && a[2] < bound)
        ty[id] = (scan_type){round_up(ty[a[1]].size, ty[a[1]].align) * cval[a[2]], ty[a[1]].align};
      break;
    case SpvOpTypeStruct:
      if (id < bound) {
        uint32_t off = 0, al = 1;
        for (uint32_t k = 1; k < wc - 1; k++) {
          if (a[k] >= bound)
            continue;
          off = round_up(off, ty[a[k]].align) + ty[a[k]].size;
          al = ty[a[k]].align > al ? ty[a[k]].align : al;
        }
        ty[id] = (scan_type){round_up(off, al), al};
      }
      break;
    case SpvOpTypePointer:
      /* pointer ids carry the pointee's size, read by OpVariable below */
      if (id < bound && a[2] < bound && a[1] == SpvStorageClassWorkgroup)
        ty[id] = ty[a[2]];
      break;
    case SpvOpConstant:
    case SpvOpSpecConstant:
      if (wc > 3 && a[1] < bound)
        cval[a[1]] = a[2];
      break;
    case SpvOpVariable:
      if (wc > 3 && a[2] == SpvStorageClassWorkgroup && a[0] < bound)
        s->shared_bytes += round_up(ty[a[0]].size, 4);
      break;
    default: break;
    }
    i += wc;
  }
  /* The file name of OpSource, if it named an OpString. */
  if (source_file) {
    for (size_t i = 5; i < n;) {
      uint32_t op = w[i] & 0xffff, wc = w[i] >> 16;
      if (op == SpvOpString && wc > 2 && w[i + 1] == source_file) {
        const char *str = (const char *)(w + i + 2);
        s->source = str;
        s->source_len = strnlen(str, (wc - 2) * 4);
        break;
      }
      i += wc;
    }
  }
  free(ty);
  free(cval);
  return true;
}

uint32_t vtg_cross_features(const uint32_t *words, size_t nwords) {
  scan s;
  vp_diags d = {0};
  bool ok = scan_module(words, nwords, &s, &d);
  vp_diags_free(&d);
  return ok ? s.features : 0;
}

/* ------------------------------------------------ SPIRV-Cross reflection */

static char *dup(const char *s) {
  size_t n = strlen(s ? s : "");
  char *p = malloc(n + 1);
  if (p)
    memcpy(p, s ? s : "", n + 1);
  return p;
}

/* The VIR spelling of a type handle (array dimensions are spelled by the
 * caller where they matter). */
static void spell_type(spvc_compiler c, spvc_type_id tid, vp_strbuf *b) {
  spvc_type t = spvc_compiler_get_type_handle(c, tid);
  const char *scalar = "?";
  switch (spvc_type_get_basetype(t)) {
  case SPVC_BASETYPE_BOOLEAN: scalar = "bool"; break;
  case SPVC_BASETYPE_INT8: scalar = "i8"; break;
  case SPVC_BASETYPE_UINT8: scalar = "u8"; break;
  case SPVC_BASETYPE_INT16: scalar = "i16"; break;
  case SPVC_BASETYPE_UINT16: scalar = "u16"; break;
  case SPVC_BASETYPE_INT32: scalar = "i32"; break;
  case SPVC_BASETYPE_UINT32: scalar = "u32"; break;
  case SPVC_BASETYPE_INT64: scalar = "i64"; break;
  case SPVC_BASETYPE_UINT64: scalar = "u64"; break;
  case SPVC_BASETYPE_FP16: scalar = "f16"; break;
  case SPVC_BASETYPE_FP32: scalar = "f32"; break;
  case SPVC_BASETYPE_FP64: scalar = "f64"; break;
  case SPVC_BASETYPE_STRUCT: {
    const char *name = spvc_compiler_get_name(c, spvc_type_get_base_type_id(t));
    vp_strbuf_printf(b, "@%s", name && *name ? name : "struct");
    return;
  }
  default: break;
  }
  unsigned vec = spvc_type_get_vector_size(t), cols = spvc_type_get_columns(t);
  if (cols > 1 && cols == vec)
    vp_strbuf_printf(b, "mat%u<%s>", cols, scalar);
  else if (cols > 1)
    vp_strbuf_printf(b, "mat%ux%u<%s>", cols, vec, scalar);
  else if (vec > 1)
    vp_strbuf_printf(b, "vec%u<%s>", vec, scalar);
  else
    vp_strbuf_append(b, scalar);
}

/* The members of a struct type as manifest fields. */
static bool reflect_fields(spvc_compiler c, spvc_type_id sid, vpm_field **out, uint32_t *count) {
  spvc_type st = spvc_compiler_get_type_handle(c, sid);
  unsigned n = spvc_type_get_num_member_types(st);
  *out = calloc(n ? n : 1, sizeof **out);
  *count = n;
  if (!*out)
    return false;
  for (unsigned i = 0; i < n; i++) {
    vpm_field *f = &(*out)[i];
    unsigned off = 0;
    size_t size = 0;
    spvc_compiler_type_struct_member_offset(c, st, i, &off);
    spvc_compiler_get_declared_struct_member_size(c, st, i, &size);
    const char *name = spvc_compiler_get_member_name(c, sid, i);
    f->name = dup(name);
    vp_strbuf tb = {0};
    spvc_type_id mid = spvc_type_get_member_type(st, i);
    spell_type(c, mid, &tb);
    spvc_type mt = spvc_compiler_get_type_handle(c, mid);
    for (unsigned k = 0; k < spvc_type_get_num_array_dimensions(mt); k++)
      vp_strbuf_printf(&tb, "[%u]", (unsigned)spvc_type_get_array_dimension(mt, k));
    f->type = vp_strbuf_take(&tb);
    f->offset = off;
    f->size = (uint32_t)size;
    if (!f->name || !f->type)
      return false;
  }
  return true;
}

/* Adds the struct type `sid` (and the structs inside it) to the manifest
 * once. */
static bool add_struct(spvc_compiler c, spvc_type_id sid, vpm_manifest *m) {
  spvc_type st = spvc_compiler_get_type_handle(c, sid);
  if (spvc_type_get_basetype(st) != SPVC_BASETYPE_STRUCT)
    return true;
  sid = spvc_type_get_base_type_id(st);
  st = spvc_compiler_get_type_handle(c, sid);
  const char *name = spvc_compiler_get_name(c, sid);
  if (!name || !*name)
    name = "struct";
  for (uint32_t i = 0; i < m->nstructs; i++)
    if (strcmp(m->structs[i].name, name) == 0)
      return true;
  for (unsigned i = 0; i < spvc_type_get_num_member_types(st); i++)
    if (!add_struct(c, spvc_type_get_member_type(st, i), m))
      return false;
  vpm_struct *grown = realloc(m->structs, (m->nstructs + 1) * sizeof *grown);
  if (!grown)
    return false;
  m->structs = grown;
  vpm_struct *s = &m->structs[m->nstructs++];
  memset(s, 0, sizeof *s);
  s->name = dup(name);
  size_t size = 0;
  spvc_compiler_get_declared_struct_size(c, st, &size);
  if (!reflect_fields(c, sid, &s->fields, &s->nfields) || !s->name)
    return false;
  uint32_t align = 4;
  for (uint32_t i = 0; i < s->nfields; i++)
    if (s->fields[i].size >= 16 && align < 16)
      align = 16;
    else if (s->fields[i].size >= 8 && align < 8)
      align = 8;
  s->align = align;
  s->size = round_up((uint32_t)size, align);
  return true;
}

static bool reflect_buffer(spvc_compiler c, const spvc_reflected_resource *r, vpm_buffer *b,
                           vpm_manifest *m) {
  b->set = spvc_compiler_get_decoration(c, r->id, SpvDecorationDescriptorSet);
  b->binding = spvc_compiler_get_decoration(c, r->id, SpvDecorationBinding);
  spvc_type bt = spvc_compiler_get_type_handle(c, r->base_type_id);
  unsigned nmem = spvc_type_get_num_member_types(bt);
  spvc_type_id last = nmem ? spvc_type_get_member_type(bt, nmem - 1) : 0;
  spvc_type lt = last ? spvc_compiler_get_type_handle(c, last) : NULL;
  /* SPIRV-Cross keeps the outermost dimension last; a runtime one is 0 */
  unsigned ndims = lt ? spvc_type_get_num_array_dimensions(lt) : 0;
  bool runtime_array = ndims >= 1 && spvc_type_array_dimension_is_literal(lt, ndims - 1) &&
                       spvc_type_get_array_dimension(lt, ndims - 1) == 0;
  const char *block = spvc_compiler_get_name(c, r->base_type_id);
  const char *var = spvc_compiler_get_name(c, r->id);
  const char *name;
  if (nmem == 1 && runtime_array)
    name = spvc_compiler_get_member_name(c, r->base_type_id, 0);
  else if (var && *var)
    name = var;
  else
    name = block;
  b->name = dup(name);

  vp_strbuf tb = {0};
  if (runtime_array) {
    /* the element type: the array type's base */
    spvc_type_id elem = spvc_type_get_base_type_id(lt);
    spell_type(c, elem, &tb);
    unsigned stride = 0;
    spvc_compiler_type_struct_member_array_stride(c, bt, nmem - 1, &stride);
    b->elem_size = stride;
    if (!add_struct(c, elem, m))
      return false;
  } else {
    /* a fixed block: the whole block is one element */
    spell_type(c, r->base_type_id, &tb);
    size_t size = 0;
    spvc_compiler_get_declared_struct_size(c, bt, &size);
    b->elem_size = (uint32_t)size;
    if (!add_struct(c, r->base_type_id, m))
      return false;
  }
  b->type = vp_strbuf_take(&tb);

  const SpvDecoration *decs = NULL;
  size_t ndecs = 0;
  bool nonwritable = spvc_compiler_has_decoration(c, r->id, SpvDecorationNonWritable);
  bool nonreadable = spvc_compiler_has_decoration(c, r->id, SpvDecorationNonReadable);
  if (spvc_compiler_get_buffer_block_decorations(c, r->id, &decs, &ndecs) == SPVC_SUCCESS)
    for (size_t i = 0; i < ndecs; i++) {
      nonwritable |= decs[i] == SpvDecorationNonWritable;
      nonreadable |= decs[i] == SpvDecorationNonReadable;
    }
  b->access = nonwritable ? VPM_READONLY : nonreadable ? VPM_WRITEONLY : VPM_READWRITE;
  return b->name && b->type;
}

static int buffer_order(const void *pa, const void *pb) {
  const vpm_buffer *a = pa, *b = pb;
  if (a->set != b->set)
    return a->set < b->set ? -1 : 1;
  return a->binding < b->binding ? -1 : a->binding > b->binding;
}

vpm_manifest *vtg_reflect_spirv(const uint32_t *words, size_t nwords, vp_diags *d) {
  /* the scan reads any words safely; vtg_cross_open then has SPIRV-Tools
   * validate them before SPIRV-Cross sees them */
  scan s;
  if (!scan_module(words, nwords, &s, d))
    return NULL;
  vtg_cross x;
  if (!vtg_cross_open(&x, words, nwords, SPVC_BACKEND_NONE, d))
    return NULL;
  spvc_compiler c = x.comp;
  vpm_manifest *m = calloc(1, sizeof *m);
  bool ok = m != NULL;

  /* entry point: the first GLCompute one */
  const spvc_entry_point *eps = NULL;
  size_t neps = 0;
  const char *entry = NULL;
  if (ok && spvc_compiler_get_entry_points(c, &eps, &neps) == SPVC_SUCCESS)
    for (size_t i = 0; i < neps && !entry; i++)
      if (eps[i].execution_model == SpvExecutionModelGLCompute)
        entry = eps[i].name;
  if (ok && !entry) {
    vp_error(d, vtg_cross_loc(), "the module has no compute (GLCompute) entry point");
    ok = false;
  }
  if (ok) {
    spvc_compiler_set_entry_point(c, entry, SpvExecutionModelGLCompute);
    m->kernel = dup(entry);
    m->entry_point = dup(entry);
    if (s.source) {
      m->source = malloc(s.source_len + 1);
      if (m->source) {
        memcpy(m->source, s.source, s.source_len);
        m->source[s.source_len] = 0;
      }
    }
    m->features = s.features;
    m->shared_bytes = s.shared_bytes;

    /* local size: literal LocalSize, overridden by spec-constant defaults */
    for (unsigned k = 0; k < 3; k++) {
      m->local_size[k] = spvc_compiler_get_execution_mode_argument_by_index(c, SpvExecutionModeLocalSize, k);
      if (!m->local_size[k])
        m->local_size[k] = 1;
    }
    spvc_specialization_constant sc[3];
    spvc_compiler_get_work_group_size_specialization_constants(c, &sc[0], &sc[1], &sc[2]);
    for (unsigned k = 0; k < 3; k++)
      if (sc[k].id) {
        spvc_constant k_c = spvc_compiler_get_constant_handle(c, sc[k].id);
        if (k_c)
          m->local_size[k] = spvc_constant_get_scalar_u32(k_c, 0, 0);
      }
  }

  spvc_resources res = NULL;
  if (ok)
    ok = spvc_compiler_create_shader_resources(c, &res) == SPVC_SUCCESS;
  const spvc_reflected_resource *list = NULL;
  size_t count = 0;
  if (ok && spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_STORAGE_BUFFER, &list,
                                                      &count) == SPVC_SUCCESS && count) {
    m->buffers = calloc(count, sizeof *m->buffers);
    ok = m->buffers != NULL;
    for (size_t i = 0; ok && i < count; i++) {
      m->nbuffers++;
      ok = reflect_buffer(c, &list[i], &m->buffers[i], m);
    }
    if (ok)
      qsort(m->buffers, m->nbuffers, sizeof *m->buffers, buffer_order);
  }
  static const struct {
    spvc_resource_type type;
    const char *what;
  } unsupported[] = {
      {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, "uniform buffer"},
      {SPVC_RESOURCE_TYPE_STORAGE_IMAGE, "storage image"},
      {SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, "sampled image"},
      {SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, "image"},
      {SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS, "sampler"},
  };
  for (size_t u = 0; ok && u < sizeof unsupported / sizeof unsupported[0]; u++)
    if (spvc_resources_get_resource_list_for_type(res, unsupported[u].type, &list, &count) ==
            SPVC_SUCCESS && count)
      vp_diag_add(d, VP_WARNING, vtg_cross_loc(),
                  "%s '%s' is not described by the manifest (VulPy binds storage buffers only)",
                  unsupported[u].what, list[0].name);

  if (ok && spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &list,
                                                      &count) == SPVC_SUCCESS && count) {
    ok = reflect_fields(c, list[0].base_type_id, &m->push, &m->npush);
    uint32_t end = 0;
    for (uint32_t i = 0; ok && i < m->npush; i++) {
      if (m->push[i].offset + m->push[i].size > end)
        end = m->push[i].offset + m->push[i].size;
      spvc_type st = spvc_compiler_get_type_handle(c, list[0].base_type_id);
      if (!add_struct(c, spvc_type_get_member_type(st, i), m))
        ok = false;
    }
    m->push_size = round_up(end, 4);
    if (ok && vpm_find_push(m, "_vp_count") >= 0)
      m->dispatch_guard = dup("_vp_count");
  }
  if (!ok && (!d || d->nerrors == 0))
    vp_error(d, vtg_cross_loc(), "cannot reflect the module: %s",
             x.errors.len ? x.errors.data : "out of memory");
  vtg_cross_close(&x);
  /* What comes back must be a manifest the reader accepts (positive
   * element sizes, unique names and bindings, fields inside the push
   * block...): any SPIR-V reaches here, and a reflected manifest that does
   * not read back broke vp.reflect_spirv's users later and elsewhere
   * (found by fuzz_spirv_reflect: a runtime array without ArrayStride gave
   * elem_size 0). The reader's errors say what is wrong. */
  if (ok) {
    char *yaml = vpm_emit(m);
    vp_diags pd = {0};
    vpm_manifest *back = yaml ? vpm_parse(yaml, strlen(yaml), "<reflected manifest>", &pd) : NULL;
    if (!back) {
      char *why = pd.count ? pd.items[0].message : "out of memory";
      vp_error(d, vtg_cross_loc(), "the module's interface is not a valid manifest: %s", why);
      ok = false;
    }
    vpm_free(back);
    vp_diags_free(&pd);
    free(yaml);
  }
  if (!ok) {
    vpm_free(m);
    return NULL;
  }
  return m;
}
