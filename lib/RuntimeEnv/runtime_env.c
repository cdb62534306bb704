/* runtime_env.c - VULPY_* environment variables -> vrt_context_options.
 *
 * The one parser of the variables that choose how a context is made
 * (include/vulpy/runtime_env.h has the table). Each variable fills its field
 * only where the caller left it unchosen, so an explicit argument (a Python
 * keyword, a vulpy-run flag) wins over the environment. Values are checked
 * here: a variable with a value it does not take is an error naming it,
 * never a silent default (VULPY_FMA excepted: its documented rule is
 * that any value but fused and unfused keeps the detection). The runtime
 * library does not link this file.
 */
#include "vulpy/runtime_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The variable's value, or NULL when unset or empty; notes it as used. */
static const char *var(vrt_env *env, const char *name) {
  const char *v = getenv(name);
  if (!v || !*v)
    return NULL;
  size_t n = strlen(env->used);
  snprintf(env->used + n, sizeof env->used - n, "%s%s=%s", n ? " " : "", name, v);
  return v;
}

/* One of `names` (NULL-terminated, index = value), or -1 with an error. */
static int pick(const char *name, const char *v, const char *const *names, vp_diags *d) {
  vp_strbuf all = {0};
  for (int i = 0; names[i]; i++) {
    if (strcmp(v, names[i]) == 0) {
      vp_strbuf_free(&all);
      return i;
    }
    vp_strbuf_printf(&all, "%s%s", i ? ", " : "", names[i]);
  }
  vp_error(d, (vp_loc){0}, "%s='%s' is not one of %s", name, v, all.data ? all.data : "");
  vp_diag_hint(d, "unset %s for the default (docs/runtime.md, \"Environment variables\")", name);
  vp_strbuf_free(&all);
  return -1;
}

/* A whole decimal number in [lo, UINT32_MAX], or false with an error. */
static bool number(const char *name, const char *v, unsigned long lo, uint32_t *out,
                   vp_diags *d) {
  char *end = NULL;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  if (*v == '-' || *v == '+' || end == v || *end || errno || n < lo || n > UINT32_MAX) {
    vp_error(d, (vp_loc){0}, "%s='%s' is not a whole number of at least %lu", name, v, lo);
    vp_diag_hint(d, "unset %s for the default (docs/runtime.md, \"Environment variables\")", name);
    return false;
  }
  *out = (uint32_t)n;
  return true;
}

/* number() with an upper bound too (the staging ring's shape). */
static bool number_in(const char *name, const char *v, uint32_t lo, uint32_t hi, uint32_t *out,
                      vp_diags *d) {
  if (!number(name, v, lo, out, d))
    return false;
  if (*out <= hi)
    return true;
  vp_error(d, (vp_loc){0}, "%s='%s' is more than %u", name, v, hi);
  vp_diag_hint(d, "unset %s for the default (docs/runtime.md, \"Environment variables\")", name);
  *out = 0;
  return false;
}

/* "0" sets a no_* flag, "1" leaves it. */
static bool switch_off(const char *name, const char *v, bool *flag, vp_diags *d) {
  static const char *const names[] = {"0", "1", NULL};
  int i = pick(name, v, names, d);
  if (i == 0)
    *flag = true;
  return i >= 0;
}

static bool cache_dir(vrt_context_options *opt, vrt_env *env, vp_diags *d) {
  const char *root = var(env, "VULPY_CACHE_DIR");
  if (root) {
    opt->cache_dir = root;
    return true;
  }
  /* XDG_CACHE_HOME and HOME only place the default: not "set by" notes */
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && *xdg)
    n = snprintf(env->cache_dir, sizeof env->cache_dir, "%s/vulpy", xdg);
  else if (home && *home)
    n = snprintf(env->cache_dir, sizeof env->cache_dir, "%s/.cache/vulpy", home);
  else
    return true; /* no folder: no disk cache */
  if (n < 0 || (size_t)n >= sizeof env->cache_dir) {
    vp_error(d, (vp_loc){0}, "the kernel cache folder under %s is too long",
             xdg && *xdg ? "XDG_CACHE_HOME" : "HOME");
    vp_diag_hint(d, "set VULPY_CACHE_DIR to a shorter folder");
    return false;
  }
  opt->cache_dir = env->cache_dir;
  return true;
}

bool vrt_env_context_options(vrt_context_options *opt, vrt_env *env, vp_diags *d) {
  env->cache_dir[0] = 0;
  env->used[0] = 0;
  const char *v;
  bool ok = true;
  if (!opt->device)
    opt->device = var(env, "VULPY_DEVICE");
  if (opt->validation < 0 && (v = var(env, "VULPY_VALIDATION")))
    opt->validation = strcmp(v, "0") != 0;
  if (!opt->cache_dir)
    ok &= cache_dir(opt, env, d);
  if (opt->wait == VRT_WAIT_DEFAULT && (v = var(env, "VULPY_WAIT"))) {
    static const char *const names[] = {"default", "spin-block", "block", "spin", NULL};
    int m = pick("VULPY_WAIT", v, names, d);
    ok &= m >= 0;
    if (m > 0)
      opt->wait = (vrt_wait_mode)m;
  }
  if (!opt->spin_us && (v = var(env, "VULPY_SPIN_US"))) {
    uint32_t us = 0;
    ok &= number("VULPY_SPIN_US", v, 0, &us, d);
    opt->spin_us = us;
    /* no spin: a spin-then-block wait blocks at once */
    if (ok && us == 0 && (opt->wait == VRT_WAIT_DEFAULT || opt->wait == VRT_WAIT_SPIN_BLOCK))
      opt->wait = VRT_WAIT_BLOCK;
  }
  if (!opt->copy_threads && (v = var(env, "VULPY_COPY_THREADS"))) {
    uint32_t n = 0;
    ok &= number("VULPY_COPY_THREADS", v, 1, &n, d);
    opt->copy_threads = n > 64 ? 64 : n;
  }
  /* docs/runtime.md: auto, unset "or anything else keeps the detection" */
  if (opt->fma == VRT_FMA_AUTO && (v = var(env, "VULPY_FMA")))
    opt->fma = strcmp(v, "fused") == 0     ? VRT_FMA_FUSED
               : strcmp(v, "unfused") == 0 ? VRT_FMA_UNFUSED
                                           : VRT_FMA_AUTO;
  if (opt->denorm == VRT_DENORM_MODE_AUTO && (v = var(env, "VULPY_DENORM"))) {
    /* the order docs/runtime.md lists them in; the enum's differs */
    static const char *const names[] = {"preserve", "emulate", "default", "auto", NULL};
    static const vrt_denorm_mode modes[] = {VRT_DENORM_MODE_PRESERVE, VRT_DENORM_MODE_EMULATE,
                                            VRT_DENORM_MODE_DEFAULT, VRT_DENORM_MODE_AUTO};
    int m = pick("VULPY_DENORM", v, names, d);
    ok &= m >= 0;
    if (m >= 0)
      opt->denorm = modes[m];
  }
  if (!opt->no_export_semaphores && (v = var(env, "VULPY_EXPORT_SEMAPHORES")))
    ok &= switch_off("VULPY_EXPORT_SEMAPHORES", v, &opt->no_export_semaphores, d);
  if (!opt->single_queue && (v = var(env, "VULPY_STREAM_QUEUES")))
    ok &= switch_off("VULPY_STREAM_QUEUES", v, &opt->single_queue, d);
  if (!opt->no_prewarm && (v = var(env, "VULPY_PREWARM")))
    ok &= switch_off("VULPY_PREWARM", v, &opt->no_prewarm, d);
  if (opt->fork_child == VRT_FORK_AUTO && (v = var(env, "VULPY_FORK_CHILD"))) {
    static const char *const names[] = {"auto", "refuse", "try", NULL};
    int m = pick("VULPY_FORK_CHILD", v, names, d);
    ok &= m >= 0;
    if (m > 0)
      opt->fork_child = (vrt_fork_child)m;
  }
  if (!opt->emulate_transfer_family && (v = var(env, "VULPY_TRANSFER_FAMILY"))) {
    static const char *const names[] = {"", "emulate", NULL};
    int m = pick("VULPY_TRANSFER_FAMILY", v, names, d);
    ok &= m >= 0;
    opt->emulate_transfer_family = m == 1;
  }
  if (!opt->always_concurrent && (v = var(env, "VULPY_SHARING"))) {
    static const char *const names[] = {"exclusive", "concurrent", NULL};
    int m = pick("VULPY_SHARING", v, names, d);
    ok &= m >= 0;
    opt->always_concurrent = m == 1;
  }
  if (!opt->staging_slots && (v = var(env, "VULPY_STAGING_SLOTS")))
    ok &= number_in("VULPY_STAGING_SLOTS", v, 2, 8, &opt->staging_slots, d);
  if (!opt->staging_slot_mib && (v = var(env, "VULPY_STAGING_MIB")))
    ok &= number_in("VULPY_STAGING_MIB", v, 1, 256, &opt->staging_slot_mib, d);
  if (!opt->upload_import_mib && (v = var(env, "VULPY_UPLOAD_IMPORT_MIB")))
    ok &= number_in("VULPY_UPLOAD_IMPORT_MIB", v, 0, 4096, &opt->upload_import_mib, d);
  if (!opt->eager_batch && (v = var(env, "VULPY_EAGER_BATCH"))) {
    if (strcmp(v, "adaptive") == 0)
      opt->eager_batch = VRT_EAGER_ADAPTIVE_OPT;
    else
      ok &= number_in("VULPY_EAGER_BATCH", v, 1, 64, &opt->eager_batch, d);
  }
  if (!opt->eager_inflight && (v = var(env, "VULPY_EAGER_INFLIGHT")))
    ok &= number_in("VULPY_EAGER_INFLIGHT", v, 1, 8, &opt->eager_inflight, d);
  if (!opt->eager_flusher_us && (v = var(env, "VULPY_EAGER_FLUSHER_US"))) {
    if (strcmp(v, "block") == 0)
      opt->eager_flusher_us = VRT_EAGER_FLUSHER_BLOCK;
    else
      ok &= number_in("VULPY_EAGER_FLUSHER_US", v, 1, 1000, &opt->eager_flusher_us, d);
  }
  if (!opt->vulkan_library)
    opt->vulkan_library = var(env, "VULPY_VULKAN_LIBRARY");
  return ok;
}

void vrt_env_note(const vrt_env *env, vp_diags *d) {
  if (env->used[0])
    vp_diag_add(d, VP_NOTE, (vp_loc){0}, "options from the environment: %s", env->used);
}

bool vrt_env_loader_open(vp_diags *d) {
  const char *lib = getenv("VULPY_VULKAN_LIBRARY");
  return vrt_loader_open(lib && *lib ? lib : NULL, d);
}
