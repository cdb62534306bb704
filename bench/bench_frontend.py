"""Frontend time: a ~300-line kernel (bench/inputs/frontend_300.vul.py) from
its AST JSON to verified VIR, in C (build/bin/frontend_time), broken down
into libyaml's event parse, the JSON reading (libyaml plus the node tree) and
the translation with vir_verify; and, separately, the Python side: the
dump (ast.parse plus the JSON text). bench/notes/frontend.md has the goals.
"""
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "bench" / "inputs" / "frontend_300.vul.py"
sys.path.insert(0, str(ROOT / "bindings" / "python"))

from vulpy import _astjson  # noqa: E402


def _stats(samples, unit):
    s = sorted(samples)
    q = statistics.quantiles(s, n=10) if len(s) >= 10 else [s[0]] * 9
    return {"median": statistics.median(s), "p10": q[0], "p90": q[-1], "unit": unit}


def run(ctx):
    runs = 20 if ctx.quick else 100
    lines = len(KERNEL.read_text().splitlines())
    size = f"{lines} lines"
    recs = []

    def rec(case, backend, samples, unit, **extra):
        recs.append(dict(case=case, size=size, backend=backend, **_stats(samples, unit), **extra))

    # Python: the dump, as `python -m vulpy dump-ast` does it.
    dump = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        text = _astjson.to_json(_astjson.dump_file(KERNEL))
        dump.append((time.perf_counter_ns() - t0) / 1e3)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(text)
        doc = f.name

    tool = ctx.build / "bin" / "frontend_time"
    out = subprocess.run([str(tool), doc, str(runs)], check=True, capture_output=True, text=True).stdout
    Path(doc).unlink()
    r = json.loads(out)
    total, read, yaml = r["total_us"], r["read_us"], r["yaml_us"]
    translate = r["translate_us"]
    info = dict(json_bytes=r["bytes"], yaml_events=r["events"], vir_lines=r["vir_lines"])
    rec("JSON -> verified VIR (whole frontend)", "C", total, "us", goal_us=1000, **info)
    rec("  JSON reading (libyaml + node tree)", "C", read, "us", **info)
    # libyaml's own rate on this document: the floor of the whole figure
    ymed = statistics.median(yaml)
    rec("    libyaml event parse alone", "C", yaml, "us",
        events_per_s=round(r["events"] / ymed * 1e6), bytes_per_s=round(r["bytes"] / ymed * 1e6), **info)
    rec("  translation + vir_verify (a tree read beforehand)", "C", translate, "us", goal_us=1000)
    rec("AST dump (ast.parse + JSON text)", "Python", dump, "us", json_bytes=len(text.encode()))
    return recs
