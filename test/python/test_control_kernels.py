"""vp.Control parameters from Python reach the frontend as vp.Control (no
rewrite to vp.Buffer[vp.uint32]): the word names of docs/language.md's
example work through @vp.kernel, vp.compile and python -m vulpy emit-glsl,
as they do through vulpy-translate (issue 14)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import vulpy as vp

from conftest import ROOT, needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

FILE = '''import vulpy as vp

@vp.kernel(local_size_x=64, control_words={"ctrl": ["mode", "hot_count"]})
def k(ctrl: vp.Control, data: vp.Buffer[vp.float32]):
    i = vp.global_id()
    if ctrl.mode == 2:
        if data[i] > 0.5:
            vp.atomic_add(ctrl.hot_count, 1)
    if i == 0:
        ctrl[5] = 7
'''


def _check(control, xs):
    assert control["hot_count"] == int((xs > 0.5).sum())
    assert control.view()[5] == 7


def test_named_words_through_vp_kernel():
    @vp.kernel(local_size_x=64, control_words={"ctrl": ["mode", "hot_count"]})
    def k(ctrl: vp.Control, data: vp.Buffer[vp.float32]):
        i = vp.global_id()
        if ctrl.mode == 2:
            if data[i] > 0.5:
                vp.atomic_add(ctrl.hot_count, 1)
        if i == 0:
            ctrl[5] = 7

    control = vp.ControlBuffer(["mode", "hot_count"], words=16)
    control["mode"] = 2
    xs = np.linspace(0, 1, 1001, dtype=np.float32)
    k(control, xs, dispatch=len(xs))
    _check(control, xs)
    assert "atomicLoad" in k.glsl and "coherent" in k.glsl


def test_named_words_through_vp_compile(tmp_path):
    p = tmp_path / "ctl.vul.py"
    p.write_text(FILE)
    s = vp.compile(p)
    control = vp.ControlBuffer(["mode", "hot_count"], words=16)
    control["mode"] = 2
    xs = np.linspace(0, 1, 513, dtype=np.float32)
    s.bind("ctrl", control)
    s.upload("data", xs)
    s.run(dispatch=len(xs))
    _check(control, xs)
    assert s.download("ctrl")[1] == control["hot_count"]
    assert "atomicLoad" in s.glsl


def test_named_words_through_emit_glsl(tmp_path):
    p = tmp_path / "ctl.vul.py"
    p.write_text(FILE)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    r = subprocess.run([sys.executable, "-m", "vulpy", "emit-glsl", str(p)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "atomicLoad(ctrl[0u]" in r.stdout and "atomicAdd(ctrl[1u]" in r.stdout
    assert "coherent buffer" in r.stdout


def test_index_form_still_works():
    control = vp.ControlBuffer(["mode", "hot_count"], words=16)
    HOT = control.index("hot_count")

    @vp.kernel(local_size_x=64)
    def count_hot(x: vp.Buffer[vp.float32], ctrl: vp.Control):
        i = vp.global_id()
        if x[i] > 0.5:
            vp.atomic_add(ctrl[HOT], 1)

    xs = np.linspace(0, 1, 1001, dtype=np.float32)
    count_hot(xs, control, dispatch=len(xs))
    assert control["hot_count"] == int((xs > 0.5).sum())


def test_a_word_name_without_names_is_a_compile_error():
    @vp.kernel(local_size_x=64)
    def k(ctrl: vp.Control):
        ctrl.mode = 1

    with pytest.raises(vp.CompileError, match="control_words"):
        k(vp.ControlBuffer(["mode"]), dispatch=1)


def test_python_api_md_control_example_runs(tmp_path):
    """The example of docs/python-api.md's control-buffer section, as written."""
    import re
    import textwrap
    text = (ROOT / "docs" / "python-api.md").read_text()
    sec = text[text.index("- **In Python kernels**: annotate the parameter `vp.Control`"):]
    code = textwrap.dedent(re.search(r"```python\n(.*?)```", sec, re.S).group(1))
    control = vp.ControlBuffer(["mode", "hot_count"], words=16)
    xs = np.linspace(0, 1, 1001, dtype=np.float32)
    import runpy
    f = tmp_path / "doc_example.py"
    f.write_text(code)  # kernels need their source in a file
    runpy.run_path(str(f), init_globals={"vp": vp, "control": control, "xs": xs})
    assert control["hot_count"] == int((xs > 0.5).sum())
