"""Whole NumPy kernels (examples/numpy_kernels.py) run unchanged under ``@dlbridge.jit``."""

from __future__ import annotations

import pathlib
import sys
from typing import Any

import numpy as np
import pytest

import dlbridge

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples"))
from numpy_kernels import KERNELS  # noqa: E402

SIZES = [1, 7, 24]


def _copy(v: Any) -> Any:
    return v.copy() if isinstance(v, np.ndarray) else v


def _reversed_layout(v: Any) -> Any:
    """``v``'s values in storage with negative strides (non-contiguous arguments)."""
    if not isinstance(v, np.ndarray) or v.ndim == 0:
        return v
    flipped = np.flip(v).copy()
    return np.flip(flipped)


@pytest.mark.parametrize("layout", ["contiguous", "reversed"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", list(KERNELS))
def test_kernel_matches_numpy(name: str, n: int, layout: str) -> None:
    kernel = KERNELS[name]
    args = kernel.inputs(n, np.random.default_rng(n))
    if layout == "reversed":
        args = tuple(_reversed_layout(a) for a in args)
    theirs = [_copy(a) for a in args]
    ours = [_copy(a) if not isinstance(a, np.ndarray) else (_reversed_layout(a) if layout == "reversed" else a.copy()) for a in args]
    want = kernel.fn(*theirs)
    got = dlbridge.jit(kernel.fn)(*ours)
    if want is None:
        assert got is None
    else:
        got_arr, want_arr = np.asarray(got), np.asarray(want)
        assert got_arr.shape == want_arr.shape and got_arr.dtype == want_arr.dtype
        np.testing.assert_allclose(got_arr, want_arr, rtol=1e-9, atol=1e-7)
    for mine, numpy_s, original in zip(ours, theirs, args):
        if isinstance(original, np.ndarray):
            np.testing.assert_allclose(mine, numpy_s, rtol=1e-9, atol=1e-7)
