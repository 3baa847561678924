"""Sizes and int, bool and float arguments that Python code needs as numbers (``int(n)``, ``math.sqrt(d)``,
``if n > 1:``, shapes of created arrays) are fixed at the call's values and guarded, as
``torch.compile`` specialises dynamic shapes: the kernel is reused while the guards hold and
traced again when they do not, and array code that never needs a number stays shape-generic."""

from __future__ import annotations

import logging
import math
from typing import Any

import dlbridge
import numpy as np
import pytest


def _attention_scores(q: Any, k: Any) -> Any:
    return (q @ k.T) / math.sqrt(q.shape[-1])


def _scaled_by_length(x: Any) -> Any:
    return x * float(len(x)) + float(x.shape[-1])


def _rows_as_given(x: Any, n: Any) -> Any:
    return x.reshape(int(n), -1) * 2


def _blocks(a: Any, nr: Any, nq: Any, np_: Any) -> Any:
    return np.reshape(a, (nr, nq, 1, np_)).sum(axis=2)


def _branch_on_size(x: Any) -> Any:
    n = x.shape[0]
    if n - 1 >= 2:
        return x[1:] - x[:-1]
    return x * 10


def _window_sums(x: Any) -> Any:
    h, k = x.shape[0], 3
    out = np.zeros(max(h - k + 1, 0))
    for i in range(h - k + 1):
        out[i] = x[i:i + k].sum()
    return out


def _checked(x: Any, n: Any) -> Any:
    assert x.shape[0] == n, "wrong length"
    return x + n


CASES = [
    (_attention_scores, [(np.ones((4, 8)), np.ones((3, 8))), (np.ones((2, 16)), np.ones((5, 16)))]),
    (_scaled_by_length, [(np.arange(6.0).reshape(3, 2),), (np.arange(12.0).reshape(4, 3),)]),
    (_rows_as_given, [(np.arange(12.0), 3), (np.arange(12.0), 4), (np.arange(12.0)[::-1], 2)]),
    (_blocks, [(np.arange(24.0), 2, 3, 4), (np.arange(24.0), 4, 3, 2)]),
    (_branch_on_size, [(np.arange(5.0),), (np.arange(2.0),), (np.arange(4.0)[::-1],)]),
    (_window_sums, [(np.arange(10.0),), (np.arange(4.0),)]),
    (_checked, [(np.arange(3.0), 3), (np.arange(5.0), 5)]),
]


@pytest.mark.parametrize("fn, calls", CASES, ids=[f.__name__ for f, _ in CASES])
def test_python_numbers_from_sizes_match_numpy(fn: Any, calls: list[tuple[Any, ...]]) -> None:
    jitted = dlbridge.jit(fn)
    for args in calls:
        np.testing.assert_allclose(jitted(*args), fn(*args))
        np.testing.assert_allclose(jitted(*args), fn(*args))  # the guarded kernel, reused


def test_guards_reuse_the_kernel_while_they_hold() -> None:
    jitted = dlbridge.jit(_attention_scores)
    jitted(np.ones((4, 8)), np.ones((3, 8)))
    jitted(np.ones((9, 8)), np.ones((2, 8)))  # other sizes, same guarded one: q.shape[1] == 8
    assert jitted.num_specialisations == 1
    np.testing.assert_allclose(jitted(np.ones((2, 32)), np.ones((2, 32))), np.full((2, 2), 32 / math.sqrt(32)))
    assert jitted.num_specialisations == 2
    jitted(np.ones((5, 8)), np.ones((5, 8)))  # back to the first guard's value
    assert jitted.num_specialisations == 2


def test_array_code_stays_shape_generic() -> None:
    jitted = dlbridge.jit(lambda x, y: np.exp(x[1:] - x.max(axis=0)) + y)
    for rows, cols in [(3, 4), (7, 4), (5, 9)]:
        x = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
        np.testing.assert_allclose(jitted(x, 1.5), np.exp(x[1:] - x.max(axis=0)) + 1.5)
    assert jitted.num_specialisations == 1


def _bit_sizes(x: Any) -> Any:
    n = x.shape[0]
    half, low, flipped, mask, power = n >> 1, n & 3, n ^ 5, n | 8, 1 << n % 4
    return np.zeros(half + low + flipped + mask + power + ~n + 20) + divmod(n, 3)[1]


def test_bitwise_arithmetic_on_sizes_stays_shape_generic() -> None:
    """``n >> 1``, ``n & 3``, ``~n`` of a dynamic size are sizes, as Python's int operators."""
    jitted = dlbridge.jit(_bit_sizes)
    for n in (2, 5, 12, 33, 0, 1):
        x = np.ones(n)
        got, want = jitted(x), _bit_sizes(x)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        if n == 33:
            assert jitted.num_specialisations == 1


def test_a_negative_shift_count_is_pythons_value_error() -> None:
    jitted = dlbridge.jit(lambda x: x[: x.shape[0] >> -1])
    with pytest.raises(ValueError, match="negative shift count"):
        jitted(np.ones(3))


def test_int_arguments_used_as_trip_counts_stay_dynamic() -> None:
    @dlbridge.jit
    def repeat_double(x: Any, nit: Any) -> Any:
        for _ in range(nit):
            x = x * 2
        return x

    for nit in (0, 1, 5):
        np.testing.assert_allclose(repeat_double(np.ones(3), nit), np.full(3, 2.0 ** nit))
    assert repeat_double.num_specialisations == 1


def test_bool_arguments_in_conditions_are_guarded() -> None:
    @dlbridge.jit
    def maybe_normalise(x: Any, normalise: Any) -> Any:
        if normalise:
            return x / x.sum()
        return x

    x = np.arange(1.0, 5.0)
    np.testing.assert_allclose(maybe_normalise(x, True), x / x.sum())
    np.testing.assert_allclose(maybe_normalise(x, False), x)
    np.testing.assert_allclose(maybe_normalise(x, True), x / x.sum())
    assert maybe_normalise.num_specialisations == 2


def test_float_arguments_python_needs_are_guarded_by_their_bits() -> None:
    """``int(a)``, ``float(a)`` and ``if a > 0:`` of a float argument evaluate as Python does on
    the call's value; the kernel is reused for the same float (NaN included) and traced again for
    another, -0.0 and 0.0 being different values."""
    @dlbridge.jit
    def truncated_scale(x: Any, a: Any) -> Any:
        if a > 0:
            return x * int(a) + float(a)
        return x - a

    x = np.arange(4.0)
    for a in [2.7, 2.7, -1.5, 2.7, 3.9, -0.0, 0.0, math.nan, math.nan]:
        want = x * int(a) + a if a > 0 else x - a
        np.testing.assert_array_equal(truncated_scale(x, a), want)
    assert truncated_scale.num_specialisations == 6


def test_float_arguments_in_array_code_stay_dynamic() -> None:
    @dlbridge.jit
    def axpy(x: Any, a: Any) -> Any:
        return a * x + 1.0

    for a in [0.5, 1.5, -2.0]:
        np.testing.assert_allclose(axpy(np.ones(3), a), a + 1.0)
    assert axpy.num_specialisations == 1


def test_guards_and_static_arguments_together() -> None:
    @dlbridge.jit(static_argnames="k")
    def tiled(x: Any, n: Any, k: int = 1) -> Any:
        return np.zeros((int(n), k)) + x.sum()

    for n, k in [(2, 3), (2, 2), (4, 3), (2, 3)] * 3:
        np.testing.assert_allclose(tiled(np.ones(3), n, k=k), np.full((n, k), 3.0))
    assert tiled.num_specialisations == 3


def test_the_failed_guard_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    jitted = dlbridge.jit(_rows_as_given)
    with caplog.at_level(logging.INFO, logger="dlbridge"):
        jitted(np.arange(12.0), 3)
        jitted(np.arange(12.0), 4)
    reasons = [r.getMessage() for r in caplog.records]
    assert any("guard n == 3 failed (now 4)" in r for r in reasons), reasons


def test_lower_shows_the_specialised_module() -> None:
    jitted = dlbridge.jit(_attention_scores)
    assert "tensor<?x8xf64>" in jitted.lower(np.ones((4, 8)), np.ones((3, 8)))


def test_loop_indices_and_data_still_cannot_be_numbers() -> None:
    @dlbridge.jit
    def index_as_int(x: Any) -> Any:
        for i in range(x.shape[0]):
            x[i] = int(i)
        return x

    @dlbridge.jit
    def branch_on_data(x: Any) -> Any:
        positive = bool(x.sum() > 0)
        return x if positive else -x

    with pytest.raises(dlbridge.TraceError, match="int"):
        index_as_int(np.zeros(3))
    with pytest.raises(dlbridge.TraceError, match="bool"):
        branch_on_data(np.ones(3))
