#!/bin/bash
# `make run`: the quick-start. Until the Python package lands this runs the
# pipeline that exists: an example VIR kernel through vulpy-opt.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f examples/quickstart.py ] && .venv/bin/python -c 'import vulpy._vulpy' 2>/dev/null; then
  exec .venv/bin/python examples/quickstart.py
fi
echo "== examples/saxpy.vir through vulpy-opt --canonicalize --cse --dce"
build/bin/vulpy-opt --canonicalize --cse --dce examples/saxpy.vir
