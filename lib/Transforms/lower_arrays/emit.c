/* emit.c - the scalar value of an array value at an index.
 *
 * emit(v, I) recurses over v's definition: a load reads its buffer at the
 * view's offset of I; an elementwise op applies the scalar op to its
 * operands at I; broadcast, reshape, transpose and slice rewrite I; take
 * reads its indices at part of I and its source at the gathered index.
 * Scalars of the array function are cloned into the kernel's prologue.
 * Within one loop body a value is emitted once per index (a memo).
 */
#include "lower_arrays.h"

/* The kernel's copy of a scalar value of the array function (its ops are
 * cloned into the prologue, operands first). */
vir_value *vla_scalar(lw *l, vir_value *v) {
  if (v->id < l->nscal && l->scal[v->id])
    return l->scal[v->id];
  vir_op *d = v->def;
  if (!d || d->nopnd > 4) {
    /* the verifier gives every scalar op a definition of at most 3
     * operands; text VIR could still reach here: say so */
    vp_error(l->d, d ? d->loc : (vp_loc){0},
             "lower-arrays: the scalar operand '%%%u' cannot be copied into a kernel", v->id);
    l->failed = true;
    return v;
  }
  vir_value *ops[4];
  for (uint32_t i = 0; i < d->nopnd; i++)
    ops[i] = vla_scalar(l, d->opnd[i]);
  vir_builder pb = l->b;
  pb.region = &l->k->body;
  pb.before = l->pro ? l->pro->next : l->k->body.first;
  pb.loc = d->loc;
  if (d->code == VIR_OP_CAST && (vla_emulated(l, d->opnd[0]->type) || vla_emulated(l, v->type))) {
    vir_builder saved = l->b;
    l->b = pb;
    vir_value *r = vla_small_cast(l, ops[0], d->opnd[0]->type, v->type);
    l->b = saved;
    if (r && r->def)
      l->pro = r->def;
    if (r && v->id < l->nscal)
      l->scal[v->id] = r;
    return r ? r : v;
  }
  vir_op *c = vir_build(&pb, d->code, v->type, d->nopnd, ops);
  if (!c) {
    l->failed = true;
    return v;
  }
  c->attr = d->attr;
  c->val.name = v->name;
  l->pro = c;
  if (v->id < l->nscal)
    l->scal[v->id] = &c->val;
  return &c->val;
}


/* The element of a one-element load that broadcasts alone read
 * (vla_splat_load), read once in the kernel's prologue. */
static vir_value *splat(lw *l, vir_value *v) {
  if (v->id < l->nscal && l->scal[v->id])
    return l->scal[v->id];
  vir_op *d = v->def;
  vir_builder saved = l->b;
  l->b.region = &l->k->body;
  l->b.before = l->pro ? l->pro->next : l->k->body.first;
  l->b.loc = d->loc;
  vir_op *after = l->b.before;
  idx *ix = vla_new_idx(l, v->type, NULL);
  for (uint32_t i = 0; ix && i < v->type->n; i++)
    ix->multi[i] = vla_ku(l, 0);
  vir_value *r = ix ? vla_load_elem(l, d->attr.sym, vla_view_offset(l, v->type, d->attr.arr, ix),
                                    v->type->elem)
                    : NULL;
  l->b = saved;
  if (!r)
    return NULL;
  /* the prologue ends with the load (constants made meanwhile sit before) */
  l->pro = after ? after->prev : l->k->body.last;
  if (v->id < l->nscal)
    l->scal[v->id] = r;
  return r;
}

static bool const_u32_is(const vir_value *v, uint64_t k) {
  return v->def && v->def->code == VIR_OP_CONST && v->def->attr.lit.u == k;
}

/* ((i / div) % mod) * step of a run-time view: a constant divisor 1 (a row
 * repeated), a constant modulus 0xffffffff (the leading axes: i / div
 * stays below it) and a constant step 1 are left out; no div and mod: i *
 * step. */
static vir_value *axis_term(lw *l, vir_value *i, vir_value *step, vir_value *div,
                            vir_value *mod) {
  if (div && !const_u32_is(div, 1))
    i = vla_bin(l, VIR_OP_DIV, i, vla_scalar(l, div));
  if (mod && !const_u32_is(mod, UINT32_MAX))
    i = vla_bin(l, VIR_OP_REM, i, vla_scalar(l, mod));
  return const_u32_is(step, 1) ? i : vla_bin(l, VIR_OP_MUL, i, vla_scalar(l, step));
}

/* The buffer element a load or store `op` of shape t reaches at ix: its
 * view's offset, static or at run time (at(%off, %step): off + i * step,
 * u32 arithmetic; a load's at(%off, %step, %div, %mod): i is first
 * (i / div) % mod, C's / and % - the host passes div, mod >= 1). */
static vir_value *op_offset(lw *l, const vir_op *op, const vir_type *t, idx *ix) {
  vir_value *const *at = vir_view_scalars(op);
  if (!at)
    return vla_view_offset(l, t, op->attr.arr, ix);
  vir_value *off = vla_scalar(l, at[0]), *i = vla_flat_of(l, ix);
  uint32_t n = vir_view_nscalars(op);
  vir_value *r = vla_bin(l, VIR_OP_ADD, off, axis_term(l, i, at[1], n > 2 ? at[2] : NULL,
                                                       n > 2 ? at[3] : NULL));
  if (n == 7)
    r = vla_bin(l, VIR_OP_ADD, r, axis_term(l, i, at[4], at[5], at[6]));
  return r;
}

static vir_value *gathered_index(lw *l, vir_value *j, uint32_t dim) {
  /* NumPy: negative indices count from the end; the rest are clamped so a
   * bad index never reads outside the buffer (the host checks bounds). */
  vir_type *t = j->type;
  if (t->kind == VIR_TY_INT) {
    vir_value *neg = vla_bin(l, VIR_OP_LT, j, vla_num(l, t, 0));
    j = vla_sel(l, neg, vla_bin(l, VIR_OP_ADD, j, vla_num(l, t, dim)), j);
    j = vla_bin(l, VIR_OP_MAX, j, vla_num(l, t, 0));
  }
  j = vla_cast(l, j, vla_u32t(l));
  return vla_bin(l, VIR_OP_MIN, j, vla_ku(l, dim ? dim - 1 : 0));
}

/* gathered_index with the axis length `dim` a u32 value of the kernel
 * (the take over a dynamic extent): wrapped from the end, clamped to
 * [0, dim - 1] (0 when dim is 0). */
static vir_value *gathered_index_dyn(lw *l, vir_value *j, vir_value *dim) {
  vir_type *t = j->type;
  if (!t)
    return NULL;
  if (t->kind == VIR_TY_INT) {
    vir_value *d = vla_cast(l, dim, t);
    vir_value *neg = vla_bin(l, VIR_OP_LT, j, vla_num(l, t, 0));
    j = vla_sel(l, neg, vla_bin(l, VIR_OP_ADD, j, d), j);
    j = vla_bin(l, VIR_OP_MAX, j, vla_num(l, t, 0));
  }
  vir_value *last = vla_bin(l, VIR_OP_SUB, vla_bin(l, VIR_OP_MAX, dim, vla_ku(l, 1)), vla_ku(l, 1));
  if (t->bits == 64) /* clamped as 64 bits: a large index must not wrap into range */
    j = vla_bin(l, VIR_OP_MIN, j, vla_cast(l, last, t));
  return vla_bin(l, VIR_OP_MIN, vla_cast(l, j, vla_u32t(l)), last);
}

/* Whether v is work, not a name for data (a constant, a load, a lane). */
static bool computed(const vir_value *v) {
  switch (v->def ? v->def->code : VIR_OP_CONST) {
  case VIR_OP_CONST:
  case VIR_OP_EXTRACT:
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_PUSH_LOAD:
  case VIR_OP_LOCAL_LOAD: return false;
  default: return true;
  }
}

static vir_value *emit_op(lw *l, vir_value *v, idx *ix) {
  vir_op *d = v->def;
  vir_type *et = v->type->elem;
  switch (d->code) {
  case VIR_OP_ARRAY_LOAD:
    if (ix->quad && vla_is_vec4(l, d->attr.sym))
      return vla_load_lane(l, d->attr.sym, ix->quad, ix->lane);
    return vla_load_elem(l, d->attr.sym, op_offset(l, d, v->type, ix), et);
  case VIR_OP_ARRAY_BROADCAST: {
    const vir_type *f = d->opnd[0]->type;
    if (!vir_ty_is_tensor(f))
      return vla_scalar(l, d->opnd[0]);
    if (d->opnd[0]->def && vla_splat_load(d->opnd[0]->def))
      return splat(l, d->opnd[0]);
    if (f->n == v->type->n && !memcmp(f->dims, v->type->dims, f->n * sizeof *f->dims))
      return vla_emit(l, d->opnd[0], ix);
    idx *s = vla_new_idx(l, f, NULL);
    for (uint32_t i = 0; s && i < f->n; i++)
      s->multi[i] = f->dims[i] == 1 ? vla_ku(l, 0) : vla_dim_index(l, ix, i + (v->type->n - f->n));
    return s ? vla_emit(l, d->opnd[0], s) : NULL;
  }
  case VIR_OP_ARRAY_RESHAPE: {
    idx *s = vla_new_idx(l, d->opnd[0]->type, vla_flat_of(l, ix));
    return s ? vla_emit(l, d->opnd[0], s) : NULL;
  }
  case VIR_OP_ARRAY_TRANSPOSE: {
    idx *s = vla_new_idx(l, d->opnd[0]->type, NULL);
    for (uint32_t i = 0; s && i < v->type->n; i++)
      s->multi[d->attr.arr->axes[i]] = vla_dim_index(l, ix, i);
    return s ? vla_emit(l, d->opnd[0], s) : NULL;
  }
  case VIR_OP_ARRAY_SLICE: {
    idx *s = vla_new_idx(l, d->opnd[0]->type, vla_view_offset(l, v->type, d->attr.arr, ix));
    return s ? vla_emit(l, d->opnd[0], s) : NULL;
  }
  case VIR_OP_ARRAY_TAKE: {
    if (d->nopnd == 4) { /* over a dynamic extent (ops.def): rows of inner gathered */
      vir_value *rows = vla_scalar(l, d->opnd[2]);
      vir_value *inner = vla_bin(l, VIR_OP_MAX, vla_scalar(l, d->opnd[3]), vla_ku(l, 1));
      vir_value *i = vla_flat_of(l, ix), *j = vla_bin(l, VIR_OP_DIV, i, inner);
      vir_value *r = vla_bin(l, VIR_OP_SUB, i, vla_bin(l, VIR_OP_MUL, j, inner));
      vir_value *g = gathered_index_dyn(l, vla_emit(l, d->opnd[1], vla_new_idx(l, d->opnd[1]->type, j)),
                                        rows);
      vir_value *at = vla_bin(l, VIR_OP_ADD, vla_bin(l, VIR_OP_MUL, g, inner), r);
      return vla_emit(l, d->opnd[0], vla_new_idx(l, d->opnd[0]->type, at));
    }
    const vir_type *x = d->opnd[0]->type, *it = d->opnd[1]->type;
    uint32_t k = d->attr.arr->axes[0], ri = it->n;
    idx *ii = vla_new_idx(l, it, NULL), *xi = vla_new_idx(l, x, NULL);
    if (!ii || !xi)
      return NULL;
    for (uint32_t i = 0; i < ri; i++)
      ii->multi[i] = vla_dim_index(l, ix, k + i);
    for (uint32_t i = 0; i < k; i++)
      xi->multi[i] = vla_dim_index(l, ix, i);
    xi->multi[k] = gathered_index(l, vla_emit(l, d->opnd[1], ii), x->dims[k]);
    for (uint32_t i = k + 1; i < x->n; i++)
      xi->multi[i] = vla_dim_index(l, ix, i - 1 + ri);
    return vla_emit(l, d->opnd[0], xi);
  }
  default: break;
  }
  if (d->code == VIR_OP_ARRAY_UFUNC) {
    vp_error(l->d, d->loc, "lower-arrays: 'array.ufunc %s' is expanded by lower-ufuncs, which runs "
             "first (vulpy-opt --lower-ufuncs; vtg_compile_array runs it)", vir_ufunc_name(d->attr.index));
    l->failed = true;
    return NULL;
  }
  if (!vir_op_is_elementwise(d->code) || d->nopnd > 4) {
    vp_error(l->d, d->loc, "lower-arrays: '%s' cannot be computed per element here (run fuse first?)",
             vir_op_info_of(d->code)->name);
    l->failed = true;
    return NULL;
  }
  vir_value *ops[4];
  for (uint32_t i = 0; i < d->nopnd; i++) {
    vir_value *o = d->opnd[i];
    ops[i] = vir_ty_is_tensor(o->type) ? vla_emit(l, o, ix) : vla_scalar(l, o);
    if (!ops[i])
      return NULL;
  }
  {
    const vir_type *src = d->nopnd ? d->opnd[0]->type : NULL;
    src = src && vir_ty_is_tensor(src) ? src->elem : src;
    bool emu = vla_emulated(l, et);
    for (uint32_t i = 0; i < d->nopnd; i++) {
      const vir_type *ot = d->opnd[i]->type;
      emu |= vla_emulated(l, vir_ty_is_tensor(ot) ? ot->elem : ot);
    }
    if (d->code == VIR_OP_CAST && emu)
      return vla_small_cast(l, ops[0], (vir_type *)src, et);
    if (emu) {
      vp_error(l->d, d->loc,
               "lower-arrays: '%s' on a %u-bit type: this device stores it in 32-bit words "
               "(it lacks 8/16-bit storage or arithmetic); cast to a 32-bit type first",
               vir_op_info_of(d->code)->name, vla_emulated(l, et) ? et->bits : src ? src->bits : 0);
      l->failed = true;
      return NULL;
    }
  }
  if (d->code == VIR_OP_SELECT && l->o && l->o->cpu_device) {
    /* a named value is a variable of its own in the printed code, never
     * inlined into the `c ? a : b` */
    for (uint32_t i = 1; i < 3; i++)
      if (!ops[i]->name && computed(ops[i]))
        ops[i]->name = i == 1 ? "if_true" : "if_false";
  }
  vir_op *c = vir_build(&l->b, d->code, et, d->nopnd, ops);
  if (!c) {
    l->failed = true;
    return NULL;
  }
  c->attr = d->attr;
  c->loc = d->loc;
  c->val.name = v->name;
  return &c->val;
}

vir_value *vla_emit(lw *l, vir_value *v, idx *ix) {
  if (!vir_ty_is_tensor(v->type))
    return vla_scalar(l, v);
  for (uint32_t i = l->nmemo; i-- > 0;)
    if (l->memo[i].v == v && l->memo[i].ix == ix)
      return l->memo[i].r;
  vp_loc saved_loc = l->b.loc;
  l->b.loc = v->def ? v->def->loc : saved_loc;
  vir_value *r = emit_op(l, v, ix);
  l->b.loc = saved_loc;
  if (!r)
    return NULL;
  if (l->nmemo == l->capmemo) {
    uint32_t cap = l->capmemo ? 2 * l->capmemo : 64;
    memo *nm = realloc(l->memo, cap * sizeof *nm);
    if (!nm) {
      l->failed = true;
      return r;
    }
    l->memo = nm;
    l->capmemo = cap;
  }
  l->memo[l->nmemo++] = (memo){v, ix, r};
  return r;
}

/* Stores the region's plain array.stores at index ix (their value shape). */
void vla_emit_stores(lw *l, vir_op **stores, uint32_t n, idx *ix) {
  for (uint32_t i = 0; i < n; i++) {
    vir_op *st = stores[i];
    vir_value *v = vir_array_stored(st);
    vir_value *x = vla_emit(l, v, ix);
    if (x)
      vla_store_elem(l, st->attr.sym, op_offset(l, st, v->type, ix), x);
  }
}
