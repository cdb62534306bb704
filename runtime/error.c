/* error.c - VkResult checks, lost devices, fault injection, validation messages.
 *
 * A failing call becomes one diagnostic: "vkQueueSubmit failed:
 * VK_ERROR_DEVICE_LOST (device 'NVIDIA H200')" plus a hint for the results a
 * user can act on. VK_ERROR_DEVICE_LOST also marks the context lost, and every
 * later call of that context fails at once with the first failure's name,
 * while other contexts carry on.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

const char *vrt__result_name(VkResult r) {
  switch (r) {
#define R(x) case x: return #x;
    R(VK_SUCCESS) R(VK_NOT_READY) R(VK_TIMEOUT) R(VK_EVENT_SET) R(VK_EVENT_RESET)
    R(VK_INCOMPLETE) R(VK_ERROR_OUT_OF_HOST_MEMORY) R(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    R(VK_ERROR_INITIALIZATION_FAILED) R(VK_ERROR_DEVICE_LOST) R(VK_ERROR_MEMORY_MAP_FAILED)
    R(VK_ERROR_LAYER_NOT_PRESENT) R(VK_ERROR_EXTENSION_NOT_PRESENT)
    R(VK_ERROR_FEATURE_NOT_PRESENT) R(VK_ERROR_INCOMPATIBLE_DRIVER) R(VK_ERROR_TOO_MANY_OBJECTS)
    R(VK_ERROR_FORMAT_NOT_SUPPORTED) R(VK_ERROR_FRAGMENTED_POOL) R(VK_ERROR_UNKNOWN)
    R(VK_ERROR_OUT_OF_POOL_MEMORY) R(VK_ERROR_INVALID_EXTERNAL_HANDLE) R(VK_ERROR_FRAGMENTATION)
    R(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS) R(VK_PIPELINE_COMPILE_REQUIRED)
    R(VK_ERROR_INVALID_SHADER_NV) R(VK_ERROR_NOT_PERMITTED_KHR)
#undef R
  default: return "VK_ERROR_(unknown)";
  }
}

VkResult vrt__fault(vrt_context *ctx, const char *call) {
  if (!ctx || !ctx->fault_call[0] || strcmp(ctx->fault_call, call) != 0)
    return VK_SUCCESS;
  if (ctx->fault_times != UINT32_MAX && --ctx->fault_times == 0)
    ctx->fault_call[0] = 0;
  return ctx->fault_result;
}

void vrt_context_inject_faults(vrt_context *ctx, const char *call, int vk_result, uint32_t times) {
  if (!call || !times) {
    ctx->fault_call[0] = 0;
    return;
  }
  snprintf(ctx->fault_call, sizeof ctx->fault_call, "%s", call);
  ctx->fault_result = (VkResult)vk_result;
  ctx->fault_times = times;
}

void vrt_context_inject_fault(vrt_context *ctx, const char *call, int vk_result) {
  vrt_context_inject_faults(ctx, call, vk_result, 1);
}

static const char *device_name(vrt_context *ctx) { return ctx ? ctx->info.name : "?"; }

void vrt__error(vrt_context *ctx, vp_diags *d, const char *fmt, ...) {
  (void)ctx;
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(d, VP_ERROR, (vp_loc){0}, fmt, ap);
  va_end(ap);
}

bool vrt__check(vrt_context *ctx, VkResult r, const char *call, vp_diags *d) {
  if (r >= 0)
    return true;
  vp_error(d, (vp_loc){0}, "%s failed: %s (device '%s')", call, vrt__result_name(r),
           device_name(ctx));
  switch (r) {
  case VK_ERROR_DEVICE_LOST:
    if (ctx && !atomic_exchange(&ctx->lost, true))
      snprintf(ctx->lost_call, sizeof ctx->lost_call, "%s", call);
    vp_diag_hint(d, "the device was lost (a driver reset, a hang or a kernel fault); this "
                    "context cannot run more work: destroy it and create a new one");
    break;
  case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    vp_diag_hint(d, "the device is out of memory: free buffers or use smaller ones");
    break;
  case VK_ERROR_OUT_OF_HOST_MEMORY:
    vp_diag_hint(d, "the host is out of memory");
    break;
  case VK_ERROR_INCOMPATIBLE_DRIVER:
    vp_diag_hint(d, "no Vulkan driver was found: install mesa-vulkan-drivers (CPU and most "
                    "integrated GPUs) or your GPU vendor's driver");
    break;
  default:
    break;
  }
  return false;
}

bool vrt__alive(vrt_context *ctx, vp_diags *d) {
  if (!atomic_load_explicit(&ctx->lost, memory_order_relaxed) &&
      ctx->fork_gen == atomic_load_explicit(&vrt__fork_gen, memory_order_relaxed))
    return true;
  if (vrt_context_forked(ctx)) {
    vp_error(d, (vp_loc){0},
             "this context (device '%s') was created by the parent of this process: after "
             "fork() a child cannot use its parent's Vulkan device",
             ctx->info.name);
    vp_diag_hint(d, "create a new context in the child (vulpy does for the default one), or "
                    "start workers with the 'spawn' method (multiprocessing.get_context('spawn'))");
    return false;
  }
  vp_error(d, (vp_loc){0}, "device '%s' was lost (%s returned VK_ERROR_DEVICE_LOST)",
           ctx->info.name, ctx->lost_call);
  vp_diag_hint(d, "destroy this context and create a new one; other contexts are not affected");
  return false;
}

bool vrt_context_lost(const vrt_context *ctx) { return atomic_load(&ctx->lost); }

uint32_t vrt_context_take_validation(vrt_context *ctx, vp_diags *d) {
  vrt_messages *m = ctx->inst.messages;
  if (!m)
    return 0;
  pthread_mutex_lock(&m->lock);
  uint32_t n = m->list.count;
  vp_diags_move(d, &m->list);
  pthread_mutex_unlock(&m->lock);
  return n;
}

uint64_t vrt__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
