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
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 ' || ! ldconfig -p 2>/dev/null | grep -q 'libGLdispatch.so.0 '; then
  for f in .gl/*.deb; do dpkg -x "$f" / > /dev/null 2>&1; done
  ldconfig
fi
# the loader may find no driver by itself on a fresh machine (suites.sh does the same)
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
SITE=/tmp/site-pytest
rm -rf "$SITE"
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" .whl/*.whl \
  || { echo "pip install of .whl failed"; exit 2; }
if ls .whl-test/*.whl > /dev/null 2>&1; then   # pytest and hypothesis for Python 3.12
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" \
    .whl-test/*.whl || echo "note: pip install of .whl-test failed"
fi
moved=0
if [ -d bindings/python/vulpy ] && ! ls bindings/python/vulpy/_vulpy*.so > /dev/null 2>&1; then
  mv bindings/python/vulpy bindings/python/vulpy.source && moved=1
fi
trap '[ $moved = 1 ] && mv bindings/python/vulpy.source bindings/python/vulpy' EXIT
export PYTHONPATH=$SITE VULPY_VALIDATION=0 XDG_CACHE_HOME=/tmp/vulpy-pytest-cache
$PY -c 'import pytest, sys; print("pytest", pytest.__version__, "python", sys.version.split()[0])' \
  || { echo "no pytest on this machine"; exit 2; }
$PY -c 'import hypothesis' 2> /dev/null || echo "note: no hypothesis here; its tests fail to import"
nvidia-smi -L 2> /dev/null | head -4
$PY -m pytest -q -p no:cacheprovider -o addopts= "$@" > "$OUT/pytest.log" 2>&1
rc=$?
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -40
tail -3 "$OUT/pytest.log"
exit $rc
