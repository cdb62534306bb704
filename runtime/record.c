/* record.c - recordings: many dispatches, copies and fills in one submission.
 *
 * A recording has its own command pool (so a thread can record without the
 * context lock) and tracks, since the last barrier, which buffers were read
 * and written. A command that reads what was written (RAW), or writes what
 * was read or written (WAR, WAW), first gets a global memory barrier between
 * the compute and transfer stages; independent commands run back to back
 * with no barrier. Buffer access comes from the manifest (readonly buffers
 * are only read, writeonly only written, readwrite both).
 *
 * With VRT_RECORD_TIMESTAMPS each dispatch is bracketed by two timestamps in
 * query pools of 256 queries, added as needed. A recording can be submitted
 * again: it waits for its previous submission first. The buffers it uses
 * must outlive it. A released recording's command pool, reset, serves the
 * next one (ctx->spare_pools): a pool created and destroyed per recording
 * cost tens of microseconds a sort on NVIDIA's driver.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { QUERIES = 256 };

typedef struct access {
  uint64_t id;
  bool read, write;
} access;

struct vrt_recording {
  vrt_context *ctx;
  vrt_recording *prev, *next;
  VkCommandPool pool;
  VkCommandBuffer cb;
  bool ended, timestamps, failed;
  vrt_ticket value;
  vrt_buffer **bufs; /* every buffer used, once */
  uint32_t nbufs, capbufs;
  access *acc; /* accesses since the last barrier */
  uint32_t nacc, capacc;
  VkDescriptorPool *set_pools; /* (pool, set) pairs to free */
  VkDescriptorSet *sets;
  uint32_t nsets, capsets;
  VkQueryPool *queries;
  uint32_t nquery_pools, ndispatches, nbarriers;
};

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap)
    return true;
  uint32_t c = *cap ? *cap * 2 : 16;
  while (c < need)
    c *= 2;
  void *n = realloc(*p, c * elem);
  if (!n)
    return false;
  *p = n;
  *cap = c;
  return true;
}

vrt_recording *vrt_record_begin(vrt_context *ctx, uint32_t flags, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return NULL;
  if ((flags & VRT_RECORD_TIMESTAMPS) && !ctx->info.timestamps) {
    vrt__error(ctx, d, "device '%s' cannot write timestamps on its compute queue",
               ctx->info.name);
    return NULL;
  }
  vrt_recording *r = calloc(1, sizeof *r);
  if (!r) {
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  r->ctx = ctx;
  r->timestamps = flags & VRT_RECORD_TIMESTAMPS;
  VkCommandPoolCreateInfo pi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .queueFamilyIndex = ctx->qfamily,
  };
  VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  /* a released recording's pool, reset, when there is one */
  pthread_mutex_lock(&ctx->lock);
  if (ctx->nspare_pools) {
    ctx->nspare_pools--;
    r->pool = ctx->spare_pools[ctx->nspare_pools];
    r->cb = ctx->spare_cbs[ctx->nspare_pools];
  }
  VRT_LINK(ctx->recordings, r);
  pthread_mutex_unlock(&ctx->lock);
  bool ok = true;
  if (!r->pool) {
    ok = VRT_VK(ctx, d, vkCreateCommandPool, ctx->device, &pi, NULL, &r->pool);
    ai.commandPool = r->pool;
    ok = ok && VRT_VK(ctx, d, vkAllocateCommandBuffers, ctx->device, &ai, &r->cb);
  }
  ok = ok && VRT_VK(ctx, d, vkBeginCommandBuffer, r->cb, &bi);
  if (!ok) {
    vrt_record_destroy(r);
    return NULL;
  }
  vrt__barrier(ctx, r->cb, true);
  return r;
}

static bool note_buffer(vrt_recording *r, vrt_buffer *b) {
  for (uint32_t i = 0; i < r->nbufs; i++)
    if (r->bufs[i] == b)
      return true;
  if (!grow((void **)&r->bufs, &r->capbufs, r->nbufs + 1, sizeof *r->bufs))
    return false;
  r->bufs[r->nbufs++] = b;
  return true;
}

/* Records a barrier when the accesses `a` conflict with those since the last
 * one, then adds them to the set. */
static bool hazard(vrt_recording *r, const access *a, uint32_t n) {
  bool conflict = false;
  for (uint32_t i = 0; i < n && !conflict; i++)
    for (uint32_t k = 0; k < r->nacc && !conflict; k++)
      if (r->acc[k].id == a[i].id)
        conflict = r->acc[k].write || a[i].write;
  if (conflict) {
    vrt__barrier(r->ctx, r->cb, true);
    r->nacc = 0;
    r->nbarriers++;
  }
  if (!grow((void **)&r->acc, &r->capacc, r->nacc + n, sizeof *r->acc))
    return false;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k = 0;
    while (k < r->nacc && r->acc[k].id != a[i].id)
      k++;
    if (k == r->nacc)
      r->acc[r->nacc++] = (access){a[i].id, false, false};
    r->acc[k].read |= a[i].read;
    r->acc[k].write |= a[i].write;
  }
  return true;
}

static bool usable(vrt_recording *r, vp_diags *d) {
  if (r->ended) {
    vrt__error(r->ctx, d, "the recording was submitted already; start a new one to add commands");
    return false;
  }
  if (r->failed) {
    vrt__error(r->ctx, d, "the recording failed earlier and cannot be used");
    return false;
  }
  return vrt__alive(r->ctx, d);
}

static bool oom(vrt_recording *r, vp_diags *d) {
  r->failed = true;
  vrt__error(r->ctx, d, "out of host memory");
  return false;
}

bool vrt_record_dispatch(vrt_recording *r, vrt_kernel *k, const vrt_args *args, vrt_grid grid,
                         vp_diags *d) {
  if (!usable(r, d))
    return false;
  vrt_context *ctx = r->ctx;
  if (k->ctx != ctx) {
    vrt__error(ctx, d, "kernel '%s' belongs to another context", k->m->kernel);
    return false;
  }
  uint32_t groups[3];
  unsigned char push[512];
  if (!vrt__prepare(k, args, NULL, grid, groups, push, d))
    return false;
  access acc[64];
  for (uint32_t i = 0; i < args->nbuffers; i++) {
    vpm_access how = k->m->buffers[i].access;
    acc[i] = (access){args->buffers[i]->id, how != VPM_WRITEONLY, how != VPM_READONLY};
    if (!note_buffer(r, args->buffers[i]))
      return oom(r, d);
  }
  VkDescriptorSet sets[VRT_MAX_SETS];
  if (!k->p->push_descriptors && k->p->nsets) {
    VkDescriptorPool pool;
    pthread_mutex_lock(&ctx->lock);
    bool ok = vrt__alloc_sets(k, args, NULL, &pool, sets, d);
    pthread_mutex_unlock(&ctx->lock);
    if (!ok)
      return false;
    if (!grow((void **)&r->sets, &r->capsets, r->nsets + k->p->nsets, sizeof *r->sets) ||
        !(r->set_pools = realloc(r->set_pools, r->capsets * sizeof *r->set_pools)))
      return oom(r, d);
    for (uint32_t s = 0; s < k->p->nsets; s++) {
      r->set_pools[r->nsets] = pool;
      r->sets[r->nsets++] = sets[s];
    }
  }
  if (!hazard(r, acc, args->nbuffers))
    return oom(r, d);
  uint32_t q = 2 * r->ndispatches;
  if (r->timestamps && q / QUERIES >= r->nquery_pools) {
    VkQueryPool *qs = realloc(r->queries, (r->nquery_pools + 1) * sizeof *qs);
    if (!qs)
      return oom(r, d);
    r->queries = qs;
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = QUERIES,
    };
    if (!VRT_VK(ctx, d, vkCreateQueryPool, ctx->device, &qi, NULL, &qs[r->nquery_pools])) {
      r->failed = true;
      return false;
    }
    ctx->vk.vkCmdResetQueryPool(r->cb, qs[r->nquery_pools], 0, QUERIES);
    r->nquery_pools++;
  }
  if (r->timestamps)
    ctx->vk.vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                                r->queries[q / QUERIES], q % QUERIES);
  vrt__record_dispatch(k, r->cb, args, NULL, groups, push, sets);
  if (r->timestamps)
    ctx->vk.vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                                r->queries[q / QUERIES], q % QUERIES + 1);
  r->ndispatches++;
  return true;
}

bool vrt_record_copy(vrt_recording *r, vrt_buffer *dst, uint64_t dst_offset, vrt_buffer *src,
                     uint64_t src_offset, uint64_t size, vp_diags *d) {
  if (!usable(r, d))
    return false;
  if (dst->ctx != r->ctx || src->ctx != r->ctx) {
    vrt__error(r->ctx, d, "copy: a buffer belongs to another context");
    return false;
  }
  if (dst_offset > dst->size || size > dst->size - dst_offset || src_offset > src->size ||
      size > src->size - src_offset) {
    vrt__error(r->ctx, d, "copy: %llu bytes do not fit the buffers", (unsigned long long)size);
    return false;
  }
  if (!size)
    return true;
  access acc[2] = {{src->id, true, false}, {dst->id, false, true}};
  if (!note_buffer(r, src) || !note_buffer(r, dst) || !hazard(r, acc, 2))
    return oom(r, d);
  VkBufferCopy region = {src->offset + src_offset, dst->offset + dst_offset, size};
  r->ctx->vk.vkCmdCopyBuffer(r->cb, src->buffer, dst->buffer, 1, &region);
  return true;
}

bool vrt_record_fill(vrt_recording *r, vrt_buffer *b, uint64_t offset, uint64_t size,
                     uint32_t value, vp_diags *d) {
  if (!usable(r, d))
    return false;
  if (size == UINT64_MAX)
    size = offset <= b->size ? b->size - offset : 0;
  if (b->ctx != r->ctx || offset > b->size || size > b->size - offset || offset % 4 ||
      size % 4) {
    vrt__error(r->ctx, d, "fill: offset %llu and size %llu must be multiples of 4 inside the "
                          "buffer of the same context",
               (unsigned long long)offset, (unsigned long long)size);
    return false;
  }
  if (!size)
    return true;
  access acc = {b->id, false, true};
  if (!note_buffer(r, b) || !hazard(r, &acc, 1))
    return oom(r, d);
  r->ctx->vk.vkCmdFillBuffer(r->cb, b->buffer, b->offset + offset, size, value);
  return true;
}

bool vrt_record_submit(vrt_recording *r, vrt_ticket *ticket, vp_diags *d) {
  vrt_context *ctx = r->ctx;
  if (r->failed) {
    vrt__error(ctx, d, "the recording failed earlier and cannot be submitted");
    return false;
  }
  if (!vrt__alive(ctx, d))
    return false;
  if (!r->ended) {
    vrt__barrier(ctx, r->cb, false);
    r->ended = true;
    if (!VRT_VK(ctx, d, vkEndCommandBuffer, r->cb)) {
      r->failed = true;
      return false;
    }
  }
  if (!vrt__compute_ok(ctx, "a recording", d) || !vrt_wait(ctx, r->value, UINT64_MAX, d))
    return false;
  pthread_mutex_lock(&ctx->lock);
  vrt_ticket t = 0;
  bool ok = true;
  for (uint32_t i = 0; ok && i < r->nbufs; i++)
    ok = vrt__zero_owed(ctx, r->bufs[i], d);
  ok = ok && vrt__submit(ctx, &r->cb, 1, NULL, 0, &t, d);
  if (ok) {
    ctx->stats.dispatches += r->ndispatches;
    r->value = t;
    for (uint32_t i = 0; i < r->nbufs; i++)
      vrt__buffer_used(r->bufs[i], vrt__tl_current(ctx), t);
  }
  pthread_mutex_unlock(&ctx->lock);
  if (ticket)
    *ticket = t;
  return ok;
}

bool vrt_record_run(vrt_recording *r, vp_diags *d) {
  vrt_ticket t;
  return vrt_record_submit(r, &t, d) && vrt_wait(r->ctx, t, UINT64_MAX, d);
}

uint32_t vrt_record_times(vrt_recording *r, double *ns, uint32_t max) {
  vrt_context *ctx = r->ctx;
  if (!r->timestamps || !r->value || !vrt_ticket_done(ctx, r->value))
    return 0;
  uint32_t n = r->ndispatches < max ? r->ndispatches : max;
  uint64_t ts[QUERIES];
  for (uint32_t p = 0; p * (QUERIES / 2) < n; p++) {
    uint32_t first = p * (QUERIES / 2), count = n - first < QUERIES / 2 ? n - first : QUERIES / 2;
    if (ctx->vk.vkGetQueryPoolResults(ctx->device, r->queries[p], 0, 2 * count,
                                      sizeof ts, ts, 8, VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
      return first;
    for (uint32_t i = 0; i < count; i++)
      ns[first + i] = (double)(ts[2 * i + 1] - ts[2 * i]) * ctx->info.timestamp_period;
  }
  return n;
}

uint32_t vrt_record_barrier_count(const vrt_recording *r) { return r->nbarriers; }

void vrt__record_release(vrt_recording *r) {
  vrt_context *ctx = r->ctx;
  VRT_UNLINK(ctx->recordings, r);
  for (uint32_t i = 0; i < r->nsets; i++)
    ctx->vk.vkFreeDescriptorSets(ctx->device, r->set_pools[i], 1, &r->sets[i]);
  for (uint32_t i = 0; i < r->nquery_pools; i++)
    ctx->vk.vkDestroyQueryPool(ctx->device, r->queries[i], NULL);
  /* the pool is kept for the next recording when its command buffer is
   * no longer pending (never submitted, or its submission done) */
  bool idle = !r->value || (!vrt_context_lost(ctx) && r->value <= atomic_load(&ctx->completed));
  if (r->pool && r->cb && idle && ctx->nspare_pools < VRT_SPARE_POOLS &&
      ctx->vk.vkResetCommandPool(ctx->device, r->pool, 0) == VK_SUCCESS) {
    ctx->spare_pools[ctx->nspare_pools] = r->pool;
    ctx->spare_cbs[ctx->nspare_pools++] = r->cb;
  } else if (r->pool) {
    ctx->vk.vkDestroyCommandPool(ctx->device, r->pool, NULL);
  }
  free(r->bufs);
  free(r->acc);
  free(r->set_pools);
  free(r->sets);
  free(r->queries);
  free(r);
}

void vrt_record_destroy(vrt_recording *r) {
  if (!r)
    return;
  vrt_context *ctx = r->ctx;
  vp_diags ignore = {0};
  if (!vrt_context_lost(ctx))
    vrt_wait(ctx, r->value, UINT64_MAX, &ignore);
  vp_diags_free(&ignore);
  pthread_mutex_lock(&ctx->lock);
  vrt__record_release(r);
  pthread_mutex_unlock(&ctx->lock);
}
