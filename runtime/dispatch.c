/* dispatch.c - running a kernel: synchronous, asynchronous, timed.
 *
 * A dispatch is checked (buffer count, context, size limits, grid limits),
 * its groups computed (ceil(count / local size) per dimension), and its push
 * block assembled, with the dispatch_guard field set to the invocation
 * counts. The fast path is the launch cache: each kernel keeps the command
 * buffers it recorded, keyed by (buffer ids, groups, push bytes); the same
 * dispatch again - the common case in a loop - resubmits the recorded
 * command buffer without recording anything. A launch opens with the
 * runtime's opening barrier, which orders all earlier work on the queue
 * before it, and ends with the closing barrier (its writes made visible to
 * the host) only when it binds memory the host or another API can read
 * (host_reads: host-visible, imported or exported memory) or reads a
 * result back. Where every buffer is device-local, later
 * work is ordered by its own opening barrier (every command buffer the
 * runtime records starts with one) and the host reads nothing but through a
 * copy, which has its own closing barrier. On the H200 a barrier at the end
 * of a tiny dispatch's command buffer cost ~1 us of its 12.7 us round trip,
 * one at the start nothing measurable (runtime_bench, "opening barrier
 * only"); lavapipe's memory is all host-visible, so there every launch
 * still closes with the barrier.
 *
 * Every launch is recorded for simultaneous use, and is resubmitted while
 * it is still pending: asynchronous loops (eager
 * ufuncs, issue 21, run ahead of the GPU) resubmit one command buffer
 * instead of recording one per call until the launch slots run out. Its
 * push constants and descriptors are baked into the recording, so pending
 * runs and the new one cannot disturb each other.
 *
 * vrt_dispatch_readback appends a copy (after a barrier) to the dispatch's
 * command buffer, then the closing barrier: a small result read back into
 * host-visible memory in the dispatch's own submission.
 *
 * Buffers are bound whole, or the byte range vrt_dispatch_ranges gives (a
 * view of an array, at an offset the device's alignment allows), with push
 * descriptors where the device has them,
 * otherwise with descriptor sets from the context's pools, which each cached
 * launch keeps for as long as it lives.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Whether something other than this queue's later work may read memory a
 * dispatch binds without a copy of its own: the host (host-visible or
 * imported memory) or another API (memory of its own: imported, or
 * exported to CUDA and the like, export.c). Then its command buffer ends
 * with the closing barrier. */
static bool host_reads(const vrt_args *a) {
  for (uint32_t i = 0; i < a->nbuffers; i++) {
    const vrt_buffer *b = a->buffers[i];
    if (b->imported || b->own || (b->mem_flags & VRT_MEM_HOST_VISIBLE))
      return true;
  }
  return false;
}

enum { MAX_LAUNCHES = 64, KEY_MAX = 64 * (8 + 16) + 12 + 512 + 1 + 40 };

/* The descriptor of buffer i of a dispatch: the whole buffer, or the range
 * `ranges` gives (checked by vrt__prepare). */
static VkDescriptorBufferInfo bind_info(const vrt_args *a, const vrt_bind_range *ranges,
                                        uint32_t i) {
  VkDescriptorBufferInfo info = vrt__descriptor(a->buffers[i]);
  if (ranges && ranges[i].size) {
    info.offset = a->buffers[i]->offset + ranges[i].offset;
    info.range = ranges[i].size;
  }
  return info;
}

bool vrt__prepare(vrt_kernel *k, const vrt_args *a, const vrt_bind_range *ranges, vrt_grid g,
                  uint32_t groups[3], unsigned char *push, vp_diags *d) {
  vrt_context *ctx = k->ctx;
  const vpm_manifest *m = k->m;
  if (a->nbuffers != m->nbuffers) {
    vrt__error(ctx, d, "kernel '%s' takes %u buffer%s, got %u", m->kernel, m->nbuffers,
               m->nbuffers == 1 ? "" : "s", a->nbuffers);
    return false;
  }
  for (uint32_t i = 0; i < a->nbuffers; i++) {
    vrt_buffer *b = a->buffers[i];
    if (!b) {
      vrt__error(ctx, d, "kernel '%s': buffer '%s' is missing", m->kernel, m->buffers[i].name);
      return false;
    }
    if (b->ctx != ctx) {
      vrt__error(ctx, d, "kernel '%s': buffer '%s' belongs to another context", m->kernel,
                 m->buffers[i].name);
      return false;
    }
    const vrt_bind_range *r = ranges && ranges[i].size ? &ranges[i] : NULL;
    uint64_t align = ctx->info.min_storage_buffer_offset_alignment;
    if (r && (r->offset > b->size || r->size > b->size - r->offset ||
              (align && r->offset % align))) {
      vrt__error(ctx, d, "kernel '%s': buffer '%s' bound at bytes %llu..%llu of a %llu-byte "
                         "buffer: the range must lie inside it and start at a multiple of %llu "
                         "(minStorageBufferOffsetAlignment) on device '%s'",
                 m->kernel, m->buffers[i].name, (unsigned long long)r->offset,
                 (unsigned long long)(r->offset + r->size), (unsigned long long)b->size,
                 (unsigned long long)align, ctx->info.name);
      return false;
    }
    if (r ? r->size > ctx->info.max_storage_buffer_range
          : b->vk_size > ctx->info.max_storage_buffer_range) {
      vrt__error(ctx, d, "kernel '%s': buffer '%s' is %llu bytes, more than the %llu bytes "
                         "(maxStorageBufferRange) a kernel can bind on device '%s'",
                 m->kernel, m->buffers[i].name, (unsigned long long)b->size,
                 (unsigned long long)ctx->info.max_storage_buffer_range, ctx->info.name);
      return false;
    }
  }
  if (a->push_size > k->push_size) {
    vrt__error(ctx, d, "kernel '%s': %u bytes of push constants given, the manifest has %u",
               m->kernel, a->push_size, m->push_size);
    return false;
  }
  memset(push, 0, k->push_size);
  if (a->push_size)
    memcpy(push, a->push, a->push_size);
  uint32_t counts[3];
  for (int i = 0; i < 3; i++) {
    if (g.groups) {
      groups[i] = g.n[i];
      counts[i] = (uint32_t)((uint64_t)g.n[i] * k->local[i] > UINT32_MAX
                                 ? UINT32_MAX
                                 : (uint64_t)g.n[i] * k->local[i]);
    } else {
      groups[i] = (uint32_t)(((uint64_t)g.n[i] + k->local[i] - 1) / k->local[i]);
      counts[i] = g.n[i];
    }
    if (groups[i] > ctx->info.max_workgroup_count[i]) {
      vrt__error(ctx, d, "kernel '%s': %u workgroups in %c, more than the %u device '%s' "
                         "allows", m->kernel, groups[i], "xyz"[i],
                 ctx->info.max_workgroup_count[i], ctx->info.name);
      /* maxComputeWorkGroupCount is per axis (65535 on many devices): a
       * larger 1-D problem needs a loop or a second axis in the kernel. */
      vp_diag_hint(d, "maxComputeWorkGroupCount[%d] is %u: dispatch at most %llu invocations "
                      "along %c with this local size and reach the other elements with a "
                      "grid-stride loop in the kernel (or a 2-D dispatch)",
                   i, ctx->info.max_workgroup_count[i],
                   (unsigned long long)ctx->info.max_workgroup_count[i] * k->local[i], "xyz"[i]);
      return false;
    }
  }
  if (k->guard_offset >= 0)
    memcpy(push + k->guard_offset, counts, sizeof counts);
  return true;
}

static bool new_desc_pool(vrt_context *ctx, vp_diags *d) {
  VkDescriptorPool *pools = realloc(ctx->desc_pools, (ctx->ndesc_pools + 1) * sizeof *pools);
  if (!pools) {
    vrt__error(ctx, d, "out of host memory");
    return false;
  }
  ctx->desc_pools = pools;
  VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1024};
  VkDescriptorPoolCreateInfo pi = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
      .maxSets = 256,
      .poolSizeCount = 1,
      .pPoolSizes = &size,
  };
  if (!VRT_VK(ctx, d, vkCreateDescriptorPool, ctx->device, &pi, NULL,
              &pools[ctx->ndesc_pools]))
    return false;
  ctx->ndesc_pools++;
  return true;
}

bool vrt__alloc_sets(vrt_kernel *k, const vrt_args *a, const vrt_bind_range *ranges,
                     VkDescriptorPool *pool, VkDescriptorSet *sets, vp_diags *d) {
  vrt_context *ctx = k->ctx;
  vrt_pipeline *p = k->p;
  VkDescriptorSetAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorSetCount = p->nsets,
      .pSetLayouts = p->sets,
  };
  VkResult r = VK_ERROR_OUT_OF_POOL_MEMORY;
  /* Newest pool first; a full pool makes a new one. */
  for (int tries = 0; r != VK_SUCCESS && tries < 2; tries++) {
    if (!ctx->ndesc_pools || tries == 1)
      if (!new_desc_pool(ctx, d))
        return false;
    ai.descriptorPool = ctx->desc_pools[ctx->ndesc_pools - 1];
    r = ctx->vk.vkAllocateDescriptorSets(ctx->device, &ai, sets);
    if (r != VK_SUCCESS && r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)
      return vrt__check(ctx, r, "vkAllocateDescriptorSets", d);
  }
  if (!vrt__check(ctx, r, "vkAllocateDescriptorSets", d))
    return false;
  *pool = ai.descriptorPool;
  VkDescriptorBufferInfo infos[64];
  VkWriteDescriptorSet writes[64];
  for (uint32_t i = 0; i < a->nbuffers; i++) {
    infos[i] = bind_info(a, ranges, i);
    writes[i] = (VkWriteDescriptorSet){
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = sets[k->m->buffers[i].set],
        .dstBinding = k->m->buffers[i].binding,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &infos[i],
    };
  }
  ctx->vk.vkUpdateDescriptorSets(ctx->device, a->nbuffers, writes, 0, NULL);
  return true;
}

void vrt__record_dispatch(vrt_kernel *k, VkCommandBuffer cb, const vrt_args *a,
                          const vrt_bind_range *ranges, const uint32_t groups[3],
                          const unsigned char *push, const VkDescriptorSet *sets) {
  vrt_context *ctx = k->ctx;
  vrt_pipeline *p = k->p;
  ctx->vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
  if (p->push_descriptors && a->nbuffers) {
    VkDescriptorBufferInfo infos[64];
    VkWriteDescriptorSet writes[64];
    for (uint32_t i = 0; i < a->nbuffers; i++) {
      infos[i] = bind_info(a, ranges, i);
      writes[i] = (VkWriteDescriptorSet){
          .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
          .dstBinding = k->m->buffers[i].binding,
          .descriptorCount = 1,
          .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
          .pBufferInfo = &infos[i],
      };
    }
    ctx->vk.vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0,
                                      a->nbuffers, writes);
  } else if (p->nsets) {
    ctx->vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, p->nsets,
                                    sets, 0, NULL);
  }
  if (k->push_size)
    ctx->vk.vkCmdPushConstants(cb, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, k->push_size,
                               push);
  ctx->vk.vkCmdDispatch(cb, groups[0], groups[1], groups[2]);
}

/* The launch-cache entry to record into: a new one while the kernel has
 * fewer than KEEP_LAUNCHES (so that synchronous code alternating between a
 * few buffer sets - `c = a + b` with the memory pool handing the last two
 * results' buffers out in turn - finds each recorded); then a free one,
 * least recently used first; a new one while there is room; else the
 * oldest, after a wait. */
enum { KEEP_LAUNCHES = 4 };
static vrt_launch *launch_slot(vrt_kernel *k, vp_diags *d) {
  vrt_context *ctx = k->ctx;
  uint64_t done = vrt__poll(ctx);
  vrt_launch *best = NULL;
  for (uint32_t i = 0; i < k->nlaunches && k->nlaunches >= KEEP_LAUNCHES; i++) {
    vrt_launch *l = &k->launches[i];
    if (l->value <= done && (!best || l->used < best->used))
      best = l;
  }
  if (!best && k->nlaunches < MAX_LAUNCHES) {
    vrt_launch *ls = realloc(k->launches, (k->nlaunches + 1) * sizeof *ls);
    if (!ls) {
      vrt__error(ctx, d, "out of host memory");
      return NULL;
    }
    k->launches = ls;
    best = &ls[k->nlaunches];
    memset(best, 0, sizeof *best);
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = ctx->pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    if (!VRT_VK(ctx, d, vkAllocateCommandBuffers, ctx->device, &ai, &best->cb))
      return NULL;
    k->nlaunches++;
  }
  if (!best) {
    for (uint32_t i = 0; i < k->nlaunches; i++)
      if (!best || k->launches[i].value < best->value)
        best = &k->launches[i];
    if (!vrt_wait(ctx, best->value, UINT64_MAX, d))
      return NULL;
  }
  return best;
}

/* The readback's buffers: of the kernel's context, distinct, in range. */
static bool check_readback(vrt_kernel *k, const vrt_readback *rb, vp_diags *d) {
  vrt_context *ctx = k->ctx;
  if (!rb->dst || !rb->src || rb->dst->ctx != ctx || rb->src->ctx != ctx) {
    vrt__error(ctx, d, "kernel '%s': the readback's buffers must belong to the kernel's "
                       "context", k->m->kernel);
    return false;
  }
  if (rb->dst == rb->src || !rb->size || rb->src_offset > rb->src->size ||
      rb->size > rb->src->size - rb->src_offset || rb->dst_offset > rb->dst->size ||
      rb->size > rb->dst->size - rb->dst_offset) {
    vrt__error(ctx, d, "kernel '%s': readback of %llu bytes from [%llu] of %llu bytes to [%llu] "
                       "of %llu bytes does not fit (or copies a buffer onto itself)",
               k->m->kernel, (unsigned long long)rb->size, (unsigned long long)rb->src_offset,
               (unsigned long long)rb->src->size, (unsigned long long)rb->dst_offset,
               (unsigned long long)rb->dst->size);
    return false;
  }
  return true;
}

/* Submits the dispatch (and `rb`'s copy after it, when given) through the
 * launch cache; `hold`: an eager dispatch, which may wait for a batch.
 * `busy` non-NULL: only what cannot block (vrt_dispatch_eager_nowait);
 * anything that might - the lock taken, a launch to record, a zero fill
 * owed, a submission with waits - sets *busy before any side effect. */
static bool launch(vrt_kernel *k, const vrt_args *a, const vrt_bind_range *ranges, vrt_grid g,
                   const vrt_readback *rb, vrt_ticket *ticket, bool hold, bool *busy,
                   vp_diags *d) {
  vrt_context *ctx = k->ctx;
  if (!vrt__alive(ctx, d))
    return false;
  uint32_t groups[3];
  unsigned char push[512], key[KEY_MAX];
  if (!vrt__prepare(k, a, ranges, g, groups, push, d))
    return false;
  if (rb && !check_readback(k, rb, d))
    return false;
  if (!vrt__compute_ok(ctx, "a kernel", d))
    return false;
  size_t len = 0;
  for (uint32_t i = 0; i < a->nbuffers; i++, len += 8)
    memcpy(key + len, &a->buffers[i]->id, 8);
  for (uint32_t i = 0; ranges && i < a->nbuffers; i++, len += 16)
    memcpy(key + len, &ranges[i], 16);
  memcpy(key + len, groups, 12);
  len += 12;
  memcpy(key + len, push, k->push_size);
  len += k->push_size;
  if (rb) {
    uint64_t r[5] = {rb->dst->id, rb->dst_offset, rb->src->id, rb->src_offset, rb->size};
    memcpy(key + len, r, sizeof r);
    len += sizeof r;
  }

  if (busy) {
    *busy = true;
    if (atomic_load(&ctx->nstreams) || pthread_mutex_trylock(&ctx->lock) != 0)
      return true;
    bool blocks = ctx->tl0.nwaits > 0;
    for (uint32_t i = 0; !blocks && i < a->nbuffers; i++)
      blocks = atomic_load_explicit(&a->buffers[i]->owed, memory_order_relaxed);
    if (blocks) {
      pthread_mutex_unlock(&ctx->lock);
      return true;
    }
  } else {
    pthread_mutex_lock(&ctx->lock);
  }
  /* Zero fills the buffers are owed go first (pool.c: lazy zeroing). */
  bool owed_ok = true;
  for (uint32_t i = 0; owed_ok && i < a->nbuffers; i++)
    owed_ok = vrt__zero_owed(ctx, a->buffers[i], d);
  if (owed_ok && rb)
    owed_ok = vrt__zero_owed(ctx, rb->dst, d) && vrt__zero_owed(ctx, rb->src, d);
  if (!owed_ok) {
    pthread_mutex_unlock(&ctx->lock);
    return false;
  }
  /* The entry the last dispatch used first: a loop repeating one call
   * finds it with one compare and no hash. */
  vrt_launch *l = NULL;
  if (k->last_launch < k->nlaunches) {
    vrt_launch *c = &k->launches[k->last_launch];
    if (c->recorded && c->key_len == len && memcmp(c->key, key, len) == 0)
      l = c;
  }
  uint64_t hash = 0;
  if (!l) {
    hash = vp_hash64(key, len, 0);
    for (uint32_t i = 0; i < k->nlaunches && !l; i++) {
      vrt_launch *c = &k->launches[i];
      if (c->recorded && c->hash == hash && c->key_len == len && memcmp(c->key, key, len) == 0)
        l = c;
    }
  }
  if (busy && !l) { /* recording may allocate, or wait for a slot */
    pthread_mutex_unlock(&ctx->lock);
    return true;
  }
  if (busy)
    *busy = false;
  bool ok = true;
  if (l) {
    ctx->stats.reused_launches++;
  } else {
    l = launch_slot(k, d);
    ok = l != NULL;
    if (ok && !k->p->push_descriptors && k->p->nsets) {
      if (l->set_pool)
        ctx->vk.vkFreeDescriptorSets(ctx->device, l->set_pool, k->p->nsets, l->sets);
      l->set_pool = VK_NULL_HANDLE;
      ok = vrt__alloc_sets(k, a, ranges, &l->set_pool, l->sets, d);
    }
    if (ok) {
      l->recorded = false;
      unsigned char *nk = realloc(l->key, len);
      ok = nk != NULL;
      if (ok)
        l->key = nk;
      else
        vrt__error(ctx, d, "out of host memory");
    }
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
    };
    if (ok && (ok = VRT_VK(ctx, d, vkBeginCommandBuffer, l->cb, &bi))) {
      vrt__barrier(ctx, l->cb, true);
      vrt__record_dispatch(k, l->cb, a, ranges, groups, push, l->sets);
      if (rb) {
        VkBufferCopy region = {rb->src->offset + rb->src_offset,
                               rb->dst->offset + rb->dst_offset, rb->size};
        vrt__barrier(ctx, l->cb, true);
        ctx->vk.vkCmdCopyBuffer(l->cb, rb->src->buffer, rb->dst->buffer, 1, &region);
      }
      l->open = !rb && !host_reads(a);
      if (!l->open)
        vrt__barrier(ctx, l->cb, false);
      ok = VRT_VK(ctx, d, vkEndCommandBuffer, l->cb);
    }
    if (ok) {
      memcpy(l->key, key, len);
      l->key_len = len;
      l->hash = hash;
      l->recorded = true;
    }
  }
  if (ok && l->open)
    ctx->stats.open_launches++;
  vrt_ticket t = 0;
  /* An eager dispatch is held back for a batched submission while no zero
   * fill is open (an open one would have to run before it, and the fills
   * go after the held batch: vrt__submit) and the batch has room; held
   * dispatches share the ticket their batch will signal. Nothing is held
   * once the context has streams (the held batch goes to the default
   * queue, and a dispatch for another stream must not wait behind it), nor
   * while the default queue has event waits for its next submission (a
   * held batch is sent without them: vrt__submit). */
  uint32_t batch = atomic_load(&ctx->eager_batch);
  bool holdable = ok && hold && batch > 1 && ctx->zero_slot < 0 && ctx->nheld < batch &&
                  !atomic_load(&ctx->nstreams) && !ctx->tl0.nwaits &&
                  ctx->nheld < sizeof ctx->held / sizeof ctx->held[0];
  /* Adaptive (eager.c): held only while eager_inflight submissions run;
   * one that finds fewer joins what is held, and the batch goes now. */
  bool adaptive = holdable && atomic_load(&ctx->eager_adaptive);
  bool running = adaptive && vrt__eager_running(ctx);
  if (adaptive && running && !vrt__flusher_kick(ctx))
    running = false; /* no flusher: nothing may wait for the next call */
  if (holdable && (!adaptive || running || ctx->nheld)) {
    if (!ctx->nheld)
      ctx->submitted = ctx->submitted + 1;
    ctx->held[ctx->nheld++] = l->cb;
    t = ctx->submitted;
    /* The bytes it binds: an estimate of its work. Adaptive sends a batch
     * that binds VRT_EAGER_HELD_BYTES at once, so large ops go in small
     * batches (the queue stays deep) and one batch is never a whole loop. */
    for (uint32_t i = 0; i < a->nbuffers; i++)
      ctx->held_bytes += ranges && ranges[i].size ? ranges[i].size : a->buffers[i]->size;
    /* !running: fewer in flight; none (`completed` was just polled): the
     * GPU idled at this batch boundary */
    if (adaptive && !running && ctx->nheld > 1)
      ctx->stats.eager_drained += atomic_load(&ctx->completed) >= atomic_load(&ctx->sent);
    if (ctx->nheld >= batch ||
        (adaptive && (!running || ctx->held_bytes >= VRT_EAGER_HELD_BYTES)))
      ok = vrt__send_held(ctx, d);
  } else if (ok) {
    ok = vrt__submit(ctx, &l->cb, 1, NULL, 0, &t, d);
  }
  if (ok) {
    ctx->stats.dispatches++;
    l->value = t;
    l->used = ++k->clock;
    k->last_launch = (uint32_t)(l - k->launches);
    /* held: the default queue's (nothing is held once there are streams) */
    const vrt_tl *tl = vrt__tl_current(ctx);
    for (uint32_t i = 0; i < a->nbuffers; i++)
      vrt__buffer_used(a->buffers[i], tl, t);
    if (rb) {
      vrt__buffer_used(rb->dst, tl, t);
      vrt__buffer_used(rb->src, tl, t);
    }
  }
  pthread_mutex_unlock(&ctx->lock);
  *ticket = t;
  return ok;
}

bool vrt_dispatch_async(vrt_kernel *k, const vrt_args *args, vrt_grid grid, vrt_ticket *ticket,
                        vp_diags *d) {
  vrt_ticket t = 0;
  bool ok = launch(k, args, NULL, grid, NULL, &t, false, NULL, d);
  if (ticket)
    *ticket = t;
  return ok;
}

bool vrt_dispatch_ranges(vrt_kernel *k, const vrt_args *args, const vrt_bind_range *ranges,
                         vrt_grid grid, vrt_ticket *ticket, vp_diags *d) {
  vrt_ticket t = 0;
  if (!ticket) /* synchronous: as vrt_dispatch */
    return launch(k, args, ranges, grid, NULL, &t, false, NULL, d) &&
           vrt__wait_mine(k->ctx, t, d);
  bool ok = launch(k, args, ranges, grid, NULL, &t, false, NULL, d);
  *ticket = t;
  return ok;
}

bool vrt_dispatch_eager(vrt_kernel *k, const vrt_args *args, const vrt_bind_range *ranges,
                        vrt_grid grid, vrt_ticket *ticket, vp_diags *d) {
  vrt_ticket t = 0;
  bool ok = launch(k, args, ranges, grid, NULL, &t, true, NULL, d);
  if (ticket)
    *ticket = t;
  return ok;
}

bool vrt_dispatch_eager_nowait(vrt_kernel *k, const vrt_args *args,
                               const vrt_bind_range *ranges, vrt_grid grid, vrt_ticket *ticket,
                               bool *busy, vp_diags *d) {
  vrt_ticket t = 0;
  bool ok = launch(k, args, ranges, grid, NULL, &t, true, busy, d);
  if (ticket)
    *ticket = t;
  return ok;
}

bool vrt_dispatch(vrt_kernel *k, const vrt_args *args, vrt_grid grid, vp_diags *d) {
  vrt_ticket t;
  return launch(k, args, NULL, grid, NULL, &t, false, NULL, d) && vrt__wait_mine(k->ctx, t, d);
}

bool vrt_dispatch_readback(vrt_kernel *k, const vrt_args *args, vrt_grid grid,
                           const vrt_readback *rb, vrt_ticket *ticket, vp_diags *d) {
  vrt_ticket t = 0;
  if (!ticket) /* synchronous: as vrt_dispatch */
    return launch(k, args, NULL, grid, rb, &t, false, NULL, d) && vrt__wait_mine(k->ctx, t, d);
  bool ok = launch(k, args, NULL, grid, rb, &t, false, NULL, d);
  *ticket = t;
  return ok;
}

bool vrt_dispatch_timed(vrt_kernel *k, const vrt_args *a, vrt_grid g, double *gpu_ns,
                        vp_diags *d) {
  vrt_context *ctx = k->ctx;
  if (!vrt__alive(ctx, d))
    return false;
  if (!ctx->info.timestamps) {
    vrt__error(ctx, d, "device '%s' cannot write timestamps on its compute queue",
               ctx->info.name);
    return false;
  }
  uint32_t groups[3];
  unsigned char push[512];
  if (!vrt__prepare(k, a, NULL, g, groups, push, d) || !vrt__compute_ok(ctx, "a kernel", d))
    return false;
  /* The lock is held to the end: the query pool is the context's. */
  pthread_mutex_lock(&ctx->lock);
  bool ok = true;
  if (!ctx->timing) {
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = 2,
    };
    ok = VRT_VK(ctx, d, vkCreateQueryPool, ctx->device, &qi, NULL, &ctx->timing);
  }
  VkDescriptorSet sets[VRT_MAX_SETS];
  VkDescriptorPool pool = VK_NULL_HANDLE;
  if (ok && !k->p->push_descriptors && k->p->nsets)
    ok = vrt__alloc_sets(k, a, NULL, &pool, sets, d);
  for (uint32_t i = 0; ok && i < a->nbuffers; i++)
    ok = vrt__zero_owed(ctx, a->buffers[i], d);
  int slot = -1;
  VkCommandBuffer cb = ok ? vrt__cmd_begin(ctx, &slot, d) : VK_NULL_HANDLE;
  vrt_ticket t = 0;
  if (cb) {
    ctx->vk.vkCmdResetQueryPool(cb, ctx->timing, 0, 2);
    vrt__barrier(ctx, cb, true);
    ctx->vk.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ctx->timing, 0);
    vrt__record_dispatch(k, cb, a, NULL, groups, push, sets);
    ctx->vk.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->timing, 1);
    vrt__barrier(ctx, cb, false);
    ok = VRT_VK(ctx, d, vkEndCommandBuffer, cb) && vrt__submit(ctx, &cb, 1, &slot, 1, &t, d);
    if (!ok)
      ctx->ring[slot].value = 0;
  } else {
    ok = false;
  }
  if (ok) {
    ctx->stats.dispatches++;
    for (uint32_t i = 0; i < a->nbuffers; i++)
      vrt__buffer_used(a->buffers[i], vrt__tl_current(ctx), t);
    ok = vrt_wait(ctx, t, UINT64_MAX, d);
  }
  uint64_t ts[2] = {0, 0};
  if (ok)
    ok = VRT_VK(ctx, d, vkGetQueryPoolResults, ctx->device, ctx->timing, 0, 2, sizeof ts, ts, 8,
                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (pool)
    ctx->vk.vkFreeDescriptorSets(ctx->device, pool, k->p->nsets, sets);
  pthread_mutex_unlock(&ctx->lock);
  if (ok && gpu_ns)
    *gpu_ns = (double)(ts[1] - ts[0]) * ctx->info.timestamp_period;
  return ok;
}
