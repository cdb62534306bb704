"""The Python package's layers (issue 14, "A Python package that reads
top-down"): no import cycle, no module patching another, ndarray's and the
tracer's methods defined in their classes.

The layers, bottom up (each imports only the ones below it):
  _types, _errors -> _native -> _context -> _graph -> _array (vp.ndarray: the
  type, storage, transfers, creation) -> _launch / _engine -> ops (_arrayops,
  _ufunc, _reduce, _indexing, _shapeops, _complex, _matmul, ...) -> _jit (the
  tracer) -> vulpy/__init__.py.
ndarray sits below the ops because the ops (and the C launcher) make
ndarrays; its operators and methods are written in its class and delegate
to the op modules through the package, which __init__ hands to
_array.bind_ops() (docs/architecture.md, "The Python layers").

Every import counts: `from . import x`, `from .x import y`, `import
vulpy.x`, `from vulpy import x`, `importlib.import_module("vulpy.x")`, at
module level or inside a function (a deferred import is still a
dependency; it only hides the cycle from the interpreter). A name that is
not a module (`from . import f` of a function in __init__, `import vulpy`)
is an edge to __init__, which imports everything.
"""
import ast
import importlib
import inspect
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "bindings" / "python" / "vulpy"


def _modules():
    return {f.stem: f for f in sorted(PKG.glob("*.py"))}


def _targets(node, mods):
    """The package modules an import node (or importlib call) names."""
    def name(dotted):
        first = dotted.split(".")[0]
        if first == "_vulpy":  # the C extension: a leaf
            return None
        return first if first in mods else "__init__"

    if isinstance(node, ast.ImportFrom):
        if node.level == 1 or (node.level == 0 and (node.module or "").split(".")[0] == "vulpy"):
            mod = node.module if node.level == 1 else \
                (node.module.split(".", 1)[1] if "." in node.module else None)
            if mod:
                return [name(mod)]
            return [name(a.name) for a in node.names]
        if node.level > 1:
            return ["__init__"]
    if isinstance(node, ast.Import):
        out = []
        for a in node.names:
            parts = a.name.split(".")
            if parts[0] == "vulpy":
                out.append(name(parts[1]) if len(parts) > 1 else "__init__")
        return out
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "import_module" and node.args and \
            isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        spec = node.args[0].value
        if spec.startswith("vulpy.") or spec.startswith("."):
            return [name(spec.lstrip(".").split(".", 1)[-1] if spec.startswith("vulpy.")
                         else spec.lstrip("."))]
        if spec == "vulpy":
            return ["__init__"]
    return []


def imports(files=None):
    """module -> {imported package module: [line, ...]}"""
    files = files or _modules()
    graph = {}
    for m, f in files.items():
        deps = {}
        src = f.read_text() if isinstance(f, Path) else f
        for node in ast.walk(ast.parse(src, str(f))):
            for t in _targets(node, files):
                if t is not None and t != m:
                    deps.setdefault(t, []).append(node.lineno)
        graph[m] = deps
    return graph


# Kernel programs in VulPy's kernel language that an op module runs:
# like user kernels they are written against the public API (`import vulpy
# as vp`: the frontend reads `vp.` as the vulpy namespace), so they are the
# package's clients, above its top, not one of its layers. Their module
# imports vulpy and nothing else, and the op module that runs them imports
# them at first use (test_kernel_programs_are_clients checks both).
KERNEL_PROGRAMS = {"_random_kernels": "random", "_compact_kernels": "_compact",
                   "_convolve_kernels": "_convolve", "_linalg_kernels": "linalg",
                   "_numeric_kernels": "_numeric"}
# Kernel helpers shared by several kernel programs: a kernel program too
# (imports vulpy only), used by the kernel programs and by the modules that
# build kernels from a template, those importing it at first use.
KERNEL_HELPERS = {"_kernel_helpers": {"_compact_kernels", "_sort_kernels", "_sort_onesweep"}}


def layered():
    """The import graph without the kernel programs' edges to the package
    they are clients of."""
    graph = imports()
    for k in list(KERNEL_PROGRAMS) + list(KERNEL_HELPERS):
        graph[k] = {}
    for users in KERNEL_HELPERS.values():
        for u in users:
            for k in KERNEL_HELPERS:
                graph[u].pop(k, None)
    return graph


def cycles(graph):
    """The strongly connected components with more than one module
    (Tarjan), each as the set of its internal edges."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append({(a, b) for a in comp for b in graph[a] if b in comp})

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_finds_a_cycle():
    """The checker itself: a made-up cycle is found, a chain is not, and
    every spelling of an import is an edge (deferred ones included)."""
    assert cycles({"a": {"b": [1]}, "b": {"c": [2]}, "c": {"a": [3]}}) == [
        {("a", "b"), ("b", "c"), ("c", "a")}]
    assert cycles({"a": {"b": [1]}, "b": {"c": [2]}, "c": {}}) == []
    files = {
        "__init__": "from . import _a\n",
        "_a": "def f():\n    from ._b import g\n",
        "_b": "import vulpy._c\n",
        "_c": "def h():\n    import importlib\n    importlib.import_module('vulpy._d')\n",
        "_d": "from vulpy import _a\n",
        "_e": "def k():\n    from . import thing_in_init\n",
        "_f": "from vulpy._a import f\n",
    }
    g = imports(files)
    assert g["_a"] == {"_b": [2]} and g["_b"] == {"_c": [1]} and g["_c"] == {"_d": [3]}
    assert g["_d"] == {"_a": [1]} and g["_e"] == {"__init__": [2]} and g["_f"] == {"_a": [1]}
    assert cycles(g) == [{("_a", "_b"), ("_b", "_c"), ("_c", "_d"), ("_d", "_a")}]


def test_no_import_cycle():
    graph = layered()
    found = cycles(graph)
    where = [f"{a} -> {b} (bindings/python/vulpy/{a}.py lines {graph[a][b]})"
             for comp in found for a, b in sorted(comp)]
    assert not found, "import cycle:\n  " + "\n  ".join(where)


def test_layers_point_down():
    """The bottom layers stay at the bottom; the ndarray type imports no op
    module; no op module imports the tracer; nothing but __main__ imports
    the package's top."""
    graph = layered()
    assert set(graph["_types"]) <= {"_errors"}
    assert set(graph["_errors"]) == set()
    assert set(graph["_native"]) <= {"_errors"}
    assert set(graph["_graph"]) == set()
    ops = {"_arrayops", "_ufunc", "_reduce", "_indexing", "_shapeops",
           "_stats", "_sort", "_matmul", "_numeric", "_complex", "_jit", "_kernel", "_shader"}
    assert not set(graph["_context"]) & (ops | {"_array", "_launch", "_engine"})
    assert not set(graph["_array"]) & (ops | {"_launch", "_engine"}), graph["_array"]
    for m in ops - {"_jit"}:
        assert "_jit" not in graph[m], (m, graph[m]["_jit"])
    assert [m for m in graph if "__init__" in graph[m] and m != "__main__"] == []


def _imports_at_load(user, k):
    tree = ast.parse((PKG / f"{user}.py").read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    return any(k in _targets(n, _modules()) for n in top)


def test_kernel_programs_are_clients():
    graph = imports()
    for k, user in KERNEL_PROGRAMS.items():
        assert set(graph[k]) - set(KERNEL_HELPERS) == {"__init__"}, graph[k]
        assert [m for m in graph if k in graph[m]] == [user]
        assert not _imports_at_load(user, k), f"{user} imports {k} at load"
    for k, users in KERNEL_HELPERS.items():
        assert set(graph[k]) == {"__init__"}, graph[k]
        assert {m for m in graph if k in graph[m]} == users
        for u in users - set(KERNEL_PROGRAMS):
            assert not _imports_at_load(u, k), f"{u} imports {k} at load"


def _foreign_names(tree, mods):
    """Names in a module that stand for another package module or for
    something in one (`_array`, `_nd = _array.ndarray`, `for cls in
    (_array.ndarray, Tracer)`)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _targets(node, mods):
            names |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import) and _targets(node, mods):
            names |= {a.asname or a.name.split(".")[0] for a in node.names}
    def refers(value):
        """`_array.ndarray`, `ndarray`, `(_array.ndarray, Tracer)`: a
        reference to something of another module (not a call's result)."""
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
            return any(refers(e) for e in value.elts)
        while isinstance(value, ast.Attribute):
            value = value.value
        return isinstance(value, ast.Name) and value.id in names

    grew = True
    while grew:  # aliases of aliases
        grew = False
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.For)):
                value = node.value if isinstance(node, ast.Assign) else node.iter
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if refers(value):
                    for t in targets:
                        for n in (t.elts if isinstance(t, ast.Tuple) else [t]):
                            if isinstance(n, ast.Name) and n.id not in names:
                                names.add(n.id)
                                grew = True
    return names


def _root(node):
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node


def patches(files=None):
    """`file:line: target` for every assignment, anywhere in a module (in
    functions too), into another package module, its classes or its
    tables: `_ufunc.hook = f`, `_array.ndarray.dot = f`, `nd.sum = f` with
    `nd = _array.ndarray`, `setattr(cls, ...)` over such classes,
    `_ufunc.BY_NUMPY[k] = f`."""
    files = files or _modules()
    found = []
    for m, f in files.items():
        src = f.read_text() if isinstance(f, Path) else f
        tree = ast.parse(src, str(f))
        foreign = _foreign_names(tree, files)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) \
                    else [node.target]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in \
                    ("setattr", "delattr") and node.args:
                targets = [node.args[0]]
            else:
                continue
            for t in targets:
                for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    base = _root(e)
                    called = isinstance(node, ast.Call)
                    if (called or e is not base) and isinstance(base, ast.Name) and \
                            base.id in foreign:
                        found.append(f"{m}.py:{node.lineno}: {ast.unparse(e)}")
    return found


def test_patch_finder():
    """The checker itself finds each kind of patch, in functions too."""
    files = {
        "_a": "class ndarray:\n    pass\n",
        "_b": "from . import _a\ndef install():\n    _a.ndarray.dot = 1\n",
        "_c": "from . import _a\n_nd = _a.ndarray\ndef f():\n    _nd.sum = 2\n",
        "_d": "from ._a import ndarray\nfor cls in (ndarray, int):\n    setattr(cls, 'x', 3)\n",
        "_e": "from . import _a\n_a.TABLE['k'] = 4\n",
        "_f": "from . import _a\nx = _a.ndarray\ny = 5\nclass Own:\n    pass\nOwn.z = 6\n",
    }
    assert patches(files) == ["_b.py:3: _a.ndarray.dot", "_c.py:4: _nd.sum",
                              "_d.py:3: cls", "_e.py:2: _a.TABLE['k']"]


def test_no_module_patches_another():
    """No behaviour that depends on import order: no module assigns into
    another package module, its classes or its tables, at import or later
    (ndarray's methods are in its class; vp.jit's tracers reach the ufuncs
    through a method of their own type, Tracer._vp_trace_ufunc)."""
    found = patches()
    assert not found, "modules patching another:\n  " + "\n  ".join(found)


def test_methods_defined_in_their_class():
    """At run time too: every function, property and method on vp.ndarray
    and on vp.jit's Tracer was written in the class's own module."""
    import vulpy as vp
    jit = importlib.import_module("vulpy._jit")
    for cls in (vp.ndarray, jit.Tracer):
        for name, v in vars(cls).items():
            fns = [v.fget, v.fset] if isinstance(v, property) else \
                [v.__func__] if isinstance(v, (staticmethod, classmethod)) else [v]
            for fn in fns:
                if inspect.isfunction(fn):
                    assert fn.__module__ == cls.__module__, \
                        f"{cls.__name__}.{name} comes from {fn.__module__}"
    # the methods NumPy users reach for are there, and documented
    for name in ("sum", "mean", "min", "max", "argmax", "cumsum", "var", "std", "dot", "sort",
                 "argsort", "nonzero", "ptp", "round", "take", "transpose", "swapaxes",
                 "squeeze", "repeat", "conj", "astype", "copy", "reshape", "__getitem__",
                 "__setitem__", "__add__", "__matmul__", "__array_ufunc__", "__repr__"):
        assert name in vars(vp.ndarray), name
    for name in ("sum", "min", "std", "__add__", "__radd__", "__getitem__", "transpose"):
        assert name in vars(jit.Tracer), name
