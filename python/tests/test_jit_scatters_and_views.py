"""Scatters and writes through views under ``@dlbridge.jit``, against NumPy on the CPU.

Every update at indices (``x[i] = v``, ``x[i] += v``, ``np.put`` in each mode, ``put_along_axis``,
``place``, ``putmask``, ``fill_diagonal``, ``ufunc.at``) is one scatter; writes go through any
chain of NumPy's views (``x[:, None]``, ``x.T``, ``expand_dims``, ``squeeze``, ``swapaxes``,
``moveaxis``, basic slices with any step, ``flip``/``rot90``, ``x.real``/``x.imag``, reshapes of
arrays the function made) to the array they view; ``broadcast_to``, ``diagonal`` and the
imaginary part of a real array are read-only, as NumPy's; ``ascontiguousarray``,
``asfortranarray`` and ``require`` copy where NumPy copies.

Each construct runs on every dtype class and layout of ``numpy_constructs`` (values, dtype,
shape, input untouched, NumPy's error where NumPy raises), then writes into the arguments
themselves, and the tricky arguments one by one.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from numpy_constructs import DTYPES, LAYOUTS, check_construct, compare, make


def _on_copy(update: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A construct that updates a copy of its input (``update(b)``) and returns the copy and
    what ``update`` returned."""

    def construct(a: Any) -> Any:
        b = a.copy()
        r = update(b)
        return (b,) if r is None else (b, r)

    construct.__name__ = update.__name__
    return construct


def setitem_repeats(b: Any) -> None:
    b[[0, 0, -1]] = b[[1, 2, 0]]  # the last of repeated indices wins
    b[np.array([[1], [2]]), [0, -1]] = b[0, 0]  # broadcast index arrays, a scalar value


def iadd_repeats(b: Any) -> None:
    b[[0, 0, 1], 1:] += b[0, :1]  # buffered: a repeated index adds once


def ufunc_at(b: Any) -> None:
    np.add.at(b, ([0, 0, -1], [1, 1, 2]), b[1, 1])  # unbuffered: every repeat adds
    np.maximum.at(b, (slice(None), [3, 3]), b[:, :1])
    np.negative.at(b, [2, 2, 2]) if b.dtype != np.bool_ else np.logical_not.at(b, [2, 2, 2])


def ufunc_at_mask(b: Any) -> None:
    np.multiply.at(b, b != 0, b.ravel()[0])


def put_modes(b: Any) -> Any:
    c, d = b.copy(), b.copy()
    np.put(b, [0, -1, 3, 3], b[0, :2])
    np.put(c, [17, -21, 4], [7], mode="wrap")
    np.put(d, [99, -99], b.ravel()[1], mode="clip")
    return c, d


def put_raise(b: Any) -> None:
    np.put(b, [b.size], 1)


def put_along(b: Any) -> None:
    np.put_along_axis(b, np.array([[0, -1, 0]]), np.arange(3) % 2, axis=1)
    np.put_along_axis(b, np.array([[2, 0, 1, -1, 0]]), b.ravel()[-1], axis=0)


def place_putmask(b: Any) -> Any:
    c = b.copy()
    np.place(b, b != b.ravel()[0], [5, 6, 7])
    np.putmask(c, c != c.ravel()[-1], c[::-1])
    return c


def fill_diagonals(b: Any) -> Any:
    tall = np.concatenate([b, b, b])
    np.fill_diagonal(b, b.ravel()[-1])
    np.fill_diagonal(tall, [1, 0], wrap=True)
    return tall


def mask_with_slices(b: Any) -> None:
    b[b[:, 0] != 0, 1:3] = 1
    b[[True, False, True], -1] = 0


def write_newaxis(b: Any) -> None:
    y = b[:, None]
    y[0, 0] = 1
    b[None][0, -1, 1] = 0


def write_transposes(b: Any) -> None:
    b.T[1] = 1
    np.transpose(b)[2, 1] = 0
    np.swapaxes(b, 0, 1)[3] = b[0]


def write_expand_squeeze(b: Any) -> None:
    np.expand_dims(b, 0)[0, 1] = 1
    b[1:2].squeeze()[2] = 0
    np.atleast_3d(b)[2, 0] = 1


def write_moveaxis(b: Any) -> None:
    np.moveaxis(b, 0, -1)[..., 0] = 0
    np.moveaxis(b[:, :, None], -1, 0)[0, 1, 2] = 1


def write_strided(b: Any) -> None:
    b[::2].T[1] = 0
    b[::-1, ::2][0] = 1
    b[1:, 1::3][..., -1] = b[0, 0]


def write_flips(b: Any) -> None:
    np.flip(b, 1)[0] = b[1]
    np.rot90(b)[0, 1] = 0
    np.fliplr(b)[1, 0] = 1
    np.flipud(b)[:, 2] = b[:, 3]


def write_reshape_of_own(b: Any) -> Any:
    c = b.copy()
    c.reshape(-1)[3] = 1
    c.ravel()[-1] = 0
    c.reshape(c.shape[0], -1, 1)[1, 2, 0] = 1
    return c


def swapped_update(b: Any) -> None:
    np.swapaxes(b, 0, 1)[...] += b.T  # an in-place ufunc through a view


def write_real(b: Any) -> None:
    b.real[0] = 1


def write_imag(b: Any) -> None:
    b.imag[1, 1] = 2  # NumPy: read-only unless complex


def views_see_updates(b: Any) -> Any:
    v, d, w, r = b.T[1:], b.diagonal(), b[:, None], np.flip(b)
    b[2, 2] = 1
    b[0] = b[1]
    return v.copy(), d.copy(), w.copy(), r.copy()


def readonly_broadcast(b: Any) -> None:
    y = np.broadcast_to(b[:1], (2,) + b.shape[1:])
    y[0, 0] = 1


def readonly_diagonal(b: Any) -> None:
    d = b.diagonal()
    d[...] = 1


def conversions(b: Any) -> Any:
    y = np.ascontiguousarray(b.T)
    y[0] = 1  # a copy: b untouched
    z = np.asfortranarray(b[::-1])
    z[0, 0] = 1
    w = np.require(b[:, ::2], requirements="C")
    w[0] = 1
    o = np.require(b[1:], requirements=["O"])
    o[0] = 1
    q = np.asarray(b)
    q[1] = 0  # b itself
    return y, z, w, o


UPDATES = [
    setitem_repeats, iadd_repeats, ufunc_at, ufunc_at_mask, put_modes, put_raise, put_along, place_putmask,
    fill_diagonals, mask_with_slices, write_newaxis, write_transposes, write_expand_squeeze, write_moveaxis,
    write_strided, write_flips, write_reshape_of_own, swapped_update, write_real, write_imag,
    views_see_updates, readonly_broadcast, readonly_diagonal, conversions,
]

#: name → the NumPy user's function of one array
CONSTRUCTS: dict[str, Callable[[Any], Any]] = {u.__name__: _on_copy(u) for u in UPDATES}

#: (construct, dtype) pairs NumPy runs that the tracer refuses with a TraceError.
REFUSED: set[tuple[str, str]] = set()

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}

#: Constructs that only move elements through views (no cast, no arithmetic but ``+=`` on an
#: integer or float alike): float64, bool and complex128 stand for the other dtypes.
VIEWS_ONLY = {"write_newaxis", "write_transposes", "write_expand_squeeze", "write_moveaxis", "write_strided",
              "write_flips", "write_reshape_of_own", "views_see_updates", "readonly_broadcast", "readonly_diagonal",
              "conversions"}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "float32"])
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_matches_numpy(name: str, dtype: str, layout: str) -> None:
    """Scatters and view writes move elements whatever the float width: float64 stands for
    float32 (one compile less each, to keep the file fast)."""
    if name in VIEWS_ONLY and dtype in ("int64", "uint8"):
        pytest.skip("element moves through views: float64, bool and complex128 stand for the others")
    check_construct(JITTED[name], CONSTRUCTS[name], dtype, layout, refused=(name, dtype) in REFUSED)


#: constructs NumPy refuses on a float64 C-order input (the CUDA compile check skips them)
FAILING = {"put_raise", "readonly_broadcast", "readonly_diagonal", "write_imag"}


@pytest.mark.parametrize("name", [n for n in CONSTRUCTS if n not in FAILING])
def test_construct_compiles_for_cuda(name: str) -> None:
    """Every construct goes through the CUDA pipeline to PTX (ptxas included)."""
    stages = dlbridge.jit(CONSTRUCTS[name], target="cuda").inspect(make("float64", "C"))
    assert ".entry" in stages["ptx"]


# --------------------------------------------------------------------------------------------------
# writes into the arguments themselves


def _arg_newaxis(a: Any) -> None:
    a[:, None][0, 0] = 1


def _arg_transpose(a: Any) -> None:
    a.T[0] = 2
    a.mT[1, 1:] = 3


def _arg_expand_squeeze(a: Any) -> None:
    np.expand_dims(a, 0)[0, 1] = 4
    a[2:3].squeeze()[0] = 5


def _arg_swap_add(a: Any) -> None:
    np.swapaxes(a, 0, 1)[...] += 1


def _arg_chain(a: Any) -> None:
    a[::2].T[1] = 0
    np.moveaxis(a, 0, -1)[..., 0] = 6
    np.rot90(a, 2)[0, ::2] = 7


def _arg_scatters(a: Any) -> None:
    np.add.at(a, (0, [1, 1, 1]), 1)
    np.put(a, [-1, 5], [8, 9])
    a[[1, 1], [2, 2]] += 1
    np.fill_diagonal(a.T, 0)


ARG_WRITES = [_arg_newaxis, _arg_transpose, _arg_expand_squeeze, _arg_swap_add, _arg_chain, _arg_scatters]
ARG_JITTED = {f.__name__: dlbridge.jit(f) for f in ARG_WRITES}


@pytest.mark.parametrize("layout", ["C", "strided", "reversed"])
@pytest.mark.parametrize("fn", ARG_WRITES, ids=lambda f: f.__name__)
def test_writes_through_views_of_an_argument_update_it(fn: Callable[[Any], Any], layout: str) -> None:
    """The caller's array, in whatever layout, ends as NumPy's does."""
    a = make("float64", layout)
    want = a.copy()
    fn(want)
    ARG_JITTED[fn.__name__](a)
    np.testing.assert_array_equal(a, want)


def test_views_taken_before_an_update_of_an_argument_show_it() -> None:
    def f(a: Any) -> Any:
        t, s, d, e = a.T, a[::-1, 1:], a.diagonal(), np.expand_dims(a, 1)
        a[1, 1] = -1
        a[0] += 1
        return t + 0, s + 0, d + 0, e + 0

    a = make("float64", "strided")
    want_a = a.copy()
    want = f(want_a)
    got = dlbridge.jit(f)(a)
    compare(got, want, False)
    np.testing.assert_array_equal(a, want_a)


# --------------------------------------------------------------------------------------------------
# read-only views and conversions


@pytest.mark.parametrize("write, message", [
    (lambda y: y.__setitem__(0, 1), "assignment destination is read-only"),
    (lambda y: y.__setitem__([0, 1], 1), "assignment destination is read-only"),
    (lambda y: np.add(y, 1, out=y), "output array is read-only"),
    (lambda y: np.copyto(y, 0), "assignment destination is read-only"),
    (lambda y: np.put(y, [0], 1), "put: output array is read-only"),
    (lambda y: np.putmask(y, y > 0, 1), "putmask: output array is read-only"),
    (lambda y: y.sort(), "sort array is read-only"),
])
@pytest.mark.parametrize("view", [
    lambda a: np.broadcast_to(a[0], (2, a.shape[1])),
    lambda a: np.broadcast_to(a, (2,) + a.shape)[1],
    lambda a: a.diagonal(),
    lambda a: np.diagonal(a, 1).T,
    lambda a: a.imag,
])
def test_read_only_views_refuse_writes_as_numpy(view: Callable[[Any], Any], write: Callable[[Any], Any],
                                                message: str) -> None:
    def f(a: Any) -> Any:
        write(view(a))
        return a

    a = make("float64", "C")
    before = a.copy()
    with pytest.raises(ValueError, match=message):
        f(a.copy())
    with pytest.raises(ValueError, match=message):
        dlbridge.jit(f)(a)
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("layout", ["C", "strided", "reversed"])
def test_conversions_of_an_argument_leave_it_untouched_where_numpy_copies(layout: str) -> None:
    def f(a: Any) -> Any:
        y = np.ascontiguousarray(a.T * 1)  # an array the function made, transposed: a copy
        y[0] = 0
        z = np.array(a)
        z[0] = 1
        w = np.asfortranarray(a[::2].T.copy().T)
        w[0, 0] = 2
        return y, z, w, np.ascontiguousarray(a) + 0, np.require(a, requirements="CA").sum()

    a = make("float64", layout)
    before = a.copy()
    compare(dlbridge.jit(f)(a), f(a.copy()), False)
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("convert", [
    np.ascontiguousarray, np.asfortranarray,
    lambda a: np.require(a, requirements="C"), lambda a: np.require(a, requirements="O"),
    lambda a: np.ascontiguousarray(a.T), lambda a: np.ascontiguousarray(a[::-1]),
])
def test_writing_a_conversion_whose_aliasing_depends_on_the_caller_s_layout_is_refused(
        convert: Callable[[Any], Any]) -> None:
    """NumPy gives the argument itself when its layout already fits, else a copy: the trace
    does not know the caller's layout, so a write is a TraceError naming why, and the input
    stays as it was; reading the result is right in every layout."""

    def write(a: Any) -> None:
        convert(a)[0] = 1

    def read(a: Any) -> Any:
        return convert(a) * 2

    for layout in ("C", "strided", "reversed"):
        a = make("float64", layout)
        before = a.copy()
        with pytest.raises(dlbridge.TraceError, match="memory layout is not known"):
            dlbridge.jit(write)(a)
        np.testing.assert_array_equal(a, before)
        compare(dlbridge.jit(read)(a), read(a.copy()), False)


def test_writing_a_reshape_of_an_argument_is_refused_and_of_an_own_array_writes_it() -> None:
    def arg(a: Any) -> None:
        a.reshape(-1)[3] = 1

    def own(a: Any) -> Any:
        b = a + 0
        b.reshape(-1)[3] = 1
        b.reshape(a.shape[0], 1, -1)[:, 0, 1] += 2
        return b

    a = make("float64", "strided")
    before = a.copy()
    with pytest.raises(dlbridge.TraceError, match="reshape of an array whose memory layout is not known"):
        dlbridge.jit(arg)(a)
    np.testing.assert_array_equal(a, before)
    compare(dlbridge.jit(own)(a), own(a.copy()), False)


def test_require_arguments_as_numpy() -> None:
    f = dlbridge.jit(lambda a: np.require(a, np.float32, ["C", "W"]) + 0)
    a = make("float64", "reversed")
    compare(f(a), np.require(a, np.float32, ["C", "W"]) + 0, False)
    with pytest.raises(ValueError, match="Cannot specify both"):
        dlbridge.jit(lambda a: np.require(a, requirements="CF"))(a)
    with pytest.raises((KeyError, dlbridge.TraceError), match="X"):
        dlbridge.jit(lambda a: np.require(a, requirements="X"))(a)


# --------------------------------------------------------------------------------------------------
# scatters: semantics and run-time checks


def test_ufunc_at_accumulates_where_indexed_assignment_does_not() -> None:
    def f(counts: Any, labels: Any) -> Any:
        a, b = counts.copy(), counts.copy()
        np.add.at(a, labels, 1)
        b[labels] += 1
        return a, b

    counts = np.zeros(5, np.int64)
    labels = np.array([0, 3, 3, 3, -1, 0])
    compare(dlbridge.jit(f)(counts, labels), f(counts, labels), False)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float32", "complex64", "bool"])
def test_scatter_casting_by_function(dtype: str) -> None:
    """``x[i] = v``, ``put`` and ``ufunc.at`` cast unsafely; ``place`` and ``putmask`` refuse an
    array that does not cast safely, as NumPy's."""

    def unsafe(a: Any, v: Any) -> Any:
        a = a.copy()
        a[[0, 2]] = v[:2]
        np.put(a, [1], v[2:3])
        np.add.at(a, [3, 3], v[3])
        return a

    a = np.zeros(6, dtype)
    v = np.array([2.7, -1.2, 300.5, 1.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = unsafe(a, v)
        except Exception as error:  # noqa: BLE001
            with pytest.raises((type(error), dlbridge.TraceError)):
                dlbridge.jit(unsafe)(a, v)
            return
        compare(dlbridge.jit(unsafe)(a, v), want, False)
    if dtype != "complex64":
        with pytest.raises(TypeError, match="rule 'safe'"):
            dlbridge.jit(lambda a, v: np.place(a, a == 0, v))(a, np.ones(2, np.complex128))


def test_put_indices_out_of_range_are_numpy_s_index_error_when_the_kernel_runs() -> None:
    def f(a: Any, i: Any) -> Any:
        np.put(a, i, 1.0)
        return a

    a = np.zeros((2, 3))
    with pytest.raises(IndexError, match="out of bounds"):
        dlbridge.jit(f)(a, np.array([0, 6]))
    np.testing.assert_array_equal(a, 0)
    with pytest.raises(IndexError, match="out of bounds"):
        dlbridge.jit(f)(a, np.array([-7]))
    dlbridge.jit(f)(a, np.array([-6, 5]))
    assert a[0, 0] == 1 and a[1, 2] == 1


def test_put_of_nothing_and_place_of_no_values() -> None:
    def f(a: Any, m: Any) -> Any:
        b = a.copy()
        np.put(b, [], [])
        np.place(b, m, [])
        return b

    a = np.arange(4.0)
    compare(dlbridge.jit(f)(a, np.zeros(4, bool)), a, False)
    with pytest.raises(ValueError, match="Cannot insert from an empty array"):
        dlbridge.jit(f)(a, np.ones(4, bool))


def test_scatter_value_shape_mismatch_is_numpy_s_value_error() -> None:
    with pytest.raises(ValueError, match="broadcast"):
        dlbridge.jit(lambda a: a.__setitem__([0, 1], a[:3]))(np.zeros(4))


def test_scatters_into_a_big_array_do_not_touch_every_element() -> None:
    """The scatter loops over the selection: no full copy of the target, no iota over it."""

    def f(counts: Any, labels: Any) -> None:
        np.add.at(counts, labels, 1)
        np.put(counts, labels[:2], 0)

    text = dlbridge.jit(f).inspect(np.zeros(10, np.int64), np.arange(3))["input"]
    assert "linalg.copy" not in text and "iota" not in text


def test_put_modes_and_put_along_axis_with_traced_indices() -> None:
    def f(a: Any, i: Any) -> Any:
        b, c, d = a.copy(), a.copy(), a.copy()
        np.put(b, i, [10, 20], mode="wrap")
        np.put(c, i, -1, mode="clip")
        np.put_along_axis(d, i[None, 2:] % 4, 5, axis=1)
        return b, c, d

    a = np.arange(12.0).reshape(3, 4)
    for i in (np.array([13, -15, 2, 40]), np.array([-1, 0, 7, 3])):
        compare(dlbridge.jit(f)(a, i), f(a, i), False)


def test_ufunc_at_with_basic_keys_and_masks() -> None:
    def f(a: Any) -> Any:
        b = a.copy()
        np.negative.at(b, 1)
        np.add.at(b, slice(None), 1)
        np.multiply.at(b, (0, slice(1, 3)), [2, 3])
        np.add.at(b, b > 3, 100)
        np.add.at(b, (b[:, 0] > 3, 1), 7)
        return b

    for layout in ("C", "reversed"):
        a = make("float64", layout)
        compare(dlbridge.jit(f)(a), f(a.copy()), False)


def test_writes_through_a_transposed_or_new_axis_view_touch_only_what_they_select() -> None:
    """``x.T[k] = v`` and ``x[:, None][i, 0] = v`` are regions of ``x``: no transpose of it."""

    def f(a: Any, v: Any) -> None:
        a.T[0] = v
        np.moveaxis(a, 0, -1)[1] = v
        a[:, None][0, 0] = v[0]

    text = dlbridge.jit(f).inspect(np.zeros((4, 4)), np.ones(4))["tensors-to-buffers"]
    assert "linalg.transpose ins" not in text
    assert not re.search(r"memref\.alloc\([^)]*,[^)]*\)", text), "a copy of the whole array"
