"""The Python AST of a kernel as JSON, for the C frontend (lib/Frontend).

This is the only compiler step written in Python: `ast.parse`, then every
node becomes {"_type": "<ast class>", <fields>..., "lineno", "col_offset",
"end_lineno", "end_col_offset"}. The C side reads it with libyaml and does
all the checking, so this file stays small and needs nothing but the
standard library (no C extension, no third-party import).

The document (include/vulpy/frontend.h has the contract):

    {"_vulpy_ast": 1, "filename": "k.vul.py", "source": "<the file's text>",
     "kernel": "main" | "<decorated function>" | null,
     "options": {"local_size_x": 64, ...},
     "constants": {"N": {"_type": "Constant", "value": 1024, "kind": "int"}},
     "module": {"_type": "Module", "body": [...]}}

Choices the C side relies on:
- Locations are Python's: `lineno` 1-based, `col_offset` 0-based in UTF-8
  bytes. For a decorated function they are the lines of the real file.
- Constants carry "kind": "int" | "float" | "bool" | "str" | "None" |
  "bytes" | "complex" | "Ellipsis" (this replaces ast.Constant's own `kind`
  field, the rarely used u-prefix marker). Floats are written with repr(),
  which round-trips exactly; inf and nan, which JSON has no spelling for,
  are the strings "inf", "-inf" and "nan" with kind "float". Ints of any
  size are written in full; the C side rejects what does not fit 64 bits.
- Fields whose value is None (returns, type_comment, ...) are left out:
  absent means None. Every other field is written, empty lists included.
- "constants" (only for decorated functions) holds the values of the
  module-level numbers the function reads, taken from the live module;
  other module values it reads appear as {"kind": "<type name>"} with no
  value, so the frontend can name them in its error.
- Strings are JSON with the few characters YAML does not take raw
  (C0/C1 controls, DEL, U+2028/2029, U+FEFF, non-characters) escaped,
  since the reader is a YAML parser.
"""
import ast
import inspect
import json
import linecache
import math
import re
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
    """Names a function reads, in order, without repeats."""
    seen = []
    for n in ast.walk(fn_node):
        if isinstance(n, ast.Name) and n.id not in seen:
            seen.append(n.id)
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
    imports = []
    todo = [(fn, kernel_node)] + [(h, None) for h in helpers]
    while todo:
        obj, node = todo.pop(0)
        if node is None:
            node, ofile, _ = _function_source(obj)
            if ofile != filename:
                node["filename"] = ofile
        body.append(node)
        scope = dict(getattr(obj, "__globals__", {}) or {})
        if isinstance(obj, types.FunctionType):
            scope.update(inspect.getclosurevars(obj).nonlocals)
        for name in _names_read(ast.parse(textwrap.dedent(inspect.getsource(obj)))):
            if name not in scope:
                continue
            value = scope[name]
            if isinstance(value, types.ModuleType):
                if value.__name__ in ("vulpy", "math") and (name, value.__name__) not in imports:
                    imports.append((name, value.__name__))
            elif isinstance(value, (bool, int, float)) and name not in constants:
                constants[name] = dict({"_type": "Constant"}, **_constant(value))
            elif _number_tuple(value) and name not in constants:
                # a tuple of numbers: kernels unroll loops over it and index it
                constants[name] = _tuple_node(value)
            elif isinstance(value, (types.FunctionType, type)) and not _is_vulpy(value):
                if value not in done and _has_source(value):
                    done.add(value)
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
