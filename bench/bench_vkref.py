"""The raw-Vulkan reference program (bench/vkref.c) on its own: streaming
copy and sin+exp with float and vec4 accesses at 2^20/2^24/2^28 floats,
pipeline creation, the tiny dispatch round trip (fence wait and spin),
1000 dispatches in one submission, back-to-back submissions, and transfers
per memory kind. Its figures sit next to the anchors measured with a probe
(shared/anchors/), and bench_compare.py uses the same code, as libvkref.so,
to set VulPy's runs against raw Vulkan in one process.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import vkref_paths  # noqa: E402


def run(ctx):
    exe, _ = vkref_paths(ctx)
    if exe is None:
        return [dict(case="vkref", size=0, backend="vulkan-raw", median=None, p10=None, p90=None,
                     unit="", skipped="vkref not built (needs glslangValidator and volk)")]
    cmd = [str(exe)] + (["--quick"] if ctx.quick else [])
    if os.environ.get("VKREF_MAX_LOG2"):
        cmd += ["--max-log2", os.environ["VKREF_MAX_LOG2"]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    sys.stderr.write(p.stderr)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return [dict(case="vkref", size=0, backend="vulkan-raw", median=None, p10=None, p90=None,
                     unit="", error=f"vkref exited {p.returncode}: {p.stderr[-400:]}")]
    recs = doc["records"]
    if p.returncode != 0 or doc.get("status") != "ok":
        recs.append(dict(case="vkref", size=0, backend="vulkan-raw", median=None, p10=None,
                         p90=None, unit="", error=f"vkref failed: {p.stderr.strip()[-400:]}"))
    return recs
