"""The wheel: scripts/build-wheel.sh gives one abi3 wheel, repaired by
auditwheel, that installs into a fresh venv and imports there (the
source tree is not on the path), with its extension and bundled libraries.
"""
import os
import subprocess
import sys
import zipfile

import pytest

from conftest import HAVE_TARGET, ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheelhouse")
    r = subprocess.run([str(ROOT / "scripts" / "build-wheel.sh"), str(out)], cwd=ROOT,
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHON=sys.executable))
    assert r.returncode == 0, r.stderr[-4000:]
    return out / r.stdout.strip().splitlines()[-1].split("/")[-1]


def test_wheel_is_abi3_and_bundles_libraries(wheel):
    assert "-cp311-abi3-manylinux" in wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "vulpy/_vulpy.abi3.so" in names
    assert any(n.startswith("vulpy.libs/libyaml") for n in names)
    assert not any("libvulkan" in n for n in names)  # the loader is the system's


def test_wheel_installs_and_imports_in_a_fresh_venv(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True)
    # numpy from this interpreter (no network here); nothing else leaks in
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    numpy_dir = os.path.dirname(os.path.dirname(__import__("numpy").__file__))
    with open(os.path.join(site, "numpy-from-test.pth"), "w") as f:
        f.write(numpy_dir + "\n")
    code = ["import numpy as np, vulpy as vp",
            "assert 'venv' in vp.__file__, vp.__file__",
            "print(vp.list_devices()[0]['name'])",
            "x = vp.asarray(np.arange(5, dtype=np.float32), memory='host')",
            "assert (x.numpy_view() == np.arange(5)).all()"]
    if HAVE_TARGET:
        code += ["x = np.linspace(0, 1, 1000, dtype=np.float32)",
                 "assert np.allclose(vp.sin(x) + vp.exp(x), np.sin(x) + np.exp(x), rtol=1e-5)"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    r = subprocess.run([str(py), "-c", "\n".join(code)], cwd=tmp_path, capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
