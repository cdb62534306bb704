"""The runtime's figures (bench/runtime_bench.c): tiny-dispatch round trip,
1000 dispatches in one submission, 256 MiB upload/download, each beside a
raw-Vulkan loop in the same process run, plus the overhead of each over raw
Vulkan (the goal: <= 10%). Runs on whatever device the runtime picks
(VULPY_DEVICE selects): lavapipe here, the H200 on the device machine.
"""
import json
import os
import subprocess


def run(ctx):
    exe = ctx.build / "bin" / "runtime_bench"
    cmd = [str(exe)] + (["--quick"] if ctx.quick else [])
    env = dict(os.environ)
    env.pop("VULPY_VALIDATION", None)  # figures without the validation layer
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    by_case = {}
    for r in records:
        by_case.setdefault(r["case"], {})[r["backend"]] = r
    overheads = []
    for case, rows in by_case.items():
        ours, raw = rows.get("vulpy"), rows.get("raw-vulkan")
        if not ours or not raw:
            continue
        if ours["unit"] == "us":  # time: lower is better
            pct = 100.0 * (ours["median"] / raw["median"] - 1.0)
        else:  # rate: higher is better
            pct = 100.0 * (raw["median"] / ours["median"] - 1.0)
        overheads.append({"case": f"overhead: {case}", "backend": "vulpy vs raw",
                          "median": round(pct, 2), "unit": "%", "size": ours.get("size"),
                          "device": ours.get("device")})
    return records + overheads
