"""Prints the pinned Python requirements of one group of pyproject.toml.

pyproject.toml is the one place Python dependencies are pinned; the Makefile
installs a group into .venv without building the package itself.
"""
import sys
import tomllib
from pathlib import Path

root = Path(__file__).resolve().parent.parent
project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
group = sys.argv[1] if len(sys.argv) > 1 else "dev"
reqs = list(project.get("dependencies", []))
reqs += project.get("optional-dependencies", {}).get(group, [])
print(" ".join(reqs))
