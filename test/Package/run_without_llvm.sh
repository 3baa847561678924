#!/bin/sh
# Runs a command as on a machine with no LLVM installed: in a private mount
# namespace where /usr/lib/llvm-*, every libLLVM/libMLIR shared object and
# LLVM's OpenMP runtime (libomp, which the wheel bundles) are hidden. Where
# no namespace can be made (not root, or a container that forbids it) it
# says so and runs the command as it is; check_wheel.py still fails when an
# LLVM library gets loaded.
if unshare -m true 2>/dev/null; then
  exec unshare -m sh -c '
    for dir in /usr/lib/llvm-*; do mount -t tmpfs none "$dir"; done
    for lib in /usr/lib/*/libLLVM*.so* /usr/lib/*/libMLIR*.so* /usr/lib/*/libomp*.so*; do
      [ -f "$lib" ] && mount --bind /dev/null "$lib"
    done
    exec "$@"' sh "$@"
fi
echo "run_without_llvm.sh: cannot hide LLVM here (no private mount namespace)" >&2
exec "$@"
