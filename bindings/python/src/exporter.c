/* exporter.c - vulpy._vulpy.BufferExporter: the buffer protocol for
 * vp.ndarray on every Python the wheel supports.
 *
 * A class written in Python exports buffers only from Python 3.12 on
 * (`__buffer__`, PEP 688); vp.ndarray derives from this C type, whose
 * bf_getbuffer slot (in the limited API since 3.11) asks the object's
 * `__buffer__(flags)` for a memoryview (numpy_view()'s: the persistent
 * mapping, no copy) and re-exports it. The Py_buffer then holds the
 * memoryview (view->obj), which keeps the mapping's NumPy array alive until
 * the consumer releases it, so no releasebuffer slot is needed.
 */
#include "ext.h"

static int exporter_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  PyObject *mv = PyObject_CallMethod(self, "__buffer__", "i", flags);
  if (!mv)
    return -1;
  int r = PyObject_GetBuffer(mv, view, flags);
  Py_DECREF(mv);
  return r;
}

static PyType_Slot exporter_slots[] = {
    {Py_bf_getbuffer, exporter_getbuffer},
    {Py_tp_doc, "BufferExporter: base of vp.ndarray; memoryview(x) calls x.__buffer__(flags)"},
    {0, NULL},
};

PyType_Spec vpy_exporter_spec = {
    .name = "vulpy._vulpy.BufferExporter",
    .basicsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = exporter_slots,
};
