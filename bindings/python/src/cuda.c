/* cuda.c - VulPy device memory seen by CUDA (issue 18: DLPack kDLCUDA).
 *
 * An exportable buffer (runtime/export.c: a dedicated device-local
 * allocation exported as an opaque fd) is imported into CUDA with
 * cuImportExternalMemory and mapped with cuExternalMemoryGetMappedBuffer;
 * the device pointer goes into a kDLCUDA DLPack capsule (dlpack.c), so
 * cupy.from_dlpack / torch.from_dlpack see VulPy's bytes with no copy.
 * libcuda.so.1 is opened with dlopen at run time: nothing links CUDA, and
 * where it is missing (or finds no CUDA device with the Vulkan device's
 * UUID) cuda_probe() says why. The CUDA device is matched by UUID
 * (cuDeviceGetUuid against VkPhysicalDeviceIDProperties.deviceUUID).
 *
 * CudaMapping owns the import: its dealloc frees the mapping (cuMemFree)
 * and the external memory, with the device's primary context current.
 * A buffer keeps its first mapping (vpy_buffer.cuda) until it dies, so
 * handing the same array to CUDA again costs a sync point and a capsule,
 * whatever its size; only the first import maps the pages.
 */
#include "ext.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUextMemory_st *CUexternalMemory;
typedef unsigned long long CUdeviceptr;
typedef struct {
  char bytes[16];
} CUuuid;
typedef struct {
  int type; /* CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1 */
  union {
    int fd;
    struct {
      void *handle;
      const void *name;
    } win32;
    const void *nvSciBufObject;
  } handle;
  unsigned long long size;
  unsigned int flags; /* CUDA_EXTERNAL_MEMORY_DEDICATED = 1 */
  unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_HANDLE_DESC;
typedef struct {
  unsigned long long offset, size;
  unsigned int flags;
  unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_BUFFER_DESC;

static struct {
  bool tried, ok;
  char why[256];
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetUuid)(CUuuid *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext *);
  CUresult (*cuImportExternalMemory)(CUexternalMemory *, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *);
  CUresult (*cuExternalMemoryGetMappedBuffer)(CUdeviceptr *, CUexternalMemory,
                                              const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *);
  CUresult (*cuDestroyExternalMemory)(CUexternalMemory);
  CUresult (*cuMemFree)(CUdeviceptr);
} cu;

/* Opens libcuda once (GIL held); false with cu.why. */
static bool cuda_open(void) {
  if (cu.tried)
    return cu.ok;
  cu.tried = true;
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(cu.why, sizeof cu.why, "libcuda.so.1 (the NVIDIA driver's CUDA library) is not "
                                    "installed or cannot be loaded");
    return false;
  }
#define CU_SYM(name, sym)                                                     \
  if (!(*(void **)&cu.name = dlsym(h, sym))) {                                 \
    snprintf(cu.why, sizeof cu.why, "libcuda.so.1 lacks %s (a CUDA 10+ driver is needed)", sym); \
    return false;                                                              \
  }
  CU_SYM(cuInit, "cuInit")
  CU_SYM(cuDeviceGetCount, "cuDeviceGetCount")
  CU_SYM(cuDeviceGet, "cuDeviceGet")
  CU_SYM(cuDeviceGetUuid, "cuDeviceGetUuid")
  CU_SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  CU_SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")
  CU_SYM(cuCtxPushCurrent, "cuCtxPushCurrent_v2")
  CU_SYM(cuCtxPopCurrent, "cuCtxPopCurrent_v2")
  CU_SYM(cuImportExternalMemory, "cuImportExternalMemory")
  CU_SYM(cuExternalMemoryGetMappedBuffer, "cuExternalMemoryGetMappedBuffer")
  CU_SYM(cuDestroyExternalMemory, "cuDestroyExternalMemory")
  CU_SYM(cuMemFree, "cuMemFree_v2")
#undef CU_SYM
  CUresult r = cu.cuInit(0);
  if (r) {
    snprintf(cu.why, sizeof cu.why, "cuInit failed (CUresult %d): no usable CUDA driver", r);
    return false;
  }
  cu.ok = true;
  return true;
}

/* The CUDA ordinal of the device whose UUID is `uuid`, or -1 with cu.why. */
static int cuda_device(const unsigned char *uuid, char *why, size_t n) {
  int count = 0;
  if (cu.cuDeviceGetCount(&count) || count <= 0) {
    snprintf(why, n, "CUDA sees no device");
    return -1;
  }
  for (int i = 0; i < count; i++) {
    CUdevice dev;
    CUuuid u;
    if (!cu.cuDeviceGet(&dev, i) && !cu.cuDeviceGetUuid(&u, dev) && memcmp(u.bytes, uuid, 16) == 0)
      return i;
  }
  snprintf(why, n, "none of CUDA's %d device(s) has this Vulkan device's UUID (another "
                   "vendor, or a device CUDA does not see)", count);
  return -1;
}

/* cuda_probe(uuid: bytes) -> (ordinal or -1, reason) */
static PyObject *cuda_probe(PyObject *m, PyObject *arg) {
  char *uuid;
  Py_ssize_t n;
  if (PyBytes_AsStringAndSize(arg, &uuid, &n) < 0)
    return NULL;
  if (n != 16)
    return PyErr_Format(PyExc_ValueError, "cuda_probe: a UUID is 16 bytes, got %zd", n);
  if (!cuda_open())
    return Py_BuildValue("(is)", -1, cu.why);
  char why[256] = "";
  int dev = cuda_device((const unsigned char *)uuid, why, sizeof why);
  return Py_BuildValue("(is)", dev, why);
}

/* ------------------------------------------------------- CudaMapping */

typedef struct {
  PyObject_HEAD
  CUdevice dev;
  CUcontext cctx;
  CUexternalMemory mem;
  CUdeviceptr ptr;
  int ordinal;
  pid_t pid; /* CUDA is not fork-safe: a forked child leaves the parent's import alone */
  unsigned char uuid[16]; /* the device it was imported for */
} vpy_cuda_mapping;

static void mapping_dealloc(PyObject *obj) {
  vpy_cuda_mapping *self = (vpy_cuda_mapping *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  if (self->cctx && cu.ok && self->pid == getpid()) {
    cu.cuCtxPushCurrent(self->cctx);
    if (self->ptr)
      cu.cuMemFree(self->ptr);
    if (self->mem)
      cu.cuDestroyExternalMemory(self->mem);
    CUcontext old;
    cu.cuCtxPopCurrent(&old);
    cu.cuDevicePrimaryCtxRelease(self->dev);
  }
  PyObject_Free(obj);
  Py_DECREF(type);
}

static PyObject *mapping_get(PyObject *obj, void *what) {
  vpy_cuda_mapping *self = (vpy_cuda_mapping *)obj;
  return what ? PyLong_FromLong(self->ordinal) : PyLong_FromUnsignedLongLong(self->ptr);
}

static PyGetSetDef mapping_getset[] = {
    {"pointer", mapping_get, NULL, "the CUDA device pointer", NULL},
    {"device", mapping_get, NULL, "the CUDA device ordinal", (void *)1},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot mapping_slots[] = {
    {Py_tp_dealloc, mapping_dealloc},
    {Py_tp_getset, mapping_getset},
    {Py_tp_doc, "a VulPy buffer's memory imported into CUDA (cuda_import)"},
    {0, NULL},
};

static PyType_Spec mapping_spec = {"vulpy._vulpy.CudaMapping", sizeof(vpy_cuda_mapping), 0,
                                   Py_TPFLAGS_DEFAULT, mapping_slots};

/* cuda_import(buffer, uuid: bytes) -> CudaMapping: the exportable buffer's
 * memory mapped into CUDA on the device with that UUID. */
static PyObject *cuda_import(PyObject *m, PyObject *args) {
  PyObject *buffer;
  char *uuid;
  Py_ssize_t n;
  if (!PyArg_ParseTuple(args, "Oy#", &buffer, &uuid, &n))
    return NULL;
  vpy_state *st = vpy_module_state(m);
  vrt_buffer *b = vpy_buffer_get(st, buffer);
  if (!b)
    return NULL;
  if (n != 16)
    return PyErr_Format(PyExc_ValueError, "cuda_import: a UUID is 16 bytes, got %zd", n);
  vpy_buffer *vb = (vpy_buffer *)buffer; /* vpy_buffer_get checked its type */
  if (vb->cuda) {
    if (memcmp(((vpy_cuda_mapping *)vb->cuda)->uuid, uuid, 16) == 0)
      return Py_NewRef(vb->cuda);
    Py_CLEAR(vb->cuda); /* asked for another device: import again */
  }
  if (!cuda_open())
    return PyErr_Format(PyExc_BufferError, "CUDA export: %s", cu.why);
  char why[256];
  int ordinal = cuda_device((const unsigned char *)uuid, why, sizeof why);
  if (ordinal < 0)
    return PyErr_Format(PyExc_BufferError, "CUDA export: %s", why);
  vp_diags d = {0};
  uint64_t alloc = 0;
  int fd = vrt_buffer_export_fd(b, &alloc, &d);
  if (fd < 0)
    return vpy_raise(st, &d, PyExc_BufferError, NULL, NULL);
  vp_diags_free(&d);
  PyObject *t = PyObject_GetAttrString(m, "CudaMapping");
  vpy_cuda_mapping *self = t ? PyObject_New(vpy_cuda_mapping, (PyTypeObject *)t) : NULL;
  Py_XDECREF(t);
  if (!self) {
    close(fd);
    return NULL;
  }
  self->cctx = NULL;
  self->mem = NULL;
  self->ptr = 0;
  self->ordinal = ordinal;
  self->pid = getpid();
  memcpy(self->uuid, uuid, 16);
  CUresult r = cu.cuDeviceGet(&self->dev, ordinal);
  if (!r)
    r = cu.cuDevicePrimaryCtxRetain(&self->cctx, self->dev);
  if (r) {
    self->cctx = NULL;
    close(fd);
    Py_DECREF(self);
    return PyErr_Format(PyExc_BufferError, "CUDA export: cuDevicePrimaryCtxRetain failed "
                                           "(CUresult %d)", r);
  }
  cu.cuCtxPushCurrent(self->cctx);
  CUDA_EXTERNAL_MEMORY_HANDLE_DESC hd;
  memset(&hd, 0, sizeof hd);
  hd.type = 1; /* OPAQUE_FD */
  hd.handle.fd = fd;
  hd.size = alloc;
  hd.flags = 1; /* dedicated: runtime/export.c allocates one VkDeviceMemory per buffer */
  r = cu.cuImportExternalMemory(&self->mem, &hd);
  const char *call = "cuImportExternalMemory";
  if (r) {
    close(fd); /* CUDA took it only on success */
    self->mem = NULL;
  } else {
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd;
    memset(&bd, 0, sizeof bd);
    bd.size = vrt_buffer_size(b);
    r = cu.cuExternalMemoryGetMappedBuffer(&self->ptr, self->mem, &bd);
    call = "cuExternalMemoryGetMappedBuffer";
    if (r)
      self->ptr = 0;
  }
  CUcontext old;
  cu.cuCtxPopCurrent(&old);
  if (r) {
    Py_DECREF(self);
    return PyErr_Format(PyExc_BufferError, "CUDA export: %s failed (CUresult %d)", call, r);
  }
  vb->cuda = Py_NewRef((PyObject *)self);
  return (PyObject *)self;
}

/* exportable_buffer(context, size) -> Buffer (runtime/export.c), whose
 * `owner` is the str "exportable" */
static PyObject *exportable_buffer(PyObject *m, PyObject *args) {
  PyObject *context;
  unsigned long long size;
  if (!PyArg_ParseTuple(args, "OO&", &context, vpy_arg_size, &size))
    return NULL;
  vpy_state *st = vpy_module_state(m);
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  vp_diags d = {0};
  vrt_buffer *b;
  Py_BEGIN_ALLOW_THREADS
  b = vrt_buffer_create_exportable(ctx, size, &d);
  Py_END_ALLOW_THREADS
  if (!b)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  /* owner "exportable": how vulpy/_cuda.py tells these buffers apart */
  PyObject *mark = PyUnicode_FromString("exportable");
  PyObject *o = mark ? vpy_buffer_wrap(st, context, b, mark, false) : NULL;
  Py_XDECREF(mark);
  if (!o && !mark)
    vrt_buffer_destroy(b);
  return o;
}

static PyObject *can_export_memory(PyObject *m, PyObject *context) {
  vrt_context *ctx = vpy_context_get(vpy_module_state(m), context);
  return ctx ? PyBool_FromLong(vrt_context_can_export_memory(ctx)) : NULL;
}

static PyMethodDef cuda_functions[] = {
    {"cuda_probe", cuda_probe, METH_O,
     "cuda_probe(uuid) -> (CUDA ordinal or -1, reason): libcuda and the device with that UUID"},
    {"cuda_import", cuda_import, METH_VARARGS,
     "cuda_import(buffer, uuid) -> CudaMapping of an exportable buffer"},
    {"exportable_buffer", exportable_buffer, METH_VARARGS,
     "exportable_buffer(context, size) -> Buffer in exportable device memory"},
    {"can_export_memory", can_export_memory, METH_O,
     "can_export_memory(context) -> whether the device exports memory as opaque fds"},
    {NULL, NULL, 0, NULL},
};

int vpy_cuda_init(PyObject *m) {
  PyObject *t = PyType_FromModuleAndSpec(m, &mapping_spec, NULL);
  if (!t)
    return -1;
  int r = PyModule_AddObjectRef(m, "CudaMapping", t);
  Py_DECREF(t);
  if (r < 0)
    return -1;
  return PyModule_AddFunctions(m, cuda_functions);
}
