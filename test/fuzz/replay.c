/* replay.c - runs a libFuzzer target's LLVMFuzzerTestOneInput on files,
 * without libFuzzer or sanitizers, so that ctest replays the checked-in
 * corpus (test/fuzz/corpus/<target>/, which holds every input a fuzzer
 * found a bug with) in the ordinary build: a target's checks abort on a
 * broken property (a round trip, an error without a diagnostic), which
 * fails the test.
 *
 *   replay_fuzz_NAME FILE|DIR ...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      uint8_t *p = realloc(buf, cap *= 2);
      if (!p) {
        free(buf);
        buf = NULL;
      }
      buf = p;
    }
  }
  fclose(f);
  if (!buf)
    return 1;
  /* a copy of exactly n bytes, so that reading past the input is caught
   * by tools such as valgrind, as ASan catches it under libFuzzer */
  uint8_t *exact = malloc(n ? n : 1);
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static int compare(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int failed = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: no such file or folder %s\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      failed |= run_file(argv[i]);
      count++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
      if (e->d_name[0] == '.')
        continue;
      names = realloc(names, (n + 1) * sizeof *names);
      names[n] = malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
      sprintf(names[n++], "%s/%s", argv[i], e->d_name);
    }
    if (d)
      closedir(d);
    qsort(names, n, sizeof *names, compare);
    for (size_t k = 0; k < n; k++) {
      failed |= run_file(names[k]);
      count++;
      free(names[k]);
    }
    free(names);
  }
  printf("replay: %d input(s)\n", count);
  return failed;
}
