/* vulpy/memsock_abi.h - the MemSock ring layout that the runtime (host side,
 * runtime/memsock.c) and the lowering of `memsock.fire` (the GPU side,
 * lib/Transforms/lower_memsock.c) agree on. docs/memsock.md explains the
 * protocol; this header only fixes the numbers.
 *
 * A pipe is two buffers in host-visible, host-coherent memory:
 *   ring    uint32 words: a header of VMS_HDR_WORDS words, then `capacity`
 *           slots of `slot_words` words each (VMS_SLOT_* words, then the
 *           payload words, one 32-bit scalar each);
 *   frames  `capacity` frames of `frame_elems` elements, `frame_stride`
 *           elements apart (a multiple of 256 bytes, so every frame can be
 *           a NumPy view with its natural alignment).
 * Sequence numbers are uint32 and compared modulo 2^32; a slot's tag is
 * 2*(s+1) once frame s is published there, 2*s+1 while it is written.
 */
#ifndef VULPY_MEMSOCK_ABI_H
#define VULPY_MEMSOCK_ABI_H

#define VMS_MAGIC 0x4B534D56u /* "VMSK" */

/* Header words (host-written ones are only read by the GPU and vice versa,
 * except where noted). */
enum {
  VMS_HDR_MAGIC = 0,        /* host: VMS_MAGIC once the pipe is open */
  VMS_HDR_CAPACITY = 1,     /* host: slots (>= 1) */
  VMS_HDR_FRAME_ELEMS = 2,  /* host: elements a frame holds (writes past it are dropped) */
  VMS_HDR_FRAME_STRIDE = 3, /* host: elements from one frame to the next */
  VMS_HDR_PAYLOAD_WORDS = 4,/* host: payload words a slot holds */
  VMS_HDR_POLICY = 5,       /* host: VMS_POLICY_* */
  VMS_HDR_BASE = 6,         /* host: the sequence number of the dispatch's first fire */
  VMS_HDR_PUBLISHED = 7,    /* GPU: frames finalized (published or dropped), in order */
  VMS_HDR_ACK = 8,          /* host: frames the host is done with (the credit) */
  VMS_HDR_CLOSED = 9,       /* host: 1 once closed: the GPU stops writing and waiting */
  VMS_HDR_GPU_DROPPED = 10, /* GPU: frames it dropped (skip, closed, block timeout) */
  VMS_HDR_GPU_TIMEOUTS = 11,/* GPU: block-policy waits that gave up */
  VMS_HDR_SPIN = 12,        /* host: spin iterations a block wait may take */
  VMS_HDR_SLOT_WORDS = 13,  /* host: ring words per slot */
  VMS_HDR_SIG = 14,         /* host: the payload signature the pipe expects (0: any) */
  VMS_HDR_FIN_SPIN = 15,    /* host: spin iterations a wait for the slot's previous frame
                             * (other workgroups) may take; shorter than SPIN: that wait
                             * never needs the host, and when it lasts, the workgroups it
                             * waits for cannot start (a grid larger than runs at once) */
  VMS_HDR_WORDS = 16
};

/* Slot words, at VMS_HDR_WORDS + slot * slot_words. */
enum {
  VMS_SLOT_TAG = 0,    /* 2*(s+1) published, 2*s+1 being written */
  VMS_SLOT_ARRIVE = 1, /* workgroups done with the slot's current frame */
  VMS_SLOT_DECIDE = 2, /* ((s+1) << 1) | dropped: the grid's one decision for frame s */
  VMS_SLOT_SIG = 3,    /* the firing kernel's payload signature */
  VMS_SLOT_PAYLOAD = 4,
};

enum { VMS_POLICY_BLOCK = 0, VMS_POLICY_SKIP = 1, VMS_POLICY_OVERWRITE = 2 };

/* The payload signature: FNV-1a over "name:type;" for each field in order
 * (type in VIR spelling: u32, i32, f32), never 0 (0 becomes 1). The
 * frontend computes it from the fire body's parameters, the host from the
 * pipe's payload= dict; a frame whose signature differs is refused. */
static inline unsigned vms_sig_step(unsigned h, const char *s) {
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}
#define VMS_SIG_INIT 2166136261u

#endif /* VULPY_MEMSOCK_ABI_H */
