#!/usr/bin/env bash
# make gpu-bundle: what `make gpu-check` needs on a GPU machine that has no
# MLIR, in one archive: libdlbridge_core (MLIR and LLVM linked in), libdlrt,
# LLVM's OpenMP runtime the core loads, and the GPU unit tests.
#   make-bundle.sh BUILD_DIR OUTPUT_DIR TEST...
set -euo pipefail
build=$1
out=$2
shift 2

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$stage/unittests"
cp -L "$build/lib/libdlbridge_core.so" "$build/lib/libdlrt.so" "$stage/lib/"
omp=$(ldd "$build/lib/libdlbridge_core.so" | awk '/libomp/ { print $3 }')
if [ -n "$omp" ]; then
  cp -L "$omp" "$stage/lib/"
fi
for test in "$@"; do
  cp "$build/unittests/$test" "$stage/unittests/"
done
mkdir -p "$out"
XZ_OPT=${XZ_OPT:--T0} tar -C "$stage" -cJf "$out/dlbridge-gpu.tar.xz" .
ls -l "$out/dlbridge-gpu.tar.xz"
