/* verify_array.c - the rules of the array level (docs/fusion.md).
 *
 * Where things may appear: tensors and array.* ops only in array functions;
 * no kernel-level memory, invocation ids, subgroups, barriers or control
 * flow in them; array.kernel and array.launch only at an array function's
 * top level. Then the shape rules: elementwise ops are checked by running
 * the scalar rules on the element types (a copy of the op whose operands
 * have the element types), after checking that the tensor operands agree
 * in shape; each array op has its own rule below.
 */
#include "verify.h"

#include <string.h>

#define ERR(c, op, ...) vir_verror((c), (op)->loc, __VA_ARGS__)

static const char *tname(const vir_type *t) { return t ? t->str : "none"; }
static const char *oname(const vir_op *op) { return vir_op_info_of(op->code)->name; }

static bool is_array_op(vir_opcode c) { return c >= VIR_OP_ARRAY_LOAD && c <= VIR_OP_ARRAY_LAUNCH; }

static bool allowed_in_array_func(vir_opcode c) {
  if (is_array_op(c) || vir_op_is_elementwise(c))
    return true;
  switch (c) {
  case VIR_OP_CONST:
  case VIR_OP_GCONST:
  case VIR_OP_PUSH_LOAD:
  case VIR_OP_RETURN: return true;
  default: return false;
  }
}

void vir_verify_placement(vctx *c, const vir_op *op, const vir_region *r) {
  const vir_func *f = c->f;
  bool tensor = vir_ty_is_tensor(op->val.type);
  for (uint32_t i = 0; i < op->nopnd; i++)
    tensor |= op->opnd[i] && vir_ty_is_tensor(op->opnd[i]->type);
  if (!f->is_array) {
    if (is_array_op(op->code))
      ERR(c, op, "'%s' outside an array function", oname(op));
    else if (tensor)
      ERR(c, op, "'%s' on tensors outside an array function", oname(op));
    return;
  }
  if (!allowed_in_array_func(op->code)) {
    ERR(c, op, "'%s' in array function @%s (array functions hold array ops, elementwise ops, "
               "constants and push loads; lower-arrays makes the kernels)",
        oname(op), f->sym->name);
    return;
  }
  if (op->code == VIR_OP_RETURN && op->nopnd)
    ERR(c, op, "array function @%s cannot return a value (results are array.store'd)", f->sym->name);
  bool top = r == &f->body;
  if ((op->code == VIR_OP_ARRAY_KERNEL || op->code == VIR_OP_ARRAY_LAUNCH) && !top)
    ERR(c, op, "'%s' only at the top level of an array function", oname(op));
}

/* ------------------------------------------------------------ elementwise */

static void verify_elementwise(vctx *c, const vir_op *op) {
  bool mismatch;
  const vir_type *shape = vir_elementwise_shape(op->nopnd, op->opnd, &mismatch);
  const vir_type *rt = op->val.type;
  if (mismatch) {
    vp_strbuf b = {0};
    for (uint32_t i = 0; i < op->nopnd; i++)
      vp_strbuf_printf(&b, "%s%s", i ? ", " : "", op->opnd[i]->type->str);
    ERR(c, op, "'%s' operands have different shapes (%s); broadcast them with array.broadcast",
        oname(op), b.data ? b.data : "");
    vp_strbuf_free(&b);
    return;
  }
  if (!shape) { /* a tensor result from scalars */
    ERR(c, op, "'%s' result is %s, but no operand is a tensor", oname(op), tname(rt));
    return;
  }
  if (!vir_ty_is_tensor(rt) || rt->n != shape->n ||
      (rt->n && memcmp(rt->dims, shape->dims, rt->n * sizeof *rt->dims))) {
    ERR(c, op, "'%s' result must have the operands' shape (%s), not %s", oname(op), shape->str,
        tname(rt));
    return;
  }
  for (uint32_t i = 0; i < op->nopnd; i++)
    if (!vir_ty_is_tensor(op->opnd[i]->type) && !vir_ty_is_scalar(op->opnd[i]->type)) {
      ERR(c, op, "'%s' operand %u is %s; with tensors, the other operands must be tensors or scalars",
          oname(op), i + 1, op->opnd[i]->type->str);
      return;
    }
  /* the scalar rules, on a copy whose operands have the element types */
  vir_op copy = *op;
  vir_value vals[4], *ptrs[4];
  if (op->nopnd > 4)
    return;
  for (uint32_t i = 0; i < op->nopnd; i++) {
    vals[i] = *op->opnd[i];
    vals[i].type = vir_ty_elem_of(op->opnd[i]->type);
    ptrs[i] = &vals[i];
  }
  copy.opnd = ptrs;
  copy.val.type = rt->elem;
  vir_verify_op_types(c, &copy);
}

/* ---------------------------------------------------------------- views */

static bool int_elem(const vir_type *t) {
  return t && (t->kind == VIR_TY_INT || t->kind == VIR_TY_UINT);
}

static bool check_strides(vctx *c, const vir_op *op, const vir_type *t) {
  const vir_array_attr *a = op->attr.arr;
  if (a && a->nstrides && a->nstrides != t->n) {
    ERR(c, op, "'%s' has %u strides for %s, which has %u dims", oname(op), a->nstrides, t->str, t->n);
    return false;
  }
  return true;
}

/* A bool tensor may live in bool, u8 (bytes) or u32 (words) buffers. */
static bool storage_fits(const vir_type *buf, const vir_type *elem) {
  if (buf == elem)
    return true;
  return elem->kind == VIR_TY_BOOL && buf->kind == VIR_TY_UINT && (buf->bits == 8 || buf->bits == 32);
}

static void check_view_bounds(vctx *c, const vir_op *op, const vir_type *t, uint64_t count, const char *what) {
  if (!count || vir_ty_numel(t) == 0)
    return;
  int64_t lo, hi;
  vir_view_extent(t, op->attr.arr, &lo, &hi);
  if (lo < 0 || (uint64_t)hi >= count)
    ERR(c, op, "'%s' view of %s reaches elements %lld..%lld of %s, which has %llu", oname(op), t->str,
        (long long)lo, (long long)hi, what, (unsigned long long)count);
}

static const vir_sym *check_buffer(vctx *c, const vir_op *op, bool write) {
  const vir_sym *s = op->attr.sym;
  if (!s || s->kind != VIR_SYM_BUFFER) {
    if (s)
      ERR(c, op, "'%s' needs a buffer, but @%s is a %s", oname(op), s->name, vir_sym_kind_name(s->kind));
    else
      ERR(c, op, "'%s' needs a buffer", oname(op));
    return NULL;
  }
  if (write && s->access == VIR_ACCESS_READONLY)
    ERR(c, op, "'%s' writes @%s, which is readonly", oname(op), s->name);
  if (!write && s->access == VIR_ACCESS_WRITEONLY)
    ERR(c, op, "'%s' reads @%s, which is writeonly", oname(op), s->name);
  return s;
}

static void check_memory(vctx *c, const vir_op *op) {
  bool write = op->code != VIR_OP_ARRAY_LOAD;
  const vir_sym *s = check_buffer(c, op, write);
  const vir_type *t = op->code == VIR_OP_ARRAY_LOAD ? op->val.type : vir_array_stored(op)->type;
  if (!s)
    return;
  if (!vir_ty_is_tensor(t)) {
    ERR(c, op, "'%s' %s must be a tensor, not %s", oname(op),
        op->code == VIR_OP_ARRAY_LOAD ? "result" : "value", tname(t));
    return;
  }
  if (!storage_fits(s->type, t->elem)) {
    ERR(c, op, "'%s' of %s through @%s, whose elements are %s", oname(op), t->str, s->name, s->type->str);
    return;
  }
  if (op->code != VIR_OP_ARRAY_SCATTER) {
    if (check_strides(c, op, t))
      check_view_bounds(c, op, t, s->count, s->name);
    return;
  }
  /* scatter: the target view has shape attr.dims; idx indexes its axis 0;
   * v has shape idx.shape + target.shape[1:] */
  const vir_array_attr *a = op->attr.arr;
  const vir_type *idx = op->opnd[0]->type;
  if (!a || a->ndims == 0) {
    ERR(c, op, "'array.scatter' needs the target's shape(...)");
    return;
  }
  if (!vir_ty_is_tensor(idx) || !int_elem(idx->elem)) {
    ERR(c, op, "'array.scatter' indices must be an integer tensor, not %s", tname(idx));
    return;
  }
  uint32_t want[VIR_MAX_RANK * 2], nw = 0;
  for (uint32_t i = 0; i < idx->n; i++)
    want[nw++] = idx->dims[i];
  for (uint32_t i = 1; i < a->ndims; i++)
    want[nw++] = a->dims[i];
  if (t->n != nw || (nw && memcmp(t->dims, want, nw * sizeof *want))) {
    ERR(c, op, "'array.scatter' values %s do not fit indices %s into a target of %u dims", t->str,
        idx->str, a->ndims);
    return;
  }
  if (a->nstrides && a->nstrides != a->ndims)
    ERR(c, op, "'array.scatter' has %u strides for a target of %u dims", a->nstrides, a->ndims);
  else if (s->count) {
    vir_type fake = {.kind = VIR_TY_TENSOR, .elem = t->elem, .n = a->ndims, .dims = a->dims};
    check_view_bounds(c, op, &fake, s->count, s->name);
  }
}

/* ------------------------------------------------------------ array ops */

static bool same_dims(const vir_type *a, const vir_type *b) {
  return a->n == b->n && (a->n == 0 || memcmp(a->dims, b->dims, a->n * sizeof *a->dims) == 0);
}

static bool check_axes(vctx *c, const vir_op *op, const vir_type *t, bool ascending) {
  const vir_array_attr *a = op->attr.arr;
  uint32_t n = a ? a->naxes : 0;
  for (uint32_t i = 0; i < n; i++) {
    if (a->axes[i] >= t->n) {
      ERR(c, op, "'%s' axis %u is out of range for %s", oname(op), a->axes[i], t->str);
      return false;
    }
    if (ascending && i && a->axes[i] <= a->axes[i - 1]) {
      ERR(c, op, "'%s' axes must be ascending and distinct", oname(op));
      return false;
    }
  }
  return true;
}

static void check_reduction(vctx *c, const vir_op *op, const vir_type *in, const vir_type *rt) {
  const vir_array_attr *a = op->attr.arr;
  if (!check_axes(c, op, in, true))
    return;
  if (op->nopnd > 3) {
    ERR(c, op, "'%s' takes a tensor, or a tensor of dynamic extent and one or two u32 scalars "
        "(its segments), not %u operands", oname(op), op->nopnd);
    return;
  }
  for (uint32_t i = 1; i < op->nopnd; i++)
    if (op->opnd[i]->type != vir_ty_uint(c->mm, 32)) {
      ERR(c, op, "'%s' operand %u (a segment length) must be u32, not %s", oname(op), i + 1,
          tname(op->opnd[i]->type));
      return;
    }
  if (op->nopnd > 1 || vir_ty_is_dynamic(rt)) { /* in segments: the element rules below */
    if (op->nopnd == 1 || !vir_ty_is_dynamic(in) || !vir_ty_is_dynamic(rt) || !a ||
        a->naxes != 1) {
      ERR(c, op, "'%s' in segments reduces a tensor of dynamic extent over axes(0) into one (%s "
          "into %s, with one or two u32 segment lengths)", oname(op), tname(in), tname(rt));
      return;
    }
  } else if (!vir_reduced_shape_ok(in, a, rt)) {
    ERR(c, op, "'%s' of %s over the axes gives the wrong shape %s (the axes dropped, or kept as 1)",
        oname(op), in->str, rt->str);
    return;
  }
  const vir_type *ie = in->elem, *re = rt->elem;
  switch (op->code) {
  case VIR_OP_ARRAY_SUM:
  case VIR_OP_ARRAY_PROD:
    if (re->kind == VIR_TY_BOOL)
      ERR(c, op, "'%s' accumulates in a number type, not bool", oname(op));
    break;
  case VIR_OP_ARRAY_MEAN:
    if (re->kind != VIR_TY_FLOAT)
      ERR(c, op, "'array.mean' result must be float, not %s", re->str);
    break;
  case VIR_OP_ARRAY_MIN:
  case VIR_OP_ARRAY_MAX:
    if (re != ie)
      ERR(c, op, "'%s' result element must be %s (the input's), not %s", oname(op), ie->str, re->str);
    break;
  case VIR_OP_ARRAY_ARGMIN:
  case VIR_OP_ARRAY_ARGMAX:
    if (!int_elem(re) || re->bits < 32)
      ERR(c, op, "'%s' result must hold indices (i32, u32, i64, u64), not %s", oname(op), re->str);
    else if (a && a->naxes > 1 && a->naxes != in->n)
      ERR(c, op, "'%s' works over one axis or all of them (a flat index)", oname(op));
    else if (ie->kind == VIR_TY_BOOL)
      ERR(c, op, "'%s' of bools", oname(op));
    break;
  case VIR_OP_ARRAY_ANY:
  case VIR_OP_ARRAY_ALL:
    if (re->kind != VIR_TY_BOOL)
      ERR(c, op, "'%s' result must be bool, not %s", oname(op), re->str);
    break;
  default: break;
  }
}

/* The operands of array.load (none, or at(%off, %step)) and array.store
 * (the value, then maybe off and step): a run-time view is of a tensor of
 * dynamic extent and takes u32 scalars. */
static bool check_at(vctx *c, const vir_op *op) {
  uint32_t base = op->code == VIR_OP_ARRAY_STORE;
  if (op->nopnd != base && op->nopnd != base + 2 && op->nopnd != base + 7 &&
      (base || op->nopnd != 4)) {
    ERR(c, op, "'%s' takes %s, not %u operands", oname(op),
        base ? "a value (and at(%off, %step) or at(%off, %step, %div, %mod, %step2, %div2, "
               "%mod2) before it)"
             : "no operands (or at(%off, %step), at(%off, %step, %div, %mod), or at(%off, "
               "%step, %div, %mod, %step2, %div2, %mod2))",
        op->nopnd);
    return false;
  }
  vir_value *const *at = vir_view_scalars(op);
  if (!at)
    return true;
  /* (with offset(...) or strides(...) too: check_dynamic said so) */
  const vir_type *t = base ? op->opnd[0]->type : op->val.type;
  if (!vir_ty_is_dynamic(t)) {
    ERR(c, op, "'%s' at(...) views a tensor of dynamic extent '?', not %s", oname(op), tname(t));
    return false;
  }
  static const char *const what[] = {"offset", "step", "divisor", "modulus",
                                     "second step", "second divisor", "second modulus"};
  for (uint32_t k = 0; k < vir_view_nscalars(op); k++)
    if (!at[k] || !at[k]->type || at[k]->type->kind != VIR_TY_UINT || at[k]->type->bits != 32) {
      ERR(c, op, "'%s' at(...) %s must be u32, not %s", oname(op), what[k],
          at[k] && at[k]->type ? tname(at[k]->type) : "nothing");
      return false;
    }
  return true;
}

/* A tensor of dynamic extent (vir_ty_is_dynamic): loaded from and stored
 * to whole unsized buffers, broadcast from a scalar or a one-element
 * static tensor, taken by elementwise
 * ops (verify_elementwise: their operands agree in shape) and reduced
 * whole (array.sum .. array.all over axis 0: a result of one element);
 * its extent is the push block's u32 field `n`. */
static bool check_dynamic(vctx *c, const vir_op *op) {
  bool dyn = vir_ty_is_dynamic(op->val.type);
  for (uint32_t i = 0; i < op->nopnd; i++)
    dyn |= op->opnd[i] && vir_ty_is_dynamic(op->opnd[i]->type);
  if (!dyn)
    return true;
  bool bcast = op->code == VIR_OP_ARRAY_BROADCAST && op->nopnd && vir_ty_splats(op->opnd[0]->type);
  bool whole = (vir_is_reduction(op->code) && ((!vir_ty_is_dynamic(op->val.type) &&
                                                 vir_ty_numel(op->val.type) == 1) ||
                                                op->nopnd > 1)) || /* segments: check_reduction */
               (op->code == VIR_OP_ARRAY_TAKE && op->nopnd != 2) ||
               (vir_is_scan(op->code) && op->nopnd != 1);
  /* (and the take over a dynamic extent: its case below) */
  if (op->code != VIR_OP_ARRAY_LOAD && op->code != VIR_OP_ARRAY_STORE && !bcast && !whole) {
    ERR(c, op, "'%s' does not take tensors of dynamic extent '?' (loads, stores, elementwise ops, "
        "broadcasts of a scalar or of one element, reductions and scans over axis 0 in "
        "segments, whole reductions, and take of rows do)", oname(op));
    return false;
  }
  const vir_array_attr *a = op->attr.arr;
  if ((op->code == VIR_OP_ARRAY_LOAD || op->code == VIR_OP_ARRAY_STORE) && a &&
      (a->offset || a->nstrides)) {
    ERR(c, op, "'%s' of a tensor of dynamic extent '?' takes no offset(...) or strides(...) (a "
        "whole buffer, or a run-time view at(%%off, %%step))", oname(op));
    return false;
  }
  if ((op->code == VIR_OP_ARRAY_LOAD || op->code == VIR_OP_ARRAY_STORE) && op->attr.sym &&
      op->attr.sym->count) {
    ERR(c, op, "'%s' of a tensor of dynamic extent '?' needs an unsized buffer (@%s : %s[])",
        oname(op), op->attr.sym->name, op->attr.sym->type->str);
    return false;
  }
  const vir_sym *pc = NULL;
  for (uint32_t i = 0; i < c->m->syms.len && !pc; i++)
    if (((const vir_sym *)c->m->syms.data[i])->kind == VIR_SYM_PUSH)
      pc = c->m->syms.data[i];
  int f = pc && pc->type->st ? vir_struct_find(pc->type->st, "n") : -1;
  if (f < 0 || pc->type->st->fields[f].type->kind != VIR_TY_UINT ||
      pc->type->st->fields[f].type->bits != 32) {
    ERR(c, op, "a tensor of dynamic extent '?' needs the push block's field 'n: u32' (its extent)");
    return false;
  }
  return true;
}

/* array.ufunc NAME: NAME's operand count; scalar operands, or tensors that
 * broadcast to the result's shape; a scalar result only from scalar
 * operands. Which element types a ufunc takes is lower-ufuncs'. */
static void check_ufunc(vctx *c, const vir_op *op) {
  const vir_type *rt = op->val.type;
  uint32_t u = op->attr.index;
  if (u >= VIR_UFUNC_COUNT) {
    ERR(c, op, "'array.ufunc' of an unknown ufunc");
    return;
  }
  if (op->nopnd != vir_ufunc_nin(u)) {
    ERR(c, op, "'array.ufunc %s' takes %u operand(s), not %u", vir_ufunc_name(u),
        vir_ufunc_nin(u), op->nopnd);
    return;
  }
  if (!rt || (!vir_ty_is_tensor(rt) && !vir_ty_is_scalar(rt))) {
    ERR(c, op, "'array.ufunc %s' result must be a tensor or a scalar, not %s",
        vir_ufunc_name(u), tname(rt));
    return;
  }
  for (uint32_t i = 0; i < op->nopnd; i++) {
    const vir_type *t = op->opnd[i]->type;
    bool ok = vir_ty_is_tensor(t) ? vir_ty_is_tensor(rt) && vir_broadcast_ok(t, rt) &&
                                        (!vir_ty_is_dynamic(rt) || same_dims(t, rt))
                                  : vir_ty_is_scalar(t);
    if (!ok) {
      ERR(c, op, "'array.ufunc %s' operand %u is %s: a scalar or a tensor that broadcasts to "
                 "the result's shape (%s)", vir_ufunc_name(u), i + 1, tname(t), tname(rt));
      return;
    }
  }
}

void vir_verify_array_op(vctx *c, const vir_op *op) {
  vir_module *m = c->mm;
  const vir_type *rt = op->val.type;
  const vir_type *t0 = op->nopnd ? op->opnd[0]->type : NULL;
  if (op->code == VIR_OP_ARRAY_UFUNC) {
    check_ufunc(c, op);
    return;
  }
  bool need_tensor_in = op->code != VIR_OP_ARRAY_LOAD && op->code != VIR_OP_ARRAY_STORE &&
                        op->code != VIR_OP_ARRAY_SCATTER && op->code != VIR_OP_ARRAY_KERNEL &&
                        op->code != VIR_OP_ARRAY_LAUNCH && op->code != VIR_OP_ARRAY_BROADCAST;
  if (need_tensor_in && !vir_ty_is_tensor(t0)) {
    ERR(c, op, "'%s' operand 1 must be a tensor, not %s", oname(op), tname(t0));
    return;
  }
  bool has_result = vir_op_info_of(op->code)->result != VIR_RES_VOID;
  if (has_result && !vir_ty_is_tensor(rt)) {
    ERR(c, op, "'%s' result must be a tensor, not %s", oname(op), tname(rt));
    return;
  }
  if (!check_dynamic(c, op))
    return;
  switch (op->code) {
  case VIR_OP_ARRAY_LOAD:
  case VIR_OP_ARRAY_STORE:
    if (check_at(c, op))
      check_memory(c, op);
    break;
  case VIR_OP_ARRAY_SCATTER: check_memory(c, op); break;
  case VIR_OP_ARRAY_SLICE:
    if (rt->elem != t0->elem)
      ERR(c, op, "'array.slice' keeps the element type %s, not %s", t0->elem->str, rt->elem->str);
    else if (check_strides(c, op, rt))
      check_view_bounds(c, op, rt, vir_ty_numel(t0), "its operand");
    break;
  case VIR_OP_ARRAY_BROADCAST:
    if (!vir_ty_is_tensor(t0) && !vir_ty_is_scalar(t0))
      ERR(c, op, "'array.broadcast' of %s: a tensor or a scalar", tname(t0));
    else if (vir_ty_elem_of((vir_type *)t0) != rt->elem)
      ERR(c, op, "'array.broadcast' keeps the element type %s, not %s",
          vir_ty_elem_of((vir_type *)t0)->str, rt->elem->str);
    else if (!vir_broadcast_ok(t0, rt))
      ERR(c, op, "'array.broadcast' cannot broadcast %s to %s", t0->str, rt->str);
    break;
  case VIR_OP_ARRAY_RESHAPE:
    if (rt->elem != t0->elem || vir_ty_numel(rt) != vir_ty_numel(t0))
      ERR(c, op, "'array.reshape' of %s to %s changes the element type or count", t0->str, rt->str);
    break;
  case VIR_OP_ARRAY_TRANSPOSE: {
    const vir_array_attr *a = op->attr.arr;
    bool seen[VIR_MAX_RANK] = {0}, perm = a && a->naxes == t0->n && rt->n == t0->n;
    for (uint32_t i = 0; perm && i < t0->n; i++) {
      perm = a->axes[i] < t0->n && !seen[a->axes[i]];
      if (perm)
        seen[a->axes[i]] = true;
    }
    if (!perm) {
      ERR(c, op, "'array.transpose' axes must be a permutation of the %u dims of %s", t0->n, t0->str);
      break;
    }
    bool ok = rt->elem == t0->elem;
    for (uint32_t i = 0; ok && i < t0->n; i++)
      ok = rt->dims[i] == t0->dims[a->axes[i]];
    if (!ok)
      ERR(c, op, "'array.transpose' of %s by the axes is not %s", t0->str, rt->str);
    break;
  }
  case VIR_OP_ARRAY_TAKE: {
    if (op->nopnd != 2 && op->nopnd != 4) {
      ERR(c, op, "'array.take' takes a tensor and its indices, or over a dynamic extent also "
          "two u32 scalars (rows, inner), not %u operands", op->nopnd);
      break;
    }
    const vir_type *idx = op->opnd[1]->type;
    const vir_array_attr *a = op->attr.arr;
    if (op->nopnd == 4 || vir_ty_is_dynamic(rt)) {
      bool ok = op->nopnd == 4 && vir_ty_is_dynamic(t0) && vir_ty_is_dynamic(idx) &&
                vir_ty_is_dynamic(rt) && int_elem(idx->elem) && rt->elem == t0->elem &&
                a && a->naxes == 1 && a->axes[0] == 0;
      for (uint32_t i = 2; ok && i < 4; i++)
        ok = op->opnd[i]->type == vir_ty_uint(m, 32);
      if (!ok)
        ERR(c, op, "'array.take' over a dynamic extent gathers %s by %s into %s: tensors of "
            "dynamic extent of one element type, integer indices, axes(0) and two u32 scalars "
            "(rows, inner)", tname(t0), tname(idx), tname(rt));
      break;
    }
    if (!vir_ty_is_tensor(idx) || !int_elem(idx->elem)) {
      ERR(c, op, "'array.take' indices must be an integer tensor, not %s", tname(idx));
      break;
    }
    if (!a || a->naxes != 1 || a->axes[0] >= t0->n) {
      ERR(c, op, "'array.take' needs one axis of %s", t0->str);
      break;
    }
    uint32_t k = a->axes[0], want[VIR_MAX_RANK * 2], nw = 0;
    for (uint32_t i = 0; i < k; i++)
      want[nw++] = t0->dims[i];
    for (uint32_t i = 0; i < idx->n; i++)
      want[nw++] = idx->dims[i];
    for (uint32_t i = k + 1; i < t0->n; i++)
      want[nw++] = t0->dims[i];
    if (rt->elem != t0->elem || rt->n != nw || (nw && memcmp(rt->dims, want, nw * sizeof *want)))
      ERR(c, op, "'array.take' of %s at %s along axis %u is not %s", t0->str, idx->str, k, rt->str);
    break;
  }
  case VIR_OP_ARRAY_SUM:
  case VIR_OP_ARRAY_PROD:
  case VIR_OP_ARRAY_MIN:
  case VIR_OP_ARRAY_MAX:
  case VIR_OP_ARRAY_MEAN:
  case VIR_OP_ARRAY_ARGMIN:
  case VIR_OP_ARRAY_ARGMAX:
  case VIR_OP_ARRAY_ANY:
  case VIR_OP_ARRAY_ALL: check_reduction(c, op, t0, rt); break;
  case VIR_OP_ARRAY_CUMSUM:
  case VIR_OP_ARRAY_CUMPROD:
  case VIR_OP_ARRAY_CUMMAX:
  case VIR_OP_ARRAY_CUMMIN:
    if ((op->code == VIR_OP_ARRAY_CUMMAX || op->code == VIR_OP_ARRAY_CUMMIN) &&
        rt->elem != t0->elem) {
      ERR(c, op, "'%s' result element must be %s (the input's), not %s", oname(op),
          tname(t0->elem), tname(rt->elem));
      break;
    }
    if (!op->attr.arr || op->attr.arr->naxes != 1) {
      ERR(c, op, "'%s' needs one axis", oname(op));
      break;
    }
    if (op->nopnd != 1 || vir_ty_is_dynamic(rt)) { /* in segments (ops.def) */
      bool ok = op->nopnd == 3 && vir_ty_is_dynamic(t0) && vir_ty_is_dynamic(rt) &&
                rt->elem->kind != VIR_TY_BOOL && op->attr.arr->axes[0] == 0;
      for (uint32_t i = 1; ok && i < 3; i++)
        ok = op->opnd[i]->type == vir_ty_uint(m, 32);
      if (!ok)
        ERR(c, op, "'%s' in segments scans a tensor of dynamic extent over axes(0) into one of a "
            "number type with two u32 scalars (len, inner): not %s into %s with %u operands",
            oname(op), tname(t0), tname(rt), op->nopnd);
      break;
    }
    if (check_axes(c, op, t0, true) && (!same_dims(rt, t0) || rt->elem->kind == VIR_TY_BOOL))
      ERR(c, op, "'%s' result must have the shape of %s and a number type, not %s", oname(op),
          t0->str, rt->str);
    break;
  case VIR_OP_ARRAY_LAUNCH: {
    const vir_sym *s = op->attr.sym;
    if (!s || s->kind != VIR_SYM_FUNC || !s->func || !s->func->is_kernel)
      ERR(c, op, "'array.launch' needs a kernel");
    for (uint32_t i = 0; i < op->nopnd; i++)
      if (op->opnd[i]->type != vir_ty_uint(m, 32))
        ERR(c, op, "'array.launch' group counts are u32, not %s", op->opnd[i]->type->str);
    break;
  }
  default: break;
  }
}

/* Called for every op with its operands present: array ops and
 * elementwise ops on tensors get their rules here; returns false when the
 * op is not one of them (the scalar rules apply). */
bool vir_verify_array_types(vctx *c, const vir_op *op) {
  if (is_array_op(op->code)) {
    vir_verify_array_op(c, op);
    return true;
  }
  if (!vir_op_is_elementwise(op->code))
    return false;
  bool tensor = vir_ty_is_tensor(op->val.type);
  for (uint32_t i = 0; i < op->nopnd; i++)
    tensor |= vir_ty_is_tensor(op->opnd[i]->type);
  if (!tensor)
    return false;
  verify_elementwise(c, op);
  return true;
}
