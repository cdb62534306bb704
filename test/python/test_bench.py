"""The benchmark harness (bench/): checks that fail on wrong answers, the
statistics, the raw-Vulkan reference (libvkref.so and the vkref program),
the printed-CUDA comparison rules, the goals table and the report."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))

import benchlib  # noqa: E402
import cuda_check  # noqa: E402
import goals  # noqa: E402
import report  # noqa: E402

BUILD = ROOT / "build"
VKREF = BUILD / "bin" / "vkref"
LIBVKREF = BUILD / "lib" / "libvkref.so"


# ---------------------------------------------------------------- checks

def test_check_close_accepts_rounding_and_rejects_wrong():
    want = np.linspace(0, 1, 1000, dtype=np.float32)
    benchlib.check_close(want * np.float32(1 + 1e-7), want, 1e-5)
    bad = want.copy()
    bad[500] += 0.01
    with pytest.raises(benchlib.WrongResult, match=r"1 of 1000 elements differ; first at \[500\]"):
        benchlib.check_close(bad, want, 1e-5)


def test_check_close_rejects_nan_and_shape():
    want = np.ones(8, np.float32)
    got = want.copy()
    got[3] = np.nan
    with pytest.raises(benchlib.WrongResult, match=r"\[3\]"):
        benchlib.check_close(got, want, 1e-3)
    with pytest.raises(benchlib.WrongResult, match="shape"):
        benchlib.check_close(want[:4], want, 1e-3)


def test_check_equal_is_bit_exact():
    a = np.arange(100, dtype=np.uint32)
    benchlib.check_equal(a.copy(), a)
    b = a.copy()
    b[7] ^= 1
    with pytest.raises(benchlib.WrongResult, match=r"first at \[7\]"):
        benchlib.check_equal(b, a)
    z = np.zeros(4, np.float32)
    with pytest.raises(benchlib.WrongResult):  # -0.0 == 0.0 but not bit-exact
        benchlib.check_equal(-z, z)


def test_large_checks_sample_but_still_catch_the_tail():
    n = benchlib.SAMPLE_ABOVE * 2
    want = np.zeros(n, np.float32)
    got = want.copy()
    got[-1] = 1.0
    with pytest.raises(benchlib.WrongResult):
        benchlib.check_close(got, want, 1e-6)


def test_quantiles_and_interleave():
    assert benchlib.quantiles([5.0]) == (5.0, 5.0, 5.0)
    med, p10, p90 = benchlib.quantiles(list(range(1, 12)))
    assert med == 6 and p10 == 2 and p90 == 10
    order = []

    def runner(name):
        def run():
            order.append(name)
            return 1.0
        return run

    def broken():
        raise RuntimeError("boom")

    out = benchlib.interleave({"a": runner("a"), "b": runner("b"), "c": broken}, reps=3,
                              warmup=1)
    assert order == ["a", "b"] * 4  # round-robin, warm-up included
    assert out["a"] == [1.0] * 3 and isinstance(out["c"], RuntimeError)


def test_ratio_is_median_of_pairs():
    rec = benchlib.Recorder("t", "dev")
    r = rec.ratio("x", 1, [1.0, 2.0, 4.0], [2.0, 2.0, 2.0], True, goal={"op": ">=", "target": 1})
    assert r["median"] == 1.0 and r["p10"] < r["p90"] and r["backend"] == "ratio"
    r = rec.ratio("y", 1, [1.0, 1.0], [2.0, 4.0], False)
    assert r["median"] == pytest.approx(0.375)


# ---------------------------------------------------------------- vkref

needs_vkref = pytest.mark.skipif(not LIBVKREF.exists(), reason="libvkref.so not built")


@needs_vkref
def test_libvkref_streams_verify_and_time():
    vk = benchlib.VkRef(LIBVKREF)
    try:
        vk.prepare(1 << 12)
        for k in vk.KERNELS:
            err = vk.verify(k)
            if k.startswith("copy"):
                assert err == 0
            else:
                assert 0 <= err < 1e-5
            assert vk.run(k) > 0
        assert all(t > 0 for t in vk.latency(False, 3))
        wall, gpu = vk.batch(10, True)
        assert wall > 0 and gpu > 0
        assert vk.async_(10) > 0
        assert len(vk.transfer("device", "upload", 1 << 16, 2)) == 2
        assert all(t > 0 for t in vk.pipeline("copy vec4", 2))
        with pytest.raises(benchlib.Skip):
            vk.prepare(vk.max_elements * 2)
        with pytest.raises(RuntimeError, match="unknown transfer"):
            vk.transfer("device", "sideways", 1 << 12, 1)
    finally:
        vk.close()


@pytest.mark.skipif(not VKREF.exists(), reason="vkref not built")
def test_vkref_program_prints_json_records():
    p = subprocess.run([str(VKREF), "--quick", "--max-log2", "12", "--reps", "3",
                        "--no-transfers"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["status"] == "ok"
    cases = {r["case"] for r in doc["records"]}
    assert {"copy vec4", "sin+exp float", "tiny dispatch sync (spin)"} <= cases
    for r in doc["records"]:
        assert r["backend"] == "vulkan-raw" and r["median"] > 0 and r["p10"] <= r["p90"]
    bad = subprocess.run([str(VKREF), "--frobnicate"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr


# ---------------------------------------------------------------- cuda_check

def test_cuda_compare_rules():
    a = np.arange(10, dtype=np.int32)
    assert cuda_check.compare("q", a, a.copy())[0]
    b = a.copy()
    b[4] += 1
    ok, det = cuda_check.compare("q", b, a)
    assert not ok and "bit-exact" in det and "[4]" in det
    x = np.linspace(-1, 1, 100).astype(np.float32)
    assert cuda_check.compare("y", x * np.float32(1 + 2e-7), x)[0]
    assert not cuda_check.compare("y", x + np.float32(1e-3), x)[0]
    dt = np.dtype({"names": ["pos", "id"], "formats": [(np.float32, (3,)), np.uint32],
                   "offsets": [0, 12], "itemsize": 16})
    s = np.zeros(4, dt)
    s2 = s.copy()
    s2["id"][2] = 9
    assert cuda_check.compare("p", s, s.copy())[0]
    assert not cuda_check.compare("p", s2, s)[0]


def test_cuda_push_bytes_fill_the_dispatch_guard():
    class Packer:
        def pack(self, values):
            return np.float32(values["dt"]).tobytes()

    class Prog:
        manifest = {"push_size": 32, "dispatch_guard": "_vp_count",
                    "push": [{"name": "dt", "offset": 0, "size": 4},
                             {"name": "_vp_count", "offset": 16, "size": 12}]}
        packer = Packer()

    data = cuda_check.push_bytes(Prog(), {"dt": 0.5}, 1000)
    assert len(data) == 32
    assert np.frombuffer(data[:4], np.float32)[0] == 0.5
    assert list(np.frombuffer(data[16:28], np.uint32)) == [1000, 1, 1]


def test_cuda_source_helpers():
    src = ('// Push constants: passed by value.\nstruct __align__(16) PC {\n};\n'
           'extern "C" __global__ void push_particles(float *pos, PC pc) {}\n')
    assert cuda_check.cuda_kernel_name(src) == "push_particles"
    assert cuda_check.push_align(src, 32) == 16
    assert cuda_check.push_align("no struct", 8) == 4


# ---------------------------------------------------------------- goals and report

def _doc(records):
    return {"label": "t", "host": "h", "date": "d", "versions": {"numpy": "1"},
            "records": records}


def test_goals_rows_match_and_report_missing():
    recs = [
        dict(suite="compare", case="tiny sync: vulpy time / cupy RawKernel", size=64,
             backend="ratio", median=0.8, unit="x"),
        dict(suite="compare", case="compile cold", size=1, backend="vulpy kernel", median=25.0,
             unit="ms"),
        dict(suite="cuda", case="printed CUDA: a", backend="cuda vs vulkan", median=1.0),
        dict(suite="cuda", case="printed CUDA: b", backend="cuda vs vulkan", median=None,
             error="mismatch: y"),
        dict(suite="cuda", case="printed CUDA: c", backend="cuda vs vulkan", median=None,
             skipped="no nvcc"),
        dict(suite="new", case="declared", backend="x", median=3.0, unit="s",
             goal={"op": "<=", "target": 2.0, "issue": 9}),
    ]
    rows = goals.rows(recs)
    by = {(g["text"], (r or {}).get("case")): (g, r) for g, r in rows}
    g, r = next(v for k, v in by.items() if k[0].startswith("tiny sync"))
    assert goals.met(g["op"], g["target"], r["median"]) is True
    g, r = next(v for k, v in by.items() if k[0].startswith("cold compile"))
    assert goals.met(g["op"], g["target"], r["median"]) is False
    g, r = next(v for k, v in by.items() if k[0].startswith("printed CUDA"))
    assert r["median"] == 0.5 and "1 of 2 ran" in r["case"]
    assert any(g["issue"] == 9 and r["case"] == "declared" for g, r in rows)
    assert any(r is None for g, r in rows if g["issue"] == 2)  # not measured


def test_report_renders_tables_goals_and_errors(tmp_path):
    res = tmp_path / "results"
    res.mkdir()
    recs = [
        dict(suite="compare", case="resident sin+exp", size=1 << 20, backend="vulkan-raw vec4",
             median=3.5, p10=3.0, p90=4.0, reps=5, unit="GB/s", device="dev"),
        dict(suite="compare", case="resident sin+exp", size=1 << 20, backend="numpy",
             median=1.0, p10=0.9, p90=1.1, reps=5, unit="GB/s", device="dev"),
        dict(suite="compare", case="resident sin+exp", size=1 << 20, backend="cupy unfused",
             median=None, unit="", skipped="cupy not importable"),
        dict(suite="compare", case="resident sin+exp: vulpy kernel float / vulkan-raw vec4",
             size=1 << 28, backend="ratio", median=0.5, p10=0.4, p90=0.6, unit="x",
             goal={"op": ">=", "target": 0.95, "issue": 8}),
        dict(suite="compare", case="resident copy", size=1 << 20, backend="vulpy kernel float",
             median=None, unit="", error="WRONG RESULT: 3 of 8 elements differ"),
    ]
    (res / "t.json").write_text(json.dumps(_doc(recs)))
    out = tmp_path / "perf.md"
    report.render(res, out, plots=False)
    md = out.read_text()
    assert "| case | size | vulkan-raw vec4 | numpy |" in md
    assert "| resident sin+exp | 2^20 | 3.5 <sub>3–4</sub> | 1 <sub>0.9–1.1</sub> |" in md
    assert "cupy unfused: cupy not importable" in md
    assert "**ERROR** resident copy [vulpy kernel float]: WRONG RESULT" in md
    assert "| 8 | resident sin+exp at 2^28 vs the raw-Vulkan vec4 kernel | ≥ 0.95 x | t | 0.5 x | ✗ |" in md
    assert "| 2 | VIR parse + verify + print of a ≥ 1M-op module | ≥ 2e+06 ops/s | t | not measured |" in md
