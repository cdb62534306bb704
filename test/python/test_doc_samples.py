"""The code samples of the docs run as written (issue 14).

Every ```python block of README.md and docs/*.md (docs/tutorials has its own
test, test_tutorials.py; docs/history is not product documentation) runs
here, on lavapipe with the validation layer on. A file's blocks run in
order in one namespace, as a reader reads them (a later block may use the
names of an earlier one), from a real .py file in a child process, so that
`@vp.kernel` can read its source. Two HTML comments, invisible on the
rendered page, may come just before a block:

    <!-- setup: xv = vp.arange(8, dtype=np.float32) -->
        code a reader need not see (the data a fragment works on); it runs
        before the block, and may span lines.
    <!-- not run: needs CuPy and an NVIDIA GPU -->
        the block cannot run on this machine; the reason is required and
        such blocks stay rare (the test counts them).

A whole kernel-language module (a .vul.py file, as docs/language.md shows
them) is fenced ```python vul (rendered as Python): it is written to a
.vul.py file and compiled with vp.compile, as a user would. Fragments of a
kernel body are fenced ```py (rendered the same) and are not run: every
```python block is a program or a module, and runs.
"""
import os
import re
import subprocess
import sys
import textwrap

import pytest

import vulpy as vp

from conftest import ROOT, needs_target

BLOCK = re.compile(r"^```(\w*)( vul)?\n(.*?)^```", re.S | re.M)
COMMENT = re.compile(r"<!--\s*(setup|not run):((?:(?!-->).)*)-->\s*\Z", re.S)
DOCS = sorted([ROOT / "README.md"] + [p for p in (ROOT / "docs").glob("*.md")])
# the blocks a file may leave unrun (each with its reason in the file)
MAX_NOT_RUN = 8


def samples(md):
    """[(code, setup, not_run_reason, line, is_module)] of md's ```python
    blocks."""
    text = md.read_text()
    out = []
    for m in BLOCK.finditer(text):
        if m.group(1) != "python":
            continue
        before = text[:m.start()].rstrip() + "\n"
        setup, reason = "", None
        c = COMMENT.search(before.rstrip())
        if c:
            if c.group(1) == "setup":
                setup = textwrap.dedent(c.group(2).strip("\n")).strip()
            else:
                reason = c.group(2).strip()
        out.append((m.group(3), setup, reason, text.count("\n", 0, m.start()) + 1,
                    bool(m.group(2))))
    return out


def program(md, folder):
    """One script: the file's runnable blocks in order, each after its setup
    and announced on stderr so a failure names its block; a kernel module
    goes to its own .vul.py file in `folder` and the script compiles it."""
    parts = ["import sys", "import numpy as np", "import vulpy as vp", ""]
    for code, setup, reason, line, module in samples(md):
        if reason is not None:
            continue
        parts.append(f"print('--- {md.name}:{line}', file=sys.stderr, flush=True)")
        if setup:
            parts.append(setup)
        if module:
            path = folder / f"{md.stem.replace('-', '_')}_{line}.vul.py"
            path.write_text(code)
            parts.append(f"vp.compile({str(path)!r})")
        else:
            parts.append(code)
    parts += ["from vulpy import _context",   # as conftest's check after every test
              "msgs = [m for c in list(_context._live) for m in c.take_validation()]",
              "if msgs:",
              "    sys.exit('validation layer messages:\\n' + '\\n'.join(msgs[:10]))"]
    return "\n".join(parts) + "\n"


DOC_FILES = [md for md in DOCS if samples(md)]


def test_every_sample_is_found():
    """The fences this test reads are the ones the docs use."""
    assert len(DOC_FILES) >= 8
    total = sum(len(samples(md)) for md in DOC_FILES)
    assert total >= 40, total
    for md in DOC_FILES:
        skipped = [(line, r) for _, _, r, line, _ in samples(md) if r is not None]
        assert len(skipped) <= MAX_NOT_RUN, (md.name, skipped)
        for line, r in skipped:
            assert len(r) > 10, f"{md.name}:{line}: a 'not run' block needs its reason"


@needs_target
@pytest.mark.parametrize("md", DOC_FILES, ids=lambda p: p.name)
def test_doc_samples_run(md, tmp_path):
    script = tmp_path / (md.stem.replace("-", "_") + "_samples.py")
    script.write_text(program(md, tmp_path))
    # the vulpy this test imported (the source tree here; an installed wheel
    # in the H200 run of bench/device/pytest.sh)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(vp.__file__)))
    env.setdefault("VULPY_VALIDATION", "1")
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=240)
    where = [ln for ln in r.stderr.splitlines() if ln.startswith("--- ")]
    assert r.returncode == 0, (
        f"{where[-1][4:] if where else md.name}: the sample failed\n"
        f"{r.stderr[-3000:]}\n{r.stdout[-1000:]}")
