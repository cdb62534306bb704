/* index.c - indices, views and buffer storage for the lower-arrays pass.
 *
 * An index is a flat row-major position, a multi-index, or both, each
 * computed from the other only when needed. view_offset maps an index of
 * a view (offset + strides) to a buffer offset. Loads and stores go
 * through the buffer's storage: plain, vec4 (one load per quad and loop
 * body), or 8/16-bit values packed in u32 words; the small types a device
 * lacks arithmetic for live in u32 words and are decoded / encoded by
 * small_cast (float16 rounds to nearest even as NumPy).
 */
#include "lower_arrays.h"

/* ---------------------------------------------------------------- index */

idx *vla_new_idx(lw *l, const vir_type *shape, vir_value *flat) {
  idx *ix = vp_arena_alloc(&l->tmp, sizeof *ix);
  if (!ix) {
    l->failed = true;
    return NULL;
  }
  memset(ix, 0, sizeof *ix);
  ix->shape = shape;
  ix->flat = flat;
  return ix;
}


vir_value *vla_flat_of(lw *l, idx *ix) {
  if (ix->flat)
    return ix->flat;
  if (ix->quad) {
    vir_value *f = vla_bin(l, VIR_OP_MUL, ix->quad, vla_ku(l, 4));
    return ix->flat = ix->lane ? vla_bin(l, VIR_OP_ADD, f, vla_ku(l, ix->lane)) : f;
  }
  int64_t st[VIR_MAX_RANK];
  vir_row_major(ix->shape, st);
  vir_value *f = NULL;
  for (uint32_t i = 0; i < ix->shape->n; i++) {
    if (ix->shape->dims[i] == 1)
      continue;
    vir_value *t = vla_dim_index(l, ix, i);
    if (st[i] != 1)
      t = vla_bin(l, VIR_OP_MUL, t, vla_ku(l, (uint64_t)st[i]));
    f = f ? vla_bin(l, VIR_OP_ADD, f, t) : t;
  }
  ix->flat = f ? f : vla_ku(l, 0);
  return ix->flat;
}

/* The index along dim i (from the flat index when not given). */
vir_value *vla_dim_index(lw *l, idx *ix, uint32_t i) {
  if (ix->multi[i])
    return ix->multi[i];
  const vir_type *s = ix->shape;
  if (s->dims[i] == 1)
    return ix->multi[i] = vla_ku(l, 0);
  int64_t st[VIR_MAX_RANK];
  vir_row_major(s, st);
  vir_value *f = vla_flat_of(l, ix);
  vir_value *q = st[i] == 1 ? f : vla_bin(l, VIR_OP_DIV, f, vla_ku(l, (uint64_t)st[i]));
  bool outer = true; /* no dim before i above 1: no remainder needed */
  for (uint32_t j = 0; j < i; j++)
    outer &= s->dims[j] == 1;
  return ix->multi[i] = outer ? q : vla_bin(l, VIR_OP_REM, q, vla_ku(l, s->dims[i]));
}

/* offset + sum(I_k * stride_k), in u32 arithmetic (wrapping is exact: the
 * sum is in range even when partial sums with negative strides are not). */
vir_value *vla_view_offset(lw *l, const vir_type *t, const vir_array_attr *a, idx *ix) {
  if (vir_view_is_identity(t, a))
    return vla_flat_of(l, ix);
  int64_t st[VIR_MAX_RANK];
  const int64_t *s = st;
  if (a->nstrides)
    s = a->strides;
  else
    vir_row_major(t, st);
  vir_value *f = NULL;
  for (uint32_t i = 0; i < t->n; i++) {
    if (t->dims[i] == 1 || s[i] == 0)
      continue;
    vir_value *d = vla_dim_index(l, ix, i);
    if (s[i] != 1)
      d = vla_bin(l, VIR_OP_MUL, d, vla_ku(l, (uint32_t)s[i]));
    f = f ? vla_bin(l, VIR_OP_ADD, f, d) : d;
  }
  if (a->offset)
    f = f ? vla_bin(l, VIR_OP_ADD, f, vla_ku(l, (uint32_t)a->offset)) : vla_ku(l, (uint32_t)a->offset);
  return f ? f : vla_ku(l, 0);
}

/* ------------------------------------------------------------- storage */

/* The element type a packed buffer had (NULL: not packed). */
static vir_type *packed_elem(lw *l, const vir_sym *s) {
  for (uint32_t i = 0; i < l->packed.len; i++)
    if (l->packed.data[i] == s)
      return l->packed_elem.data[i];
  return NULL;
}
bool vla_is_packed8(lw *l, const vir_sym *s) { return packed_elem(l, s) != NULL; }

bool vla_is_vec4(lw *l, const vir_sym *s) {
  for (uint32_t i = 0; i < l->vec4.len; i++)
    if (l->vec4.data[i] == s)
      return true;
  return false;
}

/* The vec4 at `quad` of a vec4 buffer (one load per quad and loop body). */
vir_value *vla_quad_load(lw *l, vir_sym *s, vir_value *quad) {
  for (uint32_t i = 0; i < l->nquads; i++)
    if (l->quads[i].s == s && l->quads[i].quad == quad)
      return l->quads[i].v;
  vir_value *v = vla_mem_load(l, VIR_OP_BUFFER_LOAD, s, quad, s->type, false);
  if (v && l->nquads == l->capquads) {
    uint32_t cap = l->capquads ? 2 * l->capquads : 64;
    struct vla_quad *q = vp_arena_alloc(&l->tmp, cap * sizeof *q);
    if (!q) {
      l->failed = true;
      return v;
    }
    if (l->nquads)
      memcpy(q, l->quads, l->nquads * sizeof *q);
    l->quads = q;
    l->capquads = cap;
  }
  if (v)
    l->quads[l->nquads++] = (struct vla_quad){s, quad, v};
  return v;
}

/* Lane `lane` of the vec4 at `quad` of a vec4 buffer. */
vir_value *vla_load_lane(lw *l, vir_sym *s, vir_value *quad, uint32_t lane) {
  vir_value *v = vla_quad_load(l, s, quad);
  vir_op *e = v ? vir_build(&l->b, VIR_OP_EXTRACT, s->type->elem, 1, &v) : NULL;
  if (!e) {
    l->failed = true;
    return NULL;
  }
  e->attr.index = lane;
  return &e->val;
}

vir_value *vla_load_elem(lw *l, vir_sym *s, vir_value *off, vir_type *t) {
  vir_type *pe = packed_elem(l, s);
  if (pe) { /* a byte or half-word of a u32 word */
    uint32_t b = pe->bits, lg = b == 8 ? 2 : 1;
    vir_value *w = vla_mem_load(l, VIR_OP_BUFFER_LOAD, s, vla_bin(l, VIR_OP_SHR, off, vla_ku(l, lg)), vla_u32t(l), false);
    vir_value *sh = vla_bin(l, VIR_OP_MUL, vla_bin(l, VIR_OP_AND, off, vla_ku(l, (1u << lg) - 1)), vla_ku(l, b));
    vir_value *field = vla_bin(l, VIR_OP_AND, vla_bin(l, VIR_OP_SHR, w, sh), vla_ku(l, (1u << b) - 1));
    if (t->kind == VIR_TY_BOOL)
      return vla_bin(l, VIR_OP_NE, field, vla_ku(l, 0));
    return field; /* the bits, zero-extended: casts decode them */
  }
  vir_value *x = vla_mem_load(l, VIR_OP_BUFFER_LOAD, s, off, s->type, false);
  if (t->kind == VIR_TY_BOOL && s->type->kind != VIR_TY_BOOL)
    return vla_bin(l, VIR_OP_NE, x, vla_num(l, s->type, 0));
  return x;
}

void vla_store_elem(lw *l, vir_sym *s, vir_value *off, vir_value *v) {
  vir_type *pe = packed_elem(l, s);
  if (pe) {
    uint32_t b = pe->bits, lg = b == 8 ? 2 : 1;
    vir_value *w = vla_bin(l, VIR_OP_SHR, off, vla_ku(l, lg));
    vir_value *sh = vla_bin(l, VIR_OP_MUL, vla_bin(l, VIR_OP_AND, off, vla_ku(l, (1u << lg) - 1)), vla_ku(l, b));
    vir_value *mask = vla_un(l, VIR_OP_NOT, vla_bin(l, VIR_OP_SHL, vla_ku(l, (1u << b) - 1), sh));
    vir_value *byte = vla_bin(l, VIR_OP_SHL,
                          vla_bin(l, VIR_OP_AND, vla_cast(l, v, vla_u32t(l)), vla_ku(l, (1u << b) - 1)), sh);
    /* relaxed: each byte is written once per kernel, and the kernel's end
     * orders it for later readers */
    vir_value *a1 = vla_atomic(l, VIR_OP_ATOMIC_AND, s, w, mask);
    vir_value *a2 = vla_atomic(l, VIR_OP_ATOMIC_OR, s, w, byte);
    if (a1 && a2) {
      a1->def->attr.sem = VIR_SEM_RELAXED;
      a2->def->attr.sem = VIR_SEM_RELAXED;
    }
    return;
  }
  vla_mem_store(l, VIR_OP_BUFFER_STORE, s, off, vla_cast(l, v, s->type));
}

/* ------------------------------------- small types emulated in words
 * (issue 19) On a device without 8/16-bit storage, or without the
 * arithmetic feature of a small type, a value of int8 / uint8 / int16 /
 * uint16 / float16 is its bits in a u32 (zero-extended); its buffers are
 * packed words (pack_bytes). The array path computes small types in 32
 * bits (lower-small-types, small_types.c), so every op on one is a
 * cast: small_cast decodes and encodes. */

bool vla_emulated(lw *l, const vir_type *t) {
  if (!t || (t->kind != VIR_TY_INT && t->kind != VIR_TY_UINT && t->kind != VIR_TY_FLOAT) ||
      (t->bits != 8 && t->bits != 16))
    return false;
  uint32_t miss = l->o ? l->o->missing_features : 0;
  if (t->bits == 8)
    return miss & (VP_FEAT(STORAGE8) | VP_FEAT(INT8));
  return miss & (VP_FEAT(STORAGE16) | (t->kind == VIR_TY_FLOAT ? VP_FEAT(FLOAT16) : VP_FEAT(INT16)));
}

static vir_value *bitcast_to(lw *l, vir_value *a, vir_type *t) {
  return a->type == t ? a : vla_op_(l, VIR_OP_BITCAST, t, 1, &a);
}

/* float16 bits (low half of a u32) -> float32, exactly: normals and
 * inf/NaN by moving the fields, subnormals as m * 2^-24 (no float32
 * subnormal is involved, so a flushing device gets them right too). */
static vir_value *half_to_f32(lw *l, vir_value *h) {
  vir_type *f32 = vir_ty_float(l->m, 32);
  vir_value *e = vla_bin(l, VIR_OP_AND, vla_bin(l, VIR_OP_SHR, h, vla_ku(l, 10)), vla_ku(l, 0x1f));
  vir_value *m = vla_bin(l, VIR_OP_AND, h, vla_ku(l, 0x3ff));
  vir_value *sg = vla_bin(l, VIR_OP_SHL, vla_bin(l, VIR_OP_AND, h, vla_ku(l, 0x8000)), vla_ku(l, 16));
  vir_value *m13 = vla_bin(l, VIR_OP_SHL, m, vla_ku(l, 13));
  vir_value *norm = vla_bin(l, VIR_OP_OR, vla_bin(l, VIR_OP_OR, sg, vla_bin(l, VIR_OP_SHL, vla_bin(l, VIR_OP_ADD, e, vla_ku(l, 112)), vla_ku(l, 23))), m13);
  vir_value *inf = vla_bin(l, VIR_OP_OR, vla_bin(l, VIR_OP_OR, sg, vla_ku(l, 0x7f800000)), m13);
  vir_value *bits = vla_sel(l, vla_bin(l, VIR_OP_EQ, e, vla_ku(l, 31)), inf, norm);
  vir_value *sub = vla_bin(l, VIR_OP_MUL, vla_cast(l, m, f32), vla_num(l, f32, 0x1p-24));
  /* the sign by its bit (float negation of 0.0 may lose it: Vulkan does
   * not promise signed zeros without SignedZeroInfNanPreserve) */
  vir_value *subb = vla_bin(l, VIR_OP_OR, bitcast_to(l, sub, vla_u32t(l)), sg);
  return bitcast_to(l, vla_sel(l, vla_bin(l, VIR_OP_EQ, e, vla_ku(l, 0)), subb, bits), f32);
}

/* float32 -> float16 bits, rounded to nearest even: NumPy's
 * npy_floatbits_to_halfbits (overflow to inf, NaN keeps its top payload
 * bits and stays a NaN). */
static vir_value *f32_to_half(lw *l, vir_value *x) {
  vir_type *f32 = vir_ty_float(l->m, 32);
  vir_value *xb = bitcast_to(l, x, vla_u32t(l));
  vir_value *sg = vla_bin(l, VIR_OP_AND, vla_bin(l, VIR_OP_SHR, xb, vla_ku(l, 16)), vla_ku(l, 0x8000));
  vir_value *a = vla_bin(l, VIR_OP_AND, xb, vla_ku(l, 0x7fffffff));
  /* normal: rebias the exponent (127 - 15 = 112), round the 13 dropped bits */
  vir_value *base = vla_bin(l, VIR_OP_SHR, vla_bin(l, VIR_OP_SUB, a, vla_ku(l, 0x38000000)), vla_ku(l, 13));
  vir_value *r = vla_bin(l, VIR_OP_AND, a, vla_ku(l, 0x1fff));
  vir_value *up = vla_bin(l, VIR_OP_LOR, vla_bin(l, VIR_OP_GT, r, vla_ku(l, 0x1000)),
                      vla_bin(l, VIR_OP_LAND, vla_bin(l, VIR_OP_EQ, r, vla_ku(l, 0x1000)),
                          vla_bin(l, VIR_OP_NE, vla_bin(l, VIR_OP_AND, base, vla_ku(l, 1)), vla_ku(l, 0))));
  vir_value *norm = vla_bin(l, VIR_OP_ADD, base, vla_sel(l, up, vla_ku(l, 1), vla_ku(l, 0)));
  /* subnormal: |x| * 2^24 rounded to an integer, nearest even */
  vir_value *ax = bitcast_to(l, a, f32);
  vir_value *sub = vla_cast(l, vla_un(l, VIR_OP_RINT, vla_bin(l, VIR_OP_MUL, ax, vla_num(l, f32, 0x1p24))), vla_u32t(l));
  vir_value *nan = vla_bin(l, VIR_OP_ADD, vla_ku(l, 0x7c00), vla_bin(l, VIR_OP_SHR, vla_bin(l, VIR_OP_AND, a, vla_ku(l, 0x7fffff)), vla_ku(l, 13)));
  nan = vla_sel(l, vla_bin(l, VIR_OP_EQ, nan, vla_ku(l, 0x7c00)), vla_ku(l, 0x7c01), nan);
  vir_value *h = vla_sel(l, vla_bin(l, VIR_OP_LT, a, vla_ku(l, 0x38800000)), sub, norm);
  h = vla_sel(l, vla_bin(l, VIR_OP_GE, a, vla_ku(l, 0x47800000)), vla_ku(l, 0x7c00), h);
  h = vla_sel(l, vla_bin(l, VIR_OP_GT, a, vla_ku(l, 0x7f800000)), nan, h);
  return vla_bin(l, VIR_OP_OR, sg, h);
}

/* A cast from `src` to `dst` where either may be emulated (the value of
 * an emulated type is its bits in a u32). */
vir_value *vla_small_cast(lw *l, vir_value *x, vir_type *src, vir_type *dst) {
  if (!x)
    return NULL;
  vir_type *i32 = vir_ty_int(l->m, 32), *f32 = vir_ty_float(l->m, 32);
  if (vla_emulated(l, src)) { /* decode to the 32-bit type */
    if (src->kind == VIR_TY_FLOAT) {
      x = half_to_f32(l, x);
    } else if (src->kind == VIR_TY_INT) { /* sign-extend */
      vir_value *k = vla_konst(l, i32, (vir_literal){.i = 32 - src->bits});
      x = vla_bin(l, VIR_OP_SHR, bitcast_to(l, vla_bin(l, VIR_OP_SHL, x, vla_ku(l, 32 - src->bits)), i32), k);
    }
    src = x->type;
  }
  if (!vla_emulated(l, dst))
    return src == dst ? x : vla_cast(l, x, dst);
  if (dst->kind == VIR_TY_FLOAT) /* float64 rounds once more here: the array
                                  * path gives float32 (round-to-odd first) */
    return f32_to_half(l, vla_cast(l, x, f32));
  vir_value *w = vla_cast(l, x, dst->kind == VIR_TY_INT && src->kind == VIR_TY_FLOAT ? i32 : src->kind == VIR_TY_FLOAT ? vla_u32t(l) : x->type);
  if (w->type->kind == VIR_TY_BOOL)
    w = vla_cast(l, w, vla_u32t(l));
  if (w->type->bits == 64)
    w = vla_cast(l, w, w->type->kind == VIR_TY_INT ? i32 : vla_u32t(l));
  return vla_bin(l, VIR_OP_AND, bitcast_to(l, w, vla_u32t(l)), vla_ku(l, (1u << dst->bits) - 1));
}
