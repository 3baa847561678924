"""Array conversion and shape manipulation of issue 26 under ``@dlbridge.jit``, against NumPy.

``np.asarray``/``np.array`` and friends on traced values, the functions that add, drop, reorder
and broadcast axes, splitting, stacking, ``append``/``insert``/``delete``, ``resize`` and
``pad``. Each construct runs on every dtype class in C order, strided, reversed, empty and 0-d
(``test_jit_numpy_surface``'s inputs) and must give NumPy's values, dtype and shape, leave its
input untouched, or raise where NumPy raises; each also compiles for CUDA (through ptxas). The
targeted tests cover the arguments whose semantics are easy to get wrong: ``copy=`` and the
aliasing it decides, lists mixing traced values and numbers, ``item``'s Python-scalar dtype,
sizes that may be 1, dynamic sizes that stay dynamic, every pad width form and mode, bounds.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view
from numpy_constructs import DTYPES, LAYOUTS, check_construct, compare, make


def _asarray_writes(a: Any) -> Any:
    """``asarray`` gives the array itself (writes reach it), ``array`` a copy (they don't)."""
    c = a.copy()
    if c.ndim:
        alias = np.asarray(c)
        alias[...] = 0
    fresh = np.array(c)
    fresh[...] = 1
    also = np.array(c, copy=None)
    return c, fresh, also * 1


#: name → the NumPy user's function of one array
CONSTRUCTS: dict[str, Callable[[Any], Any]] = {
    "asarray": lambda a: (np.asarray(a).copy(), np.asanyarray(a, dtype=np.float64), np.ascontiguousarray(a) * 1,
                          np.asfortranarray(a.T) * 1, np.array(a, ndmin=3), np.array(a, dtype=np.complex128, copy=None),
                          np.asarray(a, order="F") * 1),
    "asarray_writes": _asarray_writes,
    "array_of_values": lambda a: (np.array([a.sum(), a.sum() * 2]), np.array(a.shape), np.array([a, a]),
                                  np.array([[a.size, 1], [2, a.ndim]]), np.array((a.sum(), 1.5), dtype=np.float32),
                                  np.asarray([a.size, 2.5])),
    "item": lambda a: (a.sum().item() + a, a.sum(keepdims=True).item() * 2, a.item(0), a.reshape(-1)[-1]),
    "atleast": lambda a: (np.atleast_1d(a) * 1, np.atleast_2d(a) * 1, np.atleast_3d(a) * 1,
                          *np.atleast_1d(a.sum(), a), np.atleast_3d(a.sum()) * 1),
    "expand_squeeze": lambda a: (np.expand_dims(a, 0) * 1, np.expand_dims(a, (0, -1)) * 1,
                                 np.squeeze(np.expand_dims(a, 1)) * 1, np.squeeze(a[:1]) * 1,
                                 np.squeeze(a[:, :1], axis=1) * 1, a[None].squeeze(0) * 1),
    "swap_move": lambda a: (np.swapaxes(a, 0, -1) * 1, a.swapaxes(1, 0) * 1, np.moveaxis(a, 0, 1) * 1,
                            np.moveaxis(a[None], [0, 2], [-1, 0]) * 1, np.rollaxis(a[None], 2) * 1,
                            np.rollaxis(a, 1, 0) * 1, np.rollaxis(a, 0, 2) * 1),
    "rot90": lambda a: (np.rot90(a) * 1, np.rot90(a, 2) * 1, np.rot90(a, -1) * 1, np.rot90(a, 3, axes=(1, 0)) * 1,
                        np.rot90(a[None], 1, (0, 2)) * 1),
    "broadcast": lambda a: (np.broadcast_to(a[..., :1], a.shape), np.broadcast_to(a, (2, *a.shape)),
                            np.broadcast_to(a[:, :1], (a.shape[0], 4)), *np.broadcast_arrays(a, a[..., -1:], a.T[:1].T)),
    "flatten": lambda a: (a.flatten(), a.flatten("F"), a.T.flatten()),
    "split": lambda a: (*np.split(a, [1, 3], axis=1), *np.array_split(a, 3, axis=1), *np.array_split(a, 2),
                        *np.hsplit(a, [2]), *np.vsplit(a, [2]), *np.dsplit(a[..., None], 1),
                        *np.split(a, 5, axis=-1)),
    "split_unequal": lambda a: tuple(np.split(a, 2, axis=1)),
    "stacks": lambda a: (np.column_stack([a, a]), np.column_stack([a[..., 0], a[:, :2]]), np.dstack([a, a]),
                         np.dstack([a[0], a[-1]]), np.append(a, a), np.append(a, a[:1], axis=0),
                         np.append(a, [[1] * 5], axis=0)),
    "insert": lambda a: (np.insert(a, 1, 0, axis=1), np.insert(a, [0, 2, 2], a[:, :1], axis=1),
                         np.insert(a, -1, 7, axis=1), np.insert(a, slice(None, None, 2), 5, axis=1),
                         np.insert(a, 5, a[:, 0], axis=1), np.insert(a, 0, 0.5)),
    "delete": lambda a: (np.delete(a, 1, axis=1), np.delete(a, [0, -1], axis=1), np.delete(a, slice(1, 4, 2), axis=1),
                         np.delete(a, -1, axis=-1), np.delete(a, slice(2, None), axis=1),
                         np.delete(a, np.array([True, False, True, False, False]), axis=1)),
    "delete_out_of_bounds": lambda a: np.delete(a, 3, axis=0),
    "resize": lambda a: (np.resize(a, (2, 7)), np.resize(a.T, 16), np.resize(a, 0), np.resize(a, (1, 1))),
    "pad_constant": lambda a: (np.pad(a, 1), np.pad(a, ((1, 0), (0, 2)), constant_values=((1, 2), (0, 1))),
                               np.pad(a, (2, 3)), np.pad(a, [(0, 1)]), np.pad(a, 0)),
    "pad_modes": lambda a: (np.pad(a, ((1, 0), (0, 2)), mode="edge"), np.pad(a, (2, 3), mode="reflect"),
                            np.pad(a, 4, mode="symmetric"), np.pad(a, ((0, 1), (6, 2)), mode="wrap"),
                            np.pad(a, 7, mode="reflect"), np.pad(a, 11, mode="wrap")),
    "sliding_windows": lambda a: (sliding_window_view(a, 2, axis=-1) * 1, sliding_window_view(a, 3, axis=0).sum(-1),
                                  sliding_window_view(a, (2, 2), axis=(1, 1)) * 1,
                                  sliding_window_view(a, (1, 4), axis=(-2, -1)).sum(axis=(-2, -1))),
    "sliding_windows_all_axes": lambda a: sliding_window_view(a, (2,) * a.ndim) * 1,
    "block": lambda a: (np.block([[a, np.zeros_like(a)], [a[:, :1] * np.ones_like(a), a]]), np.block([a, a]),
                        np.block([[a], [a]]), np.block([[[a]]])),
}

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_matches_numpy(name: str, dtype: str, layout: str) -> None:
    check_construct(JITTED[name], CONSTRUCTS[name], dtype, layout)


@pytest.mark.parametrize("name", [n for n in CONSTRUCTS if n not in ("split_unequal", "delete_out_of_bounds")])
def test_construct_compiles_for_cuda(name: str) -> None:
    info = dlbridge.jit(CONSTRUCTS[name], target="cuda").inspect(make("float32", "C"))
    assert ".entry" in info["ptx"] or ".visible" in info["ptx"]


# --------------------------------------------------------------------------------------------------
# conversion


def test_asarray_aliases_and_array_copies_the_argument() -> None:
    def f(a: Any) -> Any:
        np.asarray(a)[0, 0] = 10.0
        np.array(a)[0, 1] = 20.0
        np.array(a, copy=False)[1, 0] = 30.0
        np.asarray(a, dtype=np.float32)[1, 1] = 40.0
        return a * 1

    a = np.zeros((2, 3))
    want = np.zeros((2, 3))
    want[0, 0], want[1, 0] = 10.0, 30.0
    np.testing.assert_array_equal(dlbridge.jit(f)(a.copy()), want)


@pytest.mark.parametrize("fn", [
    lambda a: np.array(a, dtype=np.float32, copy=False),
    lambda a: np.asarray(a, dtype=np.int64, copy=False),
    lambda a: np.array([a[0, 0], 1.0], copy=False),
    lambda a: np.asarray(a.shape, copy=False),
])
def test_copy_false_that_needs_a_copy_is_numpys_value_error(fn: Callable[[Any], Any]) -> None:
    a = np.ones((2, 3))
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        fn(a)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        dlbridge.jit(fn)(a)


def test_lists_mixing_traced_values_and_numbers_promote_as_numpy() -> None:
    fn = lambda a: (np.array([a[0, 0], 2]), np.array([[a[0, 0], 1], [2, a[1, 1]]]),  # noqa: E731
                    np.array([a[0, 0], 2.5]), np.array([a[0], [1, 2, 3]]), np.array(a.shape, dtype=np.int32),
                    np.array([True, a[0, 0] > 0]))
    for dtype in ("float32", "int32", "uint8", "bool"):
        a = np.arange(6).reshape(2, 3).astype(dtype)
        compare(dlbridge.jit(fn)(a), fn(a), False)


def test_nothing_traced_stays_numpy() -> None:
    seen: list[Any] = []

    def f(a: Any) -> Any:
        for made in (np.asarray([1.0, 2.0]), np.array([[1, 2]], ndmin=3), np.ascontiguousarray(3.0),
                     np.atleast_2d([1.0]), np.expand_dims([0.0, 1.0], 0), np.pad([1.0, 2.0], 1),
                     np.split(np.array([0, 1, 2, 3]), 2)[0], np.insert([0, 1, 2], 1, 9), np.resize([1, 2], 3),
                     np.broadcast_to([1, 2], (2, 2)), np.moveaxis([[1, 2]], 0, 1), np.rot90([[1, 2]])):
            seen.append(made)
        return a + np.asarray([1.0, 2.0])

    np.testing.assert_array_equal(dlbridge.jit(f)(np.zeros(2)), [1.0, 2.0])
    assert seen and all(type(m) is np.ndarray for m in seen)


@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8", "bool", "complex64"])
def test_item_is_a_python_scalar_in_arithmetic(dtype: str) -> None:
    fn = lambda a: (a[1:2, 2:3].item() + a, a.item(4) * a, a.item((1, 0)))  # noqa: E731
    a = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    compare(dlbridge.jit(fn)(a), fn(a), dtype in ("float32", "complex64"))


def test_item_of_more_than_one_element_raises() -> None:
    with pytest.raises(ValueError, match="size 1"):
        dlbridge.jit(lambda a: a[:2].item() + a)(np.ones(3))
    with pytest.raises(ValueError, match="size 1"):
        dlbridge.jit(lambda a: a.reshape(-1)[: a.shape[0] - 1].item())(np.ones(3))


# --------------------------------------------------------------------------------------------------
# axes


def test_squeeze_of_a_size_that_may_be_one_follows_the_call() -> None:
    fn = dlbridge.jit(lambda a: (np.squeeze(a[: a.shape[0] // 4]) * 1, np.expand_dims(a, -1).squeeze(-1) * 1))
    for n in (4, 8, 2, 5):
        a = np.arange(n * 3.0).reshape(n, 3)
        compare(fn(a), (np.squeeze(a[: n // 4]), a), False)


def test_squeeze_and_axes_errors_are_numpys() -> None:
    a = np.ones((2, 3))
    for fn, error in [(lambda x: np.squeeze(x, axis=0), ValueError), (lambda x: np.swapaxes(x, 0, 2), np.exceptions.AxisError),
                      (lambda x: np.moveaxis(x, [0, 1], [0]), ValueError), (lambda x: np.expand_dims(x, 3), np.exceptions.AxisError),
                      (lambda x: np.rot90(x, axes=(0, 0)), ValueError), (lambda x: np.rollaxis(x, 0, 4), np.exceptions.AxisError),
                      (lambda x: np.broadcast_to(x, (3, 3)), ValueError), (lambda x: np.broadcast_to(x, (3,)), ValueError)]:
        with pytest.raises(error):
            fn(a)
        with pytest.raises(error):
            dlbridge.jit(fn)(a)


def test_writes_through_swapaxes_and_moveaxis_reach_the_array() -> None:
    def f(a: Any) -> Any:
        np.swapaxes(a, 0, 1)[...] = np.arange(6.0).reshape(3, 2)
        np.moveaxis(a, 0, -1)[:] += 1.0
        np.rollaxis(a, 1)[...] *= -1.0
        return a * 1

    a = np.zeros((2, 3))
    want = f(a.copy())
    np.testing.assert_array_equal(dlbridge.jit(f)(a), want)


def test_broadcast_to_dynamic_shapes() -> None:
    fn = lambda a, b: (np.broadcast_to(a[:, :1], b.shape), np.broadcast_to(a[0], (b.shape[0], a.shape[1])))  # noqa: E731
    a, b = np.arange(12.0).reshape(3, 4), np.ones((3, 7))
    compare(dlbridge.jit(fn)(a, b), fn(a, b), False)
    with pytest.raises(ValueError):
        dlbridge.jit(lambda a, b: np.broadcast_to(a, b.shape))(a, b)


def test_rot90_by_an_int_argument_and_broadcast_arrays_of_equal_shapes() -> None:
    fn = dlbridge.jit(lambda a, k: np.rot90(a, k) * 1)
    a = np.arange(6.0).reshape(2, 3)
    for k in (0, 1, 2, 3, -1, 5):
        compare(fn(a, k), np.rot90(a, k), False)

    def same(a: Any, b: Any) -> Any:
        x, y = np.broadcast_arrays(a, b)
        x[0, 0] = -1.0  # equal shapes: NumPy gives the arrays themselves
        return a * 1, y * 1

    compare(dlbridge.jit(same)(a.copy(), a + 1), same(a.copy(), a + 1), False)


def _generic(a: Any) -> Any:
    return (*np.array_split(a, 3), np.pad(a, 2, mode="reflect"), np.insert(a, -1, 0.0), np.delete(a, [0, 2]),
            np.moveaxis(a, 0, -1) * 1, np.broadcast_to(a[:, :1], a.shape), *np.broadcast_arrays(a[:1], a[:, :1]))


def test_shape_generic_code_stays_one_kernel_for_every_size() -> None:
    """Splits, pads, inserts, deletes and broadcasts of a dim that may be 1 (``a[:, :1]``, 0 or
    1 elements) need no size as a number: one kernel serves every size."""
    fn = dlbridge.jit(_generic)
    for n in (3, 5, 13):
        a = np.arange(n * 7.0).reshape(n, 7)
        compare(fn(a), _generic(a), False)
    assert fn.num_specialisations == 1
    with pytest.raises(ValueError, match="broadcast"):
        dlbridge.jit(lambda a, b: np.broadcast_to(a[:, :2], b.shape))(np.ones((3, 4)), np.ones((3, 5)))


# --------------------------------------------------------------------------------------------------
# splitting, editing, padding


def test_split_points_follow_a_dynamic_size() -> None:
    fn = dlbridge.jit(lambda a: (*np.array_split(a, 4), *np.split(a, 2, axis=1), *np.split(a, [2, -1])))
    for n in (2, 5, 8, 11):
        a = np.arange(n * 4.0).reshape(n, 4)
        want = (*np.array_split(a, 4), *np.split(a, 2, axis=1), *np.split(a, [2, -1]))
        compare(fn(a), want, False)
    for bad, error in [(lambda a: tuple(np.split(a, 3)), ValueError), (lambda a: tuple(np.split(a, 0)), ZeroDivisionError),
                       (lambda a: tuple(np.array_split(a, 0)), ValueError), (lambda a: tuple(np.vsplit(a, 2)), ValueError),
                       (lambda a: tuple(np.split(a, 2, axis=1)), IndexError)]:
        with pytest.raises(error):
            bad(np.ones(4))
        with pytest.raises(error):
            dlbridge.jit(bad)(np.ones(4))


def test_split_by_an_int_argument() -> None:
    fn = dlbridge.jit(lambda a, n: tuple(np.array_split(a, n)))
    for n in (1, 3):
        a = np.arange(7.0)
        compare(fn(a, n), tuple(np.array_split(a, n)), False)


def test_insert_and_delete_bounds_are_numpys_index_error() -> None:
    for fn in (lambda a: np.insert(a, 5, 0.0), lambda a: np.insert(a, -5, 0.0), lambda a: np.delete(a, 4),
               lambda a: np.delete(a, -5), lambda a: np.delete(a, [0, 9])):
        a = np.arange(4.0)
        with pytest.raises(IndexError):
            fn(a)
        with pytest.raises(IndexError):
            dlbridge.jit(fn)(a)


def test_insert_and_delete_at_traced_positions() -> None:
    for fn in (lambda a, i: np.insert(a, i, -1.0), lambda a, i: np.delete(a, i),
               lambda a, i: np.insert(a, a.shape[0] - i, 9.0)):
        jitted = dlbridge.jit(fn)
        for i in (0, 2, -1, -4, 4, -5):
            a = np.arange(4.0)
            try:
                want = fn(a, i)
            except IndexError as error:
                with pytest.raises(IndexError, match=re.escape(str(error))):
                    jitted(a, i)
                continue
            compare(jitted(a, i), want, False)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_pad_widths_of_several_periods(mode: str, n: int) -> None:
    fn = dlbridge.jit(lambda a: (np.pad(a, (7, 4), mode=mode), np.pad(a, ((0, 9), (3, 1)), mode=mode)))
    a = np.arange(n * 2.0).reshape(n, 2)
    compare(fn(a), (np.pad(a, (7, 4), mode=mode), np.pad(a, ((0, 9), (3, 1)), mode=mode)), False)


def test_pad_arguments_as_numpy_takes_them() -> None:
    a = np.arange(6).reshape(2, 3)
    fn = lambda x: (np.pad(x, np.array([[1, 2], [0, 1]])), np.pad(x, ((2,), (1,))),  # noqa: E731
                    np.pad(x, 1, constant_values=2.7), np.pad(x, 1, constant_values=x[0, 1]),
                    np.pad(x, 2, mode="reflect", reflect_type="even"), np.pad(x, 1, mode="empty").shape)
    got = dlbridge.jit(fn)(a)
    want = fn(a)
    compare(got[:5], want[:5], False)
    assert tuple(got[5]) == want[5]
    for bad, error in [(lambda x: np.pad(x, -1), ValueError), (lambda x: np.pad(x, 1.5), TypeError),
                       (lambda x: np.pad(x, 1, mode="nope"), ValueError), (lambda x: np.pad(x, (1, 2, 3)), ValueError),
                       (lambda x: np.pad(x, 1, mode="edge", constant_values=1), ValueError)]:
        with pytest.raises(error):
            bad(a)
        with pytest.raises(error):
            dlbridge.jit(bad)(a)
    with pytest.raises(dlbridge.TraceError, match="mode='mean'"):
        dlbridge.jit(lambda x: np.pad(x, 1, mode="mean"))(a)
    with pytest.raises(dlbridge.TraceError, match="odd"):
        dlbridge.jit(lambda x: np.pad(x, 1, mode="reflect", reflect_type="odd"))(a.astype(float))


def test_pad_widths_from_an_int_argument_specialise() -> None:
    fn = dlbridge.jit(lambda a, w: np.pad(a, w, mode="wrap"))
    for w in (0, 1, 3):
        a = np.arange(5.0)
        compare(fn(a, w), np.pad(a, w, mode="wrap"), False)


def test_resize_of_an_empty_dynamic_array_is_zeros() -> None:
    fn = dlbridge.jit(lambda a: np.resize(a, (2, 3)))
    for n in (0, 1, 4):
        a = np.arange(n * 1.0) + 1
        compare(fn(a), np.resize(a, (2, 3)), False)


# --------------------------------------------------------------------------------------------------
# sliding windows


def test_sliding_windows_of_a_dynamic_size_are_one_kernel() -> None:
    """A moving average over windows of ``w`` (an int argument: the window is a static size, so
    each ``w`` is its own kernel) serves every length; a window longer than the array is
    NumPy's ValueError when the kernel runs."""
    moving = dlbridge.jit(lambda x, w: sliding_window_view(x, w).mean(axis=-1))
    rng = np.random.default_rng(2)
    for n in (3, 10, 40):
        x = rng.random(n)
        np.testing.assert_allclose(moving(x, 3), sliding_window_view(x, 3).mean(axis=-1), rtol=1e-13)
    assert moving.num_specialisations == 1
    with pytest.raises(ValueError, match="window shape cannot be larger than input array shape"):
        moving(np.ones(2), 3)
    np.testing.assert_allclose(moving(np.ones(5), 5), [1.0])
    assert "linalg.generic" in moving.lower(np.ones(5), 2)


def test_sliding_window_arguments_numpy_refuses() -> None:
    x = np.arange(10.0)
    for bad, error in [((-1,), "cannot contain negative values"), ((2, 2), "must provide window_shape for all")]:
        with pytest.raises(ValueError, match=error):
            dlbridge.jit(lambda a, w=bad: sliding_window_view(a, w))(x)
    with pytest.raises(ValueError, match="matching length window_shape and axis"):
        dlbridge.jit(lambda a: sliding_window_view(a, 2, axis=(0, 0)))(x)
    with pytest.raises(dlbridge.TraceError, match="writeable=True"):
        dlbridge.jit(lambda a: sliding_window_view(a, 2, writeable=True))(x)
