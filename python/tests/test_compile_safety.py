"""compile() never ends the process: a crash inside MLIR's parser (a stack
overflow included) and names LLVM cannot assemble come back as the ordinary
compile error (ValueError), and the process compiles on afterwards."""

from __future__ import annotations

import dlbridge
import numpy as np
import pytest

TRANSPOSE = """
func.func @t(%a: tensor<2x3xf32>) -> tensor<3x2xf32> attributes {dlpack.entry} {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}
"""


def test_a_parser_crash_is_a_compile_error() -> None:
    truncated = TRANSPOSE[: TRANSPOSE.index("permutation = [1") + len("permutation = [1")]
    with pytest.raises(ValueError, match="internal compiler error while parsing the source: "
                       r"signal 11 \(Segmentation fault\) in MLIR Parser: custom op parser "
                       "'linalg.transpose' inside MLIR/LLVM"):
        dlbridge.compile(truncated)
    kernel = dlbridge.compile(TRANSPOSE)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert np.array_equal(np.asarray(kernel(a)), a.T)


def test_a_stack_overflow_is_a_compile_error() -> None:
    depth = 1_000_000
    source = TRANSPOSE.replace("{dlpack.entry}", "{dlpack.entry, x = " + "[" * depth + "]" * depth + "}")
    with pytest.raises(ValueError, match="internal compiler error while parsing"):
        dlbridge.compile(source)
    assert dlbridge.compile(TRANSPOSE).signature["name"] == "t"


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_a_lambda_compiles_under_its_name(target: str) -> None:
    source = TRANSPOSE.replace("@t(", '@"<lambda>"(')
    kernel = dlbridge.compile(source, target=target)
    assert kernel.signature["name"] == "<lambda>"
