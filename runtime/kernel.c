/* kernel.c - kernels: SPIR-V and manifest checked against each other.
 *
 * Before a module reaches the driver, the manifest and the SPIR-V must agree
 * (entry point, every buffer binding, push-constant size, local size) and
 * the device must be able to run it (local size and shared memory limits,
 * the features the manifest lists). The local size comes from the options,
 * else the manifest; SPIR-V with specialization constants for it
 * (local_size_x_id) is specialized to that size, SPIR-V with a literal size
 * must match it. Each check has its own message naming both sides.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_PUSH = 512 };

static bool check_interface(vrt_context *ctx, const vrt_spirv_info *si, const vpm_manifest *m,
                            vp_diags *d) {
  bool ok = true;
  for (uint32_t i = 0; i < si->nbindings; i++) {
    uint32_t s = si->bindings[i].set, b = si->bindings[i].binding;
    if (si->bindings[i].uniform) {
      vrt__error(ctx, d, "the SPIR-V has a uniform buffer at set %u binding %u; VulPy kernels "
                         "bind storage buffers only", s, b);
      ok = false;
      continue;
    }
    bool found = false;
    for (uint32_t k = 0; k < m->nbuffers && !found; k++)
      found = m->buffers[k].set == s && m->buffers[k].binding == b;
    if (!found) {
      vrt__error(ctx, d, "the SPIR-V uses a buffer at set %u binding %u that the manifest of "
                         "'%s' does not list", s, b, m->kernel ? m->kernel : "?");
      ok = false;
    }
  }
  for (uint32_t k = 0; k < m->nbuffers; k++)
    if (m->buffers[k].set >= VRT_MAX_SETS) {
      vrt__error(ctx, d, "buffer '%s' is in descriptor set %u; the runtime supports sets 0-%d",
                 m->buffers[k].name, m->buffers[k].set, VRT_MAX_SETS - 1);
      ok = false;
    }
  if (m->nbuffers > 64) {
    vrt__error(ctx, d, "kernel '%s' has %u buffers; the runtime supports 64", m->kernel,
               m->nbuffers);
    ok = false;
  } else if (m->nbuffers > ctx->info.max_storage_buffers) {
    /* past the device's limit the driver's behaviour is undefined (lavapipe
     * crashed at 41 of its 32) */
    vrt__error(ctx, d, "kernel '%s' binds %u buffers; device '%s' allows %u storage buffers in "
                       "a compute shader", m->kernel, m->nbuffers, ctx->info.name,
               ctx->info.max_storage_buffers);
    ok = false;
  }
  if (si->push_bytes > m->push_size) {
    vrt__error(ctx, d, "the SPIR-V's push-constant block is %u bytes but the manifest says %u",
               si->push_bytes, m->push_size);
    ok = false;
  }
  if (m->push_size > ctx->info.max_push_constants_size || m->push_size > MAX_PUSH) {
    vrt__error(ctx, d, "kernel '%s' has %u bytes of push constants; device '%s' allows %u",
               m->kernel, m->push_size, ctx->info.name, ctx->info.max_push_constants_size);
    ok = false;
  }
  if (m->shared_bytes > ctx->info.max_shared_memory) {
    vrt__error(ctx, d, "kernel '%s' uses %u bytes of shared memory; device '%s' has %u",
               m->kernel, m->shared_bytes, ctx->info.name, ctx->info.max_shared_memory);
    ok = false;
  }
  uint32_t missing = m->features & ~ctx->info.features;
  if (missing) {
    vp_strbuf names = {0};
    for (unsigned f = 0; f < VP_FEATURE_COUNT; f++)
      if (missing & (1u << f))
        vp_strbuf_printf(&names, "%s%s", names.len ? ", " : "", vp_feature_name(f));
    vrt__error(ctx, d, "kernel '%s' needs %s, which device '%s' does not support", m->kernel,
               names.data ? names.data : "?", ctx->info.name);
    vp_strbuf_free(&names);
    ok = false;
  }
  return ok;
}

static bool choose_local_size(vrt_context *ctx, const vrt_spirv_info *si, const vpm_manifest *m,
                              const vrt_kernel_options *opt, uint32_t local[3], vp_diags *d) {
  bool override = opt && (opt->local_size[0] || opt->local_size[1] || opt->local_size[2]);
  bool ok = true;
  for (int k = 0; k < 3; k++) {
    uint32_t want = override ? (opt->local_size[k] ? opt->local_size[k] : 1) : m->local_size[k];
    if (si->spec_id[k] >= 0) {
      local[k] = want;
    } else {
      local[k] = si->local[k];
      if (want != si->local[k]) {
        const char *src = override ? "the requested" : "the manifest's";
        vrt__error(ctx, d, "%s local size [%u, %u, %u] differs from the SPIR-V's fixed "
                           "[%u, %u, %u] (dimension %c)",
                   src, override ? opt->local_size[0] : m->local_size[0],
                   override ? opt->local_size[1] : m->local_size[1],
                   override ? opt->local_size[2] : m->local_size[2], si->local[0], si->local[1],
                   si->local[2], "xyz"[k]);
        vp_diag_hint(d, "compile the kernel with local_size_x_id etc. to choose the size at "
                        "run time, or fix the manifest");
        return false;
      }
    }
  }
  uint64_t total = (uint64_t)local[0] * local[1] * local[2];
  for (int k = 0; k < 3 && ok; k++)
    if (!local[k] || local[k] > ctx->info.max_workgroup_size[k])
      ok = false;
  if (!ok || total > ctx->info.max_workgroup_invocations) {
    vrt__error(ctx, d, "local size [%u, %u, %u] is outside the limits of device '%s' (at most "
                       "[%u, %u, %u] and %u invocations)",
               local[0], local[1], local[2], ctx->info.name, ctx->info.max_workgroup_size[0],
               ctx->info.max_workgroup_size[1], ctx->info.max_workgroup_size[2],
               ctx->info.max_workgroup_invocations);
    return false;
  }
  return true;
}

/* One of denorm.c's module patches on *words: the patched module replaces
 * it when the patch changed something. Returns the patch's result (-1: an
 * error, 0: nothing to change, > 0: what it added). */
typedef int (*spirv_patch)(const uint32_t *words, size_t nwords, uint32_t widths, uint32_t **out,
                           size_t *nout, vp_diags *d);
static int take_patch(uint32_t **words, size_t *nwords, spirv_patch patch, uint32_t widths,
                      vp_diags *d) {
  uint32_t *patched;
  size_t npatched;
  int added = patch(*words, *nwords, widths, &patched, &npatched, d);
  if (added > 0) {
    free(*words);
    *words = patched;
    *nwords = npatched;
  }
  return added;
}

static int no_contraction(const uint32_t *words, size_t nwords, uint32_t widths, uint32_t **out,
                          size_t *nout, vp_diags *d) {
  return vrt_spirv_no_contraction(words, nwords, out, nout, d);
}

vrt_kernel *vrt_kernel_create(vrt_context *ctx, const void *spirv, size_t spirv_bytes,
                              const vpm_manifest *m, const vrt_kernel_options *opt,
                              vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return NULL;
  double t0 = vrt__now_ns() / 1e6;
  if (spirv_bytes % 4) {
    vrt__error(ctx, d, "not SPIR-V: its size (%zu bytes) is not a multiple of 4", spirv_bytes);
    return NULL;
  }
  size_t nwords = spirv_bytes / 4;
  uint32_t *words = malloc(spirv_bytes ? spirv_bytes : 4);
  if (!words) {
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  if (spirv_bytes)
    memcpy(words, spirv, spirv_bytes); /* aligned, whatever the caller's pointer was */
  const char *entry = m->entry_point ? m->entry_point : "main";
  vrt_spirv_info si;
  uint32_t local[3];
  vrt_kernel *k = NULL;
  if (vrt__spirv_reflect(words, nwords, entry, &si, d) && check_interface(ctx, &si, m, d) &&
      choose_local_size(ctx, &si, m, opt, local, d))
    k = calloc(1, sizeof *k);
  if (k) {
    k->ctx = ctx;
    memcpy(k->local, local, sizeof local);
    k->push_size = (m->push_size + 3) & ~3u;
    k->guard_offset = -1;
    if (m->dispatch_guard) {
      int f = vpm_find_push(m, m->dispatch_guard);
      if (f >= 0 && m->push[f].size == 12 && m->push[f].offset + 12 <= k->push_size)
        k->guard_offset = (int)m->push[f].offset;
      else
        vrt__error(ctx, d, "dispatch_guard '%s' is not a 12-byte push constant field",
                   m->dispatch_guard);
    }
    k->m = vpm_clone(m);
    if (!k->m)
      vrt__error(ctx, d, "out of host memory");
    if (!k->m || (m->dispatch_guard && k->guard_offset < 0)) {
      vpm_free(k->m);
      free(k);
      k = NULL;
    }
  }
  /* Precise-math kernels keep subnormals where the context says so, and
   * their float arithmetic as written (denorm.c): SignedZeroInfNanPreserve
   * where the device offers it, and NoContraction on every float
   * instruction (NVIDIA's compiler reassociates (x + c) - c to x under
   * SignedZeroInfNanPreserve alone, and fuses a * b + c). The module is
   * patched before anything hashes or validates it. */
  const vrt_device_info *in = &ctx->info;
  bool precise = k && opt && opt->preserve_denorms, exact = k && opt && opt->exact_float;
  int denorm = 0, inf_nan = 0, contraction = 0;
  if (precise && (in->denorm_preserve & VRT_DENORM_F32))
    denorm = take_patch(&words, &nwords, vrt_spirv_preserve_denorms, in->denorm_preserve, d);
  if (exact && denorm >= 0 && (in->inf_nan_preserve & VRT_DENORM_F32))
    inf_nan = take_patch(&words, &nwords, vrt_spirv_keep_inf_nan, in->inf_nan_preserve, d);
  if (exact && denorm >= 0 && inf_nan >= 0)
    contraction = take_patch(&words, &nwords, no_contraction, 0, d);
  if (denorm < 0 || inf_nan < 0 || contraction < 0) {
    vpm_free(k->m);
    free(k);
    k = NULL;
    denorm = 0;
  }
  /* ... or, where it cannot keep them, the float32 helpers emulate them
   * (VP_DENORM_EMULATE; part of the pipeline's keys through `denorm`). */
  if (k && opt && opt->preserve_denorms && ctx->info.denorm_emulate)
    denorm |= VRT_DENORM_EMULATE;
  double t1 = vrt__now_ns() / 1e6;
  if (k) {
    pthread_mutex_lock(&ctx->lock);
    vrt_pipeline *before = ctx->pipelines;
    k->p = vrt__pipeline_get(ctx, words, nwords, k->m, local, si.spec_id, k->push_size,
                             opt && opt->trusted, (uint32_t)denorm, d);
    if (k->p) {
      bool hit = ctx->pipelines == before;
      k->stats = k->p->stats;
      if (hit) {
        k->stats = (vrt_kernel_stats){.memory_hit = true, .driver_hit = -1,
                                      .push_descriptors = k->p->push_descriptors,
                                      .denorm_preserve = k->p->stats.denorm_preserve,
                                      .denorm_emulate = k->p->stats.denorm_emulate};
      }
      k->stats.inf_nan_preserve = (uint32_t)inf_nan;
      k->stats.no_contraction = (uint32_t)contraction;
      k->stats.reflect_ms = t1 - t0;
      k->stats.total_ms = vrt__now_ns() / 1e6 - t0;
      VRT_LINK(ctx->kernels, k);
    }
    pthread_mutex_unlock(&ctx->lock);
    if (!k->p) {
      vpm_free(k->m);
      free(k);
      k = NULL;
    }
  }
  free(words);
  return k;
}

void vrt__kernel_release(vrt_kernel *k) {
  vrt_context *ctx = k->ctx;
  VRT_UNLINK(ctx->kernels, k);
  for (uint32_t i = 0; i < k->nlaunches; i++) {
    vrt_launch *l = &k->launches[i];
    if (l->cb)
      ctx->vk.vkFreeCommandBuffers(ctx->device, ctx->pool, 1, &l->cb);
    if (l->set_pool)
      ctx->vk.vkFreeDescriptorSets(ctx->device, l->set_pool, k->p->nsets, l->sets);
    free(l->key);
  }
  free(k->launches);
  vpm_free(k->m);
  free(k);
}

void vrt_kernel_destroy(vrt_kernel *k) {
  if (!k)
    return;
  vrt_context *ctx = k->ctx;
  uint64_t last = 0;
  pthread_mutex_lock(&ctx->lock);
  for (uint32_t i = 0; i < k->nlaunches; i++)
    last = k->launches[i].value > last ? k->launches[i].value : last;
  pthread_mutex_unlock(&ctx->lock);
  vp_diags ignore = {0};
  if (!vrt_context_lost(ctx))
    vrt_wait(ctx, last, UINT64_MAX, &ignore);
  vp_diags_free(&ignore);
  pthread_mutex_lock(&ctx->lock);
  vrt__kernel_release(k);
  pthread_mutex_unlock(&ctx->lock);
}

const vpm_manifest *vrt_kernel_manifest(const vrt_kernel *k) { return k->m; }

void vrt_kernel_local_size(const vrt_kernel *k, uint32_t out[3]) {
  memcpy(out, k->local, sizeof k->local);
}

void vrt_kernel_stats_get(const vrt_kernel *k, vrt_kernel_stats *out) { *out = k->stats; }
