"""Loads the C extension `vulpy._vulpy` once, lazily.

`import vulpy` succeeds without it (so `python -m vulpy dump-ast` works on a
bare checkout); the first call that needs the GPU or the compiler raises
ExtensionMissingError saying how to build it.

VULPY_EXTENSION, when set, names the extension file to load instead of the
one next to these sources: `make test-sanitize` points it at the ASan + UBSan
build's copy (build-asan/python/vulpy/), which must not overwrite the normal
build's.
"""
import os
import sys

from ._errors import ExtensionMissingError

_mod = None
_error = None


def ext():
    """The extension module, or ExtensionMissingError."""
    global _mod, _error
    if _mod is not None:
        return _mod
    if _error is None:
        try:
            path = os.environ.get("VULPY_EXTENSION")
            if path:
                _mod = _load_file(path)
            else:
                from . import _vulpy
                _mod = _vulpy
            return _mod
        except ImportError as e:
            _error = e
    raise ExtensionMissingError(
        f"the VulPy C extension (vulpy._vulpy) is not available: {_error}. Build it with "
        f"`make build` in the source tree, or install VulPy with `pip install .`") from _error


def _load_file(path):
    """vulpy._vulpy from the file `path` (VULPY_EXTENSION)."""
    import importlib.util
    if not os.path.isfile(path):
        raise ImportError(f"VULPY_EXTENSION={path!r} is not a file")
    spec = importlib.util.spec_from_file_location(__package__ + "._vulpy", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return mod


def available():
    """True when the extension loads."""
    try:
        ext()
        return True
    except ExtensionMissingError:
        return False
