/* generic.c - generic kernels: `a: vp.Buffer` without an element type, and
 * scalar parameters `s: vp.Scalar` typed by the call.
 *
 * The element type comes from the call: the Python layer compiles the
 * kernel once per list of argument dtypes, passing them in the document's
 * options as "buffer_dtypes": {"a": "float64", ...} (NumPy's dtype names,
 * which are VulPy's type names), and caches each compilation like any
 * other. Inside the kernel the buffer is an ordinary one of that type, so
 * literals adapt to it (`2 * x[i]` is f32, f64 or i32 as the call says).
 */
#include <string.h>

#include "fe.h"

bool vfe_is_generic_buffer(vfe_ctx *c, const vfe_node *ann) {
  if (vfe_ast_of(ann) == VFE_AST_Attribute) {
    const vfe_node *b = vfe_get(ann, "value");
    const char *a = vfe_get_str(ann, "attr"), *id = vfe_get_str(b, "id");
    return a && strcmp(a, "Buffer") == 0 && vfe_ast_of(b) == VFE_AST_Name && id &&
           vfe_map_get(&c->vp_names, id);
  }
  const char *id = vfe_ast_of(ann) == VFE_AST_Name ? vfe_get_str(ann, "id") : NULL;
  if (!id || (c->fn && vfe_map_get(&c->fn->vars, id)) || vfe_map_get(&c->globals, id))
    return false;
  const vfe_builtin *bi = vfe_map_get(&c->from_names, id);
  if (!bi && strcmp(id, "Buffer") == 0)
    bi = vfe_builtin_find(id);
  return bi && bi->kind == VFE_B_BUFFER;
}

vir_type *vfe_generic_buffer_type(vfe_ctx *c, const vfe_node *p, const char *name) {
  const vfe_node *opts = vfe_get(c->doc, "options");
  const vfe_node *dts = opts ? vfe_get(opts, "buffer_dtypes") : NULL;
  const char *dt = dts && dts->kind == VFE_J_OBJ ? vfe_get_str(dts, name) : NULL;
  if (!dt) {
    vfe_err(c, p, "generic buffer '%s' (vp.Buffer without an element type) has no type yet", name);
    vfe_hint(c, "call the kernel with an array (it compiles once per element type), or write vp.Buffer[vp.float32]");
    return NULL;
  }
  const vfe_builtin *bi = vfe_builtin_find(dt);
  if (!bi || bi->kind != VFE_B_TYPE || bi->python || bi->tkind == VIR_TY_BOOL) {
    vfe_err(c, p, "generic buffer '%s': '%s' is not an element type VulPy knows", name, dt);
    vfe_hint(c, "element types are int8..int64, uint8..uint64, float16..float64 and the vector types");
    return NULL;
  }
  return vfe_builtin_type(c, bi);
}

/* vp.Scalar, or a bare Scalar imported from vulpy. */
bool vfe_is_generic_scalar(vfe_ctx *c, const vfe_node *ann) {
  if (vfe_ast_of(ann) == VFE_AST_Attribute) {
    const vfe_node *b = vfe_get(ann, "value");
    const char *a = vfe_get_str(ann, "attr"), *id = vfe_get_str(b, "id");
    return a && strcmp(a, "Scalar") == 0 && vfe_ast_of(b) == VFE_AST_Name && id &&
           vfe_map_get(&c->vp_names, id);
  }
  const char *id = vfe_ast_of(ann) == VFE_AST_Name ? vfe_get_str(ann, "id") : NULL;
  const vfe_builtin *bi = id ? vfe_map_get(&c->from_names, id) : NULL;
  return bi && bi->kind == VFE_B_SCALAR;
}

/* A scalar parameter `a: vp.Scalar` is a push constant whose type the call
 * gives, as a generic buffer's element type: the Python layer passes
 * "scalar_dtypes": {"a": "float64"} (the argument's NumPy dtype, or for a
 * Python number the generic buffers' element type, docs/language.md). */
vir_type *vfe_generic_scalar_type(vfe_ctx *c, const vfe_node *p, const char *name) {
  const vfe_node *opts = vfe_get(c->doc, "options");
  const vfe_node *dts = opts ? vfe_get(opts, "scalar_dtypes") : NULL;
  const char *dt = dts && dts->kind == VFE_J_OBJ ? vfe_get_str(dts, name) : NULL;
  if (!dt) {
    vfe_err(c, p, "generic scalar '%s' (vp.Scalar) has no type yet", name);
    vfe_hint(c, "call the kernel (the value's type, or the generic buffers' element type, decides), "
                "or write %s: vp.float32", name);
    return NULL;
  }
  const vfe_builtin *bi = vfe_builtin_find(dt);
  if (!bi || bi->kind != VFE_B_TYPE || bi->python || bi->tkind == VIR_TY_BOOL || bi->n > 1) {
    vfe_err(c, p, "generic scalar '%s': '%s' is not a scalar type VulPy knows", name, dt);
    vfe_hint(c, "scalar types are int8..int64, uint8..uint64 and float16..float64");
    return NULL;
  }
  return vfe_builtin_type(c, bi);
}
