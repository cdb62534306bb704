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
  /* Not appended yet. VkFFT 1.2.26's descriptor sets as written by
   * initializeVkFFT give zeros for a forward Bluestein transform (lengths
   * with a prime factor > 13) until they are written again; so the first
   * append always takes the other slot, which rewrites them. */
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

static void fail(char *why, size_t n, const char *what, int r) {
  snprintf(why, n, "VkFFT %s failed (VkFFTResult %d)", what, r);
}

vrt__vkfft *vrt__vkfft_make(const vrt__vkfft_env *env, uint32_t ndim, const uint64_t size[3],
                            uint64_t batch, bool dbl, VkBuffer buf, uint64_t bytes,
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
  cur = env;
  VkFFTResult r = initializeVkFFT(&a->app, c);
  cur = NULL;
  if (r != VKFFT_SUCCESS) {
    fail(why, n, "plan creation", r);
    free(a);
    return NULL;
  }
  return a;
}

bool vrt__vkfft_append(const vrt__vkfft_env *env, vrt__vkfft *a, VkCommandBuffer cb,
                       VkBuffer buf, bool inverse, char *why, size_t n) {
  if (a->slot[a->cur] != buf || a->fresh) {
    a->fresh = false;
    a->cur ^= 1;
    a->slot[a->cur] = buf;
  }
  VkFFTLaunchParams p;
  memset(&p, 0, sizeof p);
  p.commandBuffer = &cb;
  p.buffer = &a->slot[a->cur];
  cur = env;
  VkFFTResult r = VkFFTAppend(&a->app, inverse ? 1 : -1, &p);
  cur = NULL;
  if (r != VKFFT_SUCCESS) {
    fail(why, n, "append", r);
    return false;
  }
  return true;
}

VkBuffer vrt__vkfft_bound(const vrt__vkfft *a) { return a->slot[a->cur]; }

void vrt__vkfft_free(const vrt__vkfft_env *env, vrt__vkfft *a) {
  if (!a)
    return;
  cur = env;
  deleteVkFFT(&a->app);
  cur = NULL;
  free(a);
}
