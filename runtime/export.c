/* export.c - device memory that another API imports (issue 18).
 *
 * The DLPack path to CUDA (docs/multidevice.md, "CUDA external memory")
 * needs VulPy's bytes in memory CUDA can map: a dedicated allocation made
 * with VkExportMemoryAllocateInfo (opaque fd), whose fd CUDA imports with
 * cuImportExternalMemory and maps with cuExternalMemoryGetMappedBuffer.
 * Such a buffer is made here, outside the pool and the sub-allocator (an
 * export hands out the whole VkDeviceMemory), and zeroed like any new
 * device buffer; it is freed like an imported one (its own memory).
 */
#include "internal.h"

#include <stdlib.h>

bool vrt_context_can_export_memory(const vrt_context *ctx) { return ctx->export_mem; }

vrt_buffer *vrt_buffer_create_exportable(vrt_context *ctx, uint64_t size, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return NULL;
  if (!ctx->export_mem) {
    vrt__error(ctx, d, "device '%s' cannot export memory: it lacks VK_KHR_external_memory_fd",
               ctx->info.name);
    return NULL;
  }
  if (!size || size > ctx->info.max_buffer_size) {
    vrt__error(ctx, d, "an exportable buffer of %llu bytes: the size must be 1 .. %llu",
               (unsigned long long)size, (unsigned long long)ctx->info.max_buffer_size);
    return NULL;
  }
  vrt_buffer *b = calloc(1, sizeof *b);
  if (!b) {
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  uint64_t vk_size = (size + 3) / 4 * 4;
  VkExternalMemoryBufferCreateInfo ext = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
      .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  uint32_t fams[2]; /* streams: see stream.c, "sharing" */
  VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .pNext = &ext,
      .size = vk_size,
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  pthread_mutex_lock(&ctx->lock);
  b->conc = vrt__sharing(ctx, &bi, fams);
  bool ok = VRT_VK(ctx, d, vkCreateBuffer, ctx->device, &bi, NULL, &b->buffer);
  VkMemoryRequirements req = {0};
  uint32_t type = UINT32_MAX;
  if (ok) {
    ctx->vk.vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
    uint32_t types[VRT_MAX_MEMORY_TYPES], tiers[VRT_MAX_MEMORY_TYPES];
    if (vrt_memory_candidates(&ctx->info.memory, ctx->info.uma, VRT_DEVICE, req.memoryTypeBits,
                              types, tiers)) {
      type = types[0];
      b->fallback = tiers[0];
    } else {
      vrt__error(ctx, d, "device '%s' offers no memory type for an exportable buffer",
                 ctx->info.name);
      ok = false;
    }
  }
  if (ok) {
    VkMemoryDedicatedAllocateInfo ded = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
        .buffer = b->buffer,
    };
    VkExportMemoryAllocateInfo ex = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
        .pNext = &ded,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &ex,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    ok = VRT_VK(ctx, d, vkAllocateMemory, ctx->device, &ai, NULL, &b->own) &&
         VRT_VK(ctx, d, vkBindBufferMemory, ctx->device, b->buffer, b->own, 0);
  }
  if (ok) {
    b->ctx = ctx;
    b->id = ++ctx->next_id;
    b->size = size;
    b->vk_size = vk_size;
    b->cls = vk_size;
    b->kind = VRT_DEVICE;
    b->alloc.size = req.size; /* what an importer maps (export_fd) */
    b->mem_flags = ctx->info.memory.types[type].flags;
    VRT_LINK(ctx->buffers, b);
    ok = vrt__buffer_zero(ctx, b, 0, false, d);
    if (!ok) {
      vrt__buffer_release(b);
      b = NULL;
    }
  } else {
    if (b->own)
      ctx->vk.vkFreeMemory(ctx->device, b->own, NULL);
    if (b->buffer)
      ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, NULL);
    free(b);
    b = NULL;
  }
  pthread_mutex_unlock(&ctx->lock);
  return b;
}

int vrt_buffer_export_fd(vrt_buffer *b, uint64_t *alloc_size, vp_diags *d) {
  vrt_context *ctx = b->ctx;
  if (!b->own || b->imported || !ctx->export_mem) {
    vrt__error(ctx, d, "this buffer's memory is not exportable: make it with "
                       "vrt_buffer_create_exportable");
    return -1;
  }
  VkMemoryGetFdInfoKHR gi = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
      .memory = b->own,
      .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  int fd = -1;
  if (!VRT_VK(ctx, d, vkGetMemoryFdKHR, ctx->device, &gi, &fd))
    return -1;
  if (alloc_size)
    *alloc_size = b->alloc.size;
  return fd;
}
