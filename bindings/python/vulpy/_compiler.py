"""Compiling kernel-language source, with a cache in memory and on disk
(docs/python-api.md, "Kernels", says where entries live, the checks, the
size cap and what a warm start skips).

The pipeline is all C (the extension's compile_ast: frontend -> VIR ->
GLSL -> SPIR-V -> manifest); Python only dumps the AST as JSON (_astjson)
and keeps the results, keyed by the JSON document, the options and the
extension's build identity. A warm start looks first under a key made
without the document (function_key, source_key: the source text, the
values of the names the function may read, the options and the build),
which skips the dump and the compile; `stats` counts what happened.
"""
import hashlib
import importlib.util
import inspect
import linecache
import os
import re
import sys
import threading
import types
import warnings

from . import _astjson, _native
from ._version import __version__

TARGETS = ("vir", "glsl", "spirv", "manifest")

_memory = {}
_lock = threading.Lock()
_build_id = None

# compiled: compile_ast calls; memory_hits / disk_hits: full-key hits;
# fast_memory_hits / fast_disk_hits: hits before the dump
stats = {"compiled": 0, "memory_hits": 0, "disk_hits": 0, "fast_memory_hits": 0,
         "fast_disk_hits": 0}


def count_compiled():
    """Counts one compile done outside this module (an array function's,
    _engine) in `stats`."""
    stats["compiled"] += 1


def build_id():
    """Identifies the compiler build: the package version and the
    extension file's size and modification time."""
    global _build_id
    if _build_id is None:
        path = _native.ext().__file__
        st = os.stat(path)
        _build_id = f"{__version__}:{st.st_size}:{st.st_mtime_ns}"
    return _build_id


def cache_dir():
    """The folder of the on-disk kernel cache, or None when disabled:
    $VULPY_CACHE_DIR/kernels, else $XDG_CACHE_HOME/vulpy/kernels, else
    ~/.cache/vulpy/kernels (the runtime keeps its pipeline cache beside it).
    The root is the runtime's own reading of the variables (lib/RuntimeEnv,
    through env_options()), so both caches always share one folder."""
    if os.environ.get("VULPY_NO_DISK_CACHE") == "1":
        return None
    root = _native.ext().env_options()["cache_dir"]
    return os.path.join(root, "kernels") if root else None


# The disk cache is trusted code (its SPIR-V runs with the process's buffers
# bound): every check of an entry and every write is C's
# (lib/Target/kernel_cache.c, the extension's kcache_* functions;
# docs/errors.md, "The kernel cache", lists them). Here: the folder, the key,
# the build, and a refusal turned into a CacheWarning. A missing entry, or
# one from another build, is a plain miss.
CACHE_MAX_ENV = "VULPY_CACHE_MAX_MB"
_folders = {}  # folder -> its secret (bytes), or None when the folder is refused
_disk_bytes = {}  # folder -> bytes of entries (an estimate, kept by this process)


def _warn(message):
    from ._errors import CacheWarning
    warnings.warn(f"vulpy kernel cache: {message}", CacheWarning, stacklevel=4)


def _entry_path(folder, key):
    """Where the entry under `key` lives in `folder`."""
    return os.path.join(folder, key[:2], key + ".vpk")


def _open_folder():
    """(folder, its secret), or (None, None) when there is no disk cache
    or the folder is refused (a CacheWarning, once)."""
    folder = cache_dir()
    if not folder:
        return None, None
    if folder not in _folders:
        try:
            _folders[folder] = _native.ext().kcache_open(folder)
        except ValueError as e:
            _warn(str(e))
            _folders[folder] = None
    return folder, _folders[folder]


def _disk_load(key):
    folder, secret = _open_folder()
    if secret is None:
        return None
    try:
        return _native.ext().kcache_load(folder, secret, key, build_id())
    except ValueError as e:
        _warn(str(e))
        return None


def cache_max_bytes():
    """The disk cache's size cap (VULPY_CACHE_MAX_MB, default 512)."""
    try:
        return max(1, int(os.environ.get(CACHE_MAX_ENV, "512"))) << 20
    except ValueError:
        return 512 << 20


def _disk_store(key, artifacts):
    folder, secret = _open_folder()
    if secret is not None:
        _disk_bytes[folder] = _native.ext().kcache_store(
            folder, secret, key, build_id(), artifacts, cache_max_bytes(),
            _disk_bytes.get(folder, -1))


def compile_document(doc, *, name=None, targets=TARGETS, local_size=None, dispatch_guard=True,
                     fast_math=False, optimize=False, asserts=False, features=0xFFFFFFFF,
                     passes=None, clamp_shared=True, loop_canary=False):
    """Compiles an AST document (from _astjson) to the named targets; returns
    {target: text or bytes}. Raises CompileError with file:line:col.
    passes=None runs what the kernel's decorator asks for (the frontend
    reads a persistent kernel's barrier= and nonprivate=; memsock and the
    default grid barrier otherwise), else the named passes.
    clamp_shared=False leaves out the clamp-shared pass: only for the
    library's own kernels whose shared indexes are in range by construction
    (the GEMM tiles, _gemm.py), where the clamps cost an ALU op per shared
    load and keep the GPU compiler from merging neighbouring loads.
    loop_canary=True adds the loop-canary pass (lib/Transforms/loop_canary.c):
    for lavapipe, whose invocations' loops end silently after 65,535
    back-edges in all; a kernel whose loops may take that many gets the
    fault record _vp_assert (kind 8 when they were cut)."""
    text = _astjson.to_json(doc)
    opts = dict(targets=tuple(targets), local_size=tuple(local_size) if local_size else None,
                dispatch_guard=bool(dispatch_guard), fast_math=bool(fast_math),
                optimize=bool(optimize), asserts=bool(asserts), features=int(features),
                passes=None if passes is None else str(passes))
    if not clamp_shared:
        opts["clamp_shared"] = False  # (absent by default: the cache keys stay as they were)
    if loop_canary:
        opts["loop_canary"] = True
    key = hashlib.sha256((text + "\0" + repr(sorted(opts.items())) + "\0" +
                          build_id()).encode("utf-8")).hexdigest()
    hit = _memory.get(key)
    if hit is not None:
        stats["memory_hits"] += 1
        return hit
    then = ["bounds-check" if opts["asserts"] else "clamp-shared" if clamp_shared else None,
            "loop-canary" if loop_canary else None]
    out = _disk_load(key)
    if out is None or any(t not in out for t in targets):
        stats["compiled"] += 1
        out = _native.ext().compile_ast(text, name or doc.get("filename") or "<kernel>",
                                        doc.get("kernel"), opts["local_size"],
                                        opts["dispatch_guard"], opts["asserts"],
                                        opts["fast_math"], opts["optimize"], opts["features"],
                                        0, opts["targets"], opts["passes"],
                                        # then debug mode (asserts=True): the
                                        # bounds checks and the fault record;
                                        # otherwise shared indexes clamped (issue 20);
                                        # lavapipe's loop budget checked
                                        ",".join(t for t in then if t) or None)
        _disk_store(key, out)
    else:
        stats["disk_hits"] += 1
    out["key"] = key
    with _lock:
        _memory[key] = out
    _show_warnings(out)
    return out


def _show_warnings(out):
    """The compiler's warnings of a kernel (out["warnings"]: file:line:col,
    the line, a caret) as a vp.CompileWarning, when it compiles or comes
    from the disk cache (a new process sees them again)."""
    if out.get("warnings"):
        from ._errors import CompileWarning
        warnings.warn("\n" + out["warnings"].rstrip(), CompileWarning, stacklevel=_user_level())


def _user_level():
    """The stacklevel of the first caller outside the vulpy package (the
    user's line that made the kernel compile), for warnings.warn."""
    here = os.path.dirname(os.path.abspath(__file__))
    f, level = sys._getframe(2), 2
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == here:
        f, level = f.f_back, level + 1
    return level


def _cached(fkey, targets):
    """The artifacts under a fast key (memory, then disk), or None."""
    if fkey is None:
        return None
    hit = _memory.get(fkey)
    if hit is not None:
        stats["fast_memory_hits"] += 1
        return hit
    out = _disk_load(fkey)
    if out is None or any(t not in out for t in targets) or "key" not in out:
        return None
    stats["fast_disk_hits"] += 1
    with _lock:
        _memory[fkey] = out
    _show_warnings(out)
    return out


def _remember(fkey, out):
    if fkey is None:
        return
    with _lock:
        _memory[fkey] = out
    _disk_store(fkey, out)


def _fast_key(parts, kw):
    kw = dict(kw)
    kw.setdefault("targets", TARGETS)
    kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in kw.items()}
    text = repr(parts) + "\0" + repr(sorted(kw.items())) + "\0" + build_id()
    return "f" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[1:]


def _compile_cached(fkey, document, kw):
    """The artifacts under `fkey` (memory, then disk), else
    compile_document(document(), **kw) remembered under it: the document is
    made only on a miss."""
    out = _cached(fkey, kw.get("targets", TARGETS))
    if out is None:
        out = compile_document(document(), **kw)
        _remember(fkey, out)
    return out


def compile_source(text, filename, kernel=None, options=None, **kw):
    """compile_document of Python source text (a .vul.py file's, or a
    template's); a known text comes from the cache without being parsed."""
    fkey = _fast_key(("source", text, filename, kernel, _plain(options)), kw)
    return _compile_cached(fkey, lambda: _astjson.dump_source(text, filename, kernel, options),
                           kw)


def compile_file(path, kernel, options, document, **kw):
    """compile_document of a .vul.py file's document (made by `document()`
    only on a miss), looked up first by the file's text."""
    with open(path, "rb") as f:
        text = f.read()
    fkey = _fast_key(("file", os.fspath(path), text, kernel, _plain(options)), kw)
    return _compile_cached(fkey, document, kw)


def compile_function(fn, options, document, **kw):
    """compile_document of a decorated function's document (made by
    `document()` only on a miss), looked up first by function_key."""
    return _compile_cached(function_key(fn, options, kw), document, kw)


# ------------------------------------------------------------ fast keys

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FROM = re.compile(r"^[ \t]*from[ \t]+([.\w]+)[ \t]+import\b", re.M)
_file_facts = {}  # (filename, len, hash of text) -> (digest, identifiers, from-modules)


def _plain(options):
    """The options as _astjson sends them (JSON-able values only)."""
    return tuple(sorted((k, repr(v)) for k, v in (options or {}).items()
                        if _astjson._jsonable(v)))


def _file(filename):
    """(digest of the file's text as linecache has it, the identifiers in
    it, the modules of its `from M import ...` lines), or None when the
    text is not available."""
    lines = linecache.getlines(filename)
    if not lines:
        return None
    text = "".join(lines)
    h = hash(text)
    facts = _file_facts.get((filename, len(text), h))
    if facts is None:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        facts = (digest, frozenset(_IDENT.findall(text)), tuple(sorted(set(_FROM.findall(text)))))
        _file_facts[(filename, len(text), h)] = facts
    return facts


_is_vulpy = _astjson._is_vulpy


def _summary(name, v, todo):
    """What the document can depend on in the value bound to `name`."""
    if isinstance(v, types.ModuleType):
        return (name, "module", v.__name__)
    if isinstance(v, (bool, int, float)) or _astjson._is_number(v):
        # numbers by value: NumPy scalars and tuples of numbers too (their
        # values are the document's constants)
        return (name, type(v).__name__, repr(v))
    if isinstance(v, (types.FunctionType, type)) and not _is_vulpy(v):
        todo.append(v)
        return (name, "code", getattr(v, "__module__", ""), getattr(v, "__qualname__", ""))
    if _is_vulpy(v):
        return (name, "vulpy", getattr(v, "__name__", type(v).__name__))
    return (name, "other", type(v).__name__, callable(v))


def _from_annotations(froms, package, name, value, depth=0):
    """[(module, name, its annotation there)] for a number `name` imported
    with `from M import name` (M among `froms`), for the key: the document
    types it by M's declaration. Reads no file unless M re-exports it."""
    out = []
    for mod_name in froms:
        try:
            mod_name = importlib.util.resolve_name(mod_name, package)
        except (ImportError, ValueError):
            continue
        mod = sys.modules.get(mod_name)
        if mod is None or getattr(mod, name, out) is not value:
            continue
        anns = getattr(mod, "__dict__", {}).get("__annotations__") or {}
        out.append(("from", mod_name, name, repr(anns.get(name))))
        if name not in anns and depth < 4:  # re-exported: where M took it from
            facts = _file(getattr(mod, "__file__", None) or "")
            if facts is not None:
                out += _from_annotations(facts[2], getattr(mod, "__package__", None), name,
                                         value, depth + 1)
    return out


def function_key(fn, options, kw):
    """A key for what _astjson.dump_function(fn, options) would produce,
    computed without tokenizing or parsing: for fn and every function or
    class it may reach, the text of its file, its name and first line, and,
    for every identifier in that file bound in its scope, a summary of the
    value (numbers by value, functions and classes by the same facts,
    modules by name, anything else by type). Identifiers are taken from the
    whole file - a superset of the names the function reads, so a change
    that could change the document changes the key. None when a source file
    cannot be read (the slow path then decides)."""
    try:
        fn = inspect.unwrap(fn)
        helpers = list((options or {}).get("helpers", ()) or ())
        parts = ["function", _plain(options), fn.__name__]
        todo = [fn] + [inspect.unwrap(h) for h in helpers]
        done, scopes = set(), set()
        while todo:
            obj = todo.pop(0)
            if id(obj) in done:
                continue
            done.add(id(obj))
            closure = {}
            if isinstance(obj, types.FunctionType):
                code = obj.__code__
                filename = inspect.getsourcefile(obj) or code.co_filename
                first, scope = code.co_firstlineno, obj.__globals__
                for name, cell in zip(code.co_freevars, obj.__closure__ or ()):
                    try:
                        closure[name] = cell.cell_contents
                    except ValueError:
                        closure[name] = None
            elif isinstance(obj, type):
                mod = sys.modules.get(obj.__module__)
                filename = getattr(mod, "__file__", None)
                if not filename:
                    return None
                first, scope = -1, vars(mod)
            else:
                return None
            facts = _file(filename)
            if facts is None:
                return None
            digest, idents, froms = facts
            parts.append((filename, digest, getattr(obj, "__qualname__", ""), first))
            for name in sorted(idents & closure.keys()):
                parts.append(("closure",) + _summary(name, closure[name], todo))
            # the module's values once per (file, module): its functions
            # share them
            if (filename, id(scope)) in scopes:
                continue
            scopes.add((filename, id(scope)))
            for name in sorted(idents & scope.keys()):
                parts.append(_summary(name, scope[name], todo))
                if froms and _astjson._is_number(scope[name]):
                    # `from M import C`: the document types C by M's declaration
                    parts += _from_annotations(froms, scope.get("__package__"), name,
                                               scope[name])
            anns = scope.get("__annotations__")  # (a notebook's other cells)
            if isinstance(anns, dict):
                parts += [("annotation", n, repr(anns[n])) for n in sorted(idents & anns.keys())]
        return _fast_key(tuple(parts), kw)
    except (TypeError, OSError, AttributeError):
        return None
