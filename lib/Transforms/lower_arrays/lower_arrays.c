/* lower_arrays.c - the `lower-arrays` pass: array functions into kernels.
 *
 * An array function that `fuse` has not partitioned is first partitioned
 * one op per kernel (arrays.c, SPLIT mode). Then each array.kernel region
 * becomes a kernel `@F_kN` (local size 256) and, in the array function, an
 * `array.launch @F_kN(gx, gy, gz)`: the list of launches is what the host
 * runs, in order.
 *
 * Code is generated per element (docs/fusion.md, "Lowering"): emit(v, I)
 * gives the scalar value of tensor v at index I, recursively: a load reads
 * its buffer at offset + sum(I_k * stride_k); an elementwise op applies
 * the scalar op to its operands at I; broadcast, reshape, transpose and
 * slice rewrite I; take reads its indices at part of I and its source at
 * the gathered index. An index is a flat row-major position, a
 * multi-index, or both, each computed from the other only when needed, so
 * a chain over contiguous arrays reads `@a[%i]` with no index arithmetic.
 * Within one loop body a value is emitted once per index (a memo).
 *
 * Kernel shapes, by what the region stores:
 *   elementwise  a grid-stride loop over the stored shape;
 *   reduction over all axes: a grid-stride loop accumulating per
 *     invocation, a workgroup tree (subgroup ops, then a shared-memory tree
 *     over the subgroups' results; shared memory only without subgroup
 *     arithmetic), each workgroup's result in a partials buffer, and the
 *     last workgroup to finish (an atomic counter) reduces the partials and
 *     writes the result: one dispatch;
 *   reduction over trailing axes (at least 64 elements each): a workgroup
 *     per output element, the same tree;
 *   other reductions: an invocation per output element, a loop;
 *   scan: an invocation per line along the axis, a loop, for lines of
 *     up to TILE; longer lines and long reductions are tiled (see
 *     "tiled scans and reductions");
 *   scatter: a grid-stride loop over the values.
 * Bools are stored as u32 words or bytes; 8-bit buffers on devices without
 * 8-bit storage are read as u32 words and written with atomic and/or.
 * So are 16-bit buffers (int16, uint16, float16) on devices without 16-bit
 * storage, and the small types whose arithmetic feature (int8, int16,
 * float16) the device lacks: in the kernel such a value is its bits in a
 * u32 (zero-extended); casts decode and encode them ("small types
 * emulated in words" below; float16 rounds to nearest even as NumPy).
 *
 * The pass's parts live in the files of this folder (lower_arrays.h says
 * which does what); this one is the driver: per array.kernel region it
 * picks the kernel shape, starts the kernel, and replaces the region by
 * its launches.
 */
#include "lower_arrays.h"

/* A u32 constant at the top of the array function, made once (reused
 * only when it comes before the launch, ab->before). */
static vir_value *launch_const(lw *l, vir_builder *ab, uint32_t v) {
  for (vir_op *op = l->af->body.first; op && op != ab->before; op = op->next)
    if (op->code == VIR_OP_CONST && op->val.type == vla_u32t(l) && op->attr.lit.u == v)
      return &op->val;
  vir_builder top = *ab;
  top.before = l->af->body.first;
  return vir_build_int(&top, vla_u32t(l), v);
}

static vir_value *abin(vir_builder *ab, vir_opcode c, vir_value *a, vir_value *b) {
  vir_value *v[2] = {a, b};
  vir_op *op = a && b ? vir_build_auto(ab, c, 2, v) : NULL;
  return op ? &op->val : NULL;
}

/* The grid of an elementwise kernel over a dynamic extent, as scalar ops
 * of the push field n in the array function: vla_array_grid of items =
 * ceil(n / lanes) written out (the host evaluates them at each launch:
 * vtg_grid_eval). */
static bool dynamic_grid(lw *l, vir_builder *ab, vir_value **gx, vir_value **gy) {
  vir_value *n = vla_push_n(l, ab);
  if (!n)
    return false;
  vir_value *items = n;
  if (l->dyn_lanes == 4) {
    vir_value *r = abin(ab, VIR_OP_NE, abin(ab, VIR_OP_AND, n, launch_const(l, ab, 3)),
                        launch_const(l, ab, 0));
    vir_op *c = r ? vir_build(ab, VIR_OP_CAST, vla_u32t(l), 1, &r) : NULL;
    items = c ? abin(ab, VIR_OP_ADD, abin(ab, VIR_OP_SHR, n, launch_const(l, ab, 2)), &c->val) : NULL;
  }
  uint32_t row = (uint32_t)ROW_GROUPS * WG;
  vir_value *small = abin(ab, VIR_OP_LE, items, launch_const(l, ab, (uint32_t)MAX_GROUPS * WG));
  vir_value *g1 = abin(ab, VIR_OP_DIV, abin(ab, VIR_OP_ADD, items, launch_const(l, ab, WG - 1)),
                       launch_const(l, ab, WG));
  vir_value *rows = abin(ab, VIR_OP_ADD,
                         abin(ab, VIR_OP_DIV, abin(ab, VIR_OP_SUB, items, launch_const(l, ab, 1)),
                              launch_const(l, ab, row)),
                         launch_const(l, ab, 1));
  vir_value *s1[3] = {small, g1, launch_const(l, ab, ROW_GROUPS)};
  vir_value *s2[3] = {small, launch_const(l, ab, 1), rows};
  vir_op *x = small && g1 && rows ? vir_build(ab, VIR_OP_SELECT, vla_u32t(l), 3, s1) : NULL;
  vir_op *y = x ? vir_build(ab, VIR_OP_SELECT, vla_u32t(l), 3, s2) : NULL;
  if (!y)
    return false;
  *gx = &x->val;
  *gy = &y->val;
  return true;
}

/* ceil(n / 2^k) for a u32 n, without overflow: (n >> k) + (n & (2^k - 1) != 0). */
static vir_value *ceil_shr(lw *l, vir_builder *ab, vir_value *n, uint32_t k) {
  vir_value *r = abin(ab, VIR_OP_NE, abin(ab, VIR_OP_AND, n, launch_const(l, ab, (1u << k) - 1)),
                      launch_const(l, ab, 0));
  vir_op *c = r ? vir_build(ab, VIR_OP_CAST, vla_u32t(l), 1, &r) : NULL;
  return c ? abin(ab, VIR_OP_ADD, abin(ab, VIR_OP_SHR, n, launch_const(l, ab, k)), &c->val) : NULL;
}

static uint32_t log2u(uint32_t x) {
  uint32_t k = 0;
  while ((1u << k) < x)
    k++;
  assert((1u << k) == x);
  return k;
}

/* The group count of a full reduction over a dynamic extent, as scalar
 * ops of n: vla_full_groups written out, max(min(ceil(n / (WG RED_TILE)),
 * cap), ceil(n / (WG MAX_ITER)), 1). */
static vir_value *reduce_grid(lw *l, vir_builder *ab) {
  vir_value *n = vla_push_n(l, ab);
  if (!n)
    return NULL;
  vir_value *tiles = ceil_shr(l, ab, n, log2u(WG * RED_TILE));
  vir_value *need = ceil_shr(l, ab, n, log2u(WG * MAX_ITER));
  vir_value *g = abin(ab, VIR_OP_MIN, tiles, launch_const(l, ab, l->dyn_red_cap));
  g = abin(ab, VIR_OP_MAX, abin(ab, VIR_OP_MAX, g, need), launch_const(l, ab, 1));
  if (!g)
    l->failed = true;
  return g;
}

/* The group count of a reduction in segments (reduce.c,
 * vla_kernel_segment_reduce), as scalar ops of n: the static kernels'
 * count for n outputs, max(min(n, MAX_GROUPS), 1) workgroups of one
 * output (dyn_seg 1) or max(min(ceil(n / WG), MAX_GROUPS), 1) of WG. */
static vir_value *segment_grid(lw *l, vir_builder *ab) {
  vir_value *n = vla_push_n(l, ab);
  if (!n)
    return NULL;
  vir_value *items = l->dyn_seg == 1 ? n : ceil_shr(l, ab, n, log2u(WG));
  vir_value *g = abin(ab, VIR_OP_MAX, abin(ab, VIR_OP_MIN, items, launch_const(l, ab, MAX_GROUPS)),
                      launch_const(l, ab, 1));
  if (!g)
    l->failed = true;
  return g;
}

/* Starts kernel `name` (local size WG): the builder at its body. */
bool vla_start_kernel(lw *l, vir_op *K, const char *name) {
  vir_func *k = vir_add_func(l->m, name, true, NULL, 0, NULL, NULL, K->loc);
  if (!k)
    return false;
  k->local_size[0] = WG;
  l->k = k;
  l->pro = NULL;
  l->nmemo = 0;
  l->nlocals = 0;
  l->consts.len = 0;
  memset(l->ids, 0, sizeof l->ids);
  l->gy = 1;
  l->dyn_lanes = 0;
  l->dyn_red_cap = 0;
  l->dyn_seg = 0;
  memset(l->scal, 0, l->nscal * sizeof *l->scal);
  vir_builder_init(&l->b, l->m);
  vir_builder_at_end(&l->b, &k->body);
  l->b.loc = K->loc;
  return true;
}

/* Ends the current kernel and launches it with (g, l->gy, 1) groups
 * before region K in the array function. */
bool vla_end_kernel(lw *l, vir_op *K, uint32_t g) {
  vir_build(&l->b, VIR_OP_RETURN, NULL, 0, NULL);
  if (l->failed)
    return false;
  vir_builder ab;
  vir_builder_init(&ab, l->m);
  vir_builder_before(&ab, K);
  ab.loc = K->loc;
  vir_value *gx = launch_const(l, &ab, g), *one = launch_const(l, &ab, 1);
  vir_value *gy = l->gy == 1 ? one : launch_const(l, &ab, l->gy);
  if (l->dyn_lanes && !dynamic_grid(l, &ab, &gx, &gy))
    return false;
  if (l->dyn_red_cap && !(gx = reduce_grid(l, &ab)))
    return false;
  if (l->dyn_seg && !(gx = segment_grid(l, &ab)))
    return false;
  vir_value *args[3] = {gx, gy, one};
  vir_op *launch = vir_build(&ab, VIR_OP_ARRAY_LAUNCH, NULL, 3, args);
  if (!launch)
    return false;
  launch->attr.sym = l->k->sym;
  return true;
}

static bool lower_kernel(lw *l, vir_op *K, uint32_t num) {
  char *name = vp_arena_printf(&l->m->arena, "%s_k%u", l->af->sym->name, num);
  vir_op *rop = NULL, *rs = NULL, *scatter = NULL;
  vp_ptrvec sv = {0}; /* the plain stores */
  for (vir_op *op = K->regions[0].first; op; op = op->next) {
    /* a kernel has one reduction or scan, or one scatter (fuse and the
     * split partition make it so; a hand-written region may not) */
    bool red = vir_is_reduction(op->code) || vir_is_scan(op->code);
    if ((red || op->code == VIR_OP_ARRAY_SCATTER) && (rop || scatter)) {
      vp_error(l->d, op->loc, "lower-arrays: an array.kernel region holds at most one reduction, "
               "scan or scatter; '%s' is a second one", vir_op_info_of(op->code)->name);
      return false;
    }
    if (red)
      rop = op;
    else if (op->code == VIR_OP_ARRAY_SCATTER)
      scatter = op;
    else if (op->code == VIR_OP_ARRAY_STORE) {
      vir_op *d = op->opnd[0]->def;
      if (d && (vir_is_reduction(d->code) || vir_is_scan(d->code)))
        rs = op;
      else if (!vp_ptrvec_push(&l->tmp, &sv, op))
        return false;
    }
  }
  vir_op **stores = (vir_op **)sv.data;
  uint32_t ns = sv.len;
  /* indices are u32: a larger array would wrap them (silently wrong) */
  for (vir_op *op = K->regions[0].first; op; op = op->next)
    for (uint32_t i = 0; i <= op->nopnd; i++) {
      const vir_type *t = i < op->nopnd ? op->opnd[i]->type : op->val.type;
      if (t && vir_ty_is_tensor(t) && vir_ty_numel(t) > UINT32_MAX) {
        vp_error(l->d, op->loc, "lower-arrays: an array of %llu elements is more than 2^32 - 1, "
                 "the most a kernel indexes", (unsigned long long)vir_ty_numel(t));
        return false;
      }
    }
  /* a kernel over a dynamic extent has it everywhere (one n per launch) */
  for (uint32_t i = 1; i < ns; i++)
    if (vir_ty_is_dynamic(stores[i]->opnd[0]->type) != vir_ty_is_dynamic(stores[0]->opnd[0]->type)) {
      vp_error(l->d, stores[i]->loc, "lower-arrays: a kernel stores tensors of dynamic extent '?' "
               "and of static shape together (give every array of the function the extent '?')");
      return false;
    }
  uint32_t g;
  if (rop && !rs) {
    vp_error(l->d, rop->loc, "lower-arrays: the result of '%s' is not stored", vir_op_info_of(rop->code)->name);
    return false;
  }
  if (rop && rop->nopnd > 1) { /* in segments (ops.def) */
    uint32_t uses = 0;
    for (vir_op *op = K->regions[0].first; op; op = op->next)
      for (uint32_t i = 0; i < op->nopnd; i++)
        uses += op->opnd[i] == &rop->val;
    if (ns || uses != 1) {
      vp_error(l->d, ns ? stores[0]->loc : rop->loc, "lower-arrays: a kernel of a %s in segments "
               "stores its result only", vir_is_scan(rop->code) ? "scan" : "reduction");
      return false;
    }
    if (!vla_start_kernel(l, K, name))
      return false;
    if (vir_is_scan(rop->code))
      vla_kernel_segment_scan(l, rop, rs);
    else
      vla_kernel_segment_reduce(l, rop, rs);
    return vla_end_kernel(l, K, 0) && (vir_op_unlink(K), true);
  }
  if (rop && vir_is_scan(rop->code))
    return vla_lower_scan(l, K, name, rop, rs) && (vir_op_unlink(K), true);
  if (rop && vla_tiled_reduction(rop))
    return vla_lower_tiled_reduce(l, K, name, rop, rs, stores, ns) && (vir_op_unlink(K), true);
  if (!vla_start_kernel(l, K, name))
    return false;
  if (rop && vla_full_reduction(rop))
    g = vla_kernel_full_reduce(l, rop, rs, stores, ns);
  else if (rop)
    g = vla_kernel_partial_reduce(l, rop, rs, stores, ns);
  else if (scatter)
    g = vla_kernel_scatter(l, scatter);
  else if (ns)
    g = vla_kernel_elementwise(l, stores, ns);
  else
    g = 0;
  /* in the array function: array.launch @k(g, 1, 1) in place of the region */
  if (!vla_end_kernel(l, K, g))
    return false;
  vir_op_unlink(K);
  return true;
}


/* 8- and 16-bit buffers become u32 words when the device cannot hold
 * their type (vla_emulated). */
static void pack_bytes(lw *l) {
  for (uint32_t i = 0; i < l->m->syms.len; i++) {
    vir_sym *s = l->m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER && vir_ty_is_scalar(s->type) && s->type->kind != VIR_TY_BOOL &&
        (s->type->bits == 8 || s->type->bits == 16) && vla_emulated(l, s->type)) {
      uint32_t per = 32 / s->type->bits;
      vp_ptrvec_push(&l->tmp, &l->packed_elem, s->type);
      s->type = vla_u32t(l);
      s->count = (s->count + per - 1) / per;
      s->access = VIR_ACCESS_READWRITE; /* bytes are written with atomic and/or */
      vp_ptrvec_push(&l->tmp, &l->packed, s);
    }
  }
}

/* Scalar ops of the array function that nothing uses any more. */
static void drop_dead_scalars(vir_func *f) {
  for (bool again = true; again;) {
    again = false;
    vir_func_count_uses(f);
    for (vir_op *op = f->body.first, *next; op; op = next) {
      next = op->next;
      if ((vir_op_info_of(op->code)->flags & VIR_F_PURE) && vir_result(op) && !op->val.nuses) {
        vir_op_unlink(op);
        again = true;
      }
    }
  }
}

bool vir_reduce_groups_valid(uint32_t groups) {
  return groups == 0 || (groups >= 64 && groups <= 32768 && !(groups & (groups - 1)));
}

vir_pass_result vir_lower_arrays(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  bool changed = false;
  /* checked here, where it is used: every caller (vulpy-opt, the Python
   * extension, vulpy-translate) gets the same answer */
  if (opts && !vir_reduce_groups_valid(opts->reduce_groups)) {
    vp_error(diags, (vp_loc){0},
             "lower-arrays: reduce_groups must be 0 or a power of two from 64 to 32768, not %u",
             opts->reduce_groups);
    return VIR_PASS_FAILURE;
  }
  if (!vir_partition_arrays(m, VIR_PARTITION_SPLIT, diags, &changed))
    return VIR_PASS_FAILURE;
  lw l = {.m = m, .d = diags, .o = opts};
  pack_bytes(&l);
  vla_plan_vec4(&l);
  bool ok = true;
  uint32_t nsyms = m->syms.len; /* kernels added below are not array functions */
  for (uint32_t i = 0; ok && i < nsyms; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func || !s->func->is_array)
      continue;
    l.af = s->func;
    l.nscal = s->func->next_id;
    l.scal = calloc(l.nscal ? l.nscal : 1, sizeof *l.scal);
    if (!l.scal) {
      ok = false;
      break;
    }
    uint32_t num = 0;
    for (vir_op *op = s->func->body.first, *next; ok && op; op = next) {
      next = op->next;
      if (op->code != VIR_OP_ARRAY_KERNEL)
        continue;
      ok = lower_kernel(&l, op, num++);
      changed = true;
    }
    drop_dead_scalars(s->func);
    free(l.scal);
    l.scal = NULL;
  }
  free(l.memo);
  vp_arena_free(&l.tmp);
  if (!ok) {
    if (!diags->nerrors)
      vp_error(diags, (vp_loc){0}, "lower-arrays failed (out of memory)");
    return VIR_PASS_FAILURE;
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
