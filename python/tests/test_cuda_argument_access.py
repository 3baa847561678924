"""What a CUDA kernel does to its arguments, read from its signature (no GPU needed): an
argument the function only reads is ``read``, whatever the CUDA path does with its sizes and
strides (cuBLASLt products, row kernels, scans), so PyTorch leaves that require grad and JAX
arrays, which cannot be written, are accepted."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest


def mlp(x: Any, w: Any) -> Any:
    return np.tanh(x @ w)


def transposed_product(x: Any, w: Any) -> Any:
    return x.T @ w


def softmax(x: Any, w: Any) -> Any:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) + w.sum()


def cumsum(x: Any, w: Any) -> Any:
    return np.cumsum(x, axis=0) * w.mean()


@pytest.mark.parametrize("fn", [mlp, transposed_product, softmax, cumsum], ids=lambda f: f.__name__)
def test_arguments_only_read_are_read(fn: Callable[..., Any]) -> None:
    x, w = np.ones((64, 64), np.float32), np.ones((64, 32), np.float32)
    source = dlbridge.jit(fn, target="cuda").inspect(x, w)["input"]
    signature = dlbridge.compile(source, target="cuda").signature
    assert [(a["name"], a["access"]) for a in signature["args"]] == [("x", "read"), ("w", "read")]


def test_a_written_argument_is_still_written() -> None:
    def scale_into(x: Any, out: Any) -> None:
        out[...] = x @ x

    x = np.ones((64, 64), np.float32)
    source = dlbridge.jit(scale_into, target="cuda").inspect(x, x.copy())["input"]
    signature = dlbridge.compile(source, target="cuda").signature
    assert [(a["name"], a["access"]) for a in signature["args"]] == [("x", "read"), ("out", "write")]
