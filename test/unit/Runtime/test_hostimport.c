/* test_hostimport.c - host memory imported into two contexts at once: each
 * context's kernels see what the other wrote, and so does the host, through
 * the same pages; misaligned imports are refused with a clear error; memory
 * at any 16-byte-aligned address is imported by its pages. */
#include "rt_test.h"

enum { N = 4096 };

static void test_shared_pages(void) {
  vrt_context *a = rt_context(), *b = rt_context();
  if (!a || !b) {
    rt_context_done(a);
    rt_context_done(b);
    return;
  }
  if (!(vrt_context_device(a)->features & VP_FEAT(EXTERNAL_HOST))) {
    fprintf(stderr, "skipped: no VK_EXT_external_memory_host\n");
    rt_context_done(a);
    rt_context_done(b);
    return;
  }
  vp_diags d = {0};
  size_t alloc = 0;
  uint32_t *host = vrt_host_alloc(N * 4, &alloc);
  CHECK(host && alloc >= N * 4 && alloc % 65536 == 0 && (uintptr_t)host % 65536 == 0);
  CHECK(host[0] == 0 && host[N - 1] == 0);
  vrt_buffer *ia = vrt_buffer_import_host(a, host, alloc, &d);
  vrt_buffer *ib = vrt_buffer_import_host(b, host, alloc, &d);
  CHECK_OK(d);
  vrt_kernel *fa = rt_kernel(a, "fixed", NULL);
  vrt_kernel *incb = rt_kernel(b, "incr", NULL);
  vrt_kernel *fb = rt_kernel(b, "fixed", NULL);
  if (ia && ib && fa && incb && fb) {
    CHECK(vrt_buffer_map(ia) == host && vrt_buffer_size(ia) == alloc);
    /* Context A writes o[i] = 2i + 5 into the shared pages... */
    uint32_t push[2] = {N, 5};
    vrt_args args = {&ia, 1, push, sizeof push};
    CHECK(vrt_dispatch(fa, &args, vrt_invocations(N, 1, 1), &d));
    /* ...the host sees it without a copy... */
    CHECK(host[0] == 5 && host[N - 1] == 2 * (N - 1) + 5);
    /* ...and context B reads it: out[i] = a[i] + 1. */
    vrt_buffer *out = vrt_buffer_create(b, N * 4, VRT_DEVICE, &d);
    vrt_buffer *bufs[2] = {ib, out};
    vrt_args args_b = {bufs, 2, NULL, 0};
    CHECK(out && vrt_dispatch(incb, &args_b, vrt_invocations(N, 1, 1), &d));
    uint32_t *v = malloc(N * 4);
    CHECK(vrt_buffer_download(out, 0, v, N * 4, &d));
    CHECK(v[0] == 6 && v[N - 1] == 2 * (N - 1) + 6 && v[1234] == 2 * 1234 + 6);
    /* Context B writes; context A's download of its own import sees it. */
    push[1] = 1000;
    args.buffers = &ib;
    CHECK(vrt_dispatch(fb, &args, vrt_invocations(N / 2, 1, 1), &d));
    CHECK(vrt_buffer_download(ia, 0, v, N * 4, &d));
    CHECK(v[0] == 1000 && v[N / 2 - 1] == 2 * (N / 2 - 1) + 1000 && v[N / 2] == N + 5);
    /* A host write is seen by both. */
    host[7] = 0xC0FFEE;
    CHECK(vrt_buffer_download(ia, 28, v, 4, &d) && v[0] == 0xC0FFEE);
    CHECK(vrt_buffer_download(ib, 28, v, 4, &d) && v[0] == 0xC0FFEE);
    CHECK_OK(d);
    free(v);
    vrt_buffer_destroy(out);
  }
  vrt_kernel_destroy(fa);
  vrt_kernel_destroy(fb);
  vrt_kernel_destroy(incb);
  vrt_buffer_destroy(ia);
  vrt_buffer_destroy(ib);
  rt_context_done(a);
  rt_context_done(b);
  vrt_host_free(host, alloc);
  vp_diags_free(&d);
}

static void test_import_errors(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  size_t alloc;
  char *host = vrt_host_alloc(1 << 16, &alloc);
  if (vrt_context_device(ctx)->features & VP_FEAT(EXTERNAL_HOST)) {
    CHECK(!vrt_buffer_import_host(ctx, host + 16, 4096, &d));
    CHECK_ERROR(d, "must be non-zero multiples of 4096 bytes");
    CHECK(!vrt_buffer_import_host(ctx, host, 100, &d));
    CHECK_ERROR(d, "(100 bytes)");
    CHECK(!vrt_buffer_import_host(ctx, host, 0, &d));
    CHECK_ERROR(d, "cannot import host memory");
    /* A partial import of the pages works. */
    vrt_buffer *b = vrt_buffer_import_host(ctx, host + 8192, 8192, &d);
    CHECK_OK(d);
    vrt_buffer_destroy(b);
  }
  vrt_host_free(host, alloc);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* Memory at any 16-byte-aligned address (a NumPy array's data) imported by
 * its pages: kernels, copies and fills see exactly the range, at its offset,
 * and nothing around it changes. */
static void test_import_range(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  if (!(vrt_context_device(ctx)->features & VP_FEAT(EXTERNAL_HOST))) {
    fprintf(stderr, "skipped: no VK_EXT_external_memory_host\n");
    rt_context_done(ctx);
    return;
  }
  vp_diags d = {0};
  size_t alloc;
  uint32_t *host = vrt_host_alloc(3 * 4096, &alloc);
  for (uint32_t i = 0; i < 3 * 1024; i++)
    host[i] = 0xDEAD0000u + i;
  /* 1001 words starting 16 bytes before a page boundary: two pages. */
  uint32_t *arr = host + 1020, n = 1001;
  vrt_buffer *b = vrt_buffer_import_host_range(ctx, arr, n * 4, &d);
  vrt_kernel *fixed = rt_kernel(ctx, "fixed", NULL);
  vrt_kernel *incr = rt_kernel(ctx, "incr", NULL);
  CHECK_OK(d);
  if (b && fixed && incr) {
    CHECK(vrt_buffer_map(b) == arr && vrt_buffer_size(b) == n * 4);
    /* The GPU writes o[i] = 2i + 7 at the array, not at the page. */
    uint32_t push[2] = {n, 7};
    CHECK(vrt_dispatch(fixed, &(vrt_args){&b, 1, push, 8}, vrt_invocations(n, 1, 1), &d));
    CHECK(arr[0] == 7 && arr[n - 1] == 2 * (n - 1) + 7 && arr[500] == 1007);
    CHECK(arr[-1] == 0xDEAD0000u + 1019 && arr[n] == 0xDEAD0000u + 1020 + n);
    /* It reads the array too: out[i] += a[i] + 1. */
    vrt_buffer *out = vrt_buffer_create(ctx, n * 4, VRT_DEVICE, &d);
    vrt_buffer *bufs[2] = {b, out};
    CHECK(out && vrt_dispatch(incr, &(vrt_args){bufs, 2, NULL, 0}, vrt_invocations(n, 1, 1),
                              &d));
    uint32_t *v = calloc(n, 4);
    CHECK(vrt_buffer_download(out, 0, v, n * 4, &d) && v[0] == 8 && v[n - 1] == 2 * (n - 1) + 8);
    /* Copies and fills take the offset into account. */
    CHECK(vrt_buffer_fill(b, 8, 16, 0x55555555u, &d));
    CHECK(arr[1] == 9 && arr[2] == 0x55555555u && arr[5] == 0x55555555u && arr[6] == 19);
    CHECK(vrt_buffer_copy(out, 0, b, 4, 8, &d));
    CHECK(vrt_buffer_download(out, 0, v, 8, &d) && v[0] == 9 && v[1] == 0x55555555u);
    CHECK(vrt_buffer_copy(b, 0, out, 4, 4, &d) && arr[0] == 0x55555555u);
    CHECK(arr[-1] == 0xDEAD0000u + 1019 && arr[n] == 0xDEAD0000u + 1020 + n);
    CHECK_OK(d);
    free(v);
    vrt_buffer_destroy(out);
  }
  vrt_buffer_destroy(b);
  /* Addresses the device cannot bind at are refused. */
  CHECK(!vrt_buffer_import_host_range(ctx, (char *)host + 2, 64, &d));
  CHECK_ERROR(d, "minStorageBufferOffsetAlignment");
  CHECK(!vrt_buffer_import_host_range(ctx, host, 0, &d));
  CHECK_ERROR(d, "cannot import host memory");
  vrt_kernel_destroy(fixed);
  vrt_kernel_destroy(incr);
  CHECK_VALIDATION(ctx);
  rt_context_done(ctx);
  vrt_host_free(host, alloc);
  vp_diags_free(&d);
}

int main(void) {
  RT_RUN(test_shared_pages);
  RT_RUN(test_import_errors);
  RT_RUN(test_import_range);
  return rt_failures ? 1 : 0;
}
