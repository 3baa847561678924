"""``dlbridge.compile``: hand-written MLIR, its signature and stages, and the
errors a caller can make."""

from __future__ import annotations

import dlbridge
import numpy as np
import pytest

AXPY = """
func.func @axpy(%x: memref<?xf32, strided<[?], offset: ?>> {dlpack.name = "x"},
                %y: memref<?xf32> {dlpack.name = "y"},
                %alpha: f32 {dlpack.name = "alpha"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32, strided<[?], offset: ?>>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32, strided<[?], offset: ?>>
    %b = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %a, %alpha : f32
    %s = arith.addf %p, %b : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}
"""

SOFTMAX = """
func.func @softmax(%x: tensor<?x?xf32> {dlpack.name = "x"}) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


def test_memref_entry_writes_in_place() -> None:
    axpy = dlbridge.compile(AXPY)
    x = np.arange(5, dtype=np.float32)
    y = np.ones(5, np.float32)
    assert axpy(x[::-1], y, 2.0) is None
    np.testing.assert_array_equal(y, 2 * x[::-1] + 1)


def test_signature_and_stages() -> None:
    axpy = dlbridge.compile(AXPY, entry="axpy")
    sig = axpy.signature
    assert sig["name"] == "axpy" and sig["device"] == "cpu"
    assert [a["name"] for a in sig["args"]] == ["x", "y", "alpha"]
    assert sig["args"][0] == {"name": "x", "kind": "tensor", "dtype": "float32", "shape": (None,),
                              "layout": "strided", "access": "read"}
    assert sig["args"][1]["access"] == "read_write"
    assert sig["args"][2] == {"name": "alpha", "kind": "scalar", "dtype": "float32"}
    assert "dlpack.entry" in axpy.mlir["input"]
    assert "llvm.func @axpy__dlpack" in axpy.mlir["llvm"]


def test_tensor_entry_softmax() -> None:
    softmax = dlbridge.compile(SOFTMAX)
    x = np.random.default_rng(1).standard_normal((4, 7)).astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax(x), e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(softmax(x.T.copy().T), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_wrong_dtype_rank_and_scalar() -> None:
    axpy = dlbridge.compile(AXPY)
    y = np.ones(3, np.float32)
    with pytest.raises(TypeError, match=r"axpy\(\): argument 0 'x': expected float32, got float64"):
        axpy(np.ones(3), y, 1.0)
    with pytest.raises(ValueError, match=r"axpy\(\): argument 0 'x': expected rank 1, got rank 2"):
        axpy(np.ones((3, 1), np.float32), y, 1.0)
    with pytest.raises(TypeError, match=r"argument 2 'alpha': expected a Python or NumPy scalar, got 'numpy.ndarray'"):
        axpy(y, y, np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"argument 1 'y': expected an array, got 'float'"):
        axpy(y, 1.0, 1.0)
    with pytest.raises(TypeError, match=r"axpy\(\) takes 3 arguments \(x, y, alpha\), got 2"):
        axpy(y, y)


def test_layout_the_type_cannot_honour() -> None:
    axpy = dlbridge.compile(AXPY)
    with pytest.raises(ValueError, match=r"argument 1 'y': dim 0 expected stride 1 \(compact row-major\), got 2"):
        axpy(np.ones(3, np.float32), np.ones(6, np.float32)[::2], 1.0)


def test_compile_errors_carry_mlir_diagnostics() -> None:
    with pytest.raises(ValueError, match=r"<source>:2:\d+: error: custom op 'func.fnuc' is unknown"):
        dlbridge.compile("\nfunc.fnuc @f() { return }")
    with pytest.raises(ValueError, match="no function is marked 'dlpack.entry'"):
        dlbridge.compile("func.func @f() { return }")
    with pytest.raises(ValueError, match=r"no 'dlpack.entry' function named @g; entries: @axpy"):
        dlbridge.compile(AXPY, entry="g")
    # (Bad options: test_options.py.)


# -- scalar arguments -------------------------------------------------------------------------


def _identity(mlir_type: str) -> dlbridge.Kernel:
    return dlbridge.compile(f"""
func.func @ident(%n: {mlir_type} {{dlpack.name = "n"}}) -> {mlir_type} attributes {{dlpack.entry}} {{
  return %n : {mlir_type}
}}
""")


@pytest.mark.parametrize("mlir_type, low, high, dtype", [
    ("i8", -128, 127, "int8"), ("i32", -2**31, 2**31 - 1, "int32"),
    ("i64", -2**63, 2**63 - 1, "int64")])
def test_python_ints_are_range_checked(mlir_type: str, low: int, high: int, dtype: str) -> None:
    k = _identity(mlir_type)
    assert k(low) == low and k(high) == high
    for bad in (low - 1, high + 1, high + 2**70):
        with pytest.raises(OverflowError, match=rf"ident\(\): argument 0 'n': expected {dtype} "
                                                rf"in \[{low}, {high}\], got {bad}"):
            k(bad)


def test_the_issues_example_no_longer_wraps() -> None:
    with pytest.raises(OverflowError, match="got 4294967303"):
        _identity("i32")(2**32 + 7)


def test_numpy_scalars_are_scalars() -> None:
    assert _identity("i32")(np.int64(4)) == 4
    assert _identity("i64")(np.uint64(2**63 - 1)) == 2**63 - 1
    assert _identity("i32")(np.bool_(True)) == 1
    assert _identity("f32")(np.float32(2.5)) == 2.5
    assert _identity("f64")(np.float16(0.5)) == 0.5
    assert _identity("i1")(np.bool_(True)) is True
    with pytest.raises(OverflowError, match="expected int8"):
        _identity("i8")(np.int64(300))
    with pytest.raises(TypeError, match="expected an integer, got 'numpy.float32'"):
        _identity("i32")(np.float32(2))


def test_scalar_parameters_name_the_argument_for_any_bad_value() -> None:
    with pytest.raises(OverflowError, match=r"ident\(\): argument 0 'n': .*too large"):
        _identity("f64")(10**400)
    with pytest.raises(TypeError, match=r"argument 0 'n': expected a Python or NumPy scalar, "
                                        r"got 'str'"):
        _identity("f32")("1.5")
    with pytest.raises(TypeError, match=r"argument 0 'n': expected a Python or NumPy scalar, "
                                        r"got 'NoneType'"):
        _identity("i1")(None)


def test_float16_scalars_round_trip() -> None:
    assert _identity("f16")(1.5) == 1.5
    assert _identity("f16")(np.float16(-2.25)) == -2.25
    assert _identity("f16")(65504.0) == 65504.0
    with pytest.raises(OverflowError, match=r"argument 0 'n': expected float16 in \[-65504, 65504\], got 10000000000.0"):
        _identity("f16")(1e10)
