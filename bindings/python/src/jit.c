/* jit.c - array-level VIR to kernels, for vp.jit and the array API.
 *
 *   jit_compile(text, name='<jit>', fuse=True, missing=0, fast_math=False,
 *               optimize=False, features=0xffffffff, vulkan=0, targets=True,
 *               cpu_device=False, reduce_groups=0)
 *     -> {'vir': the array function as parsed (before fusion),
 *         'fused': after `fuse` (None with fuse=False),
 *         'lowered': after `lower-arrays` (kernels and launches),
 *         'launches': [(kernel, gx, gy, gz), ...] in order,
 *         'grids': per launch, None, or the ops of the grid of a kernel over
 *                  a dynamic extent (launch_grid(grid, n) evaluates them),
 *         'buffers': [{'name', 'binding', 'type', 'count', 'access'}, ...],
 *         'kernels': {kernel: {'glsl', 'spirv', 'manifest'}} (targets=True)}
 *
 * The Python side (vulpy/_graph.py) prints the array VIR; everything from
 * there on - fusion, lowering, code generation - is vtg_compile_array
 * (lib/Target/array.c), the same call `vulpy-translate` makes on array VIR.
 * Errors are vulpy.CompileError with the VIR line they point at.
 *
 *   ufuncs() -> ((name, nin), ...): the ufuncs `array.ufunc` takes
 *     (vulpy/ir/ufuncs.def; lower-ufuncs expands them in vtg_compile_array)
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

#include "vulpy/ir.h"
#include "vulpy/passes.h"
#include "vulpy/target.h"

static PyObject *str_or_none(const char *s) {
  return s ? PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace") : Py_NewRef(Py_None);
}

static PyObject *launches_of(const vtg_array_result *r) {
  PyObject *list = PyList_New(0);
  for (uint32_t i = 0; list && i < r->nlaunches; i++) {
    const vtg_array_launch *l = &r->launches[i];
    PyObject *t = Py_BuildValue("(skkk)", l->kernel, (unsigned long)l->grid[0],
                                (unsigned long)l->grid[1], (unsigned long)l->grid[2]);
    if (!t || PyList_Append(list, t) < 0)
      Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

/* Per launch: None (a static grid), or the ops of a grid over a dynamic
 * extent, [[[op name, constant, a0, a1, a2], ...], [x, y, z]] (vtg_grid; a
 * list for the disk cache's JSON), which launch_grid evaluates. */
static PyObject *grids_of(const vtg_array_result *r) {
  PyObject *list = PyList_New(0);
  for (uint32_t i = 0; list && i < r->nlaunches; i++) {
    const vtg_grid *g = r->launches[i].dynamic;
    PyObject *v = NULL;
    if (!g) {
      v = Py_NewRef(Py_None);
    } else {
      PyObject *ops = PyList_New(0);
      for (uint32_t k = 0; ops && k < g->nops; k++) {
        const vtg_grid_op *op = &g->ops[k];
        PyObject *e = Py_BuildValue("[sKIII]", vir_op_info_of((vir_opcode)op->code)->name,
                                    (unsigned long long)op->k, op->a[0], op->a[1], op->a[2]);
        if (!e || PyList_Append(ops, e) < 0)
          Py_CLEAR(ops);
        Py_XDECREF(e);
      }
      if (ops)
        v = Py_BuildValue("[N[III]]", ops, g->out[0], g->out[1], g->out[2]);
    }
    if (!v || PyList_Append(list, v) < 0)
      Py_CLEAR(list);
    Py_XDECREF(v);
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
    if (!d || !vpy_set_parsed_type(d, s->type->str) || PyList_Append(list, d) < 0)
      Py_CLEAR(list);
    Py_XDECREF(d);
  }
  return list;
}

static PyObject *kernels_of(const vtg_array_result *r) {
  PyObject *kernels = PyDict_New();
  for (uint32_t i = 0; kernels && i < r->nkernels; i++) {
    const vtg_array_kernel *k = &r->kernels[i];
    PyObject *v = Py_BuildValue("{ss#sy#ss}", "glsl", k->glsl, (Py_ssize_t)k->glsl_len, "spirv",
                                (const char *)k->spirv, (Py_ssize_t)(k->nwords * 4), "manifest",
                                k->manifest);
    if (!v || PyDict_SetItemString(kernels, k->name, v) < 0)
      Py_CLEAR(kernels);
    Py_XDECREF(v);
  }
  return kernels;
}

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
  vp_diags d = {0};
  vir_module *m = vpy_parse_vir(st, text, (size_t)len, name, &d);
  if (!m)
    return NULL;
  vtg_array_options o;
  vtg_array_options_init(&o);
  o.fuse = fuse;
  o.targets = targets;
  o.pass.fast_math = fast_math;
  o.pass.missing_features = (uint32_t)missing;
  o.pass.cpu_device = cpu_device;
  o.pass.reduce_groups = reduce_groups;
  o.target.fast_math = fast_math;
  o.target.optimize = optimize;
  o.target.features = (uint32_t)features;
  o.target.vulkan = vulkan;
  vtg_array_result r;
  bool ok = vtg_compile_array(m, &o, &r, &d);
  PyObject *out = NULL;
  if (ok) {
    out = PyDict_New();
    ok = out && vpy_dict_set(out, "vir", str_or_none(r.vir)) &&
         vpy_dict_set(out, "fused", str_or_none(r.fused)) &&
         vpy_dict_set(out, "lowered", str_or_none(r.lowered)) &&
         vpy_dict_set(out, "launches", launches_of(&r)) &&
         vpy_dict_set(out, "grids", grids_of(&r)) &&
         vpy_dict_set(out, "buffers", buffers_of(m)) &&
         (!targets || vpy_dict_set(out, "kernels", kernels_of(&r)));
  }
  vtg_array_result_free(&r);
  vir_module_destroy(m);
  if (!ok) {
    Py_XDECREF(out);
    if (PyErr_Occurred()) {
      vp_diags_free(&d);
      return NULL;
    }
    /* an error without a place in the VIR is about the options (lower-arrays
     * checks reduce_groups itself): the caller's argument, a ValueError */
    if (d.nerrors && !d.items[0].loc.line && !d.items[0].loc.file) {
      PyErr_Format(PyExc_ValueError, "jit_compile: %s", d.items[0].message);
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

/* launch_grid(grid, n) -> (gx, gy, gz): the grid of a launch over a
 * dynamic extent of n elements, from its ops as jit_compile gave them
 * ('grids'; vtg_grid_eval). */
static PyObject *launch_grid(PyObject *self, PyObject *args) {
  PyObject *spec;
  unsigned long long n;
  if (!PyArg_ParseTuple(args, "OK", &spec, &n))
    return NULL;
  if (n > 0xffffffffull)
    return PyErr_Format(PyExc_ValueError, "launch_grid: n = %llu is more than 2^32 - 1", n);
  vtg_grid g = {0};
  PyObject *ops = NULL, *out = NULL;
  if (!PySequence_Check(spec) || PySequence_Size(spec) != 2 ||
      !(ops = PySequence_GetItem(spec, 0)) || !(out = PySequence_GetItem(spec, 1)))
    goto bad;
  PyObject *ot = PySequence_Tuple(out);
  int okout = ot && PyArg_ParseTuple(ot, "HHH", &g.out[0], &g.out[1], &g.out[2]);
  Py_XDECREF(ot);
  Py_ssize_t nops = okout && PySequence_Check(ops) ? PySequence_Size(ops) : -1;
  if (nops < 0 || nops > VTG_GRID_OPS)
    goto bad;
  for (Py_ssize_t k = 0; k < nops; k++) {
    PyObject *e = PySequence_GetItem(ops, k), *et = e ? PySequence_Tuple(e) : NULL;
    const char *name;
    unsigned long long c;
    vtg_grid_op *op = &g.ops[k];
    int ok = et && PyArg_ParseTuple(et, "sKHHH", &name, &c, &op->a[0], &op->a[1], &op->a[2]);
    Py_XDECREF(e);
    Py_XDECREF(et);
    vir_opcode code = ok ? vir_opcode_lookup(name, strlen(name)) : VIR_OP_COUNT;
    if (code == VIR_OP_COUNT || vir_op_info_of(code)->nopnd < 0 || vir_op_info_of(code)->nopnd > 3)
      goto bad;
    op->code = (uint16_t)code;
    op->nopnd = (uint16_t)vir_op_info_of(code)->nopnd;
    op->k = c;
    for (uint32_t i = 0; i < op->nopnd; i++)
      if (op->a[i] >= k) /* operands come first */
        goto bad;
  }
  g.nops = (uint32_t)nops;
  if (g.out[0] >= g.nops || g.out[1] >= g.nops || g.out[2] >= g.nops)
    goto bad;
  Py_DECREF(ops);
  Py_DECREF(out);
  uint32_t grid[3];
  if (!vtg_grid_eval(&g, n, grid))
    return PyErr_Format(PyExc_ValueError, "launch_grid: the grid ops have no value for n = %llu", n);
  return Py_BuildValue("(kkk)", (unsigned long)grid[0], (unsigned long)grid[1], (unsigned long)grid[2]);
bad:
  Py_XDECREF(ops);
  Py_XDECREF(out);
  if (!PyErr_Occurred())
    PyErr_SetString(PyExc_ValueError, "launch_grid: not a launch's grid ops (jit_compile's 'grids')");
  return NULL;
}

/* ufuncs() -> ((name, nin), ...): the NumPy ufuncs of the array level
 * (vulpy/ir/ufuncs.def), each recorded as `array.ufunc NAME` and expanded
 * by lower-ufuncs; vulpy makes one vp ufunc of each. */
static PyObject *ufuncs(PyObject *self, PyObject *args) {
  (void)self, (void)args;
  PyObject *t = PyTuple_New(VIR_UFUNC_COUNT);
  for (uint32_t u = 0; t && u < VIR_UFUNC_COUNT; u++) {
    PyObject *e = Py_BuildValue("(sI)", vir_ufunc_name(u), vir_ufunc_nin(u));
    if (!e)
      Py_CLEAR(t);
    else
      PyTuple_SetItem(t, u, e);
  }
  return t;
}

PyMethodDef vpy_jit_methods[] = {
    {"ufuncs", ufuncs, METH_NOARGS,
     "ufuncs() -> ((name, nin), ...): the NumPy ufuncs of the array level (ufuncs.def)"},
    {"launch_grid", launch_grid, METH_VARARGS,
     "launch_grid(grid, n) -> (gx, gy, gz): the grid of a launch over a dynamic extent"},
    {"jit_compile", (PyCFunction)(void (*)(void))jit_compile, METH_VARARGS | METH_KEYWORDS,
     "jit_compile(text, name, fuse, missing, fast_math, optimize, features, vulkan, targets, "
     "cpu_device, reduce_groups) -> "
     "dict: vir, fused, lowered, launches, buffers, kernels"},
    {NULL, NULL, 0, NULL},
};
