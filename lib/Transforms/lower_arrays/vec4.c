/* vec4.c - which buffers and kernels of a module read and write vec4s.
 *
 * Planned module-wide before any kernel is lowered, because a buffer may
 * be shared by kernels of several array functions: a buffer becomes vec4
 * when every kernel that touches it qualifies, and a kernel is emitted as
 * vec4 when all of its buffers are.
 */
#include "lower_arrays.h"

/* vec4 kernels. A kernel qualifies when it is elementwise (plain stores)
 * or a reduction over every axis with no other stores, over a shape whose
 * element count is a multiple of 4, and holds only identity-view loads and
 * stores of that many 32-bit non-bool elements and elementwise ops (no
 * broadcasts, views (static or at run time) or gathers): then element 4q + k of every value comes
 * from lane k of vec4 q of its buffer. A buffer becomes vec4 when every
 * kernel that touches it qualifies; a kernel is emitted as vec4 when all
 * of its buffers are. */
static bool vec4_access(const vir_op *op, uint64_t n) {
  const vir_sym *s = op->attr.sym;
  const vir_type *t = op->code == VIR_OP_ARRAY_LOAD ? op->val.type : op->opnd[0]->type;
  /* 8/16-bit elements too (issue 19): a vec4 of them is one 4- or 8-byte
   * access; buffers packed in words (no 8/16-bit storage) stay scalar
   * (plan_vec4 skips them) */
  return s && vir_ty_is_scalar(s->type) && (s->type->bits == 32 || s->type->bits == 16 ||
                                            s->type->bits == 8) && s->type->kind != VIR_TY_BOOL &&
         t->elem == s->type && vir_ty_numel(t) == n && vir_view_is_identity(t, op->attr.arr) &&
         !vir_view_scalars(op);
}

/* A load of one element that only broadcasts read (x - mean(x): the
 * mean): it is read whole at every item, so it takes no part in the vec4
 * plan and its buffer keeps its element type. */
bool vla_splat_load(const vir_op *op) {
  if (op->code != VIR_OP_ARRAY_LOAD || vir_ty_is_dynamic(op->val.type) ||
      vir_ty_numel(op->val.type) != 1 || !op->parent)
    return false;
  bool used = false;
  for (const vir_op *u = op->parent->first; u; u = u->next)
    for (uint32_t i = 0; i < u->nopnd; i++)
      if (u->opnd[i] == &op->val) {
        if (u->code != VIR_OP_ARRAY_BROADCAST)
          return false;
        used = true;
      }
  return used;
}

static bool vec4_kernel(const vir_op *K) {
  const vir_op *red = NULL;
  uint64_t n = 0;
  uint32_t nstores = 0;
  for (const vir_op *op = K->regions[0].first; op; op = op->next) {
    if (vir_is_reduction(op->code))
      red = op;
    else if (op->code == VIR_OP_ARRAY_STORE)
      nstores++;
    else if (op->code != VIR_OP_ARRAY_LOAD && !vir_op_is_elementwise(op->code) &&
             !(op->code == VIR_OP_ARRAY_BROADCAST && vir_ty_splats(op->opnd[0]->type)))
      return false;
  }
  if (red) {
    if (nstores != 1 || !vla_full_reduction(red) || red->code == VIR_OP_ARRAY_ARGMIN ||
        red->code == VIR_OP_ARRAY_ARGMAX)
      return false;
    n = vir_ty_numel(red->opnd[0]->type);
  }
  for (const vir_op *op = K->regions[0].first; op; op = op->next) {
    if (op->code == VIR_OP_ARRAY_STORE && red && op->opnd[0] == &red->val)
      continue;
    if (op->code == VIR_OP_ARRAY_STORE && !n)
      n = vir_ty_numel(op->opnd[0]->type);
  }
  /* a dynamic extent: any n, the last vec4 reaching into the buffers'
   * padding to 16 bytes (kernels.c; a reduction leaves the lanes past n
   * out: reduce.c); 32-bit elements only, whose vec4 is those 16 bytes */
  bool dyn = red && vir_ty_is_dynamic(red->opnd[0]->type);
  for (const vir_op *op = K->regions[0].first; op && !dyn; op = op->next)
    dyn = op->code == VIR_OP_ARRAY_STORE && vir_ty_is_dynamic(op->opnd[0]->type);
  if (!n || (n % 4 && !dyn))
    return false;
  for (const vir_op *op = K->regions[0].first; op; op = op->next) {
    bool red_store = op->code == VIR_OP_ARRAY_STORE && red && op->opnd[0] == &red->val;
    if (vla_splat_load(op))
      continue;
    if ((op->code == VIR_OP_ARRAY_LOAD || (op->code == VIR_OP_ARRAY_STORE && !red_store)) &&
        (!vec4_access(op, n) || (dyn && op->attr.sym->type->bits != 32)))
      return false;
  }
  return true;
}

/* The array.kernel regions of every array function, in order. */
static void all_kernels(vir_module *m, vp_arena *a, vp_ptrvec *out) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func && s->func->is_array)
      for (vir_op *K = s->func->body.first; K; K = K->next)
        if (K->code == VIR_OP_ARRAY_KERNEL)
          vp_ptrvec_push(a, out, K);
  }
}

/* Module-wide: a buffer may be shared by the kernels of several functions. */
void vla_plan_vec4(lw *l) {
  vp_ptrvec bad = {0}, cand = {0}, ks = {0};
  all_kernels(l->m, &l->tmp, &ks);
  bool cpu = l->o && l->o->cpu_device;
  for (uint32_t ki = 0; ki < ks.len; ki++) {
    vir_op *K = ks.data[ki];
    bool ok = vec4_kernel(K) && !(cpu && !vla_cheap_region(&K->regions[0]));
    for (vir_op *op = K->regions[0].first; op; op = op->next) {
      bool mem = op->code == VIR_OP_ARRAY_LOAD || op->code == VIR_OP_ARRAY_STORE ||
                 op->code == VIR_OP_ARRAY_SCATTER;
      if (!mem)
        continue;
      bool red_store = op->code == VIR_OP_ARRAY_STORE && op->opnd[0]->def &&
                       vir_is_reduction(op->opnd[0]->def->code);
      vp_ptrvec_push(&l->tmp, ok && !red_store && !vla_splat_load(op) ? &cand : &bad,
                     op->attr.sym);
    }
  }
  /* an array function's loose loads and stores (outside any array.kernel:
   * lowered one op at a time, scalar) read their buffers as written, so
   * those buffers keep their element type (found by fuzz_vir) */
  for (uint32_t i = 0; i < l->m->syms.len; i++) {
    vir_sym *f = l->m->syms.data[i];
    if (f->kind == VIR_SYM_FUNC && f->func && f->func->is_array)
      for (vir_op *op = f->func->body.first; op; op = op->next)
        if (op->code == VIR_OP_ARRAY_LOAD || op->code == VIR_OP_ARRAY_STORE ||
            op->code == VIR_OP_ARRAY_SCATTER)
          vp_ptrvec_push(&l->tmp, &bad, op->attr.sym);
  }
  for (uint32_t i = 0; i < cand.len; i++) {
    vir_sym *s = cand.data[i];
    bool isbad = vla_is_packed8(l, s) || vla_is_vec4(l, s);
    for (uint32_t j = 0; j < bad.len && !isbad; j++)
      isbad = bad.data[j] == s;
    if (isbad)
      continue;
    s->type = vir_ty_vec(l->m, s->type, 4);
    s->count = (s->count + 3) / 4;
    vp_ptrvec_push(&l->tmp, &l->vec4, s);
  }
  /* a kernel whose buffers did not all become vec4 stays scalar: its vec4
   * buffers go back */
  for (bool again = true; again;) {
    again = false;
    for (uint32_t ki = 0; ki < ks.len; ki++) {
      vir_op *K = ks.data[ki];
      bool any = false, all = true;
      for (vir_op *op = K->regions[0].first; op; op = op->next) {
        bool red_store = op->code == VIR_OP_ARRAY_STORE && op->opnd[0]->def &&
                         vir_is_reduction(op->opnd[0]->def->code);
        if ((op->code == VIR_OP_ARRAY_LOAD || op->code == VIR_OP_ARRAY_STORE) && !red_store &&
            !vla_splat_load(op)) {
          bool v = vla_is_vec4(l, op->attr.sym);
          any |= v;
          all &= v;
        }
      }
      if (any && !all) {
        for (vir_op *op = K->regions[0].first; op; op = op->next) {
          if (op->code != VIR_OP_ARRAY_LOAD && op->code != VIR_OP_ARRAY_STORE)
            continue;
          vir_sym *s = op->attr.sym;
          for (uint32_t i = 0; i < l->vec4.len; i++)
            if (l->vec4.data[i] == s) {
              s->type = s->type->elem;
              s->count *= 4;
              l->vec4.data[i] = l->vec4.data[--l->vec4.len];
              again = true;
              break;
            }
        }
      }
    }
  }
}
