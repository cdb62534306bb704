/* npy.h - reading and writing NumPy .npy files (format versions 1-3).
 *
 * Only what vulpy-run needs: little-endian (or byte) scalar dtypes and void
 * records, C order, any shape. The header dictionary is parsed by hand.
 */
#ifndef VULPY_RUN_NPY_H
#define VULPY_RUN_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 8

typedef struct npy_array {
  char kind;       /* 'f', 'i', 'u', 'b' (bool), 'V' (raw records) */
  uint32_t itemsize;
  uint32_t ndim;
  uint64_t shape[NPY_MAX_DIMS];
  uint64_t nbytes;
  void *data; /* malloc'ed */
} npy_array;

/* Reads `path`; false with a message in err (one line) on failure. */
bool npy_read(const char *path, npy_array *out, char *err, size_t errlen);
/* Writes `a` to `path` (format 1.0). */
bool npy_write(const char *path, const npy_array *a, char *err, size_t errlen);
/* The dtype string, "<f4", "|u1", "|V16", ... */
void npy_descr(const npy_array *a, char *out, size_t len);
void npy_free(npy_array *a);

#endif /* VULPY_RUN_NPY_H */
