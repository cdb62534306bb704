/* submit.c - what dispatches share: argument parsing, Ticket (the handle of
 * an asynchronous dispatch) and Recording (many dispatches, one submission).
 *
 * A Ticket keeps the buffers of its dispatch alive and invalidates the
 * non-coherent ones once the wait is over, so NumPy views of them show what
 * the GPU wrote. Waits release the GIL.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

typedef struct vpy_ticket {
  PyObject_HEAD
  PyObject *context;
  vrt_ticket ticket;
  PyObject *buffers; /* tuple: kept alive, invalidated after the wait */
  bool waited;
} vpy_ticket;

typedef struct vpy_recording {
  PyObject_HEAD
  vrt_recording *r;
  PyObject *context;
  PyObject *refs; /* list: kernels and buffers used by the recording */
} vpy_recording;

/* ------------------------------------------------------------ dispatch */

bool vpy_parse_dispatch(vpy_state *st, PyObject *const *a, vpy_dispatch_args *out) {
  out->seq = PySequence_Fast(a[0], "buffers must be a sequence of Buffers");
  if (!out->seq)
    return false;
  Py_ssize_t n = PySequence_Size(out->seq);
  if (n > VPY_MAX_BINDINGS) {
    PyErr_Format(PyExc_ValueError, "at most %d buffers per kernel, got %zd", VPY_MAX_BINDINGS, n);
    goto fail;
  }
  /* borrowed references: the list or tuple from PySequence_Fast holds them
   * (and an item (Buffer, offset, size) its Buffer: a view's byte range,
   * which the runtime checks against the device's offset alignment) */
  bool list = PyList_Check(out->seq), ranged = false;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = list ? PyList_GetItem(out->seq, i) : PyTuple_GetItem(out->seq, i);
    if (!item)
      goto fail;
    out->ranges[i] = (vrt_bind_range){0, 0};
    if (PyTuple_Check(item) && PyTuple_Size(item) == 3) {
      unsigned long long off = PyLong_AsUnsignedLongLong(PyTuple_GetItem(item, 1));
      unsigned long long size = off == (unsigned long long)-1 && PyErr_Occurred()
                                    ? 0
                                    : PyLong_AsUnsignedLongLong(PyTuple_GetItem(item, 2));
      if (PyErr_Occurred() || !size) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "a bound range is (Buffer, offset, size) with a "
                                          "non-negative offset and a positive size");
        goto fail;
      }
      out->ranges[i] = (vrt_bind_range){off, size};
      ranged = true;
      item = PyTuple_GetItem(item, 0);
    }
    if (!(out->bufs[i] = vpy_buffer_get(st, item)))
      goto fail;
    out->objs[i] = (vpy_buffer *)item;
  }
  out->args.buffers = out->bufs;
  out->args.nbuffers = (uint32_t)n;
  out->ranged = ranged;
  out->args.push = NULL;
  out->args.push_size = 0;
  if (a[1] != Py_None) {
    char *p;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(a[1], &p, &len) < 0)
      goto fail;
    out->args.push = p;
    out->args.push_size = (uint32_t)len;
  }
  for (int i = 0; i < 3; i++) {
    unsigned long v = PyLong_AsUnsignedLong(a[2 + i]);
    if ((v == (unsigned long)-1 && PyErr_Occurred()) || v > UINT32_MAX) {
      PyErr_Clear();
      PyErr_SetString(PyExc_ValueError, "dispatch sizes must be 32-bit non-negative integers");
      goto fail;
    }
    out->grid.n[i] = (uint32_t)v;
  }
  out->grid.groups = PyObject_IsTrue(a[5]) == 1;
  return true;
fail:
  Py_CLEAR(out->seq);
  return false;
}

bool vpy_no_ranges(vpy_dispatch_args *da) {
  if (!da->ranged)
    return true;
  Py_CLEAR(da->seq);
  PyErr_SetString(PyExc_ValueError, "bound ranges (Buffer, offset, size) are for "
                                    "Kernel.dispatch without readback only");
  return false;
}

bool vpy_flush_all(vpy_dispatch_args *da, vp_diags *d) {
  for (uint32_t i = 0; i < da->args.nbuffers; i++)
    if (!vpy_buffer_flush(da->objs[i], d))
      return false;
  return true;
}

bool vpy_invalidate_all(vpy_dispatch_args *da, vp_diags *d) {
  for (uint32_t i = 0; i < da->args.nbuffers; i++)
    if (!vpy_buffer_invalidate(da->objs[i], d))
      return false;
  return true;
}

/* ------------------------------------------------------------ Ticket */

PyObject *vpy_ticket_new(vpy_state *st, PyObject *context, vrt_ticket t, PyObject *buffers) {
  vpy_ticket *tk = PyObject_New(vpy_ticket, st->Ticket);
  if (!tk)
    return NULL;
  tk->context = Py_NewRef(context);
  tk->ticket = t;
  tk->buffers = Py_NewRef(buffers);
  tk->waited = false;
  return (PyObject *)tk;
}

static void ticket_dealloc(PyObject *obj) {
  vpy_ticket *self = (vpy_ticket *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  Py_XDECREF(self->buffers);
  Py_XDECREF(self->context);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static bool ticket_finish(vpy_ticket *self, vp_diags *d) {
  Py_ssize_t n = PyTuple_Size(self->buffers);
  for (Py_ssize_t i = 0; i < n; i++)
    if (!vpy_buffer_invalidate((vpy_buffer *)PyTuple_GetItem(self->buffers, i), d))
      return false;
  self->waited = true;
  return true;
}

/* wait(timeout=None): blocks (GIL released) until the work is done. */
static PyObject *ticket_wait(PyObject *obj, PyObject *args) {
  vpy_ticket *self = (vpy_ticket *)obj;
  PyObject *timeout = Py_None;
  if (!PyArg_ParseTuple(args, "|O", &timeout))
    return NULL;
  uint64_t ns = UINT64_MAX;
  if (timeout != Py_None) {
    double s = PyFloat_AsDouble(timeout);
    if (PyErr_Occurred())
      return NULL;
    ns = s <= 0 ? 0 : (uint64_t)(s * 1e9);
  }
  vrt_context *ctx = ((vpy_context *)self->context)->ctx;
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_wait(ctx, self->ticket, ns, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(vpy_state_of(obj), &d, NULL, ctx, NULL);
  if (!self->waited && !ticket_finish(self, &d))
    return vpy_raise(vpy_state_of(obj), &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

static PyObject *ticket_get_done(PyObject *obj, void *c) {
  vpy_ticket *self = (vpy_ticket *)obj;
  return PyBool_FromLong(vrt_ticket_done(((vpy_context *)self->context)->ctx, self->ticket));
}

static PyObject *ticket_get_value(PyObject *obj, void *c) {
  return PyLong_FromUnsignedLongLong(((vpy_ticket *)obj)->ticket);
}

static PyMethodDef ticket_methods[] = {
    {"wait", ticket_wait, METH_VARARGS, "wait(timeout=None): block until the work is done"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ticket_getset[] = {
    {"done", ticket_get_done, NULL, "True once the work is done (never blocks)", NULL},
    {"value", ticket_get_value, NULL, "the timeline value", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot ticket_slots[] = {
    {Py_tp_dealloc, ticket_dealloc},
    {Py_tp_methods, ticket_methods},
    {Py_tp_getset, ticket_getset},
    {Py_tp_doc, "A point on a context's timeline: work submitted before it"},
    {0, NULL},
};

PyType_Spec vpy_ticket_spec = {
    .name = "vulpy._vulpy.Ticket",
    .basicsize = sizeof(vpy_ticket),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = ticket_slots,
};

/* --------------------------------------------------------- Recording */

static PyObject *recording_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"context", "timestamps", NULL};
  PyObject *context;
  int timestamps = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p", kwlist, &context, &timestamps))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  vp_diags d = {0};
  vrt_recording *r = vrt_record_begin(ctx, timestamps ? VRT_RECORD_TIMESTAMPS : 0, &d);
  if (!r)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  vpy_recording *self = PyObject_New(vpy_recording, type);
  if (!self) {
    vrt_record_destroy(r);
    return NULL;
  }
  self->r = r;
  self->context = Py_NewRef(context);
  self->refs = PyList_New(0);
  return (PyObject *)self;
}

static void recording_dealloc(PyObject *obj) {
  vpy_recording *self = (vpy_recording *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  vrt_recording *r = vpy_forked(self->context) ? NULL : self->r;
  Py_BEGIN_ALLOW_THREADS
  if (r)
    vrt_record_destroy(r);
  Py_END_ALLOW_THREADS
  Py_XDECREF(self->refs);
  Py_XDECREF(self->context);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static vrt_context *rec_ctx(vpy_recording *self) { return ((vpy_context *)self->context)->ctx; }

/* dispatch(kernel, buffers, push, x, y, z, groups) */
static PyObject *recording_dispatch(PyObject *obj, PyObject *const *a, Py_ssize_t nargs) {
  vpy_recording *self = (vpy_recording *)obj;
  vpy_state *st = vpy_state_of(obj);
  if (nargs != 7 || !PyObject_TypeCheck(a[0], st->Kernel)) {
    PyErr_SetString(PyExc_TypeError, "dispatch(kernel, buffers, push, x, y, z, groups)");
    return NULL;
  }
  vpy_dispatch_args da;
  if (!vpy_parse_dispatch(st, a + 1, &da) || !vpy_no_ranges(&da))
    return NULL;
  vp_diags d = {0};
  bool ok = vrt_record_dispatch(self->r, ((vpy_kernel *)a[0])->k, &da.args, da.grid, &d);
  if (ok)
    ok = PyList_Append(self->refs, a[0]) == 0 && PyList_Append(self->refs, da.seq) == 0;
  Py_DECREF(da.seq);
  if (!ok)
    return vpy_raise(st, &d, NULL, rec_ctx(self), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

/* copy(dst, dst_offset, src, src_offset, size) */
static PyObject *recording_copy(PyObject *obj, PyObject *args) {
  vpy_recording *self = (vpy_recording *)obj;
  vpy_state *st = vpy_state_of(obj);
  PyObject *dst, *src;
  unsigned long long doff, soff, size;
  if (!PyArg_ParseTuple(args, "OO&OO&O&", &dst, vpy_arg_dst_offset, &doff, &src, vpy_arg_src_offset, &soff,
                        vpy_arg_size, &size))
    return NULL;
  vrt_buffer *db = vpy_buffer_get(st, dst), *sb = db ? vpy_buffer_get(st, src) : NULL;
  if (!sb)
    return NULL;
  vp_diags d = {0};
  if (!vrt_record_copy(self->r, db, doff, sb, soff, size, &d))
    return vpy_raise(st, &d, NULL, rec_ctx(self), NULL);
  vp_diags_free(&d);
  if (PyList_Append(self->refs, dst) < 0 || PyList_Append(self->refs, src) < 0)
    return NULL;
  Py_RETURN_NONE;
}

/* fill(buffer, offset, size, value) */
static PyObject *recording_fill(PyObject *obj, PyObject *args) {
  vpy_recording *self = (vpy_recording *)obj;
  vpy_state *st = vpy_state_of(obj);
  PyObject *buf;
  unsigned long long off, size;
  unsigned int value;
  if (!PyArg_ParseTuple(args, "OO&O&I", &buf, vpy_arg_offset, &off, vpy_arg_size, &size, &value))
    return NULL;
  vrt_buffer *b = vpy_buffer_get(st, buf);
  if (!b)
    return NULL;
  vp_diags d = {0};
  if (!vrt_record_fill(self->r, b, off, size, value, &d))
    return vpy_raise(st, &d, NULL, rec_ctx(self), NULL);
  vp_diags_free(&d);
  if (PyList_Append(self->refs, buf) < 0)
    return NULL;
  Py_RETURN_NONE;
}

/* submit() -> Ticket */
static PyObject *recording_submit(PyObject *obj, PyObject *noargs) {
  vpy_recording *self = (vpy_recording *)obj;
  vpy_state *st = vpy_state_of(obj);
  vp_diags d = {0};
  vrt_ticket t = 0;
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_record_submit(self->r, &t, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(st, &d, NULL, rec_ctx(self), NULL);
  vp_diags_free(&d);
  PyObject *none = PyTuple_New(0);
  PyObject *tk = none ? vpy_ticket_new(st, self->context, t, none) : NULL;
  Py_XDECREF(none);
  return tk;
}

/* run(): submit and wait. */
static PyObject *recording_run(PyObject *obj, PyObject *noargs) {
  vpy_recording *self = (vpy_recording *)obj;
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_record_run(self->r, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(vpy_state_of(obj), &d, NULL, rec_ctx(self), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

/* times() -> list of GPU ns per recorded dispatch. */
static PyObject *recording_times(PyObject *obj, PyObject *noargs) {
  vpy_recording *self = (vpy_recording *)obj;
  double ns[1024];
  uint32_t n = vrt_record_times(self->r, ns, 1024);
  PyObject *list = PyList_New(n);
  for (uint32_t i = 0; list && i < n; i++)
    PyList_SetItem(list, i, PyFloat_FromDouble(ns[i]));
  return list;
}

static PyMethodDef recording_methods[] = {
    {"dispatch", (PyCFunction)(void (*)(void))recording_dispatch, METH_FASTCALL,
     "dispatch(kernel, buffers, push, x, y, z, groups)"},
    {"copy", recording_copy, METH_VARARGS, "copy(dst, dst_offset, src, src_offset, size)"},
    {"fill", recording_fill, METH_VARARGS, "fill(buffer, offset, size, value)"},
    {"submit", recording_submit, METH_NOARGS, "submit() -> Ticket"},
    {"run", recording_run, METH_NOARGS, "run(): submit and wait"},
    {"times", recording_times, METH_NOARGS, "times() -> GPU ns of each dispatch"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot recording_slots[] = {
    {Py_tp_new, recording_new},
    {Py_tp_dealloc, recording_dealloc},
    {Py_tp_methods, recording_methods},
    {Py_tp_doc, "Recording(context, timestamps=False): dispatches submitted together"},
    {0, NULL},
};

PyType_Spec vpy_recording_spec = {
    .name = "vulpy._vulpy.Recording",
    .basicsize = sizeof(vpy_recording),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = recording_slots,
};
