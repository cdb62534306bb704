#!/bin/bash
# Runs bench/waitprobe.c's program on the device machine (the H200) from the
# carried .whl/build.tar.xz (bench/device/prep.sh puts it there):
#
#   bench/device/prep.sh                     (here: .whl and .gl)
#   run(command="bash bench/device/waitprobe.sh --reps 3000", carry=[".gl", ".whl"])
#
# Arguments go to waitprobe (--reps N, --data host|device|cached|rebar);
# the table goes to the call's output and to $OUT/waitprobe.txt. It runs
# twice: the data (x, y) in host memory (every rep's results checked) and
# in device memory (the runtime's usual case; not checked).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/vulpy-waitprobe-out}
mkdir -p "$OUT"
PY=${PY:-python3}
SITE=/tmp/site-waitprobe CACHE=/tmp/vulpy-waitprobe-cache
. bench/device/setup.sh   # the loader, the driver's ICD file
B=/tmp/waitprobe-build
rm -rf $B && mkdir -p $B && tar -C $B -xJf .whl/build.tar.xz
[ -x $B/bin/waitprobe ] || { echo "no waitprobe in .whl/build.tar.xz: rerun bench/device/prep.sh"; exit 2; }
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rc=0
for data in host device; do
  timeout 240 $B/bin/waitprobe --data $data "$@" 2>&1 | tee -a "$OUT/waitprobe.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
exit $rc
