/* lower_memsock.c - `lower-memsock`: expands each memsock.fire into the
 * ring-slot epoch protocol of docs/memsock.md, in plain kernel VIR.
 *
 * A fire is grid-wide: every invocation of every workgroup reaches it, and
 * the frame is published once the last workgroup has written its part. No
 * grid barrier is needed; per fire:
 *   1. the fire's sequence number is s = ring[BASE] + (fires so far in this
 *      invocation), the same in every invocation because fires sit in
 *      grid-uniform control flow (checked here: an error otherwise);
 *   2. each workgroup's leader (local invocation 0) waits until the slot's previous frame is
 *      finalized and, under `block`, until the host has credit for s; then
 *      the first leader to get there decides for the whole grid whether the
 *      frame is written or dropped (a compare-and-swap on the slot's
 *      decision word), so no frame is ever half written;
 *   3. the decision goes to the workgroup through shared memory; its
 *      invocations run the body, whose stores to the frames buffer are
 *      offset to the slot and dropped past the frame's end;
 *   4. after a release fence and a workgroup barrier the leader adds one to
 *      the slot's arrival count; the last to arrive resets it, stores the
 *      slot's tag 2*(s+1) (release, queue-family scope: the CPU reads it)
 *      and raises ring[PUBLISHED] to s+1.
 * The ring's words are atomics with explicit scope and semantics; the
 * layout is vulpy/memsock_abi.h. Spin loops are bounded by ring[SPIN]
 * (waiting for the host) or ring[FIN_SPIN] (waiting for other workgroups;
 * lavapipe ends loops after 65535 back-edges anyway); a wait that gives up
 * is counted in ring[GPU_TIMEOUTS] and its frame dropped.
 */
#include "transforms.h"

#include "vulpy/memsock_abi.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------- uniformity */

/* Which values, locals and loops vary across the grid: a fixpoint over the
 * function (loops carry values around), starting from the sources
 * (invocation ids, memory reads, atomics). */
typedef struct uni {
  vp_arena *a;
  vp_map div;        /* value*, local sym*, loop op* -> 1 */
  bool changed;
  bool final;        /* the last walk: report fires */
  bool returned;     /* a divergent return came before, in walk order */
  vp_loc return_loc;
  vp_diags *diags;
  uint32_t nfires;
  vir_op **fires;    /* collected on the final walk */
  uint32_t capfires;
  bool failed;
} uni;

static bool is_div(uni *u, const void *p) {
  return p && vp_map_get(&u->div, (const char *)&p, sizeof p) != NULL;
}

static void set_div(uni *u, const void *p) {
  if (!p || is_div(u, p))
    return;
  /* the map keeps the key's bytes by reference: they live in the arena */
  const void **key = vp_arena_alloc(u->a, sizeof *key);
  *key = p;
  vp_map_put(u->a, &u->div, (const char *)key, sizeof *key, (void *)1);
  u->changed = true;
}

static bool source_op(vir_opcode c) {
  switch (c) {
  case VIR_OP_GLOBAL_ID:
  case VIR_OP_LOCAL_ID:
  case VIR_OP_WORKGROUP_ID:
  case VIR_OP_LOCAL_INDEX:
  case VIR_OP_SUBGROUP_LANE:
  case VIR_OP_SUBGROUP_ID:
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_SHARED_LOAD:
  case VIR_OP_CALL: return true;
  default:
    return vir_op_info_of(c)->attr == VIR_ATTR_ATOMIC || (vir_op_info_of(c)->flags & VIR_F_SUBGROUP);
  }
}

static void uni_region(uni *u, vir_region *r, bool ctx, vir_op *loop);

static void uni_op(uni *u, vir_op *op, bool ctx, vir_op *loop) {
  bool any = false;
  for (uint32_t i = 0; i < op->nopnd; i++)
    any = any || is_div(u, op->opnd[i]);
  switch (op->code) {
  case VIR_OP_LOCAL_LOAD:
    if (is_div(u, op->attr.sym))
      set_div(u, &op->val);
    return;
  case VIR_OP_LOCAL_STORE:
    if (ctx || any)
      set_div(u, op->attr.sym);
    return;
  case VIR_OP_IF:
    uni_region(u, &op->regions[0], ctx || any, loop);
    uni_region(u, &op->regions[1], ctx || any, loop);
    return;
  case VIR_OP_FOR: {
    bool c = ctx || any || is_div(u, op);
    if (c)
      set_div(u, op->regions[0].args[0]);
    uni_region(u, &op->regions[0], c, op);
    return;
  }
  case VIR_OP_WHILE:
  case VIR_OP_LOOP: {
    bool c = ctx || is_div(u, op);
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      uni_region(u, &op->regions[i], c, op);
    return;
  }
  case VIR_OP_CONDITION: /* a while's condition: a divergent one exits divergently */
  case VIR_OP_BREAK:
  case VIR_OP_CONTINUE:
    if (loop && (ctx || (op->code == VIR_OP_CONDITION && any)))
      set_div(u, loop);
    return;
  case VIR_OP_RETURN:
    if (ctx && !u->returned) {
      u->returned = true;
      u->return_loc = op->loc;
    }
    return;
  case VIR_OP_MEMSOCK_FIRE:
    if (u->final) {
      if (ctx) {
        vp_error(u->diags, op->loc,
                 "pipe.fire inside control flow that differs between invocations: every "
                 "invocation of the grid must reach each fire");
        vp_diag_hint(u->diags, "fire under conditions on push constants, constants and loop "
                               "counters with such bounds; guard the body's stores instead");
        u->failed = true;
      } else if (u->returned) {
        vp_error(u->diags, op->loc,
                 "pipe.fire after a return that only some invocations take (line %u): every "
                 "invocation of the grid must reach each fire",
                 u->return_loc.line);
        vp_diag_hint(u->diags, "guard the work with if instead of returning early");
        u->failed = true;
      }
      if (u->nfires == u->capfires) {
        u->capfires = u->capfires ? 2 * u->capfires : 8;
        vir_op **n = vp_arena_alloc(u->a, u->capfires * sizeof *n);
        if (u->nfires)
          memcpy(n, u->fires, u->nfires * sizeof *n);
        u->fires = n;
      }
      u->fires[u->nfires++] = op;
    }
    uni_region(u, &op->regions[0], ctx, loop);
    return;
  default:
    if (vir_result(op) && (any || source_op(op->code)))
      set_div(u, &op->val);
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      uni_region(u, &op->regions[i], ctx || any, loop);
    return;
  }
}

static void uni_region(uni *u, vir_region *r, bool ctx, vir_op *loop) {
  for (vir_op *op = r->first; op; op = op->next)
    uni_op(u, op, ctx, loop);
}

/* ------------------------------------------------------------ builders */

typedef struct pipe {
  vir_sym *frames, *ring;
  vir_sym *fires, *seq, *slot, *go, *cur, *spin; /* locals */
  vir_sym *wg;                            /* shared: decision, frame base */
} pipe;

typedef struct lctx {
  vir_module *m;
  vir_func *f;
  vir_builder b;
  vir_type *u32, *b1;
  vp_diags *diags;
} lctx;

static vir_value *k32(lctx *c, uint32_t v) { return vir_build_int(&c->b, c->u32, v); }

static vir_value *bin(lctx *c, vir_opcode code, vir_value *a, vir_value *b) {
  vir_value *o[2] = {a, b};
  vir_type *t = code >= VIR_OP_EQ && code <= VIR_OP_GE ? c->b1 : a->type;
  return vir_result(vir_build(&c->b, code, t, 2, o));
}

static vir_value *named(vir_value *v, const char *name) {
  v->name = name;
  return v;
}

static vir_value *ring_atomic(lctx *c, pipe *p, vir_opcode code, vir_value *idx, vir_value *v,
                              vir_value *v2, vir_scope sc, vir_semantics sem) {
  vir_value *o[3] = {idx, v, v2};
  uint32_t n = code == VIR_OP_ATOMIC_LOAD ? 1 : code == VIR_OP_ATOMIC_CMPXCHG ? 3 : 2;
  vir_op *op = vir_build(&c->b, code, code == VIR_OP_ATOMIC_STORE ? NULL : c->u32, n, o);
  op->attr.sym = p->ring;
  op->attr.scope = sc;
  op->attr.sem = sem;
  return vir_result(op);
}

/* A word another agent changes while the kernel runs (the host's ack and
 * closed flag, the other workgroups' published count): an atomic load. */
static vir_value *poll(lctx *c, pipe *p, uint32_t w, vir_scope sc) {
  return ring_atomic(c, p, VIR_OP_ATOMIC_LOAD, k32(c, w), NULL, NULL, sc, VIR_SEM_ACQUIRE);
}

/* A header word the host wrote before the dispatch: a plain load. */
static vir_value *hdr(lctx *c, pipe *p, uint32_t w) {
  vir_value *i = k32(c, w);
  vir_op *op = vir_build(&c->b, VIR_OP_BUFFER_LOAD, c->u32, 1, &i);
  op->attr.sym = p->ring;
  return vir_result(op);
}

static vir_value *lload(lctx *c, vir_sym *s) {
  vir_op *op = vir_build(&c->b, VIR_OP_LOCAL_LOAD, s->type, 0, NULL);
  op->attr.sym = s;
  return vir_result(op);
}

static void lstore(lctx *c, vir_sym *s, vir_value *v) {
  vir_op *op = vir_build(&c->b, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  op->attr.sym = s;
}

static vir_value *sload(lctx *c, pipe *p, uint32_t i) {
  vir_value *ix = k32(c, i);
  vir_op *op = vir_build(&c->b, VIR_OP_SHARED_LOAD, c->u32, 1, &ix);
  op->attr.sym = p->wg;
  return vir_result(op);
}

static void sstore(lctx *c, pipe *p, uint32_t i, vir_value *v) {
  vir_value *o[2] = {k32(c, i), v};
  vir_op *op = vir_build(&c->b, VIR_OP_SHARED_STORE, NULL, 2, o);
  op->attr.sym = p->wg;
}

static vir_op *build_if(lctx *c, vir_value *cond) { return vir_build(&c->b, VIR_OP_IF, NULL, 1, &cond); }

static void membar(lctx *c, vir_scope sc, vir_semantics sem) {
  vir_op *op = vir_build(&c->b, VIR_OP_MEMORY_BARRIER, NULL, 0, NULL);
  op->attr.scope = sc;
  op->attr.sem = sem;
  op->attr.storage = VIR_STORAGE_BUFFER;
}

/* Runs `fn` with the builder at the end of region r, then restores it. */
#define IN_REGION(c, r, ...)                                                \
  do {                                                                       \
    vir_builder save_ = (c)->b;                                              \
    vir_builder_at_end(&(c)->b, (r));                                        \
    (c)->b.loc = save_.loc;                                                  \
    __VA_ARGS__;                                                             \
    (c)->b = save_;                                                          \
  } while (0)

static vir_sym *add_local(lctx *c, const char *pname, const char *what) {
  const char *name = vp_arena_printf(&c->m->arena, "_vp_%s_%s", pname, what);
  vir_sym *s = vir_func_find_local(c->f, name);
  return s ? s : vir_func_add_local(c->m, c->f, name, c->u32, c->f->loc);
}

/* The pipe of a fire: its ring buffer by name, its locals and shared words. */
static bool get_pipe(lctx *c, vir_op *fire, pipe *p) {
  memset(p, 0, sizeof *p);
  p->frames = fire->attr.sym;
  if (!p->frames || p->frames->kind != VIR_SYM_BUFFER) {
    vp_error(c->diags, fire->loc, "memsock.fire names no frames buffer");
    return false;
  }
  const char *pn = p->frames->name;
  const char *rn = vp_arena_printf(&c->m->arena, "%s_ring", pn);
  p->ring = vir_module_find(c->m, rn);
  if (!p->ring || p->ring->kind != VIR_SYM_BUFFER || p->ring->type != c->u32) {
    vp_error(c->diags, fire->loc, "memsock.fire @%s: the module has no buffer @%s of u32 words",
             pn, rn);
    return false;
  }
  p->fires = add_local(c, pn, "fires");
  p->seq = add_local(c, pn, "seq");
  p->slot = add_local(c, pn, "slot");
  p->go = add_local(c, pn, "go");
  p->cur = add_local(c, pn, "decision");
  p->spin = add_local(c, pn, "spin");
  const char *wn = vp_arena_printf(&c->m->arena, "_vp_%s_wg", pn);
  p->wg = vir_module_find(c->m, wn);
  if (!p->wg)
    p->wg = vir_add_shared(c->m, wn, vir_ty_array(c->m, c->u32, 2), fire->loc);
  return p->fires && p->seq && p->slot && p->go && p->cur && p->spin && p->wg;
}

/* Moves the stores to the frames buffer under `if idx < frame_elems` with
 * the slot's frame base added. */
static void offset_stores(lctx *c, pipe *p, vir_region *r, vir_value *fbase, vir_value *felems) {
  for (vir_op *op = r->first, *next; op; op = next) {
    next = op->next;
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      offset_stores(c, p, &op->regions[i], fbase, felems);
    if (op->code != VIR_OP_BUFFER_STORE || op->attr.sym != p->frames)
      continue;
    vir_builder_before(&c->b, op);
    c->b.loc = op->loc;
    vir_value *idx = op->opnd[0];
    if (idx->type != c->u32)
      idx = vir_result(vir_build(&c->b, VIR_OP_CAST, c->u32, 1, &idx));
    vir_op *iff = build_if(c, bin(c, VIR_OP_LT, idx, felems));
    vir_op_unlink(op);
    vir_region_insert(&iff->regions[0], NULL, op);
    IN_REGION(c, &iff->regions[0], {
      vir_builder_before(&c->b, op);
      op->opnd[0] = named(bin(c, VIR_OP_ADD, fbase, idx), "at");
    });
  }
}

/* The protocol around one fire (see the file comment). */
static void lower_fire(lctx *c, pipe *p, vir_op *fire) {
  vir_builder_before(&c->b, fire);
  c->b.loc = fire->loc;
  /* 1. this invocation's fire count: the sequence number's offset */
  vir_value *k = named(lload(c, p->fires), "fire");
  lstore(c, p->fires, bin(c, VIR_OP_ADD, k, k32(c, 1)));
  vir_value *magic = hdr(c, p, VMS_HDR_MAGIC);
  vir_op *open = build_if(c, bin(c, VIR_OP_EQ, magic, k32(c, VMS_MAGIC)));
  IN_REGION(c, &open->regions[0], {
    /* the workgroup's leader: local invocation 0 */
    vir_value *lid = vir_result(vir_build(&c->b, VIR_OP_LOCAL_INDEX, c->u32, 0, NULL));
    vir_value *leader = named(bin(c, VIR_OP_EQ, lid, k32(c, 0)), "leader");
    vir_op *lead = build_if(c, leader);
    IN_REGION(c, &lead->regions[0], {
      vir_value *cap = named(hdr(c, p, VMS_HDR_CAPACITY), "capacity");
      vir_value *s = named(bin(c, VIR_OP_ADD, hdr(c, p, VMS_HDR_BASE), k), "seq");
      vir_value *slot = bin(c, VIR_OP_REM, s, cap);
      vir_value *sw = bin(c, VIR_OP_ADD, k32(c, VMS_HDR_WORDS),
                          bin(c, VIR_OP_MUL, slot, hdr(c, p, VMS_HDR_SLOT_WORDS)));
      named(sw, "slot_words");
      lstore(c, p->seq, s);
      lstore(c, p->slot, sw);
      vir_value *policy = named(hdr(c, p, VMS_HDR_POLICY), "policy");
      vir_value *block = bin(c, VIR_OP_EQ, policy, k32(c, VMS_POLICY_BLOCK));
      /* 2. wait: the slot's previous frame (s - capacity) finalized, and
       * under block the host's credit (or close) */
      vir_value *prev = named(bin(c, VIR_OP_SUB, bin(c, VIR_OP_ADD, s, k32(c, 1)), cap), "prev_done");
      vir_value *lim = named(hdr(c, p, VMS_HDR_SPIN), "spin_limit");
      vir_value *fin_lim = named(hdr(c, p, VMS_HDR_FIN_SPIN), "fin_spin_limit");
      /* a while loop with no break: lavapipe lost the enclosing loop's
       * invocations after a break out of a spin that had gone round */
      lstore(c, p->spin, k32(c, 0));
      vir_op *spin = vir_build(&c->b, VIR_OP_WHILE, NULL, 0, NULL);
      IN_REGION(c, &spin->regions[0], {
        vir_value *pub = poll(c, p, VMS_HDR_PUBLISHED, VIR_SCOPE_DEVICE);
        vir_value *fin = bin(c, VIR_OP_LT, bin(c, VIR_OP_SUB, pub, prev), k32(c, 0x80000000u));
        vir_value *ack = poll(c, p, VMS_HDR_ACK, VIR_SCOPE_QUEUE_FAMILY);
        vir_value *credit = bin(c, VIR_OP_LT, bin(c, VIR_OP_SUB, s, ack), cap);
        vir_value *closed = poll(c, p, VMS_HDR_CLOSED, VIR_SCOPE_QUEUE_FAMILY);
        vir_value *ready = bin(c, VIR_OP_LOR, bin(c, VIR_OP_LOR, credit, bin(c, VIR_OP_NE, closed, k32(c, 0))),
                               vir_result(vir_build(&c->b, VIR_OP_LNOT, c->b1, 1, &block)));
        vir_value *both = bin(c, VIR_OP_LAND, fin, ready);
        vir_value *waiting = vir_result(vir_build(&c->b, VIR_OP_LNOT, c->b1, 1, &both));
        /* waiting for other workgroups (the slot's previous frame) has its
         * own, shorter bound: workgroups that have not started cannot
         * arrive while this one spins (no forward progress between
         * workgroups), so a long wait there is a deadlock, not a slow
         * consumer; giving up drops the frame and the host warns */
        vir_value *o3l[3] = {fin, lim, fin_lim};
        vir_value *bound = vir_result(vir_build(&c->b, VIR_OP_SELECT, c->u32, 3, o3l));
        vir_value *more = bin(c, VIR_OP_LAND, waiting, bin(c, VIR_OP_LT, lload(c, p->spin), bound));
        vir_build(&c->b, VIR_OP_CONDITION, NULL, 1, &more);
      });
      IN_REGION(c, &spin->regions[1], lstore(c, p->spin, bin(c, VIR_OP_ADD, lload(c, p->spin), k32(c, 1))));
      /* the decision this leader proposes */
      vir_value *pub = poll(c, p, VMS_HDR_PUBLISHED, VIR_SCOPE_DEVICE);
      vir_value *fin = named(bin(c, VIR_OP_LT, bin(c, VIR_OP_SUB, pub, prev), k32(c, 0x80000000u)),
                             "slot_free");
      vir_value *ack = poll(c, p, VMS_HDR_ACK, VIR_SCOPE_QUEUE_FAMILY);
      vir_value *credit = named(bin(c, VIR_OP_LT, bin(c, VIR_OP_SUB, s, ack), cap), "credit");
      vir_value *closed = poll(c, p, VMS_HDR_CLOSED, VIR_SCOPE_QUEUE_FAMILY);
      vir_value *isopen = bin(c, VIR_OP_EQ, closed, k32(c, 0));
      vir_value *over = bin(c, VIR_OP_EQ, policy, k32(c, VMS_POLICY_OVERWRITE));
      vir_value *want = named(bin(c, VIR_OP_LAND, bin(c, VIR_OP_LAND, fin, isopen),
                                  bin(c, VIR_OP_LOR, credit, over)), "write");
      /* a wait that gave up: counted (the host reports it) */
      vir_value *gaveup = bin(c, VIR_OP_LOR, vir_result(vir_build(&c->b, VIR_OP_LNOT, c->b1, 1, &fin)),
                              bin(c, VIR_OP_LAND, block, bin(c, VIR_OP_LAND, isopen,
                                  vir_result(vir_build(&c->b, VIR_OP_LNOT, c->b1, 1, &credit)))));
      vir_op *gu = build_if(c, gaveup);
      IN_REGION(c, &gu->regions[0], ring_atomic(c, p, VIR_OP_ATOMIC_ADD, k32(c, VMS_HDR_GPU_TIMEOUTS),
                                                k32(c, 1), NULL, VIR_SCOPE_DEVICE, VIR_SEM_RELAXED));
      /* the grid's one decision: ((s+1) << 1) | dropped, first come wins */
      vir_value *tag = bin(c, VIR_OP_SHL, bin(c, VIR_OP_ADD, s, k32(c, 1)), k32(c, 1));
      vir_value *o3[3] = {want, k32(c, 0), k32(c, 1)};
      vir_value *mine = named(bin(c, VIR_OP_OR, tag, vir_result(vir_build(&c->b, VIR_OP_SELECT, c->u32, 3, o3))),
                              "proposal");
      vir_value *dw = bin(c, VIR_OP_ADD, sw, k32(c, VMS_SLOT_DECIDE));
      lstore(c, p->cur, ring_atomic(c, p, VIR_OP_ATOMIC_LOAD, dw, NULL, NULL, VIR_SCOPE_DEVICE,
                                    VIR_SEM_ACQUIRE));
      /* No loop: once the slot's previous frame is finalized, only
       * proposals for s change the word, so one failed swap means another
       * workgroup's decision for s is in it. */
      vir_value *cur0 = lload(c, p->cur);
      vir_value *undecided = bin(c, VIR_OP_NE, bin(c, VIR_OP_SHR, cur0, k32(c, 1)),
                                 bin(c, VIR_OP_ADD, s, k32(c, 1)));
      vir_op *propose = build_if(c, undecided);
      IN_REGION(c, &propose->regions[0], {
        vir_value *old = ring_atomic(c, p, VIR_OP_ATOMIC_CMPXCHG, dw, cur0, mine, VIR_SCOPE_DEVICE,
                                     VIR_SEM_ACQ_REL);
        vir_value *o3c[3] = {bin(c, VIR_OP_EQ, old, cur0), mine, old};
        lstore(c, p->cur, named(vir_result(vir_build(&c->b, VIR_OP_SELECT, c->u32, 3, o3c)), "decision"));
      });
      vir_value *go = named(bin(c, VIR_OP_EQ, bin(c, VIR_OP_AND, lload(c, p->cur), k32(c, 1)), k32(c, 0)),
                            "go");
      vir_value *o3b[3] = {go, k32(c, 1), k32(c, 0)};
      vir_value *gow = vir_result(vir_build(&c->b, VIR_OP_SELECT, c->u32, 3, o3b));
      lstore(c, p->go, gow);
      vir_op *wr = build_if(c, go);
      IN_REGION(c, &wr->regions[0], {
        /* seqlock: the tag is odd while the frame is written */
        ring_atomic(c, p, VIR_OP_ATOMIC_STORE, bin(c, VIR_OP_ADD, sw, k32(c, VMS_SLOT_TAG)),
                    bin(c, VIR_OP_ADD, bin(c, VIR_OP_MUL, s, k32(c, 2)), k32(c, 1)), NULL,
                    VIR_SCOPE_QUEUE_FAMILY, VIR_SEM_RELAXED);
        membar(c, VIR_SCOPE_QUEUE_FAMILY, VIR_SEM_RELEASE);
        vir_value *so[2] = {bin(c, VIR_OP_ADD, sw, k32(c, VMS_SLOT_SIG)), fire->opnd[0]};
        vir_build(&c->b, VIR_OP_BUFFER_STORE, NULL, 2, so)->attr.sym = p->ring;
        for (uint32_t i = 1; i < fire->nopnd; i++) {
          vir_value *v = fire->opnd[i];
          if (v->type != c->u32)
            v = vir_result(vir_build(&c->b, VIR_OP_BITCAST, c->u32, 1, &v));
          vir_value *po[2] = {bin(c, VIR_OP_ADD, sw, k32(c, VMS_SLOT_PAYLOAD + i - 1)), v};
          vir_build(&c->b, VIR_OP_BUFFER_STORE, NULL, 2, po)->attr.sym = p->ring;
        }
      });
      sstore(c, p, 0, gow);
      sstore(c, p, 1, bin(c, VIR_OP_MUL, slot, hdr(c, p, VMS_HDR_FRAME_STRIDE)));
    });
    /* 3. the workgroup learns the decision; the body writes the frame */
    vir_build(&c->b, VIR_OP_BARRIER, NULL, 0, NULL);
    vir_value *g = sload(c, p, 0);
    vir_value *fbase = named(sload(c, p, 1), "frame_base");
    vir_value *felems = named(hdr(c, p, VMS_HDR_FRAME_ELEMS), "frame_elems");
    vir_op *body = build_if(c, bin(c, VIR_OP_NE, g, k32(c, 0)));
    vir_region_splice(&body->regions[0], NULL, &fire->regions[0]);
    vir_builder keep = c->b;
    offset_stores(c, p, &body->regions[0], fbase, felems);
    c->b = keep;
    /* 4. publish: the last workgroup to arrive */
    membar(c, VIR_SCOPE_QUEUE_FAMILY, VIR_SEM_RELEASE);
    vir_build(&c->b, VIR_OP_BARRIER, NULL, 0, NULL);
    vir_op *arrive = build_if(c, leader);
    IN_REGION(c, &arrive->regions[0], {
      vir_value *nwg = vir_result(vir_build(&c->b, VIR_OP_NUM_WORKGROUPS,
                                            vir_ty_vec(c->m, c->u32, 3), 0, NULL));
      vir_value *e[3];
      for (uint32_t i = 0; i < 3; i++) {
        vir_op *x = vir_build(&c->b, VIR_OP_EXTRACT, c->u32, 1, &nwg);
        x->attr.index = i;
        e[i] = vir_result(x);
      }
      vir_value *groups = named(bin(c, VIR_OP_MUL, bin(c, VIR_OP_MUL, e[0], e[1]), e[2]), "groups");
      vir_value *sw = lload(c, p->slot), *s = lload(c, p->seq);
      vir_value *aw = bin(c, VIR_OP_ADD, sw, k32(c, VMS_SLOT_ARRIVE));
      vir_value *arrived = named(ring_atomic(c, p, VIR_OP_ATOMIC_ADD, aw, k32(c, 1), NULL,
                                             VIR_SCOPE_QUEUE_FAMILY, VIR_SEM_ACQ_REL), "arrived");
      vir_op *last = build_if(c, bin(c, VIR_OP_EQ, arrived, bin(c, VIR_OP_SUB, groups, k32(c, 1))));
      IN_REGION(c, &last->regions[0], {
        ring_atomic(c, p, VIR_OP_ATOMIC_STORE, aw, k32(c, 0), NULL, VIR_SCOPE_DEVICE,
                    VIR_SEM_RELAXED);
        vir_value *s1 = bin(c, VIR_OP_ADD, s, k32(c, 1));
        vir_op *pubif = build_if(c, bin(c, VIR_OP_NE, lload(c, p->go), k32(c, 0)));
        IN_REGION(c, &pubif->regions[0],
                  ring_atomic(c, p, VIR_OP_ATOMIC_STORE, bin(c, VIR_OP_ADD, sw, k32(c, VMS_SLOT_TAG)),
                              bin(c, VIR_OP_MUL, s1, k32(c, 2)), NULL, VIR_SCOPE_QUEUE_FAMILY,
                              VIR_SEM_RELEASE));
        IN_REGION(c, &pubif->regions[1],
                  ring_atomic(c, p, VIR_OP_ATOMIC_ADD, k32(c, VMS_HDR_GPU_DROPPED), k32(c, 1),
                              NULL, VIR_SCOPE_DEVICE, VIR_SEM_RELAXED));
        ring_atomic(c, p, VIR_OP_ATOMIC_MAX, k32(c, VMS_HDR_PUBLISHED), s1, NULL,
                    VIR_SCOPE_QUEUE_FAMILY, VIR_SEM_RELEASE);
      });
    });
  });
  vir_op_unlink(fire);
}

static bool has_fire(const vir_region *r) {
  for (const vir_op *op = r->first; op; op = op->next) {
    if (op->code == VIR_OP_MEMSOCK_FIRE)
      return true;
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      if (has_fire(&op->regions[i]))
        return true;
  }
  return false;
}

static vir_pass_result lower_func(vir_module *m, vir_func *f, vp_diags *diags) {
  if (!has_fire(&f->body))
    return VIR_PASS_UNCHANGED;
  vp_arena tmp = {0};
  uni u = {.a = &tmp, .diags = diags};
  if (!f->is_kernel) {
    vp_error(diags, f->loc, "pipe.fire is allowed in kernels only, not in helper functions");
    vp_arena_free(&tmp);
    return VIR_PASS_FAILURE;
  }
  do {
    u.changed = false;
    u.returned = false;
    uni_region(&u, &f->body, false, NULL);
  } while (u.changed);
  u.final = true;
  uni_region(&u, &f->body, false, NULL);
  lctx c = {.m = m, .f = f, .diags = diags};
  c.u32 = vir_ty_uint(m, 32);
  c.b1 = vir_ty_bool(m);
  vir_builder_init(&c.b, m);
  c.b.f = f;
  for (uint32_t i = 0; i < u.nfires && !u.failed; i++)
    if (has_fire(&u.fires[i]->regions[0])) {
      vp_error(diags, u.fires[i]->loc, "a fire inside a fire body");
      u.failed = true;
    }
  for (uint32_t i = 0; i < u.nfires && !u.failed; i++) {
    pipe p;
    if (!get_pipe(&c, u.fires[i], &p)) {
      u.failed = true;
      break;
    }
    /* the fire count starts at 0 in every invocation (once per pipe) */
    if (!vp_map_get(&u.div, (const char *)&p.fires, sizeof p.fires)) {
      vir_sym **key = vp_arena_alloc(&tmp, sizeof *key);
      *key = p.fires;
      vp_map_put(&tmp, &u.div, (const char *)key, sizeof *key, (void *)2);
      vir_builder_before(&c.b, f->body.first);
      c.b.loc = f->loc;
      lstore(&c, p.fires, k32(&c, 0));
    }
    lower_fire(&c, &p, u.fires[i]);
  }
  vp_arena_free(&tmp);
  return u.failed ? VIR_PASS_FAILURE : VIR_PASS_CHANGED;
}

vir_pass_result vir_lower_memsock(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  (void)opts;
  bool changed = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func)
      continue;
    vir_pass_result r = lower_func(m, s->func, diags);
    if (r == VIR_PASS_FAILURE)
      return r;
    changed |= r == VIR_PASS_CHANGED;
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
