/* hostimport.c - host memory as a Vulkan buffer (VK_EXT_external_memory_host).
 *
 * The caller's pages become the buffer's memory: no copy, and the same pages
 * can be imported into several contexts (several devices) at once, so a GPU
 * write is seen by the host and by the other devices through the same DRAM.
 * The pointer and size must be multiples of the device's
 * minImportedHostPointerAlignment (4 KiB on the drivers we know);
 * vrt_host_alloc hands out memory aligned to 64 KiB, which covers them.
 * Imported memory is the caller's: it is not zeroed.
 *
 * Memory at any address (a NumPy array's data sits 16 bytes into an mmap'ed
 * page) is imported by its pages: the VkBuffer covers the whole pages and
 * the buffer starts at the array inside them (vrt_buffer.offset, which
 * descriptors and copies add). The bytes around the array on its first and
 * last page are pinned too, never written.
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

vrt_buffer *vrt__import_pages(vrt_context *ctx, char *base, uint64_t span, uint64_t offset,
                              uint64_t size, uint64_t vk_size, vp_diags *d) {
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
  /* The VkBuffer covers the imported pages; descriptors and copies start at
   * b->offset. */
  VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .pNext = &ext,
      .size = span,
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  uint32_t fams[2]; /* streams: see stream.c, "sharing" */
  pthread_mutex_lock(&ctx->lock);
  b->conc = vrt__sharing(ctx, &bi, fams);
  bool ok = VRT_VK(ctx, d, vkGetMemoryHostPointerPropertiesEXT, ctx->device, handle, base, &hp) &&
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
        .pHostPointer = base,
    };
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &imp,
        .allocationSize = span,
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
  b->offset = offset;
  b->size = size;
  b->vk_size = vk_size;
  b->map = base + offset;
  b->kind = VRT_HOST;
  b->imported = true;
  b->mem_flags = ctx->info.memory.types[type].flags;
  VRT_LINK(ctx->buffers, b);
  pthread_mutex_unlock(&ctx->lock);
  return b;
}

static bool can_import(vrt_context *ctx, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return false;
  if (!ctx->external_host) {
    vrt__error(ctx, d, "device '%s' cannot import host memory: it lacks "
                       "VK_EXT_external_memory_host", ctx->info.name);
    return false;
  }
  return true;
}

vrt_buffer *vrt_buffer_import_host(vrt_context *ctx, void *ptr, uint64_t size, vp_diags *d) {
  if (!can_import(ctx, d))
    return NULL;
  uint64_t align = ctx->info.min_imported_host_pointer_alignment;
  if (!ptr || !size || (align && ((uintptr_t)ptr % align || size % align))) {
    vrt__error(ctx, d,
               "cannot import host memory at %p (%llu bytes): the pointer and the size must "
               "be non-zero multiples of %llu bytes on device '%s'",
               ptr, (unsigned long long)size, (unsigned long long)align, ctx->info.name);
    vp_diag_hint(d, "allocate it with vrt_host_alloc (64 KiB-aligned pages), or import it "
                    "with vrt_buffer_import_host_range");
    return NULL;
  }
  return vrt__import_pages(ctx, ptr, size, 0, size, size, d);
}

vrt_buffer *vrt_buffer_import_host_range(vrt_context *ctx, void *ptr, uint64_t size,
                                         vp_diags *d) {
  if (!can_import(ctx, d))
    return NULL;
  uint64_t page = ctx->info.min_imported_host_pointer_alignment;
  uint64_t salign = ctx->info.min_storage_buffer_offset_alignment;
  page = page ? page : 4096;
  salign = salign ? salign : 1;
  uintptr_t p = (uintptr_t)ptr;
  if (!ptr || !size || p % salign || p % 4 || size > UINT64_MAX - 2 * page) {
    vrt__error(ctx, d,
               "cannot import host memory at %p (%llu bytes): the address must be a multiple "
               "of %llu bytes (minStorageBufferOffsetAlignment) on device '%s'",
               ptr, (unsigned long long)size, (unsigned long long)(salign < 4 ? 4 : salign),
               ctx->info.name);
    return NULL;
  }
  uintptr_t base = p / page * page;
  uint64_t span = ((uint64_t)(p - base) + size + page - 1) / page * page;
  uint64_t vk_size = (size + 15) & ~(uint64_t)15;
  if (vk_size > span - (p - base))
    vk_size = span - (p - base);
  return vrt__import_pages(ctx, (char *)base, span, p - base, size, vk_size, d);
}
