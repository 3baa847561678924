"""Kernels whose slice sizes are computed in traced loops (kept in a file: loops need source)."""

from __future__ import annotations

from typing import Any


def pairwise_stages(x: Any) -> Any:
    """FFT-style stages: halves of blocks whose length doubles in a traced while loop, the first
    stage's halves one element long."""
    x = x.copy()
    n = x.shape[0]
    length = 2
    while length <= n:
        for s in range(0, n, length):
            u = x[s:s + length // 2].copy()
            v = x[s + length // 2:s + length] * 2
            x[s:s + length // 2] = u + v
        length *= 2
    return x
