#!/usr/bin/env python3
"""Instruction counts per sample of the float32 normal kernels, by math
kind and launch shape, without a GPU: each path's kernel as VulPy's CUDA
back end prints it (`kernel.cuda`), compiled for sm_90 by nvcc (a stand-in
for the H200's Vulkan compiler, which shares its back end with ptxas), then
  - PTX: the instructions of the entry (no parameter loads, movs, labels,
    branches or returns), per sample;
  - SASS (where nvdisasm is found: $NVDISASM, PATH or --nvdisasm): the
    kernel's instructions without NOPs and without the out-of-line slow
    paths nvcc adds (none with -prec-sqrt=false), per sample.
`-prec-sqrt=false` makes nvcc's sqrt the hardware's approximate one, as
GLSL's sqrt is on NVIDIA's Vulkan driver (the CUDA default, an IEEE sqrt
with a slow-path call, would count instructions the H200 never runs).
Samples per invocation: 4 N / 4 for "vN/W" (straight-line code). The
retired paths (v4, fast, hlog, ...) are counted in bench/notes/random.md.

    python bench/probes/normal_ptx.py [--paths v8,lean:v32/128] [--nvdisasm PATH] [--ftz]

Read: per path PTX and SASS per sample and the change against the exact
v8 (the documented stream); bench/bench_random.py times the same
paths on the H200 (time follows SASS there: docs/performance.md, random).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402

DEFAULT_PATHS = tuple(vp.random.NORMAL32_PATHS)  # v8 and lean:v32/128 (the others retired)
PTX_SKIP = re.compile(r"\s+(mov|ld\.param|bra|ret|@%p\d+ bra)\b")


def kernel_of(path):
    if vp.random.normal32_exact(path) is None:
        raise SystemExit(f"no float32 normal path {path!r}")
    per, local, math = vp.random._shape(path)
    return vp.random._kernels().normal_f32_split(per, local, math), 4 * per


def ptx_count(ptx):
    body = ptx[ptx.index(".entry"):]
    return sum(1 for ln in body.splitlines()
               if re.match(r"\s+[a-z@]", ln) and not PTX_SKIP.match(ln)
               and not re.match(r"\s+\.(reg|local|shared)", ln))


def sass_count(sass):
    """Instructions of the kernel's own text (up to nvcc's internal
    subroutines), NOPs left out."""
    own = sass.split("$__internal")[0]
    return sum(1 for ln in own.splitlines()
               if re.match(r"\s+/\*[0-9a-f]{4}\*/", ln) and " NOP" not in ln)


def compile_counts(src, nvcc, nvdisasm, ftz):
    with tempfile.TemporaryDirectory() as d:
        cu = Path(d) / "k.cu"
        cu.write_text(src)
        flags = ["-arch=sm_90", "-O3", "-prec-sqrt=false"] + (["-ftz=true"] if ftz else [])
        subprocess.run([nvcc, *flags, "-ptx", "-o", str(Path(d) / "k.ptx"), str(cu)],
                       check=True, capture_output=True)
        ptx = ptx_count((Path(d) / "k.ptx").read_text())
        sass = None
        if nvdisasm:
            subprocess.run([nvcc, *flags, "-cubin", "-o", str(Path(d) / "k.cubin"), str(cu)],
                           check=True, capture_output=True)
            out = subprocess.run([nvdisasm, "-c", str(Path(d) / "k.cubin")], check=True,
                                 capture_output=True, text=True).stdout
            sass = sass_count(out)
        return ptx, sass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paths", default=",".join(DEFAULT_PATHS))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--nvdisasm", default=os.environ.get("NVDISASM") or shutil.which("nvdisasm"))
    ap.add_argument("--ftz", action="store_true", help="compile the fast_math kernels "
                    "with -ftz=true (no subnormal steps around the built-ins: a Vulkan "
                    "fast_math kernel keeps the device's default float controls; the exact "
                    "ones are compiled with subnormals kept, as precise kernels run)")
    args = ap.parse_args()
    if not Path(args.nvcc).exists():
        raise SystemExit("nvcc not found (--nvcc)")
    rows = []
    for path in args.paths.split(","):
        kern, per = kernel_of(path)
        if kern is None:
            print(f"{path}: a loop shape, left out")
            continue
        ptx, sass = compile_counts(kern.cuda, args.nvcc, args.nvdisasm,
                                   args.ftz and not vp.random.normal32_exact(path))
        rows.append((path, ptx / per, None if sass is None else sass / per))
    base = dict((p, (a, b)) for p, a, b in rows).get("v8")
    print(f"nvcc -arch=sm_90 -O3 -prec-sqrt=false{' (-ftz=true: other math)' if args.ftz else ''}; "
          f"instructions per sample"
          f"{'' if args.nvdisasm else ' (no nvdisasm: PTX only)'}")
    print(f"{'path':16s} {'exact':>5s} {'PTX':>7s} {'vs v8':>7s} {'SASS':>7s} {'vs v8':>7s}")
    for path, ptx, sass in rows:
        exact = "yes" if vp.random.normal32_exact(path) else "no"
        rel = lambda v, b: f"{v / b - 1:+7.1%}" if b and v is not None else "-"  # noqa: E731
        print(f"{path:16s} {exact:>5s} {ptx:7.2f} {rel(ptx, base and base[0])} "
              f"{'-' if sass is None else f'{sass:7.2f}'} {rel(sass, base and base[1])}")


if __name__ == "__main__":
    main()
