"""Descriptors and producers that break DLPack's rules: every import path
(``from_dlpack``, ``copy=True``, ``compile()`` kernels, ``@jit``) refuses them
as compiled entries do, and nothing a producer does kills the process."""

from __future__ import annotations

import ctypes
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from dlpack_producers import (
    DLManagedTensorVersioned,
    DLPackExchangeAPI,
    DLTensor,
    Producer,
    edit_tensor,
    exchange_api_type,
)

TWICE = """
func.func @twice(%x: tensor<?xf32> {dlpack.name = "x"}) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


@pytest.fixture(scope="module")
def twice() -> dlbridge.Kernel:
    return dlbridge.compile(TWICE)


@dlbridge.jit
def _jitted(x):
    return x + 1


def _no_shape(t: DLTensor) -> None:
    t.shape = None


def _negative_dim(t: DLTensor) -> None:
    t.shape[0] = -4


def _no_data(t: DLTensor) -> None:
    t.data = None


def _huge(t: DLTensor) -> None:
    t.shape[0] = 1 << 62
    t.strides[0] = 1


_MALFORMED = [
    (_no_shape, ValueError, "expected a shape for rank 1, got NULL"),
    (_negative_dim, ValueError, "dim 0 expected a non-negative size, got -4"),
    (_no_data, ValueError, "expected data for a non-empty tensor, got NULL"),
    (_huge, ValueError, "expected addressed bytes within int64"),
]
_IDS = ["null-shape", "negative-dim", "null-data", "overflowing-extent"]

_CONSUMERS: dict[str, Callable[[Any, Any], Any]] = {
    "from_dlpack": lambda k, p: dlbridge.from_dlpack(p),
    "copy": lambda k, p: dlbridge.from_dlpack(p, copy=True),
    "kernel": lambda k, p: k(p),
    "jit": lambda k, p: _jitted(p),
}


@pytest.mark.parametrize("consumer", list(_CONSUMERS))
@pytest.mark.parametrize("edit, error, message", _MALFORMED, ids=_IDS)
def test_malformed_descriptors_are_refused_and_released(
        twice: dlbridge.Kernel, consumer: str, edit: Any, error: type, message: str) -> None:
    p = edit_tensor(Producer(np.arange(4, dtype=np.float32)), edit)
    prefix = {"from_dlpack": r"from_dlpack\(\)", "copy": r"from_dlpack\(\)",
              "kernel": r"twice\(\): argument 0 'x'", "jit": r"_jitted\(\): argument 0"}[consumer]
    with pytest.raises(error, match=prefix + ": " + message):
        _CONSUMERS[consumer](twice, p)
    assert p.deleted == 1


def test_zero_size_tensor_may_have_no_data() -> None:
    p = edit_tensor(Producer(np.zeros(0, np.float32)), _no_data)
    assert dlbridge.from_dlpack(p, copy=True).shape == (0,)


def test_copy_too_large_to_allocate_is_a_memory_error() -> None:
    # Zero strides: a valid descriptor whose compact copy needs 2**60 bytes.
    def broadcast(t: DLTensor) -> None:
        t.shape[0] = 1 << 58
        t.strides[0] = 0

    p = edit_tensor(Producer(np.zeros(1, np.float32)), broadcast)
    with pytest.raises(MemoryError, match=r"from_dlpack\(\): cannot allocate a host copy of shape "
                                          r"\(288230376151711744,\) float32"):
        dlbridge.from_dlpack(p, copy=True)
    assert p.deleted == 1


def test_copy_whose_byte_size_overflows_is_a_memory_error() -> None:
    def broadcast(t: DLTensor) -> None:
        t.shape[0] = 1 << 62
        t.strides[0] = 0

    p = edit_tensor(Producer(np.zeros(1, np.float64)), broadcast)
    with pytest.raises(MemoryError, match=r"cannot allocate a host copy"):
        dlbridge.from_dlpack(p, copy=True)
    # The same tensor imported without a copy (the producer owns its
    # memory: it must outlive the import), then exported with one.
    q = edit_tensor(Producer(np.zeros(1, np.float64)), broadcast)
    t = dlbridge.from_dlpack(q)
    assert t.shape == (1 << 62,)
    with pytest.raises(MemoryError, match=r"__dlpack__\(\): cannot allocate a host copy"):
        t.__dlpack__(max_version=(1, 3), copy=True)


# -- the C exchange API ---------------------------------------------------------------------


def _managed_fails_silently(_obj: Any, _out: Any) -> int:
    return -1


def test_exchange_api_failing_without_an_error_is_a_buffer_error(twice: dlbridge.Kernel) -> None:
    array_type = exchange_api_type(managed=_managed_fails_silently)
    x = array_type(np.zeros(3, np.float32))
    with pytest.raises(BufferError, match=r"from_dlpack\(\): the DLPack exchange API of 'ExchangeArray' "
                                          r"failed in managed_tensor_from_py_object_no_sync without "
                                          r"setting an error"):
        dlbridge.from_dlpack(x)
    with pytest.raises(BufferError, match=r"twice\(\): argument 0 'x': .* without setting an error"):
        twice(x)


def test_exchange_api_view_failing_without_an_error_is_a_buffer_error(twice: dlbridge.Kernel) -> None:
    array_type = exchange_api_type(managed=_managed_fails_silently,
                                   dltensor=lambda _obj, _out: -1)
    with pytest.raises(BufferError, match=r"failed in dltensor_from_py_object_no_sync"):
        twice(array_type(np.zeros(3, np.float32)))


def test_exchange_api_with_null_functions_is_a_type_error(twice: dlbridge.Kernel) -> None:
    x = exchange_api_type()(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match=r"expected the DLPack exchange API of 'ExchangeArray' to provide "
                                        r"managed_tensor_from_py_object_no_sync, got NULL"):
        twice(x)
    with pytest.raises(TypeError, match="got NULL"):
        dlbridge.from_dlpack(x)


def _view_of_array(with_shape: bool) -> Any:
    """A dltensor_from_py_object_no_sync viewing the object's float32 vector."""
    def view(obj: Any, out: Any) -> int:
        a = obj.array
        obj.shape = (ctypes.c_int64 * 1)(a.shape[0])
        t = out.contents
        t.data = a.ctypes.data
        t.device.device_type, t.device.device_id = 1, 0
        t.ndim = 1
        t.dtype.code, t.dtype.bits, t.dtype.lanes = 2, 32, 1
        t.shape = obj.shape if with_shape else None
        t.strides = None
        t.byte_offset = 0
        return 0
    return view


def test_exchange_api_views_are_checked_too(twice: dlbridge.Kernel) -> None:
    array_type = exchange_api_type(managed=_managed_fails_silently,
                                   dltensor=_view_of_array(with_shape=False))
    with pytest.raises(ValueError, match=r"twice\(\): argument 0 'x': expected a shape for rank 1, got NULL"):
        twice(array_type(np.zeros(3, np.float32)))


def test_exchange_api_failing_to_wrap_a_result_without_an_error_is_a_buffer_error(
        twice: dlbridge.Kernel) -> None:
    array_type = exchange_api_type(managed=_managed_fails_silently,
                                   dltensor=_view_of_array(with_shape=True),
                                   to_object=lambda _managed, _out: -1)
    with pytest.raises(BufferError, match=r"twice\(\): the DLPack exchange API of 'ExchangeArray' failed "
                                          r"in managed_tensor_to_py_object_no_sync without setting"):
        twice(array_type(np.arange(3, dtype=np.float32)))


# -- dlbridge's own exchange API, as a consumer calls it -----------------------------------


def _own_exchange_api() -> Any:
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(dlbridge.Tensor.__dlpack_c_exchange_api__, b"dlpack_exchange_api")
    return DLPackExchangeAPI.from_address(address)


SetError = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
Allocator = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor),
                             ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned)),
                             ctypes.c_void_p, SetError)


@pytest.mark.parametrize("shape, kind, message", [
    ((1 << 40, 1 << 40), b"MemoryError", b"cannot allocate"),  # 2**82 bytes
    ((1 << 62,), b"MemoryError", b"cannot allocate"),          # 2**64 bytes
    ((3, -1), b"ValueError", b"non-negative dims"),
], ids=["overflowing", "wrapping-to-zero", "negative"])
def test_own_allocator_refuses_what_it_cannot_allocate(shape: tuple[int, ...], kind: bytes,
                                                       message: bytes) -> None:
    allocate = ctypes.cast(_own_exchange_api().managed_tensor_allocator, Allocator)
    errors: list[tuple[bytes, bytes]] = []
    set_error = SetError(lambda _ctx, k, m: errors.append((k, m)))
    dims = (ctypes.c_int64 * len(shape))(*shape)
    prototype = DLTensor()
    prototype.device.device_type, prototype.device.device_id = 1, 0
    prototype.ndim = len(shape)
    prototype.dtype.code, prototype.dtype.bits, prototype.dtype.lanes = 2, 32, 1
    prototype.shape = dims
    out = ctypes.POINTER(DLManagedTensorVersioned)()
    assert allocate(ctypes.byref(prototype), ctypes.byref(out), None, set_error) == -1
    assert not out
    assert len(errors) == 1 and errors[0][0] == kind and message in errors[0][1]


def test_empty_tensor_with_huge_dims_imports_and_reports_its_strides() -> None:
    def huge_but_empty(t: DLTensor) -> None:
        t.shape[0], t.shape[1], t.shape[2] = 0, 1 << 62, 1 << 62
        t.strides = None

    p = edit_tensor(Producer(np.zeros((0, 1, 1), np.float32)), huge_but_empty)
    t = dlbridge.from_dlpack(p)
    assert t.shape == (0, 1 << 62, 1 << 62)
    assert len(t.strides) == 3 and t.strides[2] == 1
    assert dlbridge.from_dlpack(p, copy=True).shape == (0, 1 << 62, 1 << 62)
