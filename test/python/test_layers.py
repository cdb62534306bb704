"""The Python package's import graph (issue 14, "A Python package that reads
top-down"): modules import in one direction, types -> native -> context ->
launch/engine -> graph -> ops -> ndarray / tracer.

Every `from . import x` / `from .x import y` counts, at module level or
inside a function (a deferred import is still a dependency; it only hides
the cycle from the interpreter). Two cycles remain today; KNOWN lists their
edges. The test fails on any other cycle, on a new edge inside a known
cycle, and on a listed edge that no longer exists (delete it here: the
list only shrinks, until it is empty and the package has no cycle).
"""
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "bindings" / "python" / "vulpy"

# (importer, imported) edges that close the two remaining cycles:
#   _array <-> _arrayops / _ufunc / _launch (ndarray's operators, copies and
#   fills call the ops, which make ndarrays), and _jit <-> _indexing /
#   _reduce (the tracer's methods call them; they check for tracers).
KNOWN = {
    ("_array", "_arrayops"), ("_array", "_ufunc"), ("_arrayops", "_array"),
    ("_arrayops", "_engine"), ("_arrayops", "_launch"), ("_ufunc", "_arrayops"),
    ("_engine", "_launch"), ("_launch", "_array"), ("_ufunc", "_array"),
    ("_ufunc", "_launch"), ("_ufunc", "_engine"),
    ("_indexing", "_jit"), ("_jit", "_indexing"), ("_jit", "_reduce"), ("_reduce", "_jit"),
}


def imports():
    """module -> {imported package module: [line, ...]}"""
    graph = {}
    for f in sorted(PKG.glob("*.py")):
        deps = {}
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = [node.module] if node.module else [a.name for a in node.names]
                for n in names:
                    deps.setdefault(n.split(".")[0], []).append(node.lineno)
        graph[f.stem] = deps
    return {m: {d: ls for d, ls in deps.items() if d in graph} for m, deps in graph.items()}


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
    """The checker itself: a made-up cycle is found, a chain is not."""
    assert cycles({"a": {"b": [1]}, "b": {"c": [2]}, "c": {"a": [3]}}) == [
        {("a", "b"), ("b", "c"), ("c", "a")}]
    assert cycles({"a": {"b": [1]}, "b": {"c": [2]}, "c": {}}) == []


def test_no_new_import_cycle():
    graph = imports()
    found = set().union(*cycles(graph)) if cycles(graph) else set()
    new = sorted(found - KNOWN)
    where = [f"{a} -> {b} (bindings/python/vulpy/{a}.py lines {graph[a][b]})" for a, b in new]
    assert not new, "import cycle edges beyond the known ones:\n  " + "\n  ".join(where)
    gone = sorted(KNOWN - found)
    assert not gone, f"no longer part of a cycle: remove {gone} from KNOWN in test_layers.py"


def test_low_layers_import_no_higher_layer():
    """The bottom layers stay at the bottom: types, errors and the native
    loader import nothing above them; context imports no op or array
    module."""
    graph = imports()
    assert set(graph["_types"]) <= {"_errors"}
    assert set(graph["_errors"]) == set()
    assert set(graph["_native"]) <= {"_errors"}
    high = {"_array", "_arrayops", "_ufunc", "_jit", "_reduce", "_indexing",
            "_graph", "_kernel", "_shader"}
    assert not set(graph["_context"]) & high, graph["_context"]


def test_no_module_patches_another():
    """No behaviour that depends on import order: no module assigns into
    another package module or its classes at import time (`_ufunc.hook =
    ...`, `setattr(_array.ndarray, ...)`); vp.jit's tracers reach the
    ufuncs through a method of their own type (Tracer._vp_trace_ufunc)."""
    found = []
    for f in sorted(PKG.glob("*.py")):
        tree = ast.parse(f.read_text(), str(f))
        local = {a.asname or a.name for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.level == 1 for a in node.names}
        for top in tree.body:
            if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for node in ast.walk(top):
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.args[0]] if isinstance(node, ast.Call) and \
                    getattr(node.func, "id", None) == "setattr" and node.args else []
                for t in targets:
                    base = t
                    while isinstance(base, ast.Attribute):
                        base = base.value
                    if (t is not base or isinstance(node, ast.Call)) and \
                            isinstance(base, ast.Name) and base.id in local:
                        found.append(f"{f.name}:{node.lineno}: {ast.unparse(t)}")
    assert not found, "modules patched from another module at import:\n  " + "\n  ".join(found)
