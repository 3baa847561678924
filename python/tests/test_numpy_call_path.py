"""The NumPy call path: exact ``numpy.ndarray`` arguments are read in place and
results for NumPy callers are made through NumPy's C API (``python/src/NumPy.cpp``).

What that path does not cover (other byte orders, strides that are not whole
elements, more than 8 dims, subclasses) goes through ``__dlpack__`` and behaves
as it did before. Kernels and jitted functions are called through their type's
``tp_call`` slot, so their errors are checked here too.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

import dlbridge
import numpy as np
import pytest
from dlbridge import _dlbridge

ADD3_MLIR = """
#map = affine_map<(d0) -> (d0)>
func.func @add3(%x: tensor<?xf32>, %y: tensor<?xf32>, %z: tensor<?xf32>) -> tensor<?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y, %z : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


@dlbridge.jit
def add3(x: Any, y: Any, z: Any) -> Any:
    return x + y + z


@dlbridge.jit
def copy(x: Any) -> Any:
    return x.copy()


@dlbridge.jit
def scale_in_place(x: Any) -> None:
    x *= 2


def _three(n: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tuple(np.arange(n, dtype=np.float32) * (i + 1) for i in range(3))  # type: ignore[return-value]


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


# -- results ----------------------------------------------------------------------------------------


def test_results_are_writeable_ndarrays_over_dlbridge_memory() -> None:
    a, b, c = _three()
    for result in (add3(a, b, c), dlbridge.compile(ADD3_MLIR)(a, b, c)):
        assert type(result) is np.ndarray
        np.testing.assert_array_equal(result, a + b + c)
        assert result.flags.writeable and result.flags.c_contiguous
        assert not result.flags.owndata  # the capsule owns the buffer
        assert not np.shares_memory(result, a)
        result[0] = 42  # the caller may write its result
        assert result[0] == 42


def test_results_outlive_their_kernel_and_views_keep_them_alive() -> None:
    a, b, c = _three(1000)
    kernel = dlbridge.compile(ADD3_MLIR)
    view = kernel(a, b, c)[10:20]
    del kernel
    gc.collect()
    np.testing.assert_array_equal(view, (a + b + c)[10:20])


def test_result_memory_is_released() -> None:
    n = 8 << 20  # 32 MiB per float32 array
    a, b, c = (np.ones(n, np.float32) for _ in range(3))
    add3(a, b, c)
    before = _rss_bytes()
    for _ in range(40):  # 1.25 GiB if results leaked
        assert add3(a, b, c)[-1] == 3
    assert _rss_bytes() - before < 256 << 20


def test_arguments_are_neither_leaked_nor_over_released() -> None:
    a, b, c = _three()
    short = np.ones(3, np.float32)
    counts = [sys.getrefcount(t) for t in (a, b, c, short)]
    for _ in range(100):
        add3(a, b, c)
        with pytest.raises(ValueError):
            add3(a, b, short)
    assert [sys.getrefcount(t) for t in (a, b, c, short)] == counts


# -- arguments ---------------------------------------------------------------------------------------

LAYOUTS = {
    "C": lambda a: a,
    "Fortran": np.asfortranarray,
    "reversed": lambda a: a[::-1, ::-1],
    "every other": lambda a: a[::2, 1::2],
    "broadcast row": lambda a: np.broadcast_to(a[0], a.shape),
    "transposed": lambda a: a.T,
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts_are_read_as_numpy_reads_them(layout: str) -> None:
    base = np.arange(48, dtype=np.float64).reshape(6, 8)
    x = LAYOUTS[layout](base)
    np.testing.assert_array_equal(copy(x), x)
    np.testing.assert_array_equal(add3(x, x, x), 3 * x)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                   "uint64", "float16", "float32", "float64"])
def test_every_dtype_round_trips(dtype: str) -> None:
    x = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    result = copy(x)
    assert result.dtype == x.dtype
    np.testing.assert_array_equal(result, x)


def test_zero_dim_and_empty_arrays() -> None:
    zero_dim = np.array(2.5, np.float32)
    assert type(copy(zero_dim)) is np.ndarray
    np.testing.assert_array_equal(copy(zero_dim), zero_dim)
    empty = np.ones((0, 3), np.float32)
    assert copy(empty).shape == (0, 3)


def test_more_dims_than_the_fast_path_takes_go_through_dlpack() -> None:
    x = np.arange(2**9, dtype=np.float32).reshape((2,) * 9)
    np.testing.assert_array_equal(add3(x, x, x), 3 * x)


def test_read_only_arrays_are_refused_for_written_parameters_and_left_untouched() -> None:
    x = np.arange(4, dtype=np.float32)
    x.flags.writeable = False
    with pytest.raises(BufferError):
        scale_in_place(x)
    np.testing.assert_array_equal(x, np.arange(4))
    writable = np.arange(4, dtype=np.float32)
    scale_in_place(writable)
    np.testing.assert_array_equal(writable, 2 * np.arange(4))


def test_byte_swapped_arrays_get_numpys_dlpack_error() -> None:
    with pytest.raises(BufferError, match="byte order"):
        copy(np.arange(4, dtype=">f4"))


def test_strides_that_are_not_whole_elements_get_numpys_dlpack_error() -> None:
    records = np.zeros(4, dtype=[("a", "f4"), ("b", "u1")])
    with pytest.raises(BufferError, match="strides"):
        copy(records["a"])


def test_subclasses_are_asked_through_dlpack() -> None:
    asked = []

    class Recorded(np.ndarray):
        def __dlpack__(self, **kwargs: Any) -> Any:
            asked.append(kwargs)
            return super().__dlpack__(**kwargs)

    x = np.arange(6, dtype=np.float32).view(Recorded)
    result = copy(x)
    assert asked, "a subclass's __dlpack__ was bypassed"
    assert type(result) is np.ndarray
    np.testing.assert_array_equal(result, np.arange(6))


# -- the call slots ---------------------------------------------------------------------------------


def test_kernels_take_no_keywords() -> None:
    a, b, c = _three()
    with pytest.raises(TypeError, match="by position"):
        dlbridge.compile(ADD3_MLIR)(a, b, z=c)


def test_uninitialised_kernels_and_dispatchers_raise_type_error() -> None:
    a = np.ones(2, np.float32)
    with pytest.raises(TypeError, match="not initialised"):
        _dlbridge.Kernel.__new__(_dlbridge.Kernel)(a)
    with pytest.raises(TypeError, match="not initialised"):
        _dlbridge.Dispatcher.__new__(_dlbridge.Dispatcher)(a)


def test_errors_raised_on_a_call_keep_their_types() -> None:
    a, b, c = _three()
    with pytest.raises(TypeError, match="argument"):
        add3(a, b)
    with pytest.raises(TypeError, match="unexpected keyword argument 'w'"):
        add3(a, b, c, w=1)
    with pytest.raises(TypeError, match="DLPack"):
        add3(a, b, object())
