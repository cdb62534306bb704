/* vulpy/support.h - the small pieces every VulPy library shares.
 *
 * An arena (all IR of a module, all data of a parse, hang off one and are
 * freed at once), a growable string buffer (printers write into it), and
 * diagnostics returned as data: libraries never print and never exit; they
 * append `vp_diag`s to a caller-owned list and return failure, and the tool
 * or the Python binding decides how to show them.
 */
#ifndef VULPY_SUPPORT_H
#define VULPY_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define VP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define VP_PRINTF(f, a)
#endif

/* ---------------------------------------------------------------- arena */

typedef struct vp_arena_chunk vp_arena_chunk;

/* A bump allocator. Zero-initialize (`vp_arena a = {0};`) to use. */
typedef struct vp_arena {
  vp_arena_chunk *head;
  size_t total; /* bytes handed out, for statistics */
  unsigned char *cur, *lim; /* the free part of the head chunk */
} vp_arena;

/* The arena's refill: a new chunk (vp_arena_alloc's slow path). */
void *vp_arena_alloc_slow(vp_arena *a, size_t size);
/* Returns zeroed memory aligned to 16 bytes; NULL only when malloc fails.
 * Inline: most allocations are a pointer bump in the current chunk. */
static inline void *vp_arena_alloc(vp_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  /* size - 1 wraps for 0, which then takes the slow path like a full chunk */
  if (size - 1 < (size_t)(a->lim - a->cur)) {
    void *p = a->cur;
    a->cur += size;
    a->total += size;
    return p;
  }
  return vp_arena_alloc_slow(a, size);
}
/* Copies `n` bytes of `s` and appends a NUL. */
char *vp_arena_strndup(vp_arena *a, const char *s, size_t n);
char *vp_arena_strdup(vp_arena *a, const char *s);
char *vp_arena_printf(vp_arena *a, const char *fmt, ...) VP_PRINTF(2, 3);
/* Frees every chunk; the arena may be reused afterwards. */
void vp_arena_free(vp_arena *a);

/* Arena-backed growable pointer array. */
typedef struct vp_ptrvec {
  void **data;
  uint32_t len, cap;
} vp_ptrvec;
bool vp_ptrvec_push(vp_arena *a, vp_ptrvec *v, void *p);

/* Arena-backed hash map from byte strings to pointers (open addressing).
 * Keys are not copied: they must live as long as the map (arena strings,
 * the text being parsed). Zero-initialize to use. */
typedef struct vp_map_slot {
  const char *key; /* NULL: empty */
  uint32_t len, hash;
  void *val;
} vp_map_slot;
typedef struct vp_map {
  vp_map_slot *slots;
  uint32_t cap, len; /* cap is 0 or a power of two */
} vp_map;
/* The value stored under the key, or NULL. */
void *vp_map_get(const vp_map *m, const char *key, size_t len);
/* Inserts or replaces; false only when the arena is out of memory. */
bool vp_map_put(vp_arena *a, vp_map *m, const char *key, size_t len, void *val);
/* Finds or adds the key in one probe: returns its value slot (NULL for a
 * new key) and sets *found; NULL only when the arena is out of memory. */
void **vp_map_insert(vp_arena *a, vp_map *m, const char *key, size_t len, bool *found);
/* Empties the map; its table is reused when that is cheaper than a new one. */
void vp_map_clear(vp_map *m);
/* The hash vp_map uses. */
uint32_t vp_hash_str(const char *s, size_t len);

/* ------------------------------------------------------------ strbuf */

/* A heap string that grows; `data` is always NUL-terminated once used. */
typedef struct vp_strbuf {
  char *data;
  size_t len, cap;
  bool oom; /* set when an allocation failed; further appends are dropped */
} vp_strbuf;

/* Room for `extra` more bytes and the NUL (growing by doubling); false
 * when out of memory (and b->oom is set). */
bool vp_strbuf_reserve(vp_strbuf *b, size_t extra);
void vp_strbuf_append(vp_strbuf *b, const char *s);
void vp_strbuf_appendn(vp_strbuf *b, const char *s, size_t n);
void vp_strbuf_printf(vp_strbuf *b, const char *fmt, ...) VP_PRINTF(2, 3);
void vp_strbuf_vprintf(vp_strbuf *b, const char *fmt, va_list ap);
void vp_strbuf_putc(vp_strbuf *b, char c);
void vp_strbuf_indent(vp_strbuf *b, int levels); /* two spaces a level */
/* Hands the string to the caller (free() it); the buffer becomes empty. */
char *vp_strbuf_take(vp_strbuf *b);
void vp_strbuf_free(vp_strbuf *b);

/* --------------------------------------------------------- locations */

/* A place in a source file. `file` is owned by whoever made the location
 * (an IR module's arena, usually); line and col are 1-based, 0 = unknown. */
typedef struct vp_loc {
  const char *file;
  uint32_t line, col;
} vp_loc;

/* ------------------------------------------------------- diagnostics */

typedef enum vp_severity { VP_ERROR, VP_WARNING, VP_NOTE } vp_severity;

typedef struct vp_diag {
  vp_severity severity;
  vp_loc loc;
  char *message; /* heap string owned by the list */
  char *hint;    /* optional one-line hint, or NULL */
} vp_diag;

/* A caller-owned list of diagnostics. Zero-initialize to use. */
typedef struct vp_diags {
  vp_diag *items;
  uint32_t count, cap;
  uint32_t nerrors;
} vp_diags;

void vp_diag_add(vp_diags *d, vp_severity sev, vp_loc loc, const char *fmt, ...)
    VP_PRINTF(4, 5);
void vp_diag_vadd(vp_diags *d, vp_severity sev, vp_loc loc, const char *fmt, va_list ap);
#define vp_error(d, loc, ...) vp_diag_add((d), VP_ERROR, (loc), __VA_ARGS__)
/* Attaches a hint to the most recent diagnostic. */
void vp_diag_hint(vp_diags *d, const char *fmt, ...) VP_PRINTF(2, 3);
void vp_diags_clear(vp_diags *d);
void vp_diags_free(vp_diags *d);
/* Moves every diagnostic of `src` to the end of `dst`. */
void vp_diags_move(vp_diags *dst, vp_diags *src);

/* Formats all diagnostics as `file:line:col: error: message`, followed, when
 * `source` (the text of the file the locations refer to) is given, by the
 * source line and a caret under the column, then `  hint: ...`.
 * The result is a heap string (free() it). */
char *vp_diags_format(const vp_diags *d, const char *source);
void vp_diags_format_into(const vp_diags *d, const char *source, vp_strbuf *out);

/* ------------------------------------------------------------- files */

/* Reads a whole file ("-" = standard input). Returns a heap buffer with a
 * NUL appended and its length in *len, or NULL with errno set. */
char *vp_read_file(const char *path, size_t *len);

/* ---------------------------------------------------------- features */

/* Optional device capabilities a kernel may need (the manifest's
 * `features:` list, the runtime's device description). One table: */
#define VP_FEATURES(X)                                                        \
  X(FLOAT64, "float64")               /* shaderFloat64 */                    \
  X(INT64, "int64")                   /* shaderInt64 */                      \
  X(INT16, "int16")                   /* shaderInt16 */                      \
  X(FLOAT16, "float16")               /* shaderFloat16 */                    \
  X(INT8, "int8")                     /* shaderInt8 */                       \
  X(STORAGE8, "storage8")             /* 8-bit storage buffer access */      \
  X(STORAGE16, "storage16")           /* 16-bit storage buffer access */     \
  X(ATOMIC64, "atomic_int64")         /* 64-bit buffer atomics */            \
  X(ATOMIC_FLOAT, "atomic_float")     /* float atomic add */                 \
  X(SUBGROUP_BASIC, "subgroup_basic")                                        \
  X(SUBGROUP_ARITH, "subgroup_arithmetic")                                   \
  X(SUBGROUP_BALLOT, "subgroup_ballot")                                      \
  X(SUBGROUP_SHUFFLE, "subgroup_shuffle")                                    \
  X(SUBGROUP_SHUFFLE_REL, "subgroup_shuffle_relative")                       \
  X(SUBGROUP_VOTE, "subgroup_vote")                                          \
  X(MEMORY_MODEL, "vulkan_memory_model")                                     \
  X(EXTERNAL_HOST, "external_memory_host")                                   \
  X(BDA, "buffer_device_address")                                           \
  X(COOPMAT, "cooperative_matrix")    /* VK_NV_cooperative_matrix (issue 19) */ \
  X(PUSH8, "push_constant8")          /* 8-bit push-constant members */      \
  X(PUSH16, "push_constant16")        /* 16-bit push-constant members */

typedef enum vp_feature_bit {
#define VP_FEATURE_ENUM(ID, NAME) VP_FEATURE_BIT_##ID,
  VP_FEATURES(VP_FEATURE_ENUM)
#undef VP_FEATURE_ENUM
  VP_FEATURE_COUNT
} vp_feature_bit;

#define VP_FEAT(ID) (1u << VP_FEATURE_BIT_##ID)

/* "float64" etc.; NULL past the end. */
const char *vp_feature_name(unsigned bit);
/* Bit index by name, or -1. */
int vp_feature_lookup(const char *name);

/* 64-bit FNV-1a, used for cache keys and content hashes. */
uint64_t vp_hash64(const void *data, size_t n, uint64_t seed);

/* SHA-256 (sha256.c), for the caches' integrity checks: init, update any
 * number of times, final; vp_sha256_of hashes one buffer. */
typedef struct vp_sha256 {
  uint32_t h[8];
  uint64_t len;
  uint8_t buf[64];
  uint32_t nbuf;
} vp_sha256;
void vp_sha256_init(vp_sha256 *s);
void vp_sha256_update(vp_sha256 *s, const void *data, size_t n);
void vp_sha256_final(vp_sha256 *s, uint8_t out[32]);
void vp_sha256_of(const void *data, size_t n, uint8_t out[32]);
/* HMAC-SHA256 (RFC 2104) of `msg` under `key` (the kernel cache's MACs). */
void vp_hmac_sha256(const void *key, size_t klen, const void *msg, size_t n, uint8_t out[32]);

#ifdef __cplusplus
}
#endif
#endif /* VULPY_SUPPORT_H */
