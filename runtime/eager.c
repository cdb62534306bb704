/* eager.c - adaptive batching of eager dispatches (issues 14, 21).
 *
 * A fixed batch (vrt_context_set_eager_batch) holds dispatches whatever
 * the GPU does: on the H200 a batch of 8 left the GPU idle while the host
 * filled it (pipelined `c = a + b` at 2^20 fell from 243 to 75 GB/s), and
 * a batch of 1 pays a vkQueueSubmit (~3-4 us of GPU gap) per dispatch. The
 * adaptive mode (the default on GPUs) holds a dispatch only while
 * `eager_inflight` (VRT_EAGER_INFLIGHT = 2) submissions already sent still
 * run, so a submission always waits queued behind the running one:
 *
 *  - launch (dispatch.c) submits at once when fewer than that are in
 *    flight (vrt__eager_running: the eager_inflight-th most recent value
 *    signalled on the default queue, tl0.recent, against the `completed`
 *    cache, then one vkGetSemaphoreCounterValue), else appends to
 *    ctx->held; a dispatch that finds fewer in flight while some are held
 *    joins them and the batch is sent with it; a full batch (the cap) or
 *    one binding VRT_EAGER_HELD_BYTES (an estimate of its work) is sent at
 *    once.
 *  - The flusher, a thread of the context made on the first hold, sends
 *    the held batch as soon as fewer than eager_inflight submissions are
 *    in flight, so held work never waits for the host's next call (the
 *    host may be off doing something else). While work is in flight it
 *    blocks in vkWaitSemaphores (50 ms slices, re-checking the stop flag)
 *    on the value whose completion lets a batch go: the eager_inflight-th
 *    most recent value when that is still running, else the oldest value
 *    still running (a later hold's threshold is never below it, so the
 *    flusher never sleeps past one); once the queue is drained it sleeps
 *    on flush_cond until the next hold: no busy loop. It takes the context
 *    lock only to look at the held batch and to send it;
 *    vrt_context_destroy stops and joins it, then sends what is left.
 *    That is VULPY_EAGER_FLUSHER_US=block; by default (eager_flusher_us,
 *    VRT_EAGER_FLUSHER_US = 20) it polls the timeline every that many us
 *    while a batch is held and sleeps on flush_cond while none is: on the
 *    H200 (2026-12-03) a flusher blocked in vkWaitSemaphores while kernels
 *    ran made them slower (30 pipelined `c = a + b` at 2^27: 16.6-19.8 ms
 *    of GPU work against 11.1 with batch 1 or the polling flusher), though
 *    nothing was held (each dispatch binds more than the held-bytes cap).
 *
 * With eager_inflight 1 the GPU's queue drained at every batch boundary
 * and idled while the flusher woke up and submitted (the H200, 2026-12-03:
 * sin + exp at 2^20 2x slower than a submission per dispatch); with 2 the
 * next batch is queued before the running one ends.
 *
 * Everything else that sends held work (every other submission, waits,
 * reads, streams, event waits) is unchanged (docs/runtime.md, "Batched
 * eager submissions"). The flusher calls the driver without the testing
 * hook's fault injection (vrt__fault), which belongs to the caller's calls.
 */
#include "internal.h"

#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* The value of the k-th most recent submission on the default queue's
 * timeline; 0 when there were fewer (lock held: pushes are made under it). */
static uint64_t recent(vrt_context *ctx, uint32_t k) {
  uint64_t p = atomic_load(&ctx->tl0.pushed);
  if (k > VRT_TL_RING)
    k = VRT_TL_RING;
  return p < k ? 0 : atomic_load(&ctx->tl0.recent[(p - k) % VRT_TL_RING]);
}

static uint32_t inflight(vrt_context *ctx) {
  uint32_t k = atomic_load(&ctx->eager_inflight);
  return k ? k : VRT_EAGER_INFLIGHT;
}

bool vrt__eager_running(vrt_context *ctx) {
  uint64_t t = recent(ctx, inflight(ctx));
  return t > atomic_load(&ctx->completed) && t > vrt__poll(ctx);
}

/* The timeline's value, read without the fault hook; false on an error. */
static bool counter(vrt_context *ctx, uint64_t *v) {
  return ctx->vk.vkGetSemaphoreCounterValue(ctx->device, ctx->timeline, v) == VK_SUCCESS;
}

/* The flusher's loop (the lock held, except in vkWaitSemaphores). While
 * work is in flight it waits, held work or not, for the value whose
 * completion lets a held batch go, so a pipelined loop finds it parked
 * there and a hold costs no wake-up call; it sleeps on flush_cond only
 * once the queue is drained (or in a fixed batch, or broken). */
static void *flusher_main(void *arg) {
  vrt_context *ctx = arg;
#ifdef PR_SET_TIMERSLACK
  /* polls every eager_flusher_us: the default 50 us of slack would more
   * than triple the default period */
  if (ctx->eager_flusher_us)
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
#endif
  pthread_mutex_lock(&ctx->lock); /* once: pthread_cond_wait needs that */
  while (!atomic_load(&ctx->flusher_stop)) {
    uint64_t sent = atomic_load(&ctx->sent), v = 0;
    /* idle: a fixed batch is left alone; with streams nothing is held
     * (and `sent` may be another queue's value) */
    bool idle = ctx->flusher_broken || atomic_load(&ctx->lost) ||
                !atomic_load(&ctx->eager_adaptive) || atomic_load(&ctx->nstreams);
    if (!idle && !counter(ctx, &v))
      idle = ctx->flusher_broken = true; /* the caller's next wait reports it */
    uint64_t target = 0;
    if (!idle) {
      uint64_t seen = atomic_load(&ctx->completed);
      while (v > seen && !atomic_compare_exchange_weak(&ctx->completed, &seen, v))
        ;
      /* a held batch goes once fewer than eager_inflight are in flight */
      uint64_t gate = recent(ctx, inflight(ctx));
      if (ctx->nheld && v >= gate) {
        ctx->stats.eager_drained += v >= sent;
        vp_diags ignore = {0};
        if (vrt__send_held(ctx, &ignore))
          ctx->stats.eager_flushes++;
        else
          ctx->flusher_broken = true; /* held work stays; a wait sends it or fails */
        vp_diags_free(&ignore);
        continue; /* what it sent is in flight now */
      }
      if (!ctx->nheld && ctx->eager_flusher_us) {
        /* polling: nothing held, nothing to watch (a hold wakes it); no
         * wake-ups while long kernels run with nothing held */
        idle = true;
      } else if (gate > v) {
        target = gate;
      } else if (sent > v) {
        /* fewer in flight than a hold needs: the oldest value still
         * running (a later hold's gate is never below it) */
        target = sent;
        for (uint32_t i = 1; i <= VRT_TL_RING; i++) {
          uint64_t r = recent(ctx, i);
          if (r <= v)
            break;
          target = r;
        }
      } else {
        idle = true; /* drained */
      }
    }
    if (idle) {
      ctx->flusher_idle = true;
      pthread_cond_wait(&ctx->flush_cond, &ctx->lock);
      ctx->flusher_idle = false;
      continue;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (ctx->eager_flusher_us) { /* polling: no driver call that blocks */
      struct timespec ts = {0, (long)ctx->eager_flusher_us * 1000L};
      nanosleep(&ts, NULL);
      pthread_mutex_lock(&ctx->lock);
      continue;
    }
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

void vrt_context_set_eager_inflight(vrt_context *ctx, uint32_t n) {
  n = n ? n : VRT_EAGER_INFLIGHT;
  atomic_store(&ctx->eager_inflight, n > 8 ? 8 : n);
}

uint32_t vrt_context_eager_inflight(const vrt_context *ctx) {
  return inflight((vrt_context *)ctx);
}

bool vrt_context_eager_adaptive(const vrt_context *ctx) {
  return atomic_load(&((vrt_context *)ctx)->eager_adaptive);
}
