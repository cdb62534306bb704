/* staging.c - upload and download, directly or through the staging ring.
 *
 * Host-visible buffers are copied with memcpy through their mapping, after
 * waiting for the GPU work that uses them. Other buffers go through the
 * context's staging ring: one host-visible buffer (kind `cached`, so reads
 * back are fast) of 4 slots of 8 MiB, made on first use and kept. An upload
 * fills a slot, submits a copy from it, and moves to the next slot, waiting
 * only when a slot's previous copy is still running, so memcpy and DMA
 * overlap; it returns once the last copy is submitted (later GPU work is
 * ordered after it, and a download waits for it). A download keeps up to 4
 * copies in flight and copies each slot out as soon as its copy is done.
 * The context lock is held for the whole transfer. Every host-side copy
 * of 4 MiB or more is split over the context's copy threads (copy.c).
 */
#include "internal.h"

#include <string.h>

enum { SLOTS = 4, SLOT_SIZE = 8 << 20 };

static bool ensure_staging(vrt_context *ctx, vp_diags *d) {
  if (ctx->staging)
    return true;
  vrt_buffer *s = vrt__buffer_create(ctx, (uint64_t)SLOTS * SLOT_SIZE, VRT_CACHED, 0, d);
  if (!s)
    return false;
  if (!s->map) {
    vrt__error(ctx, d, "device '%s' has no host-visible memory for staging", ctx->info.name);
    vrt__buffer_release(s);
    return false;
  }
  ctx->staging = s;
  ctx->staging_slot = SLOT_SIZE;
  memset(ctx->staging_value, 0, sizeof ctx->staging_value);
  return true;
}

/* Records and submits one copy between a staging slot and the buffer. */
static bool submit_copy(vrt_context *ctx, vrt_buffer *b, int slot, uint64_t offset, uint64_t n,
                        bool upload, vp_diags *d) {
  int cs;
  bool xfer; /* on a transfer stream's queue family (stream.c) */
  VkCommandBuffer cb =
      vrt__zero_owed(ctx, b, d) ? vrt__cmd_begin_copy(ctx, &cs, &xfer, d) : VK_NULL_HANDLE;
  if (!cb)
    return false;
  VkBufferCopy region = {(uint64_t)slot * ctx->staging_slot, b->offset + offset, n};
  vrt__barrier_copy(ctx, cb, true, xfer);
  if (upload) {
    ctx->vk.vkCmdCopyBuffer(cb, ctx->staging->buffer, b->buffer, 1, &region);
  } else {
    region = (VkBufferCopy){b->offset + offset, (uint64_t)slot * ctx->staging_slot, n};
    ctx->vk.vkCmdCopyBuffer(cb, b->buffer, ctx->staging->buffer, 1, &region);
  }
  vrt__barrier_copy(ctx, cb, false, xfer);
  vrt_ticket t;
  if (!VRT_VK(ctx, d, vkEndCommandBuffer, cb) || !vrt__submit(ctx, &cb, 1, &cs, 1, &t, d)) {
    ctx->ring[cs].value = 0;
    return false;
  }
  ctx->staging_value[slot] = t;
  atomic_store(&b->last_use, t);
  atomic_store(&ctx->staging->last_use, t);
  return true;
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

bool vrt_buffer_upload(vrt_buffer *b, uint64_t offset, const void *src, uint64_t size,
                       vp_diags *d) {
  vrt_context *ctx = b->ctx;
  if (!check_range(b, offset, size, "upload", d))
    return false;
  if (!size)
    return true;
  if (!vrt__alive(ctx, d))
    return false;
  if (b->map) {
    if (!vrt_buffer_host_ready(b, d) || !vrt_wait(ctx, atomic_load(&b->last_use), UINT64_MAX, d))
      return false;
    vrt__memcpy(ctx, (char *)b->map + offset, src, size);
    return vrt_buffer_flush(b, d);
  }
  pthread_mutex_lock(&ctx->lock);
  bool ok = ensure_staging(ctx, d);
  const char *p = src;
  for (uint64_t done = 0, k = 0; ok && done < size; k++) {
    int slot = (int)(k % SLOTS);
    uint64_t n = size - done < ctx->staging_slot ? size - done : ctx->staging_slot;
    ok = vrt_wait(ctx, ctx->staging_value[slot], UINT64_MAX, d);
    if (!ok)
      break;
    vrt__memcpy(ctx, (char *)ctx->staging->map + slot * ctx->staging_slot, p + done, n);
    ok = vrt_buffer_flush(ctx->staging, d) && submit_copy(ctx, b, slot, offset + done, n, true, d);
    done += n;
  }
  pthread_mutex_unlock(&ctx->lock);
  return ok;
}

bool vrt_buffer_download(vrt_buffer *b, uint64_t offset, void *dst, uint64_t size, vp_diags *d) {
  vrt_context *ctx = b->ctx;
  if (!check_range(b, offset, size, "download", d))
    return false;
  if (!size)
    return true;
  if (!vrt__alive(ctx, d))
    return false;
  /* Device-local memory mapped through a discrete GPU's BAR ('rebar', the
   * default kind on the H200) is uncached for the CPU: reading it with
   * memcpy crosses PCIe one read at a time (two orders of magnitude slower
   * than the staging ring on the H200; bench/notes/runtime.md), so such
   * buffers come back by DMA like device memory. Writes through the BAR
   * are write-combined and fast; uploads keep the mapping. */
  bool bar = (b->mem_flags & VRT_MEM_DEVICE_LOCAL) && !(b->mem_flags & VRT_MEM_HOST_CACHED) &&
             ctx->info.kind == VRT_DEVICE_DGPU && size > 4096;
  if (b->map && !bar) {
    if (!vrt_buffer_host_ready(b, d) ||
        !vrt_wait(ctx, atomic_load(&b->last_use), UINT64_MAX, d) || !vrt_buffer_invalidate(b, d))
      return false;
    vrt__memcpy(ctx, dst, (const char *)b->map + offset, size);
    return true;
  }
  if (b->map && !vrt_buffer_host_ready(b, d))
    return false;
  pthread_mutex_lock(&ctx->lock);
  bool ok = ensure_staging(ctx, d);
  char *p = dst;
  uint64_t nchunks = ok ? (size + ctx->staging_slot - 1) / ctx->staging_slot : 0;
  uint64_t issued = 0;
  for (uint64_t k = 0; ok && k < nchunks; k++) {
    /* Keep the ring full: issue copies up to SLOTS chunks ahead. */
    for (; ok && issued < nchunks && issued < k + SLOTS; issued++) {
      int slot = (int)(issued % SLOTS);
      uint64_t at = issued * ctx->staging_slot;
      uint64_t n = size - at < ctx->staging_slot ? size - at : ctx->staging_slot;
      ok = vrt_wait(ctx, ctx->staging_value[slot], UINT64_MAX, d) &&
           submit_copy(ctx, b, slot, offset + at, n, false, d);
    }
    if (!ok)
      break;
    int slot = (int)(k % SLOTS);
    uint64_t at = k * ctx->staging_slot;
    uint64_t n = size - at < ctx->staging_slot ? size - at : ctx->staging_slot;
    ok = vrt_wait(ctx, ctx->staging_value[slot], UINT64_MAX, d) &&
         vrt_buffer_invalidate(ctx->staging, d);
    if (ok)
      vrt__memcpy(ctx, p + at, (const char *)ctx->staging->map + slot * ctx->staging_slot, n);
  }
  pthread_mutex_unlock(&ctx->lock);
  return ok;
}
