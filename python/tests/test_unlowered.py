"""Programs a target cannot compile fail in ``dlbridge.compile`` with the
pipeline's diagnostic, located in the user's source and naming the
operation, never with an LLVM translation error about casts."""

from __future__ import annotations

import dlbridge
import pytest

GPU_LAUNCH = """
func.func @double(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}
"""


def test_gpu_launch_for_the_cpu_names_the_op_and_the_target() -> None:
    with pytest.raises(ValueError) as info:
        dlbridge.compile(GPU_LAUNCH, target="cpu")
    message = str(info.value)
    assert ("<source>:6:3: error: 'gpu.launch' is GPU code: compile it with the CUDA target "
            "(target=\"cuda\", or --dlbridge-cuda-pipeline)") in message
    assert "unrealized_conversion_cast" not in message
