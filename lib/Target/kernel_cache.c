/* kernel_cache.c - the kernel cache on disk: one compile's artifacts (SPIR-V,
 * manifest, GLSL, an array compile's kernels) under a key, in
 * $VULPY_CACHE_DIR/kernels (bindings/python/vulpy/_compiler.py picks the
 * folder and the key; this file reads and writes the files).
 *
 * The cache is trusted code: a hit's SPIR-V runs on the GPU with the
 * process's buffers bound. So (docs/errors.md, "The kernel cache"):
 * - the folder and the cache root above it must be real directories owned
 *   by this user that no other user may write (made 0700);
 * - an entry is read only from a regular file of this user, opened without
 *   following symbolic links or blocking (a FIFO named like an entry would
 *   hang a plain open), and only up to VTG_KCACHE_ENTRY_MAX bytes;
 * - an entry holds its own key, the compiler build, its parts' names, kinds
 *   and lengths, the SHA-256 of its payload and an HMAC-SHA256 of all of
 *   them under the folder's secret (32 random bytes, mode 0600): an entry
 *   planted by someone who cannot read the secret, a renamed (swapped) one
 *   or a damaged one does not pass;
 * - a hit's SPIR-V and manifest go through vtg_check_cache_entry
 *   (SPIRV-Tools' validator, the reflection against the manifest);
 * - writes go to a temporary file renamed into place (a reader sees all or
 *   nothing), and the folder is kept under a size cap, least recently used
 *   entries first.
 *
 * An entry is one file, <folder>/<key[0:2]>/<key>.vpk:
 *   VULPYK4\n
 *   {"key":"K","build":"B","parts":[["spirv","b",N],...],"sha256":"H","mac":"M"}\n
 *   the parts' bytes back to back
 * The header is JSON (tools and tests read it with any JSON reader) whose
 * strings are printable ASCII without '"' or '\': the reader refuses any
 * other, so the text the MAC covers - the header up to ',"mac"', rebuilt
 * from the parsed fields - has one spelling.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>
#include <unistd.h>

#include "vulpy/support.h"
#include "vulpy/target.h"

static const char MAGIC[] = "VULPYK4\n"; /* 8 bytes, without the NUL */
/* older VulPys' entries: a plain miss, compiled again and replaced */
static const char *const OLD_MAGICS[] = {"VULPYK2\n", "VULPYK3\n"};
enum { MAX_PARTS = 4096 };

/* --------------------------------------------------------------- files */

/* mkdir -p with mode 0700. */
static void make_dirs(const char *path) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(tmp, 0700);
      *p = '/';
    }
  mkdir(tmp, 0700);
}

/* Why `path` may not hold a cache, into why (empty: it may). */
static void dir_problem(const char *path, char *why, size_t n) {
  struct stat st;
  why[0] = 0;
  if (lstat(path, &st) != 0)
    snprintf(why, n, "%s", strerror(errno));
  else if (S_ISLNK(st.st_mode))
    snprintf(why, n, "is a symbolic link");
  else if (!S_ISDIR(st.st_mode))
    snprintf(why, n, "is not a directory");
  else if (st.st_uid != geteuid())
    snprintf(why, n, "is owned by uid %u, not by this user (%u)", (unsigned)st.st_uid,
             (unsigned)geteuid());
  else if (st.st_mode & (S_IWGRP | S_IWOTH))
    snprintf(why, n, "is writable by other users (mode %03o)", (unsigned)(st.st_mode & 0777));
}

/* The whole regular file `path` of this user (opened without following a
 * link or blocking), at most `limit` bytes, NUL-terminated; NULL with
 * errno (ENOENT: there is none) or with why set. */
static char *read_regular(const char *path, size_t limit, size_t *len, mode_t *mode, char *why,
                          size_t n) {
  why[0] = 0;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT)
      snprintf(why, n, "%s", strerror(errno));
    return NULL;
  }
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) != 0)
    snprintf(why, n, "%s", strerror(errno));
  else if (!S_ISREG(st.st_mode))
    snprintf(why, n, "is not a regular file");
  else if (st.st_uid != geteuid())
    snprintf(why, n, "is owned by uid %u, not by this user", (unsigned)st.st_uid);
  else if ((size_t)st.st_size > limit)
    snprintf(why, n, "is %lld bytes, more than %zu", (long long)st.st_size, limit);
  else if (!(buf = malloc((size_t)st.st_size + 1)))
    snprintf(why, n, "out of memory");
  size_t got = 0;
  while (buf && got < (size_t)st.st_size) {
    ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  close(fd);
  if (buf) {
    buf[got] = 0;
    *len = got;
    *mode = st.st_mode;
  }
  errno = 0;
  return buf;
}

/* Writes `data` to a new temporary file in `dir` and renames it to
 * `path` (link(2) instead when `keep_existing`: a file already there
 * wins). */
static bool write_atomically(const char *dir, const char *path, const void *data, size_t n,
                             bool keep_existing) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s/XXXXXX.tmp", dir);
  int fd = mkstemps(tmp, 4); /* O_EXCL, 0600: never through a planted file */
  if (fd < 0)
    return false;
  bool ok = true;
  for (size_t at = 0; ok && at < n;) {
    ssize_t w = write(fd, (const char *)data + at, n - at);
    if (w < 0 && errno == EINTR)
      continue;
    ok = w > 0;
    at += ok ? (size_t)w : 0;
  }
  ok = close(fd) == 0 && ok;
  if (ok && keep_existing) {
    if (link(tmp, path) != 0 && errno != EEXIST)
      ok = rename(tmp, path) == 0; /* no hard links here: a racing rename may win */
  } else if (ok) {
    ok = rename(tmp, path) == 0;
  }
  unlink(tmp); /* after rename: ENOENT */
  return ok;
}

/* ------------------------------------------------------------- folder */

bool vtg_kcache_open(const char *folder, uint8_t secret[32], char *why, size_t whylen) {
  char problem[256], root[4096];
  make_dirs(folder);
  snprintf(root, sizeof root, "%s", folder);
  char *slash = strrchr(root, '/');
  if (slash && slash != root)
    *slash = 0;
  const char *check[2] = {slash ? root : NULL, folder};
  for (int k = 0; k < 2; k++) {
    if (!check[k])
      continue;
    dir_problem(check[k], problem, sizeof problem);
    if (problem[0]) {
      snprintf(why, whylen,
               "not using %s: it %s; kernels are compiled every time (fix it with "
               "`chmod 700 %s`, or set VULPY_CACHE_DIR)",
               check[k], problem, check[k]);
      return false;
    }
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/secret", folder);
  size_t len = 0;
  mode_t mode = 0;
  char *data = read_regular(path, 64, &len, &mode, problem, sizeof problem);
  if (!data && !problem[0]) { /* none yet: made whole, so no reader sees half of one */
    uint8_t fresh[32];
    if (getentropy(fresh, sizeof fresh) != 0 ||
        !write_atomically(folder, path, fresh, sizeof fresh, true)) {
      snprintf(why, whylen, "not using %s: cannot make %s: %s", folder, path, strerror(errno));
      return false;
    }
    data = read_regular(path, 64, &len, &mode, problem, sizeof problem);
  }
  if (!data)
    snprintf(why, whylen, "not using %s: %s %s", folder, path, problem[0] ? problem : "is gone");
  else if (mode & 077)
    snprintf(why, whylen, "not using %s: %s may be read by other users (mode %03o)", folder,
             path, (unsigned)(mode & 0777));
  else if (len != 32)
    snprintf(why, whylen, "not using %s: %s is %zu bytes, not 32", folder, path, len);
  else
    memcpy(secret, data, 32);
  free(data);
  return data && !(mode & 077) && len == 32;
}

/* -------------------------------------------------------------- header */

/* Whether `s` may be a header string: printable ASCII without '"' or '\'. */
static bool plain_string(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
      return false;
  return true;
}

/* The text the MAC covers: the header up to ',"mac"'. */
static void mac_text(vp_strbuf *b, const char *key, const char *build,
                     const vtg_kcache_part *parts, uint32_t n, const char *sha) {
  vp_strbuf_printf(b, "{\"key\":\"%s\",\"build\":\"%s\",\"parts\":[", key, build);
  for (uint32_t i = 0; i < n; i++)
    vp_strbuf_printf(b, "%s[\"%s\",\"%c\",%zu]", i ? "," : "", parts[i].name, parts[i].kind,
                     parts[i].len);
  vp_strbuf_printf(b, "],\"sha256\":\"%s\"", sha);
}

static void hex(const uint8_t *d, size_t n, char *out) {
  for (size_t i = 0; i < n; i++)
    snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void mac_hex(const uint8_t secret[32], const vp_strbuf *text, char out[65]) {
  uint8_t mac[32];
  vp_hmac_sha256(secret, 32, text->data, text->len, mac);
  hex(mac, 32, out);
}

/* A cursor over the header line (a JSON object of known shape). */
typedef struct hreader {
  char *p, *end;
} hreader;

static void skip_ws(hreader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r'))
    r->p++;
}

static bool take(hreader *r, char c) {
  skip_ws(r);
  if (r->p < r->end && *r->p == c) {
    r->p++;
    return true;
  }
  return false;
}

/* A string, NUL-terminated in place (its closing quote overwritten). */
static char *string(hreader *r) {
  if (!take(r, '"'))
    return NULL;
  char *s = r->p;
  while (r->p < r->end && *r->p != '"')
    r->p++;
  if (r->p >= r->end || !plain_string(s, (size_t)(r->p - s)))
    return NULL;
  *r->p++ = 0;
  return s;
}

static bool number(hreader *r, size_t *v) {
  skip_ws(r);
  if (r->p >= r->end || *r->p < '0' || *r->p > '9')
    return false;
  size_t x = 0;
  for (; r->p < r->end && *r->p >= '0' && *r->p <= '9'; r->p++) {
    if (x > (SIZE_MAX - 9) / 10)
      return false;
    x = x * 10 + (size_t)(*r->p - '0');
  }
  *v = x;
  return true;
}

typedef struct header {
  char *key, *build, *sha, *mac;
  vtg_kcache_part *parts;
  uint32_t nparts;
} header;

/* [["name","b",N], ...] */
static bool parse_parts(hreader *r, header *h) {
  if (!take(r, '['))
    return false;
  if (take(r, ']'))
    return true;
  do {
    if (h->nparts == MAX_PARTS)
      return false;
    if (h->nparts % 16 == 0) {
      void *grown = realloc(h->parts, (h->nparts + 16) * sizeof *h->parts);
      if (!grown)
        return false;
      h->parts = grown;
    }
    vtg_kcache_part *p = &h->parts[h->nparts++];
    char *kind;
    if (!take(r, '[') || !(p->name = string(r)) || !take(r, ',') || !(kind = string(r)) ||
        (strcmp(kind, "b") && strcmp(kind, "s")) || !take(r, ',') || !number(r, &p->len) ||
        !take(r, ']'))
      return false;
    p->kind = kind[0];
  } while (take(r, ','));
  return take(r, ']');
}

/* {"key":...,"build":...,"parts":[...],"sha256":...,"mac":...}, each once */
static bool parse_header(char *text, char *end, header *h) {
  hreader r = {text, end};
  if (!take(&r, '{'))
    return false;
  bool have_parts = false;
  do {
    char *name = string(&r);
    if (!name || !take(&r, ':'))
      return false;
    char **field = !strcmp(name, "key")      ? &h->key
                   : !strcmp(name, "build")  ? &h->build
                   : !strcmp(name, "sha256") ? &h->sha
                   : !strcmp(name, "mac")    ? &h->mac
                                             : NULL;
    if (!strcmp(name, "parts")) {
      if (have_parts || !parse_parts(&r, h))
        return false;
      have_parts = true;
    } else if (!field || *field || !(*field = string(&r))) {
      return false;
    }
  } while (take(&r, ','));
  if (!take(&r, '}'))
    return false;
  skip_ws(&r);
  return r.p == r.end && h->key && h->build && h->sha && h->mac && have_parts;
}

/* ---------------------------------------------------------------- load */

static bool valid_key(const char *key) {
  size_t n = strlen(key);
  if (n < 2 || n > 128)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = key[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          c == '_' || c == '-'))
      return false;
  }
  return true;
}

static void entry_path(const char *folder, const char *key, char *out, size_t n) {
  snprintf(out, n, "%s/%.2s/%s.vpk", folder, key, key);
}

static const vtg_kcache_part *find_part(const vtg_kcache_entry *e, const char *name) {
  for (uint32_t i = 0; i < e->nparts; i++)
    if (!strcmp(e->parts[i].name, name))
      return &e->parts[i];
  return NULL;
}

vtg_kcache_result vtg_kcache_read(char *data, size_t len, const uint8_t secret[32],
                                  const char *key, const char *build, vtg_kcache_entry *e,
                                  char *why, size_t n) {
  *e = (vtg_kcache_entry){0};
  why[0] = 0;
  for (size_t k = 0; k < sizeof OLD_MAGICS / sizeof *OLD_MAGICS; k++)
    if (len >= 8 && !memcmp(data, OLD_MAGICS[k], 8))
      return VTG_KCACHE_MISS;
  char *nl = len > 8 && !memcmp(data, MAGIC, 8) ? memchr(data + 8, '\n', len - 8) : NULL;
  if (!nl) {
    snprintf(why, n, "not a VulPy kernel cache entry");
    return VTG_KCACHE_REFUSED;
  }
  header h = {0};
  vtg_kcache_result res = VTG_KCACHE_REFUSED;
  vp_strbuf text = {0};
  if (!parse_header(data + 8, nl, &h)) {
    snprintf(why, n, "its header does not parse");
    goto done;
  }
  char mac[65];
  mac_text(&text, h.key, h.build, h.parts, h.nparts, h.sha);
  mac_hex(secret, &text, mac);
  /* every byte compared: the time says nothing about where they differ */
  unsigned diff = strlen(h.mac) != 64;
  for (size_t i = 0; i < 64 && !diff; i++)
    diff |= (unsigned)(mac[i] ^ h.mac[i]);
  if (diff || text.oom) {
    snprintf(why, n, "its HMAC does not match (not written by this cache, or damaged)");
    goto done;
  }
  if (strcmp(h.key, key)) {
    snprintf(why, n, "it holds the entry for another key (%.16s...)", h.key);
    goto done;
  }
  if (strcmp(h.build, build)) {
    res = VTG_KCACHE_MISS; /* another build's: compiled again and replaced */
    goto done;
  }
  const uint8_t *body = (const uint8_t *)nl + 1;
  size_t body_len = len - (size_t)(body - (const uint8_t *)data), sum = 0;
  for (uint32_t i = 0; i < h.nparts; i++)
    sum += h.parts[i].len; /* each < ENTRY_MAX: no overflow */
  uint8_t sha[32];
  char sha_hex[65];
  vp_sha256_of(body, body_len, sha);
  hex(sha, 32, sha_hex);
  if (sum != body_len || strcmp(sha_hex, h.sha)) {
    snprintf(why, n, "its payload is damaged (SHA-256 mismatch)");
    goto done;
  }
  for (uint32_t i = 0; i < h.nparts; i++) {
    h.parts[i].data = body;
    body += h.parts[i].len;
  }
  *e = (vtg_kcache_entry){NULL, h.parts, h.nparts};
  const vtg_kcache_part *spirv = find_part(e, "spirv"), *manifest = find_part(e, "manifest");
  if (spirv && manifest &&
      !vtg_check_cache_entry(spirv->data, spirv->len, manifest->data, manifest->len, why, n)) {
    *e = (vtg_kcache_entry){0};
    goto done;
  }
  h.parts = NULL;
  res = VTG_KCACHE_HIT;
done:
  free(h.parts);
  vp_strbuf_free(&text);
  return res;
}

vtg_kcache_result vtg_kcache_load(const char *folder, const uint8_t secret[32], const char *key,
                                  const char *build, vtg_kcache_entry *e, char *why,
                                  size_t whylen) {
  *e = (vtg_kcache_entry){0};
  why[0] = 0;
  if (!valid_key(key))
    return VTG_KCACHE_MISS;
  char path[4096], problem[256];
  entry_path(folder, key, path, sizeof path);
  size_t len = 0;
  mode_t mode;
  char *data = read_regular(path, VTG_KCACHE_ENTRY_MAX, &len, &mode, problem, sizeof problem);
  if (!data) {
    if (!problem[0])
      return VTG_KCACHE_MISS;
    snprintf(why, whylen, "ignoring %s: %s", path, problem);
    return VTG_KCACHE_REFUSED;
  }
  vtg_kcache_result res = vtg_kcache_read(data, len, secret, key, build, e, problem,
                                          sizeof problem);
  if (res == VTG_KCACHE_HIT) {
    e->file = data; /* the parts point into it */
    utimensat(AT_FDCWD, path, NULL, 0); /* recently used: evicted last */
  } else {
    free(data);
  }
  if (res == VTG_KCACHE_REFUSED)
    snprintf(why, whylen, "ignoring %s: %s", path, problem);
  return res;
}

void vtg_kcache_entry_free(vtg_kcache_entry *e) {
  free(e->file);
  free(e->parts);
  *e = (vtg_kcache_entry){0};
}

/* --------------------------------------------------------------- store */

typedef struct cached_file {
  int64_t mtime_ns;
  off_t size;
  char *path;
} cached_file;

static int by_age(const void *a, const void *b) {
  const cached_file *x = a, *y = b;
  return x->mtime_ns < y->mtime_ns ? -1 : x->mtime_ns > y->mtime_ns;
}

/* The folder's entries (<sub>/<key>.vpk, regular files), oldest first
 * when `sorted`; returns their total size. */
static int64_t list_entries(const char *folder, cached_file **out, size_t *count) {
  *out = NULL;
  *count = 0;
  size_t cap = 0;
  int64_t total = 0;
  DIR *top = opendir(folder);
  if (!top)
    return 0;
  struct dirent *d;
  while ((d = readdir(top))) {
    if (d->d_name[0] == '.')
      continue;
    char sub[4096 + sizeof d->d_name];
    snprintf(sub, sizeof sub, "%s/%s", folder, d->d_name);
    struct stat st;
    if (lstat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
      continue;
    DIR *in = opendir(sub);
    struct dirent *f;
    while (in && (f = readdir(in))) {
      size_t n = strlen(f->d_name);
      char path[sizeof sub + sizeof f->d_name + 1];
      snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
      if (n < 4 || strcmp(f->d_name + n - 4, ".vpk") || lstat(path, &st) != 0 ||
          !S_ISREG(st.st_mode))
        continue;
      total += st.st_size;
      if (*count == cap) {
        size_t ncap = cap ? 2 * cap : 64;
        cached_file *grown = realloc(*out, ncap * sizeof **out);
        if (!grown)
          continue;
        *out = grown;
        cap = ncap;
      }
      char *copy = strdup(path);
      if (copy)
        (*out)[(*count)++] = (cached_file){
            (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, st.st_size, copy};
    }
    if (in)
      closedir(in);
  }
  closedir(top);
  return total;
}

/* Least recently used entries go first, down to 3/4 of the cap. */
static void evict(const char *folder, uint64_t cap, int64_t added, int64_t *total) {
  if (*total >= 0)
    *total += added;
  if (*total >= 0 && (uint64_t)*total <= cap)
    return;
  cached_file *files;
  size_t n;
  *total = list_entries(folder, &files, &n);
  if ((uint64_t)*total > cap) {
    qsort(files, n, sizeof *files, by_age);
    for (size_t i = 0; i < n && (uint64_t)*total > cap / 4 * 3; i++)
      if (unlink(files[i].path) == 0)
        *total -= files[i].size;
  }
  for (size_t i = 0; i < n; i++)
    free(files[i].path);
  free(files);
}

bool vtg_kcache_store(const char *folder, const uint8_t secret[32], const char *key,
                      const char *build, const vtg_kcache_part *parts, uint32_t nparts,
                      uint64_t cap, int64_t *total) {
  if (!valid_key(key) || !plain_string(build, strlen(build)) || nparts > MAX_PARTS)
    return false;
  size_t body_len = 0;
  vp_sha256 s;
  vp_sha256_init(&s);
  for (uint32_t i = 0; i < nparts; i++) {
    if (!plain_string(parts[i].name, strlen(parts[i].name)) ||
        (parts[i].kind != 'b' && parts[i].kind != 's') || parts[i].len > VTG_KCACHE_ENTRY_MAX)
      return false;
    body_len += parts[i].len;
    if (parts[i].len)
      vp_sha256_update(&s, parts[i].data, parts[i].len);
  }
  if (body_len > VTG_KCACHE_ENTRY_MAX)
    return false;
  uint8_t sha[32];
  char sha_hex[65], mac[65];
  vp_sha256_final(&s, sha);
  hex(sha, 32, sha_hex);
  vp_strbuf file = {0};
  vp_strbuf_appendn(&file, MAGIC, 8);
  vp_strbuf text = {0};
  mac_text(&text, key, build, parts, nparts, sha_hex);
  mac_hex(secret, &text, mac);
  vp_strbuf_appendn(&file, text.data ? text.data : "", text.len);
  vp_strbuf_printf(&file, ",\"mac\":\"%s\"}\n", mac);
  for (uint32_t i = 0; i < nparts; i++)
    if (parts[i].len)
      vp_strbuf_appendn(&file, parts[i].data, parts[i].len);
  bool ok = !file.oom && !text.oom && file.len <= VTG_KCACHE_ENTRY_MAX;
  vp_strbuf_free(&text);
  char sub[4096], path[4096];
  snprintf(sub, sizeof sub, "%s/%.2s", folder, key);
  entry_path(folder, key, path, sizeof path);
  if (ok) {
    mkdir(sub, 0700);
    ok = write_atomically(sub, path, file.data, file.len, false);
  }
  if (ok)
    evict(folder, cap, (int64_t)file.len, total);
  vp_strbuf_free(&file);
  return ok;
}
