/* buffer.c - Buffer (a vrt_buffer) and HostMemory (page-aligned host memory).
 *
 * A Buffer whose memory is host-visible exports its persistent mapping
 * through the buffer protocol: `np.frombuffer(buf, dtype)` is then an ndarray
 * whose data pointer IS the Vulkan mapping (the zero-copy numpy_view of the
 * seed). Memory that is not host-visible refuses with BufferError.
 *
 * An imported Buffer wraps the memory of another Python object (a NumPy array
 * or a HostMemory) with VK_EXT_external_memory_host; it holds that object's
 * buffer view for its whole life, which pins the memory (import_range with
 * hold=False leaves the lifetime to the caller).
 *
 * A pooled Buffer (Context.scratch) gives its vrt_buffer back to the
 * context's pool when it dies, instead of freeing it.
 */
#include "ext.h"

#include <string.h>

PyObject *vpy_buffer_wrap(vpy_state *st, PyObject *context, vrt_buffer *b, PyObject *owner,
                          bool borrowed) {
  vpy_buffer *self = PyObject_New(vpy_buffer, st->Buffer);
  if (!self) {
    if (!borrowed)
      vrt_buffer_destroy(b);
    return NULL;
  }
  self->buf = b;
  self->context = Py_NewRef(context);
  self->owner = Py_XNewRef(owner);
  self->imported = false;
  self->borrowed = borrowed;
  self->pooled = false;
  self->cuda = NULL;
  memset(&self->import_view, 0, sizeof self->import_view);
  self->map = vrt_buffer_map(b);
  self->size = vrt_buffer_size(b);
  uint32_t flags = vrt_buffer_memory_flags(b);
  self->noncoherent = (flags & VRT_MEM_HOST_VISIBLE) && !(flags & VRT_MEM_HOST_COHERENT);
  return (PyObject *)self;
}

vrt_buffer *vpy_buffer_get(vpy_state *st, PyObject *obj) {
  if (!PyObject_TypeCheck(obj, st->Buffer)) {
    PyErr_Format(PyExc_TypeError, "expected a vulpy._vulpy.Buffer, got %R", (PyObject *)Py_TYPE(obj));
    return NULL;
  }
  return ((vpy_buffer *)obj)->buf;
}

bool vpy_buffer_flush(vpy_buffer *b, vp_diags *d) {
  return !b->noncoherent || vrt_buffer_flush(b->buf, d);
}

bool vpy_buffer_invalidate(vpy_buffer *b, vp_diags *d) {
  return !b->noncoherent || vrt_buffer_invalidate(b->buf, d);
}

static vrt_context *ctx_of(vpy_buffer *b) { return ((vpy_context *)b->context)->ctx; }

/* Buffer(context, size, kind="device", written=0): `written` bytes from the
 * start are written by the buffer's first operation (a kernel's result, a
 * full copy or upload), so only the rest is zeroed (vrt_buffer_create_ex). */
static PyObject *buffer_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"context", "size", "kind", "written", NULL};
  PyObject *context;
  unsigned long long size, written = 0;
  const char *kind = "device";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|sO&", kwlist, &context, vpy_arg_size, &size,
                                   &kind, vpy_arg_written, &written))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  int k = vrt_memory_kind_lookup(kind);
  if (k < 0)
    return PyErr_Format(PyExc_ValueError,
                        "memory must be one of 'device', 'host', 'cached', 'rebar', not '%s'", kind);
  vp_diags d = {0};
  vrt_buffer *b;
  Py_BEGIN_ALLOW_THREADS
  b = vrt_buffer_create_ex(ctx, size, (vrt_memory_kind)k, written, &d);
  Py_END_ALLOW_THREADS
  if (!b)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  return vpy_buffer_wrap(st, context, b, NULL, false);
}

/* Buffer.import_host(context, obj): zero-copy import of a writable,
 * contiguous, suitably aligned object's memory. */
static PyObject *buffer_import_host(PyObject *cls, PyObject *args) {
  PyObject *context, *obj;
  if (!PyArg_ParseTuple(args, "OO", &context, &obj))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule((PyTypeObject *)cls));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE | PyBUF_ND) < 0)
    return NULL;
  vp_diags d = {0};
  vrt_buffer *b = vrt_buffer_import_host(ctx, view.buf, (uint64_t)view.len, &d);
  if (!b) {
    PyBuffer_Release(&view);
    return vpy_raise(st, &d, NULL, ctx, NULL);
  }
  vp_diags_free(&d);
  vpy_buffer *self = (vpy_buffer *)vpy_buffer_wrap(st, context, b, obj, false);
  if (!self) {
    PyBuffer_Release(&view);
    return NULL;
  }
  self->import_view = view;
  self->imported = true;
  return (PyObject *)self;
}

/* Buffer.import_range(context, obj, hold=True): zero-copy import of any
 * writable C-contiguous object's memory by its pages (the object's data need
 * only be 16-byte aligned, as NumPy's is). With hold=False the Buffer does
 * not keep the object alive: the caller must drop the Buffer before the
 * object's memory goes (a weakref callback does, in vulpy._context). */
static PyObject *buffer_import_range(PyObject *cls, PyObject *args) {
  PyObject *context, *obj;
  int hold = 1;
  if (!PyArg_ParseTuple(args, "OO|p", &context, &obj, &hold))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule((PyTypeObject *)cls));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
    return NULL;
  vp_diags d = {0};
  vrt_buffer *b;
  Py_BEGIN_ALLOW_THREADS
  b = vrt_buffer_import_host_range(ctx, view.buf, (uint64_t)view.len, &d);
  Py_END_ALLOW_THREADS
  if (!b) {
    PyBuffer_Release(&view);
    return vpy_raise(st, &d, NULL, ctx, NULL);
  }
  vp_diags_free(&d);
  vpy_buffer *self = (vpy_buffer *)vpy_buffer_wrap(st, context, b, hold ? obj : NULL, false);
  if (!self || !hold) {
    PyBuffer_Release(&view);
    return (PyObject *)self;
  }
  self->import_view = view;
  self->imported = true;
  return (PyObject *)self;
}

static void buffer_dealloc(PyObject *obj) {
  vpy_buffer *self = (vpy_buffer *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  Py_CLEAR(self->cuda); /* CUDA's mapping goes before the Vulkan memory */
  if (self->pooled && self->buf && vpy_pool_put((vpy_context *)self->context, self->buf))
    self->buf = NULL; /* the context's pool has it now */
  if (!self->borrowed && self->buf && !vpy_forked(self->context)) {
    vrt_buffer *b = self->buf;
    Py_BEGIN_ALLOW_THREADS
    vrt_buffer_destroy(b); /* to the memory pool; an import waits for its GPU work */
    Py_END_ALLOW_THREADS
  }
  if (self->imported)
    PyBuffer_Release(&self->import_view);
  Py_XDECREF(self->owner);
  Py_XDECREF(self->context);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static int buffer_getbuffer(PyObject *obj, Py_buffer *view, int flags) {
  vpy_buffer *self = (vpy_buffer *)obj;
  if (!self->map && self->size) {
    PyErr_Format(PyExc_BufferError,
                 "this buffer's memory ('%s') is not host-visible on this device; map it with "
                 "memory='host', 'cached' or 'rebar' (or 'device' on unified-memory devices)",
                 vrt_memory_kind_name(vrt_buffer_kind(self->buf)));
    view->obj = NULL;
    return -1;
  }
  /* A new buffer's zeros may still be a GPU fill waiting to be sent, and
   * eager ufuncs (vpy_run_eager) do not wait: the host waits here for the
   * work submitted so far that uses the buffer - what writes it, and what
   * reads it before the host may write (issue 21) - then sees its writes.
   * Not a control buffer's (borrowed): a persistent kernel that uses it
   * may be waiting for the host. */
  if (self->size) {
    vp_diags d = {0};
    bool ok;
    vrt_buffer *b = self->buf;
    bool wait = !self->borrowed;
    Py_BEGIN_ALLOW_THREADS
    ok = vrt_buffer_host_ready(b, &d) &&
         (!wait || (vrt_buffer_wait(b, &d) && vpy_buffer_invalidate(self, &d)));
    Py_END_ALLOW_THREADS
    if (!ok) {
      view->obj = NULL;
      vpy_raise(vpy_state_of(obj), &d, NULL, ctx_of(self), NULL);
      return -1;
    }
    vp_diags_free(&d);
  }
  static char empty[16];
  return PyBuffer_FillInfo(view, obj, self->size ? self->map : empty, (Py_ssize_t)self->size, 0,
                           flags);
}

static void buffer_releasebuffer(PyObject *obj, Py_buffer *view) {}

/* upload(src, offset=0): copies a contiguous buffer-like object in. */
static PyObject *buffer_upload(PyObject *obj, PyObject *args) {
  vpy_buffer *self = (vpy_buffer *)obj;
  PyObject *src;
  unsigned long long offset = 0;
  if (!PyArg_ParseTuple(args, "O|O&", &src, vpy_arg_offset, &offset))
    return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(src, &view, PyBUF_C_CONTIGUOUS) < 0)
    return NULL;
  if ((uint64_t)view.len > self->size || offset > self->size - (uint64_t)view.len) {
    PyBuffer_Release(&view);
    return PyErr_Format(PyExc_ValueError, "upload of %zd bytes at offset %llu does not fit a buffer of %llu bytes",
                        view.len, offset, (unsigned long long)self->size);
  }
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_buffer_upload(self->buf, offset, view.buf, (uint64_t)view.len, &d) &&
       vpy_buffer_flush(self, &d);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (!ok)
    return vpy_raise(vpy_state_of(obj), &d, NULL, ctx_of(self), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

/* download(dst, offset=0): copies out into a writable contiguous object. */
static PyObject *buffer_download(PyObject *obj, PyObject *args) {
  vpy_buffer *self = (vpy_buffer *)obj;
  PyObject *dst;
  unsigned long long offset = 0;
  if (!PyArg_ParseTuple(args, "O|O&", &dst, vpy_arg_offset, &offset))
    return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(dst, &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
    return NULL;
  if ((uint64_t)view.len > self->size || offset > self->size - (uint64_t)view.len) {
    PyBuffer_Release(&view);
    return PyErr_Format(PyExc_ValueError, "download of %zd bytes at offset %llu does not fit a buffer of %llu bytes",
                        view.len, offset, (unsigned long long)self->size);
  }
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_buffer_download(self->buf, offset, view.buf, (uint64_t)view.len, &d);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (!ok)
    return vpy_raise(vpy_state_of(obj), &d, NULL, ctx_of(self), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

/* fill(value, offset=0, size=-1): 32-bit pattern fill on the GPU. */
static PyObject *buffer_fill(PyObject *obj, PyObject *args) {
  vpy_buffer *self = (vpy_buffer *)obj;
  unsigned int value;
  unsigned long long offset = 0, size = UINT64_MAX;
  if (!PyArg_ParseTuple(args, "I|O&O&", &value, vpy_arg_offset, &offset, vpy_arg_size_or_all, &size))
    return NULL;
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_buffer_fill(self->buf, offset, size, value, &d) &&
       vpy_buffer_invalidate(self, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(vpy_state_of(obj), &d, NULL, ctx_of(self), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

/* copy_from(src, dst_offset=0, src_offset=0, size=-1): GPU copy. */
static PyObject *buffer_copy_from(PyObject *obj, PyObject *args) {
  vpy_buffer *self = (vpy_buffer *)obj;
  PyObject *src;
  unsigned long long dst_off = 0, src_off = 0, size = UINT64_MAX;
  if (!PyArg_ParseTuple(args, "O|O&O&O&", &src, vpy_arg_dst_offset, &dst_off, vpy_arg_src_offset,
                        &src_off, vpy_arg_size_or_all, &size))
    return NULL;
  vpy_state *st = vpy_state_of(obj);
  vrt_buffer *sb = vpy_buffer_get(st, src);
  if (!sb)
    return NULL;
  uint64_t ss = vrt_buffer_size(sb), ds = vrt_buffer_size(self->buf);
  if (src_off > ss || dst_off > ds)
    return PyErr_Format(PyExc_ValueError, "copy_from: %s %llu is past the end of its buffer (%llu bytes)",
                        src_off > ss ? "src_offset" : "dst_offset", src_off > ss ? src_off : dst_off,
                        (unsigned long long)(src_off > ss ? ss : ds));
  uint64_t n = size == UINT64_MAX ? ss - src_off : (uint64_t)size;
  if (n > ss - src_off || n > ds - dst_off)
    return PyErr_Format(PyExc_ValueError, "copy_from: size %llu at src_offset %llu, dst_offset %llu "
                        "does not fit the buffers (%llu and %llu bytes)", (unsigned long long)n,
                        src_off, dst_off, (unsigned long long)ss, (unsigned long long)ds);
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vpy_buffer_flush((vpy_buffer *)src, &d) &&
       vrt_buffer_copy(self->buf, dst_off, sb, src_off, n, &d) && vpy_buffer_invalidate(self, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(st, &d, NULL, ctx_of(self), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

/* will_write(nbytes): the next operation writes bytes [0, nbytes) (vrt_buffer_will_write). */
static PyObject *buffer_will_write(PyObject *obj, PyObject *arg) {
  unsigned long long n = PyLong_AsUnsignedLongLong(arg);
  if (n == (unsigned long long)-1 && PyErr_Occurred())
    return NULL;
  vrt_buffer_will_write(((vpy_buffer *)obj)->buf, 0, n);
  Py_RETURN_NONE;
}

static PyObject *buffer_flush(PyObject *obj, PyObject *noargs) {
  vpy_buffer *self = (vpy_buffer *)obj;
  vp_diags d = {0};
  if (!vpy_buffer_flush(self, &d))
    return vpy_raise(vpy_state_of(obj), &d, NULL, ctx_of(self), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

static PyObject *buffer_invalidate(PyObject *obj, PyObject *noargs) {
  vpy_buffer *self = (vpy_buffer *)obj;
  vp_diags d = {0};
  if (!vpy_buffer_invalidate(self, &d))
    return vpy_raise(vpy_state_of(obj), &d, NULL, ctx_of(self), NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

static PyObject *buffer_get_size(PyObject *o, void *c) {
  return PyLong_FromUnsignedLongLong(((vpy_buffer *)o)->size);
}
static PyObject *buffer_get_kind(PyObject *o, void *c) {
  return PyUnicode_FromString(vrt_memory_kind_name(vrt_buffer_kind(((vpy_buffer *)o)->buf)));
}
static PyObject *buffer_get_context(PyObject *o, void *c) {
  return Py_NewRef(((vpy_buffer *)o)->context);
}
static PyObject *buffer_get_mapped(PyObject *o, void *c) {
  return PyBool_FromLong(((vpy_buffer *)o)->map != NULL);
}
static PyObject *buffer_get_address(PyObject *o, void *c) {
  void *p = ((vpy_buffer *)o)->map;
  if (!p)
    Py_RETURN_NONE;
  return PyLong_FromVoidPtr(p);
}
static PyObject *buffer_get_flags(PyObject *o, void *c) {
  return PyLong_FromUnsignedLong(vrt_buffer_memory_flags(((vpy_buffer *)o)->buf));
}
static PyObject *buffer_get_fallback(PyObject *o, void *c) {
  return PyLong_FromUnsignedLong(vrt_buffer_fallback(((vpy_buffer *)o)->buf));
}
static PyObject *buffer_get_imported(PyObject *o, void *c) {
  return PyBool_FromLong(((vpy_buffer *)o)->imported);
}
static PyObject *buffer_get_pooled(PyObject *o, void *c) {
  return PyBool_FromLong(((vpy_buffer *)o)->pooled);
}
static PyObject *buffer_get_last_use(PyObject *o, void *c) {
  return PyLong_FromUnsignedLongLong(vrt_buffer_last_use(((vpy_buffer *)o)->buf));
}
static PyObject *buffer_get_owner(PyObject *o, void *c) {
  PyObject *owner = ((vpy_buffer *)o)->owner;
  return Py_NewRef(owner ? owner : Py_None);
}

static PyMethodDef buffer_methods[] = {
    {"import_host", buffer_import_host, METH_VARARGS | METH_CLASS,
     "Buffer.import_host(context, obj): wrap obj's aligned host memory with no copy"},
    {"import_range", buffer_import_range, METH_VARARGS | METH_CLASS,
     "Buffer.import_range(context, obj, hold=True): wrap obj's memory (any 16-byte-aligned "
     "address) with no copy"},
    {"upload", buffer_upload, METH_VARARGS, "upload(src, offset=0): copy bytes in"},
    {"download", buffer_download, METH_VARARGS, "download(dst, offset=0): copy bytes out"},
    {"fill", buffer_fill, METH_VARARGS, "fill(value, offset=0, size=-1): fill with a 32-bit word"},
    {"copy_from", buffer_copy_from, METH_VARARGS,
     "copy_from(src, dst_offset=0, src_offset=0, size=-1): GPU copy from another buffer"},
    {"flush", buffer_flush, METH_NOARGS, "flush(): make host writes visible (non-coherent memory)"},
    {"will_write", buffer_will_write, METH_O,
     "will_write(nbytes): the next operation writes bytes [0, nbytes) whole, so their "
     "pending zero fill is dropped (never call it otherwise)"},
    {"invalidate", buffer_invalidate, METH_NOARGS,
     "invalidate(): make GPU writes visible to the host (non-coherent memory)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef buffer_getset[] = {
    {"size", buffer_get_size, NULL, "size in bytes", NULL},
    {"kind", buffer_get_kind, NULL, "memory kind: device, host, cached or rebar", NULL},
    {"context", buffer_get_context, NULL, "the Context", NULL},
    {"mapped", buffer_get_mapped, NULL, "True when the memory is host-visible", NULL},
    {"address", buffer_get_address, NULL, "the mapped address, or None", NULL},
    {"memory_flags", buffer_get_flags, NULL, "Vulkan memory property flags", NULL},
    {"fallback", buffer_get_fallback, NULL, "0, or the fallback tier the kind got", NULL},
    {"imported", buffer_get_imported, NULL, "True for imported host memory", NULL},
    {"owner", buffer_get_owner, NULL, "the object whose memory this is, or None", NULL},
    {"last_use", buffer_get_last_use, NULL,
     "the ticket of the last submission that used the buffer (0: none)", NULL},
    {"pooled", buffer_get_pooled, NULL, "True for a scratch buffer from the context's pool",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot buffer_slots[] = {
    {Py_tp_new, buffer_new},
    {Py_tp_dealloc, buffer_dealloc},
    {Py_tp_methods, buffer_methods},
    {Py_tp_getset, buffer_getset},
    {Py_bf_getbuffer, buffer_getbuffer},
    {Py_bf_releasebuffer, buffer_releasebuffer},
    {Py_tp_doc, "Buffer(context, size, kind='device', written=0): GPU memory of one memory kind "
                "(zeroed, but for the first `written` bytes, which the first operation writes)"},
    {0, NULL},
};

PyType_Spec vpy_buffer_spec = {
    .name = "vulpy._vulpy.Buffer",
    .basicsize = sizeof(vpy_buffer),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = buffer_slots,
};

/* ------------------------------------------------------- HostMemory */

typedef struct vpy_host_memory {
  PyObject_HEAD
  void *ptr;
  size_t size, alloc_size;
} vpy_host_memory;

/* Live HostMemory objects in the process: HostMemory.live() (tests check
 * that shared pages are freed once their last holder goes, issue 18). */
static _Atomic long host_memory_live;

/* HostMemory(size): page-aligned, zeroed host memory that any device with
 * external_memory_host can import. */
static PyObject *host_memory_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"size", NULL};
  Py_ssize_t size;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "n", kwlist, &size))
    return NULL;
  if (size < 0)
    return PyErr_Format(PyExc_ValueError, "size must be >= 0, not %zd", size);
  size_t alloc = 0;
  void *p = vrt_host_alloc((size_t)size, &alloc);
  if (!p)
    return PyErr_NoMemory();
  vpy_host_memory *self = PyObject_New(vpy_host_memory, type);
  if (!self) {
    vrt_host_free(p, alloc);
    return NULL;
  }
  self->ptr = p;
  self->size = (size_t)size;
  self->alloc_size = alloc;
  host_memory_live++;
  return (PyObject *)self;
}

static void host_memory_dealloc(PyObject *obj) {
  vpy_host_memory *self = (vpy_host_memory *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  vrt_host_free(self->ptr, self->alloc_size);
  host_memory_live--;
  PyObject_Free(obj);
  Py_DECREF(type);
}

/* The whole allocation is exported (a multiple of 64 KiB), so that an import
 * of it meets the device's size alignment. */
static int host_memory_getbuffer(PyObject *obj, Py_buffer *view, int flags) {
  vpy_host_memory *self = (vpy_host_memory *)obj;
  return PyBuffer_FillInfo(view, obj, self->ptr, (Py_ssize_t)self->alloc_size, 0, flags);
}

static void host_memory_releasebuffer(PyObject *obj, Py_buffer *view) {}

static PyObject *host_memory_get_size(PyObject *o, void *c) {
  return PyLong_FromSize_t(((vpy_host_memory *)o)->alloc_size);
}
static PyObject *host_memory_get_address(PyObject *o, void *c) {
  return PyLong_FromVoidPtr(((vpy_host_memory *)o)->ptr);
}

static PyObject *host_memory_live_count(PyObject *cls, PyObject *unused) {
  return PyLong_FromLong(host_memory_live);
}

static PyMethodDef host_memory_methods[] = {
    {"live", host_memory_live_count, METH_NOARGS | METH_CLASS,
     "HostMemory.live(): how many HostMemory objects are alive (their pages mapped)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef host_memory_getset[] = {
    {"size", host_memory_get_size, NULL, "allocated bytes (a multiple of 64 KiB)", NULL},
    {"address", host_memory_get_address, NULL, "the address", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot host_memory_slots[] = {
    {Py_tp_new, host_memory_new},
    {Py_tp_dealloc, host_memory_dealloc},
    {Py_tp_getset, host_memory_getset},
    {Py_tp_methods, host_memory_methods},
    {Py_bf_getbuffer, host_memory_getbuffer},
    {Py_bf_releasebuffer, host_memory_releasebuffer},
    {Py_tp_doc, "HostMemory(size): page-aligned zeroed host memory for zero-copy import"},
    {0, NULL},
};

PyType_Spec vpy_host_memory_spec = {
    .name = "vulpy._vulpy.HostMemory",
    .basicsize = sizeof(vpy_host_memory),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = host_memory_slots,
};
