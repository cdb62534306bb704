/* kernel.c - the module's names and the kernel: imports of vulpy,
 * constants, classes and functions; which function is the kernel; its local
 * size; its interface (storage buffers in parameter order, the push block
 * from `class PushConstants`, then the scalar parameters, then the hidden
 * `_vp_count` of the dispatch guard); the guard itself (an early return;
 * guard.c replaces it in kernels with a barrier); and the buffers' access
 * qualifiers from their use.
 */
#include <string.h>

#include "fe.h"

/* ------------------------------------------------------- module scanning */

static vfe_global *new_global(vfe_ctx *c, const char *name, vfe_gkind kind, const vfe_node *node) {
  vfe_global *g = vfe_alloc(c, sizeof *g);
  g->kind = kind;
  g->node = node;
  vfe_map_put(c, &c->globals, name, g);
  return g;
}

static bool is_vulpy(const char *module) { return module && strcmp(module, "vulpy") == 0; }

/* module: (import | from-import | class | def | NAME [: ann] = expr | other)* */
void vfe_scan_module(vfe_ctx *c) {
  uint32_t n;
  vfe_node **body = vfe_get_list(c->module, "body", &n);
  for (uint32_t i = 0; i < n; i++) {
    const vfe_node *s = body[i];
    uint32_t na;
    vfe_node **names;
    switch (vfe_ast_of(s)) {
    case VFE_AST_Import:
      names = vfe_get_list(s, "names", &na);
      for (uint32_t k = 0; k < na; k++) {
        const char *mod = vfe_get_str(names[k], "name");
        const char *as = vfe_get_str(names[k], "asname");
        if (is_vulpy(mod))
          vfe_map_put(c, &c->vp_names, as ? as : mod, (void *)1);
        else if (mod && strcmp(mod, "math") == 0) /* Python's math (builtins.c) */
          vfe_map_put(c, &c->math_names, as ? as : mod, (void *)1);
        else if (as || mod)
          new_global(c, as ? as : mod, VFE_G_OTHER, s);
      }
      break;
    case VFE_AST_ImportFrom:
      names = vfe_get_list(s, "names", &na);
      for (uint32_t k = 0; k < na; k++) {
        const char *nm = vfe_get_str(names[k], "name");
        const char *as = vfe_get_str(names[k], "asname");
        if (!nm)
          continue;
        if (!is_vulpy(vfe_get_str(s, "module"))) {
          const char *from = vfe_get_str(s, "module");
          if (from && strcmp(from, "math") == 0 && strcmp(nm, "*") != 0) {
            /* from math import sqrt, pi: a function or a literal */
            vfe_val mv = vfe_math_attr(c, names[k], nm);
            vfe_global *g = new_global(c, as ? as : nm, VFE_G_OTHER, s);
            if (mv.kind == VFE_V_BUILTIN) {
              vfe_map_put(c, &c->from_names, as ? as : nm, (void *)mv.bi);
              vfe_map_put(c, &c->globals, as ? as : nm, NULL);
            } else if (mv.kind == VFE_V_FLOAT) {
              g->kind = VFE_G_CONST;
              g->evaluated = true;
              g->value = mv;
            }
            continue;
          }
          if (strcmp(nm, "*") != 0)
            new_global(c, as ? as : nm, VFE_G_OTHER, s);
          continue;
        }
        if (strcmp(nm, "*") == 0)
          continue; /* every built-in is reachable bare anyway */
        const vfe_builtin *bi = vfe_builtin_find(nm);
        if (!bi) {
          c->fn = NULL;
          vfe_err(c, names[k], "vulpy has no name '%s'", nm);
          const char *sug = vfe_builtin_suggest(nm);
          if (sug)
            vfe_hint(c, "did you mean '%s'?", sug);
          continue;
        }
        vfe_map_put(c, &c->from_names, as ? as : nm, (void *)bi);
      }
      break;
    case VFE_AST_ClassDef:
      new_global(c, vfe_get_str(s, "name"), VFE_G_CLASS, s);
      vfe_scan_methods(c, s); /* methods.c */
      break;
    case VFE_AST_AsyncFunctionDef: /* known, so that a use says what it is (names.c) */
      new_global(c, vfe_get_str(s, "name"), VFE_G_OTHER, s);
      break;
    case VFE_AST_FunctionDef: {
      const char *nm = vfe_get_str(s, "name");
      vfe_global *g = new_global(c, nm, VFE_G_FUNC, s);
      vfe_helper *h = vfe_alloc(c, sizeof *h);
      h->name = nm;
      h->def = s;
      const char *file = vfe_get_str(s, "filename");
      h->file = file ? vir_intern_file(c->m, file) : c->file;
      g->helper = h;
      break;
    }
    case VFE_AST_Assign: {
      uint32_t nt;
      vfe_node **targets = vfe_get_list(s, "targets", &nt);
      for (uint32_t k = 0; k < nt; k++) {
        if (vfe_ast_of(targets[k]) == VFE_AST_Name) {
          const char *id = vfe_get_str(targets[k], "id");
          vfe_global *old = id ? vfe_map_get(&c->globals, id) : NULL;
          vfe_global *g = new_global(c, id, nt == 1 ? VFE_G_CONST : VFE_G_OTHER, vfe_get(s, "value"));
          /* D: vp.float64 = 0.1 then D = 0.2: D keeps its declared type */
          if (old && old->kind == VFE_G_CONST && g->kind == VFE_G_CONST)
            g->ann = old->ann;
        }
      }
      break;
    }
    case VFE_AST_AnnAssign: {
      const vfe_node *t = vfe_get(s, "target");
      if (vfe_ast_of(t) == VFE_AST_Name && vfe_get(s, "value")) {
        vfe_global *g = new_global(c, vfe_get_str(t, "id"), VFE_G_CONST, vfe_get(s, "value"));
        g->ann = vfe_get(s, "annotation");
      }
      break;
    }
    default:
      /* Host code beside the kernel (an `if __name__ == ...` block, say)
       * is not the kernel's business; names it binds are not constants. */
      break;
    }
  }
  /* Numbers a decorated function reads from its live module: a literal, a
   * cast (a NumPy scalar, np.float32(0.1), arrives as float32(0.1)) or a
   * tuple, with the "annotation" of its declaration (D: vp.float64 = 0.1),
   * evaluated as a module-level AnnAssign is. */
  const vfe_node *consts = vfe_get(c->doc, "constants");
  if (consts && consts->kind == VFE_J_OBJ)
    for (uint32_t i = 0; i < consts->len; i++) {
      const vfe_node *item = consts->items[i];
      const char *kind = vfe_get_str(item, "kind");
      vfe_ast ast = vfe_ast_of(item);
      bool number = (kind && (strcmp(kind, "int") == 0 || strcmp(kind, "float") == 0 ||
                              strcmp(kind, "bool") == 0)) ||
                    ast == VFE_AST_Tuple || ast == VFE_AST_Call;
      if (!vfe_map_get(&c->globals, consts->keys[i])) {
        vfe_global *g = new_global(c, consts->keys[i], number ? VFE_G_CONST : VFE_G_OTHER, item);
        if (number)
          g->ann = vfe_get(item, "annotation");
      }
    }
}

/* --------------------------------------------------------------- kernel */

const vfe_node *vfe_find_kernel(vfe_ctx *c, const char **name_out) {
  const char *want = c->opts->kernel ? c->opts->kernel : vfe_get_str(c->doc, "kernel");
  uint32_t n;
  vfe_node **body = vfe_get_list(c->module, "body", &n);
  const vfe_node *decorated = NULL;
  uint32_t ndecorated = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (vfe_ast_of(body[i]) != VFE_AST_FunctionDef)
      continue;
    const char *nm = vfe_get_str(body[i], "name");
    if (want && nm && strcmp(nm, want) == 0) {
      *name_out = nm;
      return body[i];
    }
    uint32_t nd;
    vfe_node **decos = vfe_get_list(body[i], "decorator_list", &nd);
    for (uint32_t k = 0; k < nd; k++) {
      const vfe_node *d = vfe_ast_of(decos[k]) == VFE_AST_Call ? vfe_get(decos[k], "func") : decos[k];
      const char *attr = vfe_get_str(d, "attr"), *id = vfe_get_str(d, "id");
      if ((attr && strcmp(attr, "kernel") == 0) || (id && strcmp(id, "kernel") == 0)) {
        decorated = body[i];
        ndecorated++;
      }
    }
  }
  if (!want) {
    for (uint32_t i = 0; i < n; i++) {
      const char *nm = vfe_get_str(body[i], "name");
      if (vfe_ast_of(body[i]) == VFE_AST_FunctionDef && nm && strcmp(nm, "main") == 0) {
        *name_out = nm;
        return body[i];
      }
    }
    if (ndecorated == 1) {
      *name_out = vfe_get_str(decorated, "name");
      return decorated;
    }
  }
  vp_loc loc = {c->file, 0, 0};
  if (want) {
    vp_error(c->diags, loc, "no function named '%s' to use as the kernel", want);
  } else {
    vp_error(c->diags, loc, "no kernel: the file defines no `def main(...)`%s",
             ndecorated > 1 ? " and more than one @vp.kernel function" : "");
    vp_diag_hint(c->diags, "a .vul.py file's kernel is `def main(...)`; or pass --kernel=NAME");
  }
  return NULL;
}

/* local_size_x/y/z: the decorator's keywords, then the document's options,
 * then the caller's override. */
static void local_size(vfe_ctx *c, const vfe_node *def, uint32_t ls[3]) {
  static const char *const keys[3] = {"local_size_x", "local_size_y", "local_size_z"};
  ls[0] = 64, ls[1] = 1, ls[2] = 1;
  uint32_t nd;
  vfe_node **decos = vfe_get_list(def, "decorator_list", &nd);
  for (uint32_t d = 0; d < nd; d++) {
    uint32_t nk;
    vfe_node **kws = vfe_get_list(decos[d], "keywords", &nk);
    for (uint32_t k = 0; k < nk; k++) {
      const char *arg = vfe_get_str(kws[k], "arg");
      const vfe_node *v = vfe_get(kws[k], "value");
      for (int a = 0; a < 3; a++) {
        if (!arg || strcmp(arg, keys[a]) != 0)
          continue;
        const vfe_node *val = vfe_get(v, "value");
        int64_t n = -1;
        if (vfe_ast_of(v) == VFE_AST_Constant && val && val->kind == VFE_J_INT && !val->big)
          n = val->i;
        else if (!vfe_module_int(c, v, &n)) /* TILE = 64; @vp.kernel(local_size_x=TILE) */
          continue;
        if (n < 1 || n > 65535) {
          vfe_err(c, v, "%s must be an integer constant from 1 to 65535", keys[a]);
          continue;
        }
        ls[a] = (uint32_t)n;
      }
    }
  }
  const vfe_node *opts = vfe_get(c->doc, "options");
  for (int a = 0; a < 3; a++) {
    const vfe_node *v = vfe_get(opts, keys[a]);
    if (!v)
      continue;
    if (v->kind != VFE_J_INT || v->big || v->i < 1 || v->i > 65535) {
      vp_loc loc = {c->file, 0, 0};
      vp_error(c->diags, loc, "option %s must be an integer from 1 to 65535", keys[a]);
      continue;
    }
    ls[a] = (uint32_t)v->i;
  }
  for (int a = 0; a < 3; a++)
    if (c->opts->local_size[a])
      ls[a] = c->opts->local_size[a];
}

uint32_t vfe_push_field(vfe_ctx *c, const vfe_node *at, const char *name, vir_type *t) {
  if (!c->push_st)
    c->push_st = vir_struct_create(c->m, "PushConstants", vfe_loc(c, at));
  if (vir_struct_find(c->push_st, name) >= 0) {
    vfe_err(c, at, "push constant '%s' is declared twice", name);
    vfe_hint(c, "PushConstants fields and scalar kernel parameters share one namespace");
    return UINT32_MAX;
  }
  if (vir_ty_is_bool(t)) {
    vfe_err(c, at, "push constant '%s' is a bool, which has no host layout", name);
    vfe_hint(c, "use vp.uint32 (0 or 1)");
    return UINT32_MAX;
  }
  vir_struct_add_field(c->m, c->push_st, vfe_mstrdup(c, name), t, vfe_loc(c, at));
  return c->push_st->nfields - 1;
}

vfe_array *vfe_add_buffer(vfe_ctx *c, const vfe_node *at, const char *name, vir_type *elem) {
  vfe_array *a = vfe_alloc(c, sizeof *a);
  a->elem = elem;
  a->sym = vir_add_buffer(c->m, vfe_mstrdup(c, name), elem, 0, c->nbindings++,
                          VIR_ACCESS_READWRITE, vfe_loc(c, at));
  if (!a->sym || !vp_ptrvec_push(&c->arena, &c->arrays, a))
    longjmp(c->oom, 1);
  return a;
}

vfe_array *vfe_declare_shared(vfe_ctx *c, const vfe_node *at, const char *name, vir_type *elem,
                              uint32_t d0, uint32_t d1) {
  vfe_array *a = vfe_alloc(c, sizeof *a);
  a->elem = elem;
  a->shared = true;
  a->dims[0] = d0;
  a->dims[1] = d1;
  uint32_t len = d1 ? d0 * d1 : d0;
  a->sym = vir_add_shared(c->m, vfe_mstrdup(c, name), vir_ty_array(c->m, elem, len), vfe_loc(c, at));
  if (!a->sym || !vp_ptrvec_push(&c->arena, &c->arrays, a))
    longjmp(c->oom, 1);
  return a;
}

/* The element type of `vp.Buffer[T]`, or NULL when `ann` is not one. */
static vir_type *buffer_annotation(vfe_ctx *c, const vfe_node *ann, bool *is_buffer, uint32_t *ndim) {
  *is_buffer = false;
  *ndim = 0;
  if (vfe_ast_of(ann) != VFE_AST_Subscript)
    return NULL;
  vfe_val base = vfe_expr(c, vfe_get(ann, "value"));
  if (base.kind != VFE_V_BUILTIN || base.bi->kind != VFE_B_BUFFER)
    return NULL;
  *is_buffer = true;
  vir_type *nd_elem;
  if (vfe_nd_annotation(c, ann, &nd_elem, ndim)) /* vp.Buffer[T, N] (ndbuf.c) */
    return nd_elem;
  vir_type *t = vfe_type_of_annotation(c, vfe_get(ann, "slice"));
  if (t && vir_ty_is_bool(t)) {
    vfe_err(c, ann, "a buffer of bool has no layout the host agrees on");
    vfe_hint(c, "use vp.Buffer[vp.uint32] with 0 and 1");
    return NULL;
  }
  return t;
}

/* Whether `ann` is vp.Control (or a bare Control imported from vulpy). */
static bool control_annotation(vfe_ctx *c, const vfe_node *ann) {
  vfe_ast k = vfe_ast_of(ann);
  if (k == VFE_AST_Name) { /* bare: `Control`, or an alias from `from vulpy import` */
    const char *id = vfe_get_str(ann, "id");
    const vfe_builtin *bi = id ? vfe_map_get(&c->from_names, id) : NULL;
    return (bi && bi->kind == VFE_B_CONTROL) || (id && strcmp(id, "Control") == 0 && !bi &&
                                                 !vfe_map_get(&c->globals, id));
  }
  const char *attr = vfe_get_str(ann, "attr");
  if (k != VFE_AST_Attribute || !attr || strcmp(attr, "Control") != 0)
    return false;
  vfe_val v = vfe_expr(c, ann);
  return v.kind == VFE_V_BUILTIN && v.bi->kind == VFE_B_CONTROL;
}

/* Appends word `w` to control buffer `name`'s names; false (after an error)
 * when it is not a name or comes twice. */
static bool add_control_word(vfe_ctx *c, const vfe_node *p, const char *name, vfe_array *a,
                             const vfe_node *w) {
  if (!w || w->kind != VFE_J_STR || !w->len || strlen(w->s) != w->len) {
    vfe_err(c, p, "control_words[\"%s\"] must be a list of word names (strings)", name);
    return false;
  }
  for (uint32_t k = 0; k < a->nwords; k++)
    if (strcmp(a->words[k], w->s) == 0) {
      vfe_err(c, p, "control buffer '%s' names word '%s' twice", name, w->s);
      return false;
    }
  a->words[a->nwords++] = w->s;
  return true;
}

/* The decorator's `control_words={"ctrl": ["mode", ...]}` keyword (a .vul.py
 * file's @vp.kernel, which no Python call evaluates): the literal list for
 * `name`, or NULL. */
static const vfe_node *decorator_words(vfe_ctx *c, const vfe_node *def, const char *name,
                                       uint32_t *n) {
  uint32_t nd;
  vfe_node **decos = vfe_get_list(def, "decorator_list", &nd);
  for (uint32_t d = 0; d < nd; d++) {
    uint32_t nk;
    vfe_node **kws = vfe_get_list(decos[d], "keywords", &nk);
    for (uint32_t k = 0; k < nk; k++) {
      const char *arg = vfe_get_str(kws[k], "arg");
      if (!arg || strcmp(arg, "control_words") != 0)
        continue;
      const vfe_node *v = vfe_get(kws[k], "value");
      uint32_t nkeys, nvals;
      vfe_node **keys = vfe_get_list(v, "keys", &nkeys);
      vfe_node **vals = vfe_get_list(v, "values", &nvals);
      if (vfe_ast_of(v) != VFE_AST_Dict || nkeys != nvals) {
        vfe_err(c, v, "control_words must be a dict literal of parameter names to lists of word names");
        return NULL;
      }
      for (uint32_t i = 0; i < nkeys; i++) {
        const vfe_node *key = vfe_get(keys[i], "value");
        if (vfe_ast_of(keys[i]) != VFE_AST_Constant || !key || key->kind != VFE_J_STR ||
            strcmp(key->s, name) != 0)
          continue;
        vfe_ast ak = vfe_ast_of(vals[i]);
        if (ak != VFE_AST_List && ak != VFE_AST_Tuple) {
          vfe_err(c, vals[i], "control_words[\"%s\"] must be a list of word names", name);
          return NULL;
        }
        vfe_get_list(vals[i], "elts", n);
        return vals[i];
      }
    }
  }
  return NULL;
}

/* The words of control buffer `name` from the options' control_words
 * ({"ctrl": ["mode", "hot_count"]}: word 0 is ctrl.mode, ...), else from
 * the decorator's keyword of that name. */
static void control_words(vfe_ctx *c, const vfe_node *def, const vfe_node *p, const char *name,
                          vfe_array *a) {
  const vfe_node *cw = vfe_get(vfe_get(c->doc, "options"), "control_words");
  if (!cw) {
    uint32_t n = 0;
    const vfe_node *list = decorator_words(c, def, name, &n);
    if (!list)
      return;
    vfe_node **elts = vfe_get_list(list, "elts", &n);
    a->words = vfe_alloc(c, (n + 1) * sizeof *a->words);
    for (uint32_t i = 0; i < n; i++)
      if (vfe_ast_of(elts[i]) != VFE_AST_Constant ||
          !add_control_word(c, elts[i], name, a, vfe_get(elts[i], "value")))
        return;
    return;
  }
  vp_loc loc = {c->file, 0, 0};
  if (cw->kind != VFE_J_OBJ) {
    vp_error(c->diags, loc, "option control_words must map parameter names to lists of word names");
    return;
  }
  const vfe_node *list = vfe_get(cw, name);
  if (!list)
    return;
  if (list->kind != VFE_J_LIST) {
    vfe_err(c, p, "control_words[\"%s\"] must be a list of word names", name);
    return;
  }
  a->words = vfe_alloc(c, (list->len + 1) * sizeof *a->words);
  for (uint32_t i = 0; i < list->len; i++)
    if (!add_control_word(c, p, name, a, list->items[i]))
      return;
}

/* Declares the kernel's interface and binds its parameter names. */
static void declare_interface(vfe_ctx *c, const vfe_node *def, vfe_fn *fn) {
  vfe_global *pcg = vfe_map_get(&c->globals, "PushConstants");
  if (pcg && pcg->kind == VFE_G_CLASS) {
    /* The class's struct is the push block's; scalar parameters and the
     * guard's field are appended to it. */
    vir_struct *st = vfe_declare_class(c, pcg, "PushConstants");
    for (uint32_t i = 0; st && i < st->nfields; i++)
      if (vir_ty_is_bool(st->fields[i].type))
        vfe_err(c, pcg->node, "push constant '%s' is a bool, which has no host layout",
                st->fields[i].name);
    c->push_st = st;
  }
  const vfe_node *args = vfe_get(def, "args");
  uint32_t n, extra = 0;
  vfe_node **params = vfe_get_list(args, "args", &n);
  vfe_get_list(args, "posonlyargs", &extra);
  if (extra || vfe_get(args, "vararg") || vfe_get(args, "kwarg"))
    vfe_err(c, def, "a kernel takes plain named parameters (no *args, **kwargs or /)");
  vfe_node **kwonly = vfe_get_list(args, "kwonlyargs", &extra);
  for (uint32_t pass = 0; pass < 2; pass++) {
    vfe_node **list = pass ? kwonly : params;
    uint32_t count = pass ? extra : n;
    for (uint32_t i = 0; i < count; i++) {
      const vfe_node *p = list[i];
      const char *name = vfe_get_str(p, "arg");
      const vfe_node *ann = vfe_get(p, "annotation");
      if (!name)
        continue;
      if (!ann) {
        vfe_err(c, p, "kernel parameter '%s' has no type", name);
        vfe_hint(c, "annotate it: %s: vp.Buffer[vp.float32] (a buffer) or %s: vp.uint32 (a push constant)",
                 name, name);
        continue;
      }
      vfe_var *ms = vfe_alloc(c, sizeof *ms);
      ms->line = p->line;
      if (vfe_memsock_param(c, p, name, ann, ms)) { /* memsock.c */
        vfe_map_put(c, &fn->vars, name, ms);
        continue;
      }
      bool is_buffer = false, is_control = control_annotation(c, ann);
      uint32_t ndim = 0;
      vir_type *elem = is_control ? vir_ty_uint(c->m, 32) : buffer_annotation(c, ann, &is_buffer, &ndim);
      if (!is_control && !is_buffer && vfe_is_generic_buffer(c, ann)) { /* generic.c */
        is_buffer = true;
        elem = vfe_generic_buffer_type(c, p, name);
      }
      is_buffer = is_buffer || is_control;
      vfe_var *v = vfe_alloc(c, sizeof *v);
      v->line = p->line;
      if (is_control) {
        /* a buffer of uint32 words that the host reads and writes while the
         * kernel runs: coherent, so plain accesses see the others' writes */
        v->bind = VFE_BIND_ARRAY;
        v->arr = vfe_add_buffer(c, p, name, elem);
        v->arr->control = true;
        v->arr->sym->buf_flags |= VIR_BUF_COHERENT;
        control_words(c, def, p, name, v->arr);
      } else if (is_buffer) {
        if (!elem) {
          v->bind = VFE_BIND_POISON;
        } else {
          v->bind = VFE_BIND_ARRAY;
          v->arr = vfe_add_buffer(c, p, name, elem);
          if (ndim)
            vfe_nd_declare(c, p, name, v->arr, ndim);
        }
      } else {
        vir_type *t = vfe_is_generic_scalar(c, ann) ? vfe_generic_scalar_type(c, p, name) /* generic.c */
                                                    : vfe_type_of_annotation(c, ann);
        uint32_t f = t ? vfe_push_field(c, p, name, t) : UINT32_MAX;
        v->bind = f == UINT32_MAX ? VFE_BIND_POISON : VFE_BIND_PUSH;
        v->field = f;
        v->type = t;
      }
      vfe_map_put(c, &fn->vars, name, v);
    }
  }
  const vfe_node *ret = vfe_get(def, "returns");
  if (ret && !(vfe_ast_of(ret) == VFE_AST_Constant && !vfe_get(ret, "value")))
    vfe_err(c, ret, "a kernel returns nothing; results go to its buffers");
  if (c->opts->dispatch_guard && !c->persistent) { /* every invocation joins a grid sync */
    vir_type *u32 = vir_ty_uint(c->m, 32);
    c->count_field = vfe_push_field(c, def, "_vp_count", vir_ty_vec(c->m, u32, 3));
  }
  if (c->push_st) {
    vir_struct_layout(c->push_st);
    c->push = vir_add_push(c->m, "pc", c->push_st, vfe_loc(c, pcg ? pcg->node : def));
  }
}

/* if any(global_id >= _vp_count) { return }: dispatch=N runs N invocations
 * even when N is not a multiple of the local size. */
static vir_op *dispatch_guard(vfe_ctx *c, const vfe_node *def) {
  if (!c->push || c->count_field == UINT32_MAX)
    return NULL;
  vfe_set_loc(c, def);
  vir_type *u32 = vir_ty_uint(c->m, 32), *v3 = vir_ty_vec(c->m, u32, 3);
  vir_value *gid = vir_result(vfe_build(c, VIR_OP_GLOBAL_ID, v3, 0, NULL));
  vir_op *ld = vfe_build(c, VIR_OP_PUSH_LOAD, v3, 0, NULL);
  ld->attr.sym = c->push;
  ld->attr.npath = 1;
  ld->attr.path[0] = (uint8_t)c->count_field;
  vir_type *b3 = vir_ty_vec(c->m, vir_ty_bool(c->m), 3);
  vir_value *past = vfe_build2(c, VIR_OP_GE, b3, gid, vir_result(ld));
  vir_value *any = vfe_build1(c, VIR_OP_ANY, vir_ty_bool(c->m), past);
  vir_op *iff = vfe_build(c, VIR_OP_IF, NULL, 1, &any);
  vir_builder save = c->b;
  vir_builder_at_end(&c->b, &iff->regions[0]);
  vfe_build(c, VIR_OP_RETURN, NULL, 0, NULL);
  c->b = save;
  return iff;
}

void vfe_translate_kernel(vfe_ctx *c, const vfe_node *def, const char *name) {
  vfe_fn fn = {.is_kernel = true, .file = c->file};
  c->fn = &fn;
  uint32_t ls[3];
  local_size(c, def, ls);
  vfe_persistent_setup(c, def);
  declare_interface(c, def, &fn);
  fn.f = vir_add_func(c->m, vfe_mstrdup(c, name), true, vir_ty_void(c->m), 0, NULL, NULL,
                      vfe_loc(c, def));
  if (!fn.f)
    longjmp(c->oom, 1);
  memcpy(fn.f->local_size, ls, sizeof ls);
  c->b = (vir_builder){.m = c->m, .f = fn.f, .loc = vfe_loc(c, def)};
  vir_builder_at_end(&c->b, &fn.f->body);
  /* A kernel with a MemSock gets no early return: every invocation must
   * reach each fire (docs/memsock.md); nor does a persistent one */
  vir_op *guard = c->opts->dispatch_guard && !c->persistent && !c->has_memsock
                      ? dispatch_guard(c, def) : NULL;
  uint32_t n;
  vfe_node **body = vfe_get_list(def, "body", &n);
  vfe_count_assigns(c, &fn, body, n);
  vfe_stmts(c, body, n);
  vfe_guard_barriers(c, fn.f, guard); /* no early return before a barrier */
  c->fn = NULL;
}

/* Buffers only read become readonly, only written writeonly (GLSL says so,
 * and drivers may use it). */
void vfe_buffer_access(vfe_ctx *c) {
  for (uint32_t i = 0; i < c->arrays.len; i++) {
    vfe_array *a = c->arrays.data[i];
    if (a->shared)
      continue;
    a->sym->access = !a->writes && a->reads   ? VIR_ACCESS_READONLY
                     : !a->reads && a->writes ? VIR_ACCESS_WRITEONLY
                                              : VIR_ACCESS_READWRITE;
  }
}

