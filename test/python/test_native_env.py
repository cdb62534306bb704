"""VULPY_EXTENSION: which extension file `vulpy` loads (bindings/python/
vulpy/_native.py). `make test-sanitize` points it at the ASan + UBSan build's
copy; these tests check that the variable is obeyed and that a wrong value
is a clear ExtensionMissingError, never a silent fallback to another build.
"""
import glob
import os
import subprocess
import sys

import pytest

from conftest import ROOT, needs_ext

from vulpy import _native

PROBE = ("import vulpy\n"
         "from vulpy import _native\n"
         "try:\n"
         "    m = _native.ext()\n"
         "    print('OK', m.__file__, m.__name__)\n"
         "except vulpy.ExtensionMissingError as e:\n"
         "    print('MISSING', e)\n")


def probe(value):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    env.pop("VULPY_EXTENSION", None)
    if value is not None:
        env["VULPY_EXTENSION"] = value
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_missing_file_is_a_clear_error(tmp_path):
    out = probe(str(tmp_path / "nope.so"))
    assert out.startswith("MISSING") and "VULPY_EXTENSION" in out and "nope.so" in out, out


@needs_ext
def test_loads_the_named_file():
    # the file this process loaded (the sanitizer run's when it sets the variable)
    path = _native.ext().__file__
    out = probe(path)
    assert out == f"OK {path} vulpy._vulpy", out


@needs_ext
@pytest.mark.skipif("VULPY_EXTENSION" in os.environ, reason="this run picks the extension itself")
def test_default_is_next_to_the_sources():
    built = glob.glob(str(ROOT / "bindings" / "python" / "vulpy" / "_vulpy*.so"))
    assert _native.ext().__file__ in built
