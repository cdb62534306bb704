"""`make deps` (scripts/deps.sh): silent when every package is there; names
the missing ones; when not root and without password-less sudo it installs
nothing and prints the one command to run, exiting 1. `id` and `sudo` are
faked on PATH, so nothing is installed and no root is needed."""
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPS = ROOT / "scripts" / "deps.sh"


def fake_bin(tmp_path, uid):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (bin_dir / "sudo").write_text("#!/bin/sh\nexit 1\n")  # needs a password
    (bin_dir / "apt-get").write_text("#!/bin/sh\necho apt-get must not run >&2\nexit 3\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")


def test_nothing_missing_is_silent(tmp_path):
    r = subprocess.run([str(DEPS), "bash", "dpkg"], env=fake_bin(tmp_path, 1000),
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_not_root_says_what_to_do(tmp_path):
    r = subprocess.run([str(DEPS), "bash", "vulpy-no-such-package"], env=fake_bin(tmp_path, 1000),
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stdout == "deps: missing Debian packages: vulpy-no-such-package\n"
    assert r.stderr == ("deps: these packages are missing and this is not root. Run:\n"
                        "  sudo apt-get update && sudo apt-get install -y vulpy-no-such-package\n")


def test_every_issue_package_is_listed():
    # The packages the foundation issue names, and what later issues added.
    text = (ROOT / "Makefile").read_text()
    listed = set(text.split("DEB_PACKAGES :=")[1].split("\n\n")[0].replace("\\", " ").split())
    for p in ("cmake ninja-build pkg-config glslang-dev glslang-tools spirv-tools spirv-headers "
              "libspirv-cross-c-shared-dev libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers "
              "vulkan-validationlayers vulkan-tools libyaml-dev llvm-14-tools hipcc clang-14 "
              "openmpi-bin libopenmpi-dev libvkfft-dev").split():
        assert p in listed, p
