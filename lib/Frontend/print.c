/* print.c - vp.print(...) in a kernel (issue 20): each call appends one
 * record to the hidden ring buffer `_vp_print : u32[]`, which the host
 * binds, reads after the dispatch and prints like Python's print.
 *
 * Word 0 of the ring is the cursor: a call claims its record's words with
 * atomic.add and writes them only when they fit (ring length - 1 words
 * after word 0): a full ring drops records and the host says how many
 * words were lost; nothing waits, so a print can never hang a kernel.
 * A record: line, column, global invocation id x, number of arguments,
 * then per argument a tag and its bits: 0 a string constant (payload: its
 * argument index; the host reads the text from the kernel's source),
 * 1 int32, 2 uint32, 3 float32, 4 bool (one word each); tag 5 (float64,
 * two words) is reserved: 64-bit values are an error for now. Smaller ints
 * and float16 are widened to 32 bits. Arguments are scalars or string
 * constants.
 */
#include <string.h>

#include "fe.h"

enum { TAG_STR = 0, TAG_I32 = 1, TAG_U32 = 2, TAG_F32 = 3, TAG_BOOL = 4 };
enum { MAX_ARGS = 16 };

static vfe_array *ring(vfe_ctx *c, const vfe_node *call) {
  static const char name[] = "_vp_print";
  vfe_array *a = c->print_buf;
  if (a)
    return a;
  a = vfe_alloc(c, sizeof *a);
  a->elem = vir_ty_uint(c->m, 32);
  a->sym = vir_add_buffer(c->m, name, a->elem, 0, c->nbindings++, VIR_ACCESS_READWRITE,
                          vfe_loc(c, call));
  if (!a->sym)
    longjmp(c->oom, 1);
  c->print_buf = a;
  return a;
}

static void store(vfe_ctx *c, vfe_array *r, vir_value *base, uint32_t k, vir_value *v) {
  vir_type *u32 = vir_ty_uint(c->m, 32);
  vir_value *at = vfe_build2(c, VIR_OP_ADD, u32, base, vfe_const_int(c, u32, k));
  vir_value *ops[2] = {at, v};
  vir_op *st = vfe_build(c, VIR_OP_BUFFER_STORE, NULL, 2, ops);
  st->attr.sym = r->sym;
  r->writes++;
}

vfe_val vfe_call_print(vfe_ctx *c, const vfe_node *call, vfe_node **args, uint32_t n) {
  vir_type *u32 = vir_ty_uint(c->m, 32);
  if (n > MAX_ARGS)
    return vfe_err(c, call, "print() takes at most %d arguments in a kernel", MAX_ARGS);
  vir_value *vals[MAX_ARGS];
  uint32_t tags[MAX_ARGS], words = 4;
  for (uint32_t i = 0; i < n; i++) {
    const vfe_node *a = args[i];
    if (vfe_ast_of(a) == VFE_AST_Constant) {
      const char *kind = vfe_get_str(a, "kind");
      if (kind && strcmp(kind, "str") == 0) {
        tags[i] = TAG_STR;
        vals[i] = NULL;
        words += 2;
        continue;
      }
    }
    vir_value *v = vfe_expr_value(c, a);
    if (!v)
      return (vfe_val){0};
    vir_type *t = v->type;
    if (!vir_ty_is_scalar(t))
      return vfe_err(c, a, "print() takes scalars and string constants in a kernel, not %s",
                     vfe_tyname(c, t));
    if (t->bits == 64)
      return vfe_err(c, a, "print() of a 64-bit value (%s) is not supported in a kernel yet; "
                     "convert it (vp.float32(x), vp.int32(x))", vfe_tyname(c, t));
    vfe_set_loc(c, a);
    if (t->kind == VIR_TY_BOOL) {
      tags[i] = TAG_BOOL;
      vir_value *sel[3] = {v, vfe_const_int(c, u32, 1), vfe_const_int(c, u32, 0)};
      v = vir_result(vfe_build(c, VIR_OP_SELECT, u32, 3, sel));
    } else if (t->kind == VIR_TY_FLOAT) {
      tags[i] = TAG_F32;
      if (t->bits != 32)
        v = vfe_build1(c, VIR_OP_CAST, vir_ty_float(c->m, 32), v);
      v = vfe_build1(c, VIR_OP_BITCAST, u32, v);
    } else if (t->kind == VIR_TY_INT) {
      tags[i] = TAG_I32;
      if (t->bits != 32)
        v = vfe_build1(c, VIR_OP_CAST, vir_ty_int(c->m, 32), v);
      v = vfe_build1(c, VIR_OP_BITCAST, u32, v);
    } else {
      tags[i] = TAG_U32;
      if (t->bits != 32)
        v = vfe_build1(c, VIR_OP_CAST, u32, v);
    }
    vals[i] = v;
    words += 2;
  }
  vfe_set_loc(c, call);
  vfe_array *r = ring(c, call);
  /* claim `words` words after the cursor; write them only if they fit */
  vir_value *aops[2] = {vfe_const_int(c, u32, 0), vfe_const_int(c, u32, words)};
  vir_op *add = vfe_build(c, VIR_OP_ATOMIC_ADD, u32, 2, aops);
  add->attr.sym = r->sym;
  add->attr.scope = VIR_SCOPE_DEVICE;
  add->attr.sem = VIR_SEM_RELAXED;
  r->reads++;
  r->writes++;
  vir_value *base = vfe_build2(c, VIR_OP_ADD, u32, vir_result(add), vfe_const_int(c, u32, 1));
  vir_value *end = vfe_build2(c, VIR_OP_ADD, u32, base, vfe_const_int(c, u32, words));
  vir_op *len = vfe_build(c, VIR_OP_BUFFER_LEN, u32, 0, NULL);
  len->attr.sym = r->sym;
  vir_value *fits = vfe_build2(c, VIR_OP_LE, vir_ty_bool(c->m), end, vir_result(len));
  vir_builder save = c->b;
  vir_op *iff = vfe_build(c, VIR_OP_IF, NULL, 1, &fits);
  vir_builder_at_end(&c->b, &iff->regions[0]);
  vir_op *gid = vfe_build(c, VIR_OP_GLOBAL_ID, vir_ty_vec(c->m, u32, 3), 0, NULL);
  vir_value *g = vir_result(gid);
  vir_op *gx = vfe_build(c, VIR_OP_EXTRACT, u32, 1, &g);
  gx->attr.index = 0;
  store(c, r, base, 0, vfe_const_int(c, u32, call->line));
  store(c, r, base, 1, vfe_const_int(c, u32, call->col));
  store(c, r, base, 2, vir_result(gx));
  store(c, r, base, 3, vfe_const_int(c, u32, n));
  uint32_t k = 4;
  for (uint32_t i = 0; i < n; i++) {
    store(c, r, base, k++, vfe_const_int(c, u32, tags[i]));
    if (tags[i] == TAG_STR) {
      store(c, r, base, k++, vfe_const_int(c, u32, i));
    } else {
      store(c, r, base, k++, vals[i]);
    }
  }
  c->b = save;
  return (vfe_val){.kind = VFE_V_NONE};
}
