"""`make bench`: runs the benchmark suites and renders docs/performance.md.

Each suite is a module bench/bench_<suite>.py with

    def run(ctx) -> list[dict]

returning records {"suite", "case", "size", "backend", "median", "p10",
"p90", "unit", "device", ...}; ctx.build is the build folder, ctx.quick asks
for a short run, ctx.device_label names the machine. A record may also carry
  "skipped": why      the backend could not run the case here (no CuPy, ...)
  "error": message    the backend failed or gave a WRONG RESULT: printed
                      loudly, and the run exits non-zero
  "goal": {"op": ">=" | "<=", "target": x, "issue": n}
                      the median is a figure an issue set a goal for
                      (bench/goals.py lists them all for the goals table)
Records are written to <out>/<label>.json (bench/results/ and label "local"
by default, "h200" on the H200), with the versions of everything used, and
bench/report.py renders docs/performance.md from every results file, so the
document never holds hand-typed numbers.
"""
import argparse
import importlib.util
import json
import platform
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class SuiteTimeout(Exception):
    """SIGTERM (bench/device/suites.sh's `timeout`) arrived while a suite ran."""


def on_term(signum, frame):
    raise SuiteTimeout()


def partial_records(name):
    """What a suite interrupted by a timeout had recorded (benchlib.Recorder)."""
    lib = sys.modules.get("benchlib")
    if lib is None:
        return []
    return [r for rec in getattr(lib, "LIVE", []) for r in rec.records
            if rec.suite == name or r.get("suite") == name]


def load_suite(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def show(r):
    """One line of the console summary of a record."""
    head = f"   {str(r.get('case', ''))[:52]:<52} {str(r.get('size', '')):>10} " \
           f"{str(r.get('backend', ''))[:24]:<24}"
    if r.get("error"):
        return f"{head} ERROR: {r['error'][:200]}"
    if r.get("skipped"):
        return f"{head} skipped: {r['skipped'][:100]}"
    med = r.get("median")
    val = f"{med:>12.4g}" if isinstance(med, (int, float)) else f"{str(med):>12}"
    return f"{head} {val} {r.get('unit', '')}"


def render():
    """Runs bench/report.py with a Python that has matplotlib (this one, or
    Debian's /usr/bin/python3 with python3-matplotlib); without one the
    tables are rendered and the plots left out."""
    args = [str(HERE / "report.py")]
    for py in (sys.executable, "/usr/bin/python3"):
        if not Path(py).exists():
            continue
        ok = subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode == 0
        if ok:
            return subprocess.run([py] + args).returncode
    return subprocess.run([sys.executable] + args + ["--no-plots"]).returncode


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--label", default="local", help="results file name (local, h200, ...)")
    ap.add_argument("--out", default=None, help="results folder (default bench/results)")
    ap.add_argument("--suite", action="append", help="run only these suites")
    ap.add_argument("--skip", action="append", default=[], help="leave these suites out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--fresh", action="store_true",
                    help="drop the records of suites that did not run this time")
    args = ap.parse_args(argv)

    ctx = SimpleNamespace(build=(ROOT / args.build).resolve(), quick=args.quick,
                          device_label=args.label, root=ROOT)
    out_dir = Path(args.out) if args.out else HERE / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / f"{args.label}.json"
    previous = json.loads(out_file.read_text()) if out_file.exists() and not args.fresh \
        else {"records": []}

    records, failed, timing = [], [], {}
    suites = sorted(HERE.glob("bench_*.py"))
    signal.signal(signal.SIGTERM, on_term)
    timed_out = False
    for path in suites:
        name = path.stem[len("bench_"):]
        if (args.suite and name not in args.suite) or name in args.skip:
            continue
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        try:
            got = load_suite(path).run(ctx) or []
        except SuiteTimeout:
            got = partial_records(name) + [dict(
                suite=name, case="(suite)", size=0, backend="harness", median=None, p10=None,
                p90=None, unit="", error=f"timed out after {time.perf_counter() - t0:.0f} s; "
                                        "the records before it are kept")]
            timed_out = True
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        for r in got:
            r.setdefault("suite", name)
            r.setdefault("machine", args.label)
            print(show(r), flush=True)
            if r.get("error") and name not in failed:
                failed.append(name)
        records.extend(got)
        timing[name] = round(time.perf_counter() - t0, 1)
        print(f"   ({timing[name]} s)", flush=True)
        if timed_out:
            break

    # Keep the records of suites that did not run this time.
    ran = {r["suite"] for r in records} | set(failed) | set(timing)
    kept = [r for r in previous.get("records", []) if r.get("suite") not in ran]
    versions = {}
    try:
        sys.path.insert(0, str(HERE))
        import benchlib
        versions = benchlib.versions()
    except Exception as e:  # noqa: BLE001
        versions = {"error": str(e)}
    doc = {"label": args.label, "host": platform.node(), "python": sys.version.split()[0],
           "date": time.strftime("%Y-%m-%d %H:%M:%S"), "quick": args.quick,
           "versions": versions, "suite_seconds": timing,
           "records": kept + records}
    if previous.get("suite_seconds"):
        doc["suite_seconds"] = {**previous["suite_seconds"], **timing}
    out_file.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out_file}")
    errors = [r for r in records if r.get("error")]
    if errors:
        print(f"\n{len(errors)} ERROR record(s):")
        for r in errors:
            print(show(r))
    if failed:
        print(f"FAILED suites: {', '.join(failed)}")
    if not args.no_report and not timed_out and not args.out:
        render()
    return 124 if timed_out else (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
