/* control.c - Control: named uint32 words that host and GPU update atomically.
 *
 * A wrapper over vrt_control. Loads, stores and adds go through the runtime's
 * atomic accessors, so they are safe while a kernel runs. The words are also
 * exported through the buffer protocol as a 1-D uint32 array ('I'), which is
 * what ControlBuffer.view() hands to NumPy; `buffer` is a Buffer that binds
 * the same memory to kernels.
 */
#include "ext.h"

/* Control(context, names, words) */
static PyObject *control_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"context", "names", "words", NULL};
  PyObject *context, *names;
  unsigned int words = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|I", kwlist, &context, &names, &words))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  PyObject *seq = PySequence_Fast(names, "names must be a sequence of str");
  if (!seq)
    return NULL;
  Py_ssize_t n = PySequence_Size(seq);
  const char **cn = PyMem_Calloc(n ? (size_t)n : 1, sizeof *cn);
  bool ok = cn != NULL;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *item = PySequence_GetItem(seq, i);
    cn[i] = item && PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, NULL) : NULL;
    Py_XDECREF(item); /* the sequence keeps the str (and its UTF-8) alive */
    if (!cn[i]) {
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "control word names must be str");
      ok = false;
    }
  }
  vrt_control *c = NULL;
  vp_diags d = {0};
  if (ok)
    c = vrt_control_create(ctx, cn, (uint32_t)n, words, &d);
  PyMem_Free(cn);
  Py_DECREF(seq);
  if (!ok)
    return NULL;
  if (!c)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  vpy_control *self = PyObject_New(vpy_control, type);
  if (!self) {
    vrt_control_destroy(c);
    return NULL;
  }
  self->c = c;
  self->context = Py_NewRef(context);
  self->shape[0] = (Py_ssize_t)vrt_control_words(c);
  self->strides[0] = 4;
  return (PyObject *)self;
}

static void control_dealloc(PyObject *obj) {
  vpy_control *self = (vpy_control *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  /* The borrowed Buffer holds a reference to us, so it is gone already. */
  if (!vpy_forked(self->context))
    vrt_control_destroy(self->c);
  Py_XDECREF(self->context);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static bool word_arg(vpy_control *self, PyObject *arg, uint32_t *word) {
  if (PyUnicode_Check(arg)) {
    const char *name = PyUnicode_AsUTF8AndSize(arg, NULL);
    int i = name ? vrt_control_index(self->c, name) : -1;
    if (i < 0) {
      if (name)
        PyErr_Format(PyExc_KeyError, "no control word named '%s'", name);
      return false;
    }
    *word = (uint32_t)i;
    return true;
  }
  unsigned long v = PyLong_AsUnsignedLong(arg);
  if (PyErr_Occurred() || v >= vrt_control_words(self->c)) {
    PyErr_Clear();
    PyErr_Format(PyExc_IndexError, "control word index must be in 0..%u",
                 vrt_control_words(self->c) - 1);
    return false;
  }
  *word = (uint32_t)v;
  return true;
}

static PyObject *control_load(PyObject *obj, PyObject *arg) {
  vpy_control *self = (vpy_control *)obj;
  uint32_t w;
  if (!word_arg(self, arg, &w))
    return NULL;
  return PyLong_FromUnsignedLong(vrt_control_load(self->c, w));
}

static PyObject *control_store(PyObject *obj, PyObject *args) {
  vpy_control *self = (vpy_control *)obj;
  PyObject *which;
  unsigned long long value;
  if (!PyArg_ParseTuple(args, "OO&", &which, vpy_arg_value, &value))
    return NULL;
  uint32_t w;
  if (!word_arg(self, which, &w))
    return NULL;
  if (value > UINT32_MAX)
    return PyErr_Format(PyExc_OverflowError, "control words are uint32; %llu does not fit", value);
  vrt_control_store(self->c, w, (uint32_t)value);
  Py_RETURN_NONE;
}

/* add(word, delta) -> the old value; delta may be negative (wraps mod 2^32) */
static PyObject *control_add(PyObject *obj, PyObject *args) {
  vpy_control *self = (vpy_control *)obj;
  PyObject *which;
  long long delta;
  if (!PyArg_ParseTuple(args, "OL", &which, &delta))
    return NULL;
  uint32_t w;
  if (!word_arg(self, which, &w))
    return NULL;
  return PyLong_FromUnsignedLong(vrt_control_add(self->c, w, (uint32_t)delta));
}

static PyObject *control_index(PyObject *obj, PyObject *arg) {
  uint32_t w;
  if (!word_arg((vpy_control *)obj, arg, &w))
    return NULL;
  return PyLong_FromUnsignedLong(w);
}

static PyObject *control_get_names(PyObject *obj, void *c) {
  vpy_control *self = (vpy_control *)obj;
  PyObject *list = PyList_New(0);
  for (uint32_t i = 0; list && i < vrt_control_words(self->c); i++) {
    const char *name = vrt_control_name(self->c, i);
    if (!name)
      break;
    PyObject *s = PyUnicode_FromString(name);
    if (!s || PyList_Append(list, s) < 0)
      Py_CLEAR(list);
    Py_XDECREF(s);
  }
  return list;
}

static PyObject *control_get_words(PyObject *obj, void *c) {
  return PyLong_FromUnsignedLong(vrt_control_words(((vpy_control *)obj)->c));
}

static PyObject *control_get_buffer(PyObject *obj, void *c) {
  vpy_control *self = (vpy_control *)obj;
  /* Not cached on self: the Buffer holds a reference to us (a cycle otherwise). */
  return vpy_buffer_wrap(vpy_state_of(obj), self->context, vrt_control_buffer(self->c), obj, true);
}

static PyObject *control_get_context(PyObject *obj, void *c) {
  return Py_NewRef(((vpy_control *)obj)->context);
}

static int control_getbuffer(PyObject *obj, Py_buffer *view, int flags) {
  vpy_control *self = (vpy_control *)obj;
  if (PyBuffer_FillInfo(view, obj, vrt_control_data(self->c), self->shape[0] * 4, 0, flags) < 0)
    return -1;
  /* A uint32 vector, when the consumer asks for the format. */
  if (flags & PyBUF_FORMAT)
    view->format = "I";
  view->itemsize = 4;
  if ((flags & PyBUF_ND) == PyBUF_ND) {
    view->ndim = 1;
    view->shape = self->shape;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
  }
  return 0;
}

static void control_releasebuffer(PyObject *obj, Py_buffer *view) {}

static PyMethodDef control_methods[] = {
    {"load", control_load, METH_O, "load(word) -> value (acquire)"},
    {"store", control_store, METH_VARARGS, "store(word, value) (release)"},
    {"add", control_add, METH_VARARGS, "add(word, delta) -> old value (atomic)"},
    {"index", control_index, METH_O, "index(name) -> word index"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef control_getset[] = {
    {"names", control_get_names, NULL, "the named words, in order", NULL},
    {"words", control_get_words, NULL, "number of words", NULL},
    {"buffer", control_get_buffer, NULL, "a Buffer to bind to kernels", NULL},
    {"context", control_get_context, NULL, "the Context", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot control_slots[] = {
    {Py_tp_new, control_new},
    {Py_tp_dealloc, control_dealloc},
    {Py_tp_methods, control_methods},
    {Py_tp_getset, control_getset},
    {Py_bf_getbuffer, control_getbuffer},
    {Py_bf_releasebuffer, control_releasebuffer},
    {Py_tp_doc, "Control(context, names, words=0): atomically shared uint32 words"},
    {0, NULL},
};

PyType_Spec vpy_control_spec = {
    .name = "vulpy._vulpy.Control",
    .basicsize = sizeof(vpy_control),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = control_slots,
};
