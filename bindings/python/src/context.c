/* context.c - Context: one Vulkan device, its queue and its caches.
 *
 * A thin wrapper over vrt_context. Buffers, kernels and control buffers hold a
 * reference to their Context object, so the vrt_context is destroyed only
 * after everything made from it (vrt_context_destroy would otherwise free
 * them under their Python objects). Waits release the GIL.
 *
 * The context also keeps the scratch pool: buffers that convenience calls
 * stage data in, or whose mapping a convenience result is a NumPy view of.
 * scratch() hands one out as a Buffer; when that Buffer dies (the last
 * NumPy view of it included), its vrt_buffer comes back here instead of
 * being freed, so the next call reuses it without allocating or zeroing.
 * Reused memory only ever held this process's own results.
 */
#include "ext.h"
#include "vulpy/runtime_env.h"

#include <stdio.h>
#include <string.h>

vrt_context *vpy_context_get(vpy_state *st, PyObject *obj) {
  if (!PyObject_TypeCheck(obj, st->Context)) {
    PyErr_Format(PyExc_TypeError, "expected a vulpy._vulpy.Context, got %R", (PyObject *)Py_TYPE(obj));
    return NULL;
  }
  return ((vpy_context *)obj)->ctx;
}

enum { POOL_BYTES = 512u << 20, POOL_ENTRY_MAX = 128u << 20, POOL_ENTRIES = 64 };

static int wait_mode_lookup(const char *name) {
  if (!name)
    return VRT_WAIT_DEFAULT;
  for (int m = VRT_WAIT_DEFAULT; m <= VRT_WAIT_SPIN; m++)
    if (strcmp(name, vrt_wait_mode_name((vrt_wait_mode)m)) == 0)
      return m;
  PyErr_Format(PyExc_ValueError,
               "wait must be 'spin-block', 'block', 'spin' or 'default', not '%s'", name);
  return -1;
}

/* Context(device=None, validation=-1, cache_dir=None, spin_us=0,
 *         no_push_descriptors=False, wait=None, copy_threads=0, force_denorm=0,
 *         no_device_mapping=False, robust=False)
 * force_denorm: VRT_DENORM_* bits, a testing hook (runtime.h).
 * robust: robustBufferAccess (issue 20).
 * The arguments left at their defaults (None, -1, 0) come from the VULPY_*
 * variables (vrt_env_context_options, lib/RuntimeEnv: the one parser of
 * them); a bad value is a VulkanError naming the variable. */
static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"device",  "validation", "cache_dir",    "spin_us",
                           "no_push_descriptors", "wait", "copy_threads", "force_denorm",
                           "no_device_mapping", "robust", NULL};
  const char *device = NULL, *cache_dir = NULL, *wait = NULL;
  int validation = -1, no_push = 0, no_map = 0, robust = 0;
  unsigned int spin_us = 0, copy_threads = 0, force_denorm = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|zizIpzIIpp", kwlist, &device, &validation,
                                   &cache_dir, &spin_us, &no_push, &wait, &copy_threads,
                                   &force_denorm, &no_map, &robust))
    return NULL;
  int mode = wait_mode_lookup(wait);
  if (mode < 0)
    return NULL;
  vpy_state *st = vpy_module_state(PyType_GetModule(type));
  vrt_context_options opt = {0};
  opt.device = device;
  opt.validation = validation;
  opt.cache_dir = cache_dir;
  opt.spin_us = spin_us;
  opt.no_push_descriptors = no_push;
  opt.wait = (vrt_wait_mode)mode;
  opt.copy_threads = copy_threads;
  opt.no_device_mapping = no_map;
  opt.force_denorm = force_denorm;
  opt.robust = robust;
  vp_diags d = {0};
  vrt_env env;
  if (!vrt_env_context_options(&opt, &env, &d))
    return vpy_raise(st, &d, NULL, NULL, NULL);
  vrt_context *ctx;
  Py_BEGIN_ALLOW_THREADS
  ctx = vrt_context_create(&opt, &d);
  Py_END_ALLOW_THREADS
  if (!ctx) {
    vrt_env_note(&env, &d);
    return vpy_raise(st, &d, NULL, NULL, NULL);
  }
  vrt_context_set_interrupt(ctx, vpy_interrupt_check, NULL); /* Ctrl-C ends long waits */
  /* the runtime's warnings (a refused cache folder) as vulpy.CacheWarning */
  for (uint32_t i = 0; i < d.count; i++) {
    if (d.items[i].severity != VP_WARNING)
      continue;
    PyObject *errs = PyImport_ImportModule("vulpy._errors");
    PyObject *cat = errs ? PyObject_GetAttrString(errs, "CacheWarning") : NULL;
    Py_XDECREF(errs);
    PyErr_Clear();
    int bad = PyErr_WarnEx(cat ? cat : PyExc_RuntimeWarning, d.items[i].message, 1);
    Py_XDECREF(cat);
    if (bad < 0) {
      vp_diags_free(&d);
      vrt_context_destroy(ctx);
      return NULL;
    }
  }
  vp_diags_free(&d);
  vpy_context *self = PyObject_New(vpy_context, type);
  if (!self) {
    vrt_context_destroy(ctx);
    return NULL;
  }
  self->ctx = ctx;
  self->pool = NULL;
  self->npool = self->cappool = 0;
  self->pool_bytes = 0;
  return (PyObject *)self;
}

static void context_dealloc(PyObject *obj) {
  vpy_context *self = (vpy_context *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  vrt_context *ctx = self->ctx;
  self->ctx = NULL;
  vpy_pooled *pool = self->pool;
  uint32_t npool = self->npool;
  if (ctx && vrt_context_forked(ctx))
    ctx = NULL; /* a forked child's copy: the device is the parent's */
  if (ctx) {
    vp_diags d = {0};
    Py_BEGIN_ALLOW_THREADS
    for (uint32_t i = 0; i < npool; i++)
      vrt_buffer_destroy(pool[i].b);
    vrt_context_destroy_checked(ctx, &d);
    Py_END_ALLOW_THREADS
    /* a device left busy (vrt_context_destroy_checked): said on stderr, which
     * still works while the interpreter exits (a Python warning may not) */
    for (uint32_t i = 0; i < d.count; i++)
      fprintf(stderr, "%s\n", d.items[i].message);
    vp_diags_free(&d);
  }
  PyMem_Free(pool);
  PyObject_Free(obj);
  Py_DECREF(type);
}

/* ------------------------------------------------------ scratch pool */

bool vpy_pool_put(vpy_context *c, vrt_buffer *b) {
  uint64_t size = vrt_buffer_size(b);
  if (!c->ctx || vrt_context_lost(c->ctx) || vrt_context_forked(c->ctx) || size > POOL_ENTRY_MAX)
    return false;
  /* Room: drop the oldest entries (destroying waits for their GPU work). */
  while (c->npool && (c->npool >= POOL_ENTRIES || c->pool_bytes + size > POOL_BYTES)) {
    vrt_buffer *old = c->pool[0].b;
    c->pool_bytes -= c->pool[0].size;
    memmove(c->pool, c->pool + 1, (c->npool - 1) * sizeof *c->pool);
    c->npool--;
    Py_BEGIN_ALLOW_THREADS
    vrt_buffer_destroy(old);
    Py_END_ALLOW_THREADS
  }
  if (c->npool == c->cappool) {
    uint32_t cap = c->cappool ? c->cappool * 2 : 16;
    vpy_pooled *p = PyMem_Realloc(c->pool, cap * sizeof *p);
    if (!p)
      return false;
    c->pool = p;
    c->cappool = cap;
  }
  c->pool[c->npool++] = (vpy_pooled){b, size, (int)vrt_buffer_kind(b)};
  c->pool_bytes += size;
  return true;
}

/* scratch(size, kind) -> Buffer: a pooled buffer of at least `size` bytes
 * (at most about twice that), reused or new. Its contents are whatever the
 * last user left (zeros when new). */
static PyObject *context_scratch(PyObject *obj, PyObject *args) {
  vpy_context *self = (vpy_context *)obj;
  unsigned long long size;
  const char *kind_name;
  if (!PyArg_ParseTuple(args, "O&s", vpy_arg_size, &size, &kind_name))
    return NULL;
  int kind = vrt_memory_kind_lookup(kind_name);
  if (kind < 0)
    return PyErr_Format(PyExc_ValueError,
                        "memory must be one of 'device', 'host', 'cached', 'rebar', not '%s'",
                        kind_name);
  vpy_state *st = vpy_state_of(obj);
  vrt_buffer *b = NULL;
  /* Newest first: its pages are the likeliest to be in cache. With
   * streams (issue 18) the queues are not one in-order line any more: a
   * buffer another stream's queued work still uses is skipped. */
  bool streams = vrt_stream_count(self->ctx) > 0;
  for (uint32_t i = self->npool; i-- > 0 && !b;) {
    vpy_pooled *e = &self->pool[i];
    if (e->kind == kind && e->size >= size && e->size <= 2 * size + 4096 &&
        (!streams || vrt_ticket_done(self->ctx, vrt_buffer_last_use(e->b)))) {
      b = e->b;
      self->pool_bytes -= e->size;
      memmove(e, e + 1, (self->npool - i - 1) * sizeof *e);
      self->npool--;
    }
  }
  if (!b) {
    /* Sizes in steps, so that buffers fit the next call of a similar size:
     * powers of two up to 64 MiB, then 1/32 steps. */
    uint64_t want = 256;
    while (want < size)
      want *= 2;
    if (want > (64u << 20)) {
      uint64_t step = want / 32 > 4096 ? want / 32 : 4096;
      want = (size + step - 1) / step * step;
    }
    vp_diags d = {0};
    Py_BEGIN_ALLOW_THREADS
    b = vrt_buffer_create(self->ctx, want, (vrt_memory_kind)kind, &d);
    Py_END_ALLOW_THREADS
    if (!b)
      return vpy_raise(st, &d, NULL, self->ctx, NULL);
    vp_diags_free(&d);
  }
  vpy_buffer *buf = (vpy_buffer *)vpy_buffer_wrap(st, obj, b, NULL, false);
  if (buf)
    buf->pooled = true;
  return (PyObject *)buf;
}

static PyObject *context_pool_info(PyObject *obj, PyObject *noargs) {
  vpy_context *self = (vpy_context *)obj;
  return Py_BuildValue("{sIsK}", "buffers", self->npool, "bytes",
                       (unsigned long long)self->pool_bytes);
}

/* -------------------------------------------------------------- tuning */

static PyObject *context_get_wait(PyObject *obj, void *closure) {
  uint32_t spin = 0;
  vrt_wait_mode m = vrt_context_wait_mode(((vpy_context *)obj)->ctx, &spin);
  return Py_BuildValue("(sI)", vrt_wait_mode_name(m), spin);
}

/* set_wait(mode, spin_us=0) */
static PyObject *context_set_wait(PyObject *obj, PyObject *args) {
  const char *name;
  unsigned int spin = 0;
  if (!PyArg_ParseTuple(args, "s|I", &name, &spin))
    return NULL;
  int mode = wait_mode_lookup(name);
  if (mode < 0)
    return NULL;
  vrt_context_set_wait(((vpy_context *)obj)->ctx, (vrt_wait_mode)mode, spin);
  Py_RETURN_NONE;
}

static PyObject *context_get_copy_threads(PyObject *obj, void *closure) {
  return PyLong_FromUnsignedLong(vrt_context_copy_threads(((vpy_context *)obj)->ctx));
}

static int context_set_copy_threads(PyObject *obj, PyObject *value, void *closure) {
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "copy_threads cannot be deleted");
    return -1;
  }
  long n = PyLong_AsLong(value);
  if (n == -1 && PyErr_Occurred())
    return -1;
  if (n < 1 || n > 64) {
    PyErr_SetString(PyExc_ValueError, "copy_threads must be in 1..64");
    return -1;
  }
  vrt_context_set_copy_threads(((vpy_context *)obj)->ctx, (uint32_t)n);
  return 0;
}

/* eager_batch: a fixed batch (an int) or "adaptive" (runtime/eager.c). */
static PyObject *context_get_eager_batch(PyObject *obj, void *closure) {
  vrt_context *ctx = ((vpy_context *)obj)->ctx;
  if (vrt_context_eager_adaptive(ctx))
    return PyUnicode_FromString("adaptive");
  return PyLong_FromUnsignedLong(vrt_context_eager_batch(ctx));
}

static int context_set_eager_batch(PyObject *obj, PyObject *value, void *closure) {
  vrt_context *ctx = ((vpy_context *)obj)->ctx;
  if (value && PyUnicode_Check(value)) {
    if (PyUnicode_CompareWithASCIIString(value, "adaptive") != 0) {
      PyErr_Format(PyExc_ValueError, "eager_batch must be in 1..64 or 'adaptive', not %R",
                   value);
      return -1;
    }
    vrt_context_set_eager_adaptive(ctx, 0);
    return 0;
  }
  long n = value && PyLong_Check(value) && !PyBool_Check(value) ? PyLong_AsLong(value) : -1;
  if (n == -1 && PyErr_Occurred())
    return -1;
  if (n < 1 || n > 64) {
    PyErr_SetString(PyExc_ValueError, "eager_batch must be in 1..64 or 'adaptive'");
    return -1;
  }
  vrt_context_set_eager_batch(ctx, (uint32_t)n);
  return 0;
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

/* cores() -> (cores, warps_per_core): (0, 0) when the driver does not say. */
static PyObject *context_cores(PyObject *obj, PyObject *noargs) {
  uint32_t cores, warps;
  vrt_device_cores(((vpy_context *)obj)->ctx, &cores, &warps);
  return Py_BuildValue("(II)", cores, warps);
}

static PyObject *context_stats(PyObject *obj, PyObject *noargs) {
  vrt_context_stats s;
  vrt_context_stats_get(((vpy_context *)obj)->ctx, &s);
  PyObject *out = Py_BuildValue("{sKsKsKsKsKsKsKsKsdsK}", "submits", (unsigned long long)s.submits,
                       "dispatches", (unsigned long long)s.dispatches,
                       "reused_launches", (unsigned long long)s.reused_launches,
                       "open_launches", (unsigned long long)s.open_launches, "blocks",
                       (unsigned long long)s.blocks, "block_bytes",
                       (unsigned long long)s.block_bytes, "used_bytes",
                       (unsigned long long)s.used_bytes, "pipelines",
                       (unsigned long long)s.pipelines, "prewarm_ms", s.prewarm_ms,
                       "waits_blocked", (unsigned long long)s.waits_blocked);
  /* The memory pool's counters (runtime/pool.c). */
  PyObject *mem = out ? Py_BuildValue(
                            "{sKsKsKsKsKsKsKsKsKsKsKsKsK}", "driver_allocations",
                            (unsigned long long)s.driver_allocations, "driver_frees",
                            (unsigned long long)s.driver_frees, "pool_hits",
                            (unsigned long long)s.pool_hits, "pool_misses",
                            (unsigned long long)s.pool_misses, "pool_used_bytes",
                            (unsigned long long)s.pool_used_bytes, "pool_cached_bytes",
                            (unsigned long long)s.pool_cached_bytes, "pool_cached_buffers",
                            (unsigned long long)s.pool_cached_buffers, "pool_limit",
                            (unsigned long long)s.pool_limit, "gpu_zero_bytes",
                            (unsigned long long)s.gpu_zero_bytes, "cpu_zero_bytes",
                            (unsigned long long)s.cpu_zero_bytes, "zero_fills_dropped",
                            (unsigned long long)s.zero_fills_dropped, "pool_waits",
                            (unsigned long long)s.pool_waits, "pool_ordered",
                            (unsigned long long)s.pool_ordered)
                      : NULL;
  if (!mem || PyDict_Update(out, mem) < 0) {
    Py_XDECREF(mem);
    Py_XDECREF(out);
    return NULL;
  }
  Py_DECREF(mem);
  /* Streams' queue families (runtime/stream.c, "sharing"). */
  PyObject *xf = Py_BuildValue("{sKsKsKsKsKsKsK}", "xfer_copies",
                               (unsigned long long)s.xfer_copies, "xfer_routed",
                               (unsigned long long)s.xfer_routed, "conc_buffers",
                               (unsigned long long)s.conc_buffers, "upload_imports",
                               (unsigned long long)s.upload_imports, "eager_held",
                               (unsigned long long)s.eager_held, "eager_flushes",
                               (unsigned long long)s.eager_flushes, "eager_drained",
                               (unsigned long long)s.eager_drained);
  if (!xf || PyDict_Update(out, xf) < 0) {
    Py_XDECREF(xf);
    Py_DECREF(out);
    return NULL;
  }
  Py_DECREF(xf);
  return out;
}

/* memory_free_all(): the scratch pool's free buffers and every buffer the
 * runtime's memory pool caches go back to the driver. */
static PyObject *context_memory_free_all(PyObject *obj, PyObject *noargs) {
  vpy_context *self = (vpy_context *)obj;
  vpy_pooled *pool = self->pool;
  uint32_t npool = self->npool;
  self->pool = NULL;
  self->npool = self->cappool = 0;
  self->pool_bytes = 0;
  vp_diags d = {0};
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  for (uint32_t i = 0; i < npool; i++)
    vrt_buffer_destroy(pool[i].b);
  ok = vrt_pool_free_all(self->ctx, &d);
  Py_END_ALLOW_THREADS
  PyMem_Free(pool);
  if (!ok)
    return vpy_raise(vpy_state_of(obj), &d, NULL, self->ctx, NULL);
  vp_diags_free(&d);
  Py_RETURN_NONE;
}

/* ticket_done(value): whether the context's timeline reached `value`
 * (Buffer.last_use values; never blocks). */
static PyObject *context_ticket_done(PyObject *obj, PyObject *args) {
  unsigned long long t;
  if (!PyArg_ParseTuple(args, "K", &t))
    return NULL;
  return PyBool_FromLong(vrt_ticket_done(((vpy_context *)obj)->ctx, t));
}

/* memory_set_limit(bytes): caps the runtime memory pool (0: no cap). */
static PyObject *context_memory_set_limit(PyObject *obj, PyObject *args) {
  unsigned long long n;
  if (!PyArg_ParseTuple(args, "O&", vpy_arg_size, &n)) /* not "K": -1 would wrap to no cap */
    return NULL;
  vrt_pool_set_limit(((vpy_context *)obj)->ctx, n);
  Py_RETURN_NONE;
}

/* inject_fault(call, vk_result, times=1) or inject_fault(None): the testing
 * hook; times=0 fails every `call` until inject_fault(None). */
static PyObject *context_inject_fault(PyObject *obj, PyObject *args) {
  const char *call = NULL;
  int result = 0;
  unsigned int times = 1;
  if (!PyArg_ParseTuple(args, "z|iI", &call, &result, &times))
    return NULL;
  vrt_context_inject_faults(((vpy_context *)obj)->ctx, call, result, times ? times : UINT32_MAX);
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
    {"wait_idle", context_wait_idle, METH_NOARGS,
     "waits until every submitted dispatch and copy is done (raises DeviceLostError on a lost "
     "device); a Context's synchronize()"},
    {"stats", context_stats, METH_NOARGS, "stats() -> dict of submission and memory counters"},
    {"cores", context_cores, METH_NOARGS,
     "cores() -> (cores, warps_per_core) of the device, (0, 0) when unknown"},
    {"scratch", context_scratch, METH_VARARGS,
     "scratch(size, kind) -> Buffer: a reusable buffer from the context's pool"},
    {"memory_free_all", context_memory_free_all, METH_NOARGS,
     "memory_free_all(): free every cached buffer (memory pool and scratch pool)"},
    {"ticket_done", context_ticket_done, METH_VARARGS,
     "ticket_done(value): whether the timeline reached value (a Buffer.last_use)"},
    {"memory_set_limit", context_memory_set_limit, METH_VARARGS,
     "memory_set_limit(bytes): cap the memory pool's bytes (0: no cap)"},
    {"pool_info", context_pool_info, METH_NOARGS,
     "pool_info() -> {'buffers', 'bytes'} of the free scratch buffers"},
    {"set_wait", context_set_wait, METH_VARARGS,
     "set_wait(mode, spin_us=0): 'spin-block', 'block', 'spin' or 'default'"},
    {"inject_fault", context_inject_fault, METH_VARARGS,
     "inject_fault(call, vk_result, times=1): the next `times` `call`s fail with `vk_result` (0: until inject_fault(None); tests)"},
    {NULL, NULL, 0, NULL},
};

/* timeout: seconds (float) any wait without its own may block, or None */
static PyObject *context_get_timeout(PyObject *obj, void *c) {
  uint64_t ns = vrt_context_timeout(((vpy_context *)obj)->ctx);
  if (!ns)
    Py_RETURN_NONE;
  return PyFloat_FromDouble((double)ns / 1e9);
}

static int context_set_timeout(PyObject *obj, PyObject *value, void *c) {
  uint64_t ns = 0;
  if (value && value != Py_None) {
    double s = PyFloat_AsDouble(value);
    if (s == -1.0 && PyErr_Occurred())
      return -1;
    if (!(s > 0) || s > 1e9) {
      PyErr_Format(PyExc_ValueError, "timeout must be None or a number of seconds > 0, got %R",
                   value);
      return -1;
    }
    ns = (uint64_t)(s * 1e9);
    if (!ns)
      ns = 1;
  }
  vrt_context_set_timeout(((vpy_context *)obj)->ctx, ns);
  return 0;
}

static PyGetSetDef context_getset[] = {
    {"timeout", context_get_timeout, context_set_timeout,
     "seconds any wait without a timeout of its own may block (None: no limit)", NULL},
    {"lost", context_lost, NULL, "True once the device was lost", NULL},
    {"address", context_address, NULL, "the vrt_context pointer", NULL},
    {"wait", context_get_wait, NULL, "(mode, spin_us): how waits wait", NULL},
    {"copy_threads", context_get_copy_threads, context_set_copy_threads,
     "threads that share large host copies", NULL},
    {"eager_batch", context_get_eager_batch, context_set_eager_batch,
     "eager dispatches held back at most before one submission (1: none), or 'adaptive'",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot context_slots[] = {
    {Py_tp_new, context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_doc, "Context(device=None, validation=-1, cache_dir=None, spin_us=0, "
                "no_push_descriptors=False, wait=None, copy_threads=0, force_denorm=0): "
                "a Vulkan device and its compute queue"},
    {0, NULL},
};

PyType_Spec vpy_context_spec = {
    .name = "vulpy._vulpy.Context",
    .basicsize = sizeof(vpy_context),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = context_slots,
};

/* ------------------------------------------------- the VULPY_* variables */

/* env_options() -> dict: what the VULPY_* variables choose for a new
 * context (vrt_env_context_options over no arguments), for the Python
 * layer's own uses of them (the compiler warm-up, vulpy.mpi's device
 * choice): the variables are parsed in C only. VulkanError for a bad value. */
PyObject *vpy_env_options(PyObject *m, PyObject *noargs) {
  vpy_state *st = vpy_module_state(m);
  vrt_context_options opt = {.validation = -1};
  vrt_env env;
  vp_diags d = {0};
  if (!vrt_env_context_options(&opt, &env, &d))
    return vpy_raise(st, &d, NULL, NULL, NULL);
  vp_diags_free(&d);
  return Py_BuildValue(
      "{sNsNsNsssIsIsssssOsOsOsNsIsIsIss}", "device", vpy_str_or_none(opt.device), "validation",
      opt.validation < 0 ? Py_NewRef(Py_None) : PyBool_FromLong(opt.validation > 0), "cache_dir",
      vpy_str_or_none(opt.cache_dir), "wait", vrt_wait_mode_name(opt.wait), "spin_us",
      opt.spin_us, "copy_threads", opt.copy_threads, "fma", vrt_fma_mode_name(opt.fma),
      "denorm", vrt_denorm_mode_name(opt.denorm), "export_semaphores",
      opt.no_export_semaphores ? Py_False : Py_True, "stream_queues",
      opt.single_queue ? Py_False : Py_True, "prewarm", opt.no_prewarm ? Py_False : Py_True,
      "vulkan_library", vpy_str_or_none(opt.vulkan_library), "staging_slots", opt.staging_slots,
      "staging_mib", opt.staging_slot_mib, "upload_import_mib", opt.upload_import_mib, "fork_child",
      (const char *[]){"auto", "refuse", "try"}[opt.fork_child]);
}
