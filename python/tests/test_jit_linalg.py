"""``np.linalg.cholesky``, ``solve``, ``inv`` and ``det`` traced as NumPy programs of their
textbook algorithms: NumPy's answers for every size from one kernel (loops, not unrolled
steps), pivoting where the diagonal is zero, and NumPy's LinAlgError messages."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest

RNG = np.random.default_rng(5)


def _decompose(a: Any, b: Any) -> Any:
    spd = a @ a.T + a.shape[0] * np.eye(a.shape[0])
    return (np.linalg.solve(a, b), np.linalg.solve(a, b[:, None] * np.ones(3)), np.linalg.inv(a),
            np.linalg.det(a), np.linalg.cholesky(spd), np.linalg.cholesky(spd, upper=True))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_solvers_match_numpy_at_every_size(dtype: Any) -> None:
    jitted = dlbridge.jit(_decompose)
    rtol = 1e-9 if dtype == np.float64 else 2e-3
    for n in (1, 2, 5, 9):
        a = RNG.normal(size=(n, n)).astype(dtype)
        b = RNG.normal(size=n).astype(dtype)
        for layout in (a, a.T, a[::-1]):
            for got, want in zip(jitted(layout, b), _decompose(layout, b)):
                np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
                assert got.dtype == want.dtype
    assert jitted.num_specialisations <= 2  # 1x1 is its own (unit dims); no size was fixed
    assert "scf.for" in jitted.lower(a, b)


def test_a_zero_on_the_diagonal_is_pivoted_away() -> None:
    a = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 0.0], [3.0, 1.0, 0.0]])
    b = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(dlbridge.jit(np.linalg.solve)(a, b), np.linalg.solve(a, b))
    np.testing.assert_allclose(dlbridge.jit(np.linalg.det)(a), np.linalg.det(a))


def test_integer_matrices_are_solved_in_float64() -> None:
    a = np.array([[2, 1], [1, 3]])
    got = dlbridge.jit(np.linalg.inv)(a)
    np.testing.assert_allclose(got, np.linalg.inv(a))
    assert got.dtype == np.float64


def test_linalg_errors_are_numpys_messages() -> None:
    with pytest.raises(ValueError, match="Singular matrix"):
        dlbridge.jit(np.linalg.inv)(np.ones((3, 3)))
    with pytest.raises(ValueError, match="Matrix is not positive definite"):
        dlbridge.jit(np.linalg.cholesky)(-np.eye(2))
    with pytest.raises(ValueError, match="Last 2 dimensions of the array must be square"):
        dlbridge.jit(np.linalg.det)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="Array must be two-dimensional"):
        dlbridge.jit(np.linalg.inv)(np.ones(3))


def test_inputs_are_left_untouched() -> None:
    a = RNG.normal(size=(4, 4))
    before = a.copy()
    dlbridge.jit(_decompose)(a, np.ones(4))
    np.testing.assert_array_equal(a, before)
