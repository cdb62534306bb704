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


def _public_callables():
    """vp's public functions and classes that VulPy defines (not NumPy's
    dtypes or the builtins it re-exports)."""
    import types
    for name in sorted(dir(vp)):
        obj = getattr(vp, name)
        if name.startswith("_") or isinstance(obj, types.ModuleType) or not callable(obj):
            continue
        if not (getattr(obj, "__module__", None) or "").startswith("vulpy"):
            continue
        yield name, obj


def _params(obj):
    import inspect
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p.name for p in sig.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and not p.name.startswith("_")
            and p.name not in ("self", "cls")]


def test_every_public_callable_is_documented():
    """help(vp.<name>) says something for every public function and class:
    a docstring of some length that names each parameter (a wheel ships no
    docs/). Failing names are listed with what their docstring misses."""
    import inspect
    import re
    bad = []
    for name, obj in _public_callables():
        doc = inspect.getdoc(obj) or ""
        if inspect.isclass(obj):
            doc += "\n" + (inspect.getdoc(obj.__init__) or "")
        missing = [p for p in _params(obj) if not re.search(rf"\b{re.escape(p)}\b", doc)]
        if len(doc.strip()) < 60 or missing:
            bad.append(f"vp.{name}: {len(doc.strip())} chars" +
                       (f", no mention of {', '.join(missing)}" if missing else ""))
    assert not bad, f"{len(bad)} public names without a real docstring:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("name", ["jit", "Context", "zeros"])
def test_named_help_explains(name):
    """The pages issue 14 names: arguments, dtypes, errors, an example."""
    text = _help(getattr(vp, name))
    assert "Errors" in text and "Example" in text and "dtype" in text.lower(), name
    assert "ValueError" in text or "TypeError" in text, name


def test_zeros_and_jit_examples_run():
    for f in (vp.zeros, vp.jit):
        doc = f.__doc__
        block = doc.split("Example:\n", 1)[1].split("\n\n")[0]
        code = "\n".join(line.strip().split("  #")[0] for line in block.splitlines()
                         if line.strip())
        exec(code, {"np": np, "vp": vp})
