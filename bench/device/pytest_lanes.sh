#!/bin/bash
# Runs test/python on the device machine one pytest process per file, in
# LANES concurrent lanes, under one time limit, with a host-memory watchdog:
# the H200 pass of the Python suite that survives a file that eats the
# machine. (pytest_shards.sh, one process for many files, twice took the
# whole device machine down; see its header.)
#
#   run(command="bash bench/device/pytest_lanes.sh 3 520 --from test_a --to test_m",
#       carry=[".gl", ".whl", ".whl-test"])
#   run(command="bash bench/device/pytest_lanes.sh 3 520 test/python/test_fft.py ...", ...)
#
# --from A / --to B: the files whose names sort in [A, B) (either may be
# left out). Each file gets at most FILE_LIMIT seconds (default 240) and
# its own log, $OUT/lane-K-NAME.log. Every 3 s the watchdog writes the
# host's available memory, the GPU's used memory and the files running to
# $OUT/mem.log; when available memory falls under MIN_FREE_GB (default 12)
# it kills the running pytest processes and says which files they were.
# Output: one line per file (rc, seconds, pytest's summary), the FAILED /
# ERROR lines, the watchdog's kills and the lowest memory seen.
set -u
cd "$(dirname "$0")/../.."
LANES=${1:-3}
LIMIT=${2:-520}
shift 2 2> /dev/null
FROM="" TO=""
while [ $# -gt 0 ]; do
  case "$1" in
    --from) FROM=$2; shift 2 ;;
    --to) TO=$2; shift 2 ;;
    *) break ;;
  esac
done
FILE_LIMIT=${FILE_LIMIT:-240}
MIN_FREE_GB=${MIN_FREE_GB:-12}
OUT=${OUT:-/tmp/vulpy-pytest-out}
mkdir -p "$OUT"
PY=${PY:-python3}
SITE=/tmp/site-pytest CACHE=/tmp/vulpy-pytest-cache
# SKIP_SETUP=1: use the environment as it is (a trial run on this machine)
[ -n "${SKIP_SETUP:-}" ] || . bench/device/setup.sh
if [ -z "${SKIP_SETUP:-}" ] && ls .whl-test/*.whl > /dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" \
    .whl-test/*.whl || echo "note: pip install of .whl-test failed"
fi
export VULPY_VALIDATION=0
nvidia-smi -L 2> /dev/null | head -1
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(ls -S test/python/test_*.py | while read -r f; do
    b=$(basename "$f")
    # test_wheel builds the wheel from source: the device has no libyaml-dev,
    # and the carried wheel is what runs there
    [ "$b" = test_wheel.py ] && continue
    { [ -z "$FROM" ] || [[ ! "$b" < "$FROM" ]]; } && { [ -z "$TO" ] || [[ "$b" < "$TO" ]]; } \
      && echo "$f"; done)
fi
deadline=$(($(date +%s) + LIMIT))

lane() {
  local k=$1 f b t rc s0 left
  shift
  for f in "$@"; do
    b=$(basename "$f" .py)
    left=$((deadline - $(date +%s)))
    if [ "$left" -le 5 ]; then echo "$b: not run (time limit)" >> "$OUT/lane-$k.sum"; continue; fi
    t=$((left < FILE_LIMIT ? left : FILE_LIMIT))
    echo "$b" > "$OUT/lane-$k.current"
    echo "$(date +%s) start $b" >> "$OUT/progress.log"
    s0=$(date +%s)
    XDG_CACHE_HOME=$CACHE-$k timeout -s INT -k 10 "$t" $PY -m pytest -q -v -p no:cacheprovider \
      -o addopts= "$f" > "$OUT/lane-$k-$b.log" 2>&1
    rc=$?
    echo "$b: rc=$rc $(($(date +%s) - s0))s $(tail -1 "$OUT/lane-$k-$b.log")" >> "$OUT/lane-$k.sum"
  done
  rm -f "$OUT/lane-$k.current"
}

(
  while [ "$(date +%s)" -lt $((deadline + 20)) ]; do
    avail=$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)
    gpu=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2> /dev/null | head -1)
    running=$(cat "$OUT"/lane-*.current 2> /dev/null | xargs)
    [ -z "$running" ] && [ -f "$OUT/started" ] && break
    echo "$(date +%s) avail=${avail}G gpu=${gpu}MiB $running" >> "$OUT/mem.log"
    if [ "$avail" -lt "$MIN_FREE_GB" ]; then
      echo "WATCHDOG: host memory available ${avail}G < ${MIN_FREE_GB}G while running: $running" \
        >> "$OUT/watchdog.log"
      pkill -KILL -f "pytest -q -v -p no:cacheprovider"
    fi
    sleep 3
  done
) < /dev/null > /dev/null 2>&1 &
watch=$!

declare -a lanes
for i in "${!files[@]}"; do
  k=$((i % LANES))
  lanes[$k]="${lanes[$k]:-} ${files[$i]}"
done
pids=()
for k in $(seq 0 $((LANES - 1))); do
  [ -n "${lanes[$k]:-}" ] || continue
  # shellcheck disable=SC2086
  lane "$k" ${lanes[$k]} < /dev/null > "$OUT/lane-$k.out" 2>&1 &
  pids+=($!)
done
touch "$OUT/started"
# Poll, never `wait`: a pytest stuck in the driver (uninterruptible) is not
# reaped by timeout's KILL, and a wait on it would keep this call from ever
# returning. Past the deadline the stragglers are named and left behind.
while [ "$(date +%s)" -lt $((deadline + 15)) ]; do
  alive=0
  for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null && alive=1; done
  [ "$alive" = 0 ] && break
  sleep 2
done
for k in $(seq 0 $((LANES - 1))); do
  [ -f "$OUT/lane-$k.current" ] && echo "STUCK past the deadline: $(cat "$OUT/lane-$k.current")" \
    | tee -a "$OUT/watchdog.log"
done
pkill -KILL -f "pytest -q -v -p no:cacheprovider" 2> /dev/null
kill "$watch" 2> /dev/null
cat "$OUT"/lane-*.sum | sort
grep -hE "^(FAILED|ERROR)" "$OUT"/lane-*-*.log | cut -c1-200 | head -60
cat "$OUT/watchdog.log" 2> /dev/null
echo "lowest host memory available: $(sort -t= -k2 -n "$OUT/mem.log" | head -1 | cut -d' ' -f2-)"
echo "most GPU memory used: $(awk '{split($3, g, "="); print g[2] + 0, $0}' "$OUT/mem.log" | sort -n | tail -1 | cut -d' ' -f2-)"
! grep -qE "^(FAILED|ERROR)" "$OUT"/lane-*-*.log && [ ! -f "$OUT/watchdog.log" ]
