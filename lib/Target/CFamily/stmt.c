/* stmt.c - functions: which values get names, where locals are declared,
 * and the statements themselves.
 *
 * Inlining. A value used once is printed inside its user when that cannot
 * change what the program does: its user is in the same region (never into
 * a loop, never into a branch), and nothing between its definition and the
 * statement that finally prints it could change what it reads - no store to
 * the local it loads, no buffer or shared store, atomic, barrier or call
 * after a buffer/shared load, no control flow after a subgroup op. Ops with
 * side effects (atomics, calls), volatile loads and `insert` are always
 * statements. Constants, push constants, buffer lengths and invocation ids
 * are printed where used, however often (they are names, not work); so are
 * components/swizzles of them. A value with a Python name hint is a Python
 * variable assigned once: it is never inlined and keeps its name. Every
 * other value that is not inlined is named tN.
 *
 * Locals keep their Python names. A local is declared at its first store
 * when that store comes, in the innermost region holding every access,
 * before any other access; otherwise it is declared (without a value) just
 * before the first access, outside any loop that the region is in.
 */
#include <stdio.h>
#include <string.h>

#include "cfamily.h"


static bool gpu_c(const cf_printer *p) { return p->dialect != CF_GLSL; }

void cf_line(cf_printer *p) { vp_strbuf_indent(&p->body, p->indent); }

/* ------------------------------------------------------------ walking */

typedef void (*op_fn)(cf_printer *p, const vir_op *op, void *ctx);

static void walk(cf_printer *p, const vir_region *r, op_fn fn, void *ctx) {
  for (const vir_op *op = r->first; op; op = op->next) {
    fn(p, op, ctx);
    uint32_t nr = vir_op_info_of(op->code)->nregion;
    for (uint32_t i = 0; i < nr; i++)
      walk(p, &op->regions[i], fn, ctx);
  }
}

static void count_use(cf_printer *p, const vir_op *op, void *ctx) {
  cf_func *fn = ctx;
  for (uint32_t i = 0; i < op->nopnd; i++) {
    const vir_value *v = op->opnd[i];
    if (v->id < fn->nvals) {
      fn->nuses[v->id]++;
      fn->user[v->id] = op;
    }
  }
}

/* ----------------------------------------------------- classification */

static bool is_id_op(vir_opcode c) { return c >= VIR_OP_GLOBAL_ID && c <= VIR_OP_NUM_SUBGROUPS; }

static bool is_atomic(vir_opcode c) { return c >= VIR_OP_ATOMIC_ADD && c <= VIR_OP_ATOMIC_STORE; }

/* Printed wherever used, however often. */
static bool trivial(const vir_op *op) {
  switch (op->code) {
  case VIR_OP_CONST:
  case VIR_OP_GCONST:
  case VIR_OP_PUSH_LOAD:
  case VIR_OP_BUFFER_LEN: return true;
  case VIR_OP_EXTRACT:
  case VIR_OP_SWIZZLE: {
    /* v.x, v.xyz of something that prints as a name */
    const vir_value *o = op->opnd[0];
    const vir_op *d = o->def;
    return !d || (o->name && *o->name) || trivial(d) || is_id_op(d->code);
  }
  case VIR_OP_CONSTRUCT: {
    /* vec3(s): a splat of a name */
    if (op->nopnd != 1 || op->val.type->kind != VIR_TY_VEC)
      return false;
    const vir_value *o = op->opnd[0];
    return !o->def || (o->name && *o->name) || trivial(o->def);
  }
  default: return is_id_op(op->code);
  }
}

/* Has an effect beyond its result (kept even when the result is unused).
 * An atomic load with acquire semantics orders what follows it: dropping
 * an unused one drops that ordering (lower-persistent-cg-offpath acquires
 * with one). */
static bool has_effect(const vir_op *op) {
  uint32_t fl = vir_op_info_of(op->code)->flags;
  return (fl & (VIR_F_WRITEMEM | VIR_F_CONTROL | VIR_F_TERM)) || op->code == VIR_OP_BARRIER ||
         vir_op_info_of(op->code)->nregion > 0 ||
         (is_atomic(op->code) && op->attr.sem != VIR_SEM_RELAXED);
}

/* A call of a function that writes no memory (it may read buffers). */
static bool pure_call(const cf_printer *p, const vir_op *op) {
  if (op->code != VIR_OP_CALL)
    return false;
  int i = cf_sym_index((cf_printer *)p, op->attr.sym);
  return i >= 0 && p->func_pure && p->func_pure[i];
}

static bool never_inline(const cf_printer *p, const vir_op *op) {
  uint32_t fl = vir_op_info_of(op->code)->flags;
  if (pure_call(p, op))
    return false;
  return op->code == VIR_OP_INSERT || op->code == VIR_OP_CALL || is_atomic(op->code) ||
         (fl & VIR_F_WRITEMEM) || (op->flags & VIR_OPF_VOLATILE) ||
         vir_op_info_of(op->code)->nregion > 0;
}

/* Does op (or anything inside it) write what `x` reads? A pure call reads
 * like a buffer load and writes nothing. */
static bool clobbers(const cf_printer *p, const vir_op *x, const vir_op *op) {
  uint32_t xf = vir_op_info_of(x->code)->flags;
  if (pure_call(p, op))
    return false;
  bool conv = xf & VIR_F_CONV;
  uint32_t nr = vir_op_info_of(op->code)->nregion;
  if (conv && (nr || (vir_op_info_of(op->code)->flags & (VIR_F_CONTROL | VIR_F_CONV))))
    return true;
  if (x->code == VIR_OP_LOCAL_LOAD || x->code == VIR_OP_LOCAL_LOAD_AT) {
    if ((op->code == VIR_OP_LOCAL_STORE || op->code == VIR_OP_LOCAL_STORE_AT) && op->attr.sym == x->attr.sym)
      return true;
  } else if (xf & VIR_F_READMEM) {
    if (op->code == VIR_OP_BUFFER_STORE || op->code == VIR_OP_SHARED_STORE || is_atomic(op->code) ||
        op->code == VIR_OP_CALL || op->code == VIR_OP_BARRIER || op->code == VIR_OP_SG_BARRIER ||
        op->code == VIR_OP_MEMORY_BARRIER)
      return true;
  }
  for (uint32_t i = 0; i < nr; i++)
    for (const vir_op *in = op->regions[i].first; in; in = in->next)
      if (clobbers(p, x, in))
        return true;
  return false;
}

static uint32_t count_uses_in(const vir_op *op, const vir_value *v) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < op->nopnd; i++)
    n += op->opnd[i] == v;
  return n;
}

/* The statement that prints op when op is inlined (its user chain in r). */
static const vir_op *anchor_of(const cf_func *fn, const vir_region *r, const vir_op *u) {
  while (vir_result((vir_op *)u) && fn->inl[u->val.id] && fn->user[u->val.id] &&
         fn->user[u->val.id]->parent == r)
    u = fn->user[u->val.id];
  return u;
}

/* A local.load used several times may be printed at each use when every
 * use is in its region and no store to the local comes before the last
 * statement that prints one of them. */
static bool reload_local(const cf_printer *p, const cf_func *fn, const vir_region *r, const vir_op *op) {
  uint32_t found = 0, nanchors = 0;
  const vir_op *anchors[64];
  for (const vir_op *b = op->next; b; b = b->next) {
    uint32_t k = count_uses_in(b, &op->val);
    if (!k)
      continue;
    if (b->code == VIR_OP_FOR || nanchors == 64)
      return false;
    found += k;
    anchors[nanchors++] = anchor_of(fn, r, b);
  }
  if (found != fn->nuses[op->val.id])
    return false;
  /* walk forward until every anchor is reached; nothing on the way may
   * store to the local */
  uint32_t reached = 0;
  for (const vir_op *b = op->next; b && reached < nanchors; b = b->next) {
    for (uint32_t i = 0; i < nanchors; i++)
      reached += anchors[i] == b;
    if (reached < nanchors && clobbers(p, op, b))
      return false;
  }
  return reached == nanchors;
}

/* What goes inside `c ? a : b`. GLSL's ?: evaluates one side only, so
 * glslang turns a side that is more than a plain value into an if/else and
 * a phi; a SIMT GPU (and lavapipe) then runs divergent lanes through both
 * sides one after the other, masked, plus the branch. VIR's select has both
 * values computed anyway: a side that calls something (a math helper, a
 * Python-semantics helper, a function) anywhere in what would be inlined is
 * printed as a named value before the statement instead, and the select
 * of two names becomes OpSelect. A side that reads memory stays inline, so
 * that ?: keeps the read under its condition (`i < n ? x[i] : 0.0` may guard
 * an index that is out of bounds otherwise). Returns 1 (hoist), 0 (cheap:
 * inline) or -1 (reads memory: inline). */
static int select_side(const cf_func *fn, const vir_region *r, const vir_op *op, int depth) {
  uint32_t fl = vir_op_info_of(op->code)->flags;
  if ((fl & VIR_F_READMEM) && op->code != VIR_OP_LOCAL_LOAD)
    return -1;
  int cost = op->code == VIR_OP_CALL || cf_is_math_op(op->code) || op->code == VIR_OP_FLOORDIV ||
             op->code == VIR_OP_MOD || op->code == VIR_OP_REM;
  if (depth > 16)
    return cost;
  for (uint32_t i = 0; i < op->nopnd; i++) {
    const vir_value *v = op->opnd[i];
    const vir_op *d = v->def;
    /* only what would be printed inside this expression */
    if (!d || d->parent != r || v->id >= fn->nvals || fn->nuses[v->id] != 1 || (v->name && *v->name))
      continue;
    int c = select_side(fn, r, d, depth + 1);
    if (c < 0)
      return -1;
    cost |= c;
  }
  return cost;
}

/* Decides inlining for the ops of one region, last to first, so that a
 * user's own decision is known when its operands are decided. */
static void decide_region(cf_printer *p, cf_func *fn, const vir_region *r) {
  for (const vir_op *op = r->last; op; op = op->prev) {
    uint32_t nr = vir_op_info_of(op->code)->nregion;
    for (uint32_t i = 0; i < nr; i++)
      decide_region(p, fn, &op->regions[i]);
    const vir_value *v = vir_result((vir_op *)op);
    if (!v || v->id >= fn->nvals)
      continue;
    /* a value with a Python name is a variable the user wrote: it keeps
     * its name (`uint i = gl_GlobalInvocationID.x;`) */
    bool python_name = v->name && *v->name && fn->nuses[v->id] > 0;
    if (trivial(op)) {
      if (!python_name)
        fn->inl[v->id] = 1;
      continue;
    }
    if (!python_name && op->code == VIR_OP_LOCAL_LOAD && fn->nuses[v->id] > 1) {
      /* reading a local again is as cheap as naming the value: `k * k` */
      if (reload_local(p, fn, r, op))
        fn->inl[v->id] = 1;
      continue;
    }
    if (python_name || fn->nuses[v->id] != 1 || never_inline(p, op))
      continue;
    const vir_op *u = fn->user[v->id];
    if (!u || u->parent != op->parent)
      continue;
    /* `for`'s bound and step are evaluated every iteration */
    if (u->code == VIR_OP_FOR && u->opnd[0] != v)
      continue;
    /* an expensive side of a scalar select gets a name (select_side) */
    if (u->code == VIR_OP_SELECT && u->opnd[0] != v && u->opnd[0]->type->kind != VIR_TY_VEC &&
        select_side(fn, r, op, 0) > 0)
      continue;
    /* the statement that will print it */
    const vir_op *anchor = anchor_of(fn, r, u);
    bool ok = true;
    for (const vir_op *b = op->next; b && b != anchor && ok; b = b->next)
      if (clobbers(p, op, b))
        ok = false;
    if (ok)
      fn->inl[v->id] = 1;
  }
}

/* ------------------------------------------------------------- locals */

typedef struct local_scan {
  const vir_sym *sym;
  const vir_region *lca;
  const vir_op *first;
  uint32_t count;
} local_scan;

static uint32_t depth_of(const vir_region *r) {
  uint32_t d = 0;
  while (r->parent_op) {
    r = r->parent_op->parent;
    d++;
  }
  return d;
}

static const vir_region *lca(const vir_region *a, const vir_region *b) {
  uint32_t da = depth_of(a), db = depth_of(b);
  while (da > db) {
    a = a->parent_op->parent;
    da--;
  }
  while (db > da) {
    b = b->parent_op->parent;
    db--;
  }
  while (a != b) {
    a = a->parent_op->parent;
    b = b->parent_op->parent;
  }
  return a;
}

static void scan_local(cf_printer *p, const vir_op *op, void *ctx) {
  local_scan *s = ctx;
  if ((op->code == VIR_OP_LOCAL_LOAD || op->code == VIR_OP_LOCAL_STORE || op->code == VIR_OP_LOCAL_LOAD_AT ||
       op->code == VIR_OP_LOCAL_STORE_AT) && op->attr.sym == s->sym) {
    s->lca = s->count ? lca(s->lca, op->parent) : op->parent;
    if (!s->count)
      s->first = op;
    s->count++;
  }
}

static bool is_loop(const vir_op *op) {
  return op->code == VIR_OP_LOOP || op->code == VIR_OP_FOR || op->code == VIR_OP_WHILE;
}

static void place_locals(cf_printer *p, cf_func *fn) {
  const vir_func *f = fn->f;
  for (uint32_t i = 0; i < f->locals.len; i++) {
    local_scan s = {f->locals.data[i], NULL, NULL, 0};
    walk(p, &f->body, scan_local, &s);
    if (!s.count)
      continue; /* never used: not declared */
    const vir_region *r = s.lca;
    /* the op of r holding the first access */
    const vir_op *at = s.first;
    while (at->parent != r)
      at = at->parent->parent_op;
    if (at->code == VIR_OP_LOCAL_STORE && at->attr.sym == s.sym && at->attr.npath == 0) {
      fn->local_decl_at[i] = at;
      fn->local_decl_store[i] = 1;
      continue;
    }
    /* declared without a value: outside every loop around r, so that the
     * value lives from one iteration to the next */
    while (r->parent_op) {
      const vir_op *po = r->parent_op;
      bool inside_loop = false;
      for (const vir_op *q = po; q; q = q->parent->parent_op)
        if (is_loop(q))
          inside_loop = true;
      if (!inside_loop)
        break;
      at = po;
      r = po->parent;
    }
    fn->local_decl_at[i] = at;
  }
}

static int local_index(const cf_func *fn, const vir_sym *s) {
  for (uint32_t i = 0; i < fn->f->locals.len; i++)
    if (fn->f->locals.data[i] == s)
      return (int)i;
  return -1;
}

/* ------------------------------------------------------------ setup */

static bool prepare(cf_printer *p, cf_func *fn, const vir_func *f) {
  memset(fn, 0, sizeof *fn);
  fn->f = f;
  fn->nvals = f->next_id;
  uint32_t n = fn->nvals ? fn->nvals : 1, nl = f->locals.len ? f->locals.len : 1;
  fn->nuses = vp_arena_alloc(&p->arena, n * sizeof *fn->nuses);
  fn->user = vp_arena_alloc(&p->arena, n * sizeof *fn->user);
  fn->name = vp_arena_alloc(&p->arena, n * sizeof *fn->name);
  fn->inl = vp_arena_alloc(&p->arena, n);
  fn->local_name = vp_arena_alloc(&p->arena, nl * sizeof *fn->local_name);
  fn->local_declared = vp_arena_alloc(&p->arena, nl);
  fn->local_decl_at = vp_arena_alloc(&p->arena, nl * sizeof *fn->local_decl_at);
  fn->local_decl_store = vp_arena_alloc(&p->arena, nl);
  if (!fn->nuses || !fn->user || !fn->name || !fn->inl || !fn->local_name || !fn->local_declared ||
      !fn->local_decl_at || !fn->local_decl_store) {
    p->failed = true;
    return false;
  }
  cf_names_copy(p, &fn->names, &p->globals);
  walk(p, &f->body, count_use, fn);
  decide_region(p, fn, &f->body);
  /* parameters, then locals, then named values: Python names first */
  for (uint32_t i = 0; i < f->body.nargs; i++) {
    const vir_value *a = f->body.args[i];
    if (a->id < fn->nvals)
      fn->name[a->id] = cf_unique_name(p, &fn->names, a->name ? a->name : "arg");
  }
  for (uint32_t i = 0; i < f->locals.len; i++) {
    const vir_sym *s = f->locals.data[i];
    fn->local_name[i] = cf_unique_name(p, &fn->names, s->name);
  }
  place_locals(p, fn);
  return true;
}

/* The name of a value that is printed as a statement (assigned lazily, in
 * program order, so that t1, t2, ... read top to bottom). */
static const char *value_name(cf_printer *p, const vir_value *v) {
  cf_func *fn = p->fn;
  if (!fn->name[v->id]) {
    if (v->name && *v->name)
      fn->name[v->id] = cf_unique_name(p, &fn->names, v->name);
    else {
      char buf[24];
      do
        snprintf(buf, sizeof buf, "t%u", ++fn->ntemp);
      while (cf_names_has(&fn->names, buf));
      fn->name[v->id] = cf_unique_name(p, &fn->names, buf);
    }
  }
  return fn->name[v->id];
}

/* ------------------------------------------------------------ printing */

static void print_region(cf_printer *p, const vir_region *r);

/* Prints nothing for this op (inlined, or pure and unused). */
static bool silent(const cf_printer *p, const vir_op *op) {
  const vir_value *v = vir_result((vir_op *)op);
  if (op->code == VIR_OP_CONDITION)
    return true;
  if (v && v->id < p->fn->nvals && p->fn->inl[v->id])
    return true;
  if (v && v->id < p->fn->nvals && p->fn->nuses[v->id] == 0 && !has_effect(op))
    return true;
  return false;
}

static void source_comment(cf_printer *p, const vir_op *op) {
  cf_func *fn = p->fn;
  /* positions in a .vir file (ops written without loc(...)) are not the
   * Python source's */
  if (!op->loc.line || !op->loc.file || op->loc.file == p->m->text_file)
    return;
  if (op->loc.line == fn->last_line && fn->last_file && strcmp(fn->last_file, op->loc.file) == 0)
    return;
  fn->last_line = op->loc.line;
  fn->last_file = op->loc.file;
  cf_line(p);
  vp_strbuf_append(&p->body, "// ");
  cf_put_file_name(&p->body, op->loc.file);
  vp_strbuf_printf(&p->body, ":%u\n", op->loc.line);
}

static void open_block(cf_printer *p) {
  vp_strbuf_append(&p->body, " {\n");
  p->indent++;
}

static void close_block(cf_printer *p) {
  p->indent--;
  cf_line(p);
  vp_strbuf_putc(&p->body, '}');
}

static void block(cf_printer *p, const vir_region *r) {
  open_block(p);
  print_region(p, r);
  close_block(p);
}

static bool is_const_int(const vir_value *v, int64_t *out) {
  if (!v->def || v->def->code != VIR_OP_CONST)
    return false;
  const vir_type *t = v->type;
  if (t->kind == VIR_TY_INT)
    *out = v->def->attr.lit.i;
  else if (t->kind == VIR_TY_UINT)
    *out = (int64_t)v->def->attr.lit.u;
  else
    return false;
  return true;
}

/* A for loop with a constant step: `i++`, `i--`, `i += 3`, `i -= 2`. */
static void print_for(cf_printer *p, const vir_op *op) {
  vp_strbuf *b = &p->body;
  const vir_region *body = &op->regions[0];
  const vir_value *iv = body->nargs ? body->args[0] : NULL;
  const char *name = iv ? value_name(p, iv) : "i";
  int64_t step = 1;
  bool known = is_const_int(op->opnd[2], &step); /* print_op checked */
  vp_strbuf_append(b, "for (");
  cf_decl(p, b, iv ? iv->type : op->opnd[0]->type, name, false);
  vp_strbuf_append(b, " = ");
  cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
  vp_strbuf_printf(b, "; %s ", name);
  vp_strbuf_append(b, step > 0 ? "< " : "> ");
  cf_expr(p, b, op->opnd[1], CF_PREC_REL + 1);
  vp_strbuf_append(b, "; ");
  if (known && step == 1)
    vp_strbuf_printf(b, "%s++", name);
  else if (known && step == -1)
    vp_strbuf_printf(b, "%s--", name);
  else if (known && step < 0 && step != INT64_MIN)
    vp_strbuf_printf(b, "%s -= %lld", name, (long long)-step);
  else {
    vp_strbuf_printf(b, "%s += ", name);
    cf_expr(p, b, op->opnd[2], CF_PREC_LOWEST);
  }
  vp_strbuf_putc(b, ')');
  block(p, body);
}

/* A general-step for loop: the direction is chosen at run time. */
static void print_for_general(cf_printer *p, const vir_op *op) {
  vp_strbuf *b = &p->body;
  const vir_region *body = &op->regions[0];
  const vir_value *iv = body->nargs ? body->args[0] : NULL;
  const char *name = iv ? value_name(p, iv) : "i";
  vp_strbuf_append(b, "for (");
  cf_decl(p, b, iv ? iv->type : op->opnd[0]->type, name, false);
  vp_strbuf_append(b, " = ");
  cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
  vp_strbuf_append(b, "; ");
  cf_expr(p, b, op->opnd[2], CF_PREC_REL + 1);
  vp_strbuf_printf(b, " > 0 ? %s < ", name);
  cf_expr(p, b, op->opnd[1], CF_PREC_REL + 1);
  vp_strbuf_printf(b, " : %s > ", name);
  cf_expr(p, b, op->opnd[1], CF_PREC_REL + 1);
  vp_strbuf_printf(b, "; %s += ", name);
  cf_expr(p, b, op->opnd[2], CF_PREC_LOWEST);
  vp_strbuf_putc(b, ')');
  block(p, body);
}

/* A while whose condition region prints as one expression. */
static bool pure_condition(const cf_printer *p, const vir_region *cond) {
  for (const vir_op *op = cond->first; op; op = op->next)
    if (op->code != VIR_OP_CONDITION && !silent(p, op))
      return false;
  return cond->last && cond->last->code == VIR_OP_CONDITION;
}

static void print_while(cf_printer *p, const vir_op *op) {
  vp_strbuf *b = &p->body;
  const vir_region *cond = &op->regions[0], *body = &op->regions[1];
  if (pure_condition(p, cond)) {
    vp_strbuf_append(b, "while (");
    cf_expr(p, b, cond->last->opnd[0], CF_PREC_LOWEST);
    vp_strbuf_putc(b, ')');
    block(p, body);
    return;
  }
  vp_strbuf_append(b, "while (true)");
  open_block(p);
  print_region(p, cond);
  if (cond->last && cond->last->code == VIR_OP_CONDITION) {
    cf_line(p);
    vp_strbuf_append(b, "if (!");
    cf_expr(p, b, cond->last->opnd[0], CF_PREC_UNARY);
    vp_strbuf_append(b, ") break;\n");
  }
  print_region(p, body);
  close_block(p);
}

/* The one op an else region prints, when it prints exactly one. */
static const vir_op *single_statement(const cf_printer *p, const vir_region *r) {
  const vir_op *only = NULL;
  for (const vir_op *op = r->first; op; op = op->next) {
    for (uint32_t i = 0; silent(p, op) && i < p->fn->f->locals.len; i++)
      if (p->fn->local_decl_at[i] == op && !p->fn->local_decl_store[i])
        return NULL; /* a declaration printed before it: two statements */
    if (silent(p, op))
      continue;
    if (only)
      return NULL;
    only = op;
  }
  for (uint32_t i = 0; only && i < p->fn->f->locals.len; i++)
    if (p->fn->local_decl_at[i] == only && !p->fn->local_decl_store[i])
      return NULL;
  return only;
}

static bool region_empty(const cf_printer *p, const vir_region *r) {
  for (const vir_op *op = r->first; op; op = op->next)
    if (!silent(p, op))
      return false;
  return true;
}

static void print_if(cf_printer *p, const vir_op *op) {
  vp_strbuf *b = &p->body;
  vp_strbuf_append(b, "if (");
  cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
  vp_strbuf_putc(b, ')');
  block(p, &op->regions[0]);
  const vir_region *els = &op->regions[1];
  if (region_empty(p, els))
    return;
  const vir_op *only = single_statement(p, els);
  vp_strbuf_append(b, " else ");
  if (only && only->code == VIR_OP_IF) {
    print_if(p, only);
    return;
  }
  vp_strbuf_append(b, "{\n");
  p->indent++;
  print_region(p, els);
  close_block(p);
}

static void memory_barrier(cf_printer *p, const vir_op *op) {
  vp_strbuf *b = &p->body;
  vir_scope sc = op->attr.scope;
  uint8_t st = op->attr.storage ? op->attr.storage : (VIR_STORAGE_BUFFER | VIR_STORAGE_SHARED);
  if (gpu_c(p)) {
    vp_strbuf_append(b, sc <= VIR_SCOPE_WORKGROUP ? "__threadfence_block();"
                        : sc == VIR_SCOPE_DEVICE  ? "__threadfence();"
                                                  : "__threadfence_system();");
    return;
  }
  /* A queue-family fence with explicit semantics (MemSock's ring, which the
   * host reads while the kernel runs) keeps its scope under the Vulkan
   * memory model: the classic barriers below are device scope. */
  if (sc == VIR_SCOPE_QUEUE_FAMILY && (p->ext & CF_EXT_VMM) && st == VIR_STORAGE_BUFFER &&
      op->attr.sem != VIR_SEM_RELAXED) {
    vp_strbuf_printf(b, "memoryBarrier(gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, %s);",
                     op->attr.sem == VIR_SEM_ACQUIRE   ? "gl_SemanticsAcquire"
                     : op->attr.sem == VIR_SEM_RELEASE ? "gl_SemanticsRelease"
                                                       : "gl_SemanticsAcquireRelease");
    return;
  }
  /* with non-private buffers, an ordered buffer fence at device scope
   * also makes this invocation's writes available (release) and the
   * others' visible (acquire): the Vulkan memory model's way to order
   * accesses that are not coherent */
  if (p->avvis && sc >= VIR_SCOPE_DEVICE && (st & VIR_STORAGE_BUFFER) &&
      op->attr.sem != VIR_SEM_RELAXED) {
    vir_semantics se = op->attr.sem;
    bool rel = se != VIR_SEM_ACQUIRE, acq = se != VIR_SEM_RELEASE;
    vp_strbuf_printf(b, "memoryBarrier(%s, gl_StorageSemanticsBuffer%s, %s%s%s);",
                     sc == VIR_SCOPE_QUEUE_FAMILY ? "gl_ScopeQueueFamily" : "gl_ScopeDevice",
                     (st & VIR_STORAGE_SHARED) ? " | gl_StorageSemanticsShared" : "",
                     rel && acq ? "gl_SemanticsAcquireRelease"
                     : rel      ? "gl_SemanticsRelease"
                                : "gl_SemanticsAcquire",
                     rel ? " | gl_SemanticsMakeAvailable" : "", acq ? " | gl_SemanticsMakeVisible" : "");
    return;
  }
  /* GLSL's classic barriers say the common cases in words */
  if (sc == VIR_SCOPE_WORKGROUP && st == VIR_STORAGE_SHARED)
    vp_strbuf_append(b, "memoryBarrierShared();");
  else if (sc >= VIR_SCOPE_DEVICE && st == VIR_STORAGE_BUFFER)
    vp_strbuf_append(b, "memoryBarrierBuffer();");
  else if (sc >= VIR_SCOPE_DEVICE)
    vp_strbuf_append(b, "memoryBarrier();");
  else if (sc == VIR_SCOPE_WORKGROUP)
    vp_strbuf_append(b, "groupMemoryBarrier();");
  else {
    p->ext |= CF_EXT_SG_BASIC;
    vp_strbuf_append(b, "subgroupMemoryBarrier();");
  }
}

static void print_op(cf_printer *p, const vir_op *op) {
  vp_strbuf *b = &p->body;
  cf_func *fn = p->fn;
  const vir_value *v = vir_result((vir_op *)op);
  cf_line(p);
  switch (op->code) {
  case VIR_OP_IF: print_if(p, op); vp_strbuf_putc(b, '\n'); return;
  case VIR_OP_FOR: {
    int64_t step;
    if (is_const_int(op->opnd[2], &step) && !(op->opnd[2]->type->kind == VIR_TY_UINT && step < 0))
      print_for(p, op);
    else
      print_for_general(p, op);
    vp_strbuf_putc(b, '\n');
    return;
  }
  case VIR_OP_WHILE: print_while(p, op); vp_strbuf_putc(b, '\n'); return;
  case VIR_OP_LOOP:
    vp_strbuf_append(b, "while (true)");
    block(p, &op->regions[0]);
    vp_strbuf_putc(b, '\n');
    return;
  case VIR_OP_BREAK: vp_strbuf_append(b, "break;\n"); return;
  case VIR_OP_CONTINUE: vp_strbuf_append(b, "continue;\n"); return;
  case VIR_OP_RETURN:
    vp_strbuf_append(b, "return");
    if (op->nopnd) {
      vp_strbuf_putc(b, ' ');
      cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
    }
    vp_strbuf_append(b, ";\n");
    return;
  case VIR_OP_BARRIER:
    if (gpu_c(p))
      p->pre |= CF_PRE_BARRIER;
    vp_strbuf_append(b, "barrier();\n");
    return;
  case VIR_OP_SG_BARRIER:
    p->ext |= CF_EXT_SG_BASIC;
    if (gpu_c(p))
      p->pre |= CF_PRE_SUBGROUP | CF_PRE_IDS;
    vp_strbuf_append(b, "subgroupBarrier();\n");
    return;
  case VIR_OP_MEMORY_BARRIER:
    memory_barrier(p, op);
    vp_strbuf_putc(b, '\n');
    return;
  case VIR_OP_LOCAL_STORE: {
    int li = local_index(fn, op->attr.sym);
    if (li >= 0 && fn->local_decl_at[li] == op && fn->local_decl_store[li]) {
      cf_decl(p, b, op->attr.sym->type, fn->local_name[li], false);
    } else {
      cf_lvalue(p, b, op, NULL);
    }
    vp_strbuf_append(b, " = ");
    cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
    vp_strbuf_append(b, ";\n");
    return;
  }
  case VIR_OP_BUFFER_STORE:
  case VIR_OP_SHARED_STORE:
  case VIR_OP_LOCAL_STORE_AT:
    cf_lvalue(p, b, op, op->opnd[0]);
    vp_strbuf_append(b, " = ");
    cf_expr(p, b, op->opnd[1], CF_PREC_LOWEST);
    vp_strbuf_append(b, ";\n");
    return;
  case VIR_OP_INSERT: {
    /* T x = v; x.y = s; */
    const char *name = value_name(p, v);
    cf_decl(p, b, v->type, name, false);
    vp_strbuf_append(b, " = ");
    cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
    vp_strbuf_append(b, ";\n");
    cf_line(p);
    if (v->type->kind == VIR_TY_VEC)
      vp_strbuf_printf(b, "%s.%c = ", name, cf_comp[op->attr.index & 3]);
    else
      vp_strbuf_printf(b, "%s[%u] = ", name, op->attr.index);
    cf_expr(p, b, op->opnd[1], CF_PREC_LOWEST);
    vp_strbuf_append(b, ";\n");
    return;
  }
  default: break;
  }
  if (v && fn->nuses[v->id] > 0) {
    cf_decl(p, b, v->type, value_name(p, v), false);
    vp_strbuf_append(b, " = ");
  }
  cf_op_expr(p, b, op);
  vp_strbuf_append(b, ";\n");
}

/* The locals declared without a value just before `op`. */
static void declare_locals_at(cf_printer *p, const vir_op *op) {
  cf_func *fn = p->fn;
  for (uint32_t i = 0; i < fn->f->locals.len; i++)
    if (fn->local_decl_at[i] == op && !fn->local_decl_store[i] && !fn->local_declared[i]) {
      fn->local_declared[i] = 1;
      cf_line(p);
      cf_decl(p, &p->body, ((const vir_sym *)fn->f->locals.data[i])->type, fn->local_name[i], false);
      vp_strbuf_append(&p->body, ";\n");
    }
}

static void print_region(cf_printer *p, const vir_region *r) {
  cf_func *fn = p->fn;
  for (const vir_op *op = r->first; op; op = op->next) {
    /* A silent op may be where a local is declared without a value: its
     * first access a load printed inside a later statement (a local read
     * before any store, `x: vp.float32` then a read). It is declared here
     * all the same, never left undeclared. */
    if (silent(p, op)) {
      declare_locals_at(p, op);
      continue;
    }
    /* `return` closing a void function says nothing */
    if (op->code == VIR_OP_RETURN && !op->nopnd && !op->next && r == &fn->f->body)
      continue;
    source_comment(p, op);
    declare_locals_at(p, op);
    print_op(p, op);
  }
}

/* ------------------------------------------------------ the functions */


bool cf_print_function(cf_printer *p, const vir_func *f, bool kernel) {
  cf_func fn;
  if (!prepare(p, &fn, f))
    return false;
  p->fn = &fn;
  p->indent = 0;
  cf_signature(p, f, kernel);
  vp_strbuf_append(&p->body, " {\n");
  p->indent = 1;
  print_region(p, &f->body);
  p->indent = 0;
  vp_strbuf_append(&p->body, "}\n");
  p->fn = NULL;
  return !p->failed;
}

const char *cf_param_name(cf_printer *p, const vir_value *v) {
  return p->fn && v->id < p->fn->nvals ? p->fn->name[v->id] : "arg";
}
