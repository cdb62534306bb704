/* alloc.c - the sub-allocator: buffers carved out of large VkDeviceMemory blocks.
 *
 * Drivers limit the number of VkDeviceMemory objects (often 4096) and make
 * each allocation slow, so buffers come from blocks of 64 MiB (less when the
 * heap is small: an eighth of it). Each block keeps a free list of ranges
 * sorted by offset; an allocation takes the first range that fits once its
 * start is aligned (first fit), and a free puts the range back, merged with
 * its neighbours. Requests over half a block get a dedicated block of their
 * own. A block that empties is returned to the driver unless it is the only
 * empty block of its memory type (kept to absorb allocate/free churn).
 * The memory pool (pool.c) sits on top: buffers come back here only when
 * the pool lets them go (memory pressure, its limit, free_all).
 *
 * Alignment is the buffer's VkMemoryRequirements alignment; in host-visible
 * memory that is not coherent, offsets and sizes are also rounded to
 * nonCoherentAtomSize so that flushing one buffer never touches another.
 * Host-visible blocks are mapped once, for their whole life.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { BLOCK_SIZE = 64 << 20 };

static uint64_t align_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static uint64_t block_size_for(vrt_context *ctx, uint32_t type) {
  const vrt_memory_props *p = &ctx->info.memory;
  uint64_t heap = p->heaps[p->types[type].heap].size;
  uint64_t size = BLOCK_SIZE;
  if (heap / 8 < size)
    size = heap / 8 > (1 << 20) ? heap / 8 : (1 << 20);
  if (ctx->info.max_memory_allocation_size && size > ctx->info.max_memory_allocation_size)
    size = ctx->info.max_memory_allocation_size;
  return size;
}

static bool push_range(vrt_block *b, uint32_t at, vrt_range r) {
  if (b->nfree == b->capfree) {
    uint32_t cap = b->capfree ? b->capfree * 2 : 8;
    vrt_range *nr = realloc(b->free, cap * sizeof *nr);
    if (!nr)
      return false;
    b->free = nr;
    b->capfree = cap;
  }
  memmove(&b->free[at + 1], &b->free[at], (b->nfree - at) * sizeof *b->free);
  b->free[at] = r;
  b->nfree++;
  return true;
}

static void drop_range(vrt_block *b, uint32_t at) {
  memmove(&b->free[at], &b->free[at + 1], (b->nfree - at - 1) * sizeof *b->free);
  b->nfree--;
}

/* Takes `size` bytes aligned to `align` from the block's free list. */
static bool block_take(vrt_block *b, uint64_t size, uint64_t align, uint64_t *offset) {
  for (uint32_t i = 0; i < b->nfree; i++) {
    vrt_range r = b->free[i];
    uint64_t start = align_up(r.offset, align);
    if (start + size > r.offset + r.size)
      continue;
    vrt_range left = {r.offset, start - r.offset};
    vrt_range right = {start + size, r.offset + r.size - start - size};
    /* Make room first so that a failed realloc leaves the list intact. */
    if (left.size && right.size && !push_range(b, i + 1, right))
      return false;
    if (left.size && right.size) {
      b->free[i] = left;
    } else if (left.size) {
      b->free[i] = left;
    } else if (right.size) {
      b->free[i] = right;
    } else {
      drop_range(b, i);
    }
    b->used += size;
    *offset = start;
    return true;
  }
  return false;
}

static void block_give(vrt_block *b, uint64_t offset, uint64_t size) {
  uint32_t i = 0;
  while (i < b->nfree && b->free[i].offset < offset)
    i++;
  bool merge_prev = i > 0 && b->free[i - 1].offset + b->free[i - 1].size == offset;
  bool merge_next = i < b->nfree && offset + size == b->free[i].offset;
  if (merge_prev && merge_next) {
    b->free[i - 1].size += size + b->free[i].size;
    drop_range(b, i);
  } else if (merge_prev) {
    b->free[i - 1].size += size;
  } else if (merge_next) {
    b->free[i].offset = offset;
    b->free[i].size += size;
  } else if (!push_range(b, i, (vrt_range){offset, size})) {
    /* Out of memory for the list itself: the range leaks until the block
     * is destroyed, which is better than corrupting the list. */
  }
  b->used -= size;
}

static void block_destroy(vrt_context *ctx, vrt_block *b) {
  if (b->map)
    ctx->vk.vkUnmapMemory(ctx->device, b->memory);
  ctx->vk.vkFreeMemory(ctx->device, b->memory, NULL);
  ctx->stats.driver_frees++;
  ctx->stats.blocks--;
  ctx->stats.block_bytes -= b->size;
  free(b->free);
  free(b);
}

static vrt_block *block_new(vrt_context *ctx, uint32_t type, uint64_t size, bool dedicated,
                            vp_diags *d) {
  vrt_block *b = calloc(1, sizeof *b);
  if (!b) {
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  VkMemoryAllocateInfo info = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = size,
      .memoryTypeIndex = type,
  };
  if (!VRT_VK(ctx, d, vkAllocateMemory, ctx->device, &info, NULL, &b->memory)) {
    free(b);
    return NULL;
  }
  ctx->stats.driver_allocations++;
  b->size = size;
  b->type = type;
  b->dedicated = dedicated;
  if ((ctx->info.memory.types[type].flags & VRT_MEM_HOST_VISIBLE) &&
      !VRT_VK(ctx, d, vkMapMemory, ctx->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map)) {
    ctx->vk.vkFreeMemory(ctx->device, b->memory, NULL);
    ctx->stats.driver_frees++;
    free(b);
    return NULL;
  }
  if (!push_range(b, 0, (vrt_range){0, size})) {
    if (b->map)
      ctx->vk.vkUnmapMemory(ctx->device, b->memory);
    ctx->vk.vkFreeMemory(ctx->device, b->memory, NULL);
    ctx->stats.driver_frees++;
    free(b);
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  ctx->stats.blocks++;
  ctx->stats.block_bytes += size;
  b->next = ctx->blocks[type];
  ctx->blocks[type] = b;
  return b;
}

bool vrt__alloc(vrt_context *ctx, uint32_t type, uint64_t size, uint64_t align, vrt_alloc *out,
                vp_diags *d) {
  uint32_t flags = ctx->info.memory.types[type].flags;
  if ((flags & VRT_MEM_HOST_VISIBLE) && !(flags & VRT_MEM_HOST_COHERENT)) {
    uint64_t atom = ctx->info.non_coherent_atom_size ? ctx->info.non_coherent_atom_size : 1;
    align = align > atom ? align : atom;
    size = align_up(size, atom);
  }
  if (size > ctx->info.max_memory_allocation_size) {
    vrt__error(ctx, d,
               "cannot allocate %llu bytes: the device's maxMemoryAllocationSize is %llu "
               "(device '%s')",
               (unsigned long long)size, (unsigned long long)ctx->info.max_memory_allocation_size,
               ctx->info.name);
    return false;
  }
  uint64_t bsize = block_size_for(ctx, type);
  vrt_block *b = NULL;
  uint64_t offset = 0;
  if (size > bsize / 2) {
    b = block_new(ctx, type, align_up(size, 4096), true, d);
    if (!b || !block_take(b, size, align, &offset))
      return false;
  } else {
    for (b = ctx->blocks[type]; b; b = b->next)
      if (!b->dedicated && block_take(b, size, align, &offset))
        break;
    if (!b) {
      b = block_new(ctx, type, bsize, false, d);
      if (!b || !block_take(b, size, align, &offset))
        return false;
    }
  }
  out->block = b;
  out->offset = offset;
  out->size = size;
  ctx->stats.used_bytes += size;
  return true;
}

void vrt__free(vrt_context *ctx, vrt_alloc *a) {
  vrt_block *b = a->block;
  if (!b)
    return;
  block_give(b, a->offset, a->size);
  ctx->stats.used_bytes -= a->size;
  a->block = NULL;
  if (b->used)
    return;
  bool other_empty = false;
  for (vrt_block *o = ctx->blocks[b->type]; o; o = o->next)
    other_empty |= o != b && !o->dedicated && o->used == 0;
  if (!b->dedicated && !other_empty)
    return;
  vrt_block **pp = &ctx->blocks[b->type];
  while (*pp != b)
    pp = &(*pp)->next;
  *pp = b->next;
  block_destroy(ctx, b);
}

void vrt__alloc_trim(vrt_context *ctx, bool keep_one) {
  for (uint32_t t = 0; t < VRT_MAX_MEMORY_TYPES; t++) {
    bool kept = false;
    for (vrt_block **pp = &ctx->blocks[t]; *pp;) {
      vrt_block *b = *pp;
      if (b->used || (keep_one && !kept && !b->dedicated && (kept = true))) {
        pp = &b->next;
        continue;
      }
      *pp = b->next;
      block_destroy(ctx, b);
    }
  }
}

void vrt__alloc_destroy(vrt_context *ctx) {
  for (uint32_t t = 0; t < VRT_MAX_MEMORY_TYPES; t++) {
    while (ctx->blocks[t]) {
      vrt_block *b = ctx->blocks[t];
      ctx->blocks[t] = b->next;
      block_destroy(ctx, b);
    }
  }
}
