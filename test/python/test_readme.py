"""The README's opening, as the foundation issue asks: exactly the two
commands (`make run`, `make test`) first, then what VulPy is, with the
seed's 30-second example; and the Makefile targets it names exist."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SEED_EXAMPLE = """import numpy as np
import vulpy as vp

x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
y = vp.sin(x) + vp.exp(x)   # GPU-accelerated, returns NumPy array"""


def blocks():
    return [(m.start(), m.group(1)) for m in re.finditer(r"^```\w*\n(.*?)^```", README, re.S | re.M)]


def test_two_commands_come_first():
    first_at, first = blocks()[0]
    commands = [line.split("#")[0].strip() for line in first.splitlines() if line.strip()]
    assert commands == ["make run", "make test"]
    assert README[:first_at].strip() == "# VulPy"  # nothing before them but the title


def test_then_what_vulpy_is_with_the_seed_example():
    (first_at, _), (second_at, second) = blocks()[:2]
    between = README[first_at:second_at]
    assert "Write Python. Run on any GPU. Inspect the GLSL it generates." in between
    assert "VulPy is a Vulkan compute runtime with a Python front end" in between
    assert second.strip() == SEED_EXAMPLE


def test_makefile_has_the_user_targets():
    mk = (ROOT / "Makefile").read_text()
    for target in ("deps", "build", "run", "test", "bench", "fuzz", "test-sanitize",
                   "test-sanitize-ci"):
        assert re.search(rf"^{target}:", mk, re.M), target
    assert "-DVULPY_WERROR=ON" in mk  # warnings are errors in CI (.ci/run runs make test)
    # CI: every suite, then the ASan + UBSan build (docs/testing.md), failing on either
    ci = (ROOT / ".ci" / "run").read_text()
    assert "set -e" in ci
    assert re.search(r"^make test$", ci, re.M)
    assert ci.rstrip().endswith("exec make test-sanitize-ci")
