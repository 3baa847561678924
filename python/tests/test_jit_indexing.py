"""``x[key]`` and ``x[key] = v`` inside ``@dlbridge.jit`` give NumPy's values, views and errors."""

from __future__ import annotations

from typing import Any, Callable

import butterfly_kernels
import dlbridge
import numpy as np
import pytest


def _layouts(base: np.ndarray) -> dict[str, np.ndarray]:
    """``base``'s values in C order, Fortran order, strided and reversed storage."""
    wide = np.zeros(tuple(2 * d for d in base.shape), base.dtype)
    strided = wide[tuple(slice(None, None, 2) for _ in base.shape)]
    strided[...] = base
    reversed_ = np.flip(np.flip(base).copy())
    return {
        "c": base.copy(),
        "f": np.asfortranarray(base),
        "strided": strided,
        "reversed": reversed_,
    }


READ_KEYS: list[Any] = [
    1,
    -1,
    (2, 3),
    (-4, -6),
    slice(1, 3),
    slice(None, None, -1),
    slice(None, None, 2),
    slice(-2, None),
    slice(10, 20),
    slice(3, 1),
    slice(3, 0, -2),
    slice(-100, 100, 3),
    (slice(None), 2),
    (Ellipsis, -1),
    (None, 1),
    (slice(None, None, -2), None, slice(1, -1)),
    (1, Ellipsis, None),
    Ellipsis,
    (),
    [0, 2, 3],
    ([3, -1],),
    (slice(None), [5, 0, 0]),
    (slice(1, None), [[0, 1], [2, 3]]),
    ([0, 1, 2], [1, 2, 3]),
    np.array([True, False, True, True]),
    (slice(None), np.arange(6) % 2 == 0),
    (np.array(1),),
]


@pytest.mark.parametrize("layout", ["c", "f", "strided", "reversed"])
@pytest.mark.parametrize("key", READ_KEYS, ids=repr)
def test_read_matches_numpy(key: Any, layout: str) -> None:
    x = _layouts(np.arange(24, dtype=np.float32).reshape(4, 6))[layout]
    got = dlbridge.jit(lambda x: x[key] * 1)(x)
    np.testing.assert_array_equal(np.asarray(got), x[key] * 1)
    assert np.asarray(got).shape == x[key].shape


@pytest.mark.parametrize("i", [0, 3, -1, -4])
def test_integer_argument_indexes(i: int) -> None:
    x = np.arange(20.0).reshape(4, 5)
    f = dlbridge.jit(lambda x, i: x[i, ::-1] + x[-1 - i])
    np.testing.assert_array_equal(np.asarray(f(x, i)), x[i, ::-1] + x[-1 - i])


@pytest.mark.parametrize("i", [4, -5, 100])
def test_integer_argument_out_of_range_is_index_error(i: int) -> None:
    f = dlbridge.jit(lambda x, i: x[i])
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 4"):
        f(np.zeros((4, 2)), i)


def test_static_index_out_of_range_fails_while_tracing() -> None:
    def f(x: Any) -> Any:
        return x[:, 7]

    with pytest.raises(IndexError, match=r"index 7 is out of bounds for axis 1 with size 3 at .*x\[:, 7\]"):
        dlbridge.jit(f)(np.zeros((2, 3)) if False else np.zeros((1, 3)))


def test_dynamic_slices_clamp_like_numpy() -> None:
    f = dlbridge.jit(lambda x: (x[2:], x[:-3], x[-2::-2], x[5:1:-1]))
    for n in (0, 1, 2, 3, 7):
        x = np.arange(float(n))
        for got, want in zip(f(x), (x[2:], x[:-3], x[-2::-2], x[5:1:-1])):
            np.testing.assert_array_equal(np.asarray(got), want)


def test_traced_index_array_gathers_and_is_checked() -> None:
    f = dlbridge.jit(lambda x, idx: x[idx])
    x = np.arange(10.0) * 3
    idx = np.array([[9, 0], [-1, 4]])
    np.testing.assert_array_equal(np.asarray(f(x, idx)), x[idx])
    np.testing.assert_array_equal(np.asarray(f(x, np.zeros(0, np.int64))), x[np.zeros(0, np.int64)])
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 10"):
        f(x, np.array([1, 10]))


def test_traced_boolean_mask_among_other_indices_selects_what_numpy_does() -> None:
    f = dlbridge.jit(lambda x: x[x[:, 0] > 0, 1])
    x = np.array([[1.0, 2.0], [-1.0, 3.0], [4.0, 5.0]])
    np.testing.assert_array_equal(f(x), x[x[:, 0] > 0, 1])


def test_scalar_from_index_and_0d() -> None:
    f = dlbridge.jit(lambda x: x[1, 2] + x[0, 0])
    x = np.arange(12.0).reshape(3, 4)
    assert float(np.asarray(f(x))) == x[1, 2] + x[0, 0]


# --------------------------------------------------------------------------------------------------
# writes


def _run_in_place(fn: Callable[..., Any], *arrays: np.ndarray) -> None:
    """Runs ``fn`` under jit and NumPy on copies; the jitted copies must end equal to NumPy's."""
    ours = [a.copy() for a in arrays]
    theirs = [a.copy() for a in arrays]
    got = dlbridge.jit(fn)(*ours)
    want = fn(*theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
    if want is not None:
        np.testing.assert_array_equal(np.asarray(got), want)


WRITES: list[Callable[..., Any]] = [
    lambda x: x.__setitem__((1, slice(2, 5)), 7.0),
    lambda x: x.__setitem__((slice(None), -1), x[:, 0]),
    lambda x: x.__setitem__((slice(None, None, -1), slice(None, None, 2)), 1.5),
    lambda x: x.__setitem__((2,), np.float32(3)),
    lambda x: x.__setitem__((Ellipsis, 0), x[..., 1] * 2),
    lambda x: x.__setitem__(x > 10, 0.0),
    lambda x: x.__setitem__(x[:, 0] > 5, -1.0),
]


@pytest.mark.parametrize("layout", ["c", "f", "strided", "reversed"])
@pytest.mark.parametrize("n", range(len(WRITES)))
def test_setitem_on_arguments_updates_the_caller(n: int, layout: str) -> None:
    x = _layouts(np.arange(24, dtype=np.float32).reshape(4, 6))[layout]
    _run_in_place(WRITES[n], x)


def test_augmented_assignment_into_slices() -> None:
    def f(x: Any) -> None:
        x[1:-1] *= 2
        x[0, ::2] += 10
        x[..., -1] -= x[..., 0]

    _run_in_place(f, np.arange(20.0).reshape(4, 5))


def test_write_through_a_view_updates_its_base() -> None:
    def f(x: Any) -> Any:
        head = x[:2]
        row = head[1]
        row[::2] = -5.0
        return x.sum() + head.sum()

    _run_in_place(f, np.arange(12.0).reshape(3, 4))


def test_view_taken_before_an_update_sees_it() -> None:
    def f(x: Any) -> Any:
        tail = x[1:]
        x[...] = 0.0
        x[2] = 4.0
        return tail * 1

    _run_in_place(f, np.arange(5.0))


def test_an_element_is_a_copy_and_a_zero_d_view_is_a_view() -> None:
    """``x[i, j]`` is a NumPy scalar, the element's value when read (a swap through a tuple works,
    ``v += 1`` leaves ``x`` alone); ``x[..., j]`` of a 1-D array is a 0-d view that sees later
    writes."""
    def f(x: Any) -> Any:
        x[0], x[1] = x[1], x[0]
        v = x[2]
        v += 1
        w = x[..., 2]
        x[2] = -1.0
        first = x[0]
        x[0] += 10
        return v, w * 1, first * 1

    _run_in_place(f, np.arange(5.0))

    def g(x: Any) -> Any:
        x[1, 0], x[0, 1] = x[0, 1], x[1, 0]

    _run_in_place(g, np.arange(6.0).reshape(2, 3))


def test_a_dynamic_size_stored_where_a_slice_kept_size_1_is_checked_when_called() -> None:
    """In a traced loop ``x[s:s + h]`` may be one element long while tracing (a size of 1) and
    ``x[s + h:s + 2 * h]`` dynamic: storing the second into the first is fine when it is 1 when
    the function runs, and NumPy's broadcast error otherwise."""
    jitted = dlbridge.jit(butterfly_kernels.pairwise_stages)
    for n in (2, 8, 16):
        x = np.arange(float(n))
        np.testing.assert_array_equal(jitted(x), butterfly_kernels.pairwise_stages(x))
    store = dlbridge.jit(lambda a: a.__setitem__(slice(None, 1), a[a > 0]))
    store(np.array([1.0, -2.0, -1.0]))
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(\?,\) into shape \(1,\)"):
        store(np.array([1.0, 2.0, -1.0]))


def test_local_array_slice_writes() -> None:
    def f(x: Any) -> Any:
        y = x * 1
        y[1:, :] = y[:-1, :] + 1
        return y

    _run_in_place(f, np.arange(12.0).reshape(3, 4))


def test_ufunc_out_into_a_slice() -> None:
    def f(x: Any, y: Any) -> None:
        np.add(x[:2], y, out=x[2:])

    _run_in_place(f, np.arange(8.0).reshape(4, 2), np.ones(2))


def test_unwritten_argument_stays_untouched() -> None:
    def f(x: Any, y: Any) -> None:
        x[::2] = y[1:]

    x, y = np.zeros(6), np.arange(4.0)
    before = y.copy()
    dlbridge.jit(f)(x, y)
    np.testing.assert_array_equal(y, before)
    np.testing.assert_array_equal(x, [1, 0, 2, 0, 3, 0])


def test_shape_mismatch_in_slice_assignment_is_value_error() -> None:
    def f(x: Any, y: Any) -> None:
        x[1:] = y

    with pytest.raises(ValueError, match="broadcast"):
        dlbridge.jit(f)(np.zeros(4), np.ones(2))


def test_read_only_argument_written_through_a_slice_is_buffer_error() -> None:
    x = np.zeros(4)
    x.flags.writeable = False

    def f(x: Any) -> None:
        x[1:] = 1.0

    with pytest.raises(BufferError):
        dlbridge.jit(f)(x)
    assert not x.any()


def scatter_into(x: Any, i: Any, j: Any, v: Any) -> None:
    x[i] = v                    # rows, a repeated index: the last one wins
    x[j, 1:] = x[j, :1] * 10    # index array and slices, a broadcast value
    x[[0, -1], [0, -1]] += 1    # corners, through a gather
    x[i, j[0]] -= 2             # an index array and an int


def one_hot(x: Any) -> Any:
    out = np.zeros_like(x)
    out[np.argmax(x, axis=0), np.arange(x.shape[1])] = 1
    return out


def bump(counts: Any, labels: Any) -> Any:
    counts = counts.copy()
    counts[labels] += 1  # NumPy adds once per distinct label
    return counts


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_assignment_through_index_arrays_scatters_in_order(dtype: str) -> None:
    """``x[idx] = v`` assigns the selected elements in order, as NumPy does: the last of
    repeated indices wins, ``+=`` through a gather adds once, negative indices wrap, values
    broadcast and cast unsafely; the caller's array is updated in place."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((5, 4)) * 4).astype(dtype)
    i, j = np.array([1, 3, 1]), np.array([-1, 0])
    v = (rng.standard_normal((3, 4)) * 4).astype(dtype)
    got, want = x.copy(), x.copy()
    dlbridge.jit(scatter_into)(got, i, j, v)
    scatter_into(want, i, j, v)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(dlbridge.jit(one_hot)(x), one_hot(x))
    labels = rng.integers(0, 4, 30)
    np.testing.assert_array_equal(dlbridge.jit(bump)(np.zeros(4, dtype), labels), bump(np.zeros(4, dtype), labels))


def test_a_scatter_out_of_bounds_is_an_index_error_before_any_write() -> None:
    x = np.zeros((5, 4))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 5"):
        dlbridge.jit(scatter_into)(x, np.array([0, 5, 1]), np.array([0]), np.ones(4))
    assert not x.any()
    with pytest.raises(ValueError, match="shape mismatch: value array"):
        dlbridge.jit(scatter_into)(np.zeros((5, 4)), np.array([0, 1]), np.array([0]), np.ones((3, 2, 4)))


def test_a_scatter_compiles_for_cuda() -> None:
    stages = dlbridge.jit(one_hot, target="cuda").inspect(np.ones((5, 4)))
    assert ".entry" in stages["ptx"]


def test_a_gather_checked_once_stays_parallel() -> None:
    """@jit checks a whole index array before the gather reads with it, so the pipeline adds
    no per-access check, which would keep the gather's loop on one thread."""

    def take(x, i):
        return x[i] * 2

    x, i = np.arange(10.0), np.array([1, -2, 3])
    stages = dlbridge.jit(take).inspect(x, i)
    assert "{dlpack.in_bounds}" in stages["input"]
    assert "@dlrt_parallel_claim" in stages["llvm-ir"]
    np.testing.assert_array_equal(np.asarray(dlbridge.jit(take)(x, i)), x[i] * 2)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 10"):
        dlbridge.jit(take)(x, np.array([10]))


def shortest_paths(d: Any) -> Any:
    """Floyd-Warshall as NumPy users vectorise it: a column and a row kept as 2-D slices."""
    for k in range(d.shape[0]):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d


def row_and_column(x: Any, k: Any) -> Any:
    return x[k:k + 1] * 2.0, x[:, k:k + 1] - x, x[k:k + 1, k:k + 1], x[:, :1] - x, x[-1:] + x, x[1:2, 0:1] * x


def test_a_dynamic_k_to_k_plus_1_slice_keeps_a_broadcasting_dim_of_1() -> None:
    """``x[k:k+1]`` with a loop index or an int argument ``k`` (and ``x[:1]``, ``x[-1:]``... on a
    dynamic dim) has size 1, not a size known only when the function runs, so it broadcasts against the other dims as in NumPy; one kernel
    serves every ``k`` and size (size 1 specialises, as everywhere), and a ``k`` out of range is
    an IndexError (NumPy would give an empty slice)."""
    rng = np.random.default_rng(0)
    paths = dlbridge.jit(shortest_paths)
    for n in (2, 4, 9):
        d = rng.random((n, n)) * 10
        np.testing.assert_allclose(paths(d), shortest_paths(d.copy()))
    assert paths.num_specialisations == 1
    np.testing.assert_allclose(paths(np.ones((1, 1))), np.ones((1, 1)))
    x = rng.random((4, 5))
    rows = dlbridge.jit(row_and_column)
    for k in (0, 2, 3):
        for got, want in zip(rows(x, k), row_and_column(x, k)):
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    assert rows.num_specialisations == 1
    for k in (4, -1):
        with pytest.raises(IndexError, match=f"slice {k}:{k}\\+1 is out of bounds for axis 0 with size 4"):
            rows(x, k)
    with pytest.raises(IndexError, match="slice 0:0\\+1 is out of bounds for axis 0 with size 0"):
        rows(np.zeros((0, 5)), 0)
    with pytest.raises(IndexError, match="slice 1:2 is out of bounds for axis 0 with size 0"):
        dlbridge.jit(lambda a: a[1:2] + a)(np.zeros((0, 5)))
