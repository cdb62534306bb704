/* fft_internal.h - between fft.c (the plan cache, submissions) and
 * fft_vkfft.cpp (the only file that includes VkFFT's header). The glue is
 * C++ because VkFFT 1.2's header is not valid C for GCC 12 (it initializes
 * handles with `= {}`), so this header stays plain C with C linkage: no
 * internal.h (C11 atomics), only volk's types. */
#ifndef VRT_FFT_INTERNAL_H
#define VRT_FFT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <volk.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What VkFFT needs of a context: its handles and function tables. */
typedef struct vrt__vkfft_env {
  const struct VolkDeviceTable *vk;
  PFN_vkGetPhysicalDeviceProperties get_properties;
  PFN_vkGetPhysicalDeviceMemoryProperties get_memory_properties;
  VkPhysicalDevice pdev;
  VkDevice device;
  VkQueue queue;
  VkCommandPool pool;
} vrt__vkfft_env;

typedef struct vrt__vkfft vrt__vkfft;

/* A VkFFT application for `ndim` axes of sizes size[0..ndim) (size[0] the
 * contiguous one), `batch` of them, over buffers of `bytes` bytes: in
 * place in `buf` (in VK_NULL_HANDLE), or out of place from `in` into
 * `buf` (the context lock held: VkFFT uploads its tables on the context's
 * queue and waits on `fence`). NULL + a message in `why` on failure. */
vrt__vkfft *vrt__vkfft_make(const vrt__vkfft_env *env, uint32_t ndim, const uint64_t size[3],
                            uint64_t batch, bool dbl, VkBuffer in, VkBuffer buf, uint64_t bytes,
                            VkFence fence, char *why, size_t n);
/* Records the transform into cb: of `buf` in place, or from `in` into
 * `buf` for an out-of-place application. */
bool vrt__vkfft_append(const vrt__vkfft_env *env, vrt__vkfft *a, VkCommandBuffer cb,
                       VkBuffer in, VkBuffer buf, bool inverse, char *why, size_t n);
/* Whether the application's descriptor sets hold these buffers now:
 * recording others rewrites them, which must wait for the last
 * submission. */
bool vrt__vkfft_bound(const vrt__vkfft *a, VkBuffer in, VkBuffer buf);
/* Frees the application (its last submission has completed). */
void vrt__vkfft_free(const vrt__vkfft_env *env, vrt__vkfft *a);

#ifdef __cplusplus
}
#endif
#endif
