/* runtime_bench.c - the runtime's figures, each beside a raw-Vulkan loop doing
 * the same work in the same process run:
 *
 *   latency   one tiny dispatch (1 workgroup of 64), submit + wait, in a loop:
 *             vrt_dispatch vs a prerecorded command buffer resubmitted
 *             (same barriers, same wait: spin then block; and a plain
 *             blocking wait for reference)
 *   batch     1000 tiny dispatches in one submission with a barrier between
 *             each: a vrt recording (recorded + run, and replayed) vs one
 *             command buffer (recorded + run, and replayed)
 *   upload / download   256 MiB to/from a `device` buffer: vrt_buffer_upload
 *             / download vs memcpy through the mapping (host-visible device
 *             memory) or a 256 MiB staging buffer + one copy (otherwise);
 *             rounds alternate between the two
 *
 * Prints one JSON object per line: case, backend, unit, and the samples'
 * median, p10, p90, p99. The raw side uses its own VkInstance and VkDevice
 * (volk's global function pointers) on the device the runtime picked.
 * Runs on any Vulkan device: lavapipe here, NVIDIA on the H200.
 *
 *   runtime_bench [--quick] [--device SELECTOR]
 */
#include "vulpy/runtime.h"

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

/* The runtime's barrier pair, recorded the same way. */
static void raw_barrier(VkCommandBuffer cb, bool start) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = start ? VK_ACCESS_SHADER_READ_BIT |
                                                     VK_ACCESS_SHADER_WRITE_BIT |
                                                     VK_ACCESS_TRANSFER_READ_BIT |
                                                     VK_ACCESS_TRANSFER_WRITE_BIT
                                               : VK_ACCESS_HOST_READ_BIT};
  VkPipelineStageFlags src = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cb, src, start ? src : VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                       NULL);
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

/* Records `count` dispatches (barrier between each) into a new command buffer. */
static int raw_record(raw *r, int count, VkCommandBuffer *out) {
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = r->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VKCHECK(vkAllocateCommandBuffers(r->device, &ai, out));
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VKCHECK(vkBeginCommandBuffer(*out, &bi));
  raw_barrier(*out, true);
  for (int i = 0; i < count; i++) {
    if (i)
      raw_barrier(*out, true);
    raw_dispatch(r, *out);
  }
  raw_barrier(*out, false);
  VKCHECK(vkEndCommandBuffer(*out));
  return 0;
}

/* Submit + wait on the timeline; spin_ns > 0 polls first, like vrt_wait. */
static int raw_run(raw *r, VkCommandBuffer cb, double spin_ns) {
  uint64_t value = ++r->value;
  VkTimelineSemaphoreSubmitInfo ts = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                      .signalSemaphoreValueCount = 1,
                                      .pSignalSemaphoreValues = &value};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ts,
                     .commandBufferCount = 1, .pCommandBuffers = &cb,
                     .signalSemaphoreCount = 1, .pSignalSemaphores = &r->timeline};
  VKCHECK(vkQueueSubmit(r->queue, 1, &si, VK_NULL_HANDLE));
  double start = now_ns();
  uint64_t v = 0;
  while (spin_ns > 0 && now_ns() - start < spin_ns) {
    VKCHECK(vkGetSemaphoreCounterValue(r->device, r->timeline, &v));
    if (v >= value)
      return 0;
  }
  VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                            .semaphoreCount = 1, .pSemaphores = &r->timeline, .pValues = &value};
  VKCHECK(vkWaitSemaphores(r->device, &wi, UINT64_MAX));
  return 0;
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
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = r->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VKCHECK(vkAllocateCommandBuffers(r->device, &ai, cb));
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VKCHECK(vkBeginCommandBuffer(*cb, &bi));
  raw_barrier(*cb, true);
  VkBufferCopy region = {0, 0, bytes};
  vkCmdCopyBuffer(*cb, src, dst, 1, &region);
  raw_barrier(*cb, false);
  VKCHECK(vkEndCommandBuffer(*cb));
  return 0;
}

static int raw_xfer_open(raw *r, const vrt_device_info *info, uint64_t bytes, raw_xfer *x) {
  memset(x, 0, sizeof *x);
  x->bytes = bytes;
  uint32_t dev_type = kind_type(r, info, VRT_DEVICE);
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

int main(int argc, char **argv) {
  bool quick = false;
  const char *device = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      device = argv[++i];
  }
  int iters = quick ? 300 : 3000, batches = quick ? 5 : 20, reps = quick ? 3 : 8;
  const int BATCH = 1000;
  const uint64_t BYTES = 256ull << 20;

  vp_diags d = {0};
  vrt_context *ctx =
      vrt_context_create(&(vrt_context_options){.device = device, .validation = 0}, &d);
  if (!ctx)
    return fail("vrt_context_create", &d);
  const vrt_device_info *info = vrt_context_device(ctx);
  const char *dev = info->name;
  vpm_manifest *m = vpm_parse(tiny_manifest, sizeof tiny_manifest - 1, "tiny", &d);
  vrt_kernel *k = m ? vrt_kernel_create(ctx, runtime_tiny_spv, sizeof runtime_tiny_spv, m,
                                        NULL, &d)
                    : NULL;
  vrt_buffer *x = vrt_buffer_create(ctx, 256, VRT_DEVICE, &d);
  vrt_buffer *y = vrt_buffer_create(ctx, 256, VRT_DEVICE, &d);
  if (!k || !x || !y)
    return fail("kernel setup", &d);
  raw r;
  if (raw_open(&r, info))
    return fail("raw Vulkan setup", NULL);
  /* The raw loop waits the way vrt_wait does by default. */
  double spin = info->kind == VRT_DEVICE_CPU ? 0 : 100e3;
  uint32_t push[2] = {64, 0};
  vrt_buffer *bufs[2] = {x, y};
  vrt_args args = {bufs, 2, push, 8};
  double *v = malloc(sizeof(double) * (size_t)(iters > batches ? iters : batches));

  /* --- latency: alternate blocks of the two loops so drift hits both */
  VkCommandBuffer one;
  if (raw_record(&r, 1, &one))
    return 1;
  double *vr = malloc(sizeof(double) * (size_t)iters), *vb = malloc(sizeof(double) * (size_t)iters);
  for (int i = 0; i < 50; i++) { /* warm-up */
    vrt_dispatch(k, &args, vrt_groups(1, 1, 1), &d);
    raw_run(&r, one, spin);
  }
  for (int i = 0; i < iters; i++) {
    double t0 = now_ns();
    if (!vrt_dispatch(k, &args, vrt_groups(1, 1, 1), &d))
      return fail("vrt_dispatch", &d);
    double t1 = now_ns();
    if (raw_run(&r, one, spin))
      return 1;
    double t2 = now_ns();
    if (raw_run(&r, one, 0))
      return 1;
    double t3 = now_ns();
    v[i] = (t1 - t0) / 1e3;
    vr[i] = (t2 - t1) / 1e3;
    vb[i] = (t3 - t2) / 1e3;
  }
  emit("tiny dispatch round trip", "vulpy", "us", v, iters, dev, 64);
  emit("tiny dispatch round trip", "raw-vulkan", "us", vr, iters, dev, 64);
  if (spin > 0)
    emit("tiny dispatch round trip", "raw-vulkan-blocking", "us", vb, iters, dev, 64);

  /* --- batch: 1000 dispatches, one submission */
  double *w = malloc(sizeof(double) * (size_t)batches);
  double *wr = malloc(sizeof(double) * (size_t)batches);
  double *x1 = malloc(sizeof(double) * (size_t)batches);
  double *x2 = malloc(sizeof(double) * (size_t)batches);
  vrt_recording *keep = NULL;
  VkCommandBuffer keep_raw = VK_NULL_HANDLE;
  for (int b = 0; b <= batches; b++) {
    double t0 = now_ns();
    vrt_recording *rec = vrt_record_begin(ctx, 0, &d);
    for (int i = 0; rec && i < BATCH; i++)
      if (!vrt_record_dispatch(rec, k, &args, vrt_groups(1, 1, 1), &d))
        return fail("vrt_record_dispatch", &d);
    if (!rec || !vrt_record_run(rec, &d))
      return fail("vrt_record_run", &d);
    double t1 = now_ns();
    VkCommandBuffer cb;
    if (raw_record(&r, BATCH, &cb) || raw_run(&r, cb, spin))
      return 1;
    double t2 = now_ns();
    if (b) {
      w[b - 1] = BATCH / ((t1 - t0) / 1e9);
      wr[b - 1] = BATCH / ((t2 - t1) / 1e9);
    }
    if (!keep) {
      keep = rec;
      keep_raw = cb;
    } else {
      vrt_record_destroy(rec);
      vkFreeCommandBuffers(r.device, r.pool, 1, &cb);
    }
  }
  emit("1000 dispatches, recorded + run", "vulpy", "dispatch/s", w, batches, dev, BATCH);
  emit("1000 dispatches, recorded + run", "raw-vulkan", "dispatch/s", wr, batches, dev, BATCH);
  for (int b = 0; b <= batches; b++) {
    double t0 = now_ns();
    if (!vrt_record_run(keep, &d))
      return fail("vrt_record_run", &d);
    double t1 = now_ns();
    if (raw_run(&r, keep_raw, spin))
      return 1;
    double t2 = now_ns();
    if (b) {
      x1[b - 1] = BATCH / ((t1 - t0) / 1e9);
      x2[b - 1] = BATCH / ((t2 - t1) / 1e9);
    }
  }
  emit("1000 dispatches, replayed", "vulpy", "dispatch/s", x1, batches, dev, BATCH);
  emit("1000 dispatches, replayed", "raw-vulkan", "dispatch/s", x2, batches, dev, BATCH);
  vrt_record_destroy(keep);

  /* --- 256 MiB upload / download */
  unsigned char *host = malloc(BYTES);
  if (!host)
    return fail("malloc 256 MiB", NULL);
  for (uint64_t i = 0; i < BYTES; i += 4096)
    host[i] = (unsigned char)i;
  vrt_buffer *big = vrt_buffer_create(ctx, BYTES, VRT_DEVICE, &d);
  if (!big)
    return fail("256 MiB buffer", &d);
  raw_xfer rx;
  if (raw_xfer_open(&r, info, BYTES, &rx))
    return 1;
  double *t = malloc(sizeof(double) * (size_t)reps), *tr = malloc(sizeof(double) * (size_t)reps);
  for (int up = 1; up >= 0; up--) {
    for (int i = 0; i <= reps; i++) { /* the first round is a warm-up */
      double t0 = now_ns();
      bool ok = up ? vrt_buffer_upload(big, 0, host, BYTES, &d)
                   : vrt_buffer_download(big, 0, host, BYTES, &d);
      /* an upload returns once its copies are queued: count them in */
      if (ok && up)
        ok = vrt_context_wait_idle(ctx, &d);
      if (!ok)
        return fail("transfer", &d);
      double t1 = now_ns();
      if (raw_xfer_once(&r, &rx, up, host))
        return 1;
      double t2 = now_ns();
      if (i) {
        t[i - 1] = (double)BYTES / (t1 - t0);
        tr[i - 1] = (double)BYTES / (t2 - t1);
      }
    }
    emit(up ? "upload 256 MiB" : "download 256 MiB", "vulpy", "GB/s", t, reps, dev, (double)BYTES);
    emit(up ? "upload 256 MiB" : "download 256 MiB", "raw-vulkan", "GB/s", tr, reps, dev,
         (double)BYTES);
  }
  raw_xfer_close(&r, &rx);
  vrt_buffer_destroy(big);
  free(host);
  free(t);
  free(tr);
  free(v);
  free(vr);
  free(vb);
  free(w);
  free(wr);
  free(x1);
  free(x2);
  raw_close(&r);
  vrt_kernel_destroy(k);
  vrt_buffer_destroy(x);
  vrt_buffer_destroy(y);
  vpm_free(m);
  vrt_context_destroy(ctx);
  vp_diags_free(&d);
  return 0;
}
