"""``np.apply_along_axis``, ``np.apply_over_axes``, ``np.piecewise`` and ``np.vectorize`` under
``@dlbridge.jit``, against NumPy.

Each construct runs on every dtype class in C order, strided, reversed, empty and 0-d (NumPy's
error where NumPy raises: an empty iteration, an axis out of range) and compiles for CUDA; the
targeted tests check that the slices are one loop whatever their number and that the first
slice's result fixes the dtype as NumPy's does.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from numpy_constructs import DTYPES, LAYOUTS, check_construct, make


def _clamp(v: Any, lo: Any, hi: Any) -> Any:
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@np.vectorize
def _step(v: Any) -> Any:
    return 1.5 if v > 0 else -v


#: name → the NumPy user's function of one array
CONSTRUCTS: dict[str, Callable[[Any], Any]] = {
    "centre_rows": lambda a: np.apply_along_axis(lambda r: r - r.mean(), 1, a),
    "sum_columns": lambda a: np.apply_along_axis(np.sum, 0, a),
    "top_two": lambda a: np.apply_along_axis(lambda r: np.sort(r)[::-1][:2], -1, a),
    "outer_per_row": lambda a: np.apply_along_axis(lambda r: np.outer(r, r[:2]), 1, a),
    "extra_arguments": lambda a: np.apply_along_axis(lambda r, k, scale=1: r[:k] * scale, 1, a, 2, scale=3),
    "count_per_row": lambda a: np.apply_along_axis(lambda r: (r > 0).sum(), 1, a),
    "over_axes": lambda a: np.apply_over_axes(np.sum, a, [0, 1]),
    "over_one_axis": lambda a: np.apply_over_axes(lambda v, ax: np.max(v, axis=ax), a, -1),
    "piecewise": lambda a: np.piecewise(a, [a < 0, a > 1], [lambda v: v * 3, lambda v: v * 2]),
    "piecewise_otherwise": lambda a: np.piecewise(a, [a < 0, a > 1], [7, lambda v: v * 2, lambda v: v - 1]),
    "piecewise_one_condition": lambda a: np.piecewise(a, [a > 0], [lambda v, k: v + k, 3], 5),
    "piecewise_of_rows": lambda a: np.piecewise(a[0], a[0] > 0, [lambda v: v / 2, 3]),
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


def test_slices_are_one_loop_for_any_number_of_them() -> None:
    """The function is traced once whatever the number of slices (a dynamic size)."""
    centre = dlbridge.jit(CONSTRUCTS["centre_rows"])
    rng = np.random.default_rng(1)
    for rows in (2, 9, 300):
        x = rng.random((rows, 5))
        np.testing.assert_allclose(centre(x), CONSTRUCTS["centre_rows"](x), rtol=1e-13)
    assert centre.num_specialisations == 1
    assert centre.lower(rng.random((4, 5))).count("linalg.generic") < 12


def test_the_first_slice_fixes_the_result_dtype() -> None:
    """NumPy stores every slice's result in the dtype of the first one's."""
    def first_int(a: Any) -> Any:
        return np.apply_along_axis(lambda r: r.sum().astype(np.int64) if False else r.sum() // 1, 1, a)

    x = np.arange(12.0).reshape(3, 4) / 3
    np.testing.assert_array_equal(dlbridge.jit(first_int)(x), first_int(x))
    as_int = dlbridge.jit(lambda a: np.apply_along_axis(lambda r: np.int32(r[0]), 1, a))
    got = as_int(x)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.apply_along_axis(lambda r: np.int32(r[0]), 1, x))


def test_an_empty_iteration_is_numpys_value_error() -> None:
    centre = JITTED["centre_rows"]
    with pytest.raises(ValueError, match="Cannot apply_along_axis when any iteration dimensions are 0"):
        centre(np.ones((0, 4)))
    with pytest.raises(np.exceptions.AxisError):
        dlbridge.jit(lambda a: np.apply_along_axis(np.sum, 2, a))(np.ones((2, 3)))


#: ``np.vectorize`` users' functions of a float array; NumPy takes the result dtype from the first
#: element's result, so each keeps one type whatever the branch (or gives ``otypes``).
VECTORIZED: dict[str, Callable[[Any], Any]] = {
    "branches": lambda a: np.vectorize(_clamp)(a, -0.5, 1.0),
    "decorated": lambda a: _step(a) * 2,
    "otypes_of_mixed_branches": lambda a: np.vectorize(_clamp, otypes=[np.int64])(a * 3, -1, 2),
    "math_functions": lambda a: (np.vectorize(lambda v, w: math.erf(v) + w, otypes=[np.float32])(a, a[..., :1]),
                                 np.vectorize(math.floor)(a * 3)),
    "excluded": lambda a: np.vectorize(_clamp, excluded={"hi"})(a, a[..., :1], hi=0.25),
}


@pytest.mark.parametrize("layout", ["C", "strided", "reversed"])
@pytest.mark.parametrize("name, dtype", [(n, "float64") for n in VECTORIZED]
                         + [("otypes_of_mixed_branches", "float32"), ("math_functions", "float32")])
def test_vectorized_functions_match_numpy(name: str, dtype: str, layout: str) -> None:
    """float32 only where the result type does not depend on the first element's branch."""
    check_construct(dlbridge.jit(VECTORIZED[name]), VECTORIZED[name], dtype, layout)


@pytest.mark.parametrize("name", list(VECTORIZED))
def test_vectorized_functions_compile_for_cuda(name: str) -> None:
    info = dlbridge.jit(VECTORIZED[name], target="cuda").inspect(make("float32", "C"))
    assert ".entry" in info["ptx"] or ".visible" in info["ptx"]


def test_vectorized_branches_are_one_loop_of_scalar_code() -> None:
    """The function is traced once on scalars: its ``if``s are ``scf.if`` in one loop, one kernel
    for every size; an empty input is NumPy's ValueError without ``otypes``, an empty result with."""
    clamp = dlbridge.jit(VECTORIZED["branches"])
    rng = np.random.default_rng(4)
    for n in (3, 50):
        x = rng.standard_normal((n, 2))
        np.testing.assert_array_equal(clamp(x), VECTORIZED["branches"](x))
    assert clamp.num_specialisations == 1
    text = clamp.lower(rng.standard_normal((3, 2)))
    assert "scf.if" in text and text.count("scf.for") == 1
    with pytest.raises(ValueError, match="cannot call `vectorize` on size 0 inputs unless `otypes` is set"):
        clamp(np.ones((0, 2)))
    typed = dlbridge.jit(VECTORIZED["otypes_of_mixed_branches"])(np.ones((0, 2)))
    assert typed.shape == (0, 2) and typed.dtype == np.int64


def test_branches_giving_different_types_promote() -> None:
    """``lo if v < lo else v`` of an int array and a float bound is a float64 in the kernel,
    whichever branch runs (NumPy's type follows the first element), as numba unifies them."""
    clamp = dlbridge.jit(lambda a: np.vectorize(_clamp)(a, -0.5, 2))
    x = np.array([-3, 0, 1, 5])
    got = clamp(x)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [-0.5, 0.0, 1.0, 2.0])
