"""Compiling kernel-language source, with a cache in memory and on disk.

The pipeline is all C (the extension's compile_ast: frontend -> VIR ->
GLSL -> SPIR-V -> manifest); Python only dumps the AST as JSON (_astjson)
and keeps the results. The cache key is the JSON document, the options and
the extension's build identity, so a rebuilt compiler never reuses stale
SPIR-V. Disk entries live in $XDG_CACHE_HOME/vulpy/kernels (or
~/.cache/vulpy/kernels); VULPY_NO_DISK_CACHE=1 turns them off.
"""
import base64
import hashlib
import json
import os
import tempfile
import threading

from . import _astjson, _native

TARGETS = ("vir", "glsl", "spirv", "manifest")

_memory = {}
_lock = threading.Lock()
_build_id = None


def build_id():
    """Identifies the compiler build: the package version and the
    extension file's size and modification time."""
    global _build_id
    if _build_id is None:
        from . import __version__
        path = _native.ext().__file__
        st = os.stat(path)
        _build_id = f"{__version__}:{st.st_size}:{st.st_mtime_ns}"
    return _build_id


def cache_dir():
    """The folder of the on-disk kernel cache, or None when disabled."""
    if os.environ.get("VULPY_NO_DISK_CACHE") == "1":
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vulpy", "kernels")


def _disk_load(key):
    folder = cache_dir()
    if not folder:
        return None
    try:
        with open(os.path.join(folder, key[:2], key + ".json"), encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("build") != build_id():
            return None
        out = doc["artifacts"]
        for name in doc.get("binary", ()):
            out[name] = base64.b64decode(out[name])
        return out
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing or damaged: compile again


def _disk_store(key, artifacts):
    folder = cache_dir()
    if not folder:
        return
    binary = [k for k, v in artifacts.items() if isinstance(v, bytes)]
    doc = {"build": build_id(), "binary": binary,
           "artifacts": {k: (base64.b64encode(v).decode("ascii") if isinstance(v, bytes) else v)
                         for k, v in artifacts.items()}}
    sub = os.path.join(folder, key[:2])
    try:
        os.makedirs(sub, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=sub, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        os.replace(tmp, os.path.join(sub, key + ".json"))
    except OSError:
        pass  # a read-only cache folder only costs compile time


def compile_document(doc, *, name=None, targets=TARGETS, local_size=None, dispatch_guard=True,
                     fast_math=False, optimize=False, asserts=False, features=0xFFFFFFFF):
    """Compiles an AST document (from _astjson) to the named targets; returns
    {target: text or bytes}. Raises CompileError with file:line:col."""
    text = _astjson.to_json(doc)
    opts = dict(targets=tuple(targets), local_size=tuple(local_size) if local_size else None,
                dispatch_guard=bool(dispatch_guard), fast_math=bool(fast_math),
                optimize=bool(optimize), asserts=bool(asserts), features=int(features))
    key = hashlib.sha256((text + "\0" + repr(sorted(opts.items())) + "\0" +
                          build_id()).encode("utf-8")).hexdigest()
    hit = _memory.get(key)
    if hit is not None:
        return hit
    out = _disk_load(key)
    if out is None or any(t not in out for t in targets):
        out = _native.ext().compile_ast(text, name or doc.get("filename") or "<kernel>",
                                        doc.get("kernel"), opts["local_size"],
                                        opts["dispatch_guard"], opts["asserts"],
                                        opts["fast_math"], opts["optimize"], opts["features"],
                                        0, opts["targets"], None)
        _disk_store(key, out)
    out["key"] = key
    with _lock:
        _memory[key] = out
    return out


def compile_source(text, filename, kernel=None, options=None, **kw):
    """compile_document of Python source text (a .vul.py file's, or a
    template's)."""
    doc = _astjson.dump_source(text, filename, kernel, options)
    return compile_document(doc, **kw)
