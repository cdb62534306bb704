# VulPy's user-facing commands. `make run` and `make test` do every set-up
# step themselves on a fresh Debian 12 machine: system packages, the CMake
# build, and a .venv with the Python packages pinned in pyproject.toml.
SHELL := /bin/bash
BUILD ?= build
VENV ?= .venv
PY := $(VENV)/bin/python
JOBS ?= $(shell nproc)
CMAKE ?= cmake
CMAKE_FLAGS ?=

# Debian 12 packages: the only list of system dependencies.
DEB_PACKAGES := cmake ninja-build pkg-config gcc g++ python3-venv python3-dev \
  glslang-dev glslang-tools spirv-tools spirv-headers libspirv-cross-c-shared-dev \
  libvulkan-dev libvulkan-volk-dev libvulkan1 mesa-vulkan-drivers vulkan-validationlayers \
  vulkan-tools libyaml-dev llvm-14-tools clang-14 libclang-rt-14-dev hipcc \
  python3-matplotlib valgrind patchelf \
  openmpi-bin libopenmpi-dev \
  libvkfft-dev

.PHONY: all deps venv configure build run test test-only build-sanitize test-sanitize test-sanitize-ci bench bench-report bench-extra fuzz fuzz-long clean wheel

all: build

deps:
	@scripts/deps.sh $(DEB_PACKAGES)

venv: $(VENV)/.stamp

$(VENV)/.stamp: pyproject.toml scripts/pydeps.py
	@test -x $(PY) || python3 -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check $$(python3 scripts/pydeps.py dev)
	@# import vulpy straight from the source tree (the extension is built into it)
	@echo "$(CURDIR)/bindings/python" > $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/vulpy-dev.pth
	@touch $@

$(BUILD)/build.ninja: CMakeLists.txt | venv
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DVULPY_WERROR=ON -DPython3_EXECUTABLE=$(CURDIR)/$(PY) $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: deps venv configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

run: build
	@scripts/run-quickstart.sh

test: build
	@$(PY) scripts/run_tests.py --build $(BUILD)

# Tests without the set-up steps (for a tree that is already built).
test-only:
	@$(PY) scripts/run_tests.py --build $(BUILD)

# The same suites against an AddressSanitizer + UndefinedBehaviorSanitizer
# build of all the C code (libraries, runtime, tools, unit tests, the Python
# extension) in its own folder; any report fails the test that caused it.
# SANITIZE_FLAGS passes options to scripts/run_tests.py, e.g.
# SANITIZE_FLAGS="--only lit --only ctest". docs/testing.md says more.
ASAN_BUILD ?= build-asan
SANITIZE_FLAGS ?=
$(ASAN_BUILD)/build.ninja: CMakeLists.txt | venv
	$(CMAKE) -S . -B $(ASAN_BUILD) -G Ninja -DVULPY_SANITIZE=ON -DVULPY_WERROR=ON \
	  -DPython3_EXECUTABLE=$(CURDIR)/$(PY) $(CMAKE_FLAGS)

build-sanitize: deps venv $(ASAN_BUILD)/build.ninja
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

test-sanitize: build-sanitize
	@$(PY) scripts/run_tests.py --build $(ASAN_BUILD) --sanitize $(SANITIZE_FLAGS)

# What CI runs after `make test` (.ci/run): all of lit and ctest, and the
# pytest files that drive the extension's C code hardest (buffers, kernels,
# the JIT, DLPack, MemSock, control words, the cache, sizes); the whole
# pytest suite under ASan takes over an hour on two cores.
SANITIZE_CI_PYTEST := $(addprefix test/python/,test_kernel.py test_jit.py test_dlpack.py \
  test_memsock.py test_control.py test_trust_cache.py test_trust_sizes.py test_context.py \
  test_memory_pool.py test_launcher.py test_native_env.py)
test-sanitize-ci: build-sanitize
	@$(PY) scripts/run_tests.py --build $(ASAN_BUILD) --sanitize --pytest-args "$(SANITIZE_CI_PYTEST)"

# Every suite here (lavapipe: a few minutes), then docs/performance.md (the
# report runs under a Python with matplotlib: Debian's python3-matplotlib).
# BENCH_FLAGS=--quick for a short run, BENCH_FLAGS="--suite compare" for one.
BENCH_FLAGS ?=
bench: build
	@$(PY) bench/run.py --build $(BUILD) $(BENCH_FLAGS)

bench-report:
	@$(PY) -c 'import sys; sys.path.insert(0, "bench"); import run; sys.exit(run.render())'

# The benchmarks' optional peers (Taichi), pinned in pyproject.toml's
# bench-extra group; `make test` does not need them.
bench-extra: venv
	@$(PY) -m pip install -q --disable-pip-version-check $$(python3 scripts/pydeps.py bench-extra)

# The libFuzzer targets (clang-14, test/fuzz/fuzz_*.c), for as long as
# FUZZ_SECONDS says (split between them); fuzz-long runs each one for
# FUZZ_RUNS executions from its checked-in corpus (docs/architecture.md,
# "Fuzzing", says how long that takes). FUZZ_TARGETS="fuzz_vir ..." picks.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 10000000
fuzz: deps venv
	@scripts/fuzz.sh $(FUZZ_SECONDS)

fuzz-long: deps venv
	@scripts/fuzz.sh --runs $(FUZZ_RUNS)

# One abi3 wheel (dist/), repaired by auditwheel into wheelhouse/.
wheel: deps venv
	@PYTHON=$(PY) scripts/build-wheel.sh wheelhouse

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
