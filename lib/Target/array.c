/* array.c - the compile of an array function: lower-small-types,
 * lower-ufuncs, fuse, lower-arrays, and the GLSL -> SPIR-V -> manifest
 * chain of lib/Target for each kernel.
 *
 * One function, vtg_compile_array, called by the Python extension
 * (jit_compile, for vp.jit and the eager array API) and by vulpy-translate
 * (an input module with an array function), so a compile from Python can
 * be repeated from the command line on the array VIR it printed. The texts
 * of each stage are kept for inspection (JitFunction.vir, .fused_vir,
 * .lowered_vir). The launches come from the lowered array function: each
 * `array.launch @k(gx, gy, gz)` with constant grid sizes, or, for a
 * kernel over a dynamic extent (tensor<?xT>), grid sizes that are scalar
 * ops of the push field n: those ops go with the launch (vtg_grid) and
 * the host evaluates them at each launch (vtg_grid_eval).
 */
#include <stdlib.h>
#include <string.h>

#include "vulpy/target.h"

void vtg_array_options_init(vtg_array_options *o) {
  memset(o, 0, sizeof *o);
  o->fuse = true;
  o->targets = true;
  vtg_options_init(&o->target);
}

vir_func *vtg_array_func(const vir_module *m) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func && s->func->is_array)
      return s->func;
  }
  return NULL;
}

static char *text_of(const vir_module *m) {
  vp_strbuf b = {0};
  vir_print(m, VIR_PRINT_NO_LOCS, &b);
  if (b.oom) {
    vp_strbuf_free(&b);
    return NULL;
  }
  char *s = vp_strbuf_take(&b);
  return s ? s : strdup("");
}

/* The ops of a dynamic launch's grid (vtg_grid): v and what it uses,
 * operands first; the index of v's op, or -1 (an error said why). */
static int grid_op(vtg_grid *g, const vir_value **seen, const vir_value *v, const vir_op *launch,
                   vp_diags *d) {
  for (uint32_t i = 0; i < g->nops; i++)
    if (seen[i] == v)
      return (int)i;
  const vir_op *def = v->def;
  const vir_type *t = v->type;
  bool u32 = t && ((t->kind == VIR_TY_UINT && t->bits == 32) || t->kind == VIR_TY_BOOL);
  if (!def || !u32 || def->nopnd > 3 || vir_op_info_of(def->code)->nregion ||
      !(def->code == VIR_OP_CONST || def->code == VIR_OP_PUSH_LOAD ||
        ((vir_op_info_of(def->code)->flags & VIR_F_PURE) && vir_op_is_elementwise(def->code)))) {
    vp_error(d, launch->loc, "array.launch: a grid size the host cannot compute (u32 ops of the "
             "push field n and constants only)");
    return -1;
  }
  vtg_grid_op op = {.code = (uint16_t)def->code, .nopnd = (uint16_t)def->nopnd};
  for (uint32_t i = 0; i < def->nopnd; i++) {
    int a = grid_op(g, seen, def->opnd[i], launch, d);
    if (a < 0)
      return -1;
    op.a[i] = (uint16_t)a;
  }
  if (def->code == VIR_OP_CONST)
    op.k = def->attr.lit.u;
  if (g->nops == VTG_GRID_OPS) {
    vp_error(d, launch->loc, "array.launch: a grid of more than %d ops", VTG_GRID_OPS);
    return -1;
  }
  seen[g->nops] = v;
  g->ops[g->nops] = op;
  return (int)g->nops++;
}

bool vtg_grid_eval(const vtg_grid *g, uint64_t n, uint32_t grid[3]) {
  uint64_t v[VTG_GRID_OPS];
  const uint64_t M = 0xffffffffu;
  for (uint32_t i = 0; i < g->nops; i++) {
    const vtg_grid_op *op = &g->ops[i];
    uint64_t x = op->nopnd > 0 ? v[op->a[0]] : 0, y = op->nopnd > 1 ? v[op->a[1]] : 0;
    uint64_t r;
    switch ((vir_opcode)op->code) {
    case VIR_OP_CONST: r = op->k & M; break;
    case VIR_OP_PUSH_LOAD: r = n & M; break;
    case VIR_OP_CAST: r = x; break; /* bool -> u32, u32 -> u32 */
    case VIR_OP_ADD: r = (x + y) & M; break;
    case VIR_OP_SUB: r = (x - y) & M; break;
    case VIR_OP_MUL: r = (x * y) & M; break;
    case VIR_OP_DIV:
      if (!y)
        return false;
      r = x / y;
      break;
    case VIR_OP_SHR: r = x >> (y & 31); break;
    case VIR_OP_SHL: r = (x << (y & 31)) & M; break;
    case VIR_OP_AND: r = x & y; break;
    case VIR_OP_OR: r = x | y; break;
    case VIR_OP_MIN: r = x < y ? x : y; break;
    case VIR_OP_MAX: r = x > y ? x : y; break;
    case VIR_OP_EQ: r = x == y; break;
    case VIR_OP_NE: r = x != y; break;
    case VIR_OP_LT: r = x < y; break;
    case VIR_OP_LE: r = x <= y; break;
    case VIR_OP_GT: r = x > y; break;
    case VIR_OP_GE: r = x >= y; break;
    case VIR_OP_SELECT: r = x ? y : v[op->a[2]]; break;
    default: return false;
    }
    v[i] = r;
  }
  for (int k = 0; k < 3; k++)
    grid[k] = (uint32_t)v[g->out[k]];
  return grid[1] <= 65535 && grid[2] <= 65535;
}

static bool launches_of(vir_func *af, vtg_array_result *r, vp_diags *d) {
  uint32_t n = 0;
  for (vir_op *op = af->body.first; op; op = op->next)
    n += op->code == VIR_OP_ARRAY_LAUNCH;
  r->launches = calloc(n ? n : 1, sizeof *r->launches);
  if (!r->launches)
    return false;
  for (vir_op *op = af->body.first; op; op = op->next) {
    if (op->code != VIR_OP_ARRAY_LAUNCH || op->nopnd != 3 || !op->attr.sym)
      continue;
    vtg_array_launch *l = &r->launches[r->nlaunches++];
    l->kernel = op->attr.sym->name;
    bool dynamic = false;
    for (int i = 0; i < 3; i++) {
      const vir_op *def = op->opnd[i]->def;
      l->grid[i] = def && def->code == VIR_OP_CONST ? (uint32_t)def->attr.lit.u : 0;
      dynamic |= !def || def->code != VIR_OP_CONST;
    }
    if (!dynamic)
      continue;
    /* a dynamic extent: the host computes the grid from n at each launch */
    const vir_value *seen[VTG_GRID_OPS];
    if (!(l->dynamic = calloc(1, sizeof *l->dynamic)))
      return false;
    for (int i = 0; i < 3; i++) {
      int k = grid_op(l->dynamic, seen, op->opnd[i], op, d);
      if (k < 0)
        return false;
      l->dynamic->out[i] = (uint16_t)k;
    }
  }
  return true;
}

/* GLSL, SPIR-V and manifest of one kernel of the lowered module. */
static bool emit_kernel(vir_module *m, const char *name, const vtg_options *base,
                        vtg_array_kernel *k, vp_diags *d) {
  vtg_options o = *base;
  o.kernel = name;
  k->name = name;
  vp_strbuf glsl = {0};
  vpm_manifest *man = NULL;
  bool ok = vtg_emit_glsl(m, &o, &glsl, d) && !glsl.oom &&
            vtg_glsl_to_spirv(glsl.data ? glsl.data : "", glsl.len, name, &o, &k->spirv,
                              &k->nwords, d) &&
            (man = vtg_manifest_from_vir(m, &o, d)) && (k->manifest = vpm_emit(man));
  k->glsl_len = glsl.len;
  k->glsl = vp_strbuf_take(&glsl);
  if (ok && !k->glsl)
    k->glsl = strdup("");
  vpm_free(man);
  return ok && k->glsl;
}

bool vtg_compile_array(vir_module *m, const vtg_array_options *o, vtg_array_result *r,
                       vp_diags *d) {
  memset(r, 0, sizeof *r);
  vir_pipeline_options po = {.verify_each = true};
  po.pass = o->pass;
  if (!(r->vir = text_of(m)))
    return false;
  /* small dtypes computed in 32 bits, then NumPy's ufuncs (array.ufunc)
   * into elementwise ops, fused or not */
  if (vir_run_pipeline(m, "lower-small-types,lower-ufuncs", &po, d) == VIR_PASS_FAILURE)
    return false;
  if (o->fuse) {
    if (vir_run_pipeline(m, "fuse", &po, d) == VIR_PASS_FAILURE || !(r->fused = text_of(m)))
      return false;
  }
  if (vir_run_pipeline(m, "lower-arrays", &po, d) == VIR_PASS_FAILURE ||
      !(r->lowered = text_of(m)))
    return false;
  vir_func *af = vtg_array_func(m);
  if (af && !launches_of(af, r, d))
    return false;
  /* the back ends see kernels only: the host schedule is in r->launches */
  while (af && af->body.first)
    vir_op_unlink(af->body.first);
  if (!o->targets)
    return true;
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    n += s->kind == VIR_SYM_FUNC && s->func && s->func->is_kernel;
  }
  r->kernels = calloc(n ? n : 1, sizeof *r->kernels);
  if (!r->kernels)
    return false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func || !s->func->is_kernel)
      continue;
    if (!emit_kernel(m, s->name, &o->target, &r->kernels[r->nkernels++], d))
      return false;
  }
  return true;
}

void vtg_array_result_free(vtg_array_result *r) {
  free(r->vir);
  free(r->fused);
  free(r->lowered);
  for (uint32_t i = 0; i < r->nlaunches; i++)
    free(r->launches[i].dynamic);
  free(r->launches);
  for (uint32_t i = 0; i < r->nkernels; i++) {
    free(r->kernels[i].glsl);
    free(r->kernels[i].spirv);
    free(r->kernels[i].manifest);
  }
  free(r->kernels);
  memset(r, 0, sizeof *r);
}
