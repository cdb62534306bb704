/* lower_persistent_stepped.c - `--lower-persistent-stepped`: the stepped
 * form of a persistent kernel: one dispatch per phase, the host replaying
 * them per step (docs/persistent.md, "Stepped form").
 *
 * The kernel body is split at its top-level grid syncs and at its time loop
 * (a `for` whose body starts with persistent.step); the time loop's body is
 * split at its own grid syncs. Each piece becomes a phase: its ops move
 * into `if _vp_phase == K { ... }`, selected by a push constant the host
 * sets per dispatch; pure ops that only depend on other such ops (push
 * loads, constants, their arithmetic) stay outside, so every phase sees
 * them. The time loop's variable is `lo + _vp_k * step`, _vp_k the step
 * index the host gives. Phase 0xffff, dispatched as one group before the
 * first phase and before each step, is the step boundary: it decides
 * whether step _vp_k runs (in range, no stop request), publishes the steps
 * done, and snapshots the control words into the same slots of @_vp_grid
 * the persistent form reads. Results are bit-identical to the persistent
 * form: each phase computes what the persistent form computes between the
 * same grid syncs, and the grid-stride loops give every point the same
 * work whatever the number of groups.
 *
 * What cannot be split is a compile error: a value or variable that lives
 * across a grid sync (recompute it, or keep it in a buffer), a time loop
 * that is not `for ... in range(...)`, a break or continue that leaves the
 * time loop's step, more than one time loop.
 */
#include <string.h>

#include "vulpy/passes.h"

#include "persistent.h"

typedef struct st {
  vir_module *m;
  vir_func *k;
  vir_builder b;
  vir_sym *grid, *host, *push;
  uint32_t f_phase, f_k;       /* push fields */
  vir_sym *slot_sym[MAX_SLOTS];
  uint64_t slot_lit[MAX_SLOTS];
  uint32_t nslots;
  int32_t *phase_of;           /* value id -> phase that defines it (-1: top) */
  uint32_t nvals;
  bool failed;
  vp_diags *diags;
} st;

static vir_type *u32(st *s) { return vir_ty_uint(s->m, 32); }
static vir_op *op(st *s, vir_opcode c, vir_type *t, uint32_t n, vir_value **a) {
  vir_op *o = vir_build(&s->b, c, t, n, a);
  if (!o)
    s->failed = true;
  return o;
}
static vir_value *ku(st *s, uint32_t v) { return vir_build_int(&s->b, u32(s), v); }
static vir_value *bin(st *s, vir_opcode c, vir_value *a, vir_value *b) {
  vir_value *x[2] = {a, b};
  vir_type *t = a && b ? vir_infer_type(s->m, c, 2, x) : NULL;
  vir_op *o = t ? op(s, c, t, 2, x) : NULL;
  if (!o)
    s->failed = true;
  return o ? &o->val : NULL;
}
static vir_value *atom(st *s, vir_opcode c, vir_sym *sym, uint32_t w, vir_value *v) {
  vir_value *a[2] = {ku(s, w), v};
  vir_op *o = op(s, c, c == VIR_OP_ATOMIC_STORE ? NULL : u32(s), v ? 2 : 1, a);
  if (!o)
    return NULL;
  o->attr.sym = sym;
  o->attr.scope = VIR_SCOPE_DEVICE;
  o->attr.sem = VIR_SEM_RELAXED;
  return &o->val;
}
static vir_value *pushf(st *s, uint32_t field) {
  vir_op *o = op(s, VIR_OP_PUSH_LOAD, u32(s), 0, NULL);
  if (!o)
    return NULL;
  o->attr.sym = s->push;
  o->attr.npath = 1;
  o->attr.path[0] = (uint8_t)field;
  return &o->val;
}
static vir_op *iff(st *s, vir_value *c) { return c ? op(s, VIR_OP_IF, NULL, 1, &c) : NULL; }

static bool fail(st *s, vp_loc loc, const char *msg) {
  vp_error(s->diags, loc, "stepped form: %s", msg);
  s->failed = true;
  return false;
}

/* A top-level op that every phase may recompute: pure, no regions, and
 * its operands are such ops too. */
static bool hoistable(st *s, const vir_op *o) {
  const vir_op_info *in = vir_op_info_of(o->code);
  if (!(in->flags & VIR_F_PURE) || in->nregion || (in->flags & VIR_F_HIGH))
    return false;
  for (uint32_t i = 0; i < o->nopnd; i++) {
    const vir_value *v = o->opnd[i];
    if (v->id < s->nvals && s->phase_of[v->id] != -1)
      return false;
  }
  return true;
}

/* Marks every value defined in `r` (nested too) as phase `p`. */
static void mark(st *s, vir_region *r, int32_t p) {
  for (uint32_t i = 0; i < r->nargs; i++)
    if (r->args[i]->id < s->nvals)
      s->phase_of[r->args[i]->id] = p;
  for (vir_op *o = r->first; o; o = o->next) {
    if (o->val.id < s->nvals)
      s->phase_of[o->val.id] = p;
    for (uint32_t k = 0; k < vir_op_info_of(o->code)->nregion; k++)
      mark(s, &o->regions[k], p);
  }
}

/* Whether an op in phase `p` reads a value of another phase, or a local
 * another phase touches (local_phase: per local, the phase, -2 none). */
typedef struct cross {
  st *s;
  int32_t p;
  int32_t *local_phase;
  vir_op *bad;
  bool local;
} cross;

static vir_walk_result check_cross(vir_op *o, void *ctx) {
  cross *c = ctx;
  for (uint32_t i = 0; i < o->nopnd; i++) {
    const vir_value *v = o->opnd[i];
    int32_t q = v->id < c->s->nvals ? c->s->phase_of[v->id] : -1;
    if (q >= 0 && q != c->p) {
      c->bad = o;
      return VIR_WALK_STOP;
    }
  }
  if (o->code == VIR_OP_LOCAL_LOAD || o->code == VIR_OP_LOCAL_STORE) {
    vir_func *f = c->s->k;
    for (uint32_t i = 0; i < f->locals.len; i++)
      if (f->locals.data[i] == o->attr.sym) {
        if (c->local_phase[i] == -2)
          c->local_phase[i] = c->p;
        else if (c->local_phase[i] != c->p) {
          c->bad = o;
          c->local = true;
          return VIR_WALK_STOP;
        }
      }
  }
  return VIR_WALK_ADVANCE;
}

/* A break/continue that leaves the time loop's body (not inside a nested loop). */
static vir_op *loop_exit(vir_region *r) {
  for (vir_op *o = r->first; o; o = o->next) {
    if (o->code == VIR_OP_BREAK || o->code == VIR_OP_CONTINUE)
      return o;
    if (o->code == VIR_OP_FOR || o->code == VIR_OP_WHILE || o->code == VIR_OP_LOOP)
      continue;
    for (uint32_t k = 0; k < vir_op_info_of(o->code)->nregion; k++) {
      vir_op *e = loop_exit(&o->regions[k]);
      if (e)
        return e;
    }
  }
  return NULL;
}

static int slot_of(st *s, vir_sym *sym, uint64_t w) {
  for (uint32_t i = 0; i < s->nslots; i++)
    if (s->slot_sym[i] == sym && s->slot_lit[i] == w)
      return (int)i;
  if (s->nslots == MAX_SLOTS)
    return -1;
  s->slot_sym[s->nslots] = sym;
  s->slot_lit[s->nslots] = w;
  return (int)s->nslots++;
}

/* The ops of one phase: [first, last] of region r (inclusive, in order). */
typedef struct phase {
  vir_region *r;
  vir_op *first, *last;
  bool in_loop;
} phase;

enum { MAX_PHASES = 64 };

static vir_sym *hidden(st *s, const char *name) {
  uint32_t binding = 0;
  for (uint32_t i = 0; i < s->m->syms.len; i++) {
    const vir_sym *y = s->m->syms.data[i];
    if (y->kind == VIR_SYM_BUFFER && y->set == 0 && y->binding >= binding)
      binding = y->binding + 1;
  }
  vir_sym *y = vir_add_buffer(s->m, name, u32(s), 0, binding, VIR_ACCESS_READWRITE, s->k->loc);
  if (!y)
    s->failed = true;
  else
    y->buf_flags |= VIR_BUF_COHERENT;
  return y;
}

/* Adds the push fields _vp_phase_A_B_C (the phase id; A phases before the
 * time loop, B in it, C after it: the host reads the counts from the
 * manifest) and _vp_k (a push block if there is none). */
static bool add_push(st *s, uint32_t pre, uint32_t loop, uint32_t post) {
  vir_struct *pst = s->m->push ? s->m->push->type->st : NULL;
  if (!pst) {
    pst = vir_struct_create(s->m, "PushConstants", s->k->loc);
    if (!pst)
      return false;
  }
  const char *name = vp_arena_printf(&s->m->arena, "_vp_phase_%u_%u_%u", pre, loop, post);
  if (!name)
    return false;
  vir_struct_add_field(s->m, pst, name, u32(s), s->k->loc);
  vir_struct_add_field(s->m, pst, "_vp_k", u32(s), s->k->loc);
  vir_struct_layout(pst);
  s->f_phase = pst->nfields - 2;
  s->f_k = pst->nfields - 1;
  if (!s->m->push)
    return vir_add_push(s->m, "pc", pst, s->k->loc) != NULL;
  return true;
}

static vir_pass_result lower_kernel(st *s) {
  vir_func *k = s->k;
  vir_region *body = &k->body;
  /* the time loop */
  vir_op *tl = NULL;
  for (vir_op *o = body->first; o; o = o->next) {
    bool has_step = false;
    for (uint32_t r = 0; r < vir_op_info_of(o->code)->nregion; r++)
      has_step |= o->regions[r].first && o->regions[r].first->code == VIR_OP_PERSIST_STEP;
    if (has_step) {
      if (o->code != VIR_OP_FOR)
        return fail(s, o->loc, "the time loop must be `for t in range(...)` (a while loop has no "
                               "step count the host can replay)"), VIR_PASS_FAILURE;
      if (tl)
        return fail(s, o->loc, "more than one time loop"), VIR_PASS_FAILURE;
      tl = o;
    }
  }
  for (vir_op *o = body->first; o; o = o->next)
    for (uint32_t r = 0; r < vir_op_info_of(o->code)->nregion; r++)
      for (vir_op *in = o->regions[r].first; in; in = in->next)
        if (in->code == VIR_OP_PERSIST_STEP && o != tl)
          return fail(s, in->loc, "a time loop inside another construct"), VIR_PASS_FAILURE;
  if (tl) {
    vir_op *e = loop_exit(&tl->regions[0]);
    if (e)
      return fail(s, e->loc, "break or continue in the time loop (the host replays whole "
                             "steps; leave it with handle.stop())"), VIR_PASS_FAILURE;
    if (tl->opnd[2]->def == NULL || tl->opnd[2]->def->code != VIR_OP_CONST)
      return fail(s, tl->loc, "the time loop's step must be a constant"), VIR_PASS_FAILURE;
  }
  /* the phases */
  phase ph[MAX_PHASES];
  uint32_t nph = 0, loop_first = 0, loop_end = 0;
  vir_region *regions[3] = {body, tl ? &tl->regions[0] : NULL, body};
  for (int part = 0; part < 3; part++) {
    vir_region *r = regions[part];
    if (!r)
      continue;
    vir_op *from = part == 0 ? r->first : part == 1 ? r->first->next : tl ? tl->next : NULL;
    if (part == 1)
      loop_first = nph;
    if (part == 2 && !tl)
      break;
    phase cur = {r, NULL, NULL, part == 1};
    for (vir_op *o = from; o; o = o->next) {
      if (part == 0 && o == tl)
        break;
      if (o->code == VIR_OP_PERSIST_GRID_SYNC) {
        if (nph == MAX_PHASES)
          return fail(s, o->loc, "more than 64 phases"), VIR_PASS_FAILURE;
        ph[nph++] = cur;
        cur = (phase){r, NULL, NULL, part == 1};
        continue;
      }
      if (!cur.first)
        cur.first = o;
      cur.last = o;
    }
    if (nph == MAX_PHASES)
      return fail(s, k->loc, "more than 64 phases"), VIR_PASS_FAILURE;
    ph[nph++] = cur;
    if (part == 1)
      loop_end = nph;
  }
  /* nested grid syncs (under if or loops) were rejected by the frontend */
  /* values: which phase defines each */
  s->nvals = k->next_id;
  s->phase_of = vp_arena_alloc(&s->m->arena, (s->nvals + 1) * sizeof *s->phase_of);
  int32_t *lp = vp_arena_alloc(&s->m->arena, (k->locals.len + 1) * sizeof *lp);
  if (!s->phase_of || !lp)
    return VIR_PASS_FAILURE;
  for (uint32_t i = 0; i < s->nvals; i++)
    s->phase_of[i] = -1;
  for (uint32_t i = 0; i < k->locals.len; i++)
    lp[i] = -2;
  /* a phase's ops: hoistable ones stay where they are, the rest are marked */
  for (uint32_t p = 0; p < nph; p++)
    for (vir_op *o = ph[p].first; o; o = o == ph[p].last ? NULL : o->next) {
      if (hoistable(s, o))
        continue;
      if (o->val.id < s->nvals)
        s->phase_of[o->val.id] = (int32_t)p;
      for (uint32_t r = 0; r < vir_op_info_of(o->code)->nregion; r++)
        mark(s, &o->regions[r], (int32_t)p);
    }
  /* the loop's own pure prefix values (its step op's neighbours) belong to
   * the phase they are in; the loop variable is everyone's */
  if (tl)
    s->phase_of[tl->regions[0].args[0]->id] = -1;
  for (uint32_t p = 0; p < nph; p++) {
    cross c = {s, (int32_t)p, lp, NULL, false};
    for (vir_op *o = ph[p].first; o; o = o == ph[p].last ? NULL : o->next) {
      if (s->phase_of[o->val.id] == -1 && hoistable(s, o))
        continue;
      vir_walk_result w = check_cross(o, &c);
      if (w == VIR_WALK_ADVANCE)
        for (uint32_t r = 0; r < vir_op_info_of(o->code)->nregion && !c.bad; r++)
          vir_walk_region(&o->regions[r], check_cross, &c);
      if (c.bad)
        break;
    }
    /* hoisted ops must not read phase values either */
    if (c.bad)
      return fail(s, c.bad->loc, c.local ? "a variable lives across a grid sync (each phase "
                                           "is its own dispatch: keep it in a buffer)"
                                         : "a value lives across a grid sync (each phase is its "
                                           "own dispatch: recompute it, or keep it in a buffer)"),
             VIR_PASS_FAILURE;
  }
  for (uint32_t i = 0; tl && i < 3; i++)
    if (tl->opnd[i]->id < s->nvals && s->phase_of[tl->opnd[i]->id] != -1)
      return fail(s, tl->loc, "the time loop's bounds must come from push constants and "
                              "constants (the host replays the steps)"), VIR_PASS_FAILURE;
  for (vir_op *o = body->first; o; o = o->next)
    if (s->phase_of[o->val.id] == -1 && o != tl) {
      cross c = {s, -1, lp, NULL, false};
      check_cross(o, &c);
      if (c.bad && !c.local)
        return fail(s, o->loc, "a value lives across a grid sync"), VIR_PASS_FAILURE;
    }
  /* the interface */
  s->grid = hidden(s, "_vp_grid");
  s->host = hidden(s, "_vp_host");
  if (s->failed || !add_push(s, tl ? loop_first : nph, tl ? loop_end - loop_first : 0,
                             tl ? nph - loop_end : 0))
    return VIR_PASS_FAILURE;
  s->push = s->m->push;
  /* at the top: the phase id, the step index */
  vir_builder_init(&s->b, s->m);
  s->b.f = k;
  vir_builder_before(&s->b, body->first);
  s->b.loc = k->loc;
  vir_value *phase_id = pushf(s, s->f_phase);
  vir_value *kk = pushf(s, s->f_k);
  /* the loop variable: lo + k * step, in its type */
  vir_value *tv = NULL;
  if (tl) {
    vir_builder_before(&s->b, tl);
    vir_type *tt = tl->regions[0].args[0]->type;
    vir_value *kc = kk;
    if (tt != u32(s)) {
      vir_op *c = op(s, VIR_OP_CAST, tt, 1, &kc);
      kc = c ? &c->val : NULL;
    }
    tv = bin(s, VIR_OP_ADD, tl->opnd[0], bin(s, VIR_OP_MUL, kc, tl->opnd[2]));
    if (!tv)
      return VIR_PASS_FAILURE;
    vir_replace_all_uses(k, tl->regions[0].args[0], tv);
  }
  /* wrap each phase */
  for (uint32_t p = 0; p < nph; p++) {
    if (!ph[p].first)
      continue;
    vir_op *first = ph[p].first, *last = ph[p].last;
    /* the wrapper goes before the phase's first op that is not hoisted */
    vir_op *at = first;
    while (at && s->phase_of[at->val.id] == -1 && at != last)
      at = at->next;
    if (s->phase_of[at->val.id] == -1 && !ph[p].in_loop)
      continue; /* only hoisted ops, which stay where they are */
    vir_op *after = last->next;
    vir_builder_before(&s->b, at);
    if (ph[p].in_loop) { /* the wrapper stands where the loop was */
      vir_builder_before(&s->b, tl);
    }
    vir_op *w = iff(s, bin(s, VIR_OP_EQ, phase_id, ku(s, p)));
    if (!w)
      return VIR_PASS_FAILURE;
    vir_builder_at_end(&s->b, &w->regions[0]);
    if (ph[p].in_loop) { /* a step the boundary did not start runs nothing */
      vir_op *no = iff(s, bin(s, VIR_OP_EQ, atom(s, VIR_OP_ATOMIC_LOAD, s->grid, G_RUN, NULL),
                              ku(s, 0)));
      if (!no)
        return VIR_PASS_FAILURE;
      vir_builder_at_end(&s->b, &no->regions[0]);
      op(s, VIR_OP_RETURN, NULL, 0, NULL);
      vir_builder_at_end(&s->b, &w->regions[0]);
    }
    for (vir_op *o = ph[p].in_loop ? first : at, *next; o && o != after; o = next) {
      next = o->next;
      vir_op_unlink(o);
      if (s->phase_of[o->val.id] == -1) /* recomputed by every phase: before the wrapper */
        vir_region_insert(w->parent, w, o);
      else
        vir_region_insert(&w->regions[0], NULL, o);
    }
  }
  /* the time loop itself goes (its body is in the phases), and every grid
   * sync and step marker */
  vp_ptrvec dead = {0};
  for (vir_op *o = body->first; o; o = o->next)
    if (o->code == VIR_OP_PERSIST_GRID_SYNC)
      vp_ptrvec_push(&s->m->arena, &dead, o);
  if (tl) {
    for (vir_op *o = tl->regions[0].first; o; o = o->next)
      vp_ptrvec_push(&s->m->arena, &dead, o); /* the step marker and the syncs */
  }
  for (uint32_t i = 0; i < dead.len; i++)
    vir_op_unlink(dead.data[i]);
  if (tl)
    vir_op_unlink(tl);
  /* control words: the snapshot slots; group ids: the plain ones */
  vp_ptrvec ops = {0};
  {
    vp_ptrvec stack = {0};
    vp_ptrvec_push(&s->m->arena, &stack, body);
    while (stack.len) {
      vir_region *r = stack.data[--stack.len];
      for (vir_op *o = r->first; o; o = o->next) {
        if (o->code == VIR_OP_PERSIST_CONTROL || o->code == VIR_OP_PERSIST_GROUP_ID ||
            o->code == VIR_OP_PERSIST_NUM_GROUPS)
          vp_ptrvec_push(&s->m->arena, &ops, o);
        for (uint32_t q = 0; q < vir_op_info_of(o->code)->nregion; q++)
          vp_ptrvec_push(&s->m->arena, &stack, &o->regions[q]);
      }
    }
  }
  for (uint32_t i = 0; i < ops.len; i++) {
    vir_op *o = ops.data[i];
    vir_builder_before(&s->b, o);
    s->b.loc = o->loc;
    vir_value *r = NULL;
    vir_type *v3 = vir_ty_vec(s->m, u32(s), 3);
    if (o->code == VIR_OP_PERSIST_CONTROL) {
      vir_op *w = o->opnd[0]->def;
      int sl = w && w->code == VIR_OP_CONST ? slot_of(s, o->attr.sym, w->attr.lit.u) : -1;
      if (sl < 0)
        return fail(s, o->loc, "a control word needs a constant index (at most 64 of them)"),
               VIR_PASS_FAILURE;
      r = atom(s, VIR_OP_ATOMIC_LOAD, s->grid, G_SNAP + (uint32_t)sl, NULL);
    } else {
      vir_op *n = op(s, VIR_OP_NUM_WORKGROUPS, v3, 0, NULL);
      vir_value *nv = n ? &n->val : NULL;
      vir_value *c[3];
      for (unsigned q = 0; q < 3; q++) {
        vir_op *e = op(s, VIR_OP_EXTRACT, u32(s), 1, &nv);
        if (e)
          e->attr.index = q;
        c[q] = e ? &e->val : NULL;
      }
      if (o->code == VIR_OP_PERSIST_NUM_GROUPS) {
        r = bin(s, VIR_OP_MUL, bin(s, VIR_OP_MUL, c[0], c[1]), c[2]);
      } else {
        vir_op *wg = op(s, VIR_OP_WORKGROUP_ID, v3, 0, NULL);
        vir_value *wv = wg ? &wg->val : NULL;
        vir_value *g[3];
        for (unsigned q = 0; q < 3; q++) {
          vir_op *e = op(s, VIR_OP_EXTRACT, u32(s), 1, &wv);
          if (e)
            e->attr.index = q;
          g[q] = e ? &e->val : NULL;
        }
        r = bin(s, VIR_OP_ADD, g[0],
                bin(s, VIR_OP_MUL, c[0], bin(s, VIR_OP_ADD, g[1], bin(s, VIR_OP_MUL, c[1], g[2]))));
      }
    }
    if (!r || s->failed)
      return VIR_PASS_FAILURE;
    vir_replace_all_uses(k, &o->val, r);
    vir_op_unlink(o);
  }
  /* the step boundary: phase 0xffff, one invocation */
  vir_builder_at_end(&s->b, body);
  if (body->last && (vir_op_infos[body->last->code].flags & VIR_F_TERM))
    vir_builder_before(&s->b, body->last);
  s->b.loc = k->loc;
  vir_op *li = op(s, VIR_OP_LOCAL_INDEX, u32(s), 0, NULL);
  vir_op *sn = iff(s, bin(s, VIR_OP_LAND, bin(s, VIR_OP_EQ, phase_id, ku(s, STEPPED_SNAP)),
                          bin(s, VIR_OP_EQ, li ? &li->val : NULL, ku(s, 0))));
  if (!sn)
    return VIR_PASS_FAILURE;
  vir_builder_at_end(&s->b, &sn->regions[0]);
  vir_value *stop = atom(s, VIR_OP_ATOMIC_LOAD, s->host, H_STOP, NULL);
  vir_value *done = atom(s, VIR_OP_ATOMIC_LOAD, s->grid, G_STOP, NULL); /* the run ended */
  vir_value *run = bin(s, VIR_OP_LAND, bin(s, VIR_OP_EQ, stop, ku(s, 0)),
                       bin(s, VIR_OP_EQ, done, ku(s, 0)));
  if (tl) {
    vir_value *lo_hi = tl->opnd[2]->def->attr.lit.i < 0 ? bin(s, VIR_OP_GT, tv, tl->opnd[1])
                                                         : bin(s, VIR_OP_LT, tv, tl->opnd[1]);
    run = bin(s, VIR_OP_LAND, run, lo_hi);
  } else {
    run = bin(s, VIR_OP_LAND, run, bin(s, VIR_OP_EQ, kk, ku(s, 0)));
  }
  vir_op *yes = iff(s, run);
  if (!yes)
    return VIR_PASS_FAILURE;
  vir_builder_at_end(&s->b, &yes->regions[0]);
  for (uint32_t i = 0; i < s->nslots; i++) {
    vir_value *w = ku(s, (uint32_t)s->slot_lit[i]);
    vir_op *o = op(s, VIR_OP_ATOMIC_LOAD, u32(s), 1, &w);
    if (!o)
      return VIR_PASS_FAILURE;
    o->attr.sym = s->slot_sym[i];
    o->attr.scope = VIR_SCOPE_DEVICE;
    o->attr.sem = VIR_SEM_ACQUIRE;
    atom(s, VIR_OP_ATOMIC_STORE, s->grid, G_SNAP + i, &o->val);
  }
  atom(s, VIR_OP_ATOMIC_STORE, s->grid, G_RUN, ku(s, 1));
  atom(s, VIR_OP_ATOMIC_STORE, s->host, H_STEPS, kk);
  vir_builder_at_end(&s->b, &yes->regions[1]);
  atom(s, VIR_OP_ATOMIC_STORE, s->grid, G_RUN, ku(s, 0));
  vir_op *first_end = iff(s, bin(s, VIR_OP_EQ, done, ku(s, 0)));
  if (!first_end)
    return VIR_PASS_FAILURE;
  vir_builder_at_end(&s->b, &first_end->regions[0]);
  atom(s, VIR_OP_ATOMIC_STORE, s->grid, G_STOP, ku(s, 1));
  atom(s, VIR_OP_ATOMIC_STORE, s->host, H_STEPS, kk);
  atom(s, VIR_OP_ATOMIC_OR, s->host, H_STATUS, ku(s, ST_DONE));
  return s->failed ? VIR_PASS_FAILURE : VIR_PASS_CHANGED;
}

static bool is_persistent(vir_region *r) {
  for (vir_op *o = r->first; o; o = o->next) {
    if (o->code == VIR_OP_PERSIST_GRID_SYNC || o->code == VIR_OP_PERSIST_STEP ||
        o->code == VIR_OP_PERSIST_CONTROL)
      return true;
    for (uint32_t k = 0; k < vir_op_info_of(o->code)->nregion; k++)
      if (is_persistent(&o->regions[k]))
        return true;
  }
  return false;
}

vir_pass_result vir_lower_persistent_stepped(vir_module *m, const vir_pass_options *opts,
                                             vp_diags *diags) {
  (void)opts;
  bool changed = false;
  uint32_t nsyms = m->syms.len;
  for (uint32_t i = 0; i < nsyms; i++) {
    vir_sym *y = m->syms.data[i];
    if (y->kind != VIR_SYM_FUNC || !y->func->is_kernel || !is_persistent(&y->func->body))
      continue;
    st s = {.m = m, .k = y->func, .diags = diags};
    vir_builder_init(&s.b, m);
    vir_pass_result r = lower_kernel(&s);
    if (r == VIR_PASS_FAILURE) {
      if (!diags->nerrors)
        vp_error(diags, y->func->loc, "lower-persistent-stepped: out of memory");
      return r;
    }
    changed = true;
  }
  /* group ids in the remaining (plain) kernels, and anything left */
  vir_pass_result r = vir_lower_persistent(m, opts, diags);
  if (r == VIR_PASS_FAILURE)
    return r;
  return changed || r == VIR_PASS_CHANGED ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
