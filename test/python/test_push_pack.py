"""Push-constant packing exists once (issue 14): vulpy-run (--push text),
the extension's Launcher (a kernel call's keywords, in C) and vp's
PushPacker (Kernel.dispatch, vp.jit, ufuncs) all fill the block through
lib/Manifest/push_pack.c. The same values through the three give the
same block - a kernel copies its push constants into buffers and the three
runs' buffers are compared - and a value one refuses, all refuse (before,
vulpy-run stored inf for an f32 constant of 1e39 that Python refused)."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import vulpy as vp
from vulpy import _native

from conftest import needs_target

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("VULPY_BUILD", ROOT / "build"))
RUN = BUILD / "bin" / "vulpy-run"

pytestmark = needs_target


@vp.kernel(local_size_x=1)
def _echo(of: vp.Buffer[vp.float32], ou: vp.Buffer[vp.uint32], oi: vp.Buffer[vp.int32],
          a: vp.float32, b: vp.float32, n: vp.uint32, m: vp.int32, k: vp.int32):
    of[0] = a
    of[1] = b
    ou[0] = n
    oi[0] = m
    oi[1] = k


CASES = [
    {"a": 1.5, "b": -0.0, "n": 0, "m": -1, "k": 7},
    {"a": 3.4028234663852886e38, "b": 1e-45, "n": 4294967295, "m": -2147483648,
     "k": 2147483647},
    {"a": 0.1, "b": -7, "n": 12345, "m": 0, "k": -99},
]


def _bufs():
    return (vp.zeros(2, np.float32), vp.zeros(1, np.uint32), vp.zeros(2, np.int32))


def _read(bufs):
    return [b.numpy().tolist() for b in bufs]


def _via_launcher(vals):
    bufs = _bufs()
    for _ in range(2):  # the second call is the Launcher's
        _echo(*bufs, dispatch=1, **vals)
    return _read(bufs)


def _via_packer(vals):
    ctx = vp.default_context()
    prog = _echo.program()
    bufs = _bufs()
    push = prog.packer.pack(dict(vals))
    prog.native(ctx).dispatch([b.buffer for b in bufs], push, 1, 1, 1, False, True)
    return _read(bufs)


def _via_vulpy_run(vals, tmp_path):
    prog = _echo.program()
    spv, man = tmp_path / "echo.spv", tmp_path / "echo.yaml"
    spv.write_bytes(prog.artifacts["spirv"])
    man.write_text(prog.artifacts["manifest"])
    outs = {name: tmp_path / f"{name}.npy" for name in ("of", "ou", "oi")}
    cmd = [str(RUN), str(spv), "--manifest", str(man), "--buf", "of=zeros:2",
           "--buf", "ou=zeros:1", "--buf", "oi=zeros:2", "--dispatch", "1"]
    for name, v in vals.items():
        cmd += ["--push", f"{name}={v!r}"]
    for name, path in outs.items():
        cmd += ["--out", f"{name}={path}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode:
        return r.stderr
    return [np.load(outs[n]).tolist() for n in ("of", "ou", "oi")]


def _want(vals):
    return [[float(np.float32(vals["a"])), float(np.float32(vals["b"]))], [vals["n"]],
            [vals["m"], vals["k"]]]


@pytest.mark.skipif(not RUN.exists(), reason="vulpy-run is not built")
@pytest.mark.parametrize("vals", CASES)
def test_three_packers_agree(vals, tmp_path):
    want = _want(vals)
    assert _via_launcher(vals) == want
    assert _via_packer(vals) == want
    assert _via_vulpy_run(vals, tmp_path) == want


@pytest.mark.skipif(not RUN.exists(), reason="vulpy-run is not built")
@pytest.mark.parametrize("name,value", [("a", 1e39), ("n", -1), ("n", 4294967296),
                                        ("m", 2147483648), ("k", -2147483649)])
def test_three_packers_refuse_alike(name, value, tmp_path):
    vals = dict(CASES[0], **{name: value})
    with pytest.raises(TypeError, match=f"push constant '{name}' .*cannot hold"):
        _via_launcher(vals)
    with pytest.raises(TypeError, match=f"push constant '{name}' .*cannot hold"):
        _via_packer(vals)
    err = _via_vulpy_run(vals, tmp_path)
    assert isinstance(err, str) and f"push constant '{name}'" in err and "not a valid" in err


def test_push_pack_rules():
    """The extension's push_pack: codes, lanes, padding, refusals."""
    pack = _native.ext().push_pack
    f = (("x", "f", 1, 0), ("v", "I", 3, 4), ("h", "e", 1, 16), ("q", "q", 1, 24))
    got = pack(f, 32, {"x": 2.5, "v": (1, 2, 3), "h": 0.5, "q": -2})
    want = (np.float32(2.5).tobytes() + np.uint32([1, 2, 3]).tobytes() +
            np.float16(0.5).tobytes() + bytes(6) + np.int64(-2).tobytes())
    assert got == want
    for vals in [{"x": 2.5, "v": (1, 2), "h": 0, "q": 0},       # lanes
                 {"x": 2.5, "v": (1, 2, 1.5), "h": 0, "q": 0},  # a float in an int field
                 {"x": 2.5, "v": (1, 2, 3), "h": 1e5, "q": 0},  # past f16
                 {"x": 2.5, "v": (1, 2, 3), "h": 0, "q": 1 << 63},
                 {"x": 2.5, "v": (1, 2, 3), "h": 0}]:           # missing
        assert pack(f, 32, vals) is None
    for x in (65504.0, 6e-8, -1e-3, 1 / 3, 2049.0, float("inf"), float("-inf")):
        assert pack((("h", "e", 1, 0),), 2, {"h": x}) == np.float16(x).tobytes(), x
    assert np.isnan(np.frombuffer(pack((("h", "e", 1, 0),), 2, {"h": float("nan")}),
                                  np.float16)[0])
