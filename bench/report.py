"""Renders docs/performance.md from bench/results/*.json and bench/notes/*.md.

    python3 bench/report.py [--results DIR] [--no-plots]
    python3 bench/report.py --results DIR --summary LABEL   (text, for a terminal)

The page: the machines (one results file each: label, host, date, device,
versions), the goals of issues 2-8 with the measured figure beside each
(bench/goals.py), then per suite its notes and, per machine, its figures:
one table per case with the backends side by side (median, and p10-p90 where
there were repeats), the ratios measured in the same run, what was skipped
and why, and errors. Plots (PNG, matplotlib; docs/img/) for the suites in
PLOTS. Run it with a Python that has matplotlib (Debian's python3-matplotlib:
/usr/bin/python3); without one, --no-plots renders the tables alone.
"""
import argparse
import json
import re
import subprocess
import sys
from collections import OrderedDict, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import goals  # noqa: E402


def fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-2):
            return f"{v:.3g}"
        return f"{v:.3f}".rstrip("0").rstrip(".") if abs(v) < 100 else f"{v:.1f}"
    return str(v)


def fmt_size(s):
    if isinstance(s, int) and s >= 1024 and (s & (s - 1)) == 0:
        return f"2^{s.bit_length() - 1}"
    if isinstance(s, int) and s >= 1 << 20 and s % (1 << 20) == 0:
        return f"{s >> 20} MiB" if s % 1000 else str(s)
    return str(s) if s not in (None, "") else ""


def cell(r):
    if r.get("error"):
        return "**ERROR**"
    if r.get("skipped"):
        return "—"
    v = fmt(r.get("median"))
    if r.get("p10") is not None and r.get("p90") is not None and r.get("reps", 2) > 1:
        v += f" <sub>{fmt(r['p10'])}–{fmt(r['p90'])}</sub>"
    return v


def load(results_dir):
    out = OrderedDict()
    for f in sorted(Path(results_dir).glob("*.json")):
        try:
            doc = json.loads(f.read_text())
        except ValueError:
            continue
        if isinstance(doc, dict) and "records" in doc:
            out[f.stem] = doc
    return out


def device_of(doc):
    for r in doc["records"]:
        if r.get("device"):
            return r["device"]
    return ""


# ---------------------------------------------------------------- tables

def suite_tables(recs):
    """Markdown for one suite's records of one machine."""
    lines = []
    normal = [r for r in recs if r.get("backend") != "ratio"]
    ratios = [r for r in recs if r.get("backend") == "ratio"]
    by_case = OrderedDict()
    for r in normal:
        by_case.setdefault(r["case"], []).append(r)
    # Cases with the same backends and unit share a table (rows: case, size).
    groups = OrderedDict()
    for case, rs in by_case.items():
        backends = tuple(OrderedDict.fromkeys(r.get("backend", "") for r in rs))
        unit = next((r["unit"] for r in rs if r.get("unit")), "")
        groups.setdefault((backends, unit), []).append(case)
    for (backends, unit), cases in groups.items():
        shown = [b for b in backends
                 if any(not r.get("skipped") for c in cases for r in by_case[c]
                        if r.get("backend") == b)]
        if not shown:
            continue
        lines.append(f"| case | size | " + " | ".join(shown) + " |")
        lines.append("| --- | ---: | " + " | ".join("---:" for _ in shown) + " |")
        for c in cases:
            sizes = OrderedDict.fromkeys(r.get("size") for r in by_case[c])
            for s in sizes:
                row = {r.get("backend"): r for r in by_case[c] if r.get("size") == s}
                cells = [cell(row[b]) if b in row else "" for b in shown]
                lines.append(f"| {c} | {fmt_size(s)} | " + " | ".join(cells) + " |")
        lines.append(f"\n<sub>unit: {unit or '—'}; median of the runs, "
                     f"p10–p90 in small print</sub>\n")
    if ratios:
        lines.append("| ratio (same run, interleaved) | size | median | p10–p90 | goal |")
        lines.append("| --- | ---: | ---: | ---: | --- |")
        for r in ratios:
            g = r.get("goal")
            goal = ""
            if isinstance(g, dict) and g.get("target") is not None:
                ok = goals.met(g.get("op", ">="), g["target"], r.get("median"))
                goal = f"{g.get('op', '>=')} {g['target']} {'✓' if ok else '✗'}"
            elif isinstance(g, (int, float)):
                goal = f"≤ {g}"
            rng = f"{fmt(r.get('p10'))}–{fmt(r.get('p90'))}" if r.get("p10") is not None else ""
            lines.append(f"| {r['case']} | {fmt_size(r.get('size'))} | {fmt(r.get('median'))}× "
                         f"| {rng} | {goal} |")
        lines.append("")
    skipped = OrderedDict()
    for r in recs:
        if r.get("skipped"):
            skipped.setdefault((r.get("backend"), r["skipped"]), []).append(r["case"])
    if skipped:
        lines.append("<details><summary>not run here (" + str(len(skipped)) + ")</summary>\n")
        for (b, why), cases in skipped.items():
            cs = ", ".join(OrderedDict.fromkeys(cases))
            lines.append(f"- {b}: {why} — {cs if len(cs) < 160 else cs[:157] + '...'}")
        lines.append("\n</details>\n")
    errors = [r for r in recs if r.get("error")]
    for r in errors:
        lines.append(f"- **ERROR** {r['case']} [{r.get('backend')}]: {r['error'][:300]}")
    if errors:
        lines.append("")
    return lines


def _where(r):
    where = f"{r.get('suite')}: {r['case']}" + (f" @ {fmt_size(r.get('size'))}"
                                              if r.get("size") else "")
    if r.get("backend") and r.get("backend") != "ratio" and r["backend"] != goals.variant(r):
        where += f" [{r['backend']}]"
    return where


def _others(others):
    """The other variants' figures of a goal's group, short."""
    parts = []
    for o in others:
        name = goals.variant(o) or o.get("case", "")
        if o.get("error"):
            parts.append(f"{name}: error")
        elif o.get("skipped"):
            parts.append(f"{name}: skipped")
        elif isinstance(o.get("median"), (int, float)):
            parts.append(f"{name} {fmt(o['median'])}")
    return "; ".join(parts)


def goals_table(results):
    lines = ["## Goals", "",
             "Each goal issues 2–8 set, with the best figure measured for it on each machine "
             "and the VulPy variant that measured it (the other variants' figures beside it; "
             "bench/goals.py says where each is found). ✓ met, ✗ missed; a goal no run "
             "measured says *not measured*.", "",
             "| issue | goal | target | machine | best measured | | VulPy variant | "
             "other variants | where |",
             "| ---: | --- | ---: | --- | ---: | :---: | --- | --- | --- |"]
    for label, doc in results.items():
        ran = {str(r.get("suite")) for r in doc["records"]}
        for g, r, others in goals.rows(doc["records"]):
            tgt = f"{'≥' if g['op'] == '>=' else '≤'} {fmt(float(g['target']))} {g['unit']}"
            if r is None:
                lines.append(f"| {g['issue']} | {g['text']} | {tgt} | {label} | not measured "
                             f"| | | | {why_not(g, ran)} |")
                continue
            var, also, where = goals.variant(r), _others(others), _where(r)
            if r.get("error") or r.get("skipped"):
                what = "error" if r.get("error") else "skipped"
                lines.append(f"| {g['issue']} | {g['text']} | {tgt} | {label} | {what} | | "
                             f"{var} | {also} | {where} |")
                continue
            v = r.get("median")
            ok = goals.met(g["op"], float(g["target"]), v)
            lines.append(f"| {g['issue']} | {g['text']} | {tgt} | {label} | {fmt(v)} "
                         f"{r.get('unit', '')} | {'✓' if ok else '✗'} | {var} | {also} | "
                         f"{where} |")
    lines.append("")
    return lines


def why_not(g, ran):
    """Why a goal has no figure on a machine: its suite left no records
    there (not run, or failed before recording), or it ran without a record
    that matches the goal."""
    suites = g.get("suite", "")
    if not any(re.fullmatch(suites, x) for x in ran):
        return f"no `{suites.replace('|', '` or `')}` records on this machine"
    return f"`{suites.replace('|', '` or `')}` ran; no record matches this goal"


# ---------------------------------------------------------------- plots

def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_lines(recs, case_re, title, path, logy=False):
    """Median vs size, one line per backend, for cases matching case_re."""
    plt = _plt()
    series = defaultdict(list)
    unit = ""
    for r in recs:
        if r.get("backend") == "ratio" or r.get("median") is None or \
                not re.search(case_re, r["case"]) or not isinstance(r.get("size"), int):
            continue
        series[r["backend"]].append((r["size"], r["median"]))
        unit = r.get("unit", unit)
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    for b, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=b)
    ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("elements")
    ax.set_ylabel(unit)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_bars(recs, case_re, title, path, logx=False, unit=None, backend=None):
    """Horizontal bars: one per (case, backend) matching case_re (and the
    unit and backend regex, when given)."""
    plt = _plt()
    rows = [r for r in recs if r.get("backend") != "ratio" and r.get("median") is not None
            and re.search(case_re, r["case"]) and (unit is None or r.get("unit") == unit)
            and (backend is None or re.search(backend, str(r.get("backend", ""))))]
    if not rows:
        return False
    labels = [f"{r['case']} [{r['backend']}]" if len({x['case'] for x in rows}) > 1
              else r["backend"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.8 + 0.28 * len(rows)))
    y = range(len(rows))
    ax.barh(list(y), [r["median"] for r in rows],
            xerr=[[max(0, r["median"] - (r.get("p10") or r["median"])) for r in rows],
                  [max(0, (r.get("p90") or r["median"]) - r["median"]) for r in rows]],
            color="#4477aa")
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(rows[0].get("unit", ""))
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# suite -> [(file stem, kind, case regex, title)]
PLOTS = {
    "compare": [("resident-sinexp", "lines", r"^resident sin\+exp$", "resident sin(x)+exp(x), GB/s"),
                ("resident-copy", "lines", r"^resident copy$", "resident copy, GB/s"),
                ("resident-jit", "lines", r"^resident jit", "seed's jit expression, GB/s"),
                ("convenience", "bars", r"^convenience sin", "convenience 1M sin+exp (ms, lower is better)"),
                ("dispatch", "bars", r"^tiny kernel sync", "tiny kernel sync round trip (us)"),
                ("compile", "bars", r"^compile|^pipeline creation", "compile to a ready kernel (ms)"),
                ("transfers", "bars", r"^(upload|download)", "transfers (GB/s)")],
    "vkref": [("vkref-stream", "lines", r"^(copy|sin\+exp) (float|vec4)$", "raw Vulkan streaming, GB/s")],
    "runtime": [("runtime-dispatch", "bars", r"^tiny dispatch",
                 "runtime vs raw Vulkan: tiny dispatch round trip (us)", {"unit": "us"}),
                ("runtime-throughput", "bars", r"^1000 dispatches",
                 "runtime vs raw Vulkan: 1000 dispatches (dispatch/s)", {"unit": "dispatch/s"})],
    "cuda": [("cuda-time", "bars", r"^printed CUDA", "printed CUDA vs Vulkan, one launch (us)",
              {"unit": "us"})],
    "compile": [("compile-total", "bars", r".", "VIR -> validated SPIR-V per kernel (ms)",
                 {"backend": r"^total(-O)?$"})],
}


def plots_for(suite, label, recs, img_dir):
    out = []
    for stem, kind, case_re, title, *opts in PLOTS.get(suite, []):
        path = img_dir / f"perf-{label}-{stem}.png"
        fn = plot_lines if kind == "lines" else plot_bars
        try:
            if fn(recs, case_re, f"{title} — {label}", path, **(opts[0] if opts else {})):
                out.append(path)
        except Exception as e:  # noqa: BLE001 - a plot never breaks the page
            print(f"report: plot {path.name} failed: {e}", file=sys.stderr)
    return out


# ---------------------------------------------------------------- the page

# A note's text after this line is history: it goes to
# docs/history/performance.md, not to docs/performance.md.
HISTORY_MARK = "<!-- history -->"

def render(results_dir, out_md, plots=True):
    results = load(results_dir)
    by_suite = defaultdict(lambda: OrderedDict())
    for label, doc in results.items():
        for r in doc["records"]:
            by_suite[r.get("suite", "?")].setdefault(label, []).append(r)
    img_dir = out_md.parent / "img"
    if plots:
        img_dir.mkdir(parents=True, exist_ok=True)
        for old in img_dir.glob("perf-*.png"):
            old.unlink()
    out = ["# Performance", "",
           "Generated by `bench/report.py` from `bench/results/*.json` (written by `make bench`",
           "here and by `bench/device/suites.sh` on the H200). Do not edit by hand: edit `bench/notes/`.",
           "On the shared 2-core development machine only ratios measured in the same run count;",
           "every ratio below is the median of per-pair ratios of interleaved runs.", "",
           "| machine | device | date | host | versions |", "| --- | --- | --- | --- | --- |"]
    for label, doc in results.items():
        v = doc.get("versions", {})
        vs = ", ".join(f"{k} {v[k]}" for k in ("vulpy", "numpy", "cupy", "taichi", "python")
                       if k in v)
        q = " (quick)" if doc.get("quick") else ""
        out.append(f"| `{label}`{q} | {device_of(doc)} | {doc.get('date', '')} | "
                   f"{doc.get('host', '')} | {vs} |")
    out.append("")
    out += goals_table(results)
    suites = sorted(set(by_suite) | {p.stem for p in (HERE / "notes").glob("*.md")
                                     if p.stem not in ("device",)})
    history = ["# Performance history", "",
               "What the notes in `bench/notes/` keep below their `<!-- history -->` line:",
               "how figures were reached, before/after runs of earlier work, measurements",
               "that later work replaced. Rendered by `bench/report.py` with",
               "docs/performance.md, which shows the current figures.", ""]
    for suite in suites:
        notes = HERE / "notes" / f"{suite}.md"
        text = notes.read_text() if notes.exists() else f"## {suite}"
        now, _, past = text.partition(HISTORY_MARK)
        out.append(now.rstrip())
        out.append("")
        if past.strip():
            history += [f"## {suite}", "", past.strip(), ""]
        for label, recs in by_suite[suite].items():
            dev = next((r.get("device") for r in recs if r.get("device")), "")
            out.append(f"### {suite} on `{label}`" + (f" — {dev}" if dev else ""))
            out.append("")
            if plots:
                for p in plots_for(suite, label, recs, img_dir):
                    out.append(f"![{p.stem}](img/{p.name})")
                out.append("")
            out += suite_tables(recs)
        if not by_suite[suite]:
            out.append("_No results yet._\n")
    dev_notes = HERE / "notes" / "device.md"
    if dev_notes.exists():
        out.append(dev_notes.read_text().rstrip())
        out.append("")
    out_md.write_text("\n".join(out) + "\n")
    print(f"wrote {out_md}")
    hist_md = out_md.parent / "history" / "performance.md"
    hist_md.parent.mkdir(parents=True, exist_ok=True)
    hist_md.write_text("\n".join(history) + "\n")
    print(f"wrote {hist_md}")


def summary(results_dir, label):
    """The goals of one machine as plain text (bench/device/suites.sh prints it last)."""
    results = load(results_dir)
    doc = results.get(label)
    if not doc:
        print(f"report: no {label}.json in {results_dir}")
        return 1
    recs = doc["records"]
    n_err = sum(1 for r in recs if r.get("error"))
    n_skip = sum(1 for r in recs if r.get("skipped"))
    print(f"== {label}: {len(recs)} records, {n_err} errors, {n_skip} skipped; "
          f"device {device_of(doc)}")
    for g, r, others in goals.rows(recs):
        tgt = f"{'>=' if g['op'] == '>=' else '<='} {fmt(float(g['target']))}"
        if r is None:
            val = f"not measured ({why_not(g, {str(x.get('suite')) for x in recs})})"
        elif r.get("error") or r.get("skipped"):
            val = "error" if r.get("error") else "skipped"
        else:
            ok = goals.met(g["op"], float(g["target"]), r.get("median"))
            val = f"{fmt(r.get('median'))} {r.get('unit', '')} {'MET' if ok else 'missed'}"
        where = ""
        if r is not None:
            var = goals.variant(r)
            where = f"  [{var + ': ' if var and var not in r['case'] else ''}{r['case'][:60]}]"
            also = _others(others)
            if also:
                where += f" (also {also[:80]})"
        print(f"  #{g['issue']} {g['text'][:58]:<58} {tgt:>9}: {val}{where}")
    for r in recs:
        if r.get("error"):
            print(f"  ERROR {r.get('suite')}: {r['case'][:50]} [{r.get('backend')}]: "
                  f"{r['error'][:160]}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=str(HERE / "results"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--summary", metavar="LABEL", help="print one machine's goals and stop")
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args.results, args.summary)
    plots = not args.no_plots
    if plots:
        try:
            _plt()
        except ImportError:
            # The venv has no matplotlib: Debian's python3-matplotlib draws them.
            py = "/usr/bin/python3"
            if Path(py).exists() and Path(py).resolve() != Path(sys.executable).resolve() and \
                    subprocess.run([py, "-c", "import matplotlib"],
                                   capture_output=True).returncode == 0:
                argv = sys.argv[1:] if argv is None else list(argv)
                return subprocess.run([py, str(Path(__file__).resolve())] + argv).returncode
            print("report: no matplotlib here; tables only (install python3-matplotlib for "
                  "the plots)", file=sys.stderr)
            plots = False
    render(args.results, Path(args.out), plots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
