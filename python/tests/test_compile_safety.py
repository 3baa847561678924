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


def exp(x: np.ndarray) -> np.ndarray:
    return np.exp(x) + np.sqrt(x)


def free(x: np.ndarray) -> np.ndarray:
    return x * 2


@pytest.mark.parametrize("fn", [exp, free])
def test_a_function_named_like_a_c_library_symbol_does_not_capture_its_calls(fn: object) -> None:
    """A Python ``def exp`` compiles under another symbol: under its own name it would be the
    definition of libm's ``exp``, which the lowering of ``np.exp`` calls (a call that never
    returned), or of libc's ``free``, which releasing buffers calls."""
    x = np.arange(1.0, 5.0)
    np.testing.assert_allclose(dlbridge.jit(fn)(x), fn(x))  # type: ignore[operator]
