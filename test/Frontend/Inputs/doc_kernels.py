"""Compiles every complete kernel example of a doc (a ```python block with a
`def main(` or an `@vp.kernel` in it) to validated SPIR-V, so the docs stay
true to the code. A line `# options: {JSON}` in the example gives the
compile options a call would pass (a generic kernel's "buffer_dtypes"). Prints one line per example and a summary; exits 1 if any
failed.

usage: doc_kernels.py OUT_DIR DOC.md...
"""
import json
import re
import subprocess
import sys
from pathlib import Path

from vulpy import _astjson


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    count = failed = 0
    for doc in map(Path, sys.argv[2:]):
        text = doc.read_text()
        for m in re.finditer(r"^```python(?: vul)?\n(.*?)^```", text, re.S | re.M):
            src = m.group(1)
            if "def main(" not in src and "@vp.kernel" not in src:
                continue  # a fragment, not a kernel
            if "import vulpy as vp" not in src:
                src = "import vulpy as vp\n\n" + src
            line = text.count("\n", 0, m.start()) + 1
            name = f"{doc.stem}-{line}"
            path = out / f"{name}.vul.py"
            path.write_text(src)
            count += 1
            try:
                opts = re.search(r"^# options: (\{.*\})$", src, re.M)
                ast = _astjson.to_json(_astjson.dump_file(
                    str(path), options=json.loads(opts.group(1)) if opts else None))
            except SyntaxError as e:
                print(f"FAIL {doc.name}:{line}: {e}")
                failed += 1
                continue
            r = subprocess.run(["vulpy-translate", "--from=ast", "--to=spirv", "-", "-o",
                                str(out / f"{name}.spv")], input=ast, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {doc.name}:{line}: {r.stderr.strip()}")
                failed += 1
            else:
                fn = re.search(r"^def (\w+)\(", src, re.M)
                print(f"ok {doc.name}:{line} {fn.group(1) if fn else ''}")
    print(f"{count} examples, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
