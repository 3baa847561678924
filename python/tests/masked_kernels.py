"""Kernels over ``x[mask]`` selections as NumPy programs write them, shared by the CPU tests and
the CUDA ones (python/tests/gpu)."""

from __future__ import annotations

from typing import Any

import numpy as np


def positive_mean(data: Any) -> Any:
    return data[data > 0].mean()


def masked_stats(data: Any, mask: Any) -> Any:
    selected = data[mask]
    return selected.sum(), selected.max(), np.min(selected), selected.std(), np.var(selected, ddof=1)


def masked_count(data: Any, mask: Any) -> Any:
    return np.count_nonzero(data[mask] > 0.5), (data[mask] > 1.0).any(), (data[mask] < 5).all()


def rows_where(data: Any, rows: Any) -> Any:
    return data[rows].sum(axis=0), data[rows, :].mean(axis=1).sum()


def inverse_power(x: Any) -> Any:
    x[x > 0] = x[x > 0] ** -1.5
    return x


def mandelbrot(c: Any, iterations: int) -> Any:
    z = np.zeros_like(c)
    escape = np.zeros(c.shape)
    for _ in range(iterations):
        inside = np.abs(z) <= 2
        z[inside] = z[inside] * z[inside] + c[inside]
        escape[inside] += 1
    return escape


def clipped_update(x: Any, y: Any) -> Any:
    m = x < y
    x[m] = np.clip(np.sqrt(y[m]) - x[m], 0.0, 2.0)
    return x
