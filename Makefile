# dlbridge — the two commands a user needs:
#   make demo   builds dlbridge and runs the example
#   make test   builds dlbridge and runs every test suite
# Both install what is missing (Debian packages) first; a second run with
# everything present neither reinstalls nor reconfigures.

BUILD      ?= build
SAN_BUILD  ?= build-asan
TSAN_BUILD ?= build-tsan
WHEEL_BUILD ?= build-wheel
GPU_BUILD  ?= build-gpu
GPU_BUNDLE ?= gpu-bundle
LLVM_DIR   ?= /usr/lib/llvm-22
JOBS       ?= $(shell nproc)

APT_PACKAGES := libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools \
                libzstd-dev zlib1g-dev libopenblas0 ninja-build cmake g++ ccache \
                libgtest-dev clang-format python3 python3-dev python3-venv \
                libomp-22-dev
PY_REQUIREMENTS := python/requirements-test.txt
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# PYTHON is the interpreter to build for and test with. When it is
# externally managed (PEP 668: Debian's /usr/bin/python3 is), Python packages
# go into a project virtual environment made from it, .venv, and everything
# runs with that environment's interpreter, PY. These and the ccache flags
# are expanded where used, after deps-system has installed what they ask about.
PYTHON     ?= python3
VENV       := .venv
EXTERNALLY_MANAGED = $(shell $(PYTHON) -c 'import os, sys, sysconfig; \
  marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"); \
  sys.exit(sys.prefix != sys.base_prefix or not os.path.exists(marker))' \
  2>/dev/null && echo yes)
PY = $(if $(EXTERNALLY_MANAGED),$(CURDIR)/$(VENV)/bin/python,$(shell command -v $(PYTHON)))

CCACHE_FLAGS = $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
                  -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# Build directories sit side by side, so ccache finds one's objects for the
# other (the wheel's build-wheel/ reuses build/'s).
export CCACHE_BASEDIR := $(CURDIR)
CMAKE_FLAGS = -G Ninja -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
               -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
               -DPython_EXECUTABLE=$(PY) $(CCACHE_FLAGS)

.PHONY: all deps deps-system build test test-unit test-lit test-python test-sanitizers \
        test-wheel wheel lint demo bench gpu-bundle gpu-check clean

all: build

deps-system:
	@missing=$$(for p in $(APT_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

deps: deps-system
	@if [ -n "$(EXTERNALLY_MANAGED)" ] && [ ! -x $(VENV)/bin/python ]; then \
	  echo "$(PYTHON) is externally managed: Python packages go into $(VENV)"; \
	  $(PYTHON) -m venv $(VENV); \
	fi
	@$(PY) -c "import nanobind, numpy, pytest, jax, torch, auditwheel, ruff" 2>/dev/null || \
	  $(PY) -m pip install -q -r $(PY_REQUIREMENTS)

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD) -j $(JOBS)

test-unit: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-lit: build
	ninja -C $(BUILD) check-dlbridge-lit

test-python: build
	PYTHONPATH=$(BUILD)/python DL_OPT=$(BUILD)/bin/dl-opt \
	  $(PY) -m pytest python/tests -q -p no:cacheprovider

# The C++ unit tests again under ASan+UBSan (LeakSanitizer included), and the
# runtime's concurrency tests under TSan. libMLIR.so is not instrumented while
# LLVM's inline allocators in our code poison their slabs for ASan: user
# poisoning is turned off so the two halves agree.
# Allocations that fail must come back NULL (generated code turns that into
# DLRT_ERR_OUT_OF_MEMORY), as they do without ASan. LLVM replaces a thread's
# alternate signal stack with a larger one of its own, which ASan then fails
# to unmap at thread exit: ASan installs none.
ASAN_OPTIONS := allow_user_poisoning=0:detect_leaks=1:allocator_may_return_null=1:use_sigaltstack=0
$(SAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(SAN_BUILD) $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  '-DDLBRIDGE_SANITIZE=address;undefined'
$(TSAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(TSAN_BUILD) $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DDLBRIDGE_RUNTIME_ONLY=ON -DDLBRIDGE_SANITIZE=thread

test-sanitizers: deps $(SAN_BUILD)/build.ninja $(TSAN_BUILD)/build.ninja
	ninja -C $(SAN_BUILD) -j $(JOBS) dlbridge-unittests
	ASAN_OPTIONS=$(ASAN_OPTIONS) ctest --test-dir $(SAN_BUILD) --output-on-failure -j $(JOBS)
	ninja -C $(TSAN_BUILD) -j $(JOBS)
	ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS)

# The wheel `pip install .` builds, made self-contained and tagged by
# auditwheel, into $(WHEEL_BUILD)/dist.
wheel: deps
	rm -rf $(WHEEL_BUILD)/raw $(WHEEL_BUILD)/dist
	CMAKE_ARGS="$(CCACHE_FLAGS)" $(PY) -m pip wheel . --no-deps -w $(WHEEL_BUILD)/raw
	PATH="$$($(PY) -c 'import os, sys; print(os.path.dirname(sys.executable))'):$$PATH" \
	  $(PY) -m auditwheel repair -w $(WHEEL_BUILD)/dist $(WHEEL_BUILD)/raw/dlbridge-*.whl

# The wheel installed into a bare virtual environment and run from outside
# the source tree, with nothing else on the paths and LLVM hidden as if it
# were not installed: no LLVM may be needed or loaded.
test-wheel: wheel
	rm -rf $(WHEEL_BUILD)/venv
	$(PY) -m venv $(WHEEL_BUILD)/venv
	$(WHEEL_BUILD)/venv/bin/python -m pip install -q $(WHEEL_BUILD)/dist/dlbridge-*.whl
	cd /tmp && $(CURDIR)/test/Package/run_without_llvm.sh \
	  env -i PATH=/usr/bin:/bin HOME="$$HOME" DLBRIDGE_DISK_CACHE=0 \
	  $(CURDIR)/$(WHEEL_BUILD)/venv/bin/python $(CURDIR)/test/Package/check_wheel.py

# Style, checked and never rewritten: C and C++ against .clang-format (LLVM's
# style), Python against pyproject.toml's ruff configuration.
# `clang-format -i FILE` and `ruff check --fix` apply them.
lint: deps
	git ls-files -z '*.c' '*.cpp' '*.h' ':!:third_party' | \
	  xargs -0 clang-format --dry-run -Werror
	$(PY) -m ruff check .

test: lint test-lit test-unit test-python test-sanitizers test-wheel

demo: build
	PYTHONPATH=$(BUILD)/python $(PY) examples/quickstart.py

# Benchmarks against peers (installed from PyPI when missing); writes
# bench/results/latest.{json,md}. BENCH_ARGS=--quick for a one-minute run.
bench: build
	PYTHONPATH=$(BUILD)/python $(PY) bench/run.py $(BENCH_ARGS)

# The GPU half, on a machine with an NVIDIA GPU and no MLIR. Here (with
# MLIR): `make gpu-bundle` packs the core, with MLIR and LLVM linked in, and
# the GPU unit tests into $(GPU_BUNDLE)/. There: `make gpu-check` builds the
# Python extension against it, runs every GPU test and the GPU benchmark
# rows, and writes bench/results/gpu-latest.{md,json}; GPU_CHECK_LOGS=DIR
# keeps each step's output.
GPU_UNITTESTS := CudaDeviceTest CudaStreamValueTest CudaMatmulDeviceTest DLBridgeCUDAKernelTests
$(GPU_BUILD)/build.ninja: | deps
	cmake -S . -B $(GPU_BUILD) $(CMAKE_FLAGS) -DDLBRIDGE_STATIC_LLVM=ON

gpu-bundle: deps $(GPU_BUILD)/build.ninja
	ninja -C $(GPU_BUILD) -j $(JOBS) dlbridge_core $(GPU_UNITTESTS)
	test/GPU/make-bundle.sh $(GPU_BUILD) $(GPU_BUNDLE) $(GPU_UNITTESTS)

gpu-check:
	test/GPU/gpu-check.sh $(GPU_BUNDLE) $(GPU_CHECK_LOGS)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD) $(WHEEL_BUILD) $(GPU_BUILD) $(GPU_BUNDLE)
