"""Manifest entries carry parsed types (issue 14): every buffer and push
field the extension hands to Python has, beside its VIR spelling "type",
"code" (struct's code of one component, None for a struct), "lanes" and
"dtype" (NumPy name of one component),
so no Python consumer parses the spelling again."""
import re
from pathlib import Path

import numpy as np
import pytest

import vulpy as vp
from conftest import ROOT, needs_target


@vp.struct
class Body:
    pos: vp.vec3
    m: vp.mat2
    mass: vp.float32


@vp.kernel
def parsed(a: vp.Buffer[vp.float64], v: vp.Buffer[vp.vec4], b: vp.Buffer[Body],
           flags: vp.Buffer[vp.uint8], h: vp.Buffer[vp.float16],
           k: vp.uint32, w: vp.uvec3, s: vp.int16):
    i = vp.global_id()
    a[i] = vp.float64(k + w.y) + vp.float64(s)
    v[i] = vp.vec4(1.0, 2.0, 3.0, 4.0)
    b[i].mass = 2.0
    flags[i] = vp.uint8(1)
    h[i] = vp.float16(1.0)


@needs_target
def test_manifest_entries_are_parsed():
    m = parsed.program().manifest   # .manifest is the YAML text
    bufs = {b["name"]: b for b in m["buffers"]}
    got = {n: (b["code"], b["lanes"], b["dtype"]) for n, b in bufs.items()}
    assert got == {"a": ("d", 1, "float64"), "v": ("f", 4, "float32"),
                   "b": (None, 1, None), "flags": ("B", 1, "uint8"),
                   "h": ("e", 1, "float16")}
    push = {f["name"]: (f["code"], f["lanes"], f["dtype"]) for f in m["push"]}
    assert push["k"] == ("I", 1, "uint32")
    assert push["w"] == ("I", 3, "uint32")
    assert push["s"] == ("h", 1, "int16")
    body = next(s for s in m["structs"] if s["name"] == "Body")
    fields = {f["name"]: (f["code"], f["lanes"], f["dtype"]) for f in body["fields"]}
    assert fields == {"pos": ("f", 3, "float32"), "m": ("f", 4, "float32"),
                      "mass": ("f", 1, "float32")}


@needs_target
def test_manifest_buffers_carry_their_numpy_dtype():
    # np_dtype: what np.dtype() takes for one element, built in C from the
    # compiler's layout (std430: vec3 at 0, mat2 at 16, mass at 32, 48-byte
    # stride), so the host never recomputes offsets or padding
    m = parsed.program().manifest
    got = {b["name"]: np.dtype(b["np_dtype"]) for b in m["buffers"]}
    assert got["a"] == np.float64 and got["flags"] == np.uint8 and got["h"] == np.float16
    assert got["v"] == np.dtype((np.float32, (4,)))
    body = got["b"]
    assert body.names == ("pos", "m", "mass") and body.itemsize == 48
    assert [body.fields[n][1] for n in body.names] == [0, 16, 32]
    assert body.fields["pos"][0] == np.dtype((np.float32, (3,)))
    assert body.fields["m"][0] == np.dtype((np.float32, (2, 2)))
    assert vp.struct_dtype(Body) == body


@needs_target
def test_parsed_manifest_drives_the_call():
    n = 8
    a, v = vp.zeros(n, np.float64), vp.zeros((n, 4), np.float32)
    b = vp.zeros(n, Body)
    flags, h = vp.zeros(n, np.uint8), vp.zeros(n, np.float16)
    parsed(a, v, b, flags, h, dispatch=n, k=3, w=(1, 2, 3), s=-7)
    np.testing.assert_array_equal(a.numpy(), np.full(n, 3 + 2 - 7, np.float64))
    np.testing.assert_array_equal(v.numpy(), np.tile(np.float32([1, 2, 3, 4]), (n, 1)))
    assert (b.numpy()["mass"] == 2.0).all() and (flags.numpy() == 1).all()
    assert (h.numpy() == 1).all()
    with pytest.raises(TypeError, match="'a'.*float64"):
        parsed(vp.zeros(n, np.float32), v, b, flags, h, dispatch=n, k=3, w=(1, 2, 3), s=0)


def test_no_python_module_parses_vir_spellings():
    """The helpers that parsed spellings in Python are gone."""
    pkg = ROOT / "bindings" / "python" / "vulpy"
    for p in sorted(pkg.glob("*.py")):
        text = p.read_text()
        for name in ("def vir_lanes", "def _field_code", "_SIZES = {"):
            assert name not in text, f"{p.name} still has {name}"
        assert not re.search(r"vir_scalar\(\w+\[\"type\"\]\)", text), p.name


@needs_target
def test_small_push_constants_need_their_device_features():
    """An int16 push constant needs storagePushConstant16 (not the buffers'
    storageBuffer16BitAccess): the manifest and the SPIR-V reflection name
    push_constant16, the context enables it (lavapipe has it; without it
    the validation layer objected to every such kernel), and the value
    arrives."""
    prog = parsed.program()
    assert "push_constant16" in prog.manifest["features"]
    ext = vp._native.ext()
    refl = ext.manifest_parse(ext.reflect_spirv(prog.artifacts["spirv"]))
    assert "push_constant16" in refl["features"]
    assert vp.default_context().has("push_constant16")  # lavapipe has it
