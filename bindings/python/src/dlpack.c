/* dlpack.c - DLPack export: a "dltensor" capsule over host-visible memory.
 *
 * `_vulpy.dlpack_capsule(owner, address, shape, strides, code, bits,
 * versioned, copied)` wraps memory the host can read (a resident array's
 * persistent mapping) in a DLManagedTensor inside a PyCapsule named
 * "dltensor" (DLPack 0.8), or, when the consumer asked with max_version >=
 * (1, 0), a DLManagedTensorVersioned in a "dltensor_versioned" capsule
 * (DLPack 1.0: with flags, so NumPy hands out a writable array; it marks
 * 0.8 imports read-only). The consumer (np.from_dlpack, torch, CuPy) renames
 * the capsule to "used_dltensor[_versioned]" and calls the deleter when it is
 * done; an unconsumed capsule calls it from its own destructor. The tensor holds a
 * strong reference to `owner` (the vp.ndarray and its NumPy view), so the
 * memory outlives every consumer. Waiting for the GPU is the caller's job
 * (vp.ndarray.__dlpack__ goes through the buffer protocol, which waits).
 *
 * The structs below are DLPack's (dlpack.h v1.0, which keeps v0.8's
 * unversioned DLManagedTensor), written out so the extension needs no header.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

/* ---- dlpack.h v0.8 layout ---- */
enum { VPY_kDLCPU = 1 };
typedef struct {
  int32_t device_type; /* DLDeviceType (a C enum: int) */
  int32_t device_id;
} DLDevice;
typedef struct {
  uint8_t code; /* DLDataTypeCode: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBool 6 */
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; /* in elements; NULL = C-contiguous */
  uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct {
  uint32_t major, minor;
} DLPackVersion;
#define DLPACK_FLAG_BITMASK_IS_COPIED (1ULL << 1)
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
/* ---- end of dlpack.h ---- */

static void release_owner(void *owner) {
  if (owner && Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)owner);
    PyGILState_Release(g);
  }
}

/* May run on any thread, with or without the GIL (DLPack's rule). */
static void dl_deleter(DLManagedTensor *t) {
  if (!t)
    return;
  release_owner(t->manager_ctx);
  free(t);
}

static void dl_deleter_v(DLManagedTensorVersioned *t) {
  if (!t)
    return;
  release_owner(t->manager_ctx);
  free(t);
}

/* A consumer renames the capsule to "used_dltensor[_versioned]" and owns the
 * tensor then; otherwise the capsule frees it. */
static void dl_capsule_destructor(PyObject *cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor *t = PyCapsule_GetPointer(cap, "dltensor");
    t->deleter(t);
  }
}

static void dl_capsule_destructor_v(PyObject *cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(cap, "dltensor_versioned");
    t->deleter(t);
  }
}

static bool read_dims(PyObject *seq, const char *what, int64_t *out, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *v = PySequence_GetItem(seq, i);
    if (!v)
      return false;
    long long x = PyLong_AsLongLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) {
      PyErr_Format(PyExc_TypeError, "dlpack_capsule: %s must be ints", what);
      return false;
    }
    out[i] = x;
  }
  return true;
}

static PyObject *dlpack_capsule(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *owner, *shape, *strides;
  unsigned long long address;
  int code, bits, versioned = 0, copied = 0, device_type = VPY_kDLCPU, device_id = 0;
  if (!PyArg_ParseTuple(args, "OKOOii|ppii:dlpack_capsule", &owner, &address, &shape, &strides,
                        &code, &bits, &versioned, &copied, &device_type, &device_id))
    return NULL;
  if (!PySequence_Check(shape) || (strides != Py_None && !PySequence_Check(strides))) {
    PyErr_SetString(PyExc_TypeError, "dlpack_capsule: shape and strides must be sequences");
    return NULL;
  }
  Py_ssize_t ndim = PySequence_Size(shape);
  if (ndim < 0)
    return NULL;
  if (strides != Py_None && PySequence_Size(strides) != ndim) {
    PyErr_SetString(PyExc_ValueError, "dlpack_capsule: strides must have one entry per dimension");
    return NULL;
  }
  if (code < 0 || code > 255 || bits <= 0 || bits > 255) {
    PyErr_SetString(PyExc_ValueError, "dlpack_capsule: bad dtype code or bits");
    return NULL;
  }
  /* one block: the managed tensor, then shape[ndim], then strides[ndim] */
  size_t nd = (size_t)ndim;
  size_t head = versioned ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
  head = (head + 7) & ~(size_t)7;
  char *block = calloc(1, head + 2 * (nd ? nd : 1) * sizeof(int64_t));
  if (!block)
    return PyErr_NoMemory();
  int64_t *dims = (int64_t *)(block + head);
  if (!read_dims(shape, "shape", dims, ndim) ||
      (strides != Py_None && !read_dims(strides, "strides", dims + nd, ndim))) {
    free(block);
    return NULL;
  }
  DLTensor *dl = versioned ? &((DLManagedTensorVersioned *)block)->dl_tensor
                           : &((DLManagedTensor *)block)->dl_tensor;
  dl->data = (void *)(uintptr_t)address;
  dl->device.device_type = device_type; /* kDLCPU, or kDLCUDA (cuda.c's mappings) */
  dl->device.device_id = device_id;
  dl->ndim = (int32_t)ndim;
  dl->dtype.code = (uint8_t)code;
  dl->dtype.bits = (uint8_t)bits;
  dl->dtype.lanes = 1;
  dl->shape = dims;
  dl->strides = strides == Py_None ? NULL : dims + nd;
  dl->byte_offset = 0;
  Py_INCREF(owner);
  PyObject *cap;
  if (versioned) {
    DLManagedTensorVersioned *t = (DLManagedTensorVersioned *)block;
    t->version.major = 1;
    t->version.minor = 0;
    t->manager_ctx = owner;
    t->deleter = dl_deleter_v;
    t->flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0; /* writable */
    cap = PyCapsule_New(t, "dltensor_versioned", dl_capsule_destructor_v);
  } else {
    DLManagedTensor *t = (DLManagedTensor *)block;
    t->manager_ctx = owner;
    t->deleter = dl_deleter;
    cap = PyCapsule_New(t, "dltensor", dl_capsule_destructor);
  }
  if (!cap) {
    Py_DECREF(owner);
    free(block);
  }
  return cap;
}

PyMethodDef vpy_dlpack_methods[] = {
    {"dlpack_capsule", dlpack_capsule, METH_VARARGS,
     "dlpack_capsule(owner, address, shape, strides, code, bits, versioned=False, "
     "copied=False, device_type=1, device_id=0) -> a 'dltensor' (or, versioned, a DLPack "
     "1.0 'dltensor_versioned') capsule over memory at `address` (kDLCPU host memory; "
     "device_type 2: a CUDA device pointer), keeping `owner` alive; strides in elements or "
     "None"},
    {NULL, NULL, 0, NULL},
};
