/* array.c - the array level of VIR: which scalar ops lift to tensors,
 * array functions, the array attribute, and the shape rules of the array
 * ops (used by the verifier, the parser's type inference and the passes).
 *
 * An elementwise op on tensors is the scalar op applied per element: its
 * tensor operands share one shape, scalar operands stand for every
 * element, and the result has the shape with the element type the scalar
 * rule gives. So the scalar table in ops.def is the only list of ufuncs,
 * and the result type is found by running the scalar rule on the element
 * types (docs/fusion.md, "Why lifted scalar ops").
 */
#include "ir_impl.h"

#include <string.h>

bool vir_op_is_elementwise(vir_opcode c) {
  const vir_op_info *info = vir_op_info_of(c);
  if (c == VIR_OP_CAST || c == VIR_OP_BITCAST || c == VIR_OP_SELECT)
    return true;
  if (!(info->flags & VIR_F_PURE) || info->nregion || (info->flags & VIR_F_HIGH))
    return false;
  switch (c) {
  case VIR_OP_CROSS:
  case VIR_OP_NORMALIZE:
  case VIR_OP_REFLECT:
  case VIR_OP_INSERT: return false; /* vector-only */
  default: break;
  }
  switch ((vir_result_rule)info->result) {
  case VIR_RES_SAME:
  case VIR_RES_ARITH:
  case VIR_RES_CMP: return true;
  default: return false;
  }
}

vir_func *vir_add_array_func(vir_module *m, const char *name, vp_loc loc) {
  vir_func *f = vir_add_func(m, name, false, NULL, 0, NULL, NULL, loc);
  if (f)
    f->is_array = true;
  return f;
}

vir_array_attr *vir_array_attr_new(vir_module *m, const vir_array_attr *a) {
  vir_array_attr *r = vp_arena_alloc(&m->arena, sizeof *r);
  if (!r)
    return NULL;
  if (a)
    *r = *a;
  else
    memset(r, 0, sizeof *r);
  return r;
}

/* The common shape of an elementwise op's tensor operands, or NULL when
 * none is a tensor; *mismatch when two differ. */
const vir_type *vir_elementwise_shape(uint32_t nopnd, vir_value *const *opnd, bool *mismatch) {
  const vir_type *shape = NULL;
  *mismatch = false;
  for (uint32_t i = 0; i < nopnd; i++) {
    const vir_type *t = opnd[i] ? opnd[i]->type : NULL;
    if (!vir_ty_is_tensor(t))
      continue;
    if (shape && (shape->n != t->n || (t->n && memcmp(shape->dims, t->dims, t->n * sizeof *t->dims))))
      *mismatch = true;
    if (!shape)
      shape = t;
  }
  return shape;
}

/* Result type of an elementwise op on tensors: the scalar rule on the
 * element types, in the operands' shape. NULL when it does not fit. */
vir_type *vir_elementwise_type(vir_module *m, vir_opcode code, uint32_t nopnd, vir_value *const *opnd) {
  bool mismatch;
  const vir_type *shape = vir_elementwise_shape(nopnd, opnd, &mismatch);
  if (!shape || mismatch || nopnd > 4 || code == VIR_OP_CAST || code == VIR_OP_BITCAST)
    return NULL;
  vir_value elems[4];
  vir_value *ep[4];
  for (uint32_t i = 0; i < nopnd; i++) {
    elems[i] = *opnd[i];
    elems[i].type = vir_ty_elem_of(opnd[i]->type);
    ep[i] = &elems[i];
  }
  vir_type *e = vir_infer_type(m, code, nopnd, ep);
  return e && vir_ty_is_scalar(e) ? vir_ty_tensor(m, e, shape->n, shape->dims) : NULL;
}

/* ------------------------------------------------------------ shape rules */

bool vir_is_reduction(vir_opcode c) { return c >= VIR_OP_ARRAY_SUM && c <= VIR_OP_ARRAY_ALL; }
bool vir_is_scan(vir_opcode c) {
  return c == VIR_OP_ARRAY_CUMSUM || c == VIR_OP_ARRAY_CUMPROD || c == VIR_OP_ARRAY_CUMMAX ||
         c == VIR_OP_ARRAY_CUMMIN;
}

/* Whether `r` is `in` reduced over the axes: the axes dropped, or kept as 1. */
bool vir_reduced_shape_ok(const vir_type *in, const vir_array_attr *a, const vir_type *r) {
  uint32_t naxes = a ? a->naxes : 0;
  uint32_t keep[VIR_MAX_RANK], drop[VIR_MAX_RANK], nk = 0, nd = 0;
  for (uint32_t i = 0; i < in->n; i++) {
    bool red = false;
    for (uint32_t k = 0; k < naxes; k++)
      red |= a->axes[k] == i;
    keep[nk++] = red ? 1 : in->dims[i];
    if (!red)
      drop[nd++] = in->dims[i];
  }
  if (r->n == nk && (nk == 0 || memcmp(r->dims, keep, nk * sizeof *keep) == 0))
    return true;
  return r->n == nd && (nd == 0 || memcmp(r->dims, drop, nd * sizeof *drop) == 0);
}

/* NumPy broadcasting: `from` right-aligned against `to`, each dim equal or 1. */
bool vir_broadcast_ok(const vir_type *from, const vir_type *to) {
  if (!vir_ty_is_tensor(from))
    return true;
  if (from->n > to->n)
    return false;
  for (uint32_t i = 0; i < from->n; i++) {
    uint32_t f = from->dims[from->n - 1 - i], t = to->dims[to->n - 1 - i];
    if (f != t && f != 1)
      return false;
  }
  return true;
}

/* The row-major strides of a shape. */
void vir_row_major(const vir_type *t, int64_t *strides) {
  int64_t s = 1;
  for (int i = (int)t->n - 1; i >= 0; i--) {
    strides[i] = s;
    s *= t->dims[i];
  }
}

/* The smallest and largest element a view reaches (offset when empty). */
void vir_view_extent(const vir_type *t, const vir_array_attr *a, int64_t *lo, int64_t *hi) {
  int64_t st[VIR_MAX_RANK];
  int64_t off = a ? a->offset : 0;
  const int64_t *s = st;
  if (a && a->nstrides)
    s = a->strides;
  else
    vir_row_major(t, st);
  *lo = *hi = off;
  if (vir_ty_numel(t) == 0)
    return;
  for (uint32_t i = 0; i < t->n; i++) {
    int64_t d = (int64_t)(t->dims[i] - 1) * s[i];
    if (d < 0)
      *lo += d;
    else
      *hi += d;
  }
}

/* Whether a view is the contiguous row-major layout from offset 0. */
bool vir_view_is_identity(const vir_type *t, const vir_array_attr *a) {
  if (!a)
    return true;
  if (a->offset)
    return false;
  if (!a->nstrides)
    return true;
  int64_t st[VIR_MAX_RANK];
  vir_row_major(t, st);
  for (uint32_t i = 0; i < t->n; i++)
    if (t->dims[i] != 1 && st[i] != a->strides[i])
      return false;
  return true;
}

/* ---------------------------------------------------------------- ufuncs */

static const struct {
  const char *name;
  uint8_t nin;
} ufunc_infos[VIR_UFUNC_COUNT] = {
#define VIR_UFUNC(ID, NAME, NIN, RULE, FOP, IOP, BOP) {NAME, NIN},
#include "vulpy/ir/ufuncs.def"
#undef VIR_UFUNC
};

const char *vir_ufunc_name(uint32_t u) { return u < VIR_UFUNC_COUNT ? ufunc_infos[u].name : "?"; }

unsigned vir_ufunc_nin(uint32_t u) { return u < VIR_UFUNC_COUNT ? ufunc_infos[u].nin : 0; }

vir_ufunc vir_ufunc_lookup(const char *name, size_t len) {
  for (uint32_t u = 0; u < VIR_UFUNC_COUNT; u++)
    if (strlen(ufunc_infos[u].name) == len && !memcmp(ufunc_infos[u].name, name, len))
      return (vir_ufunc)u;
  return VIR_UFUNC_COUNT;
}
