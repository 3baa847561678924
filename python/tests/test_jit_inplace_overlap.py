"""In-place updates whose value is read from the array being updated (``x[:] = x[::-1]``): the
caller's array ends as NumPy leaves it (NumPy copies an operand that overlaps the destination),
and values that read only the elements they replace are stored without a temporary."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest


def _reverse(x: Any) -> None:
    x[:] = x[::-1]


def _copyto_reversed(x: Any) -> None:
    np.copyto(x, x[::-1])


def _reverse_both(x: Any) -> None:
    x[...] = x[::-1, ::-1]


def _reverse_rows(x: Any) -> None:
    x[...] = x[::-1]


def _shift_right(x: Any) -> None:
    x[1:] = x[:-1]


def _shift_left(x: Any) -> None:
    x[:-1] = x[1:]


def _accumulate_shifted(x: Any) -> None:
    x[1:] += x[:-1]


def _add_reversed(x: Any) -> None:
    x += x[::-1]


def _reverse_scaled(x: Any) -> None:
    x[:] = x[::-1] * 2 + 1


def _half_from_other_half(x: Any) -> None:
    x[:4] = x[::-1][:4] * 10


def _every_other(x: Any) -> None:
    x[::2] = x[1::2]


def _strided_reversed(x: Any) -> None:
    x[1::2] = x[-2::-2]


def _transpose(x: Any) -> None:
    x[...] = x.T


def _add_transpose(x: Any) -> None:
    x += x.T


def _add_first_row(x: Any) -> None:
    x += x[0]


def _column_into_row(x: Any) -> None:
    x[0, :] = x[:, 0]


def _ufunc_out_reversed(x: Any) -> None:
    np.add(x[::-1], 1, out=x)


def _through_view(x: Any) -> None:
    v = x[::-1]
    x[:] = v + 0


def _after_update(x: Any) -> None:
    y = x[::-1]
    x += 1
    x[:] = y * 3


ONE_D = [_reverse, _copyto_reversed, _shift_right, _shift_left, _accumulate_shifted,
         _add_reversed, _reverse_scaled, _half_from_other_half, _every_other, _strided_reversed,
         _ufunc_out_reversed, _through_view, _after_update]
TWO_D = [_reverse_both, _reverse_rows, _transpose, _add_transpose, _add_first_row,
         _column_into_row, _accumulate_shifted, _add_reversed]


def _check(fn: Callable[[Any], None], x: np.ndarray) -> None:
    want = x.copy()
    fn(want)
    got = x.copy()
    assert dlbridge.jit(fn)(got) is None
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", ONE_D, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_overlapping_update_1d_matches_numpy(fn: Callable[[Any], None], dtype: str) -> None:
    _check(fn, np.arange(10).astype(dtype))


@pytest.mark.parametrize("fn", TWO_D, ids=lambda f: f.__name__)
def test_overlapping_update_2d_matches_numpy(fn: Callable[[Any], None]) -> None:
    _check(fn, np.arange(16.0).reshape(4, 4) ** 1.5)


def test_overlapping_update_of_strided_and_reversed_arguments() -> None:
    base = np.arange(30.0)
    for x in (base[::3], base[::-2]):
        _check(_reverse, x)
        _check(_accumulate_shifted, x)


def test_reversed_copy_returned_and_written() -> None:
    @dlbridge.jit
    def f(x: Any) -> Any:
        x[:] = x[::-1]
        return x

    x = np.arange(10)
    out = f(x)
    np.testing.assert_array_equal(x, np.arange(10)[::-1])
    np.testing.assert_array_equal(out, np.arange(10)[::-1])


def _same_elements(x: Any) -> None:
    x[:] = x * 2


def _augmented(x: Any) -> None:
    x += 1


def _augmented_region(x: Any) -> None:
    x[2:] *= 3


def _masked(x: Any) -> None:
    x[x > 4] = 0


def _other_argument(x: Any, y: Any) -> None:
    x[:] = y[::-1]


@pytest.mark.parametrize("fn", [_same_elements, _augmented, _augmented_region, _masked],
                         ids=lambda f: f.__name__)
def test_update_from_the_elements_it_replaces_needs_no_temporary(fn: Callable[[Any], None]) -> None:
    jitted = dlbridge.jit(fn)
    x = np.arange(10.0)
    assert "linalg.copy" not in jitted.lower(x)
    _check(fn, x)


def test_update_from_another_argument_needs_no_temporary() -> None:
    jitted = dlbridge.jit(_other_argument)
    x, y = np.zeros(10), np.arange(10.0)
    assert "linalg.copy" not in jitted.lower(x, y)
    jitted(x, y)
    np.testing.assert_array_equal(x, y[::-1])


def test_overlapping_update_is_staged_once() -> None:
    text = dlbridge.jit(_reverse).lower(np.arange(10.0))
    assert text.count("linalg.copy") == 1


def _shift_in_loop(x: Any, n: Any) -> None:
    for _ in range(n):
        x[1:] = x[:-1] + 1


def _reverse_in_loop(x: Any, n: Any) -> None:
    for i in range(n):
        x[:] = x[::-1] * 2 + i


def _stencil(u: Any, n: Any) -> None:
    for _ in range(n):
        u[1:-1] += 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])


@pytest.mark.parametrize("fn", [_shift_in_loop, _reverse_in_loop, _stencil], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 5, 40])
def test_overlapping_update_in_a_loop_matches_numpy(fn: Callable[[Any, Any], None], n: int) -> None:
    x = np.sin(np.arange(12.0))
    want = x.copy()
    fn(want, n)
    dlbridge.jit(fn)(x, n)
    np.testing.assert_allclose(x, want, rtol=1e-12)


def test_augmented_slice_assignment_stores_once() -> None:
    # Python runs ``t = x[2:]; t *= 3; x[2:] = t``: the last store puts t where it already lies.
    text = dlbridge.jit(_augmented_region).lower(np.arange(10.0))
    assert text.count("tensor.insert_slice") == 1
    assert "linalg.copy" not in text
    _check(_augmented_region, np.arange(10.0))
