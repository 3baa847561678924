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


def columns_where(data: Any) -> Any:
    """Columns (and rows of a column slice) selected by masks on a later axis."""
    keep, rows = data.sum(axis=0) > 0, data.sum(axis=1) > 0
    return data[:, keep], data[1:, data.min(axis=0) < 1].sum(axis=0), data[..., keep][rows, 1:]


def zero_columns(data: Any) -> Any:
    """Assignments through a mask on the second axis: a value, an update and a product."""
    out = data.copy()
    keep, rows = out.sum(axis=0) > 0, out.sum(axis=1) > 0
    out[:, keep] = 0
    out[1:, ~keep] += 10
    out[rows, 1:] = out[rows, 1:] * 3
    return out
