"""Loads the C extension `vulpy._vulpy` once, lazily.

`import vulpy` succeeds without it (so `python -m vulpy dump-ast` works on a
bare checkout); the first call that needs the GPU or the compiler raises
ExtensionMissingError saying how to build it.
"""
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
            from . import _vulpy
            _mod = _vulpy
            return _mod
        except ImportError as e:
            _error = e
    raise ExtensionMissingError(
        f"the VulPy C extension (vulpy._vulpy) is not available: {_error}. Build it with "
        f"`make build` in the source tree, or install VulPy with `pip install .`") from _error


def available():
    """True when the extension loads."""
    try:
        ext()
        return True
    except ExtensionMissingError:
        return False
