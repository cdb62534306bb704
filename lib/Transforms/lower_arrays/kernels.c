/* kernels.c - elementwise and scatter kernels of the lower-arrays pass.
 *
 * Elementwise: a grid-stride loop over the stored shape (four lanes per
 * iteration when the kernel is vec4, a 2-D grid for large shapes).
 * Scatter: a grid-stride loop over the values, atomics where needed.
 */
#include "lower_arrays.h"

uint32_t vla_kernel_scatter(lw *l, vir_op *sc) {
  vir_value *iv = sc->opnd[0], *vv = sc->opnd[1];
  const vir_type *V = vv->type, *I = iv->type;
  const vir_array_attr *a = sc->attr.arr;
  const vir_type *T = vir_ty_tensor(l->m, V->elem, a->ndims, a->dims);
  uint64_t n = vir_ty_numel(V);
  uint32_t g = vla_groups_for(n, WG, MAX_GROUPS);
  vir_value *gid = vla_id_x(l, VIR_OP_GLOBAL_ID);
  saved so, sf;
  vir_value *i = vla_for_begin(l, gid, vla_ku(l, n), vla_ku(l, (uint64_t)g * WG), &so);
  idx *vi = vla_new_idx(l, V, i), *ii = vla_new_idx(l, I, NULL), *ti = vla_new_idx(l, T, NULL);
  if (vi && ii && ti) {
    for (uint32_t q = 0; q < I->n; q++)
      ii->multi[q] = vla_dim_index(l, vi, q);
    vir_value *j = vla_emit(l, iv, ii);
    if (j) {
      /* negative indices count from the end; out-of-range ones are dropped */
      if (j->type->kind == VIR_TY_INT) {
        vir_value *neg = vla_bin(l, VIR_OP_LT, j, vla_num(l, j->type, 0));
        j = vla_sel(l, neg, vla_bin(l, VIR_OP_ADD, j, vla_num(l, j->type, T->dims[0])), j);
        j = vla_sel(l, vla_bin(l, VIR_OP_LT, j, vla_num(l, j->type, 0)), vla_num(l, j->type, T->dims[0]), j);
      }
      vir_value *ju = vla_cast(l, j, vla_u32t(l));
      vla_if_begin(l, vla_bin(l, VIR_OP_LT, ju, vla_ku(l, T->dims[0])), &sf);
      ti->multi[0] = ju;
      for (uint32_t q = 1; q < T->n; q++)
        ti->multi[q] = vla_dim_index(l, vi, I->n + q - 1);
      vir_value *x = vla_emit(l, vv, vi);
      if (x)
        vla_store_elem(l, sc->attr.sym, vla_view_offset(l, T, a, ti), x);
      vla_leave(l, sf);
    }
  }
  vla_leave(l, so);
  return g;
}

/* The four lane indices of vec4 index `q` of shape S. */
void vla_lanes(lw *l, const vir_type *S, vir_value *q, idx **ix) {
  for (uint32_t k = 0; k < 4; k++) {
    ix[k] = vla_new_idx(l, S, NULL); /* the flat index 4q + k only when needed */
    if (ix[k]) {
      ix[k]->quad = q;
      ix[k]->lane = k;
    }
  }
}

/* Stores the region's values at vec4 index q (four lanes, one vec4
 * store per buffer). */
static void store_quads(lw *l, const vir_type *S, vir_op **stores, uint32_t ns, vir_value *q) {
  idx *ix[4];
  l->nquads = 0;
  vla_lanes(l, S, q, ix);
  for (uint32_t i = 0; i < ns && ix[3]; i++) {
    vir_op *st = stores[i];
    vir_value *x[4];
    for (uint32_t k = 0; k < 4; k++)
      x[k] = vla_cast(l, vla_emit(l, st->opnd[0], ix[k]), st->attr.sym->type->elem);
    vir_op *c = x[0] && x[1] && x[2] && x[3] ? vir_build(&l->b, VIR_OP_CONSTRUCT, st->attr.sym->type, 4, x)
                                             : NULL;
    if (!c) {
      l->failed = true;
      break;
    }
    vla_mem_store(l, VIR_OP_BUFFER_STORE, st->attr.sym, q, &c->val);
  }
}

/* An elementwise kernel whose buffers are all vec4: four elements per
 * iteration, read and written as vec4s. */
static uint32_t kernel_elementwise4(lw *l, vir_op **stores, uint32_t ns) {
  const vir_type *S = stores[0]->opnd[0]->type;
  uint64_t n4 = vir_ty_numel(S) / 4;
  uint32_t g;
  saved so;
  bool open;
  vir_value *q = vla_item_begin(l, n4, &g, &so, &open);
  store_quads(l, S, stores, ns, q);
  vla_item_end(l, so, open);
  return g;
}

/* An elementwise kernel over a tensor of dynamic extent (vir_ty_is_dynamic):
 * the extent n is the push field `n`; one invocation per item (an element,
 * or a vec4 of four: the last one reaches into the buffers' padding to 16
 * bytes, which the host guarantees), on the 2-D grid of vla_array_grid,
 * which the host computes from n (vla_end_kernel writes it into the array
 * function as scalar ops of n). */
static void kernel_dynamic(lw *l, vir_op **stores, uint32_t ns) {
  const vir_type *S = stores[0]->opnd[0]->type;
  bool v4 = vla_is_vec4(l, stores[0]->attr.sym);
  vir_value *n = vla_prologue_n(l);
  if (!n)
    return;
  /* v4: ceil(n / 4) without overflow, (n >> 2) + ((n & 3) != 0) */
  vir_value *items = n;
  if (v4) {
    vir_value *r = vla_bin(l, VIR_OP_NE, vla_bin(l, VIR_OP_AND, n, vla_ku(l, 3)), vla_ku(l, 0));
    items = vla_bin(l, VIR_OP_ADD, vla_bin(l, VIR_OP_SHR, n, vla_ku(l, 2)), vla_cast(l, r, vla_u32t(l)));
  }
  vir_value *y = vla_bin(l, VIR_OP_MUL, vla_id_y(l), vla_ku(l, (uint64_t)ROW_GROUPS * WG));
  vir_value *i = vla_bin(l, VIR_OP_ADD, vla_id_x(l, VIR_OP_GLOBAL_ID), y);
  saved so;
  vla_if_begin(l, vla_bin(l, VIR_OP_LT, i, items), &so);
  if (v4) {
    store_quads(l, S, stores, ns, i);
  } else {
    idx *ix = vla_new_idx(l, S, i);
    if (ix)
      vla_emit_stores(l, stores, ns, ix);
  }
  vla_leave(l, so);
  l->dyn_lanes = v4 ? 4 : 1;
}

uint32_t vla_kernel_elementwise(lw *l, vir_op **stores, uint32_t ns) {
  const vir_type *S = stores[0]->opnd[0]->type;
  if (vir_ty_is_dynamic(S)) {
    kernel_dynamic(l, stores, ns);
    return 0; /* the grid is the host's, from n */
  }
  if (vla_is_vec4(l, stores[0]->attr.sym))
    return kernel_elementwise4(l, stores, ns);
  uint64_t n = vir_ty_numel(S);
  uint32_t g;
  saved so;
  bool open;
  vir_value *i = vla_item_begin(l, n, &g, &so, &open);
  idx *ix = vla_new_idx(l, S, i);
  if (ix)
    vla_emit_stores(l, stores, ns, ix);
  vla_item_end(l, so, open);
  return g;
}
