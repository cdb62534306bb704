/* vulpy/runtime.h - the slim Vulkan runtime: devices, memory, kernels, dispatch.
 *
 * A context owns one Vulkan device (its own VkInstance and VkDevice, a compute
 * queue and a timeline semaphore). Buffers live in one of four memory kinds;
 * kernels are SPIR-V plus a manifest (vulpy/manifest.h); a dispatch is
 * synchronous, asynchronous (a ticket to wait on), or part of a recording
 * (many dispatches and copies in one submission). Control buffers are word
 * arrays that host and GPU update atomically while a kernel runs.
 *
 * The Vulkan loader is opened at run time (volk): nothing here links
 * libvulkan, and every failure - no loader, no device, a VkResult error, a lost
 * device, out of memory - comes back as diagnostics in a caller-owned vp_diags
 * with a false/NULL return. The library never prints and never exits.
 *
 * Threads: a context may be used from several threads at once; its CPU-side
 * state is behind one mutex and GPU waits happen outside it. A recording is
 * used by one thread at a time. docs/runtime.md has the details.
 */
#ifndef VULPY_RUNTIME_H
#define VULPY_RUNTIME_H

#include "vulpy/manifest.h"
#include "vulpy/support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vrt_context vrt_context;
typedef struct vrt_buffer vrt_buffer;
typedef struct vrt_kernel vrt_kernel;
typedef struct vrt_recording vrt_recording;
typedef struct vrt_control vrt_control;

/* A point on a context's timeline: work submitted before it is done once the
 * ticket is reached. Tickets of one context only; 0 is always done. */
typedef uint64_t vrt_ticket;

/* =============================================================== devices */

typedef enum vrt_device_kind {
  VRT_DEVICE_OTHER,
  VRT_DEVICE_DGPU,    /* discrete GPU */
  VRT_DEVICE_IGPU,    /* integrated GPU */
  VRT_DEVICE_VIRTUAL, /* a GPU seen through a hypervisor */
  VRT_DEVICE_CPU,     /* a CPU implementation (Mesa's lavapipe, SwiftShader) */
} vrt_device_kind;

/* "dgpu", "igpu", "virtual", "cpu", "other". */
const char *vrt_device_kind_name(vrt_device_kind kind);

/* Memory property bits: the values of VkMemoryPropertyFlagBits. */
enum {
  VRT_MEM_DEVICE_LOCAL = 0x1,
  VRT_MEM_HOST_VISIBLE = 0x2,
  VRT_MEM_HOST_COHERENT = 0x4,
  VRT_MEM_HOST_CACHED = 0x8,
  VRT_MEM_LAZILY_ALLOCATED = 0x10,
  VRT_MEM_PROTECTED = 0x20,
  VRT_MEM_DEVICE_COHERENT_AMD = 0x40,
  VRT_MEM_DEVICE_UNCACHED_AMD = 0x80,
};
enum { VRT_HEAP_DEVICE_LOCAL = 0x1 }; /* VkMemoryHeapFlagBits */

#define VRT_MAX_MEMORY_TYPES 32
#define VRT_MAX_MEMORY_HEAPS 16

/* A device's memory types and heaps, as VkPhysicalDeviceMemoryProperties
 * says, in plain C so that the memory-kind choice can be tested with the
 * tables of devices that are not in the machine. */
typedef struct vrt_memory_props {
  uint32_t type_count, heap_count;
  struct {
    uint32_t flags; /* VRT_MEM_* */
    uint32_t heap;
  } types[VRT_MAX_MEMORY_TYPES];
  struct {
    uint64_t size;
    uint32_t flags; /* VRT_HEAP_* */
  } heaps[VRT_MAX_MEMORY_HEAPS];
} vrt_memory_props;

typedef struct vrt_device_info {
  uint32_t index; /* in vkEnumeratePhysicalDevices order */
  char name[256];
  uint32_t vendor_id, device_id;
  const char *vendor; /* "NVIDIA", "AMD", "Intel", "ARM", "Qualcomm", "Apple", "Mesa", ... */
  vrt_device_kind kind;
  char driver_name[256], driver_info[256];
  uint32_t api_version, driver_version; /* VK_MAKE_API_VERSION encoding */
  uint8_t device_uuid[16], pipeline_cache_uuid[16];
  vrt_memory_props memory;
  bool uma; /* unified memory: device and host memory are the same DRAM */
  /* limits */
  uint64_t max_storage_buffer_range, max_memory_allocation_size, max_buffer_size;
  uint32_t max_workgroup_size[3], max_workgroup_invocations, max_workgroup_count[3];
  uint32_t subgroup_size, min_subgroup_size, max_subgroup_size;
  uint32_t max_shared_memory, max_push_constants_size;
  /* the storage buffers one compute shader may bind: the smaller of
   * maxPerStageDescriptorStorageBuffers and maxDescriptorSetStorageBuffers */
  uint32_t max_storage_buffers;
  uint64_t min_storage_buffer_offset_alignment, non_coherent_atom_size;
  uint64_t min_imported_host_pointer_alignment; /* 0 without external_memory_host */
  float timestamp_period;                       /* ns per timestamp tick */
  bool timestamps;                              /* the compute queue writes timestamps */
  /* features */
  uint32_t features; /* VP_FEAT(...) bits the device supports */
  bool push_descriptors, timeline_semaphores, pipeline_creation_feedback;
  bool usable; /* Vulkan >= 1.2 with timeline semaphores and a compute queue */
  /* VkDriverId (Vulkan 1.2), 0 when unknown. */
  uint32_t driver_id;
  /* GLSL fma() is one fused operation on this device: false for CPU devices
   * and the drivers known to lower it to a multiply and an add (Mesa's
   * llvmpipe/lavapipe, SwiftShader), true otherwise. In a context's info,
   * the value its pipelines get: vrt_context_options.fma (VULPY_FMA=
   * fused|unfused|auto) overrides the detection (docs/runtime.md). */
  bool fma_fused;
  /* Float controls (Vulkan 1.2): the widths whose subnormals a shader can
   * keep with the SPIR-V execution mode DenormPreserve
   * (shaderDenormPreserveFloat16/32/64, as VRT_DENORM_F* bits), and
   * denormBehaviorIndependence (a VkShaderFloatControlsIndependence). */
  uint32_t denorm_support, denorm_independence;
  /* The widths whose subnormals VulPy's precise-math kernels keep
   * (vrt_kernel_options.preserve_denorms), VRT_DENORM_* bits. In a device's
   * description, what denorm mode auto chooses: float32 and each other
   * supported width, as the independence rules allow, or 0 where float32
   * cannot be kept (lavapipe: it keeps subnormals without being asked). In
   * a context's info, the choice after vrt_context_options.denorm
   * (VULPY_DENORM=preserve|default|auto; docs/runtime.md). */
  uint32_t denorm_preserve;
  /* The float32 precise-math helpers take their subnormal-safe paths
   * (VP_DENORM_EMULATE, VRT_DENORM_SPEC_ID): subnormal arguments and
   * results read and written by their bits. In a device's description, what
   * denorm mode auto chooses: on where float32 gets no DenormPreserve and
   * the device is not known to keep subnormals by itself (lavapipe keeps
   * them), i.e. on devices that flush float32 subnormals (NVIDIA). In a
   * context's info, the choice after vrt_context_options.denorm (emulate
   * forces it on, default and preserve off; docs/runtime.md). */
  bool denorm_emulate;
  /* Float32 arithmetic of precise-math kernels (+ - * /, compares,
   * conversions) flushes subnormal operands and results to +-0, as CUDA
   * with -ftz=true: float32 gets no DenormPreserve and the driver is not
   * one known to keep subnormals unasked (lavapipe). Not a choice, a fact
   * of the context's denorm mode and driver: VULPY_DENORM=emulate on
   * lavapipe leaves it false, default on NVIDIA true. The functions the
   * helpers compute are exact or within their bounds either way
   * (docs/math.md, "Subnormals"). */
  bool denorm_flush;
  /* The widths whose shaders can keep signed zeros, infinities and NaNs
   * with the execution mode SignedZeroInfNanPreserve
   * (shaderSignedZeroInfNanPreserveFloat16/32/64, VRT_DENORM_F* bits):
   * precise-math kernels get it for each (vrt_kernel_options.exact_float). */
  uint32_t inf_nan_preserve;
} vrt_device_info;

/* Width bits of the denormal masks above. */
enum {
  VRT_DENORM_F16 = 1,
  VRT_DENORM_F32 = 2,
  VRT_DENORM_F64 = 4,
  /* The device wants one denormal mode for float16 and float64 (or for all
   * three widths): every width of the mask is set, whether the module uses
   * it or not. */
  VRT_DENORM_TIED = 8,
  /* In vrt_context_options.force_denorm: the float32 helpers' subnormal-safe
   * paths on (info.denorm_emulate), whatever the device; in a pipeline's
   * denormal word, VP_DENORM_EMULATE set true. */
  VRT_DENORM_EMULATE = 16,
};

/* Adds `OpExecutionMode %entry DenormPreserve <width>` to every entry point
 * of a SPIR-V module, for the widths of `widths` (VRT_DENORM_* bits): 32,
 * and 16 / 64 where the module declares the Float16 / Float64 capability
 * (with VRT_DENORM_TIED, always), along with `OpCapability DenormPreserve`
 * and, below SPIR-V 1.4, `OpExtension "SPV_KHR_float_controls"` where the
 * module lacks them. A width that already has a denormal mode
 * (DenormPreserve or DenormFlushToZero) keeps it; under VRT_DENORM_TIED an
 * entry point with any denormal mode is left alone. Returns the widths
 * given the mode (VRT_DENORM_F* bits, in any entry point): when > 0, *out is
 * the patched module (malloc'ed, *nout words; free() it), else *out is NULL
 * and the module stays as it is; -1 with an error for words that are not a
 * well-formed module. */
int vrt_spirv_preserve_denorms(const uint32_t *words, size_t nwords, uint32_t widths,
                               uint32_t **out, size_t *nout, vp_diags *d);

/* Adds `OpExecutionMode %entry SignedZeroInfNanPreserve <width>` to every
 * entry point for the widths of `widths` (VRT_DENORM_F* bits): 32, and 16 /
 * 64 where the module declares Float16 / Float64, with the capability and
 * extension as vrt_spirv_preserve_denorms adds them. Returns as that does. */
int vrt_spirv_keep_inf_nan(const uint32_t *words, size_t nwords, uint32_t widths,
                           uint32_t **out, size_t *nout, vp_diags *d);

/* Decorates the result of every float arithmetic instruction (OpFNegate,
 * OpFAdd, OpFSub, OpFMul, OpFDiv, OpFRem, OpFMod, OpDot and the vector and
 * matrix products) NoContraction, so that the driver computes it as
 * written. Returns the number of decorations added: when > 0, *out is the
 * patched module (malloc'ed, *nout words; free() it), else *out is NULL;
 * -1 with an error for words that are not a well-formed module. */
int vrt_spirv_no_contraction(const uint32_t *words, size_t nwords, uint32_t **out, size_t *nout,
                             vp_diags *d);

/* The SpecId of the bool specialization constant VP_FMA_FUSED that the
 * precise math helpers branch on (lib/Target/CFamily/mathlib_src.c; the
 * same value as VTG_FMA_SPEC_ID in target.h). Every pipeline gets it set to
 * its context's info.fma_fused; a module without it ignores the entry. */
#define VRT_FMA_SPEC_ID 2046
/* The SpecId of `const bool VP_DENORM_EMULATE` (VTG_DENORM_SPEC_ID in
 * target.h): true for the kernels made with preserve_denorms on a context
 * whose info.denorm_emulate is set, false for every other pipeline. */
#define VRT_DENORM_SPEC_ID 2045

/* Opens the Vulkan loader: the file `library` names (dlopen's search
 * rules), or with NULL / "" the system's (libvulkan.so.1, libvulkan.so,
 * then the macOS names). The loader is process-wide and opened once: the
 * first call decides (vrt_list_devices and vrt_context_create call it with
 * their choice, NULL and vrt_context_options.vulkan_library); a later call
 * naming another file is an error, a later call with NULL takes the open
 * one. False with an error saying what to install when it cannot be
 * opened. */
bool vrt_loader_open(const char *library, vp_diags *d);

/* Enumerates every Vulkan device. *out is a malloc'ed array (free() it).
 * With no loader or no device: false and an error saying what to install.
 * The loader is the one vrt_loader_open opened, else the system's. */
bool vrt_list_devices(vrt_device_info **out, uint32_t *count, vp_diags *d);

/* Appends a description: one line per device, or with `verbose` the limits,
 * features and memory types as well. */
void vrt_device_format(const vrt_device_info *info, bool verbose, vp_strbuf *out);

/* Picks a device with a selector:
 *   NULL or ""   the default (dgpu > igpu > virtual > cpu > other, lowest
 *                index first), as "any";
 *   "2"          the device of that index;
 *   "dgpu", "igpu", "cpu", "virtual", "other", "any"   the first of that kind
 *                ("any": the default order);
 *   other text   the first device whose name contains it (case-insensitive).
 * Returns the index into `devs`, or -1 with an error listing the devices. */
int vrt_select_device(const vrt_device_info *devs, uint32_t n, const char *selector,
                      vp_diags *d);

/* ================================================================ context */

/* How vrt_wait waits for the GPU.
 *   SPIN_BLOCK  poll the timeline for spin_us, then block in the driver
 *               (a tiny dispatch finishes within the spin; long work does
 *               not burn a core for long);
 *   BLOCK       block in the driver at once (costs the driver's wake-up
 *               latency; the right choice on CPU devices, where a spinning
 *               thread takes a core from the work it waits for);
 *   SPIN        poll until done (lowest latency; burns a core meanwhile).
 * DEFAULT: BLOCK on CPU devices and SPIN_BLOCK on GPUs (VULPY_WAIT=
 * spin-block|block|spin chooses through include/vulpy/runtime_env.h). */
typedef enum vrt_wait_mode {
  VRT_WAIT_DEFAULT,
  VRT_WAIT_SPIN_BLOCK,
  VRT_WAIT_BLOCK,
  VRT_WAIT_SPIN,
} vrt_wait_mode;

/* "spin-block", "block", "spin" ("default" for VRT_WAIT_DEFAULT). */
const char *vrt_wait_mode_name(vrt_wait_mode mode);

/* Whether kernels take the fused-fma paths of the math helpers
 * (info.fma_fused). AUTO: as detected for the device. */
/* What a forked child may do with Vulkan when its parent had loaded a
 * driver (VULPY_FORK_CHILD): AUTO refuses in the child when that driver is
 * not known to survive fork() (every driver but Mesa's: NVIDIA's child hung
 * in vkCreateInstance or crashed at exit, measured on the H200), REFUSE
 * always refuses there, TRY always attempts a fresh instance. */
typedef enum vrt_fork_child { VRT_FORK_AUTO, VRT_FORK_REFUSE, VRT_FORK_TRY } vrt_fork_child;
/* Whether a forked child may make its own instance of this driver
 * (VkDriverId) after its parent loaded it: true for Mesa's drivers. */
bool vrt_driver_survives_fork(uint32_t driver_id);

typedef enum vrt_fma_mode {
  VRT_FMA_AUTO,
  VRT_FMA_FUSED,   /* forced on (testing the other path on lavapipe) */
  VRT_FMA_UNFUSED, /* forced off */
} vrt_fma_mode;

/* How precise-math kernels treat subnormals (docs/runtime.md, "Subnormals").
 *   AUTO      DenormPreserve wherever the device can keep float32
 *             subnormals, the float32 helpers' emulation where it flushes
 *             them (info.denorm_preserve / denorm_emulate as described);
 *   DEFAULT   neither: the device's own handling;
 *   PRESERVE  DenormPreserve, an error on a device that cannot keep them;
 *   EMULATE   the float32 helpers' subnormal-safe paths, no DenormPreserve. */
typedef enum vrt_denorm_mode {
  VRT_DENORM_MODE_AUTO,
  VRT_DENORM_MODE_DEFAULT,
  VRT_DENORM_MODE_PRESERVE,
  VRT_DENORM_MODE_EMULATE,
} vrt_denorm_mode;

/* "auto", "fused", "unfused"; "auto", "default", "preserve", "emulate";
 * NULL for a value outside the enum. */
const char *vrt_fma_mode_name(vrt_fma_mode mode);
const char *vrt_denorm_mode_name(vrt_denorm_mode mode);

/* How a context is made. The runtime reads no environment variables: every
 * choice is here, and a zeroed struct (or NULL) means the defaults each
 * field names. Programs that honour the VULPY_* variables (the Python
 * package, vulpy-run, the tests) fill the struct with
 * vrt_env_context_options (include/vulpy/runtime_env.h, not part of the
 * runtime library); docs/runtime.md lists which variable sets which field. */
typedef struct vrt_context_options {
  /* A selector, as vrt_select_device reads it; NULL: the default order
   * (VULPY_DEVICE). */
  const char *device;
  /* 1: on; 0 or -1: off (-1: not chosen, for callers that fill the
   * options from VULPY_VALIDATION). With validation on, the Khronos
   * validation layer is enabled and every message it sends is kept in the
   * context (vrt_context_take_validation). */
  int validation;
  /* The pipeline cache folder; NULL or "": no disk cache (VULPY_CACHE_DIR,
   * else $XDG_CACHE_HOME/vulpy, else ~/.cache/vulpy). */
  const char *cache_dir;
  /* How long a wait spins on the timeline before it blocks, in microseconds
   * (VULPY_SPIN_US). 0: 100 (CPU devices block at once by default: the
   * spinning thread would take a core from the work it waits for). */
  uint32_t spin_us;
  /* The wait strategy (see vrt_wait_mode; VULPY_WAIT). */
  vrt_wait_mode wait;
  /* Threads that share large host-side copies (uploads, downloads, staging
   * slots of 4 MiB or more), at most 64 (16 of them work at once). 0: half
   * the online CPUs, at most 8 (VULPY_COPY_THREADS). */
  uint32_t copy_threads;
  /* Bind buffers through descriptor sets from pools even where
   * VK_KHR_push_descriptor exists (tests use it to cover both paths). */
  bool no_push_descriptors;
  /* Never map `device` buffers, even where their memory is host-visible
   * (UMA): uploads and downloads then take the staging ring, and zeroing
   * the fill path, as on a discrete GPU (tests use it on lavapipe). */
  bool no_device_mapping;
  /* Testing: the DenormPreserve widths (VRT_DENORM_* bits) that
   * precise-math kernels get, whatever the device reports and `denorm`
   * says; 0: the normal choice. Tests use it to run the patched path on
   * lavapipe, with validation off (the layer rightly objects to a mode the
   * device does not report). With VRT_DENORM_EMULATE: the float32
   * helpers' subnormal-safe paths on (alone: no DenormPreserve), as
   * denorm mode emulate does. */
  uint32_t force_denorm;
  /* Enable robustBufferAccess where the device has it (issue 20): an
   * out-of-range buffer access then reads 0 / writes nothing instead of
   * touching other memory. Off by default: it costs on every access
   * (docs/runtime.md, "Robust buffer access", gives the figure). */
  bool robust;
  /* ---- issue 14: the choices the runtime once read from the environment
   * itself (the VULPY_* variable of each in brackets). */
  /* The Vulkan loader file (VULPY_VULKAN_LIBRARY); NULL: the system's.
   * Process-wide: see vrt_loader_open. */
  const char *vulkan_library;
  /* The fused-fma paths (VULPY_FMA=auto|fused|unfused). */
  vrt_fma_mode fma;
  /* Subnormals in precise-math kernels (VULPY_DENORM=auto|default|
   * preserve|emulate). */
  vrt_denorm_mode denorm;
  /* Never export the streams' timeline semaphores to other contexts, even
   * where the device can (VULPY_EXPORT_SEMAPHORES=0). */
  bool no_export_semaphores;
  /* One queue: no extra compute queues for streams and no transfer queue
   * (VULPY_STREAM_QUEUES=0). */
  bool single_queue;
  /* No driver warm-up thread at context creation (VULPY_PREWARM=0;
   * prewarm.c). */
  bool no_prewarm;
  /* A forked child's use of a driver its parent loaded (VULPY_FORK_CHILD=
   * auto|refuse|try; vrt_fork_child). */
  vrt_fork_child fork_child;
  /* Tests on one-family devices (lavapipe): transfer streams take the
   * transfer-family paths on the default queue (VULPY_TRANSFER_FAMILY=
   * emulate; stream.c, "sharing"). */
  bool emulate_transfer_family;
  /* Every buffer CONCURRENT over the compute and transfer families from
   * the start, the rule before buffers stayed EXCLUSIVE until a transfer
   * stream exists; for measuring the difference (VULPY_SHARING=
   * concurrent). */
  bool always_concurrent;
  /* The staging rings that carry uploads and downloads of memory the host
   * cannot map (staging.c): slots per ring, 2 to 8 (VULPY_STAGING_SLOTS;
   * 0: 4), and each slot's size in MiB, 1 to 256 (VULPY_STAGING_MIB;
   * 0: 8). For measuring (bench/probes/upload_ab.py). */
  uint32_t staging_slots, staging_slot_mib;
  /* Uploads of at least this many MiB into memory the host cannot map
   * import the source's whole pages (VK_EXT_external_memory_host), that
   * many MiB at a time, and copy from them on the GPU: no staging memcpy
   * (staging.c, "imported uploads"); the unaligned head and tail still go
   * through the ring, and such an upload returns once its copies are done
   * (so after the work queued before them on the stream, as a staged upload
   * larger than the ring does). 0: never, the default
   * (VULPY_UPLOAD_IMPORT_MIB, 1 to 4096). */
  uint32_t upload_import_mib;
  /* Eager batching (vrt_context_set_eager_batch / _adaptive): 0: the
   * device kind's default; 1 to 64: a fixed batch; VRT_EAGER_ADAPTIVE_OPT:
   * adaptive (VULPY_EAGER_BATCH, 1 to 64 or "adaptive"). */
  uint32_t eager_batch;
  /* Adaptive batching's submissions in flight before a dispatch is held
   * (vrt_context_set_eager_inflight; VULPY_EAGER_INFLIGHT, 1 to 8); 0:
   * VRT_EAGER_INFLIGHT. */
  uint32_t eager_inflight;
  /* How adaptive batching's flusher thread waits for the work in flight
   * while it holds a batch: 0, polling the timeline every
   * VRT_EAGER_FLUSHER_US; n (1 to 1000), every n us; VRT_EAGER_FLUSHER_BLOCK,
   * blocked in vkWaitSemaphores (VULPY_EAGER_FLUSHER_US=block: measuring;
   * on the H200 a waiter blocked in the driver while kernels ran made them
   * up to 1.8x slower). */
  uint32_t eager_flusher_us;
} vrt_context_options;
#define VRT_EAGER_ADAPTIVE_OPT 0xffffffffu
#define VRT_EAGER_FLUSHER_US 20u
#define VRT_EAGER_FLUSHER_BLOCK 0xffffffffu

/* Creates a context; NULL `opt` means all defaults. */
vrt_context *vrt_context_create(const vrt_context_options *opt, vp_diags *d);
/* Waits for the context's work, then frees everything it owns (buffers,
 * kernels, recordings and control buffers not destroyed yet included). */
void vrt_context_destroy(vrt_context *ctx);
/* vrt_context_destroy, keeping the validation messages sent up to the end
 * of the teardown (objects left alive, ...): they move into `d`. Returns
 * how many there were. */
uint32_t vrt_context_destroy_checked(vrt_context *ctx, vp_diags *d);
const vrt_device_info *vrt_context_device(const vrt_context *ctx);
/* True once a call reported VK_ERROR_DEVICE_LOST: every later call fails. */
bool vrt_context_lost(const vrt_context *ctx);
/* Moves the validation messages recorded so far into `d` (as errors);
 * returns how many there were. */
uint32_t vrt_context_take_validation(vrt_context *ctx, vp_diags *d);
/* Blocks until all submitted work is done. False with an error on a lost
 * device (even when nothing was pending): the caller must not trust data
 * the device wrote. */
bool vrt_context_wait_idle(vrt_context *ctx, vp_diags *d);

/* Changes how the context waits (benchmarks compare the strategies on one
 * context); spin_us 0 keeps the current spin time. Safe from any thread. */
void vrt_context_set_wait(vrt_context *ctx, vrt_wait_mode mode, uint32_t spin_us);
/* The strategy in use (never VRT_WAIT_DEFAULT) and its spin time. */
vrt_wait_mode vrt_context_wait_mode(const vrt_context *ctx, uint32_t *spin_us);
/* Changes how many threads share large host copies (1: the caller alone). */
void vrt_context_set_copy_threads(vrt_context *ctx, uint32_t n);
uint32_t vrt_context_copy_threads(const vrt_context *ctx);

typedef struct vrt_context_stats {
  uint64_t submits;          /* vkQueueSubmit calls */
  uint64_t dispatches;       /* compute dispatches submitted (a recording counts each of its own) */
  uint64_t reused_launches;  /* dispatches that resubmitted a recorded command buffer */
  uint64_t open_launches;    /* dispatches of those that end without the closing barrier:
                              * every buffer device-local, nothing the host reads */
  uint64_t blocks, block_bytes; /* VkDeviceMemory blocks held by the allocator */
  uint64_t used_bytes;       /* bytes handed out of them */
  uint64_t pipelines;        /* pipelines in the in-memory cache */
  double prewarm_ms;         /* the driver warm-up's time (prewarm.c); 0 while it runs, or off */
  /* The caching allocator (see "The memory pool" below). */
  uint64_t driver_allocations; /* vkAllocateMemory calls */
  uint64_t driver_frees;       /* vkFreeMemory calls */
  uint64_t pool_hits;          /* buffers handed out again from the pool */
  uint64_t pool_misses;        /* buffers that needed a new VkBuffer */
  uint64_t pool_used_bytes;    /* bytes of live pooled buffers (size classes) */
  uint64_t pool_cached_bytes;  /* bytes of freed buffers kept for reuse */
  uint64_t pool_cached_buffers;
  uint64_t pool_limit;         /* vrt_pool_set_limit's value, 0 for none */
  uint64_t gpu_zero_bytes;     /* bytes zeroed with vkCmdFillBuffer */
  uint64_t cpu_zero_bytes;     /* bytes zeroed with memset through a mapping */
  uint64_t zero_fills_dropped; /* owed GPU zero fills dropped: the first operation wrote all */
  uint64_t pool_waits;         /* requests that waited for a busy cached buffer (MAX_BUSY) */
  uint64_t pool_ordered;       /* results handed memory queued work still uses (queue order) */
  /* Streams and queue families (stream.c, "sharing"). */
  uint64_t xfer_copies;  /* transfer-stream copies run on the transfer family */
  uint64_t xfer_routed;  /* ... run on the compute family: a buffer was EXCLUSIVE */
  uint64_t conc_buffers; /* buffers made usable by both families (CONCURRENT) */
  uint64_t waits_blocked; /* waits that blocked in vkWaitSemaphores (spin-block: after the spin) */
  /* Pieces of uploads copied straight from imported host pages
   * (vrt_context_options.upload_import_mib). */
  uint64_t upload_imports;
  /* Eager batching (vrt_dispatch_eager). */
  uint64_t eager_held;    /* dispatches held back right now, not yet submitted */
  uint64_t eager_flushes; /* held batches the flusher thread sent (adaptive mode) */
  /* Held batches sent (adaptive) when the default queue had nothing in
   * flight: the GPU idled between the batch before and this one. */
  uint64_t eager_drained;
} vrt_context_stats;
void vrt_context_stats_get(vrt_context *ctx, vrt_context_stats *out);

/* Testing hook: the next call of the Vulkan function `call` (say
 * "vkQueueSubmit") is not made and returns `vk_result` instead (a VkResult,
 * say -4 for VK_ERROR_DEVICE_LOST). Not thread-safe; NULL clears it. */
void vrt_context_inject_fault(vrt_context *ctx, const char *call, int vk_result);
/* The same for the next `times` calls (UINT32_MAX: every call until cleared
 * with a NULL `call`). */
void vrt_context_inject_faults(vrt_context *ctx, const char *call, int vk_result, uint32_t times);

/* ========================================================== memory kinds */

typedef enum vrt_memory_kind {
  VRT_DEVICE, /* GPU-owned; mappable only on unified-memory devices */
  VRT_HOST,   /* host-visible, write-combined where the device offers it */
  VRT_CACHED, /* host-visible and host-cached: fast CPU reads */
  VRT_REBAR,  /* device-local and host-visible (resizable BAR) */
  VRT_MEMORY_KIND_COUNT
} vrt_memory_kind;

const char *vrt_memory_kind_name(vrt_memory_kind kind); /* "device", ... */
int vrt_memory_kind_lookup(const char *name);            /* -1 if unknown */

/* True when device and host memory are one DRAM: an integrated or CPU
 * device, or one whose heaps are all device-local. */
bool vrt_memory_is_uma(const vrt_memory_props *p, vrt_device_kind kind);

/* The memory types acceptable for `kind`, best first: fills `types` (room for
 * VRT_MAX_MEMORY_TYPES) and, when `tiers` is given, the preference tier of
 * each (0 = what the kind asks for; higher = a documented fallback). Only
 * types whose bit is set in `type_bits` count. Returns how many. */
uint32_t vrt_memory_candidates(const vrt_memory_props *p, bool uma, vrt_memory_kind kind,
                               uint32_t type_bits, uint32_t *types, uint32_t *tiers);

/* =============================================================== buffers */

/* A zeroed buffer of `size` bytes (0 is allowed) in memory of `kind`, from
 * the context's memory pool (see "The memory pool" below). Buffers larger
 * than maxStorageBufferRange can be created and copied but not bound to a
 * kernel. */
vrt_buffer *vrt_buffer_create(vrt_context *ctx, uint64_t size, vrt_memory_kind kind,
                              vp_diags *d);
/* Wraps `size` bytes of host memory at `ptr` (both aligned to the device's
 * min_imported_host_pointer_alignment; vrt_host_alloc gives such memory)
 * with VK_EXT_external_memory_host: no copy. The memory must outlive the
 * buffer. The same memory may be imported into several contexts. */
vrt_buffer *vrt_buffer_import_host(vrt_context *ctx, void *ptr, uint64_t size, vp_diags *d);
/* Wraps host memory at any address (a NumPy array's data, say) with no copy:
 * the pages that hold [ptr, ptr + size) are imported, and the buffer starts
 * at `ptr` inside them (bound at that offset). Needs external_memory_host,
 * `ptr` a multiple of the device's minStorageBufferOffsetAlignment, and
 * writable memory that outlives the buffer. The buffer's bound range is
 * `size` rounded up to 16 bytes (vec4 loads of the tail stay inside the
 * imported pages); the GPU must not write past `size`. */
vrt_buffer *vrt_buffer_import_host_range(vrt_context *ctx, void *ptr, uint64_t size,
                                         vp_diags *d);
/* Gives a buffer back: a pooled one (vrt_buffer_create[_ex]) to the memory
 * pool, at once; an imported one after the GPU work that uses it. NULL is
 * fine. */
void vrt_buffer_destroy(vrt_buffer *b);

uint64_t vrt_buffer_size(const vrt_buffer *b);
vrt_context *vrt_buffer_context(const vrt_buffer *b);
vrt_memory_kind vrt_buffer_kind(const vrt_buffer *b);
/* The VRT_MEM_* flags of the memory type that backs the buffer. */
uint32_t vrt_buffer_memory_flags(const vrt_buffer *b);
/* 0 when the buffer got what its kind asks for, else the fallback tier. */
uint32_t vrt_buffer_fallback(const vrt_buffer *b);
/* The persistently mapped address, or NULL when the memory is not
 * host-visible. Host writes to non-coherent memory need vrt_buffer_flush
 * before the GPU reads them, and vrt_buffer_invalidate before host reads. */
void *vrt_buffer_map(const vrt_buffer *b);
bool vrt_buffer_flush(vrt_buffer *b, vp_diags *d);
bool vrt_buffer_invalidate(vrt_buffer *b, vp_diags *d);
/* The ticket of the last submission that used the buffer (read or wrote it:
 * a dispatch that binds it, a copy, fill or staged transfer); 0 when none
 * has. Every submission gets a new, larger ticket, so an unchanged value
 * means the GPU has not touched the buffer since (vrt_dispatch_readback). */
vrt_ticket vrt_buffer_last_use(const vrt_buffer *b);
/* Waits for the GPU work submitted so far that uses the buffer: on each
 * queue, for its last submission that used it - not for other work queued
 * there or on other streams' queues, as vrt_wait(vrt_buffer_last_use(b))
 * would. */
bool vrt_buffer_wait(vrt_buffer *b, vp_diags *d);

/* Copies between host memory and the buffer. Both wait for the GPU work
 * submitted so far that uses the buffer; memory that is not host-visible goes
 * through the context's staging ring. */
bool vrt_buffer_upload(vrt_buffer *b, uint64_t offset, const void *src, uint64_t size,
                       vp_diags *d);
bool vrt_buffer_download(vrt_buffer *b, uint64_t offset, void *dst, uint64_t size, vp_diags *d);
/* Sets `size` bytes at `offset` (both multiples of 4; size UINT64_MAX: to the
 * end) to the 32-bit `value`, on the GPU, and waits. */
bool vrt_buffer_fill(vrt_buffer *b, uint64_t offset, uint64_t size, uint32_t value,
                     vp_diags *d);
/* Copies `size` bytes between buffers of one context, on the GPU, and waits. */
bool vrt_buffer_copy(vrt_buffer *dst, uint64_t dst_offset, vrt_buffer *src, uint64_t src_offset,
                     uint64_t size, vp_diags *d);

/* Page-aligned host memory for vrt_buffer_import_host: `size` is rounded up
 * to 64 KiB (*alloc_size says the result); zeroed; NULL on failure. */
void *vrt_host_alloc(size_t size, size_t *alloc_size);
void vrt_host_free(void *ptr, size_t alloc_size);

/* =============================================================== kernels */

typedef struct vrt_kernel_options {
  /* Local size when the SPIR-V takes it from specialization constants
   * (GLSL layout(local_size_x_id = 0) ...); zeros: the manifest's. */
  uint32_t local_size[3];
  /* Skip SPIRV-Tools validation (for SPIR-V the VulPy compiler has just
   * validated). The entry point, bindings and push size are still checked. */
  bool trusted;
  /* Keep subnormals: the module gets DenormPreserve for the widths of the
   * context's info.denorm_preserve (vrt_spirv_preserve_denorms). VulPy sets
   * it for the kernels it compiled with precise math; SPIR-V without it runs
   * as written, with the device's own subnormal handling. Where the context
   * emulates (info.denorm_emulate), the pipeline gets VP_DENORM_EMULATE
   * true instead. */
  bool preserve_denorms;
  /* Float arithmetic as written (NumPy's results for inf, NaN, -0.0 and
   * rounding): SignedZeroInfNanPreserve for the widths of the context's
   * info.inf_nan_preserve, and NoContraction on every float arithmetic
   * instruction (vrt_spirv_no_contraction). VulPy sets it with
   * preserve_denorms, for the kernels it compiled with precise math. */
  bool exact_float;
} vrt_kernel_options;

/* Creates a kernel from SPIR-V words and its manifest (copied), after
 * checking them against each other and against the device. */
vrt_kernel *vrt_kernel_create(vrt_context *ctx, const void *spirv, size_t spirv_bytes,
                              const vpm_manifest *m, const vrt_kernel_options *opt, vp_diags *d);
void vrt_kernel_destroy(vrt_kernel *k);
const vpm_manifest *vrt_kernel_manifest(const vrt_kernel *k);
/* The local size the pipeline was built with. */
void vrt_kernel_local_size(const vrt_kernel *k, uint32_t out[3]);

typedef struct vrt_kernel_stats {
  bool memory_hit;    /* the pipeline came from the context's in-memory cache */
  bool disk_loaded;   /* a cache file was found and accepted */
  bool disk_rejected; /* a cache file was found but corrupt or stale: ignored */
  bool disk_written;  /* the cache file was (re)written */
  int driver_hit;     /* 1/0: the driver reports a pipeline cache hit; -1: unknown */
  bool push_descriptors; /* bound with VK_KHR_push_descriptor */
  uint32_t denorm_preserve; /* the widths (VRT_DENORM_F*) given DenormPreserve */
  bool denorm_emulate;      /* VP_DENORM_EMULATE was set true */
  uint32_t inf_nan_preserve; /* the widths given SignedZeroInfNanPreserve */
  uint32_t no_contraction;   /* float instructions decorated NoContraction */
  char cache_path[512];  /* the cache file, or "" */
  /* Where the creation's time went, in ms (0 for an in-memory hit):
   * reflection and checks, SPIRV-Tools validation (0 when trusted), layouts
   * + shader module, reading the cache file + vkCreatePipelineCache,
   * vkCreateComputePipelines, writing the cache file; and the whole call. */
  double reflect_ms, validate_ms, layout_ms, cache_load_ms, create_ms, cache_save_ms, total_ms;
} vrt_kernel_stats;
void vrt_kernel_stats_get(const vrt_kernel *k, vrt_kernel_stats *out);

/* ============================================================== dispatch */

/* The grid of a dispatch: invocation counts (groups = ceil(n / local size);
 * the kernel checks the bound, or its manifest's dispatch_guard field gets
 * the counts), or explicit group counts. Unused dimensions are 1. */
typedef struct vrt_grid {
  uint32_t n[3];
  bool groups;
} vrt_grid;

static inline vrt_grid vrt_invocations(uint32_t x, uint32_t y, uint32_t z) {
  vrt_grid g = {{x, y, z}, false};
  return g;
}
static inline vrt_grid vrt_groups(uint32_t x, uint32_t y, uint32_t z) {
  vrt_grid g = {{x, y, z}, true};
  return g;
}

/* What a dispatch binds: one buffer per manifest buffer, in manifest order,
 * and the push-constant block laid out as the manifest says (push_size may
 * be smaller than the manifest's; the rest is zero). */
typedef struct vrt_args {
  vrt_buffer *const *buffers;
  uint32_t nbuffers;
  const void *push;
  uint32_t push_size;
} vrt_args;

/* Part of a buffer that a dispatch binds (a view of an array):
 * `size` bytes from `offset`, which must be a multiple of the device's
 * min_storage_buffer_offset_alignment; the kernel's len(buf) is the range's.
 * size 0: the whole buffer. */
typedef struct vrt_bind_range {
  uint64_t offset, size;
} vrt_bind_range;

/* Runs the kernel and waits for it (in the context's wait mode). */
bool vrt_dispatch(vrt_kernel *k, const vrt_args *args, vrt_grid grid, vp_diags *d);
/* Submits the kernel and returns at once with a ticket for vrt_wait. */
bool vrt_dispatch_async(vrt_kernel *k, const vrt_args *args, vrt_grid grid, vrt_ticket *ticket,
                        vp_diags *d);
/* As vrt_dispatch (ticket NULL) or vrt_dispatch_async, binding buffer i
 * at ranges[i] (one vrt_bind_range per buffer; NULL: all whole). A range
 * outside its buffer or at a misaligned offset is an error. */
bool vrt_dispatch_ranges(vrt_kernel *k, const vrt_args *args, const vrt_bind_range *ranges,
                         vrt_grid grid, vrt_ticket *ticket, vp_diags *d);
/* An eager dispatch (issue 21: a ufunc on resident arrays, not waited
 * for): as vrt_dispatch_ranges with a ticket, but the command buffer may be
 * held back and sent with the next ones in one vkQueueSubmit (up to
 * vrt_context_set_eager_batch's count). Held work is sent by any other
 * submission, by every wait (vrt_wait, vrt_ticket_done, host reads, pool
 * waits) that needs its ticket, and when the batch is full: queue order and
 * every result are as if each dispatch were submitted alone. */
bool vrt_dispatch_eager(vrt_kernel *k, const vrt_args *args, const vrt_bind_range *ranges,
                        vrt_grid grid, vrt_ticket *ticket, vp_diags *d);
/* vrt_dispatch_eager when it cannot block: the context's lock free at once
 * (trylock), the launch recorded already (a cache hit), no zero fill owed
 * by its buffers, no streams and no event waits on the default queue (a
 * submission that waits for a semaphore may wait in the driver). Then it
 * is vrt_dispatch_eager exactly; otherwise it does nothing, sets *busy and
 * returns true, and the caller makes the blocking call (vrt_dispatch_eager)
 * - the Python binding first tries this one without releasing the GIL,
 * which costs more than the dispatch on a small array. */
bool vrt_dispatch_eager_nowait(vrt_kernel *k, const vrt_args *args,
                               const vrt_bind_range *ranges, vrt_grid grid, vrt_ticket *ticket,
                               bool *busy, vp_diags *d);
/* Eager dispatches held back at most before a submission, a fixed batch
 * (1: each is sent at once); it turns adaptive batching off. 0 restores
 * the default: a fixed VRT_EAGER_BATCH on CPU devices, adaptive on GPUs
 * (a fixed batch left the GPU idle while the host filled it). Safe from
 * any thread. vrt_context_eager_batch: the fixed batch, or the adaptive
 * mode's cap. */
#define VRT_EAGER_BATCH 8
void vrt_context_set_eager_batch(vrt_context *ctx, uint32_t n);
uint32_t vrt_context_eager_batch(const vrt_context *ctx);
/* Adaptive eager batching (runtime/eager.c; the default on GPUs): an
 * eager dispatch is submitted at once while fewer than `inflight`
 * submissions of the default queue are in flight (not yet reached), and
 * held otherwise, so one submission always waits queued behind the running
 * one and the GPU never idles for a batch boundary; the held batch is sent
 * by the first eager dispatch that finds fewer in flight, by the context's
 * flusher thread as soon as one completes (so held work never waits for
 * the host's next call), by everything that sends held work anyway (waits,
 * reads, other submissions), when `cap` are held (0:
 * VRT_EAGER_ADAPTIVE_CAP), and when the held dispatches bind
 * VRT_EAGER_HELD_BYTES or more (an estimate of their work: one batch is
 * never a whole loop of large ops). Safe from any thread. */
#define VRT_EAGER_ADAPTIVE_CAP 64
#define VRT_EAGER_INFLIGHT 2
#define VRT_EAGER_HELD_BYTES (256ull << 20)
void vrt_context_set_eager_adaptive(vrt_context *ctx, uint32_t cap);
/* Submissions in flight before adaptive batching holds (1 to 8; 0:
 * VRT_EAGER_INFLIGHT; 1 holds while anything runs). */
void vrt_context_set_eager_inflight(vrt_context *ctx, uint32_t n);
uint32_t vrt_context_eager_inflight(const vrt_context *ctx);
bool vrt_context_eager_adaptive(const vrt_context *ctx);
/* A copy recorded after a dispatch in the same command buffer: `size` bytes
 * of `src` at src_offset into `dst` at dst_offset (both buffers of the
 * kernel's context; different buffers). */
typedef struct vrt_readback {
  vrt_buffer *dst;
  uint64_t dst_offset;
  vrt_buffer *src;
  uint64_t src_offset;
  uint64_t size;
} vrt_readback;

/* The dispatch with `rb`'s copy after it, in the same submission (a barrier
 * between them): a small result the kernel writes to device memory is
 * copied into a host-visible buffer with no second submission, so the host
 * reads it once the ticket is reached (after vrt_buffer_invalidate for
 * non-coherent memory). Both buffers' last use is the ticket. With
 * `ticket`: submits and returns (vrt_dispatch_async); NULL: runs and waits
 * (vrt_dispatch). rb NULL: no copy. */
bool vrt_dispatch_readback(vrt_kernel *k, const vrt_args *args, vrt_grid grid,
                           const vrt_readback *rb, vrt_ticket *ticket, vp_diags *d);
/* Runs the kernel, waits, and measures it with GPU timestamps (*gpu_ns). */
bool vrt_dispatch_timed(vrt_kernel *k, const vrt_args *args, vrt_grid grid, double *gpu_ns,
                        vp_diags *d);

/* Waits until the ticket is reached: a short spin, then a blocking wait.
 * timeout_ns UINT64_MAX waits forever; a timeout is an error. */
bool vrt_wait(vrt_context *ctx, vrt_ticket ticket, uint64_t timeout_ns, vp_diags *d);
/* True when the ticket is reached (never blocks). */
bool vrt_ticket_done(vrt_context *ctx, vrt_ticket ticket);

/* ============================================================= recording */

enum { VRT_RECORD_TIMESTAMPS = 1 }; /* a GPU time per dispatch */

/* Starts a recording: dispatches, copies and fills that run in one
 * submission, with the pipeline barriers their buffer accesses need
 * (manifest access: readonly / writeonly / readwrite). */
vrt_recording *vrt_record_begin(vrt_context *ctx, uint32_t flags, vp_diags *d);
bool vrt_record_dispatch(vrt_recording *r, vrt_kernel *k, const vrt_args *args, vrt_grid grid,
                         vp_diags *d);
bool vrt_record_copy(vrt_recording *r, vrt_buffer *dst, uint64_t dst_offset, vrt_buffer *src,
                     uint64_t src_offset, uint64_t size, vp_diags *d);
bool vrt_record_fill(vrt_recording *r, vrt_buffer *b, uint64_t offset, uint64_t size,
                     uint32_t value, vp_diags *d);
/* Submits the recording (ending it on the first call); a recording can be
 * submitted again once its previous submission is done. */
bool vrt_record_submit(vrt_recording *r, vrt_ticket *ticket, vp_diags *d);
/* Submits and waits. */
bool vrt_record_run(vrt_recording *r, vp_diags *d);
/* After the last submission is done: the GPU time of each recorded dispatch
 * in ns (VRT_RECORD_TIMESTAMPS); returns how many were written to `ns`. */
uint32_t vrt_record_times(vrt_recording *r, double *ns, uint32_t max);
/* How many pipeline barriers the recording placed between its commands. */
uint32_t vrt_record_barrier_count(const vrt_recording *r);
/* Waits for the recording's submission, then frees it. NULL is fine. */
void vrt_record_destroy(vrt_recording *r);

/* ======================================================= control buffers */

/* A buffer of `words` uint32 words (at least `nnames`) in host-coherent
 * memory, zeroed; the first `nnames` words are named. Bind it like any other
 * buffer (vrt_control_buffer). Host access is atomic and may happen while a
 * kernel runs. */
vrt_control *vrt_control_create(vrt_context *ctx, const char *const *names, uint32_t nnames,
                                uint32_t words, vp_diags *d);
void vrt_control_destroy(vrt_control *c);
vrt_buffer *vrt_control_buffer(const vrt_control *c);
uint32_t vrt_control_words(const vrt_control *c);
/* Word index of a name, or -1. */
int vrt_control_index(const vrt_control *c, const char *name);
const char *vrt_control_name(const vrt_control *c, uint32_t word); /* NULL if unnamed */
/* The words themselves (for a NumPy view). */
uint32_t *vrt_control_data(const vrt_control *c);
/* Acquire load, release store, and sequentially consistent add (returns the
 * old value). `word` must be < vrt_control_words(c). */
uint32_t vrt_control_load(const vrt_control *c, uint32_t word);
void vrt_control_store(vrt_control *c, uint32_t word, uint32_t value);
uint32_t vrt_control_add(vrt_control *c, uint32_t word, uint32_t delta);

/* --- issue 20 (trust): fork and interruptible waits ---------------------
 * A context belongs to the process that created it: after fork() the child
 * cannot use its parent's device (the driver's threads did not survive the
 * fork). In the child every call on an inherited context fails with a
 * diagnostic saying so, and destroying it frees nothing of the device's. */
bool vrt_context_forked(const vrt_context *ctx);
/* A function every blocking wait on `ctx` calls once it has waited 20 ms (and
 * more while the wait goes on); a nonzero return ends the wait with an
 * "interrupted" error (the work goes on; later waits see it finish). The
 * Python extension passes one that runs Python's signal handlers, so
 * Ctrl-C interrupts a long GPU call. NULL removes it. */
void vrt_context_set_interrupt(vrt_context *ctx, int (*check)(void *arg), void *arg);
/* The longest any wait without a timeout of its own (UINT64_MAX) blocks,
 * synchronous dispatches included: past it the wait fails with "timed out
 * after ..." (the work goes on). 0: no limit (the default). */
void vrt_context_set_timeout(vrt_context *ctx, uint64_t ns);
uint64_t vrt_context_timeout(const vrt_context *ctx);

/* ======================================================= the memory pool */

/* vrt_buffer_create and vrt_buffer_create_ex take buffers from a caching
 * allocator, as CuPy's memory pool and PyTorch's caching allocator do:
 * vrt_buffer_destroy does not wait and does not free; the buffer (its
 * VkBuffer and memory) goes to a free list binned by memory kind and size
 * class, and is handed out again once the GPU work that used it is done
 * (its last-use ticket is reached). When the driver is out of memory, or a
 * request would pass the limit, cached buffers are freed and the request
 * retried before it fails. docs/runtime.md, "The memory pool". */

/* A buffer of `size` bytes of `kind` whose first operation (a dispatch,
 * copy, fill or upload) writes bytes [0, written): the runtime zeroes only
 * the rest (written 0: all of it, as vrt_buffer_create; >= size: nothing).
 * Zeroing of 'device' and 'rebar' memory is a vkCmdFillBuffer sent before
 * the next submission; of 'host' and 'cached' memory, a memset. */
vrt_buffer *vrt_buffer_create_ex(vrt_context *ctx, uint64_t size, vrt_memory_kind kind,
                                 uint64_t written, vp_diags *d);
/* Call before the host first reads or writes a new buffer through its
 * mapping (vrt_buffer_map): sends and waits for the buffer's pending GPU
 * zero fill, if any (it does not wait for other work on the buffer). Upload
 * and download do it themselves. */
bool vrt_buffer_host_ready(vrt_buffer *b, vp_diags *d);
/* Says that the next operation on `b` writes bytes [offset, offset+size)
 * entirely (a ufunc's out=, a full copy): the part of the buffer's owed GPU
 * zero fill they cover is dropped, all of it when they reach its end, so a
 * vp.empty used as out= is never filled (issue 21). A promise the caller
 * must keep: those bytes are not zeroed. */
void vrt_buffer_will_write(vrt_buffer *b, uint64_t offset, uint64_t size);
/* Frees every cached buffer (after the GPU work that used them) and returns
 * the allocator's empty memory blocks to the driver. */
bool vrt_pool_free_all(vrt_context *ctx, vp_diags *d);
/* Caps the bytes the pool holds (live and cached buffers, by size class);
 * 0: no cap. A request that would pass it first frees cached buffers, then
 * fails with an out-of-memory error naming the sizes. */
void vrt_pool_set_limit(vrt_context *ctx, uint64_t bytes);

/* ---- persistent programs (runtime/persistent.c) ------------------------ */
/* The device's cores (NVIDIA SMs, AMD CUs) and the warps (wavefronts) each
 * keeps resident, from VK_NV_shader_sm_builtins or
 * VK_AMD_shader_core_properties; false (both 0) where neither is there. */
bool vrt_device_cores(vrt_context *ctx, uint32_t *cores, uint32_t *warps_per_core);
/* ============================================================== MemSock */

/* A MemSock: a ring of typed frames in host-visible, host-coherent memory
 * that a kernel fires into while it runs (`pipe.fire(body, **payload)`,
 * lowered by `vulpy-opt --lower-memsock`) and the host consumes in order.
 * vulpy/memsock_abi.h fixes the layout, docs/memsock.md the protocol. Not
 * owned by the context: destroy it before the context. */
typedef struct vrt_memsock vrt_memsock;

typedef enum vrt_memsock_policy {
  VRT_MEMSOCK_BLOCK,     /* the GPU waits for a free slot: lossless */
  VRT_MEMSOCK_SKIP,      /* a frame with no free slot is dropped (counted) */
  VRT_MEMSOCK_OVERWRITE, /* the GPU laps the ring; torn reads are detected (counted) */
} vrt_memsock_policy;

const char *vrt_memsock_policy_name(vrt_memsock_policy p); /* "block", ... */
int vrt_memsock_policy_lookup(const char *name);            /* -1 if unknown */

typedef struct vrt_memsock_desc {
  uint32_t elem_size;     /* bytes per frame element */
  uint64_t frame_elems;   /* elements per frame */
  uint32_t payload_words; /* 32-bit payload fields per frame (<= 64) */
  uint32_t capacity;      /* slots, 1 .. 2^20 */
  vrt_memsock_policy policy;
  vrt_memory_kind memory; /* must be host-visible and host-coherent (VRT_CACHED, VRT_HOST) */
  uint32_t signature;     /* vrt_memsock_signature of the payload; 0: not checked */
  uint32_t spin_limit;    /* a block wait's spin bound in the kernel; 0: the default */
  uint32_t poll_spin;     /* consumer polls before it sleeps; 0: sleep at once */
  uint32_t poll_sleep_us; /* the longest sleep between polls; 0: 200 us */
  uint32_t active_spin_us; /* while a dispatch with the pipe runs, poll this long before
                            * sleeping; 0: 2000 on GPUs, none on CPU devices; UINT32_MAX: never */
  /* The frames in the caller's memory (imported user pages, say): a buffer
   * of the pipe's context, host-visible and host-coherent, of at least
   * vrt_memsock_frames_bytes(desc) bytes. The caller keeps it alive past
   * vrt_memsock_destroy (which does not destroy it); `memory` is then
   * unused. NULL: the pipe allocates them in `memory`. */
  vrt_buffer *frames;
} vrt_memsock_desc;

/* The bytes the frames of `desc` take: capacity * the slot stride (each
 * frame rounded up to 256 bytes, or 768 for 12-byte elements). */
uint64_t vrt_memsock_frames_bytes(const vrt_memsock_desc *desc);

/* The payload signature of fields names[i]:types[i] (VIR spellings u32,
 * i32, f32), as the compiler computes it from a fire body's parameters. */
uint32_t vrt_memsock_signature(const char *const *names, const char *const *types, uint32_t n);

vrt_memsock *vrt_memsock_create(vrt_context *ctx, const vrt_memsock_desc *desc, vp_diags *d);
/* Closes, stops the poller, waits for the GPU work using the buffers, frees. */
void vrt_memsock_destroy(vrt_memsock *ms);
const vrt_memsock_desc *vrt_memsock_describe(const vrt_memsock *ms);
/* The two buffers a kernel binds for a MemSock parameter: the frames (the
 * parameter's own binding) and the ring words (the next binding). */
vrt_buffer *vrt_memsock_frames(const vrt_memsock *ms);
vrt_buffer *vrt_memsock_ring(const vrt_memsock *ms);
/* Bytes from one frame to the next (a multiple of 256), a slot's frame. */
uint64_t vrt_memsock_stride(const vrt_memsock *ms);
void *vrt_memsock_slot_frame(const vrt_memsock *ms, uint32_t slot);
/* The ring words (tests play the GPU's part with them). */
uint32_t *vrt_memsock_words(const vrt_memsock *ms);
/* When the consumer saw the frame last handed out (CLOCK_MONOTONIC ns, the
 * clock of Python's time.perf_counter_ns on Linux): the bench's publish ->
 * callback figure. */
uint64_t vrt_memsock_seen_ns(vrt_memsock *ms);

/* Around each dispatch that binds the pipe: begin numbers its fires after
 * every frame so far (false while another dispatch has the pipe); end
 * (after the GPU is done) reads and checks what it published. */
bool vrt_memsock_begin_dispatch(vrt_memsock *ms, vp_diags *d);
bool vrt_memsock_end_dispatch(vrt_memsock *ms, vp_diags *d);

/* A frame handed to the consumer: `data` is the slot itself (block, skip:
 * the GPU does not touch it before it is released) or a checked copy
 * (overwrite); `payload` its payload words. */
typedef struct vrt_memsock_frame {
  uint32_t seq, slot;
  void *data;
  const uint32_t *payload;
  bool copied;
} vrt_memsock_frame;

/* Waits up to timeout_ns (UINT64_MAX: forever) for the next frame, holding
 * no lock meanwhile: 1 with *f, 0 on timeout, -1 once the pipe is closed
 * and drained, -2 with an error when the GPU's words are impossible or the
 * payload signature differs. One frame is out at a time. */
int vrt_memsock_next(vrt_memsock *ms, uint64_t timeout_ns, vrt_memsock_frame *f, vp_diags *d);
/* Returns the frame's slot to the GPU (its credit, under `block`). */
void vrt_memsock_release(vrt_memsock *ms, const vrt_memsock_frame *f);
/* From now on the GPU neither writes frames nor waits for credit (its
 * fires are dropped); frames not consumed yet are dropped (counted) once
 * no dispatch has the pipe and no frame is out; next() then returns -1. */
void vrt_memsock_close(vrt_memsock *ms);
bool vrt_memsock_closed(vrt_memsock *ms);
/* Waits until every frame published so far is consumed (or the pipe is
 * closed with no poller): 1 done, 0 timeout, -1 failed (error in d). */
int vrt_memsock_flush(vrt_memsock *ms, uint64_t timeout_ns, vp_diags *d);

/* Host-counted: published = delivered + dropped + torn + pending. The GPU's
 * own counts (gpu_dropped, gpu_timeouts) are reported as written. */
typedef struct vrt_memsock_stats {
  uint64_t published, delivered, dropped, torn;
  uint32_t pending, next, gpu_dropped, gpu_timeouts;
  bool closed, failed;
  uint64_t gpu_cut; /* invocations whose loops the device cut short (lavapipe's budget) */
} vrt_memsock_stats;
void vrt_memsock_stats_get(vrt_memsock *ms, vrt_memsock_stats *out);

/* A poller thread that calls fn for each frame (then releases it) until fn
 * returns false, the pipe is closed and drained, or vrt_memsock_stop. */
typedef bool (*vrt_memsock_fn)(void *user, const vrt_memsock_frame *f);
bool vrt_memsock_start(vrt_memsock *ms, vrt_memsock_fn fn, void *user, vp_diags *d);
void vrt_memsock_stop(vrt_memsock *ms);

/* ------------------------------------------------------- FFT (fft.c) */

/* A complex-to-complex FFT in place over interleaved complex64 (dbl:
 * complex128) data at the start of a buffer, laid out as
 * [batch][size[ndim-1]]...[size[0]] (size[0] the contiguous axis): the
 * ndim (1 to 3) innermost axes are transformed, each batch alone. Forward
 * is exp(-2 pi i jk/n); inverse exp(+...), not normalized. VkFFT does the
 * work (any length: Bluestein for those with large prime factors); the
 * runtime is built with it only where its header was found
 * (vulpy_fft library; the Python extension says so). Submitted on the
 * context's queue in order with every other submission; returns at once
 * (the buffer's last use is the new ticket). */
typedef struct vrt_fft_shape {
  uint32_t ndim;
  uint64_t size[3];
  uint64_t batch;
  bool dbl;
} vrt_fft_shape;
bool vrt_fft_exec(vrt_buffer *b, const vrt_fft_shape *s, bool inverse, vp_diags *d);
/* The same out of place: reads `in`, writes `out` (in is not changed; in ==
 * out is vrt_fft_exec). */
bool vrt_fft_exec_to(vrt_buffer *in, vrt_buffer *out, const vrt_fft_shape *s, bool inverse,
                     vp_diags *d);
/* Bytes the transform covers. */
uint64_t vrt_fft_bytes(const vrt_fft_shape *s);
/* Plans in the context's cache (tests). */
uint32_t vrt_fft_plans(vrt_context *ctx);

/* ============================================== streams and events (issue 18)
 * A stream is an in-order line of work on one of the context's queues
 * (runtime/stream.c, docs/multidevice.md "Streams"). Work goes to the
 * stream that is current on the calling thread for its context
 * (vrt_stream_set_current; none: the default stream, the context's own
 * queue and timeline, unchanged). Each stream signals a timeline semaphore
 * of its own with the context's tickets, so tickets, vrt_wait and the
 * buffers' last-use tickets keep their meaning across streams: vrt_wait(t)
 * waits for every queue's work submitted up to t. Two streams are not
 * ordered with each other unless an event says so. A compute stream gets a
 * compute queue of its own where the device has more than one, a transfer
 * stream a queue of a transfer-only family where there is one (copies
 * only); otherwise the stream shares a queue (vrt_stream_shared): its work
 * then runs in submission order with the default stream's. */
typedef struct vrt_stream vrt_stream;
typedef struct vrt_event vrt_event;
typedef enum vrt_stream_kind { VRT_STREAM_COMPUTE, VRT_STREAM_TRANSFER } vrt_stream_kind;

vrt_stream *vrt_stream_create(vrt_context *ctx, vrt_stream_kind kind, vp_diags *d);
/* Waits for the stream's work, then frees it (NULL is fine). A thread whose
 * current stream it was goes back to the default stream. */
void vrt_stream_destroy(vrt_stream *s);
vrt_context *vrt_stream_context(const vrt_stream *s);
vrt_stream_kind vrt_stream_kind_of(const vrt_stream *s);
/* The queue family and the queue's index in it. */
uint32_t vrt_stream_queue_family(const vrt_stream *s);
uint32_t vrt_stream_queue_index(const vrt_stream *s);
/* True when the stream's VkQueue is the default stream's. */
bool vrt_stream_shared(const vrt_stream *s);
/* Makes `s` this thread's current stream for its context (NULL: the
 * default stream of every context); returns the previous one. */
vrt_stream *vrt_stream_set_current(vrt_stream *s);
vrt_stream *vrt_stream_current(void);
/* Streams ever made on ctx (0: its work has only ever gone to the default
 * queue, in order, so a buffer may be reused by later work at once). */
uint32_t vrt_stream_count(const vrt_context *ctx);
/* The last ticket submitted on the stream (0: none); NULL s: the default
 * stream of ctx. */
vrt_ticket vrt_stream_last(vrt_context *ctx, const vrt_stream *s);
/* Waits for the work submitted on the stream so far (NULL s: ctx's default
 * stream); only that stream's. */
bool vrt_stream_synchronize(vrt_context *ctx, vrt_stream *s, uint64_t timeout_ns, vp_diags *d);
bool vrt_stream_query(vrt_context *ctx, vrt_stream *s);

/* An event: a point on one stream's timeline (CUDA's and CuPy's word). */
vrt_event *vrt_event_create(vrt_context *ctx, vp_diags *d);
/* An event the host sets (vrt_event_set): a gate that streams can wait on. */
vrt_event *vrt_event_create_gate(vrt_context *ctx, vp_diags *d);
void vrt_event_destroy(vrt_event *e);
vrt_context *vrt_event_context(const vrt_event *e);
/* Marks the work submitted on the stream so far (NULL: ctx's default). */
bool vrt_event_record(vrt_event *e, vrt_stream *s, vp_diags *d);
/* Done (never blocks). An event never recorded is done. */
bool vrt_event_query(vrt_event *e);
bool vrt_event_synchronize(vrt_event *e, uint64_t timeout_ns, vp_diags *d);
/* Opens a gate (vrt_event_create_gate). */
bool vrt_event_set(vrt_event *e, vp_diags *d);
/* How a stream waits for an event. */
typedef enum vrt_wait_how {
  VRT_WAIT_GPU,  /* a semaphore wait in the stream's next submission */
  VRT_WAIT_HOST, /* the host waited for the event before returning (another device) */
  /* another context on the same device: its stream's timeline semaphore,
   * exported as an opaque fd (VK_KHR_external_semaphore_fd) and imported
   * here, waited on by the stream's next submission (the host does not block) */
  VRT_WAIT_SEMAPHORE,
} vrt_wait_how;
/* The stream `s` of ctx (NULL: the default stream) runs its later work
 * after the event: for an event of the same context, a semaphore wait in
 * its next submission (the host does not block); for an event recorded on
 * a stream of another context on the same physical device (same device
 * UUID and driver) where both export and import timeline semaphores, the
 * same through the exported semaphore (VRT_WAIT_SEMAPHORE); else the host
 * waits for it now (VRT_WAIT_HOST). */
bool vrt_stream_wait_event(vrt_context *ctx, vrt_stream *s, vrt_event *e, vrt_wait_how *how,
                           vp_diags *d);

/* ---- exportable device memory (runtime/export.c; issue 18, DLPack to CUDA)
 * A buffer in its own dedicated allocation of device-local memory made
 * exportable as an opaque fd (VK_KHR_external_memory_fd), for another API
 * on the same device to import (CUDA: cuImportExternalMemory with
 * CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD, dedicated). Not pooled;
 * zeroed; the host reaches it through upload/download. */
bool vrt_context_can_export_memory(const vrt_context *ctx);
vrt_buffer *vrt_buffer_create_exportable(vrt_context *ctx, uint64_t size, vp_diags *d);
/* A new fd for the buffer's memory (the caller owns it: the importer takes
 * it, or close() it) and the allocation's size, which the importer needs;
 * -1 with an error for a buffer that is not exportable. */
int vrt_buffer_export_fd(vrt_buffer *b, uint64_t *alloc_size, vp_diags *d);

#ifdef __cplusplus
}
#endif
#endif /* VULPY_RUNTIME_H */
