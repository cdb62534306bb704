/* kernel.c - Kernel (SPIR-V + manifest on a device) and its dispatch.
 *
 * dispatch() is the hot path of every ufunc and kernel call, so it takes its
 * arguments positionally through METH_FASTCALL and does no keyword parsing:
 *     kernel.dispatch(buffers, push, x, y, z, groups, sync)
 * The Python layer has already checked names, counts and types. The
 * dispatch is launch.c's vpy_run_dispatch, the Launcher's too: host-visible
 * memory that is not coherent is flushed before and invalidated after, so a
 * NumPy view of it always shows what the GPU wrote, and the GIL is released
 * for the submission and the wait.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------- manifest */

/* The parsed form of a VIR type spelling, set beside "type" in every
 * manifest field and buffer so that no consumer parses the spelling again:
 * "code" (Python struct's code of one component, vpm_push_code: 'f',
 * 'I', ...; None for a struct), "lanes" (components: vec3 3, mat4 16) and
 * "dtype" (the NumPy name of one component; a bool is stored as a 32-bit
 * word, so 'uint32'; None for a struct). */
static const char *code_dtype(char code) {
  switch (code) {
  case 'f': return "float32";
  case 'd': return "float64";
  case 'e': return "float16";
  case 'b': return "int8";
  case 'B': return "uint8";
  case 'h': return "int16";
  case 'H': return "uint16";
  case 'i': return "int32";
  case 'I': return "uint32";
  case 'q': return "int64";
  case 'Q': return "uint64";
  default: return NULL;
  }
}

bool vpy_set_parsed_type(PyObject *d, const char *type) {
  uint32_t lanes = 1;
  char code = vpm_push_code(type, &lanes);
  const char *dtype = code_dtype(code);
  return vpy_dict_set(d, "code", code ? PyUnicode_FromStringAndSize(&code, 1) : Py_NewRef(Py_None)) &&
         vpy_dict_set(d, "lanes", PyLong_FromUnsignedLong(lanes)) &&
         vpy_dict_set(d, "dtype", vpy_str_or_none(dtype));
}

static PyObject *fields_list(const vpm_field *f, uint32_t n) {
  PyObject *list = PyList_New(0);
  for (uint32_t i = 0; list && i < n; i++) {
    PyObject *item = Py_BuildValue("{sssssIsI}", "name", f[i].name, "type", f[i].type, "offset",
                                   f[i].offset, "size", f[i].size);
    if (!item || !vpy_set_parsed_type(item, f[i].type) || PyList_Append(list, item) < 0)
      Py_CLEAR(list);
    Py_XDECREF(item);
  }
  return list;
}

/* The argument of np.dtype() for one element of type `type` (a VIR
 * spelling, `size` its std430 bytes, `stride` its array stride or 0): the
 * component's name; (name, (lanes,)) for a vector; (name, (columns, rows))
 * for a matrix, whose columns std430 pads to four rows for a mat3 (the
 * size says); for a struct, {"names", "formats", "offsets", "itemsize"}
 * with the std430 offsets and the itemsize `stride`, else its size rounded
 * up to its alignment (its stride in an array and its size as a member).
 * The host's NumPy layout of a struct buffer is thus the compiler's. */
static PyObject *np_dtype_spec(const vpm_manifest *m, const char *type, uint32_t size,
                               uint32_t stride, uint32_t depth) {
  if (type[0] != '@') {
    uint32_t lanes;
    char code = vpm_push_code(type, &lanes);
    const char *name = code_dtype(code);
    if (!name)
      Py_RETURN_NONE; /* not a host type */
    if (type[0] == 'm') {
      uint32_t cols = (uint32_t)(type[3] - '0'), w = vpm_push_code_size(code);
      return Py_BuildValue("(s(II))", name, cols, size ? size / (cols * w) : cols);
    }
    return lanes > 1 ? Py_BuildValue("(s(I))", name, lanes) : PyUnicode_FromString(name);
  }
  const vpm_struct *s = NULL;
  for (uint32_t i = 0; i < m->nstructs && !s; i++)
    if (strcmp(m->structs[i].name, type + 1) == 0)
      s = &m->structs[i];
  if (!s || depth > VPM_MAX_DEPTH)
    return PyErr_Format(PyExc_ValueError, "manifest: struct '%s' is not declared (or nests "
                        "itself)", type + 1);
  uint32_t align = s->align ? s->align : 1;
  PyObject *names = PyList_New(0), *formats = PyList_New(0), *offsets = PyList_New(0);
  bool ok = names && formats && offsets;
  for (uint32_t i = 0; ok && i < s->nfields; i++) {
    const vpm_field *f = &s->fields[i];
    PyObject *n = PyUnicode_FromString(f->name), *o = PyLong_FromUnsignedLong(f->offset);
    PyObject *fmt = np_dtype_spec(m, f->type, f->size, 0, depth + 1);
    ok = n && o && fmt && PyList_Append(names, n) == 0 && PyList_Append(offsets, o) == 0 &&
         PyList_Append(formats, fmt) == 0;
    Py_XDECREF(n);
    Py_XDECREF(o);
    Py_XDECREF(fmt);
  }
  PyObject *spec = ok ? Py_BuildValue("{sOsOsOsI}", "names", names, "formats", formats,
                                      "offsets", offsets, "itemsize",
                                      stride ? stride : (s->size + align - 1) / align * align)
                      : NULL;
  Py_XDECREF(names);
  Py_XDECREF(formats);
  Py_XDECREF(offsets);
  return spec;
}

PyObject *vpy_manifest_dict(const vpm_manifest *m) {
  static const char *access[] = {"readwrite", "readonly", "writeonly"};
  PyObject *d = PyDict_New(), *bufs = PyList_New(0), *structs = PyList_New(0);
  bool ok = d && bufs && structs;
  for (uint32_t i = 0; ok && i < m->nbuffers; i++) {
    const vpm_buffer *b = &m->buffers[i];
    PyObject *item = Py_BuildValue("{sssIsIsssIss}", "name", b->name, "set", b->set, "binding",
                                   b->binding, "type", b->type, "elem_size", b->elem_size,
                                   "access", access[b->access]);
    ok = item && vpy_set_parsed_type(item, b->type) &&
         vpy_dict_set(item, "np_dtype",
                      np_dtype_spec(m, b->type, 0, b->type[0] == '@' ? b->elem_size : 0, 0)) &&
         PyList_Append(bufs, item) == 0;
    Py_XDECREF(item);
  }
  for (uint32_t i = 0; ok && i < m->nstructs; i++) {
    const vpm_struct *s = &m->structs[i];
    PyObject *item = Py_BuildValue("{sssIsIsN}", "name", s->name, "size", s->size, "align",
                                   s->align, "fields", fields_list(s->fields, s->nfields));
    ok = item && PyList_Append(structs, item) == 0;
    Py_XDECREF(item);
  }
  PyObject *features = PyList_New(0);
  for (unsigned i = 0; ok && features && i < VP_FEATURE_COUNT; i++) {
    if (m->features & (1u << i)) {
      PyObject *s = PyUnicode_FromString(vp_feature_name(i));
      ok = s && PyList_Append(features, s) == 0;
      Py_XDECREF(s);
    }
  }
  ok = ok && features && vpy_dict_set(d, "kernel", vpy_str_or_none(m->kernel)) &&
       vpy_dict_set(d, "entry_point", vpy_str_or_none(m->entry_point)) &&
       vpy_dict_set(d, "source", vpy_str_or_none(m->source)) &&
       vpy_dict_set(d, "local_size", Py_BuildValue("(III)", m->local_size[0], m->local_size[1],
                                                   m->local_size[2])) &&
       vpy_dict_set(d, "buffers", Py_NewRef(bufs)) &&
       vpy_dict_set(d, "push_size", PyLong_FromUnsignedLong(m->push_size)) &&
       vpy_dict_set(d, "push", fields_list(m->push, m->npush)) &&
       vpy_dict_set(d, "structs", Py_NewRef(structs)) &&
       vpy_dict_set(d, "shared_bytes", PyLong_FromUnsignedLong(m->shared_bytes)) &&
       vpy_dict_set(d, "features", Py_NewRef(features)) &&
       vpy_dict_set(d, "dispatch_guard", vpy_str_or_none(m->dispatch_guard));
  Py_XDECREF(bufs);
  Py_XDECREF(structs);
  Py_XDECREF(features);
  if (!ok)
    Py_CLEAR(d);
  return d;
}

/* ------------------------------------------------------------ Kernel */

/* Kernel(context, spirv, manifest, local_size=(0, 0, 0), trusted=False,
 *        preserve_denorms=False, exact_float=False) */
static PyObject *kernel_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"context",  "spirv", "manifest", "local_size",
                           "trusted", "preserve_denorms", "exact_float", NULL};
  PyObject *context, *spirv, *local = NULL;
  const char *yaml;
  Py_ssize_t yaml_len;
  int trusted = 0, preserve = 0, exact = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOs#|Oppp", kwlist, &context, &spirv, &yaml,
                                   &yaml_len, &local, &trusted, &preserve, &exact))
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context *ctx = vpy_context_get(st, context);
  if (!ctx)
    return NULL;
  vrt_kernel_options opt = {{0, 0, 0}, trusted != 0, preserve != 0, exact != 0};
  if (local && local != Py_None && !vpy_uint3(local, "local_size", 0, opt.local_size))
    return NULL;
  Py_buffer words;
  if (PyObject_GetBuffer(spirv, &words, PyBUF_C_CONTIGUOUS) < 0)
    return NULL;
  vp_diags d = {0};
  vpm_manifest *m = vpm_parse(yaml, (size_t)yaml_len, "<manifest>", &d);
  vrt_kernel *k = NULL;
  if (m) {
    Py_BEGIN_ALLOW_THREADS
    k = vrt_kernel_create(ctx, words.buf, (size_t)words.len, m, &opt, &d);
    Py_END_ALLOW_THREADS
    vpm_free(m);
  }
  PyBuffer_Release(&words);
  if (!k)
    return vpy_raise(st, &d, NULL, ctx, NULL);
  vp_diags_free(&d);
  vpy_kernel *self = PyObject_New(vpy_kernel, type);
  if (!self) {
    vrt_kernel_destroy(k);
    return NULL;
  }
  self->k = k;
  self->context = Py_NewRef(context);
  self->manifest = NULL;
  return (PyObject *)self;
}

static void kernel_dealloc(PyObject *obj) {
  vpy_kernel *self = (vpy_kernel *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  if (!vpy_forked(self->context))
    vrt_kernel_destroy(self->k);
  Py_XDECREF(self->manifest);
  Py_XDECREF(self->context);
  PyObject_Free(obj);
  Py_DECREF(type);
}

/* The readback argument of dispatch: None, or (dst, dst_offset, src,
 * src_offset, size) with Buffers of the kernel's context. */
static bool parse_readback(vpy_state *st, PyObject *o, vrt_readback *rb, vpy_buffer **dst) {
  PyObject *db, *sb;
  unsigned long long doff, soff, size;
  if (!PyArg_ParseTuple(o, "OO&OO&O&;readback: (dst, dst_offset, src, src_offset, size)", &db,
                        vpy_arg_dst_offset, &doff, &sb, vpy_arg_src_offset, &soff, vpy_arg_size, &size))
    return false;
  rb->dst = vpy_buffer_get(st, db);
  rb->src = rb->dst ? vpy_buffer_get(st, sb) : NULL;
  if (!rb->src)
    return false;
  rb->dst_offset = doff;
  rb->src_offset = soff;
  rb->size = size;
  *dst = (vpy_buffer *)db;
  return true;
}

/* dispatch(buffers, push, x, y, z, groups, sync, readback=None) -> None | Ticket;
 * sync=None: submitted and not waited for, returns None (vpy_run_eager);
 * an item of `buffers` may be (Buffer, offset, size): that byte range of the
 * Buffer is bound (a view; offset aligned as the device requires). */
static PyObject *kernel_dispatch(PyObject *obj, PyObject *const *a, Py_ssize_t nargs) {
  vpy_kernel *self = (vpy_kernel *)obj;
  if (nargs != 7 && nargs != 8) {
    PyErr_SetString(PyExc_TypeError, "dispatch(buffers, push, x, y, z, groups, sync, "
                                     "readback=None)");
    return NULL;
  }
  vpy_state *st = vpy_state_of(obj);
  vrt_readback rbv, *rb = NULL;
  vpy_buffer *rdst = NULL;
  if (nargs == 8 && a[7] != Py_None) {
    if (!parse_readback(st, a[7], &rbv, &rdst))
      return NULL;
    rb = &rbv;
  }
  vpy_dispatch_args da;
  if (!vpy_parse_dispatch(st, a, &da) || (rb && !vpy_no_ranges(&da)))
    return NULL;
  /* sync=None: eager (vpy_run_eager), what the resident ufunc paths pass */
  bool sync = a[6] == Py_None || PyObject_IsTrue(a[6]) == 1;
  PyObject *r = a[6] == Py_None && !rb ? vpy_run_eager(st, self, &da, NULL)
                                       : vpy_run_dispatch(st, self, &da, sync, NULL, NULL, rb, rdst);
  Py_DECREF(da.seq);
  return r;
}

/* dispatch_timed(buffers, push, x, y, z, groups) -> GPU nanoseconds */
static PyObject *kernel_dispatch_timed(PyObject *obj, PyObject *const *a, Py_ssize_t nargs) {
  vpy_kernel *self = (vpy_kernel *)obj;
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "dispatch_timed(buffers, push, x, y, z, groups)");
    return NULL;
  }
  vpy_state *st = vpy_state_of(obj);
  vpy_dispatch_args da;
  if (!vpy_parse_dispatch(st, a, &da) || !vpy_no_ranges(&da))
    return NULL;
  vp_diags d = {0};
  double ns = 0;
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vpy_flush_all(&da, &d) && vrt_dispatch_timed(self->k, &da.args, da.grid, &ns, &d) &&
       vpy_invalidate_all(&da, &d);
  Py_END_ALLOW_THREADS
  Py_DECREF(da.seq);
  if (!ok)
    return vpy_raise(st, &d, NULL, ((vpy_context *)self->context)->ctx, NULL);
  vp_diags_free(&d);
  return PyFloat_FromDouble(ns);
}

/* time_dispatch(buffers, push, x, y, z, groups, iters) -> list of ns: the
 * wall time of `iters` synchronous vrt_dispatch calls made from C, one
 * after the other - the runtime's own round trip, which the Python
 * overhead benchmark compares against. */
static PyObject *kernel_time_dispatch(PyObject *obj, PyObject *const *a, Py_ssize_t nargs) {
  vpy_kernel *self = (vpy_kernel *)obj;
  if (nargs != 7) {
    PyErr_SetString(PyExc_TypeError, "time_dispatch(buffers, push, x, y, z, groups, iters)");
    return NULL;
  }
  long iters = PyLong_AsLong(a[6]);
  if (iters <= 0 || iters > 1000000) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError, "iters must be in 1..1000000");
    return NULL;
  }
  vpy_state *st = vpy_state_of(obj);
  vpy_dispatch_args da;
  if (!vpy_parse_dispatch(st, a, &da) || !vpy_no_ranges(&da))
    return NULL;
  double *ns = PyMem_Malloc((size_t)iters * sizeof *ns);
  if (!ns) {
    Py_DECREF(da.seq);
    return PyErr_NoMemory();
  }
  vp_diags d = {0};
  bool ok = true;
  Py_BEGIN_ALLOW_THREADS
  for (long i = 0; ok && i < iters; i++) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ok = vrt_dispatch(self->k, &da.args, da.grid, &d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ns[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
  }
  Py_END_ALLOW_THREADS
  Py_DECREF(da.seq);
  PyObject *list = ok ? PyList_New(iters) : NULL;
  for (long i = 0; list && i < iters; i++)
    PyList_SetItem(list, i, PyFloat_FromDouble(ns[i]));
  PyMem_Free(ns);
  if (!ok)
    return vpy_raise(st, &d, NULL, ((vpy_context *)self->context)->ctx, NULL);
  vp_diags_free(&d);
  return list;
}

static PyObject *kernel_get_manifest(PyObject *obj, void *c) {
  vpy_kernel *self = (vpy_kernel *)obj;
  if (!self->manifest)
    self->manifest = vpy_manifest_dict(vrt_kernel_manifest(self->k));
  return Py_XNewRef(self->manifest);
}

static PyObject *kernel_get_local_size(PyObject *obj, void *c) {
  uint32_t ls[3];
  vrt_kernel_local_size(((vpy_kernel *)obj)->k, ls);
  return Py_BuildValue("(III)", ls[0], ls[1], ls[2]);
}

static PyObject *kernel_get_stats(PyObject *obj, void *c) {
  vrt_kernel_stats s;
  vrt_kernel_stats_get(((vpy_kernel *)obj)->k, &s);
  return Py_BuildValue(
      "{sOsOsOsOsisOsssdsdsdsdsdsdsdsNsOsNsI}", "memory_hit", s.memory_hit ? Py_True : Py_False,
      "disk_loaded", s.disk_loaded ? Py_True : Py_False, "disk_rejected",
      s.disk_rejected ? Py_True : Py_False, "disk_written", s.disk_written ? Py_True : Py_False,
      "driver_hit", s.driver_hit, "push_descriptors", s.push_descriptors ? Py_True : Py_False,
      "cache_path", s.cache_path, "reflect_ms", s.reflect_ms, "validate_ms", s.validate_ms,
      "layout_ms", s.layout_ms, "cache_load_ms", s.cache_load_ms, "create_ms", s.create_ms,
      "cache_save_ms", s.cache_save_ms, "total_ms", s.total_ms, "denorm_preserve",
      vpy_denorm_widths(s.denorm_preserve), "denorm_emulate",
      s.denorm_emulate ? Py_True : Py_False, "inf_nan_preserve",
      vpy_denorm_widths(s.inf_nan_preserve), "no_contraction", s.no_contraction);
}

static PyObject *kernel_get_context(PyObject *obj, void *c) {
  return Py_NewRef(((vpy_kernel *)obj)->context);
}

static PyMethodDef kernel_methods[] = {
    {"dispatch", (PyCFunction)(void (*)(void))kernel_dispatch, METH_FASTCALL,
     "dispatch(buffers, push, x, y, z, groups, sync, readback=None) -> None or Ticket"},
    {"dispatch_timed", (PyCFunction)(void (*)(void))kernel_dispatch_timed, METH_FASTCALL,
     "dispatch_timed(buffers, push, x, y, z, groups) -> GPU time in ns"},
    {"time_dispatch", (PyCFunction)(void (*)(void))kernel_time_dispatch, METH_FASTCALL,
     "time_dispatch(buffers, push, x, y, z, groups, iters) -> wall ns of each C dispatch"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kernel_getset[] = {
    {"manifest", kernel_get_manifest, NULL, "the manifest as a dict", NULL},
    {"local_size", kernel_get_local_size, NULL, "(x, y, z) the pipeline was built with", NULL},
    {"stats", kernel_get_stats, NULL, "pipeline cache statistics", NULL},
    {"context", kernel_get_context, NULL, "the Context", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot kernel_slots[] = {
    {Py_tp_new, kernel_new},
    {Py_tp_dealloc, kernel_dealloc},
    {Py_tp_methods, kernel_methods},
    {Py_tp_getset, kernel_getset},
    {Py_tp_doc, "Kernel(context, spirv, manifest_yaml, local_size=None, trusted=False, "
                "preserve_denorms=False, exact_float=False)"},
    {0, NULL},
};

PyType_Spec vpy_kernel_spec = {
    .name = "vulpy._vulpy.Kernel",
    .basicsize = sizeof(vpy_kernel),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = kernel_slots,
};
