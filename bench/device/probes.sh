#!/bin/bash
# Runs bench/probes/ scripts on the device machine (the H200) against the
# carried wheel, with the same setup as bench/device/pytest.sh:
#
#   bench/device/prep.sh                     (here: .whl and .gl)
#   run(command="bash bench/device/probes.sh 120 'bench/probes/sort_ab.py' \
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
SITE=/tmp/site-probes CACHE=/tmp/vulpy-probes-cache
. bench/device/setup.sh
export VULPY_VALIDATION=${VULPY_VALIDATION:-0}
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
