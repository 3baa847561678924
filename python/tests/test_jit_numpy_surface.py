"""The everyday NumPy functions of issue 26 under ``@dlbridge.jit``, against NumPy on the CPU.

Each construct runs on every dtype class (float64, float32, signed and unsigned integers,
bool, complex) in C order, as a strided view, reversed (negative strides), empty (a dim of 0)
and 0-d, and must give NumPy's values, dtype and shape, leave its input untouched, or, where
NumPy raises, raise too (NumPy's error type, or a TraceError naming the operation). One jitted
function per construct serves every parametrisation, so kernels compile once per dtype and rank.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from dlbridge._trace import sorting
from numpy_constructs import DTYPES, LAYOUTS, check_construct, compare, make

#: name → the NumPy user's function of one array
CONSTRUCTS: dict[str, Callable[[Any], Any]] = {
    "flip": lambda a: np.flip(a),
    "flips": lambda a: (np.flip(a, -1), np.flip(a, (0, 1)), np.fliplr(a), np.flipud(a)),
    "roll": lambda a: (np.roll(a, 2), np.roll(a, -17), np.roll(a, (3, 4))),
    "roll_axes": lambda a: (np.roll(a, -7, axis=-1), np.roll(a, (1, 3), axis=(0, 1))),
    "diff": lambda a: (np.diff(a), np.diff(a, 2, axis=0), np.diff(a, prepend=0, append=a[:, -1:])),
    "tile_repeat": lambda a: (np.tile(a, 2), np.tile(a, (2, 1, 3)), np.repeat(a, 2), a.repeat(3, axis=-1)),
    "average": lambda a: np.average(a),
    "average_axis_weights": lambda a: (np.average(a, axis=0, returned=True),
                                       np.average(a, axis=1, weights=np.arange(a.shape[1]) + 1.0)),
    "real_imag": lambda a: (a.real, a.imag, np.real(a), np.imag(a)),
    "conj": lambda a: (np.conj(a), a.conj(), np.conjugate(a)),
    "complex_power": lambda a: ((a + 1j) ** 2, (a - 0.5j) ** -3, (a + 2j) ** 0.5),
    "outer": lambda a: (np.add.outer(a, a[0]), np.multiply.outer(a[:, 0], a[0])),
    "accumulate": lambda a: (np.add.accumulate(a, axis=-1), np.subtract.accumulate(a, 1)),
    "accumulate_max": lambda a: np.maximum.accumulate(a, axis=0),
    "reduce_logical": lambda a: (np.logical_or.reduce(a, axis=-1), np.logical_and.reduce(a, axis=0)),
    "reduce_bitwise": lambda a: np.bitwise_xor.reduce(a, axis=1, keepdims=True),
    "cov": lambda a: (np.cov(a), np.cov(a, rowvar=False, bias=True), np.corrcoef(a)),
    "triangles": lambda a: (np.triu(a, 1), np.tril(a, -1)),
    "ndarray": lambda a: _filled(np.ndarray(a.shape, a.dtype), a),
    "casts": lambda a: (np.float32(a), np.int64(a.real), np.complex64(a), np.float64(a.sum())),
    "concatenate_list": lambda a: np.concatenate([[0, 1], a[0], [7]]),
    "sort": lambda a: (np.sort(a), np.sort(a, axis=0), np.sort(a, axis=None)),
    "argsort": lambda a: (np.argsort(a, kind="stable"), a.argsort(axis=0, kind="stable")),
    "sort_in_place": lambda a: _sorted_in_place(a.copy()),
    "searchsorted": lambda a: (np.searchsorted(np.arange(-3, 4) * 0.75, a),
                               np.searchsorted(np.arange(-3, 4) * 0.75, a, side="right")),
}

#: (construct, dtype) pairs NumPy runs that the tracer refuses with a TraceError.
REFUSED: set[tuple[str, str]] = set()


#: Results whose dtype NumPy picks from the size of the data, known only when the kernel runs:
#: the covariance of no variables is float64 in NumPy whatever the data's dtype.
EMPTY_DTYPE = {("cov", "complex128", "empty")}


def _sorted_in_place(a: Any) -> Any:
    a.sort(axis=0)
    return a


def _filled(r: Any, a: Any) -> Any:
    r[...] = a
    return r


JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_matches_numpy(name: str, dtype: str, layout: str) -> None:
    check_construct(JITTED[name], CONSTRUCTS[name], dtype, layout, refused=(name, dtype) in REFUSED,
                    dtype_from_kernel=(name, dtype, layout) in EMPTY_DTYPE)


#: Reshapes that only drop and add size-1 dims, or flatten: no ``tensor.reshape`` (whose shape
#: operand CUDA host code would read back from the device).
REGROUPING = dlbridge.jit(lambda a: (a.reshape(-1), np.ravel(a), a.reshape(1, -1, 1), a.sum().reshape(1),
                                     np.reshape(a[0], (1, a.shape[1])), a[:, :1].reshape(-1)))


@pytest.mark.parametrize("layout", ["C", "strided", "reversed", "empty"])
def test_reshapes_that_regroup_dims_need_no_shape_operand(layout: str) -> None:
    a = make("float64", layout)
    if not a.shape[0]:  # a[0] of an empty array is an IndexError
        with pytest.raises(IndexError):
            REGROUPING(a)
        return
    want = (a.reshape(-1), np.ravel(a), a.reshape(1, -1, 1), a.sum().reshape(1), np.reshape(a[0], (1, a.shape[1])),
            a[:, :1].reshape(-1))
    compare(REGROUPING(a), want, False)
    assert "tensor.reshape" not in REGROUPING.inspect(a)["input"]


def test_integer_exponents_multiply_as_numpy() -> None:
    """Complex powers by small integers are repeated products, exact where NumPy's are."""
    z = np.array([1 + 1j, 2 - 1j, -3j, 0j])
    got = dlbridge.jit(lambda v: (v**2, v**3, v**0))(z)
    for g, w in zip(got, (z**2, z**3, z**0)):
        np.testing.assert_array_equal(g, w)


def test_zero_to_complex_powers() -> None:
    z = np.zeros(3, complex)
    e = np.array([2.0, -1.0, 1j])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(dlbridge.jit(lambda v, w: v**w)(z, e), z**e)


def test_weights_that_sum_to_zero_are_refused() -> None:
    with pytest.raises(ValueError, match="Weights sum to zero"):
        dlbridge.jit(lambda a, w: np.average(a, weights=w))(np.ones(3), np.array([1.0, -1.0, 0.0]))


def test_accumulate_dtype_argument() -> None:
    x = np.array([100, 100, 100], np.int8)
    f = dlbridge.jit(lambda v: (np.add.accumulate(v, dtype=np.int8), np.add.accumulate(v)))
    for g, w in zip(f(x), (np.add.accumulate(x, dtype=np.int8), np.add.accumulate(x))):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_scalar_types_keep_working_as_numpy_types() -> None:
    """``np.float32`` inside a traced function is a cast on traced values and NumPy's type
    everywhere else: a dtype, an isinstance check, a scalar."""

    @dlbridge.jit
    def f(a):
        b = np.zeros(a.shape, dtype=np.float32) + np.float32(1.5)
        same = isinstance(a, np.ndarray) and a.dtype == np.float64 and not isinstance(1.0, np.float32)
        return b * np.float32(a) if same else b

    x = np.arange(4.0)
    got = f(x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.float32(1.5) * x.astype(np.float32))


def test_roll_of_a_dynamic_size_by_more_than_it() -> None:
    f = dlbridge.jit(lambda v, s: np.roll(v, 13) + s)
    for n in (0, 1, 4, 5, 13, 30):
        x = np.arange(float(n))
        np.testing.assert_array_equal(f(x, 0.0), np.roll(x, 13))


@pytest.fixture
def gpu_sort(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CPU sorts rows as CUDA does (merge passes of a thread per element), so that the
    GPU's algorithm is checked against NumPy here."""
    monkeypatch.setitem(sorting.ROW_SORTS, "cpu", sorting.ROW_SORTS["cuda"])


SORTING = ["sort", "argsort", "sort_in_place"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SORTING)
def test_the_gpu_sort_matches_numpy(name: str, dtype: str, layout: str, gpu_sort: None) -> None:
    jitted = dlbridge.jit(CONSTRUCTS[name])
    # not the CPU's merge sort of each row
    assert not re.search(r"^\s*%\S+ = scf\.forall", jitted.inspect(make(dtype, "C"))["input"], re.M)
    check_construct(jitted, CONSTRUCTS[name], dtype, layout)


@pytest.mark.parametrize("fn", [lambda a: np.sort(a), lambda a: np.argsort(a, axis=0), lambda a: a.sort(),
                                lambda a: np.sort(a, axis=None)],
                         ids=["sort", "argsort", "sort_in_place", "flattened"])
def test_sorting_for_cuda_is_a_kernel_per_merge_pass(fn: Callable[[Any], Any]) -> None:
    """On CUDA every merge pass is one kernel of a thread per element, whatever the rows' count
    and length: no kernel of one thread, and no host loop over the rows."""
    stages = dlbridge.jit(fn, target="cuda").inspect(np.ones((4, 9)))
    kernels = stages["loops-to-kernels"]
    assert "gpu.launch_func" in kernels and "known_block_size = array<i32: 1, 1, 1>" not in kernels
    assert "scf.parallel" not in kernels.split("gpu.module")[0]
    assert ".entry" in stages["ptx"]


def test_sort_puts_nans_last_and_argsort_is_stable() -> None:
    x = np.array([[3.0, np.nan, -1.0, 3.0, -np.inf, 0.0, np.nan, 3.0]])
    got = dlbridge.jit(lambda v: (np.sort(v), np.argsort(v)))(x)
    np.testing.assert_array_equal(got[0], np.sort(x))
    np.testing.assert_array_equal(got[1], np.argsort(x, kind="stable"))


def test_int_arguments_as_shifts_and_diagonals_stay_dynamic() -> None:
    """A shift, a diagonal offset or a prepended scale passed as a Python int is a run-time
    value: one kernel serves every value, negative and larger than the array included."""
    f = dlbridge.jit(lambda a, n: (np.roll(a, n), np.roll(a, n, axis=1), np.triu(a, n), np.tril(a, -n)))
    x = np.arange(12.0).reshape(3, 4)
    for n in (-5, 0, 2, 7, 13):
        for g, w in zip(f(x, n), (np.roll(x, n), np.roll(x, n, axis=1), np.triu(x, n), np.tril(x, -n))):
            np.testing.assert_array_equal(g, w)
    assert f.num_specialisations == 1


def test_numpy_names_a_user_reaches_for() -> None:
    """Python lists to ufunc.outer; NumPy's types in finfo, iinfo, issubdtype and as scalars."""
    x = np.arange(4.0)
    f = dlbridge.jit(lambda a: (np.subtract.outer([1.0, 2.0], a), np.multiply.outer(a, [1, 2]),
                                np.finfo(np.float32).eps * a, np.iinfo(np.int32).max + a,
                                np.issubdtype(a.dtype, np.floating) * a, np.float64(2.0) / a[1:]))
    want = (np.subtract.outer([1.0, 2.0], x), np.multiply.outer(x, [1, 2]), np.finfo(np.float32).eps * x,
            np.iinfo(np.int32).max + x, x * 1.0, 2.0 / x[1:])
    for g, w in zip(f(x), want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_python_lists_among_the_arrays() -> None:
    f = dlbridge.jit(lambda a: (np.concatenate([[0.5], a, [[9.0]][0]]), np.concatenate([[a[0], a[-1]], a]),
                                np.stack([a, [1.0, 2.0, 3.0]])))
    x = np.array([1.0, 2.0, 4.0])
    got = f(x)
    want = (np.concatenate([[0.5], x, [9.0]]), np.concatenate([[x[0], x[-1]], x]), np.stack([x, [1.0, 2.0, 3.0]]))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("algorithm", ["cpu", "cuda"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 64, 1000])
def test_sort_and_argsort_rows_of_any_length(n: int, algorithm: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Merge passes over rows of odd and power-of-two lengths, with ties and NaNs, by each
    target's algorithm (run here on the CPU); one kernel serves every length."""
    monkeypatch.setitem(sorting.ROW_SORTS, "cpu", sorting.ROW_SORTS[algorithm])
    rng = np.random.default_rng(n)
    x = rng.integers(-5, 5, (3, n)).astype(np.float64)
    x[rng.random((3, n)) < 0.1] = np.nan
    got = SORTS[algorithm](x)
    np.testing.assert_array_equal(got[0], np.sort(x))
    np.testing.assert_array_equal(got[1], np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(got[2], np.argsort(x[:, ::-1], axis=1, kind="stable"))
    np.testing.assert_array_equal(got[3], np.argsort(x, axis=None, kind="stable"))


SORTS = {algorithm: dlbridge.jit(lambda v: (np.sort(v), np.argsort(v), v[:, ::-1].argsort(axis=1),
                                            np.argsort(v, axis=None)))
         for algorithm in ("cpu", "cuda")}


def test_builtin_round_of_scalars() -> None:
    """``round()`` of a float argument or a 0-d result rounds halves to even into an int (with
    ``ndigits``: a float), as Python and NumPy's scalars do; one kernel serves every value."""
    f = dlbridge.jit(lambda a, s: (round(s) * a, round(s, 1) + a, round(a.sum() / 3) + a))
    x = np.arange(4.0)
    for s in (2.5, 3.5, -1.25, 2.567):
        for g, w in zip(f(x, s), (round(s) * x, round(s, 1) + x, round(x.sum() / 3) + x)):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-15)
    assert f.num_specialisations == 1


def test_complex_order_with_nans_as_numpy() -> None:
    """Comparisons, maximum/minimum, sort and searchsorted of complex numbers in NumPy's
    lexicographic order, NaN parts included (NaNs propagate through maximum, sort last)."""
    rng = np.random.default_rng(1)
    parts = np.array([1.0, 2.0, np.nan, -1.0])
    z = rng.choice(parts, (4, 9)) + 1j * rng.choice(parts, (4, 9))
    w = rng.choice(parts, (4, 9)) + 1j * rng.choice(parts, (4, 9))

    def f(a: Any, b: Any) -> Any:
        return (a < b, a <= b, a > b, a >= b, np.maximum(a, b), np.minimum(a, b),
                np.maximum.accumulate(a, axis=1), np.sort(a), np.argsort(a, kind="stable"),
                np.searchsorted(np.sort(a[0]), a))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(z, w)
        got = dlbridge.jit(f)(z, w)
    for g, wanted in zip(got, want):
        assert g.dtype == wanted.dtype
        np.testing.assert_array_equal(g, wanted)
