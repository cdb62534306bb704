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
 * `file:line:col: error: ...` with the source line and a caret. Parts of the
 * compiler that are not in this build raise NotImplementedError naming them.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

#ifdef VULPY_HAVE_IR
#include "vulpy/ir.h"
#include "vulpy/passes.h"
#endif
#ifdef VULPY_HAVE_FRONTEND
#include "vulpy/frontend.h"
#endif
#if defined(VULPY_HAVE_TARGET) || defined(VULPY_HAVE_SPIRV) || defined(VULPY_HAVE_CROSS)
#include "vulpy/target.h"
#endif

#if defined(VULPY_HAVE_TARGET) || defined(VULPY_HAVE_SPIRV)
/* vtg_options_init lives in the back-end registry (targets.c); a build with
 * only the SPIR-V library fills the same defaults here. */
static void options_init(vtg_options *o) {
#ifdef VULPY_HAVE_TARGET
  vtg_options_init(o);
#else
  memset(o, 0, sizeof *o);
  o->features = ~0u;
#endif
}
#endif

static PyObject *not_built(const char *what) {
  return PyErr_Format(PyExc_NotImplementedError,
                      "this build of vulpy has no %s (rebuild once it has landed)", what);
}

#if defined(VULPY_HAVE_IR)
typedef struct emit_request {
  const char *kernel;
  uint32_t local_size[3];
  int fast_math, optimize;
  unsigned long features;
  unsigned vulkan;
  const char *passes;
  PyObject *targets;
} emit_request;

/* Runs the passes and emits every requested target of `m` into a dict.
 * On error raises CompileError (formatted against `source`). */
static PyObject *emit_targets(vpy_state *st, vir_module *m, const emit_request *rq,
                              const char *source) {
  vp_diags d = {0};
  if (rq->passes && *rq->passes) {
    vir_pipeline_options po = {0};
    po.pass.fast_math = rq->fast_math;
    if (vir_run_pipeline(m, rq->passes, &po, &d) == VIR_PASS_FAILURE)
      return vpy_raise(st, &d, st->CompileError, NULL, source);
  }
#ifdef VULPY_HAVE_TARGET
  vtg_options o;
  options_init(&o);
  o.kernel = rq->kernel;
  o.fast_math = rq->fast_math;
  o.optimize = rq->optimize;
  memcpy(o.local_size, rq->local_size, sizeof o.local_size);
  o.features = (uint32_t)rq->features;
  o.vulkan = rq->vulkan;
#endif

  PyObject *out = PyDict_New();
  PyObject *seq = out ? PySequence_Fast(rq->targets, "targets must be a sequence of str") : NULL;
  if (!seq) {
    Py_XDECREF(out);
    return NULL;
  }
  vp_strbuf glsl = {0};
  bool have_glsl = false, ok = true;
  (void)have_glsl;
  Py_ssize_t n = PySequence_Size(seq);
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *item = PySequence_GetItem(seq, i);
    const char *name = item && PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, NULL) : NULL;
    Py_XDECREF(item);
    if (!name) {
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "targets must be str");
      ok = false;
      break;
    }
    vp_strbuf text = {0};
    PyObject *value = NULL;
    if (strcmp(name, "vir") == 0) {
      vir_print(m, 0, &text);
      value = PyUnicode_DecodeUTF8(text.data ? text.data : "", (Py_ssize_t)text.len, "replace");
    }
#ifndef VULPY_HAVE_TARGET
    else {
      not_built("back ends (lib/Target)");
      ok = false;
    }
#else
    else if (strcmp(name, "manifest") == 0) {
      vpm_manifest *man = vtg_manifest_from_vir(m, &o, &d);
      char *yaml = man ? vpm_emit(man) : NULL;
      vpm_free(man);
      if (yaml)
        value = PyUnicode_FromString(yaml);
      free(yaml);
      ok = man != NULL;
    } else if (strcmp(name, "spirv") == 0) {
      /* from the GLSL, printed once for both */
      if (!have_glsl)
        have_glsl = ok = vtg_emit_glsl(m, &o, &glsl, &d);
      uint32_t *words = NULL;
      size_t nwords = 0;
      if (ok && vtg_glsl_to_spirv(glsl.data, glsl.len, source ? "<kernel>" : "<vir>", &o, &words,
                                  &nwords, &d))
        value = PyBytes_FromStringAndSize((const char *)words, (Py_ssize_t)(nwords * 4));
      else
        ok = false;
      free(words);
    } else if (strcmp(name, "glsl") == 0) {
      if (!have_glsl)
        have_glsl = ok = vtg_emit_glsl(m, &o, &glsl, &d);
      if (ok)
        value = PyUnicode_DecodeUTF8(glsl.data ? glsl.data : "", (Py_ssize_t)glsl.len, "replace");
    } else {
      const vtg_target *t = vtg_target_lookup(name);
      if (!t) {
        PyErr_Format(PyExc_ValueError, "unknown target '%s'", name);
        ok = false;
      } else if ((ok = t->emit(m, &o, &text, &d))) {
        value = t->binary ? PyBytes_FromStringAndSize(text.data, (Py_ssize_t)text.len)
                          : PyUnicode_DecodeUTF8(text.data ? text.data : "",
                                                 (Py_ssize_t)text.len, "replace");
      }
    }
#endif
    vp_strbuf_free(&text);
    if (ok && !value)
      ok = false;
    if (ok)
      ok = vpy_dict_set(out, name, value);
  }
  vp_strbuf_free(&glsl);
  Py_DECREF(seq);
  if (!ok) {
    Py_DECREF(out);
    if (d.nerrors)
      return vpy_raise(st, &d, st->CompileError, NULL, source);
    vp_diags_free(&d);
    if (!PyErr_Occurred())
      PyErr_NoMemory();
    return NULL;
  }
  /* warnings, for the caller to show */
  if (d.count) {
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
                           "targets",  "passes",   NULL};
  PyObject *local = Py_None;
  memset(rq, 0, sizeof *rq);
  rq->features = 0xffffffffUL;
  *guard = 1;
  *asserts = 0;
  *name = "<kernel>";
  rq->targets = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|szOppppkIOz", kwlist, text, len, name,
                                   &rq->kernel, &local, guard, asserts, &rq->fast_math,
                                   &rq->optimize, &rq->features, &rq->vulkan, &rq->targets,
                                   &rq->passes))
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
#endif

/* compile_ast(json, name='<kernel>', kernel=None, local_size=None,
 *             dispatch_guard=True, asserts=False, fast_math=False,
 *             optimize=False, features=0xffffffff, vulkan=0,
 *             targets=('vir','glsl','spirv','manifest'), passes=None) -> dict */
static PyObject *compile_ast(PyObject *self, PyObject *args, PyObject *kw) {
#if defined(VULPY_HAVE_FRONTEND) && defined(VULPY_HAVE_IR)
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
  vp_diags_free(&d);
  PyObject *owned = NULL;
  if (!rq.targets)
    rq.targets = owned = default_targets();
  PyObject *out = rq.targets ? emit_targets(st, m, &rq, source) : NULL;
  Py_XDECREF(owned);
  vir_module_destroy(m);
  free(source);
  return out;
#else
  return not_built("frontend or back ends");
#endif
}

/* compile_vir(text, name='<vir>', kernel=None, local_size=None, ...) -> dict */
static PyObject *compile_vir(PyObject *self, PyObject *args, PyObject *kw) {
#if defined(VULPY_HAVE_IR)
  vpy_state *st = vpy_module_state(self);
  const char *text, *name;
  Py_ssize_t len;
  int guard, asserts;
  emit_request rq;
  if (!parse_request(args, kw, &text, &len, &name, &guard, &asserts, &rq))
    return NULL;
  vp_diags d = {0};
  vir_module *m = vir_parse(text, (size_t)len, name, &d);
  if (m && !vir_verify(m, &d)) {
    vir_module_destroy(m);
    m = NULL;
  }
  if (!m)
    return vpy_raise(st, &d, st->CompileError, NULL, text);
  vp_diags_free(&d);
  PyObject *owned = NULL;
  if (!rq.targets)
    rq.targets = owned = default_targets();
  PyObject *out = rq.targets ? emit_targets(st, m, &rq, text) : NULL;
  Py_XDECREF(owned);
  vir_module_destroy(m);
  return out;
#else
  return not_built("IR library or back ends");
#endif
}

/* glsl_to_spirv(glsl, name='<glsl>', optimize=False, vulkan=0) -> bytes */
static PyObject *glsl_to_spirv(PyObject *self, PyObject *args, PyObject *kw) {
#if defined(VULPY_HAVE_SPIRV)
  static char *kwlist[] = {"glsl", "name", "optimize", "vulkan", NULL};
  const char *glsl, *name = "<glsl>";
  Py_ssize_t len;
  int optimize = 0;
  unsigned vulkan = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|spI", kwlist, &glsl, &len, &name, &optimize,
                                   &vulkan))
    return NULL;
  vtg_options o;
  options_init(&o);
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
#else
  return not_built("GLSL compiler (lib/Target/SPIRV)");
#endif
}

/* reflect_spirv(words) -> manifest YAML (bindings, push fields, local size) */
static PyObject *reflect_spirv(PyObject *self, PyObject *arg) {
#if defined(VULPY_HAVE_CROSS)
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
#else
  return not_built("SPIR-V reflection (lib/Target/Cross)");
#endif
}

static PyObject *spirv_disassemble(PyObject *self, PyObject *arg) {
#if defined(VULPY_HAVE_SPIRV)
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
#else
  return not_built("SPIR-V tools (lib/Target/SPIRV)");
#endif
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

/* have() -> dict: which compiler parts this build contains. */
static PyObject *have(PyObject *self, PyObject *noargs) {
  bool frontend = false, ir = false, target = false, spirv = false, cross = false;
#ifdef VULPY_HAVE_FRONTEND
  frontend = true;
#endif
#ifdef VULPY_HAVE_IR
  ir = true;
#endif
#ifdef VULPY_HAVE_TARGET
  target = true;
#endif
#ifdef VULPY_HAVE_SPIRV
  spirv = true;
#endif
#ifdef VULPY_HAVE_CROSS
  cross = true;
#endif
  return Py_BuildValue("{sOsOsOsOsO}", "frontend", frontend ? Py_True : Py_False, "ir",
                       ir ? Py_True : Py_False, "target", target ? Py_True : Py_False, "spirv",
                       spirv ? Py_True : Py_False, "cross", cross ? Py_True : Py_False);
}

PyMethodDef vpy_compile_methods[] = {
    {"compile_ast", (PyCFunction)(void (*)(void))compile_ast, METH_VARARGS | METH_KEYWORDS,
     "compile_ast(json, name, kernel, local_size, dispatch_guard, asserts, fast_math, optimize, "
     "features, vulkan, targets, passes) -> dict of target -> text/bytes"},
    {"compile_vir", (PyCFunction)(void (*)(void))compile_vir, METH_VARARGS | METH_KEYWORDS,
     "compile_vir(text, ...) -> dict of target -> text/bytes"},
    {"glsl_to_spirv", (PyCFunction)(void (*)(void))glsl_to_spirv, METH_VARARGS | METH_KEYWORDS,
     "glsl_to_spirv(glsl, name='<glsl>', optimize=False, vulkan=0) -> SPIR-V bytes"},
    {"reflect_spirv", reflect_spirv, METH_O, "reflect_spirv(spirv) -> manifest YAML"},
    {"spirv_disassemble", spirv_disassemble, METH_O, "spirv_disassemble(spirv) -> text"},
    {"manifest_parse", manifest_parse, METH_O, "manifest_parse(yaml) -> dict"},
    {"have", have, METH_NOARGS, "have() -> which compiler parts are built"},
    {NULL, NULL, 0, NULL},
};
