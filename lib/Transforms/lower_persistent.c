/* lower_persistent.c - `--lower-persistent`: persistent.* ops into plain
 * kernel VIR (docs/persistent.md has the model and the word layouts).
 *
 * A kernel that holds persistent.grid_sync, persistent.step or
 * persistent.control is persistent. It gets two hidden buffers: @_vp_grid
 * (device words: discovery, the barrier's counter and generation, the step
 * counter, the snapshot of steering words) and @_vp_host (words the host
 * reads and writes while it runs: stop request, steps done, admitted
 * groups, status, the spin limit, the loop-budget canary), and a shared
 * @_vp_psh for what one invocation tells its group.
 *
 *  - Entry: occupancy discovery (Sorensen et al., OOPSLA 2016). One
 *    invocation per group adds one to the join word; a group that finds it
 *    closed leaves at once. A joiner waits (bounded) until every dispatched
 *    group joined, then closes the poll; the first closer publishes the
 *    admitted count. Joiners ran while the poll was open, so on devices
 *    with the occupancy-bound guarantee they are co-resident. Their join
 *    tickets are the virtual group ids; group_id, num_groups and the
 *    workgroup_id / num_workgroups / global_id built-ins use them.
 *    A first grid barrier then takes the first snapshot.
 *  - Grid barrier: fence, barrier(); one invocation per group reads the
 *    generation, arrives on the counter (acq_rel, device scope); the last
 *    arriver snapshots the stop request and the control words the kernel
 *    reads into @_vp_grid (at the entry and at step boundaries: control
 *    words change at step boundaries only), publishes the steps done,
 *    resets the counter and
 *    bumps the generation (release); the others spin on the generation
 *    (acquire) with a bounded spin that also watches for an abort. A
 *    timed-out or aborted group sets the abort word and returns; the
 *    others see it at their next barrier. barrier(), fence.
 *  - persistent.step (first in a time loop's body): a barrier that also
 *    counts the step, then `break` when the snapshot says stop.
 *  - persistent.control: a load of the word's snapshot slot.
 *  - After each time loop group 0 publishes the final step count; at the
 *    end a canary loop (trip count read from @_vp_host) detects lavapipe's
 *    per-invocation loop budget: once spent, every loop runs once, so a
 *    short count means some loop of the run was silently cut short.
 *
 * In kernels that are not persistent, group_id and num_groups become the
 * linear workgroup id and count (a grid_range loop in a plain kernel).
 */
#include <string.h>

#include "vulpy/passes.h"

#include "persistent.h"

#define CLOSED 0x80000000u
#define NO_GROUP 0xffffffffu
/* @_vp_psh: [0] group id, [1] group count, [2] abort, [3] the stop snapshot
 * (the leader reads it once for its group) */
enum { S_GID, S_NG, S_ABORT, S_STOP, S_WORDS };

typedef struct pl {
  vir_module *m;
  vir_func *k;
  vir_builder b;
  vir_sym *grid, *host, *sh;
  vir_value *li, *gid, *ng;         /* local_index, virtual group id and count */
  vir_value *rmw;                   /* bool: poll with a read-modify-write */
  vir_value *begin;                 /* bounded slices: steps done before this dispatch
                                     * (NULL: the kernel cannot resume) */
  vir_value *resume;                /* bounded slices: nonzero on a relaunch */
  vir_op *loop;                     /* the time loop of a resumable kernel */
  unsigned variant;                 /* V_* bits: the barrier variant */
  uint32_t gen_word;                /* G_GEN or G_GEN_PAD */
  vir_sym *lphase, *lbits, *lsteps; /* V_FLIP: the leader's phase bit, (group 0) stop
                                     * bits and steps done */
  vir_sym *bank;                    /* V_FLIP: every invocation's snapshot bank */
  vir_sym *lbar;                    /* V_QUIET: the barriers passed (group 0's leader) */
  vir_value *tree;                  /* V_TREE: bool, the two-level arrival (set at entry) */
  bool nonprivate;                  /* some buffer is non-private: device fences stay */
  /* V_EARLY: group 0's leader reads the stop request, the yield word and
   * the control words while it waits at a barrier, for the next step
   * boundary (its variables; entry_done: the entry barrier is behind) */
  vir_sym *pstop, *pyield, *pctl[MAX_SLOTS];
  bool entry_done;
  vir_sym *slot_sym[MAX_SLOTS];     /* control snapshot slots: (buffer, word) */
  vir_value *slot_word[MAX_SLOTS];  /* the word index value (a const) */
  uint64_t slot_lit[MAX_SLOTS];
  uint32_t nslots, nlocals;
  bool failed;
  vp_diags *diags;
} pl;

static vir_type *u32(pl *l) { return vir_ty_uint(l->m, 32); }

static vir_op *op(pl *l, vir_opcode c, vir_type *t, uint32_t n, vir_value **a) {
  vir_op *o = vir_build(&l->b, c, t, n, a);
  if (!o)
    l->failed = true;
  return o;
}
static vir_value *val(vir_op *o) { return o ? &o->val : NULL; }
static vir_value *ku(pl *l, uint32_t v) { return vir_build_int(&l->b, u32(l), v); }
static vir_value *bin(pl *l, vir_opcode c, vir_value *a, vir_value *b) {
  vir_value *x[2] = {a, b};
  return a && b ? val(op(l, c, vir_infer_type(l->m, c, 2, x), 2, x)) : (l->failed = true, NULL);
}

/* atomic op on word `w` of `s`; `v` is NULL for loads */
static vir_value *atom(pl *l, vir_opcode c, vir_sym *s, uint32_t w, vir_value *v, vir_scope sc,
                       vir_semantics se) {
  vir_value *a[2] = {ku(l, w), v};
  vir_op *o = op(l, c, c == VIR_OP_ATOMIC_STORE ? NULL : u32(l), v ? 2 : 1, a);
  if (o) {
    o->attr.sym = s;
    o->attr.scope = sc;
    o->attr.sem = se;
  }
  return val(o);
}
static vir_value *load(pl *l, vir_sym *s, uint32_t w, vir_semantics se) {
  return atom(l, VIR_OP_ATOMIC_LOAD, s, w, NULL, VIR_SCOPE_DEVICE, se);
}
static void store(pl *l, vir_sym *s, uint32_t w, vir_value *v, vir_semantics se) {
  atom(l, VIR_OP_ATOMIC_STORE, s, w, v, VIR_SCOPE_DEVICE, se);
}
static vir_value *sh_load(pl *l, uint32_t w) {
  vir_value *i = ku(l, w);
  vir_op *o = op(l, VIR_OP_SHARED_LOAD, u32(l), 1, &i);
  if (o)
    o->attr.sym = l->sh;
  return val(o);
}
static void sh_store(pl *l, uint32_t w, vir_value *v) {
  vir_value *a[2] = {ku(l, w), v};
  vir_op *o = op(l, VIR_OP_SHARED_STORE, NULL, 2, a);
  if (o)
    o->attr.sym = l->sh;
}
static void fence(pl *l) {
  vir_op *o = op(l, VIR_OP_MEMORY_BARRIER, NULL, 0, NULL);
  if (o) {
    o->attr.scope = VIR_SCOPE_DEVICE;
    o->attr.sem = VIR_SEM_ACQ_REL;
    o->attr.storage = VIR_STORAGE_BUFFER;
  }
}
static void wg_barrier(pl *l) { op(l, VIR_OP_BARRIER, NULL, 0, NULL); }
/* V_SCOPED: a workgroup-scope fence (GLSL groupMemoryBarrier(); no
 * device-wide wait). Around barrier() it orders a group's buffer accesses
 * with its leader's: a release fence before the control barrier
 * synchronizes with an acquire fence after it in another invocation of
 * the group (Vulkan memory model), and the leader's device-scope arrival
 * and acquire fence carry that on to the other groups, as CUDA's grid sync
 * does with __syncthreads() and one __threadfence() in the leader. */
static void wg_fence(pl *l) {
  vir_op *o = op(l, VIR_OP_MEMORY_BARRIER, NULL, 0, NULL);
  if (o) {
    o->attr.scope = VIR_SCOPE_WORKGROUP;
    o->attr.sem = VIR_SEM_ACQ_REL;
    o->attr.storage = VIR_STORAGE_BUFFER;
  }
}
/* the fences every invocation runs around the barrier's barrier():
 * workgroup scope in the V_SCOPED variants (but device scope where buffers
 * are non-private: there the device-scope fences are what makes each
 * invocation's writes available and the others' visible) */
static void outer_fence(pl *l) {
  if ((l->variant & V_SCOPED) && !l->nonprivate)
    wg_fence(l);
  else
    fence(l);
}
static vir_sym *local(pl *l, const char *name, vir_value *init);
static vir_value *lload(pl *l, vir_sym *s);
static void lstore(pl *l, vir_sym *s, vir_value *v);

/* A wait's read-modify-write poll (lavapipe) is one atomic while the wait
 * is young, then RMW_SLOW_POLLS atomics in a row, the last one's value
 * used. Lavapipe bounds a wait by loop back-edges (65,535 an invocation in
 * all), not time: one atomic a back-edge (~30 ns on a CPU core) made the
 * 20,000-poll spin limit a 2 ms wait, shorter than the OS may park the
 * thread of the group waited for on a loaded 2-core machine (CI saw such
 * timeouts); 32 in a row stretch the same back-edges over ~1 us each, a
 * ~20 ms wait. The first RMW_FAST_POLLS polls stay single: most waits end
 * within them, and a long poll there would make every wait a long one
 * (each barrier notices late, the next waits longer, and a run of many
 * steps spends more of the budget, not less). The barrier word only moves
 * on once every group arrived, and abort bits stay set, so the last poll
 * sees whatever an earlier one would have. (A constant-trip loop would
 * read shorter, but whether a driver unrolls it decides whether its
 * back-edges draw on the budget.) */
#define RMW_FAST_POLLS 64u
#define RMW_SLOW_POLLS 32u

/* A poll of word `w` inside a spin loop: a relaxed load, or where the
 * host asked for it (H_FLAGS) an atomic or with 0, which no compiler moves
 * out of the loop; where `k` (the wait's spin count) is given, the
 * RMW_SLOW_POLLS in a row once it reached RMW_FAST_POLLS. Relaxed, with
 * a fence after the loop: lavapipe (Mesa 22.3) drops the whole dispatch
 * when an atomic with acquire semantics sits in a loop under a branch
 * that only some invocations take. */
static vir_value *rmw_polls(pl *l, vir_sym *s, uint32_t w, vir_sym *k) {
  if (k) {
    vir_value *c = bin(l, VIR_OP_GE, lload(l, k), ku(l, RMW_FAST_POLLS));
    vir_op *o = op(l, VIR_OP_IF, NULL, 1, &c);
    if (!o)
      return NULL;
    vir_region *save_r = l->b.region;
    vir_op *save_b = l->b.before;
    vir_builder_at_end(&l->b, &o->regions[0]);
    for (uint32_t i = 1; i < RMW_SLOW_POLLS; i++)
      atom(l, VIR_OP_ATOMIC_OR, s, w, ku(l, 0), VIR_SCOPE_DEVICE, VIR_SEM_RELAXED);
    l->b.region = save_r;
    l->b.before = save_b;
  }
  return atom(l, VIR_OP_ATOMIC_OR, s, w, ku(l, 0), VIR_SCOPE_DEVICE, VIR_SEM_RELAXED);
}
static vir_value *poll_sem(pl *l, vir_sym *s, uint32_t w, vir_semantics se, vir_sym *k) {
  vir_sym *t = local(l, "_vp_poll", ku(l, 0));
  vir_op *o = op(l, VIR_OP_IF, NULL, 1, &l->rmw);
  vir_region *save_r = l->b.region;
  vir_op *save_b = l->b.before;
  if (!o)
    return NULL;
  vir_builder_at_end(&l->b, &o->regions[0]);
  lstore(l, t, rmw_polls(l, s, w, k));
  vir_builder_at_end(&l->b, &o->regions[1]);
  lstore(l, t, atom(l, VIR_OP_ATOMIC_LOAD, s, w, NULL, VIR_SCOPE_DEVICE, se));
  l->b.region = save_r;
  l->b.before = save_b;
  return lload(l, t);
}
static vir_value *poll(pl *l, vir_sym *s, uint32_t w) {
  return poll_sem(l, s, w, VIR_SEM_RELAXED, NULL);
}

/* Structured control: `iff` builds `if c { ... } else { ... }` and moves the
 * builder into region `r` of it; `leave` moves back. */
typedef struct at {
  vir_region *region;
  vir_op *before;
} at;
static at here(pl *l) { return (at){l->b.region, l->b.before}; }
static void back(pl *l, at a) {
  l->b.region = a.region;
  l->b.before = a.before;
}
static vir_op *iff(pl *l, vir_value *c) {
  if (!c) {
    l->failed = true;
    return NULL;
  }
  return op(l, VIR_OP_IF, NULL, 1, &c);
}
static void into(pl *l, vir_op *o, unsigned r) {
  if (o)
    vir_builder_at_end(&l->b, &o->regions[r]);
  else
    l->failed = true;
}
static vir_sym *local(pl *l, const char *name, vir_value *init) {
  name = vp_arena_printf(&l->m->arena, "%s%u", name, l->nlocals++);
  vir_sym *s = name ? vir_func_add_local(l->m, l->k, name, u32(l), l->k->loc) : NULL;
  if (!s) {
    l->failed = true;
    return NULL;
  }
  vir_op *o = op(l, VIR_OP_LOCAL_STORE, NULL, 1, &init);
  if (o)
    o->attr.sym = s;
  return s;
}
static vir_value *lload(pl *l, vir_sym *s) {
  vir_op *o = op(l, VIR_OP_LOCAL_LOAD, u32(l), 0, NULL);
  if (o)
    o->attr.sym = s;
  return val(o);
}
static void lstore(pl *l, vir_sym *s, vir_value *v) {
  vir_op *o = op(l, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  if (o)
    o->attr.sym = s;
}
static void term(pl *l, vir_opcode c) { op(l, c, NULL, 0, NULL); }

/* k += 1; if k >= spin limit: { on_timeout; break } (inside a loop) */
static void spin_tick(pl *l, vir_sym *k, vir_value *limit, bool timeout_flags) {
  vir_value *kk = bin(l, VIR_OP_ADD, lload(l, k), ku(l, 1));
  lstore(l, k, kk);
  vir_op *t = iff(l, bin(l, VIR_OP_GE, kk, limit));
  at a = here(l);
  into(l, t, 0);
  if (timeout_flags) {
    atom(l, VIR_OP_ATOMIC_OR, l->host, H_STATUS, ku(l, ST_TIMEOUT), VIR_SCOPE_DEVICE,
         VIR_SEM_RELAXED);
    store(l, l->grid, G_ABORT, ku(l, 1), VIR_SEM_RELAXED);
    if (l->variant & V_FLIP) /* wakes every waiter at once */
      atom(l, VIR_OP_ATOMIC_OR, l->grid, l->gen_word, ku(l, GEN_ABORT), VIR_SCOPE_DEVICE,
           VIR_SEM_RELAXED);
  }
  term(l, VIR_OP_BREAK);
  back(l, a);
}

/* The snapshot slot of control word (s, w), made on first use. */
static int slot_of(pl *l, vir_sym *s, uint64_t w) {
  for (uint32_t i = 0; i < l->nslots; i++)
    if (l->slot_sym[i] == s && l->slot_lit[i] == w)
      return (int)i;
  if (l->nslots == MAX_SLOTS)
    return -1;
  l->slot_sym[l->nslots] = s;
  l->slot_lit[l->nslots] = w;
  return (int)l->nslots++;
}

/* The stop and abort words are polled once every SLOW_POLL spins of a
 * barrier wait: a wait then costs one relaxed load of the generation a
 * poll, and an abort is still seen within microseconds. */
#define SLOW_POLL 64u

/* What every barrier variant shares. Each helper builds its ops in the
 * order the variants did before they were factored out (the lowered VIR
 * and GLSL are byte-identical): a helper's operands that build ops are
 * computed by the caller first. */

/* The control word of snapshot slot i, read (relaxed: a control word is a
 * value, not a flag guarding a payload) from the kernel's buffer. */
static vir_value *ctl_load(pl *l, uint32_t i) {
  vir_value *w = ku(l, (uint32_t)l->slot_lit[i]);
  vir_op *o = op(l, VIR_OP_ATOMIC_LOAD, u32(l), 1, &w);
  if (o) {
    o->attr.sym = l->slot_sym[i];
    o->attr.scope = VIR_SCOPE_DEVICE;
    o->attr.sem = VIR_SEM_RELAXED;
  }
  return val(o);
}

/* Bounded slices: the stop snapshot `stop`, or STOP_YIELD where the host
 * raised the yield word (`y`), no stop was asked and this dispatch did a
 * step (`steps` past l->begin: every slice makes progress). The time loop
 * then ends with the snapshot STOP_YIELD and the kernel leaves without
 * the code after the loop. */
static vir_value *yield_stop(pl *l, vir_value *stop, vir_value *y, vir_value *steps) {
  vir_value *go = bin(l, VIR_OP_LAND,
                      bin(l, VIR_OP_LAND, bin(l, VIR_OP_EQ, stop, ku(l, 0)),
                          bin(l, VIR_OP_NE, y, ku(l, 0))),
                      bin(l, VIR_OP_NE, steps, l->begin));
  vir_value *sa[3] = {go, ku(l, STOP_YIELD), stop};
  return val(op(l, VIR_OP_SELECT, u32(l), 3, sa));
}

/* The stop snapshot as the bits a barrier word carries: 0 (run),
 * `on_stop` or `on_yield` (STOP_YIELD). */
static vir_value *stop_bits(pl *l, vir_value *stop, uint32_t on_yield, uint32_t on_stop) {
  vir_value *b1[3] = {bin(l, VIR_OP_EQ, stop, ku(l, STOP_YIELD)), ku(l, on_yield),
                      ku(l, on_stop)};
  vir_value *b0[3] = {bin(l, VIR_OP_EQ, stop, ku(l, 0)), ku(l, 0),
                      val(op(l, VIR_OP_SELECT, u32(l), 3, b1))};
  return val(op(l, VIR_OP_SELECT, u32(l), 3, b0));
}

/* The leader's steps done after a step boundary: a stopped step does not
 * count. */
static void count_step(pl *l, vir_value *steps, vir_value *stop) {
  vir_value *inc[3] = {bin(l, VIR_OP_EQ, stop, ku(l, 0)), ku(l, 1), ku(l, 0)};
  lstore(l, l->lsteps, bin(l, VIR_OP_ADD, steps, val(op(l, VIR_OP_SELECT, u32(l), 3, inc))));
}

/* V_QUIET: the host's counters are written every QUIET_EVERY barriers
 * (and exactly where the time loop and the kernel end). */
#define QUIET_EVERY 64u

/* The host's counters (steps done, barriers passed), written after the
 * release: not on the path the other groups wait on. V_QUIET (V_FLIP:
 * group 0's leader is the only writer) counts the barriers in a variable
 * and writes both words every QUIET_EVERY barriers, with plain stores
 * instead of an atomic add: no host-word traffic in most barriers, so
 * nothing for group 0's next fence to wait on. */
static void publish_host(pl *l, vir_value *steps) {
  if (l->variant & V_QUIET) {
    vir_value *n = bin(l, VIR_OP_ADD, lload(l, l->lbar), ku(l, 1));
    lstore(l, l->lbar, n);
    vir_op *due = iff(l, bin(l, VIR_OP_EQ, bin(l, VIR_OP_AND, n, ku(l, QUIET_EVERY - 1)), ku(l, 0)));
    at a = here(l);
    into(l, due, 0);
    store(l, l->host, H_STEPS, steps, VIR_SEM_RELAXED);
    store(l, l->host, H_BARRIERS, n, VIR_SEM_RELAXED);
    back(l, a);
    return;
  }
  store(l, l->host, H_STEPS, steps, VIR_SEM_RELAXED);
  atom(l, VIR_OP_ATOMIC_ADD, l->host, H_BARRIERS, ku(l, 1), VIR_SCOPE_DEVICE, VIR_SEM_RELAXED);
}

/* V_QUIET: group 0's leader writes the exact barrier count at the end of
 * the kernel (the host reads it once the dispatch is done). */
static void publish_barriers(pl *l) {
  if (!(l->variant & V_QUIET))
    return;
  vir_op *g0 = iff(l, bin(l, VIR_OP_LAND, bin(l, VIR_OP_EQ, l->gid, ku(l, 0)),
                          bin(l, VIR_OP_EQ, l->li, ku(l, 0))));
  at a = here(l);
  into(l, g0, 0);
  store(l, l->host, H_BARRIERS, lload(l, l->lbar), VIR_SEM_RELAXED);
  back(l, a);
}

/* A leader's wait at a grid barrier: poll word `word` of @_vp_grid until
 * it moved from `expect` (in the bits of `mask`, where one is given),
 * bounded by the spin limit; `got` (where given) receives the value that
 * ended the wait. Every SLOW_POLL polls (every poll where the host asked
 * for read-modify-write polls: there the spin limit counts loop
 * back-edges, lavapipe's budget, not time, and more polls a back-edge
 * (RMW_SLOW_POLLS) stretch the same budget over the wall time a
 * descheduled thread may need) it also watches for an abort: the host's (H_STOP >= 2)
 * and, in the lean barrier, another group's (G_ABORT); the flip
 * barriers see another group's abort in the word itself (GEN_ABORT),
 * and an abort of their own sets that bit, which wakes every waiter. The
 * acquire fence after the wait is the caller's. */
static void spin_wait(pl *l, vir_value *limit, uint32_t word, vir_value *expect, vir_value *mask,
                      vir_sym *got) {
  bool in_word = l->variant & V_FLIP;
  vir_sym *k = local(l, "_vp_spin", ku(l, 0));
  vir_op *loop = op(l, VIR_OP_LOOP, NULL, 0, NULL);
  at a = here(l);
  into(l, loop, 0);
  /* V_ACQPOLL: every poll of the barrier word an acquire load, as CUDA's
   * grid.sync() spins (ld.acquire.gpu); the read-modify-write polls the
   * host asks for on lavapipe stay relaxed (the caller acquires after) */
  vir_value *v = poll_sem(l, l->grid, word,
                          (l->variant & V_ACQPOLL) && !l->nonprivate ? VIR_SEM_ACQUIRE
                                                                     : VIR_SEM_RELAXED,
                          k);
  vir_value *moved_if =
      mask ? bin(l, VIR_OP_NE, bin(l, VIR_OP_AND, bin(l, VIR_OP_XOR, v, expect), mask), ku(l, 0))
           : bin(l, VIR_OP_NE, v, expect);
  vir_op *moved = iff(l, moved_if);
  at b = here(l);
  into(l, moved, 0);
  if (got)
    lstore(l, got, v);
  term(l, VIR_OP_BREAK);
  back(l, b);
  vir_value *kk = lload(l, k);
  vir_op *slow = iff(l, bin(l, VIR_OP_LOR, l->rmw,
                           bin(l, VIR_OP_EQ, bin(l, VIR_OP_AND, kk, ku(l, SLOW_POLL - 1)),
                               ku(l, SLOW_POLL - 1))));
  b = here(l);
  into(l, slow, 0);
  vir_value *quit_if;
  if (in_word) {
    quit_if = bin(l, VIR_OP_GE, poll(l, l->host, H_STOP), ku(l, 2));
  } else {
    vir_value *ab = poll(l, l->grid, G_ABORT);
    vir_value *hs = poll(l, l->host, H_STOP);
    quit_if = bin(l, VIR_OP_LOR, bin(l, VIR_OP_NE, ab, ku(l, 0)), bin(l, VIR_OP_GE, hs, ku(l, 2)));
  }
  vir_op *quit = iff(l, quit_if);
  at c = here(l);
  into(l, quit, 0);
  store(l, l->grid, G_ABORT, ku(l, 1), VIR_SEM_RELAXED);
  if (in_word)
    atom(l, VIR_OP_ATOMIC_OR, l->grid, word, ku(l, GEN_ABORT), VIR_SCOPE_DEVICE, VIR_SEM_RELAXED);
  term(l, VIR_OP_BREAK);
  back(l, c);
  back(l, b);
  spin_tick(l, k, limit, true);
  back(l, a);
}

/* The end of every grid barrier: barrier(), the fence that acquires what
 * the leader saw, and an aborted run's exit (every invocation of the
 * group leaves together). */
static void rejoin(pl *l) {
  wg_barrier(l);
  outer_fence(l);
  vir_op *ab = iff(l, bin(l, VIR_OP_NE, sh_load(l, S_ABORT), ku(l, 0)));
  at a = here(l);
  into(l, ab, 0);
  term(l, VIR_OP_RETURN);
  back(l, a);
}

/* The grid barrier at the builder; `step`: also count the step; `snap`:
 * also snapshot the stop request and the control words (at the entry and
 * at step boundaries only, as the stepped form does).
 *
 * Lean by design (issue 15: the barrier was the persistent loop's cost on
 * the H200; bench/notes/runtime.md): the
 * only ordered operations on the critical path are the arrival (acq_rel,
 * device scope), the generation bump (release) and one fence after the
 * wait (acquire); everything else is relaxed. The wait polls only the
 * generation, with the abort and host-stop checks every SLOW_POLL polls
 * (every poll where the host asked for read-modify-write polls: lavapipe),
 * and the host-visible bookkeeping (steps done, barriers passed) is
 * written after the generation bump, off the path the other groups wait
 * on. */
static void grid_barrier_flip(pl *l, vir_value *limit, bool step, bool snap);

static void grid_barrier(pl *l, vir_value *limit, bool step, bool snap) {
  if (l->variant & V_FLIP) {
    grid_barrier_flip(l, limit, step, snap);
    return;
  }
  /* fence, barrier: each invocation releases its writes; the leader's own
   * fence after the barrier makes its arrival cumulative over what the
   * group wrote (CUDA's cooperative grid sync does the same) */
  fence(l);
  wg_barrier(l);
  vir_op *lead = iff(l, bin(l, VIR_OP_EQ, l->li, ku(l, 0)));
  at out = here(l);
  into(l, lead, 0);
  fence(l);
  /* relaxed: the acq_rel arrival after it keeps it in front */
  vir_value *gen = load(l, l->grid, l->gen_word, VIR_SEM_RELAXED);
  vir_value *old = atom(l, VIR_OP_ATOMIC_ADD, l->grid, G_ARRIVE, ku(l, 1), VIR_SCOPE_DEVICE,
                        VIR_SEM_ACQ_REL);
  vir_op *last = iff(l, bin(l, VIR_OP_EQ, old, bin(l, VIR_OP_SUB, l->ng, ku(l, 1))));
  at in = here(l);
  into(l, last, 0);
  { /* the last arriver: snapshot, release the others, then publish */
    /* relaxed: a control word is a value, not a flag guarding a payload;
     * the generation's release orders the snapshot before the others */
    vir_value *stop = snap ? load(l, l->host, H_STOP, VIR_SEM_RELAXED) : NULL;
    for (uint32_t i = 0; snap && i < l->nslots; i++)
      store(l, l->grid, G_SNAP + i, ctl_load(l, i), VIR_SEM_RELAXED);
    /* the steps done: the steps that began before this boundary */
    vir_value *steps = load(l, l->grid, G_STEPS, VIR_SEM_RELAXED);
    if (step && l->begin) /* bounded slices */
      stop = yield_stop(l, stop, load(l, l->host, H_YIELD, VIR_SEM_RELAXED), steps);
    if (snap)
      store(l, l->grid, G_STOP, stop, VIR_SEM_RELAXED);
    if (step) { /* a stopped step does not count */
      vir_op *go = iff(l, bin(l, VIR_OP_EQ, stop, ku(l, 0)));
      at a = here(l);
      into(l, go, 0);
      store(l, l->grid, G_STEPS, bin(l, VIR_OP_ADD, steps, ku(l, 1)), VIR_SEM_RELAXED);
      back(l, a);
    }
    store(l, l->grid, G_ARRIVE, ku(l, 0), VIR_SEM_RELAXED);
    store(l, l->grid, l->gen_word, bin(l, VIR_OP_ADD, gen, ku(l, 1)), VIR_SEM_RELEASE);
    publish_host(l, steps);
  }
  into(l, last, 1);
  /* the others: spin on the generation */
  spin_wait(l, limit, l->gen_word, gen, NULL, NULL);
  fence(l); /* acquire: what the last arriver released */
  back(l, in);
  /* relaxed: both paths above end in an acquire */
  sh_store(l, S_ABORT, load(l, l->grid, G_ABORT, VIR_SEM_RELAXED));
  if (snap) /* one load of the stop snapshot a group, not one an invocation */
    sh_store(l, S_STOP, load(l, l->grid, G_STOP, VIR_SEM_RELAXED));
  back(l, out);
  rejoin(l);
}

/* The snapshot slot i of bank `bank` (V_FLIP: two banks, FLIP_BANK words
 * apart), as a word index value. */
static vir_value *snap_word(pl *l, uint32_t i, vir_value *bank) {
  return bin(l, VIR_OP_ADD, ku(l, G_SNAP + i), bin(l, VIR_OP_MUL, bank, ku(l, FLIP_BANK)));
}
/* an atomic on word `w` (a value) of `s` */
static vir_value *atom_at(pl *l, vir_opcode c, vir_sym *s, vir_value *w, vir_value *v,
                          vir_semantics se) {
  vir_value *a[2] = {w, v};
  vir_op *o = op(l, c, c == VIR_OP_ATOMIC_STORE ? NULL : u32(l), v ? 2 : 1, a);
  if (o) {
    o->attr.sym = s;
    o->attr.scope = VIR_SCOPE_DEVICE;
    o->attr.sem = se;
  }
  return val(o);
}

/* V_TREE: the flip barrier's arrival in two levels where more groups run
 * than the host's threshold (H_TREE, 0: TREE_MIN; read once at the
 * entry, l->tree). One word takes every
 * arrival in the flat form, and arrivals on one word are serialized where
 * it lives (CUDA's own grid.sync(): 1.2 us at 132 groups, 3.7 at 1056 on
 * the H200, PERSISTENT.md). Here the groups come in clusters of C =
 * max(2, ceil(n / TREE_FANOUT)): each leader adds to its cluster's word
 * (its own 128-byte line, TREE_BASE + TREE_STRIDE * cluster) with the flip
 * rule among the cluster's m groups (its first group adds FLIP_PHASE -
 * (m-1) FLIP_UNIT, the others FLIP_UNIT), acq_rel: the arrival whose add
 * flips the cluster word's bit 31 is the cluster's last and has acquired
 * what every group of the cluster released; it alone adds to the barrier
 * word with the same rule among the K clusters (release), so the barrier
 * word flips as in the flat form, after every group arrived, and every
 * leader polls it as before. Group 0's stop bits change the barrier word
 * directly, by one relaxed add before its cluster arrival (only when they
 * change): that add happens before the cluster's release and so before
 * the flip. The value returned is the barrier word after this group's own
 * add (the cluster's last), or `phase` (not flipped: wait). The branch
 * on the group count is the same in every group. */
static vir_value *tree_arrive(pl *l, vir_sym *add, vir_sym *delta, vir_value *phase) {
  vir_semantics rel = (l->variant & V_SCOPED) ? VIR_SEM_RELEASE : VIR_SEM_ACQ_REL;
  vir_sym *mine = local(l, "_vp_mine", phase);
  vir_op *tree = iff(l, l->tree);
  at a = here(l);
  into(l, tree, 0);
  {
    vir_value *n = l->ng;
    /* C = max(2, ceil(n / TREE_FANOUT)), K = ceil(n / C) clusters */
    vir_value *c0 = bin(l, VIR_OP_DIV, bin(l, VIR_OP_ADD, n, ku(l, TREE_FANOUT - 1)),
                        ku(l, TREE_FANOUT));
    vir_value *cs[3] = {bin(l, VIR_OP_LT, c0, ku(l, 2)), ku(l, 2), c0};
    vir_value *C = val(op(l, VIR_OP_SELECT, u32(l), 3, cs));
    vir_value *K = bin(l, VIR_OP_DIV, bin(l, VIR_OP_SUB, bin(l, VIR_OP_ADD, n, C), ku(l, 1)), C);
    vir_value *cl = bin(l, VIR_OP_DIV, l->gid, C);
    vir_value *first = bin(l, VIR_OP_MUL, cl, C);
    vir_value *left = bin(l, VIR_OP_SUB, n, first);
    vir_value *ms[3] = {bin(l, VIR_OP_LT, left, C), left, C};
    vir_value *m = val(op(l, VIR_OP_SELECT, u32(l), 3, ms));
    vir_value *big = bin(l, VIR_OP_SUB, ku(l, FLIP_PHASE),
                         bin(l, VIR_OP_MUL, bin(l, VIR_OP_SUB, m, ku(l, 1)), ku(l, FLIP_UNIT)));
    vir_value *as[3] = {bin(l, VIR_OP_EQ, l->gid, first), big, ku(l, FLIP_UNIT)};
    vir_value *cadd = val(op(l, VIR_OP_SELECT, u32(l), 3, as));
    /* group 0's stop bits, straight into the barrier word (others: 0) */
    vir_value *d = lload(l, delta);
    vir_op *dz = iff(l, bin(l, VIR_OP_NE, d, ku(l, 0)));
    at b = here(l);
    into(l, dz, 0);
    atom(l, VIR_OP_ATOMIC_ADD, l->grid, l->gen_word, d, VIR_SCOPE_DEVICE, VIR_SEM_RELAXED);
    back(l, b);
    vir_value *cw = bin(l, VIR_OP_ADD, ku(l, TREE_BASE), bin(l, VIR_OP_MUL, cl, ku(l, TREE_STRIDE)));
    vir_value *cold = atom_at(l, VIR_OP_ATOMIC_ADD, l->grid, cw, cadd, VIR_SEM_ACQ_REL);
    vir_value *flipped = bin(l, VIR_OP_NE,
                             bin(l, VIR_OP_AND,
                                 bin(l, VIR_OP_XOR, cold, bin(l, VIR_OP_ADD, cold, cadd)),
                                 ku(l, FLIP_PHASE)),
                             ku(l, 0));
    vir_op *last = iff(l, flipped);
    b = here(l);
    into(l, last, 0);
    vir_value *rbig = bin(l, VIR_OP_SUB, ku(l, FLIP_PHASE),
                          bin(l, VIR_OP_MUL, bin(l, VIR_OP_SUB, K, ku(l, 1)), ku(l, FLIP_UNIT)));
    vir_value *rs[3] = {bin(l, VIR_OP_EQ, cl, ku(l, 0)), rbig, ku(l, FLIP_UNIT)};
    vir_value *radd = val(op(l, VIR_OP_SELECT, u32(l), 3, rs));
    vir_value *rold = atom(l, VIR_OP_ATOMIC_ADD, l->grid, l->gen_word, radd, VIR_SCOPE_DEVICE, rel);
    lstore(l, mine, bin(l, VIR_OP_ADD, rold, radd));
    back(l, b);
  }
  into(l, tree, 1);
  { /* the flat form */
    vir_value *av = lload(l, add);
    vir_value *old = atom(l, VIR_OP_ATOMIC_ADD, l->grid, l->gen_word, av, VIR_SCOPE_DEVICE, rel);
    lstore(l, mine, bin(l, VIR_OP_ADD, old, av));
  }
  back(l, a);
  return lload(l, mine);
}

/* The flip variant (V_FLIP) of the grid barrier: CUDA's cooperative
 * grid.sync() (cooperative_groups/details/sync.h) on one word. Every
 * leader adds to the barrier word once and polls it; group 0 adds
 * FLIP_PHASE - (n-1) FLIP_UNIT, every other group FLIP_UNIT, so the n-th
 * arrival, whichever it is, carries into bit 31 and that flip is the
 * release of everyone: no last arriver that must notice it is last, then
 * reset a counter and bump a generation with a second atomic (two
 * dependent device round trips on the path every group waits on before).
 * Each arrival is a release (a release sequence of read-modify-writes), so
 * a waiter that reads the flipped value (relaxed) and then fences
 * (acquire) sees what every group wrote before it arrived.
 *
 * What the last arriver did at the others' expense, group 0's leader does
 * before it arrives: at step boundaries it reads the stop request, the
 * yield word and the control words, writes the control words into the
 * snapshot bank of the coming phase (two banks: slow groups may still
 * read the current one) and puts the stop snapshot into the stop bits of
 * the coming phase (two pairs, for the same reason: group 0 may already
 * arrive at the next barrier while a slow group has yet to read the word),
 * changing them by the difference it adds. After its arrival (off every
 * path but its own) it publishes the steps done and counts the barrier.
 * An abort ors bit 0 (GEN_ABORT) into the word: every waiter wakes. */
static void grid_barrier_flip(pl *l, vir_value *limit, bool step, bool snap) {
  outer_fence(l);
  wg_barrier(l);
  vir_value *bank = lload(l, l->bank);
  vir_value *nbank = bin(l, VIR_OP_XOR, bank, ku(l, 1));
  vir_op *lead = iff(l, bin(l, VIR_OP_EQ, l->li, ku(l, 0)));
  at out = here(l);
  into(l, lead, 0);
  outer_fence(l); /* V_SCOPED: the arrival below is the device-scope release */
  vir_value *phase = lload(l, l->lphase);
  vir_value *steps = lload(l, l->lsteps);
  /* the coming phase's stop bits: bits 3-4 when it is 1, 1-2 when 0 */
  vir_value *one = bin(l, VIR_OP_NE, phase, ku(l, 0)); /* the coming phase is 0 */
  vir_value *shs[3] = {one, ku(l, 1), ku(l, 3)};
  vir_value *shift = val(op(l, VIR_OP_SELECT, u32(l), 3, shs));
  vir_value *is0 = bin(l, VIR_OP_EQ, l->gid, ku(l, 0));
  vir_sym *add = local(l, "_vp_add", ku(l, FLIP_UNIT));
  /* V_TREE: group 0's change of its stop bits, apart from its share */
  vir_sym *delta = (l->variant & V_TREE) ? local(l, "_vp_delta", ku(l, 0)) : NULL;
  vir_op *g0 = iff(l, is0);
  at in = here(l);
  into(l, g0, 0);
  { /* group 0: the snapshot, then its share of the flip */
    vir_value *sbits = ku(l, 0);
    bool early = (l->variant & V_EARLY) && l->entry_done;
    if (snap) {
      /* V_EARLY: what group 0 read at the last barrier's wait; the
       * control words are in the bank already */
      vir_value *stop = early ? lload(l, l->pstop) : load(l, l->host, H_STOP, VIR_SEM_RELAXED);
      for (uint32_t i = 0; !early && i < l->nslots; i++) {
        vir_value *c = ctl_load(l, i);
        atom_at(l, VIR_OP_ATOMIC_STORE, l->grid, snap_word(l, i, nbank), c, VIR_SEM_RELAXED);
      }
      if (step && l->begin) /* bounded slices */
        stop = yield_stop(l, stop,
                          early ? lload(l, l->pyield) : load(l, l->host, H_YIELD, VIR_SEM_RELAXED),
                          steps);
      sbits = stop_bits(l, stop, 2, 1); /* 0 run, 1 stop, 2 the slice is spent */
    }
    vir_value *lb = lload(l, l->lbits);
    vir_value *keep = bin(l, VIR_OP_AND, lb, bin(l, VIR_OP_XOR, bin(l, VIR_OP_SHL, ku(l, 3), shift),
                                                   ku(l, 0xffffffffu)));
    vir_value *nb = bin(l, VIR_OP_OR, keep, bin(l, VIR_OP_SHL, sbits, shift));
    lstore(l, l->lbits, nb);
    /* FLIP_PHASE - (n-1) FLIP_UNIT + (new bits - old bits), mod 2^32 */
    vir_value *share = bin(l, VIR_OP_SUB, ku(l, FLIP_PHASE),
                           bin(l, VIR_OP_MUL, bin(l, VIR_OP_SUB, l->ng, ku(l, 1)), ku(l, FLIP_UNIT)));
    lstore(l, add, bin(l, VIR_OP_ADD, share, bin(l, VIR_OP_SUB, nb, lb)));
    if (delta)
      lstore(l, delta, bin(l, VIR_OP_SUB, nb, lb));
  }
  back(l, in);
  vir_value *a = NULL, *old = NULL, *mine = NULL;
  if (l->variant & V_TREE) {
    mine = tree_arrive(l, add, delta, phase);
  } else {
    a = lload(l, add);
    old = atom(l, VIR_OP_ATOMIC_ADD, l->grid, l->gen_word, a, VIR_SCOPE_DEVICE,
               (l->variant & V_SCOPED) ? VIR_SEM_RELEASE : VIR_SEM_ACQ_REL);
  }
  g0 = iff(l, is0);
  in = here(l);
  into(l, g0, 0);
  publish_host(l, steps); /* after the arrival: off the others' path */
  if (l->variant & V_EARLY) {
    /* the next step boundary's inputs, read now: the loads are in flight
     * while this barrier waits, and nothing waits for them until then */
    lstore(l, l->pstop, load(l, l->host, H_STOP, VIR_SEM_RELAXED));
    if (l->begin)
      lstore(l, l->pyield, load(l, l->host, H_YIELD, VIR_SEM_RELAXED));
    for (uint32_t i = 0; i < l->nslots; i++)
      lstore(l, l->pctl[i], ctl_load(l, i));
  }
  back(l, in);
  /* done: the phase bit moved (this arrival was the n-th) or an abort */
  vir_value *mask = ku(l, FLIP_PHASE | GEN_ABORT);
  if (!mine)
    mine = bin(l, VIR_OP_ADD, old, a);
  vir_sym *got = local(l, "_vp_gen", mine);
  vir_op *wait = iff(l, bin(l, VIR_OP_EQ, bin(l, VIR_OP_AND, bin(l, VIR_OP_XOR, mine, phase), mask),
                             ku(l, 0)));
  into(l, wait, 0);
  /* a wait that ends without the flip (a timeout, the host's abort)
   * leaves with the abort bit, so that the group returns instead of
   * passing the barrier */
  lstore(l, got, bin(l, VIR_OP_OR, mine, ku(l, GEN_ABORT)));
  spin_wait(l, limit, l->gen_word, phase, mask, got);
  if ((l->variant & V_ACQPOLL) && !l->nonprivate) {
    /* V_ACQPOLL: the poll that saw the flip acquired, except the relaxed
     * read-modify-write polls the host asks for (lavapipe); a leader whose
     * own arrival flipped the word acquires with one load, as V_ACQ */
    vir_op *rmw = iff(l, l->rmw);
    at q = here(l);
    into(l, rmw, 0);
    load(l, l->grid, l->gen_word, VIR_SEM_ACQUIRE);
    back(l, q);
    into(l, wait, 1);
    load(l, l->grid, l->gen_word, VIR_SEM_ACQUIRE);
  }
  back(l, in);
  if ((l->variant & V_ACQPOLL) && !l->nonprivate) {
    /* acquired above */
  } else if ((l->variant & V_ACQ) && !l->nonprivate) {
    /* V_ACQ: one acquire load of the barrier word instead of a fence, as
     * CUDA's grid sync does on sm_70 and later (bar_flush: ld.acquire.gpu).
     * It reads the n-th arrival's value or a later one, which is in the
     * release sequence of every group's arrival (each a release
     * read-modify-write), so it synchronizes with all of them. Not with
     * non-private buffers: there the fence's visibility is what makes the
     * others' writes visible. */
    load(l, l->grid, l->gen_word, VIR_SEM_ACQUIRE);
  } else {
    fence(l); /* acquire (device scope): what every group released by its arrival */
  }
  vir_value *g = lload(l, got);
  lstore(l, l->lphase, bin(l, VIR_OP_XOR, phase, ku(l, FLIP_PHASE)));
  sh_store(l, S_ABORT, bin(l, VIR_OP_AND, g, ku(l, GEN_ABORT)));
  if (snap && (l->variant & V_EARLY) && l->nslots) {
    /* V_EARLY: group 0 fills the next step boundary's bank (the one the
     * last step read: every group has passed this barrier, so none reads
     * it any more) with the control words it read while it waited; its
     * arrival at that boundary releases them */
    vir_op *w0 = iff(l, is0);
    at e = here(l);
    into(l, w0, 0);
    for (uint32_t i = 0; i < l->nslots; i++)
      atom_at(l, VIR_OP_ATOMIC_STORE, l->grid, snap_word(l, i, bank), lload(l, l->pctl[i]),
              VIR_SEM_RELAXED);
    back(l, e);
  }
  if (snap) {
    vir_value *sb = bin(l, VIR_OP_AND, bin(l, VIR_OP_SHR, g, shift), ku(l, 3));
    vir_value *y[3] = {bin(l, VIR_OP_EQ, sb, ku(l, 2)), ku(l, STOP_YIELD),
                       bin(l, VIR_OP_AND, sb, ku(l, 1))};
    vir_value *stop = val(op(l, VIR_OP_SELECT, u32(l), 3, y));
    sh_store(l, S_STOP, stop);
    if (step)
      count_step(l, steps, stop);
  }
  back(l, out);
  if (snap) /* every invocation reads the control words from the new bank */
    lstore(l, l->bank, nbank);
  /* the leader's fence above is also the release this barrier() pairs
   * with each invocation's acquire below */
  rejoin(l);
}

/* Occupancy discovery at the top of the kernel; sets l->gid, l->ng. */
static void discovery(pl *l, vir_value *limit, vir_value *join_limit, vir_value *min_groups) {
  vir_type *v3 = vir_ty_vec(l->m, u32(l), 3);
  vir_value *nwg = val(op(l, VIR_OP_NUM_WORKGROUPS, v3, 0, NULL));
  vir_value *nx = val(op(l, VIR_OP_EXTRACT, u32(l), 1, &nwg));
  vir_op *ey = op(l, VIR_OP_EXTRACT, u32(l), 1, &nwg), *ez = op(l, VIR_OP_EXTRACT, u32(l), 1, &nwg);
  if (ey && ez)
    ey->attr.index = 1, ez->attr.index = 2;
  vir_value *dispatched = bin(l, VIR_OP_MUL, bin(l, VIR_OP_MUL, nx, val(ey)), val(ez));
  vir_op *lead = iff(l, bin(l, VIR_OP_EQ, l->li, ku(l, 0)));
  at out = here(l);
  into(l, lead, 0);
  vir_value *old = atom(l, VIR_OP_ATOMIC_ADD, l->grid, G_JOIN, ku(l, 1), VIR_SCOPE_DEVICE,
                        VIR_SEM_ACQ_REL);
  vir_op *joined = iff(l, bin(l, VIR_OP_EQ, bin(l, VIR_OP_AND, old, ku(l, CLOSED)), ku(l, 0)));
  at in = here(l);
  into(l, joined, 0);
  {
    /* wait for every dispatched group, or until the count stopped growing
     * for join_limit polls (the groups that fit all start within
     * microseconds of each other), then close the poll */
    vir_sym *k = local(l, "_vp_join", ku(l, 0));
    vir_sym *seen = local(l, "_vp_seen", ku(l, 0));
    vir_op *loop = op(l, VIR_OP_LOOP, NULL, 0, NULL);
    at a = here(l);
    into(l, loop, 0);
    vir_value *w = poll(l, l->grid, G_JOIN);
    vir_value *cnt = bin(l, VIR_OP_AND, w, ku(l, ~CLOSED));
    vir_op *grew = iff(l, bin(l, VIR_OP_NE, cnt, lload(l, seen)));
    at g = here(l);
    into(l, grew, 0);
    lstore(l, seen, cnt);
    lstore(l, k, ku(l, 0));
    back(l, g);
    vir_value *done = bin(l, VIR_OP_LOR, bin(l, VIR_OP_NE, bin(l, VIR_OP_AND, w, ku(l, CLOSED)), ku(l, 0)),
                          bin(l, VIR_OP_GE, cnt, dispatched));
    vir_op *stop = iff(l, done);
    at b = here(l);
    into(l, stop, 0);
    term(l, VIR_OP_BREAK);
    back(l, b);
    spin_tick(l, k, join_limit, false);
    back(l, a);
    vir_value *prev = atom(l, VIR_OP_ATOMIC_OR, l->grid, G_JOIN, ku(l, CLOSED), VIR_SCOPE_DEVICE,
                           VIR_SEM_ACQ_REL);
    vir_op *first = iff(l, bin(l, VIR_OP_EQ, bin(l, VIR_OP_AND, prev, ku(l, CLOSED)), ku(l, 0)));
    b = here(l);
    into(l, first, 0);
    vir_value *count = bin(l, VIR_OP_AND, prev, ku(l, ~CLOSED));
    store(l, l->host, H_ADMITTED, count, VIR_SEM_RELAXED);
    store(l, l->grid, G_ADMITTED, count, VIR_SEM_RELEASE);
    back(l, b);
    /* the admitted count, once the closer wrote it */
    lstore(l, k, ku(l, 0));
    vir_sym *n = local(l, "_vp_admitted", ku(l, 0));
    loop = op(l, VIR_OP_LOOP, NULL, 0, NULL);
    into(l, loop, 0);
    vir_value *c = poll_sem(l, l->grid, G_ADMITTED, VIR_SEM_RELAXED, k);
    lstore(l, n, c);
    stop = iff(l, bin(l, VIR_OP_NE, c, ku(l, 0)));
    b = here(l);
    into(l, stop, 0);
    term(l, VIR_OP_BREAK);
    back(l, b);
    spin_tick(l, k, limit, true);
    back(l, a);
    fence(l);
    vir_value *nv = lload(l, n);
    /* a joiner that never saw the count leaves (the run reports a timeout) */
    vir_op *ok = iff(l, bin(l, VIR_OP_NE, nv, ku(l, 0)));
    b = here(l);
    into(l, ok, 0);
    sh_store(l, S_GID, bin(l, VIR_OP_AND, old, ku(l, ~CLOSED)));
    sh_store(l, S_NG, nv);
    into(l, ok, 1);
    sh_store(l, S_GID, ku(l, NO_GROUP));
    back(l, b);
  }
  into(l, joined, 1);
  sh_store(l, S_GID, ku(l, NO_GROUP));
  back(l, in);
  back(l, out);
  wg_barrier(l);
  l->gid = sh_load(l, S_GID);
  l->ng = sh_load(l, S_NG);
  vir_op *late = iff(l, bin(l, VIR_OP_EQ, l->gid, ku(l, NO_GROUP)));
  at a = here(l);
  into(l, late, 0);
  term(l, VIR_OP_RETURN);
  back(l, a);
  /* too few admitted for the host (H_MIN_GROUPS; 0 = any): every group
   * leaves before the kernel's own code runs, so the buffers are as they
   * were and the host can run the stepped form instead. The count is the
   * same in every group: a grid-uniform exit. */
  vir_op *few = iff(l, bin(l, VIR_OP_LT, l->ng, min_groups));
  into(l, few, 0);
  vir_op *g0 = iff(l, bin(l, VIR_OP_LAND, bin(l, VIR_OP_EQ, l->gid, ku(l, 0)),
                          bin(l, VIR_OP_EQ, l->li, ku(l, 0))));
  at f = here(l);
  into(l, g0, 0);
  atom(l, VIR_OP_ATOMIC_OR, l->host, H_STATUS, ku(l, ST_FEW), VIR_SCOPE_DEVICE, VIR_SEM_RELAXED);
  back(l, f);
  term(l, VIR_OP_RETURN);
  back(l, a);
}

/* Collects the ops of one kind in program order. */
typedef struct collect {
  pl *l;
  vp_ptrvec ops;
  bool persistent;
} collect;

static vir_walk_result gather(vir_op *o, void *ctx) {
  collect *c = ctx;
  switch (o->code) {
  case VIR_OP_PERSIST_GRID_SYNC:
  case VIR_OP_PERSIST_STEP:
  case VIR_OP_PERSIST_CONTROL: c->persistent = true; /* fall through */
  case VIR_OP_PERSIST_GROUP_ID:
  case VIR_OP_PERSIST_NUM_GROUPS:
  case VIR_OP_WORKGROUP_ID:
  case VIR_OP_NUM_WORKGROUPS:
  case VIR_OP_GLOBAL_ID:
    if (!vp_ptrvec_push(&c->l->m->arena, &c->ops, o))
      c->l->failed = true;
    break;
  default: break;
  }
  return VIR_WALK_ADVANCE;
}

static vir_sym *hidden_buffer(pl *l, const char *name) {
  uint32_t binding = 0;
  for (uint32_t i = 0; i < l->m->syms.len; i++) {
    const vir_sym *s = l->m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER && s->set == 0 && s->binding >= binding)
      binding = s->binding + 1;
  }
  vir_sym *s = vir_add_buffer(l->m, name, u32(l), 0, binding, VIR_ACCESS_READWRITE, l->k->loc);
  if (!s)
    l->failed = true;
  else
    s->buf_flags |= VIR_BUF_COHERENT;
  return s;
}

/* A plain kernel: group_id / num_groups are the linear workgroup id and
 * count. */
static bool lower_plain(pl *l, vp_ptrvec *ops) {
  bool changed = false;
  for (uint32_t i = 0; i < ops->len; i++) {
    vir_op *o = ops->data[i];
    if (o->code != VIR_OP_PERSIST_GROUP_ID && o->code != VIR_OP_PERSIST_NUM_GROUPS)
      continue;
    vir_builder_before(&l->b, o);
    l->b.loc = o->loc;
    vir_type *v3 = vir_ty_vec(l->m, u32(l), 3);
    vir_value *n = val(op(l, VIR_OP_NUM_WORKGROUPS, v3, 0, NULL));
    vir_value *c[3];
    for (unsigned k = 0; k < 3; k++) {
      vir_op *e = op(l, VIR_OP_EXTRACT, u32(l), 1, &n);
      if (e)
        e->attr.index = k;
      c[k] = val(e);
    }
    vir_value *r;
    if (o->code == VIR_OP_PERSIST_NUM_GROUPS) {
      r = bin(l, VIR_OP_MUL, bin(l, VIR_OP_MUL, c[0], c[1]), c[2]);
    } else { /* x + nx * (y + ny * z) */
      vir_value *w = val(op(l, VIR_OP_WORKGROUP_ID, v3, 0, NULL));
      vir_value *g[3];
      for (unsigned k = 0; k < 3; k++) {
        vir_op *e = op(l, VIR_OP_EXTRACT, u32(l), 1, &w);
        if (e)
          e->attr.index = k;
        g[k] = val(e);
      }
      r = bin(l, VIR_OP_ADD, g[0],
              bin(l, VIR_OP_MUL, c[0], bin(l, VIR_OP_ADD, g[1], bin(l, VIR_OP_MUL, c[1], g[2]))));
    }
    if (l->failed || !r)
      return changed;
    vir_replace_all_uses(l->k, &o->val, r);
    vir_op_unlink(o);
    changed = true;
  }
  return changed;
}

/* The time loop whose body starts with `step` (its parent op). */
static vir_op *time_loop_of(vir_op *step) { return step->parent ? step->parent->parent_op : NULL; }

/* The loop-budget canary at the builder: n trips of a loop the compiler
 * cannot unroll (n from the host); fewer means lavapipe's budget ran out. */
static void canary(pl *l) {
  publish_barriers(l);
  vir_value *cn = load(l, l->host, H_CANARY, VIR_SEM_RELAXED);
  vir_sym *cnt = local(l, "_vp_canary", ku(l, 0));
  vir_value *fo[3] = {ku(l, 0), cn, ku(l, 1)};
  vir_op *loop = op(l, VIR_OP_FOR, NULL, 3, fo);
  at a = here(l);
  into(l, loop, 0);
  lstore(l, cnt, bin(l, VIR_OP_ADD, lload(l, cnt), ku(l, 1)));
  back(l, a);
  vir_op *cut = iff(l, bin(l, VIR_OP_NE, lload(l, cnt), cn));
  into(l, cut, 0);
  atom(l, VIR_OP_ATOMIC_OR, l->host, H_STATUS, ku(l, ST_BUDGET), VIR_SCOPE_DEVICE, VIR_SEM_RELAXED);
  back(l, a);
}

/* Bounded slices, before the kernel is lowered: a resumable kernel skips
 * the code before its time loop on a relaunch (H_RESUME; the ops
 * recomputed there stay outside) and starts a `for` time loop at step
 * H_BEGIN; one that cannot resume leaves at once when the host asks for
 * slices, saying why (H_NOSLICE). */
static void slices(pl *l, vir_value *flags) {
  vir_op *loop = NULL, *bad = NULL;
  unsigned why = vir_persistent_resumable(l->k, &loop, &bad);
  if (why != RESUME_OK) {
    vir_op *no = iff(l, bin(l, VIR_OP_NE, bin(l, VIR_OP_AND, flags, ku(l, F_SLICED)), ku(l, 0)));
    at a = here(l);
    into(l, no, 0);
    atom(l, VIR_OP_ATOMIC_OR, l->host, H_STATUS, ku(l, ST_NOSLICE), VIR_SCOPE_DEVICE,
         VIR_SEM_RELAXED);
    store(l, l->host, H_NOSLICE, ku(l, why), VIR_SEM_RELAXED);
    term(l, VIR_OP_RETURN);
    back(l, a);
    return;
  }
  l->resume = load(l, l->host, H_RESUME, VIR_SEM_RELAXED);
  l->begin = load(l, l->host, H_BEGIN, VIR_SEM_RELAXED);
  l->loop = loop;
}

/* After the entry code: the ops before the time loop that a relaunch
 * skips move, in order, into `if H_RESUME == 0` right before the loop (the
 * ones it recomputes stay), and a `for` time loop starts at step H_BEGIN. */
static void resume_at(pl *l, vir_op *first) {
  vir_op *loop = l->loop;
  at a = here(l);
  vir_builder_before(&l->b, loop);
  vir_op *pro = NULL;
  for (vir_op *o = first; o && o != loop && o != pro;) {
    vir_op *next = o->next;
    bool keep = vir_persistent_replayed(o);
    for (uint32_t i = 0; keep && i < o->nopnd; i++)
      keep = !(pro && o->opnd[i]->def && o->opnd[i]->def->parent == &pro->regions[0]);
    if (!keep) {
      if (!pro && !(pro = iff(l, bin(l, VIR_OP_EQ, l->resume, ku(l, 0)))))
        return;
      vir_op_unlink(o);
      vir_region_insert(&pro->regions[0], NULL, o);
    }
    o = next;
  }
  /* a `for` time loop starts at step begin: lo + begin * step */
  if (loop->code == VIR_OP_FOR) {
    vir_value *lo = loop->opnd[0], *k = l->begin;
    if (lo->type != u32(l))
      k = val(op(l, VIR_OP_CAST, lo->type, 1, &k));
    vir_value *start = bin(l, VIR_OP_ADD, lo, bin(l, VIR_OP_MUL, k, loop->opnd[2]));
    if (start)
      loop->opnd[0] = start;
  }
  back(l, a);
}

static void lower_kernel(pl *l, vp_ptrvec *ops) {
  vir_func *k = l->k;
  l->grid = hidden_buffer(l, "_vp_grid");
  l->host = hidden_buffer(l, "_vp_host");
  l->sh = vir_add_shared(l->m, "_vp_psh",
                         vir_ty_array(l->m, u32(l), S_WORDS),
                         k->loc);
  if (l->failed || !l->sh) {
    l->failed = true;
    return;
  }
  /* the snapshot slots first: every barrier copies all of them */
  for (uint32_t i = 0; i < ops->len; i++) {
    vir_op *o = ops->data[i];
    if (o->code != VIR_OP_PERSIST_CONTROL)
      continue;
    vir_op *w = o->opnd[0]->def;
    if (!w || w->code != VIR_OP_CONST) {
      vp_error(l->diags, o->loc, "persistent.control needs a constant word index");
      l->failed = true;
      return;
    }
    if (slot_of(l, o->attr.sym, w->attr.lit.u) < 0) {
      vp_error(l->diags, o->loc, "a persistent kernel reads at most %d control words", MAX_SLOTS);
      l->failed = true;
      return;
    }
  }
  /* entry: discovery, then a first barrier (the first snapshot) */
  vir_op *first = k->body.first;
  vir_builder_init(&l->b, l->m);
  l->b.f = k;
  vir_builder_before(&l->b, k->body.first);
  l->b.loc = k->loc;
  l->li = val(op(l, VIR_OP_LOCAL_INDEX, u32(l), 0, NULL));
  vir_value *limit = load(l, l->host, H_SPIN, VIR_SEM_RELAXED);
  vir_value *join_limit = load(l, l->host, H_JOIN_SPIN, VIR_SEM_RELAXED);
  vir_value *flags = load(l, l->host, H_FLAGS, VIR_SEM_RELAXED);
  l->rmw = bin(l, VIR_OP_NE, bin(l, VIR_OP_AND, flags, ku(l, F_RMW_POLL)), ku(l, 0));
  vir_value *min_groups = load(l, l->host, H_MIN_GROUPS, VIR_SEM_RELAXED);
  slices(l, flags);
  l->gen_word = (l->variant & V_PAD) ? G_GEN_PAD : G_GEN;
  if (l->variant & V_FLIP) { /* the leader's phase, group 0's stop bits, the bank */
    l->lphase = local(l, "_vp_lphase", ku(l, 0));
    l->lbits = local(l, "_vp_lbits", ku(l, 0));
    l->lsteps = local(l, "_vp_lsteps", l->begin ? l->begin : ku(l, 0));
    l->bank = local(l, "_vp_bank", ku(l, 0));
  }
  if (l->variant & V_QUIET) /* a relaunched slice goes on from the last count */
    l->lbar = local(l, "_vp_lbar", load(l, l->host, H_BARRIERS, VIR_SEM_RELAXED));
  if (l->variant & V_EARLY) {
    l->pstop = local(l, "_vp_pstop", ku(l, 0));
    l->pyield = local(l, "_vp_pyield", ku(l, 0));
    for (uint32_t i = 0; i < l->nslots; i++)
      l->pctl[i] = local(l, "_vp_pctl", ku(l, 0));
  }
  discovery(l, limit, join_limit, min_groups);
  if (l->variant & V_TREE) { /* two levels above H_TREE groups (0: TREE_MIN), read once */
    vir_value *tmin = load(l, l->host, H_TREE, VIR_SEM_RELAXED);
    vir_value *ts[3] = {bin(l, VIR_OP_EQ, tmin, ku(l, 0)), ku(l, TREE_MIN), tmin};
    l->tree = bin(l, VIR_OP_GT, l->ng, val(op(l, VIR_OP_SELECT, u32(l), 3, ts)));
  }
  grid_barrier(l, limit, false, true);
  l->entry_done = true;
  if (l->begin)
    resume_at(l, first);
  vir_type *v3 = vir_ty_vec(l->m, u32(l), 3);
  vir_value *lid = val(op(l, VIR_OP_LOCAL_ID, v3, 0, NULL));
  vir_value *lx = val(op(l, VIR_OP_EXTRACT, u32(l), 1, &lid));
  vir_value *gx = bin(l, VIR_OP_ADD, bin(l, VIR_OP_MUL, l->gid, ku(l, k->local_size[0])), lx);
  if (l->failed)
    return;
  for (uint32_t i = 0; i < ops->len && !l->failed; i++) {
    vir_op *o = ops->data[i];
    vir_builder_before(&l->b, o);
    l->b.loc = o->loc;
    vir_value *r = NULL;
    switch (o->code) {
    case VIR_OP_PERSIST_GROUP_ID: r = l->gid; break;
    case VIR_OP_PERSIST_NUM_GROUPS: r = l->ng; break;
    case VIR_OP_WORKGROUP_ID:
    case VIR_OP_NUM_WORKGROUPS:
    case VIR_OP_GLOBAL_ID: { /* the virtual grid: x is the group (or invocation) index */
      vir_value *c[3] = {o->code == VIR_OP_WORKGROUP_ID ? l->gid
                         : o->code == VIR_OP_NUM_WORKGROUPS ? l->ng : gx,
                         NULL, NULL};
      if (o->code == VIR_OP_GLOBAL_ID) {
        for (unsigned q = 1; q < 3; q++) {
          vir_op *e = op(l, VIR_OP_EXTRACT, u32(l), 1, &lid);
          if (e)
            e->attr.index = q;
          c[q] = val(e);
        }
      } else {
        c[1] = c[2] = ku(l, o->code == VIR_OP_WORKGROUP_ID ? 0 : 1);
      }
      r = val(op(l, VIR_OP_CONSTRUCT, v3, 3, c));
      break;
    }
    case VIR_OP_PERSIST_CONTROL: {
      int s = slot_of(l, o->attr.sym, o->opnd[0]->def->attr.lit.u);
      if (l->variant & V_FLIP)
        r = atom_at(l, VIR_OP_ATOMIC_LOAD, l->grid, snap_word(l, (uint32_t)s, lload(l, l->bank)),
                    NULL, VIR_SEM_RELAXED);
      else
        r = load(l, l->grid, G_SNAP + (uint32_t)s, VIR_SEM_RELAXED);
      break;
    }
    case VIR_OP_PERSIST_GRID_SYNC: grid_barrier(l, limit, false, false); break;
    case VIR_OP_PERSIST_STEP: {
      vir_op *loop = time_loop_of(o);
      if (!loop || !(loop->code == VIR_OP_FOR || loop->code == VIR_OP_WHILE || loop->code == VIR_OP_LOOP)) {
        vp_error(l->diags, o->loc, "persistent.step must be the first op of a loop's body");
        l->failed = true;
        return;
      }
      grid_barrier(l, limit, true, true);
      vir_op *stop = iff(l, bin(l, VIR_OP_NE, sh_load(l, S_STOP), ku(l, 0)));
      at a = here(l);
      into(l, stop, 0);
      term(l, VIR_OP_BREAK);
      back(l, a);
      /* after the loop: group 0 publishes the final count */
      if (loop->next)
        vir_builder_before(&l->b, loop->next);
      else
        vir_builder_at_end(&l->b, loop->parent);
      vir_op *g0 = iff(l, bin(l, VIR_OP_LAND, bin(l, VIR_OP_EQ, l->gid, ku(l, 0)),
                              bin(l, VIR_OP_EQ, l->li, ku(l, 0))));
      at after = here(l);
      into(l, g0, 0);
      store(l, l->host, H_STEPS,
            l->lsteps ? lload(l, l->lsteps) : load(l, l->grid, G_STEPS, VIR_SEM_RELAXED),
            VIR_SEM_RELEASE);
      if (l->variant & V_QUIET) /* the host reads it after the dispatch */
        store(l, l->host, H_BARRIERS, lload(l, l->lbar), VIR_SEM_RELAXED);
      back(l, after);
      if (l->begin) { /* a spent slice: say so, check the budget, leave */
        vir_op *y = iff(l, bin(l, VIR_OP_EQ, sh_load(l, S_STOP), ku(l, STOP_YIELD)));
        into(l, y, 0);
        vir_op *g = iff(l, bin(l, VIR_OP_LAND, bin(l, VIR_OP_EQ, l->gid, ku(l, 0)),
                               bin(l, VIR_OP_EQ, l->li, ku(l, 0))));
        at in = here(l);
        into(l, g, 0);
        atom(l, VIR_OP_ATOMIC_OR, l->host, H_STATUS, ku(l, ST_YIELD), VIR_SCOPE_DEVICE,
             VIR_SEM_RELAXED);
        back(l, in);
        canary(l);
        term(l, VIR_OP_RETURN);
      }
      break;
    }
    default: break;
    }
    if (r)
      vir_replace_all_uses(k, &o->val, r);
    vir_op_unlink(o);
  }
  /* the loop-budget canary: n trips of a loop the compiler cannot unroll */
  vir_builder_at_end(&l->b, &k->body);
  if (k->body.last && (vir_op_infos[k->body.last->code].flags & VIR_F_TERM))
    vir_builder_before(&l->b, k->body.last);
  l->b.loc = k->loc;
  canary(l);
}

/* Workgroups read, after a grid barrier, what other workgroups wrote
 * before it, within one dispatch. A non-coherent buffer's loads may be
 * served from a per-core cache that never sees those writes (NVIDIA's L1:
 * measured on the H200, persistent and stepped results differed), so
 * every buffer the kernel may write becomes coherent: its accesses go to
 * the device-coherent level, which the barrier's device-scope
 * release/acquire then orders. Read-only buffers do not change within a
 * dispatch and keep their caching. */
static void coherent_buffers(vir_module *m) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER && s->access != VIR_ACCESS_READONLY &&
        !(s->buf_flags & VIR_BUF_NONPRIVATE)) /* persistent-nonprivate: ordered otherwise */
      s->buf_flags |= VIR_BUF_COHERENT;
  }
}

static vir_pass_result lower(vir_module *m, vp_diags *diags, unsigned variant) {
  bool changed = false;
  uint32_t nsyms = m->syms.len;
  for (uint32_t i = 0; i < nsyms; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC)
      continue;
    pl l = {.m = m, .k = s->func, .diags = diags, .variant = variant};
    for (uint32_t j = 0; j < m->syms.len; j++) {
      const vir_sym *b = m->syms.data[j];
      if (b->kind == VIR_SYM_BUFFER && (b->buf_flags & VIR_BUF_NONPRIVATE))
        l.nonprivate = true;
    }
    vir_builder_init(&l.b, m);
    l.b.f = s->func;
    collect c = {.l = &l};
    vir_walk_func(s->func, gather, &c);
    if (!c.ops.len)
      continue;
    if (c.persistent && !s->func->is_kernel) {
      vir_op *o = c.ops.data[0];
      vp_error(diags, o->loc, "persistent ops outside a kernel (in @%s)", s->name);
      return VIR_PASS_FAILURE;
    }
    bool did = true;
    if (c.persistent) {
      lower_kernel(&l, &c.ops);
      coherent_buffers(m);
    } else
      did = lower_plain(&l, &c.ops);
    if (l.failed) {
      if (!diags->nerrors)
        vp_error(diags, s->func->loc, "lower-persistent: out of memory");
      return VIR_PASS_FAILURE;
    }
    changed |= did;
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}

/* The barrier variants (docs/persistent.md, "Barrier variants"): the same
 * pass with another grid barrier, chosen at compile time (@vp.kernel's
 * barrier=, vulpy-opt's pass flag), so one benchmark run can time each. */
vir_pass_result vir_lower_persistent(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  (void)opts;
  return lower(m, diags, 0);
}
vir_pass_result vir_lower_persistent_flip(vir_module *m, const vir_pass_options *opts,
                                          vp_diags *diags) {
  (void)opts;
  return lower(m, diags, V_PAD | V_FLIP);
}
vir_pass_result vir_lower_persistent_cg(vir_module *m, const vir_pass_options *opts,
                                        vp_diags *diags) {
  (void)opts;
  return lower(m, diags, V_PAD | V_FLIP | V_SCOPED);
}
/* Nothing on the path every group waits on but the barrier itself
 * (issue 15): V_EARLY (group 0's step-boundary reads of the host's stop
 * and yield words and of the control words are issued right after its
 * arrival, in flight while it waits), V_QUIET (no host-word writes but
 * every QUIET_EVERY barriers) and, in cg-offpath, V_ACQ (one acquire load
 * after the wait, no fence). The variants that had only some of them on
 * cg (cg-early: V_EARLY; cg-acq: V_ACQ; cg-quiet: V_ACQ | V_QUIET) were
 * retired on 2026-12-05: on the H200 each measured within 0.01 of this
 * one (docs/persistent.md, "Barrier variants"). */
vir_pass_result vir_lower_persistent_cg_offpath(vir_module *m, const vir_pass_options *opts,
                                                vp_diags *diags) {
  (void)opts;
  return lower(m, diags, V_PAD | V_FLIP | V_SCOPED | V_ACQ | V_QUIET | V_EARLY);
}
vir_pass_result vir_lower_persistent_flip_offpath(vir_module *m, const vir_pass_options *opts,
                                                  vp_diags *diags) {
  (void)opts;
  return lower(m, diags, V_PAD | V_FLIP | V_QUIET | V_EARLY);
}
/* cg-offpath / flip-offpath with the arrival in two levels above a group
 * count (V_TREE, tree_arrive): against the contention of every group's
 * arrival on one word. */
vir_pass_result vir_lower_persistent_cg_tree(vir_module *m, const vir_pass_options *opts,
                                             vp_diags *diags) {
  (void)opts;
  return lower(m, diags, V_PAD | V_FLIP | V_SCOPED | V_ACQ | V_QUIET | V_EARLY | V_TREE);
}
vir_pass_result vir_lower_persistent_flip_tree(vir_module *m, const vir_pass_options *opts,
                                               vp_diags *diags) {
  (void)opts;
  return lower(m, diags, V_PAD | V_FLIP | V_QUIET | V_EARLY | V_TREE);
}

/* cgx-acqpoll (issue 15: the Vulkan form of cg-offpath cost 2.19 us a
 * barrier on the H200 where the same lowering printed as CUDA cost 1.10):
 * cg-offpath whose every poll of the barrier word is an acquire load, as
 * CUDA's grid.sync() spins; the one of issue 15's nine driver
 * experiments that measured a gain (docs/persistent.md, "Barrier
 * variants"). */
#define CG_OFFPATH (V_PAD | V_FLIP | V_SCOPED | V_ACQ | V_QUIET | V_EARLY)
vir_pass_result vir_lower_persistent_cgx_acqpoll(vir_module *m, const vir_pass_options *opts,
                                                 vp_diags *diags) {
  (void)opts;
  return lower(m, diags, CG_OFFPATH | V_ACQPOLL);
}
