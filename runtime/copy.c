/* copy.c - host-side copies of large transfers, split over worker threads.
 *
 * One thread's memcpy is slower than PCIe and the GPU's copy engine
 * (bench/notes/runtime.md has figures), so an upload, a download or a staging
 * slot that crosses the host in one thread is bound by that one core. Each
 * context keeps a few worker threads (started on the first large copy,
 * joined when the context goes) and splits a copy of `min_bytes` or more
 * into equal parts, one per worker plus one for the caller. A fresh
 * destination (a new NumPy array) is page-faulted by all of them in
 * parallel too.
 *
 * One parallel copy at a time per context: a caller that finds the workers
 * busy copies alone rather than waiting. The thread count comes from the
 * context options (callers read VULPY_COPY_THREADS), else half the online
 * CPUs, at most 8: on the H200's 16-core host 8 threads filled the staging
 * ring faster than 4 (bench/probes/upload_ab.py; bench/notes/runtime.md),
 * and the other half of the cores stays with the caller's own threads.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MIN_BYTES = 4u << 20, MIN_PART = 1u << 20, MAX_THREADS = 16 };

typedef struct part {
  char *dst;
  const char *src;
  size_t n;
} part;

struct vrt_copier {
  pthread_mutex_t busy; /* held by the caller of one parallel copy */
  pthread_mutex_t m;    /* everything below */
  pthread_cond_t go, done;
  uint64_t gen;     /* bumped for each job */
  uint32_t pending; /* workers still copying the current job */
  bool quit;
  uint32_t nthreads;
  pid_t pid; /* a forked child has no workers: it copies alone */
  pthread_t threads[MAX_THREADS];
  part parts[MAX_THREADS];
};

typedef struct worker_arg {
  vrt_copier *c;
  uint32_t index;
} worker_arg;

static void *worker(void *p) {
  worker_arg a = *(worker_arg *)p;
  free(p);
  vrt_copier *c = a.c;
  uint64_t seen = 0;
  pthread_mutex_lock(&c->m);
  for (;;) {
    while (!c->quit && c->gen == seen)
      pthread_cond_wait(&c->go, &c->m);
    if (c->quit)
      break;
    seen = c->gen;
    part job = c->parts[a.index];
    pthread_mutex_unlock(&c->m);
    if (job.n)
      memcpy(job.dst, job.src, job.n);
    pthread_mutex_lock(&c->m);
    if (--c->pending == 0)
      pthread_cond_signal(&c->done);
  }
  pthread_mutex_unlock(&c->m);
  return NULL;
}

uint32_t vrt__copy_threads_default(vrt_device_kind kind) {
  (void)kind; /* copies and kernels rarely overlap, so CPU devices too */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  long n = cpus / 2;
  return n < 1 ? 1 : n > 8 ? 8 : (uint32_t)n;
}

/* Starts nthreads - 1 workers (the caller is the last one). */
static vrt_copier *copier_start(uint32_t nthreads) {
  vrt_copier *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  pthread_mutex_init(&c->busy, NULL);
  pthread_mutex_init(&c->m, NULL);
  pthread_cond_init(&c->go, NULL);
  pthread_cond_init(&c->done, NULL);
  c->pid = getpid();
  for (uint32_t i = 0; i + 1 < nthreads && i < MAX_THREADS; i++) {
    worker_arg *a = malloc(sizeof *a);
    if (!a)
      break;
    *a = (worker_arg){c, i};
    if (pthread_create(&c->threads[i], NULL, worker, a) != 0) {
      free(a);
      break;
    }
    c->nthreads++;
  }
  return c;
}

void vrt__copier_destroy(vrt_copier *c) {
  if (!c)
    return;
  pthread_mutex_lock(&c->m);
  c->quit = true;
  pthread_cond_broadcast(&c->go);
  pthread_mutex_unlock(&c->m);
  for (uint32_t i = 0; i < c->nthreads && c->pid == getpid(); i++)
    pthread_join(c->threads[i], NULL);
  pthread_cond_destroy(&c->go);
  pthread_cond_destroy(&c->done);
  pthread_mutex_destroy(&c->m);
  pthread_mutex_destroy(&c->busy);
  free(c);
}

void vrt__memcpy(vrt_context *ctx, void *dst, const void *src, size_t n) {
  uint32_t want = atomic_load(&ctx->copy_threads);
  if (n < MIN_BYTES || want < 2) {
    memcpy(dst, src, n);
    return;
  }
  /* The workers start once; a later, smaller thread count uses fewer. */
  pthread_mutex_lock(&ctx->copier_lock);
  if (!ctx->copier)
    ctx->copier = copier_start(want);
  vrt_copier *c = ctx->copier;
  pthread_mutex_unlock(&ctx->copier_lock);
  if (!c || !c->nthreads || c->pid != getpid() || pthread_mutex_trylock(&c->busy) != 0) {
    memcpy(dst, src, n);
    return;
  }
  uint32_t parts = want - 1 < c->nthreads ? want : c->nthreads + 1;
  if (n / parts < MIN_PART)
    parts = (uint32_t)(n / MIN_PART) ? (uint32_t)(n / MIN_PART) : 1;
  /* Parts are multiples of 64 bytes (cache lines), the caller's the last. */
  size_t each = (n / parts) & ~(size_t)63;
  char *d = dst;
  const char *s = src;
  pthread_mutex_lock(&c->m);
  for (uint32_t i = 0; i < c->nthreads; i++)
    c->parts[i] = i + 1 < parts ? (part){d + i * each, s + i * each, each} : (part){0};
  c->pending = c->nthreads;
  c->gen++;
  pthread_cond_broadcast(&c->go);
  pthread_mutex_unlock(&c->m);
  size_t mine = (size_t)(parts - 1) * each;
  memcpy(d + mine, s + mine, n - mine);
  pthread_mutex_lock(&c->m);
  while (c->pending)
    pthread_cond_wait(&c->done, &c->m);
  pthread_mutex_unlock(&c->m);
  pthread_mutex_unlock(&c->busy);
}
