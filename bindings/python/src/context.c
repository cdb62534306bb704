/* context.c - Context: one Vulkan device, its queue and its caches.
 *
 * A thin wrapper over vrt_context. Buffers, kernels and control buffers hold a
 * reference to their Context object, so the vrt_context is destroyed only
 * after everything made from it (vrt_context_destroy would otherwise free
 * them under their Python objects). Waits release the GIL.
 */
#include "ext.h"

#include <string.h>

vrt_context *vpy_context_get(vpy_state *st, PyObject *obj) {
  if (!PyObject_TypeCheck(obj, st->Context)) {
    PyErr_Format(PyExc_TypeError, "expected a vulpy._vulpy.Context, got %R", (PyObject *)Py_TYPE(obj));
    return NULL;
  }
  return ((vpy_context *)obj)->ctx;
}

/* Context(device=None, validation=-1, cache_dir=None, spin_us=0,
 *         no_push_descriptors=False) */
static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"device", "validation", "cache_dir", "spin_us", "no_push_descriptors",
                           NULL};
  const char *device = NULL, *cache_dir = NULL;
  int validation = -1, no_push = 0;
  unsigned int spin_us = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|zizIp", kwlist, &device, &validation, &cache_dir,
                                   &spin_us, &no_push))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context_options opt = {0};
  opt.device = device;
  opt.validation = validation;
  opt.cache_dir = cache_dir;
  opt.spin_us = spin_us;
  opt.no_push_descriptors = no_push;
  vp_diags d = {0};
  vrt_context *ctx;
  Py_BEGIN_ALLOW_THREADS
  ctx = vrt_context_create(&opt, &d);
  Py_END_ALLOW_THREADS
  if (!ctx)
    return vpy_raise(st, &d, NULL, NULL, NULL);
  vp_diags_free(&d);
  vpy_context *self = PyObject_New(vpy_context, type);
  if (!self) {
    vrt_context_destroy(ctx);
    return NULL;
  }
  self->ctx = ctx;
  return (PyObject *)self;
}

static void context_dealloc(PyObject *obj) {
  vpy_context *self = (vpy_context *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  vrt_context *ctx = self->ctx;
  self->ctx = NULL;
  if (ctx) {
    Py_BEGIN_ALLOW_THREADS
    vrt_context_destroy(ctx);
    Py_END_ALLOW_THREADS
  }
  PyObject_Free(obj);
  Py_DECREF(type);
}

static PyObject *context_info(PyObject *obj, PyObject *noargs) {
  return vpy_device_info_dict(vrt_context_device(((vpy_context *)obj)->ctx));
}

static PyObject *context_describe(PyObject *obj, PyObject *args) {
  int verbose = 1;
  if (!PyArg_ParseTuple(args, "|p", &verbose))
    return NULL;
  vp_strbuf out = {0};
  vrt_device_format(vrt_context_device(((vpy_context *)obj)->ctx), verbose, &out);
  PyObject *s = PyUnicode_DecodeUTF8(out.data ? out.data : "", (Py_ssize_t)out.len, "replace");
  vp_strbuf_free(&out);
  return s;
}

static PyObject *context_lost(PyObject *obj, void *closure) {
  return PyBool_FromLong(vrt_context_lost(((vpy_context *)obj)->ctx));
}

/* take_validation() -> list of str: the validation messages since last time. */
static PyObject *context_take_validation(PyObject *obj, PyObject *noargs) {
  vp_diags d = {0};
  vrt_context_take_validation(((vpy_context *)obj)->ctx, &d);
  PyObject *list = PyList_New(0);
  for (uint32_t i = 0; list && i < d.count; i++) {
    PyObject *s = vpy_str_or_none(d.items[i].message);
    if (!s || PyList_Append(list, s) < 0)
      Py_CLEAR(list);
    Py_XDECREF(s);
  }
  vp_diags_free(&d);
  return list;
}

static PyObject *context_wait_idle(PyObject *obj, PyObject *noargs) {
  vpy_context *self = (vpy_context *)obj;
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_context_wait_idle(self->ctx, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(vpy_state_of(obj), &d, NULL, self->ctx, NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

static PyObject *context_stats(PyObject *obj, PyObject *noargs) {
  vrt_context_stats s;
  vrt_context_stats_get(((vpy_context *)obj)->ctx, &s);
  return Py_BuildValue("{sKsKsKsKsKsKsK}", "submits", (unsigned long long)s.submits,
                       "dispatches", (unsigned long long)s.dispatches,
                       "reused_launches", (unsigned long long)s.reused_launches, "blocks",
                       (unsigned long long)s.blocks, "block_bytes",
                       (unsigned long long)s.block_bytes, "used_bytes",
                       (unsigned long long)s.used_bytes, "pipelines",
                       (unsigned long long)s.pipelines);
}

/* inject_fault(call, vk_result) or inject_fault(None): the testing hook. */
static PyObject *context_inject_fault(PyObject *obj, PyObject *args) {
  const char *call = NULL;
  int result = 0;
  if (!PyArg_ParseTuple(args, "z|i", &call, &result))
    return NULL;
  vrt_context_inject_fault(((vpy_context *)obj)->ctx, call, result);
  Py_RETURN_NONE;
}

/* The address of the vrt_context, for C code that shares the context. */
static PyObject *context_address(PyObject *obj, void *closure) {
  return PyLong_FromVoidPtr(((vpy_context *)obj)->ctx);
}

static PyMethodDef context_methods[] = {
    {"info", context_info, METH_NOARGS, "info() -> dict describing the device"},
    {"describe", context_describe, METH_VARARGS, "describe(verbose=True) -> str"},
    {"take_validation", context_take_validation, METH_NOARGS,
     "take_validation() -> list of validation-layer messages since the last call"},
    {"wait_idle", context_wait_idle, METH_NOARGS, "wait_idle(): waits for all submitted work"},
    {"stats", context_stats, METH_NOARGS, "stats() -> dict of submission and memory counters"},
    {"inject_fault", context_inject_fault, METH_VARARGS,
     "inject_fault(call, vk_result): the next `call` fails with `vk_result` (tests)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
    {"lost", context_lost, NULL, "True once the device was lost", NULL},
    {"address", context_address, NULL, "the vrt_context pointer", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot context_slots[] = {
    {Py_tp_new, context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_doc, "Context(device=None, validation=-1, cache_dir=None, spin_us=0, "
                "no_push_descriptors=False): a Vulkan device and its compute queue"},
    {0, NULL},
};

PyType_Spec vpy_context_spec = {
    .name = "vulpy._vulpy.Context",
    .basicsize = sizeof(vpy_context),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = context_slots,
};
