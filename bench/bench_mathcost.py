"""What the precise math helpers cost: instruction counts and the time of
a sin(x) + exp(x) kernel with the precise helpers against the same kernel
with GLSL's built-ins (--fast-math), in the same run.

1. SPIR-V instructions (after the SPIRV-Tools performance passes, function
   bodies, the kernel's own load/store included) of a float32 kernel
   y[i] = f(x[i]) for f in sin, cos, exp, log, and of the vec4 sin+exp
   kernel of bench/compare_kernels.py: `static` counts everything printed,
   `common path` replaces the helpers that only run for rare inputs
   (Payne-Hanek reduction past |x| = 3216) with a stub, so it is what an
   ordinary argument executes (plus at most a compare and a branch).
2. Time of the vec4 sin+exp kernel (compare_kernels.vk_sinexp4, 256 a
   workgroup) on inputs in [0, 1) with precise math and with --fast-math,
   interleaved, GPU timestamps: the ratio precise / fast is what the
   precise helpers cost on this device. 2^22 elements on a CPU device
   (lavapipe), 2^28 on a GPU.
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchlib import Recorder, Skip, check_close, interleave, vulpy  # noqa: E402

KERNEL = """import vulpy as vp


@vp.kernel
def k(x: vp.Buffer[vp.{elem}], y: vp.Buffer[vp.{elem}]):
    i = vp.global_id()
    y[i] = {expr}
"""
CASES = [("sin", "float32", "vp.sin(x[i])"), ("cos", "float32", "vp.cos(x[i])"),
         ("exp", "float32", "vp.exp(x[i])"), ("log", "float32", "vp.log(x[i])"),
         ("sin+exp vec4", "vec4", "vp.sin(x[i]) + vp.exp(x[i])")]
RARE = ["vp_rem_pio2f_big"]  # helpers only rare arguments reach


def count_fn_instructions(asm):
    """Instructions between OpFunction and OpFunctionEnd (labels included)."""
    n, inside = 0, False
    for line in asm.splitlines():
        if " OpFunction " in line or line.strip().startswith("%main = OpFunction"):
            inside = True
        if inside and line.strip():
            n += 1
        if "OpFunctionEnd" in line:
            inside = False
    return n


def stub_rare(glsl):
    """The GLSL with each rare helper's body replaced by a constant return."""
    for name in RARE:
        m = re.search(r"^(\w+) " + name + r"\([^)]*\) \{\n", glsl, re.M)
        if not m:
            continue
        end = glsl.index("\n}\n", m.end()) + 3
        glsl = glsl[:m.end()] + f"  return {m.group(1)}(0.0);\n}}\n" + glsl[end:]
    return glsl


def static_counts(ctx, rec):
    vp = vulpy()
    from vulpy import _native
    translate = ctx.build / "bin" / "vulpy-translate"
    opt = "spirv-opt"
    with tempfile.TemporaryDirectory() as tmp:
        for case, elem, expr in CASES:
            src = Path(tmp) / "k.vul.py"
            src.write_text(KERNEL.format(elem=elem, expr=expr))
            ast = subprocess.run([sys.executable, "-m", "vulpy", "dump-ast", str(src)], check=True,
                                 capture_output=True, text=True, cwd=ctx.root).stdout
            for mode, flags in (("precise", []), ("fast", ["--fast-math"])):
                asm = subprocess.run([str(translate), "--from=ast", "--to=spirv-asm", "-O", *flags, "-"],
                                     input=ast, check=True, capture_output=True, text=True).stdout
                rec.value(f"SPIR-V instructions: {case}", "static", mode,
                          count_fn_instructions(asm), "instructions")
                if mode != "precise":
                    continue
                glsl = subprocess.run([str(translate), "--from=ast", "--to=glsl", "-"], input=ast,
                                      check=True, capture_output=True, text=True).stdout
                spv = Path(tmp) / "k.spv"
                spv.write_bytes(_native.ext().glsl_to_spirv(stub_rare(glsl), "k"))
                try:
                    subprocess.run([opt, "-O", str(spv), "-o", str(spv)], check=True,
                                   capture_output=True)
                    dis = subprocess.run(["spirv-dis", str(spv)], check=True, capture_output=True,
                                         text=True).stdout
                except (OSError, subprocess.CalledProcessError) as e:
                    rec.skip(f"SPIR-V instructions: {case}", "common path", mode,
                             f"spirv-opt / spirv-dis: {e}")
                    continue
                rec.value(f"SPIR-V instructions: {case}", "common path", mode,
                          count_fn_instructions(dis), "instructions")
    del vp


def timing(ctx, rec):
    vp = vulpy()
    sys.path.insert(0, str(HERE))
    import compare_kernels
    c = vp.default_context()
    cpu = c.kind == "cpu"
    n = 1 << (22 if cpu or ctx.quick else 28)
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    want = np.sin(x) + np.exp(x)
    xv = vp.asarray(x, memory="device")
    runners = {}
    for mode, fast in (("precise", False), ("fast", True)):
        k = vp.kernel(local_size_x=256, fast_math=fast)(compare_kernels.vk_sinexp4)
        yv = vp.empty(n, np.float32, memory="device")
        k(xv, yv, dispatch=n // 4)
        check_close(yv.numpy(), want, 1e-5 if not fast else 1e-3, 1e-6, f"sin+exp ({mode})")
        nk = k.program().native(c)
        push = k.program().packer.pack({})
        bufs = [xv.buffer, yv.buffer]
        runners[mode] = (lambda nk=nk, push=push, bufs=bufs:
                         nk.dispatch_timed(bufs, push, n // 4, 1, 1, False))
    reps = 5 if cpu or ctx.quick else 20
    out = interleave(runners, reps)
    for mode, s in out.items():
        if isinstance(s, Exception):
            rec.error("sin+exp vec4 kernel", n, mode, s)
            raise Skip(str(s))
        rec.add("sin+exp vec4 kernel", n, mode, s, "GB/s", scale=8.0 * n, inverse=True)
    rec.ratio("sin+exp vec4 kernel: precise / fast time", n, out["precise"], out["fast"],
              higher_is_better=False)


def run(ctx):
    rec = Recorder("mathcost", getattr(ctx, "device_label", "local"))
    try:
        static_counts(ctx, rec)
    except (OSError, subprocess.CalledProcessError) as e:
        rec.error("SPIR-V instructions", "static", "precise", e)
    try:
        timing(ctx, rec)
    except Skip as e:
        rec.skip("sin+exp vec4 kernel", 0, "vulpy", e)
    return rec.records
