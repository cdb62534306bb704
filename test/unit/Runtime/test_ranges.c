/* test_ranges.c - vrt_dispatch_ranges binds part of a buffer: the kernel's
 * element 0 is the range's first byte and its runtime array ends with the
 * range, with push descriptors and with descriptor sets from pools, in
 * the launch cache (two ranges of one buffer are two entries), sync and
 * async; a misaligned or out-of-buffer range is an error naming the buffer. */
#include "rt_test.h"

enum { N = 256 };

/* The "fixed" kernel writes o[i] = 2 * i + base for i < n. */
static void ranges_case(vrt_context_options opt) {
  vrt_context *ctx = rt_context_with(opt);
  vrt_kernel *k = ctx ? rt_kernel(ctx, "fixed", NULL) : NULL;
  if (!k) {
    rt_context_done(ctx);
    return;
  }
  vp_diags d = {0};
  uint64_t align = vrt_context_device(ctx)->min_storage_buffer_offset_alignment;
  uint32_t a = (uint32_t)(align < 4 ? 1 : align / 4); /* the alignment in elements */
  vrt_buffer *o = vrt_buffer_create(ctx, N * 4, VRT_HOST, &d);
  CHECK_OK(d);
  if (!o || 4 * a + 16 > N) {
    vrt_kernel_destroy(k);
    rt_context_done(ctx);
    return;
  }
  uint32_t push[2] = {N, 1000};
  vrt_args args = {&o, 1, push, sizeof push};
  /* elements [a, a + 8) and [3a, 3a + 4): the kernel runs N invocations
   * and bounds them itself, so only the ranges may change */
  vrt_bind_range r1 = {a * 4ull, 32}, r2 = {3ull * a * 4, 16};
  CHECK(vrt_dispatch_ranges(k, &args, &r1, vrt_invocations(8, 1, 1), NULL, &d));
  push[1] = 2000;
  vrt_ticket t = 0;
  CHECK(vrt_dispatch_ranges(k, &args, &r2, vrt_invocations(4, 1, 1), &t, &d));
  CHECK(vrt_wait(ctx, t, UINT64_MAX, &d));
  /* the same range again: a launch-cache hit, not the other range's entry */
  vrt_context_stats s0, s1;
  vrt_context_stats_get(ctx, &s0);
  CHECK(vrt_dispatch_ranges(k, &args, &r2, vrt_invocations(4, 1, 1), NULL, &d));
  vrt_context_stats_get(ctx, &s1);
  CHECK_EQ_U64(s1.reused_launches - s0.reused_launches, 1);
  CHECK_OK(d);
  const uint32_t *v = vrt_buffer_map(o);
  CHECK(v != NULL);
  uint32_t bad = 0;
  for (uint32_t i = 0; v && i < N; i++) {
    uint32_t want = i >= a && i < a + 8           ? 2 * (i - a) + 1000
                    : i >= 3 * a && i < 3 * a + 4 ? 2 * (i - 3 * a) + 2000
                                                  : 0;
    bad += v[i] != want;
  }
  CHECK_EQ_U64(bad, 0);

  /* errors: outside the buffer, misaligned (where the device requires more
   * than 4 bytes), and nothing was written by them */
  vrt_bind_range outside = {a * 4ull, N * 4}, misaligned = {4, 16};
  CHECK(!vrt_dispatch_ranges(k, &args, &outside, vrt_invocations(4, 1, 1), NULL, &d));
  CHECK_ERROR(d, "must lie inside it");
  if (align > 4) {
    CHECK(!vrt_dispatch_ranges(k, &args, &misaligned, vrt_invocations(4, 1, 1), NULL, &d));
    CHECK_ERROR(d, "minStorageBufferOffsetAlignment");
  }
  /* size 0 and NULL ranges: the whole buffer */
  vrt_bind_range whole = {0, 0};
  push[1] = 0;
  CHECK(vrt_dispatch_ranges(k, &args, &whole, vrt_invocations(N, 1, 1), NULL, &d));
  CHECK_OK(d);
  bad = 0;
  for (uint32_t i = 0; v && i < N; i++)
    bad += v[i] != 2 * i;
  CHECK_EQ_U64(bad, 0);
  vrt_buffer_destroy(o);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

static void test_ranges_push_descriptors(void) { ranges_case((vrt_context_options){0}); }

static void test_ranges_descriptor_pools(void) {
  ranges_case((vrt_context_options){.no_push_descriptors = true});
}

int main(void) {
  RT_RUN(test_ranges_push_descriptors);
  RT_RUN(test_ranges_descriptor_pools);
  return rt_failures ? 1 : 0;
}
