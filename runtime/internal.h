/* internal.h - the runtime's private structures and helpers.
 *
 * Vulkan comes through volk (VK_NO_PROTOTYPES): instance-level functions sit
 * in a small table per VkInstance (vrt_instance_fns), device-level ones in a
 * VolkDeviceTable per context, so several instances and devices live side by
 * side without touching volk's global function pointers (which are set once,
 * by vrt_loader_open, and never change).
 *
 * Every Vulkan call that returns a VkResult goes through VRT_VK, which checks
 * for an injected fault (tests), makes the call, and turns an error into a
 * diagnostic naming the call, the VkResult and the device.
 */
#ifndef VULPY_RUNTIME_INTERNAL_H
#define VULPY_RUNTIME_INTERNAL_H

#include "vulpy/runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <volk.h>

/* ---------------------------------------------------------- instance */

#define VRT_INSTANCE_FNS(X)                                                  \
  X(vkDestroyInstance)                                                       \
  X(vkEnumeratePhysicalDevices)                                              \
  X(vkGetPhysicalDeviceProperties)                                           \
  X(vkGetPhysicalDeviceProperties2)                                          \
  X(vkGetPhysicalDeviceFeatures2)                                            \
  X(vkGetPhysicalDeviceMemoryProperties)                                     \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                \
  X(vkGetPhysicalDeviceExternalSemaphoreProperties)                          \
  X(vkEnumerateDeviceExtensionProperties)                                    \
  X(vkCreateDevice)                                                          \
  X(vkGetDeviceProcAddr)                                                     \
  X(vkCreateDebugUtilsMessengerEXT)                                          \
  X(vkDestroyDebugUtilsMessengerEXT)

typedef struct vrt_instance_fns {
#define VRT_FN_FIELD(f) PFN_##f f;
  VRT_INSTANCE_FNS(VRT_FN_FIELD)
#undef VRT_FN_FIELD
} vrt_instance_fns;

/* Validation messages, filled by the debug messenger from any thread. */
typedef struct vrt_messages {
  pthread_mutex_t lock;
  vp_diags list;
} vrt_messages;

typedef struct vrt_instance {
  VkInstance instance;
  vrt_instance_fns fn;
  VkDebugUtilsMessengerEXT messenger;
  vrt_messages *messages; /* NULL without validation */
  uint32_t api_version;
} vrt_instance;

/* An instance of the loader vrt_loader_open(library) opens (once per
 * process); false + hint when it is missing. */
bool vrt__instance_create(vrt_instance *inst, bool validation, const char *library,
                          vrt_fork_child fork_child, vp_diags *d);
/* Fork (context.c): vrt__enumerate notes each driver it met; a forked
 * child refuses to make an instance when its parent had loaded one that
 * does not survive fork() (vrt__fork_check, false + error). */
void vrt__fork_note_driver(const vrt_device_info *info);
bool vrt__fork_check(vrt_fork_child policy, vp_diags *d);
/* Destroys the instance; its validation messages move to `sink` if given. */
void vrt__instance_destroy(vrt_instance *inst, vp_diags *sink);
/* The physical devices and their descriptions (malloc'ed arrays). */
bool vrt__enumerate(vrt_instance *inst, VkPhysicalDevice **pdevs, vrt_device_info **infos,
                    uint32_t *n, vp_diags *d);
/* ASan builds: keeps the driver and layers loaded so far mapped until exit,
 * for LeakSanitizer's report (sanitize.c); nothing elsewhere. */
void vrt__pin_libraries(void);
/* Whether the device has extension `name` (device.c). */
bool vrt__has_extension(vrt_instance *inst, VkPhysicalDevice pd, const char *name);

/* ------------------------------------------------------------ memory */

typedef struct vrt_range {
  uint64_t offset, size;
} vrt_range;

/* One VkDeviceMemory, carved up by a first-fit free list (alloc.c). */
typedef struct vrt_block vrt_block;
struct vrt_block {
  vrt_block *next;
  VkDeviceMemory memory;
  uint64_t size, used;
  uint32_t type;
  void *map; /* persistent mapping of the whole block, or NULL */
  bool dedicated;
  vrt_range *free; /* sorted by offset, never adjacent */
  uint32_t nfree, capfree;
};

typedef struct vrt_alloc {
  vrt_block *block;
  uint64_t offset, size;
} vrt_alloc;

/* -------------------------------------------------------------- objects */

#define VRT_MAX_STREAMS 16

struct vrt_buffer {
  vrt_context *ctx;
  vrt_buffer *prev, *next; /* the context's list */
  uint64_t id;             /* unique in the context: launch-cache keys use it */
  VkBuffer buffer;
  uint64_t offset;    /* where the buffer starts in its VkBuffer (imported ranges) */
  uint64_t size;      /* what the caller asked for */
  uint64_t vk_size;   /* the VkBuffer's size (>= 4, a multiple of 4) */
  vrt_alloc alloc;    /* sub-allocated memory, or */
  VkDeviceMemory own; /* imported host memory */
  void *map;
  uint32_t mem_flags, fallback;
  vrt_memory_kind kind;
  bool imported;
  _Atomic uint64_t last_use; /* ticket of the last submission that used it */
  /* The same per timeline (vrt_tl.id: 0 the default stream's, i + 1
   * stream i's), so that a wait for the buffer waits on each queue for its
   * last use there, never for other work (vrt__buffer_idle). Set with
   * last_use by vrt__buffer_used. */
  _Atomic uint64_t use[VRT_MAX_STREAMS + 1];
  /* The caching allocator (pool.c): `pooled` buffers come from the pool and
   * go back to it when destroyed; `cls` is their VkBuffer's size (a size
   * class >= vk_size); `bnext` chains a cached buffer in its bin. */
  bool pooled;
  uint64_t cls;
  vrt_buffer *bnext;
  /* A GPU zero fill of bytes [zero_from, zero_end) was recorded in the zero
   * command buffer of serial `zero_serial` (0: none outstanding); the host
   * must not touch the mapping before it ran (vrt_buffer_host_ready). */
  uint64_t zero_serial, zero_from, zero_end;
  /* Lazy zeroing (issue 21): bytes [owed_from, vk_size) of a new pooled
   * device-local buffer are owed a GPU zero fill that is not recorded yet
   * (`owed`). Whatever first uses the buffer - a submission that binds or
   * copies it, a host access through the mapping - records it first
   * (vrt__zero_owed); vrt_buffer_will_write shrinks it or drops it, so a
   * buffer whose first operation writes every element is never filled. */
  _Atomic bool owed; /* atomic: vrt_buffer_will_write reads it without the lock */
  uint64_t owed_from;
  /* The transfer queue family may use it (stream.c, "sharing"): made
   * VK_SHARING_MODE_CONCURRENT over both families while the context had a
   * transfer stream (or, emulated on one family, marked so). A transfer
   * stream's copy of a buffer without it runs on the compute family. */
  bool conc;
};

/* What a descriptor binds for a buffer: its whole range (a pooled buffer's
 * VkBuffer may be larger: its size class). */
static inline VkDescriptorBufferInfo vrt__descriptor(const vrt_buffer *b) {
  VkDescriptorBufferInfo info = {b->buffer, b->offset,
                                 b->offset || b->pooled ? b->vk_size : VK_WHOLE_SIZE};
  return info;
}

#define VRT_MAX_SETS 4

/* A pipeline with its layouts, shared through the in-memory cache. */
typedef struct vrt_pipeline vrt_pipeline;
struct vrt_pipeline {
  vrt_pipeline *next;
  uint64_t key;
  VkPipeline pipeline;
  VkPipelineLayout layout;
  VkDescriptorSetLayout sets[VRT_MAX_SETS];
  uint32_t nsets;
  bool push_descriptors;
  vrt_kernel_stats stats; /* how it was made */
};

/* A recorded single-dispatch command buffer, resubmitted when the same
 * buffers, grid and push constants come again. */
typedef struct vrt_launch {
  VkCommandBuffer cb;
  uint64_t value; /* ticket of its last submission */
  VkDescriptorSet sets[VRT_MAX_SETS];
  VkDescriptorPool set_pool; /* where `sets` came from, or null */
  bool recorded;
  bool open; /* recorded without the closing barrier (dispatch.c) */
  uint64_t hash;
  unsigned char *key; /* buffer ids, groups, push bytes */
  size_t key_len;
  uint64_t used; /* LRU clock */
} vrt_launch;

struct vrt_kernel {
  vrt_context *ctx;
  vrt_kernel *prev, *next;
  vpm_manifest *m;
  vrt_pipeline *p;
  uint32_t local[3];
  int guard_offset;   /* byte offset of the dispatch_guard field, or -1 */
  uint32_t push_size; /* the pipeline layout's push range */
  vrt_kernel_stats stats;
  vrt_launch *launches;
  uint32_t nlaunches;
  uint32_t last_launch; /* the entry the last dispatch used (dispatch.c looks there first) */
  uint64_t clock;
};

/* ------------------------------------------------------------ copies */

typedef struct vrt_copier vrt_copier;
/* memcpy, split over the context's copy threads when it is large (copy.c). */
void vrt__memcpy(vrt_context *ctx, void *dst, const void *src, size_t n);
/* Joins the workers and frees them (NULL is fine). */
void vrt__copier_destroy(vrt_copier *c);
/* The default thread count: half the CPUs (<= 8). */
uint32_t vrt__copy_threads_default(vrt_device_kind kind);
/* Imports the host pages [base, base + span) (hostimport.c; base and span
 * multiples of minImportedHostPointerAlignment) as a buffer of `size`
 * bytes (a `vk_size`-byte VkBuffer range) starting `offset` bytes in;
 * takes the context lock. */
vrt_buffer *vrt__import_pages(vrt_context *ctx, char *base, uint64_t span, uint64_t offset,
                              uint64_t size, uint64_t vk_size, vp_diags *d);

/* --------------------------------------------------------------- context */

#define VRT_RING 32 /* command buffers for one-off submissions */
#define VRT_SPARE_POOLS 8 /* recordings' command pools kept for reuse */
#define VRT_XRING 16 /* ... of the transfer queue family (ring[VRT_RING..]) */
#define VRT_TL_RING 64 /* tickets a queue's timeline remembers */
#define VRT_MAX_QUEUES 4 /* compute-family queues a context asks for */

/* One queue's timeline (stream.c): the default stream's is the context's
 * `timeline` semaphore on `queue`; each vrt_stream has one of its own.
 * Tickets stay one counter per context: every queue signals its own
 * semaphore with the context's next ticket, so each queue's values are an
 * increasing subsequence of the tickets. `recent` keeps a queue's last
 * VRT_TL_RING tickets (for "which tickets of this queue are <= t") and is
 * written under the context lock, read without it. */
typedef struct vrt_tl {
  VkQueue queue;
  uint32_t family, index;
  uint32_t id; /* 0: the default stream's; i + 1: ctx->streams[i]'s */
  VkSemaphore sem;
  _Atomic uint64_t last;   /* last ticket submitted here, 0: none */
  _Atomic uint64_t pushed; /* tickets pushed into `recent` so far */
  _Atomic uint64_t recent[VRT_TL_RING];
  /* Semaphore waits the next submission here makes (vrt_stream_wait_event;
   * lock held). */
  uint32_t nwaits;
  VkSemaphore wait_sem[16];
  uint64_t wait_value[16];
} vrt_tl;
#define VRT_POOL_BINS 64 /* hash bins of the caching allocator */

typedef struct vrt_cmd {
  VkCommandBuffer cb;
  uint64_t value; /* ticket of its last submission; free once reached */
  VkSemaphore sem; /* the semaphore that submission signals `value` on */
} vrt_cmd;

/* A staging ring (staging.c): one host-visible buffer of `nslots` slots
 * (the context's staging_slots, at most VRT_STAGING_SLOTS). A slot is
 * `busy` while one transfer holds it (from taking it, through the host
 * copy, to its GPU copy's submission, or for a download to the host copy
 * out); `value` on `sem` is the slot's last GPU copy, which must be done
 * before the slot is written again. */
#define VRT_STAGING_SLOTS 8
typedef struct vrt_staging {
  vrt_buffer *buf; /* lazily made */
  uint64_t slot_size;
  uint32_t next, nslots;
  struct {
    uint64_t value;
    VkSemaphore sem;
    bool busy;
  } slot[VRT_STAGING_SLOTS];
} vrt_staging;

struct vrt_context {
  vrt_instance inst;
  VkPhysicalDevice pdev;
  vrt_device_info info;
  VkDevice device;
  struct VolkDeviceTable vk;
  VkQueue queue;
  uint32_t qfamily;
  bool validation, push_descriptors, feedback, external_host, no_device_mapping;
  _Atomic int wait_mode;      /* vrt_wait_mode, never DEFAULT */
  bool robust; /* robustBufferAccess enabled (vrt_context_options.robust) */
  _Atomic uint64_t spin_ns;
  /* spin-block: the spin the last long-ish wait asks for (vrt__spin_extra) */
  _Atomic uint64_t spin_extra_ns;
  _Atomic uint64_t waits_blocked; /* waits that ended in vkWaitSemaphores */
  _Atomic uint32_t copy_threads;
  pthread_mutex_t copier_lock; /* guards starting `copier` */
  vrt_copier *copier;          /* copy.c's workers, started on first use */
  char *cache_dir; /* NULL: no disk cache */
  uint64_t fork_gen; /* vrt__fork_gen when made: another value means a forked child */
  int (*interrupt)(void *); /* vrt_context_set_interrupt */
  _Atomic uint64_t default_timeout_ns; /* vrt_context_set_timeout; 0: none */
  void *interrupt_arg;
  pthread_t prewarm_thread; /* prewarm.c's driver warm-up, joined before the device goes */
  bool prewarm_running;
  _Atomic uint64_t prewarm_ns; /* the warm-up's duration, once done */

  pthread_mutex_t lock; /* everything below */
  VkSemaphore timeline;
  _Atomic uint64_t submitted;  /* last value a submission signals (written under lock) */
  /* Eager dispatches held back (vrt_dispatch_eager): their command buffers,
   * sent in one batch that signals `submitted`; `sent` is the last value
   * actually given to vkQueueSubmit (== submitted when none are held). */
  VkCommandBuffer held[64];
  uint32_t nheld;
  uint64_t held_bytes;          /* bytes the held dispatches bind (their work's estimate) */
  _Atomic uint32_t eager_batch; /* the most held before a submission */
  _Atomic uint32_t eager_inflight; /* adaptive: submissions in flight before a hold */
  uint32_t eager_flusher_us;       /* the flusher: 0 blocks in the driver, n polls every n us */
  /* Adaptive batching (eager.c): hold only while the work sent so far
   * still runs; the flusher thread (made on the first hold, joined at
   * destroy) waits for that work and then sends what is held. It sleeps on
   * flush_cond (with `lock`; `flusher_idle`) once the queue is drained. */
  atomic_bool eager_adaptive;
  bool flusher_running, flusher_broken, flusher_idle;
  atomic_bool flusher_stop;
  pthread_t flusher;
  pthread_cond_t flush_cond;
  _Atomic uint64_t sent;
  _Atomic uint64_t completed;  /* last value seen reached */
  atomic_bool lost;
  char lost_call[64];

  VkCommandPool pool;
  vrt_cmd ring[VRT_RING + VRT_XRING];
  uint32_t ring_next;
  int zero_slot; /* ring slot of the open zero-fill command buffer, or -1 */
  uint64_t zero_serial;  /* serial of the open (or last) zero-fill command buffer */
  uint32_t zero_fills;   /* fills recorded in the open one */
  struct {
    uint64_t serial, ticket;
  } zero_sent[64];       /* submitted zero-fill command buffers, by serial % 64 */

  /* The caching allocator (pool.c): freed pooled buffers, newest first
   * (prev/next), and chained by bin (bnext) for lookups. */
  vrt_buffer *pool_head, *pool_tail;
  vrt_buffer *pool_bins[VRT_POOL_BINS];
  uint64_t pool_limit;      /* 0: none (vrt_pool_set_limit) */
  uint64_t pool_cache_max;  /* cached bytes kept at most before the oldest go */

  vrt_block *blocks[VRT_MAX_MEMORY_TYPES];

  /* Staging rings: [0] for copies on the compute family, [1] for the
   * transfer family's (each VkBuffer used by one family only: EXCLUSIVE);
   * their shape (vrt_context_options.staging_slots / staging_slot_mib). */
  vrt_staging staging[2];
  uint32_t staging_slots;
  uint64_t staging_slot_bytes;
  /* Uploads of this many bytes or more import their source (0: never;
   * vrt_context_options.upload_import_mib, staging.c). */
  uint64_t upload_import_bytes;

  vrt_pipeline *pipelines;
  VkDescriptorPool *desc_pools;
  uint32_t ndesc_pools;
  VkQueryPool timing;

  vrt_buffer *buffers;
  vrt_kernel *kernels;
  vrt_recording *recordings;
  /* command pools (each with its one primary command buffer) of released
   * recordings, reset and kept for the next vrt_record_begin: creating and
   * destroying a pool per recording costs tens of microseconds on some
   * drivers (record.c) */
  VkCommandPool spare_pools[VRT_SPARE_POOLS];
  VkCommandBuffer spare_cbs[VRT_SPARE_POOLS];
  uint32_t nspare_pools;
  vrt_control *controls;
  uint64_t next_id;
  vrt_context_stats stats;

  char fault_call[64];
  VkResult fault_result;
  uint32_t fault_times; /* calls left to fail; UINT32_MAX: until cleared */

  /* fft.c's plan cache (under lock) and what frees it when the context
   * goes (set by fft.c, which lives in its own library, vulpy_fft). */
  void *fft;
  void (*fft_free)(vrt_context *ctx);

  /* Streams (issue 18, stream.c). tl0 is the default stream's timeline
   * (queue, timeline); `cqueues` the compute family's queues (cqueues[0] is
   * `queue`); `xqueue` a queue of a transfer-only family, with its own
   * command pool and ring slots [VRT_RING, VRT_RING + VRT_XRING).
   * `streams` are never freed before the context (a destroyed stream's slot
   * and semaphore are reused), so readers need no lock; nstreams only grows.
   * While it is 0 the submission and wait paths are the single-queue ones. */
  vrt_tl tl0;
  VkQueue cqueues[VRT_MAX_QUEUES];
  uint32_t ncqueues, next_cqueue;
  VkQueue xqueue;
  uint32_t xfamily; /* UINT32_MAX: none */
  VkCommandPool xpool;
  uint32_t xring_next;
  /* Sharing (stream.c): new buffers are made usable by both families
   * (`conc`) while `xlive` transfer streams live, or always with
   * `always_concurrent` (VULPY_SHARING=concurrent); `xemulate`: no
   * transfer-only family, but VULPY_TRANSFER_FAMILY=emulate makes transfer
   * streams take the transfer-family paths on the compute queue (tests). */
  _Atomic uint32_t xlive;
  bool always_concurrent, xemulate;
  _Atomic uint64_t xfer_copies, xfer_routed, conc_buffers;
  /* Set (lock held) around a vrt__submit of a transfer stream's copy that
   * runs on the compute family: it goes to a compute queue, on the
   * stream's timeline (stream.c, "sharing"). */
  bool route;
  /* Set (lock held) while a staging ring is made: EXCLUSIVE whatever the
   * sharing state, since each ring serves one family (staging.c). */
  bool make_exclusive;
  struct vrt_stream *streams[VRT_MAX_STREAMS];
  _Atomic uint32_t nstreams;
  /* Streams' semaphores are exportable as opaque fds
   * (VK_KHR_external_semaphore_fd), and the semaphores of other contexts'
   * streams imported here so far (stream.c: cross-context events). */
  bool export_sem;
  bool export_mem; /* VK_KHR_external_memory_fd on (export.c) */
  uint32_t nimports;
  struct {
    VkSemaphore src, sem;
    uint64_t src_serial;
  } imports[16];
  uint64_t serial; /* unique per context in the process */
};

/* ----------------------------------------------------------- streams */

struct vrt_stream {
  vrt_context *ctx;
  vrt_tl tl;
  int kind;   /* vrt_stream_kind */
  bool xfer;  /* on the transfer-only family: copies only */
  bool live;  /* false: destroyed, the slot free for the next stream */
};

/* The stream this thread submits ctx's work to (vrt_stream_set_current),
 * NULL for the default stream. */
struct vrt_stream *vrt__stream_of(vrt_context *ctx);
/* The timeline the next submission on ctx from this thread goes to. */
vrt_tl *vrt__tl_current(vrt_context *ctx);
/* True when this thread's current stream of ctx is a transfer-family one:
 * false + an error naming `what` for work that needs a compute queue. */
bool vrt__compute_ok(vrt_context *ctx, const char *what, vp_diags *d);
/* Records a ticket submitted on tl (lock held). */
void vrt__tl_push(vrt_tl *tl, uint64_t t);
/* Streams' poll and wait (nstreams > 0): the largest T such that every
 * ticket <= T is done; a wait for every queue's tickets <= t. */
uint64_t vrt__poll_streams(vrt_context *ctx);
bool vrt__wait_streams(vrt_context *ctx, vrt_ticket t, uint64_t timeout_ns, vp_diags *d);
/* Every queue's work up to ticket t is done (never blocks): unlike
 * t <= vrt__poll, not held back by another stream's older pending work. */
bool vrt__ticket_done_streams(vrt_context *ctx, vrt_ticket t);
/* Waits for one semaphore to reach `value` in the context's wait mode
 * (context.c); `note`: the semaphore is the only timeline (no streams). */
bool vrt__wait_sem(vrt_context *ctx, VkSemaphore sem, uint64_t value, uint64_t timeout_ns,
                   bool note, vp_diags *d);
/* A begun command buffer for a copy: from the transfer family's ring when
 * `xfer` (vrt__copy_family), else vrt__cmd_begin. */
VkCommandBuffer vrt__cmd_begin_copy(vrt_context *ctx, int *slot, bool xfer, vp_diags *d);
/* vrt__barrier for a transfer-family command buffer (transfer and host
 * stages only) when `xfer`. */
void vrt__barrier_copy(vrt_context *ctx, VkCommandBuffer cb, bool start, bool xfer);
/* Queue creation (context.c's create_device asks for these queues). */
void vrt__streams_destroy(vrt_context *ctx);
/* Sets a new VkBuffer's sharing mode (lock held): CONCURRENT over both
 * families while the context has a transfer stream on a family of its own;
 * returns what the buffer's `conc` is. `fams` has room for 2. */
bool vrt__sharing(vrt_context *ctx, VkBufferCreateInfo *bi, uint32_t *fams);
/* Whether the copy this thread is about to record for ctx, on buffers
 * a and b (b may be NULL), runs on the transfer family: the current stream
 * is a transfer stream and both buffers may be used there. A transfer
 * stream's copy of a buffer that may not sets ctx->route: it is recorded
 * for the compute family (lock held). */
bool vrt__copy_family(vrt_context *ctx, const vrt_buffer *a, const vrt_buffer *b);
/* Waits for `t` on the one semaphore a submission signalled (no lock
 * needed): unlike vrt_wait, never for other queues' earlier tickets. */
bool vrt__wait_on(vrt_context *ctx, VkSemaphore sem, uint64_t t, vp_diags *d);
/* a synchronous dispatch's wait: its own queue's semaphore once streams exist */
bool vrt__wait_mine(vrt_context *ctx, vrt_ticket ticket, vp_diags *d);
/* Whether a ring slot's submission is done (its own semaphore). */
bool vrt__cmd_done(vrt_context *ctx, const vrt_cmd *c, uint64_t done);

/* ----------------------------------------------------------------- errors */

const char *vrt__result_name(VkResult r);
/* Returns the injected result for `call` (consuming it) or VK_SUCCESS. */
VkResult vrt__fault(vrt_context *ctx, const char *call);
/* false + a diagnostic when r < 0; VK_ERROR_DEVICE_LOST marks the context. */
bool vrt__check(vrt_context *ctx, VkResult r, const char *call, vp_diags *d);
/* Bumped in every forked child (pthread_atfork, context.c). */
extern _Atomic uint64_t vrt__fork_gen;
/* false + a diagnostic when the context is lost. */
bool vrt__alive(vrt_context *ctx, vp_diags *d);

/* A host store a running kernel polls for (MemSock ack/closed/base,
 * ControlBuffer words): release, then a full fence. Those words may be
 * mapped write-combining (device-local memory behind the BAR), and a
 * store to WC memory can sit in the CPU's write-combining buffer with no
 * bound on when it drains; on x86 the fence (mfence) drains it, so the
 * kernel sees the word while the host goes on polling instead of
 * whenever the buffer happens to be evicted. */
static inline void vrt__host_store(_Atomic uint32_t *w, uint32_t v) {
  atomic_store_explicit(w, v, memory_order_release);
  atomic_thread_fence(memory_order_seq_cst);
}
void vrt__error(vrt_context *ctx, vp_diags *d, const char *fmt, ...) VP_PRINTF(3, 4);

#define VRT_VK(ctx, d, call, ...)                                            \
  ({                                                                         \
    VkResult vrt_r_ = vrt__fault((ctx), #call);                              \
    if (vrt_r_ == VK_SUCCESS)                                                \
      vrt_r_ = (ctx)->vk.call(__VA_ARGS__);                                  \
    vrt__check((ctx), vrt_r_, #call, (d));                                   \
  })

/* ---------------------------------------------------- context internals */

/* A free command buffer of the ring, begun (lock held). */
VkCommandBuffer vrt__cmd_begin(vrt_context *ctx, int *slot, vp_diags *d);
/* The same over ring slots [first, first + count), taken in turn from
 * *next: the free one, else the oldest after a wait on its own semaphore. */
VkCommandBuffer vrt__ring_begin(vrt_context *ctx, int first, int count, uint32_t *next, int *slot,
                                vp_diags *d);
/* Submits command buffers (lock held), after the pending zero fills; the
 * ring slots given get the new ticket. */
bool vrt__submit(vrt_context *ctx, const VkCommandBuffer *cbs, uint32_t n, const int *slots,
                 uint32_t nslots, vrt_ticket *ticket, vp_diags *d);
/* Records the barrier that starts (true) or ends (false) a submission's
 * work: at the start, earlier GPU writes visible to compute/transfer (a
 * barrier's first scope reaches back in submission order into earlier
 * submissions on the queue, so it orders all of them before this work);
 * at the end, GPU writes also visible to the host. Every command buffer the
 * runtime records starts with it; all but launches that bind only
 * device-local memory (dispatch.c) end with it. */
void vrt__barrier(vrt_context *ctx, VkCommandBuffer cb, bool start);
/* Refreshes and returns the completed value (never blocks). */
uint64_t vrt__poll(vrt_context *ctx);
/* Sends the held eager dispatches (lock held); true when none are held. */
bool vrt__send_held(vrt_context *ctx, vp_diags *d);
uint32_t vrt__eager_batch_default(const vrt_device_info *info);
bool vrt__eager_adaptive_default(const vrt_device_info *info);
/* eager.c: adaptive batching. True while eager_inflight or more
 * submissions of the default queue have not completed (lock held; never
 * blocks). */
bool vrt__eager_running(vrt_context *ctx);
/* A batch started being held (lock held): wakes the flusher, making it on
 * first use; false when no thread could be made (then hold nothing). */
bool vrt__flusher_kick(vrt_context *ctx);
/* Stops and joins the flusher (lock not held), then sends what is held. */
void vrt__flusher_stop(vrt_context *ctx);
/* spin-block's budget after a wait of `took` ns (context.c, "Waiting"):
 * the extra spin the next wait may use, from the current one `old` and the
 * base spin `base`. */
enum { VRT_SPIN_EXTRA_MAX_US = 10000 };
uint64_t vrt__spin_extra(uint64_t base, uint64_t old, uint64_t took);

/* ----------------------------------------------------- memory internals */

bool vrt__alloc(vrt_context *ctx, uint32_t type, uint64_t size, uint64_t align, vrt_alloc *out,
                vp_diags *d);
void vrt__free(vrt_context *ctx, vrt_alloc *a);
void vrt__alloc_destroy(vrt_context *ctx);
/* Records the zero fill buffer `b` is owed, if any, into the pending
 * zero-fill command buffer (lock held): call before any submission that
 * uses `b` and before the host touches its mapping. */
bool vrt__zero_owed(vrt_context *ctx, vrt_buffer *b, vp_diags *d);
/* Frees empty blocks (all of them, or all but one per type when `keep_one`). */
void vrt__alloc_trim(vrt_context *ctx, bool keep_one);
/* The ticket that covers the zero fill of buffer `b` (lock held): submits
 * the open zero-fill command buffer when it holds b's fill. 0: none. */
bool vrt__zero_ticket(vrt_context *ctx, vrt_buffer *b, vrt_ticket *t, vp_diags *d);

/* pool.c: the caching allocator (lock held). A pooled buffer of `size`
 * bytes of `kind` whose first operation writes bytes [0, written); the
 * rest is zeroed (on the GPU for device-local kinds). */
vrt_buffer *vrt__pool_create(vrt_context *ctx, uint64_t size, vrt_memory_kind kind,
                             uint64_t written, vp_diags *d);
/* Takes a destroyed pooled buffer back (lock held). */
void vrt__pool_put(vrt_context *ctx, vrt_buffer *b);
/* Frees cached buffers whose GPU work is done, oldest first, until at most
 * `keep` cached bytes are left (lock held; never waits). */
void vrt__pool_trim(vrt_context *ctx, uint64_t keep);
/* Frees every cached buffer (lock held), after their GPU work. */
bool vrt__pool_release_all(vrt_context *ctx, vp_diags *d);
/* Makes a VkBuffer of `bytes` bound to memory of `kind` (lock held); not
 * zeroed, not linked. Frees cached buffers and retries when memory is short. */
vrt_buffer *vrt__buffer_make(vrt_context *ctx, uint64_t bytes, vrt_memory_kind kind,
                             uint32_t need, vp_diags *d);
/* Zeroes bytes [from, vk_size) of a new buffer: with memset through the
 * mapping (`cpu`), else by a fill in the pending zero-fill command buffer. */
bool vrt__buffer_zero(vrt_context *ctx, vrt_buffer *b, uint64_t from, bool cpu, vp_diags *d);

/* Notes that the submission of ticket t on timeline tl uses buffer b
 * (lock held): its last_use and its use on that timeline. */
void vrt__buffer_used(vrt_buffer *b, const vrt_tl *tl, uint64_t t);
/* Waits for the GPU work submitted so far that uses b: on each timeline
 * for its last ticket that used b, not for other work queued there or on
 * other queues (lock not needed). */
bool vrt__buffer_idle(vrt_buffer *b, vp_diags *d);
/* How long a teardown waits for the GPU before it leaves the object to the
 * driver (context.c). */
uint64_t vrt__destroy_bound(vrt_context *ctx);

/* Frees a buffer's Vulkan objects (lock held; no waiting). */
void vrt__buffer_release(vrt_buffer *b);
/* Creates a zeroed buffer (lock held); `need` are VRT_MEM_* flags the memory
 * type must have on top of what the kind asks for. */
vrt_buffer *vrt__buffer_create(vrt_context *ctx, uint64_t size, vrt_memory_kind kind,
                               uint32_t need, vp_diags *d);

/* ------------------------------------------------------ kernel internals */

typedef struct vrt_spirv_info {
  bool found;             /* the entry point exists (GLCompute) */
  uint32_t local[3];      /* literal local size */
  int32_t spec_id[3];     /* specialization constant id per dimension, or -1 */
  uint32_t nbindings;
  struct {
    uint32_t set, binding;
    bool uniform; /* a uniform buffer (Block in Uniform storage) */
  } bindings[64];
  uint32_t push_bytes; /* size of the push-constant block, 0 if none */
  char entries[256];   /* the GLCompute entry points, comma-separated */
} vrt_spirv_info;

/* Reads what the runtime needs from SPIR-V words; false + error if the
 * module is malformed. */
bool vrt__spirv_reflect(const uint32_t *words, size_t nwords, const char *entry,
                        vrt_spirv_info *out, vp_diags *d);
/* SPIRV-Tools validation for the device's Vulkan version. */
bool vrt__spirv_validate(vrt_context *ctx, const uint32_t *words, size_t nwords, vp_diags *d);
/* Makes the cache folder (0700) and says whether it may be used: a real
 * directory owned by this user that no other may write; else false with
 * the reason in why (pcache.c). */
bool vrt__cache_dir_prepare(const char *dir, char *why, size_t n);

/* What VULPY_DENORM=auto keeps on a device (denorm.c): the VRT_DENORM_*
 * mask for its support bits and denormBehaviorIndependence. */
uint32_t vrt__denorm_auto(uint32_t support, uint32_t independence);
/* What denorm mode auto says of the float32 helpers' subnormal-safe paths
 * on a device whose denorm_preserve is chosen (denorm.c). */
bool vrt__denorm_auto_emulate(const vrt_device_info *info);
/* Whether float32 arithmetic of precise kernels flushes subnormals with the
 * info's denorm_preserve (vrt_device_info.denorm_flush). */
bool vrt__denorm_flushes(const vrt_device_info *info);
/* Applies a denorm mode (vrt_context_options.denorm) to a context's
 * info.denorm_preserve / denorm_emulate; false with an error for PRESERVE
 * on a device that cannot keep float32 subnormals, or a value outside the
 * enum. */
bool vrt__denorm_choose(vrt_device_info *info, vrt_denorm_mode mode, vp_diags *d);

/* Finds or makes the pipeline (lock held). */
vrt_pipeline *vrt__pipeline_get(vrt_context *ctx, const uint32_t *words, size_t nwords,
                                const vpm_manifest *m, const uint32_t local[3],
                                const int32_t spec_id[3], uint32_t push_size, bool trusted,
                                uint32_t denorm, vp_diags *d);
void vrt__pipeline_destroy_all(vrt_context *ctx);

/* Checks a dispatch's arguments and computes group counts and the push block
 * (push_out has room for k->push_size bytes). */
bool vrt__prepare(vrt_kernel *k, const vrt_args *a, const vrt_bind_range *ranges, vrt_grid g,
                  uint32_t groups[3], unsigned char *push_out, vp_diags *d);
/* Binds pipeline, buffers and push constants and dispatches (recording).
 * `sets` are descriptor sets to use when the kernel does not push them. */
void vrt__record_dispatch(vrt_kernel *k, VkCommandBuffer cb, const vrt_args *a,
                          const vrt_bind_range *ranges, const uint32_t groups[3],
                          const unsigned char *push, const VkDescriptorSet *sets);
/* Allocates descriptor sets from the context's pools and writes the args'
 * buffers into them (lock held); *pool says which pool they came from. */
bool vrt__alloc_sets(vrt_kernel *k, const vrt_args *a, const vrt_bind_range *ranges,
                     VkDescriptorPool *pool, VkDescriptorSet *sets, vp_diags *d);
void vrt__kernel_release(vrt_kernel *k);

void vrt__record_release(vrt_recording *r);
void vrt__control_release(vrt_control *c);

/* Links `o` at the head of a doubly linked list. */
#define VRT_LINK(head, o)                                                    \
  do {                                                                       \
    (o)->prev = NULL;                                                        \
    (o)->next = (head);                                                      \
    if (head)                                                                \
      (head)->prev = (o);                                                    \
    (head) = (o);                                                            \
  } while (0)
#define VRT_UNLINK(head, o)                                                  \
  do {                                                                       \
    if ((o)->prev)                                                           \
      (o)->prev->next = (o)->next;                                           \
    else                                                                     \
      (head) = (o)->next;                                                    \
    if ((o)->next)                                                           \
      (o)->next->prev = (o)->prev;                                           \
  } while (0)

uint64_t vrt__now_ns(void);

/* prewarm.c: starts the driver warm-up thread / waits for it. */
void vrt__prewarm_start(vrt_context *ctx);
void vrt__prewarm_join(vrt_context *ctx);

#endif /* VULPY_RUNTIME_INTERNAL_H */
