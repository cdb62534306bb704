#!/bin/bash
# Runs pytest files on the device machine (the H200) against the carried
# wheel, as bench/device/suites.sh runs the bench suites:
#
#   bench/device/prep.sh                     (here: .whl and .gl)
#   .venv/bin/pip download --no-deps -d .whl-test --python-version 3.12 \
#       --only-binary=:all: pytest hypothesis attrs iniconfig packaging pluggy \
#       sortedcontainers pygments            (the versions the .venv has)
#   run(command="bash bench/device/pytest.sh test/python/test_persistent.py ...",
#       carry=[".gl", ".whl", ".whl-test"])
#
# The validation layer is not on that machine (VULPY_VALIDATION=0). The
# summary line and the failures' tails come back in the output; the whole
# log is $OUT/pytest.log.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/vulpy-pytest-out}
mkdir -p "$OUT"
PY=${PY:-python3}
SITE=/tmp/site-pytest CACHE=/tmp/vulpy-pytest-cache
. bench/device/setup.sh
if ls .whl-test/*.whl > /dev/null 2>&1; then   # pytest and hypothesis for Python 3.12
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" \
    .whl-test/*.whl || echo "note: pip install of .whl-test failed"
fi
export VULPY_VALIDATION=0
$PY -c 'import pytest, sys; print("pytest", pytest.__version__, "python", sys.version.split()[0])' \
  || { echo "no pytest on this machine"; exit 2; }
$PY -c 'import hypothesis' 2> /dev/null || echo "note: no hypothesis here; its tests fail to import"
nvidia-smi -L 2> /dev/null | head -4
$PY -m pytest -q -p no:cacheprovider -o addopts= "$@" > "$OUT/pytest.log" 2>&1
rc=$?
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -40
tail -3 "$OUT/pytest.log"
exit $rc
