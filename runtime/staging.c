/* staging.c - upload and download, directly or through a staging ring.
 *
 * Host-visible buffers are copied with memcpy through their mapping, after
 * waiting for the GPU work that uses them. Other buffers go through a
 * staging ring: one host-visible buffer (kind `cached`, so reads back are
 * fast) of 4 slots of 8 MiB (vrt_context_options.staging_slots /
 * staging_slot_mib choose others), made on first use and kept. There are two
 * rings, one per queue family (the compute family's, and the transfer
 * family's for transfer streams: stream.c, "sharing"), each EXCLUSIVE and
 * used by its family only, so a transfer stream's upload never waits for
 * slots that the default stream's copies hold.
 *
 * An upload takes a free slot, waits for that slot's previous GPU copy (on
 * that copy's own queue only), fills it, submits a copy from it and gives
 * the slot back; memcpy and DMA overlap because the next chunk goes to the
 * next slot. It returns once the last copy is submitted (later GPU work of
 * the stream is ordered after it, and a download waits for it). A download
 * keeps up to 4 copies in flight and copies each slot out as soon as its
 * copy is done.
 *
 * The context lock is held only to take and give back slots and to record
 * and submit each copy: the waits and the host-side copies (the long part:
 * 256 MiB is ~25 ms of memcpy) run without it, so kernels launched by other
 * threads or on other streams meanwhile are not held up, and several
 * threads may transfer at once (each holds the slots it took; slots are
 * handed out in turn). Every host-side copy of 4 MiB or more is split over
 * the context's copy threads (copy.c; a second concurrent copy runs alone).
 *
 * The upload pipeline, per 8 MiB slot: take a slot (two lock round trips),
 * wait for its previous copy on that copy's queue, memcpy the chunk in on
 * the copy threads (the caller and up to 7 workers, 1 MiB parts at least),
 * flush it where the memory is not coherent, then record and submit one
 * vkCmdCopyBuffer on the buffer's family (the compute queue, or the
 * transfer queue for a transfer stream); the next chunk's memcpy overlaps
 * that copy. Before streams the context lock was held for the whole
 * transfer and the waits were vrt_wait on the one timeline: the same
 * memcpy and copy per chunk. With upload_import_mib the memcpy goes:
 * "imported uploads" below.
 */
#include "internal.h"

#include <string.h>
#include <time.h>

static bool ensure_ring(vrt_context *ctx, vrt_staging *st, vp_diags *d) {
  if (st->buf)
    return true;
  ctx->make_exclusive = true;
  vrt_buffer *s =
      vrt__buffer_create(ctx, ctx->staging_slots * ctx->staging_slot_bytes, VRT_CACHED, 0, d);
  ctx->make_exclusive = false;
  if (!s)
    return false;
  if (!s->map) {
    vrt__error(ctx, d, "device '%s' has no host-visible memory for staging", ctx->info.name);
    vrt__buffer_release(s);
    return false;
  }
  st->buf = s;
  st->slot_size = ctx->staging_slot_bytes;
  st->nslots = ctx->staging_slots;
  st->next = 0;
  memset(st->slot, 0, sizeof st->slot);
  return true;
}

/* Takes a free slot (lock held): its index, or -1 when every slot is held
 * by a transfer in progress. */
static int take_slot(vrt_staging *st) {
  for (uint32_t k = 0; k < st->nslots; k++) {
    uint32_t i = (st->next + k) % st->nslots;
    if (!st->slot[i].busy) {
      st->slot[i].busy = true;
      st->next = (i + 1) % st->nslots;
      return (int)i;
    }
  }
  return -1;
}

/* Takes a slot of the ring (lock not held), making the ring first; with
 * `wait`, waits while every slot is held (other threads' transfers give
 * theirs back soon), else returns -1 then. -2: an error. `value`, `sem`: the
 * slot's last GPU copy. */
static int reserve(vrt_context *ctx, vrt_staging *st, bool wait, uint64_t *value,
                   VkSemaphore *sem, vp_diags *d) {
  for (;;) {
    pthread_mutex_lock(&ctx->lock);
    if (!ensure_ring(ctx, st, d)) {
      pthread_mutex_unlock(&ctx->lock);
      return -2;
    }
    int slot = take_slot(st);
    if (slot >= 0) {
      *value = st->slot[slot].value;
      *sem = st->slot[slot].sem;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (slot >= 0 || !wait)
      return slot;
    if (!vrt__alive(ctx, d))
      return -2;
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
}

static void give_back(vrt_context *ctx, vrt_staging *st, int slot) {
  pthread_mutex_lock(&ctx->lock);
  st->slot[slot].busy = false;
  pthread_mutex_unlock(&ctx->lock);
}

/* Flushes or invalidates one slot's bytes (not the whole ring: another
 * thread may be writing another slot, and invalidating its unflushed
 * writes would lose them). */
static bool sync_slot(vrt_context *ctx, vrt_staging *st, int slot, bool flush, vp_diags *d) {
  vrt_buffer *b = st->buf;
  if ((b->mem_flags & VRT_MEM_HOST_COHERENT) || b->own)
    return true;
  VkMappedMemoryRange r = {
      .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
      .memory = b->alloc.block->memory,
      .offset = b->alloc.offset + (uint64_t)slot * st->slot_size,
      .size = st->slot_size,
  };
  return flush ? VRT_VK(ctx, d, vkFlushMappedMemoryRanges, ctx->device, 1, &r)
               : VRT_VK(ctx, d, vkInvalidateMappedMemoryRanges, ctx->device, 1, &r);
}

/* Records and submits one copy of `region` from `src` to `dst` (lock
 * held). `b` is the device buffer (its zero fill goes first), `other` the
 * staging ring's or an imported buffer; with `other_family` the queue
 * family is chosen for both (vrt__copy_family), else for `b` alone (each
 * ring serves one family). *sem, *t: the copy's timeline and ticket. */
static bool submit_one(vrt_context *ctx, vrt_buffer *b, vrt_buffer *other, bool other_family,
                       VkBuffer src, VkBuffer dst, VkBufferCopy region, VkSemaphore *sem,
                       vrt_ticket *t, vp_diags *d) {
  int cs;
  if (!vrt__zero_owed(ctx, b, d))
    return false;
  bool xfer = vrt__copy_family(ctx, b, other_family ? other : NULL); /* stream.c */
  VkCommandBuffer cb = vrt__cmd_begin_copy(ctx, &cs, xfer, d);
  if (!cb) {
    ctx->route = false;
    return false;
  }
  vrt__barrier_copy(ctx, cb, true, xfer);
  ctx->vk.vkCmdCopyBuffer(cb, src, dst, 1, &region);
  vrt__barrier_copy(ctx, cb, false, xfer);
  bool ok = VRT_VK(ctx, d, vkEndCommandBuffer, cb) && vrt__submit(ctx, &cb, 1, &cs, 1, t, d);
  ctx->route = false;
  if (!ok) {
    ctx->ring[cs].value = 0;
    return false;
  }
  vrt_tl *tl = vrt__tl_current(ctx);
  *sem = tl->sem;
  vrt__buffer_used(b, tl, *t);
  vrt__buffer_used(other, tl, *t);
  return true;
}

/* One copy between a staging slot and the buffer (lock held); the slot
 * remembers the copy's ticket and semaphore. */
static bool submit_copy(vrt_context *ctx, vrt_staging *st, vrt_buffer *b, int slot,
                        uint64_t offset, uint64_t n, bool upload, vp_diags *d) {
  uint64_t at = (uint64_t)slot * st->slot_size;
  VkBufferCopy up = {at, b->offset + offset, n}, down = {b->offset + offset, at, n};
  return upload ? submit_one(ctx, b, st->buf, false, st->buf->buffer, b->buffer, up,
                             &st->slot[slot].sem, &st->slot[slot].value, d)
                : submit_one(ctx, b, st->buf, false, b->buffer, st->buf->buffer, down,
                             &st->slot[slot].sem, &st->slot[slot].value, d);
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

/* The ring a transfer of `b` by this thread uses: the transfer family's
 * when its copies run there (vrt__copy_family's rule). */
static vrt_staging *ring_for(vrt_context *ctx, const vrt_buffer *b) {
  vrt_stream *s = vrt__stream_of(ctx);
  return &ctx->staging[s && s->xfer && b->conc ? 1 : 0];
}

/* Uploads through the ring: fills a slot, submits its copy, moves on. */
static bool upload_staged(vrt_context *ctx, vrt_buffer *b, uint64_t offset, const char *p,
                          uint64_t size, vp_diags *d) {
  vrt_staging *st = ring_for(ctx, b);
  bool ok = true;
  for (uint64_t done = 0; ok && done < size;) {
    uint64_t value;
    VkSemaphore sem;
    int slot = reserve(ctx, st, true, &value, &sem, d);
    if (slot < 0)
      return false;
    uint64_t n = size - done < st->slot_size ? size - done : st->slot_size;
    char *at = (char *)st->buf->map + (uint64_t)slot * st->slot_size;
    /* the slot's previous copy read it: done before it is written */
    ok = vrt__wait_on(ctx, sem, value, d);
    if (ok) {
      vrt__memcpy(ctx, at, p + done, n);
      ok = sync_slot(ctx, st, slot, true, d);
    }
    pthread_mutex_lock(&ctx->lock);
    ok = ok && submit_copy(ctx, st, b, slot, offset + done, n, true, d);
    st->slot[slot].busy = false;
    pthread_mutex_unlock(&ctx->lock);
    done += n;
  }
  return ok;
}

/* Imported uploads (vrt_context_options.upload_import_mib): the whole pages
 * inside the source are imported (VK_EXT_external_memory_host) a piece of
 * upload_import_bytes at a time and copied from by the GPU, while the next
 * piece is imported; the bytes before the first whole page and after the
 * last take the ring. At most IMPORTS_LIVE pieces are pinned at once. The
 * imports are per call and released once their copies are done, before
 * the call returns, so the caller may free or rewrite the source then, as
 * after a staged upload (a cache keyed by address could not tell that
 * NumPy freed the memory and the address came back as other pages). A
 * piece the driver will not import (read-only pages, say) and everything
 * after it is staged instead. */
enum { IMPORTS_LIVE = 4 };

/* Waits for an imported piece's copy and releases it; false when the wait
 * failed (the copy's bytes cannot be trusted). */
static bool release_piece(vrt_buffer **imp, vp_diags *d) {
  if (!*imp)
    return true;
  bool ok = vrt_buffer_wait(*imp, d);
  vrt_buffer_destroy(*imp);
  *imp = NULL;
  return ok;
}

static bool upload_imported(vrt_context *ctx, vrt_buffer *b, uint64_t offset, const char *src,
                            uint64_t size, vp_diags *d) {
  uint64_t page = ctx->info.min_imported_host_pointer_alignment;
  page = page ? page : 4096;
  uintptr_t s = (uintptr_t)src;
  uintptr_t lo = (s + page - 1) / page * page, hi = (s + size) / page * page;
  if (hi <= lo) /* no whole page (a tiny upload_import_mib) */
    return upload_staged(ctx, b, offset, src, size, d);
  uint64_t piece = ctx->upload_import_bytes / page * page;
  bool ok = upload_staged(ctx, b, offset, src, lo - s, d) &&
            upload_staged(ctx, b, offset + (hi - s), (const char *)hi, s + size - hi, d);
  vrt_buffer *live[IMPORTS_LIVE] = {0};
  uint32_t k = 0;
  for (uintptr_t at = lo; ok && at < hi; at += piece, k++) {
    uint64_t n = hi - at < piece ? hi - at : piece;
    ok = release_piece(&live[k % IMPORTS_LIVE], d);
    vp_diags refused = {0}; /* not the caller's error: the ring takes it */
    vrt_buffer *imp = ok ? vrt__import_pages(ctx, (char *)at, n, 0, n, n, &refused) : NULL;
    vp_diags_free(&refused);
    if (!imp) {
      ok = ok && upload_staged(ctx, b, offset + (at - s), (const char *)at, hi - at, d);
      break;
    }
    VkSemaphore sem;
    vrt_ticket t;
    VkBufferCopy region = {0, b->offset + offset + (at - s), n};
    pthread_mutex_lock(&ctx->lock);
    ok = submit_one(ctx, b, imp, true, imp->buffer, b->buffer, region, &sem, &t, d);
    ctx->stats.upload_imports += ok;
    pthread_mutex_unlock(&ctx->lock);
    live[k % IMPORTS_LIVE] = imp;
  }
  for (uint32_t i = 0; i < IMPORTS_LIVE; i++)
    ok = release_piece(&live[i], d) && ok;
  return ok;
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
    /* the GPU work on this buffer, not other streams' (vrt__buffer_idle) */
    if (!vrt_buffer_host_ready(b, d) || !vrt__buffer_idle(b, d))
      return false;
    vrt__memcpy(ctx, (char *)b->map + offset, src, size);
    return vrt_buffer_flush(b, d);
  }
  if (ctx->upload_import_bytes && size >= ctx->upload_import_bytes && ctx->external_host)
    return upload_imported(ctx, b, offset, src, size, d);
  return upload_staged(ctx, b, offset, src, size, d);
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
    if (!vrt_buffer_host_ready(b, d) || !vrt__buffer_idle(b, d) || !vrt_buffer_invalidate(b, d))
      return false;
    vrt__memcpy(ctx, dst, (const char *)b->map + offset, size);
    return true;
  }
  if (b->map && !vrt_buffer_host_ready(b, d))
    return false;
  vrt_staging *st = ring_for(ctx, b);
  pthread_mutex_lock(&ctx->lock);
  bool ok = ensure_ring(ctx, st, d);
  uint64_t slot_size = ok ? st->slot_size : 1;
  uint32_t nslots = ok ? st->nslots : 1; /* chunks in flight at most */
  pthread_mutex_unlock(&ctx->lock);
  char *p = dst;
  uint64_t nchunks = ok ? (size + slot_size - 1) / slot_size : 0;
  uint64_t issued = 0, k = 0;
  /* the slot of chunk c is held[c % nslots], for k <= c < issued */
  int held[VRT_STAGING_SLOTS];
  while (ok && k < nchunks) {
    /* Keep the ring full: issue copies up to nslots chunks ahead, as far as
     * free slots allow (other threads may hold some). */
    while (ok && issued < nchunks && issued < k + nslots) {
      uint64_t value;
      VkSemaphore sem;
      int slot = reserve(ctx, st, issued == k, &value, &sem, d);
      if (slot == -1)
        break; /* copy out what is in flight first */
      if (slot < 0) {
        ok = false;
        break;
      }
      uint64_t at = issued * slot_size;
      uint64_t n = size - at < slot_size ? size - at : slot_size;
      ok = vrt__wait_on(ctx, sem, value, d);
      pthread_mutex_lock(&ctx->lock);
      ok = ok && submit_copy(ctx, st, b, slot, offset + at, n, false, d);
      if (!ok)
        st->slot[slot].busy = false;
      pthread_mutex_unlock(&ctx->lock);
      if (ok)
        held[issued++ % nslots] = slot;
    }
    if (!ok)
      break;
    int slot = held[k % nslots];
    uint64_t at = k * slot_size;
    uint64_t n = size - at < slot_size ? size - at : slot_size;
    /* this thread wrote the slot's value and semaphore (submit_copy) */
    ok = vrt__wait_on(ctx, st->slot[slot].sem, st->slot[slot].value, d) &&
         sync_slot(ctx, st, slot, false, d);
    if (ok)
      vrt__memcpy(ctx, p + at, (const char *)st->buf->map + (uint64_t)slot * slot_size, n);
    give_back(ctx, st, slot);
    k++;
  }
  /* on an error: the slots still held go back */
  for (; k < issued; k++)
    give_back(ctx, st, held[k % nslots]);
  return ok;
}
