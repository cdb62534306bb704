/* test_types.c - type interning, text and std430 size/alignment, struct
 * layout and access paths. */
#include "check.h"
#include "vulpy/ir.h"

static void interning(vir_module *m) {
  vir_type *f32 = vir_ty_float(m, 32);
  CHECK(f32 == vir_ty_float(m, 32));
  CHECK(vir_ty_int(m, 32) != vir_ty_uint(m, 32));
  CHECK(vir_ty_vec(m, f32, 3) == vir_ty_vec(m, vir_ty_float(m, 32), 3));
  CHECK(vir_ty_vec(m, f32, 3) != vir_ty_vec(m, f32, 4));
  CHECK(vir_ty_mat(m, f32, 4, 4) == vir_ty_mat(m, f32, 4, 4));
  CHECK(vir_ty_mat(m, f32, 2, 3) != vir_ty_mat(m, f32, 3, 2));
  CHECK(vir_ty_array(m, f32, 16) == vir_ty_array(m, f32, 16));
  CHECK(vir_ty_array(m, f32, 16) != vir_ty_array(m, f32, 17));
  CHECK(vir_ty_vec(m, f32, 5) == NULL);
  CHECK(vir_ty_mat(m, vir_ty_int(m, 32), 2, 2) == NULL);
  CHECK(vir_ty_with_scalar(m, vir_ty_vec(m, f32, 2), vir_ty_bool(m)) == vir_ty_vec(m, vir_ty_bool(m), 2));
  CHECK(vir_ty_scalar_of(vir_ty_mat(m, f32, 3, 3)) == f32);
  CHECK_EQ_U(vir_ty_width(vir_ty_vec(m, f32, 4)), 4);
  CHECK(vir_ty_is_float(vir_ty_vec(m, f32, 2)));
  CHECK(vir_ty_is_int(vir_ty_vec(m, vir_ty_uint(m, 8), 2)));
  CHECK(!vir_ty_is_signed(vir_ty_uint(m, 16)));
  CHECK(vir_ty_is_bool(vir_ty_vec(m, vir_ty_bool(m), 4)));
}

static void text(vir_module *m) {
  vir_type *f32 = vir_ty_float(m, 32);
  CHECK_STR(vir_ty_int(m, 8)->str, "i8");
  CHECK_STR(vir_ty_uint(m, 64)->str, "u64");
  CHECK_STR(vir_ty_float(m, 16)->str, "f16");
  CHECK_STR(vir_ty_vec(m, vir_ty_bool(m), 3)->str, "vec3<bool>");
  CHECK_STR(vir_ty_mat(m, f32, 4, 4)->str, "mat4<f32>");
  CHECK_STR(vir_ty_mat(m, vir_ty_float(m, 64), 2, 3)->str, "mat2x3<f64>");
  CHECK_STR(vir_ty_array(m, vir_ty_vec(m, f32, 4), 8)->str, "array<vec4<f32>, 8>");
  vp_strbuf b = {0};
  vir_type_print(&b, vir_ty_void(m));
  CHECK_STR(b.data, "void");
  vp_strbuf_free(&b);
}

static void std430(vir_module *m) {
  vir_type *f32 = vir_ty_float(m, 32), *f64 = vir_ty_float(m, 64), *f16 = vir_ty_float(m, 16);
  CHECK_EQ_U(vir_type_size(f32), 4);
  CHECK_EQ_U(vir_type_size(vir_ty_bool(m)), 4);
  CHECK_EQ_U(vir_type_size(vir_ty_uint(m, 8)), 1);
  CHECK_EQ_U(vir_type_size(f16), 2);
  CHECK_EQ_U(vir_type_size(vir_ty_vec(m, f32, 2)), 8);
  CHECK_EQ_U(vir_type_align(vir_ty_vec(m, f32, 2)), 8);
  CHECK_EQ_U(vir_type_size(vir_ty_vec(m, f32, 3)), 12);
  CHECK_EQ_U(vir_type_align(vir_ty_vec(m, f32, 3)), 16);
  CHECK_EQ_U(vir_type_size(vir_ty_vec(m, f64, 3)), 24);
  CHECK_EQ_U(vir_type_align(vir_ty_vec(m, f64, 3)), 32);
  CHECK_EQ_U(vir_type_size(vir_ty_vec(m, f16, 3)), 6);
  CHECK_EQ_U(vir_type_align(vir_ty_vec(m, f16, 3)), 8);
  /* std430 arrays are not rounded to 16 (std140 would make this 64) */
  CHECK_EQ_U(vir_type_size(vir_ty_array(m, f32, 16)), 64);
  CHECK_EQ_U(vir_type_size(vir_ty_array(m, vir_ty_vec(m, f32, 3), 4)), 64);
  CHECK_EQ_U(vir_type_size(vir_ty_mat(m, f32, 4, 4)), 64);
  CHECK_EQ_U(vir_type_size(vir_ty_mat(m, f32, 3, 3)), 48);
  CHECK_EQ_U(vir_type_align(vir_ty_mat(m, f32, 3, 3)), 16);
  CHECK_EQ_U(vir_type_size(vir_ty_mat(m, f32, 2, 2)), 16);

  /* struct { vec3 a; float b; vec2 c; double d; } : b packs after a */
  vp_loc nl = {0};
  vir_struct *st = vir_struct_create(m, "S", nl);
  vir_struct_add_field(m, st, "a", vir_ty_vec(m, f32, 3), nl);
  vir_struct_add_field(m, st, "b", f32, nl);
  vir_struct_add_field(m, st, "c", vir_ty_vec(m, f32, 2), nl);
  vir_struct_add_field(m, st, "d", f64, nl);
  vir_struct_add_field(m, st, "e", vir_ty_uint(m, 8), nl);
  vir_struct_layout(st);
  CHECK_EQ_U(st->fields[0].offset, 0);
  CHECK_EQ_U(st->fields[1].offset, 12);
  CHECK_EQ_U(st->fields[2].offset, 16);
  CHECK_EQ_U(st->fields[3].offset, 24);
  CHECK_EQ_U(st->fields[4].offset, 32);
  CHECK_EQ_U(st->align, 16);
  CHECK_EQ_U(st->size, 48);
  CHECK_EQ_U(vir_type_size(vir_ty_struct(m, st)), 48);
  CHECK_EQ_U(vir_type_size(vir_ty_array(m, vir_ty_struct(m, st), 3)), 144);
  CHECK(vir_struct_find(st, "d") == 3);
  CHECK(vir_struct_find(st, "zz") == -1);
  CHECK_STR(vir_ty_struct(m, st)->str, "@S");

  /* paths: struct member, vector component, array element */
  uint8_t p1[] = {0, 2};
  CHECK(vir_path_type(vir_ty_struct(m, st), 2, p1) == f32);
  uint8_t p2[] = {0, 3};
  CHECK(vir_path_type(vir_ty_struct(m, st), 2, p2) == NULL);
  uint8_t p3[] = {9};
  CHECK(vir_path_type(vir_ty_struct(m, st), 1, p3) == NULL);
  uint8_t p4[] = {2, 1};
  CHECK(vir_path_type(vir_ty_mat(m, f32, 3, 4), 2, p4) == f32);
}

static void literals(vir_module *m) {
  vir_literal l = vir_lit_normalize(vir_ty_int(m, 8), (vir_literal){.i = 200});
  CHECK(l.i == -56);
  l = vir_lit_normalize(vir_ty_uint(m, 16), (vir_literal){.i = -1});
  CHECK(l.u == 65535);
  l = vir_lit_normalize(vir_ty_float(m, 32), (vir_literal){.f = 0.1});
  CHECK(l.f == (double)0.1f);
  l = vir_lit_normalize(vir_ty_float(m, 16), (vir_literal){.f = 65519.0});
  CHECK(l.f == 65504.0);
  l = vir_lit_normalize(vir_ty_float(m, 16), (vir_literal){.f = 1.0 + 1.0 / 4096});
  CHECK(l.f == 1.0); /* ties to even below the 10-bit mantissa */
}

int main(void) {
  vir_module *m = vir_module_create("types.vul.py");
  interning(m);
  text(m);
  std430(m);
  literals(m);
  vir_module_destroy(m);
  CHECK_DONE();
}
