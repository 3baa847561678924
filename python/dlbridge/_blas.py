"""The BLAS that f32/f64 matmuls call: NumPy's, so a process has one BLAS thread pool.

Two BLAS libraries with their own thread pools in one process spin against each other on the
same cores (a matmul right after a NumPy one ran 20x slower when dlbridge used a second
OpenBLAS), so the runtime is handed the library NumPy loaded, found among the process's mapped
files. Without one (NumPy built on a BLAS the runtime cannot call), the runtime loads its
default (``libopenblas.so.0``).
"""

from __future__ import annotations

import re

import numpy  # noqa: F401  (loads NumPy's BLAS, which is what is looked for)

from . import _dlbridge

_BLAS_NAME = re.compile(r"/lib(scipy_openblas\w*|openblas\w*|cblas|blas|mkl_rt)([-.][^/]*)?\.so(\.[\d.]+)?$")


def loaded_blas_libraries(maps: str = "/proc/self/maps") -> list[str]:
    """The BLAS shared libraries mapped into this process, in the order they were mapped."""
    try:
        with open(maps) as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    paths: list[str] = []
    for line in lines:
        path = line.split(maxsplit=5)[-1] if line.count(" ") >= 5 else ""
        if _BLAS_NAME.search(path) and path not in paths:
            paths.append(path)
    return paths


def use_numpy_blas() -> str:
    """Hands the runtime the first loaded BLAS it can call; returns the library in use."""
    for path in loaded_blas_libraries():
        try:
            _dlbridge.set_blas(path)
            break
        except ValueError:
            continue
    return _dlbridge.blas_library()
