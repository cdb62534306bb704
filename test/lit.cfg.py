# lit configuration for VulPy's suites: test/IR, test/Frontend, test/Transforms,
# test/Target, test/Tools, test/Runtime. Tools come from $VULPY_BUILD/bin
# (default build/bin), FileCheck/not from LLVM 14.
import os
import shutil
import subprocess as _sp
import sys

import lit.formats

config.name = "VulPy"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".vir", ".py", ".json", ".yaml", ".glsl", ".test", ".spvasm"]
config.excludes = ["Inputs", "python", "unit", "fuzz", "lit.cfg.py", "__pycache__"]
config.test_source_root = os.path.dirname(__file__)
root = os.path.dirname(config.test_source_root)
build = os.environ.get("VULPY_BUILD", os.path.join(root, "build"))
if not os.path.isabs(build):
    build = os.path.join(root, build)
config.test_exec_root = os.path.join(build, "test")

llvm_bin = "/usr/lib/llvm-14/bin"
bin_dir = os.path.join(build, "bin")
config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin, os.environ.get("PATH", "")])
for var in ("HOME", "XDG_CACHE_HOME", "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VULPY_DEVICE",
            "VK_INSTANCE_LAYERS", "VULPY_VALIDATION", "PYTHONPATH", "LD_LIBRARY_PATH",
            "LD_PRELOAD", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",  # sanitizer runs
            "VULPY_EXTENSION"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Every kernel run in a lit test goes through the Khronos validation layer.
config.environment.setdefault("VULPY_VALIDATION", "1")
config.environment["PYTHONPATH"] = os.pathsep.join(
    [os.path.join(root, "bindings", "python"), config.environment.get("PYTHONPATH", "")])

python = sys.executable
# An ASan + UBSan build (make test-sanitize): its tools carry the ASan
# runtime, but the interpreter does not, and the build's Python extension
# (VULPY_EXTENSION) only loads with the runtime preloaded; the interpreter
# keeps its objects until exit, so no leak check there (scripts/run_tests.py).
try:
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        asan = "VULPY_SANITIZE:BOOL=ON" in f.read()
except OSError:
    asan = False
if asan:
    config.available_features.add("asan")
    runtime = _sp.run([os.environ.get("CC", "gcc"), "-print-file-name=libasan.so"],
                      capture_output=True, text=True).stdout.strip()
    opts = config.environment.get("ASAN_OPTIONS", "").replace("detect_leaks=1", "detect_leaks=0")
    python = f"env LD_PRELOAD={runtime} ASAN_OPTIONS=detect_leaks=0:{opts} {python}"
config.substitutions.append(("%python", python))
config.substitutions.append(("%dump-ast", f"{python} -m vulpy dump-ast"))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%root", root))
config.substitutions.append(("%nvcc", "/usr/local/cuda/bin/nvcc"))

if os.path.exists("/usr/local/cuda/bin/nvcc"):
    config.available_features.add("nvcc")
# NVRTC (libnvrtc from the CUDA toolkit or the nvidia-cuda-nvrtc wheel):
# compile-all-nvrtc.test compiles the printed CUDA the way CuPy does.
if _sp.run([sys.executable, os.path.join(config.test_source_root, "Target", "Inputs", "nvrtc_compile.py"),
            "--find"], capture_output=True).returncode == 0:
    config.available_features.add("nvrtc")
if shutil.which("valgrind") and not asan:  # valgrind cannot run an ASan program
    config.available_features.add("valgrind")
# Debian's hipcc picks the NVIDIA platform whenever nvcc is installed; the
# HIP tests target AMD (gfx90a), so %hipcc pins the AMD platform and the
# clang Debian's hipcc was built with (clang-15, a dependency of hipcc).
hipcc = shutil.which("hipcc")
hip_clang = next((d for d in ("/usr/lib/llvm-15/bin", "/usr/lib/llvm-16/bin", "/usr/lib/llvm-17/bin")
                  if os.path.exists(os.path.join(d, "clang++"))), None)
if hipcc and hip_clang:
    config.available_features.add("hipcc")
    config.substitutions.append(("%hipcc", f"env HIP_PLATFORM=amd HIP_CLANG_PATH={hip_clang} {hipcc}"))
