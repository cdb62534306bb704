/* runtime_bench.c - the runtime's figures, each beside a raw-Vulkan loop doing
 * the same work in the same process run:
 *
 *   latency   one tiny dispatch (1 workgroup of 64), submit + wait. Each
 *             strategy runs in blocks of calls on its own device (a GPU
 *             switching between two VkDevices - or a CUDA context - pays a
 *             context switch on every call, which is what per-call
 *             interleaving measured on the H200: ~190 us), blocks of the
 *             strategies alternating so drift hits all:
 *               vulpy <mode>   vrt_dispatch with each vrt_wait_mode
 *               raw-vulkan     a prerecorded command buffer, the runtime's
 *                              barriers, the runtime's default wait
 *               raw-vulkan timeline|fence spin|block, and without barriers
 *               raw-vulkan timeline spin, closing barrier compute only |
 *                              compute + host: a lighter closing barrier
 *                              (no TRANSFER stage; without or with the
 *                              host's read), what the runtime's costs
 *               raw-vulkan timeline spin, semaphore chain: no barrier;
 *                              each submission waits (compute stage) for
 *                              the timeline value the one before it
 *                              signals, the memory dependency a closing
 *                              barrier gives (device work only, no host
 *                              read), in the submission
 *               raw-vulkan timeline spin, opening barrier only: the
 *                              runtime's opening barrier, no closing one
 *             plus the same two resubmitted alternately, call by call, to
 *             show the cost of switching devices, and single calls after
 *             50 ms of idling (clocks that drop while a program sleeps);
 *   batch     1000 tiny dispatches in one submission with a barrier between
 *             each: a vrt recording (recorded + run, and replayed) vs one
 *             command buffer (recorded + run, and replayed)
 *   upload / download   256 MiB to/from a `device` buffer (the overhead
 *             rows), then per memory kind, with the runtime's copy threads
 *             and with one, into memory touched before and into fresh
 *             memory; raw: memcpy through the mapping (host-visible memory)
 *             or a staging buffer of the same size and one copy; and a
 *             plain host memcpy for the machine's own bandwidth
 *
 * Prints one JSON object per line: case, backend, unit, and the samples'
 * median, p10, p90, p99. The raw side uses its own VkInstance and VkDevice
 * (volk's global function pointers) on the device the runtime picked.
 * Runs on any Vulkan device: lavapipe here, NVIDIA on the H200.
 *
 *   runtime_bench [--quick] [--device SELECTOR] [--only latency,batch,transfer]
 *
 * The context honours the VULPY_* variables (include/vulpy/runtime_env.h:
 * VULPY_WAIT, VULPY_SPIN_US, VULPY_COPY_THREADS, ...), except validation,
 * which stays off for figures.
 */
#include "vulpy/runtime.h"
#include "vulpy/runtime_env.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <volk.h>

#include "runtime_tiny_spv.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double pct(const double *sorted, int n, double p) {
  int i = (int)floor(p * (n - 1) + 0.5);
  return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* Prints a record from samples (already in the unit); higher_better flips
 * p10/p90 so that p10 is always the worse end of the throughput. */
static void emit(const char *cas, const char *backend, const char *unit, double *v, int n,
                 const char *device, double size) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  printf("{\"case\": \"%s\", \"backend\": \"%s\", \"unit\": \"%s\", \"median\": %.6g, "
         "\"p10\": %.6g, \"p90\": %.6g, \"p99\": %.6g, \"n\": %d, \"device\": \"%s\", "
         "\"size\": %.0f}\n",
         cas, backend, unit, pct(v, n, 0.5), pct(v, n, 0.1), pct(v, n, 0.9), pct(v, n, 0.99), n,
         device, size);
  fflush(stdout);
}

static int fail(const char *what, vp_diags *d) {
  fprintf(stderr, "runtime_bench: %s failed\n", what);
  if (d) {
    char *s = vp_diags_format(d, NULL);
    fprintf(stderr, "%s", s ? s : "");
    free(s);
  }
  return 1;
}

#define VKCHECK(x)                                                           \
  do {                                                                       \
    VkResult r_ = (x);                                                       \
    if (r_ < 0) {                                                            \
      fprintf(stderr, "runtime_bench: %s failed (%d)\n", #x, r_);            \
      return 1;                                                              \
    }                                                                        \
  } while (0)

/* ================================================================ raw */

typedef struct raw {
  VkInstance instance;
  VkPhysicalDevice pdev;
  VkDevice device;
  VkQueue queue;
  uint32_t qfamily;
  VkPhysicalDeviceMemoryProperties mem;
  bool push_descriptors;
  VkCommandPool pool;
  VkSemaphore timeline;
  uint64_t value;
  VkBuffer x, y;
  VkDeviceMemory xm, ym;
  VkDescriptorSetLayout dsl;
  VkDescriptorPool dpool;
  VkDescriptorSet set;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkFence fence;
} raw;

static bool has_ext(VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
  VkExtensionProperties *p = calloc(n ? n : 1, sizeof *p);
  vkEnumerateDeviceExtensionProperties(pd, NULL, &n, p);
  bool found = false;
  for (uint32_t i = 0; i < n; i++)
    found |= strcmp(p[i].extensionName, name) == 0;
  free(p);
  return found;
}

static int raw_buffer(raw *r, VkDeviceSize size, VkBufferUsageFlags usage, uint32_t type,
                      VkBuffer *buf, VkDeviceMemory *mem) {
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                           .usage = usage, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VKCHECK(vkCreateBuffer(r->device, &bi, NULL, buf));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(r->device, *buf, &req);
  if (!(req.memoryTypeBits & (1u << type)))
    return fprintf(stderr, "runtime_bench: memory type %u not allowed\n", type), 1;
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                             .allocationSize = req.size, .memoryTypeIndex = type};
  VKCHECK(vkAllocateMemory(r->device, &ai, NULL, mem));
  VKCHECK(vkBindBufferMemory(r->device, *buf, *mem, 0));
  return 0;
}

/* The memory type the runtime's kind would choose (its pure function). */
static uint32_t kind_type(raw *r, const vrt_device_info *info, vrt_memory_kind kind) {
  uint32_t types[32];
  uint32_t n = vrt_memory_candidates(&info->memory, info->uma, kind, ~0u, types, NULL);
  return n ? types[0] : 0;
  (void)r;
}

static int raw_open(raw *r, const vrt_device_info *info) {
  memset(r, 0, sizeof *r);
  VKCHECK(volkInitialize());
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .apiVersion = VK_API_VERSION_1_2};
  VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             .pApplicationInfo = &app};
  VKCHECK(vkCreateInstance(&ii, NULL, &r->instance));
  volkLoadInstance(r->instance);
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(r->instance, &n, NULL);
  VkPhysicalDevice pds[16];
  n = n > 16 ? 16 : n;
  vkEnumeratePhysicalDevices(r->instance, &n, pds);
  if (info->index >= n)
    return fprintf(stderr, "runtime_bench: device %u not found\n", info->index), 1;
  r->pdev = pds[info->index];
  vkGetPhysicalDeviceMemoryProperties(r->pdev, &r->mem);
  uint32_t nq = 0;
  VkQueueFamilyProperties qs[16];
  vkGetPhysicalDeviceQueueFamilyProperties(r->pdev, &nq, NULL);
  nq = nq > 16 ? 16 : nq;
  vkGetPhysicalDeviceQueueFamilyProperties(r->pdev, &nq, qs);
  r->qfamily = UINT32_MAX;
  for (uint32_t i = 0; i < nq; i++)
    if ((qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
        (r->qfamily == UINT32_MAX || (!(qs[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) &&
                                      (qs[r->qfamily].queueFlags & VK_QUEUE_GRAPHICS_BIT))))
      r->qfamily = i;
  r->push_descriptors = has_ext(r->pdev, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  const char *exts[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  float prio = 1;
  VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                .queueFamilyIndex = r->qfamily, .queueCount = 1,
                                .pQueuePriorities = &prio};
  VkPhysicalDeviceVulkan12Features f12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .timelineSemaphore = 1};
  VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12,
                           .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
                           .enabledExtensionCount = r->push_descriptors ? 1 : 0,
                           .ppEnabledExtensionNames = exts};
  VKCHECK(vkCreateDevice(r->pdev, &di, NULL, &r->device));
  volkLoadDevice(r->device);
  vkGetDeviceQueue(r->device, r->qfamily, 0, &r->queue);
  VkSemaphoreTypeCreateInfo st = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &st};
  VKCHECK(vkCreateSemaphore(r->device, &si, NULL, &r->timeline));
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = r->qfamily};
  VKCHECK(vkCreateCommandPool(r->device, &pi, NULL, &r->pool));
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKCHECK(vkCreateFence(r->device, &fi, NULL, &r->fence));

  uint32_t dev_type = kind_type(r, info, VRT_DEVICE);
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (raw_buffer(r, 256, usage, dev_type, &r->x, &r->xm) ||
      raw_buffer(r, 256, usage, dev_type, &r->y, &r->ym))
    return 1;

  VkDescriptorSetLayoutBinding b[2] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
  VkDescriptorSetLayoutCreateInfo li = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .flags = r->push_descriptors ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0,
      .bindingCount = 2, .pBindings = b};
  VKCHECK(vkCreateDescriptorSetLayout(r->device, &li, NULL, &r->dsl));
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                   .setLayoutCount = 1, .pSetLayouts = &r->dsl,
                                   .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
  VKCHECK(vkCreatePipelineLayout(r->device, &pl, NULL, &r->layout));
  VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                  .codeSize = sizeof runtime_tiny_spv, .pCode = runtime_tiny_spv};
  VkShaderModule sm;
  VKCHECK(vkCreateShaderModule(r->device, &smi, NULL, &sm));
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = sm, .pName = "main"},
      .layout = r->layout};
  VKCHECK(vkCreateComputePipelines(r->device, VK_NULL_HANDLE, 1, &ci, NULL, &r->pipeline));
  vkDestroyShaderModule(r->device, sm, NULL);
  if (!r->push_descriptors) {
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &ps};
    VKCHECK(vkCreateDescriptorPool(r->device, &dpi, NULL, &r->dpool));
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = r->dpool, .descriptorSetCount = 1,
                                       .pSetLayouts = &r->dsl};
    VKCHECK(vkAllocateDescriptorSets(r->device, &dai, &r->set));
    VkDescriptorBufferInfo bis[2] = {{r->x, 0, VK_WHOLE_SIZE}, {r->y, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++)
      w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                    .dstSet = r->set, .dstBinding = (uint32_t)i,
                                    .descriptorCount = 1,
                                    .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .pBufferInfo = &bis[i]};
    vkUpdateDescriptorSets(r->device, 2, w, 0, NULL);
  }
  return 0;
}

/* The runtime's barriers, recorded the same way: the opening one (recordings
 * and one-off work), and the closing one every command buffer ends with. */
static void raw_barrier(VkCommandBuffer cb, bool start) {
  VkAccessFlags device = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                         VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = start ? device : device | VK_ACCESS_HOST_READ_BIT};
  VkPipelineStageFlags src = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cb, src, start ? src : src | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                       NULL, 0, NULL);
}

/* Lighter closing barriers the runtime could end a dispatch's command
 * buffer with, timed beside its own (latency's "closing barrier" rows):
 * `host` keeps the host's read of the results (HOST stage and access),
 * and both wait on the compute stage only (no TRANSFER), which is all a
 * launch's command buffer runs. */
static void raw_barrier_compute(VkCommandBuffer cb, bool host) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                         (host ? VK_ACCESS_HOST_READ_BIT : 0)};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                           (host ? VK_PIPELINE_STAGE_HOST_BIT : 0),
                       0, 1, &mb, 0, NULL, 0, NULL);
}

static void raw_dispatch(raw *r, VkCommandBuffer cb) {
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->pipeline);
  if (r->push_descriptors) {
    VkDescriptorBufferInfo bis[2] = {{r->x, 0, VK_WHOLE_SIZE}, {r->y, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++)
      w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                    .dstBinding = (uint32_t)i, .descriptorCount = 1,
                                    .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .pBufferInfo = &bis[i]};
    vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->layout, 0, 2, w);
  } else {
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->layout, 0, 1, &r->set, 0,
                            NULL);
  }
  uint32_t push[2] = {64, 0};
  vkCmdPushConstants(cb, r->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, push);
  vkCmdDispatch(cb, 1, 1, 1);
}

/* A new command buffer from the raw pool, begun; 1 on a Vulkan error. */
static int raw_begin(raw *r, VkCommandBuffer *out) {
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = r->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VKCHECK(vkAllocateCommandBuffers(r->device, &ai, out));
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VKCHECK(vkBeginCommandBuffer(*out, &bi));
  return 0;
}

/* Records `count` dispatches (barrier between each, and the runtime's
 * barriers around them when `barriers`: one dispatch as the runtime's
 * launch cache records it, the closing barrier only) into a new command
 * buffer. */
static int raw_record_b(raw *r, int count, bool barriers, VkCommandBuffer *out) {
  if (raw_begin(r, out))
    return 1;
  if (barriers && count > 1)
    raw_barrier(*out, true);
  for (int i = 0; i < count; i++) {
    if (i)
      raw_barrier(*out, true);
    raw_dispatch(r, *out);
  }
  if (barriers)
    raw_barrier(*out, false);
  VKCHECK(vkEndCommandBuffer(*out));
  return 0;
}

static int raw_record(raw *r, int count, VkCommandBuffer *out) {
  return raw_record_b(r, count, true, out);
}

/* One dispatch opened by the runtime's opening barrier, no closing one. */
static int raw_record_open(raw *r, VkCommandBuffer *out) {
  if (raw_begin(r, out))
    return 1;
  raw_barrier(*out, true);
  raw_dispatch(r, *out);
  VKCHECK(vkEndCommandBuffer(*out));
  return 0;
}

/* One dispatch closed by raw_barrier_compute (host: with the HOST read). */
static int raw_record_light(raw *r, bool host, VkCommandBuffer *out) {
  if (raw_begin(r, out))
    return 1;
  raw_dispatch(r, *out);
  raw_barrier_compute(*out, host);
  VKCHECK(vkEndCommandBuffer(*out));
  return 0;
}

/* How a raw loop waits: on the timeline semaphore (spin for spin_ns, then
 * block; or only one of them), or on a fence (spin on vkGetFenceStatus, or
 * vkWaitForFences). */
typedef enum raw_wait {
  TL_SPIN_BLOCK, TL_BLOCK, TL_SPIN, FENCE_SPIN, FENCE_BLOCK
} raw_wait;

/* Submit + wait with a fence instead of the timeline. */
static int raw_run_fence(raw *r, VkCommandBuffer cb, bool spin) {
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                     .pCommandBuffers = &cb};
  VKCHECK(vkQueueSubmit(r->queue, 1, &si, r->fence));
  VkResult vr;
  if (spin)
    while ((vr = vkGetFenceStatus(r->device, r->fence)) == VK_NOT_READY)
      ;
  else
    vr = vkWaitForFences(r->device, 1, &r->fence, VK_TRUE, UINT64_MAX);
  VKCHECK(vr);
  VKCHECK(vkResetFences(r->device, 1, &r->fence));
  return 0;
}

/* Submit + wait on the timeline; spin_ns > 0 polls first, like vrt_wait
 * (< 0: polls until done). `chain`: the submission also waits, at the
 * compute stage, for the value the one before it signalled. */
static int raw_run_c(raw *r, VkCommandBuffer cb, double spin_ns, bool chain) {
  uint64_t value = ++r->value, before = value - 1;
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  VkTimelineSemaphoreSubmitInfo ts = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                      .waitSemaphoreValueCount = chain,
                                      .pWaitSemaphoreValues = &before,
                                      .signalSemaphoreValueCount = 1,
                                      .pSignalSemaphoreValues = &value};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ts,
                     .waitSemaphoreCount = chain, .pWaitSemaphores = &r->timeline,
                     .pWaitDstStageMask = &stage,
                     .commandBufferCount = 1, .pCommandBuffers = &cb,
                     .signalSemaphoreCount = 1, .pSignalSemaphores = &r->timeline};
  VKCHECK(vkQueueSubmit(r->queue, 1, &si, VK_NULL_HANDLE));
  double start = now_ns();
  uint64_t v = 0;
  while (spin_ns != 0 && (spin_ns < 0 || now_ns() - start < spin_ns)) {
    VKCHECK(vkGetSemaphoreCounterValue(r->device, r->timeline, &v));
    if (v >= value)
      return 0;
  }
  VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                            .semaphoreCount = 1, .pSemaphores = &r->timeline, .pValues = &value};
  VKCHECK(vkWaitSemaphores(r->device, &wi, UINT64_MAX));
  return 0;
}

static int raw_run(raw *r, VkCommandBuffer cb, double spin_ns) {
  return raw_run_c(r, cb, spin_ns, false);
}

static void raw_close(raw *r) {
  if (!r->device)
    return;
  vkDeviceWaitIdle(r->device);
  vkDestroyPipeline(r->device, r->pipeline, NULL);
  vkDestroyPipelineLayout(r->device, r->layout, NULL);
  vkDestroyDescriptorSetLayout(r->device, r->dsl, NULL);
  if (r->dpool)
    vkDestroyDescriptorPool(r->device, r->dpool, NULL);
  vkDestroyBuffer(r->device, r->x, NULL);
  vkDestroyBuffer(r->device, r->y, NULL);
  vkFreeMemory(r->device, r->xm, NULL);
  vkFreeMemory(r->device, r->ym, NULL);
  vkDestroyCommandPool(r->device, r->pool, NULL);
  vkDestroySemaphore(r->device, r->timeline, NULL);
  vkDestroyFence(r->device, r->fence, NULL);
  vkDestroyDevice(r->device, NULL);
  vkDestroyInstance(r->instance, NULL);
}

/* Raw transfers of `bytes` to/from memory of the `device` kind: memcpy
 * through the mapping where it is host-visible, else through one staging
 * buffer of the same size and one copy each way. */
typedef struct raw_xfer {
  VkBuffer dst, stage;
  VkDeviceMemory dm, sm;
  void *map;
  VkCommandBuffer up, down;
  uint64_t bytes;
} raw_xfer;

static int record_copy(raw *r, VkBuffer src, VkBuffer dst, uint64_t bytes, VkCommandBuffer *cb) {
  if (raw_begin(r, cb))
    return 1;
  raw_barrier(*cb, true);
  VkBufferCopy region = {0, 0, bytes};
  vkCmdCopyBuffer(*cb, src, dst, 1, &region);
  raw_barrier(*cb, false);
  VKCHECK(vkEndCommandBuffer(*cb));
  return 0;
}

static int raw_xfer_open(raw *r, const vrt_device_info *info, uint64_t bytes,
                         vrt_memory_kind kind, raw_xfer *x) {
  memset(x, 0, sizeof *x);
  x->bytes = bytes;
  uint32_t dev_type = kind_type(r, info, kind);
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (raw_buffer(r, bytes, usage, dev_type, &x->dst, &x->dm))
    return 1;
  if (r->mem.memoryTypes[dev_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    VKCHECK(vkMapMemory(r->device, x->dm, 0, VK_WHOLE_SIZE, 0, &x->map));
    memset(x->map, 0, bytes); /* fault the pages in, as the runtime's zeroing does */
    return 0;
  }
  if (raw_buffer(r, bytes, usage, kind_type(r, info, VRT_CACHED), &x->stage, &x->sm))
    return 1;
  VKCHECK(vkMapMemory(r->device, x->sm, 0, VK_WHOLE_SIZE, 0, &x->map));
  memset(x->map, 0, bytes);
  return record_copy(r, x->stage, x->dst, bytes, &x->up) ||
         record_copy(r, x->dst, x->stage, bytes, &x->down);
}

static int raw_xfer_once(raw *r, raw_xfer *x, bool upload, void *host) {
  if (upload) {
    memcpy(x->map, host, x->bytes);
    return x->up ? raw_run(r, x->up, 0) : 0;
  }
  if (x->down && raw_run(r, x->down, 0))
    return 1;
  memcpy(host, x->map, x->bytes);
  return 0;
}

static void raw_xfer_close(raw *r, raw_xfer *x) {
  vkDeviceWaitIdle(r->device);
  if (x->up)
    vkFreeCommandBuffers(r->device, r->pool, 1, &x->up);
  if (x->down)
    vkFreeCommandBuffers(r->device, r->pool, 1, &x->down);
  vkDestroyBuffer(r->device, x->dst, NULL);
  vkFreeMemory(r->device, x->dm, NULL);
  if (x->stage) {
    vkDestroyBuffer(r->device, x->stage, NULL);
    vkFreeMemory(r->device, x->sm, NULL);
  }
}

/* ============================================================== main */

static const char tiny_manifest[] =
    "vulpy_manifest: 1\nkernel: tiny\nentry_point: main\nlocal_size: [64, 1, 1]\n"
    "buffers:\n"
    "  - {name: x, set: 0, binding: 0, type: f32, elem_size: 4, access: readonly}\n"
    "  - {name: y, set: 0, binding: 1, type: f32, elem_size: 4, access: writeonly}\n"
    "push_constants:\n  size: 8\n  fields:\n"
    "    - {name: n, type: u32, offset: 0, size: 4}\n"
    "    - {name: row, type: u32, offset: 4, size: 4}\n";

/* Everything the figures share. */
typedef struct bench {
  vrt_context *ctx;
  const vrt_device_info *info;
  const char *dev;
  vrt_kernel *k;
  vrt_args args;
  raw r;
  VkCommandBuffer one, bare; /* one tiny dispatch, with and without barriers */
  VkCommandBuffer light[2];  /* closed by raw_barrier_compute without / with HOST */
  VkCommandBuffer open;      /* the opening barrier only */
  double spin;               /* the runtime's default spin on this device, ns */
  vrt_wait_mode mode;        /* the runtime's default wait here */
  uint32_t spin_us;
  bool quick;
} bench;

/* One tiny round trip by strategy `s` (see LAT below); false on failure. */
typedef struct strategy {
  const char *backend;
  int vrt_mode;   /* >= 0: vrt_dispatch with this vrt_wait_mode */
  raw_wait raw;   /* else the raw loop's wait */
  int barriers;   /* raw: 1 the runtime's barriers, 0 none, 2 compute-only closing
                   * barrier, 3 the same with the host's read, 4 none and the
                   * semaphore chain, 5 the opening barrier only */
  bool cpu_too;   /* also on CPU devices (spinning there takes a core) */
} strategy;

static const strategy LAT[] = {
    {"vulpy", VRT_WAIT_DEFAULT, 0, true, true},
    {"raw-vulkan", -1, TL_SPIN_BLOCK, true, true},
    {"vulpy spin-block", VRT_WAIT_SPIN_BLOCK, 0, true, false},
    {"vulpy block", VRT_WAIT_BLOCK, 0, true, true},
    {"vulpy spin", VRT_WAIT_SPIN, 0, true, false},
    {"raw-vulkan timeline block", -1, TL_BLOCK, true, true},
    {"raw-vulkan timeline spin", -1, TL_SPIN, true, false},
    {"raw-vulkan fence block", -1, FENCE_BLOCK, true, true},
    {"raw-vulkan fence spin", -1, FENCE_SPIN, true, false},
    {"raw-vulkan timeline spin, no barriers", -1, TL_SPIN, false, false},
    {"raw-vulkan fence spin, no barriers", -1, FENCE_SPIN, false, false},
    {"raw-vulkan timeline spin, closing barrier compute only", -1, TL_SPIN, 2, false},
    {"raw-vulkan timeline spin, closing barrier compute + host", -1, TL_SPIN, 3, false},
    {"raw-vulkan timeline spin, semaphore chain", -1, TL_SPIN, 4, false},
    {"raw-vulkan timeline spin, opening barrier only", -1, TL_SPIN, 5, false},
};
enum { NLAT = sizeof LAT / sizeof LAT[0] };

static bool round_trip(bench *b, const strategy *s, vp_diags *d) {
  if (s->vrt_mode >= 0)
    return vrt_dispatch(b->k, &b->args, vrt_groups(1, 1, 1), d);
  VkCommandBuffer cb = s->barriers == 1                      ? b->one
                       : s->barriers == 0 || s->barriers == 4 ? b->bare
                       : s->barriers == 5                     ? b->open
                                                              : b->light[s->barriers - 2];
  switch (s->raw) {
  case TL_SPIN_BLOCK:
    /* the runtime's default: its spin, or a blocking wait on CPU devices */
    return raw_run(&b->r, cb, b->mode == VRT_WAIT_BLOCK ? 0 : b->spin) == 0;
  case TL_BLOCK: return raw_run(&b->r, cb, 0) == 0;
  case TL_SPIN: return raw_run_c(&b->r, cb, -1, s->barriers == 4) == 0;
  case FENCE_SPIN: return raw_run_fence(&b->r, cb, true) == 0;
  case FENCE_BLOCK: return raw_run_fence(&b->r, cb, false) == 0;
  }
  return false;
}

static int latency(bench *b, vp_diags *d) {
  int rounds = b->quick ? 3 : 10, block = b->quick ? 60 : 250, skip = 10;
  bool cpu = b->info->kind == VRT_DEVICE_CPU;
  double *v[NLAT];
  int n[NLAT] = {0};
  for (int s = 0; s < NLAT; s++)
    v[s] = malloc(sizeof(double) * (size_t)(rounds * block));
  /* Blocks of each strategy, strategies in turn, `rounds` times. */
  for (int round = 0; round < rounds; round++)
    for (int s = 0; s < NLAT; s++) {
      if (cpu && !LAT[s].cpu_too)
        continue;
      vrt_context_set_wait(b->ctx, LAT[s].vrt_mode > 0 ? (vrt_wait_mode)LAT[s].vrt_mode : b->mode,
                           b->spin_us);
      for (int i = 0; i < block; i++) {
        double t0 = now_ns();
        if (!round_trip(b, &LAT[s], d))
          return fail(LAT[s].backend, d);
        double t1 = now_ns();
        if (i >= skip) /* the first calls after a switch pay for it */
          v[s][n[s]++] = (t1 - t0) / 1e3;
      }
    }
  vrt_context_set_wait(b->ctx, b->mode, b->spin_us);
  for (int s = 0; s < NLAT; s++)
    if (n[s])
      emit("tiny dispatch round trip", LAT[s].backend, "us", v[s], n[s], b->dev, 64);
  /* Call by call between the two devices: each call after a switch. */
  int iters = b->quick ? 200 : 1000;
  double *va = malloc(sizeof(double) * (size_t)iters), *vb = malloc(sizeof(double) * (size_t)iters);
  for (int i = 0; i < iters; i++) {
    double t0 = now_ns();
    if (!round_trip(b, &LAT[0], d))
      return fail("vrt_dispatch", d);
    double t1 = now_ns();
    if (!round_trip(b, &LAT[1], d))
      return 1;
    double t2 = now_ns();
    va[i] = (t1 - t0) / 1e3;
    vb[i] = (t2 - t1) / 1e3;
  }
  emit("tiny dispatch round trip, alternating devices call by call", "vulpy", "us", va, iters,
       b->dev, 64);
  emit("tiny dispatch round trip, alternating devices call by call", "raw-vulkan", "us", vb,
       iters, b->dev, 64);
  /* After the device sat idle: a GPU that clocks down (or a driver that
   * parks its threads) shows here, against the rows above. */
  int idle = b->quick ? 5 : 20;
  for (int i = 0; i < idle; i++) {
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    double t0 = now_ns();
    if (!round_trip(b, &LAT[0], d))
      return fail("vrt_dispatch", d);
    va[i] = (now_ns() - t0) / 1e3;
  }
  emit("tiny dispatch round trip after 50 ms idle", "vulpy", "us", va, idle, b->dev, 64);
  free(va);
  free(vb);
  for (int s = 0; s < NLAT; s++)
    free(v[s]);
  return 0;
}

static int batch(bench *b, vp_diags *d) {
  const int BATCH = 1000;
  int batches = b->quick ? 5 : 20;
  double *w = malloc(sizeof(double) * (size_t)batches);
  double *wr = malloc(sizeof(double) * (size_t)batches);
  double *x1 = malloc(sizeof(double) * (size_t)batches);
  double *x2 = malloc(sizeof(double) * (size_t)batches);
  vrt_recording *keep = NULL;
  VkCommandBuffer keep_raw = VK_NULL_HANDLE;
  for (int i = 0; i <= batches; i++) {
    double t0 = now_ns();
    vrt_recording *rec = vrt_record_begin(b->ctx, 0, d);
    for (int j = 0; rec && j < BATCH; j++)
      if (!vrt_record_dispatch(rec, b->k, &b->args, vrt_groups(1, 1, 1), d))
        return fail("vrt_record_dispatch", d);
    if (!rec || !vrt_record_run(rec, d))
      return fail("vrt_record_run", d);
    double t1 = now_ns();
    VkCommandBuffer cb;
    if (raw_record(&b->r, BATCH, &cb) || raw_run(&b->r, cb, b->spin))
      return 1;
    double t2 = now_ns();
    if (i) {
      w[i - 1] = BATCH / ((t1 - t0) / 1e9);
      wr[i - 1] = BATCH / ((t2 - t1) / 1e9);
    }
    if (!keep) {
      keep = rec;
      keep_raw = cb;
    } else {
      vrt_record_destroy(rec);
      vkFreeCommandBuffers(b->r.device, b->r.pool, 1, &cb);
    }
  }
  emit("1000 dispatches, recorded + run", "vulpy", "dispatch/s", w, batches, b->dev, BATCH);
  emit("1000 dispatches, recorded + run", "raw-vulkan", "dispatch/s", wr, batches, b->dev, BATCH);
  for (int i = 0; i <= batches; i++) {
    double t0 = now_ns();
    if (!vrt_record_run(keep, d))
      return fail("vrt_record_run", d);
    double t1 = now_ns();
    if (raw_run(&b->r, keep_raw, b->spin))
      return 1;
    double t2 = now_ns();
    if (i) {
      x1[i - 1] = BATCH / ((t1 - t0) / 1e9);
      x2[i - 1] = BATCH / ((t2 - t1) / 1e9);
    }
  }
  emit("1000 dispatches, replayed", "vulpy", "dispatch/s", x1, batches, b->dev, BATCH);
  emit("1000 dispatches, replayed", "raw-vulkan", "dispatch/s", x2, batches, b->dev, BATCH);
  vrt_record_destroy(keep);
  free(w);
  free(wr);
  free(x1);
  free(x2);
  return 0;
}

/* A fresh host allocation (mmap'ed, never touched) of `bytes`. */
static unsigned char *fresh(uint64_t bytes) { return malloc(bytes); }

/* Transfers of one memory kind: vulpy with its copy threads and with one,
 * raw Vulkan, rounds interleaved; downloads also into fresh memory. The
 * first kind (device) also gives the plain "upload/download 256 MiB" rows
 * the overhead is computed from. */
static int transfers_of(bench *b, vrt_memory_kind kind, unsigned char *host, uint64_t bytes,
                        bool overhead_rows, vp_diags *d) {
  int reps = b->quick ? 3 : 6;
  const char *kn = vrt_memory_kind_name(kind);
  vrt_buffer *big = vrt_buffer_create(b->ctx, bytes, kind, d);
  if (!big)
    return fail("transfer buffer", d);
  raw_xfer rx;
  if (raw_xfer_open(&b->r, b->info, bytes, kind, &rx))
    return 1;
  uint32_t threads = vrt_context_copy_threads(b->ctx);
  double *t = malloc(sizeof(double) * (size_t)reps), *t1 = malloc(sizeof(double) * (size_t)reps);
  double *tr = malloc(sizeof(double) * (size_t)reps), *tf = malloc(sizeof(double) * (size_t)reps);
  double *tf1 = malloc(sizeof(double) * (size_t)reps);
  char cas[128], be[128];
  for (int up = 1; up >= 0; up--) {
    for (int i = 0; i <= reps; i++) { /* the first round is a warm-up */
      double s[5] = {0};
      for (int variant = 0; variant < (up ? 3 : 5); variant++) {
        vrt_context_set_copy_threads(b->ctx, variant == 1 || variant == 4 ? 1 : threads);
        unsigned char *dst = variant >= 3 ? fresh(bytes) : host;
        if (!dst)
          return fail("malloc", NULL);
        double t0 = now_ns();
        bool ok = true;
        if (variant == 2) {
          ok = raw_xfer_once(&b->r, &rx, up, host) == 0;
        } else if (up) {
          /* an upload returns once its copies are queued: count them in */
          ok = vrt_buffer_upload(big, 0, host, bytes, d) && vrt_context_wait_idle(b->ctx, d);
        } else {
          ok = vrt_buffer_download(big, 0, dst, bytes, d);
        }
        double t2 = now_ns();
        if (!ok)
          return fail("transfer", d);
        s[variant] = (double)bytes / (t2 - t0);
        if (dst != host)
          free(dst);
      }
      if (i) {
        t[i - 1] = s[0];
        t1[i - 1] = s[1];
        tr[i - 1] = s[2];
        tf[i - 1] = s[3];
        tf1[i - 1] = s[4];
      }
    }
    vrt_context_set_copy_threads(b->ctx, threads);
    const char *what = up ? "upload" : "download";
    unsigned mib = (unsigned)(bytes >> 20);
    if (overhead_rows) {
      snprintf(cas, sizeof cas, "%s %u MiB", what, mib);
      emit(cas, "vulpy", "GB/s", t, reps, b->dev, (double)bytes);
      emit(cas, "raw-vulkan", "GB/s", tr, reps, b->dev, (double)bytes);
    }
    snprintf(cas, sizeof cas, "%s %u MiB, memory=%s", what, mib, kn);
    snprintf(be, sizeof be, "vulpy (%u copy thread%s)", threads, threads > 1 ? "s" : "");
    emit(cas, be, "GB/s", t, reps, b->dev, (double)bytes);
    if (threads > 1)
      emit(cas, "vulpy (1 copy thread)", "GB/s", t1, reps, b->dev, (double)bytes);
    emit(cas, "raw-vulkan", "GB/s", tr, reps, b->dev, (double)bytes);
    if (!up) {
      snprintf(cas, sizeof cas, "download %u MiB into fresh memory, memory=%s", mib, kn);
      emit(cas, be, "GB/s", tf, reps, b->dev, (double)bytes);
      if (threads > 1)
        emit(cas, "vulpy (1 copy thread)", "GB/s", tf1, reps, b->dev, (double)bytes);
    }
  }
  raw_xfer_close(&b->r, &rx);
  vrt_buffer_destroy(big);
  free(t);
  free(t1);
  free(tr);
  free(tf);
  free(tf1);
  return 0;
}

/* The host's own copy bandwidth: one memcpy by one thread. */
static int host_memcpy(bench *b, unsigned char *host, uint64_t bytes, vp_diags *d) {
  int reps = b->quick ? 3 : 6;
  unsigned char *dst = malloc(bytes);
  if (!dst)
    return fail("malloc", NULL);
  memset(dst, 1, bytes);
  double *t = malloc(sizeof(double) * (size_t)reps);
  for (int i = 0; i <= reps; i++) {
    double t0 = now_ns();
    memcpy(dst, host, bytes);
    double t1 = now_ns();
    if (i)
      t[i - 1] = (double)bytes / (t1 - t0);
  }
  emit("host memcpy 256 MiB", "memcpy (1 thread)", "GB/s", t, reps, b->dev, (double)bytes);
  free(t);
  free(dst);
  (void)d;
  return 0;
}

static int transfers(bench *b, vp_diags *d) {
  const uint64_t BYTES = 256ull << 20;
  unsigned char *host = malloc(BYTES);
  if (!host)
    return fail("malloc 256 MiB", NULL);
  for (uint64_t i = 0; i < BYTES; i += 4096)
    host[i] = (unsigned char)i;
  memset(host, 7, BYTES);
  int rc = host_memcpy(b, host, BYTES, d);
  for (int kind = 0; !rc && kind < VRT_MEMORY_KIND_COUNT; kind++) {
    /* The CPU reads BAR memory through uncached PCIe reads (~50 MB/s on
     * the H200): 16 MiB is enough to see it. */
    uint64_t bytes = kind == VRT_REBAR && b->info->kind == VRT_DEVICE_DGPU ? 16ull << 20 : BYTES;
    rc = transfers_of(b, (vrt_memory_kind)kind, host, bytes, kind == VRT_DEVICE, d);
  }
  free(host);
  return rc;
}

int main(int argc, char **argv) {
  bench b = {0};
  const char *device = NULL, *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      b.quick = true;
    else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      device = argv[++i];
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
  }
  vp_diags d = {0};
  vrt_context_options opt = {.device = device, .validation = 0};
  vrt_env env;
  b.ctx = vrt_env_context_options(&opt, &env, &d) ? vrt_context_create(&opt, &d) : NULL;
  if (!b.ctx)
    return fail("vrt_context_create", &d);
  b.info = vrt_context_device(b.ctx);
  b.dev = b.info->name;
  b.mode = vrt_context_wait_mode(b.ctx, &b.spin_us);
  b.spin = b.spin_us * 1e3;
  vpm_manifest *m = vpm_parse(tiny_manifest, sizeof tiny_manifest - 1, "tiny", &d);
  b.k = m ? vrt_kernel_create(b.ctx, runtime_tiny_spv, sizeof runtime_tiny_spv, m, NULL, &d)
          : NULL;
  vrt_buffer *x = vrt_buffer_create(b.ctx, 256, VRT_DEVICE, &d);
  vrt_buffer *y = vrt_buffer_create(b.ctx, 256, VRT_DEVICE, &d);
  if (!b.k || !x || !y)
    return fail("kernel setup", &d);
  if (raw_open(&b.r, b.info))
    return fail("raw Vulkan setup", NULL);
  uint32_t push[2] = {64, 0};
  vrt_buffer *bufs[2] = {x, y};
  b.args = (vrt_args){bufs, 2, push, 8};
  if (raw_record_b(&b.r, 1, true, &b.one) || raw_record_b(&b.r, 1, false, &b.bare) ||
      raw_record_light(&b.r, false, &b.light[0]) || raw_record_light(&b.r, true, &b.light[1]) ||
      raw_record_open(&b.r, &b.open))
    return 1;
  for (int i = 0; i < 50; i++) /* warm-up */
    if (!vrt_dispatch(b.k, &b.args, vrt_groups(1, 1, 1), &d) || raw_run(&b.r, b.one, b.spin))
      return fail("warm-up", &d);
  int rc = 0;
  if (!only || strstr(only, "latency"))
    rc = latency(&b, &d);
  if (!rc && (!only || strstr(only, "batch")))
    rc = batch(&b, &d);
  if (!rc && (!only || strstr(only, "transfer")))
    rc = transfers(&b, &d);
  raw_close(&b.r);
  vrt_kernel_destroy(b.k);
  vrt_buffer_destroy(x);
  vrt_buffer_destroy(y);
  vpm_free(m);
  vrt_context_destroy(b.ctx);
  vp_diags_free(&d);
  return rc;
}
