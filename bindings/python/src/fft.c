/* fft.c - fft_exec(): the runtime's VkFFT transforms (runtime/fft.c) for
 * vulpy.fft. Python (vulpy/fft.py) does the NumPy part - axes, n/s,
 * norm, real input - and hands over a contiguous complex buffer. */
#include "ext.h"


/* fft_exec(buffer, sizes, batch, double, inverse, input=None): sizes outer
 * to inner (1 to 3 axes, NumPy's order), transformed in place, or from
 * `input` into `buffer`. */
static PyObject *fft_exec(PyObject *self, PyObject *args) {
  PyObject *bobj, *sizes, *iobj = Py_None;
  unsigned long long batch;
  int dbl, inverse;
  if (!PyArg_ParseTuple(args, "OOKpp|O:fft_exec", &bobj, &sizes, &batch, &dbl, &inverse, &iobj))
    return NULL;
  vpy_state *st = vpy_module_state(self);
  vrt_buffer *b = vpy_buffer_get(st, bobj);
  if (!b)
    return NULL;
  vrt_buffer *in = iobj == Py_None ? b : vpy_buffer_get(st, iobj);
  if (!in)
    return NULL;
  Py_ssize_t n = PySequence_Size(sizes);
  if (n < 0)
    return NULL;
  vrt_fft_shape s = {.ndim = (uint32_t)n, .batch = batch, .dbl = dbl};
  if (n < 1 || n > 3)
    return PyErr_Format(PyExc_ValueError, "fft_exec: %zd axes (1 to 3)", n);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_GetItem(sizes, n - 1 - i);
    if (!item)
      return NULL;
    unsigned long long v = PyLong_AsUnsignedLongLong(item);
    Py_DECREF(item);
    if (PyErr_Occurred())
      return NULL;
    s.size[i] = v;
  }
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_fft_exec_to(in, b, &s, inverse, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(st, &d, NULL, NULL, NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

PyMethodDef vpy_fft_methods[] = {
    {"fft_exec", fft_exec, METH_VARARGS,
     "fft_exec(buffer, sizes, batch, double, inverse, input=None): complex FFT (VkFFT), in "
     "place or from input"},
    {NULL, NULL, 0, NULL},
};
