"""dlbridge in one screen: jitted NumPy-style functions and a hand-written
MLIR kernel, called zero-copy on NumPy (and JAX, PyTorch when installed)
arrays. Run with `make demo`."""

from __future__ import annotations

import pathlib
import time

import dlbridge
import numpy as np


@dlbridge.jit
def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


@dlbridge.jit
def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@dlbridge.jit
def scaled_add(x, y, alpha):
    return alpha * x + y


@dlbridge.jit
def accumulate(total, x):
    total += x * x  # writes the caller's array in place, as NumPy would


def heading(text: str) -> None:
    print(f"\n== {text}")


def time_call(fn, *args, repeat: int = 2000) -> float:
    fn(*args)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            fn(*args)
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1e6


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4)).astype(np.float32)

    heading("@dlbridge.jit on NumPy arrays")
    print("x =\n", x)
    y = softmax(x)
    print("softmax(x) =\n", y)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    print("matches NumPy:", np.allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-6))
    g = gelu(x[:, ::2])  # a strided view: no copy, the kernel reads its strides
    v = x[:, ::2]
    print("gelu(x[:, ::2]) matches NumPy:",
          np.allclose(g, 0.5 * v * (1 + np.tanh(0.7978845608 * (v + 0.044715 * v**3))), rtol=1e-5))

    heading("zero-copy")
    out = scaled_add(x, x, 2.0)
    shared = dlbridge.from_dlpack(out)
    print(f"result is a {type(out).__module__}.{type(out).__name__}; its buffer at "
          f"{out.ctypes.data:#x} is dlbridge's ({shared.data_ptr:#x}), "
          f"{out.ctypes.data % 64 == 0 and '64-byte aligned' or 'unaligned'}")
    view = dlbridge.from_dlpack(x)
    print(f"an argument imported through DLPack keeps its buffer: {view.data_ptr == x.ctypes.data}")

    try:
        import jax.numpy as jnp
    except ImportError:
        print("\n(JAX not installed: skipping JAX arrays)")
    else:
        heading("the same function on JAX arrays")
        jy = softmax(jnp.asarray(x))
        print(f"JAX in -> {type(jy).__module__}.{type(jy).__name__} out; matches NumPy: "
              f"{np.allclose(np.asarray(jy), y, rtol=1e-6)}")
    try:
        import torch
    except ImportError:
        print("(PyTorch not installed: skipping torch tensors)")
    else:
        ty = softmax(torch.from_numpy(x))
        print(f"PyTorch in -> {type(ty).__name__} out; matches NumPy: {np.allclose(ty.numpy(), y, rtol=1e-6)}")

    heading("an argument updated in place")
    total = np.zeros(4, np.float32)
    accumulate(total, np.arange(4, dtype=np.float32))
    accumulate(total, np.arange(4, dtype=np.float32))
    print("total after two accumulate(total, [0 1 2 3]) calls:", total)

    heading("a hand-written MLIR kernel (examples/axpy.mlir)")
    axpy = dlbridge.compile((pathlib.Path(__file__).parent / "axpy.mlir").read_text())
    print("signature:", [(a["name"], a.get("dtype"), a.get("access", "scalar")) for a in axpy.signature["args"]])
    xs = np.arange(8, dtype=np.float32)
    ys = np.ones(4, np.float32)
    print("x[::-2] =", xs[::-2], " y =", ys)
    axpy(xs[::-2], ys, 10.0)
    print("after axpy(x[::-2], y, 10.0): y =", ys)

    heading("a rejected call")
    try:
        axpy(np.arange(4, dtype=np.float64), ys, 1.0)
    except TypeError as error:
        print("TypeError:", error)
    try:
        frozen = np.ones(4, np.float32)
        frozen.flags.writeable = False
        axpy(xs[:4], frozen, 1.0)
    except BufferError as error:
        print("BufferError:", error)
    try:
        scaled_add(np.ones((5, 7), np.float32), np.ones((2, 3), np.float32), 1.0)
    except ValueError as error:
        print("ValueError:", error)

    heading("call times (median of the best loop, µs per call)")
    small = np.ones(16, np.float32)
    print(f"scaled_add on 16 floats:   {time_call(scaled_add, small, small, 2.0):6.2f} µs")
    print(f"NumPy 2.0 * x + y:         {time_call(lambda a, b: 2.0 * a + b, small, small):6.2f} µs")
    big = rng.standard_normal(1 << 20).astype(np.float32)
    print(f"gelu on 2^20 floats:       {time_call(gelu, big, repeat=20):8.1f} µs")
    def numpy_gelu(v: np.ndarray) -> np.ndarray:
        return 0.5 * v * (1.0 + np.tanh(0.7978845608 * (v + 0.044715 * v**3)))

    print(f"NumPy gelu on 2^20 floats: {time_call(numpy_gelu, big, repeat=20):8.1f} µs")


if __name__ == "__main__":
    main()
