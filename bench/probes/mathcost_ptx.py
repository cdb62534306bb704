#!/usr/bin/env python3
"""NVIDIA instruction counts of the precise sin and exp (a stand-in for the
H200's Vulkan compiler, which shares its back end with nvcc): the helpers as
the CPU accuracy test prints them (build/test/unit/Target/mathlib_host.inc,
the same templates as the GLSL), compiled for sm_90 with nvcc -ptx, with
VP_FMA_FUSED true or false and the rare branches (Payne-Hanek, exp past
|x| = 86) cut off, so the count is the common path. CUDA's sinf/expf in the
same file for comparison. Prints ALU instructions per kernel (the shared
load/store/index instructions subtracted via an empty kernel).

    python3 bench/probes/mathcost_ptx.py [build]     (needs nvcc on PATH)

bench/notes/mathcost.md quotes its output.
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def prelude():
    """math_ulp.cpp's GLSL-names prelude, made __device__."""
    src = (ROOT / "test/unit/Target/math_ulp.cpp").read_text()
    pre = src[src.index("typedef unsigned int uint;"):src.index('#include "mathlib_host.inc"')]
    pre = re.sub(r"#ifdef VP_UNFUSED_FMA.*?#else\n(.*?)#endif\n", r"\1", pre, flags=re.S)
    pre = re.sub(r"^.*VP_FMA_FUSED.*$", "", pre, flags=re.M)
    pre = pre.replace("static inline", "__host__ __device__ static inline")
    pre = re.sub(r"^(\s+)(tv2\(|tv3\(|tv2 operator|tv2 &operator|uvec4\()",
                 r"\1__host__ __device__ \2", pre, flags=re.M)
    pre = pre.replace("using std::max;", "")
    pre = re.sub(r"template <class T> static inline T clamp.*\n",
                 "__device__ static inline float clamp(float x, float lo, float hi) "
                 "{ return fminf(fmaxf(x, lo), hi); }\n"
                 "__device__ static inline double clamp(double x, double lo, double hi) "
                 "{ return fmin(fmax(x, lo), hi); }\n", pre)
    pre = re.sub(r"template <class T> __host__ __device__ static inline T clamp.*\n",
                 "__device__ static inline float clamp(float x, float lo, float hi) "
                 "{ return fminf(fmaxf(x, lo), hi); }\n"
                 "__device__ static inline double clamp(double x, double lo, double hi) "
                 "{ return fmin(fmax(x, lo), hi); }\n", pre)
    pre = pre.replace("__builtin_clz(v)", "__clz(v)")
    return "#include <cstdint>\n#include <cstring>\n#include <cmath>\n" + pre


def helpers(build, fused):
    src = (Path(build) / "test/unit/Target/mathlib_host.inc").read_text()
    src = re.sub(r"^((?:float|double|vec2|dvec2|vec3|dvec3|bool|int|uint|uvec2) vp_\w+\()",
                 r"__device__ \1", src, flags=re.M)
    src = src.replace("static const uint vp_two_over_pi", "__device__ static const uint vp_two_over_pi")
    # the common path: rare branches return at once
    src = re.sub(r"(__device__ vec3 vp_rem_pio2f_big\(float x\) \{\n).*?\n\}\n",
                 r"\1  return vec3(0.0f, x, 0.0f);\n}\n", src, flags=re.S)
    src = re.sub(r"(__device__ float vp_exp\(float x\) \{\n.*?\n  \}\n).*?\n\}\n",
                 r"\1  return 0.0f;\n}\n", src, flags=re.S)
    return f"__device__ static const bool VP_FMA_FUSED = {'true' if fused else 'false'};\n" + src


KERNELS = {
    "empty": "v",
    "vp sin": "vp_sin(v)", "vp exp": "vp_exp(v)", "vp sin+exp": "vp_sin(v) + vp_exp(v)",
    "cuda sinf": "sinf(v)", "cuda expf": "expf(v)", "cuda sinf+expf": "sinf(v) + expf(v)",
}


def kernels():
    out = []
    for i, (name, expr) in enumerate(KERNELS.items()):
        out.append(f'extern "C" __global__ void k{i}(const float *x, float *y, unsigned n) {{\n'
                   f"  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   f"  if (i >= n) return;\n  float v = x[i];\n  y[i] = {expr};\n}}\n")
    return "".join(out)


def count(ptx):
    """ALU instructions per entry (no mov, no parameter loads, no branches)."""
    n = {}
    for m in re.finditer(r"\.entry k(\d+)\((.*?)^\}", ptx, re.S | re.M):
        lines = [ln for ln in m.group(2).splitlines()
                 if re.match(r"\s+[a-z@]", ln) and not re.match(r"\s+(mov|ld\.param|@|bra|ret)", ln)]
        n[int(m.group(1))] = len(lines)
    return n


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build")
    names = list(KERNELS)
    with tempfile.TemporaryDirectory() as tmp:
        for fused in (False, True):
            cu = Path(tmp) / "k.cu"
            cu.write_text(prelude() + helpers(build, fused) + kernels())
            ptx = Path(tmp) / "k.ptx"
            subprocess.run(["nvcc", "-arch=sm_90", "-ptx", "-O3", "-fmad=false", "-o", str(ptx),
                            str(cu)], check=True, capture_output=True)
            n = count(ptx.read_text())
            base = n[0]
            print(f"VP_FMA_FUSED={str(fused).lower()}: " + ", ".join(
                f"{names[i]} {n[i] - base}" for i in range(1, len(names))))


if __name__ == "__main__":
    main()
