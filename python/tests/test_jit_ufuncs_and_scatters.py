"""NumPy's remaining ufuncs, gathers and scatters under ``@dlbridge.jit``, against NumPy on the CPU.

The ufuncs the op table lacked (shifts, ``gcd``/``lcm``, ``bitwise_count``, ``fmod``,
``divmod``, ``float_power``, ``heaviside``, ``logaddexp``, angle conversions, ``fabs``,
``signbit``, ``modf``, ``frexp``, ``ldexp``, ``nextafter``, ``spacing`` and the array-API
aliases), ``np.where(cond)``, ``take``, ``take_along_axis``, ``ix_``, assignment through index
arrays, ``put``, ``put_along_axis``, ``place``, ``putmask``, ``fill_diagonal``,
``copyto(where=)``, ``ufunc.at`` and ``repeat`` with a count per element: each construct on
every dtype class and layout of ``test_jit_numpy_surface`` (values, dtype, shape, input
untouched, NumPy's error where NumPy raises), then the edge values and arguments where C,
hardware and NumPy part ways.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from numpy_constructs import DTYPES, LAYOUTS, check_construct, make


def _small_indices(a: Any) -> Any:
    """Indices computed from ``a``'s values, 0 or 1 (the argsort users pass costs a sort)."""
    return (np.abs(a) > 0.5).astype(np.intp)


def _fancy_set(a: Any) -> Any:
    b = a.copy()
    b[[0, -1], [1, 2]] = a[0, 0]
    b[:, [0, 0, 3]] = 1
    b[np.array([2, 2])] = b[0]
    return b


def _put(a: Any) -> Any:
    b = a.copy()
    np.put(b, [0, -1, 4], [1, 2])
    b.put([100, -100], 7, mode="clip")
    np.put(b, np.array([[3, 31]]), 0, mode="wrap")
    return b


def _put_along(a: Any) -> Any:
    b = a.copy()
    np.put_along_axis(b, _small_indices(b)[:, 1:3], 1, axis=1)
    np.put_along_axis(b, _small_indices(b)[::2] * -1, b[::2][::-1], axis=0)
    return b


def _fill_diagonal(a: Any) -> Any:
    b = a.copy()
    np.fill_diagonal(b, 7)
    np.fill_diagonal(b.T, [1, 0], wrap=True)
    np.fill_diagonal(b[1:], 2)
    return b


def _place_putmask(a: Any) -> Any:
    b = a.copy()
    np.place(b, b != b[0, 0], [1, 0])
    c = a.copy()
    np.putmask(c, c == c[0, 0], np.arange(4).astype(a.dtype))
    np.putmask(c, c != c[0, 0], 1)
    return b, c


def _copyto(a: Any) -> Any:
    b = a.copy()
    np.copyto(b, 1, where=b != a[0, 0])
    np.copyto(b[0], a[-1], where=[True, False, True, True, False])
    return b


def _ufunc_at(a: Any) -> Any:
    b = a.copy()
    np.add.at(b, ([0, 0, 1], [1, 1, 2]), 1)
    np.maximum.at(b, (0, [0, 0, 4]), a[1, :3])
    np.multiply.at(b, np.array([2, 2]), 2)
    np.negative.at(b, (slice(None), [3]))
    return b


def _tuples(*results: Any) -> Any:
    """``histogramdd``'s results with their lists of edges as tuples, for the comparison."""
    return tuple((hist, tuple(edges)) for hist, edges in results)


def _out_two(a: Any) -> Any:
    q = np.zeros_like(a)
    r = np.zeros_like(a)
    np.divmod(a, 3, out=(q, r))
    whole = np.zeros(a.shape)
    frac, _ = np.modf(a, out=(None, whole))
    return q, r, frac, whole


#: name → the NumPy user's function of one array
CONSTRUCTS: dict[str, Callable[[Any], Any]] = {
    "shifts": lambda a: (np.left_shift(a, 3), np.right_shift(a, 1), np.bitwise_left_shift(a, a % 9),
                         np.bitwise_right_shift(a, 70), a << 2, a >> 1),
    "gcd_lcm": lambda a: (np.gcd(a, 6), np.lcm(a, 4), np.gcd(a, a[::-1])),
    "bitwise_count": lambda a: np.bitwise_count(a),
    "fmod_divmod": lambda a: (np.fmod(a, 3), np.fmod(-7, a), np.divmod(a, 2), divmod(a, 3)),
    "float_power": lambda a: (np.float_power(a, 2), np.float_power(2, a)),
    "heaviside_logaddexp": lambda a: (np.heaviside(a, 0.5), np.logaddexp(a, 0.5), np.logaddexp2(a, a[::-1])),
    "angles": lambda a: (np.deg2rad(a), np.rad2deg(a), np.degrees(a), np.radians(a), np.fabs(a)),
    "signbit": lambda a: np.signbit(a),
    "float_parts": lambda a: (np.modf(a), np.frexp(a), np.ldexp(a, 3), np.nextafter(a, 1), np.spacing(a)),
    "aliases": lambda a: (np.atan(a), np.asinh(a), np.atan2(a, 1.0), np.pow(a, 2), np.acos(a / 10)),
    "out_two": _out_two,
    "where_one_argument": lambda a: (np.where(a), np.where(a != a[..., :1])),
    "take": lambda a: (np.take(a, [0, 2], axis=1), np.take(a, [1, -1]), a.take([7, -9], axis=0, mode="wrap"),
                       np.take(a, [[100], [-1]], axis=-1, mode="clip"), np.take(a, 2, axis=1)),
    "take_along_axis": lambda a: (np.take_along_axis(a, _small_indices(a), axis=1),
                                  np.take_along_axis(a, _small_indices(a)[::2] - 1, 0),
                                  np.take_along_axis(a, np.array([[4, 0]]), axis=1)),
    "ix_": lambda a: (a[np.ix_([0, 2], [1, 3, 4])], a[np.ix_(a[:, 0] == a[0, 0], [0, -1])]),
    "fancy_set": _fancy_set,
    "put": _put,
    "put_along_axis": _put_along,
    "fill_diagonal": _fill_diagonal,
    "place_putmask": _place_putmask,
    "copyto_where": _copyto,
    "ufunc_at": _ufunc_at,
    "repeat_each": lambda a: (np.repeat(a, [2, 0, 1], axis=0), a.repeat([1, 0, 2, 0, 3], axis=-1),
                              np.repeat(a[0], np.arange(a.shape[1]))),
    "histogram2d": lambda a: (np.histogram2d(a[0], a[1], bins=3),
                              np.histogram2d(a[0], a[-1], bins=[2, 4], range=[[-1, 1], [-2, 2]], density=True)),
    "histogramdd": lambda a: _tuples(np.histogramdd(a.T, bins=(2, 3, 2)), np.histogramdd(a[0], bins=4, weights=a[1])),
}

#: (construct, dtype) pairs NumPy runs that the tracer refuses with a TraceError: complex
#: inverse trigonometry, histograms of complex samples.
REFUSED: set[tuple[str, str]] = {("aliases", "complex128"), ("histogram2d", "complex128"),
                                  ("histogramdd", "complex128")}

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}

#: Gathers and scatters move elements whatever their float width: float64 stands for float32
#: (one compile less each, to keep the file fast).
MOVES = {"where_one_argument", "take", "take_along_axis", "ix_", "fancy_set", "put", "put_along_axis",
         "fill_diagonal", "place_putmask", "copyto_where", "repeat_each"}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_matches_numpy(name: str, dtype: str, layout: str) -> None:
    if name in MOVES and dtype == "float32":
        pytest.skip("gathers and scatters: float64 stands for float32")
    check_construct(JITTED[name], CONSTRUCTS[name], dtype, layout, refused=(name, dtype) in REFUSED)


#: a dtype each construct runs on, for the CUDA compile check (float64 for the others)
CUDA_DTYPE = {"shifts": "int64", "gcd_lcm": "int64", "bitwise_count": "int64"}


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_compiles_for_cuda(name: str) -> None:
    """Every construct goes through the CUDA pipeline to PTX (ptxas included)."""
    stages = dlbridge.jit(CONSTRUCTS[name], target="cuda").inspect(make(CUDA_DTYPE.get(name, "float64"), "C"))
    assert ".entry" in stages["ptx"]


# --------------------------------------------------------------------------------------------------
# ufuncs: edge values


FLOATS = np.array([-2.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 0.75, np.nan, np.inf, -np.inf, 1e300, 5e-324, -1e-310,
                   3.0, -7.25, 1e-3, 65504.0, -65504.0, 6e-8])
EXPONENTS = np.array([3, -2, 0, 1, 1, -1075, 2000, -3, 1, 1, 1, 30, 1074, 5, -1, 0, -1040, 1, -1, 24])


def _exact(got: Any, want: Any) -> None:
    """``got`` is ``want``: dtype, shape, each value and the sign of each zero."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _exact(g, w)
        return
    for g, w in [(got, want)]:
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)
        if w.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


FLOAT_FUNCTIONS = {
    "float_parts": lambda x, y, n: (np.modf(x), np.frexp(x), np.nextafter(x, y), np.spacing(x), np.signbit(x),
                                    np.fabs(x), np.heaviside(x, y)),
    "ldexp": lambda x, y, n: np.ldexp(x, n),
    "divisions": lambda x, y, n: (np.fmod(x, y), np.divmod(x, y), np.floor_divide(x, y), np.remainder(x, y)),
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("name", list(FLOAT_FUNCTIONS))
def test_float_functions_are_exact_at_the_edges(name: str, dtype: str) -> None:
    """Zeros of either sign, infinities, NaNs, subnormals, the largest floats: NumPy's bits."""
    x = FLOATS.astype(dtype)
    y = FLOATS[::-1].astype(dtype)
    fn = FLOAT_FUNCTIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(x, y, EXPONENTS)
        got = dlbridge.jit(fn)(x, y, EXPONENTS)
    _exact(got, want)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_logaddexp_and_angles(dtype: str) -> None:
    x = FLOATS.astype(dtype)
    y = FLOATS[::-1].astype(dtype)

    def f(a: Any, b: Any) -> Any:
        return np.logaddexp(a, b), np.logaddexp2(a, b), np.deg2rad(a), np.rad2deg(a)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(x, y)
        got = dlbridge.jit(f)(x, y)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-15 if dtype == "float64" else 1e-6, equal_nan=True)


def test_floor_division_of_floats_as_numpy() -> None:
    """``npy_divmod``: ``1 // 0.1`` is 9 (not ``floor(1 / 0.1)``), ``inf // 2`` NaN, ``1.5 // -inf`` -1."""
    x = np.array([1.0, np.inf, 1.5, -1.5, 0.0, -0.0, 7.0])
    y = np.array([0.1, 2.0, -np.inf, np.inf, -3.0, 3.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _exact(dlbridge.jit(lambda a, b: (a // b, np.divmod(a, b)))(x, y), (x // y, np.divmod(x, y)))


INT_DTYPES = ["int8", "uint8", "int16", "int32", "int64", "uint64"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_ufuncs_at_the_edges(dtype: str) -> None:
    """Shifts by the bit width or more (and by negative counts), gcd/lcm of negatives and of the
    smallest integer, fmod and divmod by 0 and -1, the bits of the smallest integer."""
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 1, 7, -7 if info.min else 9, 64, 100], dtype)
    y = np.array([3, 0, 5, info.bits, info.bits + 1, min(200, info.max), -1 if info.min else 1, 6], dtype)

    def f(a: Any, b: Any) -> Any:
        return (np.left_shift(a, b), np.right_shift(a, b), np.gcd(a, b), np.lcm(a, b), np.fmod(a, b),
                np.divmod(a, b), np.bitwise_count(a))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _exact(dlbridge.jit(f)(x, y), f(x, y))


def test_ufunc_dtype_rules_of_mixed_operands() -> None:
    """ldexp keeps the first operand's float; shifts and gcd promote as NumPy; bools shift as
    int8; Python scalars stay weak."""
    f32 = np.linspace(-2, 2, 5, dtype=np.float32)
    i8 = np.arange(-2, 3, dtype=np.int8)
    flags = np.array([True, False, True, True, False])

    def f(a: Any, b: Any, c: Any) -> Any:
        return (np.ldexp(a, b), np.ldexp(b, 2), np.left_shift(c, c), np.left_shift(b, 2), np.gcd(b, 12),
                np.bitwise_count(c), np.heaviside(b, 0.5), np.float_power(a, b), np.fmod(c, c))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _exact(dlbridge.jit(f)(f32, i8, flags), f(f32, i8, flags))


@pytest.mark.parametrize("fn", [lambda a: np.ldexp(a, 1.5), lambda a: np.gcd(a, a), lambda a: np.left_shift(a, 1),
                                lambda a: np.fmod(a + 1j, 2.0), lambda a: np.frexp(a + 1j)],
                         ids=["ldexp_float_exponent", "gcd_float", "shift_float", "fmod_complex", "frexp_complex"])
def test_ufuncs_refuse_the_dtypes_numpy_refuses(fn: Callable[[Any], Any]) -> None:
    x = np.linspace(0, 1, 4)
    with pytest.raises(TypeError):
        fn(x)
    with pytest.raises((TypeError, dlbridge.TraceError)):
        dlbridge.jit(fn)(x)


def test_out_tuples_of_two_output_ufuncs() -> None:
    def f(a: Any, q: Any, r: Any) -> Any:
        np.divmod(a, 0.75, out=(q, r))
        return np.frexp(a, out=(np.zeros_like(a), np.zeros(a.shape, np.int32)))

    x = np.linspace(-3, 3, 7)
    q, r = np.zeros(7), np.zeros(7)
    got = dlbridge.jit(f)(x, q, r)
    _exact(got, np.frexp(x))
    _exact((q, r), np.divmod(x, 0.75))
    with pytest.raises(ValueError, match="one entry per ufunc output"):
        dlbridge.jit(lambda a: np.divmod(a, 2.0, out=(a,)))(x)


def test_array_api_aliases_are_the_table_s_entries() -> None:
    from dlbridge._trace import registry

    for alias, name in [("acos", "arccos"), ("atan2", "arctan2"), ("pow", "power"),
                        ("bitwise_left_shift", "left_shift"), ("bitwise_right_shift", "right_shift")]:
        assert registry.lookup_numpy(alias) is registry.lookup_numpy(name)
    missing = [n for n in dir(np) if isinstance(getattr(np, n), np.ufunc) and registry.lookup_numpy(n) is None]
    assert set(missing) <= {"isnat", "matvec", "vecdot", "vecmat"}, missing


# --------------------------------------------------------------------------------------------------
# gathers and scatters


def test_traced_indices_are_checked_when_the_kernel_runs() -> None:
    """Out-of-range index arrays are NumPy's IndexError, and the array to update is untouched."""
    x = np.arange(12.0).reshape(3, 4)

    def f(a: Any, i: Any) -> Any:
        b = np.take(a, i, axis=1)
        a[0, i] = -1.0
        np.add.at(a, (0, i), 1.0)
        np.put(a, i, 5.0)
        return b

    ok = np.array([0, -1, 3, 3])
    want_a = x.copy()
    want = f(want_a, ok)
    a = x.copy()
    got = dlbridge.jit(f)(a, ok)
    _exact(got, want)
    _exact(a, want_a)
    for bad in (np.array([0, 4]), np.array([-5, 1])):
        a = x.copy()
        with pytest.raises(IndexError, match="out of bounds"):
            dlbridge.jit(f)(a, bad)
        np.testing.assert_array_equal(a, x)


def test_scatters_in_order() -> None:
    """Assignment keeps the last of repeated indices; ufunc.at applies each one, in the dtype
    NumPy's loop takes, cast back."""

    def f(a: Any, i: Any, v: Any) -> Any:
        b = a.copy()
        b[i] = v
        c = a.copy()
        np.add.at(c, i, v)
        d = a.astype(np.int32)
        np.add.at(d, i, 3)
        np.subtract.at(d, [0, 0], np.array([1, 2], np.int8))
        e = a.astype(np.float32)
        np.add.at(e, i, v)
        return b, c, d, e

    a = np.zeros(5)
    i = np.array([1, 3, 1, 1, 4])
    v = np.array([1.0, 2.0, 3.0, 4.0, 1e-9])
    _exact(dlbridge.jit(f)(a, i, v), f(a, i, v))


def test_ufunc_at_through_a_traced_mask() -> None:
    """A boolean mask's selection as the indices of ``ufunc.at``: a size the data gives."""

    def f(a: Any) -> Any:
        np.add.at(a, a > 0, 10.0)
        np.multiply.at(a, a[:, 0] < 0, np.array([2.0, 3.0]))
        return a

    x = np.array([[-1.0, 2.0], [-3.0, 4.0], [5.0, 6.0]])
    _exact(dlbridge.jit(f)(x.copy()), f(x.copy()))


def test_scatter_casting_as_numpy() -> None:
    """ufunc.at computes in the dtype NumPy's loop takes and casts back unsafely, as NumPy's."""

    def f(a: Any, b: Any) -> Any:
        np.add.at(a, [0, 1], 1.5)
        np.add.at(b, [0, 0], 255)
        np.add.at(b, [1], np.array([300]))
        return a, b

    a, b = np.zeros(3, np.int64), np.array([1, 2, 3], np.uint8)
    _exact(dlbridge.jit(f)(a.copy(), b.copy()), f(a.copy(), b.copy()))


def test_place_and_putmask_cast_arrays_safely() -> None:
    """Arrays of values must cast to the array's dtype by NumPy's ``safe`` rule; Python
    scalars and lists are converted."""

    def f(a: Any) -> Any:
        np.putmask(a, a > 1, np.arange(3))
        return a

    with pytest.raises(TypeError, match="safe"):
        f(np.arange(5.0).astype(np.float32))
    with pytest.raises(TypeError, match="safe"):
        dlbridge.jit(f)(np.arange(5.0).astype(np.float32))

    def g(a: Any) -> Any:
        np.putmask(a, a > 1, 2.7)
        np.place(a, a == 0, [7, 8])
        return a

    x = np.arange(5, dtype=np.uint8)
    _exact(dlbridge.jit(g)(x.copy()), g(x.copy()))


def test_value_shapes_that_do_not_fit_the_indexed_shape() -> None:
    def f(a: Any) -> Any:
        a[[0, 1]] = np.ones(3)
        return a

    with pytest.raises(ValueError):
        f(np.zeros(4))
    with pytest.raises(ValueError, match="could not be broadcast"):
        dlbridge.jit(f)(np.zeros(4))


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (1, 5), (0, 3)])
def test_fill_diagonal_of_any_shape(shape: tuple[int, int]) -> None:
    def f(a: Any) -> Any:
        b = a.copy()
        np.fill_diagonal(b, [9.0, 8.0], wrap=True)
        np.fill_diagonal(a, 5.0)
        return b

    x = np.arange(float(np.prod(shape))).reshape(shape)
    want_a = x.copy()
    want = f(want_a)
    a = x.copy()
    _exact(dlbridge.jit(f)(a), want)
    _exact(a, want_a)


def test_repeat_counts_known_only_when_the_kernel_runs() -> None:
    """One kernel serves every set of counts; negative counts and counts of another length are
    NumPy's ValueErrors."""
    f = dlbridge.jit(lambda a, r: (np.repeat(a, r, axis=0), np.repeat(a[:, 0], r[0])))
    x = np.arange(12.0).reshape(4, 3)
    for r in ([1, 0, 2, 3], [0, 0, 0, 0], [5, 1, 1, 1]):
        r = np.array(r)
        _exact(f(x, r), (np.repeat(x, r, axis=0), np.repeat(x[:, 0], r[0])))
    assert f.num_specialisations == 1
    with pytest.raises(ValueError, match="negative"):
        f(x, np.array([1, -1, 1, 1]))
    with pytest.raises(ValueError, match="broadcast"):
        f(x, np.array([1, 1, 1]))


def test_where_with_a_numpy_condition_is_numpy_s() -> None:
    """With nothing traced, ``np.where(cond)`` inside a jitted function is NumPy's own."""
    got = dlbridge.jit(lambda a: a[np.where(np.array([True, False, True]))])(np.arange(3.0))
    _exact(got, np.array([0.0, 2.0]))
