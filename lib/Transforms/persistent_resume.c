/* persistent_resume.c - whether a persistent kernel can run as a sequence
 * of bounded slices (docs/persistent.md, "Bounded slices"), for
 * lower-persistent.
 *
 * A slice ends at a step boundary; the next dispatch skips the code before
 * the time loop and starts the loop at the step where the last one ended.
 * That gives the same results as one dispatch when nothing but buffers and
 * the loop counter carries state from one step to the next, which is what
 * this checks on the kernel before lowering:
 *  - there is exactly one time loop, a top-level op of the kernel body;
 *  - no value computed before the loop by an op that is skipped on a
 *    relaunch (anything but pure arithmetic on push constants, constants
 *    and group ids) is used in or after the loop;
 *  - no variable (local) is both set before the loop and used in or after
 *    it, and inside the loop body (the `while` condition first) and after
 *    the loop every read of a variable follows a write of it in the same
 *    step (definite assignment over the structured regions), so no
 *    variable carries a value across a step boundary.
 * Buffers, control words and MemSock rings live outside the dispatch and
 * keep their contents between slices; a MemSock's per-dispatch fire count
 * restarts with each slice, as the ring's base does.
 */
#include <string.h>

#include "vulpy/passes.h"

#include "persistent.h"

/* A local that counts per dispatch (lower-memsock's `_vp_<pipe>_fires`:
 * a fire's sequence number is the ring's base, which the host sets per
 * dispatch to the frames finalized so far, plus the fires of this
 * dispatch): it restarts at its initial value in every slice, which is
 * what the base expects, so it is neither skipped nor a carried value. */
static bool per_dispatch(const vir_sym *s) {
  size_t n = s && s->name ? strlen(s->name) : 0;
  return n > 10 && strncmp(s->name, "_vp_", 4) == 0 && strcmp(s->name + n - 6, "_fires") == 0;
}

bool vir_persistent_replayed(const vir_op *o) {
  switch (o->code) {
  case VIR_OP_PERSIST_GROUP_ID:
  case VIR_OP_PERSIST_NUM_GROUPS: return true;
  case VIR_OP_LOCAL_STORE: return per_dispatch(o->attr.sym);
  default: break;
  }
  const vir_op_info *in = vir_op_info_of(o->code);
  return (in->flags & VIR_F_PURE) && !in->nregion && !(in->flags & VIR_F_HIGH);
}

typedef struct rs {
  vir_func *k;
  bool *skipped;   /* value id -> defined by a skipped op (before the loop) */
  uint32_t nvals;
  bool *pre;       /* local index -> touched before the loop */
  bool *in_loop;   /* local index -> touched in the loop */
  vir_op *bad;
} rs;

/* The scratch locals of lower-memsock's fire protocol (`_vp_<pipe>_*`)
 * hold values within one fire, set by a workgroup's leader under one `if`
 * and read under another with the same condition, which definite
 * assignment cannot see; they carry nothing across a step, and the fire
 * count is per dispatch (above). Compiler-made locals are not checked. */
static bool compiler_local(const vir_sym *s) {
  return s && s->name && strncmp(s->name, "_vp_", 4) == 0;
}

static int local_index(rs *r, const vir_sym *s) {
  if (compiler_local(s))
    return -1;
  for (uint32_t i = 0; i < r->k->locals.len; i++)
    if (r->k->locals.data[i] == s)
      return (int)i;
  return -1;
}
static bool is_local_op(const vir_op *o) {
  return o->code == VIR_OP_LOCAL_LOAD || o->code == VIR_OP_LOCAL_STORE ||
         o->code == VIR_OP_LOCAL_LOAD_AT || o->code == VIR_OP_LOCAL_STORE_AT;
}

static void mark_skipped(rs *r, vir_region *g) {
  for (uint32_t i = 0; i < g->nargs; i++)
    if (g->args[i]->id < r->nvals)
      r->skipped[g->args[i]->id] = true;
  for (vir_op *o = g->first; o; o = o->next) {
    if (o->val.id < r->nvals)
      r->skipped[o->val.id] = true;
    if (is_local_op(o)) {
      int i = local_index(r, o->attr.sym);
      if (i >= 0)
        r->pre[i] = true;
    }
    for (uint32_t j = 0; j < vir_op_info_of(o->code)->nregion; j++)
      mark_skipped(r, &o->regions[j]);
  }
}

/* Definite assignment over region `g`: `set` holds the locals written on
 * every path so far; a read of one not in it sets r->bad. `touch` (may be
 * NULL) records the locals touched. */
static void assigned(rs *r, vir_region *g, bool *set, bool *touch) {
  uint32_t n = r->k->locals.len;
  for (vir_op *o = g->first; o && !r->bad; o = o->next) {
    for (uint32_t i = 0; i < o->nopnd; i++)
      if (o->opnd[i]->id < r->nvals && r->skipped[o->opnd[i]->id]) {
        r->bad = o;
        return;
      }
    if (is_local_op(o)) {
      int i = local_index(r, o->attr.sym);
      if (i >= 0) {
        if (touch)
          touch[i] = true;
        if (r->pre[i] || ((o->code == VIR_OP_LOCAL_LOAD || o->code == VIR_OP_LOCAL_LOAD_AT ||
                           o->code == VIR_OP_LOCAL_STORE_AT) && !set[i])) {
          /* a partial store (store_at) keeps the rest of the old value */
          r->bad = o;
          return;
        }
        if (o->code == VIR_OP_LOCAL_STORE)
          set[i] = true;
      }
    }
    uint32_t nr = vir_op_info_of(o->code)->nregion;
    if (!nr)
      continue;
    bool a[n ? n : 1], b[n ? n : 1];
    memcpy(a, set, n * sizeof *set);
    if (o->code == VIR_OP_IF) {
      memcpy(b, set, n * sizeof *set);
      assigned(r, &o->regions[0], a, touch);
      assigned(r, &o->regions[1], b, touch);
      for (uint32_t i = 0; i < n; i++)
        set[i] = a[i] && b[i];
    } else { /* loops (may run zero times) and anything else: writes do not count after it */
      for (uint32_t j = 0; j < nr; j++)
        assigned(r, &o->regions[j], a, touch);
    }
  }
}

unsigned vir_persistent_resumable(vir_func *k, vir_op **loop_out, vir_op **bad) {
  *bad = NULL;
  *loop_out = NULL;
  vir_op *loop = NULL;
  for (vir_op *o = k->body.first; o; o = o->next) {
    if (o->code != VIR_OP_FOR && o->code != VIR_OP_WHILE && o->code != VIR_OP_LOOP)
      continue;
    vir_region *body = &o->regions[o->code == VIR_OP_WHILE ? 1 : 0];
    if (body->first && body->first->code == VIR_OP_PERSIST_STEP) {
      if (loop) {
        *bad = o;
        return RESUME_NO_LOOP;
      }
      loop = o;
    }
  }
  if (!loop)
    return RESUME_NO_LOOP;
  *loop_out = loop;
  uint32_t n = k->locals.len;
  rs r = {.k = k, .nvals = k->next_id};
  bool skipped[r.nvals ? r.nvals : 1], pre[n ? n : 1], in_loop[n ? n : 1], set[n ? n : 1];
  memset(skipped, 0, sizeof skipped);
  memset(pre, 0, sizeof pre);
  memset(in_loop, 0, sizeof in_loop);
  r.skipped = skipped, r.pre = pre, r.in_loop = in_loop;
  /* before the loop: what is skipped on a relaunch */
  for (vir_op *o = k->body.first; o != loop; o = o->next) {
    bool keep = vir_persistent_replayed(o);
    for (uint32_t i = 0; keep && i < o->nopnd; i++)
      keep = !(o->opnd[i]->id < r.nvals && skipped[o->opnd[i]->id]);
    if (keep)
      continue;
    if (o->val.id < r.nvals)
      skipped[o->val.id] = true;
    if (is_local_op(o)) {
      int i = local_index(&r, o->attr.sym);
      if (i >= 0)
        pre[i] = true;
    }
    for (uint32_t j = 0; j < vir_op_info_of(o->code)->nregion; j++)
      mark_skipped(&r, &o->regions[j]);
  }
  /* the loop: its operands, then each step from nothing assigned */
  for (uint32_t i = 0; i < loop->nopnd; i++)
    if (loop->opnd[i]->id < r.nvals && skipped[loop->opnd[i]->id]) {
      *bad = loop;
      return RESUME_VALUE;
    }
  memset(set, 0, sizeof set);
  for (uint32_t j = 0; j < vir_op_info_of(loop->code)->nregion && !r.bad; j++)
    assigned(&r, &loop->regions[j], set, in_loop);
  /* after the loop: runs once, in the last slice */
  vir_region tail = {.first = loop->next, .last = k->body.last, .func = k};
  memset(set, 0, sizeof set);
  if (!r.bad)
    assigned(&r, &tail, set, NULL);
  if (r.bad) {
    *bad = r.bad;
    return is_local_op(r.bad) ? RESUME_LOCAL : RESUME_VALUE;
  }
  return RESUME_OK;
}
