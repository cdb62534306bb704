/* memsock.c - MemSock: the host side of a MemSock ring (vrt_memsock).
 *
 * A thin skin: the frames are exported through the buffer protocol (bytes,
 * all slots; vulpy/_memsock.py cuts per-slot NumPy views out of it once),
 * `frames` and `ring` are Buffers that kernels bind, and next() waits for a
 * frame with the GIL released, so a Python poller thread costs the
 * interpreter nothing while it waits. One frame is out at a time; release()
 * returns its slot to the GPU.
 */
#include "ext.h"
#include "vulpy/memsock_abi.h"

typedef struct vpy_memsock {
  PyObject_HEAD
  vrt_memsock *ms;
  PyObject *context;
  PyObject *frames; /* the caller's frames Buffer (user pages), kept alive past the pipe */
  vrt_memsock_frame cur;
  bool out;
} vpy_memsock;

static PyObject *ms_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"context",   "elem_size",  "frame_elems", "payload_words",
                           "capacity",  "policy",     "memory",      "signature",
                           "spin_limit", "poll_spin", "poll_sleep_us", "active_spin_us",
                           "frames",    NULL};
  PyObject *context, *frames = Py_None;
  unsigned int elem_size, payload_words, capacity, signature = 0, spin = 0, poll_spin = 0,
                                                   poll_sleep = 0, active_spin = 0;
  unsigned long long frame_elems;
  const char *policy, *memory;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OIKIIss|IIIIIO", kwlist, &context, &elem_size,
                                   &frame_elems, &payload_words, &capacity, &policy, &memory,
                                   &signature, &spin, &poll_spin, &poll_sleep, &active_spin,
                                   &frames))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  int pol = vrt_memsock_policy_lookup(policy);
  if (pol < 0)
    return PyErr_Format(PyExc_ValueError,
                        "policy='%s': use 'block', 'skip' or 'overwrite'", policy);
  int kind = vrt_memory_kind_lookup(memory);
  if (kind < 0)
    return PyErr_Format(PyExc_ValueError,
                        "memory='%s': use 'cached', 'host', 'rebar' or 'device'", memory);
  vrt_memsock_desc desc = {.elem_size = elem_size, .frame_elems = frame_elems,
                           .payload_words = payload_words, .capacity = capacity,
                           .policy = (vrt_memsock_policy)pol, .memory = (vrt_memory_kind)kind,
                           .signature = signature, .spin_limit = spin, .poll_spin = poll_spin,
                           .poll_sleep_us = poll_sleep, .active_spin_us = active_spin};
  if (frames != Py_None && !(desc.frames = vpy_buffer_get(st, frames)))
    return NULL;
  vp_diags d = {0};
  vrt_memsock *ms = vrt_memsock_create(ctx, &desc, &d);
  if (!ms)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  vpy_memsock *self = PyObject_New(vpy_memsock, type);
  if (!self) {
    vrt_memsock_destroy(ms);
    return NULL;
  }
  self->ms = ms;
  self->context = Py_NewRef(context);
  self->frames = frames != Py_None ? Py_NewRef(frames) : NULL;
  self->out = false;
  return (PyObject *)self;
}

static void ms_dealloc(PyObject *obj) {
  vpy_memsock *self = (vpy_memsock *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  /* A forked child's copy: the poller thread and the lock's holder are the
   * parent's (a join would wait for a thread that is not there); leave it. */
  if (!vpy_forked(self->context)) {
    Py_BEGIN_ALLOW_THREADS
    vrt_memsock_destroy(self->ms);
    Py_END_ALLOW_THREADS
  }
  Py_XDECREF(self->frames); /* after the pipe: it used these frames until destroyed */
  Py_XDECREF(self->context);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static PyObject *fail(PyObject *obj, vp_diags *d) {
  vpy_memsock *self = (vpy_memsock *)obj;
  return vpy_raise(vpy_state_of(obj), d, NULL, vpy_context_get(vpy_state_of(obj), self->context),
                   NULL);
}

/* next(timeout_s) -> (seq, slot, payload bytes, frame bytes or None) | None
 * (timeout) | False (closed and drained). */
static PyObject *ms_next(PyObject *obj, PyObject *arg) {
  vpy_memsock *self = (vpy_memsock *)obj;
  double t = PyFloat_AsDouble(arg);
  if (t == -1.0 && PyErr_Occurred())
    return NULL;
  if (self->out)
    return PyErr_Format(PyExc_RuntimeError, "MemSock.next: release the frame handed out before");
  uint64_t ns = t < 0 || t > 1e9 ? UINT64_MAX : (uint64_t)(t * 1e9);
  vp_diags d = {0};
  vrt_memsock_frame f;
  int r;
  Py_BEGIN_ALLOW_THREADS
  r = vrt_memsock_next(self->ms, ns, &f, &d);
  Py_END_ALLOW_THREADS
  if (r == -2)
    return fail(obj, &d);
  vp_diags_free(&d);
  if (r == 0)
    Py_RETURN_NONE;
  if (r == -1)
    Py_RETURN_FALSE;
  self->cur = f;
  self->out = true;
  const vrt_memsock_desc *desc = vrt_memsock_describe(self->ms);
  PyObject *pay = PyBytes_FromStringAndSize((const char *)f.payload, 4 * desc->payload_words);
  PyObject *frame = f.copied ? PyBytes_FromStringAndSize(
                                   f.data, (Py_ssize_t)(desc->frame_elems * desc->elem_size))
                             : Py_NewRef(Py_None);
  if (!pay || !frame) {
    Py_XDECREF(pay);
    Py_XDECREF(frame);
    return NULL;
  }
  return Py_BuildValue("(IINN)", f.seq, f.slot, pay, frame);
}

static PyObject *ms_release(PyObject *obj, PyObject *unused) {
  vpy_memsock *self = (vpy_memsock *)obj;
  if (self->out) {
    self->out = false;
    vrt_memsock_release(self->ms, &self->cur);
  }
  Py_RETURN_NONE;
}

static PyObject *ms_begin(PyObject *obj, PyObject *unused) {
  vp_diags d = {0};
  if (!vrt_memsock_begin_dispatch(((vpy_memsock *)obj)->ms, &d))
    return fail(obj, &d);
  Py_RETURN_NONE;
}

static PyObject *ms_end(PyObject *obj, PyObject *unused) {
  vp_diags d = {0};
  if (!vrt_memsock_end_dispatch(((vpy_memsock *)obj)->ms, &d))
    return fail(obj, &d);
  Py_RETURN_NONE;
}

static PyObject *ms_close(PyObject *obj, PyObject *unused) {
  if (!vpy_forked(((vpy_memsock *)obj)->context)) /* the parent's pipe: not ours to close */
    vrt_memsock_close(((vpy_memsock *)obj)->ms);
  Py_RETURN_NONE;
}

/* flush(timeout_s) -> True when every published frame is consumed */
static PyObject *ms_flush(PyObject *obj, PyObject *arg) {
  double t = PyFloat_AsDouble(arg);
  if (t == -1.0 && PyErr_Occurred())
    return NULL;
  uint64_t ns = t < 0 || t > 1e9 ? UINT64_MAX : (uint64_t)(t * 1e9);
  vp_diags d = {0};
  int r;
  Py_BEGIN_ALLOW_THREADS
  r = vrt_memsock_flush(((vpy_memsock *)obj)->ms, ns, &d);
  Py_END_ALLOW_THREADS
  if (r < 0)
    return fail(obj, &d);
  return PyBool_FromLong(r);
}

static PyObject *ms_stats(PyObject *obj, PyObject *unused) {
  vrt_memsock_stats s;
  vrt_memsock_stats_get(((vpy_memsock *)obj)->ms, &s);
  PyObject *dct = PyDict_New();
  if (!dct || !vpy_dict_set(dct, "published", PyLong_FromUnsignedLongLong(s.published)) ||
      !vpy_dict_set(dct, "delivered", PyLong_FromUnsignedLongLong(s.delivered)) ||
      !vpy_dict_set(dct, "dropped", PyLong_FromUnsignedLongLong(s.dropped)) ||
      !vpy_dict_set(dct, "torn", PyLong_FromUnsignedLongLong(s.torn)) ||
      !vpy_dict_set(dct, "pending", PyLong_FromUnsignedLong(s.pending)) ||
      !vpy_dict_set(dct, "gpu_dropped", PyLong_FromUnsignedLong(s.gpu_dropped)) ||
      !vpy_dict_set(dct, "gpu_timeouts", PyLong_FromUnsignedLong(s.gpu_timeouts)) ||
      !vpy_dict_set(dct, "gpu_cut", PyLong_FromUnsignedLongLong(s.gpu_cut)) ||
      !vpy_dict_set(dct, "closed", PyBool_FromLong(s.closed)) ||
      !vpy_dict_set(dct, "failed", PyBool_FromLong(s.failed))) {
    Py_XDECREF(dct);
    return NULL;
  }
  return dct;
}

/* seen_ns() -> when the consumer saw the last frame handed out (CLOCK_MONOTONIC
 * ns, as time.perf_counter_ns): the bench's publish -> callback figure */
static PyObject *ms_seen_ns(PyObject *obj, PyObject *unused) {
  return PyLong_FromUnsignedLongLong(vrt_memsock_seen_ns(((vpy_memsock *)obj)->ms));
}

/* header() -> the ring's header words (tests, debugging) */
static PyObject *ms_header(PyObject *obj, PyObject *unused) {
  const uint32_t *w = vrt_memsock_words(((vpy_memsock *)obj)->ms);
  PyObject *list = PyList_New(VMS_HDR_WORDS);
  for (int i = 0; list && i < VMS_HDR_WORDS; i++)
    PyList_SetItem(list, i, PyLong_FromUnsignedLong(w[i]));
  return list;
}

static PyObject *ms_get_frames(PyObject *obj, void *c) {
  vpy_memsock *self = (vpy_memsock *)obj;
  return vpy_buffer_wrap(vpy_state_of(obj), self->context, vrt_memsock_frames(self->ms), obj,
                         true);
}

static PyObject *ms_get_ring(PyObject *obj, void *c) {
  vpy_memsock *self = (vpy_memsock *)obj;
  return vpy_buffer_wrap(vpy_state_of(obj), self->context, vrt_memsock_ring(self->ms), obj, true);
}

static PyObject *ms_get_stride(PyObject *obj, void *c) {
  return PyLong_FromUnsignedLongLong(vrt_memsock_stride(((vpy_memsock *)obj)->ms));
}

static int ms_getbuffer(PyObject *obj, Py_buffer *view, int flags) {
  vpy_memsock *self = (vpy_memsock *)obj;
  const vrt_memsock_desc *desc = vrt_memsock_describe(self->ms);
  return PyBuffer_FillInfo(view, obj, vrt_memsock_slot_frame(self->ms, 0),
                           (Py_ssize_t)(vrt_memsock_stride(self->ms) * desc->capacity), 0, flags);
}

static void ms_releasebuffer(PyObject *obj, Py_buffer *view) {}

static PyMethodDef ms_methods[] = {
    {"next", ms_next, METH_O, "next(timeout_s) -> (seq, slot, payload, copy|None) | None | False"},
    {"release", ms_release, METH_NOARGS, "release() the frame handed out"},
    {"begin_dispatch", ms_begin, METH_NOARGS, "before a dispatch that binds the pipe"},
    {"end_dispatch", ms_end, METH_NOARGS, "after it (the GPU is done)"},
    {"close", ms_close, METH_NOARGS, "close(): the GPU stops writing and waiting"},
    {"flush", ms_flush, METH_O, "flush(timeout_s) -> bool: every published frame consumed"},
    {"stats", ms_stats, METH_NOARGS, "stats() -> dict"},
    {"seen_ns", ms_seen_ns, METH_NOARGS, "seen_ns() -> when the last frame was seen (ns)"},
    {"header", ms_header, METH_NOARGS, "header() -> the ring's header words (vulpy/memsock_abi.h)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ms_getset[] = {
    {"frames", ms_get_frames, NULL, "the frames Buffer (the kernel parameter's binding)", NULL},
    {"ring", ms_get_ring, NULL, "the ring words Buffer (the next binding)", NULL},
    {"stride", ms_get_stride, NULL, "bytes from one frame to the next", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot ms_slots[] = {
    {Py_tp_new, ms_new},
    {Py_tp_dealloc, ms_dealloc},
    {Py_tp_methods, ms_methods},
    {Py_tp_getset, ms_getset},
    {Py_bf_getbuffer, ms_getbuffer},
    {Py_bf_releasebuffer, ms_releasebuffer},
    {Py_tp_doc, "MemSock(context, elem_size, frame_elems, payload_words, capacity, policy, "
                "memory, signature=0, ...): the host side of a MemSock ring"},
    {0, NULL},
};

static PyType_Spec ms_spec = {
    .name = "vulpy._vulpy.MemSock",
    .basicsize = sizeof(vpy_memsock),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = ms_slots,
};

/* signature([(name, vir_type), ...]) -> the payload signature */
static PyObject *ms_signature(PyObject *m, PyObject *arg) {
  PyObject *seq = PySequence_Fast(arg, "signature() takes a list of (name, type) pairs");
  if (!seq)
    return NULL;
  Py_ssize_t n = PySequence_Size(seq);
  const char **names = PyMem_Calloc(n + 1, sizeof *names), **types = PyMem_Calloc(n + 1, sizeof *types);
  bool ok = names && types;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *item = PySequence_GetItem(seq, i);
    ok = item && PyArg_ParseTuple(item, "ss", &names[i], &types[i]);
    Py_XDECREF(item); /* the list keeps the tuples and their str alive */
  }
  PyObject *r = ok ? PyLong_FromUnsignedLong(vrt_memsock_signature(names, types, (uint32_t)n))
                   : NULL;
  PyMem_Free(names);
  PyMem_Free(types);
  Py_DECREF(seq);
  return r;
}

/* memsock_frames_bytes(elem_size, frame_elems, capacity) -> the bytes the frames take */
static PyObject *ms_frames_bytes(PyObject *m, PyObject *args) {
  unsigned int elem_size, capacity;
  unsigned long long frame_elems;
  if (!PyArg_ParseTuple(args, "IKI", &elem_size, &frame_elems, &capacity))
    return NULL;
  vrt_memsock_desc desc = {.elem_size = elem_size, .frame_elems = frame_elems,
                           .capacity = capacity};
  return PyLong_FromUnsignedLongLong(vrt_memsock_frames_bytes(&desc));
}

static PyMethodDef ms_functions[] = {
    {"memsock_frames_bytes", ms_frames_bytes, METH_VARARGS,
     "memsock_frames_bytes(elem_size, frame_elems, capacity) -> bytes of the frames"},
    {"memsock_signature", ms_signature, METH_O, "the payload signature of (name, type) pairs"},
    {NULL, NULL, 0, NULL},
};

int vpy_memsock_init(PyObject *m) {
  PyObject *t = PyType_FromModuleAndSpec(m, &ms_spec, NULL);
  if (!t)
    return -1;
  int r = PyModule_AddObjectRef(m, "MemSock", t);
  Py_DECREF(t);
  if (r < 0)
    return -1;
  return PyModule_AddFunctions(m, ms_functions);
}
