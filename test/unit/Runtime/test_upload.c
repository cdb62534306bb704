/* test_upload.c - every upload and download path gives the exact bytes.
 *
 * The paths: a mapped `device` buffer (lavapipe's memory is host-visible),
 * the staging ring (no_device_mapping), and imported uploads
 * (upload_import_mib = 1: the source's whole pages are imported 1 MiB at a
 * time, the unaligned head and tail staged), on the default stream and on
 * an emulated transfer stream. Each runs sizes 0, 1, odd, 64 MiB + odd, from
 * sources at byte offsets 0..63 of a bigger allocation (a NumPy view at an
 * odd offset), into and out of buffers at odd offsets; threads uploading at
 * once; a source freed (munmap) right after the call returns; a read-only
 * source. The import path's use is checked through the stats
 * (upload_imports), so a silent fallback to the ring would fail.
 */
#include "rt_test.h"

#include <pthread.h>
#include <sys/mman.h>

static void fill_pattern(unsigned char *p, uint64_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (uint64_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    p[i] = (unsigned char)(x >> 24);
  }
}

/* Counts the bytes where a and b differ, printing the first. */
static uint64_t differ(const unsigned char *a, const unsigned char *b, uint64_t n,
                       const char *what) {
  uint64_t bad = 0, first = 0;
  for (uint64_t i = 0; i < n; i++)
    if (a[i] != b[i] && !bad++)
      first = i;
  if (bad)
    fprintf(stderr, "%s: %llu bytes differ, the first at %llu (%u, want %u)\n", what,
            (unsigned long long)bad, (unsigned long long)first, b[first], a[first]);
  return bad;
}

static uint64_t imports(vrt_context *ctx) {
  vrt_context_stats s;
  vrt_context_stats_get(ctx, &s);
  return s.upload_imports;
}

/* Uploads `size` bytes from `src_skew` bytes into a fresh allocation to
 * `dst_off` of a buffer, downloads them to `dst_skew` bytes into another,
 * and compares; the bytes around the range in the buffer stay zero. */
static void round_trip(vrt_context *ctx, uint64_t size, uint32_t src_skew, uint32_t dst_skew,
                       uint64_t dst_off) {
  vp_diags d = {0};
  uint64_t bsize = dst_off + size + 5;
  vrt_buffer *b = vrt_buffer_create(ctx, bsize, VRT_DEVICE, &d);
  CHECK_OK(d);
  if (!b)
    return;
  unsigned char *in = malloc(size + 64), *out = malloc(size + 64 + 1);
  fill_pattern(in + src_skew, size, (uint32_t)(size + src_skew));
  memset(out, 0xAB, size + 64 + 1);
  CHECK(vrt_buffer_upload(b, dst_off, in + src_skew, size, &d));
  CHECK(vrt_buffer_download(b, dst_off, out + dst_skew, size, &d));
  CHECK_OK(d);
  char what[160];
  snprintf(what, sizeof what, "%llu bytes from +%u to buffer offset %llu, out to +%u",
           (unsigned long long)size, src_skew, (unsigned long long)dst_off, dst_skew);
  CHECK_EQ_U64(differ(in + src_skew, out + dst_skew, size, what), 0);
  CHECK(out[dst_skew + size] == 0xAB && (dst_skew == 0 || out[dst_skew - 1] == 0xAB));
  /* the bytes before and after the range were not written */
  unsigned char edge[5] = {1, 1, 1, 1, 1}, zero[5] = {0};
  CHECK(vrt_buffer_download(b, dst_off + size, edge, 5, &d));
  CHECK(memcmp(edge, zero, 5) == 0);
  if (dst_off) {
    CHECK(vrt_buffer_download(b, dst_off - 1, edge, 1, &d));
    CHECK(edge[0] == 0);
  }
  CHECK_OK(d);
  free(in);
  free(out);
  vrt_buffer_destroy(b);
  vp_diags_free(&d);
}

static void sizes_and_skews(vrt_context *ctx) {
  uint64_t sizes[] = {0, 1, 3, 4097, 1000003, (3 << 20) + 11};
  uint32_t skews[] = {0, 1, 7, 16, 33, 63};
  for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (unsigned k = 0; k < sizeof skews / sizeof skews[0]; k++)
      round_trip(ctx, sizes[i], skews[k], skews[(k + 1) % 6], k & 1 ? 12 : 0);
  round_trip(ctx, (64ull << 20) + 13, 5, 3, 4);
}

static vrt_context_options opts(bool map, uint32_t import_mib) {
  return (vrt_context_options){.no_device_mapping = !map, .upload_import_mib = import_mib};
}

static void test_mapped(void) {
  vrt_context *ctx = rt_context_with(opts(true, 0));
  if (ctx)
    sizes_and_skews(ctx);
  rt_context_done(ctx);
}

static void test_staged(void) {
  vrt_context *ctx = rt_context_with(opts(false, 0));
  if (!ctx)
    return;
  sizes_and_skews(ctx);
  CHECK_EQ_U64(imports(ctx), 0);
  CHECK_VALIDATION(ctx);
  rt_context_done(ctx);
}

static void test_imported(void) {
  vrt_context *ctx = rt_context_with(opts(false, 1));
  if (!ctx)
    return;
  if (!vrt_context_device(ctx)->min_imported_host_pointer_alignment) {
    fprintf(stderr, "  (no VK_EXT_external_memory_host: the staged path only)\n");
    sizes_and_skews(ctx);
    rt_context_done(ctx);
    return;
  }
  sizes_and_skews(ctx);
  /* 64 MiB + odd in 1 MiB pieces: more pieces than are pinned at once */
  CHECK(imports(ctx) >= 64);
  CHECK_VALIDATION(ctx);
  rt_context_done(ctx);
}

/* The same through a transfer stream (its copies on the transfer family,
 * emulated on lavapipe's one family): the imported buffer and the ring
 * take that family's paths. */
static void test_imported_transfer_stream(void) {
  vrt_context_options o = opts(false, 1);
  o.emulate_transfer_family = true;
  vrt_context *ctx = rt_context_with(o);
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_stream *s = vrt_stream_create(ctx, VRT_STREAM_TRANSFER, &d);
  CHECK_OK(d);
  vrt_stream *before = vrt_stream_set_current(s);
  uint64_t n0 = imports(ctx);
  round_trip(ctx, (5 << 20) + 3, 9, 1, 8);
  round_trip(ctx, 70001, 2, 0, 0);
  if (vrt_context_device(ctx)->min_imported_host_pointer_alignment)
    CHECK(imports(ctx) > n0);
  vrt_stream_set_current(before);
  vrt_stream_destroy(s);
  CHECK_VALIDATION(ctx);
  rt_context_done(ctx);
  vp_diags_free(&d);
}

/* Threads upload at once into their own ranges of one buffer, from
 * sources at odd offsets, and read them back. */
enum { THREADS = 4, PER = (3 << 20) + 101 };
typedef struct job {
  vrt_buffer *b;
  uint32_t i;
  uint64_t bad;
  bool ok;
} job;

static void *upload_job(void *p) {
  job *j = p;
  vp_diags d = {0};
  unsigned char *in = malloc(PER + 64), *out = malloc(PER);
  uint32_t skew = 1 + 13 * j->i;
  j->ok = true;
  for (int rep = 0; rep < 3 && j->ok; rep++) {
    fill_pattern(in + skew, PER, 100 * j->i + rep);
    j->ok = vrt_buffer_upload(j->b, (uint64_t)j->i * PER, in + skew, PER, &d) &&
            vrt_buffer_download(j->b, (uint64_t)j->i * PER, out, PER, &d);
    j->bad += j->ok ? differ(in + skew, out, PER, "a thread's upload") : 0;
  }
  if (!j->ok)
    rt_print(&d);
  free(in);
  free(out);
  vp_diags_free(&d);
  return NULL;
}

static void threads(vrt_context_options o) {
  vrt_context *ctx = rt_context_with(o);
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_buffer *b = vrt_buffer_create(ctx, (uint64_t)THREADS * PER, VRT_DEVICE, &d);
  CHECK_OK(d);
  pthread_t t[THREADS];
  job jobs[THREADS];
  for (uint32_t i = 0; i < THREADS; i++) {
    jobs[i] = (job){b, i, 0, false};
    pthread_create(&t[i], NULL, upload_job, &jobs[i]);
  }
  for (uint32_t i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    CHECK(jobs[i].ok);
    CHECK_EQ_U64(jobs[i].bad, 0);
  }
  vrt_buffer_destroy(b);
  CHECK_VALIDATION(ctx);
  rt_context_done(ctx);
  vp_diags_free(&d);
}

static void test_threads_staged(void) { threads(opts(false, 0)); }
static void test_threads_imported(void) { threads(opts(false, 1)); }

/* The source is unmapped as soon as the upload returns (a NumPy array
 * freed by the caller): no crash, and the buffer holds the bytes it had;
 * the pages are also made read-only first in a second round (the driver
 * may refuse to import them: the ring then takes them). */
static void freed_source(vrt_context_options o) {
  vrt_context *ctx = rt_context_with(o);
  if (!ctx)
    return;
  vp_diags d = {0};
  enum { N = (6 << 20) + 77, SKEW = 24 };
  unsigned char *want = malloc(N), *out = malloc(N);
  vrt_buffer *b = vrt_buffer_create(ctx, N, VRT_DEVICE, &d);
  for (int round = 0; round < 2 && b; round++) {
    size_t len = N + SKEW;
    unsigned char *src = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    CHECK(src != MAP_FAILED);
    if (src == MAP_FAILED)
      break;
    fill_pattern(want, N, 7 + round);
    memcpy(src + SKEW, want, N);
    if (round == 1)
      CHECK(mprotect(src, len, PROT_READ) == 0);
    CHECK(vrt_buffer_upload(b, 0, src + SKEW, N, &d));
    CHECK_OK(d);
    CHECK(munmap(src, len) == 0);
    /* new pages, likely at the same address, with other bytes */
    unsigned char *again = mmap(NULL, len, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (again != MAP_FAILED)
      memset(again, 0x5A, len);
    memset(out, 0, N);
    CHECK(vrt_buffer_download(b, 0, out, N, &d));
    CHECK_OK(d);
    CHECK_EQ_U64(differ(want, out, N, "an upload from a freed source"), 0);
    if (again != MAP_FAILED)
      munmap(again, len);
  }
  vrt_buffer_destroy(b);
  free(want);
  free(out);
  CHECK_VALIDATION(ctx);
  rt_context_done(ctx);
  vp_diags_free(&d);
}

static void test_freed_source_staged(void) { freed_source(opts(false, 0)); }
static void test_freed_source_imported(void) { freed_source(opts(false, 1)); }

/* The option's bounds: above 4096 MiB is an error naming the field. */
static void test_option_bounds(void) {
  vp_diags d = {0};
  vrt_context_options bad = {.upload_import_mib = 4097};
  CHECK(!vrt_context_create(&bad, &d));
  CHECK_ERROR(d, "upload_import_mib = 4097");
  vp_diags_free(&d);
}

int main(void) {
  RT_RUN(test_mapped);
  RT_RUN(test_staged);
  RT_RUN(test_imported);
  RT_RUN(test_imported_transfer_stream);
  RT_RUN(test_threads_staged);
  RT_RUN(test_threads_imported);
  RT_RUN(test_freed_source_staged);
  RT_RUN(test_freed_source_imported);
  RT_RUN(test_option_bounds);
  return rt_failures ? 1 : 0;
}
