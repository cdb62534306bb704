"""The tutorial series (docs/tutorials) says only what runs.

- Every ```python block of lesson NN is code of examples/lessonNN_*.py (or
  of a .vul.py file, or of examples/fdtd3d.py, that the lesson names), which test_examples.py runs and which
  checks its own answers: each paragraph of the block (lines between blank
  lines) must appear in that source verbatim, up to indentation, and the
  paragraphs in the block's order.
- Every `python -m vulpy ...` line of a ```sh block runs and exits 0, and
  every ```glsl block is part of what those commands printed (or of the
  lesson's source, for raw GLSL).
- The index (docs/tutorials/README.md) lists all twelve lessons, links each
  one that exists, marks the rest "coming", and the README links the index.
"""
import os
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, needs_target

TUTORIALS = ROOT / "docs" / "tutorials"
LESSONS = sorted(TUTORIALS.glob("[0-9][0-9]-*.md"))
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(md, lang):
    return [m.group(2) for m in BLOCK.finditer(md.read_text()) if m.group(1) == lang]


def sources(md):
    """The example of lesson NN, and the example files its text names."""
    nn = md.name[:2]
    paths = sorted((ROOT / "examples").glob(f"lesson{nn}_*.py"))
    named = re.findall(r"examples/[\w.]+\.vul\.py", md.read_text())
    named += re.findall(r"examples/fdtd3d\.py", md.read_text())   # lesson 11 shows its lines
    paths += [ROOT / p for p in sorted(set(named))]
    return [p for p in paths if p.exists()]


def paragraphs(block):
    out, cur = [], []
    for line in block.rstrip().splitlines() + [""]:
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            out.append(cur)
            cur = []
    return out


def find(par, lines, start):
    """The first index >= start where the paragraph's lines follow each other
    in `lines`, the same text up to one common indentation; -1 if none."""
    want = textwrap.dedent("\n".join(par)).splitlines()
    n = len(want)
    for at in range(start, len(lines) - n + 1):
        window = textwrap.dedent("\n".join(lines[at:at + n])).splitlines()
        if window == want:
            return at
    return -1


def missing_paragraphs(block, text):
    """The paragraphs of `block` not found in order in `text`."""
    lines = [ln.rstrip() for ln in text.splitlines()]
    bad, at = [], 0
    for par in paragraphs(block):
        k = find(par, lines, at)
        if k < 0:
            bad.append("\n".join(par))
        else:
            at = k + len(par)
    return bad


def test_the_series_has_lessons_1_to_12():
    assert [p.name[:2] for p in LESSONS] == [f"{n:02d}" for n in range(1, 13)]
    for md in LESSONS:
        nn = md.name[:2]
        examples = list((ROOT / "examples").glob(f"lesson{nn}_*.py"))
        assert examples, f"{md.name}: no examples/lesson{nn}_*.py"
        runnable = re.search(r"Runnable: `(examples/[^`]+)`", md.read_text())
        assert runnable and (ROOT / runnable.group(1)).exists(), md.name


@pytest.mark.parametrize("md", LESSONS, ids=lambda p: p.name)
def test_python_blocks_are_the_code_that_runs(md):
    text = "\n".join(p.read_text() for p in sources(md))
    assert text, f"{md.name}: no example source"
    for block in blocks(md, "python"):
        bad = missing_paragraphs(block, text)
        assert not bad, (f"{md.name}: this code is not in "
                         f"{[str(p.relative_to(ROOT)) for p in sources(md)]}:\n" + "\n---\n".join(bad))


def test_the_check_finds_drift():
    """The matcher fails on the drift issue 14 found (a missing upload) and on
    paragraphs out of order, and allows re-indentation."""
    src = "shader.upload('pos', p)\nshader.upload('vel', v)\nshader.run(n=1)\n\nprint(1)\n"
    assert not missing_paragraphs("shader.upload('pos', p)\nshader.upload('vel', v)\n", src)
    assert missing_paragraphs("shader.upload('pos', p)\nshader.run(n=1)\n", src)
    assert missing_paragraphs("print(1)\n\nshader.run(n=1)\n", src)
    assert not missing_paragraphs("print(1)\n", "if ok:\n    print(1)\n")


def commands(md):
    for block in blocks(md, "sh"):
        for line in block.splitlines():
            if line.startswith("python -m vulpy "):
                # run it; a `> FILE` redirection is left out (nothing is written)
                yield line.split("  #")[0].split(" > ")[0].strip()


def printed_by_the_example(md):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    out = []
    for p in sources(md):
        if p.name.startswith("lesson") and not p.name.endswith(".vul.py"):
            r = subprocess.run([sys.executable, str(p)], capture_output=True, text=True,
                               env=env, cwd=ROOT, timeout=300)
            assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
            out.append(r.stdout)
    return "\n".join(out)


@needs_target
@pytest.mark.parametrize("md", [md for md in LESSONS if list(commands(md)) or blocks(md, "glsl")
                                or blocks(md, "cuda") or blocks(md, "output")],
                         ids=lambda p: p.name)
def test_commands_run_and_output_blocks_are_their_output(md):
    """```glsl and ```cuda blocks: printed by the lesson's commands (or by
    its program, or in its source: raw GLSL); ```output blocks: printed by
    its program."""
    printed = []
    for cmd in commands(md):
        argv = [sys.executable] + cmd.split()[1:]
        r = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert r.returncode == 0, f"{md.name}: `{cmd}` failed:\n{r.stderr[-3000:]}"
        printed.append(r.stdout)
    text = "\n".join(printed + [p.read_text() for p in sources(md)])
    example = None
    for lang in ("glsl", "cuda", "output"):
        for block in blocks(md, lang):
            if lang != "output" and not missing_paragraphs(block, text):
                continue
            if example is None:
                example = printed_by_the_example(md)
            bad = missing_paragraphs(block, example)
            assert not bad, f"{md.name}: this {lang} block is not printed:\n" + "\n---\n".join(bad)


def test_the_index_lists_twelve_lessons_and_the_readme_links_it():
    index = (TUTORIALS / "README.md").read_text()
    rows = re.findall(r"^\| (\d+) \| (.*)$", index, re.M)
    assert [int(n) for n, _ in rows] == list(range(1, 13))
    for n, row in rows:
        md = [p for p in LESSONS if p.name.startswith(f"{int(n):02d}-")]
        if md:
            assert f"]({md[0].name})" in row, f"lesson {n} is not linked"
        else:
            assert "coming" in row, f"lesson {n} has no page and is not marked coming"
    assert "docs/tutorials/README.md" in (ROOT / "README.md").read_text()


def test_every_lesson_example_is_run_by_test_examples():
    sys.path.insert(0, str(ROOT / "test" / "python"))
    import test_examples
    for p in (ROOT / "examples").glob("lesson*.py"):
        if not p.name.endswith(".vul.py"):
            assert p.name in test_examples.EXAMPLES, p.name
