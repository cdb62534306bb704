/* module.c - a whole kernel file: declarations, helpers, functions.
 *
 * GLSL layout (docs/glsl.md): `#version 450`, the extensions the text
 * needs, a one-line banner, the local size (literal defaults, overridable
 * through specialization constants 0, 1, 2), structs, the push-constant
 * block `pc`, one std430 buffer block per Python buffer parameter
 * (`buffer pos_buf { double pos[]; };` - the block is NAME_buf, its only
 * member is the Python name, so the kernel body says `pos[i]`), shared
 * arrays, constants, the helpers the kernel uses, then the functions,
 * callees first, the kernel last as `void main()`.
 *
 * CUDA/HIP layout: the prelude (GLSL's names for C++), structs padded to
 * the std430 offsets, shared arrays at file scope, helpers, functions as
 * `__device__`, the kernel as `extern "C" __global__` taking one pointer per
 * buffer (binding order) and the push-constant struct by value.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cfamily.h"


static bool gpu_c(const cf_printer *p) { return p->dialect != CF_GLSL; }

void cf_error(cf_printer *p, vp_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(p->d, VP_ERROR, loc, fmt, ap);
  va_end(ap);
  p->failed = true;
}

int cf_sym_index(cf_printer *p, const vir_sym *s) {
  for (uint32_t i = 0; i < p->m->syms.len; i++)
    if (p->m->syms.data[i] == s)
      return (int)i;
  return -1;
}

const char *cf_sym_name(cf_printer *p, const vir_sym *s) {
  int i = cf_sym_index(p, s);
  return i >= 0 && p->sym_name[i] ? p->sym_name[i] : s->name;
}

/* ---------------------------------------------- what the kernel reaches */

static void mark_use(cf_printer *p, const vir_op *op, bool *used, bool *len_used) {
  uint32_t ak = vir_op_info_of(op->code)->attr;
  if ((ak == VIR_ATTR_SYM || ak == VIR_ATTR_ATOMIC || ak == VIR_ATTR_CALL) && op->attr.sym) {
    int i = cf_sym_index(p, op->attr.sym);
    if (i >= 0) {
      used[i] = true;
      if (op->code == VIR_OP_BUFFER_LEN && len_used)
        len_used[i] = true;
    }
  }
}

static void mark_region(cf_printer *p, const vir_region *r, bool *used, bool *len_used) {
  for (const vir_op *op = r->first; op; op = op->next) {
    mark_use(p, op, used, len_used);
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      mark_region(p, &op->regions[i], used, len_used);
  }
}

/* Writes memory other than its own locals (stores, atomics, barriers). */
static bool writes_memory(const vir_region *r) {
  for (const vir_op *op = r->first; op; op = op->next) {
    uint32_t fl = vir_op_info_of(op->code)->flags;
    if ((fl & VIR_F_WRITEMEM) && op->code != VIR_OP_LOCAL_STORE && op->code != VIR_OP_LOCAL_STORE_AT &&
        op->code != VIR_OP_CALL)
      return true;
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      if (writes_memory(&op->regions[i]))
        return true;
  }
  return false;
}

/* Per function symbol: the module symbols it uses, directly or through
 * calls (a fixed point over the call graph). Row i of `uses` belongs to
 * symbol i (functions only). */

static bool compute_uses(cf_printer *p, bool **uses, bool **len_uses) {
  uint32_t n = p->m->syms.len;
  for (uint32_t i = 0; i < n; i++) {
    const vir_sym *s = p->m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC)
      continue;
    uses[i] = vp_arena_alloc(&p->arena, n ? n : 1);
    len_uses[i] = vp_arena_alloc(&p->arena, n ? n : 1);
    if (!uses[i] || !len_uses[i])
      return false;
    mark_region(p, &s->func->body, uses[i], len_uses[i]);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < n; i++) {
      if (!uses[i])
        continue;
      for (uint32_t j = 0; j < n; j++) {
        if (!uses[i][j] || !uses[j] || i == j)
          continue;
        for (uint32_t k = 0; k < n; k++) {
          if (uses[j][k] && !uses[i][k]) {
            uses[i][k] = true;
            changed = true;
          }
          if (len_uses[j][k] && !len_uses[i][k]) {
            len_uses[i][k] = true;
            changed = true;
          }
        }
      }
    }
  }
  return true;
}


static int cmp_binding(const void *a, const void *b) {
  const vir_sym *x = *(const vir_sym *const *)a, *y = *(const vir_sym *const *)b;
  if (x->set != y->set)
    return x->set < y->set ? -1 : 1;
  return x->binding < y->binding ? -1 : x->binding > y->binding;
}

/* Buffers of the module in (set, binding) order. */
static uint32_t sorted_buffers(cf_printer *p, const vir_sym **out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->m->syms.len; i++) {
    const vir_sym *s = p->m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER)
      out[n++] = s;
  }
  qsort(out, n, sizeof *out, cmp_binding);
  return n;
}

static bool is_vec3(const vir_type *t) { return t->kind == VIR_TY_VEC && t->n == 3; }

static void buffer_param(cf_printer *p, vp_strbuf *b, const vir_sym *s) {
  if (s->buf_flags & VIR_BUF_VOLATILE)
    vp_strbuf_append(b, "volatile ");
  if (s->access == VIR_ACCESS_READONLY)
    vp_strbuf_append(b, "const ");
  cf_type(p, b, s->type, true);
  /* std430: an array of vec3 has a stride of four components (prelude) */
  if (is_vec3(s->type))
    vp_strbuf_append(b, "_std430");
  vp_strbuf_printf(b, " *%s", cf_sym_name(p, s));
}

/* Parameters (decl = true) or arguments for function symbol `fi`. */
static void resources(cf_printer *p, vp_strbuf *b, int fi, bool decl, bool first, bool all) {
  const vir_sym *bufs[p->m->syms.len ? p->m->syms.len : 1];
  uint32_t nb = sorted_buffers(p, bufs);
  bool *uses = fi >= 0 && p->m->syms.len ? p->res_uses[fi] : NULL;
  bool *lens = fi >= 0 && p->m->syms.len ? p->res_len[fi] : NULL;
  for (uint32_t k = 0; k < nb; k++) {
    int si = cf_sym_index(p, bufs[k]);
    if (!all && !(uses && uses[si]))
      continue;
    vp_strbuf_append(b, first ? "" : ", ");
    first = false;
    if (decl)
      buffer_param(p, b, bufs[k]);
    else
      vp_strbuf_append(b, cf_sym_name(p, bufs[k]));
    if (lens && lens[si]) {
      if (decl)
        vp_strbuf_printf(b, ", uint %s_len", cf_sym_name(p, bufs[k]));
      else
        vp_strbuf_printf(b, ", %s_len", cf_sym_name(p, bufs[k]));
    }
  }
  if (p->m->push) {
    int pi = cf_sym_index(p, p->m->push);
    if (all || (uses && uses[pi])) {
      vp_strbuf_append(b, first ? "" : ", ");
      if (decl)
        vp_strbuf_printf(b, "%s %s", p->pc_type, p->pc_name);
      else
        vp_strbuf_append(b, p->pc_name);
    }
  }
}

void cf_call_resources(cf_printer *p, vp_strbuf *b, int func_sym, bool first) {
  resources(p, b, func_sym, false, first, false);
}

void cf_signature(cf_printer *p, const vir_func *f, bool kernel) {
  vp_strbuf *b = &p->body;
  int fi = cf_sym_index(p, f->sym);
  if (kernel && !gpu_c(p)) {
    vp_strbuf_append(b, "void main()");
    return;
  }
  if (kernel) {
    vp_strbuf_printf(b, "extern \"C\" __global__ void %s(", p->func_name[fi]);
    resources(p, b, fi, true, true, true);
    vp_strbuf_putc(b, ')');
    return;
  }
  if (gpu_c(p))
    vp_strbuf_append(b, "__device__ ");
  cf_type(p, b, f->ret, false);
  vp_strbuf_printf(b, " %s(", p->func_name[fi]);
  for (uint32_t i = 0; i < f->body.nargs; i++) {
    if (i)
      vp_strbuf_append(b, ", ");
    cf_decl(p, b, f->body.args[i]->type, cf_param_name(p, f->body.args[i]), false);
  }
  if (gpu_c(p))
    resources(p, b, fi, true, f->body.nargs == 0, false);
  vp_strbuf_putc(b, ')');
}

/* ------------------------------------------------------ declarations */

/* C alignment of a type under the prelude's definitions (tvec2/4 aligned
 * to their size, tvec3 to its element), for padding CUDA structs to the
 * std430 offsets. */
static uint32_t c_align(const vir_type *t) {
  switch (t->kind) {
  case VIR_TY_VEC: return t->n == 3 ? t->bits / 8 : (t->bits / 8) * t->n;
  case VIR_TY_MAT: return c_align(t->elem);
  case VIR_TY_ARRAY: return is_vec3(t->elem) ? (t->elem->bits / 8) * 4 : c_align(t->elem);
  case VIR_TY_STRUCT: return t->st->align;
  case VIR_TY_BOOL: return 1;
  default: return t->bits / 8 ? t->bits / 8 : 1;
  }
}

static uint32_t c_size(const vir_type *t) {
  switch (t->kind) {
  case VIR_TY_VEC: return (t->bits / 8) * t->n;
  case VIR_TY_MAT: {
    uint32_t col = c_size(t->elem);
    uint32_t a = c_align(t->elem);
    return (col + a - 1) / a * a * t->n;
  }
  case VIR_TY_ARRAY: {
    uint32_t e = c_size(t->elem), a = c_align(t);
    return (e + a - 1) / a * a * t->len;
  }
  case VIR_TY_STRUCT: return t->st->size;
  case VIR_TY_BOOL: return 1;
  default: return t->bits / 8;
  }
}

static void print_struct(cf_printer *p, vp_strbuf *b, const vir_struct *st, const char *name) {
  if (gpu_c(p))
    vp_strbuf_printf(b, "struct __align__(%u) %s {\n", st->align ? st->align : 4, name);
  else
    vp_strbuf_printf(b, "struct %s {\n", name);
  uint32_t off = 0, npad = 0;
  for (uint32_t i = 0; i < st->nfields; i++) {
    const vir_field *f = &st->fields[i];
    if (gpu_c(p)) {
      uint32_t a = c_align(f->type);
      off = (off + a - 1) / a * a;
      if (f->offset > off) {
        vp_strbuf_printf(b, "  uint8_t _pad%u[%u]; /* std430 offset of %s */\n", npad++, f->offset - off,
                         f->name);
        off = f->offset;
      }
      off += c_size(f->type);
    }
    vp_strbuf_append(b, "  ");
    if (gpu_c(p) && f->type->kind == VIR_TY_ARRAY && is_vec3(f->type->elem)) {
      /* std430: four components a vec3 in an array (prelude) */
      cf_type(p, b, f->type->elem, true);
      vp_strbuf_printf(b, "_std430 %s[%u]", cf_member_name(p, f->name), f->type->len);
    } else {
      cf_decl(p, b, f->type, cf_member_name(p, f->name), true);
    }
    vp_strbuf_append(b, ";\n");
  }
  /* C++: a constructor taking the members, so that GLSL's Particle(a, b)
   * reads the same (arrays cannot be passed by value: left out) */
  bool arrays = false;
  for (uint32_t i = 0; i < st->nfields; i++)
    arrays |= st->fields[i].type->kind == VIR_TY_ARRAY;
  if (gpu_c(p) && !arrays && st->nfields) {
    vp_strbuf_printf(b, "  __host__ __device__ %s() {}\n  __host__ __device__ %s(", name, name);
    for (uint32_t i = 0; i < st->nfields; i++) {
      if (i)
        vp_strbuf_append(b, ", ");
      cf_type(p, b, st->fields[i].type, true);
      vp_strbuf_printf(b, " %s_", cf_member_name(p, st->fields[i].name));
    }
    vp_strbuf_append(b, ")\n      : ");
    for (uint32_t i = 0; i < st->nfields; i++) {
      const char *mn = cf_member_name(p, st->fields[i].name);
      vp_strbuf_printf(b, "%s%s(%s_)", i ? ", " : "", mn, mn);
    }
    vp_strbuf_append(b, " {}\n");
  }
  vp_strbuf_append(b, "};\n");
  /* the compiler checks that the padding above gives the std430 layout */
  if (gpu_c(p) && st->size)
    vp_strbuf_printf(b, "static_assert(sizeof(%s) == %u, \"%s: std430 size\");\n", name, st->size, name);
}

static void print_declarations(cf_printer *p, vp_strbuf *b) {
  const vir_module *m = p->m;
  bool any = false;
  for (uint32_t i = 0; i < m->structs.len; i++) {
    const vir_struct *st = m->structs.data[i];
    if (m->push && m->push->type->kind == VIR_TY_STRUCT && m->push->type->st == st)
      continue; /* printed as the push block */
    print_struct(p, b, st, p->struct_name[i]);
    any = true;
  }
  if (any)
    vp_strbuf_putc(b, '\n');
  /* push constants */
  if (m->push && m->push->type->kind == VIR_TY_STRUCT) {
    const vir_struct *st = m->push->type->st;
    if (gpu_c(p)) {
      vp_strbuf_append(b, "// Push constants: passed by value.\n");
      print_struct(p, b, st, p->pc_type);
    } else {
      vp_strbuf_printf(b, "layout(push_constant, std430) uniform %s {\n", p->pc_type);
      for (uint32_t i = 0; i < st->nfields; i++) {
        vp_strbuf_append(b, "  ");
        cf_decl(p, b, st->fields[i].type, cf_member_name(p, st->fields[i].name), true);
        vp_strbuf_append(b, ";\n");
      }
      vp_strbuf_printf(b, "} %s;\n", p->pc_name);
    }
    vp_strbuf_putc(b, '\n');
  }
  /* buffers (GLSL: blocks; CUDA: kernel parameters) */
  if (!gpu_c(p)) {
    const vir_sym *bufs[m->syms.len ? m->syms.len : 1];
    uint32_t nb = sorted_buffers(p, bufs);
    for (uint32_t k = 0; k < nb; k++) {
      const vir_sym *s = bufs[k];
      int i = cf_sym_index(p, s);
      vp_strbuf_printf(b, "layout(std430, set = %u, binding = %u) ", s->set, s->binding);
      if (s->buf_flags & VIR_BUF_COHERENT)
        vp_strbuf_append(b, "coherent ");
      if (s->buf_flags & VIR_BUF_VOLATILE)
        vp_strbuf_append(b, "volatile ");
      if (s->buf_flags & VIR_BUF_NONPRIVATE)
        vp_strbuf_append(b, "nonprivate ");
      if (s->access == VIR_ACCESS_READONLY)
        vp_strbuf_append(b, "readonly ");
      else if (s->access == VIR_ACCESS_WRITEONLY)
        vp_strbuf_append(b, "writeonly ");
      vp_strbuf_printf(b, "buffer %s { ", cf_block_name(p, i));
      cf_type(p, b, s->type, true);
      vp_strbuf_printf(b, " %s[]; };\n", p->sym_name[i]);
    }
    if (nb)
      vp_strbuf_putc(b, '\n');
  }
  /* shared arrays and constants */
  any = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_SHARED && p->sym_used[i]) {
      vp_strbuf_append(b, gpu_c(p) ? "__shared__ " : "shared ");
      cf_decl(p, b, s->type, p->sym_name[i], false);
      vp_strbuf_append(b, ";\n");
      any = true;
    } else if (s->kind == VIR_SYM_CONST) {
      vp_strbuf_append(b, gpu_c(p) ? "static constexpr " : "const ");
      cf_decl(p, b, s->type, p->sym_name[i], false);
      vp_strbuf_append(b, " = ");
      cf_literal(p, b, s->type, s->lit);
      vp_strbuf_append(b, ";\n");
      any = true;
    }
  }
  if (any)
    vp_strbuf_putc(b, '\n');
}

const char *cf_block_name(cf_printer *p, int sym) {
  return p->block_names && p->block_names[sym] ? p->block_names[sym] : "buf";
}

/* ------------------------------------------------------------ names */

static bool assign_names(cf_printer *p) {
  const vir_module *m = p->m;
  uint32_t n = m->syms.len;
  cf_names_init(p, &p->globals, n + m->structs.len + 16);
  p->sym_name = vp_arena_alloc(&p->arena, (n ? n : 1) * sizeof *p->sym_name);
  p->func_name = vp_arena_alloc(&p->arena, (n ? n : 1) * sizeof *p->func_name);
  p->struct_name = vp_arena_alloc(&p->arena, (m->structs.len ? m->structs.len : 1) * sizeof *p->struct_name);
  p->block_names = vp_arena_alloc(&p->arena, (n ? n : 1) * sizeof *p->block_names);
  if (!p->sym_name || !p->func_name || !p->struct_name || !p->block_names)
    return false;
  p->pc_name = cf_unique_name(p, &p->globals, "pc");
  for (uint32_t i = 0; i < m->structs.len; i++) {
    const vir_struct *st = m->structs.data[i];
    p->struct_name[i] = cf_unique_name(p, &p->globals, st->name);
  }
  /* The push block's type keeps the Python class name; an anonymous block
   * (struct named like the symbol) is PushConstants. */
  p->pc_type = "PushConstants";
  if (m->push && m->push->type->kind == VIR_TY_STRUCT)
    for (uint32_t i = 0; i < m->structs.len; i++)
      if (m->structs.data[i] == m->push->type->st) {
        const char *sn = ((const vir_struct *)m->structs.data[i])->name;
        if (strcmp(sn, m->push->name) != 0 && strcmp(sn, "pc") != 0)
          p->pc_type = p->struct_name[i];
        else
          p->struct_name[i] = p->pc_type = cf_unique_name(p, &p->globals, "PushConstants");
      }
  if (m->push)
    p->sym_name[cf_sym_index(p, m->push)] = p->pc_name;
  for (uint32_t i = 0; i < n; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_PUSH)
      continue;
    if (s->kind == VIR_SYM_FUNC) {
      const char *want = s->name;
      if (gpu_c(p) && s->func->is_kernel && strcmp(want, "main") == 0)
        want = "main_kernel"; /* C++ reserves main */
      p->func_name[i] = cf_unique_name(p, &p->globals, want);
      p->sym_name[i] = p->func_name[i];
    } else {
      p->sym_name[i] = cf_unique_name(p, &p->globals, s->name);
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER && !gpu_c(p)) {
      char *want = vp_arena_printf(&p->arena, "%s_buf", p->sym_name[i]);
      p->block_names[i] = cf_unique_name(p, &p->globals, want ? want : "buf");
    }
  }
  return true;
}

/* ------------------------------------------------------- the file */

static const char *const ext_names[] = {
    "GL_EXT_shader_explicit_arithmetic_types_int8",
    "GL_EXT_shader_explicit_arithmetic_types_int16",
    "GL_EXT_shader_explicit_arithmetic_types_int64",
    "GL_EXT_shader_explicit_arithmetic_types_float16",
    "GL_EXT_shader_8bit_storage",
    "GL_EXT_shader_16bit_storage",
    "GL_KHR_shader_subgroup_basic",
    "GL_KHR_shader_subgroup_arithmetic",
    "GL_KHR_shader_subgroup_ballot",
    "GL_KHR_shader_subgroup_shuffle",
    "GL_KHR_shader_subgroup_shuffle_relative",
    "GL_KHR_shader_subgroup_vote",
    "GL_EXT_shader_atomic_int64",
    "GL_EXT_shader_atomic_float",
    "GL_KHR_memory_scope_semantics",
};

/* Callees before callers (GLSL wants a function defined before its use). */
static void order_funcs(cf_printer *p, const vir_func *f, const vir_func **out, uint32_t *n, bool *seen) {
  int fi = cf_sym_index(p, f->sym);
  if (fi < 0 || seen[fi])
    return;
  seen[fi] = true;
  for (uint32_t j = 0; j < p->m->syms.len; j++) {
    const vir_sym *s = p->m->syms.data[j];
    if (s->kind == VIR_SYM_FUNC && p->res_uses[fi] && p->res_uses[fi][j] && s->func != f)
      order_funcs(p, s->func, out, n, seen);
  }
  out[(*n)++] = f;
}

static const vir_func *find_kernel(const vir_module *m, const char *name) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func->is_kernel && (!name || strcmp(s->name, name) == 0))
      return s->func;
  }
  return NULL;
}

bool cf_emit(const vir_module *m, const vtg_options *o, cf_dialect dialect, vp_strbuf *out,
             vp_diags *d) {
  vtg_options defaults;
  if (!o) {
    vtg_options_init(&defaults);
    o = &defaults;
  }
  cf_printer pr;
  memset(&pr, 0, sizeof pr);
  cf_printer *p = &pr;
  p->m = m;
  p->o = o;
  p->dialect = dialect;
  p->d = d;
  p->kernel = find_kernel(m, o->kernel);
  vp_loc mloc = {m->source_name, 0, 0};
  if (!p->kernel) {
    if (o->kernel)
      vp_error(d, mloc, "no kernel named '%s' in the module", o->kernel);
    else
      vp_error(d, mloc, "the module has no kernel");
    return false;
  }
  for (int k = 0; k < 3; k++)
    p->local_size[k] = o->local_size[k] ? o->local_size[k] : p->kernel->local_size[k] ? p->kernel->local_size[k] : 1;

  bool ok = cf_check_features(p) && assign_names(p);
  /* An 8/16/64-bit SSA value needs GLSL's arithmetic-types extension even
   * when it is printed inside a conversion; memory holding one needs the
   * storage extension. */
  uint32_t feats = vir_module_features(m);
  static const struct { uint32_t feat, ext; } ext_of[] = {
      {VP_FEAT(INT8), CF_EXT_INT8},       {VP_FEAT(INT16), CF_EXT_INT16},
      {VP_FEAT(INT64), CF_EXT_INT64},     {VP_FEAT(FLOAT16), CF_EXT_FLOAT16},
      {VP_FEAT(STORAGE8), CF_EXT_STORAGE8}, {VP_FEAT(STORAGE16), CF_EXT_STORAGE16},
  };
  for (unsigned i = 0; i < sizeof ext_of / sizeof ext_of[0]; i++)
    if (feats & ext_of[i].feat)
      p->ext |= ext_of[i].ext;
  /* atomic.load/store and queue-family scope: the Vulkan memory model */
  if (feats & VP_FEAT(MEMORY_MODEL))
    p->ext |= CF_EXT_VMM | CF_EXT_SCOPE;
  /* non-private buffers: the Vulkan memory model's availability and
   * visibility (GLSL only; CUDA and HIP have no such qualifier) */
  for (uint32_t i = 0; !gpu_c(p) && i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER && (s->buf_flags & VIR_BUF_NONPRIVATE)) {
      p->ext |= CF_EXT_VMM | CF_EXT_SCOPE;
      p->avvis = true;
    }
  }
  uint32_t n = m->syms.len;
  bool **uses = NULL, **lens = NULL;
  if (ok) {
    uses = vp_arena_alloc(&p->arena, (n ? n : 1) * sizeof *uses);
    lens = vp_arena_alloc(&p->arena, (n ? n : 1) * sizeof *lens);
    p->sym_used = vp_arena_alloc(&p->arena, n ? n : 1);
    ok = uses && lens && p->sym_used && compute_uses(p, uses, lens);
  }
  p->res_uses = uses;
  p->res_len = lens;
  /* a function is pure when neither it nor any function it reaches writes */
  p->func_pure = ok ? vp_arena_alloc(&p->arena, n ? n : 1) : NULL;
  ok = ok && p->func_pure;
  for (uint32_t i = 0; ok && i < n; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || s->func->is_kernel)
      continue;
    bool pure = !writes_memory(&s->func->body);
    for (uint32_t j = 0; j < n && pure; j++) {
      const vir_sym *t = m->syms.data[j];
      if (uses[i][j] && t->kind == VIR_SYM_FUNC && writes_memory(&t->func->body))
        pure = false;
    }
    p->func_pure[i] = pure;
  }
  const vir_func **order = NULL;
  uint32_t norder = 0;
  if (ok) {
    int ki = cf_sym_index(p, p->kernel->sym);
    for (uint32_t j = 0; j < n; j++)
      p->sym_used[j] = uses[ki][j];
    order = vp_arena_alloc(&p->arena, (n ? n : 1) * sizeof *order);
    bool *seen = vp_arena_alloc(&p->arena, n ? n : 1);
    ok = order && seen;
    if (ok)
      order_funcs(p, p->kernel, order, &norder, seen);
  }
  for (uint32_t i = 0; ok && i < norder; i++) {
    if (i)
      vp_strbuf_putc(&p->body, '\n');
    ok = cf_print_function(p, order[i], order[i] == p->kernel);
  }
  ok = ok && !p->failed && !p->body.oom;

  if (ok) {
    vp_strbuf decl = {0}, helpers = {0};
    print_declarations(p, &decl); /* may note more needs (types) */
    cf_emit_pyops(p, &helpers);
    cf_emit_math(p, &helpers);
    vp_strbuf src = {0};
    cf_put_file_name(&src, m->source_name ? m->source_name : "<vir>");
    const char *kname = p->kernel->sym->name;
    if (!gpu_c(p)) {
      vp_strbuf_append(out, "#version 450\n");
      for (unsigned i = 0; i < sizeof ext_names / sizeof ext_names[0]; i++)
        if (p->ext & (1u << i))
          vp_strbuf_printf(out, "#extension %s : require\n", ext_names[i]);
      if (p->ext & CF_EXT_VMM)
        vp_strbuf_append(out, "#pragma use_vulkan_memory_model\n");
      vp_strbuf_printf(out, "\n// %s, kernel %s: generated by VulPy.\n\n", src.data ? src.data : "", kname);
      vp_strbuf_printf(out,
                       "// Local size %u x %u x %u; specialization constants 0, 1, 2 override it.\n"
                       "layout(local_size_x = %u, local_size_y = %u, local_size_z = %u) in;\n"
                       "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n\n",
                       p->local_size[0], p->local_size[1], p->local_size[2], p->local_size[0],
                       p->local_size[1], p->local_size[2]);
    } else {
      vp_strbuf_printf(out, "// %s, kernel %s: generated by VulPy as %s; compiles with %s alone.\n",
                       src.data ? src.data : "", kname, dialect == CF_HIP ? "HIP" : "CUDA C++",
                       dialect == CF_HIP ? "hipcc" : "nvcc or NVRTC");
      vp_strbuf_printf(out, "// Launch with blockDim = (%u, %u, %u).\n", p->local_size[0], p->local_size[1],
                       p->local_size[2]);
      cf_emit_prelude(p, out);
    }
    vp_strbuf_appendn(out, decl.data ? decl.data : "", decl.len);
    if (helpers.len) {
      vp_strbuf_appendn(out, helpers.data, helpers.len);
      vp_strbuf_putc(out, '\n');
    }
    vp_strbuf_appendn(out, p->body.data ? p->body.data : "", p->body.len);
    vp_strbuf_free(&decl);
    vp_strbuf_free(&helpers);
    ok = !out->oom && !src.oom;
    vp_strbuf_free(&src);
  }
  if (!ok && d->nerrors == 0)
    vp_error(d, mloc, "out of memory while printing the kernel");
  vp_strbuf_free(&p->body);
  vp_arena_free(&p->arena);
  return ok;
}

bool vtg_emit_glsl(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  return cf_emit(m, o, CF_GLSL, out, d);
}

bool vtg_emit_cuda(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  return cf_emit(m, o, CF_CUDA, out, d);
}

bool vtg_emit_hip(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  return cf_emit(m, o, CF_HIP, out, d);
}
