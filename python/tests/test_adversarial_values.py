"""Errors NumPy raises on the values of its operands, raised by ``@dlbridge.jit`` functions too
instead of returning a number NumPy would not: integers to negative integer powers."""

from __future__ import annotations

import dlbridge
import numpy as np
import pytest

_NEGATIVE_POWER = "Integers to negative integer powers are not allowed"


def power(x, y):
    return x ** y


def power_of_literal(x):
    return x ** -1


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
@pytest.mark.parametrize("exponent", [
    np.array([2, -1, 0]), -1, np.int32(-2)], ids=["array", "python-int", "numpy-int"])
def test_negative_integer_exponents_are_refused(dtype, exponent) -> None:
    x = np.arange(1, 4, dtype=dtype)
    if isinstance(exponent, np.ndarray):
        exponent = exponent.astype(dtype)
    with pytest.raises(ValueError, match=_NEGATIVE_POWER):
        power(x, exponent)
    with pytest.raises(ValueError, match=_NEGATIVE_POWER):
        dlbridge.jit(power)(x, exponent)


def test_negative_literal_exponent_is_refused() -> None:
    x = np.arange(1, 4)
    with pytest.raises(ValueError, match=_NEGATIVE_POWER):
        power_of_literal(x)
    with pytest.raises(ValueError, match=_NEGATIVE_POWER):
        dlbridge.jit(power_of_literal)(x)


def test_non_negative_and_float_exponents_still_follow_numpy() -> None:
    f = dlbridge.jit(power)
    x = np.arange(-3, 4, dtype=np.int64)
    y = np.arange(7, dtype=np.int64)[::-1]
    np.testing.assert_array_equal(f(x, y), x ** y)
    np.testing.assert_array_equal(f(x, 3), x ** 3)
    xf = np.arange(1.0, 5.0)
    np.testing.assert_allclose(f(xf, -1.0), xf ** -1.0)
    u = np.arange(4, dtype=np.uint8)
    np.testing.assert_array_equal(f(u, u), u ** u)
