/* vulpy/frontend.h - the Python kernel language: AST JSON -> VIR.
 *
 * Python parses the kernel source (`ast.parse`); bindings/python/vulpy/
 * _astjson.py writes the tree as JSON; this library reads that JSON with
 * libyaml (JSON is YAML) and builds a verified VIR module, with type
 * inference and `file:line:col` diagnostics pointing into the Python source.
 * docs/language.md is the language reference.
 *
 * The JSON document (written by _astjson.py):
 *   {"_vulpy_ast": 1, "filename": "k.vul.py", "source": "<the text>",
 *    "kernel": "main" | "<decorated function>" | null,
 *    "options": {"local_size_x": 64, ...},      // decorator keywords
 *    "module": {"_type": "Module", "body": [...], ...}}
 * Every node: {"_type": "<ast class>", <fields>..., "lineno", "col_offset",
 * "end_lineno", "end_col_offset"}; constants as {"_type": "Constant",
 * "value": ..., "kind": "int"|"float"|"bool"|"str"|"None"}.
 * Details the reader relies on: locations are Python's (lineno 1-based,
 * col_offset 0-based in UTF-8 bytes; diagnostics print col_offset + 1);
 * fields whose value is None are left out; floats are written with repr()
 * (exact), inf and nan as the strings "inf", "-inf", "nan" with kind
 * "float"; ints in full (more than 64 bits is an error where used).
 * Optional: "constants": {"NAME": <node>} (module numbers a decorated
 * function reads: a Constant, a Tuple of them, or a Call of a scalar type
 * on one, float32(0.1), for a NumPy scalar; with an "annotation" field, the
 * expression of its declaration `NAME: <annotation> = ...`), and "filename"
 * on a FunctionDef/ClassDef that comes from another file than the
 * document's.
 *
 * The interface the module gets: storage buffers for vp.Buffer parameters
 * (set 0, bindings in parameter order, access readonly/writeonly/readwrite
 * from the kernel's use); the push block @pc with the fields of
 * `class PushConstants`, then the scalar parameters, then `_vp_count` when
 * dispatch_guard is on; with debug_asserts, a last buffer `_vp_assert`
 * (u32[]: element 0 is the line of the first failed assert, 0 = none).
 */
#ifndef VULPY_FRONTEND_H
#define VULPY_FRONTEND_H

#include "vulpy/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vfe_options {
  /* The entry function: NULL takes the document's "kernel", else "main". */
  const char *kernel;
  /* Local size overrides; 0 keeps the decorator's value (default 64,1,1). */
  uint32_t local_size[3];
  /* Compile `assert` statements (otherwise they are dropped). */
  bool debug_asserts;
  /* Add the dispatch guard: a hidden push field `_vp_count` (vec3<u32>,
   * the invocation counts of the dispatch) and an early return for ids past
   * it, so dispatch=N runs exactly N invocations. The manifest names it. */
  bool dispatch_guard;
} vfe_options;

/* Fills the defaults (dispatch_guard on, everything else off/zero). */
void vfe_options_init(vfe_options *o);

/* Translates the JSON of one Python module into a verified VIR module.
 * `json_name` names the JSON itself in diagnostics about malformed JSON;
 * diagnostics about the kernel name the Python file. When `source_out` is
 * non-NULL it receives a heap copy of the Python source (for carets in
 * vp_diags_format), or NULL. Returns NULL with diagnostics on error. */
vir_module *vfe_translate_json(const char *json, size_t len, const char *json_name,
                               const vfe_options *opts, char **source_out,
                               vp_diags *diags);

#ifdef __cplusplus
}
#endif
#endif /* VULPY_FRONTEND_H */
