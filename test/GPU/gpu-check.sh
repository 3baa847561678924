#!/usr/bin/env bash
# make gpu-check: every GPU test and the GPU benchmark rows, on a machine with
# an NVIDIA GPU, Python, CMake and a C++ compiler but no MLIR. It unpacks the
# core `make gpu-bundle` built elsewhere, builds only the Python extension
# against it for this machine's Python, runs the GPU unit tests, the GPU
# Python tests (PyTorch, CuPy and JAX CUDA arrays) and bench/gpu.py, which
# writes bench/results/gpu-latest.{md,json} (into LOG_DIR when given, section
# by section, so that a run cut short keeps what it measured).
#   gpu-check.sh BUNDLE_DIR [LOG_DIR]
# GPU_BENCH_ARGS=--quick: smaller benchmark sizes. GPU_CHECK_STEPS: the steps
# to run after building the extension (default: unittests pytest bench).
set -uo pipefail
bundle=$1/dlbridge-gpu.tar.xz
logs=${2:-}
python=${PYTHON:-python3}
work=${GPU_CHECK_WORK:-/tmp/dlbridge-gpu}
root=$(cd "$(dirname "$0")/../.." && pwd)

if [ ! -f "$bundle" ]; then
  echo "gpu-check: $bundle is missing: run 'make gpu-bundle' where MLIR 22 is" \
       "installed and bring its output here" >&2
  exit 2
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi -L failed)" >&2
  exit 2
fi

nvidia-smi -L
"$python" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' ||
  true

failed=()
step() { # step NAME COMMAND...: runs it, logs it, remembers a failure
  local name=$1
  shift
  echo "=== $name"
  if [ -n "$logs" ]; then
    "$@" 2>&1 | tee "$logs/$name.log"
  else
    "$@"
  fi
  local status=${PIPESTATUS[0]}
  [ "$status" -eq 0 ] || failed+=("$name (exit $status)")
  return "$status"
}

rm -rf "$work" && mkdir -p "$work/core"
tar -C "$work/core" -xJf "$bundle" || exit 2
# cuBLASLt, which libdlrt loads by name for matmuls: the toolkit's, else the
# one PyTorch's wheels bring.
cublas=$("$python" -c 'import nvidia.cublas as c; print(list(c.__path__)[0] + "/lib")' 2>/dev/null)
export LD_LIBRARY_PATH="$work/core/lib:/usr/local/cuda/lib64${cublas:+:$cublas}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

build_extension() {
  cmake -S "$root/python" -B "$work/python" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython_EXECUTABLE="$(command -v "$python")" \
    -DDLBRIDGE_CORE_DIR="$work/core/lib" \
    "-DDLBRIDGE_INCLUDE_DIRS=$root/include;$root/third_party/dlpack/include" &&
    ninja -C "$work/python" _dlbridge dlbridge-python-sources
}
step extension build_extension || exit 1
export PYTHONPATH="$work/python/python${PYTHONPATH:+:$PYTHONPATH}"

unit_tests() {
  local status=0
  for test in "$work"/core/unittests/*; do
    "$test" --gtest_brief=1 || status=1
  done
  return "$status"
}
steps=" ${GPU_CHECK_STEPS:-unittests pytest bench} "
[[ $steps == *" unittests "* ]] && step unittests unit_tests
[[ $steps == *" pytest "* ]] &&
  step pytest "$python" -m pytest "$root/python/tests/gpu" -q -p no:cacheprovider -rs
# shellcheck disable=SC2086 # GPU_BENCH_ARGS is a list of options
[[ $steps == *" bench "* ]] &&
  step bench "$python" "$root/bench/gpu.py" --out "${logs:-$root/bench/results}" ${GPU_BENCH_ARGS:-}

if [ "${#failed[@]}" -ne 0 ]; then
  printf 'gpu-check: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "gpu-check: every GPU test passed"
