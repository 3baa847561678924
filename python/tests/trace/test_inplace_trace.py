"""The MLIR the tracer emits for arguments updated in place: written arguments become memref
parameters with any strides, read through ``to_tensor`` and stored with
``materialize_in_destination``; the module verifies and lowers for every kind of argument."""

from __future__ import annotations

import re

import pytest
from _mlir import check_lowers, check_verifies
from dlbridge._trace import ArraySpec, ScalarSpec, TraceError, trace


def _traced(fn, specs):
    r = trace(fn, specs, name="f")
    check_verifies(r.mlir)
    check_lowers(r.mlir)
    return r


def _iadd(c, a):
    c += a


@pytest.mark.parametrize(
    "spec,memref",
    [
        (ArraySpec("float32", 2), r"memref<\?x\?xf32, strided<\[\?, \?\], offset: \?>>"),
        (ArraySpec("int8", 3, (False, True, False)), r"memref<\?x1x\?xi8, strided<\[\?, \?, \?\], offset: \?>>"),
        (ArraySpec("float64", 0), r"memref<f64, strided<\[\], offset: \?>>"),
        (ArraySpec("uint16", 1), r"memref<\?xi16, strided<\[\?\], offset: \?>>"),
    ],
)
def test_written_argument_parameter(spec, memref):
    r = _traced(_iadd, [spec, ArraySpec(spec.dtype, 0)])
    assert r.written_args == ["c"]
    assert re.search(rf"%c_buf: {memref} {{dlpack.name = \"c\"", r.mlir), r.mlir
    assert re.search(rf"%c = bufferization.to_tensor %c_buf restrict writable : {memref} to tensor<", r.mlir)
    assert re.search(rf"bufferization.materialize_in_destination %\w+ in restrict writable %c_buf : \(tensor<[^>]*>, {memref}\) -> \(\)", r.mlir)
    if spec.dtype == "uint16":
        assert '%c_buf: memref<?xi16, strided<[?], offset: ?>> {dlpack.name = "c", dlpack.dtype = #dlpack.dtype<uint, 16>}' in r.mlir
    # the argument only read stays a tensor
    assert re.search(r"%a: tensor<", r.mlir)


def test_arguments_that_are_not_written_stay_tensors():
    r = _traced(lambda x, y: x + y, [ArraySpec("float32", 1), ArraySpec("float32", 1)])
    assert r.written_args == []
    assert "memref" not in r.mlir and "bufferization" not in r.mlir


def test_several_written_arguments_and_results():
    def f(c, d, a, s):
        c += a
        d[...] = c * s
        return c, d.sum()

    r = _traced(f, [ArraySpec("float32", 1)] * 3 + [ScalarSpec("float")])
    assert r.written_args == ["c", "d"]
    assert r.mlir.count("materialize_in_destination") == 2
    # results never alias an argument: the returned c is a copy of its final value
    assert "linalg.copy" in r.mlir


def test_rebinding_is_not_an_update():
    def f(c, a):
        c = c + a
        return c

    assert _traced(f, [ArraySpec("float32", 1)] * 2).written_args == []


def test_update_of_an_unsupported_kind_raises_before_emitting():
    def f(c):
        c[None, [0, 1]] = 0

    with pytest.raises(TraceError, match=r"newaxis combined with index arrays.*test_inplace_trace\.py:\d+"):
        trace(f, [ArraySpec("float32", 2)], name="f")

    def g(c):
        c[:, :] = 0

    with pytest.raises(IndexError, match="too many indices for array: array is 1-dimensional, but 2 were indexed"):
        trace(g, [ArraySpec("float32", 1)], name="f")
