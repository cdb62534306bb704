/* test_builder.c - building a kernel with the C API: the printed text, name
 * uniquing, result-type inference, constants, use counts, features. */
#include <stdlib.h>

#include "check.h"
#include "vulpy/ir.h"

static char *print(vir_module *m) {
  vp_strbuf b = {0};
  vir_print(m, 0, &b);
  return vp_strbuf_take(&b);
}

/* saxpy: y[i] = a * x[i] + y[i] for i < N */
static void saxpy(void) {
  vir_module *m = vir_module_create("saxpy.vul.py");
  vp_loc nl = {0};
  vir_type *f32 = vir_ty_float(m, 32), *u32 = vir_ty_uint(m, 32);
  vir_struct *pcs = vir_struct_create(m, "pc", nl);
  vir_struct_add_field(m, pcs, "N", u32, nl);
  vir_struct_add_field(m, pcs, "a", f32, nl);
  vir_struct_layout(pcs);
  vir_sym *pc = vir_add_push(m, "pc", pcs, nl);
  vir_sym *x = vir_add_buffer(m, "x", f32, 0, 0, VIR_ACCESS_READONLY, nl);
  vir_sym *y = vir_add_buffer(m, "y", f32, 0, 1, VIR_ACCESS_READWRITE, nl);
  vir_func *k = vir_add_func(m, "saxpy", true, NULL, 0, NULL, NULL, (vp_loc){m->source_name, 3, 1});
  k->local_size[0] = 256;

  vir_builder b;
  vir_builder_init(&b, m);
  vir_builder_at_end(&b, &k->body);
  b.loc = (vp_loc){m->source_name, 5, 9};
  vir_op *gid = vir_build_auto(&b, VIR_OP_GLOBAL_ID, 0, NULL);
  CHECK(gid && gid->val.type == vir_ty_vec(m, u32, 3));
  vir_value *g = &gid->val;
  vir_op *ex = vir_build(&b, VIR_OP_EXTRACT, u32, 1, &g);
  ex->attr.index = 0;
  ex->val.name = "i";
  vir_value *i = &ex->val;
  vir_op *n = vir_build(&b, VIR_OP_PUSH_LOAD, u32, 0, NULL);
  n->attr.sym = pc;
  n->attr.npath = 1;
  n->attr.path[0] = 0;
  vir_value *cmp_ops[] = {i, &n->val};
  vir_op *cmp = vir_build_auto(&b, VIR_OP_LT, 2, cmp_ops);
  CHECK(cmp->val.type == vir_ty_bool(m));
  vir_value *c = &cmp->val;
  vir_op *iff = vir_build(&b, VIR_OP_IF, NULL, 1, &c);
  CHECK(vir_result(iff) == NULL);

  vir_builder_at_end(&b, &iff->regions[0]);
  b.loc = (vp_loc){m->source_name, 6, 9};
  vir_op *xl = vir_build(&b, VIR_OP_BUFFER_LOAD, f32, 1, &i);
  xl->attr.sym = x;
  vir_op *yl = vir_build(&b, VIR_OP_BUFFER_LOAD, f32, 1, &i);
  yl->attr.sym = y;
  vir_op *a = vir_build(&b, VIR_OP_PUSH_LOAD, f32, 0, NULL);
  a->attr.sym = pc;
  a->attr.npath = 1;
  a->attr.path[0] = 1;
  vir_value *fma_ops[] = {&a->val, &xl->val, &yl->val};
  vir_op *fma = vir_build_auto(&b, VIR_OP_FMA, 3, fma_ops);
  CHECK(fma && fma->val.type == f32);
  vir_value *st_ops[] = {i, &fma->val};
  vir_op *st = vir_build(&b, VIR_OP_BUFFER_STORE, NULL, 2, st_ops);
  st->attr.sym = y;

  vp_diags d = {0};
  CHECK(vir_verify(m, &d));
  CHECK_EQ_U(d.count, 0);
  char *text = print(m);
  CHECK_STR(text, "module \"saxpy.vul.py\"\n"
                  "\n"
                  "push @pc { N: u32, a: f32 }\n"
                  "buffer @x : f32[] binding(0, 0) readonly\n"
                  "buffer @y : f32[] binding(0, 1) readwrite\n"
                  "\n"
                  "kernel @saxpy local_size(256, 1, 1) loc(3:1) {\n"
                  "  %0 = global_id : vec3<u32> loc(5:9)\n"
                  "  %i = extract %0[0] : u32 loc(5:9)\n"
                  "  %1 = push.load @pc.N : u32 loc(5:9)\n"
                  "  %2 = lt %i, %1 : bool loc(5:9)\n"
                  "  if %2 loc(5:9) {\n"
                  "    %3 = buffer.load @x[%i] : f32 loc(6:9)\n"
                  "    %4 = buffer.load @y[%i] : f32 loc(6:9)\n"
                  "    %5 = push.load @pc.a : f32 loc(6:9)\n"
                  "    %6 = fma %5, %3, %4 : f32 loc(6:9)\n"
                  "    buffer.store @y[%i], %6 loc(6:9)\n"
                  "  }\n"
                  "}\n");

  /* the text reads back to the same text */
  vir_module *m2 = vir_parse(text, strlen(text), "saxpy.vir", &d);
  CHECK(m2 != NULL);
  char *text2 = m2 ? print(m2) : NULL;
  CHECK_STR(text2, text);
  CHECK_EQ_U(vir_module_features(m), 0);

  /* one op alone, for messages: hints, else ids; locations with the file */
  vp_strbuf one = {0};
  vir_print_op(st, 0, &one);
  CHECK(one.data && strncmp(one.data, "buffer.store @y[%i], %", 22) == 0);
  CHECK(one.data && strstr(one.data, " loc(\"saxpy.vul.py\":6:9)\n") != NULL);
  vp_strbuf_free(&one);
  vir_print_op(iff, VIR_PRINT_NO_LOCS, &one);
  CHECK(one.data && strstr(one.data, "if %") == one.data && strstr(one.data, "  buffer.store") &&
        !strstr(one.data, "loc("));
  vp_strbuf_free(&one);

  vir_func_count_uses(k);
  CHECK_EQ_U(i->nuses, 4);
  CHECK_EQ_U(fma->val.nuses, 1);
  CHECK_EQ_U(st->val.nuses, 0);
  free(text);
  free(text2);
  vir_module_destroy(m2);
  vp_diags_free(&d);
  vir_module_destroy(m);
}

/* name hints are made unique in definition order, numbers fill the rest */
static void names(void) {
  vir_module *m = vir_module_create(NULL);
  vir_type *f64 = vir_ty_float(m, 64);
  vir_type *pt[] = {f64};
  const char *pn[] = {"x"};
  vir_func *f = vir_add_func(m, "f", false, f64, 1, pt, pn, (vp_loc){0});
  vir_builder b;
  vir_builder_init(&b, m);
  vir_builder_at_end(&b, &f->body);
  vir_value *x = f->body.args[0];
  vir_value *v1 = vir_build_float(&b, f64, 0.25);
  v1->name = "x";
  vir_value *ops[] = {x, v1};
  vir_value *v2 = &vir_build_auto(&b, VIR_OP_ADD, 2, ops)->val;
  v2->name = "x.1";
  vir_value *ops2[] = {v2, v2};
  vir_value *v3 = &vir_build_auto(&b, VIR_OP_MUL, 2, ops2)->val;
  v3->name = "a b";
  vir_value *v4 = vir_build_int(&b, vir_ty_int(m, 16), 70000);
  vir_value *v5 = vir_build_int(&b, vir_ty_bool(m), 5);
  vir_value *r = v3;
  vir_build(&b, VIR_OP_RETURN, NULL, 1, &r);
  (void)v4;
  (void)v5;
  char *text = print(m);
  CHECK_STR(text, "func @f(%x: f64) -> f64 {\n"
                  "  %x.1 = const 0.25 : f64\n"
                  "  %x.1.1 = add %x, %x.1 : f64\n"
                  "  %a_b = mul %x.1.1, %x.1.1 : f64\n"
                  "  %0 = const 4464 : i16\n"
                  "  %1 = const true : bool\n"
                  "  return %a_b\n"
                  "}\n");
  vp_diags d = {0};
  CHECK(vir_verify(m, &d));
  CHECK(vir_module_features(m) == (VP_FEAT(FLOAT64) | VP_FEAT(INT16)));
  free(text);
  vp_diags_free(&d);
  vir_module_destroy(m);
}

/* vir_infer_type and vir_build_auto follow each result rule */
static void inference(void) {
  vir_module *m = vir_module_create(NULL);
  vir_type *f32 = vir_ty_float(m, 32), *v3 = vir_ty_vec(m, f32, 3), *i32 = vir_ty_int(m, 32);
  vir_type *pt[] = {f32, v3, i32, vir_ty_bool(m), vir_ty_mat(m, f32, 2, 3)};
  vir_func *f = vir_add_func(m, "f", false, NULL, 5, pt, NULL, (vp_loc){0});
  vir_value *s = f->body.args[0], *v = f->body.args[1], *n = f->body.args[2], *c = f->body.args[3];
  vir_value *mat = f->body.args[4];
  vir_value *sv[] = {v, s}, *vv[] = {v, v}, *si[] = {s, n}, *cvv[] = {c, v, v}, *mv[] = {mat, v};
  CHECK(vir_infer_type(m, VIR_OP_MUL, 2, sv) == v3);
  CHECK(vir_infer_type(m, VIR_OP_ADD, 2, si) == NULL);
  CHECK(vir_infer_type(m, VIR_OP_LT, 2, vv) == vir_ty_vec(m, vir_ty_bool(m), 3));
  CHECK(vir_infer_type(m, VIR_OP_DOT, 2, vv) == f32);
  CHECK(vir_infer_type(m, VIR_OP_SELECT, 3, cvv) == v3);
  CHECK(vir_infer_type(m, VIR_OP_ADD, 3, cvv) == NULL); /* arity */
  CHECK(vir_infer_type(m, VIR_OP_TRANSPOSE, 1, &mat) == vir_ty_mat(m, f32, 3, 2));
  CHECK(vir_infer_type(m, VIR_OP_MATMUL, 2, mv) == NULL); /* 2 columns, 3-vector */
  CHECK(vir_infer_type(m, VIR_OP_BUFFER_LEN, 0, NULL) == vir_ty_uint(m, 32));
  CHECK(vir_infer_type(m, VIR_OP_EXTRACT, 1, &v) == NULL); /* needs the index */
  vir_builder b;
  vir_builder_init(&b, m);
  vir_builder_at_end(&b, &f->body);
  CHECK(vir_build_auto(&b, VIR_OP_ADD, 2, si) == NULL);
  CHECK(f->body.first == NULL); /* nothing inserted on failure */
  /* the for induction variable takes the bounds' type */
  vir_value *lo = vir_build_int(&b, i32, 0), *hi = vir_build_int(&b, i32, 8), *st = vir_build_int(&b, i32, 1);
  vir_value *bounds[] = {lo, hi, st};
  vir_op *loop = vir_build(&b, VIR_OP_FOR, NULL, 3, bounds);
  CHECK(loop->regions[0].nargs == 1 && loop->regions[0].args[0]->type == i32);
  CHECK(loop->regions[0].func == f && loop->regions[0].parent_op == loop);
  vp_diags d = {0};
  CHECK(vir_verify(m, &d));
  vp_diags_free(&d);
  vir_module_destroy(m);
}

int main(void) {
  saxpy();
  names();
  inference();
  CHECK_DONE();
}
