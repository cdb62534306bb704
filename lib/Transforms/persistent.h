/* persistent.h - what lower-persistent and lower-persistent-stepped share:
 * the word layouts of the hidden buffers (bindings/python/vulpy/
 * _persistent.py reads the same numbers; docs/persistent.md lists them). */
#ifndef VULPY_TRANSFORMS_PERSISTENT_H
#define VULPY_TRANSFORMS_PERSISTENT_H

/* @_vp_grid words (device-local) */
enum { G_JOIN, G_ADMITTED, G_ARRIVE, G_GEN, G_STEPS, G_STOP, G_ABORT, G_RUN, G_SNAP = 8 };
/* the padded generation word (V_PAD: the flip barriers' barrier word):
 * alone on its 128-byte line (the waiters poll it, away from G_ARRIVE's
 * line), and the words the host allocates for @_vp_grid */
enum { G_GEN_PAD = 96, G_WORDS = 1280 }; /* 256.. the V_TREE cluster words */
/* the barrier variants (lower-persistent[-flip|-cg|-cg-offpath|...];
 * docs/persistent.md, "Barrier variants"). V_PAD: the barrier word is
 * G_GEN_PAD; V_FLIP: CUDA's one-word barrier (every group adds, the sum
 * flips the phase bit: no last-arriver release); V_SCOPED: workgroup-scope
 * fences around the workgroup barrier, device-scope ordering in the leader
 * only. */
enum { V_PAD = 1, V_FLIP = 8, V_SCOPED = 16, V_EARLY = 32, V_ACQ = 64, V_QUIET = 128,
       V_TREE = 256,
       /* cgx-acqpoll on cg-offpath (issue 15; docs/persistent.md, "Barrier
        * variants"): every poll of the barrier word an acquire load */
       V_ACQPOLL = 1024 };
/* V_TREE (with V_FLIP): above H_TREE groups (0: TREE_MIN) the groups
 * arrive on per-cluster words first (clusters of max(2, ceil(n /
 * TREE_FANOUT)) groups, word TREE_BASE + TREE_STRIDE * cluster, each on
 * its own 128-byte line), the last of each cluster on the barrier word
 * (lower_persistent.c, tree_arrive). */
enum { TREE_MIN = 256, TREE_FANOUT = 32, TREE_BASE = 256, TREE_STRIDE = 32 };
/* V_ACQ (with V_FLIP): the leader's acquire after the wait is one acquire
 * load of the barrier word, not a fence (CUDA's grid sync on sm_70+).
 * V_QUIET (with V_FLIP): group 0 writes the host's steps-done and
 * barrier counters every QUIET_EVERY barriers, not every barrier. */
/* V_EARLY (with V_FLIP): group 0 reads the stop request, the yield word
 * and the control words while it waits at a barrier, and writes the next
 * snapshot bank right after a step boundary: nothing but its arrival is
 * left on the path at the next boundary (steering then takes effect one
 * step later). */
/* V_FLIP: the barrier word (G_GEN_PAD) is phase bit 31 | arrivals in bits
 * 5..30 (FLIP_UNIT each) | the stop snapshot of phase 1 (bits 3-4) and of
 * phase 0 (bits 1-2) | abort (bit 0, GEN_ABORT). Group 0 adds
 * FLIP_PHASE - (n-1) FLIP_UNIT (plus the change of the stop bits), the
 * others FLIP_UNIT: the n-th arrival carries into bit 31. The control
 * snapshot alternates between two banks FLIP_BANK words apart (group 0
 * writes the next bank before it arrives, while slow groups may still
 * read the current one). */
#define FLIP_PHASE 0x80000000u
enum { FLIP_UNIT = 32, FLIP_BITS = 0x1e, FLIP_BANK = 128 };
/* V_FLIP: the barrier word's abort bit */
enum { GEN_ABORT = 1 };
/* @_vp_host words (host-coherent) */
enum { H_STOP, H_STEPS, H_ADMITTED, H_STATUS, H_CANARY, H_SPIN, H_BARRIERS, H_FLAGS, H_JOIN_SPIN,
       H_MIN_GROUPS,
       /* bounded slices (docs/persistent.md, "Bounded slices"): H_RESUME 1
        * on a relaunch (the code before the time loop is skipped), H_BEGIN
        * the steps done before it (the time loop starts there), H_YIELD the
        * host's "slice spent" word, H_NOSLICE why the kernel cannot resume */
       H_RESUME, H_BEGIN, H_YIELD, H_NOSLICE,
       /* V_TREE: two-level arrival above this many groups (0: TREE_MIN) */
       H_TREE,
       H_WORDS = 16 };
/* H_FLAGS bits: poll with atomic.or x, 0 instead of atomic.load (lavapipe
 * moves atomic loads out of spin loops: the spin never sees the change) */
enum { F_RMW_POLL = 1, F_SLICED = 2 };
/* H_STATUS bits */
/* ST_FEW: discovery admitted fewer groups than H_MIN_GROUPS; every group
 * left before the kernel's own code ran (the host relaunches stepped) */
/* ST_YIELD: the dispatch ended at a step boundary because its slice was
 * spent (the host relaunches it); ST_NOSLICE: F_SLICED was asked of a
 * kernel that cannot resume (H_NOSLICE says why); it left at once */
enum { ST_TIMEOUT = 2, ST_BUDGET = 4, ST_FEW = 8, ST_DONE = 16, ST_YIELD = 32, ST_NOSLICE = 64 };
/* the stop snapshot's value at a step boundary where the slice was spent */
#define STOP_YIELD 0x100u
/* H_NOSLICE reasons (vir_persistent_resumable) */
enum { RESUME_OK, RESUME_NO_LOOP, RESUME_VALUE, RESUME_LOCAL };
/* at most this many control words are snapshotted */
enum { MAX_SLOTS = 64 };
/* the stepped form's phase id of the snapshot dispatch */
#define STEPPED_SNAP 0xffffu

struct vir_func;
struct vir_op;
/* Whether a persistent kernel can stop at a step boundary and be started
 * again from there (persistent_resume.c): RESUME_OK, or the reason it
 * cannot, `*bad` the op that shows it. `*loop` gets the time loop (the
 * top-level loop whose body starts with persistent.step), NULL when there
 * is none or more than one. */
unsigned vir_persistent_resumable(struct vir_func *k, struct vir_op **loop, struct vir_op **bad);
/* Whether a top-level op before the time loop is recomputed on a
 * relaunch (pure and without memory effects, or a group id / count the
 * lowering defines) rather than skipped. */
bool vir_persistent_replayed(const struct vir_op *o);

#endif
