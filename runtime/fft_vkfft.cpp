/* fft_vkfft.cpp - the glue to VkFFT (Debian's libvkfft-dev, header only).
 *
 * VkFFT calls Vulkan by its global names (vkCmdDispatch(...)); the runtime
 * reaches Vulkan only through volk's per-context tables (no libvulkan is
 * linked, and every context has its own instance). So each name VkFFT uses
 * is a macro for the current context's table entry: `cur`, a thread-local
 * set for the duration of one call under the context lock. C++ because
 * VkFFT 1.2's header is not C that GCC 12 takes (`VkCommandBuffer c = {}`). VkFFT's
 * printf calls (shader dumps on a glslang error) become no-ops: library code
 * never prints; the error comes back as VkFFT's result code.
 *
 * glslang: VkFFT compiles its generated GLSL with glslang's C interface,
 * the same static glslang the compiler links. The process is initialized
 * once here (glslang counts its clients, so the compiler's own
 * initialization is unaffected) and VkFFT is told so, which keeps it from
 * ever finalizing glslang under the compiler.
 *
 * This file is compiled without warnings (-w): they would be VkFFT's.
 */
#include "fft_internal.h"

#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static thread_local const vrt__vkfft_env *cur;

#define D(f) cur->vk->f
#define vkAllocateCommandBuffers D(vkAllocateCommandBuffers)
#define vkAllocateDescriptorSets D(vkAllocateDescriptorSets)
#define vkAllocateMemory D(vkAllocateMemory)
#define vkBeginCommandBuffer D(vkBeginCommandBuffer)
#define vkBindBufferMemory D(vkBindBufferMemory)
#define vkCmdBindDescriptorSets D(vkCmdBindDescriptorSets)
#define vkCmdBindPipeline D(vkCmdBindPipeline)
#define vkCmdCopyBuffer D(vkCmdCopyBuffer)
#define vkCmdDispatch D(vkCmdDispatch)
#define vkCmdPipelineBarrier D(vkCmdPipelineBarrier)
#define vkCmdPushConstants D(vkCmdPushConstants)
#define vkCreateBuffer D(vkCreateBuffer)
#define vkCreateComputePipelines D(vkCreateComputePipelines)
#define vkCreateDescriptorPool D(vkCreateDescriptorPool)
#define vkCreateDescriptorSetLayout D(vkCreateDescriptorSetLayout)
#define vkCreatePipelineLayout D(vkCreatePipelineLayout)
#define vkCreateShaderModule D(vkCreateShaderModule)
#define vkDestroyBuffer D(vkDestroyBuffer)
#define vkDestroyDescriptorPool D(vkDestroyDescriptorPool)
#define vkDestroyDescriptorSetLayout D(vkDestroyDescriptorSetLayout)
#define vkDestroyPipeline D(vkDestroyPipeline)
#define vkDestroyPipelineLayout D(vkDestroyPipelineLayout)
#define vkDestroyShaderModule D(vkDestroyShaderModule)
#define vkEndCommandBuffer D(vkEndCommandBuffer)
#define vkFreeCommandBuffers D(vkFreeCommandBuffers)
#define vkFreeMemory D(vkFreeMemory)
#define vkGetBufferMemoryRequirements D(vkGetBufferMemoryRequirements)
#define vkMapMemory D(vkMapMemory)
#define vkQueueSubmit D(vkQueueSubmit)
#define vkResetFences D(vkResetFences)
#define vkUnmapMemory D(vkUnmapMemory)
#define vkUpdateDescriptorSets D(vkUpdateDescriptorSets)
#define vkWaitForFences D(vkWaitForFences)
#define vkGetPhysicalDeviceMemoryProperties cur->get_memory_properties
#define vkGetPhysicalDeviceProperties cur->get_properties
#define printf(...) ((void)0)

/* VkFFT 1.2.26 initializes glslang's resource table field by field with
 * glslang 11's layout (93 ints, then the limits); Debian 12's glslang 12
 * added ten mesh-shader fields before the limits, so that initializer no
 * longer fits the type. It was meant as glslang's default table: the
 * name is bound to this stand-in, which takes the old initializer and whose
 * address is glslang's own default table (glslang_default_resource). */
#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
struct vrt__vkfft_resource {
  int old[93];
  glslang_limits_t limits;
  const glslang_resource_t *operator&() const { return glslang_default_resource(); }
};
#define glslang_resource_t vrt__vkfft_resource

#define VKFFT_BACKEND 0
#include <vkFFT.h>
#undef glslang_resource_t

struct vrt__vkfft {
  VkFFTApplication app;
  /* VkFFT sees a new buffer when the pointer to it changes (it compares
   * pointers): the buffer bound now is slot[cur]; another goes in the
   * other slot. */
  VkBuffer slot[2];
  uint32_t cur;
  /* out of place: the input buffer, likewise (VkFFT's inputBuffer) */
  bool oop;
  VkBuffer islot[2];
  uint32_t icur;
  /* Not appended yet. The descriptor sets initializeVkFFT wrote for a
   * Bluestein axis name placeholders (see `placeholders` below; without
   * them VK_NULL_HANDLE, and the forward transform read zeros): the first
   * append always takes the other slot, which rewrites every set. */
  bool fresh;
  uint64_t bytes;
  VkFence fence;
  VkPhysicalDevice pdev;
  VkDevice device;
  VkQueue queue;
  VkCommandPool pool;
};

static pthread_once_t glslang_once = PTHREAD_ONCE_INIT;
static int glslang_ok;
static void glslang_init(void) { glslang_ok = glslang_initialize_process(); }

/* VkFFT 1.2.26 writes the descriptor sets of a Bluestein axis while it
 * plans it, before it makes the buffers those sets name (the phase vectors
 * of VkFFTGeneratePhaseVectors): the writes name VK_NULL_HANDLE with range
 * 0, which the validation layer rejects (and the forward transform read
 * zeros until the sets were written again: see `fresh`). So the app's
 * Bluestein buffer fields start out naming placeholders - small buffers
 * over one allocation - which VkFFT replaces with its own buffers as it
 * makes them; the sets are written again before first use. Afterwards the
 * placeholders are destroyed, and a field still naming one is cleared so
 * that deleteVkFFT never destroys it. When initializeVkFFT fails it has
 * already destroyed (and cleared) the Bluestein fields it held: only the
 * placeholders still named are destroyed here. */
enum { PH = 9, PH_BYTES = 256 };
typedef struct placeholders {
  VkBuffer buf[PH];
  VkDeviceMemory mem;
} placeholders;

static VkBuffer *ph_field(VkFFTApplication *app, int i) {
  int axis = i / 3;
  switch (i % 3) {
  case 0:
    return &app->bufferBluestein[axis];
  case 1:
    return &app->bufferBluesteinFFT[axis];
  default:
    return &app->bufferBluesteinIFFT[axis];
  }
}

static bool placeholders_make(placeholders *ph, VkFFTApplication *app) {
  memset(ph, 0, sizeof *ph);
  VkDevice dev = cur->device;
  VkBufferCreateInfo bi;
  memset(&bi, 0, sizeof bi);
  bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bi.size = PH_BYTES;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  for (int i = 0; i < PH; i++)
    if (vkCreateBuffer(dev, &bi, NULL, &ph->buf[i]) != VK_SUCCESS)
      goto fail;
  {
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, ph->buf[0], &req);
    VkPhysicalDeviceMemoryProperties mp;
    cur->get_memory_properties(cur->pdev, &mp);
    uint32_t type = UINT32_MAX;
    for (uint32_t t = 0; t < mp.memoryTypeCount && type == UINT32_MAX; t++)
      if (req.memoryTypeBits & (1u << t))
        type = t;
    VkMemoryAllocateInfo ai;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    if (type == UINT32_MAX || vkAllocateMemory(dev, &ai, NULL, &ph->mem) != VK_SUCCESS)
      goto fail;
    for (int i = 0; i < PH; i++) /* aliased: nothing reads them */
      if (vkBindBufferMemory(dev, ph->buf[i], ph->mem, 0) != VK_SUCCESS)
        goto fail;
  }
  for (int i = 0; i < PH; i++) {
    *ph_field(app, i) = ph->buf[i];
    app->bufferBluesteinSize[i / 3] = PH_BYTES;
  }
  return true;
fail:
  for (int i = 0; i < PH; i++)
    if (ph->buf[i])
      vkDestroyBuffer(dev, ph->buf[i], NULL);
  if (ph->mem)
    vkFreeMemory(dev, ph->mem, NULL);
  return false;
}

static void placeholders_drop(placeholders *ph, VkFFTApplication *app, bool ok) {
  VkDevice dev = cur->device;
  for (int i = 0; i < PH; i++) {
    VkBuffer *f = ph_field(app, i);
    bool named = *f == ph->buf[i];
    if (named)
      *f = VK_NULL_HANDLE;
    if (ok || named)
      vkDestroyBuffer(dev, ph->buf[i], NULL);
  }
  for (int i = 0; i < 3; i++)
    if (app->bufferBluesteinSize[i] == PH_BYTES && !app->useBluesteinFFT[i])
      app->bufferBluesteinSize[i] = 0;
  vkFreeMemory(dev, ph->mem, NULL);
}

static void fail(char *why, size_t n, const char *what, int r) {
  snprintf(why, n, "VkFFT %s failed (VkFFTResult %d)", what, r);
}

vrt__vkfft *vrt__vkfft_make(const vrt__vkfft_env *env, uint32_t ndim, const uint64_t size[3],
                            uint64_t batch, bool dbl, VkBuffer in, VkBuffer buf, uint64_t bytes,
                            VkFence fence, char *why, size_t n) {
  pthread_once(&glslang_once, glslang_init);
  if (!glslang_ok) {
    snprintf(why, n, "glslang_initialize_process failed");
    return NULL;
  }
  vrt__vkfft *a = (vrt__vkfft *)calloc(1, sizeof *a);
  if (!a) {
    snprintf(why, n, "out of host memory");
    return NULL;
  }
  /* VkFFT keeps pointers to these: they live in the plan. */
  a->pdev = env->pdev;
  a->device = env->device;
  a->queue = env->queue;
  a->pool = env->pool;
  a->fence = fence;
  a->slot[0] = buf;
  a->fresh = true;
  a->bytes = bytes;
  VkFFTConfiguration c;
  memset(&c, 0, sizeof c);
  c.FFTdim = ndim;
  for (uint32_t i = 0; i < 3; i++)
    c.size[i] = i < ndim ? size[i] : 1;
  c.numberBatches = batch;
  c.doublePrecision = dbl;
  c.physicalDevice = &a->pdev;
  c.device = &a->device;
  c.queue = &a->queue;
  c.commandPool = &a->pool;
  c.fence = &a->fence;
  c.isCompilerInitialized = 1;
  c.buffer = &a->slot[0];
  c.bufferSize = &a->bytes;
  if (in) { /* out of place: read `in`, write `buf` (both directions) */
    a->oop = true;
    a->islot[0] = in;
    c.isInputFormatted = 1;
    c.inputBuffer = &a->islot[0];
    c.inputBufferSize = &a->bytes;
  }
  cur = env;
  placeholders ph;
  if (!placeholders_make(&ph, &a->app)) {
    cur = NULL;
    snprintf(why, n, "out of device memory for VkFFT's placeholder buffers");
    free(a);
    return NULL;
  }
  /* VkFFT sets the process locale to "C" while it prints its shaders and
   * then restores the string setlocale(LC_ALL, NULL) returned, which its
   * own setlocale(LC_ALL, "C") has overwritten: the process stayed in the
   * "C" locale (Python then read files as ASCII). Keep a copy, restore it. */
  const char *now = setlocale(LC_ALL, NULL);
  char *saved = now ? strdup(now) : NULL;
  VkFFTResult r = initializeVkFFT(&a->app, c);
  if (saved) {
    setlocale(LC_ALL, saved);
    free(saved);
  }
  placeholders_drop(&ph, &a->app, r == VKFFT_SUCCESS);
  cur = NULL;
  if (r != VKFFT_SUCCESS) {
    fail(why, n, "plan creation", r);
    free(a);
    return NULL;
  }
  return a;
}

bool vrt__vkfft_append(const vrt__vkfft_env *env, vrt__vkfft *a, VkCommandBuffer cb,
                       VkBuffer in, VkBuffer buf, bool inverse, char *why, size_t n) {
  if (a->oop && (a->islot[a->icur] != in || a->fresh)) {
    a->icur ^= 1;
    a->islot[a->icur] = in;
  }
  if (a->slot[a->cur] != buf || a->fresh) {
    a->fresh = false;
    a->cur ^= 1;
    a->slot[a->cur] = buf;
  }
  VkFFTLaunchParams p;
  memset(&p, 0, sizeof p);
  p.commandBuffer = &cb;
  p.buffer = &a->slot[a->cur];
  if (a->oop)
    p.inputBuffer = &a->islot[a->icur];
  cur = env;
  VkFFTResult r = VkFFTAppend(&a->app, inverse ? 1 : -1, &p);
  cur = NULL;
  if (r != VKFFT_SUCCESS) {
    fail(why, n, "append", r);
    return false;
  }
  return true;
}

bool vrt__vkfft_bound(const vrt__vkfft *a, VkBuffer in, VkBuffer buf) {
  return a->slot[a->cur] == buf && (!a->oop || a->islot[a->icur] == in);
}

void vrt__vkfft_free(const vrt__vkfft_env *env, vrt__vkfft *a) {
  if (!a)
    return;
  cur = env;
  deleteVkFFT(&a->app);
  cur = NULL;
  free(a);
}
