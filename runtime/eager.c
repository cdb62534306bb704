/* eager.c - adaptive batching of eager dispatches (issues 14, 21).
 *
 * A fixed batch (vrt_context_set_eager_batch) holds dispatches whatever
 * the GPU does: on the H200 a batch of 8 left the GPU idle while the host
 * filled it (pipelined `c = a + b` at 2^20 fell from 243 to 75 GB/s), and
 * a batch of 1 pays a vkQueueSubmit (~3-4 us of GPU gap) per dispatch. The
 * adaptive mode holds a dispatch only while the work sent before it still
 * runs, so the GPU is never kept waiting by a held batch:
 *
 *  - launch (dispatch.c) submits at once when nothing sent is in flight
 *    (vrt__eager_running: the `completed` cache, then one
 *    vkGetSemaphoreCounterValue), else appends to ctx->held; a dispatch
 *    that finds the earlier work done while some are held joins them and
 *    the batch is sent with it; a full batch (the cap) is sent at once.
 *  - The flusher, a thread of the context made on the first hold, sends
 *    the held batch when the work in flight completes, so held work never
 *    waits for the host's next call (the host may be off doing something
 *    else). While work is in flight it blocks in vkWaitSemaphores on the
 *    last sent ticket (50 ms slices, re-checking the stop flag); once the
 *    queue is drained it sleeps on flush_cond until the next hold: no busy
 *    loop, and in a pipelined loop a hold finds it parked in the driver
 *    (no wake-up call on the host's path). It takes the context lock only
 *    to look at the held batch and to send it; vrt_context_destroy stops
 *    and joins it, then sends what is left.
 *
 * Everything else that sends held work (every other submission, waits,
 * reads, streams, event waits) is unchanged (docs/runtime.md, "Batched
 * eager submissions"). The flusher calls the driver without the testing
 * hook's fault injection (vrt__fault), which belongs to the caller's calls.
 */
#include "internal.h"

bool vrt__eager_running(vrt_context *ctx) {
  uint64_t sent = atomic_load(&ctx->sent);
  return sent > atomic_load(&ctx->completed) && sent > vrt__poll(ctx);
}

/* The timeline's value, read without the fault hook; false on an error. */
static bool counter(vrt_context *ctx, uint64_t *v) {
  return ctx->vk.vkGetSemaphoreCounterValue(ctx->device, ctx->timeline, v) == VK_SUCCESS;
}

/* The flusher's loop (the lock held, except in vkWaitSemaphores). While
 * work is in flight it waits for the last sent ticket whether or not
 * anything is held yet, so a pipelined loop finds it parked there and a
 * hold costs no wake-up call; it sleeps on flush_cond only once the queue
 * is drained (or in a fixed batch, or broken). */
static void *flusher_main(void *arg) {
  vrt_context *ctx = arg;
  pthread_mutex_lock(&ctx->lock); /* once: pthread_cond_wait needs that */
  while (!atomic_load(&ctx->flusher_stop)) {
    uint64_t target = atomic_load(&ctx->sent), v = 0;
    /* idle: a fixed batch is left alone; with streams nothing is held
     * (and `sent` may be another queue's value) */
    bool idle = ctx->flusher_broken || atomic_load(&ctx->lost) ||
                !atomic_load(&ctx->eager_adaptive) || atomic_load(&ctx->nstreams);
    if (!idle && !counter(ctx, &v))
      idle = ctx->flusher_broken = true; /* the caller's next wait reports it */
    if (!idle && v >= target) {
      uint64_t seen = atomic_load(&ctx->completed);
      while (v > seen && !atomic_compare_exchange_weak(&ctx->completed, &seen, v))
        ;
      idle = !ctx->nheld;
      vp_diags ignore = {0};
      if (ctx->nheld && vrt__send_held(ctx, &ignore))
        ctx->stats.eager_flushes++;
      else if (ctx->nheld)
        ctx->flusher_broken = true; /* held work stays; a wait sends it or fails */
      vp_diags_free(&ignore);
      if (!idle)
        continue; /* what it sent is in flight now */
    }
    if (idle) {
      ctx->flusher_idle = true;
      pthread_cond_wait(&ctx->flush_cond, &ctx->lock);
      ctx->flusher_idle = false;
      continue;
    }
    /* The held batch (or the next one) waits behind `sent`, on the
     * default queue's timeline. */
    pthread_mutex_unlock(&ctx->lock);
    VkSemaphoreWaitInfo wi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &ctx->timeline,
        .pValues = &target,
    };
    VkResult r = ctx->vk.vkWaitSemaphores(ctx->device, &wi, 50000000u);
    pthread_mutex_lock(&ctx->lock);
    if (r != VK_SUCCESS && r != VK_TIMEOUT)
      ctx->flusher_broken = true;
  }
  pthread_mutex_unlock(&ctx->lock);
  return NULL;
}

bool vrt__flusher_kick(vrt_context *ctx) {
  if (!ctx->flusher_running) {
    if (ctx->flusher_broken || vrt_context_forked(ctx))
      return false;
    atomic_store(&ctx->flusher_stop, false);
    if (pthread_create(&ctx->flusher, NULL, flusher_main, ctx) != 0) {
      ctx->flusher_broken = true;
      return false;
    }
    ctx->flusher_running = true;
    return true;
  }
  if (ctx->flusher_idle) /* else it is waiting for the work in flight */
    pthread_cond_signal(&ctx->flush_cond);
  return !ctx->flusher_broken;
}

void vrt__flusher_stop(vrt_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  bool running = ctx->flusher_running;
  atomic_store(&ctx->flusher_stop, true);
  pthread_cond_broadcast(&ctx->flush_cond);
  pthread_mutex_unlock(&ctx->lock);
  if (running)
    pthread_join(ctx->flusher, NULL);
  pthread_mutex_lock(&ctx->lock);
  ctx->flusher_running = false;
  /* What is still held was asked for: it runs before the context goes. */
  vp_diags ignore = {0};
  vrt__send_held(ctx, &ignore);
  vp_diags_free(&ignore);
  pthread_mutex_unlock(&ctx->lock);
}

void vrt_context_set_eager_adaptive(vrt_context *ctx, uint32_t cap) {
  cap = cap ? cap : VRT_EAGER_ADAPTIVE_CAP;
  atomic_store(&ctx->eager_batch, cap > 64 ? 64 : cap);
  atomic_store(&ctx->eager_adaptive, true);
}

bool vrt_context_eager_adaptive(const vrt_context *ctx) {
  return atomic_load(&((vrt_context *)ctx)->eager_adaptive);
}
