/* buffer.c - buffers: creation in a memory kind, zeroing, fill, copy, destroy.
 *
 * Each buffer is its own VkBuffer bound at an offset of a sub-allocated
 * block (alloc.c). The memory type comes from the kind's candidate list
 * (memory.c); when a heap is full, cached buffers of the memory pool
 * (pool.c) are freed and the allocation retried, then the next candidate is
 * tried, and the buffer remembers the tier it got (vrt_buffer_fallback).
 *
 * Nobody may read memory a buffer has not written (LeftoverLocals-class
 * leaks), so the bytes of a new buffer that its first operation does not
 * write are zeroed: by a vkCmdFillBuffer in the context's pending zero-fill
 * command buffer, which every submission sends first, before any command
 * that could read the buffer; or with memset through the mapping for the
 * host kinds and small tails (pool.c decides). A buffer with a fill still
 * to run carries the fill's serial; the host waits for it before it touches
 * the mapping (vrt_buffer_host_ready).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum {
  USAGE = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
          VK_BUFFER_USAGE_TRANSFER_DST_BIT,
  /* Fills a zero-fill command buffer takes before it is sent on its own, so
   * that a loop of allocations with no submission cannot grow it forever. */
  MAX_PENDING_FILLS = 1024,
};

bool vrt__zero_owed(vrt_context *ctx, vrt_buffer *b, vp_diags *d) {
  if (!b || !b->owed)
    return true;
  b->owed = false;
  return vrt__buffer_zero(ctx, b, b->owed_from, false, d);
}

void vrt_buffer_will_write(vrt_buffer *b, uint64_t offset, uint64_t size) {
  vrt_context *ctx = b->ctx;
  /* Nothing owed (every out= after the first): no lock. A buffer is made
   * owed only when the pool hands it out, before anyone else holds it. */
  if (!atomic_load_explicit(&b->owed, memory_order_relaxed))
    return;
  pthread_mutex_lock(&ctx->lock);
  /* Only a write that starts at or before the owed range and reaches into
   * it moves its start; the bytes it writes need no zeros. */
  if (b->owed && offset <= b->owed_from && size > b->owed_from - offset) {
    b->owed_from = offset + size;
    /* A short tail left over (the padding past the elements): memset now
     * if mapped (nothing used the buffer yet, so the GPU is not on it). */
    if (b->owed_from < b->vk_size && b->map && b->vk_size - b->owed_from <= 4096) {
      memset((char *)b->map + b->owed_from, 0, b->vk_size - b->owed_from);
      ctx->stats.cpu_zero_bytes += b->vk_size - b->owed_from;
      vp_diags ignore = {0};
      if (!(b->mem_flags & VRT_MEM_HOST_COHERENT))
        vrt_buffer_flush(b, &ignore);
      vp_diags_free(&ignore);
      b->owed_from = b->vk_size;
    }
    if (b->owed_from >= b->vk_size) {
      b->owed = false;
      ctx->stats.zero_fills_dropped++;
    }
  }
  pthread_mutex_unlock(&ctx->lock);
}

bool vrt__buffer_zero(vrt_context *ctx, vrt_buffer *b, uint64_t from, bool cpu, vp_diags *d) {
  uint64_t end = b->vk_size;
  if (from >= end)
    return true;
  if (cpu && b->map) {
    memset((char *)b->map + from, 0, end - from);
    ctx->stats.cpu_zero_bytes += end - from;
    return (b->mem_flags & VRT_MEM_HOST_COHERENT) || vrt_buffer_flush(b, d);
  }
  /* A fill of these bytes is still waiting to be sent: nothing touched
   * the buffer since (any use sends it), so it still covers them. */
  bool again = b->zero_serial && ctx->zero_slot >= 0 && b->zero_serial == ctx->zero_serial;
  if (again && b->zero_from <= from && b->zero_end >= end)
    return true;
  /* A second fill of the same buffer in one command buffer: order it after
   * the first (write after write). */
  if (again)
    vrt__barrier(ctx, ctx->ring[ctx->zero_slot].cb, true);
  if (ctx->zero_slot < 0) {
    int slot;
    VkCommandBuffer cb = vrt__cmd_begin(ctx, &slot, d);
    if (!cb)
      return false;
    /* The memory may have belonged to a buffer the GPU wrote before. */
    vrt__barrier(ctx, cb, true);
    ctx->zero_slot = slot;
    ctx->zero_serial++;
    ctx->zero_fills = 0;
  }
  ctx->vk.vkCmdFillBuffer(ctx->ring[ctx->zero_slot].cb, b->buffer, b->offset + from, end - from,
                          0);
  ctx->stats.gpu_zero_bytes += end - from;
  b->zero_serial = ctx->zero_serial;
  b->zero_from = from;
  b->zero_end = end;
  if (++ctx->zero_fills >= MAX_PENDING_FILLS) {
    vrt_ticket t;
    if (!vrt__submit(ctx, NULL, 0, NULL, 0, &t, d))
      return false;
  }
  return true;
}

bool vrt__zero_ticket(vrt_context *ctx, vrt_buffer *b, vrt_ticket *t, vp_diags *d) {
  uint64_t s = b->zero_serial;
  *t = 0;
  if (!s)
    return true;
  if (ctx->zero_slot >= 0 && s == ctx->zero_serial) {
    if (!vrt__submit(ctx, NULL, 0, NULL, 0, t, d))
      return false;
  } else if (ctx->zero_sent[s % 64].serial == s) {
    *t = ctx->zero_sent[s % 64].ticket;
  } else {
    /* Sent long ago: the newest zero fill's ticket is a later one. */
    uint64_t last = ctx->zero_serial - (ctx->zero_slot >= 0);
    *t = ctx->zero_sent[last % 64].ticket;
  }
  b->zero_serial = 0;
  if (*t)
    vrt__buffer_used(b, &ctx->tl0, *t); /* zero fills: the default queue's timeline */
  return true;
}

void vrt__buffer_used(vrt_buffer *b, const vrt_tl *tl, uint64_t t) {
  /* max: a zero fill's ticket may be older than the buffer's last use */
  if (t > atomic_load(&b->use[tl->id]))
    atomic_store(&b->use[tl->id], t);
  if (t > atomic_load(&b->last_use))
    atomic_store(&b->last_use, t);
}

bool vrt__buffer_idle(vrt_buffer *b, vp_diags *d) {
  vrt_context *ctx = b->ctx;
  uint64_t last = atomic_load(&b->last_use);
  if (last <= atomic_load(&ctx->completed))
    return true;
  uint32_t n = atomic_load(&ctx->nstreams);
  if (!n) /* one timeline: the same wait (and held eager dispatches are sent) */
    return vrt_wait(ctx, last, UINT64_MAX, d);
  for (uint32_t i = 0; i <= n; i++) {
    uint64_t t = atomic_load(&b->use[i]);
    VkSemaphore sem = i ? ctx->streams[i - 1]->tl.sem : ctx->timeline;
    if (t && !vrt__wait_on(ctx, sem, t, d))
      return false;
  }
  return true;
}

bool vrt_buffer_wait(vrt_buffer *b, vp_diags *d) {
  return vrt__alive(b->ctx, d) && vrt__buffer_idle(b, d);
}

vrt_buffer *vrt__buffer_make(vrt_context *ctx, uint64_t bytes, vrt_memory_kind kind,
                             uint32_t need, vp_diags *d) {
  vrt_buffer *b = calloc(1, sizeof *b);
  if (!b) {
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  b->ctx = ctx;
  b->id = ++ctx->next_id;
  b->size = bytes;
  b->vk_size = bytes;
  b->cls = bytes;
  b->kind = kind;
  VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = bytes,
      .usage = USAGE,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  /* EXCLUSIVE, or CONCURRENT over the compute and transfer families while
   * the context has a transfer stream (stream.c, "sharing"). */
  uint32_t fams[2];
  b->conc = vrt__sharing(ctx, &bi, fams);
  if (!VRT_VK(ctx, d, vkCreateBuffer, ctx->device, &bi, NULL, &b->buffer)) {
    free(b);
    return NULL;
  }
  VkMemoryRequirements req;
  ctx->vk.vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
  uint32_t types[VRT_MAX_MEMORY_TYPES], tiers[VRT_MAX_MEMORY_TYPES];
  uint32_t n = vrt_memory_candidates(&ctx->info.memory, ctx->info.uma, kind,
                                     req.memoryTypeBits, types, tiers);
  vp_diags tmp = {0};
  uint32_t i;
  bool got = false;
  for (i = 0; i < n && !got; i++) {
    if ((ctx->info.memory.types[types[i]].flags & need) != need)
      continue;
    /* Out of memory in this heap: free what the pool caches (first what is
     * done with, then, after waiting, the rest) and try again before
     * falling back to the next memory type. */
    for (int attempt = 0; attempt < 3 && !got; attempt++) {
      if (attempt && !ctx->pool_head)
        break;
      if (attempt == 1) {
        vrt__pool_trim(ctx, 0); /* what is done with, without waiting */
      } else if (attempt == 2) {
        vp_diags ignore = {0};
        vrt__pool_release_all(ctx, &ignore); /* waits for the rest */
        vp_diags_free(&ignore);
      }
      vp_diags_clear(&tmp);
      got = vrt__alloc(ctx, types[i], req.size, req.alignment, &b->alloc, &tmp);
      if (!got && vrt_context_lost(ctx))
        break;
    }
    if (!got && vrt_context_lost(ctx))
      break;
  }
  if (!got) {
    if (tmp.count) {
      const vrt_memory_props *p = &ctx->info.memory;
      uint64_t heap = n ? p->heaps[p->types[types[0]].heap].size : 0;
      vrt__error(ctx, d,
                 "out of device memory: cannot allocate %llu bytes of '%s' memory on device "
                 "'%s' (its heap has %llu bytes; the memory pool holds %llu bytes in use and "
                 "%llu cached)",
                 (unsigned long long)bytes, vrt_memory_kind_name(kind), ctx->info.name,
                 (unsigned long long)heap, (unsigned long long)ctx->stats.pool_used_bytes,
                 (unsigned long long)ctx->stats.pool_cached_bytes);
      vp_diags_move(d, &tmp);
    } else {
      vrt__error(ctx, d, "device '%s' has no memory type for kind '%s'%s", ctx->info.name,
                 vrt_memory_kind_name(kind), need ? " that is host-coherent" : "");
    }
    vp_diags_free(&tmp);
    ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, NULL);
    free(b);
    return NULL;
  }
  vp_diags_free(&tmp);
  i--;
  b->mem_flags = ctx->info.memory.types[types[i]].flags;
  b->fallback = tiers[i];
  if (!VRT_VK(ctx, d, vkBindBufferMemory, ctx->device, b->buffer, b->alloc.block->memory,
              b->alloc.offset)) {
    vrt__free(ctx, &b->alloc);
    ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, NULL);
    free(b);
    return NULL;
  }
  if (b->alloc.block->map && !(ctx->no_device_mapping && kind == VRT_DEVICE))
    b->map = (char *)b->alloc.block->map + b->alloc.offset;
  return b;
}

/* The size checks every creation makes; the VkBuffer's size, or 0. */
static uint64_t vk_size_of(vrt_context *ctx, uint64_t size, vrt_memory_kind kind, vp_diags *d) {
  if ((unsigned)kind >= VRT_MEMORY_KIND_COUNT) {
    vrt__error(ctx, d, "unknown memory kind %d", (int)kind);
    return 0;
  }
  uint64_t vk_size = size < 4 ? 4 : (size + 3) & ~(uint64_t)3;
  if (size > UINT64_MAX - 4 || vk_size > ctx->info.max_buffer_size) {
    vrt__error(ctx, d, "cannot create a buffer of %llu bytes: the device's maxBufferSize is %llu",
               (unsigned long long)size, (unsigned long long)ctx->info.max_buffer_size);
    return 0;
  }
  return vk_size;
}

vrt_buffer *vrt__buffer_create(vrt_context *ctx, uint64_t size, vrt_memory_kind kind,
                               uint32_t need, vp_diags *d) {
  uint64_t vk_size = vk_size_of(ctx, size, kind, d);
  if (!vk_size)
    return NULL;
  vrt_buffer *b = vrt__buffer_make(ctx, vk_size, kind, need, d);
  if (!b)
    return NULL;
  b->size = size;
  VRT_LINK(ctx->buffers, b);
  /* The runtime's own buffers (staging, control words, done flags) are
   * read and written by the host first: zeroed now where mapped. */
  if (!vrt__buffer_zero(ctx, b, 0, true, d)) {
    vrt__buffer_release(b);
    return NULL;
  }
  return b;
}

vrt_buffer *vrt_buffer_create_ex(vrt_context *ctx, uint64_t size, vrt_memory_kind kind,
                                 uint64_t written, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return NULL;
  pthread_mutex_lock(&ctx->lock);
  vrt_buffer *b = vk_size_of(ctx, size, kind, d) ? vrt__pool_create(ctx, size, kind, written, d)
                                                 : NULL;
  pthread_mutex_unlock(&ctx->lock);
  return b;
}

vrt_buffer *vrt_buffer_create(vrt_context *ctx, uint64_t size, vrt_memory_kind kind,
                              vp_diags *d) {
  return vrt_buffer_create_ex(ctx, size, kind, 0, d);
}

void vrt__buffer_release(vrt_buffer *b) {
  vrt_context *ctx = b->ctx;
  VRT_UNLINK(ctx->buffers, b);
  for (int i = 0; i < 2; i++)
    if (ctx->staging[i].buf == b)
      ctx->staging[i].buf = NULL;
  ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, NULL);
  if (b->own)
    ctx->vk.vkFreeMemory(ctx->device, b->own, NULL);
  else
    vrt__free(ctx, &b->alloc);
  free(b);
}

void vrt_buffer_destroy(vrt_buffer *b) {
  if (!b)
    return;
  vrt_context *ctx = b->ctx;
  vp_diags ignore = {0};
  pthread_mutex_lock(&ctx->lock);
  if (b->pooled && !vrt_context_lost(ctx)) {
    /* No wait: the pool hands it out again once its last use is done. */
    vrt__pool_put(ctx, b);
    pthread_mutex_unlock(&ctx->lock);
    return;
  }
  /* A pending zero fill may name this buffer: send it before the buffer goes. */
  if (b->zero_serial && ctx->zero_slot >= 0 && b->zero_serial == ctx->zero_serial) {
    vrt_ticket t;
    if (!vrt__zero_ticket(ctx, b, &t, &ignore))
      ctx->zero_slot = -1;
  }
  pthread_mutex_unlock(&ctx->lock);
  /* the work that uses it, not other streams' (vrt__buffer_idle), for at
   * most vrt__destroy_bound: a buffer that a kernel which never ends still
   * uses (a stalled persistent program) is left in the context's list,
   * freed by its teardown if the device ever goes idle, never under the
   * GPU (the wait hung the interpreter's exit forever before) */
  bool idle = true;
  if (!vrt_context_lost(ctx)) {
    uint64_t last = atomic_load(&b->last_use);
    idle = atomic_load(&ctx->nstreams) || last <= atomic_load(&ctx->completed)
               ? vrt__buffer_idle(b, &ignore)
               : vrt_wait(ctx, last, vrt__destroy_bound(ctx), &ignore);
  }
  vp_diags_free(&ignore);
  if (!idle && !vrt_context_lost(ctx))
    return;
  pthread_mutex_lock(&ctx->lock);
  if (b->pooled)
    ctx->stats.pool_used_bytes -= b->cls;
  vrt__buffer_release(b);
  pthread_mutex_unlock(&ctx->lock);
}

bool vrt_buffer_host_ready(vrt_buffer *b, vp_diags *d) {
  vrt_context *ctx = b->ctx;
  pthread_mutex_lock(&ctx->lock);
  vrt_ticket t;
  bool ok = vrt__zero_owed(ctx, b, d) && vrt__zero_ticket(ctx, b, &t, d);
  pthread_mutex_unlock(&ctx->lock);
  /* the fill's own batch on the default queue's timeline, not other work */
  return ok && (!t || vrt__wait_on(ctx, ctx->timeline, t, d));
}

uint64_t vrt_buffer_size(const vrt_buffer *b) { return b->size; }
vrt_context *vrt_buffer_context(const vrt_buffer *b) { return b->ctx; }
vrt_memory_kind vrt_buffer_kind(const vrt_buffer *b) { return b->kind; }
uint32_t vrt_buffer_memory_flags(const vrt_buffer *b) { return b->mem_flags; }
uint32_t vrt_buffer_fallback(const vrt_buffer *b) { return b->fallback; }
void *vrt_buffer_map(const vrt_buffer *b) { return b->map; }
vrt_ticket vrt_buffer_last_use(const vrt_buffer *b) { return atomic_load(&b->last_use); }

static bool sync_range(vrt_buffer *b, bool flush, vp_diags *d) {
  /* Imported host memory is not vkMapMemory'ed: the drivers that import it
   * give coherent types, and there is no mapping to flush. */
  if (!b->map || (b->mem_flags & VRT_MEM_HOST_COHERENT) || b->own)
    return true;
  vrt_context *ctx = b->ctx;
  VkMappedMemoryRange r = {
      .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
      .memory = b->alloc.block->memory,
      .offset = b->alloc.offset,
      .size = b->alloc.size,
  };
  return flush ? VRT_VK(ctx, d, vkFlushMappedMemoryRanges, ctx->device, 1, &r)
               : VRT_VK(ctx, d, vkInvalidateMappedMemoryRanges, ctx->device, 1, &r);
}

bool vrt_buffer_flush(vrt_buffer *b, vp_diags *d) { return sync_range(b, true, d); }
bool vrt_buffer_invalidate(vrt_buffer *b, vp_diags *d) { return sync_range(b, false, d); }

/* Runs one recorded transfer command and waits (fill, copy). */
typedef void (*record_fn)(vrt_context *ctx, VkCommandBuffer cb, void *arg);

static bool run_transfer(vrt_context *ctx, vrt_buffer *a, vrt_buffer *b, record_fn fn, void *arg,
                         vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return false;
  pthread_mutex_lock(&ctx->lock);
  int slot;
  vrt_ticket t = 0;
  bool xfer = false; /* on a transfer stream's queue family (stream.c) */
  VkCommandBuffer cb = VK_NULL_HANDLE;
  if (vrt__zero_owed(ctx, a, d) && vrt__zero_owed(ctx, b, d)) {
    xfer = vrt__copy_family(ctx, a, b);
    cb = vrt__cmd_begin_copy(ctx, &slot, xfer, d);
  }
  bool ok = cb != VK_NULL_HANDLE;
  if (ok) {
    vrt__barrier_copy(ctx, cb, true, xfer);
    fn(ctx, cb, arg);
    vrt__barrier_copy(ctx, cb, false, xfer);
    ok = VRT_VK(ctx, d, vkEndCommandBuffer, cb) && vrt__submit(ctx, &cb, 1, &slot, 1, &t, d);
    if (!ok)
      ctx->ring[slot].value = 0;
  }
  ctx->route = false;
  vrt_tl *tl = vrt__tl_current(ctx);
  VkSemaphore sem = tl->sem;
  if (ok) {
    vrt__buffer_used(a, tl, t);
    if (b)
      vrt__buffer_used(b, tl, t);
  }
  pthread_mutex_unlock(&ctx->lock);
  /* this copy's own queue: not the other streams' older work */
  return ok && vrt__wait_on(ctx, sem, t, d);
}

static bool check_range(vrt_buffer *b, uint64_t offset, uint64_t size, const char *what,
                        vp_diags *d) {
  if (offset > b->size || size > b->size - offset) {
    vrt__error(b->ctx, d, "%s: bytes [%llu, %llu) are outside the buffer of %llu bytes", what,
               (unsigned long long)offset, (unsigned long long)(offset + size),
               (unsigned long long)b->size);
    return false;
  }
  return true;
}

typedef struct fill_arg {
  VkBuffer buf;
  uint64_t offset, size;
  uint32_t value;
} fill_arg;

static void record_fill(vrt_context *ctx, VkCommandBuffer cb, void *p) {
  fill_arg *f = p;
  ctx->vk.vkCmdFillBuffer(cb, f->buf, f->offset, f->size, f->value);
}

bool vrt_buffer_fill(vrt_buffer *b, uint64_t offset, uint64_t size, uint32_t value,
                     vp_diags *d) {
  if (size == UINT64_MAX)
    size = offset <= b->size ? b->size - offset : 0;
  if (!check_range(b, offset, size, "fill", d))
    return false;
  if (offset % 4 || size % 4) {
    vrt__error(b->ctx, d, "fill: offset %llu and size %llu must be multiples of 4",
               (unsigned long long)offset, (unsigned long long)size);
    return false;
  }
  if (!size)
    return true;
  fill_arg f = {b->buffer, b->offset + offset, size, value};
  return run_transfer(b->ctx, b, NULL, record_fill, &f, d);
}

typedef struct copy_arg {
  VkBuffer dst, src;
  VkBufferCopy region;
} copy_arg;

static void record_copy(vrt_context *ctx, VkCommandBuffer cb, void *p) {
  copy_arg *c = p;
  ctx->vk.vkCmdCopyBuffer(cb, c->src, c->dst, 1, &c->region);
}

bool vrt_buffer_copy(vrt_buffer *dst, uint64_t dst_offset, vrt_buffer *src, uint64_t src_offset,
                     uint64_t size, vp_diags *d) {
  if (dst->ctx != src->ctx) {
    vrt__error(dst->ctx, d, "copy: the buffers belong to different contexts");
    return false;
  }
  if (!check_range(dst, dst_offset, size, "copy destination", d) ||
      !check_range(src, src_offset, size, "copy source", d))
    return false;
  if (dst == src && dst_offset < src_offset + size && src_offset < dst_offset + size) {
    vrt__error(dst->ctx, d, "copy: source and destination ranges overlap");
    return false;
  }
  if (!size)
    return true;
  copy_arg c = {dst->buffer, src->buffer, {src->offset + src_offset, dst->offset + dst_offset, size}};
  return run_transfer(dst->ctx, dst, src, record_copy, &c, d);
}
