#!/bin/bash
# `make run`: the quick-start, examples/quickstart.py (the product
# description's first example, checked against NumPy, printing the device,
# the timing and the GLSL it ran) under the .venv that `make build` made.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
if ! "$PY" -c 'import vulpy._vulpy' 2>/dev/null; then
  echo "make run: the VulPy C extension (vulpy._vulpy) does not import; run 'make build'" >&2
  "$PY" -c 'import vulpy._vulpy' || true
  exit 1
fi
exec "$PY" examples/quickstart.py
