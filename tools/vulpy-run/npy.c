/* npy.c - the .npy format: a magic string, a version, a header length, a
 * Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (3,)}
 * padded with spaces to 64 bytes, then the raw data in C order.
 */
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fail(char *err, size_t len, const char *path, const char *what) {
  snprintf(err, len, "%s: %s", path, what);
  return false;
}

/* Finds 'key': in the header and returns what follows (spaces skipped). */
static const char *find_key(const char *h, const char *key) {
  char pat[32];
  snprintf(pat, sizeof pat, "'%s'", key);
  const char *p = strstr(h, pat);
  if (!p)
    return NULL;
  p += strlen(pat);
  while (*p == ' ')
    p++;
  if (*p != ':')
    return NULL;
  p++;
  while (*p == ' ')
    p++;
  return p;
}

/* descr := '[<|=]KIND SIZE' */
static bool parse_descr(const char *p, npy_array *a) {
  if (*p != '\'')
    return false;
  p++;
  if (*p == '>')
    return false; /* big-endian: not read */
  if (*p == '<' || *p == '|' || *p == '=')
    p++;
  char kind = *p++;
  if (!strchr("fiubV", kind) || !isdigit((unsigned char)*p))
    return false;
  char *end;
  unsigned long size = strtoul(p, &end, 10);
  if (*end != '\'' || !size || size > (1u << 20))
    return false;
  if (kind != 'V' && size != 1 && size != 2 && size != 4 && size != 8)
    return false;
  a->kind = kind;
  a->itemsize = (uint32_t)size;
  return true;
}

/* shape := '(' (INT ',')* INT? ')' */
static bool parse_shape(const char *p, npy_array *a) {
  if (*p++ != '(')
    return false;
  a->ndim = 0;
  for (;;) {
    while (*p == ' ' || *p == ',')
      p++;
    if (*p == ')')
      return true;
    if (!isdigit((unsigned char)*p) || a->ndim == NPY_MAX_DIMS)
      return false;
    char *end;
    errno = 0;
    a->shape[a->ndim++] = strtoull(p, &end, 10);
    if (errno)
      return false;
    p = end;
  }
}

bool npy_read(const char *path, npy_array *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail(err, errlen, path, strerror(errno));
  unsigned char magic[10];
  char *header = NULL;
  bool ok = false;
  const char *why = "not a .npy file (no \\x93NUMPY magic)";
  if (fread(magic, 1, 8, f) == 8 && memcmp(magic, "\x93NUMPY", 6) == 0) {
    uint32_t hlen = 0;
    unsigned char l[4];
    why = "truncated header";
    if (magic[6] == 1 && fread(l, 1, 2, f) == 2)
      hlen = l[0] | (uint32_t)l[1] << 8;
    else if ((magic[6] == 2 || magic[6] == 3) && fread(l, 1, 4, f) == 4)
      hlen = l[0] | (uint32_t)l[1] << 8 | (uint32_t)l[2] << 16 | (uint32_t)l[3] << 24;
    else if (magic[6] < 1 || magic[6] > 3)
      why = "unknown .npy format version";
    header = hlen && hlen < (1u << 20) ? calloc(1, hlen + 1) : NULL;
    if (header && fread(header, 1, hlen, f) == hlen) {
      const char *d = find_key(header, "descr"), *fo = find_key(header, "fortran_order");
      const char *sh = find_key(header, "shape");
      why = "bad header";
      if (!d || !parse_descr(d, out))
        why = "unsupported dtype (little-endian int, uint, float, bool or void only)";
      else if (!fo || strncmp(fo, "False", 5) != 0)
        why = "Fortran-ordered arrays are not supported (save a C-ordered copy)";
      else if (!sh || !parse_shape(sh, out))
        why = "bad shape in the header";
      else
        ok = true;
    }
  }
  if (ok) {
    uint64_t n = out->itemsize;
    for (uint32_t i = 0; i < out->ndim; i++)
      n *= out->shape[i];
    out->nbytes = n;
    out->data = malloc(n ? n : 1);
    if (!out->data || fread(out->data, 1, n, f) != n) {
      why = out->data ? "the data is shorter than the shape says" : "out of memory";
      ok = false;
    }
  }
  free(header);
  fclose(f);
  if (!ok) {
    npy_free(out);
    return fail(err, errlen, path, why);
  }
  return true;
}

void npy_descr(const npy_array *a, char *out, size_t len) {
  char order = a->itemsize == 1 || a->kind == 'V' ? '|' : '<';
  snprintf(out, len, "%c%c%u", order, a->kind, a->itemsize);
}

bool npy_write(const char *path, const npy_array *a, char *err, size_t errlen) {
  char descr[32], shape[256] = "(", header[512];
  npy_descr(a, descr, sizeof descr);
  for (uint32_t i = 0; i < a->ndim; i++) {
    size_t l = strlen(shape);
    snprintf(shape + l, sizeof shape - l, "%llu,%s", (unsigned long long)a->shape[i],
             i + 1 < a->ndim ? " " : "");
  }
  if (a->ndim > 1)
    shape[strlen(shape) - 1] = 0; /* (3, 4) but (3,) */
  strcat(shape, ")");
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                   descr, shape);
  /* magic(6) + version(2) + length(2) + header, padded so data is 64-aligned */
  size_t total = 10 + (size_t)n + 1;
  size_t pad = (64 - total % 64) % 64;
  memset(header + n, ' ', pad);
  header[n + pad] = '\n';
  uint16_t hlen = (uint16_t)(n + pad + 1);
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail(err, errlen, path, strerror(errno));
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                           (unsigned char)(hlen >> 8)};
  bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, hlen, f) == hlen &&
            fwrite(a->data, 1, a->nbytes, f) == a->nbytes;
  if (fclose(f) != 0)
    ok = false;
  return ok ? true : fail(err, errlen, path, "write failed");
}

void npy_free(npy_array *a) {
  free(a->data);
  a->data = NULL;
}
