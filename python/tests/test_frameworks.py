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
