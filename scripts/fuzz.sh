#!/bin/bash
# Builds and runs every libFuzzer target test/fuzz/fuzz_*.c for a bounded time.
#
#   scripts/fuzz.sh SECONDS [JUNIT_XML]
#
# Each target is compiled with clang-14 -fsanitize=fuzzer,address,undefined
# together with the library sources named on its `// sources:` line (extra
# flags on `// cflags:`, libraries on `// libs:`), into build-fuzz/. Its seed
# corpus is the files matching the globs on its `// seeds:` line (bash
# globstar, from the repository root). SECONDS is split evenly between the
# targets. Prints executions/s and crashes per target; writes a JUnit file
# with one testcase per target, failed when the target crashed (or did not
# build). Crash inputs are kept in build-fuzz/crashes/.
set -uo pipefail
shopt -s globstar nullglob
cd "$(dirname "$0")/.."

total=${1:-60}
junit=${2:-}
CLANG=${CLANG:-clang-14}
out=build-fuzz
mkdir -p "$out/crashes"

targets=(test/fuzz/fuzz_*.c)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no targets in test/fuzz"
  exit 0
fi
per=$(( total / ${#targets[@]} ))
[ "$per" -lt 1 ] && per=1

# The value of a `// KEY: ...` line of a target source.
directive() { sed -n "s|^// $2: *||p" "$1" | head -n 1; }

cases=()
failed=0
for src in "${targets[@]}"; do
  name=$(basename "$src" .c)
  bin="$out/$name"
  sources=$(eval echo "$(directive "$src" sources)")
  cflags=$(directive "$src" cflags)
  libs=$(directive "$src" libs)
  # Rebuild only when a source or a header is newer than the binary.
  stale=1
  if [ -x "$bin" ]; then
    stale=0
    for f in "$src" $sources include/vulpy/* include/vulpy/*/* lib/*/*.h; do
      [ "$f" -nt "$bin" ] && stale=1 && break
    done
  fi
  status=ok
  msg=""
  if [ $stale -eq 1 ]; then
    echo "fuzz: building $name"
    # shellcheck disable=SC2086
    if ! $CLANG -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
        -fno-sanitize-recover=undefined -Iinclude -Ilib/IR $cflags "$src" $sources $libs -lm \
        -o "$bin" 2>"$out/$name.build.log"; then
      status=build
      msg="$name does not build (see $out/$name.build.log)"
      cat "$out/$name.build.log" >&2
    fi
  fi
  execs=0 rate=0 crashes=0
  if [ "$status" = ok ]; then
    corpus="$out/corpus/$name"
    seeds="$out/seeds/$name"
    rm -rf "$seeds"
    mkdir -p "$corpus" "$seeds"
    # Each `// -----` section of a lit test (--split-input-file) is a seed
    # of its own, so the error tests seed every error path, not the first.
    for g in $(directive "$src" seeds); do
      for f in $g; do
        [ -f "$f" ] || continue
        awk -v out="$seeds/$(echo "$f" | tr / _)" \
          '/^[ \t]*\/\/ -----/ { n++; next } { print > (out "." n) }' n=0 "$f"
      done
    done
    before=$(ls "$out/crashes" | grep -c "^$name-" || true)
    log="$out/$name.log"
    "$bin" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$out/crashes/$name-" "$corpus" "$seeds" >"$log" 2>&1
    rc=$?
    after=$(ls "$out/crashes" | grep -c "^$name-" || true)
    crashes=$(( after - before ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    if [ $rc -ne 0 ] || [ "$crashes" -gt 0 ]; then
      status=crash
      [ "$crashes" -eq 0 ] && crashes=1
      msg="$name crashed (exit $rc); input in $out/crashes/, log in $log"
      grep -A 30 -m 1 -E "ERROR: |runtime error|fuzz_vir:" "$log" >&2
    fi
  fi
  echo "fuzz: $name: ${execs:-0} executions in ${per} s (${rate:-0} exec/s), $crashes crash(es)"
  [ "$status" != ok ] && failed=$((failed + 1))
  cases+=("$name|$status|${execs:-0}|${rate:-0}|$crashes|$msg")
done

if [ -n "$junit" ]; then
  mkdir -p "$(dirname "$junit")"
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuite name=\"fuzz\" tests=\"${#cases[@]}\" failures=\"$failed\">"
    for c in "${cases[@]}"; do
      IFS='|' read -r name status execs rate crashes msg <<<"$c"
      echo "  <testcase classname=\"fuzz\" name=\"$name\" time=\"$per\">"
      echo "    <system-out>$execs executions, $rate exec/s, $crashes crashes</system-out>"
      [ "$status" != ok ] && echo "    <failure message=\"$msg\"/>"
      echo "  </testcase>"
    done
    echo "</testsuite>"
  } >"$junit"
fi
[ $failed -eq 0 ]
