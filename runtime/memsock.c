/* memsock.c - the host side of a MemSock: a ring of frames that a running
 * kernel publishes into and the host consumes while it runs.
 *
 * The ring is two host-visible, host-coherent buffers: the ring words
 * (header + per-slot tag, arrival count, decision, signature and payload),
 * behind the BAR where the device has it (a running kernel must see the
 * host's ack), and the frames in the pipe's memory kind (`cached` by
 * default) or in a buffer the caller gives (desc->frames: imported user
 * pages, say; checked for size and host coherence, never destroyed here). vulpy/memsock_abi.h fixes the layout; docs/memsock.md the
 * protocol. The kernel side is what `vulpy-opt --lower-memsock` emits.
 *
 * The consumer (vrt_memsock_next / vrt_memsock_release, or the poller thread
 * of vrt_memsock_start) walks the sequence numbers in order. Every word the
 * GPU wrote is untrusted: the published count must stay monotonic and
 * within 2^31 of the consumer, slot and payload positions are computed from
 * the host's own capacity and sequence number, never from GPU data, and a
 * frame is handed out only when its slot's tag says it is exactly that
 * frame. Waiting spins, then sleeps with a growing pause: the GPU cannot
 * signal the host, and the caller holds no lock (and, from Python, no GIL)
 * while it waits.
 */
#include "internal.h"

#include "vulpy/memsock_abi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct vrt_memsock {
  vrt_context *ctx;
  vrt_buffer *ring, *frames;
  bool user_frames;        /* frames is desc->frames: the caller's, not destroyed here */
  _Atomic uint32_t *words; /* the ring, mapped */
  uint8_t *data;           /* the frames, mapped */
  vrt_memsock_desc desc;
  uint32_t slot_words;
  uint64_t stride_bytes;
  uint8_t *copy; /* overwrite: the frame handed out is a checked copy */

  pthread_mutex_t lock;
  pthread_cond_t moved; /* the consumer advanced, or the pipe closed */
  uint32_t next;        /* the next sequence number to consume */
  uint32_t seen;        /* the largest valid published count seen */
  bool in_flight;       /* a frame is out (next .. released) */
  bool active;          /* a dispatch is between begin and end */
  bool closed;
  bool failed;          /* the GPU wrote something impossible */
  bool poisoned;        /* frames before poison_until came from a dispatch whose loops
                         * the device cut short: never delivered (counted torn) */
  uint32_t poison_until;
  uint64_t cut;         /* invocations whose loop-budget canary ran short, all dispatches */
  bool hold;            /* the canary is on: a dispatch's frames wait for its end */
  uint32_t base;        /* the running dispatch's first sequence number */
  char failure[160];
  uint64_t delivered, dropped, torn, published;
  uint64_t seen_ns;     /* when the consumer saw the last frame handed out (CLOCK_MONOTONIC) */
  uint64_t active_spin_ns; /* how long a consumer polls without sleeping while a dispatch runs */

  pthread_t poller;
  bool polling;
  _Atomic bool stop;
  vrt_memsock_fn fn;
  void *user;
};

static uint32_t *slot_words(vrt_memsock *ms, uint32_t slot) {
  return (uint32_t *)ms->words + VMS_HDR_WORDS + (uint64_t)slot * ms->slot_words;
}
static _Atomic uint32_t *word(vrt_memsock *ms, uint32_t w) { return ms->words + w; }
static _Atomic uint32_t *sword(vrt_memsock *ms, uint32_t slot, uint32_t w) {
  return (_Atomic uint32_t *)(slot_words(ms, slot) + w);
}

const char *vrt_memsock_policy_name(vrt_memsock_policy p) {
  switch (p) {
  case VRT_MEMSOCK_BLOCK: return "block";
  case VRT_MEMSOCK_SKIP: return "skip";
  case VRT_MEMSOCK_OVERWRITE: return "overwrite";
  }
  return "?";
}

int vrt_memsock_policy_lookup(const char *name) {
  for (int p = 0; p <= VRT_MEMSOCK_OVERWRITE; p++)
    if (name && strcmp(name, vrt_memsock_policy_name((vrt_memsock_policy)p)) == 0)
      return p;
  return -1;
}

uint32_t vrt_memsock_signature(const char *const *names, const char *const *types, uint32_t n) {
  unsigned h = VMS_SIG_INIT;
  for (uint32_t i = 0; i < n; i++) {
    h = vms_sig_step(h, names[i]);
    h = vms_sig_step(h, ":");
    h = vms_sig_step(h, types[i]);
    h = vms_sig_step(h, ";");
  }
  return h ? h : 1;
}

static uint64_t frame_stride(const vrt_memsock_desc *desc) {
  uint64_t frame_bytes = desc->frame_elems * desc->elem_size;
  uint64_t stride = (frame_bytes + 255) & ~(uint64_t)255;
  if (desc->elem_size && stride / desc->elem_size * desc->elem_size != stride)
    stride = (frame_bytes + 767) / 768 * 768; /* 12-byte elements, say */
  return stride;
}

uint64_t vrt_memsock_frames_bytes(const vrt_memsock_desc *desc) {
  return frame_stride(desc) * desc->capacity;
}

vrt_memsock *vrt_memsock_create(vrt_context *ctx, const vrt_memsock_desc *desc, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return NULL;
  if (!desc->capacity || desc->capacity > (1u << 20)) {
    vrt__error(ctx, d, "MemSock capacity %u must be 1 .. 2^20", desc->capacity);
    return NULL;
  }
  if (!desc->elem_size || desc->elem_size > 16 || !desc->frame_elems ||
      desc->frame_elems > 0xFFFFFFFFull) {
    vrt__error(ctx, d, "MemSock frames need 1 .. 2^32-1 elements of 1 .. 16 bytes");
    return NULL;
  }
  if (desc->payload_words > 64) {
    vrt__error(ctx, d, "a MemSock payload has at most 64 fields, not %u", desc->payload_words);
    return NULL;
  }
  if ((unsigned)desc->policy > VRT_MEMSOCK_OVERWRITE) {
    vrt__error(ctx, d, "unknown MemSock policy %d", (int)desc->policy);
    return NULL;
  }
  uint64_t frame_bytes = desc->frame_elems * desc->elem_size;
  uint64_t stride = frame_stride(desc);
  uint64_t max_range = vrt_context_device(ctx)->max_storage_buffer_range;
  if (stride * desc->capacity > max_range || stride / desc->elem_size > 0xFFFFFFFFull) {
    vrt__error(ctx, d,
               "a MemSock of %u frames of %llu bytes (%llu bytes) exceeds the device's "
               "largest bindable buffer (%llu bytes)",
               desc->capacity, (unsigned long long)frame_bytes,
               (unsigned long long)(stride * desc->capacity), (unsigned long long)max_range);
    return NULL;
  }
  vrt_memsock *ms = calloc(1, sizeof *ms);
  if (!ms) {
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  ms->ctx = ctx;
  ms->desc = *desc;
  ms->slot_words = (VMS_SLOT_PAYLOAD + desc->payload_words + 3) & ~3u;
  /* While a dispatch that binds the pipe runs, the consumer polls without
   * sleeping for this long after it starts waiting (a frame is likely to
   * come, and a sleep costs its latency: 2 us doubling to 200 us); then it
   * sleeps as when idle. Not on CPU devices: there the poller would take a
   * core from the device's own threads. */
  ms->active_spin_ns =
      desc->active_spin_us == UINT32_MAX ? 0
      : desc->active_spin_us              ? 1000ull * desc->active_spin_us
      : vrt_context_device(ctx)->kind == VRT_DEVICE_CPU ? 0
                                                        : 2000000ull;
  ms->stride_bytes = stride;
  uint64_t ring_bytes = 4ull * (VMS_HDR_WORDS + (uint64_t)desc->capacity * ms->slot_words);
  vrt_memory_kind kind = desc->memory;
  /* The ring words live where a running kernel sees the host's writes
   * (ack, closed): behind the BAR where the device has device-local
   * host-visible memory, else host memory - as ControlBuffer words do.
   * Measured on the H200: a kernel polling `ack` in host (system) memory
   * never saw the host's write during the dispatch, so a `block` pipe that
   * fired more frames a dispatch than it had slots waited out its whole
   * spin bound (2^31 polls: a hang); with the words behind the BAR it ran
   * at once (bench/probes/memsock_diag.py). The frames stay in `kind`:
   * the GPU's writes to host memory do reach the host mid-dispatch, and
   * the host reads them from its own RAM rather than across PCIe. */
  if (vrt__alive(ctx, d)) {
    pthread_mutex_lock(&ctx->lock);
    ms->ring = vrt__buffer_create(ctx, ring_bytes, VRT_REBAR,
                                  VRT_MEM_HOST_VISIBLE | VRT_MEM_HOST_COHERENT, d);
    pthread_mutex_unlock(&ctx->lock);
  }
  uint32_t need = VRT_MEM_HOST_VISIBLE | VRT_MEM_HOST_COHERENT;
  if (ms->ring && desc->frames) {
    /* The caller's frames (user pages): checked, used in place, never
     * destroyed by the pipe. The ring words stay the runtime's (above). */
    vrt_buffer *f = desc->frames;
    if (vrt_buffer_context(f) != ctx)
      vrt__error(ctx, d, "the MemSock's frames buffer belongs to another context");
    else if (vrt_buffer_size(f) < stride * desc->capacity)
      vrt__error(ctx, d,
                 "the MemSock's frames memory has %llu bytes; %u frames of %llu bytes need "
                 "%llu (capacity * the %llu-byte slot stride)",
                 (unsigned long long)vrt_buffer_size(f), desc->capacity,
                 (unsigned long long)frame_bytes, (unsigned long long)(stride * desc->capacity),
                 (unsigned long long)stride);
    else if ((vrt_buffer_memory_flags(f) & need) != need || !vrt_buffer_map(f))
      vrt__error(ctx, d,
                 "the MemSock's frames memory is not host-visible and host-coherent on "
                 "this device; a MemSock needs that");
    else
      ms->frames = f;
    ms->user_frames = true;
  } else {
    ms->frames = ms->ring ? vrt_buffer_create(ctx, stride * desc->capacity, kind, d) : NULL;
  }
  if (!ms->frames) {
    vrt_buffer_destroy(ms->ring);
    free(ms);
    return NULL;
  }
  if ((vrt_buffer_memory_flags(ms->ring) & need) != need ||
      (vrt_buffer_memory_flags(ms->frames) & need) != need) {
    vrt__error(ctx, d,
               "memory kind '%s' is not host-visible and host-coherent on this device; a "
               "MemSock needs that (try memory='cached' or 'host')",
               vrt_memory_kind_name(kind));
    if (!ms->user_frames)
      vrt_buffer_destroy(ms->frames);
    vrt_buffer_destroy(ms->ring);
    free(ms);
    return NULL;
  }
  if (desc->policy == VRT_MEMSOCK_OVERWRITE &&
      !(ms->copy = malloc(stride + 4ull * ms->slot_words))) {
    vrt__error(ctx, d, "out of host memory");
    if (!ms->user_frames)
      vrt_buffer_destroy(ms->frames);
    vrt_buffer_destroy(ms->ring);
    free(ms);
    return NULL;
  }
  ms->words = vrt_buffer_map(ms->ring);
  ms->data = vrt_buffer_map(ms->frames);
  pthread_mutex_init(&ms->lock, NULL);
  pthread_cond_init(&ms->moved, NULL);
  /* The buffers are zeroed; the header is written before any kernel can
   * see the pipe, and MAGIC last (a kernel fires nothing without it). */
  atomic_store(word(ms, VMS_HDR_CAPACITY), desc->capacity);
  atomic_store(word(ms, VMS_HDR_FRAME_ELEMS), (uint32_t)desc->frame_elems);
  atomic_store(word(ms, VMS_HDR_FRAME_STRIDE), (uint32_t)(stride / desc->elem_size));
  atomic_store(word(ms, VMS_HDR_PAYLOAD_WORDS), desc->payload_words);
  atomic_store(word(ms, VMS_HDR_POLICY), (uint32_t)desc->policy);
  atomic_store(word(ms, VMS_HDR_SLOT_WORDS), ms->slot_words);
  atomic_store(word(ms, VMS_HDR_SIG), desc->signature);
  bool cpu = vrt_context_device(ctx)->kind == VRT_DEVICE_CPU;
  /* Lavapipe ends every loop of an invocation silently once its loops took
   * 65535 back-edges in all: a wait there gives up after 16384 polls (well
   * under a millisecond), counted in gpu_timeouts, so that the kernel's own
   * loops keep most of that budget. docs/memsock.md says more. */
  atomic_store(word(ms, VMS_HDR_SPIN),
               desc->spin_limit ? desc->spin_limit : cpu ? 16384u : 0x7FFFFFFFu);
  /* Waiting for other workgroups to finish the slot's previous frame takes
   * microseconds when they run; when they cannot start (a grid larger than
   * the device runs at once, firing more frames a dispatch than there are
   * slots) it never ends: 2^22 polls (about 2 s on the H200) then give up. */
  uint32_t fin = cpu ? 16384u : 1u << 22;
  atomic_store(word(ms, VMS_HDR_FIN_SPIN),
               desc->spin_limit && desc->spin_limit < fin ? desc->spin_limit : fin);
  /* The loop-budget canary's trips (lower-memsock's add_canary): only where
   * loops end silently (lavapipe, the one CPU device); 0 elsewhere. */
  atomic_store(word(ms, VMS_HDR_CANARY), cpu ? 3u : 0u);
  /* There, frames are handed out only once their dispatch ended with the
   * canary intact: a frame published by a kernel whose loops were cut may
   * be torn in ways no word of the ring shows (measured: parts never
   * written), and a zero-copy view cannot be taken back. */
  ms->hold = cpu;
  atomic_store_explicit(word(ms, VMS_HDR_MAGIC), VMS_MAGIC, memory_order_release);
  return ms;
}

void vrt_memsock_destroy(vrt_memsock *ms) {
  if (!ms)
    return;
  vrt_memsock_close(ms);
  vrt_memsock_stop(ms);
  if (!ms->user_frames) /* the caller's frames are the caller's to destroy */
    vrt_buffer_destroy(ms->frames);
  vrt_buffer_destroy(ms->ring);
  pthread_cond_destroy(&ms->moved);
  pthread_mutex_destroy(&ms->lock);
  free(ms->copy);
  free(ms);
}

vrt_buffer *vrt_memsock_ring(const vrt_memsock *ms) { return ms->ring; }
vrt_buffer *vrt_memsock_frames(const vrt_memsock *ms) { return ms->frames; }
uint64_t vrt_memsock_stride(const vrt_memsock *ms) { return ms->stride_bytes; }
const vrt_memsock_desc *vrt_memsock_describe(const vrt_memsock *ms) { return &ms->desc; }
void *vrt_memsock_slot_frame(const vrt_memsock *ms, uint32_t slot) {
  return slot < ms->desc.capacity ? ms->data + (uint64_t)slot * ms->stride_bytes : NULL;
}
uint32_t *vrt_memsock_words(const vrt_memsock *ms) { return (uint32_t *)ms->words; }
uint64_t vrt_memsock_seen_ns(vrt_memsock *ms) {
  pthread_mutex_lock(&ms->lock);
  uint64_t t = ms->seen_ns;
  pthread_mutex_unlock(&ms->lock);
  return t;
}

/* ------------------------------------------------------------ dispatches */

bool vrt_memsock_begin_dispatch(vrt_memsock *ms, vp_diags *d) {
  pthread_mutex_lock(&ms->lock);
  bool busy = ms->active;
  if (!busy) {
    ms->active = true;
    /* Fires of this dispatch are numbered from here: the count of frames
     * finalized so far (every earlier dispatch has ended). */
    vrt__host_store(word(ms, VMS_HDR_CUT), 0);
    vrt__host_store(word(ms, VMS_HDR_BASE), ms->seen);
    ms->base = ms->seen;
    /* the canary's word decides (a test playing the GPU sets it to 0) */
    ms->hold = atomic_load(word(ms, VMS_HDR_CANARY)) != 0;
  }
  pthread_mutex_unlock(&ms->lock);
  if (busy)
    vrt__error(ms->ctx, d,
               "this MemSock is bound to a dispatch that has not ended: a pipe is used by "
               "one dispatch at a time (wait for the first)");
  return !busy;
}

/* Reads the GPU's published count; false (and the pipe failed) when it is
 * impossible. Called with the lock held. */
static bool read_published(vrt_memsock *ms, uint32_t *out) {
  uint32_t p = atomic_load_explicit(word(ms, VMS_HDR_PUBLISHED), memory_order_acquire);
  if ((int32_t)(p - ms->seen) < 0 || (int32_t)(p - ms->next) < 0) {
    if (!ms->failed)
      snprintf(ms->failure, sizeof ms->failure,
               "the GPU reported %u published frames after %u: the ring's header was "
               "overwritten (a kernel wrote out of bounds?)",
               p, ms->seen);
    ms->failed = true;
    return false;
  }
  ms->published += p - ms->seen;
  ms->seen = p;
  *out = p;
  return true;
}

/* After close: frames nobody will consume are dropped. Lock held. */
static void drain_closed(vrt_memsock *ms) {
  uint32_t p;
  if (ms->closed && !ms->active && !ms->in_flight && read_published(ms, &p) && p != ms->next) {
    ms->dropped += p - ms->next;
    ms->next = p;
    vrt__host_store(word(ms, VMS_HDR_ACK), p);
  }
  pthread_cond_broadcast(&ms->moved);
}

bool vrt_memsock_end_dispatch(vrt_memsock *ms, vp_diags *d) {
  pthread_mutex_lock(&ms->lock);
  uint32_t p = 0;
  bool ok = read_published(ms, &p);
  /* The canary: invocations whose loops the device cut short (lavapipe's
   * loop budget). Their fires and waits ended early, so the slots' arrival
   * counts mix frames: a frame "published" then may hold parts of a later
   * fire or miss parts. None of this dispatch's frames not yet handed out
   * is delivered; the dispatch fails. */
  uint32_t cut = atomic_load_explicit(word(ms, VMS_HDR_CUT), memory_order_acquire);
  if (ok && cut) {
    ms->cut += cut;
    ms->poisoned = true;
    ms->poison_until = p;
  }
  ms->active = false;
  drain_closed(ms);
  pthread_mutex_unlock(&ms->lock);
  if (!ok)
    vrt__error(ms->ctx, d, "%s", ms->failure);
  else if (cut) {
    vrt__error(ms->ctx, d,
               "MemSock: the device ended the kernel's loops early (%u report(s) that the loop "
               "budget ran out: lavapipe ends every loop of an invocation after 65535 back-edges in all; "
               "ctx.limits['max_loop_iterations']), so fires and waits of this dispatch were cut "
               "short; its frames not delivered yet are dropped as torn. Fire fewer frames per "
               "dispatch, give a block pipe as many slots as one dispatch fires, or keep the "
               "kernel's own loops short",
               cut);
    ok = false;
  }
  return ok;
}

/* -------------------------------------------------------------- consumer */

static void pause_ns(uint64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
    ;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One look at the ring: 1 with a frame, 0 when none is ready, -1 at the
 * end (closed and drained), -2 failed. Lock held. */
static int try_next(vrt_memsock *ms, vrt_memsock_frame *f) {
  uint32_t cap = ms->desc.capacity, p;
  if (ms->failed || !read_published(ms, &p))
    return -2;
  if (ms->hold && ms->active)
    p = ms->base; /* the running dispatch's frames wait for its canary */
  while (p != ms->next) {
    uint32_t s = ms->next, slot = s % cap;
    if (ms->desc.policy == VRT_MEMSOCK_OVERWRITE && p - s > cap) {
      /* lapped: the GPU has reused those slots */
      ms->dropped += p - cap - s;
      ms->next = p - cap;
      continue;
    }
    uint32_t want = 2u * (s + 1u);
    if (ms->poisoned && (int32_t)(s - ms->poison_until) < 0) {
      /* from a dispatch whose loops were cut (end_dispatch): untrusted */
      ms->torn++;
      ms->next++;
      vrt__host_store(word(ms, VMS_HDR_ACK), ms->next);
      continue;
    }
    uint32_t tag = atomic_load_explicit(sword(ms, slot, VMS_SLOT_TAG), memory_order_acquire);
    if (tag != want) {
      /* skipped by the GPU (full, closed, a block wait that gave up), or
       * already lapped (overwrite) */
      ms->dropped++;
      ms->next++;
      vrt__host_store(word(ms, VMS_HDR_ACK), ms->next);
      continue;
    }
    /* Under block and skip nothing writes the slot between the frame's
     * decision and the host's ack; later fires that found no room leave a
     * "dropped" decision there (bit 0) and write nothing. A "write"
     * decision of another frame means another fire wrote into the slot (a
     * kernel whose loops were cut short): torn, never handed out. */
    uint32_t dec = atomic_load_explicit(sword(ms, slot, VMS_SLOT_DECIDE), memory_order_acquire);
    if (ms->desc.policy != VRT_MEMSOCK_OVERWRITE && dec != want && !(dec & 1u)) {
      ms->torn++;
      ms->next++;
      vrt__host_store(word(ms, VMS_HDR_ACK), ms->next);
      continue;
    }
    uint32_t sig = atomic_load_explicit(sword(ms, slot, VMS_SLOT_SIG), memory_order_relaxed);
    if (ms->desc.signature && sig != ms->desc.signature) {
      snprintf(ms->failure, sizeof ms->failure,
               "frame %u came from a kernel whose fire payload does not match this pipe's "
               "payload fields (names, order and types must agree)",
               s);
      ms->failed = true;
      return -2;
    }
    f->seq = s;
    f->slot = slot;
    const uint32_t *pay = slot_words(ms, slot) + VMS_SLOT_PAYLOAD;
    void *frame = ms->data + (uint64_t)slot * ms->stride_bytes;
    if (ms->desc.policy == VRT_MEMSOCK_OVERWRITE) {
      /* seqlock read: copy, then check the tag did not move meanwhile, nor
       * the decision word: a later fire's workgroups write the slot once
       * they read its new decision, before its winner marks the tag odd */
      uint64_t fb = ms->desc.frame_elems * ms->desc.elem_size;
      bool same = atomic_load_explicit(sword(ms, slot, VMS_SLOT_DECIDE), memory_order_acquire) == want;
      memcpy(ms->copy, frame, fb);
      memcpy(ms->copy + ms->stride_bytes, pay, 4ull * ms->desc.payload_words);
      atomic_thread_fence(memory_order_acquire);
      if (!same ||
          atomic_load_explicit(sword(ms, slot, VMS_SLOT_DECIDE), memory_order_relaxed) != want ||
          atomic_load_explicit(sword(ms, slot, VMS_SLOT_TAG), memory_order_relaxed) != want) {
        ms->torn++;
        ms->next++;
        vrt__host_store(word(ms, VMS_HDR_ACK), ms->next);
        continue;
      }
      frame = ms->copy;
      pay = (const uint32_t *)(ms->copy + ms->stride_bytes);
    }
    ms->seen_ns = now_ns();
    f->data = frame;
    f->payload = pay;
    f->copied = ms->desc.policy == VRT_MEMSOCK_OVERWRITE;
    ms->in_flight = true;
    return 1;
  }
  return ms->closed && !ms->active ? -1 : 0;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

int vrt_memsock_next(vrt_memsock *ms, uint64_t timeout_ns, vrt_memsock_frame *f, vp_diags *d) {
  uint64_t start = 0, pause = 2000;
  uint32_t spins = 0;
  for (;;) {
    pthread_mutex_lock(&ms->lock);
    int r;
    bool active = ms->active;
    if (ms->in_flight) {
      r = -3;
    } else {
      r = try_next(ms, f);
      if (r == -1)
        drain_closed(ms);
    }
    pthread_mutex_unlock(&ms->lock);
    if (r == -3) {
      vrt__error(ms->ctx, d, "vrt_memsock_next: release the frame handed out before");
      return -2;
    }
    if (r == -2) {
      vrt__error(ms->ctx, d, "%s", ms->failure);
      return -2;
    }
    if (r != 0)
      return r;
    if (atomic_load(&ms->stop))
      return 0;
    /* Spin briefly (a frame usually follows another), then sleep with a
     * growing pause of at most spin_sleep_us. */
    uint64_t t = now_ns();
    if (!start)
      start = t;
    if (timeout_ns != UINT64_MAX && t - start >= timeout_ns)
      return 0;
    if (spins++ < ms->desc.poll_spin)
      continue;
    if (active && t - start < ms->active_spin_ns) {
      cpu_relax();
      continue;
    }
    uint64_t cap_ns = ms->desc.poll_sleep_us ? 1000ull * ms->desc.poll_sleep_us : 200000;
    pause_ns(pause);
    pause = pause * 2 > cap_ns ? cap_ns : pause * 2;
  }
}

void vrt_memsock_release(vrt_memsock *ms, const vrt_memsock_frame *f) {
  pthread_mutex_lock(&ms->lock);
  if (ms->in_flight && f->seq == ms->next) {
    ms->in_flight = false;
    ms->delivered++;
    ms->next++;
    /* the credit: the GPU may now reuse the slot */
    vrt__host_store(word(ms, VMS_HDR_ACK), ms->next);
    drain_closed(ms);
  }
  pthread_mutex_unlock(&ms->lock);
}

void vrt_memsock_close(vrt_memsock *ms) {
  pthread_mutex_lock(&ms->lock);
  ms->closed = true;
  vrt__host_store(word(ms, VMS_HDR_CLOSED), 1);
  drain_closed(ms);
  pthread_mutex_unlock(&ms->lock);
}

bool vrt_memsock_closed(vrt_memsock *ms) {
  pthread_mutex_lock(&ms->lock);
  bool c = ms->closed;
  pthread_mutex_unlock(&ms->lock);
  return c;
}

int vrt_memsock_flush(vrt_memsock *ms, uint64_t timeout_ns, vp_diags *d) {
  uint64_t deadline = timeout_ns == UINT64_MAX ? UINT64_MAX : now_ns() + timeout_ns;
  pthread_mutex_lock(&ms->lock);
  int r = 1;
  for (;;) {
    if (ms->failed) {
      r = -1;
      break;
    }
    if (ms->next == ms->seen && !ms->in_flight)
      break;
    if (ms->closed && !ms->polling)
      break;
    if (deadline != UINT64_MAX && now_ns() >= deadline) {
      r = 0;
      break;
    }
    /* the consumer broadcasts each step; wake now and then regardless */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 5000000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&ms->moved, &ms->lock, &ts);
  }
  pthread_mutex_unlock(&ms->lock);
  if (r < 0)
    vrt__error(ms->ctx, d, "%s", ms->failure);
  return r;
}

void vrt_memsock_stats_get(vrt_memsock *ms, vrt_memsock_stats *out) {
  pthread_mutex_lock(&ms->lock);
  uint32_t p;
  if (!ms->failed)
    read_published(ms, &p);
  out->published = ms->published;
  out->delivered = ms->delivered;
  out->dropped = ms->dropped;
  out->torn = ms->torn;
  out->pending = ms->seen - ms->next;
  out->next = ms->next;
  out->gpu_dropped = atomic_load(word(ms, VMS_HDR_GPU_DROPPED));
  out->gpu_timeouts = atomic_load(word(ms, VMS_HDR_GPU_TIMEOUTS));
  out->gpu_cut = ms->cut + (ms->active ? atomic_load(word(ms, VMS_HDR_CUT)) : 0);
  out->closed = ms->closed;
  out->failed = ms->failed;
  pthread_mutex_unlock(&ms->lock);
}

/* ---------------------------------------------------------------- poller */

static void *poll_loop(void *arg) {
  vrt_memsock *ms = arg;
  vp_diags d = {0};
  while (!atomic_load(&ms->stop)) {
    vrt_memsock_frame f;
    int r = vrt_memsock_next(ms, 50000000, &f, &d);
    if (r < 0)
      break;
    if (r == 0)
      continue;
    bool more = ms->fn(ms->user, &f);
    vrt_memsock_release(ms, &f);
    if (!more)
      break;
  }
  vp_diags_free(&d);
  pthread_mutex_lock(&ms->lock);
  ms->polling = false;
  pthread_cond_broadcast(&ms->moved);
  pthread_mutex_unlock(&ms->lock);
  return NULL;
}

bool vrt_memsock_start(vrt_memsock *ms, vrt_memsock_fn fn, void *user, vp_diags *d) {
  pthread_mutex_lock(&ms->lock);
  bool busy = ms->polling;
  pthread_mutex_unlock(&ms->lock);
  if (busy || ms->poller) {
    vrt__error(ms->ctx, d, "the MemSock already has a poller thread");
    return false;
  }
  ms->fn = fn;
  ms->user = user;
  atomic_store(&ms->stop, false);
  ms->polling = true;
  if (pthread_create(&ms->poller, NULL, poll_loop, ms) != 0) {
    ms->polling = false;
    ms->poller = 0;
    vrt__error(ms->ctx, d, "could not start the MemSock poller thread");
    return false;
  }
  return true;
}

void vrt_memsock_stop(vrt_memsock *ms) {
  if (!ms->poller)
    return;
  atomic_store(&ms->stop, true);
  pthread_join(ms->poller, NULL);
  ms->poller = 0;
  atomic_store(&ms->stop, false); /* next() serves a later consumer again */
}
