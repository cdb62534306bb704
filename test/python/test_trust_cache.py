"""The kernel cache is trusted code (issue 20): every attack on the disk
cache that used to give a wrong result, a crash or a hang gives the right
result (a planted entry made vp.add return 1337, two swapped entries stayed
wrong, a FIFO named like an entry hung the compile, a symbolic link was
followed, a folder other users may write was used).

Each case fills a private cache in a child process, attacks it, and runs a
second child that must compute vp.add and vp.subtract right, within a time
limit, and (for a refused entry or folder) warn with a CacheWarning."""
import hashlib
import hmac
import json
import os
import re
import stat
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from conftest import needs_target

import vulpy as vp
from vulpy import _compiler, _native

ROOT = Path(__file__).resolve().parents[2]
pytestmark = needs_target

PROBE = """
import json, sys, warnings
sys.path.insert(0, {pkg!r})
warnings.simplefilter("always")
import numpy as np
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import vulpy as vp
    from vulpy import _compiler
    x = vp.asarray(np.arange(64, dtype=np.float32))
    y = vp.asarray(np.full(64, 2.0, np.float32))
    add = vp.add(x, y).numpy().tolist()
    sub = vp.subtract(x, y).numpy().tolist()
print(json.dumps(dict(add=add, sub=sub, stats=_compiler.stats, build=_compiler.build_id(),
                      warnings=[str(m.message) for m in w if m.category.__name__ ==
                                "CacheWarning"])))
"""

ADD = [float(i + 2) for i in range(64)]
SUB = [float(i - 2) for i in range(64)]


def _probe(cache, timeout=120):
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    env.pop("VULPY_CACHE_DIR", None)
    env.pop("VULPY_NO_DISK_CACHE", None)
    p = subprocess.run([sys.executable, "-c", PROBE.format(pkg=str(ROOT / "bindings" / "python"))],
                       capture_output=True, text=True, env=env, timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _entries(cache):
    return sorted((Path(cache) / "vulpy" / "kernels").rglob("*.vpk"))


def _read(path):
    data = path.read_bytes()
    end = data.index(b"\n", 8)
    head = json.loads(data[8:end])
    body, out, at = data[end + 1:], {}, 0
    for name, kind, n in head["parts"]:
        out[name] = body[at:at + n] if kind == "b" else body[at:at + n].decode()
        at += n
    return head, out


def _of(cache, kernel):
    """The entries of ufunc KERNEL: its array compile (`array @KERNEL {`,
    issue 14), or a kernel whose source is <vulpy.KERNEL>."""
    marks = (f"<vulpy.{kernel}>".encode(), f"array @{kernel} {{".encode())
    return [p for p in _entries(cache) if any(m in p.read_bytes() for m in marks)]


def _replant(arts, edit):
    """Rewrites an entry's GLSL with `edit` and its SPIR-V to match: a
    kernel entry's, or each kernel's of an array compile's entry."""
    def one(glsl):
        new = edit(glsl)
        assert new != glsl
        return new, _native.ext().glsl_to_spirv(new, "planted")
    if "glsl" in arts:
        arts["glsl"], arts["spirv"] = one(arts["glsl"])
        return
    meta = json.loads(arts["art"])
    for name, k in meta["kernels"].items():
        k["glsl"], arts["spirv:" + name] = one(k["glsl"])
    arts["art"] = json.dumps(meta)


def _encode(parts_values):
    parts, chunks = [], []
    for name, v in parts_values.items():
        b = v if isinstance(v, bytes) else v.encode()
        parts.append([name, "b" if isinstance(v, bytes) else "s", len(b)])
        chunks.append(b)
    return parts, b"".join(chunks)


def _plant_1337(path, build, new_format):
    """Rewrites an add entry to compute 1337, as an attacker who knows the
    format (and the guessable build id), but not the cache's secret, would."""
    head, arts = _read(path)
    _replant(arts, lambda g: re.sub(r"out_\[(\w+)\] = vec4\(.*\);", r"out_[\1] = vec4(1337.0);", g))
    parts, body = _encode(arts)
    if new_format:  # every field right but the MAC, made under a secret of its own
        digest = hashlib.sha256(body).hexdigest()
        h = dict(key=head["key"], build=build, parts=parts, sha256=digest)
        text = json.dumps(h, separators=(",", ":"))[:-1]  # what the MAC covers
        h["mac"] = hmac.new(os.urandom(32), text.encode(), hashlib.sha256).hexdigest()
        path.write_bytes(path.read_bytes()[:8] + json.dumps(h).encode() + b"\n" + body)
    else:  # the format before issue 20: a CRC-32 and the build
        h = dict(build=build, parts=parts, crc=zlib.crc32(body))
        path.write_bytes(b"VULPYK2\n" + json.dumps(h).encode() + b"\n" + body)


def _plant_crash(path, build):
    """An add entry whose kernel writes far outside its buffer."""
    head, arts = _read(path)
    _replant(arts, lambda g: re.sub(r"out_\[(\w+)\] =", r"out_[\1 * 4096u + 268435456u] =", g))
    parts, body = _encode(arts)
    h = dict(build=build, parts=parts, crc=zlib.crc32(body))
    path.write_bytes(b"VULPYK2\n" + json.dumps(h).encode() + b"\n" + body)


@pytest.fixture
def filled(tmp_path):
    cache = tmp_path / "cache"
    first = _probe(cache)
    assert first["add"] == ADD and first["sub"] == SUB and not first["warnings"]
    assert _of(cache, "add") and _of(cache, "subtract")
    return cache, first["build"]


def _right(cache, warned=True):
    r = _probe(cache)
    assert r["add"] == ADD and r["sub"] == SUB
    if warned:
        assert any("vulpy kernel cache" in w for w in r["warnings"]), r["warnings"]
    return r


def test_second_process_hits_without_warnings(filled):
    cache, _ = filled
    r = _right(cache, warned=False)
    assert r["stats"]["compiled"] == 0 and not r["warnings"]


@pytest.mark.parametrize("new_format", [False, True])
def test_planted_value(filled, new_format):
    cache, build = filled
    for p in _of(cache, "add"):
        _plant_1337(p, build, new_format)
    _right(cache, warned=new_format)


def test_planted_crash(filled):
    cache, build = filled
    for p in _of(cache, "add"):
        _plant_crash(p, build)
    _right(cache, warned=False)


def test_swapped_pair(filled):
    cache, _ = filled
    adds, subs = _of(cache, "add"), _of(cache, "subtract")
    for a, s in zip(adds, subs):
        da, ds = a.read_bytes(), s.read_bytes()
        a.write_bytes(ds)
        s.write_bytes(da)
    r = _right(cache)
    # rewritten: a third process hits again, silently
    r = _right(cache, warned=False)
    assert r["stats"]["compiled"] == 0


def test_fifo_named_like_an_entry(filled):
    cache, _ = filled
    for p in _of(cache, "add"):
        p.unlink()
        os.mkfifo(p)
    _right(cache)


def test_symlink_entry(filled):
    cache, _ = filled
    subs = _of(cache, "subtract")
    for a, s in zip(_of(cache, "add"), subs):
        a.unlink()
        a.symlink_to(s)
    _right(cache)


def test_group_writable_folder_is_refused(filled):
    cache, build = filled
    folder = cache / "vulpy" / "kernels"
    for p in _of(cache, "add"):
        _plant_1337(p, build, False)
    os.chmod(folder, 0o777)
    r = _right(cache)
    assert any("writable by other users" in w for w in r["warnings"])
    assert r["stats"]["compiled"] >= 2  # no disk cache


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to chown")
def test_folder_of_another_user_is_refused(filled):
    cache, _ = filled
    os.chown(cache / "vulpy" / "kernels", 65534, -1)
    r = _right(cache)
    assert any("owned by uid 65534" in w for w in r["warnings"])


def test_new_folder_is_private(tmp_path):
    cache = tmp_path / "fresh"
    _probe(cache)
    for d in (cache / "vulpy" / "kernels",):
        assert stat.S_IMODE(d.stat().st_mode) & 0o077 == 0
    assert stat.S_IMODE((cache / "vulpy" / "kernels" / "secret").stat().st_mode) == 0o600


@pytest.mark.parametrize("how", ["truncated", "random"])
def test_damaged_entry(filled, how):
    cache, _ = filled
    for p in _of(cache, "add"):
        data = p.read_bytes()
        p.write_bytes(data[:len(data) // 2] if how == "truncated" else os.urandom(len(data)))
    _right(cache)


def test_size_cap_evicts_least_recently_used(filled, monkeypatch):
    cache, _ = filled
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv(_compiler.CACHE_MAX_ENV, "1")
    monkeypatch.setattr(_compiler, "_folders", {})
    monkeypatch.setattr(_compiler, "_disk_bytes", {})
    folder = Path(_compiler.cache_dir())
    blob = {"glsl": "x" * (300 << 10)}
    for i in range(8):
        _compiler._disk_store(f"{i:02x}" + "0" * 62, blob)
    total = sum(p.stat().st_size for p in folder.rglob("*.vpk"))
    assert total <= 1 << 20
    assert (folder / "07" / ("07" + "0" * 62 + ".vpk")).exists()  # the newest stays
    del env


def test_check_entry_rejects_a_lying_manifest():
    src = ("import vulpy as vp\n\n"
           "def k(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):\n"
           "    i = vp.global_id()\n    y[i] = x[i] + 1.0\n")
    out = _compiler.compile_source(src, "k.py", "k", local_size=(64, 1, 1))
    ext = _native.ext()
    assert ext.check_entry(out["spirv"], out["manifest"]) is None
    lie = out["manifest"].replace("binding: 1", "binding: 7")
    assert "binding" in ext.check_entry(out["spirv"], lie)
    assert "local size" in ext.check_entry(out["spirv"], out["manifest"].replace("[64, 1, 1]",
                                                                              "[128, 1, 1]"))
    bad = bytearray(out["spirv"])
    bad[40:44] = b"\xff\xff\xff\xff"
    assert ext.check_entry(bytes(bad), out["manifest"])
    assert ext.check_entry(b"\x00" * 16, out["manifest"]) == "not a SPIR-V module"


def _pipelines(cache):
    return sorted((Path(cache) / "vulpy" / "pipelines").rglob("*.bin"))


@pytest.mark.parametrize("how", ["fifo", "symlink", "random", "swapped"])
def test_pipeline_cache_files(filled, how):
    """The runtime's VkPipelineCache files (runtime/pcache.c) go to the
    driver: a FIFO must not hang, a link is not followed, damage and a
    swapped pair are caught by the SHA-256s in the header."""
    cache, _ = filled
    bins = _pipelines(cache)
    assert len(bins) >= 2
    if how == "swapped":
        a, b = bins[0].read_bytes(), bins[1].read_bytes()
        bins[0].write_bytes(b)
        bins[1].write_bytes(a)
    for i, p in enumerate(bins):
        if how == "fifo":
            p.unlink()
            os.mkfifo(p)
        elif how == "symlink":
            p.unlink()
            p.symlink_to("/dev/zero")
        elif how == "random":
            p.write_bytes(os.urandom(4096))
    _right(cache, warned=False)


def test_group_writable_root_refused_by_runtime(filled):
    cache, _ = filled
    os.chmod(cache / "vulpy", 0o777)
    r = _right(cache)
    assert any("not using" in w and "writable by other users" in w for w in r["warnings"])


