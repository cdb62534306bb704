"""help() is documentation a wheel carries (it ships no docs/): help(vp.sin),
help(vp.kernel) and help(vp.ndarray) explain the arguments, dtypes, errors
and give an example; the package is marked typed (py.typed, PEP 561).
Issue 14, "A Python package that reads top-down"."""
import pydoc
from pathlib import Path

import numpy as np
import pytest

import vulpy as vp


def _help(obj):
    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


@pytest.mark.parametrize("name", ["sin", "add", "floor_divide", "invert", "where", "clip",
                                  "maximum", "power"])
def test_ufunc_help(name):
    text = _help(getattr(vp, name))
    assert f"vp.{name}(" in text
    for word in ("out=", "Example", "Errors" if name not in ("where", "clip") else "errors"):
        assert word in text, (name, word)
    if name not in ("where", "clip"):
        assert "Dtypes" in text and "TypeError" in text and "ValueError" in text
        assert "float32" in text or "int32" in text


def test_ufunc_help_example_runs():
    """The example in every ufunc's docstring runs as written."""
    for name in ("sin", "add", "power", "maximum"):
        doc = getattr(vp, name).__doc__
        lines = doc.split("Example:\n", 1)[1].splitlines()
        code = "\n".join(line[4:].split("  #")[0] for line in lines if line.startswith("    "))
        ns = {"np": np, "vp": vp}
        exec(code, ns)
        # the NumPy-in line is NumPy's own result; the in-place line NumPy's too
        want_y = eval(code.splitlines()[1].split("=", 1)[1].replace("vp.", "np."), {"np": np})
        np.testing.assert_allclose(ns["y"], want_y, rtol=1e-6)
        a = np.arange(4, dtype=np.float32)
        nin = getattr(np, name).nin
        np.testing.assert_allclose(ns["x"].numpy(), getattr(np, name)(*[a] * nin), rtol=1e-6)


def test_kernel_help():
    text = _help(vp.kernel)
    for word in ("local_size_x", "dispatch=", "fast_math", "CompileError", "TypeError",
                 "ValueError", "FeatureError", "vp.Buffer[vp.float32]", "sync=False"):
        assert word in text, word


def test_ndarray_help():
    text = _help(vp.ndarray)
    for word in ("vp.asarray", "shape", "dtype", "memory", "float32", "TypeError",
                 "FeatureError", ".numpy()"):
        assert word in text, word


def test_ndarray_help_example_runs():
    doc = vp.ndarray.__doc__
    lines = doc.split("\n\n")[2].splitlines()
    code = "\n".join(line.strip().split("  #")[0] for line in lines)
    ns = {"np": np, "vp": vp}
    exec(code, ns)
    want = np.sin(np.arange(8, dtype=np.float32)) * 2 + 1
    want[2:4] = 0
    np.testing.assert_allclose(ns["y"].numpy(), want, rtol=1e-6)


def test_py_typed():
    assert (Path(vp.__file__).parent / "py.typed").is_file()
