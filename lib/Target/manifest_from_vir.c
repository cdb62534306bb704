/* manifest_from_vir.c - the manifest of one kernel of a verified VIR module.
 *
 * Everything comes from the module's declarations: buffers in (set,
 * binding) order with their element type spelled as in VIR and the std430
 * array stride, the push-constant fields with their std430 offsets, the
 * structs those mention, the shared arrays the kernel (or a function it
 * calls) touches, and the features vir_module_features() reports. The push
 * size is the end of the last field rounded up to 4 bytes - what the shader
 * reads, and what vtg_reflect_spirv() reports for the compiled module too.
 */
#include <stdlib.h>
#include <string.h>

#include "vulpy/target.h"

static char *dup(const char *s) {
  size_t n = strlen(s ? s : "");
  char *p = malloc(n + 1);
  if (p)
    memcpy(p, s ? s : "", n + 1);
  return p;
}

static char *type_text(const vir_type *t) {
  vp_strbuf b = {0};
  vir_type_print(&b, t);
  return vp_strbuf_take(&b);
}

static uint32_t round_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

static const vir_func *find_kernel(const vir_module *m, const char *name) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func && s->func->is_kernel && (!name || strcmp(s->name, name) == 0))
      return s->func;
  }
  return NULL;
}

/* ---- the symbols the kernel reaches (through calls too) ---- */

static int sym_index(const vir_module *m, const vir_sym *s) {
  for (uint32_t i = 0; i < m->syms.len; i++)
    if (m->syms.data[i] == s)
      return (int)i;
  return -1;
}

static void reach(const vir_module *m, const vir_region *r, bool *used) {
  for (const vir_op *op = r->first; op; op = op->next) {
    uint32_t ak = vir_op_info_of(op->code)->attr;
    if ((ak == VIR_ATTR_SYM || ak == VIR_ATTR_ATOMIC || ak == VIR_ATTR_CALL) && op->attr.sym) {
      int i = sym_index(m, op->attr.sym);
      if (i >= 0 && !used[i]) {
        used[i] = true;
        if (op->attr.sym->kind == VIR_SYM_FUNC && op->attr.sym->func)
          reach(m, &op->attr.sym->func->body, used);
      }
    }
    for (uint32_t k = 0; k < vir_op_info_of(op->code)->nregion; k++)
      reach(m, &op->regions[k], used);
  }
}

/* ---- structs ---- */

static bool add_struct(vpm_manifest *mf, const vir_struct *st);

static bool add_structs_of(vpm_manifest *mf, const vir_type *t) {
  while (t && (t->kind == VIR_TY_ARRAY || t->kind == VIR_TY_VEC || t->kind == VIR_TY_MAT))
    t = t->elem;
  return !t || t->kind != VIR_TY_STRUCT || add_struct(mf, t->st);
}

static bool fill_fields(const vir_struct *st, vpm_field **out, uint32_t *n) {
  *n = st->nfields;
  *out = calloc(st->nfields ? st->nfields : 1, sizeof **out);
  if (!*out)
    return false;
  for (uint32_t i = 0; i < st->nfields; i++) {
    const vir_field *f = &st->fields[i];
    (*out)[i].name = dup(f->name);
    (*out)[i].type = type_text(f->type);
    (*out)[i].offset = f->offset;
    (*out)[i].size = vir_type_size(f->type);
    if (!(*out)[i].name || !(*out)[i].type)
      return false;
  }
  return true;
}

static bool add_struct(vpm_manifest *mf, const vir_struct *st) {
  for (uint32_t i = 0; i < mf->nstructs; i++)
    if (strcmp(mf->structs[i].name, st->name) == 0)
      return true;
  for (uint32_t i = 0; i < st->nfields; i++)
    if (!add_structs_of(mf, st->fields[i].type))
      return false;
  vpm_struct *grown = realloc(mf->structs, (mf->nstructs + 1) * sizeof *grown);
  if (!grown)
    return false;
  mf->structs = grown;
  vpm_struct *s = &mf->structs[mf->nstructs++];
  memset(s, 0, sizeof *s);
  s->name = dup(st->name);
  s->size = st->size;
  s->align = st->align;
  return s->name && fill_fields(st, &s->fields, &s->nfields);
}

static uint32_t struct_rank(const vir_module *m, const char *name) {
  for (uint32_t i = 0; i < m->structs.len; i++)
    if (strcmp(((const vir_struct *)m->structs.data[i])->name, name) == 0)
      return i;
  return UINT32_MAX;
}

static int by_binding(const void *pa, const void *pb) {
  const vpm_buffer *a = pa, *b = pb;
  if (a->set != b->set)
    return a->set < b->set ? -1 : 1;
  return a->binding < b->binding ? -1 : a->binding > b->binding;
}

vpm_manifest *vtg_manifest_from_vir(const vir_module *m, const vtg_options *o, vp_diags *d) {
  vp_loc mloc = {m->source_name, 0, 0};
  const vir_func *k = find_kernel(m, o ? o->kernel : NULL);
  if (!k) {
    if (o && o->kernel)
      vp_error(d, mloc, "no kernel named '%s' in the module", o->kernel);
    else
      vp_error(d, mloc, "the module has no kernel");
    return NULL;
  }
  vpm_manifest *mf = calloc(1, sizeof *mf);
  bool *used = calloc(m->syms.len ? m->syms.len : 1, 1);
  bool ok = mf && used;
  if (ok) {
    reach(m, &k->body, used);
    mf->kernel = dup(k->sym->name);
    mf->entry_point = dup("main");
    mf->source = m->source_name ? dup(m->source_name) : NULL;
    ok = mf->kernel && mf->entry_point && (!m->source_name || mf->source);
    for (int i = 0; i < 3; i++)
      mf->local_size[i] = o && o->local_size[i] ? o->local_size[i] : k->local_size[i] ? k->local_size[i] : 1;
    mf->features = vir_module_features(m);
  }
  uint32_t nbuf = 0;
  for (uint32_t i = 0; ok && i < m->syms.len; i++)
    nbuf += ((const vir_sym *)m->syms.data[i])->kind == VIR_SYM_BUFFER;
  if (ok && nbuf) {
    mf->buffers = calloc(nbuf, sizeof *mf->buffers);
    ok = mf->buffers != NULL;
  }
  for (uint32_t i = 0; ok && i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    switch (s->kind) {
    case VIR_SYM_BUFFER: {
      vpm_buffer *b = &mf->buffers[mf->nbuffers++];
      b->name = dup(s->name);
      b->set = s->set;
      b->binding = s->binding;
      b->type = type_text(s->type);
      b->elem_size = round_up(vir_type_size(s->type), vir_type_align(s->type));
      b->access = s->access == VIR_ACCESS_READONLY    ? VPM_READONLY
                  : s->access == VIR_ACCESS_WRITEONLY ? VPM_WRITEONLY
                                                      : VPM_READWRITE;
      ok = b->name && b->type && add_structs_of(mf, s->type);
      break;
    }
    case VIR_SYM_PUSH:
      if (s->type->kind == VIR_TY_STRUCT) {
        const vir_struct *st = s->type->st;
        ok = fill_fields(st, &mf->push, &mf->npush);
        uint32_t end = 0;
        for (uint32_t f = 0; ok && f < st->nfields; f++) {
          uint32_t e = st->fields[f].offset + vir_type_size(st->fields[f].type);
          end = e > end ? e : end;
          ok = add_structs_of(mf, st->fields[f].type);
        }
        mf->push_size = round_up(end, 4);
        if (ok && vir_struct_find(st, "_vp_count") >= 0)
          ok = (mf->dispatch_guard = dup("_vp_count")) != NULL;
      }
      break;
    case VIR_SYM_SHARED:
      if (used[i]) {
        mf->shared_bytes += round_up(vir_type_size(s->type), 4);
        ok = add_structs_of(mf, s->type);
      }
      break;
    default: break;
    }
  }
  if (ok && mf->nbuffers)
    qsort(mf->buffers, mf->nbuffers, sizeof *mf->buffers, by_binding);
  /* structs in declaration order, whatever order they were reached in */
  for (uint32_t a = 1; ok && a < mf->nstructs; a++)
    for (uint32_t b = a; b > 0 && struct_rank(m, mf->structs[b].name) < struct_rank(m, mf->structs[b - 1].name); b--) {
      vpm_struct t = mf->structs[b];
      mf->structs[b] = mf->structs[b - 1];
      mf->structs[b - 1] = t;
    }
  free(used);
  if (!ok) {
    vp_error(d, mloc, "out of memory while building the manifest");
    vpm_free(mf);
    return NULL;
  }
  return mf;
}
