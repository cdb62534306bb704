#!/bin/bash
# Builds the abi3 wheel and repairs it with auditwheel, so it installs with
# pip on any Linux machine that has a Vulkan loader (libvulkan.so.1, opened
# at run time by volk, is the only thing it does not carry).
#
#   scripts/build-wheel.sh [OUT_DIR]     (default: wheelhouse/)
#
# The raw wheel goes to dist/, the repaired one to OUT_DIR. The CMake build
# folder (build-wheel/, see pyproject.toml) is kept, so rebuilds are
# incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-wheelhouse}
PY=${PYTHON:-.venv/bin/python}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
rm -rf dist && mkdir -p dist "$OUT"
"$PY" -m pip wheel --no-deps --no-build-isolation -w dist . >&2
wheel=$(ls dist/vulpy-*-abi3-*.whl)
# The platform tag: the oldest manylinux the wheel's symbols allow.
plat=$("$PY" -m auditwheel show "$wheel" | sed -n 's/.*"\(manylinux_[0-9_]*x86_64\)".*/\1/p' | head -1)
"$PY" -m auditwheel repair ${plat:+--plat "$plat"} -w "$OUT" "$wheel" >&2
ls "$OUT"/vulpy-*.whl | tail -1
