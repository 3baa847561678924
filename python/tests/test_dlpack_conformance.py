"""docs/Design.md's DLPack conformance checklist, item by item, on dlbridge's
import path (``from_dlpack`` and kernel arguments) and export path
(``Tensor.__dlpack__``)."""

from __future__ import annotations

import ctypes
import gc
import threading

import dlbridge
import numpy as np
import pytest
from dlpack_producers import IS_COPIED, READ_ONLY, DLManagedTensor, Producer

COPY_INTO = """
func.func @copy_into(%src: memref<?xf32, strided<[?], offset: ?>> {dlpack.name = "src"},
                     %dst: memref<?xf32, strided<[?], offset: ?>> {dlpack.name = "dst"})
    attributes {dlpack.entry} {
  memref.copy %src, %dst : memref<?xf32, strided<[?], offset: ?>> to memref<?xf32, strided<[?], offset: ?>>
  return
}
"""

TWICE = """
func.func @twice(%x: tensor<?xf64> {dlpack.name = "x"}) -> tensor<?xf64> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %init = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.add ins(%x, %x : tensor<?xf64>, tensor<?xf64>) outs(%init : tensor<?xf64>) -> tensor<?xf64>
  return %r : tensor<?xf64>
}
"""


@pytest.fixture(scope="module")
def copy_into() -> dlbridge.Kernel:
    return dlbridge.compile(COPY_INTO)


@pytest.fixture(scope="module")
def twice() -> dlbridge.Kernel:
    return dlbridge.compile(TWICE)


# -- shapes and layouts -------------------------------------------------------------------------


def test_zero_dimensional_round_trip() -> None:
    t = dlbridge.from_dlpack(np.array(3.5))
    assert t.shape == () and t.ndim == 0
    assert np.from_dlpack(t)[()] == 3.5


def test_zero_size_dims_round_trip(twice: dlbridge.Kernel) -> None:
    out = twice(np.empty((0,), np.float64))
    assert isinstance(out, np.ndarray) and out.shape == (0,)


@pytest.mark.parametrize("view", [
    lambda a: a,                      # compact
    lambda a: a[::2],                 # strided, byte_offset 0
    lambda a: a[3:9],                 # byte_offset != 0 (NumPy moves data instead)
    lambda a: a[::-1],                # negative strides
    lambda a: np.broadcast_to(a[:1], (6,)),  # zero strides
], ids=["compact", "strided", "offset", "negative", "broadcast"])
def test_layouts_in_and_out(twice: dlbridge.Kernel, view) -> None:
    a = np.arange(12, dtype=np.float64)
    x = view(a)
    np.testing.assert_array_equal(twice(x), 2 * x)


def test_strides_null_is_compact(twice: dlbridge.Kernel) -> None:
    # A legacy producer that exports NULL strides for a compact array.
    a = np.arange(5, dtype=np.float64)
    p = Producer(a, legacy_only=True)
    orig = p._tensor

    def null_strides():
        t = orig()
        t.strides = None
        return t
    p._tensor = null_strides
    np.testing.assert_array_equal(np.from_dlpack(twice(p)), 2 * a)


def test_unaligned_data_is_accepted(copy_into: dlbridge.Kernel) -> None:
    raw = np.zeros(4 * 9 + 1, np.uint8)
    src = raw[1:].view(np.float32)  # data pointer 1 byte past an aligned one
    assert src.ctypes.data % 4 != 0
    src[:] = np.arange(9, dtype=np.float32)
    dst = np.zeros(9, np.float32)
    copy_into(src, dst)
    np.testing.assert_array_equal(dst, np.arange(9, dtype=np.float32))


# -- dtypes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"])
def test_dtypes_round_trip(dtype: str) -> None:
    a = np.arange(6).astype(dtype).reshape(2, 3)
    t = dlbridge.from_dlpack(a)
    assert t.dtype == dtype
    back = np.from_dlpack(t)
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)
    assert back.ctypes.data == a.ctypes.data


@pytest.mark.parametrize("code, bits, name", [
    (4, 16, "bfloat16"), (10, 8, "float8_e4m3fn"), (12, 8, "float8_e5m2"),
    (7, 8, "float8_e3m4"), (14, 8, "float8_e8m0fnu")])
def test_bfloat16_and_fp8_dtypes_import(code: int, bits: int, name: str) -> None:
    # NumPy cannot export these (ml_dtypes are not DLPack dtypes to it); a
    # producer that declares them can.
    p = Producer(np.zeros(3, np.uint16 if bits == 16 else np.uint8))
    orig = p._tensor

    def declared():
        t = orig()
        t.dtype.code, t.dtype.bits = code, bits
        return t
    p._tensor = declared
    t = dlbridge.from_dlpack(p)
    assert t.dtype == name and t.shape == (3,)


@pytest.mark.parametrize("code, bits, name", [(0, 4, "int4"), (1, 1, "uint1")])
def test_sub_byte_dtypes_are_buffer_errors(code: int, bits: int, name: str) -> None:
    # NumPy's from_dlpack raises BufferError for dtypes it cannot import.
    def producer() -> Producer:
        p = Producer(np.zeros(3, np.uint8))
        orig = p._tensor

        def declared():
            t = orig()
            t.dtype.code, t.dtype.bits = code, bits
            return t
        p._tensor = declared
        return p

    with pytest.raises(BufferError, match=rf"from_dlpack\(\): .*whole-byte.*got {name}"):
        dlbridge.from_dlpack(producer())
    with pytest.raises(BufferError, match=rf"argument 0: .*whole-byte.*got {name}"):
        dlbridge.jit(lambda a: a + 1)(producer())


def test_lanes_and_unknown_codes_are_refused_with_their_names(copy_into: dlbridge.Kernel) -> None:
    a = np.zeros(4, np.float32)
    p = Producer(a)
    orig = p._tensor

    def with_lanes():
        t = orig()
        t.dtype.lanes = 4
        return t
    p._tensor = with_lanes
    with pytest.raises(TypeError, match=r"argument 0 'src': expected float32, got float32x4"):
        copy_into(p, np.zeros(4, np.float32))

    q = Producer(a)
    orig_q = q._tensor

    def unknown_code():
        t = orig_q()
        t.dtype.code = 42
        return t
    q._tensor = unknown_code
    with pytest.raises(TypeError, match=r"got unknown dtype code 42"):
        copy_into(q, np.zeros(4, np.float32))


# -- flags ---------------------------------------------------------------------------------------


def test_read_only_tensor_is_refused_for_a_written_parameter(copy_into: dlbridge.Kernel) -> None:
    src = np.arange(4, dtype=np.float32)
    dst = np.zeros(4, np.float32)
    dst.flags.writeable = False
    with pytest.raises(BufferError, match=r"argument 1 'dst': expected a writable tensor, got a READ_ONLY one"):
        copy_into(src, dst)
    # ... but fine for a parameter that is only read.
    dst2 = np.zeros(4, np.float32)
    copy_into(np.asarray(dst), dst2)


def test_read_only_flag_from_a_producer(copy_into: dlbridge.Kernel) -> None:
    p = Producer(np.zeros(4, np.float32), flags=READ_ONLY)
    with pytest.raises(BufferError, match="READ_ONLY"):
        copy_into(np.ones(4, np.float32), p)
    assert p.deleted == 1
    assert dlbridge.from_dlpack(Producer(np.zeros(2, np.float32), flags=READ_ONLY)).readonly


def test_copy_sets_is_copied() -> None:
    a = np.arange(4, dtype=np.float32)
    t = dlbridge.from_dlpack(a, copy=True)
    assert t.data_ptr != a.ctypes.data
    back = np.from_dlpack(t)
    np.testing.assert_array_equal(back, a)
    capsule = t.__dlpack__(max_version=(1, 3))
    assert "dltensor_versioned" in repr(capsule)
    p = Producer(np.zeros(2, np.float32), flags=IS_COPIED)
    assert dlbridge.from_dlpack(p).shape == (2,)


# -- capsules and deleters -----------------------------------------------------------------------


def test_capsule_is_renamed_used_and_deleter_runs_once() -> None:
    a = np.arange(3, dtype=np.float32)
    p = Producer(a)
    t = dlbridge.from_dlpack(p)
    assert p.deleted == 0
    del t
    gc.collect()
    assert p.deleted == 1


def test_importing_a_used_capsule_raises() -> None:
    p = Producer(np.zeros(3, np.float32), capsule_name="used_dltensor_versioned")
    with pytest.raises(BufferError, match="already consumed"):
        dlbridge.from_dlpack(p)


def test_major_version_above_one_only_calls_the_deleter() -> None:
    p = Producer(np.zeros(3, np.float32), major=2)
    with pytest.raises(BufferError, match=r"expected DLPack 1.x, got version 2.3"):
        dlbridge.from_dlpack(p)
    assert p.deleted == 1


def test_deleter_runs_once_when_a_call_fails(copy_into: dlbridge.Kernel) -> None:
    src = Producer(np.zeros(3, np.float32))
    dst = Producer(np.zeros(3, np.float64))  # wrong dtype: the call is refused
    with pytest.raises(TypeError, match=r"argument 1 'dst': expected float32, got float64"):
        copy_into(src, dst)
    assert src.deleted == 1 and dst.deleted == 1


def test_null_deleter_is_allowed(twice: dlbridge.Kernel) -> None:
    a = np.arange(3, dtype=np.float64)
    np.testing.assert_array_equal(np.from_dlpack(twice(Producer(a, null_deleter=True))), 2 * a)


def test_exported_tensor_deleted_on_another_thread_without_the_gil(twice: dlbridge.Kernel) -> None:
    out = twice(np.arange(4, dtype=np.float64))  # a NumPy view of dlbridge's buffer
    holder = []
    thread = threading.Thread(target=lambda view: holder.append(np.asarray(view)), args=(out,))
    thread.start()
    thread.join()
    del out
    gc.collect()
    holder.clear()
    gc.collect()  # the last reference went away on this thread; nothing leaks under ASan


# -- versions ---------------------------------------------------------------------------------------


def test_max_version_negotiation() -> None:
    t = dlbridge.from_dlpack(np.arange(3, dtype=np.float32))
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 3)))
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(2, 0)))
    assert '"dltensor"' in repr(t.__dlpack__())
    assert '"dltensor"' in repr(t.__dlpack__(max_version=(0, 8)))


def test_legacy_retry_on_type_error() -> None:
    p = Producer(np.arange(3, dtype=np.float32), legacy_only=True)
    t = dlbridge.from_dlpack(p)
    assert t.shape == (3,)
    assert p.requests == [{"stream": None, "max_version": None}]


def test_versioned_request_is_made_first() -> None:
    p = Producer(np.arange(3, dtype=np.float32))
    dlbridge.from_dlpack(p)
    assert p.requests[0]["max_version"] == (1, 3)


# -- devices and streams --------------------------------------------------------------------------


def test_device_mismatch(copy_into: dlbridge.Kernel) -> None:
    p = Producer(np.zeros(3, np.float32), device=(2, 0))
    with pytest.raises(ValueError, match=r"argument 0 'src': expected device cpu:0, got cuda:0"):
        copy_into(p, np.zeros(3, np.float32))


def test_device_id_mismatch(copy_into: dlbridge.Kernel) -> None:
    p = Producer(np.zeros(3, np.float32), device=(1, 1))
    with pytest.raises(ValueError, match=r"expected device cpu:0, got cpu:1"):
        copy_into(np.zeros(3, np.float32), p)


def test_dl_device_and_copy_on_export() -> None:
    t = dlbridge.from_dlpack(np.arange(3, dtype=np.float32))
    assert t.__dlpack_device__() == (1, 0)
    t.__dlpack__(dl_device=(1, 0))
    with pytest.raises(BufferError, match="cannot export a tensor on cpu:0 to cuda:0"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="cpu:0 to cuda:0 without a copy"):
        t.__dlpack__(dl_device=(2, 0), copy=False)


@pytest.mark.parametrize("stream", [-1, 0, 1, 2, 0x1234])
def test_cpu_export_takes_stream_none_only(stream: int) -> None:
    t = dlbridge.from_dlpack(np.arange(3, dtype=np.float32))
    t.__dlpack__(stream=None)
    with pytest.raises(BufferError, match="stream must be None for a CPU tensor"):
        t.__dlpack__(stream=stream)


def test_non_dlpack_object_is_a_type_error(copy_into: dlbridge.Kernel) -> None:
    with pytest.raises(TypeError, match=r"copy_into\(\): argument 0 'src': expected an array supporting DLPack \(__dlpack__\), got 'list'"):
        copy_into([1.0, 2.0], np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="got 'list'"):
        dlbridge.from_dlpack([1, 2])


# -- the C exchange API -----------------------------------------------------------------------


def test_tensor_provides_the_exchange_api(twice: dlbridge.Kernel) -> None:
    capsule = dlbridge.Tensor.__dlpack_c_exchange_api__
    assert "dlpack_exchange_api" in repr(capsule)
    # dlbridge.Tensor in, dlbridge.Tensor out: the exchange API both ways.
    t = dlbridge.from_dlpack(np.arange(4, dtype=np.float64))
    out = twice(t)
    assert isinstance(out, dlbridge.Tensor)
    np.testing.assert_array_equal(np.from_dlpack(out), 2 * np.arange(4))


def test_the_call_stream_is_passed_to_producers_of_cuda_tensors() -> None:
    @dlbridge.jit
    def ident(x):
        return x + 0

    # The producer is asked for its tensor on the consumer's stream; the CPU
    # kernel then refuses the CUDA tensor, after the deleter ran once.
    p = Producer(np.zeros(3, np.float32), device=(2, 0))
    with pytest.raises((ValueError, RuntimeError)):
        ident(p, stream=1)
    assert p.requests[-1] == {"stream": 1, "max_version": (1, 3)}
    assert p.deleted == 1
    # A CPU producer is never handed a stream.
    q = Producer(np.zeros(3, np.float32))
    np.from_dlpack(ident(q, stream=1))
    assert q.requests[-1]["stream"] is None


@pytest.mark.parametrize("stream", [0])
def test_invalid_call_streams_are_refused(stream: int) -> None:
    @dlbridge.jit
    def ident(x):
        return x + 0

    with pytest.raises(ValueError, match="stream"):
        ident(np.zeros(3, np.float32), stream=stream)


# -- READ_ONLY on every path ------------------------------------------------------------------


def test_read_only_is_honoured_through_the_exchange_api(copy_into: dlbridge.Kernel) -> None:
    # A dlbridge.Tensor comes in through its C exchange API, whose DLTensor
    # views carry no flags: the written parameter must still see READ_ONLY.
    frozen = np.zeros(4, np.float32)
    frozen.flags.writeable = False
    t = dlbridge.from_dlpack(frozen)
    assert t.readonly
    with pytest.raises(BufferError, match=r"argument 1 'dst': expected a writable tensor, got a READ_ONLY one"):
        copy_into(np.ones(4, np.float32), t)
    np.testing.assert_array_equal(frozen, 0)
    # Read-only parameters still take it, and writable Tensors stay writable.
    out = dlbridge.from_dlpack(np.zeros(4, np.float32))
    copy_into(t, out)
    np.testing.assert_array_equal(np.from_dlpack(out), 0)


def _legacy_float32_data(capsule: object, count: int) -> np.ndarray:
    """A writable view of a legacy capsule's float32 data, as a legacy consumer
    such as PyTorch would make (NumPy makes legacy imports read-only)."""
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    managed = ctypes.cast(get_pointer(capsule, b"dltensor"), ctypes.POINTER(DLManagedTensor))
    tensor = managed.contents.dl_tensor
    address = tensor.data + tensor.byte_offset
    return np.ctypeslib.as_array((ctypes.c_float * count).from_address(address))


def test_read_only_tensor_reaches_legacy_consumers_only_as_a_copy() -> None:
    # A legacy capsule cannot say its data is read-only: a consumer asking for
    # one gets a copy it may write, as the array API allows unless copy=False.
    frozen = np.arange(3, dtype=np.float32)
    frozen.flags.writeable = False
    t = dlbridge.from_dlpack(frozen)
    for kwargs in ({}, {"max_version": (0, 8)}, {"copy": None}, {"copy": True}):
        capsule = t.__dlpack__(**kwargs)
        assert '"dltensor"' in repr(capsule)
        received = _legacy_float32_data(capsule, 3)
        np.testing.assert_array_equal(received, [0, 1, 2])
        assert received.ctypes.data != frozen.ctypes.data
        received[...] = 7
        np.testing.assert_array_equal(frozen, [0, 1, 2])
        np.testing.assert_array_equal(received, 7)
    for kwargs in ({"copy": False}, {"max_version": (0, 8), "copy": False}):
        with pytest.raises(BufferError, match="cannot export a READ_ONLY tensor as a legacy .* without a copy"):
            t.__dlpack__(**kwargs)
    # Versioned consumers are told, and share the memory read-only.
    shared = np.from_dlpack(t)
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 3)))
    assert shared.ctypes.data == frozen.ctypes.data and not shared.flags.writeable
    assert not dlbridge.from_dlpack(t, copy=True).readonly


# -- from_dlpack(device=...) ----------------------------------------------------------------


def test_from_dlpack_takes_the_frameworks_own_device_objects() -> None:
    a = np.arange(3, dtype=np.float32)
    assert dlbridge.from_dlpack(a, device=a.device).data_ptr == a.ctypes.data
    t = dlbridge.from_dlpack(a)
    assert dlbridge.from_dlpack(t, device=t.device).data_ptr == a.ctypes.data
    assert dlbridge.from_dlpack(a, device="cpu:0").shape == (3,)
    with pytest.raises(BufferError, match="cannot import a tensor on cpu:0 to cuda:1"):
        dlbridge.from_dlpack(a, device="cuda:1")
    with pytest.raises(ValueError, match="unknown device type 'tpu'"):
        dlbridge.from_dlpack(a, device="tpu")
    with pytest.raises(TypeError, match=r"expected device as a \(device_type, device_id\) tuple"):
        dlbridge.from_dlpack(a, device=3.5)


def test_device_names_are_libdlrts_and_parse_back() -> None:
    """``Tensor.device`` spells every DLPack device type as libdlrt does, and
    ``from_dlpack(device=...)`` reads those names back."""
    from dlbridge import _frameworks

    # Producers outlive the tensors whose deleters they hold.
    producers = []
    for name, device_type in [("cuda_host", 3), ("vulkan", 7), ("rocm_host", 11), ("trn", 18)]:
        producers.append(Producer(np.zeros(3, np.float32), device=(device_type, 2)))
        t = dlbridge.from_dlpack(producers[-1])
        assert t.device == f"{name}:2"
        assert _frameworks.dlpack_device_of(t.device) == (device_type, 2)
        del t
    producers.append(Producer(np.zeros(3, np.float32), device=(42, 0)))
    unknown = dlbridge.from_dlpack(producers[-1])
    assert unknown.device == "device_type 42:0"
    del unknown
    assert _frameworks.dlpack_device_of("GPU:1") == (2, 1)
    assert _frameworks.dlpack_device_of("xpu") == (14, 0)


def test_host_copies_take_every_host_accessible_device() -> None:
    """ROCm pinned memory is host memory, as for the runtime's checks."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::-2]
    p = Producer(a, device=(11, 0))
    t = dlbridge.from_dlpack(p, device="cpu", copy=True)
    np.testing.assert_array_equal(np.from_dlpack(t), a)


def test_from_dlpack_takes_jax_devices() -> None:
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(3, dtype=jnp.float32)
    t = dlbridge.from_dlpack(x, device=x.device)
    np.testing.assert_array_equal(np.from_dlpack(t), np.arange(3, dtype=np.float32))


def test_from_dlpack_takes_torch_style_devices() -> None:
    class TorchLikeDevice:  # torch.device's attributes
        type = "cpu"
        index = None

    a = np.arange(3, dtype=np.float32)
    assert dlbridge.from_dlpack(a, device=TorchLikeDevice()).shape == (3,)


# -- integer arguments of the protocol ----------------------------------------------------------


def test_non_integer_protocol_arguments_are_type_errors() -> None:
    t = dlbridge.from_dlpack(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="max_version"):
        t.__dlpack__(max_version=("a", 0))
    with pytest.raises(TypeError, match="device"):
        dlbridge.from_dlpack(np.zeros(3), device=("cpu", 0))
    with pytest.raises(OverflowError, match="device"):
        dlbridge.from_dlpack(np.zeros(3), device=(1, 2**40))

    @dlbridge.jit
    def ident(x):
        return x + 0

    with pytest.raises(TypeError, match="stream"):
        ident(np.zeros(3, np.float32), stream="default")
    with pytest.raises(OverflowError, match="stream"):
        ident(np.zeros(3, np.float32), stream=2**64)


def test_a_producer_with_a_malformed_device_is_a_type_error() -> None:
    class BadDevice:
        def __dlpack__(self, **kwargs):
            return np.zeros(3).__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return ("cpu", 0)

    @dlbridge.jit
    def ident(x):
        return x + 0

    with pytest.raises(TypeError, match=r"argument 0: .*__dlpack_device__"):
        ident(BadDevice(), stream=1)
