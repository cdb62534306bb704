/* test_verify.c - verifier diagnostics that only IR built in C can
 * trigger (the parser rejects such text before the verifier sees it). */
#include <stdlib.h>

#include "check.h"
#include "vulpy/ir.h"

typedef struct fixture {
  vir_module *m;
  vir_func *f;
  vir_builder b;
  vp_diags d;
} fixture;

static void setup(fixture *x) {
  x->m = vir_module_create("t.py");
  x->f = vir_add_func(x->m, "f", false, NULL, 0, NULL, NULL, (vp_loc){0});
  vir_builder_init(&x->b, x->m);
  vir_builder_at_end(&x->b, &x->f->body);
  x->b.loc = (vp_loc){x->m->source_name, 7, 3};
  x->d = (vp_diags){0};
}

/* verifies, checks that `needle` is among the errors, tears down */
static void expect(fixture *x, const char *needle, int line) {
  bool ok = vir_verify(x->m, &x->d);
  if (ok || !diags_have(&x->d, needle)) {
    fprintf(stderr, "test_verify.c:%d: expected an error containing \"%s\"\n", line, needle);
    char *s = vp_diags_format(&x->d, NULL);
    fprintf(stderr, "%s", s ? s : "");
    free(s);
    check_failures++;
  }
  vp_diags_free(&x->d);
  vir_module_destroy(x->m);
}
#define EXPECT(x, needle) expect((x), (needle), __LINE__)

int main(void) {
  fixture x;
  vir_type *i32;

  setup(&x); /* an operand that is NULL */
  i32 = vir_ty_int(x.m, 32);
  vir_value *nul[2] = {NULL, NULL};
  vir_build(&x.b, VIR_OP_ADD, i32, 2, nul);
  EXPECT(&x, "operand 1 of 'add' is missing");

  setup(&x); /* a value from another function */
  i32 = vir_ty_int(x.m, 32);
  vir_func *g = vir_add_func(x.m, "g", false, NULL, 0, NULL, NULL, (vp_loc){0});
  vir_builder gb;
  vir_builder_init(&gb, x.m);
  vir_builder_at_end(&gb, &g->body);
  vir_value *foreign = vir_build_int(&gb, i32, 1);
  vir_build(&x.b, VIR_OP_NEG, i32, 1, &foreign);
  EXPECT(&x, "operand 1 of 'neg' is not defined before this use");

  setup(&x); /* a result type on a void op */
  vir_build(&x.b, VIR_OP_BARRIER, vir_ty_int(x.m, 32), 0, NULL);
  EXPECT(&x, "'barrier' has no result, but is typed i32");

  setup(&x); /* no result type where one is needed */
  vir_build(&x.b, VIR_OP_GLOBAL_ID, NULL, 0, NULL);
  EXPECT(&x, "'global_id' needs a result type");

  setup(&x); /* a constant out of its type's range */
  vir_op *c = vir_build(&x.b, VIR_OP_CONST, vir_ty_uint(x.m, 8), 0, NULL);
  c->attr.lit.u = 300;
  EXPECT(&x, "'const' value does not fit u8");

  setup(&x); /* an access path that leaves the type */
  vir_sym *buf = vir_add_buffer(x.m, "b", vir_ty_float(x.m, 32), 0, 0, VIR_ACCESS_READWRITE, (vp_loc){0});
  vir_value *idx = vir_build_int(&x.b, vir_ty_uint(x.m, 32), 0);
  vir_op *ld = vir_build(&x.b, VIR_OP_BUFFER_LOAD, vir_ty_float(x.m, 32), 1, &idx);
  ld->attr.sym = buf;
  ld->attr.npath = 1;
  EXPECT(&x, "'buffer.load' has an invalid access path into @b");

  setup(&x); /* a load that names no symbol */
  idx = vir_build_int(&x.b, vir_ty_uint(x.m, 32), 0);
  vir_build(&x.b, VIR_OP_BUFFER_LOAD, vir_ty_float(x.m, 32), 1, &idx);
  EXPECT(&x, "'buffer.load' names no symbol");

  setup(&x); /* a local of another function */
  vir_func *h = vir_add_func(x.m, "h", false, NULL, 0, NULL, NULL, (vp_loc){0});
  vir_sym *hl = vir_func_add_local(x.m, h, "t", vir_ty_int(x.m, 32), (vp_loc){0});
  vir_op *ll = vir_build(&x.b, VIR_OP_LOCAL_LOAD, vir_ty_int(x.m, 32), 0, NULL);
  ll->attr.sym = hl;
  EXPECT(&x, "local @t does not belong to @f");

  setup(&x); /* a kernel with parameters and a result */
  vir_type *pt[] = {vir_ty_float(x.m, 32)};
  vir_func *k = vir_add_func(x.m, "k", true, vir_ty_float(x.m, 32), 1, pt, NULL, (vp_loc){0});
  (void)k;
  EXPECT(&x, "kernel @k cannot take parameters");
  setup(&x);
  vir_add_func(x.m, "k", true, vir_ty_float(x.m, 32), 0, NULL, NULL, (vp_loc){0});
  EXPECT(&x, "kernel @k must return void");

  setup(&x); /* a push block laid out by hand, wrongly */
  vir_struct *st = vir_struct_create(x.m, "pc", (vp_loc){0});
  vir_struct_add_field(x.m, st, "a", vir_ty_uint(x.m, 8), (vp_loc){0});
  vir_struct_add_field(x.m, st, "b", vir_ty_float(x.m, 32), (vp_loc){0});
  vir_struct_layout(st);
  st->fields[1].offset = 1;
  vir_add_push(x.m, "pc", st, (vp_loc){0});
  EXPECT(&x, "field 'b' of push-constant block @pc is at offset 1, but std430 places it at 4");

  setup(&x); /* a struct whose size was not computed */
  st = vir_struct_create(x.m, "S", (vp_loc){0});
  vir_struct_add_field(x.m, st, "a", vir_ty_float(x.m, 64), (vp_loc){0});
  EXPECT(&x, "struct @S has size 0 and alignment 1, but std430 gives 8 and 8");

  setup(&x); /* a struct with a repeated field */
  st = vir_struct_create(x.m, "S", (vp_loc){0});
  vir_struct_add_field(x.m, st, "a", vir_ty_float(x.m, 32), (vp_loc){0});
  vir_struct_add_field(x.m, st, "a", vir_ty_float(x.m, 32), (vp_loc){0});
  vir_struct_layout(st);
  EXPECT(&x, "duplicate field 'a' in struct @S");

  setup(&x); /* a module constant of a vector type */
  vir_add_const(x.m, "C", vir_ty_vec(x.m, vir_ty_float(x.m, 32), 2), (vir_literal){0}, (vp_loc){0});
  EXPECT(&x, "constant @C must have a scalar type, not vec2<f32>");

  setup(&x); /* a memory barrier without a storage class */
  vir_op *mb = vir_build(&x.b, VIR_OP_MEMORY_BARRIER, NULL, 0, NULL);
  mb->attr.scope = VIR_SCOPE_WORKGROUP;
  mb->attr.sem = VIR_SEM_ACQ_REL;
  EXPECT(&x, "'memory_barrier' needs a storage class (buffer, shared or all)");

  setup(&x); /* a swizzle with no components */
  vir_value *vec = vir_build_int(&x.b, vir_ty_int(x.m, 32), 1);
  vir_value *parts[] = {vec, vec};
  vir_op *cv = vir_build(&x.b, VIR_OP_CONSTRUCT, vir_ty_vec(x.m, vir_ty_int(x.m, 32), 2), 2, parts);
  vir_value *cvv = &cv->val;
  vir_build(&x.b, VIR_OP_SWIZZLE, vir_ty_int(x.m, 32), 1, &cvv);
  EXPECT(&x, "'swizzle' needs 1 to 4 components");

  setup(&x); /* a region whose op pointer is wrong */
  vir_value *cond = vir_build_int(&x.b, vir_ty_bool(x.m), 1);
  vir_op *iff = vir_build(&x.b, VIR_OP_IF, NULL, 1, &cond);
  iff->regions[1].parent_op = NULL;
  EXPECT(&x, "region 2 of 'if' does not point back to its op and function");

  setup(&x); /* a push block whose type is not a struct */
  st = vir_struct_create(x.m, "pc", (vp_loc){0});
  vir_struct_add_field(x.m, st, "a", vir_ty_float(x.m, 32), (vp_loc){0});
  vir_struct_layout(st);
  vir_sym *pc = vir_add_push(x.m, "pc", st, (vp_loc){0});
  pc->type = vir_ty_float(x.m, 32);
  EXPECT(&x, "push-constant block @pc must have a struct type");

  setup(&x); /* a local among the module's symbols */
  buf = vir_add_buffer(x.m, "b", vir_ty_float(x.m, 32), 0, 0, VIR_ACCESS_READWRITE, (vp_loc){0});
  buf->kind = VIR_SYM_LOCAL;
  EXPECT(&x, "local @b is declared at module level");

  setup(&x); /* a function symbol that lost its function */
  g = vir_add_func(x.m, "g", false, NULL, 0, NULL, NULL, (vp_loc){0});
  g->sym->func = NULL;
  EXPECT(&x, "function symbol @g has no function");

  setup(&x); /* an array function with a result */
  vir_func *af = vir_add_array_func(x.m, "a", (vp_loc){0});
  af->ret = vir_ty_float(x.m, 32);
  EXPECT(&x, "array function @a takes no parameters and returns nothing");

  setup(&x); /* several errors in one run */
  i32 = vir_ty_int(x.m, 32);
  vir_build(&x.b, VIR_OP_BREAK, NULL, 0, NULL);
  vir_build(&x.b, VIR_OP_CONTINUE, NULL, 0, NULL);
  vir_verify(x.m, &x.d);
  CHECK_EQ_U(x.d.nerrors, 3); /* break not last; both outside a loop */
  vp_diags_clear(&x.d);
  EXPECT(&x, "'continue' outside a loop");

  CHECK_DONE();
}
