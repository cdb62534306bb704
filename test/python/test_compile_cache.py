"""The compile caches (issue 8's warm compile): what invalidates a kernel
cache entry, damaged entries, two processes filling one cache, the
VULPY_CACHE_DIR folder, and the driver warm-up thread (VULPY_PREWARM)."""
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from conftest import needs_target

import vulpy as vp
from vulpy import _compiler

ROOT = Path(__file__).resolve().parents[2]
pytestmark = needs_target

KMOD = textwrap.dedent("""
    import vulpy as vp

    def scale(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
        i = vp.global_id()
        y[i] = x[i] * 3.0 + 1.0
    """)

_PROBE = """
import json, os, sys
import numpy as np
sys.path.insert(0, {pkg!r})
sys.path.insert(0, {here!r})
import vulpy as vp
from vulpy import _compiler
import kmod
k = vp.kernel(local_size_x=64)(kmod.scale)
x = vp.asarray(np.arange(100, dtype=np.float32))
y = vp.empty_like(x)
k(x, y, dispatch=100)
st = k.program().native(vp.default_context()).stats
print(json.dumps(dict(_compiler.stats, y3=float(y.numpy()[3]), folder=_compiler.cache_dir(),
                      disk_loaded=st.get("disk_loaded"), disk_written=st.get("disk_written"))))
"""


def _probe_cmd(tmp_path):
    (tmp_path / "kmod.py").write_text(KMOD)
    script = tmp_path / "probe.py"
    script.write_text(_PROBE.format(pkg=str(ROOT / "bindings" / "python"), here=str(tmp_path)))
    return [sys.executable, str(script)]


def _env(**kw):
    env = dict(os.environ, **kw)
    env.pop("VULPY_NO_DISK_CACHE", None)
    return env


def _run(tmp_path, env):
    p = subprocess.run(_probe_cmd(tmp_path), capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def _fresh(monkeypatch, tmp_path):
    """An empty kernel cache, in memory and on disk, for this test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("VULPY_CACHE_DIR", raising=False)
    monkeypatch.delenv("VULPY_NO_DISK_CACHE", raising=False)
    monkeypatch.setattr(_compiler, "_memory", {})


def _source(body="x[i] * 3.0 + 1.0"):
    return textwrap.dedent(f"""
        import vulpy as vp

        def k(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
            i = vp.global_id()
            y[i] = {body}
        """)


def _compiled():
    return _compiler.stats["compiled"]


def test_options_source_and_build_are_part_of_the_key(monkeypatch, tmp_path):
    _fresh(monkeypatch, tmp_path)
    n = _compiled()
    a = _compiler.compile_source(_source(), "k.py", "k", local_size=(64, 1, 1))
    assert _compiled() == n + 1
    monkeypatch.setattr(_compiler, "_memory", {})  # a new process: the disk answers
    again = _compiler.compile_source(_source(), "k.py", "k", local_size=(64, 1, 1))
    assert _compiled() == n + 1 and again["spirv"] == a["spirv"]
    # each of these is a different kernel: compiled, never served from the entry above
    variants = [dict(local_size=(128, 1, 1)), dict(local_size=(64, 1, 1), fast_math=True),
                dict(local_size=(64, 1, 1), dispatch_guard=False)]
    for i, kw in enumerate(variants):
        out = _compiler.compile_source(_source(), "k.py", "k", **kw)
        assert _compiled() == n + 2 + i, kw
        assert out["key"] != a["key"]
    changed = _compiler.compile_source(_source("x[i] * 4.0 + 1.0"), "k.py", "k",
                                       local_size=(64, 1, 1))
    assert _compiled() == n + 5 and "4.0" in changed["glsl"]
    # a rebuilt compiler never reuses what an older build wrote
    monkeypatch.setattr(_compiler, "_memory", {})
    monkeypatch.setattr(_compiler, "_build_id", "another-build")
    _compiler.compile_source(_source(), "k.py", "k", local_size=(64, 1, 1))
    assert _compiled() == n + 6


def _damage(path, how):
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "flipped":  # one byte of the payload (the SPIR-V's last word)
        b = bytearray(data)
        b[-1] ^= 0x55
        path.write_bytes(bytes(b))
    elif how == "header":
        path.write_bytes(data.replace(b'"parts"', b'"trap"', 1))
    elif how == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif how == "directory":
        path.unlink()
        path.mkdir()


@pytest.mark.parametrize("how", ["truncated", "empty", "flipped", "header", "garbage",
                                 "directory"])
def test_damaged_entries_are_compiled_again(monkeypatch, tmp_path, ctx, how):
    _fresh(monkeypatch, tmp_path)
    kw = dict(local_size=(64, 1, 1))
    first = _compiler.compile_source(_source(), "k.py", "k", **kw)
    files = sorted((tmp_path / "cache" / "vulpy" / "kernels").rglob("*.vpk"))
    assert len(files) == 2  # the full key and the source key
    for f in files:
        _damage(f, how)
    monkeypatch.setattr(_compiler, "_memory", {})
    n = _compiled()
    out = _compiler.compile_source(_source(), "k.py", "k", **kw)
    assert _compiled() == n + 1
    assert out["spirv"] == first["spirv"]
    # and it runs
    from vulpy import _launch
    prog = _launch.Program(out, "k")
    x = vp.asarray(np.arange(64, dtype=np.float32))
    y = vp.empty_like(x)
    from vulpy import _kernel
    _kernel.launch(prog, (x, y), {}, 64, None, True, ctx, "k")
    np.testing.assert_array_equal(y.numpy(), np.arange(64, dtype=np.float32) * 3 + 1)
    if how != "directory":  # rewritten in place: the next process hits again
        monkeypatch.setattr(_compiler, "_memory", {})
        _compiler.compile_source(_source(), "k.py", "k", **kw)
        assert _compiled() == n + 1


def test_threads_storing_one_entry_leave_one_whole_file(monkeypatch, tmp_path):
    _fresh(monkeypatch, tmp_path)
    arts = _compiler.compile_source(_source(), "k.py", "k")
    # "zz": no real key (hex) shares the folder (an "ab" one did, by chance)
    errors = []

    def store():
        try:
            for _ in range(20):
                _compiler._disk_store("zz" + "0" * 62, arts)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=store) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    sub = tmp_path / "cache" / "vulpy" / "kernels" / "zz"
    assert [p.name for p in sub.iterdir()] == ["zz" + "0" * 62 + ".vpk"]  # no .tmp left
    got = _compiler._disk_load("zz" + "0" * 62)
    assert got["spirv"] == arts["spirv"] and got["manifest"] == arts["manifest"]


def test_entry_format_is_the_documented_one(monkeypatch, tmp_path):
    """An entry written here by the format lib/Target/kernel_cache.c
    documents (magic line, JSON header, HMAC-SHA256 under the folder's
    secret of the header up to ',"mac"', the parts) is a hit; the same with
    one bit of the HMAC, the key or a length changed is refused."""
    import hashlib
    import hmac
    import warnings
    _fresh(monkeypatch, tmp_path)
    monkeypatch.setattr(_compiler, "_folders", {})
    folder = Path(_compiler.cache_dir())
    arts = {"spirv": b"\x03\x02\x23\x07" * 3, "glsl": "void main() {}\n"}
    _compiler._disk_store("zz" + "1" * 62, arts)  # makes the folder and its secret
    secret = (folder / "secret").read_bytes()
    key = "zy" + "0" * 62

    def write(key_in_header=key, mac_flip=0, glsl_len=None):
        body = arts["spirv"] + arts["glsl"].encode()
        parts = [["spirv", "b", len(arts["spirv"])],
                 ["glsl", "s", glsl_len if glsl_len is not None else len(arts["glsl"])]]
        head = {"key": key_in_header, "build": _compiler.build_id(), "parts": parts,
                "sha256": hashlib.sha256(body).hexdigest()}
        text = json.dumps(head, separators=(",", ":"))[:-1]
        mac = bytearray(hmac.new(secret, text.encode(), hashlib.sha256).hexdigest().encode())
        mac[0] ^= mac_flip
        data = text + ',"mac":"' + mac.decode() + '"}\n'
        path = Path(_compiler._entry_path(str(folder), key))
        path.parent.mkdir(mode=0o700, exist_ok=True)
        path.write_bytes(b"VULPYK4\n" + data.encode() + body)

    write()
    assert _compiler._disk_load(key) == arts
    for bad in (dict(mac_flip=1), dict(key_in_header="zy" + "0" * 61 + "1"),
                dict(glsl_len=len(arts["glsl"]) - 1)):
        write(**bad)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert _compiler._disk_load(key) is None
        assert any(issubclass(m.category, vp.CacheWarning) for m in w), bad


def test_two_processes_fill_one_cache(tmp_path):
    env = _env(XDG_CACHE_HOME=str(tmp_path / "cache"))
    cmd = _probe_cmd(tmp_path)
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert json.loads(out.strip().splitlines()[-1])["y3"] == 10.0
    third = _run(tmp_path, env)
    assert third["compiled"] == 0 and third["fast_disk_hits"] == 1 and third["y3"] == 10.0
    assert third["disk_loaded"]  # the pipeline cache file one of them wrote


def test_vulpy_cache_dir_holds_both_caches(tmp_path):
    root = tmp_path / "vc"
    env = _env(VULPY_CACHE_DIR=str(root), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    first = _run(tmp_path, env)
    assert first["compiled"] == 1 and first["folder"] == str(root / "kernels")
    assert list((root / "kernels").rglob("*.vpk"))
    assert list((root / "pipelines").rglob("*.bin"))
    assert not (tmp_path / "xdg" / "vulpy").exists()
    second = _run(tmp_path, env)
    assert second["compiled"] == 0 and second["disk_loaded"]
    # damaged pipeline-cache files: rejected by their header, written again
    for f in (root / "pipelines").rglob("*.bin"):
        f.write_bytes(f.read_bytes()[:40])
    third = _run(tmp_path, env)
    assert third["y3"] == 10.0 and third["disk_written"] and not third["disk_loaded"]


@pytest.mark.parametrize("prewarm", ["0", "1"])
def test_contexts_come_and_go_with_and_without_the_warm_up(tmp_path, prewarm):
    # a context destroyed at once joins its warm-up thread first
    code = textwrap.dedent(f"""
        import sys, gc, time
        sys.path.insert(0, {str(ROOT / 'bindings' / 'python')!r})
        import vulpy as vp
        for _ in range(3):
            c = vp.Context()
            del c
            gc.collect()
        c = vp.Context()
        deadline = time.time() + 60
        while c.stats()["prewarm_ms"] == 0 and time.time() < deadline and {prewarm!r} == "1":
            time.sleep(0.01)
        ms = c.stats()["prewarm_ms"]
        print("ok" if (ms > 0) == ({prewarm!r} == "1") else f"prewarm_ms {{ms}}")
        """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=_env(VULPY_PREWARM=prewarm, XDG_CACHE_HOME=str(tmp_path)),
                       timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
