/* test_kcache.c - the kernel cache on disk (lib/Target/kernel_cache.c):
 * what is stored loads back byte for byte; a damaged, swapped, planted,
 * linked or FIFO entry is refused with a reason naming the file; another
 * build's entry is a miss; a folder other users may write is refused; the
 * size cap evicts the least recently used entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vulpy/target.h"

static int failures;
#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                       \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static char folder[256], why[2048];
static uint8_t secret[32];

static vtg_kcache_part parts[2] = {{"glsl", 's', "void main() {}", 14},
                                   {"blob", 'b', "\0\1\2\3", 4}};

static void path_of(const char *key, char *out, size_t n) {
  snprintf(out, n, "%s/%.2s/%s.vpk", folder, key, key);
}

static vtg_kcache_result load(const char *key, const char *build) {
  vtg_kcache_entry e;
  vtg_kcache_result r = vtg_kcache_load(folder, secret, key, build, &e, why, sizeof why);
  if (r == VTG_KCACHE_HIT) {
    CHECK(e.nparts == 2);
    for (uint32_t i = 0; i < e.nparts && i < 2; i++)
      CHECK(!strcmp(e.parts[i].name, parts[i].name) && e.parts[i].kind == parts[i].kind &&
            e.parts[i].len == parts[i].len && !memcmp(e.parts[i].data, parts[i].data, 4));
    vtg_kcache_entry_free(&e);
  }
  return r;
}

static bool store(const char *key, const char *build) {
  int64_t total = -1;
  return vtg_kcache_store(folder, secret, key, build, parts, 2, 1 << 20, &total);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  char *buf = malloc(1 << 16);
  *n = f ? fread(buf, 1, 1 << 16, f) : 0;
  if (f)
    fclose(f);
  return buf;
}

static void spit(const char *path, const char *data, size_t n) {
  unlink(path);
  FILE *f = fopen(path, "wb");
  fwrite(data, 1, n, f);
  fclose(f);
}

int main(void) {
  char root[] = "/tmp/vp_kcache_XXXXXX";
  if (!mkdtemp(root))
    return 1;
  snprintf(folder, sizeof folder, "%s/kernels", root);
  CHECK(vtg_kcache_open(folder, secret, why, sizeof why));
  struct stat st;
  CHECK(stat(folder, &st) == 0 && (st.st_mode & 077) == 0);

  const char *a = "aa00", *b = "ab00";
  char pa[512], pb[512];
  path_of(a, pa, sizeof pa);
  path_of(b, pb, sizeof pb);
  CHECK(load(a, "v1") == VTG_KCACHE_MISS && !why[0]);
  CHECK(store(a, "v1") && store(b, "v1"));
  CHECK(load(a, "v1") == VTG_KCACHE_HIT);
  CHECK(load(a, "v2") == VTG_KCACHE_MISS); /* another build's */
  CHECK(load("../x", "v1") == VTG_KCACHE_MISS);

  /* a flipped payload byte, a truncated file, a renamed entry */
  size_t n, m;
  char *fa = slurp(pa, &n), *fb = slurp(pb, &m);
  fa[n - 1] ^= 1;
  spit(pa, fa, n);
  CHECK(load(a, "v1") == VTG_KCACHE_REFUSED && strstr(why, "SHA-256") && strstr(why, pa));
  fa[n - 1] ^= 1;
  spit(pa, fa, n / 2);
  CHECK(load(a, "v1") == VTG_KCACHE_REFUSED);
  spit(pa, fb, m);
  CHECK(load(a, "v1") == VTG_KCACHE_REFUSED && strstr(why, "another key"));
  /* planted: the header's MAC made without the secret */
  char *mac = strstr(fa, "\"mac\":\"");
  CHECK(mac != NULL);
  if (mac)
    mac[8] = mac[8] == '0' ? '1' : '0';
  spit(pa, fa, n);
  CHECK(load(a, "v1") == VTG_KCACHE_REFUSED && strstr(why, "HMAC"));
  /* a symbolic link and a FIFO named like the entry (no hang) */
  unlink(pa);
  CHECK(symlink(pb, pa) == 0);
  CHECK(load(a, "v1") == VTG_KCACHE_REFUSED);
  unlink(pa);
  CHECK(mkfifo(pa, 0600) == 0);
  CHECK(load(a, "v1") == VTG_KCACHE_REFUSED && strstr(why, "not a regular file"));
  unlink(pa);
  /* an older VulPy's entry: a plain miss */
  spit(pa, "VULPYK3\n{}\n", 11);
  CHECK(load(a, "v1") == VTG_KCACHE_MISS);
  CHECK(store(a, "v1") && load(a, "v1") == VTG_KCACHE_HIT);
  free(fa);
  free(fb);

  /* the cap: 8 entries of 300 KiB under 1 MiB keeps the newest */
  static char big[300 << 10];
  memset(big, 'x', sizeof big);
  vtg_kcache_part one = {"glsl", 's', big, sizeof big};
  int64_t total = -1;
  for (int i = 0; i < 8; i++) {
    char key[8];
    snprintf(key, sizeof key, "c%d00", i);
    CHECK(vtg_kcache_store(folder, secret, key, "v1", &one, 1, 1 << 20, &total));
  }
  CHECK(total > 0 && total <= 1 << 20);
  char newest[512];
  path_of("c700", newest, sizeof newest);
  CHECK(access(newest, F_OK) == 0);

  /* a folder other users may write is refused */
  chmod(folder, 0777);
  CHECK(!vtg_kcache_open(folder, secret, why, sizeof why) &&
        strstr(why, "writable by other users"));
  chmod(folder, 0700);

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", root);
  if (failures)
    fprintf(stderr, "%d failure(s)\n", failures);
  return failures != 0;
}
