"""The goals issues 2-8 set, and where each one's measured figure is found
in the results (bench/report.py prints the table; bench/device/suites.sh prints it
for the H200 run).

A goal matches records by suite, a regular expression on the case, and
optionally the backend and the size. Its matches form one group, or one
group per key when the goal has `per` (a goal over several operations, such
as the runtime overhead of each of five operations, gets one row for each).
Each group gives one row: the best figure (largest for ">=", smallest for
"<="), which VulPy variant measured it (`variant`: vulpy kernel vec4, vulpy
jit, ...) and the other variants' figures beside it. `largest` keeps, per
suite, only the records of the largest size measured. A goal nothing
measured gives a row saying so (report.py prints "not measured"). A record
that carries its own "goal" dict ({"op", "target", "issue"}) and matches no
entry here gets a row of its own, so a new suite can declare goals without
editing this file.
"""
import re

GOALS = [
    dict(issue=2, text="VIR parse + verify + print of a ≥ 1M-op module", op=">=", target=2e6,
         unit="ops/s", suite="ir", case=r"^parse\+verify\+print$", size=lambda s: s >= 1_000_000),
    dict(issue=3, text="frontend, JSON → verified VIR, 300-line kernel", op="<=", target=1000,
         unit="us", suite="frontend", case=r"^JSON -> verified VIR"),
    dict(issue=4, text="verified VIR → validated SPIR-V, per small kernel", op="<=", target=5,
         unit="ms", suite="compile", case=r"^(saxpy|my_kernel|push_particles)$",
         backend=r"^total$", per=lambda r: r["case"]),
    dict(issue=5, text="runtime overhead over raw Vulkan (same process)", op="<=", target=10.0,
         unit="%", suite="runtime", case=r"^overhead: ", per=lambda r: r["case"]),
    dict(issue=6, text="Python per-call overhead vs the C runtime's round trip", op="<=",
         target=1.5, unit="x", suite="python", case=r"overhead ratio", per=lambda r: r["case"]),
    dict(issue=7, text="vp.jit seed expression vs CuPy unfused (2^26 in issue 7)", op=">=",
         target=1.5, unit="x", suite=r"fusion|compare", largest=True,
         case=r"(?i)^(?!.*ufunc)(?=.*(seed|where\(a > b)).*(/ cupy unfused|vs cupy unfused)$"),
    dict(issue=7, text="vp.jit seed expression vs cupy.fuse", op=">=", target=1.0, unit="x",
         suite=r"fusion|compare", largest=True,
         case=r"(?i)^(?!.*ufunc)(?=.*(seed|where\(a > b)).*(/ cupy.fuse|vs cupy.fuse)$"),
    dict(issue=7, text="sum of 2^28 float32 vs cupy.sum", op=">=", target=1.0, unit="x",
         suite=r"fusion|compare", case=r"(?i)sum.*(/ cupy|vs cupy)", largest=True),
    dict(issue=7, text="sum of 2^28 float32: GB/s vs the copy kernel's", op=">=", target=0.85,
         unit="x", suite="fusion", case=r"(?i)sum.*copy", largest=True),
    dict(issue=4, text="precise math: worst float32 max ULP incl. subnormals (devices keeping them)",
         op="<=", target=4.0, unit="ULP", suite="mathcost",
         case=r"^max ULP, subnormals kept: worst float32 function$"),
    dict(issue=4, text="precise math: worst float32 max ULP, subnormal inputs/results left out",
         op="<=", target=4.0, unit="ULP", suite="mathcost",
         case=r"^max ULP, no subnormals: worst float32 function$"),
    dict(issue=8, text="resident sin+exp at 2^28 vs the raw-Vulkan vec4 kernel", op=">=",
         target=0.95, unit="x", suite="compare",
         case=r"^resident sin\+exp: vulpy (kernel|jit).* / vulkan-raw vec4$",
         size=lambda s: s == 1 << 28),
    dict(issue=8, text="resident sin+exp at 2^28 vs CuPy ElementwiseKernel", op=">=", target=2.4,
         unit="x", suite="compare",
         case=r"^resident sin\+exp: vulpy (kernel|jit).* / cupy ElementwiseKernel$",
         size=lambda s: s == 1 << 28),
    dict(issue=8, text="resident sin+exp at 2^28 vs CuPy unfused", op=">=", target=7.0,
         unit="x", suite="compare", case=r"^resident sin\+exp: vulpy (kernel|jit).* / cupy unfused$",
         size=lambda s: s == 1 << 28),
    dict(issue=14, text="vp.jit / ufunc out= call, 2^10 float32, vs CuPy ElementwiseKernel + sync",
         op="<=", target=1.0, unit="x", suite="compare",
         case=r"^small out= call: vulpy (jit|ufunc) time / cupy ElementwiseKernel$",
         per=lambda r: r["case"]),
    dict(issue=14, text="eager ufunc call + synchronize, 2^10 float32, vs CuPy (out= / new result)",
         op="<=", target=1.0, unit="x", suite="compare",
         case=r"^small out= call: vulpy (ufunc|new result) \+ sync time / cupy",
         per=lambda r: r["case"]),
    dict(issue=8, text="tiny sync dispatch from Python vs CuPy launch + synchronize (time)",
         op="<=", target=1.0, unit="x", suite="compare", case=r"^tiny sync: vulpy time / cupy"),
    dict(issue=8, text="convenience 1M sin+exp vs CuPy end to end", op=">=", target=2.0, unit="x",
         suite="compare", case=r"^convenience: vulpy speed-up over cupy$"),
    dict(issue=8, text="convenience 1M sin+exp vs NumPy (on the H200 host)", op=">=", target=5.0,
         unit="x", suite="compare", case=r"^convenience: vulpy speed-up over numpy$"),
    dict(issue=8, text="cold compile, Python kernel → ready pipeline (new process)", op="<=",
         target=20.0, unit="ms", suite="compare", case=r"^compile cold$", backend=r"^vulpy"),
    dict(issue=8, text="warm compile (disk cache, new process)", op="<=", target=1.0, unit="ms",
         suite="compare", case=r"^compile warm$", backend=r"^vulpy"),
    dict(issue=8, text="printed CUDA matches the Vulkan results (fraction of kernels)", op=">=",
         target=1.0, unit="of the kernels", suite="cuda", case=r"^printed CUDA",
         backend=r"^cuda vs vulkan$", aggregate=True),
    # issue 19: matmul (bench_matmul.py; the best tile configuration of the run counts)
    dict(issue=19, text="matmul 4096² float32 vs cupy.matmul (cuBLAS SGEMM, no TF32)", op=">=",
         target=0.7, unit="x", suite="matmul", case=r"^matmul float32 4096\^2: .* / cupy$"),
    dict(issue=19, text="matmul 4096² float16 (cooperative matrices) vs cupy float16", op=">=",
         target=0.5, unit="x", suite="matmul", case=r"^matmul float16 .*4096\^2: .* / cupy"),
]


def _match(g, r):
    if not re.fullmatch(g["suite"], str(r.get("suite", ""))):
        return False
    if not re.search(g["case"], str(r.get("case", ""))):
        return False
    if g.get("backend") and not re.search(g["backend"], str(r.get("backend", ""))):
        return False
    if g.get("size"):
        try:
            if not g["size"](int(r.get("size") or 0)):
                return False
        except (TypeError, ValueError):
            return False
    return True


def _aggregate(g, hits):
    """One record for a pass/fail goal over many records (each median 1.0
    when it passed): the fraction that passed, of those that ran."""
    ran = [r for r in hits if not r.get("skipped")]
    ok = [r for r in ran if not r.get("error") and r.get("median") == 1.0]
    r = dict(hits[0], case=f"{len(ok)} of {len(ran)} ran and matched ({len(hits)} kernels)",
             unit=g["unit"], backend="")
    r.pop("error", None)
    r.pop("skipped", None)
    if not ran:
        r["skipped"] = hits[0].get("skipped", "not run")
        r["median"] = None
    else:
        r["median"] = len(ok) / len(ran)
    return r


def met(op, target, value):
    if value is None:
        return None
    return value >= target if op == ">=" else value <= target


def variant(r):
    """Which VulPy variant a record measures: the ratio's numerator
    (`vulpy kernel vec4`, `vulpy jit`, ...), else the backend; "" when the
    record names none."""
    if r.get("numerator"):
        return str(r["numerator"])
    case = str(r.get("case", ""))
    if r.get("backend") == "ratio" and ":" in case and " / " in case:
        return case.split(":", 1)[1].split(" / ")[0].strip()
    if r.get("backend") not in (None, "", "ratio"):
        return str(r["backend"])
    return ""


def _usable(r):
    return not r.get("error") and not r.get("skipped") and \
        isinstance(r.get("median"), (int, float))


def best(g, hits):
    """(the best record of a group, the others): the largest median for a
    ">=" goal, the smallest for "<="; records with an error or a skip only
    when nothing else measured the goal."""
    ok = [r for r in hits if _usable(r)]
    if ok:
        pick = (max if g["op"] == ">=" else min)(ok, key=lambda r: r["median"])
    else:
        pick = next((r for r in hits if r.get("error")), hits[0])
    return pick, [r for r in hits if r is not pick]


def _largest(hits):
    """Per suite, the records of the largest size alone."""
    top = {}
    for r in hits:
        try:
            top[r.get("suite")] = max(top.get(r.get("suite"), 0), int(r.get("size") or 0))
        except (TypeError, ValueError):
            pass
    return [r for r in hits if int(r.get("size") or 0) == top.get(r.get("suite"), 0)]


def rows(records):
    """[(goal, record or None, others)] for one machine's records: per goal
    (and per `per` key) the best record that measures it with the other
    records of its group, or (goal, None, []) when none does."""
    out, used = [], set()
    for g in GOALS:
        hits = [r for r in records if _match(g, r)]
        for r in hits:
            used.add(id(r))
        if hits and g.get("aggregate"):
            hits = [_aggregate(g, hits)]
        if hits and g.get("largest"):
            hits = _largest(hits)
        if not hits:
            out.append((g, None, []))
            continue
        groups = {}
        for r in hits:
            groups.setdefault(g["per"](r) if g.get("per") else None, []).append(r)
        for grp in groups.values():
            b, others = best(g, grp)
            out.append((g, b, others))
    for r in records:
        goal = r.get("goal")
        if id(r) in used or not isinstance(goal, dict) or goal.get("target") is None:
            continue
        g = dict(issue=goal.get("issue", "?"), text=r["case"], op=goal.get("op", ">="),
                 target=goal["target"], unit=r.get("unit", ""))
        out.append((g, r, []))
    return out
