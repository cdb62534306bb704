/* frontend.c - vfe_translate_json: the document in, a verified module out,
 * and the plumbing the other files share (allocation, locations,
 * diagnostics, building ops, the name map).
 *
 * Steps, in order: read the JSON (json.c); collect the module's names and
 * pick the kernel (kernel.c); declare its interface and translate its body
 * (helpers are translated when first called); run vir_verify. Errors
 * collect in the caller's list and translation goes on at the next
 * statement, so one run reports several. Out of memory longjmps back here.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fe.h"

void vfe_options_init(vfe_options *o) {
  memset(o, 0, sizeof *o);
  o->dispatch_guard = true;
}

/* ------------------------------------------------------------- plumbing */

void *vfe_alloc(vfe_ctx *c, size_t size) {
  void *p = vp_arena_alloc(&c->arena, size);
  if (!p)
    longjmp(c->oom, 1);
  return p;
}

const char *vfe_strdup(vfe_ctx *c, const char *s) {
  char *p = vp_arena_strdup(&c->arena, s ? s : "?"); /* NULL: a malformed node */
  if (!p)
    longjmp(c->oom, 1);
  return p;
}

const char *vfe_mstrdup(vfe_ctx *c, const char *s) {
  char *p = vp_arena_strdup(&c->m->arena, s ? s : "?");
  if (!p)
    longjmp(c->oom, 1);
  return p;
}

vp_loc vfe_loc(vfe_ctx *c, const vfe_node *n) {
  const char *file = c->fn && c->fn->file ? c->fn->file : c->file;
  if ((!n || !n->line) && c->fn && c->b.loc.line)
    return c->b.loc; /* a node without a place (malformed): the statement's */
  vp_loc l = {file, n ? n->line : 0, n && n->line ? n->col : 0};
  return l;
}

void vfe_set_loc(vfe_ctx *c, const vfe_node *n) {
  if (n && n->line)
    c->b.loc = vfe_loc(c, n);
}

vfe_val vfe_err(vfe_ctx *c, const vfe_node *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(c->diags, VP_ERROR, vfe_loc(c, n), fmt, ap);
  va_end(ap);
  return (vfe_val){.kind = VFE_V_ERR};
}

void vfe_warn(vfe_ctx *c, const vfe_node *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(c->diags, VP_WARNING, vfe_loc(c, n), fmt, ap);
  va_end(ap);
}

vir_op *vfe_build(vfe_ctx *c, vir_opcode code, vir_type *t, uint32_t n, vir_value *const *ops) {
  vir_op *op = vir_build(&c->b, code, t, n, ops);
  if (!op)
    longjmp(c->oom, 1);
  return op;
}

vir_value *vfe_build1(vfe_ctx *c, vir_opcode code, vir_type *t, vir_value *a) {
  return vir_result(vfe_build(c, code, t, 1, &a));
}

vir_value *vfe_build2(vfe_ctx *c, vir_opcode code, vir_type *t, vir_value *a, vir_value *b) {
  vir_value *ops[2] = {a, b};
  return vir_result(vfe_build(c, code, t, 2, ops));
}

vir_value *vfe_const_int(vfe_ctx *c, vir_type *t, int64_t v) {
  vir_value *r = vir_build_int(&c->b, t, v);
  if (!r)
    longjmp(c->oom, 1);
  return r;
}

vir_value *vfe_const_float(vfe_ctx *c, vir_type *t, double v) {
  vir_value *r = vir_build_float(&c->b, t, v);
  if (!r)
    longjmp(c->oom, 1);
  return r;
}

vir_value *vfe_const_bool(vfe_ctx *c, bool v) { return vfe_const_int(c, vir_ty_bool(c->m), v); }

/* A cast suggestion naming the expression's own text when it is short. */
const char *vfe_cast_hint(vfe_ctx *c, const vir_type *to, const vfe_node *e) {
  const char *src = vfe_get_str(c->doc, "source");
  const char *name = vfe_vpname(c, to);
  if (!src || !e || !e->line || e->line != e->end_line || e->end_col <= e->col ||
      e->end_col - e->col > 40 || (c->fn && c->fn->file != c->file))
    return vp_arena_printf(&c->arena, "%s(...)", name);
  const char *p = src;
  for (uint32_t l = 1; l < e->line && p; l++) {
    p = strchr(p, '\n');
    if (p)
      p++;
  }
  if (!p || strlen(p) < e->end_col - 1 || memchr(p, '\n', e->end_col - 1))
    return vp_arena_printf(&c->arena, "%s(...)", name);
  return vp_arena_printf(&c->arena, "%s(%.*s)", name, (int)(e->end_col - e->col), p + e->col - 1);
}

/* ------------------------------------------------------------------ map */

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

/* A NULL key (a malformed node without its name) is never found and
 * never stored. */
void *vfe_map_get(const vfe_map *m, const char *key) {
  if (!m->cap || !key)
    return NULL;
  for (uint32_t i = hash_str(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (!m->keys[i])
      return NULL;
    if (strcmp(m->keys[i], key) == 0)
      return m->vals[i];
  }
}

void vfe_map_put(vfe_ctx *c, vfe_map *m, const char *key, void *val) {
  if (!key)
    return;
  if ((m->len + 1) * 2 > m->cap) {
    vfe_map old = *m;
    m->cap = old.cap ? old.cap * 2 : 16;
    m->len = 0;
    m->keys = vfe_alloc(c, m->cap * sizeof *m->keys);
    m->vals = vfe_alloc(c, m->cap * sizeof *m->vals);
    for (uint32_t i = 0; i < old.cap; i++)
      if (old.keys[i])
        vfe_map_put(c, m, old.keys[i], old.vals[i]);
  }
  uint32_t i = hash_str(key) & (m->cap - 1);
  while (m->keys[i] && strcmp(m->keys[i], key) != 0)
    i = (i + 1) & (m->cap - 1);
  if (!m->keys[i])
    m->len++;
  m->keys[i] = key;
  m->vals[i] = val;
}

/* --------------------------------------------------------------- entry */

static const vfe_node *check_header(vfe_ctx *c, const vfe_node *doc, const char *json_name) {
  vp_loc loc = {json_name, doc ? doc->jline : 1, doc ? doc->jcol : 1};
  const vfe_node *ver = vfe_get(doc, "_vulpy_ast");
  if (!doc || doc->kind != VFE_J_OBJ || !ver) {
    vp_error(c->diags, loc, "not a VulPy AST document (no \"_vulpy_ast\" header)");
    vp_diag_hint(c->diags, "make one with `python -m vulpy dump-ast FILE.vul.py`");
    return NULL;
  }
  if (ver->kind != VFE_J_INT || ver->i != 1) {
    vp_error(c->diags, loc, "AST document version is not 1");
    return NULL;
  }
  const vfe_node *mod = vfe_get(doc, "module");
  if (vfe_ast_of(mod) != VFE_AST_Module) {
    vp_error(c->diags, loc, "the document's \"module\" is not a Module node");
    return NULL;
  }
  return mod;
}

/* Translates a read document (c->doc); owns nothing but c->m. */
static vir_module *translate(vfe_ctx *c, const char *json_name, char **source_out) {
  vp_diags *diags = c->diags;
  uint32_t errors_before = diags->nerrors;
  c->module = check_header(c, c->doc, json_name);
  if (!c->module)
    return NULL;
  const char *filename = vfe_get_str(c->doc, "filename");
  const char *source = vfe_get_str(c->doc, "source");
  if (source_out && source)
    *source_out = strdup(source);
  c->m = vir_module_create(filename ? filename : json_name);
  if (!c->m)
    longjmp(c->oom, 1);
  c->file = vir_intern_file(c->m, filename ? filename : json_name);
  vfe_scan_module(c);
  const char *kname = NULL;
  const vfe_node *kdef = vfe_find_kernel(c, &kname);
  if (kdef) {
    vfe_translate_kernel(c, kdef, kname);
    /* A .vul.py file is kernel code throughout, so its uncalled helpers are
     * checked too; an ordinary Python file's other functions are host code
     * (time.perf_counter(), NumPy, ...), compiled only when the kernel
     * calls them. */
    size_t fl = filename ? strlen(filename) : 0;
    if (fl >= 7 && strcmp(filename + fl - 7, ".vul.py") == 0)
      vfe_check_unused_helpers(c, kdef);
  }
  if (diags->nerrors != errors_before)
    return NULL;
  vfe_buffer_access(c);
  vfe_drop_unused_locals(c);
  vfe_check_unassigned(c);
  vp_diags vd = {0};
  bool ok = vir_verify(c->m, &vd);
  if (!ok) {
    /* A frontend bug, not the user's: say so, with the verifier's words. */
    vp_error(diags, vfe_file_loc(c->file), "internal error: the frontend built invalid VIR");
    vp_diags_move(diags, &vd);
  }
  vp_diags_free(&vd);
  return ok ? c->m : NULL;
}

/* The context of one translation; `doc` is read into its arena when NULL. */
static vir_module *run(const char *json, size_t len, const vfe_node *doc, const char *json_name,
                       const vfe_options *opts, char **source_out, vp_diags *diags) {
  vfe_options defaults;
  if (!opts) {
    vfe_options_init(&defaults);
    opts = &defaults;
  }
  if (source_out)
    *source_out = NULL;
  vfe_ctx *c = calloc(1, sizeof *c);
  if (!c) {
    vp_error(diags, vfe_file_loc(json_name), "out of memory");
    return NULL;
  }
  c->diags = diags;
  c->opts = opts;
  c->count_field = UINT32_MAX;
  vir_module *m = NULL;
  if (setjmp(c->oom)) {
    vp_error(diags, vfe_file_loc(json_name), "out of memory");
  } else {
    c->doc = doc ? doc : vfe_json_read(&c->arena, json, len, json_name, diags);
    if (c->doc)
      m = translate(c, json_name, source_out);
  }
  if (!m && c->m)
    vir_module_destroy(c->m);
  vp_arena_free(&c->arena);
  free(c);
  return m;
}

vir_module *vfe_translate_json(const char *json, size_t len, const char *json_name,
                               const vfe_options *opts, char **source_out, vp_diags *diags) {
  return run(json, len, NULL, json_name, opts, source_out, diags);
}

vir_module *vfe_translate_tree(const vfe_node *doc, const char *json_name, const vfe_options *opts,
                               vp_diags *diags) {
  return run(NULL, 0, doc, json_name, opts, NULL, diags);
}
