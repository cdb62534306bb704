"""python -m vulpy: emit-* on a .vul.py file, devices, dump-ast, errors. The
GLSL it prints compiles with a standalone glslangValidator (no VulPy)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, needs_ext, needs_target

KERNEL = '''import vulpy as vp

class PushConstants:
    N:  uint32
    dt: float32

def main(pos: vp.Buffer[vp.float32], vel: vp.Buffer[vp.float32]):
    i: uint32 = vp.global_id()
    if i >= pc.N:
        return
    pos[i] = pos[i] + vel[i] * pc.dt
'''


def vulpy(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    return subprocess.run([sys.executable, "-m", "vulpy", *args], capture_output=True, text=True,
                          env=env, cwd=cwd)


@pytest.fixture
def kfile(tmp_path):
    p = tmp_path / "my_kernel.vul.py"
    p.write_text(KERNEL)
    return p


@needs_target
def test_emit_glsl_compiles_standalone(kfile, tmp_path):
    r = vulpy("emit-glsl", str(kfile), "--local-size-x", "128")
    assert r.returncode == 0, r.stderr
    assert "#version 450" in r.stdout and "local_size_x = 128" in r.stdout
    glslang = shutil.which("glslangValidator")
    if glslang is None:
        pytest.skip("glslangValidator is not installed")
    comp = tmp_path / "k.comp"
    comp.write_text(r.stdout)
    v = subprocess.run([glslang, "-V", "--target-env", "vulkan1.2", str(comp), "-o",
                        str(tmp_path / "k.spv")], capture_output=True, text=True)
    assert v.returncode == 0, v.stdout + v.stderr


@needs_target
@pytest.mark.parametrize("cmd,want", [("emit-vir", "kernel @main"), ("emit-cuda", "__global__"),
                                      ("emit-hip", "hip"), ("emit-manifest", "vulpy_manifest: 1")])
def test_emit_text_targets(kfile, cmd, want):
    r = vulpy(cmd, str(kfile))
    assert r.returncode == 0, r.stderr
    assert want in r.stdout


@needs_target
def test_emit_spirv_needs_output(kfile, tmp_path):
    r = vulpy("emit-spirv", str(kfile))
    assert r.returncode == 1 and "-o" in r.stderr
    out = tmp_path / "k.spv"
    r = vulpy("emit-spirv", str(kfile), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x03\x02\x23\x07"


@needs_ext
def test_compile_error_is_file_line_col(tmp_path):
    bad = tmp_path / "bad.vul.py"
    bad.write_text("import vulpy as vp\n\ndef main(a: vp.Buffer[vp.float32]):\n    a[0] = nope\n")
    r = vulpy("emit-vir", str(bad))
    assert r.returncode == 1
    assert f"{bad}:4:12: error:" in r.stderr and "^" in r.stderr
    r = vulpy("emit-vir", str(tmp_path / "missing.vul.py"))
    assert r.returncode == 1 and "cannot read" in r.stderr
    syn = tmp_path / "syn.vul.py"
    syn.write_text("def main(:\n")
    r = vulpy("emit-glsl", str(syn))
    assert r.returncode == 1 and f"{syn}:1:" in r.stderr


@needs_ext
def test_devices():
    r = vulpy("devices")
    assert r.returncode == 0 and r.stdout.startswith("0: ")
    r = vulpy("devices", "-v")
    assert r.returncode == 0 and len(r.stdout.splitlines()) > 3


def test_dump_ast(kfile):
    r = vulpy("dump-ast", str(kfile))
    assert r.returncode == 0 and '"_vulpy_ast":1' in r.stdout  # the compact dump
