# dlbridge — the two commands a user needs:
#   make demo   builds dlbridge and runs the example
#   make test   builds dlbridge and runs every test suite
# Both install what is missing (Debian packages) first; a second run with
# everything present neither reinstalls nor reconfigures.

BUILD      ?= build
SAN_BUILD  ?= build-asan
TSAN_BUILD ?= build-tsan
LLVM_DIR   ?= /usr/lib/llvm-22
JOBS       ?= $(shell nproc)

APT_PACKAGES := libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools \
                ninja-build cmake g++ libgtest-dev python3
PYTHON     ?= python3
PY_REQUIREMENTS := python/requirements-test.txt
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
CMAKE_FLAGS := -G Ninja -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
               -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
               -DPython_EXECUTABLE=$$(command -v $(PYTHON)) \
               $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
                 -DCMAKE_C_COMPILER_LAUNCHER=ccache)

.PHONY: all deps build test test-unit test-lit test-python test-sanitizers \
        demo bench clean

all: build

deps:
	@missing=$$(for p in $(APT_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@$(PYTHON) -c "import nanobind, numpy, pytest, jax" 2>/dev/null || \
	  $(PYTHON) -m pip install -q -r $(PY_REQUIREMENTS)

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
	  $(PYTHON) -m pytest python/tests -q -p no:cacheprovider

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

test: test-lit test-unit test-python test-sanitizers

demo: build
	PYTHONPATH=$(BUILD)/python $(PYTHON) examples/quickstart.py

# Benchmarks against peers (installed from PyPI when missing); writes
# bench/results/latest.{json,md}. BENCH_ARGS=--quick for a one-minute run.
bench: build
	PYTHONPATH=$(BUILD)/python $(PYTHON) bench/run.py $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD)
