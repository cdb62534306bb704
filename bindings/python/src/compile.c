/* compile.c - the compiler, in-process: AST JSON or VIR -> every target.
 *
 *   compile_ast(json, ...)   the frontend (vfe_translate_json), then the
 *                            requested targets of one kernel
 *   compile_vir(text, ...)   the same from VIR text
 *   glsl_to_spirv(glsl)      raw GLSL through glslang (no glslangValidator)
 *   reflect_spirv(words)     SPIRV-Cross reflection as a manifest (YAML)
 *   spirv_disassemble(words), manifest_parse(yaml)
 *
 * Compile errors become vulpy.CompileError whose message is the frontend's
 * `file:line:col: error: ...` with the source line and a caret. Every target
 * comes from lib/Target's table (vtg_target_lookup), as in vulpy-translate.
 */
#include "ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulpy/frontend.h"
#include "vulpy/ir.h"
#include "vulpy/passes.h"
#include "vulpy/target.h"

/* The compiler names the fma specialization constant and the runtime sets
 * it: both must mean the same SpecId. */
_Static_assert(VTG_FMA_SPEC_ID == VRT_FMA_SPEC_ID,
               "target.h and runtime.h disagree on VP_FMA_FUSED's SpecId");

typedef struct emit_request {
  const char *kernel;
  uint32_t local_size[3];
  int fast_math, optimize;
  unsigned long features;
  unsigned vulkan;
  const char *passes; /* compile_ast: NULL runs the source's (vir_module.pipeline) */
  const char *then;   /* passes after those (bounds-check, clamp-shared) */
  PyObject *targets;
} emit_request;

static PyObject *text_value(const vp_strbuf *b) {
  return PyUnicode_DecodeUTF8(b->data ? b->data : "", (Py_ssize_t)b->len, "replace");
}

/* One target's output (str, or bytes for binary targets) through lib/Target's
 * table, or NULL with diagnostics in d or a Python error set. */
static PyObject *emit_one(const vir_module *m, const vtg_options *o, const char *name,
                          vp_diags *d) {
  vp_strbuf text = {0};
  PyObject *v = NULL;
  if (strcmp(name, "vir") == 0) {
    vir_print(m, 0, &text);
    v = text_value(&text);
  } else {
    const vtg_target *t = vtg_target_lookup(name);
    if (!t)
      return PyErr_Format(PyExc_ValueError, "unknown target '%s'", name);
    if (t->emit(m, o, &text, d))
      v = t->binary ? PyBytes_FromStringAndSize(text.data, (Py_ssize_t)text.len)
                    : text_value(&text);
  }
  vp_strbuf_free(&text);
  return v;
}

/* Loop back-edges one invocation takes, where every trip count is a
 * constant (issue 20: lavapipe ends loops silently after ~65,535 of them
 * per invocation): a loop adds trip x (1 + its body's); loops whose bounds
 * are not constants count 0 (unknown). Saturates. */
static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

static bool const_int(const vir_value *v, int64_t *out) {
  const vir_op *d = v ? v->def : NULL;
  if (!d || d->code != VIR_OP_CONST || !v->type ||
      (v->type->kind != VIR_TY_INT && v->type->kind != VIR_TY_UINT))
    return false;
  *out = v->type->kind == VIR_TY_INT ? d->attr.lit.i : (int64_t)d->attr.lit.u;
  return true;
}

static uint64_t region_backedges(const vir_region *r) {
  uint64_t total = 0;
  for (const vir_op *op = r ? r->first : NULL; op; op = op->next) {
    uint64_t inner = 0;
    for (uint32_t k = 0; k < vir_op_info_of(op->code)->nregion; k++)
      inner = sat_add(inner, region_backedges(&op->regions[k]));
    int64_t lo, hi, st;
    if (op->code == VIR_OP_FOR && op->nopnd == 3 && const_int(op->opnd[0], &lo) &&
        const_int(op->opnd[1], &hi) && const_int(op->opnd[2], &st) && st) {
      uint64_t trip = st > 0 ? (hi > lo ? ((uint64_t)hi - (uint64_t)lo + (uint64_t)st - 1) / (uint64_t)st : 0)
                             : (lo > hi ? ((uint64_t)lo - (uint64_t)hi + (uint64_t)(-st) - 1) / (uint64_t)(-st) : 0);
      total = sat_add(total, sat_mul(trip, sat_add(1, inner)));
    } else {
      total = sat_add(total, inner);
    }
  }
  return total;
}

static uint64_t module_backedges(const vir_module *m) {
  uint64_t most = 0;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func) {
      uint64_t n = region_backedges(&s->func->body);
      most = n > most ? n : most;
    }
  }
  return most;
}

/* Runs the passes and emits every requested target of `m` into a dict.
 * On error raises CompileError (formatted against `source`). */
static PyObject *emit_targets(vpy_state *st, vir_module *m, const emit_request *rq,
                              const char *source) {
  vp_diags d = {0};
  const char *pipelines[2] = {rq->passes, rq->then};
  for (int i = 0; i < 2; i++) {
    if (!pipelines[i] || !*pipelines[i])
      continue;
    vir_pipeline_options po = {0};
    po.pass.fast_math = rq->fast_math;
    if (vir_run_pipeline(m, pipelines[i], &po, &d) == VIR_PASS_FAILURE)
      return vpy_raise(st, &d, st->CompileError, NULL, source);
  }
  /* back ends never see memsock.fire: its protocol, in plain kernel VIR */
  if (vir_lower_memsock(m, NULL, &d) == VIR_PASS_FAILURE)
    return vpy_raise(st, &d, st->CompileError, NULL, source);
  vtg_options o;
  vtg_options_init(&o);
  o.kernel = rq->kernel;
  o.fast_math = rq->fast_math;
  o.optimize = rq->optimize;
  memcpy(o.local_size, rq->local_size, sizeof o.local_size);
  o.features = (uint32_t)rq->features;
  o.vulkan = rq->vulkan;
  PyObject *out = PyDict_New();
  PyObject *seq = out ? PySequence_Fast(rq->targets, "targets must be a sequence of str") : NULL;
  bool ok = seq != NULL;
  Py_ssize_t n = ok ? PySequence_Size(seq) : 0;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *item = PySequence_GetItem(seq, i);
    const char *name = item && PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, NULL) : NULL;
    if (!name) {
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "targets must be str");
      ok = false;
    } else {
      ok = vpy_dict_set(out, name, emit_one(m, &o, name, &d));
    }
    Py_XDECREF(item);
  }
  Py_XDECREF(seq);
  if (!ok) {
    Py_XDECREF(out);
    if (d.nerrors && !PyErr_Occurred())
      return vpy_raise(st, &d, st->CompileError, NULL, source);
    vp_diags_free(&d);
    if (!PyErr_Occurred())
      PyErr_NoMemory();
    return NULL;
  }
  /* as text: the caches keep str and bytes */
  if (!vpy_dict_set(out, "loop_backedges",
                    PyUnicode_FromFormat("%llu", (unsigned long long)module_backedges(m)))) {
    Py_DECREF(out);
    vp_diags_free(&d);
    return NULL;
  }
  if (d.count) { /* warnings, for the caller to show */
    char *text = vp_diags_format(&d, source);
    vpy_dict_set(out, "warnings", PyUnicode_FromString(text ? text : ""));
    free(text);
  }
  vp_diags_free(&d);
  return out;
}

static bool parse_request(PyObject *args, PyObject *kw, const char **text, Py_ssize_t *len,
                          const char **name, int *guard, int *asserts, emit_request *rq) {
  static char *kwlist[] = {"text",     "name",     "kernel", "local_size", "dispatch_guard",
                           "asserts",  "fast_math", "optimize", "features", "vulkan",
                           "targets",  "passes",   "then",     NULL};
  PyObject *local = Py_None;
  memset(rq, 0, sizeof *rq);
  rq->features = 0xffffffffUL;
  *guard = 1;
  *asserts = 0;
  *name = "<kernel>";
  rq->targets = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|szOppppkIOzz", kwlist, text, len, name,
                                   &rq->kernel, &local, guard, asserts, &rq->fast_math,
                                   &rq->optimize, &rq->features, &rq->vulkan, &rq->targets,
                                   &rq->passes, &rq->then))
    return false;
  if (local != Py_None && !vpy_uint3(local, "local_size", 1, rq->local_size))
    return false;
  if (local == Py_None)
    rq->local_size[0] = rq->local_size[1] = rq->local_size[2] = 0;
  return true;
}

static PyObject *default_targets(void) {
  return Py_BuildValue("(ssss)", "vir", "glsl", "spirv", "manifest");
}

vir_module *vpy_parse_vir(vpy_state *st, const char *text, size_t len, const char *name,
                          vp_diags *d) {
  vir_module *m = vir_parse(text, len, name, d);
  if (m && !vir_verify(m, d)) {
    vir_module_destroy(m);
    m = NULL;
  }
  if (!m)
    vpy_raise(st, d, st->CompileError, NULL, text);
  return m;
}

/* emit_targets for the request's targets (the default set when it names
 * none), then destroys `m`: the end of compile_ast and compile_vir. */
static PyObject *emit_and_destroy(vpy_state *st, vir_module *m, emit_request *rq,
                                  const char *source) {
  PyObject *owned = NULL;
  if (!rq->targets)
    rq->targets = owned = default_targets();
  PyObject *out = rq->targets ? emit_targets(st, m, rq, source) : NULL;
  Py_XDECREF(owned);
  vir_module_destroy(m);
  return out;
}

/* compile_ast(json, name='<kernel>', kernel=None, local_size=None,
 *             dispatch_guard=True, asserts=False, fast_math=False,
 *             optimize=False, features=0xffffffff, vulkan=0,
 *             targets=('vir','glsl','spirv','manifest'), passes=None, then=None)
 *   -> dict; passes=None runs what the source asks for (vir_module.pipeline:
 *   its barrier= and nonprivate=), `then` runs after the passes */
static PyObject *compile_ast(PyObject *self, PyObject *args, PyObject *kw) {
  vpy_state *st = vpy_module_state(self);
  const char *text, *name;
  Py_ssize_t len;
  int guard, asserts;
  emit_request rq;
  if (!parse_request(args, kw, &text, &len, &name, &guard, &asserts, &rq))
    return NULL;
  vfe_options fo;
  vfe_options_init(&fo);
  fo.kernel = rq.kernel;
  memcpy(fo.local_size, rq.local_size, sizeof fo.local_size);
  fo.dispatch_guard = guard;
  fo.debug_asserts = asserts;
  vp_diags d = {0};
  char *source = NULL;
  vir_module *m;
  Py_BEGIN_ALLOW_THREADS
  m = vfe_translate_json(text, (size_t)len, name, &fo, &source, &d);
  Py_END_ALLOW_THREADS
  if (!m) {
    PyObject *r = vpy_raise(st, &d, st->CompileError, NULL, source);
    free(source);
    return r;
  }
  /* the frontend's warnings (a name read before it is assigned, code that
   * never runs) go to out["warnings"], ahead of the back ends' */
  char *fe_warnings = d.count ? vp_diags_format(&d, source) : NULL;
  vp_diags_free(&d);
  if (!rq.passes) /* what the kernel's decorator asks for (barrier=, nonprivate=) */
    rq.passes = m->pipeline ? m->pipeline : VIR_BACKEND_PIPELINE;
  PyObject *out = emit_and_destroy(st, m, &rq, source);
  free(source);
  if (out && fe_warnings && *fe_warnings) {
    PyObject *later = PyDict_GetItemString(out, "warnings"); /* borrowed */
    PyObject *all = later ? PyUnicode_FromFormat("%s%U", fe_warnings, later)
                          : PyUnicode_FromString(fe_warnings);
    if (!all || PyDict_SetItemString(out, "warnings", all) < 0)
      Py_CLEAR(out);
    Py_XDECREF(all);
  }
  free(fe_warnings);
  return out;
}

/* compile_vir(text, name='<vir>', kernel=None, local_size=None, ...) -> dict */
static PyObject *compile_vir(PyObject *self, PyObject *args, PyObject *kw) {
  vpy_state *st = vpy_module_state(self);
  const char *text, *name;
  Py_ssize_t len;
  int guard, asserts;
  emit_request rq;
  if (!parse_request(args, kw, &text, &len, &name, &guard, &asserts, &rq))
    return NULL;
  vp_diags d = {0};
  vir_module *m = vpy_parse_vir(st, text, (size_t)len, name, &d);
  if (!m)
    return NULL;
  vp_diags_free(&d);
  return emit_and_destroy(st, m, &rq, text);
}

/* glsl_to_spirv(glsl, name='<glsl>', optimize=False, vulkan=0) -> bytes */
static PyObject *glsl_to_spirv(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"glsl", "name", "optimize", "vulkan", NULL};
  const char *glsl, *name = "<glsl>";
  Py_ssize_t len;
  int optimize = 0;
  unsigned vulkan = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|spI", kwlist, &glsl, &len, &name, &optimize,
                                   &vulkan))
    return NULL;
  vtg_options o;
  vtg_options_init(&o);
  o.optimize = optimize;
  o.vulkan = vulkan;
  vp_diags d = {0};
  uint32_t *words = NULL;
  size_t nwords = 0;
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = vtg_glsl_to_spirv(glsl, (size_t)len, name, &o, &words, &nwords, &d);
  Py_END_ALLOW_THREADS
  if (!ok)
    return vpy_raise(vpy_module_state(self), &d, vpy_module_state(self)->CompileError, NULL, glsl);
  vp_diags_free(&d);
  PyObject *out = PyBytes_FromStringAndSize((const char *)words, (Py_ssize_t)(nwords * 4));
  free(words);
  return out;
}

/* reflect_spirv(words) -> manifest YAML (bindings, push fields, local size) */
static PyObject *reflect_spirv(PyObject *self, PyObject *arg) {
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_C_CONTIGUOUS) < 0)
    return NULL;
  vp_diags d = {0};
  vpm_manifest *m = vtg_reflect_spirv(view.buf, (size_t)view.len / 4, &d);
  PyBuffer_Release(&view);
  if (!m)
    return vpy_raise(vpy_module_state(self), &d, vpy_module_state(self)->CompileError, NULL, NULL);
  vp_diags_free(&d);
  char *yaml = vpm_emit(m);
  vpm_free(m);
  if (!yaml)
    return PyErr_NoMemory();
  PyObject *s = PyUnicode_FromString(yaml);
  free(yaml);
  return s;
}

static PyObject *spirv_disassemble(PyObject *self, PyObject *arg) {
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_C_CONTIGUOUS) < 0)
    return NULL;
  vp_diags d = {0};
  vp_strbuf out = {0};
  bool ok = vtg_spirv_disassemble(view.buf, (size_t)view.len / 4, &out, &d);
  PyBuffer_Release(&view);
  if (!ok) {
    vp_strbuf_free(&out);
    return vpy_raise(vpy_module_state(self), &d, vpy_module_state(self)->CompileError, NULL, NULL);
  }
  vp_diags_free(&d);
  PyObject *s = PyUnicode_DecodeUTF8(out.data ? out.data : "", (Py_ssize_t)out.len, "replace");
  vp_strbuf_free(&out);
  return s;
}

/* manifest_parse(yaml) -> dict */
static PyObject *manifest_parse(PyObject *self, PyObject *arg) {
  Py_ssize_t len;
  const char *yaml = PyUnicode_AsUTF8AndSize(arg, &len);
  if (!yaml)
    return NULL;
  vp_diags d = {0};
  vpm_manifest *m = vpm_parse(yaml, (size_t)len, "<manifest>", &d);
  if (!m)
    return vpy_raise(vpy_module_state(self), &d, PyExc_ValueError, NULL, yaml);
  vp_diags_free(&d);
  PyObject *out = vpy_manifest_dict(m);
  vpm_free(m);
  return out;
}

/* ------------------------------------------------------------ prewarm */

/* glslang builds its built-in symbol tables (thousands of GLSL built-in
 * declarations, parsed) on the first shader of a process: most of a cold
 * compile. prewarm() compiles a tiny compute shader with the options every
 * kernel uses on a background thread, so that the tables are ready by the
 * time the first real kernel comes (Context creation starts it: Vulkan
 * device creation takes as long). glslang's own lock makes a compile that
 * comes early wait for the tables rather than build them twice.
 * prewarm_join() (at exit) waits for the thread, so that the process never
 * unloads glslang under it. */
#include <pthread.h>
#include <stdatomic.h>

static const char prewarm_glsl[] =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(local_size_x_id = 0) in;\n"
    "layout(push_constant, std430) uniform P { uvec3 n; } pc;\n"
    "layout(std430, set = 0, binding = 0) buffer B { float b[]; };\n"
    "void main() {\n"
    "  uint i = gl_GlobalInvocationID.x;\n"
    "  if (i < pc.n.x) b[i] = sin(b[i]) + exp(b[i]);\n"
    "}\n";

/* Process-wide by nature (glslang's tables are): started once. */
static atomic_int prewarm_state; /* 0 never, 1 running or done */
static pthread_t prewarm_thread;

static void *prewarm_main(void *arg) {
  (void)arg;
  vtg_options o;
  vtg_options_init(&o);
  uint32_t *words = NULL;
  size_t n = 0;
  vp_diags d = {0};
  if (vtg_glsl_to_spirv(prewarm_glsl, sizeof prewarm_glsl - 1, "<prewarm>", &o, &words, &n, &d))
    free(words);
  vp_diags_free(&d);
  return NULL;
}

/* Before fork(): the warm-up ends first, so the child neither inherits
 * glslang half set up nor joins a thread that only the parent has (its
 * atexit join crashed the child). */
static void prewarm_before_fork(void) {
  int expected = 1;
  if (atomic_compare_exchange_strong(&prewarm_state, &expected, 2))
    pthread_join(prewarm_thread, NULL);
}
static pthread_once_t prewarm_fork_once = PTHREAD_ONCE_INIT;
static void prewarm_register_fork(void) { pthread_atfork(prewarm_before_fork, NULL, NULL); }

static PyObject *prewarm(PyObject *m, PyObject *noargs) {
  pthread_once(&prewarm_fork_once, prewarm_register_fork);
  int expected = 0;
  if (atomic_compare_exchange_strong(&prewarm_state, &expected, 1) &&
      pthread_create(&prewarm_thread, NULL, prewarm_main, NULL) != 0)
    atomic_store(&prewarm_state, 0);
  else if (expected == 0)
    Py_RETURN_TRUE;
  Py_RETURN_FALSE;
}

static PyObject *prewarm_join(PyObject *m, PyObject *noargs) {
  int expected = 1;
  if (atomic_compare_exchange_strong(&prewarm_state, &expected, 2)) {
    Py_BEGIN_ALLOW_THREADS
    pthread_join(prewarm_thread, NULL);
    Py_END_ALLOW_THREADS
  }
  Py_RETURN_NONE;
}

/* check_entry(spirv, manifest) -> None, or why a cached kernel may not be
 * used (vtg_check_cache_entry, lib/Target/cache_entry.c: SPIRV-Tools'
 * validator, then the reflection against the manifest). */
static PyObject *check_entry(PyObject *self, PyObject *args) {
  Py_buffer sv;
  const char *yaml;
  Py_ssize_t ylen;
  if (!PyArg_ParseTuple(args, "y*s#", &sv, &yaml, &ylen))
    return NULL;
  char why[256] = "";
  Py_BEGIN_ALLOW_THREADS
  vtg_check_cache_entry(sv.buf, (size_t)sv.len, yaml, (size_t)ylen, why, sizeof why);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&sv);
  if (why[0])
    return PyUnicode_FromString(why);
  Py_RETURN_NONE;
}

PyMethodDef vpy_compile_methods[] = {
    {"check_entry", check_entry, METH_VARARGS,
     "check_entry(spirv, manifest) -> None, or why a cached kernel may not be used"},
    {"prewarm", prewarm, METH_NOARGS,
     "prewarm() -> True if it started glslang's one-time set-up on a background thread"},
    {"prewarm_join", prewarm_join, METH_NOARGS, "prewarm_join(): waits for prewarm's thread"},
    {"compile_ast", (PyCFunction)(void (*)(void))compile_ast, METH_VARARGS | METH_KEYWORDS,
     "compile_ast(json, name, kernel, local_size, dispatch_guard, asserts, fast_math, optimize, "
     "features, vulkan, targets, passes, then) -> dict of target -> text/bytes"},
    {"compile_vir", (PyCFunction)(void (*)(void))compile_vir, METH_VARARGS | METH_KEYWORDS,
     "compile_vir(text, ...) -> dict of target -> text/bytes"},
    {"glsl_to_spirv", (PyCFunction)(void (*)(void))glsl_to_spirv, METH_VARARGS | METH_KEYWORDS,
     "glsl_to_spirv(glsl, name='<glsl>', optimize=False, vulkan=0) -> SPIR-V bytes"},
    {"reflect_spirv", reflect_spirv, METH_O, "reflect_spirv(spirv) -> manifest YAML"},
    {"spirv_disassemble", spirv_disassemble, METH_O, "spirv_disassemble(spirv) -> text"},
    {"manifest_parse", manifest_parse, METH_O, "manifest_parse(yaml) -> dict"},
    {NULL, NULL, 0, NULL},
};
