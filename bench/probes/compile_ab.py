"""Before / after for the compile probe: two source trees' builds, the
probe alternating between them in the same run (cold and warm, with and
without VULPY_PREWARM), medians per case. bench/notes/python.md quotes it.

    .venv/bin/python bench/probes/compile_ab.py BEFORE_TREE AFTER_TREE [ROUNDS]

A tree is a checkout with its extension built (bindings/python/vulpy/
_vulpy.abi3.so); the probe is this tree's bench/compile_probe.py.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = Path(__file__).resolve().parent.parent / "compile_probe.py"


def probe(pkg, cache, prewarm):
    env = dict(os.environ, PYTHONPATH=pkg, VULPY_PREWARM=prewarm)
    p = subprocess.run([sys.executable, str(PROBE), "vulpy", "--cache", cache],
                       capture_output=True, text=True, env=env, timeout=300)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    trees = {"before": sys.argv[1], "after": sys.argv[2]}
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    res = {}
    for _ in range(rounds):
        for name, tree in trees.items():
            pkg = str(Path(tree) / "bindings" / "python")
            for pw in ("1", "0"):
                with tempfile.TemporaryDirectory() as d:
                    for mode in ("cold", "warm"):
                        res.setdefault((mode, pw, name), []).append(probe(pkg, d, pw))

    def med(gs, f):
        return statistics.median(f(g) for g in gs)
    for (mode, pw, name), gs in sorted(res.items()):
        print(f"{mode} prewarm={pw} {name:6s}: total {med(gs, lambda g: g['ns']) / 1e6:7.1f} ms"
              f"  compile {med(gs, lambda g: g['compile_ns']) / 1e6:7.1f}"
              f"  pipeline {med(gs, lambda g: g['pipeline_ns']) / 1e6:6.1f}"
              f"  first launch {med(gs, lambda g: g.get('outside_ms', {}).get('first launch', 0)):6.1f}")


if __name__ == "__main__":
    main()
