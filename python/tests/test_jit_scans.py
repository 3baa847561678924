"""``cumsum``/``cumprod`` under ``@dlbridge.jit`` against NumPy: every dtype, axis and layout, in
the order NumPy adds (bit-for-bit, float16 rounding included), as one pass over the data."""

from __future__ import annotations

import time
import warnings
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def _data(shape: tuple[int, ...], dtype: str, seed: int = 0) -> np.ndarray:
    """Values for ``dtype`` whose products stay finite and whose sums exercise rounding."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.6
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 4, shape).astype(dtype)
    x = rng.standard_normal(shape) + 0.5
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _check(fn: Callable[[Any], Any], x: np.ndarray, exact: bool = True) -> None:
    """``fn`` jitted gives NumPy's values, dtype and shape, and leaves ``x`` alone."""
    before = x.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.asarray(fn(x))
        got = np.asarray(dlbridge.jit(fn)(x))
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2, -3])
def test_cumsum_every_dtype_and_axis(dtype: str, axis: Any) -> None:
    _check(lambda v: np.cumsum(v, axis=axis), _data((3, 4, 5), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_cumprod_every_dtype_and_axis(dtype: str, axis: Any) -> None:
    # complex products round differently when the compiler fuses multiply-adds
    _check(lambda v: np.cumprod(v, axis=axis), _data((4, 6), dtype), exact=not dtype.startswith("complex"))


def test_float_sums_round_in_numpys_order() -> None:
    """Sequential, each partial sum rounded to the array's dtype, as NumPy: float16 stalls at 2048."""
    _check(lambda v: np.cumsum(v), np.ones(3000, np.float16))
    _check(lambda v: np.cumsum(v, axis=1), np.full((3, 1 << 17), 0.1, np.float32))
    _check(lambda v: np.cumsum(v, axis=0), np.full((1 << 12, 7), 1e-3, np.float32))


def test_signed_zeros_and_nans() -> None:
    x = np.array([[-0.0, -0.0, 0.0, np.nan, 1.0], [np.inf, -np.inf, 2.0, -0.0, 3.0]])
    got = np.asarray(dlbridge.jit(lambda v: np.cumsum(v, axis=1))(x))
    want = np.cumsum(x, axis=1)
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[0, :2]).all()
    _check(lambda v: np.cumprod(v, axis=0), x)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (1,), (1, 1), (5, 1), (1, 5), (2, 3, 1, 4)])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_empty_and_unit_shapes(shape: tuple[int, ...], axis: Any) -> None:
    x = _data(shape, "float32")
    _check(lambda v: np.cumsum(v, axis=axis), x)
    _check(lambda v: np.cumprod(v, axis=axis), _data(shape, "int32"))


@pytest.mark.parametrize("layout", ["fortran", "reversed", "strided", "transposed", "broadcast"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_strided_inputs(layout: str, axis: Any) -> None:
    base = _data((12, 10), "float64")
    x = {
        "fortran": np.asfortranarray(base),
        "reversed": base[::-1, ::-1],
        "strided": base[::3, 1::2],
        "transposed": base.T,
        "broadcast": np.broadcast_to(base[:1], (5, 10)),
    }[layout]
    _check(lambda v: np.cumsum(v, axis=axis), x)
    _check(lambda v: v.cumprod(axis), x)


@pytest.mark.parametrize("dtype", [None, "float32", "int8", "uint16", "bool", "complex64", "float16"])
def test_dtype_argument(dtype: Any) -> None:
    _check(lambda v: np.cumsum(v, axis=1, dtype=dtype), _data((4, 9), "int16"))
    # non-negative: casting a negative float to an unsigned type is undefined (NumPy warns)
    _check(lambda v: v.cumsum(axis=0, dtype=dtype), np.abs(_data((4, 9), "float64")) * 3)
    _check(lambda v: np.cumprod(v, dtype=dtype), _data((3, 3), "uint8"))


def test_integers_wrap_like_numpy() -> None:
    x = np.full((2, 70), 3, np.int64)
    _check(lambda v: np.cumprod(v, axis=1), x)
    _check(lambda v: np.cumsum(v, dtype=np.int8), np.full(300, 100, np.int16))


def test_methods_and_zero_dim_input() -> None:
    _check(lambda v: v.cumsum(), _data((3, 4), "int32"))
    _check(lambda v: v.cumprod(-1), _data((3, 4), "float32"))
    _check(lambda v: np.cumsum(v), np.full((), 2.5))


def test_scan_of_an_intermediate_and_inside_loops() -> None:
    def body(x: Any) -> Any:
        acc = x * 0
        for i in range(x.shape[0]):
            acc = acc + np.cumsum(x * i, axis=1)
        return np.cumprod(acc[:, ::-1] + 1.0, axis=0)

    x = _data((6, 7), "float64")
    np.testing.assert_allclose(np.asarray(dlbridge.jit(body)(x)), body(x), rtol=1e-12)


def test_bad_axes_and_out_are_refused() -> None:
    x = np.ones((2, 3))
    with pytest.raises(Exception, match="axis"):
        dlbridge.jit(lambda v: np.cumsum(v, axis=2))(x)
    with pytest.raises(Exception, match="out="):
        dlbridge.jit(lambda v: np.cumsum(v, axis=0, out=v))(x)


def _best_time(run: Callable[[], Any]) -> float:
    """The fastest of five runs of ``run``, in seconds."""
    times = []
    for _ in range(5):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return min(times)


@pytest.mark.parametrize("axis", [0, 1])
def test_large_scans_are_at_numpys_speed(axis: int) -> None:
    """A scan is one pass: not a loop of slice copies along the axis (which was 30-100x slower)."""
    x = np.random.default_rng(1).random((1024, 2048)).astype(np.float32)
    f = dlbridge.jit(lambda v: np.cumsum(v, axis=axis))
    np.testing.assert_array_equal(np.asarray(f(x)), np.cumsum(x, axis=axis))
    mine, numpy = _best_time(lambda: f(x)), _best_time(lambda: np.cumsum(x, axis=axis))
    assert mine < 4 * numpy + 2e-3, (mine, numpy)


def _launches(stage: str) -> list[str]:
    """The ``gpu.launch_func`` lines of an MLIR stage."""
    return [line for line in stage.splitlines() if "gpu.launch_func" in line]


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_cuda_scan_is_one_kernel_launched_once(axis: Any) -> None:
    """On CUDA a scan is one kernel the host launches once, outside any loop (the PTX and the host
    code, read without a GPU): a block per row along the last axis, a thread per column otherwise.
    (Flattening a strided 2-d array first copies it, in this general specialisation.)"""
    x = np.ones((64, 1000) if axis is not None else 64000, np.float32)
    info = dlbridge.jit(lambda v: np.cumsum(v, axis=axis), target="cuda").inspect(x)
    assert info["ptx"].count(".entry") == 1
    assert info["llvm-ir"].count("call void @mgpuLaunchKernel(") == 1
    (launch,) = _launches(info["loops-to-kernels"])
    # At the host function's top level: no scf.for around it.
    assert launch.startswith("    %") or launch.startswith("    gpu."), launch
    shared = ".shared" in info["ptx"]
    assert shared == (axis != 0), "a block per row scans through shared memory; columns need none"


USER_FORALLS = """
func.func @row_prefix(%x: tensor<?x?xf64>) -> tensor<?x?xf64> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %m = tensor.dim %x, %c0 : tensor<?x?xf64>
  %n = tensor.dim %x, %c1 : tensor<?x?xf64>
  %init = tensor.empty(%m, %n) : tensor<?x?xf64>
  %r = scf.forall (%i) in (%m) shared_outs(%o = %init) -> (tensor<?x?xf64>) {
    %row = tensor.extract_slice %o[%i, 0] [1, %n] [1, 1] : tensor<?x?xf64> to tensor<?xf64>
    %w:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %t = %row) -> (f64, tensor<?xf64>) {
      %v = tensor.extract %x[%i, %k] : tensor<?x?xf64>
      %s = arith.addf %acc, %v : f64
      %t2 = tensor.insert %s into %t[%k] : tensor<?xf64>
      scf.yield %s, %t2 : f64, tensor<?xf64>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %w#1 into %o[%i, 0] [1, %n] [1, 1] : tensor<?xf64> into tensor<?x?xf64>
    }
  }
  return %r : tensor<?x?xf64>
}

func.func @scale_rows(%x: memref<?x?xf32>, %y: memref<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  scf.forall (%i, %j) in (%m, %n) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %f = arith.index_cast %i : index to i32
    %g = arith.sitofp %f : i32 to f32
    %w = arith.mulf %v, %g : f32
    memref.store %w, %y[%i, %j] : memref<?x?xf32>
  }
  return
}
"""


def test_users_foralls_run_in_parallel_and_compile_for_cuda() -> None:
    """Foralls users write, tensor-level (a scan of their own) or on buffers, still compute what they
    say on the CPU (now on OpenMP threads) and compile for CUDA (now as kernels of many threads)."""
    x = _data((40, 33), "float64")
    got = np.asarray(dlbridge.compile(USER_FORALLS, entry="row_prefix")(x))
    np.testing.assert_allclose(got, np.cumsum(x, axis=1), rtol=1e-12)
    a = _data((17, 9), "float32")
    out = np.zeros_like(a)
    dlbridge.compile(USER_FORALLS, entry="scale_rows")(a, out)
    np.testing.assert_array_equal(out, a * np.arange(17, dtype=np.float32)[:, None])
    assert "omp.parallel" in dlbridge.inspect(USER_FORALLS, entry="scale_rows")["loops-and-vectors"]
    for entry in ("row_prefix", "scale_rows"):
        ptx = dlbridge.inspect(USER_FORALLS, entry=entry, target="cuda")["ptx"]
        assert ptx.count(".entry") == 1
    # A forall mapped to many threads, not a kernel of one thread.
    assert ".maxntid 1, 1, 1" not in dlbridge.inspect(USER_FORALLS, entry="scale_rows", target="cuda")["ptx"]
