"""`make bench`: runs the benchmark suites and renders docs/performance.md.

Each suite is a module bench/bench_<suite>.py with

    def run(ctx) -> list[dict]

returning records {"suite", "case", "size", "backend", "median", "p10",
"p90", "unit", ...}; ctx.build is the build folder, ctx.quick asks for a
short run, ctx.device_label names the machine. Records are written to
bench/results/<label>.json (label "local" by default, "h200" on the H200),
and bench/report.py renders docs/performance.md from every results file, so
the document never holds hand-typed numbers.
"""
import argparse
import importlib.util
import json
import platform
import sys
import time
import traceback
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def load_suite(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--label", default="local", help="results file name (local, h200, ...)")
    ap.add_argument("--out", default=None, help="results folder (default bench/results)")
    ap.add_argument("--suite", action="append", help="run only these suites")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-report", action="store_true")
    args = ap.parse_args(argv)

    ctx = SimpleNamespace(build=(ROOT / args.build).resolve(), quick=args.quick,
                          device_label=args.label, root=ROOT)
    out_dir = Path(args.out) if args.out else HERE / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / f"{args.label}.json"
    previous = json.loads(out_file.read_text()) if out_file.exists() else {"records": []}

    records, failed = [], []
    suites = sorted(HERE.glob("bench_*.py"))
    for path in suites:
        name = path.stem[len("bench_"):]
        if args.suite and name not in args.suite:
            continue
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        try:
            got = load_suite(path).run(ctx)
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        for r in got:
            r.setdefault("suite", name)
            r.setdefault("machine", args.label)
            print(f"   {r['case']:<40} {str(r.get('size', '')):>12} {r.get('backend', ''):<12} "
                  f"{r['median']:>12.4g} {r['unit']}", flush=True)
        records.extend(got)
        print(f"   ({time.perf_counter() - t0:.1f} s)")

    # Keep the records of suites that did not run this time.
    ran = {r["suite"] for r in records} | set(failed)
    kept = [r for r in previous.get("records", []) if r.get("suite") not in ran]
    doc = {"label": args.label, "host": platform.node(), "python": sys.version.split()[0],
           "date": time.strftime("%Y-%m-%d %H:%M:%S"), "records": kept + records}
    out_file.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out_file}")
    if not args.no_report:
        load_suite(HERE / "report.py").main()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
