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
 * ops of the push field n: the host computes them at each launch
 * (vtg_array_grid, the same rule).
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

void vtg_array_grid(uint64_t n, uint32_t lanes, uint32_t grid[3]) {
  uint64_t items = lanes > 1 ? (n + lanes - 1) / lanes : n;
  vir_array_grid(items, grid);
}

/* The elements per invocation of a launch whose grid is scalar ops of the
 * push field n (lower-arrays' dynamic_grid): 1 << k for the `shr n, k`
 * that makes items = ceil(n / 2^k), else 1. */
static uint32_t lanes_of(const vir_value *v, int depth) {
  const vir_op *d = v ? v->def : NULL;
  if (!d || depth > 8)
    return 0;
  if (d->code == VIR_OP_SHR && d->opnd[0]->def && d->opnd[0]->def->code == VIR_OP_PUSH_LOAD &&
      d->opnd[1]->def && d->opnd[1]->def->code == VIR_OP_CONST)
    return 1u << d->opnd[1]->def->attr.lit.u;
  if (d->code == VIR_OP_PUSH_LOAD)
    return 1;
  uint32_t best = 0;
  for (uint32_t i = 0; i < d->nopnd; i++) {
    uint32_t k = lanes_of(d->opnd[i], depth + 1);
    best = k > best ? k : best;
  }
  return best;
}

static bool launches_of(vir_func *af, vtg_array_result *r) {
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
    for (int i = 0; i < 3; i++) {
      const vir_op *def = op->opnd[i]->def;
      l->grid[i] = def && def->code == VIR_OP_CONST ? (uint32_t)def->attr.lit.u : 1;
    }
    const vir_op *gx = op->opnd[0]->def;
    if (gx && gx->code != VIR_OP_CONST) { /* a dynamic extent: the host's grid */
      l->lanes = lanes_of(op->opnd[0], 0);
      l->grid[0] = l->grid[1] = 0;
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
  if (af && !launches_of(af, r))
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
  free(r->launches);
  for (uint32_t i = 0; i < r->nkernels; i++) {
    free(r->kernels[i].glsl);
    free(r->kernels[i].spirv);
    free(r->kernels[i].manifest);
  }
  free(r->kernels);
  memset(r, 0, sizeof *r);
}
