/* waitprobe.c - where a tiny dispatch's submit -> completion round trip goes,
 * and which completion mechanism the host notices first (issue 14).
 *
 * Plain Vulkan through volk, no VulPy code, on one device. The dispatch is
 * bench/shaders/waitprobe.comp (1 workgroup of 64: y = 2 x + 1). Every rep
 * the host writes a fresh x (when the data memory is host-visible), submits,
 * waits by the case's mechanism, then checks y: a mechanism that reports
 * completion before the results are visible shows up in the `bad` column.
 * Cases (each `--reps` times after a warm-up; median, p10, p90 in us):
 *   submit     CPU time of vkQueueSubmit[2] alone (signal: none, timeline
 *              semaphore, fence);
 *   trip       submit -> completion seen, by spinning on
 *              vkGetSemaphoreCounterValue / vkGetFenceStatus, by blocking
 *              (vkWaitSemaphores / vkWaitForFences), or by spinning on a
 *              host-visible word the GPU writes at the end: the shader itself
 *              (atomicAdd after a workgroup barrier), vkCmdFillBuffer or
 *              vkCmdUpdateBuffer after a compute->transfer barrier, or
 *              vkCmdCopyBuffer of a host-written word in a second command
 *              buffer (what a runtime flag wait would do: it then
 *              reads the semaphore once; tried in branch fastwait, retired), each with a barrier to HOST_READ; the word in memory of each host-visible kind (host:
 *              HOST_VISIBLE|COHERENT uncached, cached: HOST_CACHED, rebar:
 *              DEVICE_LOCAL|HOST_VISIBLE);
 *   recorded   the same with the command buffer recorded per call;
 *   submit2    vkQueueSubmit2 instead of vkQueueSubmit (Vulkan 1.3);
 *   breakdown  with VK_EXT_calibrated_timestamps: host submit, the GPU's
 *              first and last timestamps and the host's noticing, on one
 *              clock (submit end -> GPU start, GPU run, GPU end -> seen);
 *   poll cost  one vkGetSemaphoreCounterValue, vkGetFenceStatus, or read of
 *              the word in each kind of memory.
 *
 *   waitprobe [--device N] [--reps N] [--data host|device|cached|rebar]
 *
 * bench/device/waitprobe.sh runs it on the device machine.
 */
#define _GNU_SOURCE
#include <volk.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "waitprobe_spv.h"

#define N 64u
#define MAGIC 0x5eedu
#define SPIN_LIMIT_NS 2000000000.0

enum { K_HOST, K_CACHED, K_REBAR, K_DEVICE, NKINDS };
static const char *kind_name[NKINDS] = {"host", "cached", "rebar", "device"};

typedef struct mem {
  VkBuffer b;
  VkDeviceMemory m;
  void *map;
  bool ok;
} mem;

/* The probe's one device and everything on it (a program, not a library). */
static struct {
  VkInstance inst;
  VkPhysicalDevice pd;
  VkDevice dev;
  VkQueue q;
  uint32_t qfam;
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties memp;
  bool sync2, calibrated;
  VkTimeDomainEXT host_domain;
  VkCommandPool pool;
  VkSemaphore tl;
  uint64_t tl_value;
  VkFence fence;
  VkQueryPool qp;
  VkDescriptorSetLayout dsl;
  VkPipelineLayout pl;
  VkDescriptorPool dp;
  VkDescriptorSet ds[NKINDS]; /* flag word in memory of kind k */
  VkPipeline pipe;
  mem x, y, flag[NKINDS], src;
  int data_kind;
} P;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void die(const char *what, VkResult r) {
  fprintf(stderr, "waitprobe: %s failed: VkResult %d\n", what, (int)r);
  exit(1);
}
#define VK(call)                                                                                   \
  do {                                                                                             \
    VkResult r_ = (call);                                                                          \
    if (r_ != VK_SUCCESS)                                                                          \
      die(#call, r_);                                                                              \
  } while (0)

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* ------------------------------------------------------------ memory */

static int find_type(uint32_t bits, int kind) {
  VkMemoryPropertyFlags need, avoid;
  switch (kind) {
  case K_HOST:
    need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    avoid = VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    break;
  case K_CACHED:
    need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
           VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    avoid = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    break;
  case K_REBAR:
    need = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    avoid = 0;
    break;
  default:
    need = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    avoid = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  }
  int best = -1, best_score = 1 << 30;
  for (uint32_t i = 0; i < P.memp.memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = P.memp.memoryTypes[i].propertyFlags;
    if (!(bits & (1u << i)) || (f & need) != need || (f & VK_MEMORY_PROPERTY_PROTECTED_BIT))
      continue;
    int score = __builtin_popcount(f & avoid);
    if (score < best_score)
      best = (int)i, best_score = score;
  }
  /* a kind that is only the same memory as another (an integrated GPU's or
   * lavapipe's single type) is still measured: it is what the device has */
  return best;
}

static void mem_alloc(mem *b, int kind, VkDeviceSize size) {
  memset(b, 0, sizeof *b);
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                           .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT};
  VK(vkCreateBuffer(P.dev, &bi, NULL, &b->b));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(P.dev, b->b, &req);
  int type = find_type(req.memoryTypeBits, kind);
  if (type < 0)
    return; /* no such memory: the cases using it print n/a */
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                             .allocationSize = req.size, .memoryTypeIndex = (uint32_t)type};
  if (vkAllocateMemory(P.dev, &ai, NULL, &b->m) != VK_SUCCESS)
    return;
  VK(vkBindBufferMemory(P.dev, b->b, b->m, 0));
  if (P.memp.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    VK(vkMapMemory(P.dev, b->m, 0, VK_WHOLE_SIZE, 0, &b->map));
  b->ok = true;
}

/* ------------------------------------------------------------ set-up */

static bool has_ext(const VkExtensionProperties *e, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(e[i].extensionName, name))
      return true;
  return false;
}

static void setup(int index) {
  VK(volkInitialize());
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "waitprobe", .apiVersion = VK_API_VERSION_1_3};
  VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             .pApplicationInfo = &app};
  VK(vkCreateInstance(&ii, NULL, &P.inst));
  volkLoadInstance(P.inst);
  uint32_t n = 0;
  VkPhysicalDevice pds[16];
  VK(vkEnumeratePhysicalDevices(P.inst, &n, NULL));
  n = n > 16 ? 16 : n;
  VK(vkEnumeratePhysicalDevices(P.inst, &n, pds));
  if (!n || index >= (int)n) {
    fprintf(stderr, "waitprobe: no device %d (%u found)\n", index, n);
    exit(1);
  }
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
  P.pd = pds[index];
  vkGetPhysicalDeviceProperties(P.pd, &P.props);
  vkGetPhysicalDeviceMemoryProperties(P.pd, &P.memp);

  uint32_t nf = 0;
  VkQueueFamilyProperties qf[32];
  vkGetPhysicalDeviceQueueFamilyProperties(P.pd, &nf, NULL);
  nf = nf > 32 ? 32 : nf;
  vkGetPhysicalDeviceQueueFamilyProperties(P.pd, &nf, qf);
  int fam = -1; /* compute-only first, as the runtime picks */
  for (int pass = 0; pass < 2 && fam < 0; pass++)
    for (uint32_t i = 0; i < nf && fam < 0; i++)
      if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
          (pass == 1 || !(qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
        fam = (int)i;
  P.qfam = (uint32_t)fam;

  VkPhysicalDeviceVulkan13Features f13 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13};
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                  .pNext = &f12};
  bool v13 = P.props.apiVersion >= VK_API_VERSION_1_3;
  if (!v13)
    f12.pNext = NULL;
  vkGetPhysicalDeviceFeatures2(P.pd, &f2);
  if (!f12.timelineSemaphore) {
    fprintf(stderr, "waitprobe: %s has no timeline semaphores\n", P.props.deviceName);
    exit(1);
  }
  P.sync2 = v13 && f13.synchronization2;
  VkPhysicalDeviceVulkan12Features e12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .timelineSemaphore = VK_TRUE};
  VkPhysicalDeviceVulkan13Features e13 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
      .synchronization2 = VK_TRUE};
  if (P.sync2)
    e12.pNext = &e13;

  uint32_t ne = 0;
  vkEnumerateDeviceExtensionProperties(P.pd, NULL, &ne, NULL);
  VkExtensionProperties *ex = calloc(ne ? ne : 1, sizeof *ex);
  vkEnumerateDeviceExtensionProperties(P.pd, NULL, &ne, ex);
  const char *exts[1];
  uint32_t nexts = 0;
  /* the EXT names: the Vulkan headers here predate the KHR promotion */
  if (has_ext(ex, ne, "VK_EXT_calibrated_timestamps"))
    exts[nexts++] = "VK_EXT_calibrated_timestamps";
  free(ex);

  float prio = 1.0f;
  VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                .queueFamilyIndex = P.qfam, .queueCount = 1,
                                .pQueuePriorities = &prio};
  VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &e12,
                           .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
                           .enabledExtensionCount = nexts, .ppEnabledExtensionNames = exts};
  VK(vkCreateDevice(P.pd, &di, NULL, &P.dev));
  volkLoadDevice(P.dev);
  vkGetDeviceQueue(P.dev, P.qfam, 0, &P.q);

  /* calibrated timestamps: usable when the host domain is CLOCK_MONOTONIC */
  if (nexts && vkGetPhysicalDeviceCalibrateableTimeDomainsEXT && vkGetCalibratedTimestampsEXT &&
      qf[fam].timestampValidBits) {
    uint32_t nd = 0;
    VkTimeDomainEXT doms[8];
    vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(P.pd, &nd, NULL);
    nd = nd > 8 ? 8 : nd;
    vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(P.pd, &nd, doms);
    bool dev = false, mono = false, raw = false;
    for (uint32_t i = 0; i < nd; i++) {
      dev |= doms[i] == VK_TIME_DOMAIN_DEVICE_EXT;
      mono |= doms[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
      raw |= doms[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT;
    }
    P.calibrated = dev && (mono || raw);
    P.host_domain = mono ? VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT
                         : VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT;
  }

  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = P.qfam};
  VK(vkCreateCommandPool(P.dev, &pi, NULL, &P.pool));
  VkSemaphoreTypeCreateInfo st = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
  VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &st};
  VK(vkCreateSemaphore(P.dev, &sci, NULL, &P.tl));
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK(vkCreateFence(P.dev, &fi, NULL, &P.fence));
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
  VK(vkCreateQueryPool(P.dev, &qpi, NULL, &P.qp));

  mem_alloc(&P.x, P.data_kind, N * 4);
  mem_alloc(&P.y, P.data_kind, N * 4);
  if (!P.x.ok || !P.y.ok) {
    fprintf(stderr, "waitprobe: no memory of kind %s for the data\n", kind_name[P.data_kind]);
    exit(1);
  }
  for (int k = 0; k < NKINDS; k++)
    mem_alloc(&P.flag[k], k, 256);
  mem_alloc(&P.src, K_HOST, 256);

  VkDescriptorSetLayoutBinding lb[3];
  for (uint32_t i = 0; i < 3; i++)
    lb[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .descriptorCount = 1,
                                           .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo li = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 3,
      .pBindings = lb};
  VK(vkCreateDescriptorSetLayout(P.dev, &li, NULL, &P.dsl));
  VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
  VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                    .setLayoutCount = 1, .pSetLayouts = &P.dsl,
                                    .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr};
  VK(vkCreatePipelineLayout(P.dev, &pli, NULL, &P.pl));
  VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3 * NKINDS};
  VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                    .maxSets = NKINDS, .poolSizeCount = 1, .pPoolSizes = &ps};
  VK(vkCreateDescriptorPool(P.dev, &dpi, NULL, &P.dp));
  for (int k = 0; k < NKINDS; k++) {
    if (!P.flag[k].ok)
      continue;
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = P.dp, .descriptorSetCount = 1,
                                       .pSetLayouts = &P.dsl};
    VK(vkAllocateDescriptorSets(P.dev, &dai, &P.ds[k]));
    VkDescriptorBufferInfo bi[3] = {{P.x.b, 0, VK_WHOLE_SIZE},
                                    {P.y.b, 0, VK_WHOLE_SIZE},
                                    {P.flag[k].b, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[3];
    for (uint32_t i = 0; i < 3; i++)
      w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                    .dstSet = P.ds[k], .dstBinding = i, .descriptorCount = 1,
                                    .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .pBufferInfo = &bi[i]};
    vkUpdateDescriptorSets(P.dev, 3, w, 0, NULL);
  }
  VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                 .codeSize = sizeof spv_waitprobe, .pCode = spv_waitprobe};
  VkShaderModule mod;
  VK(vkCreateShaderModule(P.dev, &mi, NULL, &mod));
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = mod, .pName = "main"},
      .layout = P.pl};
  VK(vkCreateComputePipelines(P.dev, VK_NULL_HANDLE, 1, &ci, NULL, &P.pipe));
  vkDestroyShaderModule(P.dev, mod, NULL);
}

/* ------------------------------------------------------------ commands */

/* How a case's command buffer ends (what writes the completion word). */
enum { END_NONE, END_SHADER, END_FILL, END_UPDATE, END_COPY_CB };

static void barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags sa,
                    VkPipelineStageFlags dst, VkAccessFlags da) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = sa,
                        .dstAccessMask = da};
  vkCmdPipelineBarrier(cb, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

#define CS VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
#define XF VK_PIPELINE_STAGE_TRANSFER_BIT
#define HOST VK_PIPELINE_STAGE_HOST_BIT

/* The dispatch and, by `end`, the write of the word in flag memory `fk`;
 * `ts` brackets the dispatch with timestamps. */
static void record(VkCommandBuffer cb, int end, int fk, bool ts, bool once) {
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = once ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0};
  VK(vkBeginCommandBuffer(cb, &bi));
  if (ts) {
    vkCmdResetQueryPool(cb, P.qp, 0, 2);
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, P.qp, 0);
  }
  uint32_t push[2] = {N, end == END_SHADER};
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, P.pipe);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, P.pl, 0, 1, &P.ds[fk], 0, NULL);
  vkCmdPushConstants(cb, P.pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
  vkCmdDispatch(cb, 1, 1, 1);
  if (ts)
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, P.qp, 1);
  /* the runtime's end-of-command-buffer barrier (vrt__barrier(false)) */
  barrier(cb, CS | XF, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, CS | XF | HOST,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
              VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
  if (end == END_FILL || end == END_UPDATE) {
    uint32_t v = MAGIC;
    if (end == END_FILL)
      vkCmdFillBuffer(cb, P.flag[fk].b, 0, 4, v);
    else
      vkCmdUpdateBuffer(cb, P.flag[fk].b, 0, 4, &v);
    barrier(cb, XF, VK_ACCESS_TRANSFER_WRITE_BIT, HOST, VK_ACCESS_HOST_READ_BIT);
  }
  VK(vkEndCommandBuffer(cb));
}

/* The runtime's flag command buffer: copies the host-written word `src`
 * into the flag word after everything before it. */
static void record_copy(VkCommandBuffer cb, int fk) {
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VK(vkBeginCommandBuffer(cb, &bi));
  barrier(cb, CS | XF, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, XF,
          VK_ACCESS_TRANSFER_WRITE_BIT);
  VkBufferCopy c = {0, 0, 4};
  vkCmdCopyBuffer(cb, P.src.b, P.flag[fk].b, 1, &c);
  barrier(cb, XF, VK_ACCESS_TRANSFER_WRITE_BIT, HOST, VK_ACCESS_HOST_READ_BIT);
  VK(vkEndCommandBuffer(cb));
}

static VkCommandBuffer new_cb(void) {
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = P.pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VkCommandBuffer cb;
  VK(vkAllocateCommandBuffers(P.dev, &ai, &cb));
  return cb;
}

/* ------------------------------------------------------------ cases */

enum { SIG_NONE = 0, SIG_TL = 1, SIG_FENCE = 2 };
enum { W_SEM, W_FENCE, W_SEM_BLOCK, W_FENCE_BLOCK, W_FLAG, W_FLAG_SEM, W_IDLE };

typedef struct kase {
  const char *name;
  int end, fk;   /* what writes the word, and its memory kind */
  int sig, wait; /* what the submission signals, how the host waits */
  bool per_call; /* record the command buffer per call (timed) */
  bool submit2, ts;
} kase;

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p) { return v[(int)(p * (n - 1) + 0.5)]; }

static void submit(const kase *k, VkCommandBuffer *cbs, uint32_t ncb, uint64_t value) {
  VkFence f = k->sig & SIG_FENCE ? P.fence : VK_NULL_HANDLE;
  if (k->submit2) {
    VkCommandBufferSubmitInfo cbi[2];
    for (uint32_t i = 0; i < ncb; i++)
      cbi[i] = (VkCommandBufferSubmitInfo){
          .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cbs[i]};
    VkSemaphoreSubmitInfo ssi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                 .semaphore = P.tl, .value = value,
                                 .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                        .commandBufferInfoCount = ncb, .pCommandBufferInfos = cbi,
                        .signalSemaphoreInfoCount = (k->sig & SIG_TL) ? 1 : 0,
                        .pSignalSemaphoreInfos = &ssi};
    VK(vkQueueSubmit2(P.q, 1, &si, f));
    return;
  }
  VkTimelineSemaphoreSubmitInfo ts = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                      .signalSemaphoreValueCount = 1,
                                      .pSignalSemaphoreValues = &value};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                     .pNext = (k->sig & SIG_TL) ? &ts : NULL, .commandBufferCount = ncb,
                     .pCommandBuffers = cbs, .signalSemaphoreCount = (k->sig & SIG_TL) ? 1 : 0,
                     .pSignalSemaphores = &P.tl};
  VK(vkQueueSubmit(P.q, 1, &si, f));
}

/* Spins until the word reads `want`; false after SPIN_LIMIT_NS. */
static bool spin_flag(volatile uint32_t *w, uint32_t want) {
  double t0 = now_ns();
  for (int i = 0;; i++) {
    if (*w == want)
      return true;
    if ((i & 1023) == 0 && now_ns() - t0 > SPIN_LIMIT_NS)
      return false;
    cpu_relax();
  }
}

static bool spin_sem(uint64_t value) {
  double t0 = now_ns();
  for (int i = 0;; i++) {
    uint64_t v = 0;
    VK(vkGetSemaphoreCounterValue(P.dev, P.tl, &v));
    if (v >= value)
      return true;
    if ((i & 255) == 0 && now_ns() - t0 > SPIN_LIMIT_NS)
      return false;
    cpu_relax();
  }
}

/* One host clock ns for a GPU timestamp: calibrated right after the rep. */
static void calibrate(uint64_t *gpu, uint64_t *host) {
  VkCalibratedTimestampInfoEXT ci[2] = {
      {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT,
       .timeDomain = VK_TIME_DOMAIN_DEVICE_EXT},
      {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = P.host_domain}};
  uint64_t t[2], dev;
  VK(vkGetCalibratedTimestampsEXT(P.dev, 2, ci, t, &dev));
  *gpu = t[0];
  *host = t[1];
  if (P.host_domain == VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT) {
    /* onto CLOCK_MONOTONIC (now_ns's clock): the two clocks' offset now */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC_RAW, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    *host += (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec));
  }
}

static void run_case(const kase *k, int reps) {
  if (k->submit2 && !P.sync2) {
    printf("%-50s  n/a (no synchronization2)\n", k->name);
    return;
  }
  if ((k->end != END_NONE && !P.flag[k->fk].ok) || (k->ts && !P.calibrated)) {
    printf("%-50s  n/a (%s)\n", k->name, k->ts ? "no calibrated timestamps" : "no such memory");
    return;
  }
  VkCommandBuffer cbs[2] = {new_cb(), VK_NULL_HANDLE};
  uint32_t ncb = 1;
  if (!k->per_call)
    record(cbs[0], k->end == END_COPY_CB ? END_NONE : k->end, k->fk, k->ts, false);
  if (k->end == END_COPY_CB) {
    cbs[1] = new_cb();
    record_copy(cbs[1], k->fk);
    ncb = 2;
  }
  volatile uint32_t *flag = P.flag[k->fk].map;
  volatile float *x = P.x.map, *y = P.y.map;
  uint32_t want = k->end == END_SHADER ? 1 : MAGIC;
  int warm = reps / 10 + 5, bad = 0, lost = 0;
  double *sub = calloc((size_t)reps, sizeof(double)), *trip = calloc((size_t)reps, sizeof(double));
  double *br[3] = {calloc((size_t)reps, 8), calloc((size_t)reps, 8), calloc((size_t)reps, 8)};
  double period = P.props.limits.timestampPeriod;
  for (int it = -warm; it < reps; it++) {
    int rep = it + warm;
    if (x)
      for (uint32_t i = 0; i < N; i++)
        x[i] = (float)((rep * 64 + (int)i) % 100000);
    if (flag)
      *flag = 0;
    if (k->end == END_COPY_CB)
      *(volatile uint32_t *)P.src.map = MAGIC;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint64_t value = P.tl_value + 1;
    double t0 = now_ns();
    if (k->per_call) {
      VK(vkResetCommandBuffer(cbs[0], 0));
      record(cbs[0], k->end == END_COPY_CB ? END_NONE : k->end, k->fk, k->ts, true);
    }
    submit(k, cbs, ncb, value);
    double t1 = now_ns();
    bool ok = true;
    switch (k->wait) {
    case W_SEM: ok = spin_sem(value); break;
    case W_FENCE: {
      VkResult r;
      while ((r = vkGetFenceStatus(P.dev, P.fence)) == VK_NOT_READY)
        cpu_relax();
      ok = r == VK_SUCCESS;
      break;
    }
    case W_SEM_BLOCK: {
      VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                .semaphoreCount = 1, .pSemaphores = &P.tl, .pValues = &value};
      ok = vkWaitSemaphores(P.dev, &wi, 2000000000ull) == VK_SUCCESS;
      break;
    }
    case W_FENCE_BLOCK:
      ok = vkWaitForFences(P.dev, 1, &P.fence, VK_TRUE, 2000000000ull) == VK_SUCCESS;
      break;
    case W_FLAG: ok = spin_flag(flag, want); break;
    case W_FLAG_SEM: { /* a runtime flag wait: the word, then one semaphore read to note it */
      uint64_t v;
      ok = spin_flag(flag, want);
      VK(vkGetSemaphoreCounterValue(P.dev, P.tl, &v));
      break;
    }
    case W_IDLE: VK(vkQueueWaitIdle(P.q)); break;
    }
    double t2 = now_ns();
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* the results must be there once the wait said so */
    if (y && ok)
      for (uint32_t i = 0; i < N; i++)
        if (y[i] != 2.0f * (float)((rep * 64 + (int)i) % 100000) + 1.0f) {
          bad++;
          break;
        }
    lost += !ok;
    /* retire the submission properly (untimed) */
    if (k->sig & SIG_TL) {
      VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                .semaphoreCount = 1, .pSemaphores = &P.tl, .pValues = &value};
      VK(vkWaitSemaphores(P.dev, &wi, UINT64_MAX));
      P.tl_value = value;
    }
    if (k->sig & SIG_FENCE) {
      VK(vkWaitForFences(P.dev, 1, &P.fence, VK_TRUE, UINT64_MAX));
      VK(vkResetFences(P.dev, 1, &P.fence));
    }
    if (!k->sig)
      VK(vkQueueWaitIdle(P.q));
    if (it >= 0) {
      sub[it] = t1 - t0;
      trip[it] = t2 - t0;
      if (k->ts) {
        uint64_t t[2], g0, h0;
        VK(vkGetQueryPoolResults(P.dev, P.qp, 0, 2, sizeof t, t, 8,
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        calibrate(&g0, &h0);
        double gs = (double)h0 - (double)(g0 - t[0]) * period;
        double ge = (double)h0 - (double)(g0 - t[1]) * period;
        br[0][it] = gs - t1; /* submit returned -> GPU starts the dispatch */
        br[1][it] = ge - gs; /* the dispatch on the GPU */
        br[2][it] = t2 - ge; /* GPU done -> the host noticed */
      }
    }
  }
  qsort(sub, (size_t)reps, sizeof *sub, cmp);
  qsort(trip, (size_t)reps, sizeof *trip, cmp);
  printf("%-50s %7.2f %7.2f %7.2f %7.2f %5d%s\n", k->name, pct(sub, reps, 0.5) / 1e3,
         pct(trip, reps, 0.5) / 1e3, pct(trip, reps, 0.1) / 1e3, pct(trip, reps, 0.9) / 1e3, bad,
         lost ? "  (timed out)" : "");
  if (k->ts) {
    static const char *part[3] = {"submit returned -> GPU start", "GPU start -> GPU end",
                                  "GPU end -> host noticed"};
    for (int j = 0; j < 3; j++) {
      qsort(br[j], (size_t)reps, sizeof(double), cmp);
      printf("    %-46s %15.2f %7.2f %7.2f\n", part[j], pct(br[j], reps, 0.5) / 1e3,
             pct(br[j], reps, 0.1) / 1e3, pct(br[j], reps, 0.9) / 1e3);
    }
  }
  free(sub);
  free(trip);
  for (int j = 0; j < 3; j++)
    free(br[j]);
  vkFreeCommandBuffers(P.dev, P.pool, ncb, cbs);
}

/* ns per call of a poll, over many calls on an idle device */
static void poll_costs(void) {
  int n = 20000;
  double t0 = now_ns();
  uint64_t v;
  for (int i = 0; i < n; i++)
    VK(vkGetSemaphoreCounterValue(P.dev, P.tl, &v));
  double sem = (now_ns() - t0) / n;
  /* a signalled fence */
  VK(vkQueueSubmit(P.q, 0, NULL, P.fence));
  VK(vkWaitForFences(P.dev, 1, &P.fence, VK_TRUE, UINT64_MAX));
  t0 = now_ns();
  for (int i = 0; i < n; i++)
    (void)vkGetFenceStatus(P.dev, P.fence);
  double fen = (now_ns() - t0) / n;
  VK(vkResetFences(P.dev, 1, &P.fence));
  printf("poll cost (ns per call): vkGetSemaphoreCounterValue %.0f, vkGetFenceStatus %.0f", sem,
         fen);
  for (int k = 0; k < K_DEVICE; k++) {
    if (!P.flag[k].ok)
      continue;
    volatile uint32_t *w = P.flag[k].map;
    uint32_t s = 0;
    t0 = now_ns();
    for (int i = 0; i < n; i++)
      s += *w;
    printf(", %s word %.0f", kind_name[k], (now_ns() - t0) / n + 0 * s);
  }
  printf("\n");
}

int main(int argc, char **argv) {
  int index = -1, reps = 2000;
  P.data_kind = K_HOST;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) {
      index = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--data") && i + 1 < argc) {
      const char *k = argv[++i];
      P.data_kind = -1;
      for (int j = 0; j < NKINDS; j++)
        if (!strcmp(k, kind_name[j]))
          P.data_kind = j;
      if (P.data_kind < 0) {
        fprintf(stderr, "waitprobe: --data takes host, cached, rebar or device\n");
        return 2;
      }
    } else {
      fprintf(stderr, "usage: waitprobe [--device N] [--reps N] [--data host|device|cached|rebar]\n");
      return 2;
    }
  }
  if (reps < 10)
    reps = 10;
  setup(index);
  printf("waitprobe: %s, data in %s memory, %d reps (us; bad: reps whose results were not "
         "there after the wait)\n",
         P.props.deviceName, kind_name[P.data_kind], reps);
  for (int k = 0; k < K_DEVICE; k++) {
    if (!P.flag[k].ok)
      continue;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(P.dev, P.flag[k].b, &req);
    printf("  %-6s word: memory type %d\n", kind_name[k], find_type(req.memoryTypeBits, k));
  }
  printf("  calibrated timestamps: %s; vkQueueSubmit2: %s\n",
         P.calibrated ? "yes (breakdown rows)" : "no", P.sync2 ? "yes" : "no");
  poll_costs();
  printf("%-50s %7s %7s %7s %7s %5s\n", "case", "submit", "trip", "p10", "p90", "bad");
  static const kase cases[] = {
      /* (a) submission CPU cost by what it signals, (b) (c) by what is polled */
      {"sem spin (timeline signal)", END_NONE, K_HOST, SIG_TL, W_SEM, false, false, false},
      {"fence spin (fence signal)", END_NONE, K_HOST, SIG_FENCE, W_FENCE, false, false, false},
      {"no signal + vkQueueWaitIdle", END_NONE, K_HOST, SIG_NONE, W_IDLE, false, false, false},
      {"sem+fence signal, sem spin", END_NONE, K_HOST, SIG_TL | SIG_FENCE, W_SEM, false, false, false},
      {"sem block (vkWaitSemaphores)", END_NONE, K_HOST, SIG_TL, W_SEM_BLOCK, false, false, false},
      {"fence block (vkWaitForFences)", END_NONE, K_HOST, SIG_FENCE, W_FENCE_BLOCK, false, false, false},
      /* (d) (e) a word the GPU writes last, by writer and memory kind */
      {"flag: shader atomic, host word", END_SHADER, K_HOST, SIG_TL, W_FLAG, false, false, false},
      {"flag: shader atomic, cached word", END_SHADER, K_CACHED, SIG_TL, W_FLAG, false, false, false},
      {"flag: shader atomic, rebar word", END_SHADER, K_REBAR, SIG_TL, W_FLAG, false, false, false},
      {"flag: fill, host word", END_FILL, K_HOST, SIG_TL, W_FLAG, false, false, false},
      {"flag: fill, cached word", END_FILL, K_CACHED, SIG_TL, W_FLAG, false, false, false},
      {"flag: fill, rebar word", END_FILL, K_REBAR, SIG_TL, W_FLAG, false, false, false},
      {"flag: update, host word", END_UPDATE, K_HOST, SIG_TL, W_FLAG, false, false, false},
      {"flag: fill, cached word, no signal", END_FILL, K_CACHED, SIG_NONE, W_FLAG, false, false, false},
      {"flag: copy cb (runtime), cached word", END_COPY_CB, K_CACHED, SIG_TL, W_FLAG, false, false, false},
      {"flag: copy cb (runtime), host word", END_COPY_CB, K_HOST, SIG_TL, W_FLAG, false, false, false},
      {"copy cb, cached + 1 sem read (runtime flag)", END_COPY_CB, K_CACHED, SIG_TL, W_FLAG_SEM, false, false, false},
      /* (f) recorded per call */
      {"recorded per call: sem spin", END_NONE, K_HOST, SIG_TL, W_SEM, true, false, false},
      {"recorded per call: fill cached flag", END_FILL, K_CACHED, SIG_TL, W_FLAG, true, false, false},
      /* (g) vkQueueSubmit2 */
      {"submit2: sem spin", END_NONE, K_HOST, SIG_TL, W_SEM, false, true, false},
      {"submit2: no signal + vkQueueWaitIdle", END_NONE, K_HOST, SIG_NONE, W_IDLE, false, true, false},
      {"submit2: fill cached flag", END_FILL, K_CACHED, SIG_TL, W_FLAG, false, true, false},
      /* where the time goes, on the host's clock */
      {"breakdown: sem spin", END_NONE, K_HOST, SIG_TL, W_SEM, false, false, true},
      {"breakdown: fill cached flag", END_FILL, K_CACHED, SIG_TL, W_FLAG, false, false, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    run_case(&cases[i], reps);
  vkDeviceWaitIdle(P.dev);
  return 0;
}
