"""Compile time: verified VIR to validated SPIR-V, in process.

Kernels: saxpy (examples/saxpy.vir), the seed's two kernels
(test/Target/E2E), the seed's `vp.sin(x) + vp.exp(x)` as a kernel (its
precise math helpers make a bigger shader), and the ~300-line particle
kernel of the frontend figure (bench/inputs/frontend_300.vul.py). Each is
turned into VIR once (vulpy-translate --to=vir); build/bin/compile_bench
then times, per kernel, N rounds of printing GLSL, glslang, and
spvValidate, and N rounds with -O (spvOptimizer performance passes, then
validation again). The first compile of the process (glslang's one-time
set-up) is reported as `cold`. Records: ms per phase, median/p10/p90.
"""
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

KERNELS = [
    ("saxpy", "examples/saxpy.vir"),
    ("my_kernel", "test/Target/E2E/my_kernel.vul.py"),
    ("push_particles", "test/Target/E2E/push_particles.vul.py"),
    ("sin_exp", "bench/inputs/sin_exp.vul.py"),
    ("particles_300", "bench/inputs/frontend_300.vul.py"),
]


def to_vir(ctx, src, out):
    """The kernel as VIR: vulpy-translate over the AST dump where the build
    has it, else `python -m vulpy emit-vir` (the same frontend, inside the
    installed package: the H200 run carries the bench programs, not the
    compiler's tools)."""
    translate = ctx.build / "bin" / "vulpy-translate"
    if src.suffix == ".vir":
        out.write_text(src.read_text())
        return
    if not translate.exists():
        vir = subprocess.run([sys.executable, "-m", "vulpy", "emit-vir", str(src)], check=True,
                             capture_output=True, text=True, cwd=ctx.root)
        out.write_text(vir.stdout)
        return
    ast = subprocess.run([sys.executable, "-m", "vulpy", "dump-ast", str(src)], check=True,
                         capture_output=True, text=True, cwd=ctx.root)
    subprocess.run([str(translate), "--from=ast", "--to=vir", "-", "-o", str(out)], input=ast.stdout,
                   check=True, capture_output=True, text=True)


def run(ctx):
    reps = 5 if ctx.quick else 30
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        for name, rel in KERNELS:
            vir = Path(tmp) / f"{name}.vir"
            to_vir(ctx, ctx.root / rel, vir)
            args.append(f"{name}={vir}")
        out = subprocess.run([str(ctx.build / "bin" / "compile_bench"), "--reps", str(reps), *args],
                             check=True, capture_output=True, text=True).stdout
    lines = {}
    for line in out.splitlines():
        r = json.loads(line)
        if r["phase"] == "glsl_lines":
            lines[r["case"]] = int(r["ms"][0])
    for line in out.splitlines():
        r = json.loads(line)
        if r["phase"] == "glsl_lines":
            continue
        v = sorted(r["ms"])
        q = lambda f: v[min(len(v) - 1, int(f * (len(v) - 1) + 0.5))]
        records.append({"case": r["case"], "size": f"{lines.get(r['case'], 0)} GLSL lines",
                        "backend": r["phase"], "median": statistics.median(v), "p10": q(0.1),
                        "p90": q(0.9), "unit": "ms"})
    return records
