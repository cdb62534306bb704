"""The runnable examples (quick-start and tutorial lessons) run and pass
their own checks."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, needs_target

EXAMPLES = ["quickstart.py", "lesson01_convenience.py", "lesson02_resident.py",
            "lesson03_fusion.py", "lesson04_dispatch.py", "lesson05_vul_files.py",
            "lesson06_shared_memory.py", "lesson07_atomics.py", "lesson08_wave.py",
            "lesson09_persistent.py", "lesson10_memsock.py", "memsock_live_view.py"]
EXAMPLES += ["lesson11_fdtd_scatter.py", "lesson12_mpi.py"]  # one rank here; test_mpi.py runs it on two


@needs_target
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs(name):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    r = subprocess.run([sys.executable, str(ROOT / "examples" / name)], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "Validation Error" not in r.stderr


@needs_target
def test_make_run_runs_the_quickstart():
    """`make run` (scripts/run-quickstart.sh) runs the seed's first example,
    checked against NumPy, and prints the device, the timing and the GLSL."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"), PYTHON=sys.executable)
    r = subprocess.run(["bash", str(ROOT / "scripts" / "run-quickstart.sh")], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    out = r.stdout
    assert out.startswith("device: ")
    assert "y = vp.sin(x) + vp.exp(x) on 1,000,000 float32: first call" in out
    assert "-> OK" in out
    assert "#version 450" in out and "void main()" in out
