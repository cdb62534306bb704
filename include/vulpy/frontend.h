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
