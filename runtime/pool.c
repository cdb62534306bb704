/* pool.c - the caching allocator: freed buffers are kept and handed out again.
 *
 * Allocating from the driver and zeroing are what made NumPy-style code slow
 * (every `c = a + b` allocated, zeroed through a PCIe mapping, and freed
 * back to the driver). Here, as in CuPy's memory pool and PyTorch's caching
 * allocator, vrt_buffer_destroy of a pooled buffer keeps the whole buffer -
 * its VkBuffer, its memory and its mapping - on a free list, and the next
 * request of the same memory kind and size class takes it back:
 *
 *   - Size classes: the VkBuffer is made at the request's size rounded up to
 *     an eighth of its power of two (at least 256 bytes, steps of at most
 *     2 MiB), so a loop whose sizes wobble a little still hits; a buffer
 *     only serves its own class (no splitting of cached buffers: see
 *     docs/runtime.md). Small classes share 64 MiB blocks of the
 *     sub-allocator (alloc.c, which splits and coalesces); large ones have a
 *     block each. The descriptor range stays the requested size, so a
 *     kernel sees exactly the bytes it asked for.
 *   - Reuse waits for the GPU: a cached buffer is handed out only once its
 *     own last uses are done - its last-use ticket reached, or with streams
 *     its last use on each queue's timeline (a poll, never a wait), so a
 *     stream held elsewhere does not stop reuse. Queue order makes
 *     that immediate in synchronous code; a sync=False chain gets new
 *     buffers until its work is done, never memory it still uses.
 *   - A hit keeps the buffer's id when its size is unchanged, so recorded
 *     launches that bound it (dispatch.c's launch cache) still match.
 *   - Memory pressure: a request the driver refuses, or one that would
 *     pass vrt_pool_set_limit's cap, first frees the cached buffers that are
 *     done, then waits for the rest and frees them, then fails with an
 *     error naming the sizes. Cached bytes beyond pool_cache_max (a quarter
 *     of the largest heap; 1 GiB at most on CPU devices, whose "VRAM" is the
 *     machine's RAM) are freed oldest first.
 *
 * Everything here runs with the context lock held.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum {
  MIN_CLASS = 256,
  MAX_STEP = 2 << 20,
  /* Tails up to this size are zeroed with memset even in device-local
   * memory: cheaper than a fill command and its barrier. */
  SMALL_CPU_ZERO = 4096,
  /* Busy cached buffers of one class before a request waits for one. */
  MAX_BUSY = 2,
};

static uint64_t size_class(vrt_context *ctx, uint64_t vk_size) {
  if (vk_size <= MIN_CLASS)
    return MIN_CLASS;
  uint64_t top = 1ull << (63 - __builtin_clzll(vk_size));
  uint64_t step = top / 8;
  step = step < MIN_CLASS ? MIN_CLASS : step > MAX_STEP ? MAX_STEP : step;
  uint64_t cls = (vk_size + step - 1) / step * step;
  if (cls > ctx->info.max_buffer_size ||
      (ctx->info.max_memory_allocation_size && cls > ctx->info.max_memory_allocation_size))
    cls = vk_size;
  return cls;
}

static uint32_t bin_of(vrt_memory_kind kind, uint64_t cls) {
  return (uint32_t)(((cls / MIN_CLASS) * 0x9E3779B97F4A7C15ull + (uint64_t)kind * 0x632BE5AB) >>
                    58) % VRT_POOL_BINS;
}

/* Removes a cached buffer from the free list and its bin. */
static void unlink_cached(vrt_context *ctx, vrt_buffer *b) {
  if (b->prev)
    b->prev->next = b->next;
  else
    ctx->pool_head = b->next;
  if (b->next)
    b->next->prev = b->prev;
  else
    ctx->pool_tail = b->prev;
  vrt_buffer **pp = &ctx->pool_bins[bin_of(b->kind, b->cls)];
  while (*pp && *pp != b)
    pp = &(*pp)->bnext;
  if (*pp)
    *pp = b->bnext;
  b->prev = b->next = b->bnext = NULL;
  ctx->stats.pool_cached_bytes -= b->cls;
  ctx->stats.pool_cached_buffers--;
}

/* Frees a buffer that is off every list. */
static void release(vrt_context *ctx, vrt_buffer *b) {
  ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, NULL);
  vrt__free(ctx, &b->alloc);
  free(b);
}

/* Whether the GPU is done with a cached buffer: its last use and any zero
 * fill that names it. */
static bool idle(vrt_context *ctx, vrt_buffer *b, uint64_t done) {
  if (atomic_load(&b->last_use) > done)
    return false;
  uint64_t s = b->zero_serial;
  if (!s)
    return true;
  if (ctx->zero_slot >= 0 && s == ctx->zero_serial)
    return false; /* recorded, not sent */
  return ctx->zero_sent[s % 64].serial != s || ctx->zero_sent[s % 64].ticket <= done;
}

void vrt__pool_trim(vrt_context *ctx, uint64_t keep) {
  if (ctx->stats.pool_cached_bytes <= keep)
    return;
  /* A cached buffer named by the zero fills not sent yet cannot go before
   * they are: send them (the GPU runs them soon after). */
  for (vrt_buffer *b = ctx->pool_head; b && ctx->zero_slot >= 0; b = b->next)
    if (b->zero_serial == ctx->zero_serial) {
      vp_diags ignore = {0};
      vrt_ticket t;
      vrt__submit(ctx, NULL, 0, NULL, 0, &t, &ignore);
      vp_diags_free(&ignore);
      break;
    }
  uint64_t done = vrt__poll(ctx);
  for (vrt_buffer *b = ctx->pool_tail; b && ctx->stats.pool_cached_bytes > keep;) {
    vrt_buffer *older = b->prev;
    if (idle(ctx, b, done)) {
      unlink_cached(ctx, b);
      release(ctx, b);
    }
    b = older;
  }
}

bool vrt__pool_release_all(vrt_context *ctx, vp_diags *d) {
  if (!ctx->pool_head)
    return true;
  bool ok = true;
  /* The open zero fills may name cached buffers: send them, then wait for
   * everything submitted (the cached buffers' work is part of it). */
  if (ctx->zero_slot >= 0 && !vrt_context_lost(ctx)) {
    vrt_ticket t;
    ok = vrt__submit(ctx, NULL, 0, NULL, 0, &t, d);
  }
  if (ok && !vrt_context_lost(ctx))
    ok = vrt_wait(ctx, atomic_load(&ctx->submitted), UINT64_MAX, d);
  if (!ok && !vrt_context_lost(ctx))
    return false;
  while (ctx->pool_head) {
    vrt_buffer *b = ctx->pool_head;
    unlink_cached(ctx, b);
    release(ctx, b);
  }
  return ok;
}

void vrt__pool_put(vrt_context *ctx, vrt_buffer *b) {
  VRT_UNLINK(ctx->buffers, b);
  ctx->stats.pool_used_bytes -= b->cls;
  b->prev = NULL;
  b->next = ctx->pool_head;
  if (ctx->pool_head)
    ctx->pool_head->prev = b;
  else
    ctx->pool_tail = b;
  ctx->pool_head = b;
  uint32_t bin = bin_of(b->kind, b->cls);
  b->bnext = ctx->pool_bins[bin];
  ctx->pool_bins[bin] = b;
  ctx->stats.pool_cached_bytes += b->cls;
  ctx->stats.pool_cached_buffers++;
  if (ctx->stats.pool_cached_bytes > ctx->pool_cache_max)
    vrt__pool_trim(ctx, ctx->pool_cache_max);
}

/* Whether the GPU is done with a cached buffer: its last use is at most
 * `done` (every queue's work up to there is done), or, with streams, each
 * timeline's last use of it (b->use, what vrt__buffer_idle waits for) is
 * reached on that timeline's semaphore. The second matters while another
 * stream is held (a gate, a long kernel): its pending ticket holds `done`
 * back, and buffers used after it on other queues, long done, would not be
 * reused. `seen` caches the semaphore values read during one take (0: not
 * read yet). */
static bool own_uses_done(vrt_context *ctx, vrt_buffer *b, uint64_t done, uint64_t *seen) {
  if (atomic_load(&b->last_use) <= done)
    return true;
  uint32_t n = atomic_load(&ctx->nstreams);
  if (!n) /* one timeline: `done` says it all (and held eager work is not sent) */
    return false;
  for (uint32_t i = 0; i <= n; i++) {
    uint64_t t = atomic_load(&b->use[i]);
    if (t <= done || t <= seen[i])
      continue;
    VkSemaphore sem = i ? ctx->streams[i - 1]->tl.sem : ctx->timeline;
    uint64_t v = 0;
    if (ctx->vk.vkGetSemaphoreCounterValue(ctx->device, sem, &v) != VK_SUCCESS)
      return false;
    seen[i] = v;
    if (v < t)
      return false;
  }
  return true;
}

/* The newest cached buffer of the kind and class that the GPU is done with;
 * *in_use: queued work may still use it (taken in queue order or after a
 * wait on its own queues). */
static vrt_buffer *take(vrt_context *ctx, vrt_memory_kind kind, uint64_t cls, bool ordered,
                        bool *in_use) {
  uint64_t done = atomic_load(&ctx->completed);
  uint64_t seen[VRT_MAX_STREAMS + 1] = {0};
  *in_use = false;
  /* While the context has a transfer stream, an EXCLUSIVE cached buffer
   * is not handed out: the transfer family could not use it (stream.c,
   * "sharing"); it ages out of the cache. */
  bool conc = ctx->xfamily != UINT32_MAX &&
              (ctx->always_concurrent || atomic_load(&ctx->xlive) > 0);
  for (int pass = 0; pass < 2; pass++) {
    uint32_t busy = 0;
    vrt_buffer *oldest = NULL;
    for (vrt_buffer *b = ctx->pool_bins[bin_of(kind, cls)]; b; b = b->bnext) {
      if (b->kind != kind || b->cls != cls || (conc && !b->conc))
        continue;
      if (own_uses_done(ctx, b, done, seen)) {
        unlink_cached(ctx, b);
        return b;
      }
      busy++;
      if (!oldest || atomic_load(&b->last_use) < atomic_load(&oldest->last_use))
        oldest = b;
    }
    if (!busy)
      return NULL;
    /* Queue order (issue 21): a buffer whose first use is a GPU write of
     * every byte the caller keeps (`ordered`: a ufunc's result) may take
     * memory that queued work still uses, as CuPy's stream-ordered pool
     * does: every command buffer starts with a barrier that orders all
     * earlier submissions on the queue before it, and every host access to the new buffer
     * waits for its last use, which is then the new write. The oldest is
     * the likeliest to be done soon. Not once the context has streams
     * (stream.c): the queued work may be on another queue, which no
     * barrier orders (issue 18). */
    if (ordered && pass == 1 && !atomic_load(&ctx->nstreams)) {
      ctx->stats.pool_ordered++;
      unlink_cached(ctx, oldest);
      *in_use = atomic_load(&oldest->last_use) > atomic_load(&ctx->completed);
      return oldest;
    }
    /* Back-pressure: eager ufuncs (issue 21) run ahead of the GPU, and
     * each temporary freed while its work is queued is busy here. Past
     * MAX_BUSY of one class the host waits for the oldest rather than
     * growing the pool by one buffer per queued operation. */
    if (pass == 1 && busy >= MAX_BUSY) {
      vp_diags ignore = {0};
      bool ok = vrt__buffer_idle(oldest, &ignore); /* its queues only */
      vp_diags_free(&ignore);
      if (ok) {
        ctx->stats.pool_waits++;
        unlink_cached(ctx, oldest);
        *in_use = atomic_load(&oldest->last_use) > atomic_load(&ctx->completed);
        return oldest;
      }
    }
    done = vrt__poll(ctx);
  }
  return NULL;
}

/* Makes room under the pool's limit for `cls` more bytes, or says why not. */
static bool fits_limit(vrt_context *ctx, uint64_t size, vrt_memory_kind kind, uint64_t cls,
                       vp_diags *d) {
  uint64_t limit = ctx->pool_limit;
  vrt_context_stats *s = &ctx->stats;
  if (!limit || s->pool_used_bytes + s->pool_cached_bytes + cls <= limit)
    return true;
  if (s->pool_used_bytes + cls <= limit) {
    vrt__pool_trim(ctx, limit - s->pool_used_bytes - cls);
    if (s->pool_used_bytes + s->pool_cached_bytes + cls > limit) {
      vp_diags ignore = {0};
      vrt__pool_release_all(ctx, &ignore);
      vp_diags_free(&ignore);
    }
    if (s->pool_used_bytes + s->pool_cached_bytes + cls <= limit)
      return true;
  }
  vrt__error(ctx, d,
             "out of device memory: cannot allocate %llu bytes of '%s' memory: the memory "
             "pool's limit is %llu bytes and %llu bytes are in use (device '%s')",
             (unsigned long long)size, vrt_memory_kind_name(kind), (unsigned long long)limit,
             (unsigned long long)s->pool_used_bytes, ctx->info.name);
  vp_diag_hint(d, "free arrays, or raise the limit (MemoryPool.set_limit)");
  return false;
}

vrt_buffer *vrt__pool_create(vrt_context *ctx, uint64_t size, vrt_memory_kind kind,
                             uint64_t written, vp_diags *d) {
  uint64_t vk_size = size < 4 ? 4 : (size + 3) & ~(uint64_t)3;
  uint64_t cls = size_class(ctx, vk_size);
  /* The caller writes every byte but the tail past `written` (under 16
   * bytes, often none) on the GPU first: queue order protects it. */
  bool ordered = written + 16 > vk_size && kind != VRT_HOST && kind != VRT_CACHED;
  bool busy;
  vrt_buffer *b = take(ctx, kind, cls, ordered, &busy);
  if (b) {
    ctx->stats.pool_hits++;
    /* The id keys recorded launches, whose descriptors bind vk_size bytes. */
    if (b->vk_size != vk_size)
      b->id = ++ctx->next_id;
  } else {
    if (!fits_limit(ctx, size, kind, cls, d))
      return NULL;
    b = vrt__buffer_make(ctx, cls, kind, 0, d);
    if (!b)
      return NULL;
    b->pooled = true;
    ctx->stats.pool_misses++;
  }
  b->size = size;
  b->vk_size = vk_size;
  ctx->stats.pool_used_bytes += cls;
  VRT_LINK(ctx->buffers, b);
  uint64_t from = written >= vk_size ? vk_size : written & ~(uint64_t)3;
  bool cpu = kind == VRT_HOST || kind == VRT_CACHED || vk_size - from <= SMALL_CPU_ZERO;
  /* A GPU fill is owed, not recorded: dropped if the first operation
   * writes it all (vrt_buffer_will_write), else recorded by whatever uses
   * the buffer first (vrt__zero_owed). A buffer taken back with its owed
   * fill never recorded is owed one again here. */
  b->owed = false;
  if ((!cpu || busy) && from < vk_size) { /* busy: a memset would race the GPU */
    b->owed = true;
    b->owed_from = from;
    return b;
  }
  if (!vrt__buffer_zero(ctx, b, from, cpu, d)) {
    vrt__pool_put(ctx, b);
    return NULL;
  }
  return b;
}

bool vrt_pool_free_all(vrt_context *ctx, vp_diags *d) {
  pthread_mutex_lock(&ctx->lock);
  bool ok = vrt__pool_release_all(ctx, d);
  vrt__alloc_trim(ctx, false);
  pthread_mutex_unlock(&ctx->lock);
  return ok;
}

void vrt_pool_set_limit(vrt_context *ctx, uint64_t bytes) {
  pthread_mutex_lock(&ctx->lock);
  ctx->pool_limit = bytes;
  if (bytes && ctx->stats.pool_used_bytes + ctx->stats.pool_cached_bytes > bytes)
    vrt__pool_trim(ctx, bytes > ctx->stats.pool_used_bytes ? bytes - ctx->stats.pool_used_bytes
                                                           : 0);
  pthread_mutex_unlock(&ctx->lock);
}
