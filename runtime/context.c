/* context.c - contexts: device creation, the submission path and waiting.
 *
 * One context = one VkInstance + VkDevice + compute queue + timeline
 * semaphore. Every submission signals the next timeline value; that value is
 * the ticket. One-off work (copies, fills, uncached dispatches) records into a
 * ring of command buffers whose slots become free when their ticket is
 * reached. Buffers in memory the host cannot map are zeroed by fills that
 * collect in an open command buffer and ride along with the next submission.
 *
 * Waiting follows the context's wait mode: spin on vkGetSemaphoreCounterValue
 * for spin_us, then block in vkWaitSemaphores (GPUs: a tiny dispatch is done
 * within the spin, and blocking costs the driver's wake-up on top; a wait
 * that outlasted the spin but took at most 10 ms lets the next waits spin
 * 1.25x as long as it took, so a loop of medium-length work - a convenience
 * call's dispatch over PCIe, a sort of 2^26 keys - is not woken up late
 * every time); block at
 * once (CPU devices, where a spinning thread takes a core from the work); or
 * spin until done. bench/runtime_bench.c measures each on the same
 * context.
 *
 * Every choice comes from vrt_context_options: the runtime reads no
 * environment variables (callers map VULPY_* onto the options through
 * include/vulpy/runtime_env.h).
 */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint32_t pick_queue_family(vrt_context *ctx, bool *timestamps) {
  uint32_t n = 0;
  ctx->inst.fn.vkGetPhysicalDeviceQueueFamilyProperties(ctx->pdev, &n, NULL);
  VkQueueFamilyProperties qs[32];
  n = n > 32 ? 32 : n;
  ctx->inst.fn.vkGetPhysicalDeviceQueueFamilyProperties(ctx->pdev, &n, qs);
  uint32_t best = UINT32_MAX;
  for (uint32_t i = 0; i < n; i++) {
    if (!(qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
      continue;
    /* A compute-only family (async compute) when there is one. */
    if (best == UINT32_MAX || (!(qs[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) &&
                               (qs[best].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
      best = i;
  }
  *timestamps = best != UINT32_MAX && qs[best].timestampValidBits > 0;
  return best;
}

static bool create_device(vrt_context *ctx, const vrt_context_options *opt, vp_diags *d) {
  const vrt_device_info *o = &ctx->info;
  bool timestamps;
  ctx->qfamily = pick_queue_family(ctx, &timestamps);
  ctx->info.timestamps = timestamps;
  bool api13 = o->api_version >= VK_API_VERSION_1_3 && ctx->inst.api_version >= VK_API_VERSION_1_3;

  const char *exts[12];
  uint32_t nexts = 0;
  if (ctx->push_descriptors)
    exts[nexts++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  if (o->features & VP_FEAT(EXTERNAL_HOST)) {
    exts[nexts++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
    ctx->external_host = true;
  }
  if (o->pipeline_creation_feedback) {
    ctx->feedback = true;
    if (!api13)
      exts[nexts++] = VK_EXT_PIPELINE_CREATION_FEEDBACK_EXTENSION_NAME;
  }
  bool atomic_float = o->features & VP_FEAT(ATOMIC_FLOAT);
  if (atomic_float)
    exts[nexts++] = VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME;
  bool coop = o->features & VP_FEAT(COOPMAT);
  if (coop)
    exts[nexts++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
  if (vrt__has_extension(&ctx->inst, ctx->pdev, "VK_KHR_portability_subset"))
    exts[nexts++] = "VK_KHR_portability_subset";
  /* Streams' semaphores exported to other contexts on the same device
   * (stream.c): where timeline semaphores export and import as opaque fds. */
  if (vrt__has_extension(&ctx->inst, ctx->pdev, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) &&
      ctx->inst.fn.vkGetPhysicalDeviceExternalSemaphoreProperties) {
    VkSemaphoreTypeCreateInfo tt = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
    };
    VkPhysicalDeviceExternalSemaphoreInfo ei = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
        .pNext = &tt,
        .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkExternalSemaphoreProperties ep = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    ctx->inst.fn.vkGetPhysicalDeviceExternalSemaphoreProperties(ctx->pdev, &ei, &ep);
    uint32_t both = VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT |
                    VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT;
    if ((ep.externalSemaphoreFeatures & both) == both && !opt->no_export_semaphores) {
      exts[nexts++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
      ctx->export_sem = true;
    }
  }
  /* Device memory another API imports (export.c: DLPack to CUDA). */
  if (vrt__has_extension(&ctx->inst, ctx->pdev, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
    exts[nexts++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    ctx->export_mem = true;
  }

  /* Only the features a VulPy kernel may use, and robustBufferAccess only
   * when asked (Context(robust=True)): it slows every buffer access down. */
  uint32_t f = o->features;
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
      .shaderBufferFloat32Atomics = atomic_float,
      .shaderBufferFloat32AtomicAdd = atomic_float,
  };
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cmf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
      .pNext = atomic_float ? &af : NULL,
      .cooperativeMatrix = VK_TRUE,
  };
  VkPhysicalDeviceVulkan12Features f12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
      .pNext = coop ? (void *)&cmf : (atomic_float ? (void *)&af : NULL),
      .timelineSemaphore = VK_TRUE,
      .shaderFloat16 = !!(f & VP_FEAT(FLOAT16)),
      .shaderInt8 = !!(f & VP_FEAT(INT8)),
      .storageBuffer8BitAccess = !!(f & VP_FEAT(STORAGE8)),
      .storagePushConstant8 = !!(f & VP_FEAT(PUSH8)),
      .shaderBufferInt64Atomics = !!(f & VP_FEAT(ATOMIC64)),
      .vulkanMemoryModel = !!(f & VP_FEAT(MEMORY_MODEL)),
      .vulkanMemoryModelDeviceScope = !!(f & VP_FEAT(MEMORY_MODEL)),
  };
  VkPhysicalDeviceVulkan11Features f11 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
      .pNext = &f12,
      .storageBuffer16BitAccess = !!(f & VP_FEAT(STORAGE16)),
      .storagePushConstant16 = !!(f & VP_FEAT(PUSH16)),
  };
  VkPhysicalDeviceFeatures2 f2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
      .pNext = &f11,
      .features = {.shaderFloat64 = !!(f & VP_FEAT(FLOAT64)),
                   .shaderInt64 = !!(f & VP_FEAT(INT64)),
                   .shaderInt16 = !!(f & VP_FEAT(INT16)),
                   .robustBufferAccess = ctx->robust},
  };
  /* Streams (stream.c): up to VRT_MAX_QUEUES queues of the compute family
   * (queue 0 is the default stream's) and one of a transfer-only family
   * where the device has one; the option single_queue asks for one queue. */
  float priority[VRT_MAX_QUEUES] = {1.0f, 1.0f, 1.0f, 1.0f};
  uint32_t ncq = 1;
  ctx->xfamily = UINT32_MAX;
  if (!opt->single_queue) {
    uint32_t nf = 0;
    ctx->inst.fn.vkGetPhysicalDeviceQueueFamilyProperties(ctx->pdev, &nf, NULL);
    VkQueueFamilyProperties qp[32];
    nf = nf > 32 ? 32 : nf;
    ctx->inst.fn.vkGetPhysicalDeviceQueueFamilyProperties(ctx->pdev, &nf, qp);
    ncq = qp[ctx->qfamily].queueCount < VRT_MAX_QUEUES ? qp[ctx->qfamily].queueCount
                                                       : VRT_MAX_QUEUES;
    for (uint32_t i = 0; i < nf && ctx->xfamily == UINT32_MAX; i++)
      if ((qp[i].queueFlags & VK_QUEUE_TRANSFER_BIT) &&
          !(qp[i].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) &&
          qp[i].queueCount > 0)
        ctx->xfamily = i;
  }
  VkDeviceQueueCreateInfo q[2] = {
      {
          .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
          .queueFamilyIndex = ctx->qfamily,
          .queueCount = ncq ? ncq : 1,
          .pQueuePriorities = priority,
      },
      {
          .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
          .queueFamilyIndex = ctx->xfamily,
          .queueCount = 1,
          .pQueuePriorities = priority,
      },
  };
  VkDeviceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = &f2,
      .queueCreateInfoCount = ctx->xfamily == UINT32_MAX ? 1 : 2,
      .pQueueCreateInfos = q,
      .enabledExtensionCount = nexts,
      .ppEnabledExtensionNames = exts,
  };
  VkResult r = vrt__fault(ctx, "vkCreateDevice");
  if (r == VK_SUCCESS)
    r = ctx->inst.fn.vkCreateDevice(ctx->pdev, &info, NULL, &ctx->device);
  if (!vrt__check(ctx, r, "vkCreateDevice", d))
    return false;
  volkLoadDeviceTable(&ctx->vk, ctx->device);
  ctx->vk.vkGetDeviceQueue(ctx->device, ctx->qfamily, 0, &ctx->queue);
  ctx->ncqueues = ncq ? ncq : 1;
  for (uint32_t i = 0; i < ctx->ncqueues; i++)
    ctx->vk.vkGetDeviceQueue(ctx->device, ctx->qfamily, i, &ctx->cqueues[i]);
  if (ctx->xfamily != UINT32_MAX) {
    ctx->vk.vkGetDeviceQueue(ctx->device, ctx->xfamily, 0, &ctx->xqueue);
  } else if (!opt->single_queue) {
    /* Tests on one-family devices (lavapipe): transfer streams take the
     * transfer-family paths (their own command pool, staging ring and
     * sharing bookkeeping) on the default queue (stream.c, "sharing"). */
    if (opt->emulate_transfer_family) {
      ctx->xemulate = true;
      ctx->xfamily = ctx->qfamily;
      ctx->xqueue = ctx->queue;
    }
  }
  /* Buffers stay EXCLUSIVE until a transfer stream exists (stream.c,
   * "sharing"); VULPY_SHARING=concurrent makes every buffer CONCURRENT
   * from the start, as before (for measuring the difference). */
  ctx->always_concurrent = opt->always_concurrent && ctx->xfamily != UINT32_MAX;

  VkSemaphoreTypeCreateInfo st = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
  };
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &st};
  if (!VRT_VK(ctx, d, vkCreateSemaphore, ctx->device, &si, NULL, &ctx->timeline))
    return false;
  VkCommandPoolCreateInfo pi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = ctx->qfamily,
  };
  if (!VRT_VK(ctx, d, vkCreateCommandPool, ctx->device, &pi, NULL, &ctx->pool))
    return false;
  VkCommandBuffer cbs[VRT_RING];
  VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = ctx->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = VRT_RING,
  };
  if (!VRT_VK(ctx, d, vkAllocateCommandBuffers, ctx->device, &ai, cbs))
    return false;
  for (int i = 0; i < VRT_RING; i++)
    ctx->ring[i].cb = cbs[i];
  ctx->tl0.queue = ctx->queue;
  ctx->tl0.family = ctx->qfamily;
  ctx->tl0.sem = ctx->timeline;
  if (ctx->xqueue) {
    VkCommandPoolCreateInfo xi = pi;
    xi.queueFamilyIndex = ctx->xfamily;
    ai.commandBufferCount = VRT_XRING;
    if (!VRT_VK(ctx, d, vkCreateCommandPool, ctx->device, &xi, NULL, &ctx->xpool))
      return false;
    ai.commandPool = ctx->xpool;
    if (!VRT_VK(ctx, d, vkAllocateCommandBuffers, ctx->device, &ai, cbs))
      return false;
    for (int i = 0; i < VRT_XRING; i++)
      ctx->ring[VRT_RING + i].cb = cbs[i];
  }
  return true;
}

/* ----------------------------------------------------------------- fork */

_Atomic uint64_t vrt__fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* The first driver this process (or an ancestor before a fork) loaded that
 * is not known to survive fork(), and the fork generation it was loaded in.
 * Mesa's drivers open their own files per instance and keep no threads
 * across instances: a child makes a fresh instance and device and works
 * (lavapipe, test_trust_process.py). NVIDIA's does not: on the H200 a
 * child's vkCreateInstance hung, or vkCreateDevice failed with
 * VK_ERROR_INITIALIZATION_FAILED, and a child that merely exited crashed
 * in the driver's exit-time teardown (SIGSEGV) - the driver threads the
 * parent started did not survive the fork. CUDA has the same rule. Other
 * drivers are not known: treated as NVIDIA's. */
static struct {
  _Atomic uint32_t driver_id; /* 0: none */
  uint64_t gen;
  char device[256], driver[256];
} unsafe;
static pthread_mutex_t unsafe_lock = PTHREAD_MUTEX_INITIALIZER;

bool vrt_driver_survives_fork(uint32_t id) {
  switch (id) {
  case VK_DRIVER_ID_MESA_RADV:
  case VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA:
  case VK_DRIVER_ID_MESA_LLVMPIPE:
  case VK_DRIVER_ID_MESA_TURNIP:
  case VK_DRIVER_ID_MESA_V3DV:
  case VK_DRIVER_ID_MESA_PANVK:
  case VK_DRIVER_ID_MESA_VENUS:
  case VK_DRIVER_ID_MESA_NVK:
  case VK_DRIVER_ID_IMAGINATION_OPEN_SOURCE_MESA: return true;
  default: return false;
  }
}

/* A child of a parent that loaded such a driver leaves by _exit() once
 * Python (or the program) has finished its own exit: the C library's exit
 * would run the driver's teardown, which crashed. Buffered C output is
 * flushed first; destructors of other libraries do not run either. */
static void exit_without_driver_teardown(int status, void *arg) {
  (void)arg;
  fflush(NULL);
  _exit(status);
}

static void after_fork_in_child(void) {
  atomic_fetch_add(&vrt__fork_gen, 1);
  pthread_mutex_init(&unsafe_lock, NULL); /* another thread may have held it */
  if (atomic_load(&unsafe.driver_id))
    on_exit(exit_without_driver_teardown, NULL);
}
static void register_fork(void) { pthread_atfork(NULL, NULL, after_fork_in_child); }

void vrt__fork_note_driver(const vrt_device_info *info) {
  pthread_once(&fork_once, register_fork);
  if (vrt_driver_survives_fork(info->driver_id) || atomic_load(&unsafe.driver_id))
    return;
  pthread_mutex_lock(&unsafe_lock);
  if (!atomic_load(&unsafe.driver_id)) {
    unsafe.gen = atomic_load(&vrt__fork_gen);
    snprintf(unsafe.device, sizeof unsafe.device, "%s", info->name);
    snprintf(unsafe.driver, sizeof unsafe.driver, "%s",
             info->driver_name[0] ? info->driver_name : "unnamed");
    atomic_store(&unsafe.driver_id, info->driver_id ? info->driver_id : UINT32_MAX);
  }
  pthread_mutex_unlock(&unsafe_lock);
}

bool vrt__fork_check(vrt_fork_child policy, vp_diags *d) {
  pthread_once(&fork_once, register_fork);
  uint64_t gen = atomic_load(&vrt__fork_gen);
  if (!gen || policy == VRT_FORK_TRY)
    return true; /* not a forked child, or asked to try */
  bool unsafe_parent = atomic_load(&unsafe.driver_id) && unsafe.gen < gen;
  if (policy == VRT_FORK_AUTO && !unsafe_parent)
    return true;
  if (unsafe_parent)
    vp_error(d, (vp_loc){0},
             "this process is a fork() of one that had loaded the Vulkan driver '%s' "
             "(device '%s'), which does not work in a forked child: its threads did not "
             "survive the fork, and the child hangs or crashes in it",
             unsafe.driver, unsafe.device);
  else
    vp_error(d, (vp_loc){0}, "this process is a fork() child, and VULPY_FORK_CHILD=refuse "
                             "keeps it off Vulkan");
  vp_diag_hint(d, "start worker processes with the 'spawn' or 'forkserver' method "
                  "(multiprocessing.get_context('spawn'), or mp_context= of "
                  "concurrent.futures), or fork before the first VulPy call; "
                  "VULPY_FORK_CHILD=try attempts it anyway");
  return false;
}

bool vrt_context_forked(const vrt_context *ctx) {
  return ctx->fork_gen != atomic_load_explicit(&vrt__fork_gen, memory_order_relaxed);
}

void vrt_context_set_timeout(vrt_context *ctx, uint64_t ns) {
  atomic_store(&ctx->default_timeout_ns, ns);
}
uint64_t vrt_context_timeout(const vrt_context *ctx) { return atomic_load(&ctx->default_timeout_ns); }

/* A wait's limit: its own, else the context's default. */
static uint64_t limit_of(vrt_context *ctx, uint64_t timeout_ns) {
  uint64_t dflt = atomic_load_explicit(&ctx->default_timeout_ns, memory_order_relaxed);
  return timeout_ns == UINT64_MAX && dflt ? dflt : timeout_ns;
}

void vrt_context_set_interrupt(vrt_context *ctx, int (*check)(void *arg), void *arg) {
  ctx->interrupt_arg = arg;
  ctx->interrupt = check;
}

/* The enum fields hold one of their values: a bad one is an error naming
 * the field, not a silent default. */
static bool check_options(const vrt_context_options *opt, vp_diags *d) {
  const char *field = NULL;
  int value = 0;
  if ((unsigned)opt->wait > VRT_WAIT_SPIN)
    field = "wait", value = (int)opt->wait;
  else if (!vrt_fma_mode_name(opt->fma))
    field = "fma", value = (int)opt->fma;
  else if (!vrt_denorm_mode_name(opt->denorm))
    field = "denorm", value = (int)opt->denorm;
  if (field)
    vp_error(d, (vp_loc){0}, "vrt_context_options.%s = %d is not one of its enum's values",
             field, value);
  if (opt->staging_slots == 1 || opt->staging_slots > VRT_STAGING_SLOTS ||
      opt->staging_slot_mib > 256) {
    vp_error(d, (vp_loc){0},
             "vrt_context_options.staging_slots = %u, staging_slot_mib = %u: 2 to %d slots "
             "of 1 to 256 MiB (0: the default)",
             opt->staging_slots, opt->staging_slot_mib, VRT_STAGING_SLOTS);
    field = "staging_slots";
  }
  if (opt->upload_import_mib > 4096) {
    vp_error(d, (vp_loc){0}, "vrt_context_options.upload_import_mib = %u: at most 4096",
             opt->upload_import_mib);
    field = "upload_import_mib";
  }
  if (opt->eager_batch > 64 && opt->eager_batch != VRT_EAGER_ADAPTIVE_OPT) {
    vp_error(d, (vp_loc){0},
             "vrt_context_options.eager_batch = %u: 1 to 64, or VRT_EAGER_ADAPTIVE_OPT "
             "(0: the default)", opt->eager_batch);
    field = "eager_batch";
  }
  if (opt->copy_threads > 64) {
    vp_error(d, (vp_loc){0}, "vrt_context_options.copy_threads = %u: at most 64",
             opt->copy_threads);
    field = "copy_threads";
  }
  return field == NULL;
}

const char *vrt_fma_mode_name(vrt_fma_mode mode) {
  switch (mode) {
  case VRT_FMA_AUTO: return "auto";
  case VRT_FMA_FUSED: return "fused";
  case VRT_FMA_UNFUSED: return "unfused";
  }
  return NULL;
}

vrt_context *vrt_context_create(const vrt_context_options *opt, vp_diags *d) {
  vrt_context_options defaults = {0};
  if (!opt)
    opt = &defaults;
  vrt_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    vp_error(d, (vp_loc){0}, "out of host memory");
    return NULL;
  }
  /* Recursive: a wait made with the lock held (the pool waiting for a busy
   * buffer, a launch slot for its last run) may have to send the held
   * eager dispatches first, which takes the lock (vrt__send_held). */
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&ctx->lock, &attr);
  pthread_mutexattr_destroy(&attr);
  pthread_mutex_init(&ctx->copier_lock, NULL);
  pthread_cond_init(&ctx->flush_cond, NULL);
  ctx->zero_slot = -1;
  static _Atomic uint64_t serials;
  ctx->serial = atomic_fetch_add(&serials, 1) + 1;
  pthread_once(&fork_once, register_fork);
  ctx->fork_gen = atomic_load(&vrt__fork_gen);
  ctx->validation = opt->validation > 0;
  if (!check_options(opt, d) ||
      !vrt__instance_create(&ctx->inst, ctx->validation, opt->vulkan_library, opt->fork_child,
                            d)) {
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->copier_lock);
    pthread_cond_destroy(&ctx->flush_cond);
    free(ctx);
    return NULL;
  }
  VkPhysicalDevice *pds = NULL;
  vrt_device_info *infos = NULL;
  uint32_t n = 0;
  bool ok = vrt__enumerate(&ctx->inst, &pds, &infos, &n, d);
  int index = ok ? vrt_select_device(infos, n, opt->device, d) : -1;
  if (index >= 0) {
    ctx->pdev = pds[index];
    ctx->info = infos[index];
    atomic_store(&ctx->eager_batch, vrt__eager_batch_default(&ctx->info));
    atomic_store(&ctx->eager_adaptive, vrt__eager_adaptive_default(&ctx->info));
  }
  free(pds);
  free(infos);
  if (index < 0) {
    vrt_context_destroy(ctx);
    return NULL;
  }
  if (!ctx->info.usable) {
    vp_error(d, (vp_loc){0},
             "device '%s' cannot run VulPy kernels: it needs Vulkan 1.2 with timeline "
             "semaphores and a compute queue",
             ctx->info.name);
    vp_diag_hint(d, "update the driver, or pick another device with VULPY_DEVICE");
    vrt_context_destroy(ctx);
    return NULL;
  }
  ctx->push_descriptors = ctx->info.push_descriptors && !opt->no_push_descriptors;
  ctx->robust = opt->robust; /* every Vulkan device has robustBufferAccess */
  /* fma fused|unfused overrides the detected fma (testing the other path
   * of the math helpers); auto keeps the detection. */
  if (opt->fma != VRT_FMA_AUTO)
    ctx->info.fma_fused = opt->fma == VRT_FMA_FUSED;
  /* The denorm mode: whether precise-math kernels get DenormPreserve or
   * the float32 helpers' emulation (auto: as the device needs). */
  if (opt->force_denorm) {
    ctx->info.denorm_preserve = opt->force_denorm & ~(uint32_t)VRT_DENORM_EMULATE;
    ctx->info.denorm_emulate = (opt->force_denorm & VRT_DENORM_EMULATE) != 0;
  } else if (!vrt__denorm_choose(&ctx->info, opt->denorm, d)) {
    vrt_context_destroy(ctx);
    return NULL;
  }
  ctx->info.denorm_flush = vrt__denorm_flushes(&ctx->info);
  ctx->no_device_mapping = opt->no_device_mapping;
  /* Spinning pays on a GPU; on a CPU device the spinning thread takes a core
   * from the threads doing the work, so there the wait blocks at once. */
  uint64_t spin_us = opt->spin_us ? opt->spin_us : 100;
  vrt_wait_mode mode = opt->wait;
  if (mode == VRT_WAIT_DEFAULT)
    mode = ctx->info.kind == VRT_DEVICE_CPU ? VRT_WAIT_BLOCK : VRT_WAIT_SPIN_BLOCK;
  atomic_store(&ctx->wait_mode, (int)mode);
  atomic_store(&ctx->spin_ns, spin_us * 1000);
  ctx->staging_slots = opt->staging_slots ? opt->staging_slots : 4;
  ctx->staging_slot_bytes = (uint64_t)(opt->staging_slot_mib ? opt->staging_slot_mib : 8) << 20;
  ctx->upload_import_bytes = (uint64_t)opt->upload_import_mib << 20;
  atomic_store(&ctx->copy_threads,
               opt->copy_threads ? opt->copy_threads : vrt__copy_threads_default(ctx->info.kind));
  if (opt->cache_dir && *opt->cache_dir)
    ctx->cache_dir = strdup(opt->cache_dir);
  char why[200];
  if (ctx->cache_dir && !vrt__cache_dir_prepare(ctx->cache_dir, why, sizeof why)) {
    /* a folder others may write could feed the driver any blob */
    vp_diag_add(d, VP_WARNING, (vp_loc){0}, "vulpy kernel cache: not using %s: %s",
                ctx->cache_dir, why);
    free(ctx->cache_dir);
    ctx->cache_dir = NULL;
  }
  if (!create_device(ctx, opt, d)) {
    vrt_context_destroy(ctx);
    return NULL;
  }
  /* Cached bytes the pool keeps (pool.c): a quarter of the largest heap,
   * at most 1 GiB on CPU devices, whose heap is the machine's RAM. */
  for (uint32_t i = 0; i < ctx->info.memory.heap_count; i++)
    if (ctx->info.memory.heaps[i].size / 4 > ctx->pool_cache_max)
      ctx->pool_cache_max = ctx->info.memory.heaps[i].size / 4;
  if (ctx->info.kind == VRT_DEVICE_CPU && ctx->pool_cache_max > (1ull << 30))
    ctx->pool_cache_max = 1ull << 30;
  vrt_context_set_eager_inflight(ctx, opt->eager_inflight);
  ctx->eager_flusher_us = opt->eager_flusher_us == VRT_EAGER_FLUSHER_BLOCK ? 0
                          : !opt->eager_flusher_us                       ? VRT_EAGER_FLUSHER_US
                          : opt->eager_flusher_us > 1000                 ? 1000
                                                                         : opt->eager_flusher_us;
  if (opt->eager_batch == VRT_EAGER_ADAPTIVE_OPT)
    vrt_context_set_eager_adaptive(ctx, 0);
  else if (opt->eager_batch)
    vrt_context_set_eager_batch(ctx, opt->eager_batch);
  if (!opt->no_prewarm)
    vrt__prewarm_start(ctx);
  return ctx;
}

void vrt_context_destroy(vrt_context *ctx) { vrt_context_destroy_checked(ctx, NULL); }

/* How long a teardown (a context's, a buffer's) waits for work still on
 * the GPU: the context's timeout when it has one, else 30 s. */
uint64_t vrt__destroy_bound(vrt_context *ctx) {
  uint64_t tmo = atomic_load(&ctx->default_timeout_ns);
  return tmo ? tmo : 30ull * 1000000000u;
}

/* Whether every queue's last submission (the default stream's and each
 * vrt_stream's) completes within `bound_ns`, polled every millisecond; no
 * interrupt, no diagnostics: the context is going. */
static bool idle_within(vrt_context *ctx, uint64_t bound_ns) {
  uint64_t start = vrt__now_ns();
  uint32_t n = atomic_load(&ctx->nstreams);
  for (uint32_t i = 0; i <= n; i++) {
    /* one timeline: `submitted`; with streams each queue signals only its
     * own tickets, the last of which its vrt_tl keeps */
    struct vrt_stream *st = i ? ctx->streams[i - 1] : NULL;
    if (i && (!st || !st->live))
      continue;
    VkSemaphore sem = st ? st->tl.sem : ctx->timeline;
    uint64_t want = st ? atomic_load(&st->tl.last)
                    : n ? atomic_load(&ctx->tl0.last) : atomic_load(&ctx->submitted);
    if (!sem || !want)
      continue;
    for (;;) {
      uint64_t v = 0;
      if (ctx->vk.vkGetSemaphoreCounterValue(ctx->device, sem, &v) != VK_SUCCESS || v >= want)
        break; /* done, or lost: vkDeviceWaitIdle returns at once */
      if (vrt__now_ns() - start >= bound_ns)
        return false;
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
  }
  return true;
}

uint32_t vrt_context_destroy_checked(vrt_context *ctx, vp_diags *d) {
  if (!ctx)
    return 0;
  if (vrt_context_forked(ctx))
    return 0; /* a forked child's copy: the device is the parent's; leave it all */
  uint32_t before = d ? d->count : 0;
  if (ctx->device) {
    vrt__prewarm_join(ctx);
    vrt__flusher_stop(ctx); /* and sends what is held */
    /* Work that never ends (a persistent program that the GPU stopped
     * scheduling: on NVIDIA, one that waits for the host while another
     * VkDevice of the same GPU has work; or a kernel stuck in a loop) made
     * vkDeviceWaitIdle, and with it the interpreter's exit, hang forever.
     * Past the bound the context is left as it is, its device and memory
     * to the driver (which reclaims them when the process ends), with a
     * warning; freeing memory the GPU may still write is never safe. */
    uint64_t bound = vrt__destroy_bound(ctx);
    if (!idle_within(ctx, bound)) {
      if (d)
        vp_diag_add(d, VP_WARNING, (vp_loc){0},
                    "vulpy: device '%s' still busy %.1f s after its context was closed "
                    "(a persistent program or kernel that never ended); its device and "
                    "memory are left to the driver",
                    ctx->info.name, (double)bound / 1e9);
      return d ? d->count - before : 0;
    }
    ctx->vk.vkDeviceWaitIdle(ctx->device);
    if (ctx->fft_free)
      ctx->fft_free(ctx);
    while (ctx->recordings)
      vrt__record_release(ctx->recordings);
    for (uint32_t i = 0; i < ctx->nspare_pools; i++)
      ctx->vk.vkDestroyCommandPool(ctx->device, ctx->spare_pools[i], NULL);
    ctx->nspare_pools = 0;
    while (ctx->controls)
      vrt__control_release(ctx->controls);
    while (ctx->kernels)
      vrt__kernel_release(ctx->kernels);
    while (ctx->buffers)
      vrt__buffer_release(ctx->buffers);
    ctx->zero_slot = -1; /* the device is idle: its fills are moot */
    vp_diags ignore = {0};
    vrt__pool_release_all(ctx, &ignore);
    vp_diags_free(&ignore);
    vrt__pipeline_destroy_all(ctx);
    for (uint32_t i = 0; i < ctx->ndesc_pools; i++)
      ctx->vk.vkDestroyDescriptorPool(ctx->device, ctx->desc_pools[i], NULL);
    if (ctx->timing)
      ctx->vk.vkDestroyQueryPool(ctx->device, ctx->timing, NULL);
    if (ctx->pool)
      ctx->vk.vkDestroyCommandPool(ctx->device, ctx->pool, NULL);
    vrt__streams_destroy(ctx);
    if (ctx->timeline)
      ctx->vk.vkDestroySemaphore(ctx->device, ctx->timeline, NULL);
    vrt__alloc_destroy(ctx);
    ctx->vk.vkDestroyDevice(ctx->device, NULL);
  }
  free(ctx->desc_pools);
  free(ctx->cache_dir);
  vrt__copier_destroy(ctx->copier);
  vrt__instance_destroy(&ctx->inst, d);
  pthread_mutex_destroy(&ctx->lock);
  pthread_mutex_destroy(&ctx->copier_lock);
  pthread_cond_destroy(&ctx->flush_cond);
  free(ctx);
  return d ? d->count - before : 0;
}

const vrt_device_info *vrt_context_device(const vrt_context *ctx) { return &ctx->info; }

void vrt_context_stats_get(vrt_context *ctx, vrt_context_stats *out) {
  pthread_mutex_lock(&ctx->lock);
  *out = ctx->stats;
  out->pipelines = 0;
  out->prewarm_ms = atomic_load(&ctx->prewarm_ns) / 1e6;
  out->pool_limit = ctx->pool_limit;
  out->xfer_copies = atomic_load(&ctx->xfer_copies);
  out->xfer_routed = atomic_load(&ctx->xfer_routed);
  out->conc_buffers = atomic_load(&ctx->conc_buffers);
  out->waits_blocked = atomic_load(&ctx->waits_blocked);
  out->eager_held = ctx->nheld;
  for (vrt_pipeline *p = ctx->pipelines; p; p = p->next)
    out->pipelines++;
  pthread_mutex_unlock(&ctx->lock);
}

/* ------------------------------------------------------------ submission */

uint64_t vrt__poll(vrt_context *ctx) {
  if (atomic_load(&ctx->nstreams))
    return vrt__poll_streams(ctx);
  uint64_t v = 0;
  VkResult r = vrt__fault(ctx, "vkGetSemaphoreCounterValue");
  if (r == VK_SUCCESS)
    r = ctx->vk.vkGetSemaphoreCounterValue(ctx->device, ctx->timeline, &v);
  if (r == VK_ERROR_DEVICE_LOST) {
    vp_diags ignore = {0};
    vrt__check(ctx, r, "vkGetSemaphoreCounterValue", &ignore);
    vp_diags_free(&ignore);
  }
  uint64_t seen = atomic_load(&ctx->completed);
  while (r == VK_SUCCESS && v > seen && !atomic_compare_exchange_weak(&ctx->completed, &seen, v))
    ;
  return atomic_load(&ctx->completed);
}

VkCommandBuffer vrt__ring_begin(vrt_context *ctx, int first, int count, uint32_t *next, int *slot,
                                vp_diags *d) {
  int found = -1;
  for (int pass = 0; pass < 2 && found < 0; pass++) {
    uint64_t done = pass ? vrt__poll(ctx) : atomic_load(&ctx->completed);
    for (int k = 0; k < count && found < 0; k++) {
      int i = first + (int)((*next + k) % count);
      /* second pass: each slot's own queue, not every queue's older work */
      if (ctx->ring[i].value <= done || (pass && vrt__cmd_done(ctx, &ctx->ring[i], done)))
        found = i;
    }
  }
  if (found < 0) {
    /* Every slot is in flight: wait for the oldest, on the semaphore its
     * submission signalled (the slots of the transfer family's part are
     * shared by every transfer stream, each with its own semaphore). */
    uint64_t oldest = UINT64_MAX;
    for (int i = first; i < first + count; i++)
      if (ctx->ring[i].value < oldest) {
        oldest = ctx->ring[i].value;
        found = i;
      }
    if (oldest == UINT64_MAX) {
      vrt__error(ctx, d, "internal error: every command buffer of the ring is being recorded");
      return VK_NULL_HANDLE;
    }
    if (!vrt__wait_on(ctx, ctx->ring[found].sem, oldest, d))
      return VK_NULL_HANDLE;
  }
  VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  };
  if (!VRT_VK(ctx, d, vkBeginCommandBuffer, ctx->ring[found].cb, &bi))
    return VK_NULL_HANDLE;
  ctx->ring[found].value = UINT64_MAX; /* busy until submitted */
  ctx->ring[found].sem = VK_NULL_HANDLE;
  *next = (uint32_t)(found - first + 1) % (uint32_t)count;
  *slot = found;
  return ctx->ring[found].cb;
}

VkCommandBuffer vrt__cmd_begin(vrt_context *ctx, int *slot, vp_diags *d) {
  return vrt__ring_begin(ctx, 0, VRT_RING, &ctx->ring_next, slot, d);
}

void vrt__barrier(vrt_context *ctx, VkCommandBuffer cb, bool start) {
  VkAccessFlags device = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                         VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = start ? device : device | VK_ACCESS_HOST_READ_BIT,
  };
  VkPipelineStageFlags src = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkPipelineStageFlags dst = start ? src : src | VK_PIPELINE_STAGE_HOST_BIT;
  ctx->vk.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

bool vrt__submit(vrt_context *ctx, const VkCommandBuffer *cbs, uint32_t n, const int *slots,
                 uint32_t nslots, vrt_ticket *ticket, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return false;
  int zero = ctx->zero_slot;
  if (zero >= 0) {
    ctx->zero_slot = -1;
    /* Ends like every command buffer: the fills are ordered before what
     * follows, which may open without a barrier (cached launches). */
    vrt__barrier(ctx, ctx->ring[zero].cb, false);
    if (!VRT_VK(ctx, d, vkEndCommandBuffer, ctx->ring[zero].cb)) {
      ctx->ring[zero].value = 0;
      return false;
    }
  }
  /* The pending zero fills are a batch of their own, with a timeline value
   * of their own: the host may wait for a buffer's zeros (before it maps
   * it) without waiting for the work submitted with them, which may be a
   * persistent kernel that waits for the host. Held eager dispatches go
   * first, in a batch that signals the value they were given (`submitted`
   * already): they came before everything here, and the fills recorded
   * since are for buffers none of them uses (vrt_dispatch_eager holds
   * nothing while a fill is open), so the fills may follow them. Held
   * dispatches and zero fills always go to the default stream's queue
   * (their command buffers are of its family; nothing is held once a
   * context has streams, stream.c); work for another stream goes to that
   * stream's queue and semaphore, after a wait for the zero fills and the
   * events it was told to wait for. */
  uint32_t held = ctx->nheld;
  vrt_tl *tl = n > 0 ? vrt__tl_current(ctx) : &ctx->tl0;
  uint64_t value = ctx->submitted + 1;
  uint64_t values[3] = {ctx->submitted, value, value + (zero >= 0 && n > 0)};
  uint64_t *sv = held ? values : values + 1;
  uint64_t zval = sv[held ? 1 : 0]; /* the zero fills' value, when there are fills */
  VkTimelineSemaphoreSubmitInfo ts[3];
  VkSubmitInfo si[3];
  VkSemaphore wsem[18];
  uint64_t wval[18];
  VkPipelineStageFlags wstage[18];
  uint32_t nw = 0;
  for (uint32_t i = 0; n > 0 && i < tl->nwaits; i++, nw++) {
    wsem[nw] = tl->wait_sem[i];
    wval[nw] = tl->wait_value[i];
  }
  if (zero >= 0 && n > 0 && tl != &ctx->tl0) {
    wsem[nw] = ctx->timeline;
    wval[nw++] = zval;
  }
  /* A transfer stream's copy routed to the compute family (stream.c,
   * "sharing") runs on a compute queue (below) but stays on the stream's
   * timeline: after the stream's earlier work, and its next submission
   * waits for it (below), so the semaphore's values still rise in order. */
  bool routed = ctx->route && n > 0 && tl != &ctx->tl0;
  uint64_t tl_last = atomic_load(&tl->last);
  for (uint32_t i = 0; routed && i < nw; i++)
    if (wsem[i] == tl->sem && wval[i] >= tl_last)
      tl_last = 0; /* waited for already (an earlier routed copy's wait) */
  if (routed && tl_last) { /* room: 16 event waits, the zero fills, this */
    wsem[nw] = tl->sem;
    wval[nw++] = tl_last;
  }
  for (uint32_t i = 0; i < nw; i++)
    wstage[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  uint32_t nb = 0;
  if (held)
    si[nb++] = (VkSubmitInfo){.commandBufferCount = held, .pCommandBuffers = ctx->held};
  if (zero >= 0)
    si[nb++] = (VkSubmitInfo){.commandBufferCount = 1, .pCommandBuffers = &ctx->ring[zero].cb};
  /* vrt__send_held passes cbs == ctx->held with n == 0: no empty batch */
  bool has_work = n > 0 || (zero < 0 && cbs != ctx->held);
  if (has_work)
    si[nb++] = (VkSubmitInfo){.commandBufferCount = n, .pCommandBuffers = cbs};
  for (uint32_t i = 0; i < nb; i++) {
    bool work = has_work && i == nb - 1;
    ts[i] = (VkTimelineSemaphoreSubmitInfo){
        .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        .signalSemaphoreValueCount = 1,
        .pSignalSemaphoreValues = &sv[i],
        .waitSemaphoreValueCount = work ? nw : 0,
        .pWaitSemaphoreValues = wval,
    };
    si[i].sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si[i].pNext = &ts[i];
    si[i].signalSemaphoreCount = 1;
    si[i].pSignalSemaphores = work ? &tl->sem : &ctx->timeline;
    si[i].waitSemaphoreCount = work ? nw : 0;
    si[i].pWaitSemaphores = wsem;
    si[i].pWaitDstStageMask = wstage;
  }
  /* Where the work goes: the stream's queue; a routed copy goes to the
   * compute family's last queue (the one compute streams are given last,
   * so it seldom waits behind their kernels or the default stream's), or
   * the default queue where the family has one. */
  VkQueue wq = !routed ? tl->queue
               : ctx->ncqueues > 1 ? ctx->cqueues[ctx->ncqueues - 1]
                                   : ctx->queue;
  bool ok;
  if (tl == &ctx->tl0 || !has_work || wq == ctx->queue) {
    ok = VRT_VK(ctx, d, vkQueueSubmit, ctx->queue, nb, si, VK_NULL_HANDLE);
  } else {
    ok = nb < 2 || VRT_VK(ctx, d, vkQueueSubmit, ctx->queue, nb - 1, si, VK_NULL_HANDLE);
    ok = ok && VRT_VK(ctx, d, vkQueueSubmit, wq, 1, &si[nb - 1], VK_NULL_HANDLE);
  }
  if (zero >= 0) {
    ctx->ring[zero].value = ok ? zval : 0;
    ctx->ring[zero].sem = ctx->timeline;
  }
  if (!ok)
    return false;
  ctx->nheld = 0;
  ctx->held_bytes = 0;
  uint64_t last = sv[nb - 1];
  if (zero >= 0) {
    ctx->zero_sent[ctx->zero_serial % 64].serial = ctx->zero_serial;
    ctx->zero_sent[ctx->zero_serial % 64].ticket = zval;
  }
  /* the values signalled on the default queue's timeline, in order */
  for (uint32_t i = 0; i + 1 < nb; i++)
    vrt__tl_push(&ctx->tl0, sv[i]);
  vrt__tl_push(has_work ? tl : &ctx->tl0, last);
  if (n > 0)
    tl->nwaits = 0;
  if (routed && tl->queue != wq) {
    tl->nwaits = 1;
    tl->wait_sem[0] = tl->sem;
    tl->wait_value[0] = last;
  }
  ctx->submitted = last;
  atomic_store(&ctx->sent, last);
  ctx->stats.submits++;
  for (uint32_t i = 0; i < nslots; i++) {
    ctx->ring[slots[i]].value = last;
    ctx->ring[slots[i]].sem = has_work ? tl->sem : ctx->timeline;
  }
  if (ticket)
    *ticket = last;
  return true;
}

bool vrt__send_held(vrt_context *ctx, vp_diags *d) {
  if (!ctx->nheld)
    return true;
  /* only the held batch: n = 0 with cbs == ctx->held adds no empty one */
  return vrt__submit(ctx, ctx->held, 0, NULL, 0, NULL, d);
}

/* Sends the held eager dispatches when `ticket` is theirs (any thread). */
static bool send_for(vrt_context *ctx, vrt_ticket ticket, vp_diags *d) {
  if (ticket <= atomic_load(&ctx->sent))
    return true;
  pthread_mutex_lock(&ctx->lock);
  bool ok = ticket <= atomic_load(&ctx->sent) || vrt__send_held(ctx, d);
  pthread_mutex_unlock(&ctx->lock);
  return ok;
}

/* The default eager batch: a fixed VRT_EAGER_BATCH on CPU devices, where
 * each vkQueueSubmit costs host time the batch saves (lavapipe: 2000
 * submissions became 250); adaptive on GPUs (eager.c), where a fixed batch
 * keeps the GPU idle while the host records (on the H200 a batch of 8 made
 * `c = a + b` 1.29-1.44x slower end to end at 2^20-2^27, bench suite
 * memory, "batched / eager_batch=1") and a submission per dispatch leaves
 * a ~4 us gap between kernels (bench/probes/midsize_ab.py). Adaptive keeps
 * VRT_EAGER_INFLIGHT submissions in flight before it holds and caps a
 * batch by VRT_EAGER_HELD_BYTES, so the GPU's queue never drains at a
 * batch boundary (with one in flight, 2026-12-03, the H200 idled there:
 * docs/runtime.md, "Batched eager submissions"). vrt_context_set_eager_batch
 * (ctx, 1), `ctx.eager_batch = 1` or VULPY_EAGER_BATCH=1 gives a submission
 * per dispatch. */
uint32_t vrt__eager_batch_default(const vrt_device_info *info) {
  return info->kind == VRT_DEVICE_CPU ? VRT_EAGER_BATCH : VRT_EAGER_ADAPTIVE_CAP;
}

bool vrt__eager_adaptive_default(const vrt_device_info *info) {
  return info->kind != VRT_DEVICE_CPU;
}

void vrt_context_set_eager_batch(vrt_context *ctx, uint32_t n) {
  bool dflt = n == 0;
  n = n ? n : vrt__eager_batch_default(&ctx->info);
  atomic_store(&ctx->eager_batch, n > 64 ? 64 : n);
  atomic_store(&ctx->eager_adaptive, dflt && vrt__eager_adaptive_default(&ctx->info));
  if (n == 1) { /* from now on nothing is held: send what is */
    vp_diags ignore = {0};
    send_for(ctx, atomic_load(&ctx->submitted), &ignore);
    vp_diags_free(&ignore);
  }
}

uint32_t vrt_context_eager_batch(const vrt_context *ctx) {
  return atomic_load(&((vrt_context *)ctx)->eager_batch);
}

/* --------------------------------------------------------------- waiting */

bool vrt_ticket_done(vrt_context *ctx, vrt_ticket ticket) {
  if (ticket <= atomic_load(&ctx->completed))
    return true;
  vp_diags ignore = {0};
  bool sent = send_for(ctx, ticket, &ignore);
  vp_diags_free(&ignore);
  if (!sent)
    return false;
  if (ticket <= vrt__poll(ctx))
    return true;
  return atomic_load(&ctx->nstreams) && vrt__ticket_done_streams(ctx, ticket);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

static void note_completed(vrt_context *ctx, uint64_t v) {
  uint64_t seen = atomic_load(&ctx->completed);
  while (v > seen && !atomic_compare_exchange_weak(&ctx->completed, &seen, v))
    ;
}

/* The blocking part of a wait, its time counted from `start`: vkWaitSemaphores
 * in slices of 50 ms, re-reading the counter between them: a wake-up lost in
 * a driver or layer (seen with lavapipe under the validation layer and ASan)
 * then costs one slice instead of a hang. */
static bool block(vrt_context *ctx, VkSemaphore sem, bool note, vrt_ticket ticket,
                  uint64_t timeout_ns, uint64_t start, vp_diags *d) {
  VkSemaphoreWaitInfo wi = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &sem,
      .pValues = &ticket,
  };
  timeout_ns = limit_of(ctx, timeout_ns);
  VkResult r = VK_TIMEOUT;
  /* with an interrupt check, slices of 20 ms: Ctrl-C ends a wait within
   * about that (issue 20) */
  uint64_t slice_max = ctx->interrupt ? 20000000u : 50000000u;
  for (;;) {
    uint64_t spent = vrt__now_ns() - start;
    if (timeout_ns != UINT64_MAX && spent >= timeout_ns)
      break;
    uint64_t left = timeout_ns == UINT64_MAX ? UINT64_MAX : timeout_ns - spent;
    uint64_t slice = left < slice_max ? left : slice_max;
    r = vrt__fault(ctx, "vkWaitSemaphores");
    if (r == VK_SUCCESS)
      r = ctx->vk.vkWaitSemaphores(ctx->device, &wi, slice);
    if (r != VK_TIMEOUT)
      break;
    uint64_t v = 0;
    r = ctx->vk.vkGetSemaphoreCounterValue(ctx->device, sem, &v);
    if (r != VK_SUCCESS || v >= ticket)
      break;
    r = VK_TIMEOUT;
    /* checked only once a slice went by: a short wait never pays for it */
    if (ctx->interrupt && ctx->interrupt(ctx->interrupt_arg)) {
      vrt__error(ctx, d, "interrupted while waiting for ticket %llu on device '%s'",
                 (unsigned long long)ticket, ctx->info.name);
      return false;
    }
  }
  if (r == VK_TIMEOUT) {
    vrt__error(ctx, d, "timed out after %.3f ms waiting for ticket %llu on device '%s'",
               (double)timeout_ns / 1e6, (unsigned long long)ticket, ctx->info.name);
    return false;
  }
  if (!vrt__check(ctx, r, "vkWaitSemaphores", d))
    return false;
  if (note)
    note_completed(ctx, ticket);
  return true;
}

bool vrt_wait(vrt_context *ctx, vrt_ticket ticket, uint64_t timeout_ns, vp_diags *d) {
  if (ticket <= atomic_load_explicit(&ctx->completed, memory_order_acquire))
    return true;
  if (!vrt__alive(ctx, d) || !send_for(ctx, ticket, d))
    return false;
  if (atomic_load(&ctx->nstreams))
    return vrt__wait_streams(ctx, ticket, timeout_ns, d);
  return vrt__wait_sem(ctx, ctx->timeline, ticket, timeout_ns, true, d);
}

/* One semaphore (the context's timeline, or a stream's) in the context's
 * wait mode; `note` records the value reached as the context's completed
 * one (only right while the timeline is the only one). */
/* The extra spin of spin-block waits after one that took `took` ns: a wait
 * within the base spin says nothing about longer ones (the extra stays); one
 * that outlasted it but took at most VRT_SPIN_EXTRA_MAX_US lets the next
 * waits spin 1.25x as long as it took (the same work again, its time
 * varying a little, is then spun through: blocking costs the driver's
 * wake-up, ~30 us on the H200 after a tiny dispatch and ~0.2 ms after a
 * 3 ms sort on an H100, 2026-12-07, bench/probes/sort_host.py); a longer
 * one ends the extra (work of more than 10 ms blocks: the wake-up is a
 * small part of it, and a core is not held spinning for long). */
uint64_t vrt__spin_extra(uint64_t base, uint64_t old, uint64_t took) {
  if (took <= base)
    return old;
  if (took > (uint64_t)VRT_SPIN_EXTRA_MAX_US * 1000)
    return 0;
  return took + took / 4;
}

static void note_wait(vrt_context *ctx, uint64_t base, uint64_t took) {
  uint64_t old = atomic_load_explicit(&ctx->spin_extra_ns, memory_order_relaxed);
  uint64_t v = vrt__spin_extra(base, old, took);
  if (v != old)
    atomic_store_explicit(&ctx->spin_extra_ns, v, memory_order_relaxed);
}

bool vrt__wait_sem(vrt_context *ctx, VkSemaphore sem, uint64_t ticket, uint64_t timeout_ns,
                   bool note, vp_diags *d) {
  vrt_wait_mode mode = (vrt_wait_mode)atomic_load(&ctx->wait_mode);
  timeout_ns = limit_of(ctx, timeout_ns);
  uint64_t base = atomic_load(&ctx->spin_ns), spin_ns = 0;
  if (mode == VRT_WAIT_SPIN) {
    spin_ns = UINT64_MAX;
  } else if (mode == VRT_WAIT_SPIN_BLOCK && base) {
    uint64_t extra = atomic_load_explicit(&ctx->spin_extra_ns, memory_order_relaxed);
    spin_ns = extra > base ? extra : base;
  }
  uint64_t start = vrt__now_ns(), checked = start;
  /* Poll. The pause between polls is short (a few hundred cycles): the
   * point of spinning is to notice completion at once. */
  uint64_t now = start;
  while (spin_ns) {
    /* `now` is the clock read at the end of the last poll: one read per
     * poll, so completion is noticed a little sooner */
    if (ctx->interrupt && now - checked > 20000000u) {
      checked = now;
      if (ctx->interrupt(ctx->interrupt_arg)) {
        vrt__error(ctx, d, "interrupted while waiting for ticket %llu on device '%s'",
                   (unsigned long long)ticket, ctx->info.name);
        return false;
      }
    }
    uint64_t v = 0;
    VkResult r = ctx->vk.vkGetSemaphoreCounterValue(ctx->device, sem, &v);
    if (!vrt__check(ctx, r, "vkGetSemaphoreCounterValue", d))
      return false;
    if (v >= ticket) {
      if (note)
        note_completed(ctx, v);
      if (mode == VRT_WAIT_SPIN_BLOCK)
        note_wait(ctx, base, vrt__now_ns() - start);
      return true;
    }
    now = vrt__now_ns();
    uint64_t spent = now - start;
    if (spent >= spin_ns || spent >= timeout_ns)
      break;
    for (int i = 0; i < 2; i++)
      cpu_relax();
  }
  if (mode == VRT_WAIT_SPIN) {
    vrt__error(ctx, d, "timed out after %.3f ms waiting for ticket %llu on device '%s'",
               (double)timeout_ns / 1e6, (unsigned long long)ticket, ctx->info.name);
    return false;
  }
  atomic_fetch_add_explicit(&ctx->waits_blocked, 1, memory_order_relaxed);
  bool ok = block(ctx, sem, note, ticket, timeout_ns, start, d);
  if (ok && mode == VRT_WAIT_SPIN_BLOCK)
    note_wait(ctx, base, vrt__now_ns() - start);
  return ok;
}

/* A dispatch's own wait: with streams, only its queue's semaphore (the
 * dispatch waited on the GPU for what it depends on), not every queue's
 * older tickets - a synchronous kernel on one stream does not wait for
 * another stream's copies. */
bool vrt__wait_mine(vrt_context *ctx, vrt_ticket ticket, vp_diags *d) {
  if (!atomic_load(&ctx->nstreams))
    return vrt_wait(ctx, ticket, UINT64_MAX, d);
  return vrt__wait_on(ctx, vrt__tl_current(ctx)->sem, ticket, d);
}

bool vrt_context_wait_idle(vrt_context *ctx, vp_diags *d) {
  /* Lost means the device's results cannot be trusted, done or not. */
  if (!vrt__alive(ctx, d))
    return false;
  pthread_mutex_lock(&ctx->lock);
  uint64_t last = ctx->submitted;
  bool pending_zero = ctx->zero_slot >= 0;
  bool ok = true;
  if (pending_zero)
    ok = vrt__submit(ctx, NULL, 0, NULL, 0, &last, d);
  pthread_mutex_unlock(&ctx->lock);
  return ok && vrt_wait(ctx, last, UINT64_MAX, d);
}

/* ------------------------------------------------------------- tuning */

const char *vrt_wait_mode_name(vrt_wait_mode mode) {
  switch (mode) {
  case VRT_WAIT_SPIN_BLOCK: return "spin-block";
  case VRT_WAIT_BLOCK: return "block";
  case VRT_WAIT_SPIN: return "spin";
  default: return "default";
  }
}

void vrt_context_set_wait(vrt_context *ctx, vrt_wait_mode mode, uint32_t spin_us) {
  if (mode == VRT_WAIT_DEFAULT)
    mode = ctx->info.kind == VRT_DEVICE_CPU ? VRT_WAIT_BLOCK : VRT_WAIT_SPIN_BLOCK;
  if (spin_us)
    atomic_store(&ctx->spin_ns, (uint64_t)spin_us * 1000);
  atomic_store(&ctx->spin_extra_ns, 0); /* a new mode starts from its base spin */
  atomic_store(&ctx->wait_mode, (int)mode);
}

vrt_wait_mode vrt_context_wait_mode(const vrt_context *ctx, uint32_t *spin_us) {
  if (spin_us)
    *spin_us = (uint32_t)(atomic_load(&((vrt_context *)ctx)->spin_ns) / 1000);
  return (vrt_wait_mode)atomic_load(&((vrt_context *)ctx)->wait_mode);
}

void vrt_context_set_copy_threads(vrt_context *ctx, uint32_t n) {
  atomic_store(&ctx->copy_threads, n ? n : 1);
}

uint32_t vrt_context_copy_threads(const vrt_context *ctx) {
  return atomic_load(&((vrt_context *)ctx)->copy_threads);
}


