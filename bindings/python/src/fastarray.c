/* fastarray.c - resident arrays made in C: the allocation fast path.
 *
 * `vp.empty(n)` and every ufunc result without out= make a vp.ndarray: a
 * Buffer from the runtime's caching allocator (pool.c) and a Python object
 * whose ten slots say shape, dtype, context. In Python that is a Buffer()
 * call with keyword parsing and an `ndarray.__init__` frame - a few
 * microseconds a call, more than CuPy's whole `cupy.empty`. Here the Buffer
 * is made with vrt_buffer_create_ex and the ndarray is allocated with its
 * type's tp_alloc and its slots set through their member descriptors'
 * setters (found once per type), with no Python frame.
 *
 * The layout this file knows is checked, not assumed: the first use reads
 * the type's `__slots__` and takes the fast path only when it is exactly
 * the set below (another engineer adding a slot turns the fast path off -
 * every call then takes the Python path, which stays the reference - rather
 * than leaving a slot unset). What each slot holds for a new array is what
 * `ndarray.__init__(buf, shape, dtype, ctx)` sets: offset 0, no strides,
 * whole, no mirror.
 *
 *   empty_array(plan, shape, context) -> ndarray | NotImplemented
 *       plan = (array_type, native context, dtype, storage dtype,
 *               kind: int, zero: bool), kept in the context's _ufast (so
 *       the Context itself is an argument: no reference cycle through the
 *       plan); shape an int or a tuple of ints
 *       (exact ints; anything else - floats, NumPy integers, a list -
 *       NotImplemented so vp.empty's Python path checks it and raises).
 *       zero=False is `_array._result`: every element is written by the
 *       caller's next operation, so only the padding is zeroed.
 * launch.c makes ufunc results with vpy_array_new.
 */
#include "ext.h"

#include <string.h>

/* The slots of vp.ndarray this file sets, in this order (ext.h's
 * vpy_array_slot). */
enum { NSLOTS = VPY_A_NSLOTS };
static const char *const slot_names[NSLOTS] = {"_buf",      "_ctx",   "shape",   "dtype",
                                               "_sdtype",   "_size",  "_offset", "_estrides",
                                               "_whole",    "_mirror"};

typedef int (*descr_set_fn)(PyObject *, PyObject *, PyObject *);
typedef PyObject *(*descr_get_fn)(PyObject *, PyObject *, PyObject *);

/* One type's layout (the GIL guards it). `type` is borrowed as a key only:
 * a type that dies and another at the same address is checked again
 * because `ok_for` holds a strong reference. */
static struct {
  PyObject *ok_for;  /* the type whose layout was checked (a strong ref) */
  bool ok;
  allocfunc alloc;
  PyObject *descr[NSLOTS];
  descr_set_fn set[NSLOTS];
  descr_get_fn get[NSLOTS];
  Py_ssize_t off[NSLOTS]; /* each slot's byte offset in the object, found by
                           * slot_offsets (0: unknown, read through `get`) */
  PyObject *zero;
} L;

static void layout_clear(void) {
  for (int i = 0; i < NSLOTS; i++) {
    Py_CLEAR(L.descr[i]);
    L.off[i] = 0;
  }
  Py_CLEAR(L.ok_for);
  L.ok = false;
}

/* Finds where each slot lives in an instance of `type`, so that the
 * launchers' per-call reads (vpy_array_get, a dozen a call) are one load
 * instead of a member descriptor's get (~50 instructions each; the stable
 * ABI has no way to ask a member descriptor its offset). Found, not
 * assumed: a fresh instance (zeroed by tp_alloc) gets a distinct object in
 * each slot through the slot's own setter, and the one pointer-sized word
 * of the instance that then holds that object is the slot. Any doubt - no
 * word, two words, a setter failing - leaves every offset 0 and the reads
 * go through the descriptors as before. */
static void slot_offsets(PyObject *type) {
  PyObject *bs = PyObject_GetAttrString(type, "__basicsize__");
  Py_ssize_t basic = bs ? PyLong_AsSsize_t(bs) : -1;
  Py_XDECREF(bs);
  PyErr_Clear();
  if (basic <= (Py_ssize_t)sizeof(PyObject) || basic % (Py_ssize_t)sizeof(PyObject *))
    return;
  PyObject *probe = L.alloc((PyTypeObject *)type, 0);
  if (!probe) {
    PyErr_Clear();
    return;
  }
  Py_ssize_t off[NSLOTS] = {0};
  bool good = true;
  /* the sentinels: the member descriptors themselves, distinct objects */
  for (int k = 0; good && k < NSLOTS; k++)
    good = L.set[k](L.descr[k], probe, L.descr[k]) == 0;
  for (int k = 0; good && k < NSLOTS; k++) {
    for (Py_ssize_t o = sizeof(PyObject); o < basic; o += sizeof(PyObject *)) {
      PyObject *word;
      memcpy(&word, (char *)probe + o, sizeof word);
      if (word == L.descr[k]) {
        good = off[k] == 0;
        off[k] = o;
      }
    }
    good = good && off[k] != 0;
  }
  /* the slots emptied again before the probe goes (a failed set left its
   * slot as it was: NULL, which deleting leaves alone) */
  for (int k = 0; k < NSLOTS; k++)
    if (L.set[k](L.descr[k], probe, NULL) < 0)
      PyErr_Clear();
  Py_DECREF(probe);
  PyErr_Clear();
  for (int k = 0; good && k < NSLOTS; k++)
    L.off[k] = off[k];
}

/* Whether `type` has exactly the slots above (plus __weakref__); finds
 * their setters. False (no exception) when it does not. */
static bool layout_check(PyObject *type) {
  if (L.ok_for == type)
    return L.ok;
  layout_clear();
  L.ok_for = Py_NewRef(type);
  if (!L.zero && !(L.zero = PyLong_FromLong(0)))
    goto fail;
  PyObject *slots = PyObject_GetAttrString(type, "__slots__");
  PyObject *seq = slots ? PySequence_Tuple(slots) : NULL;
  Py_XDECREF(slots);
  if (!seq)
    goto fail;
  Py_ssize_t n = PyTuple_Size(seq), seen = 0;
  bool good = true;
  for (Py_ssize_t i = 0; good && i < n; i++) {
    PyObject *name = PyTuple_GetItem(seq, i);
    const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    if (!s) {
      good = false;
      break;
    }
    if (strcmp(s, "__weakref__") == 0)
      continue;
    int k = -1;
    for (int j = 0; j < NSLOTS; j++)
      if (strcmp(s, slot_names[j]) == 0)
        k = j;
    if (k < 0 || L.descr[k]) {
      good = false;
      break;
    }
    seen++;
    L.descr[k] = PyObject_GetAttr(type, name); /* the member descriptor */
    L.set[k] = L.descr[k] ? (descr_set_fn)PyType_GetSlot(Py_TYPE(L.descr[k]), Py_tp_descr_set)
                          : NULL;
    L.get[k] = L.descr[k] ? (descr_get_fn)PyType_GetSlot(Py_TYPE(L.descr[k]), Py_tp_descr_get)
                          : NULL;
    good = L.set[k] != NULL && L.get[k] != NULL;
  }
  Py_DECREF(seq);
  L.alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)type, Py_tp_alloc);
  L.ok = good && seen == NSLOTS && L.alloc;
  PyErr_Clear();
  if (L.ok)
    slot_offsets(type);
  return L.ok;
fail:
  PyErr_Clear();
  L.ok = false;
  return false;
}

/* Declared in ext.h. */
bool vpy_array_fast(PyObject *array_type) {
  return PyType_Check(array_type) && layout_check(array_type);
}

/* Declared in ext.h. The slot read in place (slot_offsets), else through
 * the member descriptor's get, which skips the attribute lookup through
 * the type (the launchers read four slots of every operand on each call). */
PyObject *vpy_array_get(PyObject *obj, enum vpy_array_slot slot, PyObject *name) {
  PyObject *type = (PyObject *)Py_TYPE(obj);
  if (L.ok_for == type && L.ok) {
    if (L.off[slot]) {
      PyObject *v;
      memcpy(&v, (char *)obj + L.off[slot], sizeof v);
      if (v)
        return Py_NewRef(v);
    }
    return L.get[slot](L.descr[slot], obj, type); /* unset: its AttributeError */
  }
  return PyObject_GetAttr(obj, name);
}

/* Declared in ext.h. */
PyObject *vpy_array_new(PyObject *array_type, PyObject *buf, PyObject *shape, PyObject *dtype,
                        PyObject *sdtype, PyObject *ctx, Py_ssize_t size) {
  if (!layout_check(array_type)) {
    PyErr_SetString(PyExc_TypeError, "vpy_array_new: the ndarray layout changed");
    return NULL;
  }
  PyObject *self = L.alloc((PyTypeObject *)array_type, 0);
  if (!self)
    return NULL;
  PyObject *vsize = PyLong_FromSsize_t(size);
  if (!vsize) {
    Py_DECREF(self);
    return NULL;
  }
  PyObject *v[NSLOTS] = {buf, ctx, shape, dtype, sdtype, vsize, L.zero, Py_None, Py_True,
                         Py_None};
  for (int i = 0; i < NSLOTS; i++)
    if (L.set[i](L.descr[i], self, v[i]) < 0) {
      Py_DECREF(vsize);
      Py_DECREF(self);
      return NULL;
    }
  Py_DECREF(vsize);
  return self;
}

/* The element count of `shape` (an int or a tuple of exact non-negative
 * ints) times `itemsize` in bytes, with overflow checked; false (no
 * exception) for anything else: the Python path checks and raises. */
static bool shape_bytes(PyObject *shape, uint64_t itemsize, PyObject **tuple, uint64_t *count,
                        uint64_t *bytes) {
  uint64_t n = 1;
  if (PyLong_CheckExact(shape)) {
    long long s = PyLong_AsLongLong(shape);
    if (s < 0) {
      PyErr_Clear();
      return false;
    }
    n = (uint64_t)s;
    *tuple = PyTuple_Pack(1, shape);
    if (!*tuple) {
      PyErr_Clear();
      return false;
    }
  } else if (PyTuple_CheckExact(shape)) {
    Py_ssize_t nd = PyTuple_Size(shape);
    for (Py_ssize_t i = 0; i < nd; i++) {
      PyObject *d = PyTuple_GetItem(shape, i);
      long long s = d && PyLong_CheckExact(d) ? PyLong_AsLongLong(d) : -1;
      if (s < 0 || (s && n > UINT64_MAX / (uint64_t)s)) {
        PyErr_Clear();
        return false;
      }
      n *= (uint64_t)s;
    }
    *tuple = Py_NewRef(shape);
  } else {
    return false;
  }
  /* NumPy's limit (and _array._count's): the byte count fits an int64 */
  if (itemsize && n > (uint64_t)INT64_MAX / itemsize) {
    Py_CLEAR(*tuple);
    return false;
  }
  *count = n;
  *bytes = n * itemsize;
  return true;
}

/* empty_array(plan, shape, context) -> ndarray | NotImplemented (see the
 * header). */
static PyObject *empty_array(PyObject *mod, PyObject *const *a, Py_ssize_t nargs) {
  if (nargs != 3 || !PyTuple_CheckExact(a[0]) || PyTuple_Size(a[0]) != 6) {
    PyErr_SetString(PyExc_TypeError, "empty_array(plan: 6-tuple, shape, context)");
    return NULL;
  }
  vpy_state *st = vpy_module_state(mod);
  PyObject *type = PyTuple_GetItem(a[0], 0), *pyctx = a[2], *native = PyTuple_GetItem(a[0], 1),
           *dtype = PyTuple_GetItem(a[0], 2), *sdtype = PyTuple_GetItem(a[0], 3),
           *kindo = PyTuple_GetItem(a[0], 4), *zero = PyTuple_GetItem(a[0], 5);
  if (!vpy_array_fast(type) || !PyObject_TypeCheck(native, st->Context))
    Py_RETURN_NOTIMPLEMENTED;
  long kind = PyLong_AsLong(kindo);
  if (kind < 0 || kind >= VRT_MEMORY_KIND_COUNT) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject *isz = PyObject_GetAttrString(sdtype, "itemsize");
  long long itemsize = isz ? PyLong_AsLongLong(isz) : -1;
  Py_XDECREF(isz);
  if (itemsize <= 0) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject *shape = NULL;
  uint64_t count, bytes;
  if (!shape_bytes(a[1], (uint64_t)itemsize, &shape, &count, &bytes))
    Py_RETURN_NOTIMPLEMENTED;
  /* padded to 16 bytes (kernels read whole vec4s; _array._padded) */
  uint64_t padded = bytes < 16 ? 16 : (bytes + 15) & ~(uint64_t)15;
  vrt_context *ctx = ((vpy_context *)native)->ctx;
  vp_diags d = {0};
  vrt_buffer *b;
  Py_BEGIN_ALLOW_THREADS
  b = vrt_buffer_create_ex(ctx, padded, (vrt_memory_kind)kind, zero == Py_True ? 0 : bytes,
                           &d);
  Py_END_ALLOW_THREADS
  if (!b) {
    Py_DECREF(shape);
    return vpy_raise(st, &d, NULL, ctx, NULL);
  }
  vp_diags_free(&d);
  PyObject *buf = vpy_buffer_wrap(st, native, b, NULL, false);
  PyObject *res = buf ? vpy_array_new(type, buf, shape, dtype, sdtype, pyctx,
                                      (Py_ssize_t)count)
                      : NULL;
  Py_XDECREF(buf);
  Py_DECREF(shape);
  return res;
}

PyMethodDef vpy_fastarray_methods[] = {
    {"empty_array", (PyCFunction)(void (*)(void))empty_array, METH_FASTCALL,
     "empty_array(plan, shape, context) -> a new resident array, or NotImplemented "
     "(fastarray.c)"},
    {NULL, NULL, 0, NULL},
};
