/* ext.h - the private header of the `vulpy._vulpy` extension.
 *
 * The extension is built on the stable ABI (Py_LIMITED_API 3.11: one .so for
 * every CPython >= 3.11) and never touches NumPy's C API: arrays come and go
 * through the buffer protocol. It is a thin skin over the C libraries:
 *   module.c   module init, state, devices, diagnostics -> exceptions
 *   context.c  Context (vrt_context)
 *   buffer.c   Buffer (vrt_buffer; the mapping through the buffer protocol)
 *              and HostMemory (page-aligned memory for zero-copy import)
 *   kernel.c   Kernel and its dispatch
 *   submit.c   dispatch arguments, Ticket, Recording
 *   launch.c   Launcher: a kernel's common call (checks, push block, dispatch) in C;
 *              KernelCall, the base class of vp.kernel objects that calls it;
 *              and the vp ufuncs' C call (ufunc_call_class)
 *   compile.c  the compiler: AST JSON -> VIR -> GLSL/SPIR-V/CUDA/HIP/manifest,
 *              raw GLSL -> SPIR-V, reflection, manifests as dicts
 *   control.c  Control (vrt_control)
 *   dlpack.c   DLPack export capsules (__dlpack__)
 *   stream.c   Stream and Event (issue 18)
 *   cuda.c     exportable buffers and their CUDA import (dlopen'ed libcuda; kDLCUDA)
 * All per-interpreter data (types, exception classes) lives in the module
 * state; types are heap types created with PyType_FromModuleAndSpec, and
 * none may be subclassed (KernelCall aside: it never looks for the module),
 * so Py_TYPE(self) always finds the module.
 */
#ifndef VULPY_PY_EXT_H
#define VULPY_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>

#include "vulpy/manifest.h"
#include "vulpy/runtime.h"
#include "vulpy/support.h"

typedef struct vpy_state {
  PyTypeObject *Context, *Buffer, *HostMemory, *Kernel, *Ticket, *Recording, *Control,
      *Launcher, *KernelCall;
  /* from vulpy._errors */
  PyObject *VulkanError, *DeviceLostError, *OutOfMemoryError, *CompileError;
} vpy_state;

/* A free scratch buffer kept for reuse (context.c's pool). */
typedef struct vpy_pooled {
  vrt_buffer *b;
  uint64_t size;
  int kind;
} vpy_pooled;

typedef struct vpy_context {
  PyObject_HEAD
  vrt_context *ctx;
  /* Scratch buffers whose Buffer objects died, oldest first (GIL held). */
  vpy_pooled *pool;
  uint32_t npool, cappool;
  uint64_t pool_bytes;
} vpy_context;

typedef struct vpy_buffer {
  PyObject_HEAD
  vrt_buffer *buf;
  PyObject *context; /* the vpy_context: outlives the buffer */
  /* A buffer that is not ours to destroy (a control buffer's), or the
   * object whose memory an imported buffer wraps; kept alive. */
  PyObject *owner;
  Py_buffer import_view; /* held while an import lives (pins the memory) */
  bool imported, borrowed;
  bool pooled; /* a scratch buffer: back to the context's pool when it dies */
  bool noncoherent; /* host-visible but not coherent: flush/invalidate */
  void *map;
  uint64_t size;
  /* An exportable buffer's CUDA import (cuda.c: a CudaMapping), made by
   * its first __dlpack__ to CUDA and kept while the buffer lives, so later
   * exchanges of the same array do not import again. */
  PyObject *cuda;
} vpy_buffer;

typedef struct vpy_kernel {
  PyObject_HEAD
  vrt_kernel *k;
  PyObject *context;
  PyObject *manifest; /* dict, made on first use */
} vpy_kernel;

typedef struct vpy_control {
  PyObject_HEAD
  vrt_control *c;
  PyObject *context;
  Py_ssize_t shape[1], strides[1];
} vpy_control;

/* module.c */
vpy_state *vpy_state_of(PyObject *obj); /* from an object of one of our types */
vpy_state *vpy_module_state(PyObject *module);
/* Raises the diagnostics as `exc` (VulkanError when NULL; DeviceLostError
 * when `ctx` is lost; OutOfMemoryError for out-of-memory results), the
 * formatted text as message and a `diagnostics` list attribute; frees `d`.
 * `source` gives carets. Always returns NULL. */
PyObject *vpy_raise(vpy_state *st, vp_diags *d, PyObject *exc, vrt_context *ctx,
                    const char *source);
PyObject *vpy_device_info_dict(const vrt_device_info *info);
/* The widths of a VRT_DENORM_* mask as a tuple of bit counts: (16, 32, 64). */
PyObject *vpy_denorm_widths(uint32_t mask);
/* A str from a C string that may be NULL (-> None). */
PyObject *vpy_str_or_none(const char *s);
/* Sets a dict item and drops the reference to `value`; false on error. */
bool vpy_dict_set(PyObject *dict, const char *key, PyObject *value);
/* "code", "lanes" and "dtype" of VIR type spelling `type` into a manifest
 * entry's dict (kernel.c), so that Python never parses the spelling */
bool vpy_set_parsed_type(PyObject *d, const char *type);
/* Reads a (x[, y[, z]]) sequence or an int into out[3] (missing = `fill`). */
bool vpy_uint3(PyObject *obj, const char *what, uint32_t fill, uint32_t out[3]);
/* "O&" converters for byte counts and offsets (unsigned long long *): a
 * negative or >= 2^64 int is a ValueError naming the argument (PyArg's "K"
 * wraps it silently). *_or_all: -1 is UINT64_MAX ("the rest"). */
int vpy_arg_size(PyObject *o, void *out);
int vpy_arg_size_or_all(PyObject *o, void *out);
int vpy_arg_offset(PyObject *o, void *out);
int vpy_arg_dst_offset(PyObject *o, void *out);
int vpy_arg_src_offset(PyObject *o, void *out);
int vpy_arg_value(PyObject *o, void *out);
int vpy_arg_written(PyObject *o, void *out);
/* Issue 20: the runtime's interrupt check (runs Python's signal handlers on
 * the main thread; nonzero with the exception set, e.g. KeyboardInterrupt)
 * and whether a Context object is a forked child's copy of its parent's
 * (then nothing of its device may be touched, not even to free it). */
int vpy_interrupt_check(void *arg);
bool vpy_forked(PyObject *context);

/* context.c */
extern PyType_Spec vpy_context_spec;
vrt_context *vpy_context_get(vpy_state *st, PyObject *obj); /* NULL + TypeError */
/* Takes a pooled buffer back (false: the pool is full, destroy it). */
bool vpy_pool_put(vpy_context *c, vrt_buffer *b);
/* env_options(): the VULPY_* context options as a dict. */
PyObject *vpy_env_options(PyObject *m, PyObject *noargs);

/* buffer.c */
extern PyType_Spec vpy_buffer_spec, vpy_host_memory_spec;
/* A Buffer object around a vrt_buffer; `borrowed` buffers belong to `owner`. */
PyObject *vpy_buffer_wrap(vpy_state *st, PyObject *context, vrt_buffer *b, PyObject *owner,
                          bool borrowed);
vrt_buffer *vpy_buffer_get(vpy_state *st, PyObject *obj); /* NULL + TypeError */
/* Flushes host writes of a non-coherent mapping before the GPU reads it, and
 * invalidates after the GPU wrote it. */
bool vpy_buffer_flush(vpy_buffer *b, vp_diags *d);
bool vpy_buffer_invalidate(vpy_buffer *b, vp_diags *d);

/* kernel.c */
extern PyType_Spec vpy_kernel_spec;
PyObject *vpy_manifest_dict(const vpm_manifest *m);

/* submit.c: the arguments every dispatch takes, (buffers, push, x, y, z,
 * groups), parsed from a FASTCALL argument vector; Ticket; Recording. */
#define VPY_MAX_BINDINGS 64
typedef struct vpy_dispatch_args {
  vrt_buffer *bufs[VPY_MAX_BINDINGS];
  vpy_buffer *objs[VPY_MAX_BINDINGS];
  vrt_bind_range ranges[VPY_MAX_BINDINGS]; /* items (Buffer, offset, size) */
  bool ranged;                              /* some item was: vrt_dispatch_ranges */
  vrt_args args;
  vrt_grid grid;
  PyObject *seq; /* the buffers as a fast sequence (a new reference, or NULL) */
} vpy_dispatch_args;
/* False with an exception set and nothing held (out->seq NULL); true with
 * out->seq a new reference the caller releases. */
bool vpy_parse_dispatch(vpy_state *st, PyObject *const *a, vpy_dispatch_args *out);
/* True, or false with a ValueError (and da->seq released) when an item was
 * a bound range: the callers other than Kernel.dispatch bind whole buffers. */
bool vpy_no_ranges(vpy_dispatch_args *da);
bool vpy_flush_all(vpy_dispatch_args *da, vp_diags *d);
bool vpy_invalidate_all(vpy_dispatch_args *da, vp_diags *d);
/* A Ticket for work submitted at `t`; `buffers` (a tuple) stays alive with it. */
PyObject *vpy_ticket_new(vpy_state *st, PyObject *context, vrt_ticket t, PyObject *buffers);
extern PyType_Spec vpy_ticket_spec, vpy_recording_spec;

/* launch.c */
extern PyType_Spec vpy_launcher_spec, vpy_kernel_call_spec;
extern PyMethodDef vpy_ufunc_call_methods[];
/* push_pack(): vp's PushPacker in C, with the Launcher's value rules */
extern PyMethodDef vpy_push_methods[];
/* Runs a filled-in dispatch: flush, dispatch (sync: wait, then invalidate),
 * with the GIL released; then the call's result. Sync: `out`, or None when
 * `out` is NULL. Async: a Ticket that keeps the Buffers (da->seq, else
 * da->objs) alive, returned as it is when `handle_type` is NULL
 * (Kernel.dispatch), else handed to handle_type(ticket) or, with an `out`
 * (a ufunc's result), handle_type(ticket, None, out). Errors raise with the
 * runtime's diags. The caller holds the Buffers for the call. A non-NULL
 * `rb` (Kernel.dispatch's readback=) copies rb->src into rb->dst in the same
 * submission (vrt_dispatch_readback); `rdst` is rb->dst's Buffer, which a
 * sync call invalidates and an async call's Ticket keeps alive too. */
PyObject *vpy_run_dispatch(vpy_state *st, vpy_kernel *kern, vpy_dispatch_args *da, bool sync,
                           PyObject *handle_type, PyObject *out, const vrt_readback *rb,
                           vpy_buffer *rdst);
/* An eager ufunc's dispatch (issue 21): submitted and not waited for, as
 * CuPy's are; returns `out` (None when NULL). Host reads wait instead: a
 * Buffer's mapping (buffer protocol, so numpy_view()) and download wait for
 * the buffer's last use. Runs synchronously (vpy_run_dispatch) where a host
 * read could bypass that wait: an imported or borrowed buffer, whose owner
 * reads the memory directly. */
PyObject *vpy_run_eager(vpy_state *st, vpy_kernel *kern, vpy_dispatch_args *da, PyObject *out);

/* compile.c */
extern PyMethodDef vpy_compile_methods[];
/* VIR text parsed and verified (compile_vir, jit_compile): the module, or
 * NULL with CompileError raised against the text (*d then released). */
typedef struct vir_module vir_module;
vir_module *vpy_parse_vir(vpy_state *st, const char *text, size_t len, const char *name,
                          vp_diags *d);

/* kcache.c: the kernel cache on disk (lib/Target/kernel_cache.c) */
extern PyMethodDef vpy_kcache_methods[];
/* jit.c: array-level VIR through fuse and lower-arrays to kernels */
extern PyMethodDef vpy_jit_methods[];
/* dlpack.c: DLPack export capsules (issue 18) */
extern PyMethodDef vpy_dlpack_methods[];
/* fft.c: fft_exec() over the runtime's VkFFT transforms (issue 19) */
extern PyMethodDef vpy_fft_methods[];

/* control.c */
extern PyType_Spec vpy_control_spec;

/* memsock.c: adds the MemSock type and memsock_signature() to the module. */
int vpy_memsock_init(PyObject *m);
/* stream.c: adds the Stream and Event types and stream_activate() (issue 18). */
int vpy_stream_init(PyObject *m);
/* cuda.c: exportable buffers, the CUDA import (dlopen'ed libcuda) (issue 18). */
int vpy_cuda_init(PyObject *m);

/* fastarray.c: resident arrays made in C (the allocation fast path).
 * vpy_array_fast: whether `array_type` (vp.ndarray) has the slot layout
 * fastarray.c knows; vpy_array_new: a whole, C-contiguous array of `buf`
 * (a new reference; NULL with an exception); vpy_array_get: slot `slot` of
 * `obj`, an instance of that type exactly, read through its member
 * descriptor (a new reference), else through PyObject_GetAttr(obj, name);
 * NULL with an exception when unset. */
enum vpy_array_slot {
  VPY_A_BUF, VPY_A_CTX, VPY_A_SHAPE, VPY_A_DTYPE, VPY_A_SDTYPE, VPY_A_SIZE, VPY_A_OFFSET,
  VPY_A_ESTRIDES, VPY_A_WHOLE, VPY_A_MIRROR, VPY_A_NSLOTS
};
extern PyMethodDef vpy_fastarray_methods[];
bool vpy_array_fast(PyObject *array_type);
PyObject *vpy_array_new(PyObject *array_type, PyObject *buf, PyObject *shape, PyObject *dtype,
                        PyObject *sdtype, PyObject *ctx, Py_ssize_t size);
PyObject *vpy_array_get(PyObject *obj, enum vpy_array_slot slot, PyObject *name);

#endif /* VULPY_PY_EXT_H */
