"""One sample of ``bench/run.py``'s compile-time rows, run in a fresh process.

The caller sets ``DLBRIDGE_CACHE_DIR`` (empty for a cold sample, filled for a
disk-hit sample). Times are taken inside this process after ``import
dlbridge``, so interpreter start-up is not counted. Prints one JSON line:
``{"times": {name: seconds}, "from_disk_cache": bool}``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import dlbridge
import numpy as np

AXPY_MLIR = """
#map = affine_map<(d0) -> (d0)>
func.func @axpy(%a: f32 {dlpack.name = "a"}, %x: tensor<?xf32> {dlpack.name = "x"},
                %y: tensor<?xf32> {dlpack.name = "y"}) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %p = arith.mulf %a, %u : f32
    %s = arith.addf %p, %v : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def axpy(a: Any, x: Any, y: Any) -> Any:
    """The small kernel: a*x + y."""
    return a * x + y


def main() -> None:
    """Times compile(), a jit function's first call and the in-memory hits."""
    x = np.ones(16, np.float32)
    y = np.ones(16, np.float32)
    times: dict[str, float] = {}

    start = time.perf_counter()
    kernel = dlbridge.compile(AXPY_MLIR)
    times["compile"] = time.perf_counter() - start
    from_disk = bool(kernel.from_disk_cache)

    start = time.perf_counter()
    dlbridge.jit(axpy)(2.0, x, y)
    times["jit_first_call"] = time.perf_counter() - start

    start = time.perf_counter()
    dlbridge.compile(AXPY_MLIR)
    times["compile_again"] = time.perf_counter() - start

    start = time.perf_counter()
    dlbridge.jit(axpy)(2.0, x, y)
    times["jit_new_function"] = time.perf_counter() - start

    print(json.dumps({"times": times, "from_disk_cache": from_disk}))


if __name__ == "__main__":
    main()
