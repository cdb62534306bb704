/* jit.c - array-level VIR to kernels, for vp.jit and the array API.
 *
 *   jit_compile(text, name='<jit>', fuse=True, missing=0, fast_math=False,
 *               optimize=False, features=0xffffffff, vulkan=0, targets=True,
 *               cpu_device=False, reduce_groups=0)
 *     -> {'vir': the array function as parsed (before fusion),
 *         'fused': after `fuse` (None with fuse=False),
 *         'lowered': after `lower-arrays` (kernels and launches),
 *         'launches': [(kernel, gx, gy, gz), ...] in order,
 *         'buffers': [{'name', 'binding', 'type', 'count', 'access'}, ...],
 *         'kernels': {kernel: {'glsl', 'spirv', 'manifest'}} (targets=True)}
 *
 * The Python side (vulpy/_arrayvir.py) prints the array VIR; everything
 * from there on - fusion, lowering, code generation - is this C code.
 * Errors are vulpy.CompileError with the VIR line they point at.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

#ifdef VULPY_HAVE_IR
#include "vulpy/ir.h"
#include "vulpy/passes.h"
#endif
#ifdef VULPY_HAVE_TARGET
#include "vulpy/target.h"
#endif

#if defined(VULPY_HAVE_IR) && defined(VULPY_HAVE_TRANSFORMS)
static PyObject *module_text(const vir_module *m) {
  vp_strbuf b = {0};
  vir_print(m, VIR_PRINT_NO_LOCS, &b);
  PyObject *s = PyUnicode_DecodeUTF8(b.data ? b.data : "", (Py_ssize_t)b.len, "replace");
  vp_strbuf_free(&b);
  return s;
}

static vir_func *array_func(const vir_module *m) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func && s->func->is_array)
      return s->func;
  }
  return NULL;
}

static PyObject *launches_of(vir_func *af) {
  PyObject *list = PyList_New(0);
  for (vir_op *op = af->body.first; list && op; op = op->next) {
    if (op->code != VIR_OP_ARRAY_LAUNCH || op->nopnd != 3 || !op->attr.sym)
      continue;
    unsigned long g[3] = {1, 1, 1};
    for (int i = 0; i < 3; i++)
      if (op->opnd[i]->def && op->opnd[i]->def->code == VIR_OP_CONST)
        g[i] = (unsigned long)op->opnd[i]->def->attr.lit.u;
    PyObject *t = Py_BuildValue("(skkk)", op->attr.sym->name, g[0], g[1], g[2]);
    if (!t || PyList_Append(list, t) < 0) {
      Py_XDECREF(t);
      Py_CLEAR(list);
    }
    Py_XDECREF(t);
  }
  return list;
}

static PyObject *buffers_of(const vir_module *m) {
  static const char *access[] = {"readwrite", "readonly", "writeonly"};
  PyObject *list = PyList_New(0);
  for (uint32_t i = 0; list && i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_BUFFER)
      continue;
    PyObject *d = Py_BuildValue("{sssIsssKss}", "name", s->name, "binding", s->binding, "type",
                                s->type->str, "count", (unsigned long long)s->count, "access",
                                access[s->access]);
    if (!d || PyList_Append(list, d) < 0)
      Py_CLEAR(list);
    Py_XDECREF(d);
  }
  return list;
}

#ifdef VULPY_HAVE_TARGET
/* glsl, spirv, manifest of one kernel of the lowered module */
static PyObject *emit_kernel(vir_module *m, const char *kernel, const vtg_options *base,
                             vp_diags *d) {
  vtg_options o = *base;
  o.kernel = kernel;
  vp_strbuf glsl = {0};
  uint32_t *words = NULL;
  size_t nwords = 0;
  PyObject *out = NULL;
  vpm_manifest *man = NULL;
  char *yaml = NULL;
  if (vtg_emit_glsl(m, &o, &glsl, d) &&
      vtg_glsl_to_spirv(glsl.data, glsl.len, kernel, &o, &words, &nwords, d) &&
      (man = vtg_manifest_from_vir(m, &o, d)) && (yaml = vpm_emit(man)))
    out = Py_BuildValue("{ss#sy#ss}", "glsl", glsl.data ? glsl.data : "", (Py_ssize_t)glsl.len,
                        "spirv", (const char *)words, (Py_ssize_t)(nwords * 4), "manifest", yaml);
  free(yaml);
  vpm_free(man);
  free(words);
  vp_strbuf_free(&glsl);
  return out;
}
#endif

static PyObject *jit_compile(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"text",     "name",     "fuse",   "missing", "fast_math",
                           "optimize", "features", "vulkan", "targets", "cpu_device", "reduce_groups", NULL};
  vpy_state *st = vpy_module_state(self);
  const char *text, *name = "<jit>";
  Py_ssize_t len;
  int fuse = 1, fast_math = 0, optimize = 0, targets = 1, cpu_device = 0;
  unsigned long missing = 0, features = 0xffffffffUL;
  unsigned vulkan = 0, reduce_groups = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|spkppkIppI", kwlist, &text, &len, &name, &fuse,
                                   &missing, &fast_math, &optimize, &features, &vulkan, &targets,
                                   &cpu_device, &reduce_groups))
    return NULL;
  /* the cap of a full reduction's grid (vulpy/_engine.py validates the
   * VULPY_REDUCE_GROUPS it comes from) */
  if (reduce_groups && (reduce_groups < 64 || reduce_groups > 32768 ||
                        (reduce_groups & (reduce_groups - 1)))) {
    PyErr_Format(PyExc_ValueError,
                 "jit_compile: reduce_groups must be 0 or a power of two from 64 to 32768, not %u",
                 reduce_groups);
    return NULL;
  }
  vp_diags d = {0};
  vir_module *m = vpy_parse_vir(st, text, (size_t)len, name, &d);
  if (!m)
    return NULL;
  PyObject *out = PyDict_New(), *before = module_text(m), *fused = NULL;
  vir_pipeline_options po = {.verify_each = true};
  po.pass.fast_math = fast_math;
  po.pass.missing_features = (uint32_t)missing;
  po.pass.cpu_device = cpu_device;
  po.pass.reduce_groups = reduce_groups;
  bool ok = out && before && vpy_dict_set(out, "vir", before);
  if (ok && fuse) {
    ok = vir_run_pipeline(m, "fuse", &po, &d) != VIR_PASS_FAILURE;
    ok = ok && (fused = module_text(m)) && vpy_dict_set(out, "fused", fused);
  } else if (ok) {
    ok = vpy_dict_set(out, "fused", Py_NewRef(Py_None));
  }
  ok = ok && vir_run_pipeline(m, "lower-arrays", &po, &d) != VIR_PASS_FAILURE;
  vir_func *af = ok ? array_func(m) : NULL;
  ok = ok && vpy_dict_set(out, "lowered", module_text(m)) &&
       vpy_dict_set(out, "launches", af ? launches_of(af) : PyList_New(0)) &&
       vpy_dict_set(out, "buffers", buffers_of(m));
  if (ok && targets) {
#ifdef VULPY_HAVE_TARGET
    /* the back ends see kernels only: the host schedule is in 'launches' */
    while (af && af->body.first)
      vir_op_unlink(af->body.first);
    vtg_options o;
    vtg_options_init(&o);
    o.fast_math = fast_math;
    o.optimize = optimize;
    o.features = (uint32_t)features;
    o.vulkan = vulkan;
    PyObject *kernels = PyDict_New();
    ok = kernels != NULL;
    for (uint32_t i = 0; ok && i < m->syms.len; i++) {
      const vir_sym *s = m->syms.data[i];
      if (s->kind != VIR_SYM_FUNC || !s->func || !s->func->is_kernel)
        continue;
      PyObject *k = emit_kernel(m, s->name, &o, &d);
      ok = k && PyDict_SetItemString(kernels, s->name, k) == 0;
      Py_XDECREF(k);
    }
    if (ok)
      ok = vpy_dict_set(out, "kernels", kernels);
    else
      Py_XDECREF(kernels);
#else
    PyErr_SetString(PyExc_NotImplementedError,
                    "this build of vulpy has no back ends (lib/Target) (rebuild once it has landed)");
    ok = false;
#endif
  }
  vir_module_destroy(m);
  if (!ok) {
    Py_XDECREF(out);
    if (PyErr_Occurred()) {
      vp_diags_free(&d);
      return NULL;
    }
    if (d.nerrors)
      return vpy_raise(st, &d, st->CompileError, NULL, text);
    vp_diags_free(&d);
    return PyErr_NoMemory();
  }
  vp_diags_free(&d);
  return out;
}
#else
static PyObject *jit_compile(PyObject *self, PyObject *args, PyObject *kw) {
  PyErr_SetString(PyExc_NotImplementedError,
                  "this build of vulpy has no IR library or passes (rebuild once they have landed)");
  return NULL;
}
#endif

PyMethodDef vpy_jit_methods[] = {
    {"jit_compile", (PyCFunction)(void (*)(void))jit_compile, METH_VARARGS | METH_KEYWORDS,
     "jit_compile(text, name, fuse, missing, fast_math, optimize, features, vulkan, targets, "
     "cpu_device, reduce_groups) -> "
     "dict: vir, fused, lowered, launches, buffers, kernels"},
    {NULL, NULL, 0, NULL},
};
