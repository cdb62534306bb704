/* test_control.c - control buffers: named words, host atomics, exact counts
 * from GPU atomics of many invocations (with host threads adding at the same
 * time), and a kernel that waits for a host write while it runs. */
#include "rt_test.h"

#include <pthread.h>
#include <time.h>

static void test_names(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  const char *names[] = {"mode", "hot_count"};
  vrt_control *c = vrt_control_create(ctx, names, 2, 16, &d);
  CHECK_OK(d);
  if (c) {
    CHECK_EQ_U64(vrt_control_words(c), 16);
    CHECK(vrt_control_index(c, "hot_count") == 1 && vrt_control_index(c, "nope") == -1);
    CHECK(strcmp(vrt_control_name(c, 0), "mode") == 0 && !vrt_control_name(c, 5));
    for (uint32_t i = 0; i < 16; i++)
      CHECK_EQ_U64(vrt_control_load(c, i), 0);
    vrt_control_store(c, 1, 41);
    CHECK_EQ_U64(vrt_control_add(c, 1, 1), 41);
    CHECK_EQ_U64(vrt_control_load(c, 1), 42);
    CHECK_EQ_U64(vrt_control_data(c)[1], 42);
    uint32_t flags = vrt_buffer_memory_flags(vrt_control_buffer(c));
    CHECK((flags & (VRT_MEM_HOST_VISIBLE | VRT_MEM_HOST_COHERENT)) ==
          (VRT_MEM_HOST_VISIBLE | VRT_MEM_HOST_COHERENT));
  }
  vrt_control_destroy(c);
  const char *dup[] = {"a", "a"};
  CHECK(!vrt_control_create(ctx, dup, 2, 4, &d));
  CHECK_ERROR(d, "'a' is used twice");
  CHECK(!vrt_control_create(ctx, NULL, 0, 0, &d));
  CHECK_ERROR(d, "at least one word");
  c = vrt_control_create(ctx, names, 2, 0, &d); /* words = names */
  CHECK(c && vrt_control_words(c) == 2);
  CHECK_OK(d);
  /* Left for the context to free. */
  vp_diags_free(&d);
  rt_context_done(ctx);
}

typedef struct adder {
  vrt_control *c;
  uint32_t times;
} adder;

static void *add_loop(void *p) {
  adder *a = p;
  for (uint32_t i = 0; i < a->times; i++)
    vrt_control_add(a->c, 0, 1);
  return NULL;
}

static void test_gpu_atomics(void) {
  vrt_context *ctx = rt_context();
  vrt_kernel *k = ctx ? rt_kernel(ctx, "atomics", NULL) : NULL;
  if (!k) {
    rt_context_done(ctx);
    return;
  }
  vp_diags d = {0};
  const char *names[] = {"count", "sum"};
  vrt_control *c = vrt_control_create(ctx, names, 2, 8, &d);
  CHECK_OK(d);
  enum { INV = 100003, THREADS = 4, HOST_ADDS = 20000 };
  vrt_buffer *cb = vrt_control_buffer(c);
  vrt_args args = {&cb, 1, NULL, 0};
  vrt_ticket t;
  CHECK(vrt_dispatch_async(k, &args, vrt_invocations(INV, 1, 1), &t, &d));
  pthread_t th[THREADS];
  adder a = {c, HOST_ADDS};
  for (int i = 0; i < THREADS; i++)
    pthread_create(&th[i], NULL, add_loop, &a);
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  CHECK(vrt_wait(ctx, t, UINT64_MAX, &d));
  CHECK(vrt_dispatch(k, &args, vrt_invocations(INV, 1, 1), &d));
  CHECK_OK(d);
  uint64_t sum = 0;
  uint32_t by4[4] = {0};
  for (uint32_t i = 0; i < INV; i++) {
    sum += i % 7;
    by4[i & 3]++;
  }
  CHECK_EQ_U64(vrt_control_load(c, 0), 2ull * INV + THREADS * HOST_ADDS);
  CHECK_EQ_U64(vrt_control_load(c, 1), 2 * sum);
  for (int i = 0; i < 4; i++)
    CHECK_EQ_U64(vrt_control_load(c, 2 + i), 2 * by4[i]);
  CHECK_EQ_U64(vrt_control_load(c, 6), 0);
  vrt_control_destroy(c);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* The host reads words a running dispatch writes, and writes a word the
 * dispatch is polling: workgroups finish early once they see it. */
static void test_handshake(void) {
  vrt_context *ctx = rt_context();
  vrt_kernel *k = ctx ? rt_kernel(ctx, "handshake", NULL) : NULL;
  if (!k) {
    rt_context_done(ctx);
    return;
  }
  vp_diags d = {0};
  const char *names[] = {"started", "go", "saw_go", "done"};
  vrt_control *c = vrt_control_create(ctx, names, 4, 4, &d);
  vrt_buffer *cb = vrt_control_buffer(c);
  enum { GROUPS = 2000 }; /* x 60000 polls: seconds on lavapipe if go were never seen */
  uint32_t max_polls = 60000;
  vrt_args args = {&cb, 1, &max_polls, 4};
  vrt_ticket t;
  CHECK(vrt_dispatch_async(k, &args, vrt_groups(GROUPS / 4, 4, 1), &t, &d));
  if (d.nerrors) {
    CHECK_OK(d);
    vrt_control_destroy(c);
    vrt_kernel_destroy(k);
    rt_context_done(ctx);
    return;
  }
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  bool started = false;
  do {
    started = vrt_control_load(c, 0) >= 1;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (!started && now.tv_sec - start.tv_sec < 60);
  CHECK(started);
  uint32_t done_before = vrt_control_load(c, 3);
  vrt_control_store(c, 1, 1);
  CHECK(vrt_wait(ctx, t, 120ull * 1000000000ull, &d));
  CHECK_OK(d);
  CHECK_EQ_U64(vrt_control_load(c, 0), GROUPS);
  CHECK_EQ_U64(vrt_control_load(c, 3), GROUPS);
  if (done_before < GROUPS) {
    /* Workgroups that ran after the store saw it. */
    CHECK(vrt_control_load(c, 2) >= 1);
    CHECK(vrt_control_load(c, 2) <= GROUPS - done_before);
  } else {
    fprintf(stderr, "  the dispatch ended before the host wrote: nothing to check\n");
  }
  vrt_control_destroy(c);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

int main(void) {
  RT_RUN(test_names);
  RT_RUN(test_gpu_atomics);
  RT_RUN(test_handshake);
  return rt_failures ? 1 : 0;
}
