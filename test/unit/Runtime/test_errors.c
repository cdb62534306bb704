/* test_errors.c - every error a caller can cause comes back as a diagnostic:
 * bad SPIR-V, a manifest that does not match its SPIR-V or the device, bad
 * dispatch arguments, out-of-memory, a lost device (simulated by fault
 * injection: that context fails cleanly, another goes on), and validation
 * messages, which are captured rather than printed. */
#include "rt_test.h"

#include <pthread.h>
#include <string.h>

enum { VK_ERROR_OUT_OF_DEVICE_MEMORY = -2, VK_ERROR_DEVICE_LOST = -4 }; /* VkResult values */

static void *load(const char *name, size_t *len) { return rt_read(SHADER_DIR, name, ".spv", len); }

static void expect_kernel_error(vrt_context *ctx, const void *spv, size_t len,
                                const vpm_manifest *m, const vrt_kernel_options *opt,
                                const char *text) {
  vp_diags d = {0};
  vrt_kernel *k = vrt_kernel_create(ctx, spv, len, m, opt, &d);
  CHECK(k == NULL);
  if (k)
    fprintf(stderr, "  (expected '%s')\n", text);
  vrt_kernel_destroy(k);
  CHECK_ERROR(d, text);
  vp_diags_free(&d);
}

static void test_bad_spirv(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  size_t len;
  uint32_t *spv = load("saxpy", &len);
  vpm_manifest *m = rt_manifest("saxpy");
  if (spv && m) {
    expect_kernel_error(ctx, spv, len - 2, m, NULL, "is not a multiple of 4");
    expect_kernel_error(ctx, spv, 8, m, NULL, "shorter than a module header");
    uint32_t *copy = malloc(len);
    memcpy(copy, spv, len);
    copy[0] = 0x12345678;
    expect_kernel_error(ctx, copy, len, m, NULL, "the magic number is 0x12345678");
    copy[0] = 0x03022307;
    expect_kernel_error(ctx, copy, len, m, NULL, "byte-swapped");
    /* Cut in the middle of an instruction. */
    memcpy(copy, spv, len);
    size_t words = len / 4, i = 5;
    while (i + (copy[i] >> 16) < words / 2)
      i += copy[i] >> 16;
    expect_kernel_error(ctx, copy, (i + 1) * 4, m, NULL, "runs past the end");
    /* A zero word count. */
    copy[5] = 0;
    expect_kernel_error(ctx, copy, len, m, NULL, "runs past the end");
    /* Well formed but invalid: the entry point's id names no function. */
    memcpy(copy, spv, len);
    for (i = 5; i < words; i += copy[i] >> 16)
      if ((copy[i] & 0xffff) == 15 /* OpEntryPoint */) {
        copy[i + 2] = copy[3] - 1; /* some other id */
        break;
      }
    expect_kernel_error(ctx, copy, len, m, NULL, "invalid SPIR-V");
    free(copy);
    /* An entry point that is not there. */
    free(m->entry_point);
    m->entry_point = strdup("saxpy_main");
    expect_kernel_error(ctx, spv, len, m, NULL, "no GLCompute entry point 'saxpy_main'");
  }
  free(spv);
  vpm_free(m);
  rt_context_done(ctx);
}

static void test_manifest_mismatch(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  size_t len, flen, ulen;
  uint32_t *spv = load("saxpy", &len), *fixed = load("fixed", &flen);
  uint32_t *uni = load("uniform", &ulen);
  vpm_manifest *m = rt_manifest("saxpy");
  if (spv && fixed && uni && m) {
    vpm_manifest *c = vpm_clone(m);
    c->nbuffers = 1; /* forget y */
    expect_kernel_error(ctx, spv, len, c, NULL,
                        "uses a buffer at set 0 binding 1 that the manifest of 'saxpy' does not list");
    c->nbuffers = 2;
    c->buffers[1].binding = 5;
    expect_kernel_error(ctx, spv, len, c, NULL, "set 0 binding 1");
    vpm_free(c);
    c = vpm_clone(m);
    c->push_size = 12;
    expect_kernel_error(ctx, spv, len, c, NULL,
                        "push-constant block is 16 bytes but the manifest says 12");
    c->push_size = 1024;
    expect_kernel_error(ctx, spv, len, c, NULL, "bytes of push constants; device");
    vpm_free(c);
    c = vpm_clone(m);
    c->shared_bytes = 1u << 30;
    expect_kernel_error(ctx, spv, len, c, NULL, "bytes of shared memory");
    vpm_free(c);
    c = vpm_clone(m);
    c->local_size[0] = 4096;
    expect_kernel_error(ctx, spv, len, c, NULL, "outside the limits of device");
    expect_kernel_error(ctx, spv, len, m, &(vrt_kernel_options){{2048, 1, 1}, false, false, false},
                        "outside the limits");
    vpm_free(c);
    /* A literal local size must match. */
    vpm_manifest *f = rt_manifest("fixed");
    if (f) {
      f->local_size[0] = 32;
      expect_kernel_error(ctx, fixed, flen, f, NULL,
                          "the manifest's local size [32, 1, 1] differs from the SPIR-V's fixed "
                          "[64, 1, 1]");
      f->local_size[0] = 64;
      expect_kernel_error(ctx, fixed, flen, f, &(vrt_kernel_options){{128, 1, 1}, false, false, false},
                          "the requested local size");
      vpm_free(f);
    }
    /* A uniform buffer. */
    c = vpm_clone(m);
    expect_kernel_error(ctx, uni, ulen, c, NULL, "uniform buffer at set 0 binding 0");
    vpm_free(c);
    /* A feature the device lacks (if there is one). */
    uint32_t lacking = ~vrt_context_device(ctx)->features & ((1u << VP_FEATURE_COUNT) - 1);
    if (lacking) {
      c = vpm_clone(m);
      c->features = lacking & -lacking;
      expect_kernel_error(ctx, spv, len, c, NULL, "which device");
      vpm_free(c);
    }
  }
  free(spv);
  free(fixed);
  free(uni);
  vpm_free(m);
  rt_context_done(ctx);
}

static void test_dispatch_errors(void) {
  vrt_context *ctx = rt_context(), *other = rt_context();
  vrt_kernel *k = ctx ? rt_kernel(ctx, "saxpy", NULL) : NULL;
  if (!k || !other) {
    rt_context_done(ctx);
    rt_context_done(other);
    return;
  }
  vp_diags d = {0};
  vrt_buffer *x = vrt_buffer_create(ctx, 400, VRT_DEVICE, &d);
  vrt_buffer *y = vrt_buffer_create(ctx, 400, VRT_DEVICE, &d);
  vrt_buffer *z = vrt_buffer_create(other, 400, VRT_DEVICE, &d);
  CHECK_OK(d);
  vrt_buffer *one[1] = {x}, *two[2] = {x, y}, *mixed[2] = {x, z}, *none[2] = {x, NULL};
  float push[8] = {0};
  CHECK(!vrt_dispatch(k, &(vrt_args){one, 1, NULL, 0}, vrt_invocations(100, 1, 1), &d));
  CHECK_ERROR(d, "kernel 'saxpy' takes 2 buffers, got 1");
  CHECK(!vrt_dispatch(k, &(vrt_args){mixed, 2, NULL, 0}, vrt_invocations(100, 1, 1), &d));
  CHECK_ERROR(d, "buffer 'y' belongs to another context");
  CHECK(!vrt_dispatch(k, &(vrt_args){none, 2, NULL, 0}, vrt_invocations(100, 1, 1), &d));
  CHECK_ERROR(d, "buffer 'y' is missing");
  CHECK(!vrt_dispatch(k, &(vrt_args){two, 2, push, 32}, vrt_invocations(100, 1, 1), &d));
  CHECK_ERROR(d, "32 bytes of push constants given, the manifest has 16");
  CHECK(!vrt_dispatch(k, &(vrt_args){two, 2, NULL, 0}, vrt_groups(UINT32_MAX, 1, 1), &d));
  CHECK_ERROR(d, "workgroups in x");
  /* Bigger than maxStorageBufferRange: made and copied, but not bound. */
  uint64_t range = vrt_context_device(ctx)->max_storage_buffer_range;
  vrt_buffer *big = vrt_buffer_create(ctx, range + 4, VRT_HOST, &d);
  CHECK_OK(d);
  vrt_buffer *bigs[2] = {x, big};
  CHECK(big && !vrt_dispatch(k, &(vrt_args){bigs, 2, NULL, 0}, vrt_invocations(1, 1, 1), &d));
  CHECK_ERROR(d, "(maxStorageBufferRange)");
  vrt_buffer_destroy(big);
  /* Nothing to run is not an error. */
  CHECK(vrt_dispatch(k, &(vrt_args){two, 2, NULL, 0}, vrt_invocations(0, 1, 1), &d));
  CHECK_OK(d);
  vrt_buffer_destroy(x);
  vrt_buffer_destroy(y);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(other);
  rt_context_done(ctx);
}

static void test_out_of_memory(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  const vrt_device_info *info = vrt_context_device(ctx);
  CHECK(!vrt_buffer_create(ctx, 1ull << 50, VRT_DEVICE, &d));
  CHECK_ERROR(d, "cannot");
  if (info->max_memory_allocation_size < info->max_buffer_size) {
    CHECK(!vrt_buffer_create(ctx, info->max_memory_allocation_size + 4096, VRT_DEVICE, &d));
    CHECK_ERROR(d, "maxMemoryAllocationSize");
  }
  /* The driver saying no (one injection: enough where there is one type). */
  vrt_context_inject_fault(ctx, "vkAllocateMemory", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  if (info->memory.type_count == 1) {
    CHECK(!vrt_buffer_create(ctx, 1 << 20, VRT_DEVICE, &d));
    CHECK_ERROR(d, "vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY");
  }
  vrt_context_inject_fault(ctx, NULL, 0);
  vrt_buffer *b = vrt_buffer_create(ctx, 1 << 20, VRT_DEVICE, &d);
  CHECK(b != NULL);
  CHECK(!vrt_context_lost(ctx));
  CHECK_OK(d);
  vrt_buffer_destroy(b);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

static void test_device_lost(void) {
  vrt_context *a = rt_context(), *b = rt_context();
  vrt_kernel *ka = a ? rt_kernel(a, "fixed", NULL) : NULL;
  vrt_kernel *kb = b ? rt_kernel(b, "fixed", NULL) : NULL;
  if (!ka || !kb) {
    rt_context_done(a);
    rt_context_done(b);
    return;
  }
  vp_diags d = {0};
  vrt_buffer *oa = vrt_buffer_create(a, 256, VRT_DEVICE, &d);
  vrt_buffer *ob = vrt_buffer_create(b, 256, VRT_DEVICE, &d);
  uint32_t push[2] = {64, 1};
  vrt_context_inject_fault(a, "vkQueueSubmit", VK_ERROR_DEVICE_LOST);
  CHECK(!vrt_dispatch(ka, &(vrt_args){&oa, 1, push, 8}, vrt_invocations(64, 1, 1), &d));
  CHECK(strstr(d.items[0].message, vrt_context_device(a)->name) != NULL);
  CHECK(d.items[0].hint && strstr(d.items[0].hint, "create a new one"));
  CHECK_ERROR(d, "vkQueueSubmit failed: VK_ERROR_DEVICE_LOST (device '");
  CHECK(vrt_context_lost(a));
  /* Every later call fails at once, naming the first failure. */
  CHECK(!vrt_dispatch(ka, &(vrt_args){&oa, 1, push, 8}, vrt_invocations(64, 1, 1), &d));
  CHECK_ERROR(d, "was lost (vkQueueSubmit returned VK_ERROR_DEVICE_LOST)");
  CHECK(!vrt_buffer_create(a, 16, VRT_HOST, &d));
  CHECK_ERROR(d, "was lost");
  uint32_t v[64];
  CHECK(!vrt_buffer_download(oa, 0, v, 4, &d));
  CHECK_ERROR(d, "was lost");
  CHECK(!vrt_record_begin(a, 0, &d));
  CHECK_ERROR(d, "was lost");
  /* Waiting for idle fails too, though nothing is pending. */
  CHECK(!vrt_context_wait_idle(a, &d));
  CHECK_ERROR(d, "was lost");
  /* The other context goes on. */
  CHECK(!vrt_context_lost(b));
  CHECK(vrt_dispatch(kb, &(vrt_args){&ob, 1, push, 8}, vrt_invocations(64, 1, 1), &d));
  CHECK(vrt_buffer_download(ob, 0, v, sizeof v, &d) && v[63] == 127);
  CHECK_OK(d);
  /* A loss seen while waiting. */
  vrt_context_inject_fault(b, "vkWaitSemaphores", VK_ERROR_DEVICE_LOST);
  vrt_ticket t;
  CHECK(vrt_dispatch_async(kb, &(vrt_args){&ob, 1, push, 8}, vrt_invocations(64, 1, 1), &t, &d));
  vp_diags_clear(&d);
  /* (the spin may see the ticket reached before the blocking wait) */
  if (!vrt_wait(b, t, UINT64_MAX, &d))
    CHECK_ERROR(d, "vkWaitSemaphores failed: VK_ERROR_DEVICE_LOST");
  vp_diags_free(&d);
  /* Destroying lost contexts (and what they hold) is clean. */
  rt_context_done(a);
  rt_context_done(b);
}

/* The layer's messages are kept in the context, not printed: a module with
 * a SPIR-V version that does not exist, passed as trusted, is reported. */
static void test_validation_capture(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  size_t len;
  uint32_t *spv = load("fixed", &len);
  vpm_manifest *m = rt_manifest("fixed");
  if (spv && m) {
    spv[1] = 0x00010700;
    vp_diags d = {0};
    vrt_kernel *k =
        vrt_kernel_create(ctx, spv, len, m, &(vrt_kernel_options){{0}, true, false, false}, &d);
    vrt_kernel_destroy(k);
    vp_diags_clear(&d);
    CHECK(vrt_context_take_validation(ctx, &d) >= 1);
    CHECK_ERROR(d, "validation error");
    CHECK(vrt_context_take_validation(ctx, &d) == 0);
    vp_diags_free(&d);
  }
  free(spv);
  vpm_free(m);
  rt_context_done(ctx);
}

/* Too many workgroups along an axis is an error naming
 * maxComputeWorkGroupCount on every launch function (synchronous,
 * asynchronous, ranges, eager, readback, timed, recorded), from another
 * thread and on a stream too: each computes its groups in vrt__prepare,
 * which checks them, before anything is recorded. */
typedef struct {
  vrt_context *ctx;
  vrt_kernel *k;
  vrt_stream *s; /* the thread's current stream, or NULL */
  int bad;       /* launch functions that did not refuse, or refused wrongly */
} grid_job;

static void *too_many_groups(void *p) {
  grid_job *j = p;
  vrt_context *ctx = j->ctx;
  const vrt_device_info *info = vrt_context_device(ctx);
  vrt_stream *old = vrt_stream_set_current(j->s);
  vp_diags d = {0};
  vrt_buffer *x = vrt_buffer_create(ctx, 400, VRT_DEVICE, &d);
  vrt_buffer *y = vrt_buffer_create(ctx, 400, VRT_HOST, &d);
  vrt_buffer *two[2] = {x, y};
  vrt_args args = {two, 2, NULL, 0};
  vrt_bind_range ranges[2] = {{0, 0}, {0, 0}};
  vrt_readback rb = {y, 0, x, 0, 4};
  for (int axis = 0; axis < 3; axis++) {
    uint32_t n[3] = {1, 1, 1};
    n[axis] = info->max_workgroup_count[axis] + 1;
    if (!n[axis]) /* a limit of UINT32_MAX leaves nothing above it */
      continue;
    vrt_grid g = vrt_groups(n[0], n[1], n[2]);
    char want[64];
    snprintf(want, sizeof want, "maxComputeWorkGroupCount[%d] is %u", axis,
             info->max_workgroup_count[axis]);
    for (int fn = 0; fn < 9; fn++) {
      vrt_ticket t = 0;
      double ns = 0;
      bool ok = true;
      vp_diags_clear(&d);
      switch (fn) {
      case 0: ok = vrt_dispatch(j->k, &args, g, &d); break;
      case 1: ok = vrt_dispatch_async(j->k, &args, g, &t, &d); break;
      case 2: ok = vrt_dispatch_ranges(j->k, &args, ranges, g, &t, &d); break;
      case 3: ok = vrt_dispatch_ranges(j->k, &args, ranges, g, NULL, &d); break;
      case 4: ok = vrt_dispatch_eager(j->k, &args, NULL, g, &t, &d); break;
      case 5: ok = vrt_dispatch_readback(j->k, &args, g, &rb, &t, &d); break;
      case 6:
        ok = !vrt_context_device(ctx)->timestamps || vrt_dispatch_timed(j->k, &args, g, &ns, &d);
        if (!vrt_context_device(ctx)->timestamps)
          continue;
        break;
      case 8: {
        bool busy = false;
        ok = vrt_dispatch_eager_nowait(j->k, &args, NULL, g, &t, &busy, &d);
        break;
      }
      case 7: {
        vrt_recording *r = vrt_record_begin(ctx, 0, &d);
        ok = !r || vrt_record_dispatch(r, j->k, &args, g, &d);
        vrt_record_destroy(r);
        break;
      }
      }
      bool named = false;
      for (uint32_t i = 0; i < d.count; i++)
        named |= strstr(d.items[i].message, want) ||
                 (d.items[i].hint && strstr(d.items[i].hint, want));
      if (ok || !named) {
        fprintf(stderr, "launch function %d, axis %d, stream %p: %s\n", fn, axis, (void *)j->s,
                ok ? "no error" : "an error without the limit");
        j->bad++;
      }
    }
  }
  vp_diags_clear(&d);
  /* nothing was submitted: a good launch still runs */
  uint32_t push[4] = {0};
  vrt_args good = {two, 2, push, 16};
  if (!vrt_dispatch(j->k, &good, vrt_invocations(1, 1, 1), &d))
    j->bad++;
  vrt_stream_set_current(old);
  vrt_buffer_destroy(x);
  vrt_buffer_destroy(y);
  vp_diags_free(&d);
  return NULL;
}

static void test_grid_limit_every_path(void) {
  vrt_context *ctx = rt_context();
  vrt_kernel *k = ctx ? rt_kernel(ctx, "saxpy", NULL) : NULL;
  if (!k) {
    rt_context_done(ctx);
    return;
  }
  vp_diags d = {0};
  vrt_stream *s = vrt_stream_create(ctx, VRT_STREAM_COMPUTE, &d);
  CHECK_OK(d);
  grid_job jobs[4] = {{ctx, k, NULL, 0}, {ctx, k, s, 0}, {ctx, k, NULL, 0}, {ctx, k, s, 0}};
  too_many_groups(&jobs[0]); /* this thread, the default stream, then a stream */
  too_many_groups(&jobs[1]);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) /* two threads at once, one on the stream */
    CHECK(pthread_create(&th[i], NULL, too_many_groups, &jobs[2 + i]) == 0);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++)
    CHECK_EQ_U64(jobs[i].bad, 0);
  CHECK(vrt_context_wait_idle(ctx, &d));
  CHECK_OK(d);
  vrt_stream_destroy(s);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

int main(void) {
  RT_RUN(test_bad_spirv);
  RT_RUN(test_manifest_mismatch);
  RT_RUN(test_dispatch_errors);
  RT_RUN(test_grid_limit_every_path);
  RT_RUN(test_out_of_memory);
  RT_RUN(test_device_lost);
  RT_RUN(test_validation_capture);
  return rt_failures ? 1 : 0;
}
