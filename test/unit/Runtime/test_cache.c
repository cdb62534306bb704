/* test_cache.c - the pipeline caches: in memory (second kernel in a
 * context), on disk (a new context, a second process), a corrupt or
 * truncated file ignored and rewritten, and no disk cache when asked.
 *
 *   test_runtime_cache                  the cases in one process
 *   test_runtime_cache populate         writes the cache ($XDG_CACHE_HOME)
 *   test_runtime_cache second-process   must find it on disk
 */
#include "rt_test.h"

#include <sys/stat.h>
#include <unistd.h>

static vrt_kernel_stats make(vrt_context *ctx, const char *name) {
  vrt_kernel_stats st;
  memset(&st, 0, sizeof st);
  vrt_kernel *k = rt_kernel(ctx, name, NULL);
  if (k)
    vrt_kernel_stats_get(k, &st);
  vrt_kernel_destroy(k);
  return st;
}

static void corrupt(const char *path, long offset, bool truncate_it) {
  FILE *f = fopen(path, "r+b");
  CHECK(f != NULL);
  if (!f)
    return;
  if (truncate_it) {
    CHECK(ftruncate(fileno(f), offset) == 0);
  } else {
    fseek(f, offset, SEEK_SET);
    int c = fgetc(f);
    fseek(f, offset, SEEK_SET);
    fputc(c ^ 0x5A, f);
  }
  fclose(f);
}

static void test_one_process(void) {
  char dir[512];
  const char *base = getenv("XDG_CACHE_HOME");
  snprintf(dir, sizeof dir, "%s/one-process-XXXXXX", base && *base ? base : "/tmp");
  char *made = NULL;
  {
    char parent[512];
    snprintf(parent, sizeof parent, "%s", base && *base ? base : "/tmp");
    mkdir(parent, 0755);
    made = mkdtemp(dir);
  }
  CHECK(made != NULL);
  if (!made)
    return;
  vrt_context_options opt = {.cache_dir = dir};
  vrt_context *a = rt_context_with(opt);
  if (!a)
    return;
  vrt_kernel_stats s1 = make(a, "saxpy");
  CHECK(!s1.memory_hit && !s1.disk_loaded && !s1.disk_rejected && s1.disk_written);
  CHECK(strstr(s1.cache_path, dir) == s1.cache_path);
  CHECK(access(s1.cache_path, R_OK) == 0);
  vrt_kernel_stats s2 = make(a, "saxpy");
  CHECK(s2.memory_hit);
  vrt_context_stats cs;
  vrt_context_stats_get(a, &cs);
  CHECK_EQ_U64(cs.pipelines, 1);
  /* Another local size is another pipeline. */
  vrt_kernel *other = rt_kernel(a, "saxpy", &(vrt_kernel_options){{128, 1, 1}, false, false, false});
  vrt_kernel_stats s3;
  if (other) {
    vrt_kernel_stats_get(other, &s3);
    CHECK(!s3.memory_hit && strcmp(s3.cache_path, s1.cache_path) != 0);
  }
  vrt_kernel_destroy(other);
  rt_context_done(a);

  /* A new context finds the file. */
  vrt_context *b = rt_context_with(opt);
  vrt_kernel_stats s4 = b ? make(b, "saxpy") : s1;
  CHECK(!s4.memory_hit && s4.disk_loaded && !s4.disk_rejected);
  if (s4.driver_hit >= 0)
    fprintf(stderr, "  driver reports cache hit: %d\n", s4.driver_hit);
  rt_context_done(b);

  /* A flipped byte in the blob, then a truncated file: ignored, rewritten,
   * and good again for the next context. */
  for (int round = 0; round < 2; round++) {
    corrupt(s1.cache_path, round ? 20 : 70, round == 1);
    vrt_context *c = rt_context_with(opt);
    vrt_kernel_stats s5 = c ? make(c, "saxpy") : s1;
    CHECK(s5.disk_rejected && !s5.disk_loaded && s5.disk_written);
    rt_context_done(c);
    vrt_context *e = rt_context_with(opt);
    vrt_kernel_stats s6 = e ? make(e, "saxpy") : s1;
    CHECK(s6.disk_loaded && !s6.disk_rejected);
    rt_context_done(e);
  }

  /* No disk cache. */
  vrt_context *n = rt_context_with((vrt_context_options){.cache_dir = ""});
  vrt_kernel_stats s7 = n ? make(n, "saxpy") : s1;
  CHECK(!s7.disk_loaded && !s7.disk_written && s7.cache_path[0] == 0);
  rt_context_done(n);
}

int main(int argc, char **argv) {
  if (argc > 1) {
    vrt_context *ctx = rt_context();
    if (!ctx)
      return 1;
    vrt_kernel_stats st = make(ctx, "grid");
    if (strcmp(argv[1], "populate") == 0) {
      CHECK(st.disk_written || st.disk_loaded);
    } else {
      CHECK(st.disk_loaded && !st.disk_rejected && !st.memory_hit);
      fprintf(stderr, "second process: loaded %s (driver hit: %d)\n", st.cache_path,
              st.driver_hit);
    }
    rt_context_done(ctx);
    return rt_failures ? 1 : 0;
  }
  RT_RUN(test_one_process);
  return rt_failures ? 1 : 0;
}
