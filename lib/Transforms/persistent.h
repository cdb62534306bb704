/* persistent.h - what lower-persistent and lower-persistent-stepped share:
 * the word layouts of the hidden buffers (bindings/python/vulpy/
 * _persistent.py reads the same numbers; docs/persistent.md lists them). */
#ifndef VULPY_TRANSFORMS_PERSISTENT_H
#define VULPY_TRANSFORMS_PERSISTENT_H

/* @_vp_grid words (device-local) */
enum { G_JOIN, G_ADMITTED, G_ARRIVE, G_GEN, G_STEPS, G_STOP, G_ABORT, G_RUN, G_SNAP = 8 };
/* @_vp_host words (host-coherent) */
enum { H_STOP, H_STEPS, H_ADMITTED, H_STATUS, H_CANARY, H_SPIN, H_BARRIERS, H_FLAGS, H_JOIN_SPIN,
       H_MIN_GROUPS, H_WORDS = 16 };
/* H_FLAGS bits: poll with atomic.or x, 0 instead of atomic.load (lavapipe
 * moves atomic loads out of spin loops: the spin never sees the change) */
enum { F_RMW_POLL = 1 };
/* H_STATUS bits */
/* ST_FEW: discovery admitted fewer groups than H_MIN_GROUPS; every group
 * left before the kernel's own code ran (the host relaunches stepped) */
enum { ST_TIMEOUT = 2, ST_BUDGET = 4, ST_FEW = 8, ST_DONE = 16 };
/* at most this many control words are snapshotted */
enum { MAX_SLOTS = 64 };
/* the stepped form's phase id of the snapshot dispatch */
#define STEPPED_SNAP 0xffffu

#endif
