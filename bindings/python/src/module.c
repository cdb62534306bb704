/* module.c - `vulpy._vulpy`: module init, devices, diagnostics as exceptions.
 *
 * The module state holds the heap types and the exception classes, which are
 * defined in Python (vulpy/_errors.py) so that they exist, and can be caught,
 * even where the extension is missing. Every library call that fails hands
 * back vp_diags; vpy_raise turns them into one exception whose message is the
 * formatted `file:line:col: error: ...` text.
 */
#include "ext.h"
#include "vulpy/runtime_env.h"

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vpy_state *vpy_module_state(PyObject *module) { return (vpy_state *)PyModule_GetState(module); }

vpy_state *vpy_state_of(PyObject *obj) {
  PyObject *m = PyType_GetModule(Py_TYPE(obj));
  return m ? vpy_module_state(m) : NULL;
}

PyObject *vpy_str_or_none(const char *s) {
  if (!s)
    Py_RETURN_NONE;
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

bool vpy_dict_set(PyObject *dict, const char *key, PyObject *value) {
  if (!value)
    return false;
  int rc = PyDict_SetItemString(dict, key, value);
  Py_DECREF(value);
  return rc == 0;
}

/* ------------------------------------------------ issue 20: signals, fork */

static pthread_t main_thread; /* the thread that imported the extension */

int vpy_interrupt_check(void *arg) {
  (void)arg;
  /* Python runs signal handlers on its main thread only; elsewhere, and
   * while the interpreter is going away, there is nothing to do. */
  if (!pthread_equal(pthread_self(), main_thread) || !Py_IsInitialized())
    return 0;
  PyGILState_STATE g = PyGILState_Ensure();
  int r = PyErr_CheckSignals() < 0; /* leaves KeyboardInterrupt (or the handler's error) set */
  PyGILState_Release(g);
  return r;
}

bool vpy_forked(PyObject *context) {
  vpy_context *c = (vpy_context *)context;
  return c && c->ctx && vrt_context_forked(c->ctx);
}

/* The byte count or offset `o` into *out; `all`: -1 means UINT64_MAX. */
static int u64_arg(PyObject *o, const char *what, bool all, unsigned long long *out) {
  PyObject *i = PyNumber_Index(o);
  if (!i) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s must be an int, got %R", what, o);
    return 0;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  if (!overflow && v == -1 && PyErr_Occurred()) {
    Py_DECREF(i);
    return 0;
  }
  if (!overflow && v >= 0) {
    *out = (unsigned long long)v;
  } else if (!overflow && v == -1 && all) {
    *out = UINT64_MAX;
  } else if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(i);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError, "%s=%R does not fit in 64 bits", what, i);
      Py_DECREF(i);
      return 0;
    }
    *out = u;
  } else {
    PyErr_Format(PyExc_ValueError, "%s must be >= 0%s, got %R", what, all ? " (or -1: all)" : "", i);
    Py_DECREF(i);
    return 0;
  }
  Py_DECREF(i);
  return 1;
}
int vpy_arg_size(PyObject *o, void *out) { return u64_arg(o, "size", false, out); }
int vpy_arg_size_or_all(PyObject *o, void *out) { return u64_arg(o, "size", true, out); }
int vpy_arg_offset(PyObject *o, void *out) { return u64_arg(o, "offset", false, out); }
int vpy_arg_dst_offset(PyObject *o, void *out) { return u64_arg(o, "dst_offset", false, out); }
int vpy_arg_src_offset(PyObject *o, void *out) { return u64_arg(o, "src_offset", false, out); }
int vpy_arg_value(PyObject *o, void *out) { return u64_arg(o, "value", false, out); }
int vpy_arg_written(PyObject *o, void *out) { return u64_arg(o, "written", false, out); }

bool vpy_uint3(PyObject *obj, const char *what, uint32_t fill, uint32_t out[3]) {
  out[0] = out[1] = out[2] = fill;
  if (PyLong_Check(obj)) {
    unsigned long v = PyLong_AsUnsignedLong(obj);
    if (PyErr_Occurred() || v > UINT32_MAX) {
      PyErr_Format(PyExc_ValueError, "%s must be a non-negative 32-bit integer", what);
      return false;
    }
    out[0] = (uint32_t)v;
    return true;
  }
  PyObject *seq = PySequence_Fast(obj, "");
  if (!seq) {
    PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of 1 to 3 ints", what);
    return false;
  }
  Py_ssize_t n = PySequence_Size(seq);
  bool ok = n >= 1 && n <= 3;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *item = PySequence_GetItem(seq, i);
    unsigned long v = item && PyLong_Check(item) ? PyLong_AsUnsignedLong(item) : (unsigned long)-1;
    Py_XDECREF(item);
    if (PyErr_Occurred())
      PyErr_Clear();
    if (v > UINT32_MAX)
      ok = false;
    else
      out[i] = (uint32_t)v;
  }
  Py_DECREF(seq);
  if (!ok)
    PyErr_Format(PyExc_ValueError, "%s must be an int or a tuple of 1 to 3 non-negative ints", what);
  return ok;
}

/* The diagnostics as a list of dicts, for programs that want the parts. */
static PyObject *diags_list(const vp_diags *d) {
  static const char *sev[] = {"error", "warning", "note"};
  PyObject *list = PyList_New(0);
  for (uint32_t i = 0; list && i < d->count; i++) {
    const vp_diag *g = &d->items[i];
    PyObject *item = PyDict_New();
    bool ok = item && vpy_dict_set(item, "severity", PyUnicode_FromString(sev[g->severity])) &&
              vpy_dict_set(item, "file", vpy_str_or_none(g->loc.file)) &&
              vpy_dict_set(item, "line", PyLong_FromUnsignedLong(g->loc.line)) &&
              vpy_dict_set(item, "col", PyLong_FromUnsignedLong(g->loc.col)) &&
              vpy_dict_set(item, "message", vpy_str_or_none(g->message)) &&
              vpy_dict_set(item, "hint", vpy_str_or_none(g->hint)) &&
              PyList_Append(list, item) == 0;
    Py_XDECREF(item);
    if (!ok)
      Py_CLEAR(list);
  }
  return list;
}

PyObject *vpy_raise(vpy_state *st, vp_diags *d, PyObject *exc, vrt_context *ctx,
                    const char *source) {
  if (PyErr_Occurred()) { /* a Python error came first: keep it */
    vp_diags_free(d);
    return NULL;
  }
  char *text = vp_diags_format(d, source);
  size_t len = text ? strlen(text) : 0;
  while (len && text[len - 1] == '\n')
    len--;
  if (!exc)
    exc = st->VulkanError;
  if (ctx && vrt_context_lost(ctx))
    exc = st->DeviceLostError;
  else if (exc == st->VulkanError && d->count && d->items[0].message &&
           strncmp(d->items[0].message, "timed out", 9) == 0) {
    /* vulpy.TimeoutError: a VulkanError and a Python TimeoutError */
    PyObject *errs = PyImport_ImportModule("vulpy._errors");
    PyObject *t = errs ? PyObject_GetAttrString(errs, "TimeoutError") : NULL;
    Py_XDECREF(errs);
    if (t) {
      PyObject *r = vpy_raise(st, d, t, ctx, source);
      Py_DECREF(t);
      return r;
    }
    PyErr_Clear();
  }
  else if (exc == st->VulkanError && text &&
           (strstr(text, "OUT_OF_DEVICE_MEMORY") || strstr(text, "OUT_OF_HOST_MEMORY") ||
            strstr(text, "out of device memory")))
    exc = st->OutOfMemoryError;
  PyObject *msg = len ? PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace")
                      : PyUnicode_FromString("unknown error (no diagnostic)");
  free(text);
  PyObject *list = diags_list(d);
  vp_diags_free(d);
  if (!msg || !list) {
    Py_XDECREF(msg);
    Py_XDECREF(list);
    return NULL;
  }
  PyObject *err = PyObject_CallFunctionObjArgs(exc, msg, NULL);
  Py_DECREF(msg);
  if (err) {
    PyObject_SetAttrString(err, "diagnostics", list);
    PyErr_SetObject(exc, err);
    Py_DECREF(err);
  }
  Py_DECREF(list);
  return NULL;
}

static PyObject *memory_dict(const vrt_memory_props *p) {
  PyObject *heaps = PyList_New(0), *types = PyList_New(0), *out = PyDict_New();
  bool ok = heaps && types && out;
  for (uint32_t i = 0; ok && i < p->heap_count; i++) {
    PyObject *h = Py_BuildValue("{sKsO}", "size", (unsigned long long)p->heaps[i].size,
                                "device_local",
                                (p->heaps[i].flags & VRT_HEAP_DEVICE_LOCAL) ? Py_True : Py_False);
    ok = h && PyList_Append(heaps, h) == 0;
    Py_XDECREF(h);
  }
  for (uint32_t i = 0; ok && i < p->type_count; i++) {
    PyObject *t = Py_BuildValue("{sIsI}", "flags", p->types[i].flags, "heap", p->types[i].heap);
    ok = t && PyList_Append(types, t) == 0;
    Py_XDECREF(t);
  }
  if (ok && vpy_dict_set(out, "heaps", heaps) && vpy_dict_set(out, "types", types))
    return out;
  Py_XDECREF(out);
  return NULL;
}

static PyObject *features_list(uint32_t bits) {
  PyObject *list = PyList_New(0);
  for (unsigned i = 0; list && i < VP_FEATURE_COUNT; i++) {
    if (!(bits & (1u << i)))
      continue;
    PyObject *s = PyUnicode_FromString(vp_feature_name(i));
    if (!s || PyList_Append(list, s) < 0)
      Py_CLEAR(list);
    Py_XDECREF(s);
  }
  return list;
}

PyObject *vpy_denorm_widths(uint32_t mask) {
  static const uint32_t bits[3] = {VRT_DENORM_F16, VRT_DENORM_F32, VRT_DENORM_F64};
  PyObject *list = PyList_New(0);
  for (int k = 0; list && k < 3; k++) {
    if (!(mask & bits[k]))
      continue;
    PyObject *w = PyLong_FromLong(16L << k); /* 16, 32, 64 */
    if (!w || PyList_Append(list, w) < 0)
      Py_CLEAR(list);
    Py_XDECREF(w);
  }
  PyObject *t = list ? PyList_AsTuple(list) : NULL;
  Py_XDECREF(list);
  return t;
}

PyObject *vpy_device_info_dict(const vrt_device_info *info) {
  PyObject *d = PyDict_New();
  if (!d)
    return NULL;
  char api[32];
  snprintf(api, sizeof api, "%u.%u.%u", (info->api_version >> 22) & 0x7f,
           (info->api_version >> 12) & 0x3ff, info->api_version & 0xfff);
  vp_strbuf desc = {0};
  vrt_device_format(info, false, &desc);
  while (desc.len && desc.data[desc.len - 1] == '\n')
    desc.data[--desc.len] = 0;
  PyObject *limits = Py_BuildValue(
      "{sKsKsKs(III)sIs(III)sIsIsIsIsIsIsKsKsKsdsO}", "max_storage_buffer_range",
      (unsigned long long)info->max_storage_buffer_range, "max_memory_allocation_size",
      (unsigned long long)info->max_memory_allocation_size, "max_buffer_size",
      (unsigned long long)info->max_buffer_size, "max_workgroup_size", info->max_workgroup_size[0],
      info->max_workgroup_size[1], info->max_workgroup_size[2], "max_workgroup_invocations",
      info->max_workgroup_invocations, "max_workgroup_count", info->max_workgroup_count[0],
      info->max_workgroup_count[1], info->max_workgroup_count[2], "subgroup_size",
      info->subgroup_size, "min_subgroup_size", info->min_subgroup_size, "max_subgroup_size",
      info->max_subgroup_size, "max_shared_memory", info->max_shared_memory,
      "max_push_constants_size", info->max_push_constants_size, "max_storage_buffers",
      info->max_storage_buffers,
      "min_storage_buffer_offset_alignment",
      (unsigned long long)info->min_storage_buffer_offset_alignment, "non_coherent_atom_size",
      (unsigned long long)info->non_coherent_atom_size, "min_imported_host_pointer_alignment",
      (unsigned long long)info->min_imported_host_pointer_alignment, "timestamp_period",
      (double)info->timestamp_period, "timestamps", info->timestamps ? Py_True : Py_False);
  bool ok = vpy_dict_set(d, "index", PyLong_FromUnsignedLong(info->index)) &&
            vpy_dict_set(d, "name", vpy_str_or_none(info->name)) &&
            vpy_dict_set(d, "kind", PyUnicode_FromString(vrt_device_kind_name(info->kind))) &&
            vpy_dict_set(d, "vendor", vpy_str_or_none(info->vendor)) &&
            vpy_dict_set(d, "vendor_id", PyLong_FromUnsignedLong(info->vendor_id)) &&
            vpy_dict_set(d, "device_id", PyLong_FromUnsignedLong(info->device_id)) &&
            vpy_dict_set(d, "driver_name", vpy_str_or_none(info->driver_name)) &&
            vpy_dict_set(d, "driver_info", vpy_str_or_none(info->driver_info)) &&
            vpy_dict_set(d, "api_version", PyUnicode_FromString(api)) &&
            vpy_dict_set(d, "uma", PyBool_FromLong(info->uma)) &&
            vpy_dict_set(d, "usable", PyBool_FromLong(info->usable)) &&
            vpy_dict_set(d, "features", features_list(info->features)) &&
            vpy_dict_set(d, "feature_bits", PyLong_FromUnsignedLong(info->features)) &&
            vpy_dict_set(d, "push_descriptors", PyBool_FromLong(info->push_descriptors)) &&
            vpy_dict_set(d, "driver_id", PyLong_FromUnsignedLong(info->driver_id)) &&
            vpy_dict_set(d, "survives_fork", PyBool_FromLong(vrt_driver_survives_fork(info->driver_id))) &&
            vpy_dict_set(d, "device_uuid",
                         PyBytes_FromStringAndSize((const char *)info->device_uuid, 16)) &&
            vpy_dict_set(d, "fma_fused", PyBool_FromLong(info->fma_fused)) &&
            vpy_dict_set(d, "denorm_support", vpy_denorm_widths(info->denorm_support)) &&
            vpy_dict_set(d, "denorm_preserve", vpy_denorm_widths(info->denorm_preserve)) &&
            vpy_dict_set(d, "denorm_emulate", PyBool_FromLong(info->denorm_emulate)) &&
            vpy_dict_set(d, "denorm_flush", PyBool_FromLong(info->denorm_flush)) &&
            vpy_dict_set(d, "inf_nan_preserve", vpy_denorm_widths(info->inf_nan_preserve)) &&
            vpy_dict_set(d, "memory", memory_dict(&info->memory)) &&
            vpy_dict_set(d, "limits", limits) &&
            vpy_dict_set(d, "description",
                         PyUnicode_DecodeUTF8(desc.data ? desc.data : "",
                                              (Py_ssize_t)desc.len, "replace"));
  vp_strbuf_free(&desc);
  if (!ok)
    Py_CLEAR(d);
  return d;
}

/* list_devices() -> list of dicts; VulkanError when there is no loader. */
static PyObject *list_devices(PyObject *self, PyObject *noargs) {
  vpy_state *st = vpy_module_state(self);
  vp_diags d = {0};
  vrt_device_info *infos = NULL;
  uint32_t n = 0;
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vrt_env_loader_open(&d) && vrt_list_devices(&infos, &n, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(st, &d, NULL, NULL, NULL);
  vp_diags_free(&d);
  PyObject *list = PyList_New(0);
  for (uint32_t i = 0; list && i < n; i++) {
    PyObject *item = vpy_device_info_dict(&infos[i]);
    if (!item || PyList_Append(list, item) < 0)
      Py_CLEAR(list);
    Py_XDECREF(item);
  }
  free(infos);
  return list;
}

/* describe_devices(verbose) -> str: the runtime's own formatting. */
static PyObject *describe_devices(PyObject *self, PyObject *args) {
  int verbose = 0;
  if (!PyArg_ParseTuple(args, "|p", &verbose))
    return NULL;
  vpy_state *st = vpy_module_state(self);
  vp_diags d = {0};
  vrt_device_info *infos = NULL;
  uint32_t n = 0;
  if (!vrt_env_loader_open(&d) || !vrt_list_devices(&infos, &n, &d))
    return vpy_raise(st, &d, NULL, NULL, NULL);
  vp_diags_free(&d);
  vp_strbuf out = {0};
  for (uint32_t i = 0; i < n; i++)
    vrt_device_format(&infos[i], verbose, &out);
  free(infos);
  PyObject *s = PyUnicode_DecodeUTF8(out.data ? out.data : "", (Py_ssize_t)out.len, "replace");
  vp_strbuf_free(&out);
  return s;
}

static PyObject *feature_names(PyObject *self, PyObject *noargs) {
  return features_list((1u << VP_FEATURE_COUNT) - 1);
}

static PyMethodDef module_methods[] = {
    {"list_devices", list_devices, METH_NOARGS, "list_devices() -> list of device dicts"},
    {"env_options", vpy_env_options, METH_NOARGS,
     "env_options() -> what the VULPY_* variables choose for a new context"},
    {"describe_devices", describe_devices, METH_VARARGS,
     "describe_devices(verbose=False) -> the runtime's description of every device"},
    {"feature_names", feature_names, METH_NOARGS, "feature_names() -> every feature name"},
    {NULL, NULL, 0, NULL},
};

static PyObject *add_type(PyObject *m, PyType_Spec *spec) {
  PyObject *t = PyType_FromModuleAndSpec(m, spec, NULL);
  if (!t)
    return NULL;
  const char *dot = strrchr(spec->name, '.');
  if (PyModule_AddObjectRef(m, dot ? dot + 1 : spec->name, t) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return t;
}

static int module_exec(PyObject *m) {
  main_thread = pthread_self();
  vpy_state *st = vpy_module_state(m);
  PyObject *errors = PyImport_ImportModule("vulpy._errors");
  if (!errors)
    return -1;
  st->VulkanError = PyObject_GetAttrString(errors, "VulkanError");
  st->DeviceLostError = PyObject_GetAttrString(errors, "DeviceLostError");
  st->OutOfMemoryError = PyObject_GetAttrString(errors, "OutOfMemoryError");
  st->CompileError = PyObject_GetAttrString(errors, "CompileError");
  Py_DECREF(errors);
  if (!st->VulkanError || !st->DeviceLostError || !st->OutOfMemoryError || !st->CompileError)
    return -1;
  if (!(st->Context = (PyTypeObject *)add_type(m, &vpy_context_spec)) ||
      !(st->Buffer = (PyTypeObject *)add_type(m, &vpy_buffer_spec)) ||
      !(st->HostMemory = (PyTypeObject *)add_type(m, &vpy_host_memory_spec)) ||
      !(st->Kernel = (PyTypeObject *)add_type(m, &vpy_kernel_spec)) ||
      !(st->Ticket = (PyTypeObject *)add_type(m, &vpy_ticket_spec)) ||
      !(st->Recording = (PyTypeObject *)add_type(m, &vpy_recording_spec)) ||
      !(st->Control = (PyTypeObject *)add_type(m, &vpy_control_spec)) ||
      !(st->Launcher = (PyTypeObject *)add_type(m, &vpy_launcher_spec)) ||
      !(st->KernelCall = (PyTypeObject *)add_type(m, &vpy_kernel_call_spec)))
    return -1;
  if (PyModule_AddFunctions(m, vpy_compile_methods) < 0 ||
      PyModule_AddFunctions(m, vpy_kcache_methods) < 0 ||
      PyModule_AddFunctions(m, vpy_jit_methods) < 0 ||
      PyModule_AddFunctions(m, vpy_dlpack_methods) < 0 ||
      PyModule_AddFunctions(m, vpy_fastarray_methods) < 0 ||
      PyModule_AddFunctions(m, vpy_push_methods) < 0 ||
      PyModule_AddFunctions(m, vpy_ufunc_call_methods) < 0)
    return -1;
  if (PyModule_AddFunctions(m, vpy_fft_methods) < 0)
    return -1;
  if (vpy_memsock_init(m) < 0) /* memsock.c */
    return -1;
  if (vpy_stream_init(m) < 0) /* stream.c (issue 18) */
    return -1;
  if (vpy_cuda_init(m) < 0) /* cuda.c (issue 18: DLPack kDLCUDA) */
    return -1;
  static const char *kinds[] = {"device", "host", "cached", "rebar"};
  PyObject *tuple = PyTuple_New(VRT_MEMORY_KIND_COUNT);
  for (int i = 0; tuple && i < VRT_MEMORY_KIND_COUNT; i++)
    PyTuple_SetItem(tuple, i, PyUnicode_FromString(kinds[i]));
  if (PyModule_AddObject(m, "MEMORY_KINDS", tuple) < 0) {
    Py_XDECREF(tuple);
    return -1;
  }
  return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
  vpy_state *st = vpy_module_state(m);
  Py_VISIT(st->Context);
  Py_VISIT(st->Buffer);
  Py_VISIT(st->HostMemory);
  Py_VISIT(st->Kernel);
  Py_VISIT(st->Ticket);
  Py_VISIT(st->Launcher);
  Py_VISIT(st->KernelCall);
  Py_VISIT(st->Recording);
  Py_VISIT(st->Control);
  Py_VISIT(st->VulkanError);
  Py_VISIT(st->DeviceLostError);
  Py_VISIT(st->OutOfMemoryError);
  Py_VISIT(st->CompileError);
  return 0;
}

static int module_clear(PyObject *m) {
  vpy_state *st = vpy_module_state(m);
  Py_CLEAR(st->Context);
  Py_CLEAR(st->Buffer);
  Py_CLEAR(st->HostMemory);
  Py_CLEAR(st->Kernel);
  Py_CLEAR(st->Ticket);
  Py_CLEAR(st->Launcher);
  Py_CLEAR(st->KernelCall);
  Py_CLEAR(st->Recording);
  Py_CLEAR(st->Control);
  Py_CLEAR(st->VulkanError);
  Py_CLEAR(st->DeviceLostError);
  Py_CLEAR(st->OutOfMemoryError);
  Py_CLEAR(st->CompileError);
  return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, (void *)module_exec},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "vulpy._vulpy",
    .m_doc = "VulPy's C extension: the Vulkan runtime and the compiler, in-process.",
    .m_size = sizeof(vpy_state),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__vulpy(void) { return PyModuleDef_Init(&module_def); }
