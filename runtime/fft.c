/* fft.c - vrt_fft_*: complex-to-complex FFTs on the context's queue.
 *
 * The transforms are VkFFT's (fft_vkfft.c is the glue): a plan per shape
 * (sizes, batch, precision) made on first use and kept in a per-context
 * cache of PLANS, least recently used out. A transform is one submission
 * of the context's ring, like a copy or a fill: it opens and ends with the
 * runtime's barriers, so it is ordered after whatever wrote the buffer and
 * before whatever reads it next, and nothing goes back to the host.
 *
 * Out of place (vrt_fft_exec_to), VkFFT reads the input buffer and writes
 * the output (its "formatted input"), a plan of its own; in place is one
 * buffer. VkFFT writes its descriptor sets when a plan is recorded for a
 * buffer other than the last one, so recording a plan for another buffer first
 * waits for that plan's previous submission (a set in use by a pending
 * command buffer must not change); the same buffer records at once.
 */
#include "internal.h"
#include "fft_internal.h"

#include <stdlib.h>
#include <string.h>

enum { PLANS = 16 };

typedef struct fft_plan {
  vrt_fft_shape s;
  bool oop; /* out of place */
  vrt__vkfft *app;
  vrt_ticket last; /* its last submission */
  uint64_t used;   /* LRU clock */
} fft_plan;

static vrt__vkfft_env env_of(vrt_context *ctx) {
  vrt__vkfft_env e = {&ctx->vk, ctx->inst.fn.vkGetPhysicalDeviceProperties,
                      ctx->inst.fn.vkGetPhysicalDeviceMemoryProperties,
                      ctx->pdev, ctx->device, ctx->queue, ctx->pool};
  return e;
}

typedef struct fft_cache {
  fft_plan p[PLANS];
  uint32_t n;
  uint64_t clock;
  VkFence fence; /* VkFFT's own uploads (twiddle tables) wait on it */
} fft_cache;

/* The context is idle (vrt_context_destroy). */
static void cache_free(vrt_context *ctx) {
  fft_cache *c = ctx->fft;
  if (!c)
    return;
  vrt__vkfft_env e = env_of(ctx);
  for (uint32_t i = 0; i < c->n; i++)
    vrt__vkfft_free(&e, c->p[i].app);
  if (c->fence)
    ctx->vk.vkDestroyFence(ctx->device, c->fence, NULL);
  free(c);
  ctx->fft = NULL;
}

static bool same(const vrt_fft_shape *a, const vrt_fft_shape *b) {
  if (a->ndim != b->ndim || a->batch != b->batch || a->dbl != b->dbl)
    return false;
  for (uint32_t i = 0; i < a->ndim; i++)
    if (a->size[i] != b->size[i])
      return false;
  return true;
}

uint64_t vrt_fft_bytes(const vrt_fft_shape *s) {
  uint64_t n = s->batch * (s->dbl ? 16 : 8);
  for (uint32_t i = 0; i < s->ndim && i < 3; i++)
    n *= s->size[i];
  return n;
}

static bool check(vrt_buffer *b, const vrt_fft_shape *s, vp_diags *d) {
  vrt_context *ctx = b->ctx;
  if (s->ndim < 1 || s->ndim > 3) {
    vrt__error(ctx, d, "fft: %u axes; VkFFT transforms 1 to 3 at once", s->ndim);
    return false;
  }
  uint64_t total = s->batch;
  for (uint32_t i = 0; i < s->ndim; i++) {
    if (!s->size[i] || s->size[i] > UINT32_MAX) {
      vrt__error(ctx, d, "fft: axis length %llu is out of range (1 to 2^32 - 1)",
                 (unsigned long long)s->size[i]);
      return false;
    }
    total *= s->size[i];
  }
  if (!s->batch || total / s->batch == 0 || total > (UINT64_MAX >> 5)) {
    vrt__error(ctx, d, "fft: batch %llu is out of range", (unsigned long long)s->batch);
    return false;
  }
  if (s->dbl && !(ctx->info.features & VP_FEAT(FLOAT64))) {
    vrt__error(ctx, d, "fft: complex128 needs float64 shaders, which device '%s' lacks",
               ctx->info.name);
    return false;
  }
  if (b->offset || vrt_fft_bytes(s) > b->size) {
    vrt__error(ctx, d, "fft: the buffer (%llu bytes) does not hold the %llu bytes of the transform",
               (unsigned long long)b->size, (unsigned long long)vrt_fft_bytes(s));
    return false;
  }
  return true;
}

/* The plan for s (lock held), made on first use; in: the input buffer of
 * an out-of-place transform, or NULL. */
static fft_plan *plan_get(vrt_context *ctx, vrt_buffer *in, vrt_buffer *b, const vrt_fft_shape *s,
                          vp_diags *d) {
  fft_cache *c = ctx->fft;
  if (!c) {
    c = calloc(1, sizeof *c);
    if (!c) {
      vrt__error(ctx, d, "out of host memory");
      return NULL;
    }
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (!VRT_VK(ctx, d, vkCreateFence, ctx->device, &fi, NULL, &c->fence)) {
      free(c);
      return NULL;
    }
    ctx->fft = c;
    ctx->fft_free = cache_free;
  }
  for (uint32_t i = 0; i < c->n; i++)
    if (same(&c->p[i].s, s) && c->p[i].oop == (in != NULL)) {
      c->p[i].used = ++c->clock;
      return &c->p[i];
    }
  fft_plan *p;
  if (c->n < PLANS) {
    p = &c->p[c->n];
  } else {
    p = &c->p[0];
    for (uint32_t i = 1; i < c->n; i++)
      if (c->p[i].used < p->used)
        p = &c->p[i];
    if (p->last && !vrt_wait(ctx, p->last, UINT64_MAX, d))
      return NULL;
    vrt__vkfft_env e = env_of(ctx);
    vrt__vkfft_free(&e, p->app);
    memset(p, 0, sizeof *p);
    c->n--;
    *p = c->p[c->n]; /* keep the live plans in [0, n) */
    memset(&c->p[c->n], 0, sizeof c->p[0]);
    p = &c->p[c->n];
  }
  char why[256];
  vrt__vkfft_env e = env_of(ctx);
  vrt__vkfft *app = vrt__vkfft_make(&e, s->ndim, s->size, s->batch, s->dbl,
                                    in ? in->buffer : VK_NULL_HANDLE, b->buffer,
                                    vrt_fft_bytes(s), c->fence, why, sizeof why);
  if (!app) {
    vrt__error(ctx, d, "fft: %s", why);
    return NULL;
  }
  c->n++;
  p->s = *s;
  p->oop = in != NULL;
  p->app = app;
  p->last = 0;
  p->used = ++c->clock;
  return p;
}

bool vrt_fft_exec(vrt_buffer *b, const vrt_fft_shape *s, bool inverse, vp_diags *d) {
  return vrt_fft_exec_to(b, b, s, inverse, d);
}

bool vrt_fft_exec_to(vrt_buffer *in, vrt_buffer *b, const vrt_fft_shape *s, bool inverse,
                     vp_diags *d) {
  vrt_context *ctx = b->ctx;
  if (!vrt__alive(ctx, d) || !check(b, s, d) || (in != b && !check(in, s, d)))
    return false;
  if (in->ctx != ctx) {
    vrt__error(ctx, d, "fft: the input and output buffers are on different contexts");
    return false;
  }
  vrt_buffer *src = in == b ? NULL : in;
  pthread_mutex_lock(&ctx->lock);
  fft_plan *p = plan_get(ctx, src, b, s, d);
  bool ok = p != NULL;
  if (ok && !vrt__vkfft_bound(p->app, in->buffer, b->buffer) && p->last)
    ok = vrt_wait(ctx, p->last, UINT64_MAX, d);
  int slot;
  VkCommandBuffer cb = ok && vrt__zero_owed(ctx, b, d) && vrt__zero_owed(ctx, in, d)
                           ? vrt__cmd_begin(ctx, &slot, d)
                           : VK_NULL_HANDLE;
  ok = cb != VK_NULL_HANDLE;
  vrt_ticket t = 0;
  if (ok) {
    char why[256];
    vrt__barrier(ctx, cb, true);
    vrt__vkfft_env e = env_of(ctx);
    ok = vrt__vkfft_append(&e, p->app, cb, in->buffer, b->buffer, inverse, why, sizeof why);
    if (!ok)
      vrt__error(ctx, d, "fft: %s", why);
    vrt__barrier(ctx, cb, false);
    ok = VRT_VK(ctx, d, vkEndCommandBuffer, cb) && ok &&
         vrt__submit(ctx, &cb, 1, &slot, 1, &t, d);
    if (!ok)
      ctx->ring[slot].value = 0;
  }
  if (ok) {
    p->last = t;
    vrt__buffer_used(b, vrt__tl_current(ctx), t);
    vrt__buffer_used(in, vrt__tl_current(ctx), t);
  }
  pthread_mutex_unlock(&ctx->lock);
  return ok;
}

uint32_t vrt_fft_plans(vrt_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  uint32_t n = ctx->fft ? ((fft_cache *)ctx->fft)->n : 0;
  pthread_mutex_unlock(&ctx->lock);
  return n;
}
