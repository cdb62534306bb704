/* launch.c - Launcher: the common call of a kernel, done whole in C.
 *
 * `k(x, y, dispatch=N, a=2.0)` on resident arrays is the hot path of every
 * kernel loop. In Python it checks the argument count, each array's context
 * and dtype, the grid, packs the push block with struct and builds a list of
 * buffers before the dispatch: several microseconds, more than the GPU
 * round trip on some devices. A Launcher is made once per (kernel, context)
 * by the Python layer after a call that went the slow way, and from then on
 *     launcher.call(buffers_tuple, kwargs_dict) -> None | Handle | NotImplemented
 * does the same work with pointer compares and no allocation:
 *   - each buffer is a vp.ndarray (type identity) whose `_sdtype` IS the
 *     dtype the binding wants (for a vector buffer: its component dtype,
 *     and whole elements), that is all of its Buffer (`_whole`: views
 *     bind a copy of their elements, made by the Python path) and whose
 *     Buffer belongs to the kernel's context, or a raw Buffer of that
 *     context (at least one ndarray), no Buffer twice (aliasing is the
 *     Python path's to check);
 *   - keywords are dispatch= / groups= (an int or a tuple of 1 to 3 ints,
 *     none zero), sync= (True or False), context= (None or the kernel's),
 *     and every push constant, each a value its struct code holds;
 *   - the push block is filled at the manifest's offsets (the dispatch
 *     guard stays zero: the runtime fills it).
 * Anything else - a NumPy argument, a wrong dtype, a missing constant, an
 * out-of-range value, an odd keyword - returns NotImplemented before any
 * side effect, and the Python path runs, raising its error that names the
 * argument. So errors stay exactly what they were, and only the common call
 * is duplicated here. The dispatch itself is vpy_run_dispatch below, the
 * one Kernel.dispatch runs too: flush, vrt_dispatch (the runtime's launch
 * cache resubmits the recorded command buffer) and its spin-block wait with
 * the GIL released, invalidate.
 *
 * A ufunc's launcher (as_ufunc) serves `vp.sin(x, out=y)` on resident
 * arrays the same way for one signature: operands and out whole resident
 * arrays (`_whole`) of the planned dtypes (identity) and shape, the push
 * block and grid fixed by the plan.
 *
 * `calls` and `fallbacks` count what happened (tests read them);
 * `last_fallback` says why the last fallback fell back.
 */
#include "ext.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <structmember.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PUSH_FIELDS = 64, MAX_PUSH_BYTES = 512 };

typedef struct vpy_push_field {
  PyObject *name; /* interned str */
  char code;      /* struct code: f d b B h H i I q Q */
  uint32_t offset;
} vpy_push_field;

typedef struct vpy_launcher {
  PyObject_HEAD
  PyObject *kernel;      /* vpy_kernel */
  PyObject *array_type;  /* vulpy.ndarray */
  PyObject *handle_type; /* vulpy._launch.Handle: Handle(ticket) for sync=False */
  PyObject *wants;       /* tuple: per buffer the storage dtype, or None (slow path) */
  uint32_t nbuf;
  uint32_t npush, push_size;
  vpy_push_field push[MAX_PUSH_FIELDS];
  /* interned names compared by pointer first */
  PyObject *s_dispatch, *s_groups, *s_sync, *s_context, *s_ctx, *s_sdtype, *s_buf, *s_size;
  unsigned long long calls, fallbacks;
  const char *why; /* the last fallback's reason (a static string) */
  bool dry_run;    /* checks and push block, no dispatch (benchmarks) */
  /* ufunc mode (as_ufunc): a fixed push block and grid, one shape */
  PyObject *ushape; /* tuple, or NULL: not a ufunc launcher */
  uint64_t ubytes;  /* bytes of the result the ufunc writes whole (0: unknown) */
  PyObject *s_shape, *s_dtype, *s_whole;
  unsigned char upush[MAX_PUSH_BYTES];
  uint32_t ugrid[2];
  /* Python scalars among the operands (their wants entry is the type,
   * float/int/bool): per operand the push field's code and offset, code 0
   * for an array operand (fastarray.c: a result made in C for out=None) */
  char ucode[VPY_MAX_BINDINGS];
  uint32_t uoff[VPY_MAX_BINDINGS];
  PyObject *usdtype; /* the result's storage dtype (NULL: no out=None calls) */
  uint64_t rbytes;   /* the result's element bytes (storage dtype) */
  Py_ssize_t rsize;  /* its element count */
  /* shape tuples seen equal to ushape (strong references; a tuple of ints
   * stays equal): an operand's `shape` is the same tuple object call after
   * call, so the check is a pointer compare instead of a tuple compare
   * (~200 instructions an operand) */
  PyObject *ushape_seen[4];
  uint32_t ushape_next;
} vpy_launcher;

enum { USHAPE_SEEN = 4 };

static void ushape_seen_clear(vpy_launcher *self) {
  for (int i = 0; i < USHAPE_SEEN; i++)
    Py_CLEAR(self->ushape_seen[i]);
  self->ushape_next = 0;
}

static PyObject *fall(vpy_launcher *self, const char *why) {
  self->fallbacks++;
  self->why = why;
  Py_RETURN_NOTIMPLEMENTED;
}

/* Launcher(kernel, array_type, handle_type, wants, fields, push_size)
 * fields: a sequence of (name, code, offset). */
static PyObject *launcher_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *kernel, *array_type, *handle_type, *wants, *fields;
  unsigned int push_size;
  if (!PyArg_ParseTuple(args, "OOOOOI", &kernel, &array_type, &handle_type, &wants, &fields,
                        &push_size))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  if (!PyObject_TypeCheck(kernel, st->Kernel) || !PyType_Check(array_type) ||
      !PyTuple_Check(wants)) {
    PyErr_SetString(PyExc_TypeError,
                    "Launcher(kernel, array_type, handle_type, wants: tuple, fields, push_size)");
    return NULL;
  }
  Py_ssize_t nbuf = PyTuple_Size(wants);
  if (nbuf > VPY_MAX_BINDINGS || push_size > MAX_PUSH_BYTES) {
    PyErr_SetString(PyExc_ValueError, "Launcher: too many buffers or push bytes");
    return NULL;
  }
  PyObject *seq = PySequence_Fast(fields, "fields must be a sequence of (name, code, offset)");
  if (!seq)
    return NULL;
  Py_ssize_t nf = PySequence_Size(seq);
  if (nf > MAX_PUSH_FIELDS) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "Launcher: too many push constants");
    return NULL;
  }
  vpy_launcher *self = PyObject_New(vpy_launcher, type);
  if (!self) {
    Py_DECREF(seq);
    return NULL;
  }
  self->kernel = Py_NewRef(kernel);
  self->array_type = Py_NewRef(array_type);
  self->handle_type = Py_NewRef(handle_type);
  self->wants = Py_NewRef(wants);
  self->nbuf = (uint32_t)nbuf;
  self->npush = 0;
  self->push_size = push_size;
  self->calls = self->fallbacks = 0;
  self->why = "";
  self->dry_run = false;
  vpy_array_fast(array_type); /* fastarray.c learns the slots the checks read */
  self->s_dispatch = PyUnicode_InternFromString("dispatch");
  self->s_groups = PyUnicode_InternFromString("groups");
  self->s_sync = PyUnicode_InternFromString("sync");
  self->s_context = PyUnicode_InternFromString("context");
  self->s_ctx = PyUnicode_InternFromString("_ctx");
  self->s_sdtype = PyUnicode_InternFromString("_sdtype");
  self->s_buf = PyUnicode_InternFromString("_buf");
  self->s_size = PyUnicode_InternFromString("_size");
  self->ushape = NULL;
  self->ubytes = 0;
  self->usdtype = NULL;
  self->rbytes = 0;
  self->rsize = 0;
  memset(self->ushape_seen, 0, sizeof self->ushape_seen);
  self->ushape_next = 0;
  memset(self->ucode, 0, sizeof self->ucode);
  self->s_shape = PyUnicode_InternFromString("shape");
  self->s_dtype = PyUnicode_InternFromString("dtype");
  self->s_whole = PyUnicode_InternFromString("_whole");
  bool ok = self->s_dispatch && self->s_groups && self->s_sync && self->s_context &&
            self->s_ctx && self->s_sdtype && self->s_buf && self->s_size && self->s_shape &&
            self->s_dtype && self->s_whole;
  for (Py_ssize_t i = 0; ok && i < nf; i++) {
    PyObject *name;
    const char *code;
    unsigned int offset;
    PyObject *item = PySequence_GetItem(seq, i);
    ok = item && PyArg_ParseTuple(item, "UsI", &name, &code, &offset);
    Py_XDECREF(item);
    if (ok && (strlen(code) != 1 || !strchr("fdbBhHiIqQ", code[0]) ||
               offset + 8 > MAX_PUSH_BYTES)) {
      PyErr_Format(PyExc_ValueError, "Launcher: push field %R: unsupported code or offset",
                   name);
      ok = false;
    }
    if (ok) {
      Py_INCREF(name);
      PyUnicode_InternInPlace(&name);
      self->push[self->npush++] = (vpy_push_field){name, code[0], offset};
    }
  }
  Py_DECREF(seq);
  if (!ok) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

static void launcher_dealloc(PyObject *obj) {
  vpy_launcher *self = (vpy_launcher *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  for (uint32_t i = 0; i < self->npush; i++)
    Py_DECREF(self->push[i].name);
  Py_XDECREF(self->s_dispatch);
  Py_XDECREF(self->s_groups);
  Py_XDECREF(self->s_sync);
  Py_XDECREF(self->s_context);
  Py_XDECREF(self->s_ctx);
  Py_XDECREF(self->s_sdtype);
  Py_XDECREF(self->s_buf);
  Py_XDECREF(self->s_size);
  Py_XDECREF(self->ushape);
  ushape_seen_clear(self);
  Py_XDECREF(self->usdtype);
  Py_XDECREF(self->s_shape);
  Py_XDECREF(self->s_dtype);
  Py_XDECREF(self->s_whole);
  Py_XDECREF(self->wants);
  Py_XDECREF(self->handle_type);
  Py_XDECREF(self->array_type);
  Py_XDECREF(self->kernel);
  PyObject_Free(obj);
  Py_DECREF(type);
}

/* A positive 32-bit int (not a bool); false for anything else. */
static bool grid_int(PyObject *v, uint32_t *out) {
  if (!PyLong_Check(v) || PyBool_Check(v))
    return false;
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (overflow || x <= 0 || x > (long long)UINT32_MAX) {
    PyErr_Clear();
    return false;
  }
  *out = (uint32_t)x;
  return true;
}

/* dispatch=N / groups=(x, y, z): n[3], every entry 1..2**32-1. */
static bool grid_of(PyObject *v, uint32_t n[3]) {
  n[0] = n[1] = n[2] = 1;
  if (PyLong_Check(v))
    return grid_int(v, &n[0]);
  if (!PyTuple_Check(v))
    return false;
  Py_ssize_t len = PyTuple_Size(v);
  if (len < 1 || len > 3)
    return false;
  for (Py_ssize_t i = 0; i < len; i++)
    if (!grid_int(PyTuple_GetItem(v, i), &n[i]))
      return false;
  return true;
}

/* Writes `v` into the push block as struct would pack it with `code`; false
 * (no exception set) where struct would fail or the value does not fit, so
 * the Python path raises its own error. The rules are the manifest
 * library's one packer (vpm_push_store, push_pack.c); this only reads the
 * Python value: a float field takes what PyFloat_AsDouble takes, an
 * integer field what __index__ gives (never a float). */
static bool push_value(char code, PyObject *v, unsigned char *dst) {
  vpm_value pv;
  if (code == 'f' || code == 'd' || code == 'e') {
    double x = PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    pv = (vpm_value){.kind = VPM_VAL_FLOAT, .f = x};
    return vpm_push_store(code, &pv, dst);
  }
  if (PyFloat_Check(v))
    return false; /* struct: "required argument is not an integer" */
  PyObject *iv = PyLong_Check(v) ? Py_NewRef(v) : PyNumber_Index(v);
  if (!iv) {
    PyErr_Clear();
    return false;
  }
  int overflow = 0;
  long long s = PyLong_AsLongLongAndOverflow(iv, &overflow);
  bool ok = true;
  if (overflow > 0) { /* beyond int64: only a u64 may hold it */
    unsigned long long u = PyLong_AsUnsignedLongLong(iv);
    ok = !(u == (unsigned long long)-1 && PyErr_Occurred());
    pv = (vpm_value){.kind = VPM_VAL_UINT, .u = u};
  } else {
    ok = overflow == 0 && !(s == -1 && PyErr_Occurred());
    pv = (vpm_value){.kind = VPM_VAL_INT, .i = s};
  }
  PyErr_Clear();
  Py_DECREF(iv);
  return ok && vpm_push_store(code, &pv, dst);
}

/* push_pack(fields, size, values) -> bytes | None: vp's PushPacker.pack in
 * C. fields: ((name, code, lanes, offset), ...); values: a dict name ->
 * value (a sequence of `lanes` values for a vector field). None, with no
 * exception, when a name is missing or a value does not fit its field: the
 * caller then says which (PushPacker._why). Bytes between and after the
 * fields are zero (padding, the dispatch guard the runtime fills). */
static PyObject *push_pack(PyObject *mod, PyObject *const *a, Py_ssize_t nargs) {
  Py_ssize_t size;
  if (nargs != 3 || !PyTuple_Check(a[0]) || !PyDict_Check(a[2]) ||
      (size = PyLong_AsSsize_t(a[1])) < 0 || size > 4096) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError, "push_pack(fields: tuple, size: int, values: dict)");
    return NULL;
  }
  PyObject *out = PyBytes_FromStringAndSize(NULL, size);
  if (!out)
    return NULL;
  unsigned char *dst = (unsigned char *)PyBytes_AsString(out);
  memset(dst, 0, (size_t)size);
  for (Py_ssize_t i = 0; i < PyTuple_Size(a[0]); i++) {
    PyObject *name;
    const char *code;
    unsigned int lanes, offset;
    if (!PyArg_ParseTuple(PyTuple_GetItem(a[0], i), "UsII", &name, &code, &lanes, &offset)) {
      Py_DECREF(out);
      return NULL;
    }
    uint32_t width = vpm_push_code_size(code[0]);
    if (strlen(code) != 1 || !width || !lanes || offset + (uint64_t)width * lanes > (uint64_t)size) {
      Py_DECREF(out);
      return PyErr_Format(PyExc_ValueError, "push_pack: field %R: bad code, lanes or offset",
                          name);
    }
    PyObject *v = PyDict_GetItemWithError(a[2], name); /* borrowed */
    bool ok = v != NULL;
    if (ok && lanes == 1) {
      ok = push_value(code[0], v, dst + offset);
    } else if (ok) {
      PyObject *seq = PySequence_Check(v) ? PySequence_Tuple(v) : NULL;
      ok = seq && PyTuple_Size(seq) == (Py_ssize_t)lanes;
      for (unsigned int l = 0; ok && l < lanes; l++)
        ok = push_value(code[0], PyTuple_GetItem(seq, l), dst + offset + l * width);
      Py_XDECREF(seq);
    }
    if (!ok) {
      Py_DECREF(out);
      if (PyErr_Occurred())
        PyErr_Clear();
      Py_RETURN_NONE;
    }
  }
  return out;
}

PyMethodDef vpy_push_methods[] = {
    {"push_pack", (PyCFunction)(void (*)(void))push_pack, METH_FASTCALL,
     "push_pack(fields, size, values) -> bytes | None: the push block (push_pack.c's rules)"},
    {NULL, NULL, 0, NULL},
};

/* Which push field `key` names (pointer compare first), or -1. */
static int field_index(vpy_launcher *self, PyObject *key) {
  for (uint32_t i = 0; i < self->npush; i++)
    if (self->push[i].name == key)
      return (int)i;
  /* the call's own keywords, interned like every keyword a call site
   * spells out: no string compare against each field */
  if (key == self->s_dispatch || key == self->s_groups || key == self->s_sync ||
      key == self->s_context)
    return -1;
  if (!PyUnicode_Check(key))
    return -1;
  for (uint32_t i = 0; i < self->npush; i++)
    if (PyUnicode_Compare(self->push[i].name, key) == 0)
      return (int)i;
  PyErr_Clear();
  return -1;
}

static bool is_name(PyObject *key, PyObject *interned) {
  if (key == interned)
    return true;
  int r = PyUnicode_Compare(key, interned);
  if (r == -1 && PyErr_Occurred())
    PyErr_Clear();
  return r == 0;
}

/* Declared in ext.h: the one dispatch sequence of Kernel.dispatch and of
 * the Launcher's kernel and ufunc calls. */
PyObject *vpy_run_dispatch(vpy_state *st, vpy_kernel *kern, vpy_dispatch_args *da, bool sync,
                           PyObject *handle_type, PyObject *out, const vrt_readback *rb,
                           vpy_buffer *rdst) {
  vrt_context *ctx = ((vpy_context *)kern->context)->ctx;
  vp_diags d = {0};
  vrt_ticket t = 0;
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vpy_flush_all(da, &d);
  if (ok && rb) {
    ok = vrt_dispatch_readback(kern->k, &da->args, da->grid, rb, sync ? NULL : &t, &d);
    if (ok && sync)
      ok = vpy_invalidate_all(da, &d) && vpy_buffer_invalidate(rdst, &d);
  } else if (ok && da->ranged) {
    ok = vrt_dispatch_ranges(kern->k, &da->args, da->ranges, da->grid, sync ? NULL : &t, &d) &&
         (!sync || vpy_invalidate_all(da, &d));
  } else if (ok && sync)
    ok = vrt_dispatch(kern->k, &da->args, da->grid, &d) && vpy_invalidate_all(da, &d);
  else if (ok)
    ok = vrt_dispatch_async(kern->k, &da->args, da->grid, &t, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  if (sync)
    return Py_NewRef(out ? out : Py_None);
  /* the Buffers (Kernel.dispatch's parsed sequence, else the array) and
   * the readback's target */
  Py_ssize_t n = da->seq ? PySequence_Size(da->seq) : (Py_ssize_t)da->args.nbuffers;
  PyObject *tuple = n < 0 ? NULL : PyTuple_New(n + (rdst != NULL));
  for (Py_ssize_t i = 0; tuple && i < n; i++) {
    /* the Buffers themselves (an item of the sequence may be a bound range,
     * whose Buffer the sequence keeps alive until here) */
    PyTuple_SetItem(tuple, i, Py_NewRef((PyObject *)da->objs[i]));
  }
  if (tuple && rdst)
    PyTuple_SetItem(tuple, n, Py_NewRef((PyObject *)rdst));
  PyObject *result = NULL;
  PyObject *tk = tuple ? vpy_ticket_new(st, kern->context, t, tuple) : NULL;
  Py_XDECREF(tuple);
  if (tk)
    result = !handle_type ? Py_NewRef(tk)
             : out        ? PyObject_CallFunctionObjArgs(handle_type, tk, Py_None, out, NULL)
                          : PyObject_CallFunctionObjArgs(handle_type, tk, NULL);
  Py_XDECREF(tk);
  return result;
}

/* The kernel call: buffers items[0..n), keywords either the dict `kw` or
 * the names `kwnames` (a tuple) with their values `kwvalues` (a vectorcall's
 * layout: KernelCall's call then makes no tuple and no dict). Returns None
 * | Handle | NotImplemented; `dry` (or dry_run) does everything but the
 * dispatch (the benchmark's measure of the binding's own cost). */
static PyObject *launch_items(vpy_launcher *self, PyObject *const *items, Py_ssize_t n,
                              PyObject *kw, PyObject *kwnames, PyObject *const *kwvalues,
                              bool dry) {
  vpy_state *st = vpy_state_of((PyObject *)self);
  vpy_kernel *kern = (vpy_kernel *)self->kernel;

  /* keywords */
  PyObject *dispatch = NULL, *groups = NULL;
  bool sync = true;
  unsigned char push[MAX_PUSH_BYTES];
  uint64_t seen = 0;
  memset(push, 0, self->push_size);
  Py_ssize_t pos = 0, nkw = kwnames ? PyTuple_Size(kwnames) : 0;
  PyObject *key, *value;
  for (Py_ssize_t ki = 0;; ki++) {
    if (kw) {
      if (!PyDict_Next(kw, &pos, &key, &value))
        break;
    } else {
      if (ki >= nkw)
        break;
      key = PyTuple_GetItem(kwnames, ki);
      value = kwvalues[ki];
    }
    int f = field_index(self, key);
    if (f >= 0) {
      if (!push_value(self->push[f].code, value, push + self->push[f].offset))
        return fall(self, "a push constant's value");
      seen |= 1ull << f;
    } else if (is_name(key, self->s_dispatch)) {
      dispatch = value == Py_None ? NULL : value;
    } else if (is_name(key, self->s_groups)) {
      groups = value == Py_None ? NULL : value;
    } else if (is_name(key, self->s_sync)) {
      if (value != Py_True && value != Py_False)
        return fall(self, "sync= not a bool");
      sync = value == Py_True;
    } else if (is_name(key, self->s_context)) {
      if (value != Py_None && value != kern->context)
        return fall(self, "context= given");
    } else {
      return fall(self, "an unknown keyword");
    }
  }
  if (self->npush && seen != (self->npush == 64 ? ~0ull : (1ull << self->npush) - 1))
    return fall(self, "a push constant missing");
  if ((dispatch != NULL) == (groups != NULL))
    return fall(self, "dispatch= and groups= (both or neither)");
  vpy_dispatch_args da;
  if (!grid_of(dispatch ? dispatch : groups, da.grid.n))
    return fall(self, "the grid");
  da.grid.groups = groups != NULL;

  /* buffers */
  if (n < 0 || (uint64_t)n != self->nbuf)
    return fall(self, "the buffer count");
  PyObject *held[VPY_MAX_BINDINGS];
  Py_ssize_t nheld = 0;
  bool arrays = false;
  const char *why = NULL;
  for (Py_ssize_t i = 0; i < n && !why; i++) {
    PyObject *item = items[i], *buf;
    if ((PyObject *)Py_TYPE(item) == self->array_type) {
      PyObject *want = PyTuple_GetItem(self->wants, i);
      /* a vector buffer: (scalar dtype, itemsize, elem_size): the array's
       * bytes must be whole elements */
      PyObject *vec = want && PyTuple_Check(want) ? want : NULL;
      if (vec)
        want = PyTuple_GetItem(vec, 0);
      PyObject *sd = vpy_array_get(item, VPY_A_SDTYPE, self->s_sdtype);
      Py_XDECREF(sd); /* the array holds it: only its identity matters */
      if (!sd || want == Py_None || sd != want) {
        why = "an array's dtype";
        break;
      }
      /* a view (an offset, strides, part of its buffer) binds a copy of
       * its own elements, which the Python path makes (_kernel.launch) */
      PyObject *whole = vpy_array_get(item, VPY_A_WHOLE, self->s_whole);
      Py_XDECREF(whole);
      if (whole != Py_True) {
        why = "a view";
        break;
      }
      if (vec) {
        PyObject *size = PyObject_GetAttr(item, self->s_size);
        long long count = size ? PyLong_AsLongLong(size) : -1;
        long long isz = PyLong_AsLongLong(PyTuple_GetItem(vec, 1));
        long long esz = PyLong_AsLongLong(PyTuple_GetItem(vec, 2));
        Py_XDECREF(size);
        long long bytes;
        if (count < 0 || isz <= 0 || esz <= 0 || __builtin_mul_overflow(count, isz, &bytes) ||
            bytes % esz) {
          why = "a vector buffer's size";
          break;
        }
      }
      buf = vpy_array_get(item, VPY_A_BUF, self->s_buf);
      arrays = true;
    } else if (Py_TYPE(item) == st->Buffer) {
      buf = Py_NewRef(item);
    } else {
      why = "an argument that is not a resident array";
      break;
    }
    if (!buf || Py_TYPE(buf) != st->Buffer || ((vpy_buffer *)buf)->context != kern->context) {
      Py_XDECREF(buf);
      why = "a buffer of another context";
      break;
    }
    held[nheld++] = buf;
    da.objs[i] = (vpy_buffer *)buf;
    da.bufs[i] = ((vpy_buffer *)buf)->buf;
    /* one buffer bound twice: the Python path decides (an error naming
     * both arguments where one of them is written) */
    for (Py_ssize_t j = 0; j < i && !why; j++)
      if (da.objs[j] == da.objs[i])
        why = "one buffer bound twice";
  }
  if (!why && !arrays)
    why = "no resident array (the context is the default one)";
  if (why) {
    PyErr_Clear();
    for (Py_ssize_t i = 0; i < nheld; i++)
      Py_DECREF(held[i]);
    return fall(self, why);
  }
  da.args.buffers = da.bufs;
  da.args.nbuffers = (uint32_t)n;
  da.ranged = false;
  da.args.push = self->push_size ? push : NULL;
  da.args.push_size = self->push_size;
  da.seq = NULL;

  if (dry || self->dry_run) {
    for (Py_ssize_t i = 0; i < nheld; i++)
      Py_DECREF(held[i]);
    Py_RETURN_NONE;
  }

  self->calls++;
  PyObject *result = vpy_run_dispatch(st, kern, &da, sync, self->handle_type, NULL, NULL, NULL);
  for (Py_ssize_t i = 0; i < nheld; i++)
    Py_DECREF(held[i]);
  return result;
}

/* call(buffers: tuple, kwargs: dict): launch_items on the tuple's items. */
static PyObject *launch(PyObject *obj, PyObject *const *a, Py_ssize_t nargs, bool dry) {
  vpy_launcher *self = (vpy_launcher *)obj;
  if (nargs != 2 || !PyTuple_Check(a[0]) || !PyDict_Check(a[1])) {
    PyErr_SetString(PyExc_TypeError, "call(buffers: tuple, kwargs: dict)");
    return NULL;
  }
  Py_ssize_t n = PyTuple_Size(a[0]);
  if (n < 0 || (uint64_t)n != self->nbuf)
    return fall(self, "the buffer count");
  PyObject *items[VPY_MAX_BINDINGS];
  for (Py_ssize_t i = 0; i < n; i++)
    items[i] = PyTuple_GetItem(a[0], i);
  return launch_items(self, items, n, a[1], NULL, NULL, dry);
}

static PyObject *launcher_call(PyObject *obj, PyObject *const *a, Py_ssize_t nargs) {
  return launch(obj, a, nargs, false);
}

/* as_ufunc(push: bytes, gx, gy, shape, scalars=(), out_sdtype=None): makes
 * this a ufunc's launcher for one signature (operand dtypes are `wants`, the
 * output's last; a Python scalar operand's entry is its type). scalars:
 * (operand index, struct code, push offset) of each scalar operand, packed
 * per call over the fixed block. out_sdtype: the result's storage dtype,
 * which lets `ufunc(inputs, None, sync)` make the result (fastarray.c). */
static PyObject *launcher_as_ufunc(PyObject *obj, PyObject *args) {
  vpy_launcher *self = (vpy_launcher *)obj;
  const char *push;
  Py_ssize_t len;
  unsigned int gx, gy;
  PyObject *shape, *scalars = NULL, *sdtype = Py_None;
  if (!PyArg_ParseTuple(args, "y#IIO!|O!O", &push, &len, &gx, &gy, &PyTuple_Type, &shape,
                        &PyTuple_Type, &scalars, &sdtype))
    return NULL;
  if ((uint32_t)len != self->push_size || self->npush) {
    PyErr_SetString(PyExc_ValueError, "as_ufunc: the push block must fill push_size, "
                                      "with no named fields");
    return NULL;
  }
  char code[VPY_MAX_BINDINGS] = {0};
  uint32_t off[VPY_MAX_BINDINGS] = {0};
  for (Py_ssize_t i = 0; scalars && i < PyTuple_Size(scalars); i++) {
    int k;
    const char *c;
    unsigned int o;
    if (!PyArg_ParseTuple(PyTuple_GetItem(scalars, i), "isI", &k, &c, &o))
      return NULL;
    if (k < 0 || (uint32_t)k + 1 >= self->nbuf || strlen(c) != 1 || !strchr("fdiIqQ", c[0]) ||
        o + (strchr("dqQ", c[0]) ? 8u : 4u) > self->push_size) {
      PyErr_SetString(PyExc_ValueError, "as_ufunc: a scalar (index, code, offset) out of range");
      return NULL;
    }
    code[k] = c[0];
    off[k] = o;
  }
  memcpy(self->ucode, code, sizeof code);
  memcpy(self->uoff, off, sizeof off);
  memcpy(self->upush, push, (size_t)len);
  self->ugrid[0] = gx;
  self->ugrid[1] = gy;
  /* What the kernel writes of its result: every element (a lower bound in
   * bytes: bool's itemsize 1 undercounts its 4-byte words, which is safe). */
  uint64_t bytes = 0, count = 1;
  PyObject *want = self->nbuf ? PyTuple_GetItem(self->wants, self->nbuf - 1) : NULL;
  PyObject *isz = want && !PyTuple_Check(want) ? PyObject_GetAttrString(want, "itemsize") : NULL;
  PyErr_Clear();
  for (Py_ssize_t i = 0; i < PyTuple_Size(shape); i++) {
    long long s = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
    count = s > 0 ? count * (uint64_t)s : 0;
  }
  PyErr_Clear();
  if (isz && PyLong_Check(isz))
    bytes = PyLong_AsUnsignedLongLong(isz) * count;
  PyErr_Clear();
  Py_XDECREF(isz);
  self->ubytes = bytes;
  /* a result made here: its storage dtype's bytes, all written */
  Py_CLEAR(self->usdtype);
  self->rbytes = 0;
  self->rsize = (Py_ssize_t)count;
  if (sdtype != Py_None && count && vpy_array_fast(self->array_type)) {
    PyObject *ssz = PyObject_GetAttrString(sdtype, "itemsize");
    long long sz = ssz ? PyLong_AsLongLong(ssz) : -1;
    Py_XDECREF(ssz);
    PyErr_Clear();
    if (sz > 0) {
      self->usdtype = Py_NewRef(sdtype);
      self->rbytes = (uint64_t)sz * count;
    }
  }
  PyObject *old = self->ushape;
  self->ushape = Py_NewRef(shape);
  Py_XDECREF(old);
  ushape_seen_clear(self);
  Py_RETURN_NONE;
}

/* The Buffer of operand `item` when it is a C-contiguous resident array of
 * dtype `want` (identity), shape `shape` and the kernel's context: a new
 * reference, or NULL (no exception) when the Python path must look. */
static PyObject *ufunc_operand(vpy_launcher *self, vpy_state *st, PyObject *item,
                               PyObject *want) {
  if ((PyObject *)Py_TYPE(item) != self->array_type)
    return NULL;
  PyObject *v = vpy_array_get(item, VPY_A_DTYPE, self->s_dtype);
  Py_XDECREF(v);
  if (v != want)
    return NULL;
  /* all of its buffer: a prefix view of the same shape would have the
   * vec4 tail of the plan's kernel written past its end */
  v = vpy_array_get(item, VPY_A_WHOLE, self->s_whole);
  Py_XDECREF(v);
  if (v != Py_True)
    return NULL;
  v = vpy_array_get(item, VPY_A_SHAPE, self->s_shape);
  int same = v == self->ushape ? 1 : v ? 0 : -1;
  for (int i = 0; same == 0 && i < USHAPE_SEEN; i++)
    same = v == self->ushape_seen[i];
  if (same == 0) {
    same = PyObject_RichCompareBool(v, self->ushape, Py_EQ);
    if (same == 1 && PyTuple_CheckExact(v)) { /* ushape is a tuple of ints */
      PyObject *gone = self->ushape_seen[self->ushape_next];
      self->ushape_seen[self->ushape_next] = Py_NewRef(v);
      Py_XDECREF(gone);
      self->ushape_next = (self->ushape_next + 1) % USHAPE_SEEN;
    }
  }
  Py_XDECREF(v);
  if (same != 1)
    return NULL;
  PyObject *buf = vpy_array_get(item, VPY_A_BUF, self->s_buf);
  if (!buf || Py_TYPE(buf) != st->Buffer ||
      ((vpy_buffer *)buf)->context != ((vpy_kernel *)self->kernel)->context) {
    Py_XDECREF(buf);
    return NULL;
  }
  return buf;
}

/* Declared in ext.h. */
PyObject *vpy_run_eager(vpy_state *st, vpy_kernel *kern, vpy_dispatch_args *da, PyObject *out) {
  for (uint32_t i = 0; i < da->args.nbuffers; i++)
    if (da->objs[i]->imported || da->objs[i]->borrowed)
      return vpy_run_dispatch(st, kern, da, true, NULL, out, NULL, NULL);
  vrt_context *ctx = ((vpy_context *)kern->context)->ctx;
  vp_diags d = {0};
  vrt_ticket t = 0;
  const vrt_bind_range *ranges = da->ranged ? da->ranges : NULL;
  /* With the GIL held when nothing can block (a recorded launch resubmitted,
   * as CuPy launches): releasing and taking it back costs more host time
   * than the dispatch itself on a small array (~500 instructions). */
  bool busy = false;
  bool ok = vpy_flush_all(da, &d) &&
            vrt_dispatch_eager_nowait(kern->k, &da->args, ranges, da->grid, &t, &busy, &d);
  if (ok && busy) {
    Py_BEGIN_ALLOW_THREADS
    ok = vrt_dispatch_eager(kern->k, &da->args, ranges, da->grid, &t, &d);
    Py_END_ALLOW_THREADS
  }
  if (!ok)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  return Py_NewRef(out ? out : Py_None);
}

/* The result of a ufunc launcher's out=None call: a new whole array of the
 * signature's shape and dtype in the first array operand's memory kind and
 * context, its memory from the pool as is (every element is written by the
 * dispatch; only the padding is zeroed), as _array._result makes it. A new
 * reference, or NULL: with an exception when the allocation failed, without
 * one when the Python path must make it. */
static PyObject *ufunc_result(vpy_launcher *self, vpy_state *st, PyObject *first,
                              vpy_buffer *fbuf) {
  PyObject *pyctx = vpy_array_get(first, VPY_A_CTX, self->s_ctx);
  if (!pyctx) {
    PyErr_Clear();
    return NULL;
  }
  vrt_context *ctx = ((vpy_context *)((vpy_kernel *)self->kernel)->context)->ctx;
  uint64_t padded = self->rbytes < 16 ? 16 : (self->rbytes + 15) & ~(uint64_t)15;
  vrt_memory_kind kind = vrt_buffer_kind(fbuf->buf);
  vp_diags d = {0};
  vrt_buffer *b;
  Py_BEGIN_ALLOW_THREADS
  b = vrt_buffer_create_ex(ctx, padded, kind, self->rbytes, &d);
  Py_END_ALLOW_THREADS
  if (!b) {
    Py_DECREF(pyctx);
    vpy_raise(st, &d, NULL, ctx, NULL);
    return NULL;
  }
  vp_diags_free(&d);
  PyObject *buf = vpy_buffer_wrap(st, ((vpy_kernel *)self->kernel)->context, b, NULL, false);
  PyObject *res = buf ? vpy_array_new(self->array_type, buf, self->ushape,
                                      PyTuple_GetItem(self->wants, self->nbuf - 1),
                                      self->usdtype, pyctx, self->rsize)
                      : NULL;
  Py_XDECREF(buf);
  Py_DECREF(pyctx);
  return res;
}

/* ufunc(inputs: tuple, out, sync) -> out | Handle | NotImplemented; out
 * None makes the result (as_ufunc's out_sdtype). */
static PyObject *launcher_ufunc(PyObject *obj, PyObject *const *a, Py_ssize_t nargs) {
  vpy_launcher *self = (vpy_launcher *)obj;
  if (nargs != 3 || !PyTuple_Check(a[0]) || !self->ushape) {
    PyErr_SetString(PyExc_TypeError, "ufunc(inputs: tuple, out, sync) on a ufunc launcher");
    return NULL;
  }
  vpy_state *st = vpy_state_of(obj);
  vpy_kernel *kern = (vpy_kernel *)self->kernel;
  PyObject *inputs = a[0], *out = a[1];
  if (a[2] != Py_True && a[2] != Py_False)
    return fall(self, "sync= not a bool");
  bool sync = a[2] == Py_True;
  Py_ssize_t n = PyTuple_Size(inputs);
  if ((uint32_t)n + 1 != self->nbuf)
    return fall(self, "the operand count");
  if (out == Py_None && !self->usdtype)
    return fall(self, "no result made here for this signature");
  vpy_dispatch_args da;
  unsigned char push[MAX_PUSH_BYTES];
  bool scalars = false;
  PyObject *held[VPY_MAX_BINDINGS];
  Py_ssize_t nheld = 0;
  uint32_t nb = 0;
  PyObject *first = NULL;
  for (Py_ssize_t i = 0; i <= n; i++) {
    PyObject *item = i < n ? PyTuple_GetItem(inputs, i) : out;
    PyObject *want = PyTuple_GetItem(self->wants, i);
    if (i < n && self->ucode[i]) {
      /* a Python scalar of the signature's type, packed as the plan's
       * packer would; a value its field cannot hold: the Python path */
      if (!scalars)
        memcpy(push, self->upush, self->push_size);
      scalars = true;
      if ((PyObject *)Py_TYPE(item) == want &&
          push_value(self->ucode[i], item, push + self->uoff[i]))
        continue;
      for (Py_ssize_t j = 0; j < nheld; j++)
        Py_DECREF(held[j]);
      return fall(self, "a scalar operand that is not this signature's");
    }
    if (i == n && out == Py_None) {
      /* the result, made once every operand checked out */
      PyObject *res = first ? ufunc_result(self, st, first, da.objs[0]) : NULL;
      if (!res) {
        for (Py_ssize_t j = 0; j < nheld; j++)
          Py_DECREF(held[j]);
        if (PyErr_Occurred())
          return NULL;
        return fall(self, "the result could not be made here");
      }
      out = res;
      held[nheld++] = res; /* released below; the call returns a new reference */
      PyObject *rb = vpy_array_get(res, VPY_A_BUF, self->s_buf);
      if (!rb) {
        for (Py_ssize_t j = 0; j < nheld; j++)
          Py_DECREF(held[j]);
        return NULL;
      }
      Py_DECREF(rb); /* the array holds it */
      da.objs[nb] = (vpy_buffer *)rb;
      da.bufs[nb] = ((vpy_buffer *)rb)->buf;
      nb++;
      continue;
    }
    PyObject *buf = ufunc_operand(self, st, item, want);
    if (!buf) {
      PyErr_Clear();
      for (Py_ssize_t j = 0; j < nheld; j++)
        Py_DECREF(held[j]);
      return fall(self, "an operand that is not this signature's");
    }
    if (!first)
      first = item;
    held[nheld++] = buf;
    da.objs[nb] = (vpy_buffer *)buf;
    da.bufs[nb] = ((vpy_buffer *)buf)->buf;
    nb++;
  }
  da.args.buffers = da.bufs;
  da.args.nbuffers = nb;
  da.ranged = false;
  da.args.push = !self->push_size ? NULL : scalars ? push : self->upush;
  da.args.push_size = self->push_size;
  da.grid.n[0] = self->ugrid[0];
  da.grid.n[1] = self->ugrid[1];
  da.grid.n[2] = 1;
  da.grid.groups = true;
  da.seq = NULL;
  self->calls++;
  /* out= is written whole: a new out='s owed zero fill is dropped (a
   * result made here was made with it dropped) - unless an input is out='s
   * buffer too (x += 3 of a new vp.zeros x reads it: the fill stays) */
  bool out_read = false;
  for (uint32_t i = 0; i + 1 < nb; i++)
    out_read |= da.bufs[i] == da.bufs[nb - 1];
  if (self->ubytes && out == a[1] && !out_read)
    vrt_buffer_will_write(da.bufs[nb - 1], 0, self->ubytes);
  /* sync=True: eager (submitted, not waited for; host reads wait);
   * dry_run: everything but the dispatch (bench/probes/alloc_layers.py) */
  PyObject *result = self->dry_run ? Py_NewRef(out)
                     : sync        ? vpy_run_eager(st, kern, &da, out)
                                   : vpy_run_dispatch(st, kern, &da, false, self->handle_type,
                                                      out, NULL, NULL);
  for (Py_ssize_t i = 0; i < nheld; i++)
    Py_DECREF(held[i]);
  return result;
}

static PyObject *launcher_get_dry(PyObject *obj, void *c) {
  return PyBool_FromLong(((vpy_launcher *)obj)->dry_run);
}

static int launcher_set_dry(PyObject *obj, PyObject *value, void *c) {
  int v = value ? PyObject_IsTrue(value) : 0;
  if (v < 0)
    return -1;
  ((vpy_launcher *)obj)->dry_run = v != 0;
  return 0;
}

static PyObject *launcher_get_calls(PyObject *obj, void *c) {
  return PyLong_FromUnsignedLongLong(((vpy_launcher *)obj)->calls);
}

static PyObject *launcher_get_fallbacks(PyObject *obj, void *c) {
  return PyLong_FromUnsignedLongLong(((vpy_launcher *)obj)->fallbacks);
}

static PyObject *launcher_get_why(PyObject *obj, void *c) {
  return PyUnicode_FromString(((vpy_launcher *)obj)->why);
}

static PyObject *launcher_get_kernel(PyObject *obj, void *c) {
  return Py_NewRef(((vpy_launcher *)obj)->kernel);
}

static PyMethodDef launcher_methods[] = {
    {"call", (PyCFunction)(void (*)(void))launcher_call, METH_FASTCALL,
     "call(buffers: tuple, kwargs: dict) -> None, a Handle, or NotImplemented (take the "
     "Python path)"},
    {"as_ufunc", launcher_as_ufunc, METH_VARARGS,
     "as_ufunc(push: bytes, gx, gy, shape): a ufunc's launcher for one signature"},
    {"ufunc", (PyCFunction)(void (*)(void))launcher_ufunc, METH_FASTCALL,
     "ufunc(inputs: tuple, out, sync) -> out, a Handle, or NotImplemented"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef launcher_getset[] = {
    {"calls", launcher_get_calls, NULL, "calls dispatched here", NULL},
    {"fallbacks", launcher_get_fallbacks, NULL, "calls sent back to the Python path", NULL},
    {"last_fallback", launcher_get_why, NULL, "why the last fallback fell back", NULL},
    {"kernel", launcher_get_kernel, NULL, "the Kernel it dispatches", NULL},
    {"dry_run", launcher_get_dry, launcher_set_dry,
     "True: calls check and pack everything but dispatch nothing (for measuring the "
     "binding's own cost)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot launcher_slots[] = {
    {Py_tp_new, launcher_new},
    {Py_tp_dealloc, launcher_dealloc},
    {Py_tp_methods, launcher_methods},
    {Py_tp_getset, launcher_getset},
    {Py_tp_doc, "Launcher(kernel, array_type, handle_type, wants, fields, push_size): a "
                "kernel's common call in C"},
    {0, NULL},
};

PyType_Spec vpy_launcher_spec = {
    .name = "vulpy._vulpy.Launcher",
    .basicsize = sizeof(vpy_launcher),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = launcher_slots,
};

/* -------------------------------------------------------- KernelCall */

/* The base class of vp.kernel objects (PyKernel, GLSLKernel subclass it in
 * Python): its tp_call hands (args, kwargs) straight to the Launcher in
 * `_fast`, so the common call runs no Python frame at all; when the
 * launcher declines (or there is none yet) it calls self._call(args,
 * **kwargs), the Python path. The one base type subclassed in Python, so it
 * never looks for the module through Py_TYPE(self): the Launcher carries it.
 *
 * It also speaks the vectorcall protocol: `k(x, y, dispatch=N, a=2.0)`
 * then reaches kcall_vectorcall with the arguments where the caller left
 * them, and the interpreter builds no argument tuple and no keyword dict
 * (~800 of the call's ~2600 host instructions). The stable ABI of 3.11
 * does not spell the protocol, but its pieces are stable ABI from 3.12 with
 * the values below; a 3.11 interpreter gives a Python subclass (a mutable
 * heap type) no vectorcall, so there the call goes through kcall_call as
 * before, while 3.12 and later let PyKernel's class inherit it. */
#ifndef Py_TPFLAGS_HAVE_VECTORCALL
#define Py_TPFLAGS_HAVE_VECTORCALL (1UL << 11)
#endif
#ifndef PY_VECTORCALL_ARGUMENTS_OFFSET
#define PY_VECTORCALL_ARGUMENTS_OFFSET ((size_t)1 << (8 * sizeof(size_t) - 1))
#endif
typedef PyObject *(*vpy_vectorcallfunc)(PyObject *callable, PyObject *const *args,
                                        size_t nargsf, PyObject *kwnames);

typedef struct vpy_kernel_call {
  PyObject_HEAD
  PyObject *fast;                 /* a Launcher, None (not made yet) or False (never) */
  vpy_vectorcallfunc vectorcall; /* kcall_vectorcall (kcall_new sets it) */
} vpy_kernel_call;

static void kcall_dealloc(PyObject *obj) {
  vpy_kernel_call *self = (vpy_kernel_call *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  Py_CLEAR(self->fast);
  freefunc f = (freefunc)PyType_GetSlot(type, Py_tp_free);
  f(obj);
  Py_DECREF(type);
}

static bool is_launcher(PyObject *v) {
  PyObject *mod = PyType_GetModule(Py_TYPE(v));
  if (!mod) {
    PyErr_Clear();
    return false;
  }
  vpy_state *st = vpy_module_state(mod);
  return st && Py_TYPE(v) == st->Launcher;
}

/* The Python path: self._call(args, **kwargs). */
static PyObject *kcall_python(PyObject *obj, PyObject *args, PyObject *kwargs) {
  PyObject *meth = PyObject_GetAttrString(obj, "_call");
  if (!meth)
    return NULL;
  PyObject *pargs = PyTuple_Pack(1, args);
  PyObject *r = pargs ? PyObject_Call(meth, pargs, kwargs) : NULL;
  Py_XDECREF(pargs);
  Py_DECREF(meth);
  return r;
}

static PyObject *kcall_call(PyObject *obj, PyObject *args, PyObject *kwargs) {
  vpy_kernel_call *self = (vpy_kernel_call *)obj;
  PyObject *fast = self->fast;
  if (fast && fast != Py_None && fast != Py_False && kwargs) {
    Py_INCREF(fast); /* a call may replace it */
    PyObject *a[2] = {args, kwargs};
    PyObject *r = launch(fast, a, 2, false);
    Py_DECREF(fast);
    if (r != Py_NotImplemented)
      return r;
    Py_DECREF(r);
  }
  return kcall_python(obj, args, kwargs);
}

/* The vectorcall form of kcall_call: the Launcher reads the arguments in
 * place; what it declines goes to the Python path with the tuple and dict
 * the interpreter would have made. */
static PyObject *kcall_vectorcall(PyObject *obj, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames) {
  vpy_kernel_call *self = (vpy_kernel_call *)obj;
  Py_ssize_t nargs = (Py_ssize_t)(nargsf & ~PY_VECTORCALL_ARGUMENTS_OFFSET);
  Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
  PyObject *fast = self->fast;
  if (fast && fast != Py_None && fast != Py_False && nkw > 0) {
    Py_INCREF(fast); /* a call may replace it */
    PyObject *r = launch_items((vpy_launcher *)fast, args, nargs, NULL, kwnames, args + nargs,
                               false);
    Py_DECREF(fast);
    if (r != Py_NotImplemented)
      return r;
    Py_DECREF(r);
  }
  PyObject *tuple = PyTuple_New(nargs);
  PyObject *kw = tuple && nkw > 0 ? PyDict_New() : NULL;
  bool ok = tuple && (nkw == 0 || kw);
  for (Py_ssize_t i = 0; ok && i < nargs; i++)
    PyTuple_SetItem(tuple, i, Py_NewRef(args[i]));
  for (Py_ssize_t i = 0; ok && i < nkw; i++)
    ok = PyDict_SetItem(kw, PyTuple_GetItem(kwnames, i), args[nargs + i]) == 0;
  PyObject *r = ok ? kcall_python(obj, tuple, kw) : NULL; /* the launcher declined */
  Py_XDECREF(kw);
  Py_XDECREF(tuple);
  return r;
}

static PyObject *kcall_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *obj = PyType_GenericNew(type, args, kw);
  if (obj)
    ((vpy_kernel_call *)obj)->vectorcall = kcall_vectorcall;
  return obj;
}

static PyMemberDef kcall_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(vpy_kernel_call, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyObject *kcall_get_fast(PyObject *obj, void *c) {
  PyObject *f = ((vpy_kernel_call *)obj)->fast;
  return Py_NewRef(f ? f : Py_None);
}

static int kcall_set_fast(PyObject *obj, PyObject *value, void *c) {
  vpy_kernel_call *self = (vpy_kernel_call *)obj;
  if (value && value != Py_None && value != Py_False && !is_launcher(value)) {
    PyErr_SetString(PyExc_TypeError, "_fast must be a Launcher, None or False");
    return -1;
  }
  PyObject *old = self->fast;
  self->fast = value ? Py_NewRef(value) : NULL;
  Py_XDECREF(old);
  return 0;
}

static PyGetSetDef kcall_getset[] = {
    {"_fast", kcall_get_fast, kcall_set_fast,
     "the Launcher of the common call (None: not made yet; False: never)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot kcall_slots[] = {
    {Py_tp_new, kcall_new},
    {Py_tp_dealloc, kcall_dealloc},
    {Py_tp_call, kcall_call},
    {Py_tp_getset, kcall_getset},
    {Py_tp_members, kcall_members},
    {Py_tp_doc, "The base of vp.kernel objects: calls go to the Launcher in _fast, else to "
                "self._call(args, **kwargs)"},
    {0, NULL},
};

PyType_Spec vpy_kernel_call_spec = {
    .name = "vulpy._vulpy.KernelCall",
    .basicsize = sizeof(vpy_kernel_call),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_VECTORCALL,
    .slots = kcall_slots,
};

/* -------------------------------------------------------- UfuncCall */

/* The C call of the vp ufuncs. `import vulpy` loads no compiled module, so
 * the ufuncs are made as plain Python objects (_ufunc.Ufunc); when the
 * Python path plans a ufunc's first Launcher.ufunc, _launch.ufunc_c_call
 * moves the object to ufunc_call_class(type(uf)): a subclass made here
 * with no field of its own (so the live object's class can be swapped, and
 * every reference to it - vp.add, an operator's - sees the change) whose
 * tp_call runs the common resident call - `vp.add(a, b, out=c)`,
 * `vp.sin(a)`, an operator on resident arrays - with no Python frame, as
 * KernelCall does for kernels: the instance's `_fastw` / `_fastnw` are weak
 * references to the bound Launcher.ufunc of its last resident out=
 * signature and of its last one without out=; a call whose keywords are
 * out=, sync= (a bool) and context=None at most goes to the matching one,
 * and anything it declines, or any other call, to self._call(*args,
 * **kwargs): the Python class's own __call__. */
static PyObject *ufunc_launcher_of(PyObject *obj, PyObject *name) {
  /* The instance dict itself (made once, then handed back as it is), not
   * a generic attribute lookup (~240 instructions a call): `_fastw` and
   * `_fastnw` are instance attributes the class never defines, so the
   * dict holds what the lookup would find, or nothing (the Python path). */
  PyObject *dict = PyObject_GenericGetDict(obj, NULL);
  PyObject *w = dict ? PyDict_GetItemWithError(dict, name) : NULL; /* borrowed */
  Py_XINCREF(w);
  Py_XDECREF(dict);
  if (!w) {
    PyErr_Clear();
    return NULL;
  }
  PyObject *l = NULL;
  if (PyWeakref_Check(w)) {
    PyObject *m = PyWeakref_GetObject(w); /* borrowed */
    if (m && m != Py_None && PyCFunction_Check(m)) {
      l = PyCFunction_GetSelf(m);
      l = l && is_launcher(l) ? Py_NewRef(l) : NULL;
    }
  }
  Py_DECREF(w);
  PyErr_Clear();
  return l;
}

static PyObject *ucall_call(PyObject *obj, PyObject *args, PyObject *kwargs) {
  static PyObject *s_fastw, *s_fastnw, *s_call, *s_out, *s_sync, *s_context;
  if (!s_fastw && (!(s_fastw = PyUnicode_InternFromString("_fastw")) ||
                   !(s_fastnw = PyUnicode_InternFromString("_fastnw")) ||
                   !(s_call = PyUnicode_InternFromString("_call")) ||
                   !(s_out = PyUnicode_InternFromString("out")) ||
                   !(s_sync = PyUnicode_InternFromString("sync")) ||
                   !(s_context = PyUnicode_InternFromString("context"))))
    return NULL;
  PyObject *out = Py_None, *sync = Py_True;
  bool fast = true;
  if (kwargs) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    /* a call site's keywords are interned: pointer compares first */
    while (fast && PyDict_Next(kwargs, &pos, &key, &value)) {
      if (key == s_out || PyUnicode_CompareWithASCIIString(key, "out") == 0)
        out = value;
      else if (key == s_sync || PyUnicode_CompareWithASCIIString(key, "sync") == 0)
        fast = (sync = value) == Py_True || value == Py_False;
      else
        fast = (key == s_context || PyUnicode_CompareWithASCIIString(key, "context") == 0) &&
               value == Py_None;
    }
  }
  PyObject *l = fast ? ufunc_launcher_of(obj, out == Py_None ? s_fastnw : s_fastw) : NULL;
  if (l) {
    PyObject *a[3] = {args, out, sync};
    PyObject *r = launcher_ufunc(l, a, 3);
    Py_DECREF(l);
    if (r != Py_NotImplemented)
      return r;
    Py_DECREF(r);
  }
  PyObject *meth = PyObject_GetAttr(obj, s_call);
  if (!meth)
    return NULL;
  PyObject *r = PyObject_Call(meth, args, kwargs);
  Py_DECREF(meth);
  return r;
}

/* ufunc_call_class(cls, name) -> the subclass of Python class `cls` (a
 * vp ufunc's) named `name` whose calls go through ucall_call, its `_call`
 * being cls.__call__. */
static PyObject *ufunc_call_class(PyObject *mod, PyObject *args) {
  PyObject *cls;
  const char *name;
  if (!PyArg_ParseTuple(args, "O!s", &PyType_Type, &cls, &name))
    return NULL;
  PyType_Slot slots[] = {
      {Py_tp_call, ucall_call},
      {Py_tp_doc, "A vp ufunc with its C call (launch.c, UfuncCall)"},
      {0, NULL},
  };
  PyType_Spec spec = {
      .name = name,
      .basicsize = 0, /* cls's: the same layout, so objects can move over */
      .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
      .slots = slots,
  };
  PyObject *bases = PyTuple_Pack(1, cls);
  PyObject *t = bases ? PyType_FromSpecWithBases(&spec, bases) : NULL;
  Py_XDECREF(bases);
  if (!t)
    return NULL;
  PyObject *call = PyObject_GetAttrString(cls, "__call__");
  if (!call || PyObject_SetAttrString(t, "_call", call) < 0) {
    Py_XDECREF(call);
    Py_DECREF(t);
    return NULL;
  }
  Py_DECREF(call);
  return t;
}

PyMethodDef vpy_ufunc_call_methods[] = {
    {"ufunc_call_class", ufunc_call_class, METH_VARARGS,
     "ufunc_call_class(cls, name) -> the subclass of a vp ufunc class whose calls run in C"},
    {NULL, NULL, 0, NULL},
};
