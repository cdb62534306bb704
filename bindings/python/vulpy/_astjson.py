"""The Python AST of a kernel as JSON, for the C frontend (lib/Frontend).

This is the only compiler step written in Python: `ast.parse`, then every
node becomes {"_type": "<ast class>", <fields>..., "lineno", "col_offset",
"end_lineno", "end_col_offset"}. The C side reads it with libyaml and does
all the checking, so this file stays small and needs nothing but the
standard library (no C extension, no third-party import).

include/vulpy/frontend.h has the document's contract (its keys, locations,
None fields left out, floats by repr() with "inf"/"nan" as strings,
"constants" of decorated functions). What it leaves to this side:
- Constants carry "kind" (replacing ast.Constant's u-prefix marker):
  besides "int", "float", "bool", "str", "None" also "bytes", "complex"
  and "Ellipsis"; a module value a function reads that is not a number
  appears as {"kind": "<type name>"} with no value, so the frontend can
  name it in its error.
- Strings are JSON with the few characters YAML does not take raw
  (C0/C1 controls, DEL, U+2028/2029, U+FEFF, non-characters) escaped,
  since the reader is a YAML parser.
"""
import ast
import importlib.util
import inspect
import json
import linecache
import math
import re
import sys
import textwrap
import types

FORMAT_VERSION = 1
_LOC = ("lineno", "col_offset", "end_lineno", "end_col_offset")

# Characters a YAML double-quoted scalar cannot hold raw; json.dumps with
# ensure_ascii=False already escapes U+0000..U+001F, '"' and '\\'.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def _escape_yaml(text):
    return _YAML_UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def _constant(value):
    """The typed form of a Python constant."""
    if value is None:
        return {"value": None, "kind": "None"}
    if isinstance(value, bool):
        return {"value": value, "kind": "bool"}
    if isinstance(value, int):
        return {"value": value, "kind": "int"}
    if isinstance(value, float):
        if math.isnan(value):
            return {"value": "nan", "kind": "float"}
        if math.isinf(value):
            return {"value": "inf" if value > 0 else "-inf", "kind": "float"}
        return {"value": value, "kind": "float"}
    if isinstance(value, str):
        return {"value": value, "kind": "str"}
    if isinstance(value, bytes):
        return {"value": value.decode("latin-1"), "kind": "bytes"}
    if isinstance(value, complex):
        return {"value": repr(value), "kind": "complex"}
    if value is Ellipsis:
        return {"value": None, "kind": "Ellipsis"}
    return {"value": repr(value), "kind": type(value).__name__}


def _node(node, dline, dcol):
    """One ast node (and its subtree) as dicts; `dline`/`dcol` shift
    locations (a dedented function back to where it is in its file).

    Written for speed (it is most of the dump's time): per-class facts are
    cached, and nodes without fields or locations (Load, Add, ...) share one
    dict per class."""
    AST = ast.AST
    info = {}
    shared = {}

    def conv(n):
        cls = n.__class__
        facts = info.get(cls)
        if facts is None:
            facts = info[cls] = (cls.__name__, cls._fields, cls is ast.Constant,
                                 "lineno" in cls._attributes)
        name, fields, is_const, located = facts
        if not fields and not located:
            d = shared.get(cls)
            if d is None:
                d = shared[cls] = {"_type": name}
            return d
        d = {"_type": name}
        if is_const:
            d.update(_constant(n.value))
        else:
            for f in fields:
                v = getattr(n, f, None)
                if v is None:
                    continue
                if isinstance(v, AST):
                    d[f] = conv(v)
                elif isinstance(v, list):
                    d[f] = [conv(x) if isinstance(x, AST) else x for x in v]
                else:
                    d[f] = v  # identifiers (str), ints (ImportFrom.level)
        if located:
            line = getattr(n, "lineno", None)
            if line is not None:
                d["lineno"] = line + dline
                d["col_offset"] = n.col_offset + dcol
                end = n.end_lineno
                if end is not None:
                    d["end_lineno"] = end + dline
                    d["end_col_offset"] = n.end_col_offset + dcol
        return d

    return conv(node)


def _jsonable(value):
    """Options travel only when JSON can carry them (a context object or a
    helper function does not; the Python side keeps those)."""
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_jsonable(v) for v in value)
    if isinstance(value, dict):  # e.g. control_words={"ctrl": ["mode", "hot_count"]}
        return all(isinstance(k, str) and _jsonable(v) for k, v in value.items())
    return False


def _document(filename, source, module, kernel, options, constants=None):
    doc = {
        "_vulpy_ast": FORMAT_VERSION,
        "filename": filename,
        "source": source,
        "kernel": kernel,
        "options": {k: v for k, v in (options or {}).items() if _jsonable(v)},
    }
    if constants:
        doc["constants"] = constants
    doc["module"] = module
    return doc


def to_json(doc):
    """to_json(doc): the document `doc` (a dict from dump_source /
    dump_function) as text, as the C frontend reads it: compact (no spaces
    after ',' and ':'), which libyaml reads a little faster (its cost is
    per byte as well as per event)."""
    return _escape_yaml(json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")))


def dump_source(text, filename="<string>", kernel=None, options=None):
    """The JSON document (a dict) of a whole module's source `text`;
    `filename` is what locations in diagnostics name.

    `kernel` names the entry function (None: `main`, or the only function
    decorated with vp.kernel); `options` are compile options such as
    local_size_x. Raises SyntaxError for text that is not Python."""
    tree = ast.parse(text, filename=filename, type_comments=False)
    return _document(filename, text, _node(tree, 0, 0), kernel, options)


def dump_file(path, kernel=None, options=None):
    """dump_file(path, kernel=None, options=None): dump_source of the file
    at `path` (a .vul.py kernel file): `kernel` names the entry function,
    `options` the compile options (local_size_x, ...)."""
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8-sig")
    return dump_source(text, str(path), kernel, options)


# ------------------------------------------------------------ decorated functions


def _function_source(obj):
    """(module-level ast node with real file locations, file name, file text)
    of a function or class defined in a file (or a notebook cell, or a
    string registered in linecache before exec)."""
    try:
        lines, first = inspect.getsourcelines(obj)
    except (OSError, TypeError):
        raise _no_source(obj) from None
    filename = inspect.getsourcefile(obj) or inspect.getfile(obj)
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    # textwrap.dedent removes the same prefix from every line; find it from
    # the first line so columns shift back by exactly that much.
    indent = len(lines[0].encode("utf-8")) - len(dedented.splitlines(True)[0].encode("utf-8"))
    tree = ast.parse(dedented, filename=filename)
    node = tree.body[0]
    dline = (first - 1) if first > 0 else 0
    whole = "".join(linecache.getlines(filename)) or text
    return _node(node, dline, indent), filename, whole


def _no_source(obj):
    """The CompileError for a kernel or helper whose source Python did not
    keep: `python -c`, `exec` of a plain string, the plain REPL."""
    from ._errors import CompileError  # only here: dumping stays free of the package's imports
    try:
        where = inspect.getfile(obj)
    except TypeError:
        where = "?"
    name = getattr(obj, "__qualname__", getattr(obj, "__name__", "?"))
    return CompileError(
        f"{where}: error: cannot read the source of '{name}': VulPy compiles kernels from their "
        "Python source, which `python -c`, `exec` of a plain string and the plain REPL do not keep\n"
        "  hint: define kernels in a file, a Jupyter/IPython cell, or register the string before "
        "exec: linecache.cache[name] = (len(src), None, src.splitlines(True), name); "
        "exec(compile(src, name, 'exec'))")


def _is_vulpy(obj):
    mod = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    return isinstance(mod, str) and (mod == "vulpy" or mod.startswith("vulpy."))


def _names_read(fn_node):
    """Names a function reads, in order (ast.walk's, breadth first), without
    repeats, from its node as _node made it (no second parse)."""
    seen, queue, k = [], [fn_node], 0
    while k < len(queue):
        d = queue[k]
        k += 1
        if d.get("_type") == "Name" and d["id"] not in seen:
            seen.append(d["id"])
        for v in d.values():
            if isinstance(v, dict):
                queue.append(v)
            elif isinstance(v, list):
                queue.extend(x for x in v if isinstance(x, dict))
    return seen


def dump_function(fn, options=None, helpers=()):
    """The JSON document of `fn`, a function decorated with @vp.kernel.

    The module holds the kernel plus, from the function's module, every
    helper function and annotated class (struct) it reaches by name, and
    each `helpers` function (also taken from options["helpers"], the
    decorator's keyword); module-level numbers it reads arrive as
    "constants". Locations are those of the real file."""
    fn = inspect.unwrap(fn)
    helpers = list(helpers) + list((options or {}).get("helpers", ()) or ())
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"vp.kernel expects a Python function, got {type(fn).__name__}")
    kernel_node, filename, whole = _function_source(fn)
    helpers = [inspect.unwrap(h) for h in helpers]
    body, constants, done = [], {}, {fn, *helpers}
    owners = {}  # constant name -> (function, its file) that first read it
    defined = {}  # function / class name -> the object: the C side has one namespace
    for obj in (fn, *helpers):
        _one_definition(defined, obj)
    imports = []
    todo = [(fn, kernel_node)] + [(h, None) for h in helpers]
    while todo:
        obj, node = todo.pop(0)
        ofile = filename
        if node is None:
            node, ofile, _ = _function_source(obj)
            if ofile != filename:
                node["filename"] = ofile
        body.append(node)
        scope = dict(getattr(obj, "__globals__", {}) or {})
        nonlocals = {}
        if isinstance(obj, types.FunctionType):
            nonlocals = inspect.getclosurevars(obj).nonlocals
            scope.update(nonlocals)
        names = _names_read(node)
        own = _own_names(obj)  # its locals: they shadow module names
        k = 0
        while k < len(names):
            name = names[k]
            k += 1
            if name not in scope or name in own:
                continue
            value = scope[name]
            if isinstance(value, types.ModuleType):
                if value.__name__ in ("vulpy", "math"):
                    if (name, value.__name__) not in imports:
                        imports.append((name, value.__name__))
                elif name not in constants:  # `mymod.C`: the C side names it
                    constants[name] = {"_type": "Constant", "kind": "module"}
            elif _is_number(value):
                item = _constant_node(value)
                if name not in nonlocals:
                    ann, loc = _declaration(getattr(obj, "__globals__", {}), ofile, name)
                else:
                    ann, loc = _closure_declaration(obj, ofile, name)
                if ann is not None:
                    item["annotation"] = ann
                    names += [n for n in _ann_names(ann) if n not in names]
                if loc:
                    _locate(item, loc)
                if name not in constants:
                    constants[name] = item
                    owners[name] = (obj, ofile, value)
                else:  # read by two functions: one value, or an error
                    _same_constant(name, constants[name], item, owners[name], (obj, ofile, value))
            elif isinstance(value, (types.FunctionType, type)) and not _is_vulpy(value):
                if value not in done and _has_source(value):
                    done.add(value)
                    _one_definition(defined, value)
                    todo.append((value, None))
            elif not callable(value) and not _is_vulpy(value) and name not in constants:
                # not a number: named by its type, so the C side can say so
                constants[name] = {"_type": "Constant", "kind": type(value).__name__}
    # `import vulpy as <name>` for each name the module binds to vulpy, so
    # the C side knows which prefix means the vulpy namespace (and math).
    line = kernel_node.get("lineno", 1)
    pre = [_import_node(name, line, module) for name, module in imports]
    # Classes first (types are declared before use), then functions.
    classes = [n for n in body if n["_type"] == "ClassDef"]
    funcs = [n for n in body if n["_type"] != "ClassDef"]
    module = {"_type": "Module", "body": pre + classes + funcs, "type_ignores": []}
    return _document(filename, whole, module, fn.__name__, options, constants)


# ------------------------------------------------------------ module constants
#
# A number a decorated function reads arrives as the value it has now, with
# the annotation of its declaration (the source's own expression node, which
# the C side evaluates as a module-level AnnAssign): `D: vp.float64 = 0.1` is
# the float64 constant vp.compile and vulpy-translate make of the same file.
# The declaration is looked up in the function's file (module level, or the
# enclosing function for a closure), in M for `from M import NAME`, else in
# the live __annotations__ (a notebook cell's constant from another cell).

_NUMPY_KINDS = "biuf"  # bool, int, uint, float scalars
_facts_cache = {}  # (filename, len, hash of text) -> _Facts


def _is_number(value):
    if isinstance(value, (bool, int, float)):
        return True
    if _number_tuple(value):
        return True
    return isinstance(value, _np_generic()) and value.dtype.kind in _NUMPY_KINDS


def _np_generic():
    """numpy.generic, imported only when NumPy is (this file needs only the
    standard library)."""
    np = sys.modules.get("numpy")
    return np.generic if np is not None else ()


def _constant_node(value):
    """The node of a number: a Constant, a Tuple, or for a NumPy scalar the
    cast its type makes (np.float32(0.1) -> float32(0.1...), typed as the
    source path types `np.float32(0.1)`)."""
    if isinstance(value, tuple):
        return _tuple_node(value)
    gen = _np_generic()
    if gen and isinstance(value, gen):
        if value.dtype.kind == "b":
            return dict({"_type": "Constant"}, **_constant(bool(value)))
        arg = dict({"_type": "Constant"}, **_constant(value.item()))
        return {"_type": "Call", "func": {"_type": "Name", "id": value.dtype.name,
                                          "ctx": {"_type": "Load"}},
                "args": [arg], "keywords": []}
    return dict({"_type": "Constant"}, **_constant(value))


class _Facts:
    """What a file's source says about its names: per scope (the module,
    each function), name -> [annotation node or None, location of the
    value], and the module's `from M import NAME [as ALIAS]`."""

    def __init__(self, text, filename):
        self.module, self.imports, self._functions = {}, {}, None
        try:
            self._tree = ast.parse(text, filename=filename)
        except (SyntaxError, ValueError):
            self._tree = ast.Module(body=[], type_ignores=[])
        self._scope(self._tree.body, self.module, top=True)

    @property
    def functions(self):
        """[(first line, last line, names)] of every function, innermost
        (latest start) first; made on first use (closures are rare)."""
        if self._functions is None:
            self._functions = []
            for n in ast.walk(self._tree):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names = {}
                    self._scope(n.body, names, top=False)
                    self._functions.append((n.lineno, n.end_lineno, names))
            self._functions.sort(key=lambda f: -f[0])
        return self._functions

    def _scope(self, stmts, names, top):
        """The bindings of a block's statements (into if/try/with/loop
        bodies, not into nested functions or classes)."""
        for s in stmts:
            bound = []
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                d = names.setdefault(s.target.id, [None, None])
                d[0] = _node(s.annotation, 0, 0)  # a later plain `=` keeps the declared type
                if s.value is not None:
                    d[1] = _loc(s.value)
                bound.append(s.target.id)
            elif isinstance(s, ast.Assign):
                for t in s.targets:
                    if isinstance(t, ast.Name):
                        names.setdefault(t.id, [None, None])[1] = _loc(s.value)
                        bound.append(t.id)
            elif isinstance(s, ast.ImportFrom) and top:
                for a in s.names:
                    alias = a.asname or a.name
                    self.imports[alias] = ("." * s.level + (s.module or ""), a.name)
                    names.pop(alias, None)
            elif isinstance(s, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                sub = [x for f in ("body", "orelse", "finalbody") for x in getattr(s, f, [])]
                sub += [x for h in getattr(s, "handlers", []) for x in h.body]
                self._scope(sub, names, top)
            if top:
                for name in bound:  # an assignment after an import rebinds
                    self.imports.pop(name, None)


def _loc(n):
    return {"lineno": n.lineno, "col_offset": n.col_offset,
            "end_lineno": n.end_lineno, "end_col_offset": n.end_col_offset}


def _facts(filename):
    lines = linecache.getlines(filename)
    if not lines:
        return None
    text = "".join(lines)
    key = (filename, len(text), hash(text))
    f = _facts_cache.get(key)
    if f is None:
        if len(_facts_cache) > 256:
            _facts_cache.clear()
        f = _facts_cache[key] = _Facts(text, filename)
    return f


def _declaration(glob, filename, name, depth=0):
    """(annotation node or None, value location or None) of module-level
    `name` of the module whose globals are `glob` and file `filename`."""
    facts = _facts(filename)
    d = facts.module.get(name) if facts is not None else None
    if d is not None and d[0] is not None:
        return d[0], d[1]
    imp = facts.imports.get(name) if facts is not None else None
    if imp is not None and depth < 8:  # from M import NAME: M's declaration
        mod_name, orig = imp
        try:
            mod_name = importlib.util.resolve_name(mod_name, glob.get("__package__"))
        except (ImportError, ValueError):
            mod_name = None
        mod = sys.modules.get(mod_name) if mod_name else None
        if getattr(mod, "__file__", None):
            ann, _ = _declaration(vars(mod), mod.__file__, orig, depth + 1)
            if ann is not None:
                return ann, None
    return _live_annotation(glob, name), d[1] if d is not None else None


def _closure_declaration(obj, filename, name):
    """The declaration of a closure variable: in the innermost enclosing
    function (of obj's file) that declares it."""
    facts = _facts(filename)
    first = getattr(getattr(obj, "__code__", None), "co_firstlineno", 0)
    if facts is not None:
        for start, end, names in facts.functions:
            if start < first <= end and name in names:
                return names[name][0], names[name][1]
    return None, None


def _live_annotation(glob, name):
    """The annotation of module-level `name` from the live __annotations__
    (a notebook cell's constant defined in another cell), as a node."""
    ann = (glob.get("__annotations__") or {}).get(name) if isinstance(glob, dict) else None
    if ann is None:
        return None
    if isinstance(ann, str):  # `from __future__ import annotations`
        try:
            return _strip_loc(_node(ast.parse(ann, mode="eval").body, 0, 0))
        except SyntaxError:
            return {"_type": "Constant", "kind": "str", "value": ann}
    if ann in (bool, int, float):
        return {"_type": "Name", "id": ann.__name__, "ctx": {"_type": "Load"}}
    try:
        np = sys.modules.get("numpy")
        dt = np.dtype(ann) if np is not None and (isinstance(ann, np.dtype) or (
            isinstance(ann, type) and issubclass(ann, np.generic))) else None
    except TypeError:
        dt = None
    if dt is not None and dt.kind in _NUMPY_KINDS:
        return {"_type": "Name", "id": "bool" if dt.kind == "b" else dt.name,
                "ctx": {"_type": "Load"}}
    return {"_type": "Constant", "kind": type(ann).__name__}


def _strip_loc(d):
    if isinstance(d, dict):
        return {k: _strip_loc(v) for k, v in d.items() if k not in _LOC}
    if isinstance(d, list):
        return [_strip_loc(v) for v in d]
    return d


def _ann_names(ann):
    """Names an annotation node reads (`vp` of vp.float64)."""
    out, todo = [], [ann]
    while todo:
        d = todo.pop()
        if isinstance(d, dict):
            if d.get("_type") == "Name" and d.get("id") not in out:
                out.append(d["id"])
            todo.extend(d.values())
        elif isinstance(d, list):
            todo.extend(d)
    return out


def _locate(item, loc):
    item.update(loc)
    for a in item.get("args", ()):
        a.update(loc)


def _own_names(obj):
    """The names a function binds itself (parameters, locals)."""
    code = getattr(obj, "__code__", None)
    return set(code.co_varnames) | set(code.co_cellvars) if code is not None else set()


def _one_definition(defined, obj):
    """Registers a function or class the kernel reaches; two different ones
    of one name (a helper's module defines `sub`, the kernel's module
    another `sub`) would be one function for the C side: an error."""
    name = obj.__name__
    other = defined.setdefault(name, obj)
    if other is obj:
        return
    from ._errors import CompileError  # only here: dumping stays free of the package's imports

    def where(o):
        try:
            return f"{inspect.getsourcefile(o)}:{inspect.getsourcelines(o)[1]}"
        except (OSError, TypeError):
            return getattr(o, "__module__", "?")
    raise CompileError(
        f"{where(obj)}: error: the kernel reaches two functions or classes named '{name}' "
        f"({where(other)} and {where(obj)}); a kernel's helpers share one namespace\n"
        f"  hint: rename one of them")


def _same_constant(name, a, b, owner_a, owner_b):
    """Two functions of one kernel read module constant `name` (nodes a, b;
    owners (function, file, value)): the kernel has one namespace of
    constants, so the two must agree."""
    if _strip_loc(a) == _strip_loc(b):
        return
    from ._errors import CompileError  # only here: dumping stays free of the package's imports
    (fa, file_a, va), (fb, file_b, vb) = owner_a, owner_b
    raise CompileError(
        f"{file_b}: error: '{fb.__qualname__}' reads module constant '{name}' = {vb!r} of its "
        f"module, but '{fa.__qualname__}' ({file_a}) reads '{name}' = {va!r}; a kernel's "
        f"module constants share one namespace\n  hint: rename one of them")


def _has_source(obj):
    try:
        inspect.getsourcelines(obj)
        return True
    except (OSError, TypeError):
        return False


def _number_tuple(value):
    return isinstance(value, tuple) and len(value) <= 1024 and all(
        isinstance(v, (bool, int, float)) or _number_tuple(v) for v in value)


def _tuple_node(value):
    return {"_type": "Tuple", "ctx": {"_type": "Load"}, "elts": [
        _tuple_node(v) if isinstance(v, tuple) else dict({"_type": "Constant"}, **_constant(v))
        for v in value]}


def _import_node(asname, line, module="vulpy"):
    loc = {"lineno": line, "col_offset": 0, "end_lineno": line, "end_col_offset": 0}
    alias = dict({"_type": "alias", "name": module, "asname": asname}, **loc)
    return dict({"_type": "Import", "names": [alias]}, **loc)
