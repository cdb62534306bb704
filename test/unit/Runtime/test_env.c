/* test_env.c - issue 14: the runtime reads no environment; the VULPY_*
 * variables reach it as vrt_context_options through vulpy_runtime_env.
 *
 * The parser (vrt_env_context_options): each variable fills its field, an
 * explicit field wins, a bad value is an error naming the variable. Then
 * real contexts on the device: the options each variable sets are the ones
 * the context has (device, cache folder, wait, copy threads, fma, denorm,
 * prewarm, one queue), a bad option is an error naming the field, and the
 * loader is one per process. runtime.no_getenv checks the library itself.
 */
#include "rt_test.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const VARS[] = {
    "VULPY_DEVICE",  "VULPY_VALIDATION", "VULPY_CACHE_DIR",        "VULPY_WAIT",
    "VULPY_SPIN_US", "VULPY_COPY_THREADS", "VULPY_FMA",            "VULPY_DENORM",
    "VULPY_PREWARM", "VULPY_STREAM_QUEUES", "VULPY_EXPORT_SEMAPHORES",
    "VULPY_VULKAN_LIBRARY", "VULPY_STAGING_SLOTS", "VULPY_STAGING_MIB", "VULPY_EAGER_BATCH",
    "VULPY_EAGER_INFLIGHT", "VULPY_EAGER_FLUSHER_US", NULL};

static char xdg[512]; /* ctest's XDG_CACHE_HOME, kept for the cache cases */

static void clear_env(void) {
  for (int i = 0; VARS[i]; i++)
    unsetenv(VARS[i]);
}

/* The options the environment gives a fresh struct (validation unchosen). */
static bool parse(vrt_context_options *o, vrt_env *env, vp_diags *d) {
  *o = (vrt_context_options){.validation = -1};
  return vrt_env_context_options(o, env, d);
}

static bool streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

static void test_each_variable(void) {
  vp_diags d = {0};
  vrt_env env;
  vrt_context_options o;
  clear_env();
  char home[512];
  const char *h = getenv("HOME");
  snprintf(home, sizeof home, "%s", h ? h : "");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(parse(&o, &env, &d));
  CHECK(!o.device && o.validation == -1 && streq(o.cache_dir, "/xdg/vulpy") && !o.spin_us &&
        o.wait == VRT_WAIT_DEFAULT && !o.copy_threads && o.fma == VRT_FMA_AUTO &&
        o.denorm == VRT_DENORM_MODE_AUTO && !o.no_prewarm && !o.single_queue &&
        !o.no_export_semaphores && !o.vulkan_library && !o.staging_slots && !o.staging_slot_mib);
  CHECK(env.used[0] == 0);
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  CHECK(parse(&o, &env, &d) && streq(o.cache_dir, "/home/u/.cache/vulpy"));
  unsetenv("HOME");
  CHECK(parse(&o, &env, &d) && o.cache_dir == NULL); /* no folder: no disk cache */
  if (*home)
    setenv("HOME", home, 1);

  setenv("VULPY_DEVICE", "cpu", 1);
  setenv("VULPY_VALIDATION", "0", 1);
  setenv("VULPY_CACHE_DIR", "/c", 1);
  setenv("VULPY_WAIT", "spin", 1);
  setenv("VULPY_SPIN_US", "250", 1);
  setenv("VULPY_COPY_THREADS", "3", 1);
  setenv("VULPY_FMA", "fused", 1);
  setenv("VULPY_DENORM", "emulate", 1);
  setenv("VULPY_PREWARM", "0", 1);
  setenv("VULPY_STREAM_QUEUES", "0", 1);
  setenv("VULPY_EXPORT_SEMAPHORES", "0", 1);
  setenv("VULPY_VULKAN_LIBRARY", "/l/libvulkan.so.1", 1);
  setenv("VULPY_STAGING_SLOTS", "8", 1);
  setenv("VULPY_STAGING_MIB", "32", 1);
  setenv("VULPY_EAGER_BATCH", "adaptive", 1);
  setenv("VULPY_EAGER_INFLIGHT", "3", 1);
  setenv("VULPY_EAGER_FLUSHER_US", "20", 1);
  CHECK(parse(&o, &env, &d));
  CHECK(o.eager_flusher_us == 20);
  /* `block`: the flusher waits in the driver (0 is the default: polling) */
  setenv("VULPY_EAGER_FLUSHER_US", "block", 1);
  CHECK(parse(&o, &env, &d));
  CHECK(o.eager_flusher_us == VRT_EAGER_FLUSHER_BLOCK);
  CHECK(o.staging_slots == 8 && o.staging_slot_mib == 32);
  CHECK(o.eager_batch == VRT_EAGER_ADAPTIVE_OPT && o.eager_inflight == 3);
  CHECK(streq(o.device, "cpu") && o.validation == 0 && streq(o.cache_dir, "/c") &&
        o.wait == VRT_WAIT_SPIN && o.spin_us == 250 && o.copy_threads == 3 &&
        o.fma == VRT_FMA_FUSED && o.denorm == VRT_DENORM_MODE_EMULATE && o.no_prewarm &&
        o.single_queue && o.no_export_semaphores && streq(o.vulkan_library, "/l/libvulkan.so.1"));
  CHECK(strstr(env.used, "VULPY_DEVICE=cpu") && strstr(env.used, "VULPY_WAIT=spin"));
  CHECK_OK(d);

  /* an explicit choice wins over the variable */
  o = (vrt_context_options){.device = "0", .validation = 1, .cache_dir = "", .wait = VRT_WAIT_BLOCK,
                            .spin_us = 7, .copy_threads = 2, .fma = VRT_FMA_UNFUSED,
                            .denorm = VRT_DENORM_MODE_DEFAULT};
  CHECK(vrt_env_context_options(&o, &env, &d));
  CHECK(streq(o.device, "0") && o.validation == 1 && streq(o.cache_dir, "") &&
        o.wait == VRT_WAIT_BLOCK && o.spin_us == 7 && o.copy_threads == 2 &&
        o.fma == VRT_FMA_UNFUSED && o.denorm == VRT_DENORM_MODE_DEFAULT);
  CHECK(!strstr(env.used, "VULPY_DEVICE"));

  /* the other spellings */
  clear_env();
  setenv("VULPY_VALIDATION", "1", 1);
  setenv("VULPY_SPIN_US", "0", 1); /* no spin: block at once */
  setenv("VULPY_COPY_THREADS", "1000", 1);
  setenv("VULPY_FMA", "unfused", 1);
  setenv("VULPY_DENORM", "preserve", 1);
  setenv("VULPY_PREWARM", "1", 1);
  setenv("VULPY_EAGER_BATCH", "5", 1);
  CHECK(parse(&o, &env, &d));
  CHECK(o.eager_batch == 5);
  CHECK(o.validation == 1 && o.wait == VRT_WAIT_BLOCK && o.copy_threads == 64 &&
        o.fma == VRT_FMA_UNFUSED && o.denorm == VRT_DENORM_MODE_PRESERVE && !o.no_prewarm);
  setenv("VULPY_WAIT", "spin", 1); /* a spinning wait keeps spinning */
  CHECK(parse(&o, &env, &d) && o.wait == VRT_WAIT_SPIN);
  setenv("VULPY_FMA", "bogus", 1); /* documented: anything else keeps the detection */
  CHECK(parse(&o, &env, &d) && o.fma == VRT_FMA_AUTO);
  CHECK_OK(d);
  clear_env();
  vp_diags_free(&d);
}

/* Each bad value: false, one error naming the variable and the value. */
static void bad(const char *name, const char *value, const char *want) {
  clear_env();
  setenv(name, value, 1);
  vp_diags d = {0};
  vrt_env env;
  vrt_context_options o;
  CHECK(!parse(&o, &env, &d));
  CHECK(d.nerrors == 1);
  CHECK_ERROR(d, want);
  unsetenv(name);
  vp_diags_free(&d);
}

static void test_bad_values(void) {
  bad("VULPY_WAIT", "fast", "VULPY_WAIT='fast' is not one of default, spin-block, block, spin");
  bad("VULPY_SPIN_US", "abc", "VULPY_SPIN_US='abc' is not a whole number");
  bad("VULPY_SPIN_US", "-5", "VULPY_SPIN_US='-5' is not a whole number");
  bad("VULPY_SPIN_US", "10us", "VULPY_SPIN_US='10us'");
  bad("VULPY_COPY_THREADS", "0", "VULPY_COPY_THREADS='0' is not a whole number of at least 1");
  bad("VULPY_DENORM", "keep", "VULPY_DENORM='keep' is not one of preserve, emulate, default, auto");
  bad("VULPY_PREWARM", "off", "VULPY_PREWARM='off' is not one of 0, 1");
  bad("VULPY_STREAM_QUEUES", "2", "VULPY_STREAM_QUEUES='2' is not one of 0, 1");
  bad("VULPY_EXPORT_SEMAPHORES", "no", "VULPY_EXPORT_SEMAPHORES='no' is not one of 0, 1");
  bad("VULPY_STAGING_SLOTS", "1", "VULPY_STAGING_SLOTS='1' is not a whole number of at least 2");
  bad("VULPY_STAGING_SLOTS", "9", "VULPY_STAGING_SLOTS='9' is more than 8");
  bad("VULPY_EAGER_BATCH", "0", "VULPY_EAGER_BATCH='0' is not a whole number of at least 1");
  bad("VULPY_EAGER_BATCH", "65", "VULPY_EAGER_BATCH='65' is more than 64");
  bad("VULPY_EAGER_BATCH", "fast", "VULPY_EAGER_BATCH='fast' is not a whole number");
  bad("VULPY_EAGER_INFLIGHT", "0", "VULPY_EAGER_INFLIGHT='0' is not a whole number of at least 1");
  bad("VULPY_EAGER_INFLIGHT", "9", "VULPY_EAGER_INFLIGHT='9' is more than 8");
  bad("VULPY_EAGER_FLUSHER_US", "1001", "VULPY_EAGER_FLUSHER_US='1001' is more than 1000");
  bad("VULPY_EAGER_FLUSHER_US", "0", "VULPY_EAGER_FLUSHER_US='0' is not a whole number of at least 1");
  bad("VULPY_STAGING_MIB", "0", "VULPY_STAGING_MIB='0' is not a whole number of at least 1");
  bad("VULPY_STAGING_MIB", "512", "VULPY_STAGING_MIB='512' is more than 256");
}

/* A context made the way every program makes one: the environment under
 * the explicit options. */
static vrt_context *env_context(vrt_context_options opt, vp_diags *d) {
  vrt_env env;
  vrt_context *ctx = vrt_env_context_options(&opt, &env, d) ? vrt_context_create(&opt, d) : NULL;
  if (!ctx)
    vrt_env_note(&env, d);
  return ctx;
}

static void test_device(void) {
  clear_env();
  vp_diags d = {0};
  vrt_device_info *devs = NULL;
  uint32_t n = 0;
  if (!vrt_list_devices(&devs, &n, &d)) {
    CHECK_OK(d);
    return;
  }
  char index[16];
  snprintf(index, sizeof index, "%u", n - 1);
  setenv("VULPY_DEVICE", index, 1);
  vrt_context *ctx = rt_context();
  CHECK(ctx && strcmp(vrt_context_device(ctx)->name, devs[n - 1].name) == 0);
  rt_context_done(ctx);
  /* a selector that matches nothing: the error says where it came from */
  setenv("VULPY_DEVICE", "nonesuch-device", 1);
  CHECK(env_context((vrt_context_options){.validation = 1}, &d) == NULL);
  bool noted = false;
  for (uint32_t i = 0; i < d.count; i++)
    noted |= d.items[i].severity == VP_NOTE &&
             strstr(d.items[i].message,
                    "options from the environment: VULPY_DEVICE=nonesuch-device");
  CHECK(noted);
  CHECK_ERROR(d, "no Vulkan device matches 'nonesuch-device'");
  /* an explicit selector wins */
  ctx = rt_context_with((vrt_context_options){.device = devs[0].name});
  CHECK(ctx && strcmp(vrt_context_device(ctx)->name, devs[0].name) == 0);
  rt_context_done(ctx);
  unsetenv("VULPY_DEVICE");
  free(devs);
  vp_diags_free(&d);
}

static void test_cache_dir(void) {
  clear_env();
  char dir[600];
  snprintf(dir, sizeof dir, "%s/env-XXXXXX", xdg);
  mkdir(xdg, 0755);
  CHECK(mkdtemp(dir) != NULL);
  setenv("VULPY_CACHE_DIR", dir, 1);
  vrt_context *ctx = rt_context();
  vrt_kernel *k = ctx ? rt_kernel(ctx, "saxpy", NULL) : NULL;
  vrt_kernel_stats s = {0};
  if (k)
    vrt_kernel_stats_get(k, &s);
  CHECK(k && strstr(s.cache_path, dir) == s.cache_path && access(s.cache_path, R_OK) == 0);
  vrt_kernel_destroy(k);
  rt_context_done(ctx);
  /* without it, $XDG_CACHE_HOME/vulpy */
  unsetenv("VULPY_CACHE_DIR");
  char want[600];
  snprintf(want, sizeof want, "%s/vulpy/", xdg);
  ctx = rt_context();
  k = ctx ? rt_kernel(ctx, "saxpy", NULL) : NULL;
  if (k)
    vrt_kernel_stats_get(k, &s);
  CHECK(k && strstr(s.cache_path, want) == s.cache_path);
  vrt_kernel_destroy(k);
  rt_context_done(ctx);
  /* the option alone, no environment: "" and NULL are no disk cache */
  vp_diags d = {0};
  ctx = vrt_context_create(&(vrt_context_options){.validation = 1}, &d);
  k = ctx ? rt_kernel(ctx, "saxpy", NULL) : NULL;
  if (k)
    vrt_kernel_stats_get(k, &s);
  CHECK(k && s.cache_path[0] == 0 && !s.disk_written);
  CHECK_OK(d);
  vrt_kernel_destroy(k);
  rt_context_done(ctx);
}

static void test_modes(void) {
  clear_env();
  setenv("VULPY_WAIT", "spin", 1);
  vrt_context *ctx = rt_context();
  CHECK(ctx && vrt_context_wait_mode(ctx, NULL) == VRT_WAIT_SPIN);
  rt_context_done(ctx);
  setenv("VULPY_WAIT", "spin-block", 1);
  setenv("VULPY_SPIN_US", "321", 1);
  ctx = rt_context();
  uint32_t us = 0;
  CHECK(ctx && vrt_context_wait_mode(ctx, &us) == VRT_WAIT_SPIN_BLOCK && us == 321);
  rt_context_done(ctx);
  setenv("VULPY_SPIN_US", "0", 1);
  ctx = rt_context();
  CHECK(ctx && vrt_context_wait_mode(ctx, NULL) == VRT_WAIT_BLOCK);
  rt_context_done(ctx);
  clear_env();
  setenv("VULPY_COPY_THREADS", "3", 1);
  ctx = rt_context();
  CHECK(ctx && vrt_context_copy_threads(ctx) == 3);
  rt_context_done(ctx);
  /* fma and denorm: the other path than the device's own choice */
  clear_env();
  ctx = rt_context();
  bool fused = ctx && vrt_context_device(ctx)->fma_fused;
  bool emulate = ctx && vrt_context_device(ctx)->denorm_emulate;
  rt_context_done(ctx);
  setenv("VULPY_FMA", fused ? "unfused" : "fused", 1);
  setenv("VULPY_DENORM", emulate ? "default" : "emulate", 1);
  ctx = rt_context_with((vrt_context_options){.validation = 1});
  CHECK(ctx && vrt_context_device(ctx)->fma_fused == !fused &&
        vrt_context_device(ctx)->denorm_emulate == !emulate &&
        vrt_context_device(ctx)->denorm_preserve == 0);
  rt_context_done(ctx);
  clear_env();
}

/* The driver warm-up thread (prewarm.c) runs unless VULPY_PREWARM=0. */
static void test_prewarm(void) {
  clear_env();
  for (int off = 0; off < 2; off++) {
    if (off)
      setenv("VULPY_PREWARM", "0", 1);
    vrt_context *ctx = rt_context();
    vrt_context_stats s = {0};
    for (int i = 0; ctx && i < 400; i++) { /* up to 4 s for the warm-up */
      vrt_context_stats_get(ctx, &s);
      if (s.prewarm_ms > 0 || (off && i >= 20))
        break;
      nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    CHECK(ctx && (off ? s.prewarm_ms == 0 : s.prewarm_ms > 0));
    rt_context_done(ctx);
  }
  clear_env();
}

/* VULPY_STREAM_QUEUES=0: streams share the default queue. */
static void test_single_queue(void) {
  clear_env();
  for (int one = 0; one < 2; one++) {
    if (one)
      setenv("VULPY_STREAM_QUEUES", "0", 1);
    vrt_context *ctx = rt_context();
    vp_diags d = {0};
    vrt_stream *s = ctx ? vrt_stream_create(ctx, VRT_STREAM_COMPUTE, &d) : NULL;
    CHECK_OK(d);
    static bool own; /* the device gave the stream its own queue without the option */
    if (!one)
      own = s && !vrt_stream_shared(s);
    else
      CHECK(s && vrt_stream_shared(s));
    if (one && !own)
      fprintf(stderr, "  (one compute queue here: VULPY_STREAM_QUEUES changes nothing)\n");
    vrt_stream_destroy(s);
    vp_diags_free(&d);
    rt_context_done(ctx);
  }
  clear_env();
}

/* Bad option values: an error naming the field, no context. */
static void test_bad_options(void) {
  clear_env();
  vp_diags d = {0};
  CHECK(!vrt_context_create(&(vrt_context_options){.wait = (vrt_wait_mode)7}, &d));
  CHECK_ERROR(d, "vrt_context_options.wait = 7");
  CHECK(!vrt_context_create(&(vrt_context_options){.fma = (vrt_fma_mode)5}, &d));
  CHECK_ERROR(d, "vrt_context_options.fma = 5");
  CHECK(!vrt_context_create(&(vrt_context_options){.denorm = (vrt_denorm_mode)8}, &d));
  CHECK_ERROR(d, "vrt_context_options.denorm = 8");
  CHECK(!vrt_context_create(&(vrt_context_options){.copy_threads = 65}, &d));
  CHECK_ERROR(d, "vrt_context_options.copy_threads = 65");
  /* a bad variable never reaches vrt_context_create */
  setenv("VULPY_WAIT", "sometimes", 1);
  CHECK(env_context((vrt_context_options){.validation = 1}, &d) == NULL);
  CHECK_ERROR(d, "VULPY_WAIT='sometimes'");
  clear_env();
  vp_diags_free(&d);
}

/* The loader is the process's: once open, another file is an error naming
 * both, and NULL or the same choice is fine. */
static void test_loader_once(void) {
  vp_diags d = {0};
  CHECK(vrt_loader_open(NULL, &d));
  CHECK(!vrt_loader_open("/nonexistent/other-libvulkan.so", &d));
  CHECK_ERROR(d, "vulkan_library '/nonexistent/other-libvulkan.so': the Vulkan loader of this "
                 "process is already the system's");
  vrt_context_options o = {.vulkan_library = "/nonexistent/other-libvulkan.so"};
  CHECK(!vrt_context_create(&o, &d));
  CHECK_ERROR(d, "already");
  CHECK(vrt_loader_open("", &d));
  CHECK_OK(d);
  vp_diags_free(&d);
}

int main(void) {
  const char *x = getenv("XDG_CACHE_HOME");
  snprintf(xdg, sizeof xdg, "%s", x && *x ? x : "/tmp/vulpy-test-env");
  RT_RUN(test_each_variable);
  RT_RUN(test_bad_values);
  setenv("XDG_CACHE_HOME", xdg, 1);
  RT_RUN(test_device);
  RT_RUN(test_cache_dir);
  RT_RUN(test_modes);
  RT_RUN(test_prewarm);
  RT_RUN(test_single_queue);
  RT_RUN(test_bad_options);
  RT_RUN(test_loader_once);
  return rt_failures ? 1 : 0;
}
