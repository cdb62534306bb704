#!/bin/bash
# Runs bench/probes/ scripts on the device machine (the H200) against the
# carried wheel, with the same setup as bench/device/pytest.sh:
#
#   bench/device/prep.sh                     (here: .whl and .gl)
#   run(command="bash bench/device/probes.sh 120 'bench/probes/normal_ab.py' \
#       'bench/probes/upload_ab.py --fresh'", carry=[".gl", ".whl"])
#
# The first argument is each probe's time limit in seconds; every further
# argument is one probe: a script under the repository and its arguments,
# run by the device's Python. Each probe's output goes to the call's output
# and to $OUT/probes.log; a probe that fails or runs out of time is reported
# and the next one runs.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/vulpy-probes-out}
mkdir -p "$OUT"
PY=${PY:-python3}
LIMIT=${1:?usage: bench/device/probes.sh SECONDS 'probe args' ...}
shift
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 ' || ! ldconfig -p 2>/dev/null | grep -q 'libGLdispatch.so.0 '; then
  for f in .gl/*.deb; do dpkg -x "$f" / > /dev/null 2>&1; done
  ldconfig
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
SITE=/tmp/site-probes
rm -rf "$SITE"
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" .whl/*.whl \
  || { echo "pip install of .whl failed"; exit 2; }
moved=0
if [ -d bindings/python/vulpy ] && ! ls bindings/python/vulpy/_vulpy*.so > /dev/null 2>&1; then
  mv bindings/python/vulpy bindings/python/vulpy.source && moved=1
fi
trap '[ $moved = 1 ] && mv bindings/python/vulpy.source bindings/python/vulpy' EXIT
export PYTHONPATH=$SITE VULPY_VALIDATION=${VULPY_VALIDATION:-0} XDG_CACHE_HOME=/tmp/vulpy-probes-cache
failed=0
for p in "$@"; do
  echo "=== $p" | tee -a "$OUT/probes.log"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  timeout "$LIMIT" $PY $p 2>&1 | tee -a "$OUT/probes.log"
  rc=${PIPESTATUS[0]}
  echo "=== rc=$rc in $(( $(date +%s) - t0 )) s: $p" | tee -a "$OUT/probes.log"
  [ "$rc" = 0 ] || failed=1
done
exit $failed
