/* stream.c - streams and events (issue 18): several queues of one context.
 *
 * A context's tickets stay one counter. The default stream's submissions
 * signal the context's timeline semaphore, as before streams existed; each
 * vrt_stream has a timeline semaphore of its own and signals it with the
 * context's next ticket, so every queue's values are an increasing
 * subsequence of the tickets. Each queue remembers its last VRT_TL_RING
 * tickets (vrt_tl.recent); with that:
 *  - "every ticket <= T is done" (vrt__poll, which the memory pool and the
 *    command-buffer ring compare last-use tickets with) is the minimum over
 *    the busy queues of (their oldest pending ticket - 1): a buffer freed
 *    while another stream's work on it is queued is not handed out again;
 *  - vrt_wait(t) waits on each queue for its largest ticket <= t.
 * While a context has no stream (nstreams 0) none of this runs: the
 * single-queue code in context.c is unchanged.
 *
 * An event is (semaphore, value): recording it reads the stream's last
 * ticket (no GPU command); a stream waiting on it adds a semaphore wait to
 * its next submission. Semaphores signal and wait with full memory
 * dependencies, so the waiter sees the writes before the event. An event of
 * another context (another VkDevice) is waited for by the host, since a
 * semaphore of one device means nothing to another unless exported.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Thread_local vrt_stream *current;

vrt_stream *vrt__stream_of(vrt_context *ctx) {
  vrt_stream *s = current;
  return s && s->ctx == ctx && s->live ? s : NULL;
}

vrt_tl *vrt__tl_current(vrt_context *ctx) {
  vrt_stream *s = vrt__stream_of(ctx);
  return s ? &s->tl : &ctx->tl0;
}

bool vrt__compute_ok(vrt_context *ctx, const char *what, vp_diags *d) {
  vrt_stream *s = vrt__stream_of(ctx);
  if (!s || !s->xfer)
    return true;
  vrt__error(ctx, d,
             "%s cannot run on a transfer stream (queue family %u of device '%s' copies only); "
             "use a compute stream",
             what, s->tl.family, ctx->info.name);
  return false;
}

void vrt__tl_push(vrt_tl *tl, uint64_t t) {
  /* pushed first: a reader that sees `pushed` unchanged across its scan
   * read no slot that was being overwritten */
  uint64_t p = atomic_fetch_add(&tl->pushed, 1);
  atomic_store(&tl->recent[p % VRT_TL_RING], t);
  atomic_store(&tl->last, t);
}

/* The queue's timelines: tl0 and the streams made so far (live or not: a
 * destroyed stream's work may still be pending). */
static uint32_t tls(vrt_context *ctx, vrt_tl **out) {
  uint32_t n = atomic_load(&ctx->nstreams), k = 0;
  out[k++] = &ctx->tl0;
  for (uint32_t i = 0; i < n; i++)
    out[k++] = &ctx->streams[i]->tl;
  return k;
}

static uint64_t sem_value(vrt_context *ctx, VkSemaphore sem, bool *ok) {
  uint64_t v = 0;
  VkResult r = ctx->vk.vkGetSemaphoreCounterValue(ctx->device, sem, &v);
  if (r != VK_SUCCESS) {
    vp_diags ignore = {0};
    vrt__check(ctx, r, "vkGetSemaphoreCounterValue", &ignore);
    vp_diags_free(&ignore);
  }
  *ok = r == VK_SUCCESS;
  return v;
}

/* The queue's oldest ticket > v that it remembers, when its memory reaches
 * back to a ticket <= v (so nothing older is pending); else v + 1 (unknown:
 * as if the next ticket were pending). */
static uint64_t next_pending(vrt_tl *tl, uint64_t v) {
  uint64_t n1 = atomic_load(&tl->pushed);
  bool covered = false;
  uint64_t best = UINT64_MAX;
  uint64_t n = n1 < VRT_TL_RING ? n1 : VRT_TL_RING;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t e = atomic_load(&tl->recent[i]);
    if (!e)
      continue; /* being written: a ticket past the caller's cap */
    if (e <= v)
      covered = true;
    else if (e < best)
      best = e;
  }
  uint64_t n2 = atomic_load(&tl->pushed);
  if (n2 != n1)
    return v + 1;
  if (n2 <= VRT_TL_RING)
    covered = true;
  return covered && best != UINT64_MAX ? best : v + 1;
}

static void note(vrt_context *ctx, uint64_t v) {
  uint64_t seen = atomic_load(&ctx->completed);
  while (v > seen && !atomic_compare_exchange_weak(&ctx->completed, &seen, v))
    ;
}

uint64_t vrt__poll_streams(vrt_context *ctx) {
  /* submitted first: a queue's last and recent are stored before it */
  uint64_t bound = atomic_load(&ctx->submitted);
  vrt_tl *all[VRT_MAX_STREAMS + 1];
  uint32_t n = tls(ctx, all);
  for (uint32_t i = 0; i < n; i++) {
    vrt_tl *tl = all[i];
    uint64_t last = atomic_load(&tl->last);
    if (!last)
      continue;
    bool ok;
    uint64_t v = sem_value(ctx, tl->sem, &ok);
    if (!ok)
      return atomic_load(&ctx->completed);
    if (v >= last)
      continue; /* idle */
    uint64_t b = next_pending(tl, v) - 1;
    if (b < bound)
      bound = b;
  }
  note(ctx, bound);
  return atomic_load(&ctx->completed);
}

/* The largest ticket <= t of the queue, 0 when it has none, t when its
 * memory does not reach back that far (waiting for t then over-waits a
 * little, never too little). */
static uint64_t largest_le(vrt_tl *tl, uint64_t t) {
  uint64_t last = atomic_load(&tl->last);
  if (last <= t)
    return last;
  uint64_t n1 = atomic_load(&tl->pushed), best = 0;
  uint64_t n = n1 < VRT_TL_RING ? n1 : VRT_TL_RING;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t e = atomic_load(&tl->recent[i]);
    if (e && e <= t && e > best)
      best = e;
  }
  if (atomic_load(&tl->pushed) != n1)
    return t;
  if (!best && n1 > VRT_TL_RING)
    return t;
  return best;
}

bool vrt__wait_streams(vrt_context *ctx, vrt_ticket t, uint64_t timeout_ns, vp_diags *d) {
  vrt_tl *all[VRT_MAX_STREAMS + 1];
  uint32_t n = tls(ctx, all);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = largest_le(all[i], t);
    if (v && !vrt__wait_sem(ctx, all[i]->sem, v, timeout_ns, false, d))
      return false;
  }
  vrt__poll_streams(ctx);
  return true;
}

bool vrt__ticket_done_streams(vrt_context *ctx, vrt_ticket t) {
  vrt_tl *all[VRT_MAX_STREAMS + 1];
  uint32_t n = tls(ctx, all);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = largest_le(all[i], t);
    bool ok;
    if (v && sem_value(ctx, all[i]->sem, &ok) < v)
      return false;
  }
  return true;
}

/* ------------------------------------------------------------- streams */

static bool make_sem(vrt_context *ctx, VkSemaphore *out, bool exportable, vp_diags *d) {
  VkExportSemaphoreCreateInfo ex = {
      .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
      .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkSemaphoreTypeCreateInfo st = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
      .pNext = exportable ? &ex : NULL,
      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
  };
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &st};
  return VRT_VK(ctx, d, vkCreateSemaphore, ctx->device, &si, NULL, out);
}

vrt_stream *vrt_stream_create(vrt_context *ctx, vrt_stream_kind kind, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return NULL;
  pthread_mutex_lock(&ctx->lock);
  /* held eager dispatches go first: with streams nothing is held
   * (vrt_dispatch_eager), and the held batch belongs to the default queue */
  if (!vrt__send_held(ctx, d)) {
    pthread_mutex_unlock(&ctx->lock);
    return NULL;
  }
  vrt_stream *s = NULL;
  uint32_t n = atomic_load(&ctx->nstreams);
  for (uint32_t i = 0; i < n && !s; i++)
    if (!ctx->streams[i]->live)
      s = ctx->streams[i];
  if (!s) {
    if (n == VRT_MAX_STREAMS) {
      pthread_mutex_unlock(&ctx->lock);
      vrt__error(ctx, d, "too many streams on device '%s' (at most %d live at once)",
                 ctx->info.name, VRT_MAX_STREAMS);
      return NULL;
    }
    s = calloc(1, sizeof *s);
    if (!s || !make_sem(ctx, &s->tl.sem, ctx->export_sem, d)) {
      if (!s)
        vrt__error(ctx, d, "out of host memory");
      free(s);
      pthread_mutex_unlock(&ctx->lock);
      return NULL;
    }
    s->ctx = ctx;
    s->tl.id = n + 1; /* buffers' per-timeline uses (vrt__buffer_used) */
    ctx->streams[n] = s;
    atomic_store(&ctx->nstreams, n + 1);
  }
  /* Its queue: a transfer-only family's for a transfer stream where there
   * is one; else the compute family's queues after the default one, in
   * turn; else the default stream's queue (shared). */
  s->kind = kind;
  s->xfer = kind == VRT_STREAM_TRANSFER && ctx->xqueue;
  if (s->xfer)
    atomic_fetch_add(&ctx->xlive, 1); /* new buffers: usable by both families */
  s->tl.nwaits = 0;
  if (s->xfer) {
    s->tl.queue = ctx->xqueue;
    s->tl.family = ctx->xfamily;
    s->tl.index = 0;
  } else {
    uint32_t q = 0;
    if (ctx->ncqueues > 1) {
      q = 1 + ctx->next_cqueue % (ctx->ncqueues - 1);
      ctx->next_cqueue++;
    }
    s->tl.queue = ctx->cqueues[q];
    s->tl.family = ctx->qfamily;
    s->tl.index = q;
  }
  s->live = true;
  pthread_mutex_unlock(&ctx->lock);
  return s;
}

void vrt_stream_destroy(vrt_stream *s) {
  if (!s)
    return;
  vp_diags ignore = {0};
  if (!vrt_context_lost(s->ctx))
    vrt_stream_synchronize(s->ctx, s, UINT64_MAX, &ignore);
  vp_diags_free(&ignore);
  if (current == s)
    current = NULL;
  pthread_mutex_lock(&s->ctx->lock);
  if (s->live && s->xfer)
    atomic_fetch_sub(&s->ctx->xlive, 1);
  s->live = false; /* the semaphore and its values stay for the next stream */
  s->tl.nwaits = 0;
  pthread_mutex_unlock(&s->ctx->lock);
}

vrt_context *vrt_stream_context(const vrt_stream *s) { return s->ctx; }
vrt_stream_kind vrt_stream_kind_of(const vrt_stream *s) { return (vrt_stream_kind)s->kind; }
uint32_t vrt_stream_queue_family(const vrt_stream *s) { return s->tl.family; }
uint32_t vrt_stream_queue_index(const vrt_stream *s) { return s->tl.index; }
bool vrt_stream_shared(const vrt_stream *s) { return s->tl.queue == s->ctx->queue; }

vrt_stream *vrt_stream_set_current(vrt_stream *s) {
  vrt_stream *old = current;
  current = s;
  return old;
}
vrt_stream *vrt_stream_current(void) { return current; }
uint32_t vrt_stream_count(const vrt_context *ctx) { return atomic_load(&ctx->nstreams); }

static vrt_tl *tl_of(vrt_context *ctx, const vrt_stream *s) {
  return s ? (vrt_tl *)&s->tl : &ctx->tl0;
}

vrt_ticket vrt_stream_last(vrt_context *ctx, const vrt_stream *s) {
  if (!s && !atomic_load(&ctx->nstreams))
    return atomic_load(&ctx->submitted);
  return atomic_load(&tl_of(ctx, s)->last);
}

bool vrt_stream_synchronize(vrt_context *ctx, vrt_stream *s, uint64_t timeout_ns, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return false;
  if (!s && !atomic_load(&ctx->nstreams))
    return vrt_context_wait_idle(ctx, d);
  vrt_tl *tl = tl_of(ctx, s);
  uint64_t last = atomic_load(&tl->last);
  if (!last)
    return true;
  bool ok = vrt__wait_sem(ctx, tl->sem, last, timeout_ns, false, d);
  if (ok)
    vrt__poll(ctx);
  return ok;
}

bool vrt_stream_query(vrt_context *ctx, vrt_stream *s) {
  vrt_tl *tl = tl_of(ctx, s);
  uint64_t last = !s && !atomic_load(&ctx->nstreams) ? atomic_load(&ctx->submitted)
                                                      : atomic_load(&tl->last);
  bool ok;
  return !last || sem_value(ctx, tl->sem, &ok) >= last;
}

/* -------------------------------------------------------------- events */

struct vrt_event {
  vrt_context *ctx;
  VkSemaphore sem;  /* a stream's (not owned) or the gate's (owned) */
  uint64_t value;   /* 0: never recorded */
  bool gate;
  bool exportable;  /* recorded on a stream whose semaphore exports */
};

vrt_event *vrt_event_create(vrt_context *ctx, vp_diags *d) {
  vrt_event *e = calloc(1, sizeof *e);
  if (!e)
    vrt__error(ctx, d, "out of host memory");
  else
    e->ctx = ctx;
  return e;
}

vrt_event *vrt_event_create_gate(vrt_context *ctx, vp_diags *d) {
  vrt_event *e = vrt_event_create(ctx, d);
  if (e && !make_sem(ctx, &e->sem, false, d)) {
    free(e);
    return NULL;
  }
  if (e) {
    e->gate = true;
    e->value = 1;
  }
  return e;
}

void vrt_event_destroy(vrt_event *e) {
  if (!e)
    return;
  if (e->gate) {
    /* A gate must not go while a queued submission waits on it: open it
     * (what waited runs on), and let the device finish with it. */
    vp_diags ignore = {0};
    vrt_event_set(e, &ignore);
    vrt_context_wait_idle(e->ctx, &ignore);
    vp_diags_free(&ignore);
    e->ctx->vk.vkDestroySemaphore(e->ctx->device, e->sem, NULL);
  }
  free(e);
}

vrt_context *vrt_event_context(const vrt_event *e) { return e->ctx; }

bool vrt_event_record(vrt_event *e, vrt_stream *s, vp_diags *d) {
  vrt_context *ctx = e->ctx;
  if (e->gate) {
    vrt__error(ctx, d, "a gate event is set by the host, not recorded on a stream");
    return false;
  }
  if (s && s->ctx != ctx) {
    vrt__error(ctx, d, "the event belongs to device '%s', the stream to another context ('%s')",
               ctx->info.name, s->ctx->info.name);
    return false;
  }
  pthread_mutex_lock(&ctx->lock);
  vrt_tl *tl = tl_of(ctx, s);
  e->exportable = s && ctx->export_sem;
  e->sem = tl->sem;
  e->value = atomic_load(&tl->last);
  pthread_mutex_unlock(&ctx->lock);
  return true;
}

bool vrt_event_query(vrt_event *e) {
  if (!e->value)
    return true;
  bool ok;
  return sem_value(e->ctx, e->sem, &ok) >= e->value;
}

bool vrt_event_synchronize(vrt_event *e, uint64_t timeout_ns, vp_diags *d) {
  if (!e->value)
    return true;
  if (!vrt__alive(e->ctx, d))
    return false;
  return vrt__wait_sem(e->ctx, e->sem, e->value, timeout_ns, false, d);
}

bool vrt_event_set(vrt_event *e, vp_diags *d) {
  if (!e->gate) {
    vrt__error(e->ctx, d, "only a gate event is set by the host");
    return false;
  }
  bool ok;
  if (sem_value(e->ctx, e->sem, &ok) >= 1)
    return true;
  VkSemaphoreSignalInfo si = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
      .semaphore = e->sem,
      .value = 1,
  };
  return VRT_VK(e->ctx, d, vkSignalSemaphore, e->ctx->device, &si);
}

/* The event's semaphore imported into ctx (a stream semaphore of another
 * context on the same physical device, exported as an opaque fd), made once
 * per source semaphore and kept until ctx goes; VK_NULL_HANDLE where that
 * is impossible (then the host waits). Opaque fds carry a payload only
 * between devices of one driver and one physical device (the spec's
 * deviceUUID/driverUUID rule), so other pairs never try. */
static VkSemaphore import_sem(vrt_context *ctx, vrt_event *e) {
  vrt_context *src = e->ctx;
  if (!e->exportable || !src->export_sem || !ctx->export_sem ||
      memcmp(src->info.device_uuid, ctx->info.device_uuid, 16) != 0 ||
      src->info.driver_id != ctx->info.driver_id ||
      src->info.driver_version != ctx->info.driver_version)
    return VK_NULL_HANDLE;
  pthread_mutex_lock(&ctx->lock);
  VkSemaphore sem = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < ctx->nimports && !sem; i++)
    if (ctx->imports[i].src == e->sem && ctx->imports[i].src_serial == src->serial)
      sem = ctx->imports[i].sem;
  if (!sem && ctx->nimports < 16 && src->vk.vkGetSemaphoreFdKHR &&
      ctx->vk.vkImportSemaphoreFdKHR) {
    vp_diags ignore = {0};
    VkSemaphoreGetFdInfoKHR gi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
        .semaphore = e->sem,
        .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    int fd = -1;
    VkSemaphore mine = VK_NULL_HANDLE;
    if (VRT_VK(src, &ignore, vkGetSemaphoreFdKHR, src->device, &gi, &fd) &&
        make_sem(ctx, &mine, false, &ignore)) {
      VkImportSemaphoreFdInfoKHR ii = {
          .sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
          .semaphore = mine,
          .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
          .fd = fd,
      };
      if (VRT_VK(ctx, &ignore, vkImportSemaphoreFdKHR, ctx->device, &ii)) {
        fd = -1; /* the driver owns it now */
        ctx->imports[ctx->nimports].src = e->sem;
        ctx->imports[ctx->nimports].src_serial = src->serial;
        ctx->imports[ctx->nimports++].sem = mine;
        sem = mine;
      } else {
        ctx->vk.vkDestroySemaphore(ctx->device, mine, NULL);
      }
    }
    if (fd >= 0)
      close(fd);
    vp_diags_free(&ignore);
  }
  pthread_mutex_unlock(&ctx->lock);
  return sem;
}

bool vrt_stream_wait_event(vrt_context *ctx, vrt_stream *s, vrt_event *e, vrt_wait_how *how,
                           vp_diags *d) {
  if (s && s->ctx != ctx) {
    vrt__error(ctx, d, "the stream belongs to another context ('%s')", s->ctx->info.name);
    return false;
  }
  VkSemaphore sem = e->sem;
  if (e->ctx != ctx) {
    /* Another VkDevice: its semaphore means nothing here unless exported
     * and imported; else the host waits. */
    sem = e->value && !vrt_event_query(e) ? import_sem(ctx, e) : VK_NULL_HANDLE;
    if (!sem) {
      if (how)
        *how = VRT_WAIT_HOST;
      return vrt_event_synchronize(e, UINT64_MAX, d);
    }
    if (how)
      *how = VRT_WAIT_SEMAPHORE;
  } else if (how) {
    *how = VRT_WAIT_GPU;
  }
  if (!e->value || vrt_event_query(e))
    return true;
  pthread_mutex_lock(&ctx->lock);
  vrt_tl *tl = tl_of(ctx, s);
  bool ok = true;
  uint32_t i = 0;
  while (i < tl->nwaits && tl->wait_sem[i] != sem)
    i++;
  if (i == tl->nwaits) {
    if (i == 16) {
      vrt__error(ctx, d, "a stream waits on at most 16 semaphores at once");
      ok = false;
    } else {
      tl->nwaits++;
      tl->wait_sem[i] = sem;
      tl->wait_value[i] = 0;
    }
  }
  if (ok && e->value > tl->wait_value[i])
    tl->wait_value[i] = e->value;
  pthread_mutex_unlock(&ctx->lock);
  return ok;
}

/* ----------------------------------------------------- teardown, copies */

void vrt__streams_destroy(vrt_context *ctx) {
  for (uint32_t i = 0; i < ctx->nimports; i++)
    ctx->vk.vkDestroySemaphore(ctx->device, ctx->imports[i].sem, NULL);
  ctx->nimports = 0;
  uint32_t n = atomic_load(&ctx->nstreams);
  for (uint32_t i = 0; i < n; i++) {
    vrt_stream *s = ctx->streams[i];
    if (current == s)
      current = NULL;
    ctx->vk.vkDestroySemaphore(ctx->device, s->tl.sem, NULL);
    free(s);
    ctx->streams[i] = NULL;
  }
  atomic_store(&ctx->nstreams, 0);
  if (ctx->xpool)
    ctx->vk.vkDestroyCommandPool(ctx->device, ctx->xpool, NULL);
  ctx->xpool = VK_NULL_HANDLE;
}

VkCommandBuffer vrt__cmd_begin_copy(vrt_context *ctx, int *slot, bool xfer, vp_diags *d) {
  /* the transfer family's command buffers: the ring's slots past VRT_RING */
  return xfer ? vrt__ring_begin(ctx, VRT_RING, VRT_XRING, &ctx->xring_next, slot, d)
              : vrt__cmd_begin(ctx, slot, d);
}

void vrt__barrier_copy(vrt_context *ctx, VkCommandBuffer cb, bool start, bool xfer) {
  if (!xfer) {
    vrt__barrier(ctx, cb, start);
    return;
  }
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                       (start ? 0 : VK_ACCESS_HOST_READ_BIT),
  };
  VkPipelineStageFlags dst =
      VK_PIPELINE_STAGE_TRANSFER_BIT | (start ? 0 : VK_PIPELINE_STAGE_HOST_BIT);
  ctx->vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, dst, 0, 1, &mb, 0, NULL, 0,
                               NULL);
}

/* ------------------------------------------------------------- sharing
 *
 * A VkBuffer of VK_SHARING_MODE_EXCLUSIVE may be used by one queue family
 * at a time: a second family's use needs a queue-family ownership transfer
 * (a release barrier on the old family's queue, an acquire on the new
 * one's, a semaphore between) or its contents are undefined. CONCURRENT
 * buffers need none, but the H200 moved 256 MiB 15-35 % slower once every
 * buffer was CONCURRENT (docs/multidevice.md, "Streams"). So:
 *  - a buffer is made CONCURRENT over the compute and transfer families
 *    only while the context has a live transfer stream on a family of its
 *    own (or always with VULPY_SHARING=concurrent); else EXCLUSIVE, as
 *    with one queue. `conc` remembers which.
 *  - the transfer family touches nothing else: a transfer stream's copy of
 *    a buffer made EXCLUSIVE (before the stream, or imported then) is
 *    recorded for the compute family and submitted on a compute queue
 *    (the family's last, or the default one), still on the stream's timeline (vrt__submit's `route`): after the
 *    stream's earlier work, and before its later work, which waits for it.
 *    Nothing overlaps for that copy, but it is never wrong.
 *  - each family has a staging ring of its own (staging.c), EXCLUSIVE,
 *    never used by the other family.
 * Devices with one family keep EXCLUSIVE buffers and never route;
 * VULPY_TRANSFER_FAMILY=emulate (tests) makes a transfer stream take these
 * paths on the default queue, with `conc` kept as bookkeeping only (one
 * family cannot be named twice in a CONCURRENT buffer).
 */

bool vrt__sharing(vrt_context *ctx, VkBufferCreateInfo *bi, uint32_t *fams) {
  bool conc = ctx->xfamily != UINT32_MAX && !ctx->make_exclusive &&
              (ctx->always_concurrent || atomic_load(&ctx->xlive) > 0);
  if (conc && ctx->xfamily != ctx->qfamily) {
    fams[0] = ctx->qfamily;
    fams[1] = ctx->xfamily;
    bi->sharingMode = VK_SHARING_MODE_CONCURRENT;
    bi->queueFamilyIndexCount = 2;
    bi->pQueueFamilyIndices = fams;
  }
  if (conc)
    atomic_fetch_add(&ctx->conc_buffers, 1);
  return conc;
}

bool vrt__copy_family(vrt_context *ctx, const vrt_buffer *a, const vrt_buffer *b) {
  vrt_stream *s = vrt__stream_of(ctx);
  ctx->route = false;
  if (!s || !s->xfer)
    return false;
  if ((a && !a->conc) || (b && !b->conc)) {
    ctx->route = true;
    atomic_fetch_add(&ctx->xfer_routed, 1);
    return false;
  }
  atomic_fetch_add(&ctx->xfer_copies, 1);
  return true;
}

bool vrt__wait_on(vrt_context *ctx, VkSemaphore sem, uint64_t t, vp_diags *d) {
  if (!t || t <= atomic_load(&ctx->completed))
    return true;
  /* a held eager dispatch's ticket (no stream then): vrt_wait sends it */
  if (!sem || t > atomic_load(&ctx->sent))
    return vrt_wait(ctx, t, UINT64_MAX, d);
  if (!vrt__alive(ctx, d))
    return false;
  return vrt__wait_sem(ctx, sem, t, UINT64_MAX, sem == ctx->timeline && !atomic_load(&ctx->nstreams),
                       d);
}

bool vrt__cmd_done(vrt_context *ctx, const vrt_cmd *c, uint64_t done) {
  if (c->value <= done)
    return true;
  if (c->value == UINT64_MAX || !c->sem)
    return false;
  bool ok;
  return sem_value(ctx, c->sem, &ok) >= c->value && ok;
}
