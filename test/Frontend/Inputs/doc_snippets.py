"""Checks that the VIR and GLSL a doc shows after each kernel example are
what the compiler prints today. A ```python block with a kernel (`def main(`
or `@vp.kernel`) may be followed by a plain ``` block (VIR, as
`vulpy-translate --to=vir --no-dispatch-guard` prints it, locations left
out) and a ```glsl block; every line of those blocks, except `...`, must be
a line of the output, in the same order (an excerpt may skip lines). A line
`# options: {JSON}` in the example gives the compile options a call would
pass. Prints one line per snippet and a summary; exits 1 if any differ.

usage: doc_snippets.py DOC.md...
"""
import json
import re
import subprocess
import sys
from pathlib import Path

from vulpy import _astjson

LOC = re.compile(r" loc\([^)]*\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def translate(src, to, opts):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".vul.py", delete=False) as f:
        f.write(src)
    ast = _astjson.to_json(_astjson.dump_file(f.name, options=opts))
    flags = ["--no-dispatch-guard"] if to == "vir" else []
    r = subprocess.run(["vulpy-translate", "--from=ast", f"--to={to}", *flags, "-"],
                       input=ast, capture_output=True, text=True)
    Path(f.name).unlink()
    if r.returncode:
        raise RuntimeError(r.stderr.strip())
    return [LOC.sub("", ln).rstrip() for ln in r.stdout.splitlines()]


def missing(snippet, output):
    """The first snippet line not found (in order) in the output, or None."""
    at = 0
    for ln in snippet.splitlines():
        ln = ln.rstrip()
        if not ln.strip() or ln.strip() == "..." or ln.lstrip().startswith("#"):
            continue
        while at < len(output) and output[at] != ln:
            at += 1
        if at == len(output):
            return ln
        at += 1
    return None


def main():
    count = failed = 0
    for doc in map(Path, sys.argv[1:]):
        text = doc.read_text()
        blocks = list(FENCE.finditer(text))
        for k, m in enumerate(blocks):
            src = m.group(2)
            if m.group(1) != "python" or ("def main(" not in src and "@vp.kernel" not in src):
                continue
            if "import vulpy as vp" not in src:
                src = "import vulpy as vp\n\n" + src
            opts = re.search(r"^# options: (\{.*\})$", src, re.M)
            opts = json.loads(opts.group(1)) if opts else None
            for nxt, prev in zip(blocks[k + 1:k + 3], blocks[k:k + 2]):
                if text[prev.end():nxt.start()].strip():
                    break  # prose between: the snippets belong to the example
                to = {"": "vir", "glsl": "glsl"}.get(nxt.group(1))
                if to is None:
                    break
                line = text.count("\n", 0, nxt.start()) + 1
                count += 1
                try:
                    bad = missing(nxt.group(2), translate(src, to, opts))
                except RuntimeError as e:
                    bad = f"(does not compile: {e})"
                if bad is None:
                    print(f"ok {doc.name}:{line} {to}")
                else:
                    failed += 1
                    print(f"FAIL {doc.name}:{line} {to}: not in the output (in order): {bad}")
    print(f"{count} snippets, {failed} differ")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
