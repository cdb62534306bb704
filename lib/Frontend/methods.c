/* methods.c - methods of struct classes.
 *
 * A `def` inside a struct class is a helper whose first parameter is the
 * struct (`self`): it is registered under "Class.name" (a key no Python
 * name can take) and becomes a VIR func `Class_name`, specialized like any
 * helper. `obj.name(args)` passes obj as self; `Class.name(obj, args)`
 * works too. A method that assigns to self (`self.pos += self.vel * dt`)
 * changes the caller's object, as in Python: its func returns the new
 * self, which the call stores back into the place it came from (a buffer
 * element, a shared element, a local), so `p[i].step(dt)` updates p[i].
 */
#include <string.h>

#include "fe.h"

void vfe_scan_methods(vfe_ctx *c, const vfe_node *cls) {
  const char *cname = vfe_get_str(cls, "name");
  uint32_t n;
  vfe_node **body = vfe_get_list(cls, "body", &n);
  if (!cname)
    return;
  const char *file = vfe_get_str(cls, "filename");
  for (uint32_t i = 0; i < n; i++) {
    const vfe_node *def = body[i];
    const char *mname = vfe_get_str(def, "name");
    if (vfe_ast_of(def) != VFE_AST_FunctionDef || !mname)
      continue;
    vfe_helper *h = vfe_alloc(c, sizeof *h);
    h->name = vp_arena_printf(&c->arena, "%s_%s", cname, mname);
    h->def = def;
    h->file = file ? vir_intern_file(c->m, file) : c->file;
    h->method = true;
    vfe_global *g = vfe_alloc(c, sizeof *g);
    g->kind = VFE_G_FUNC;
    g->node = def;
    g->helper = h;
    vfe_map_put(c, &c->globals, vp_arena_printf(&c->arena, "%s.%s", cname, mname), g);
  }
}

static vfe_helper *find_method(vfe_ctx *c, const char *cls, const char *name) {
  vfe_global *g = vfe_map_get(&c->globals, vp_arena_printf(&c->arena, "%s.%s", cls, name));
  return g && g->kind == VFE_G_FUNC ? g->helper : NULL;
}

bool vfe_method_call(vfe_ctx *c, const vfe_node *call, vfe_val base, const char *name, vfe_val *out) {
  if (base.kind == VFE_V_CLASS) { /* Class.name(obj, ...): self given explicitly */
    vfe_helper *h = find_method(c, base.st->name, name);
    if (!h)
      return false;
    *out = vfe_tuple_result(c, call, vfe_call_helper(c, call, h));
    return true;
  }
  const vir_type *t = base.kind == VFE_V_PLACE && !base.place.dims_left ? base.place.type
                      : base.kind == VFE_V_VAL                        ? base.type
                                                                      : NULL;
  if (!t || t->kind != VIR_TY_STRUCT)
    return false;
  vfe_helper *h = find_method(c, t->st->name, name);
  if (!h)
    return false;
  /* self is the object's value, read before the arguments are */
  vir_value *sv = vfe_use(c, call, base);
  if (!sv) {
    *out = (vfe_val){0};
    return true;
  }
  vfe_val self = vfe_value_of(sv);
  bool self_out = false;
  vfe_val r = vfe_call_helper_self(c, call, h, &self, &self_out);
  if (r.kind == VFE_V_VAL && self_out) {
    /* the new self goes back where the object came from; a temporary
     * (a call's result, say) is dropped, as Python drops it */
    if (base.kind == VFE_V_PLACE && base.place.root != VFE_R_PUSH) {
      vfe_set_loc(c, call);
      vfe_store(c, &base.place, r.v);
    }
    *out = (vfe_val){.kind = VFE_V_NONE};
    return true;
  }
  *out = vfe_tuple_result(c, call, r);
  return true;
}
