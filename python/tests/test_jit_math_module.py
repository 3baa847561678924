"""Python's ``math`` module inside ``@dlbridge.jit``: its functions on traced scalars (elements,
reductions) give Python's numbers and kinds (floats, bools, ints), names imported from it too;
on sizes and numbers they stay ``math``'s; on arrays they fail as Python's do."""

from __future__ import annotations

import math
from math import erf, floor, sqrt
from typing import Any

import dlbridge
import numpy as np
import pytest


def _scalar_math(x: Any) -> Any:
    total = 0.0
    for k in range(x.shape[0]):
        v = x[k]
        total += sqrt(v) + erf(v) + math.log(v, 2) + math.log(v) + floor(v * 3) + math.atan2(v, 1.5)
        total += math.expm1(v) + math.asinh(v) + math.copysign(v, -1.0) + math.pow(v, 1.5)
    return total


def _reductions(x: Any) -> Any:
    s = x.sum()
    return (math.isnan(s), math.isfinite(s), math.ceil(s), math.hypot(x[0], x[1]), math.tanh(s),
            x * math.exp(-s) + math.pi + math.sqrt(x.shape[0]))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_math_functions_of_traced_scalars_are_pythons(dtype: str) -> None:
    x = np.array([0.5, 2.0, 3.25, 1.0], dtype=dtype)
    for fn in (_scalar_math, _reductions):
        got, want = dlbridge.jit(fn)(x), fn(x)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want):
            assert np.asarray(g).dtype == np.asarray(w).dtype, (fn.__name__, g, w)
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6 if dtype == "float32" else 1e-13)


def test_math_of_an_array_is_pythons_type_error() -> None:
    with pytest.raises(TypeError, match="only 0-dimensional arrays"):
        dlbridge.jit(lambda x: math.sqrt(x))(np.ones(3))


def test_math_of_a_size_specialises() -> None:
    scale = dlbridge.jit(lambda x: x / math.sqrt(x.shape[0]))
    for n in (4, 9):
        np.testing.assert_allclose(scale(np.ones(n)), np.ones(n) / math.sqrt(n))
