/* test_memsock.c - the host side of MemSock with a host thread playing the
 * GPU's part of the protocol on the ring words (vulpy/memsock_abi.h): a
 * block pipe with a slow consumer loses and tears nothing, skip and
 * overwrite counters add up exactly, impossible GPU-written counts and a
 * wrong payload signature are refused, close ends a blocked producer, frames
 * in a caller's buffer are checked and left to the caller. The
 * kernel side runs on a device in test/python/test_memsock.py. */
#include "rt_test.h"

#include "vulpy/memsock_abi.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

typedef struct producer {
  vrt_memsock *ms;
  uint32_t frames, elems;
  uint32_t written; /* frames the fake GPU wrote (not dropped) */
} producer;

static _Atomic uint32_t *w(vrt_memsock *ms, uint32_t i) {
  return (_Atomic uint32_t *)(vrt_memsock_words(ms) + i);
}

/* The GPU side of one fire by one workgroup: credit, tag odd, frame,
 * payload, tag even, published. */
static void *produce(void *arg) {
  producer *p = arg;
  vrt_memsock *ms = p->ms;
  uint32_t cap = atomic_load(w(ms, VMS_HDR_CAPACITY));
  uint32_t policy = atomic_load(w(ms, VMS_HDR_POLICY));
  uint32_t sw = atomic_load(w(ms, VMS_HDR_SLOT_WORDS));
  uint32_t base = atomic_load(w(ms, VMS_HDR_BASE));
  for (uint32_t k = 0; k < p->frames; k++) {
    uint32_t s = base + k, slot = s % cap;
    uint32_t *sl = vrt_memsock_words(ms) + VMS_HDR_WORDS + slot * sw;
    bool go = true;
    if (policy == VMS_POLICY_BLOCK)
      while (s - atomic_load(w(ms, VMS_HDR_ACK)) >= cap && !atomic_load(w(ms, VMS_HDR_CLOSED)))
        ;
    if (policy != VMS_POLICY_OVERWRITE)
      go = s - atomic_load(w(ms, VMS_HDR_ACK)) < cap;
    go = go && !atomic_load(w(ms, VMS_HDR_CLOSED));
    /* the grid's decision for s, as the lowering's compare-and-swap leaves it */
    atomic_store((_Atomic uint32_t *)&sl[VMS_SLOT_DECIDE], ((s + 1) << 1) | (go ? 0u : 1u));
    if (go) {
      atomic_store((_Atomic uint32_t *)&sl[VMS_SLOT_TAG], 2 * s + 1);
      atomic_thread_fence(memory_order_release);
      uint32_t *frame = vrt_memsock_slot_frame(ms, slot);
      for (uint32_t e = 0; e < p->elems; e++)
        frame[e] = s * 7 + e;
      sl[VMS_SLOT_PAYLOAD] = s * 3;
      sl[VMS_SLOT_SIG] = atomic_load(w(ms, VMS_HDR_SIG));
      atomic_store_explicit((_Atomic uint32_t *)&sl[VMS_SLOT_TAG], 2 * (s + 1),
                            memory_order_release);
      p->written++;
    } else {
      atomic_fetch_add(w(ms, VMS_HDR_GPU_DROPPED), 1);
    }
    atomic_store_explicit(w(ms, VMS_HDR_PUBLISHED), s + 1, memory_order_release);
  }
  return NULL;
}

static vrt_memsock *make(vrt_context *ctx, uint32_t cap, uint32_t elems, vrt_memsock_policy pol) {
  vp_diags d = {0};
  const char *names[] = {"idx"}, *types[] = {"u32"};
  vrt_memsock_desc desc = {.elem_size = 4, .frame_elems = elems, .payload_words = 1,
                           .capacity = cap, .policy = pol, .memory = VRT_CACHED,
                           .signature = vrt_memsock_signature(names, types, 1)};
  vrt_memsock *ms = vrt_memsock_create(ctx, &desc, &d);
  CHECK_OK(d);
  /* the host thread playing the GPU has no loop budget: no canary, so the
   * pipe hands frames out while a "dispatch" runs (on lavapipe it holds
   * them until the dispatch's end) */
  vrt_memsock_words(ms)[VMS_HDR_CANARY] = 0;
  return ms;
}

/* Consumes until `total` frames are accounted for; checks each frame. */
static uint64_t consume(vrt_memsock *ms, uint32_t total, uint32_t elems, uint32_t slow_every,
                        bool *ordered) {
  vp_diags d = {0};
  uint64_t got = 0;
  int64_t last = -1;
  *ordered = true;
  for (;;) {
    vrt_memsock_stats st;
    vrt_memsock_stats_get(ms, &st);
    if (st.delivered + st.dropped + st.torn >= total)
      break;
    vrt_memsock_frame f;
    int r = vrt_memsock_next(ms, 2000000000ull, &f, &d);
    if (r != 1)
      break;
    const uint32_t *frame = f.data;
    bool ok = (int64_t)f.seq > last && f.payload[0] == f.seq * 3;
    for (uint32_t e = 0; e < elems; e++)
      ok = ok && frame[e] == f.seq * 7 + e;
    *ordered = *ordered && ok;
    last = f.seq;
    if (slow_every && f.seq % slow_every == 0) {
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    }
    vrt_memsock_release(ms, &f);
    got++;
  }
  CHECK_OK(d);
  return got;
}

static void test_create_errors(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_memsock_desc desc = {.elem_size = 4, .frame_elems = 16, .capacity = 0};
  CHECK(!vrt_memsock_create(ctx, &desc, &d));
  CHECK_ERROR(d, "capacity 0");
  desc.capacity = 2;
  desc.frame_elems = 0;
  CHECK(!vrt_memsock_create(ctx, &desc, &d));
  CHECK_ERROR(d, "elements");
  desc.frame_elems = 16;
  desc.payload_words = 65;
  CHECK(!vrt_memsock_create(ctx, &desc, &d));
  CHECK_ERROR(d, "at most 64");
  CHECK(vrt_memsock_policy_lookup("overwrite") == VRT_MEMSOCK_OVERWRITE);
  CHECK(vrt_memsock_policy_lookup("drop") == -1);
  vrt_memsock *ms = make(ctx, 3, 10, VRT_MEMSOCK_BLOCK);
  if (ms) {
    CHECK_EQ_U64(vrt_memsock_stride(ms), 256);
    CHECK(((uintptr_t)vrt_memsock_slot_frame(ms, 1) & 63) == 0);
    CHECK(!vrt_memsock_slot_frame(ms, 3));
    CHECK_EQ_U64(vrt_memsock_words(ms)[VMS_HDR_MAGIC], VMS_MAGIC);
    CHECK_EQ_U64(vrt_memsock_words(ms)[VMS_HDR_FRAME_STRIDE], 64);
    uint32_t fl = vrt_buffer_memory_flags(vrt_memsock_ring(ms));
    CHECK((fl & (VRT_MEM_HOST_VISIBLE | VRT_MEM_HOST_COHERENT)) ==
          (VRT_MEM_HOST_VISIBLE | VRT_MEM_HOST_COHERENT));
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    CHECK(!vrt_memsock_begin_dispatch(ms, &d));
    CHECK_ERROR(d, "one dispatch at a time");
    CHECK(vrt_memsock_end_dispatch(ms, &d));
    CHECK_OK(d);
  }
  vrt_memsock_destroy(ms);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* block: every frame arrives, in order, intact, with a slow consumer. */
static void test_block(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_memsock *ms = make(ctx, 4, 33, VRT_MEMSOCK_BLOCK);
  if (ms) {
    producer p = {ms, 100000, 33, 0};
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    pthread_t t;
    pthread_create(&t, NULL, produce, &p);
    bool ordered;
    uint64_t got = consume(ms, p.frames, 33, 997, &ordered);
    pthread_join(t, NULL);
    CHECK(vrt_memsock_end_dispatch(ms, &d));
    CHECK_OK(d);
    CHECK_EQ_U64(got, 100000);
    CHECK(ordered);
    vrt_memsock_stats st;
    vrt_memsock_stats_get(ms, &st);
    CHECK_EQ_U64(st.published, 100000);
    CHECK_EQ_U64(st.delivered, 100000);
    CHECK_EQ_U64(st.dropped + st.torn, 0);
    /* a second dispatch numbers its fires after the first's */
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    CHECK_EQ_U64(vrt_memsock_words(ms)[VMS_HDR_BASE], 100000);
    p.frames = 10;
    pthread_create(&t, NULL, produce, &p);
    got = consume(ms, 100010, 33, 0, &ordered);
    pthread_join(t, NULL);
    CHECK(vrt_memsock_end_dispatch(ms, &d));
    CHECK_EQ_U64(got, 10);
    CHECK(ordered);
  }
  vrt_memsock_destroy(ms);
  rt_context_done(ctx);
}

/* skip: with nobody consuming, exactly `capacity` frames survive; the
 * others are dropped, and the host's count says so. */
static void test_skip(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_memsock *ms = make(ctx, 3, 5, VRT_MEMSOCK_SKIP);
  if (ms) {
    producer p = {ms, 50, 5, 0};
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    produce(&p);
    CHECK(vrt_memsock_end_dispatch(ms, &d));
    CHECK_EQ_U64(p.written, 3);
    bool ordered;
    uint64_t got = consume(ms, 50, 5, 0, &ordered);
    CHECK_EQ_U64(got, 3);
    CHECK(ordered);
    vrt_memsock_stats st;
    vrt_memsock_stats_get(ms, &st);
    CHECK_EQ_U64(st.published, 50);
    CHECK_EQ_U64(st.delivered, 3);
    CHECK_EQ_U64(st.dropped, 47);
    CHECK_EQ_U64(st.gpu_dropped, 47);
  }
  vrt_memsock_destroy(ms);
  rt_context_done(ctx);
}

/* overwrite: the ring laps; the last `capacity` frames are delivered, the
 * lapped ones counted; a frame rewritten under the reader counts as torn. */
static void test_overwrite(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_memsock *ms = make(ctx, 4, 8, VRT_MEMSOCK_OVERWRITE);
  if (ms) {
    producer p = {ms, 30, 8, 0};
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    produce(&p);
    CHECK(vrt_memsock_end_dispatch(ms, &d));
    CHECK_EQ_U64(p.written, 30);
    vrt_memsock_frame f;
    CHECK(vrt_memsock_next(ms, 0, &f, &d) == 1);
    CHECK_EQ_U64(f.seq, 26);
    CHECK(f.copied && ((uint32_t *)f.data)[3] == 26 * 7 + 3);
    vrt_memsock_release(ms, &f);
    /* frame 27 is rewritten (as 31) while it is read: play that by moving
     * its tag to odd before the read */
    uint32_t sw = vrt_memsock_words(ms)[VMS_HDR_SLOT_WORDS];
    vrt_memsock_words(ms)[VMS_HDR_WORDS + 3 * sw + VMS_SLOT_TAG] = 2 * 31 + 1;
    CHECK(vrt_memsock_next(ms, 0, &f, &d) == 1);
    CHECK_EQ_U64(f.seq, 28);
    vrt_memsock_release(ms, &f);
    CHECK(vrt_memsock_next(ms, 0, &f, &d) == 1);
    CHECK_EQ_U64(f.seq, 29);
    vrt_memsock_release(ms, &f);
    CHECK(vrt_memsock_next(ms, 0, &f, &d) == 0);
    CHECK_OK(d);
    vrt_memsock_stats st;
    vrt_memsock_stats_get(ms, &st);
    CHECK_EQ_U64(st.published, 30);
    CHECK_EQ_U64(st.delivered, 3);
    CHECK_EQ_U64(st.dropped + st.torn, 27);
  }
  vrt_memsock_destroy(ms);
  rt_context_done(ctx);
}

/* Counts the GPU writes are not trusted: a published count that goes back
 * or runs far ahead fails the pipe; a foreign payload signature too. */
static void test_untrusted(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_memsock *ms = make(ctx, 2, 4, VRT_MEMSOCK_SKIP);
  if (ms) {
    producer p = {ms, 2, 4, 0};
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    produce(&p);
    vrt_memsock_frame f;
    CHECK(vrt_memsock_next(ms, 0, &f, &d) == 1);
    vrt_memsock_release(ms, &f);
    vrt_memsock_words(ms)[VMS_HDR_PUBLISHED] = 0xF0000000u; /* 2^31 or more ahead */
    CHECK(vrt_memsock_next(ms, 0, &f, &d) == -2);
    CHECK_ERROR(d, "header was overwritten");
    CHECK(!vrt_memsock_end_dispatch(ms, &d));
    CHECK_ERROR(d, "header was overwritten");
  }
  vrt_memsock_destroy(ms);
  ms = make(ctx, 2, 4, VRT_MEMSOCK_SKIP);
  if (ms) {
    producer p = {ms, 1, 4, 0};
    vrt_memsock_words(ms)[VMS_HDR_SIG] = 12345; /* the kernel's signature differs */
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    produce(&p);
    vrt_memsock_frame f;
    CHECK(vrt_memsock_next(ms, 0, &f, &d) == -2);
    CHECK_ERROR(d, "payload");
  }
  vrt_memsock_destroy(ms);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

static uint32_t seen_by_poller;
static bool on_frame(void *user, const vrt_memsock_frame *f) {
  (void)user;
  seen_by_poller += f->payload[0] == f->seq * 3;
  return true;
}

/* The poller thread delivers; close ends a producer that waits for credit
 * and lets the poller drain and stop; flush returns. */
static void test_poller_close(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_memsock *ms = make(ctx, 2, 4, VRT_MEMSOCK_BLOCK);
  if (ms) {
    producer p = {ms, 1000, 4, 0};
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    CHECK(vrt_memsock_start(ms, on_frame, NULL, &d));
    pthread_t t;
    pthread_create(&t, NULL, produce, &p);
    pthread_join(t, NULL);
    CHECK(vrt_memsock_end_dispatch(ms, &d));
    CHECK(vrt_memsock_flush(ms, 5000000000ull, &d) == 1);
    CHECK_EQ_U64(seen_by_poller, 1000);
    /* a producer blocked on a full ring with no consumer: close frees it */
    vrt_memsock_stop(ms);
    p.frames = 100;
    p.written = 0;
    CHECK(vrt_memsock_begin_dispatch(ms, &d));
    pthread_create(&t, NULL, produce, &p);
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
    vrt_memsock_close(ms);
    pthread_join(t, NULL);
    CHECK(vrt_memsock_end_dispatch(ms, &d));
    CHECK_OK(d);
    CHECK_EQ_U64(p.written, 2);
    vrt_memsock_stats st;
    vrt_memsock_stats_get(ms, &st);
    CHECK_EQ_U64(st.published, 1100);
    CHECK_EQ_U64(st.delivered + st.dropped, 1100);
    CHECK_EQ_U64(st.delivered, 1000);
    CHECK(st.closed);
    vrt_memsock_frame f;
    CHECK(vrt_memsock_next(ms, 0, &f, &d) == -1);
  }
  vrt_memsock_destroy(ms);
  rt_context_done(ctx);
}

/* Frames in the caller's buffer (user pages): checked for size, used in
 * place, and left alive when the pipe goes. */
static void test_user_frames(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_memsock_desc desc = {.elem_size = 4, .frame_elems = 10, .capacity = 4,
                           .policy = VRT_MEMSOCK_BLOCK, .memory = VRT_CACHED};
  CHECK_EQ_U64(vrt_memsock_frames_bytes(&desc), 4 * 256);
  vrt_buffer *small = vrt_buffer_create(ctx, 4 * 256 - 4, VRT_CACHED, &d);
  vrt_buffer *big = vrt_buffer_create(ctx, 4 * 256, VRT_CACHED, &d);
  CHECK_OK(d);
  desc.frames = small;
  CHECK(!vrt_memsock_create(ctx, &desc, &d));
  CHECK_ERROR(d, "need 1024");
  desc.frames = big;
  vrt_memsock *ms = vrt_memsock_create(ctx, &desc, &d);
  CHECK_OK(d);
  if (ms) {
    CHECK(vrt_memsock_frames(ms) == big);
    CHECK(vrt_memsock_slot_frame(ms, 1) == (uint8_t *)vrt_buffer_map(big) + 256);
    CHECK(vrt_memsock_ring(ms) != big);
  }
  vrt_memsock_destroy(ms);
  /* still the caller's: writable and destroyable after the pipe */
  ((uint32_t *)vrt_buffer_map(big))[0] = 7;
  CHECK_EQ_U64(vrt_buffer_size(big), 4 * 256);
  vrt_buffer_destroy(big);
  vrt_buffer_destroy(small);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

int main(void) {
  RT_RUN(test_create_errors);
  RT_RUN(test_block);
  RT_RUN(test_skip);
  RT_RUN(test_overwrite);
  RT_RUN(test_untrusted);
  RT_RUN(test_poller_close);
  RT_RUN(test_user_frames);
  return rt_failures ? 1 : 0;
}
