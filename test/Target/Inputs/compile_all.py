"""Translates every kernel under the given folders to one target and
compiles it with the vendor compiler; prints one line per kernel and exits 1
if any failed. Used by test/Target/{CUDA,HIP,SPIRV}/compile-all.test.

    compile_all.py --to=cuda --out=DIR -- CC ARGS... {in} -o {out} -- PATHS...

.vir files are read as VIR; .vul.py files go through `python -m vulpy
dump-ast` first. Files with `// XFAIL-TARGET: cuda` (or hip, ...) or whose
RUN lines expect an error (`not vulpy-translate`) are skipped. A .vul.py
whose RUN line dumps it with compile options (`dump_opts.py %s 'JSON'`) is
dumped with the same options.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path


def main():
    argv = sys.argv[1:]
    sep = [i for i, a in enumerate(argv) if a == "--"]
    if len(sep) != 2:
        sys.exit("usage: compile_all.py --to=T --out=DIR -- CC... -- PATHS...")
    ap = argparse.ArgumentParser()
    ap.add_argument("--to", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--suffix", default=".cu")
    ap.add_argument("--flag", action="append", default=[], help="extra vulpy-translate flag")
    args = ap.parse_args(argv[:sep[0]])
    cc = argv[sep[0] + 1:sep[1]]
    # The compilers are not ours: under make test-sanitize this script runs
    # with the ASan runtime preloaded (for %python), and nvcc crashes with it.
    compiler_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    paths = [Path(p) for p in argv[sep[1] + 1:]]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for p in paths:
        files += sorted(p.glob("*.vir")) + sorted(p.glob("*.vul.py")) if p.is_dir() else [p]
    failed = 0
    for f in files:
        text = f.read_text()
        if "not vulpy-translate" in text or f"XFAIL-TARGET: {args.to}" in text:
            continue
        src = out / (f.name + args.suffix)
        if f.suffix == ".py":
            m = re.search(r"dump_opts\.py %s '([^']*)'", text)
            if m:
                from vulpy import _astjson
                opts = json.loads(m.group(1))
                ast = subprocess.CompletedProcess([], 0, _astjson.to_json(
                    _astjson.dump_file(str(f), options=opts)), "")
            else:
                ast = subprocess.run([sys.executable, "-m", "vulpy", "dump-ast", str(f)],
                                     capture_output=True, text=True)
            tr = subprocess.run(["vulpy-translate", "--from=ast", f"--to={args.to}", *args.flag, "-", "-o", str(src)],
                                input=ast.stdout, capture_output=True, text=True)
        else:
            tr = subprocess.run(["vulpy-translate", f"--to={args.to}", *args.flag, str(f), "-o", str(src)],
                                capture_output=True, text=True)
        if tr.returncode != 0:
            print(f"FAIL translate {f.name}:\n{tr.stderr}")
            failed += 1
            continue
        cmd = [a.replace("{in}", str(src)).replace("{out}", str(src) + ".o") for a in cc]
        r = subprocess.run(cmd, capture_output=True, text=True, env=compiler_env)
        if r.returncode != 0:
            print(f"FAIL compile {f.name}: {' '.join(cmd)}\n{r.stdout}{r.stderr[:4000]}")
            failed += 1
        else:
            print(f"ok {f.name}")
    print(f"{len(files)} kernels, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
