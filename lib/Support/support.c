/* support.c - arena, string buffer, diagnostics and file reading.
 *
 * The arena hands out memory from chunks of at least 64 KiB; big requests
 * get a chunk of their own. Nothing here prints or exits.
 */
#include "vulpy/support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* ------------------------------------------------------------------ arena */

struct vp_arena_chunk {
  vp_arena_chunk *next;
  size_t used, size;
  size_t mapped; /* bytes mmap'd for this chunk, or 0 when it came from calloc */
  _Alignas(16) unsigned char data[];
};

/* Chunks of 2 MiB and more are mapped on a 2 MiB boundary and marked for
 * transparent huge pages: a big module then takes one page fault per 2 MiB
 * instead of 512 (the kernel zeroes the memory either way). */
enum { HUGE = 2 * 1024 * 1024 };

static vp_arena_chunk *chunk_new(size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(VP_NO_HUGE_PAGES)
  size_t bytes = sizeof(vp_arena_chunk) + size;
  if (bytes >= HUGE) {
    bytes = (bytes + HUGE - 1) / HUGE * HUGE;
    size_t span = bytes + HUGE;
    unsigned char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
      return NULL;
    unsigned char *base = (unsigned char *)(((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    if (base > raw)
      munmap(raw, (size_t)(base - raw));
    if (raw + span > base + bytes)
      munmap(base + bytes, (size_t)(raw + span - (base + bytes)));
    madvise(base, bytes, MADV_HUGEPAGE);
    vp_arena_chunk *c = (vp_arena_chunk *)base; /* fresh mappings are zero */
    c->mapped = bytes;
    c->size = bytes - sizeof(vp_arena_chunk);
    return c;
  }
#endif
  vp_arena_chunk *c = calloc(1, sizeof(vp_arena_chunk) + size);
  if (c)
    c->size = size;
  return c;
}

static void chunk_free(vp_arena_chunk *c) {
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(VP_NO_HUGE_PAGES)
  if (c->mapped) {
    munmap(c, c->mapped);
    return;
  }
#endif
  free(c);
}

enum { VP_ARENA_CHUNK = 64 * 1024, VP_ARENA_MAX_CHUNK = 4 * 1024 * 1024 - 4096 };

/* Chunks come from calloc and are never reused before the arena is freed,
 * so the memory handed out is zero without a memset per allocation (for
 * big chunks calloc gets fresh zero pages from the kernel and skips its
 * own memset too). Chunks grow with the arena, up to 4 MiB, so a module
 * of a million ops is ~50 chunks, not thousands. */
void *vp_arena_alloc_slow(vp_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  vp_arena_chunk *c = a->head;
  if (c)
    c->used = (size_t)(a->cur - c->data); /* the inline path bumps only cur */
  if (!c || c->size - c->used < size) {
    size_t want = a->total / 4;
    if (want < VP_ARENA_CHUNK)
      want = VP_ARENA_CHUNK;
    if (want > VP_ARENA_MAX_CHUNK)
      want = VP_ARENA_MAX_CHUNK;
    if (size > want)
      want = size;
    c = chunk_new(want);
    if (!c)
      return NULL;
    /* A big one-off request goes behind the current chunk so the space left
     * in the current chunk is not wasted. */
    if (a->head && size > VP_ARENA_CHUNK && size >= want) {
      c->next = a->head->next;
      a->head->next = c;
    } else {
      c->next = a->head;
      a->head = c;
    }
  }
  void *p = c->data + c->used;
  c->used += size;
  a->total += size;
  if (c == a->head) {
    a->cur = c->data + c->used;
    a->lim = c->data + c->size;
  }
  return p;
}

char *vp_arena_strndup(vp_arena *a, const char *s, size_t n) {
  char *p = vp_arena_alloc(a, n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = 0;
  }
  return p;
}

char *vp_arena_strdup(vp_arena *a, const char *s) { return vp_arena_strndup(a, s, strlen(s)); }

char *vp_arena_printf(vp_arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = n >= 0 ? vp_arena_alloc(a, (size_t)n + 1) : NULL;
  if (p)
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

void vp_arena_free(vp_arena *a) {
  vp_arena_chunk *c = a->head;
  while (c) {
    vp_arena_chunk *next = c->next;
    chunk_free(c);
    c = next;
  }
  a->head = NULL;
  a->total = 0;
  a->cur = a->lim = NULL;
}

bool vp_ptrvec_push(vp_arena *a, vp_ptrvec *v, void *p) {
  if (v->len == v->cap) {
    uint32_t cap = v->cap ? v->cap * 2 : 4;
    void **data = vp_arena_alloc(a, cap * sizeof(void *));
    if (!data)
      return false;
    if (v->len)
      memcpy(data, v->data, v->len * sizeof(void *));
    v->data = data;
    v->cap = cap;
  }
  v->data[v->len++] = p;
  return true;
}

/* -------------------------------------------------------------------- map */

/* 8 bytes at a time, multiply and fold: names are short, and this is on
 * the parser's path for every named value. */
uint32_t vp_hash_str(const char *s, size_t len) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)len;
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    s += 8;
    len -= 8;
  }
  uint64_t w = 0;
  for (size_t i = 0; i < len; i++)
    w |= (uint64_t)(unsigned char)s[i] << (8 * i);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return (uint32_t)h;
}

/* Linear probing; the table is kept at most half full so probes stay short.
 * There is no deletion, so no tombstones are needed. */
static vp_map_slot *map_find(vp_map_slot *slots, uint32_t cap, const char *key, uint32_t len,
                             uint32_t hash) {
  uint32_t i = hash & (cap - 1);
  for (;;) {
    vp_map_slot *s = &slots[i];
    if (!s->key || (s->hash == hash && s->len == len && memcmp(s->key, key, len) == 0))
      return s;
    i = (i + 1) & (cap - 1);
  }
}

void *vp_map_get(const vp_map *m, const char *key, size_t len) {
  if (!m->cap)
    return NULL;
  vp_map_slot *s = map_find(m->slots, m->cap, key, (uint32_t)len, vp_hash_str(key, len));
  return s->key ? s->val : NULL;
}

/* Grows the table when one more entry would make it more than half full. */
static bool map_reserve(vp_arena *a, vp_map *m) {
  if (2 * (m->len + 1) <= m->cap)
    return true;
  uint32_t cap = m->cap ? m->cap * 2 : 16;
  vp_map_slot *slots = vp_arena_alloc(a, cap * sizeof(vp_map_slot));
  if (!slots)
    return false;
  for (uint32_t i = 0; i < m->cap; i++)
    if (m->slots[i].key)
      *map_find(slots, cap, m->slots[i].key, m->slots[i].len, m->slots[i].hash) = m->slots[i];
  m->slots = slots;
  m->cap = cap;
  return true;
}

void **vp_map_insert(vp_arena *a, vp_map *m, const char *key, size_t len, bool *found) {
  if (!map_reserve(a, m))
    return NULL;
  uint32_t hash = vp_hash_str(key, len);
  vp_map_slot *s = map_find(m->slots, m->cap, key, (uint32_t)len, hash);
  *found = s->key != NULL;
  if (!s->key) {
    s->key = key;
    s->len = (uint32_t)len;
    s->hash = hash;
    s->val = NULL;
    m->len++;
  }
  return &s->val;
}

void vp_map_clear(vp_map *m) {
  /* keep the table for the next use unless it is far bigger than what it
   * held (clearing a huge table for a few entries would cost more) */
  if (m->cap && m->len * 8 >= m->cap)
    memset(m->slots, 0, m->cap * sizeof(vp_map_slot));
  else
    m->slots = NULL, m->cap = 0;
  m->len = 0;
}

bool vp_map_put(vp_arena *a, vp_map *m, const char *key, size_t len, void *val) {
  bool found;
  void **slot = vp_map_insert(a, m, key, len, &found);
  if (slot)
    *slot = val;
  return slot != NULL;
}

/* ----------------------------------------------------------------- strbuf */

bool vp_strbuf_reserve(vp_strbuf *b, size_t extra) {
  if (b->oom)
    return false;
  if (b->len + extra + 1 <= b->cap)
    return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->oom = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void vp_strbuf_appendn(vp_strbuf *b, const char *s, size_t n) {
  if (!vp_strbuf_reserve(b, n))
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void vp_strbuf_append(vp_strbuf *b, const char *s) { vp_strbuf_appendn(b, s, strlen(s)); }

void vp_strbuf_putc(vp_strbuf *b, char c) {
  if (!vp_strbuf_reserve(b, 1))
    return;
  b->data[b->len++] = c;
  b->data[b->len] = 0;
}

void vp_strbuf_vprintf(vp_strbuf *b, const char *fmt, va_list ap) {
  char small[256];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof small) {
    vp_strbuf_appendn(b, small, (size_t)n);
  } else if (vp_strbuf_reserve(b, (size_t)n)) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    b->len += (size_t)n;
  }
  va_end(ap2);
}

void vp_strbuf_printf(vp_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vp_strbuf_vprintf(b, fmt, ap);
  va_end(ap);
}

void vp_strbuf_indent(vp_strbuf *b, int levels) {
  for (int i = 0; i < levels; i++)
    vp_strbuf_appendn(b, "  ", 2);
}

char *vp_strbuf_take(vp_strbuf *b) {
  char *p = b->data;
  if (!p && !b->oom)
    p = calloc(1, 1);
  if (b->oom) {
    free(p);
    p = NULL;
  }
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = false;
  return p;
}

void vp_strbuf_free(vp_strbuf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = false;
}

/* ------------------------------------------------------------ diagnostics */

static char *vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (p)
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

void vp_diag_vadd(vp_diags *d, vp_severity sev, vp_loc loc, const char *fmt, va_list ap) {
  if (d->count == d->cap) {
    uint32_t cap = d->cap ? d->cap * 2 : 8;
    vp_diag *items = realloc(d->items, cap * sizeof(vp_diag));
    if (!items)
      return;
    d->items = items;
    d->cap = cap;
  }
  char *msg = vformat(fmt, ap);
  if (!msg)
    return;
  /* The location's file string may live in an arena that dies before the
   * diagnostics are shown; keep a copy with the message. */
  vp_diag *g = &d->items[d->count++];
  g->severity = sev;
  g->loc = loc;
  g->message = msg;
  g->hint = NULL;
  if (loc.file) {
    size_t n = strlen(loc.file);
    char *copy = realloc(msg, strlen(msg) + 1 + n + 1);
    if (copy) {
      g->message = copy;
      char *f = copy + strlen(copy) + 1;
      memcpy(f, loc.file, n + 1);
      g->loc.file = f;
    }
  }
  if (sev == VP_ERROR)
    d->nerrors++;
}

void vp_diag_add(vp_diags *d, vp_severity sev, vp_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(d, sev, loc, fmt, ap);
  va_end(ap);
}

void vp_diag_hint(vp_diags *d, const char *fmt, ...) {
  if (!d->count)
    return;
  va_list ap;
  va_start(ap, fmt);
  vp_diag *g = &d->items[d->count - 1];
  free(g->hint);
  g->hint = vformat(fmt, ap);
  va_end(ap);
}

void vp_diags_clear(vp_diags *d) {
  for (uint32_t i = 0; i < d->count; i++) {
    free(d->items[i].message);
    free(d->items[i].hint);
  }
  d->count = 0;
  d->nerrors = 0;
}

void vp_diags_free(vp_diags *d) {
  vp_diags_clear(d);
  free(d->items);
  d->items = NULL;
  d->cap = 0;
}

void vp_diags_move(vp_diags *dst, vp_diags *src) {
  for (uint32_t i = 0; i < src->count; i++) {
    vp_diag *g = &src->items[i];
    vp_diag_add(dst, g->severity, g->loc, "%s", g->message);
    if (g->hint)
      vp_diag_hint(dst, "%s", g->hint);
  }
  vp_diags_clear(src);
}

/* Finds line `line` (1-based) of `source`; returns its start and length. */
static const char *source_line(const char *source, uint32_t line, size_t *len) {
  const char *p = source;
  for (uint32_t l = 1; l < line; l++) {
    p = strchr(p, '\n');
    if (!p)
      return NULL;
    p++;
  }
  const char *e = strchr(p, '\n');
  *len = e ? (size_t)(e - p) : strlen(p);
  return p;
}

void vp_diags_format_into(const vp_diags *d, const char *source, vp_strbuf *out) {
  static const char *const sev_name[] = {"error", "warning", "note"};
  for (uint32_t i = 0; i < d->count; i++) {
    const vp_diag *g = &d->items[i];
    if (g->loc.file && g->loc.line)
      vp_strbuf_printf(out, "%s:%u:%u: ", g->loc.file, g->loc.line, g->loc.col);
    else if (g->loc.file)
      vp_strbuf_printf(out, "%s: ", g->loc.file);
    vp_strbuf_printf(out, "%s: %s\n", sev_name[g->severity], g->message);
    size_t len;
    const char *ln = source && g->loc.line ? source_line(source, g->loc.line, &len) : NULL;
    if (ln) {
      vp_strbuf_appendn(out, ln, len);
      vp_strbuf_putc(out, '\n');
      for (uint32_t c = 1; c < g->loc.col && c <= len; c++)
        vp_strbuf_putc(out, ln[c - 1] == '\t' ? '\t' : ' ');
      vp_strbuf_append(out, "^\n");
    }
    if (g->hint)
      vp_strbuf_printf(out, "  hint: %s\n", g->hint);
  }
}

char *vp_diags_format(const vp_diags *d, const char *source) {
  vp_strbuf b = {0};
  vp_diags_format_into(d, source, &b);
  return vp_strbuf_take(&b);
}

/* ------------------------------------------------------------------ files */

char *vp_read_file(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0)
      break;
    if (cap - n - 1 == 0) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  int err = ferror(f) ? EIO : 0;
  if (f != stdin)
    fclose(f);
  if (!buf) {
    errno = ENOMEM;
    return NULL;
  }
  if (err) {
    free(buf);
    errno = err;
    return NULL;
  }
  buf[n] = 0;
  if (len)
    *len = n;
  return buf;
}

uint64_t vp_hash64(const void *data, size_t n, uint64_t seed) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ull ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* --------------------------------------------------------------- features */

static const char *const feature_names[] = {
#define VP_FEATURE_NAME(ID, NAME) NAME,
    VP_FEATURES(VP_FEATURE_NAME)
#undef VP_FEATURE_NAME
};

const char *vp_feature_name(unsigned bit) { return bit < VP_FEATURE_COUNT ? feature_names[bit] : NULL; }

int vp_feature_lookup(const char *name) {
  for (unsigned i = 0; i < VP_FEATURE_COUNT; i++)
    if (strcmp(feature_names[i], name) == 0)
      return (int)i;
  return -1;
}
