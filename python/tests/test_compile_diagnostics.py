"""Every program ``dlbridge.compile`` refuses raises a ValueError whose
message is located in the user's source (``<source>:LINE:COL``), names the
user's operation and says what to change, without operation dumps or
conversion casts."""

from __future__ import annotations

from typing import NamedTuple

import dlbridge
import pytest


class Refusal(NamedTuple):
    """A program, where its error is, the operation it names and the advice."""

    source: str
    location: str
    op: str
    advice: str


REFUSALS = {
    "gpu_launch_on_cpu": Refusal(
        """
func.func @f(%a: memref<?xf32>) attributes {dlpack.entry} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
""", "<source>:4:3", "'gpu.launch'",
        "compile it with the CUDA target (target=\"cuda\""),
    "gpu_launch_func_on_cpu": Refusal(
        """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%a: memref<?xf32>) attributes {dlpack.entry} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
}
""", "<source>:10:5", "'gpu.launch_func'", "compile it with the CUDA target"),
    "index_elements": Refusal(
        """
func.func @f(%a: tensor<4xindex>) -> tensor<4xindex> attributes {dlpack.entry} {
  return %a : tensor<4xindex>
}
""", "<source>:2:14", "'func.func' @f", "use i64 or i32"),
    "unranked_tensor": Refusal(
        """
func.func @f(%a: tensor<*xf32>) -> tensor<*xf32> attributes {dlpack.entry} {
  return %a : tensor<*xf32>
}
""", "<source>:2:14", "'func.func' @f", "give it a rank"),
    "f128_scalar": Refusal(
        """
func.func @f(%a: memref<4xf32>, %s: f128) attributes {dlpack.entry} {
  return
}
""", "<source>:2:33", "'func.func' @f", "use f16, bf16, f32, f64"),
    "tuple_argument": Refusal(
        """
func.func @f(%a: tuple<f32, f32>) attributes {dlpack.entry} {
  return
}
""", "<source>:2:14", "'func.func' @f",
        "pass each element of the tuple as its own value"),
    "unbufferizable_op": Refusal(
        """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dlpack.entry} {
  %r = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""", "<source>:3:8", "'tosa.add'", "express it with linalg ops"),
    "undefined_callee": Refusal(
        """
func.func private @not_defined_anywhere(f32) -> f32
func.func @f(%a: f32) -> f32 attributes {dlpack.entry} {
  %r = func.call @not_defined_anywhere(%a) : (f32) -> f32
  return %r : f32
}
""", "<source>:4:8", "'func.call'", "define @not_defined_anywhere in the module"),
    "entry_without_body": Refusal(
        """
func.func private @f(memref<4xf32>) attributes {dlpack.entry}
""", "<source>:2:1", "'func.func' @f", "give it a body"),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusal_is_located_named_and_actionable(name: str) -> None:
    refusal = REFUSALS[name]
    with pytest.raises(ValueError) as info:
        dlbridge.compile(refusal.source, target="cpu")
    message = str(info.value)
    assert f"{refusal.location}: error: {refusal.op}" in message
    assert refusal.advice in message
    assert "see current operation" not in message
    assert "unrealized_conversion_cast" not in message


def test_library_function_the_process_exports_links() -> None:
    source = """
func.func private @cosf(f32) -> f32
func.func @f(%a: f32) -> f32 attributes {dlpack.entry} {
  %r = func.call @cosf(%a) : (f32) -> f32
  return %r : f32
}
"""
    kernel = dlbridge.compile(source, target="cpu")
    assert float(kernel(0.0)) == 1.0
