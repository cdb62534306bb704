#!/bin/bash
# Builds and runs every libFuzzer target test/fuzz/fuzz_*.c, for a bounded
# time (CI) or a number of executions (the long run).
#
#   scripts/fuzz.sh SECONDS [JUNIT_XML]        SECONDS split evenly between the targets
#   scripts/fuzz.sh --runs N [JUNIT_XML]       each target for N executions (make fuzz-long)
#
# FUZZ_TARGETS="fuzz_manifest fuzz_vir" picks targets (default: all).
#
# Each target is compiled with clang-14 -fsanitize=fuzzer,address,undefined
# together with the library sources named on its `// sources:` line (C, or
# C++ for .cpp; flags for the target's own file on `// cflags:`, libraries
# on `// libs:`), into build-fuzz/. The library objects are compiled once,
# with every library's include folder, into build-fuzz/obj/ (in parallel)
# and shared by the targets. Its seed corpus
# is the checked-in test/fuzz/corpus/<target>/ plus the files matching the
# globs on its `// seeds:` line (bash globstar, from the repository root);
# what a run finds is kept in build-fuzz/corpus/<target>/. Prints
# executions/s and crashes per target; writes a JUnit file with one
# testcase per target, failed when the target crashed, leaked, hung or did
# not build. Crash inputs are kept in build-fuzz/crashes/.
set -uo pipefail
shopt -s globstar nullglob
cd "$(dirname "$0")/.."

runs=0
if [ "${1:-}" = "--runs" ]; then
  runs=${2:?--runs needs a count}
  shift 2
  total=0
else
  total=${1:-60}
  shift || true
fi
junit=${1:-}
CLANG=${CLANG:-clang-14}
CLANGXX=${CLANGXX:-clang++-14}
JOBS=${JOBS:-$(nproc)}
out=build-fuzz
mkdir -p "$out/crashes" "$out/obj"

targets=()
for src in test/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  if [ -n "${FUZZ_TARGETS:-}" ] && ! [[ " $FUZZ_TARGETS " == *" $name "* ]]; then
    continue
  fi
  targets+=("$src")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no targets in test/fuzz"
  exit 0
fi
per=$(( total / ${#targets[@]} ))
[ "$per" -lt 1 ] && per=1

SANFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
# The newest header: an object older than it is compiled again.
newest_header=$(ls -t include/vulpy/* include/vulpy/*/* lib/**/*.h lib/**/*.inc runtime/*.h \
  2>/dev/null | head -n 1)

# The value of a `// KEY: ...` line of a target source.
directive() { sed -n "s|^// $2: *||p" "$1" | head -n 1; }

# The include folders of the libraries' private headers (a quoted include
# finds its own folder's header first, so one list serves every source).
LIBINC="-Ilib/IR -Ilib/Frontend -Ilib/Target/CFamily -Iruntime"

# Compiles the stale ones of the sources $@ (in parallel); prints the
# object paths. A failed compile leaves no object.
objects() {
  local dir="$out/obj" todo=() objs=()
  for s in "$@"; do
    local o="$dir/$(echo "$s" | tr / _).o"
    objs+=("$o")
    if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || { [ -n "$newest_header" ] && [ "$newest_header" -nt "$o" ]; }; then
      todo+=("$s")
    fi
  done
  if [ ${#todo[@]} -gt 0 ]; then
    # shellcheck disable=SC2016
    printf '%s\n' "${todo[@]}" | xargs -P "$JOBS" -I{} bash -c '
      s={}; o="$0/$(echo "$s" | tr / _).o"
      case "$s" in
        *.cpp) cc=$1; std=-std=gnu++17 ;;
        *) cc=$2; std=-std=gnu11 ;;
      esac
      # shellcheck disable=SC2086
      $cc $3 $std -Iinclude $4 -c "$s" -o "$o.tmp" && mv "$o.tmp" "$o"' \
      "$dir" "$CLANGXX" "$CLANG" "$SANFLAGS" "$LIBINC" >&2
  fi
  printf '%s\n' "${objs[@]}"
}

cases=()
failed=0
for src in "${targets[@]}"; do
  name=$(basename "$src" .c)
  bin="$out/$name"
  sources=$(eval echo "$(directive "$src" sources)")
  cflags=$(directive "$src" cflags)
  libs=$(directive "$src" libs)
  status=ok
  msg=""
  echo "fuzz: building $name"
  # shellcheck disable=SC2086
  mapfile -t objs < <(objects $sources 2>"$out/$name.build.log")
  missing=0
  for o in "${objs[@]}"; do [ -f "$o" ] || missing=1; done
  # shellcheck disable=SC2086
  if [ $missing -eq 1 ] || ! $CLANGXX $SANFLAGS -fsanitize=fuzzer -std=gnu11 -x c \
      -Iinclude $LIBINC $cflags "$src" -x none "${objs[@]}" $libs -lm \
      -o "$bin" 2>>"$out/$name.build.log"; then
    status=build
    msg="$name does not build (see $out/$name.build.log)"
    cat "$out/$name.build.log" >&2
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
        case "$f" in
          *.vir|*.test|*.mlir)
            awk -v out="$seeds/$(echo "$f" | tr / _)" \
              '/^[ \t]*\/\/ -----/ { n++; next } { print > (out "." n) }' n=0 "$f" ;;
          *) cp "$f" "$seeds/$(echo "$f" | tr / _)" ;;
        esac
      done
    done
    dirs=("$corpus" "$seeds")
    [ -d "test/fuzz/corpus/$name" ] && dirs+=("test/fuzz/corpus/$name")
    before=$(ls "$out/crashes" | grep -c "^$name-" || true)
    log="$out/$name.log"
    if [ "$runs" -gt 0 ]; then
      limit=(-runs="$runs")
    else
      limit=(-max_total_time="$per")
    fi
    start=$(date +%s)
    "$bin" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$out/crashes/$name-" "${dirs[@]}" >"$log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    after=$(ls "$out/crashes" | grep -c "^$name-" || true)
    crashes=$(( after - before ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    if [ $rc -ne 0 ] || [ "$crashes" -gt 0 ]; then
      status=crash
      [ "$crashes" -eq 0 ] && crashes=1
      msg="$name crashed (exit $rc); input in $out/crashes/, log in $log"
      grep -A 30 -m 1 -E "ERROR: |runtime error|$name: " "$log" >&2
    fi
  fi
  echo "fuzz: $name: ${execs:-0} executions in ${took:-0} s (${rate:-0} exec/s), $crashes crash(es)"
  [ "$status" != ok ] && failed=$((failed + 1))
  cases+=("$name|$status|${execs:-0}|${rate:-0}|$crashes|${took:-0}|$msg")
done

if [ -n "$junit" ]; then
  mkdir -p "$(dirname "$junit")"
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuite name=\"fuzz\" tests=\"${#cases[@]}\" failures=\"$failed\">"
    for c in "${cases[@]}"; do
      IFS='|' read -r name status execs rate crashes took msg <<<"$c"
      echo "  <testcase classname=\"fuzz\" name=\"$name\" time=\"$took\">"
      echo "    <system-out>$execs executions, $rate exec/s, $crashes crashes</system-out>"
      [ "$status" != ok ] && echo "    <failure message=\"$msg\"/>"
      echo "  </testcase>"
    done
    echo "</testsuite>"
  } >"$junit"
fi
[ $failed -eq 0 ]
