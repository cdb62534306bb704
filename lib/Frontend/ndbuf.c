/* ndbuf.c - N-dimensional buffers: `a: vp.Buffer[T, N]` (N = 1 to 4).
 *
 * The storage is a flat storage buffer of T; its shape, strides and first
 * element reach the kernel in the push block as hidden fields
 * `_vp_shape_a`, `_vp_strides_a` (uvecN, or u32 for N = 1) and
 * `_vp_offset_a` (u32), all in elements, filled by the Python layer from
 * the argument: a NumPy array (uploaded C-contiguous) or a vp.ndarray,
 * views with strides included (the base buffer is bound; the strides and
 * offset say where the view's elements are). `a[i, j]` is the element at
 * offset + i * strides[0] + j * strides[1], computed in u32 (a negative
 * stride, as in a reversed view, wraps to the right element); `a.shape` is
 * the shape (`a.shape[0]`, `h, w = a.shape`), `a.ndim` the constant N,
 * `len(a)` the first extent. Indices are not bounds-checked (as a 1-D
 * buffer's are not); a negative index is not Python's count from the end.
 */
#include <string.h>

#include "fe.h"

static vir_type *dims_type(vfe_ctx *c, uint32_t n) {
  vir_type *u32 = vir_ty_uint(c->m, 32);
  return n == 1 ? u32 : vir_ty_vec(c->m, u32, n);
}

bool vfe_nd_annotation(vfe_ctx *c, const vfe_node *ann, vir_type **elem, uint32_t *ndim) {
  const vfe_node *sl = vfe_get(ann, "slice");
  uint32_t n;
  vfe_node **items = vfe_ast_of(sl) == VFE_AST_Tuple ? vfe_get_list(sl, "elts", &n) : NULL;
  if (!items)
    return false;
  *elem = NULL;
  *ndim = 0;
  if (n != 2) {
    vfe_err(c, sl, "write vp.Buffer[T, N]: an element type and a number of dimensions");
    return true;
  }
  vfe_val d = vfe_expr(c, items[1]);
  vir_type *t = vfe_type_of_annotation(c, items[0]);
  if (d.kind != VFE_V_INT || d.big || d.i < 1 || d.i > 4) {
    if (d.kind != VFE_V_ERR)
      vfe_err(c, items[1], "a buffer has 1 to 4 dimensions (an integer constant)");
    return true;
  }
  if (t && vir_ty_is_bool(t)) {
    vfe_err(c, ann, "a buffer of bool has no layout the host agrees on");
    return true;
  }
  *elem = t;
  *ndim = (uint32_t)d.i;
  return true;
}

void vfe_nd_declare(vfe_ctx *c, const vfe_node *p, const char *name, vfe_array *a, uint32_t ndim) {
  a->ndim = (uint8_t)ndim;
  a->shape_field = vfe_push_field(c, p, vp_arena_printf(&c->arena, "_vp_shape_%s", name), dims_type(c, ndim));
  a->stride_field = vfe_push_field(c, p, vp_arena_printf(&c->arena, "_vp_strides_%s", name), dims_type(c, ndim));
  a->offset_field = vfe_push_field(c, p, vp_arena_printf(&c->arena, "_vp_offset_%s", name), vir_ty_uint(c->m, 32));
}

/* pc._vp_..._a, or one component of it */
static vir_value *push_field(vfe_ctx *c, uint32_t field, int comp) {
  vfe_place pl = {.root = VFE_R_PUSH, .npath = 1, .sym = c->push, .type = c->push_st->fields[field].type};
  pl.path[0] = (uint8_t)field;
  if (comp >= 0 && pl.type->kind == VIR_TY_VEC) {
    pl.path[pl.npath++] = (uint8_t)comp;
    pl.type = pl.type->elem;
  }
  return vfe_load(c, &pl);
}

vir_value *vfe_nd_extent(vfe_ctx *c, vfe_array *a, int axis) {
  return push_field(c, a->shape_field, axis);
}

vfe_val vfe_nd_attribute(vfe_ctx *c, const vfe_node *at, vfe_array *a, const char *attr) {
  if (strcmp(attr, "shape") == 0) {
    vfe_set_loc(c, at);
    return vfe_value_of(push_field(c, a->shape_field, -1));
  }
  if (strcmp(attr, "ndim") == 0)
    return (vfe_val){.kind = VFE_V_INT, .i = a->ndim};
  vfe_err(c, at, "buffer '%s' has no attribute '%s'", a->sym->name, attr);
  vfe_hint(c, "an N-d buffer has .shape and .ndim; index it: %s[i, j]", a->sym->name);
  return (vfe_val){0};
}

vfe_val vfe_nd_index(vfe_ctx *c, const vfe_node *e, vfe_array *a) {
  const vfe_node *sl = vfe_get(e, "slice");
  uint32_t n = 1;
  vfe_node **items = vfe_ast_of(sl) == VFE_AST_Tuple ? vfe_get_list(sl, "elts", &n) : (vfe_node **)&sl;
  if (n != a->ndim) {
    vfe_err(c, sl, "'%s' has %u dimension%s; give %u indices, not %u", a->sym->name, a->ndim,
            a->ndim == 1 ? "" : "s", a->ndim, n);
    return (vfe_val){0};
  }
  vir_type *u32 = vir_ty_uint(c->m, 32);
  vir_value *idx[4];
  for (uint32_t k = 0; k < n; k++) {
    vfe_val v = vfe_expr(c, items[k]);
    if (v.kind == VFE_V_ERR)
      return v;
    if (v.kind == VFE_V_INT) {
      if (v.big || v.i < 0 || v.i > UINT32_MAX) {
        vfe_err(c, items[k], "index %lld of '%s' is out of range (0 to 4294967295; negative ones do not count from the end)",
                (long long)v.i, a->sym->name);
        return (vfe_val){0};
      }
      idx[k] = vfe_const_int(c, u32, v.i);
      continue;
    }
    vir_value *x = vfe_use(c, items[k], v);
    if (!x)
      return (vfe_val){0};
    if (!vir_ty_is_scalar(x->type) || !vir_ty_is_int(x->type)) {
      vfe_err(c, items[k], "an index must be an integer scalar, not %s", vfe_tyname(c, x->type));
      return (vfe_val){0};
    }
    vfe_set_loc(c, items[k]);
    idx[k] = x->type == u32 ? x : vfe_build1(c, VIR_OP_CAST, u32, x);
  }
  vfe_set_loc(c, e);
  /* offset + i0 * strides[0] + i1 * strides[1] + ... */
  vir_value *at = push_field(c, a->offset_field, -1);
  for (uint32_t k = 0; k < n; k++) {
    vir_value *s = push_field(c, a->stride_field, (int)k);
    vir_value *term = vfe_build2(c, VIR_OP_MUL, u32, idx[k], s);
    at = vfe_build2(c, VIR_OP_ADD, u32, at, term);
  }
  vfe_val r = {.kind = VFE_V_PLACE};
  r.place = (vfe_place){.root = VFE_R_BUFFER, .sym = a->sym, .index = at, .type = a->elem, .arr = a};
  return r;
}
