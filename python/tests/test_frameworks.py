"""Results come back in the caller's framework also for frameworks that only
exchange DLPack capsules (TensorFlow), through dlbridge._frameworks' table.

TensorFlow is not installed here: a fake module registered under its name
plays it, with TensorFlow's module layout and capsule-based functions."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import Any

import dlbridge
import numpy as np
import pytest


class _CapsuleHolder:
    """What np.from_dlpack needs to take a bare capsule."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **_kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


@pytest.fixture
def fake_tensorflow(monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    class EagerTensor:  # like TensorFlow's: no __dlpack__
        def __init__(self, array: np.ndarray) -> None:
            self.array = array

    EagerTensor.__module__ = "tensorflow.python.framework.ops"
    calls: list[str] = []

    def to_dlpack(tensor: EagerTensor) -> Any:
        calls.append("to_dlpack")
        return tensor.array.__dlpack__()  # a legacy "dltensor" capsule

    def from_dlpack(capsule: Any) -> EagerTensor:
        calls.append("from_dlpack")
        assert type(capsule).__name__ == "PyCapsule"
        return EagerTensor(np.from_dlpack(_CapsuleHolder(capsule)))

    tf = types.ModuleType("tensorflow")
    experimental = types.ModuleType("tensorflow.experimental")
    dlpack = types.ModuleType("tensorflow.experimental.dlpack")
    dlpack.to_dlpack, dlpack.from_dlpack = to_dlpack, from_dlpack
    tf.experimental, experimental.dlpack = experimental, dlpack
    for name, module in [("tensorflow", tf), ("tensorflow.experimental", experimental),
                         ("tensorflow.experimental.dlpack", dlpack)]:
        monkeypatch.setitem(sys.modules, name, module)
    EagerTensor.calls = calls
    yield EagerTensor


def test_tensorflow_in_tensorflow_out(fake_tensorflow: type) -> None:
    @dlbridge.jit
    def f(x, y):
        return x * 2 + y

    x = fake_tensorflow(np.arange(4, dtype=np.float32))
    y = np.ones(4, np.float32)
    out = f(x, y)
    assert type(out) is fake_tensorflow
    np.testing.assert_array_equal(out.array, np.arange(4) * 2 + 1)
    assert fake_tensorflow.calls == ["to_dlpack", "from_dlpack"]


def test_tensorflow_tensors_are_read_only(fake_tensorflow: type) -> None:
    copy_into = dlbridge.compile("""
func.func @copy_into(%src: memref<?xf32> {dlpack.name = "src"}, %dst: memref<?xf32> {dlpack.name = "dst"})
    attributes {dlpack.entry} {
  memref.copy %src, %dst : memref<?xf32> to memref<?xf32>
  return
}
""")
    dst = fake_tensorflow(np.zeros(3, np.float32))
    with pytest.raises(BufferError, match="argument 1 'dst': expected a writable tensor"):
        copy_into(np.ones(3, np.float32), dst)
    np.testing.assert_array_equal(dst.array, 0)
    assert dlbridge.from_dlpack(dst).readonly


def test_jax_arrays_are_imported_read_only() -> None:
    """JAX arrays are immutable though their capsules carry no READ_ONLY flag:
    imported READ_ONLY, so a written parameter refuses them."""
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(4, dtype=jnp.float32)
    assert dlbridge.from_dlpack(x).readonly
    assert not dlbridge.from_dlpack(np.arange(4, dtype=np.float32)).readonly
    scale = dlbridge.compile(
        """
        func.func @scale(%x: memref<?xf32>) attributes {dlpack.entry} {
          %c0 = arith.constant 0 : index
          %v = memref.load %x[%c0] : memref<?xf32>
          %w = arith.addf %v, %v : f32
          memref.store %w, %x[%c0] : memref<?xf32>
          return
        }
        """
    )
    with pytest.raises(BufferError, match="argument 0"):
        scale(x)
    np.testing.assert_array_equal(np.asarray(x), np.arange(4, dtype=np.float32))


# -- JAX -> dlbridge -> JAX (JAX's from_dlpack asks for legacy capsules only) -----------------

_SHAPES = [(), (4,), (3, 4), (2, 3, 4), (3, 1), (1, 4), (2, 1, 4), (0,), (0, 4), (3, 0)]


def _sample(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    values = np.random.default_rng(0).uniform(-50, 50, size=shape)
    if np.dtype(dtype) == np.bool_:
        return values > 0
    if np.dtype(dtype).kind == "c":
        return (values + 1j * (values - 7)).astype(dtype)
    if np.dtype(dtype).kind == "u":
        values = np.abs(values)
    return values.astype(dtype)


# The dtypes JAX exchanges through DLPack (jax._src.dlpack.SUPPORTED_DTYPES).
_JAX_DTYPES = ["bfloat16", "bool", "complex128", "complex64", "float16", "float32", "float64",
               "int16", "int32", "int64", "int8", "uint16", "uint32", "uint64", "uint8"]


@pytest.mark.parametrize("shape", _SHAPES, ids=str)
@pytest.mark.parametrize("dtype_name", _JAX_DTYPES)
def test_jax_dlbridge_jax_round_trip(shape: tuple[int, ...], dtype_name: str) -> None:
    """JAX arrays are immutable by design: dlbridge hands them back to JAX's
    legacy-only from_dlpack without a copy, though it holds them READ_ONLY."""
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        _round_trip(jax, shape, getattr(jax.numpy, dtype_name))


def _round_trip(jax: Any, shape: tuple[int, ...], dtype: Any) -> None:
    x = jax.numpy.array(_sample(shape, dtype))
    assert x.dtype == dtype
    t = dlbridge.from_dlpack(x)
    assert t.readonly
    y = jax.dlpack.from_dlpack(t)
    z = jax.numpy.from_dlpack(t)  # again: the Tensor is not consumed
    for result in (y, z):
        assert result.dtype == x.dtype and result.shape == shape
        np.testing.assert_array_equal(np.asarray(result), np.asarray(x))
        if 0 not in shape:
            assert result.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    copied = jax.dlpack.from_dlpack(t, copy=True)
    np.testing.assert_array_equal(np.asarray(copied), np.asarray(x))


def test_jax_data_stays_refused_for_written_parameters_after_a_round_trip() -> None:
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(4, dtype=jnp.float32)
    again = dlbridge.from_dlpack(dlbridge.from_dlpack(x))
    assert again.readonly

    @dlbridge.jit
    def bump(v):
        v += 1

    for argument in (x, again):
        with pytest.raises(BufferError, match="argument 0 'v': expected a writable tensor, got a READ_ONLY one"):
            bump(argument)
    np.testing.assert_array_equal(np.asarray(x), np.arange(4))
    assert jnp.from_dlpack(again).unsafe_buffer_pointer() == x.unsafe_buffer_pointer()


def test_read_only_numpy_reaches_jax_as_a_copy() -> None:
    """NumPy's READ_ONLY arrays may be changed by their owner: JAX, which asks
    for a legacy capsule, gets a copy, and the array is never written."""
    jax = pytest.importorskip("jax")
    frozen = np.arange(6, dtype=np.float32).reshape(2, 3)
    frozen.flags.writeable = False
    t = dlbridge.from_dlpack(frozen)
    y = jax.dlpack.from_dlpack(t)
    np.testing.assert_array_equal(np.asarray(y), frozen)
    assert y.unsafe_buffer_pointer() != frozen.ctypes.data
    with pytest.raises(BufferError, match="without a copy"):
        t.__dlpack__(copy=False)
    writable = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(dlbridge.from_dlpack(writable))), writable)


def test_read_only_numpy_is_still_refused_for_written_parameters() -> None:
    frozen = np.zeros(3, np.float32)
    frozen.flags.writeable = False

    @dlbridge.jit
    def bump(v):
        v += 1

    for argument in (frozen, dlbridge.from_dlpack(frozen)):
        with pytest.raises(BufferError, match="argument 0 'v': expected a writable tensor, got a READ_ONLY one"):
            bump(argument)
    np.testing.assert_array_equal(frozen, 0)
