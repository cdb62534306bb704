/* test_eager.c - adaptive batching of eager dispatches (runtime/eager.c).
 *
 * Long work on the default queue, in flight for as long as the test wants,
 * makes every case deterministic: a "handshake" dispatch
 * (shaders/handshake.comp) whose workgroups poll a control word until the
 * host sets it (long_work, long_release). Eager dispatches made while it
 * runs are held (no submission), the flusher thread leaves them alone while
 * it runs and sends them, with no further call, once it ends; one made
 * while the GPU is idle is submitted at once; the cap sends a full batch; a
 * stream created while work is held sends it first; a context destroyed
 * with work held sends it and tears down without validation messages.
 * Results are saxpy's, checked on the host (y accumulates alpha * x per
 * dispatch).
 *
 * No case holds the queue with a gate event (vrt_event_create_gate and a
 * submission that waits for it): under load the validation layer then
 * reported its own UNASSIGNED-VkSemaphore-state-timeout ("most likely a
 * validation bug") now and then, in about 1 run in 8 of this test in CI.
 */
#include "rt_test.h"

#include <time.h>

enum { N = 256 };

/* The handshake's control words (shaders/handshake.comp). */
enum { W_STARTED, W_GO, W_SAW_GO, W_DONE, W_COUNT };
/* Long work's workgroups: each polls `go` up to 65535 times. Never
 * released, 1024 ran 3 s on lavapipe (2 loaded cores), 30 times the longest
 * window of checks made while it runs (long_running says that it did run
 * through them); released, the workgroups left finish at once, though
 * lavapipe still spends about a quarter of that on them. */
enum { LONG_GROUPS = 1024 };

typedef struct {
  vrt_context *ctx;
  vrt_kernel *k; /* saxpy */
  vrt_buffer *x, *y;
  vrt_args args;
  vrt_buffer *bufs[2];
  struct {
    uint32_t count[3];
    float alpha;
  } push;
  vrt_kernel *hk;   /* handshake: long work */
  vrt_control *ctl; /* its words */
  uint32_t groups;  /* the last long work's */
} saxpy_t;

static void saxpy_close_at(saxpy_t *s, const char *file, int line);

static bool saxpy_open_with(saxpy_t *s, vrt_context_options opt) {
  memset(s, 0, sizeof *s);
  if (!rt_context_kernel(opt, "saxpy", &s->ctx, &s->k))
    return false;
  vp_diags d = {0};
  float x[N], y[N];
  for (uint32_t i = 0; i < N; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  s->x = vrt_buffer_create(s->ctx, N * 4, VRT_DEVICE, &d);
  s->y = vrt_buffer_create(s->ctx, N * 4, VRT_DEVICE, &d);
  CHECK(s->x && s->y && vrt_buffer_upload(s->x, 0, x, N * 4, &d) &&
        vrt_buffer_upload(s->y, 0, y, N * 4, &d));
  CHECK_OK(d);
  vp_diags_free(&d);
  s->bufs[0] = s->x;
  s->bufs[1] = s->y;
  s->push.alpha = 2.0f;
  s->args = (vrt_args){s->bufs, 2, &s->push, sizeof s->push};
  const char *names[W_COUNT] = {"started", "go", "saw_go", "done"};
  s->hk = rt_kernel(s->ctx, "handshake", NULL);
  s->ctl = vrt_control_create(s->ctx, names, W_COUNT, W_COUNT, &d);
  CHECK(s->hk && s->ctl);
  CHECK_OK(d);
  vp_diags_free(&d);
  if (s->x && s->y && s->hk && s->ctl)
    return true;
  saxpy_close_at(s, __FILE__, __LINE__);
  return false;
}

static bool saxpy_open(saxpy_t *s) {
  return saxpy_open_with(s, (vrt_context_options){0});
}

static void saxpy_close_at(saxpy_t *s, const char *file, int line) {
  if (s->ctl)
    vrt_control_destroy(s->ctl);
  vrt_kernel_destroy(s->hk);
  vrt_buffer_destroy(s->x);
  vrt_buffer_destroy(s->y);
  vrt_kernel_destroy(s->k);
  rt_context_done_at(s->ctx, file, line);
}
#define saxpy_close(s) saxpy_close_at((s), __FILE__, __LINE__)

/* y[i] == 1 + runs * 2 * i for every i. */
static void check_runs(saxpy_t *s, int runs) {
  vp_diags d = {0};
  float out[N];
  CHECK(vrt_buffer_download(s->y, 0, out, N * 4, &d));
  CHECK_OK(d);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < N; i++)
    bad += out[i] != 1.0f + (float)runs * 2.0f * (float)i;
  CHECK_EQ_U64(bad, 0);
  vp_diags_free(&d);
}

static vrt_context_stats stats(vrt_context *ctx) {
  vrt_context_stats st;
  vrt_context_stats_get(ctx, &st);
  return st;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Starts long work on the default queue: `groups` handshake workgroups
 * that poll `go` (cleared here: the previous long work must be done) up to
 * 65535 times each. Returns its ticket; 0 (a test failure) if it failed. */
static vrt_ticket long_work_n(saxpy_t *s, uint32_t groups) {
  vp_diags d = {0};
  for (uint32_t w = 0; w < W_COUNT; w++)
    vrt_control_store(s->ctl, w, 0);
  uint32_t max_polls = 65535;
  vrt_buffer *cb[1] = {vrt_control_buffer(s->ctl)};
  vrt_args ha = {cb, 1, &max_polls, 4};
  vrt_ticket t = 0;
  CHECK(vrt_dispatch_async(s->hk, &ha, vrt_groups(groups, 1, 1), &t, &d));
  CHECK_OK(d);
  vp_diags_free(&d);
  s->groups = groups;
  return t;
}

static vrt_ticket long_work(saxpy_t *s) { return long_work_n(s, LONG_GROUPS); }

/* True while the long work runs (not all its workgroups are done; the
 * host reads the word, no runtime call). Checked after the checks made
 * while it runs, it says they saw it running: were it ever too short for
 * them, the test fails rather than pass or fail by chance. */
static bool long_running(saxpy_t *s) { return vrt_control_load(s->ctl, W_DONE) < s->groups; }

/* Lets the long work end: its workgroups see `go` and finish at once. */
static void long_release(saxpy_t *s) { vrt_control_store(s->ctl, W_GO, 1); }

/* Waits (up to 60 s) until nothing is held: the flusher sent it. */
static void wait_unheld(saxpy_t *s) {
  for (int ms = 0; ms < 60000 && stats(s->ctx).eager_held; ms += 2)
    sleep_ms(2);
}

static vrt_ticket eager(saxpy_t *s) {
  vp_diags d = {0};
  vrt_ticket t = 0;
  CHECK(vrt_dispatch_eager(s->k, &s->args, NULL, vrt_invocations(N, 1, 1), &t, &d));
  CHECK_OK(d);
  vp_diags_free(&d);
  return t;
}

static void test_mode_api(void) {
  saxpy_t s;
  if (!saxpy_open(&s))
    return;
  vrt_context_set_eager_adaptive(s.ctx, 0);
  CHECK(vrt_context_eager_adaptive(s.ctx));
  CHECK_EQ_U64(vrt_context_eager_batch(s.ctx), VRT_EAGER_ADAPTIVE_CAP);
  vrt_context_set_eager_adaptive(s.ctx, 5);
  CHECK_EQ_U64(vrt_context_eager_batch(s.ctx), 5);
  vrt_context_set_eager_batch(s.ctx, 3); /* a fixed batch ends adaptive */
  CHECK(!vrt_context_eager_adaptive(s.ctx));
  CHECK_EQ_U64(vrt_context_eager_batch(s.ctx), 3);
  vrt_context_set_eager_batch(s.ctx, 0); /* the default: by device kind */
  bool cpu = vrt_context_device(s.ctx)->kind == VRT_DEVICE_CPU;
  CHECK(vrt_context_eager_adaptive(s.ctx) == !cpu);
  CHECK_EQ_U64(vrt_context_eager_batch(s.ctx), cpu ? VRT_EAGER_BATCH : VRT_EAGER_ADAPTIVE_CAP);
  saxpy_close(&s);
  /* vrt_context_options.eager_batch (VULPY_EAGER_BATCH) */
  vrt_context *c = rt_context_with((vrt_context_options){.eager_batch = VRT_EAGER_ADAPTIVE_OPT});
  CHECK(c && vrt_context_eager_adaptive(c));
  rt_context_done(c);
  c = rt_context_with((vrt_context_options){.eager_batch = 5});
  CHECK(c && !vrt_context_eager_adaptive(c) && vrt_context_eager_batch(c) == 5);
  rt_context_done(c);
  vp_diags d = {0};
  vrt_context_options bad = {.eager_batch = 65};
  CHECK(vrt_context_create(&bad, &d) == NULL);
  CHECK_ERROR(d, "vrt_context_options.eager_batch = 65");
  vp_diags_free(&d);
}

/* Held while the long work runs (the flusher waits too), sent by the
 * flusher with no further call once it ends. */
static void test_held_while_running_then_flushed(void) {
  saxpy_t s;
  if (!saxpy_open(&s))
    return;
  vrt_context_set_eager_adaptive(s.ctx, 0);
  vrt_context_set_eager_inflight(s.ctx, 1); /* hold while anything runs */
  vrt_ticket t0 = long_work(&s);
  vrt_context_stats a = stats(s.ctx);
  vrt_ticket t = 0;
  for (int i = 0; i < 5; i++)
    t = eager(&s);
  CHECK_EQ_U64(t, t0 + 1); /* the held batch's ticket */
  vrt_context_stats b = stats(s.ctx);
  CHECK_EQ_U64(b.submits, a.submits);
  CHECK_EQ_U64(b.dispatches, a.dispatches + 5);
  CHECK_EQ_U64(b.eager_held, 5);
  sleep_ms(100); /* the long work still runs: nothing may be sent */
  b = stats(s.ctx);
  CHECK_EQ_U64(b.submits, a.submits);
  CHECK_EQ_U64(b.eager_held, 5);
  CHECK(long_running(&s));
  long_release(&s);
  wait_unheld(&s);
  b = stats(s.ctx);
  CHECK_EQ_U64(b.eager_held, 0);
  CHECK_EQ_U64(b.submits, a.submits + 1);
  CHECK_EQ_U64(b.eager_flushes, a.eager_flushes + 1);
  /* and it runs to completion without anyone waiting */
  bool done = false;
  for (int ms = 0; ms < 20000 && !done; ms += 2) {
    done = vrt_ticket_done(s.ctx, t);
    if (!done)
      sleep_ms(2);
  }
  CHECK(done);
  CHECK_EQ_U64(stats(s.ctx).submits, a.submits + 1);
  check_runs(&s, 5);
  /* Again once the flusher sleeps (the queue drained): a hold wakes it. */
  sleep_ms(100);
  long_work(&s);
  a = stats(s.ctx);
  eager(&s);
  eager(&s);
  CHECK_EQ_U64(stats(s.ctx).eager_held, 2);
  CHECK(long_running(&s));
  long_release(&s);
  wait_unheld(&s);
  b = stats(s.ctx);
  CHECK_EQ_U64(b.eager_held, 0);
  CHECK_EQ_U64(b.eager_flushes, a.eager_flushes + 1);
  check_runs(&s, 7);
  saxpy_close(&s);
}

/* Idle GPU: submitted at once; the cap sends a full batch while earlier
 * work runs. */
static void test_idle_submits_and_cap(void) {
  saxpy_t s;
  if (!saxpy_open(&s))
    return;
  vrt_context_set_eager_adaptive(s.ctx, 4);
  vrt_context_set_eager_inflight(s.ctx, 1);
  vp_diags d = {0};
  CHECK(vrt_context_wait_idle(s.ctx, &d));
  vrt_context_stats a = stats(s.ctx);
  vrt_ticket t = eager(&s);
  vrt_context_stats b = stats(s.ctx);
  CHECK_EQ_U64(b.submits, a.submits + 1);
  CHECK_EQ_U64(b.eager_held, 0);
  CHECK(vrt_wait(s.ctx, t, UINT64_MAX, &d));
  long_work(&s);
  a = stats(s.ctx);
  for (int i = 0; i < 10; i++)
    eager(&s);
  b = stats(s.ctx);
  CHECK_EQ_U64(b.submits, a.submits + 2); /* at 4 and 8 held */
  CHECK_EQ_U64(b.eager_held, 2);
  CHECK(long_running(&s));
  long_release(&s);
  CHECK(vrt_context_wait_idle(s.ctx, &d));
  CHECK_EQ_U64(stats(s.ctx).eager_held, 0);
  check_runs(&s, 11);
  CHECK_OK(d);
  vp_diags_free(&d);
  saxpy_close(&s);
}

/* A stream made while work is held sends it first; with streams nothing
 * is held. */
static void test_stream_sends_held(void) {
  saxpy_t s;
  if (!saxpy_open(&s))
    return;
  vrt_context_set_eager_adaptive(s.ctx, 0);
  vrt_context_set_eager_inflight(s.ctx, 1);
  long_work(&s);
  for (int i = 0; i < 3; i++)
    eager(&s);
  vrt_context_stats a = stats(s.ctx);
  CHECK_EQ_U64(a.eager_held, 3);
  vp_diags d = {0};
  vrt_stream *st = vrt_stream_create(s.ctx, VRT_STREAM_COMPUTE, &d);
  CHECK(st != NULL);
  vrt_context_stats b = stats(s.ctx);
  CHECK_EQ_U64(b.eager_held, 0);
  CHECK_EQ_U64(b.submits, a.submits + 1);
  eager(&s); /* on the default stream, the long work still running: not held */
  b = stats(s.ctx);
  CHECK_EQ_U64(b.eager_held, 0);
  CHECK_EQ_U64(b.submits, a.submits + 2);
  CHECK(long_running(&s));
  long_release(&s);
  CHECK(vrt_context_wait_idle(s.ctx, &d));
  check_runs(&s, 4);
  CHECK_OK(d);
  vp_diags_free(&d);
  vrt_stream_destroy(st);
  saxpy_close(&s);
}

/* Destroyed with work held: the context sends it (the flusher stopped
 * first) before it tears down, without validation messages. The work in
 * flight is long work of 64 workgroups, never released (it ends after its
 * polls, the context's teardown waits for it); y is imported host memory,
 * so its values can be read after the context is gone. With a fixed batch
 * set after the holds the flusher leaves them alone, so the destroy path
 * is the one that sends them. */
static void test_destroy_with_held_work(void) {
  for (int fixed = 0; fixed < 2; fixed++) {
    saxpy_t s;
    if (!saxpy_open(&s))
      return;
    if (!vrt_context_device(s.ctx)->min_imported_host_pointer_alignment) {
      saxpy_close(&s);
      fprintf(stderr, "(no external_memory_host: skipped)\n");
      return;
    }
    vp_diags d = {0};
    size_t bytes = 0;
    float *host = vrt_host_alloc(N * 4, &bytes);
    for (uint32_t i = 0; host && i < N; i++)
      host[i] = 1.0f;
    vrt_buffer *yh = host ? vrt_buffer_import_host(s.ctx, host, bytes, &d) : NULL;
    CHECK(yh);
    CHECK_OK(d);
    if (yh) {
      vrt_context_set_eager_adaptive(s.ctx, 0);
      vrt_context_set_eager_inflight(s.ctx, 1);
      s.bufs[1] = yh;
      long_work_n(&s, 64);
      for (int i = 0; i < 3; i++)
        eager(&s);
      /* held: the long work outlasts three calls by far */
      CHECK_EQ_U64(stats(s.ctx).eager_held, 3);
      if (fixed)
        vrt_context_set_eager_batch(s.ctx, 8);
      CHECK_OK(d);
    }
    /* the buffers, kernels and control go with the context, after its
     * flush */
    rt_context_done(s.ctx);
    uint32_t bad = 0;
    for (uint32_t i = 0; host && i < N; i++)
      bad += host[i] != 1.0f + 3.0f * 2.0f * (float)i;
    CHECK_EQ_U64(bad, 0);
    vrt_host_free(host, bytes);
    vp_diags_free(&d);
  }
}

/* Two in flight (the default, VRT_EAGER_INFLIGHT): with long work running
 * the next eager dispatch is still submitted at once (it waits queued
 * behind, so the GPU has work the moment the long one ends); the ones
 * after it are held, and the flusher sends them with no further call. */
static void test_two_in_flight(void) {
  saxpy_t s;
  if (!saxpy_open(&s))
    return;
  vp_diags d = {0};
  vrt_context_set_eager_adaptive(s.ctx, 0);
  vrt_context_set_eager_inflight(s.ctx, 0);
  CHECK_EQ_U64(vrt_context_eager_inflight(s.ctx), VRT_EAGER_INFLIGHT);
  CHECK_EQ_U64(VRT_EAGER_INFLIGHT, 2);
  CHECK(vrt_context_wait_idle(s.ctx, &d));
  if (long_work(&s)) {
    vrt_context_stats a = stats(s.ctx);
    vrt_ticket t1 = eager(&s);
    vrt_context_stats b = stats(s.ctx);
    CHECK_EQ_U64(b.submits, a.submits + 1); /* queued behind the long work */
    CHECK_EQ_U64(b.eager_held, 0);
    vrt_ticket t = 0;
    for (int i = 0; i < 4; i++)
      t = eager(&s);
    CHECK(t > t1);
    b = stats(s.ctx);
    CHECK_EQ_U64(b.submits, a.submits + 1);
    CHECK_EQ_U64(b.eager_held, 4);
    CHECK(long_running(&s));
    long_release(&s);
    wait_unheld(&s);
    b = stats(s.ctx);
    CHECK_EQ_U64(b.eager_held, 0);
    CHECK_EQ_U64(b.submits, a.submits + 2);
    CHECK_EQ_U64(b.eager_flushes, a.eager_flushes + 1);
    CHECK(vrt_wait(s.ctx, t, UINT64_MAX, &d));
    check_runs(&s, 5);
    /* 1 in flight holds the dispatch the default submits */
    vrt_context_set_eager_inflight(s.ctx, 1);
    CHECK_EQ_U64(vrt_context_eager_inflight(s.ctx), 1);
    if (long_work(&s)) {
      eager(&s);
      CHECK_EQ_U64(stats(s.ctx).eager_held, 1);
      CHECK(long_running(&s));
      long_release(&s);
      CHECK(vrt_context_wait_idle(s.ctx, &d));
      check_runs(&s, 6);
    }
  }
  vrt_context_set_eager_inflight(s.ctx, 100);
  CHECK_EQ_U64(vrt_context_eager_inflight(s.ctx), 8);
  CHECK_OK(d);
  vp_diags_free(&d);
  saxpy_close(&s);
  /* vrt_context_options.eager_inflight (VULPY_EAGER_INFLIGHT) */
  vrt_context *c = rt_context_with((vrt_context_options){.eager_inflight = 3});
  CHECK(c && vrt_context_eager_inflight(c) == 3);
  rt_context_done(c);
}

/* A held batch binding VRT_EAGER_HELD_BYTES goes at once: dispatches that
 * bind 2 x 128 MiB are each sent while the long work runs, where small
 * ones are held. */
static void test_held_bytes_cap(void) {
  saxpy_t s;
  if (!saxpy_open(&s))
    return;
  vp_diags d = {0};
  vrt_buffer *bx = vrt_buffer_create(s.ctx, 128u << 20, VRT_DEVICE, &d);
  vrt_buffer *by = vrt_buffer_create(s.ctx, 128u << 20, VRT_DEVICE, &d);
  CHECK(bx && by);
  CHECK_OK(d);
  vrt_context_set_eager_adaptive(s.ctx, 0);
  vrt_context_set_eager_inflight(s.ctx, 1);
  vrt_buffer *big[2] = {bx, by};
  vrt_args ba = {big, 2, &s.push, sizeof s.push};
  vrt_ticket t = 0;
  /* the big buffers' zero fills first, so no fill is open below */
  CHECK(bx && by && vrt_dispatch_eager(s.k, &ba, NULL, vrt_invocations(N, 1, 1), &t, &d));
  CHECK(vrt_context_wait_idle(s.ctx, &d));
  if (bx && by && long_work(&s)) {
    vrt_context_stats a = stats(s.ctx);
    eager(&s); /* small: held */
    CHECK_EQ_U64(stats(s.ctx).eager_held, 1);
    CHECK_EQ_U64(stats(s.ctx).submits, a.submits);
    CHECK(vrt_dispatch_eager(s.k, &ba, NULL, vrt_invocations(N, 1, 1), &t, &d));
    vrt_context_stats b = stats(s.ctx);
    CHECK_EQ_U64(b.eager_held, 0); /* the batch passed the bytes cap: sent */
    CHECK_EQ_U64(b.submits, a.submits + 1);
    CHECK(vrt_dispatch_eager(s.k, &ba, NULL, vrt_invocations(N, 1, 1), &t, &d));
    b = stats(s.ctx);
    CHECK_EQ_U64(b.eager_held, 0);
    CHECK_EQ_U64(b.submits, a.submits + 2);
    CHECK(long_running(&s));
    long_release(&s);
    CHECK(vrt_context_wait_idle(s.ctx, &d));
    check_runs(&s, 1);
  }
  CHECK_OK(d);
  vp_diags_free(&d);
  vrt_buffer_destroy(bx);
  vrt_buffer_destroy(by);
  saxpy_close(&s);
}

/* The flusher at a chosen eager_flusher_us (VULPY_EAGER_FLUSHER_US): 50 us
 * polls, VRT_EAGER_FLUSHER_BLOCK waits in the driver (the other tests run
 * the default, polling every VRT_EAGER_FLUSHER_US): held work stays held
 * while the long work runs and is sent with no further call once it
 * ends. */
static void test_flusher_at(uint32_t us) {
  saxpy_t s;
  if (!saxpy_open_with(&s, (vrt_context_options){.eager_flusher_us = us}))
    return;
  vp_diags d = {0};
  vrt_context_set_eager_adaptive(s.ctx, 0);
  vrt_context_set_eager_inflight(s.ctx, 1);
  CHECK(vrt_context_wait_idle(s.ctx, &d));
  if (long_work(&s)) {
    vrt_context_stats a = stats(s.ctx);
    for (int i = 0; i < 3; i++)
      eager(&s);
    vrt_context_stats b = stats(s.ctx);
    CHECK_EQ_U64(b.eager_held, 3);
    CHECK_EQ_U64(b.submits, a.submits);
    sleep_ms(20); /* the flusher leaves them alone while it runs */
    b = stats(s.ctx);
    CHECK_EQ_U64(b.eager_held, 3);
    CHECK_EQ_U64(b.submits, a.submits);
    CHECK(long_running(&s));
    long_release(&s);
    wait_unheld(&s);
    b = stats(s.ctx);
    CHECK_EQ_U64(b.eager_held, 0);
    CHECK_EQ_U64(b.eager_flushes, a.eager_flushes + 1);
    CHECK(vrt_context_wait_idle(s.ctx, &d));
    check_runs(&s, 3);
  }
  CHECK_OK(d);
  vp_diags_free(&d);
  saxpy_close(&s);
}

static void test_polling_flusher(void) { test_flusher_at(50); }
static void test_blocking_flusher(void) { test_flusher_at(VRT_EAGER_FLUSHER_BLOCK); }

int main(void) {
  RT_RUN(test_mode_api);
  RT_RUN(test_held_while_running_then_flushed);
  RT_RUN(test_idle_submits_and_cap);
  RT_RUN(test_stream_sends_held);
  RT_RUN(test_destroy_with_held_work);
  RT_RUN(test_two_in_flight);
  RT_RUN(test_held_bytes_cap);
  RT_RUN(test_polling_flusher);
  RT_RUN(test_blocking_flusher);
  return rt_failures ? 1 : 0;
}
