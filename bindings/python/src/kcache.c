/* kcache.c - the kernel cache on disk, for vulpy/_compiler.py:
 *
 *   kcache_open(folder) -> secret     the folder made 0700, its secret
 *   kcache_load(folder, secret, key, build) -> {name: bytes | str} or None
 *   kcache_store(folder, secret, key, build, artifacts, cap, total) -> total
 *
 * over lib/Target/kernel_cache.c, which does every check of an entry
 * (docs/errors.md, "The kernel cache"). Python picks the folder, the key
 * and the build, and turns a refusal (ValueError, naming the folder or the
 * file) into a CacheWarning. The file work runs without the GIL.
 */
#include "ext.h"

#include <string.h>

#include "vulpy/target.h"

static PyObject *kcache_open(PyObject *self, PyObject *args) {
  const char *folder;
  if (!PyArg_ParseTuple(args, "s", &folder))
    return NULL;
  uint8_t secret[32];
  char why[1200];
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vtg_kcache_open(folder, secret, why, sizeof why);
  Py_END_ALLOW_THREADS
  if (!ok)
    return PyErr_Format(PyExc_ValueError, "%s", why);
  return PyBytes_FromStringAndSize((const char *)secret, 32);
}

static bool secret_ok(Py_ssize_t n) {
  if (n == 32)
    return true;
  PyErr_SetString(PyExc_ValueError, "secret: 32 bytes expected (kcache_open's)");
  return false;
}

static PyObject *kcache_load(PyObject *self, PyObject *args) {
  const char *folder, *secret, *key, *build;
  Py_ssize_t nsecret;
  if (!PyArg_ParseTuple(args, "sy#ss", &folder, &secret, &nsecret, &key, &build) ||
      !secret_ok(nsecret))
    return NULL;
  vtg_kcache_entry e;
  vtg_kcache_result res;
  char why[1200];
  Py_BEGIN_ALLOW_THREADS
  res = vtg_kcache_load(folder, (const uint8_t *)secret, key, build, &e, why, sizeof why);
  Py_END_ALLOW_THREADS
  if (res == VTG_KCACHE_MISS)
    Py_RETURN_NONE;
  if (res == VTG_KCACHE_REFUSED)
    return PyErr_Format(PyExc_ValueError, "%s", why);
  PyObject *out = PyDict_New();
  for (uint32_t i = 0; out && i < e.nparts; i++) {
    const vtg_kcache_part *p = &e.parts[i];
    PyObject *v = p->kind == 'b' ? PyBytes_FromStringAndSize(p->data, (Py_ssize_t)p->len)
                                 : PyUnicode_DecodeUTF8(p->data, (Py_ssize_t)p->len, "strict");
    if (!v && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError, "ignoring %s/%.2s/%s.vpk: its part %s is not UTF-8",
                   folder, key, key, p->name);
    }
    if (!v || PyDict_SetItemString(out, p->name, v) < 0)
      Py_CLEAR(out);
    Py_XDECREF(v);
  }
  vtg_kcache_entry_free(&e);
  return out;
}

/* The artifacts as parts: bytes as they are, str as UTF-8 (errors
 * replaced), anything else left out. `keep` holds what the parts point
 * into while the GIL is released. */
static vtg_kcache_part *parts_of(PyObject *artifacts, PyObject *keep, uint32_t *n) {
  Py_ssize_t pos = 0, count = PyDict_Size(artifacts);
  vtg_kcache_part *parts = PyMem_Calloc(count ? (size_t)count : 1, sizeof *parts);
  if (!parts)
    return (vtg_kcache_part *)PyErr_NoMemory();
  PyObject *name, *v;
  *n = 0;
  while (PyDict_Next(artifacts, &pos, &name, &v)) {
    PyObject *b = PyBytes_Check(v)     ? Py_NewRef(v)
                  : PyUnicode_Check(v) ? PyUnicode_AsEncodedString(v, "utf-8", "replace")
                                       : NULL;
    if (!b && PyErr_Occurred())
      goto fail;
    if (!b)
      continue;
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    int kept = s ? PyList_Append(keep, b) : -1;
    if (kept == 0)
      kept = PyList_Append(keep, name);
    Py_DECREF(b);
    if (kept < 0) {
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "artifacts: names must be str");
      goto fail;
    }
    char *data;
    Py_ssize_t len;
    PyBytes_AsStringAndSize(b, &data, &len);
    parts[(*n)++] = (vtg_kcache_part){s, PyBytes_Check(v) ? 'b' : 's', data, (size_t)len};
  }
  return parts;
fail:
  PyMem_Free(parts);
  return NULL;
}

static PyObject *kcache_store(PyObject *self, PyObject *args) {
  const char *folder, *secret, *key, *build;
  Py_ssize_t nsecret;
  PyObject *artifacts;
  unsigned long long cap;
  long long total;
  if (!PyArg_ParseTuple(args, "sy#ssO!KL", &folder, &secret, &nsecret, &key, &build,
                        &PyDict_Type, &artifacts, &cap, &total) ||
      !secret_ok(nsecret))
    return NULL;
  PyObject *keep = PyList_New(0);
  uint32_t n = 0;
  vtg_kcache_part *parts = keep ? parts_of(artifacts, keep, &n) : NULL;
  if (!parts) {
    Py_XDECREF(keep);
    return NULL;
  }
  int64_t t = total;
  Py_BEGIN_ALLOW_THREADS
  vtg_kcache_store(folder, (const uint8_t *)secret, key, build, parts, n, cap, &t);
  Py_END_ALLOW_THREADS
  PyMem_Free(parts);
  Py_DECREF(keep);
  return PyLong_FromLongLong(t);
}

PyMethodDef vpy_kcache_methods[] = {
    {"kcache_open", kcache_open, METH_VARARGS,
     "kcache_open(folder) -> the folder's secret (bytes); ValueError saying why it may not "
     "be used"},
    {"kcache_load", kcache_load, METH_VARARGS,
     "kcache_load(folder, secret, key, build) -> {name: bytes or str}, None (a miss), or "
     "ValueError naming the refused file and why"},
    {"kcache_store", kcache_store, METH_VARARGS,
     "kcache_store(folder, secret, key, build, artifacts, cap, total) -> the folder's size "
     "(total: the last one known, or -1)"},
    {NULL, NULL, 0, NULL},
};
