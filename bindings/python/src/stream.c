/* stream.c - Stream and Event (vrt_stream, vrt_event; issue 18).
 *
 * Thin skins: vulpy/_stream.py holds the Python API (vp.Stream, vp.Event,
 * `with stream:`). A Stream keeps its Context alive and is destroyed (after
 * its work) when it dies; stream_activate() makes one the current stream of
 * the calling thread (the runtime's current stream is thread-local, and
 * every Python thread is one OS thread). Waits release the GIL.
 */
#include "ext.h"

#include <string.h>

typedef struct vpy_stream {
  PyObject_HEAD
  vrt_stream *s;
  PyObject *context;
} vpy_stream;

typedef struct vpy_event {
  PyObject_HEAD
  vrt_event *e;
  PyObject *context;
} vpy_event;

static PyObject *module_of(PyObject *obj) { return PyType_GetModule(Py_TYPE(obj)); }
static vpy_state *state_of(PyObject *obj) { return vpy_module_state(module_of(obj)); }

/* The optional timeout argument of synchronize(timeout=None) in seconds:
 * false (with an exception) when it is not a number. */
static bool timeout_arg(PyObject *args, uint64_t *ns) {
  PyObject *timeout = Py_None;
  if (!PyArg_ParseTuple(args, "|O", &timeout))
    return false;
  *ns = UINT64_MAX;
  if (timeout == Py_None)
    return true;
  double s = PyFloat_AsDouble(timeout);
  if (PyErr_Occurred())
    return false;
  *ns = s <= 0 ? 0 : (uint64_t)(s * 1e9);
  return true;
}

/* A native Stream or None -> vrt_stream (NULL for None); false + TypeError.
 * `m`: the extension module (its Stream type). */
static bool stream_arg(PyObject *m, PyObject *arg, vrt_stream **out) {
  *out = NULL;
  if (arg == Py_None)
    return true;
  PyObject *t = PyObject_GetAttrString(m, "Stream");
  int is = t ? PyObject_IsInstance(arg, t) : -1;
  Py_XDECREF(t);
  if (is <= 0) {
    if (is == 0)
      PyErr_Format(PyExc_TypeError, "expected a Stream or None, got %R", arg);
    return false;
  }
  *out = ((vpy_stream *)arg)->s;
  return true;
}

/* ----------------------------------------------------------- Stream */

static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"context", "kind", NULL};
  PyObject *context;
  const char *kind = "compute";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|s", kwlist, &context, &kind))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  vrt_stream_kind k;
  if (strcmp(kind, "compute") == 0)
    k = VRT_STREAM_COMPUTE;
  else if (strcmp(kind, "transfer") == 0)
    k = VRT_STREAM_TRANSFER;
  else
    return PyErr_Format(PyExc_ValueError, "kind='%s': use 'compute' or 'transfer'", kind);
  vp_diags d = {0};
  vrt_stream *s = vrt_stream_create(ctx, k, &d);
  if (!s)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  vpy_stream *self = PyObject_New(vpy_stream, type);
  if (!self) {
    vrt_stream_destroy(s);
    return NULL;
  }
  self->s = s;
  self->context = Py_NewRef(context);
  return (PyObject *)self;
}

static void stream_dealloc(PyObject *obj) {
  vpy_stream *self = (vpy_stream *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  if (self->s && !vpy_forked(self->context)) {
    Py_BEGIN_ALLOW_THREADS
    vrt_stream_destroy(self->s);
    Py_END_ALLOW_THREADS
  }
  Py_XDECREF(self->context);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static vrt_context *ctx_of(PyObject *context) { return ((vpy_context *)context)->ctx; }

static PyObject *stream_synchronize(PyObject *obj, PyObject *args) {
  vpy_stream *self = (vpy_stream *)obj;
  uint64_t ns;
  if (!timeout_arg(args, &ns))
    return NULL;
  bool ok;
  vrt_context *ctx = ctx_of(self->context);
  vp_diags d = {0};
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_stream_synchronize(ctx, self->s, ns, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(state_of(obj), &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

static PyObject *stream_query(PyObject *obj, PyObject *unused) {
  vpy_stream *self = (vpy_stream *)obj;
  return PyBool_FromLong(vrt_stream_query(ctx_of(self->context), self->s));
}

static PyObject *stream_get(PyObject *obj, void *what) {
  vpy_stream *self = (vpy_stream *)obj;
  switch ((intptr_t)what) {
  case 0:
    return PyLong_FromUnsignedLong(vrt_stream_queue_family(self->s));
  case 1:
    return PyLong_FromUnsignedLong(vrt_stream_queue_index(self->s));
  case 2:
    return PyBool_FromLong(vrt_stream_shared(self->s));
  case 3:
    return PyUnicode_FromString(vrt_stream_kind_of(self->s) == VRT_STREAM_TRANSFER ? "transfer"
                                                                                  : "compute");
  case 4:
    return PyLong_FromUnsignedLongLong(vrt_stream_last(ctx_of(self->context), self->s));
  default:
    return Py_NewRef(self->context);
  }
}

static PyGetSetDef stream_getset[] = {
    {"queue_family", stream_get, NULL, "the Vulkan queue family", (void *)0},
    {"queue_index", stream_get, NULL, "the queue's index in its family", (void *)1},
    {"shared", stream_get, NULL, "the default stream's queue is this stream's", (void *)2},
    {"kind", stream_get, NULL, "'compute' or 'transfer'", (void *)3},
    {"last", stream_get, NULL, "the last ticket submitted on the stream", (void *)4},
    {"context", stream_get, NULL, "the native Context", (void *)5},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef stream_methods[] = {
    {"synchronize", stream_synchronize, METH_VARARGS, "synchronize(timeout=None)"},
    {"query", stream_query, METH_NOARGS, "query() -> whether the stream's work is done"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot stream_slots[] = {
    {Py_tp_new, stream_new},
    {Py_tp_dealloc, stream_dealloc},
    {Py_tp_methods, stream_methods},
    {Py_tp_getset, stream_getset},
    {Py_tp_doc, "Stream(context, kind='compute'): a line of work on a queue (vrt_stream)"},
    {0, NULL},
};

static PyType_Spec stream_spec = {"vulpy._vulpy.Stream", sizeof(vpy_stream), 0,
                                  Py_TPFLAGS_DEFAULT, stream_slots};

/* ------------------------------------------------------------ Event */

static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"context", "gate", NULL};
  PyObject *context;
  int gate = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p", kwlist, &context, &gate))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  vp_diags d = {0};
  vrt_event *e = gate ? vrt_event_create_gate(ctx, &d) : vrt_event_create(ctx, &d);
  if (!e)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  vpy_event *self = PyObject_New(vpy_event, type);
  if (!self) {
    vrt_event_destroy(e);
    return NULL;
  }
  self->e = e;
  self->context = Py_NewRef(context);
  return (PyObject *)self;
}

static void event_dealloc(PyObject *obj) {
  vpy_event *self = (vpy_event *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  if (self->e && !vpy_forked(self->context)) {
    Py_BEGIN_ALLOW_THREADS
    vrt_event_destroy(self->e);
    Py_END_ALLOW_THREADS
  }
  Py_XDECREF(self->context);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static PyObject *event_record(PyObject *obj, PyObject *args) {
  vpy_event *self = (vpy_event *)obj;
  PyObject *stream = Py_None;
  vrt_stream *s;
  if (!PyArg_ParseTuple(args, "|O", &stream) || !stream_arg(module_of(obj), stream, &s))
    return NULL;
  vp_diags d = {0};
  if (!vrt_event_record(self->e, s, &d))
    return vpy_raise(state_of(obj), &d, PyExc_ValueError, NULL, NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

static PyObject *event_query(PyObject *obj, PyObject *unused) {
  return PyBool_FromLong(vrt_event_query(((vpy_event *)obj)->e));
}

static PyObject *event_synchronize(PyObject *obj, PyObject *args) {
  vpy_event *self = (vpy_event *)obj;
  uint64_t ns;
  if (!timeout_arg(args, &ns))
    return NULL;
  bool ok;
  vp_diags d = {0};
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_event_synchronize(self->e, ns, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(state_of(obj), &d, NULL, ctx_of(self->context), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

static PyObject *event_set(PyObject *obj, PyObject *unused) {
  vpy_event *self = (vpy_event *)obj;
  vp_diags d = {0};
  if (!vrt_event_set(self->e, &d))
    return vpy_raise(state_of(obj), &d, PyExc_ValueError, NULL, NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

/* wait_on(context, stream_or_None): the stream of `context` waits for the
 * event; returns how: "gpu", "semaphore" (exported) or "host". */
static PyObject *event_wait_on(PyObject *obj, PyObject *args) {
  vpy_event *self = (vpy_event *)obj;
  PyObject *context, *stream;
  if (!PyArg_ParseTuple(args, "OO", &context, &stream))
    return NULL;
  vpy_state *st = state_of(obj);
  vrt_context *ctx = vpy_context_get(st, context);
  vrt_stream *s;
  if (!ctx || !stream_arg(module_of(obj), stream, &s))
    return NULL;
  vp_diags d = {0};
  vrt_wait_how how = VRT_WAIT_GPU;
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_stream_wait_event(ctx, s, self->e, &how, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  return PyUnicode_FromString(how == VRT_WAIT_HOST        ? "host"
                              : how == VRT_WAIT_SEMAPHORE ? "semaphore"
                                                          : "gpu");
}

static PyObject *event_get_context(PyObject *obj, void *c) {
  return Py_NewRef(((vpy_event *)obj)->context);
}

static PyGetSetDef event_getset[] = {
    {"context", event_get_context, NULL, "the native Context", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef event_methods[] = {
    {"record", event_record, METH_VARARGS, "record(stream=None)"},
    {"query", event_query, METH_NOARGS, "query() -> done"},
    {"synchronize", event_synchronize, METH_VARARGS, "synchronize(timeout=None)"},
    {"set", event_set, METH_NOARGS, "set(): opens a gate event"},
    {"wait_on", event_wait_on, METH_VARARGS, "wait_on(context, stream) -> 'gpu', 'semaphore' or 'host'"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot event_slots[] = {
    {Py_tp_new, event_new},
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {Py_tp_getset, event_getset},
    {Py_tp_doc, "Event(context, gate=False): a point on a stream (vrt_event)"},
    {0, NULL},
};

static PyType_Spec event_spec = {"vulpy._vulpy.Event", sizeof(vpy_event), 0, Py_TPFLAGS_DEFAULT,
                                 event_slots};

/* ----------------------------------------------------------- module */

/* stream_activate(stream_or_None): this thread's current stream. */
static PyObject *stream_activate(PyObject *m, PyObject *arg) {
  vrt_stream *s;
  if (!stream_arg(m, arg, &s))
    return NULL;
  vrt_stream_set_current(s);
  Py_RETURN_NONE;
}

static PyMethodDef stream_functions[] = {
    {"stream_activate", stream_activate, METH_O,
     "stream_activate(stream or None): the calling thread's current stream"},
    {NULL, NULL, 0, NULL},
};

int vpy_stream_init(PyObject *m) {
  PyType_Spec *specs[2] = {&stream_spec, &event_spec};
  const char *names[2] = {"Stream", "Event"};
  for (int i = 0; i < 2; i++) {
    PyObject *t = PyType_FromModuleAndSpec(m, specs[i], NULL);
    if (!t)
      return -1;
    int r = PyModule_AddObjectRef(m, names[i], t);
    Py_DECREF(t);
    if (r < 0)
      return -1;
  }
  return PyModule_AddFunctions(m, stream_functions);
}
