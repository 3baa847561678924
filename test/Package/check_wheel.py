"""Checks an installed dlbridge wheel the way a new user meets it.

Run with the interpreter of a bare virtual environment into which only the
wheel (and NumPy) was installed, from a directory outside the source tree:

    test/Package/run_without_llvm.sh venv/bin/python test/Package/check_wheel.py

It jits a function, calls it and checks the numbers (a large one on two
threads too), then fails if any shared library of LLVM or MLIR was loaded
into the process, if the package still resolves anything from a system
LLVM installation, or if it lacks what type checkers read (py.typed and the
extension's stub).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import dlbridge
import numpy as np

LLVM_MARKERS = ("libLLVM", "libMLIR", "/llvm-")


def loaded_libraries() -> set[str]:
    """The paths of every file mapped into this process."""
    maps = pathlib.Path("/proc/self/maps").read_text().splitlines()
    return {line.split()[-1] for line in maps if line.split()[-1].startswith("/")}


def check_jit_runs() -> None:
    @dlbridge.jit
    def scaled_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.sqrt(x) * 2.0 + y

    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    y = np.ones((4, 4), dtype=np.float32)
    np.testing.assert_allclose(scaled_sum(x, y), np.sqrt(x) * 2.0 + y, rtol=1e-6)


def check_threads_run() -> None:
    """A loop large enough for two threads runs on libomp's (the wheel bundles libomp)."""
    dlbridge.set_num_threads(2)

    @dlbridge.jit
    def doubled(x: np.ndarray) -> np.ndarray:
        return x * 2.0

    np.testing.assert_array_equal(doubled(np.ones(16)), np.full(16, 2.0))
    tasks = len(os.listdir("/proc/self/task"))
    x = np.arange(1_000_000, dtype=np.float64)
    np.testing.assert_array_equal(doubled(x), x * 2.0)
    if len(os.listdir("/proc/self/task")) <= tasks:
        sys.exit("a parallel loop of 10**6 iterations started no helper thread")


def check_no_llvm_loaded() -> None:
    llvm = sorted(p for p in loaded_libraries() if any(m in p for m in LLVM_MARKERS))
    if llvm:
        sys.exit(f"the installed package loaded LLVM/MLIR libraries: {llvm}")


def check_no_llvm_needed() -> None:
    package = pathlib.Path(dlbridge.__file__).parent
    for library in sorted(package.parent.glob("dlbridge*/**/*.so*")):
        needed = subprocess.run(["ldd", str(library)], check=True, capture_output=True,
                                text=True).stdout
        bad = [line.strip() for line in needed.splitlines()
               if "not found" in line or any(m in line for m in LLVM_MARKERS)]
        if bad:
            sys.exit(f"{library.name} needs what a bare machine lacks: {bad}")


def check_typed() -> None:
    package = pathlib.Path(dlbridge.__file__).parent
    for name in ("py.typed", "_dlbridge.pyi"):
        if not (package / name).is_file():
            sys.exit(f"the installed package lacks {name}: type checkers would see Any")


def main() -> None:
    if pathlib.Path.cwd().joinpath("python", "dlbridge").is_dir():
        sys.exit("run this outside the source tree, so that the installed package is imported")
    check_jit_runs()
    check_threads_run()
    check_no_llvm_loaded()
    check_no_llvm_needed()
    check_typed()
    hidden = not any(pathlib.Path("/usr/lib").glob("llvm-*/lib"))
    print(f"dlbridge {dlbridge.__version__} from {pathlib.Path(dlbridge.__file__).parent}: "
          "a jitted function ran with no LLVM or MLIR library loaded"
          + (", LLVM hidden" if hidden else ", LLVM installed but unused"))


if __name__ == "__main__":
    main()
