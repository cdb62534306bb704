/* vkref.c - the raw-Vulkan reference that VulPy's benchmarks compare against.
 *
 * Plain Vulkan through volk (the loader is opened at run time, so the binary
 * runs wherever libvulkan.so.1 and a driver are), SPIR-V compiled from
 * the .comp files of bench/shaders by glslangValidator at build time and embedded
 * (vkref_spv.h), no VulPy code. What it measures, on one device:
 *   - streaming kernels (copy, sin(x)+exp(x); float and vec4 accesses) at
 *     chosen sizes, GPU time from timestamps, GB/s counting 8 bytes/element;
 *   - the tiny kernel's sync round trip from a prerecorded command buffer
 *     (fence wait and spin on the fence), 1000 dispatches in one submission,
 *     and back-to-back asynchronous submissions;
 *   - transfers per memory kind (device through staging, host, cached,
 *     rebar): wall time for the host's side, timestamps for the GPU's.
 * Every kernel's output is checked (against libm in double, or bit-exact
 * for copies) before it is timed, and every transfer path round-trips once.
 *
 * Built twice (bench/CMakeLists.txt): `vkref` prints one JSON document
 * {"tool", "device", "records": [...]} with records in the format of
 * bench/run.py; libvkref.so exports the vkref.h calls for ctypes (symbols
 * hidden but those, so its volk copy never meets VulPy's in one process).
 */
#define _GNU_SOURCE
#include "vkref.h"

#include <volk.h>

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkref_spv.h"

#define LOCAL_STREAM 256u

static const struct {
  const uint32_t *code;
  size_t bytes;
} spv_of[VKREF_NKERNELS] = {{spv_copy, sizeof spv_copy},
                            {spv_sinexp, sizeof spv_sinexp},
                            {spv_copy4, sizeof spv_copy4},
                            {spv_sinexp4, sizeof spv_sinexp4}};

typedef struct buf {
  VkBuffer b;
  VkDeviceMemory m;
  void *map;
  uint64_t size;
  bool coherent;
} buf;

struct vkref {
  VkInstance inst;
  VkPhysicalDevice pd;
  VkDevice dev;
  VkQueue q;
  uint32_t qfam;
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties mem;
  char driver[520];
  uint64_t ts_mask;
  VkCommandPool pool;
  VkCommandBuffer cb, cb_tiny;
  VkFence fence;
  VkQueryPool qp;
  VkDescriptorSetLayout dsl;
  VkPipelineLayout pl;
  VkDescriptorPool dp;
  VkDescriptorSet ds_stream, ds_tiny;
  VkPipeline pipe[VKREF_NKERNELS], pipe_tiny;
  buf x, y, tx, ty;
  uint64_t n;
  char err[512];
};

/* ------------------------------------------------------------ errors */

static bool fail(vkref *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err, sizeof r->err, fmt, ap);
  va_end(ap);
  return false;
}

#define VK(r, call)                                                                                \
  do {                                                                                             \
    VkResult vr_ = (call);                                                                         \
    if (vr_ != VK_SUCCESS)                                                                         \
      return fail((r), "%s failed: VkResult %d (%s:%d)", #call, (int)vr_, __FILE__, __LINE__);     \
  } while (0)

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

const char *vkref_error(const vkref *r) { return r->err; }
const char *vkref_device_name(const vkref *r) { return r->props.deviceName; }
const char *vkref_driver(const vkref *r) { return r->driver; }

const char *vkref_device_kind(const vkref *r) {
  switch (r->props.deviceType) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "dgpu";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "igpu";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "vgpu";
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
  default: return "other";
  }
}

/* ------------------------------------------------------------ memory */

/* The memory-type index for a kind, or -1. Each kind has required flags and
 * flags it would rather not have (a type with fewer of those wins). */
static int find_type(const vkref *r, uint32_t bits, const char *kind, uint64_t size) {
  VkMemoryPropertyFlags need, avoid;
  if (!strcmp(kind, "device")) {
    need = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    avoid = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  } else if (!strcmp(kind, "host")) {
    need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    avoid = VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  } else if (!strcmp(kind, "cached")) {
    need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    avoid = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  } else if (!strcmp(kind, "rebar")) {
    need = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    avoid = 0;
  } else {
    return -1;
  }
  int best = -1, best_score = 1 << 30;
  for (uint32_t i = 0; i < r->mem.memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = r->mem.memoryTypes[i].propertyFlags;
    uint32_t heap = r->mem.memoryTypes[i].heapIndex;
    if (!(bits & (1u << i)) || (f & need) != need || r->mem.memoryHeaps[heap].size < size)
      continue;
    int score = __builtin_popcount(f & avoid);
    if (f & VK_MEMORY_PROPERTY_PROTECTED_BIT)
      continue;
    if (score < best_score)
      best = (int)i, best_score = score;
  }
  return best;
}

static void buf_free(vkref *r, buf *b) {
  if (b->map)
    vkUnmapMemory(r->dev, b->m);
  if (b->b)
    vkDestroyBuffer(r->dev, b->b, NULL);
  if (b->m)
    vkFreeMemory(r->dev, b->m, NULL);
  memset(b, 0, sizeof *b);
}

/* Returns 1 on success, 0 on failure, -2 when no memory type fits `kind`. */
static int buf_alloc(vkref *r, buf *b, uint64_t size, const char *kind) {
  memset(b, 0, sizeof *b);
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                           .size = size,
                           .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult vr = vkCreateBuffer(r->dev, &bi, NULL, &b->b);
  if (vr != VK_SUCCESS)
    return fail(r, "vkCreateBuffer(%llu bytes) failed: VkResult %d", (unsigned long long)size,
                (int)vr);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(r->dev, b->b, &req);
  int type = find_type(r, req.memoryTypeBits, kind, req.size);
  if (type < 0) {
    buf_free(r, b);
    snprintf(r->err, sizeof r->err, "no memory type for kind '%s' (%llu bytes)", kind,
             (unsigned long long)size);
    return -2;
  }
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                             .allocationSize = req.size,
                             .memoryTypeIndex = (uint32_t)type};
  vr = vkAllocateMemory(r->dev, &ai, NULL, &b->m);
  if (vr != VK_SUCCESS) {
    buf_free(r, b);
    return fail(r, "vkAllocateMemory(%llu bytes, kind %s) failed: VkResult %d",
                (unsigned long long)req.size, kind, (int)vr);
  }
  vr = vkBindBufferMemory(r->dev, b->b, b->m, 0);
  VkMemoryPropertyFlags f = r->mem.memoryTypes[type].propertyFlags;
  if (vr == VK_SUCCESS && (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
    vr = vkMapMemory(r->dev, b->m, 0, VK_WHOLE_SIZE, 0, &b->map);
  if (vr != VK_SUCCESS) {
    buf_free(r, b);
    return fail(r, "binding or mapping %llu bytes of kind %s failed: VkResult %d",
                (unsigned long long)size, kind, (int)vr);
  }
  b->size = size;
  b->coherent = (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  return 1;
}

static bool buf_flush(vkref *r, buf *b) {
  if (b->coherent)
    return true;
  VkMappedMemoryRange mr = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = b->m,
                            .size = VK_WHOLE_SIZE};
  VK(r, vkFlushMappedMemoryRanges(r->dev, 1, &mr));
  return true;
}

static bool buf_invalidate(vkref *r, buf *b) {
  if (b->coherent)
    return true;
  VkMappedMemoryRange mr = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = b->m,
                            .size = VK_WHOLE_SIZE};
  VK(r, vkInvalidateMappedMemoryRanges(r->dev, 1, &mr));
  return true;
}

/* ------------------------------------------------------------ commands */

static bool begin(vkref *r) {
  VK(r, vkResetCommandBuffer(r->cb, 0));
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VK(r, vkBeginCommandBuffer(r->cb, &bi));
  return true;
}

static bool submit_wait(vkref *r, VkCommandBuffer cb) {
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                     .pCommandBuffers = &cb};
  VK(r, vkQueueSubmit(r->q, 1, &si, r->fence));
  VK(r, vkWaitForFences(r->dev, 1, &r->fence, VK_TRUE, UINT64_MAX));
  VK(r, vkResetFences(r->dev, 1, &r->fence));
  return true;
}

static bool end_submit_wait(vkref *r) {
  VK(r, vkEndCommandBuffer(r->cb));
  return submit_wait(r, r->cb);
}

/* Every earlier write (shader or transfer) before every later access. */
static void full_barrier(vkref *r, VkCommandBuffer cb) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                         VK_ACCESS_TRANSFER_READ_BIT |
                                         VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                       0, NULL, 0, NULL);
}

/* GPU ns between timestamps 0 and 1 of the query pool. */
static double read_ts(vkref *r, uint32_t first) {
  uint64_t t[2];
  VkResult vr = vkGetQueryPoolResults(r->dev, r->qp, first, 2, sizeof t, t, sizeof t[0],
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (vr != VK_SUCCESS) {
    fail(r, "vkGetQueryPoolResults failed: VkResult %d", (int)vr);
    return -1;
  }
  uint64_t d = (t[1] - t[0]) & r->ts_mask;
  return (double)d * (double)r->props.limits.timestampPeriod;
}

/* Copies `size` bytes between buffers on the GPU, timed with timestamps. */
static double gpu_copy(vkref *r, buf *dst, buf *src, uint64_t size) {
  if (!begin(r))
    return -1;
  vkCmdResetQueryPool(r->cb, r->qp, 0, 2);
  vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r->qp, 0);
  VkBufferCopy c = {0, 0, size};
  vkCmdCopyBuffer(r->cb, src->b, dst->b, 1, &c);
  vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->qp, 1);
  full_barrier(r, r->cb);
  if (!end_submit_wait(r))
    return -1;
  return read_ts(r, 0);
}

static bool gpu_fill(vkref *r, buf *b, uint32_t word) {
  if (!begin(r))
    return false;
  vkCmdFillBuffer(r->cb, b->b, 0, VK_WHOLE_SIZE, word);
  full_barrier(r, r->cb);
  return end_submit_wait(r);
}

/* ------------------------------------------------------------ set-up */

/* `salt` != 0 sets the streaming shaders' SALT specialization constant: a
 * pipeline the driver has not seen, so its own caches (in memory and on
 * disk: NVIDIA keeps both) cannot answer and the figure is a compile. */
static bool make_pipeline(vkref *r, const uint32_t *code, size_t bytes, uint32_t salt,
                          VkPipeline *out) {
  VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                 .codeSize = bytes, .pCode = code};
  VkShaderModule mod;
  VK(r, vkCreateShaderModule(r->dev, &mi, NULL, &mod));
  VkSpecializationMapEntry me = {.constantID = 0, .offset = 0, .size = sizeof salt};
  VkSpecializationInfo spec = {.mapEntryCount = 1, .pMapEntries = &me, .dataSize = sizeof salt,
                               .pData = &salt};
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = mod, .pName = "main",
                .pSpecializationInfo = salt ? &spec : NULL},
      .layout = r->pl};
  VkResult vr = vkCreateComputePipelines(r->dev, VK_NULL_HANDLE, 1, &ci, NULL, out);
  vkDestroyShaderModule(r->dev, mod, NULL);
  if (vr != VK_SUCCESS)
    return fail(r, "vkCreateComputePipelines failed: VkResult %d", (int)vr);
  return true;
}

static void bind_set(vkref *r, VkDescriptorSet ds, buf *x, buf *y) {
  VkDescriptorBufferInfo bi[2] = {{x->b, 0, VK_WHOLE_SIZE}, {y->b, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet w[2];
  for (int i = 0; i < 2; i++)
    w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = ds, .dstBinding = (uint32_t)i, .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &bi[i]};
  vkUpdateDescriptorSets(r->dev, 2, w, 0, NULL);
}

static bool pick_device(vkref *r, int index) {
  uint32_t n = 0;
  VK(r, vkEnumeratePhysicalDevices(r->inst, &n, NULL));
  if (n == 0)
    return fail(r, "no Vulkan device found (is a driver installed? VK_DRIVER_FILES?)");
  VkPhysicalDevice pds[16];
  if (n > 16)
    n = 16;
  VK(r, vkEnumeratePhysicalDevices(r->inst, &n, pds));
  if (index >= (int)n)
    return fail(r, "device index %d out of range (%u devices)", index, n);
  if (index < 0) {
    index = 0;
    for (uint32_t i = 0; i < n; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(pds[i], &p);
      if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
        index = (int)i;
        break;
      }
    }
  }
  r->pd = pds[index];
  return true;
}

static bool setup(vkref *r, int index) {
  VK(r, volkInitialize());
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "vkref", .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             .pApplicationInfo = &app};
  VK(r, vkCreateInstance(&ii, NULL, &r->inst));
  volkLoadInstanceOnly(r->inst);
  if (!pick_device(r, index))
    return false;
  VkPhysicalDeviceDriverProperties drv = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                    .pNext = &drv};
  vkGetPhysicalDeviceProperties2(r->pd, &p2);
  r->props = p2.properties;
  snprintf(r->driver, sizeof r->driver, "%s %s", drv.driverName, drv.driverInfo);
  vkGetPhysicalDeviceMemoryProperties(r->pd, &r->mem);

  /* A queue family with compute and timestamps; compute-only ones first. */
  uint32_t nf = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(r->pd, &nf, NULL);
  VkQueueFamilyProperties qf[32];
  if (nf > 32)
    nf = 32;
  vkGetPhysicalDeviceQueueFamilyProperties(r->pd, &nf, qf);
  int fam = -1;
  for (int pass = 0; pass < 2 && fam < 0; pass++)
    for (uint32_t i = 0; i < nf && fam < 0; i++) {
      bool compute = qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT;
      bool gfx = qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT;
      if (compute && qf[i].timestampValidBits && (pass == 1 || !gfx))
        fam = (int)i;
    }
  if (fam < 0)
    return fail(r, "no compute queue family with timestamps on %s", r->props.deviceName);
  r->qfam = (uint32_t)fam;
  uint32_t bits = qf[fam].timestampValidBits;
  r->ts_mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;

  float prio = 1.0f;
  VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                .queueFamilyIndex = r->qfam, .queueCount = 1,
                                .pQueuePriorities = &prio};
  VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                           .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi};
  VK(r, vkCreateDevice(r->pd, &di, NULL, &r->dev));
  volkLoadDevice(r->dev);
  vkGetDeviceQueue(r->dev, r->qfam, 0, &r->q);

  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = r->qfam};
  VK(r, vkCreateCommandPool(r->dev, &pi, NULL, &r->pool));
  VkCommandBuffer cbs[2];
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                     .commandPool = r->pool,
                                     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                     .commandBufferCount = 2};
  VK(r, vkAllocateCommandBuffers(r->dev, &cai, cbs));
  r->cb = cbs[0];
  r->cb_tiny = cbs[1];
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK(r, vkCreateFence(r->dev, &fi, NULL, &r->fence));
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
  VK(r, vkCreateQueryPool(r->dev, &qpi, NULL, &r->qp));

  VkDescriptorSetLayoutBinding lb[2];
  for (uint32_t i = 0; i < 2; i++)
    lb[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .descriptorCount = 1,
                                           .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo li = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 2,
      .pBindings = lb};
  VK(r, vkCreateDescriptorSetLayout(r->dev, &li, NULL, &r->dsl));
  VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
  VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                    .setLayoutCount = 1, .pSetLayouts = &r->dsl,
                                    .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr};
  VK(r, vkCreatePipelineLayout(r->dev, &pli, NULL, &r->pl));
  VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4};
  VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                    .maxSets = 2, .poolSizeCount = 1, .pPoolSizes = &ps};
  VK(r, vkCreateDescriptorPool(r->dev, &dpi, NULL, &r->dp));
  VkDescriptorSetLayout layouts[2] = {r->dsl, r->dsl};
  VkDescriptorSet sets[2];
  VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                     .descriptorPool = r->dp, .descriptorSetCount = 2,
                                     .pSetLayouts = layouts};
  VK(r, vkAllocateDescriptorSets(r->dev, &dai, sets));
  r->ds_stream = sets[0];
  r->ds_tiny = sets[1];

  for (int k = 0; k < VKREF_NKERNELS; k++)
    if (!make_pipeline(r, spv_of[k].code, spv_of[k].bytes, 0, &r->pipe[k]))
      return false;
  if (!make_pipeline(r, spv_tiny, sizeof spv_tiny, 0, &r->pipe_tiny))
    return false;

  /* The tiny kernel's buffers and its prerecorded, resubmittable command
   * buffer. x = 0..63 (uploaded through the mapped staging-free path when
   * device memory is host-visible, else by vkCmdUpdateBuffer). */
  if (buf_alloc(r, &r->tx, 256, "device") != 1 || buf_alloc(r, &r->ty, 256, "device") != 1)
    return false;
  float init[64];
  for (int i = 0; i < 64; i++)
    init[i] = (float)i;
  if (!begin(r))
    return false;
  vkCmdUpdateBuffer(r->cb, r->tx.b, 0, sizeof init, init);
  full_barrier(r, r->cb);
  if (!end_submit_wait(r))
    return false;
  bind_set(r, r->ds_tiny, &r->tx, &r->ty);
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
  VK(r, vkBeginCommandBuffer(r->cb_tiny, &bi));
  uint32_t push[2] = {64, 64};
  vkCmdBindPipeline(r->cb_tiny, VK_PIPELINE_BIND_POINT_COMPUTE, r->pipe_tiny);
  vkCmdBindDescriptorSets(r->cb_tiny, VK_PIPELINE_BIND_POINT_COMPUTE, r->pl, 0, 1, &r->ds_tiny, 0,
                          NULL);
  vkCmdPushConstants(r->cb_tiny, r->pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
  vkCmdDispatch(r->cb_tiny, 1, 1, 1);
  VK(r, vkEndCommandBuffer(r->cb_tiny));
  return true;
}

vkref *vkref_open(int index, char *err, size_t errlen) {
  vkref *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  if (!setup(r, index)) {
    snprintf(err, errlen, "%s", r->err);
    vkref_close(r);
    return NULL;
  }
  return r;
}

void vkref_close(vkref *r) {
  if (!r)
    return;
  if (r->dev) {
    vkDeviceWaitIdle(r->dev);
    buf_free(r, &r->x);
    buf_free(r, &r->y);
    buf_free(r, &r->tx);
    buf_free(r, &r->ty);
    for (int k = 0; k < VKREF_NKERNELS; k++)
      if (r->pipe[k])
        vkDestroyPipeline(r->dev, r->pipe[k], NULL);
    if (r->pipe_tiny)
      vkDestroyPipeline(r->dev, r->pipe_tiny, NULL);
    if (r->dp)
      vkDestroyDescriptorPool(r->dev, r->dp, NULL);
    if (r->pl)
      vkDestroyPipelineLayout(r->dev, r->pl, NULL);
    if (r->dsl)
      vkDestroyDescriptorSetLayout(r->dev, r->dsl, NULL);
    if (r->qp)
      vkDestroyQueryPool(r->dev, r->qp, NULL);
    if (r->fence)
      vkDestroyFence(r->dev, r->fence, NULL);
    if (r->pool)
      vkDestroyCommandPool(r->dev, r->pool, NULL);
    vkDestroyDevice(r->dev, NULL);
  }
  if (r->inst)
    vkDestroyInstance(r->inst, NULL);
  free(r);
}

uint64_t vkref_max_elements(const vkref *r) {
  uint64_t lim = r->props.limits.maxStorageBufferRange;
  /* maxMemoryAllocationSize (Vulkan 1.1) is not queried here; 4 GiB - 64 KiB
   * is every driver's floor of it that matters. */
  if (lim > (4ull << 30) - (64u << 10))
    lim = (4ull << 30) - (64u << 10);
  return lim / 4;
}

/* ------------------------------------------------------------ streaming */

int vkref_stream_prepare(vkref *r, uint64_t n) {
  if (n == 0 || n % 4 || n > vkref_max_elements(r))
    return fail(r, "stream size %llu: must be a positive multiple of 4 up to %llu",
                (unsigned long long)n, (unsigned long long)vkref_max_elements(r)) - 1;
  vkDeviceWaitIdle(r->dev);
  buf_free(r, &r->x);
  buf_free(r, &r->y);
  r->n = 0;
  if (buf_alloc(r, &r->x, n * 4, "device") != 1 || buf_alloc(r, &r->y, n * 4, "device") != 1)
    return -1;
  /* x = linspace(0, 1, n) through a host staging buffer. */
  buf st;
  if (buf_alloc(r, &st, n * 4, "host") != 1)
    return -1;
  float *p = st.map;
  double step = n > 1 ? 1.0 / (double)(n - 1) : 0.0;
  for (uint64_t i = 0; i < n; i++)
    p[i] = (float)((double)i * step);
  bool ok = buf_flush(r, &st) && gpu_copy(r, &r->x, &st, n * 4) >= 0;
  buf_free(r, &st);
  if (!ok)
    return -1;
  bind_set(r, r->ds_stream, &r->x, &r->y);
  r->n = n;
  return 0;
}

static void record_stream(vkref *r, int kernel) {
  uint64_t items = kernel >= VKREF_COPY4 ? r->n / 4 : r->n;
  uint64_t groups = (items + LOCAL_STREAM - 1) / LOCAL_STREAM;
  uint64_t gx = groups, gy = 1, maxx = r->props.limits.maxComputeWorkGroupCount[0];
  if (gx > maxx) {
    gx = maxx < 65535 ? maxx : 65535;
    gy = (groups + gx - 1) / gx;
  }
  uint32_t push[2] = {(uint32_t)items, (uint32_t)(gx * LOCAL_STREAM)};
  vkCmdBindPipeline(r->cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->pipe[kernel]);
  vkCmdBindDescriptorSets(r->cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->pl, 0, 1, &r->ds_stream, 0,
                          NULL);
  vkCmdPushConstants(r->cb, r->pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
  vkCmdDispatch(r->cb, (uint32_t)gx, (uint32_t)gy, 1);
}

double vkref_stream_run(vkref *r, int kernel) {
  if (kernel < 0 || kernel >= VKREF_NKERNELS || !r->n)
    return fail(r, "vkref_stream_run: bad kernel %d or no prepared buffers", kernel) - 1;
  if (!begin(r))
    return -1;
  vkCmdResetQueryPool(r->cb, r->qp, 0, 2);
  vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r->qp, 0);
  record_stream(r, kernel);
  vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->qp, 1);
  if (!end_submit_wait(r))
    return -1;
  return read_ts(r, 0);
}

double vkref_stream_verify(vkref *r, int kernel) {
  if (kernel < 0 || kernel >= VKREF_NKERNELS || !r->n)
    return fail(r, "vkref_stream_verify: bad kernel %d or no prepared buffers", kernel) - 1;
  if (!gpu_fill(r, &r->y, 0x7fc00001u)) /* a NaN: unwritten elements fail */
    return -1;
  if (!begin(r))
    return -1;
  record_stream(r, kernel);
  full_barrier(r, r->cb);
  if (!end_submit_wait(r))
    return -1;
  buf st;
  if (buf_alloc(r, &st, r->n * 4, "cached") != 1)
    return -1;
  if (gpu_copy(r, &st, &r->y, r->n * 4) < 0 || !buf_invalidate(r, &st)) {
    buf_free(r, &st);
    return -1;
  }
  const float *y = st.map;
  double worst = 0;
  uint64_t bad = 0, n = r->n;
  double step = n > 1 ? 1.0 / (double)(n - 1) : 0.0;
  bool sinexp = kernel == VKREF_SINEXP || kernel == VKREF_SINEXP4;
  /* Every element for a copy; for sin+exp a stride that samples about 2^20
   * elements, plus the last one. */
  uint64_t stride = sinexp && n > (1u << 20) ? n >> 20 : 1;
  for (uint64_t i = 0; i < n; i += (i + stride < n || i == n - 1) ? stride : (n - 1 - i)) {
    float x = (float)((double)i * step);
    if (sinexp) {
      double want = sin((double)x) + exp((double)x);
      double rel = fabs((double)y[i] - want) / fabs(want);
      if (!(rel <= worst))
        worst = isnan(rel) ? INFINITY : rel;
    } else if (memcmp(&y[i], &x, 4) != 0) {
      bad++;
    }
    if (i == n - 1)
      break;
  }
  buf_free(r, &st);
  return sinexp ? worst : (double)bad;
}

int vkref_pipeline(vkref *r, int kernel, int iters, double *ns) {
  if (kernel < 0 || kernel >= VKREF_NKERNELS)
    return fail(r, "vkref_pipeline: bad kernel %d", kernel) - 1;
  /* A salt from the clock and the round: new to the driver in every round
   * and in every run of the program. */
  uint32_t base = (uint32_t)now_ns() | 1u;
  for (int i = 0; i < iters; i++) {
    VkPipeline p;
    uint32_t salt = (base + 2u * (uint32_t)i) | 1u;
    if (salt == 0xFFFFFFFFu)
      salt = 1;
    double t0 = now_ns();
    if (!make_pipeline(r, spv_of[kernel].code, spv_of[kernel].bytes, salt, &p))
      return -1;
    ns[i] = now_ns() - t0;
    vkDestroyPipeline(r->dev, p, NULL);
  }
  return 0;
}

/* ------------------------------------------------------------ dispatch */

int vkref_latency(vkref *r, int spin, int iters, double *ns) {
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                     .pCommandBuffers = &r->cb_tiny};
  for (int i = 0; i < iters; i++) {
    double t0 = now_ns();
    VkResult vr = vkQueueSubmit(r->q, 1, &si, r->fence);
    if (vr != VK_SUCCESS)
      return fail(r, "vkQueueSubmit failed: VkResult %d", (int)vr) - 1;
    if (spin) {
      while ((vr = vkGetFenceStatus(r->dev, r->fence)) == VK_NOT_READY) {
      }
    } else {
      vr = vkWaitForFences(r->dev, 1, &r->fence, VK_TRUE, UINT64_MAX);
    }
    ns[i] = now_ns() - t0;
    if (vr != VK_SUCCESS)
      return fail(r, "waiting for the fence failed: VkResult %d", (int)vr) - 1;
    if ((vr = vkResetFences(r->dev, 1, &r->fence)) != VK_SUCCESS)
      return fail(r, "vkResetFences failed: VkResult %d", (int)vr) - 1;
  }
  return 0;
}

double vkref_batch(vkref *r, int count, int barrier, double *gpu_ns) {
  if (count <= 0 || !begin(r))
    return -1;
  uint32_t push[2] = {64, 64};
  vkCmdResetQueryPool(r->cb, r->qp, 0, 2);
  vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r->qp, 0);
  vkCmdBindPipeline(r->cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->pipe_tiny);
  vkCmdBindDescriptorSets(r->cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->pl, 0, 1, &r->ds_tiny, 0,
                          NULL);
  vkCmdPushConstants(r->cb, r->pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  for (int i = 0; i < count; i++) {
    vkCmdDispatch(r->cb, 1, 1, 1);
    if (barrier && i + 1 < count)
      vkCmdPipelineBarrier(r->cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
  }
  vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->qp, 1);
  VkResult vr = vkEndCommandBuffer(r->cb);
  if (vr != VK_SUCCESS)
    return fail(r, "vkEndCommandBuffer failed: VkResult %d", (int)vr) - 1;
  double t0 = now_ns();
  if (!submit_wait(r, r->cb))
    return -1;
  double wall = now_ns() - t0;
  double gpu = read_ts(r, 0);
  if (gpu < 0)
    return -1;
  if (gpu_ns)
    *gpu_ns = gpu / count;
  return wall / count;
}

double vkref_async(vkref *r, int count) {
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                     .pCommandBuffers = &r->cb_tiny};
  double t0 = now_ns();
  for (int i = 0; i < count; i++) {
    VkResult vr = vkQueueSubmit(r->q, 1, &si, i + 1 == count ? r->fence : VK_NULL_HANDLE);
    if (vr != VK_SUCCESS)
      return fail(r, "vkQueueSubmit failed: VkResult %d", (int)vr) - 1;
  }
  VkResult vr = vkWaitForFences(r->dev, 1, &r->fence, VK_TRUE, UINT64_MAX);
  double wall = now_ns() - t0;
  if (vr != VK_SUCCESS)
    return fail(r, "vkWaitForFences failed: VkResult %d", (int)vr) - 1;
  if ((vr = vkResetFences(r->dev, 1, &r->fence)) != VK_SUCCESS)
    return fail(r, "vkResetFences failed: VkResult %d", (int)vr) - 1;
  return wall;
}

/* ------------------------------------------------------------ transfers */

typedef struct xfer {
  buf k;     /* the kind's buffer */
  buf dev;   /* device memory on the GPU side of the copies */
  buf up;    /* staging for "device" uploads (host kind) */
  buf down;  /* staging for "device" downloads (cached kind) */
  bool device;
} xfer;

/* One host->kind transfer through the path a program would take. */
static double do_upload(vkref *r, xfer *t, const void *src, uint64_t bytes) {
  double t0 = now_ns();
  if (t->device) {
    memcpy(t->up.map, src, bytes);
    if (!buf_flush(r, &t->up) || gpu_copy(r, &t->k, &t->up, bytes) < 0)
      return -1;
  } else {
    memcpy(t->k.map, src, bytes);
    if (!buf_flush(r, &t->k))
      return -1;
  }
  return now_ns() - t0;
}

static double do_download(vkref *r, xfer *t, void *dst, uint64_t bytes) {
  double t0 = now_ns();
  if (t->device) {
    if (gpu_copy(r, &t->down, &t->k, bytes) < 0 || !buf_invalidate(r, &t->down))
      return -1;
    memcpy(dst, t->down.map, bytes);
  } else {
    if (!buf_invalidate(r, &t->k))
      return -1;
    memcpy(dst, t->k.map, bytes);
  }
  return now_ns() - t0;
}

static void xfer_free(vkref *r, xfer *t) {
  buf_free(r, &t->k);
  buf_free(r, &t->dev);
  buf_free(r, &t->up);
  buf_free(r, &t->down);
}

int vkref_transfer(vkref *r, const char *kind, const char *what, uint64_t bytes, int reps,
                   double *ns) {
  enum { UP, DOWN, GREAD, GWRITE } op;
  if (!strcmp(what, "upload"))
    op = UP;
  else if (!strcmp(what, "download"))
    op = DOWN;
  else if (!strcmp(what, "gpu-read"))
    op = GREAD;
  else if (!strcmp(what, "gpu-write"))
    op = GWRITE;
  else
    return fail(r, "unknown transfer '%s'", what) - 1;
  if (bytes == 0 || bytes % 4)
    return fail(r, "transfer size must be a positive multiple of 4") - 1;
  xfer t = {.device = !strcmp(kind, "device")};
  int got = buf_alloc(r, &t.k, bytes, kind);
  if (got != 1)
    return got == -2 ? -2 : -1;
  if (buf_alloc(r, &t.dev, bytes, "device") != 1 ||
      (t.device && (buf_alloc(r, &t.up, bytes, "host") != 1 ||
                    buf_alloc(r, &t.down, bytes, "cached") != 1))) {
    xfer_free(r, &t);
    return -1;
  }
  uint32_t *src = NULL, *dst = NULL;
  if (posix_memalign((void **)&src, 4096, bytes) || posix_memalign((void **)&dst, 4096, bytes)) {
    free(src);
    xfer_free(r, &t);
    return fail(r, "out of host memory (%llu bytes)", (unsigned long long)bytes) - 1;
  }
  for (uint64_t i = 0; i < bytes / 4; i++)
    src[i] = (uint32_t)(i * 2654435761u);
  memset(dst, 0, bytes);

  /* The round trip check: upload, GPU copy out and back (device kind: the
   * staging paths), download, compare. The check reads at most 16 MiB back,
   * since reading device-local mapped memory can run at tens of MB/s. */
  int rc = -1;
  uint64_t check = bytes < (16u << 20) ? bytes : (16u << 20);
  bool ok = do_upload(r, &t, src, check) >= 0;
  if (ok && !t.device) {
    ok = gpu_copy(r, &t.dev, &t.k, check) >= 0;
    if (ok)
      memset(t.k.map, 0, check), ok = buf_flush(r, &t.k) && gpu_copy(r, &t.k, &t.dev, check) >= 0;
  }
  ok = ok && do_download(r, &t, dst, check) >= 0;
  if (ok && memcmp(src, dst, check) != 0) {
    fail(r, "transfer round trip through '%s' memory changed the data", kind);
    ok = false;
  }
  for (int i = -1; ok && i < reps; i++) { /* i = -1: warm-up */
    double v = -1;
    switch (op) {
    case UP: v = do_upload(r, &t, src, bytes); break;
    case DOWN: v = do_download(r, &t, dst, bytes); break;
    case GREAD: v = gpu_copy(r, &t.dev, &t.k, bytes); break;
    case GWRITE: v = gpu_copy(r, &t.k, &t.dev, bytes); break;
    }
    ok = v >= 0;
    if (ok && i >= 0)
      ns[i] = v;
  }
  if (ok)
    rc = 0;
  free(src);
  free(dst);
  xfer_free(r, &t);
  return rc;
}

/* ------------------------------------------------------------ the program */

#ifndef VKREF_LIBRARY

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n) with linear interpolation. */
static double quantile(const double *v, int n, double q) {
  double pos = q * (n - 1);
  int i = (int)pos;
  double f = pos - i;
  return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[n - 1];
}

static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      printf("\\u%04x", *s);
    else
      putchar(*s);
  }
  putchar('"');
}

static int nrec;

/* One record: samples[] (sorted here) are converted by `scale` (value =
 * scale / sample when `inverse`, else sample * scale). */
static void emit(const vkref *r, const char *kase, uint64_t size, double *s, int n, double scale,
                 bool inverse, const char *unit, const char *extra) {
  for (int i = 0; i < n; i++)
    s[i] = inverse ? scale / s[i] : s[i] * scale;
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  printf("%s\n  {\"suite\": \"vkref\", \"case\": ", nrec++ ? "," : "");
  json_str(kase);
  printf(", \"size\": %llu, \"backend\": \"vulkan-raw\", \"median\": %.6g, \"p10\": %.6g, "
         "\"p90\": %.6g, \"unit\": \"%s\", \"reps\": %d, \"device\": ",
         (unsigned long long)size, quantile(s, n, 0.5), quantile(s, n, 0.1), quantile(s, n, 0.9),
         unit, n);
  json_str(r->props.deviceName);
  printf(", \"driver\": ");
  json_str(r->driver);
  if (extra && *extra)
    printf(", %s", extra);
  printf("}");
  fflush(stdout);
}

static void usage(void) {
  fprintf(stderr,
          "usage: vkref [--device N] [--max-log2 K] [--quick] [--reps N] [--no-transfers]\n"
          "  Runs the raw-Vulkan reference benchmarks and prints JSON records on stdout.\n"
          "  --max-log2 K   largest streaming size 2^K floats (default 28; 22 on a CPU device,\n"
          "                 20 with --quick)\n");
}

int main(int argc, char **argv) {
  int index = -1, max_log2 = -1, reps = 20, quick = 0, transfers = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc)
      index = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-log2") && i + 1 < argc)
      max_log2 = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick"))
      quick = 1;
    else if (!strcmp(argv[i], "--no-transfers"))
      transfers = 0;
    else {
      usage();
      return 2;
    }
  }
  if (reps < 3)
    reps = 3;
  if (reps > 1000) /* s[] below holds 4 x 1000 samples */
    reps = 1000;
  char err[512];
  vkref *r = vkref_open(index, err, sizeof err);
  if (!r) {
    fprintf(stderr, "vkref: %s\n", err);
    return 1;
  }
  bool cpu = r->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (max_log2 < 0)
    max_log2 = quick ? (cpu ? 18 : 24) : (cpu ? 22 : 28);
  if (max_log2 > 30)
    max_log2 = 30;
  if (max_log2 < 4)
    max_log2 = 4;
  if (quick && reps > 5)
    reps = 5;
  fprintf(stderr, "vkref: %s (%s), driver %s\n", r->props.deviceName, vkref_device_kind(r),
          r->driver);
  printf("{\"tool\": \"vkref\", \"device\": ");
  json_str(r->props.deviceName);
  printf(", \"kind\": \"%s\", \"driver\": ", vkref_device_kind(r));
  json_str(r->driver);
  printf(", \"records\": [");

  int status = 0;
  double *s = calloc(4096, sizeof *s);
  static const char *names[VKREF_NKERNELS] = {"copy float", "sin+exp float", "copy vec4",
                                              "sin+exp vec4"};
  /* 2^20, 2^24, 2^28 up to the largest asked for, which is always run. */
  int sizes[4], nsizes = 0;
  for (int lg = 20; lg <= max_log2; lg += 4)
    sizes[nsizes++] = lg;
  if (nsizes == 0 || sizes[nsizes - 1] != max_log2)
    sizes[nsizes++] = max_log2;
  for (int si = 0; si < nsizes && !status; si++) {
    int lg = sizes[si];
    uint64_t n = 1ull << lg;
    if (n > vkref_max_elements(r)) {
      fprintf(stderr, "vkref: 2^%d floats exceed the device's buffer limit; skipped\n", lg);
      continue;
    }
    if (vkref_stream_prepare(r, n) < 0) {
      fprintf(stderr, "vkref: %s\n", r->err);
      status = 1;
      break;
    }
    double check[VKREF_NKERNELS];
    for (int k = 0; k < VKREF_NKERNELS && !status; k++) {
      check[k] = vkref_stream_verify(r, k);
      bool sinexp = k == VKREF_SINEXP || k == VKREF_SINEXP4;
      if (check[k] < 0 || (sinexp ? !(check[k] < 1e-5) : check[k] != 0)) {
        fprintf(stderr, "vkref: %s at 2^%d: %s (check %g)\n", names[k], lg,
                check[k] < 0 ? r->err : "WRONG RESULT", check[k]);
        status = 1;
      }
    }
    /* Two warm-up runs each, then the four kernels take turns run by run:
     * each figure comes from the same stretch of GPU time (clocks, power
     * state), so a state that lasts a few runs shows in all four instead of
     * making one kernel look slow. s[k * reps + i] is kernel k's run i. */
    for (int w = 0; w < 2 && !status; w++)
      for (int k = 0; k < VKREF_NKERNELS; k++)
        vkref_stream_run(r, k);
    for (int i = 0; i < reps && !status; i++)
      for (int k = 0; k < VKREF_NKERNELS && !status; k++)
        if (!((s[k * reps + i] = vkref_stream_run(r, k)) > 0)) {
          fprintf(stderr, "vkref: %s\n", r->err);
          status = 1;
        }
    for (int k = 0; k < VKREF_NKERNELS && !status; k++) {
      double *v = s + k * reps;
      qsort(v, (size_t)reps, sizeof *v, cmp_double);
      char extra[96];
      snprintf(extra, sizeof extra, "\"check\": %.3g, \"gpu_ms\": %.5g, \"interleaved\": true",
               check[k], quantile(v, reps, 0.5) * 1e-6);
      emit(r, names[k], n, v, reps, 8.0 * (double)n, true, "GB/s", extra);
    }
  }
  vkref_stream_prepare(r, 4); /* frees the large buffers */

  if (!status) {
    double v[20];
    int np_ = quick ? 5 : 20;
    if (vkref_pipeline(r, VKREF_SINEXP, np_, v) < 0) {
      fprintf(stderr, "vkref: %s\n", r->err);
      status = 1;
    } else {
      emit(r, "pipeline creation (sin+exp float, no VkPipelineCache)", 1, v, np_, 1e-6, false,
           "ms", NULL);
    }
  }

  int iters = quick ? 200 : 2000;
  static const char *lat[2] = {"tiny dispatch sync (fence wait)", "tiny dispatch sync (spin)"};
  for (int spin = 0; spin < 2 && !status; spin++) {
    double *v = calloc((size_t)iters, sizeof *v);
    vkref_latency(r, spin, 50, v);
    if (vkref_latency(r, spin, iters, v) < 0) {
      fprintf(stderr, "vkref: %s\n", r->err);
      status = 1;
    } else {
      emit(r, lat[spin], 64, v, iters, 1e-3, false, "us", NULL);
    }
    free(v);
  }
  for (int barrier = 0; barrier < 2 && !status; barrier++) {
    double wall[9], gpu[9];
    int nb = quick ? 3 : 9;
    vkref_batch(r, 1000, barrier, NULL);
    for (int i = 0; i < nb && !status; i++)
      if ((wall[i] = vkref_batch(r, 1000, barrier, &gpu[i])) < 0)
        status = 1;
    if (status) {
      fprintf(stderr, "vkref: %s\n", r->err);
      break;
    }
    emit(r, barrier ? "1000 dispatches, one submit, barriers (wall)"
                    : "1000 dispatches, one submit, no barriers (wall)",
         1000, wall, nb, 1e-3, false, "us/dispatch", NULL);
    emit(r, barrier ? "1000 dispatches, one submit, barriers (GPU)"
                    : "1000 dispatches, one submit, no barriers (GPU)",
         1000, gpu, nb, 1e-3, false, "us/dispatch", NULL);
  }
  if (!status) {
    int count = quick ? 2000 : 10000, nb = quick ? 3 : 7;
    double v[7];
    vkref_async(r, count / 10);
    for (int i = 0; i < nb && !status; i++)
      if ((v[i] = vkref_async(r, count)) < 0)
        status = 1;
    if (status)
      fprintf(stderr, "vkref: %s\n", r->err);
    else
      emit(r, "async dispatches (one submit each)", (uint64_t)count, v, nb, 1e9 * count, true,
           "dispatch/s", NULL);
  }

  static const char *kinds[] = {"device", "host", "cached", "rebar"};
  static const char *whats[] = {"upload", "download", "gpu-read", "gpu-write"};
  uint64_t mib = quick || cpu ? 64 : 256;
  for (int ki = 0; ki < 4 && transfers && !status; ki++)
    for (int wi = 0; wi < 4 && !status; wi++) {
      /* Reading device-local mapped memory from the host can run at tens
       * of MB/s: 16 MiB is enough to say so. */
      uint64_t bytes = (ki == 3 && wi == 1 ? 16 : mib) << 20;
      int nb = quick ? 3 : 5;
      double v[5];
      int rc = vkref_transfer(r, kinds[ki], whats[wi], bytes, nb, v);
      if (rc == -2) {
        fprintf(stderr, "vkref: no '%s' memory on this device; skipped\n", kinds[ki]);
        break;
      }
      if (rc < 0) {
        fprintf(stderr, "vkref: %s %s: %s\n", kinds[ki], whats[wi], r->err);
        status = 1;
        break;
      }
      char kase[64];
      snprintf(kase, sizeof kase, "%s %s", whats[wi], kinds[ki]);
      emit(r, kase, bytes, v, nb, (double)bytes, true, "GB/s", NULL);
    }
  printf("\n], \"status\": \"%s\"}\n", status ? "failed" : "ok");
  free(s);
  vkref_close(r);
  return status;
}

#endif
