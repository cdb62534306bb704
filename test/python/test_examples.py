"""The runnable examples (quick-start and tutorial lessons) run and pass
their own checks."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, needs_target

EXAMPLES = ["quickstart.py", "lesson01_convenience.py", "lesson02_resident.py",
            "lesson03_kernels.py"]


@needs_target
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs(name):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    r = subprocess.run([sys.executable, str(ROOT / "examples" / name)], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "Validation Error" not in r.stderr
