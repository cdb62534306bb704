"""The benchmark harness (bench/): checks that fail on wrong answers, the
statistics, the raw-Vulkan reference (libvkref.so and the vkref program),
the printed-CUDA comparison rules, the goals table and the report."""
import ctypes
import json
import subprocess
import sys
import time
import zipfile
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH / "device"))  # gpu_clocks, slim_wheel: device plumbing

import bench_compare  # noqa: E402
import benchlib  # noqa: E402
import cuda_check  # noqa: E402
import goals  # noqa: E402
import gpu_clocks  # noqa: E402
import report  # noqa: E402
import slim_wheel  # noqa: E402

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


def test_interleave_runs_blocks_with_untimed_warmup():
    calls = []

    def runner(name):
        n = [0]

        def run():
            n[0] += 1
            calls.append(name)
            return float(n[0])
        return run

    out = benchlib.interleave({"a": runner("a"), "b": runner("b")}, reps=2, warmup=1, block=3,
                              block_warmup=2)
    # each turn: 2 untimed calls then 3 timed ones, backends alternating by block
    assert calls == (["a"] * 5 + ["b"] * 5) * 3
    # round 0 is warm-up; rounds 1 and 2 keep their timed calls only
    assert out["a"] == [8.0, 9.0, 10.0, 13.0, 14.0, 15.0] and out["b"] == out["a"]


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


def test_cuda_kernel_params_point_at_each_value():
    push = bytes(range(20))
    arr, keep = cuda_check.kernel_params([0x1000, 0xDEAD0000BEEF], push, 16)
    assert len(arr) == 3
    assert ctypes.c_uint64.from_address(arr[0]).value == 0x1000
    assert ctypes.c_uint64.from_address(arr[1]).value == 0xDEAD0000BEEF
    # the struct: its bytes, padded to a multiple of its alignment
    assert ctypes.string_at(arr[2], 32) == push + bytes(12)
    arr, _ = cuda_check.kernel_params([0x10], b"", 16)
    assert len(arr) == 1


class _FakeCupy:
    """What cuda_check's launcher touches of CuPy 14: RawModule(path=)
    .get_function() gives a RawKernel, which has no `.ptr` (the first H200
    run died on that) but a `.kernel` (the loaded Function) that has one."""

    def __init__(self, with_pointer=True):
        self.launches, self.calls = [], []
        fake = self

        class Function:
            ptr = 0xF00D

        class RawKernel:
            @property
            def kernel(self):
                if not with_pointer:
                    raise AttributeError("no kernel here")
                return Function()

            def __call__(self, grid, block, args):
                fake.calls.append((grid, block, args))

        class RawModule:
            def __init__(self, path):
                self.path = path

            def get_function(self, name):
                return RawKernel()

        def launch_kernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
            arr = (ctypes.c_void_p * 3).from_address(params)
            fake.launches.append(dict(f=f, grid=(gx, gy, gz), block=(bx, by, bz), extra=extra,
                                      ptrs=[ctypes.c_uint64.from_address(arr[i]).value
                                            for i in range(2)],
                                      push=ctypes.string_at(arr[2], 16)))

        self.RawModule = RawModule
        self.cuda = SimpleNamespace(driver=SimpleNamespace(launchKernel=launch_kernel),
                                    get_current_stream=lambda: SimpleNamespace(ptr=0))


def test_cuda_launcher_takes_the_function_of_cupy14s_rawkernel(tmp_path):
    cp = _FakeCupy()
    launcher = cuda_check.CudaLauncher(cp, tmp_path / "k.cubin", "k")
    push = np.array([1.5, 2.5, 0, 0], np.float32).tobytes()
    launcher.launch([0x100, 0x200], push, 16, (4, 1, 1), (64, 1, 1))
    (got,) = cp.launches
    assert got["f"] == 0xF00D and got["grid"] == (4, 1, 1) and got["block"] == (64, 1, 1)
    assert got["ptrs"] == [0x100, 0x200] and got["push"] == push and got["extra"] == 0
    assert launcher.how == "cuLaunchKernel(kernelParams)" and not cp.calls


def test_cuda_launcher_falls_back_to_the_documented_call(tmp_path):
    cp = _FakeCupy(with_pointer=False)
    launcher = cuda_check.CudaLauncher(cp, tmp_path / "k.cubin", "k")
    push = bytes(range(12))
    launcher.launch([0x100, 0x200], push, 16, (4, 1, 1), (64, 1, 1))
    assert launcher.how == "documented" and not cp.launches
    (grid, block, args), = cp.calls
    assert grid == (4, 1, 1) and block == (64, 1, 1)
    assert [int(a) for a in args[:2]] == [0x100, 0x200]
    assert args[2].tobytes() == push + bytes(4)  # by value, padded to its alignment


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
    by = {(g["text"], (r or {}).get("case")): (g, r) for g, r, _ in rows}
    g, r = next(v for k, v in by.items() if k[0].startswith("tiny sync"))
    assert goals.met(g["op"], g["target"], r["median"]) is True
    g, r = next(v for k, v in by.items() if k[0].startswith("cold compile"))
    assert goals.met(g["op"], g["target"], r["median"]) is False
    g, r = next(v for k, v in by.items() if k[0].startswith("printed CUDA"))
    assert r["median"] == 0.5 and "1 of 2 ran" in r["case"]
    assert any(g["issue"] == 9 and r["case"] == "declared" for g, r, _ in rows)
    assert any(r is None for g, r, _ in rows if g["issue"] == 2)  # not measured


def test_goals_pick_the_best_variant_and_keep_the_others():
    def ratio(v, ref, m, size=1 << 28):
        return dict(suite="compare", case=f"resident sin+exp: {v} / {ref}", size=size,
                    backend="ratio", median=m, unit="x", numerator=v)
    recs = [ratio("vulpy kernel float", "vulkan-raw vec4", 0.39),
            ratio("vulpy kernel vec4", "vulkan-raw vec4", 0.61),
            ratio("vulpy jit", "vulkan-raw vec4", 0.03),
            ratio("vulpy kernel vec4", "vulkan-raw vec4", 0.99, size=1 << 24),  # not 2^28
            dict(suite="runtime", case="overhead: upload", size=1, backend="vulpy vs raw",
                 median=3.0, unit="%"),
            dict(suite="runtime", case="overhead: download", size=1, backend="vulpy vs raw",
                 median=13.0, unit="%"),
            dict(suite="compile", case="saxpy", size="35 GLSL lines", backend="total",
                 median=3.0, unit="ms"),
            dict(suite="compile", case="saxpy", size="35 GLSL lines", backend="glslang",
                 median=2.0, unit="ms")]
    rows = goals.rows(recs)
    (g, r, others), = [x for x in rows if x[0]["text"].endswith("raw-Vulkan vec4 kernel")]
    assert r["median"] == 0.61 and goals.variant(r) == "vulpy kernel vec4"
    assert sorted(goals.variant(o) for o in others) == ["vulpy jit", "vulpy kernel float"]
    # a goal over several operations: one row each, the missed one shows
    over = [(r["case"], goals.met(g["op"], g["target"], r["median"]))
            for g, r, _ in rows if g["issue"] == 5]
    assert over == [("overhead: upload", True), ("overhead: download", False)]
    (g, r, _), = [x for x in rows if x[0]["issue"] == 4 and x[0]["suite"] == "compile"]
    assert r["backend"] == "total" and r["median"] == 3.0
    # what no record measures is said so, once
    assert [r for g, r, _ in rows if g["issue"] == 3] == [None]


def test_goals_find_the_ir_frontend_and_compile_figures():
    recs = [dict(suite="ir", case="parse+verify+print", size=1_000_001, backend="cpu",
                 median=2.5e6, unit="ops/s"),
            dict(suite="ir", case="parse+verify+print", size=1007, backend="cpu", median=9e6,
                 unit="ops/s"),
            dict(suite="frontend", case="JSON -> verified VIR (whole frontend)",
                 size="297 lines", backend="C", median=800.0, unit="us"),
            dict(suite="compile", case="my_kernel", size="32 GLSL lines", backend="total",
                 median=2.0, unit="ms"),
            dict(suite="compile", case="push_particles", size="33 GLSL lines", backend="total",
                 median=6.0, unit="ms")]
    got = {(g["issue"], r["case"]): (r["median"], goals.met(g["op"], g["target"], r["median"]))
           for g, r, _ in goals.rows(recs) if r is not None}
    assert got[(2, "parse+verify+print")] == (2.5e6, True)  # the 1M-op module, not the small one
    assert got[(3, "JSON -> verified VIR (whole frontend)")] == (800.0, True)
    assert got[(4, "my_kernel")] == (2.0, True) and got[(4, "push_particles")] == (6.0, False)


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
        dict(suite="ir", case="parse+verify+print", size=1007, backend="cpu", median=9e5,
             unit="ops/s"),  # the ir suite ran, but not on a 1M-op module
    ]
    (res / "t.json").write_text(json.dumps(_doc(recs)))
    out = tmp_path / "perf.md"
    report.render(res, out, plots=False)
    md = out.read_text()
    assert "| case | size | vulkan-raw vec4 | numpy |" in md
    assert "| resident sin+exp | 2^20 | 3.5 <sub>3–4</sub> | 1 <sub>0.9–1.1</sub> |" in md
    assert "cupy unfused: cupy not importable" in md
    assert "**ERROR** resident copy [vulpy kernel float]: WRONG RESULT" in md
    assert "| 8 | resident sin+exp at 2^28 vs the raw-Vulkan vec4 kernel | ≥ 0.95 x | t | 0.5 x | ✗ " \
           "| vulpy kernel float |" in md
    assert "| 2 | VIR parse + verify + print of a ≥ 1M-op module | ≥ 2e+06 ops/s | t | not measured |" in md
    # and why: the suite ran without a matching record, or left no records at all
    assert "| t | not measured | | | | `ir` ran; no record matches this goal |" in md
    assert "| t | not measured | | | | no `frontend` records on this machine |" in md


# ---------------------------------------------------------------- device run helpers

def test_gpu_clocks_summarises_each_suite(tmp_path, capsys):
    csv_text = (
        "timestamp, clocks.current.sm [MHz], clocks.current.memory [MHz], power.draw [W], "
        "temperature.gpu, utilization.gpu [%], clocks_event_reasons.active\n"
        "2026/12/01 00:05:51.100, 1980 MHz, 3201 MHz, 120.50 W, 40, 0 %, 0x0000000000000001\n"
        "2026/12/01 00:05:51.300, 1410 MHz, 3201 MHz, 690.10 W, 61, 100 %, 0x0000000000000004\n"
        "2026/12/01 00:05:53.500, 1980 MHz, 3201 MHz, 300.00 W, 50, 100 %, 0x0000000000000000\n")
    (tmp_path / "c.csv").write_text(csv_text)
    t0 = time.mktime(datetime(2026, 12, 1, 0, 5, 51).timetuple())
    (tmp_path / "s.tsv").write_text(f"suite\tstart\tend\nvkref\t{t0}\t{t0 + 1}\n"
                                    f"compare\t{t0 + 2}\t{t0 + 3}\nir\t{t0 + 9}\t{t0 + 10}\n")
    assert gpu_clocks.main(["x", str(tmp_path / "c.csv"), str(tmp_path / "s.tsv")]) == 0
    out = capsys.readouterr().out
    vk = next(ln for ln in out.splitlines() if ln.strip().startswith("vkref"))
    assert "SM 1410/1695/1980 MHz" in vk and "power max 690 W" in vk and "SW power cap" in vk
    cmp_ = next(ln for ln in out.splitlines() if ln.strip().startswith("compare"))
    assert "1 samples" in cmp_ and "reasons: none" in cmp_
    assert "no samples" in next(ln for ln in out.splitlines() if ln.strip().startswith("ir"))


def test_slim_wheel_drops_the_c_api_and_keeps_record_consistent(tmp_path):
    whl = tmp_path / "taichi-1.7.4-cp312-cp312-manylinux_2_27_x86_64.whl"
    files = {"taichi/__init__.py": b"x = 1\n",
             "taichi/_lib/core/taichi_python.so": b"\0" * 100,
             "taichi/_lib/c_api/lib/libtaichi_c_api.so": b"\0" * 1000,
             "taichi/examples/a.py": b"pass\n",
             "taichi-1.7.4.data/data/include/x.h": b"//\n"}
    record = "".join(f"{n},sha256=x,{len(d)}\n" for n, d in files.items())
    record += "taichi-1.7.4.dist-info/RECORD,,\n"
    with zipfile.ZipFile(whl, "w") as z:
        for n, d in files.items():
            z.writestr(n, d)
        z.writestr("taichi-1.7.4.dist-info/RECORD", record)
    slim_wheel.slim(whl)
    with zipfile.ZipFile(whl) as z:
        names = set(z.namelist())
        rec = z.read("taichi-1.7.4.dist-info/RECORD").decode()
    assert names == {"taichi/__init__.py", "taichi/_lib/core/taichi_python.so",
                     "taichi-1.7.4.dist-info/RECORD", "taichi-1.7.4.dist-info/VULPY_SLIM"}
    assert "c_api" not in rec and "examples" not in rec and ".data/" not in rec
    assert "taichi/_lib/core/taichi_python.so" in rec and "VULPY_SLIM" in rec
    before = whl.read_bytes()
    slim_wheel.slim(whl)  # already slim: unchanged
    assert whl.read_bytes() == before


def test_taichi_probe_fails_soft(monkeypatch):
    monkeypatch.setattr(bench_compare, "TAICHI_PROBE",
                        "print('VULPY_PROBE: Taichi fell back to x64')\nraise SystemExit(3)\n")
    assert bench_compare.taichi_probe() == "Taichi fell back to x64"
    monkeypatch.setattr(bench_compare, "TAICHI_PROBE", "import os\nprint('loading')\nos.abort()\n")
    why = bench_compare.taichi_probe()
    assert why.startswith("the probe died (killed by signal 6)") and "loading" in why
    monkeypatch.setattr(bench_compare, "TAICHI_PROBE", "print('VULPY_PROBE: ok')\n")
    assert bench_compare.taichi_probe() is None


def test_goals_show_the_worst_math_ulp():
    # issue 4: the subnormal-inclusive bound is checked only where the device
    # keeps subnormals (the suite records `subnormals kept` there and skips it
    # elsewhere); the no-subnormals bound everywhere
    recs = [dict(suite="mathcost", case="max ULP: sin", size=49152, backend="fused fma",
                 median=1.4, unit="ULP"),
            dict(suite="mathcost", case="max ULP: worst float32 function", size=0,
                 backend="fused fma", median=0.5, unit="ULP", function="tanh"),
            dict(suite="mathcost", case="max ULP, subnormals kept: worst float32 function",
                 size=0, backend="fused fma", median=5.5, unit="ULP", function="tanh")]
    rows = [x for x in goals.rows(recs) if x[0]["suite"] == "mathcost"]
    (g, r, _), = [x for x in rows if "kept" in x[0]["case"]]
    assert r["median"] == 5.5 and goals.met(g["op"], g["target"], r["median"]) is False
    # the no-subnormals row reads its own record (none here: not measured)
    (gn, rn, _), = [x for x in rows if "no subnormals" in x[0]["case"]]
    assert rn is None
    # a device that flushes: no `subnormals kept` record, so that row is not measured
    rows = [x for x in goals.rows(recs[:2]) if x[0]["suite"] == "mathcost"]
    (g, r, _), = [x for x in rows if "kept" in x[0]["case"]]
    assert r is None


def test_stats_ns_scales_and_takes_deciles():
    # the python and fusion suites' records (benchlib.stats_ns)
    r = benchlib.stats_ns([i * 1000 for i in range(1, 101)], "us")
    assert r["unit"] == "us" and r["median"] == 50.5
    assert r["p10"] == pytest.approx(10.1) and r["p90"] == pytest.approx(90.9)
    assert benchlib.stats_ns([2_000_000], "ms") == {"median": 2.0, "p10": 2.0, "p90": 2.0,
                                                     "unit": "ms"}


def test_recorded_times_the_dispatches_it_replays():
    # benchlib.recorded (bench_random and the normal / store probes): each
    # call replays the recording (the buffer gets the kernel's values again)
    # and returns a positive GPU time per dispatch
    import vulpy as vp
    k = vp.random._kernels()
    dev = vp.default_context()
    buf = vp.zeros(4 * 256, np.float32)
    run = benchlib.recorded(vp, dev, k.store_f32_v4, buf.buffer,
                            dict(v=2.5, n4=256, row=256), 256, 3)
    assert not np.any(buf.numpy() == 2.5)  # recorded, not run
    t = run()
    assert t > 0
    assert np.all(buf.numpy() == 2.5)
    buf.fill(0.0)
    assert run() > 0 and np.all(buf.numpy() == 2.5)
