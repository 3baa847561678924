"""``np.angle``, ``np.unwrap``, ``np.sinc`` and the window functions under ``@dlbridge.jit``,
against NumPy: every dtype class and layout, dynamic window lengths (one kernel for every
length), ``unwrap``'s ``discont``/``period``/``axis`` and integer periods."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from numpy_constructs import DTYPES, LAYOUTS, check_construct, make

#: name → the NumPy user's function of one array
CONSTRUCTS: dict[str, Callable[[Any], Any]] = {
    "angle": lambda a: (np.angle(a), np.angle(a, deg=True)),
    "sinc": lambda a: np.sinc(a),
    "unwrap": lambda a: (np.unwrap(np.cumsum(a, axis=-1) * 3), np.unwrap(a * 4, axis=0),
                         np.unwrap(a * 5, discont=4.0, period=5.0)),
    "windows": lambda a: (np.hanning(a.shape[-1]) * a, np.hamming(a.shape[-1]) * a, np.blackman(a.shape[-1]) * a,
                          np.bartlett(a.shape[-1]) * a),
}

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_matches_numpy(name: str, dtype: str, layout: str) -> None:
    check_construct(JITTED[name], CONSTRUCTS[name], dtype, layout)


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_compiles_for_cuda(name: str) -> None:
    info = dlbridge.jit(CONSTRUCTS[name], target="cuda").inspect(make("float32", "C"))
    assert ".entry" in info["ptx"] or ".visible" in info["ptx"]


@pytest.mark.parametrize("window", ["hanning", "hamming", "blackman", "bartlett"])
def test_window_lengths_from_sizes_and_int_arguments(window: str) -> None:
    """A window of ``M`` points, ``M`` a dynamic size or an int argument, 0 and 1 included."""
    of_size = dlbridge.jit(lambda x: getattr(np, window)(x.shape[0]))
    of_arg = dlbridge.jit(lambda x, m: getattr(np, window)(m) + x[:0].sum())
    for m in (2, 5, 8, 0, 1):
        want = getattr(np, window)(m)
        for got in (of_size(np.ones(m)), of_arg(np.ones(3), m)):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
    assert of_arg.num_specialisations == 1


def test_unwrap_with_an_integer_period() -> None:
    """An integer phase with an even period: NumPy's boundary rule for ambiguous jumps."""
    fn = dlbridge.jit(lambda p: np.unwrap(p, period=6))
    p = np.array([0, 2, 5, 3, 9, 0, -3, 4])
    got, want = fn(p), np.unwrap(p, period=6)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
