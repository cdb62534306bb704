/* hostimport.c - host memory as a Vulkan buffer (VK_EXT_external_memory_host).
 *
 * The caller's pages become the buffer's memory: no copy, and the same pages
 * can be imported into several contexts (several devices) at once, so a GPU
 * write is seen by the host and by the other devices through the same DRAM.
 * The pointer and size must be multiples of the device's
 * minImportedHostPointerAlignment (4 KiB on the drivers we know);
 * vrt_host_alloc hands out memory aligned to 64 KiB, which covers them.
 * Imported memory is the caller's: it is not zeroed.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { HOST_ALIGN = 64 << 10 };

void *vrt_host_alloc(size_t size, size_t *alloc_size) {
  size_t n = size ? (size + HOST_ALIGN - 1) / HOST_ALIGN * HOST_ALIGN : HOST_ALIGN;
  /* Over-map by one alignment unit and trim, so the start is 64 KiB-aligned. */
  size_t total = n + HOST_ALIGN;
  char *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  uintptr_t start = ((uintptr_t)p + HOST_ALIGN - 1) / HOST_ALIGN * HOST_ALIGN;
  size_t head = start - (uintptr_t)p, tail = total - head - n;
  if (head)
    munmap(p, head);
  if (tail)
    munmap((char *)start + n, tail);
  if (alloc_size)
    *alloc_size = n;
  return (void *)start;
}

void vrt_host_free(void *ptr, size_t alloc_size) {
  if (ptr)
    munmap(ptr, alloc_size);
}

vrt_buffer *vrt_buffer_import_host(vrt_context *ctx, void *ptr, uint64_t size, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return NULL;
  if (!ctx->external_host) {
    vrt__error(ctx, d, "device '%s' cannot import host memory: it lacks "
                       "VK_EXT_external_memory_host", ctx->info.name);
    return NULL;
  }
  uint64_t align = ctx->info.min_imported_host_pointer_alignment;
  if (!ptr || !size || (align && ((uintptr_t)ptr % align || size % align))) {
    vrt__error(ctx, d,
               "cannot import host memory at %p (%llu bytes): the pointer and the size must "
               "be non-zero multiples of %llu bytes on device '%s'",
               ptr, (unsigned long long)size, (unsigned long long)align, ctx->info.name);
    vp_diag_hint(d, "allocate it with vrt_host_alloc (64 KiB-aligned pages)");
    return NULL;
  }
  vrt_buffer *b = calloc(1, sizeof *b);
  if (!b) {
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  const VkExternalMemoryHandleTypeFlagBits handle =
      VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  VkMemoryHostPointerPropertiesEXT hp = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  VkExternalMemoryBufferCreateInfo ext = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
      .handleTypes = handle,
  };
  VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .pNext = &ext,
      .size = size,
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  pthread_mutex_lock(&ctx->lock);
  bool ok = VRT_VK(ctx, d, vkGetMemoryHostPointerPropertiesEXT, ctx->device, handle, ptr, &hp) &&
            VRT_VK(ctx, d, vkCreateBuffer, ctx->device, &bi, NULL, &b->buffer);
  uint32_t type = UINT32_MAX;
  if (ok) {
    VkMemoryRequirements req;
    ctx->vk.vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
    uint32_t types[VRT_MAX_MEMORY_TYPES], tiers[VRT_MAX_MEMORY_TYPES];
    uint32_t bits = req.memoryTypeBits & hp.memoryTypeBits;
    if (vrt_memory_candidates(&ctx->info.memory, ctx->info.uma, VRT_HOST, bits, types, tiers)) {
      type = types[0];
      b->fallback = tiers[0];
    } else {
      vrt__error(ctx, d, "device '%s' offers no host-visible memory type for imported memory",
                 ctx->info.name);
      ok = false;
    }
  }
  if (ok) {
    VkImportMemoryHostPointerInfoEXT imp = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = handle,
        .pHostPointer = ptr,
    };
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &imp,
        .allocationSize = size,
        .memoryTypeIndex = type,
    };
    ok = VRT_VK(ctx, d, vkAllocateMemory, ctx->device, &ai, NULL, &b->own) &&
         VRT_VK(ctx, d, vkBindBufferMemory, ctx->device, b->buffer, b->own, 0);
  }
  if (!ok) {
    if (b->own)
      ctx->vk.vkFreeMemory(ctx->device, b->own, NULL);
    if (b->buffer)
      ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, NULL);
    free(b);
    pthread_mutex_unlock(&ctx->lock);
    return NULL;
  }
  b->ctx = ctx;
  b->id = ++ctx->next_id;
  b->size = b->vk_size = size;
  b->map = ptr;
  b->kind = VRT_HOST;
  b->imported = true;
  b->mem_flags = ctx->info.memory.types[type].flags;
  VRT_LINK(ctx->buffers, b);
  pthread_mutex_unlock(&ctx->lock);
  return b;
}
