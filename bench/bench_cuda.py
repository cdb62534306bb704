"""The printed-CUDA check as a suite: bench/cuda_check.py compiles the CUDA
VulPy prints for bench/kernels/*.vul.py with nvcc, runs it beside the
Vulkan run on the same inputs, and compares (bit-exact for integers, a
documented tolerance for floats). A mismatch is an error record (the run
fails); without nvcc or a CUDA GPU the kernels are recorded as skipped.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cuda_check  # noqa: E402


def run(ctx):
    res = cuda_check.check_all(quick=ctx.quick, log=lambda s: print("  " + s, flush=True))
    device = ""
    try:
        import benchlib
        device = benchlib.vulpy().default_context().name
    except Exception:  # noqa: BLE001
        pass
    return cuda_check.records(res, device)
