"""Sizes, checks and branches that come from the data, on PyTorch CUDA tensors: the functions of
python/tests/test_cuda_host_reads.py (whose host code copies a scalar back from the device and
waits for it) give NumPy's arrays, dtypes and errors, for contiguous, strided and empty inputs
of several dtypes. Results stay on the device; inputs are left untouched. Skipped without
PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

RNG = np.random.default_rng(26)
DTYPES = ["float64", "float32", "int64", "int32", "uint8"]
LAYOUTS = ["C", "strided", "empty"]


def _values(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype.startswith("float"):
        return RNG.standard_normal(shape).astype(dtype)
    low = 0 if dtype.startswith("uint") else -3
    return RNG.integers(low, 4, shape).astype(dtype)


def _make(dtype: str, layout: str) -> tuple[np.ndarray, Any]:
    """A 2-d input as NumPy sees it and the same values on the device in ``layout``."""
    if layout == "empty":
        a = _values(dtype, (0, 5))
        return a, torch.from_numpy(a).cuda()
    base = _values(dtype, (14, 10))
    if layout == "strided":
        return base[::2, ::2], torch.from_numpy(base).cuda()[::2, ::2]
    return base[:7], torch.from_numpy(np.ascontiguousarray(base[:7])).cuda()


def _host(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_host(v) for v in value)
    assert isinstance(value, torch.Tensor) and value.device.type == "cuda", type(value)
    return value.cpu().numpy()


def _compare(got: Any, want: Any) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w)
        return
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape,
                                                                 want.shape)
    if want.dtype.kind == "f":
        rtol = 1e-5 if want.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


#: name -> function of one 2-d array whose result's size (or a check) comes from its values
SELECTIONS: dict[str, Callable[[Any], Any]] = {
    "mask": lambda x: x[x > 0],
    "mask_arithmetic": lambda x: x[x > 0] * 2 + x[x < 1].sum(),
    "nonzero": lambda x: np.nonzero(x),
    "flatnonzero": lambda x: np.flatnonzero(x > 1),
    "argwhere": lambda x: np.argwhere(x),
    "extract": lambda x: np.extract(x < 0, x),
    "flatten_strided": lambda x: x[:, ::2].reshape(-1),
}
JITTED = {name: dlbridge.jit(fn) for name, fn in SELECTIONS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_selections_match_numpy(name: str, dtype: str, layout: str) -> None:
    a, x = _make(dtype, layout)
    before = x.clone()
    _compare(_host(JITTED[name](x)), SELECTIONS[name](a.copy()))
    assert torch.equal(x, before)


def test_a_selection_of_everything_and_of_nothing() -> None:
    mask = JITTED["mask"]
    a = np.arange(1.0, 13.0).reshape(3, 4)
    _compare(_host(mask(torch.from_numpy(a).cuda())), a[a > 0])
    _compare(_host(mask(torch.from_numpy(-a).cuda())), (-a)[-a > 0])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_extremes_of_a_selection_and_its_emptiness_check(dtype: str) -> None:
    def extremes(x: Any) -> Any:
        return x[x > 0].max(), np.min(x[x > 0])

    jitted = dlbridge.jit(extremes)
    a = _values(dtype, (6, 9))
    a[0, 0] = 2
    _compare(_host(jitted(torch.from_numpy(a).cuda())), extremes(a))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        jitted(torch.from_numpy(-np.abs(a)).cuda())


@pytest.mark.parametrize("n", [0, 1, 50])
def test_bincount_sized_by_the_largest_value(n: int) -> None:
    counts = dlbridge.jit(lambda i: np.bincount(i))
    weighted = dlbridge.jit(lambda i, w: np.bincount(i, weights=w, minlength=3))
    i = RNG.integers(0, 9, n)
    w = RNG.standard_normal(n)
    _compare(_host(counts(torch.from_numpy(i).cuda())), np.bincount(i))
    if n:  # NumPy's bincount of nothing is int64 even with weights
        _compare(_host(weighted(torch.from_numpy(i).cuda(), torch.from_numpy(w).cuda())),
                 np.bincount(i, weights=w, minlength=3))
    with pytest.raises(ValueError, match="'list' argument must have no negative elements"):
        counts(torch.tensor([1, -1], device="cuda"))


def test_histogram_of_device_data() -> None:
    a = RNG.standard_normal(1000)
    got = dlbridge.jit(lambda v: np.histogram(v, 7))(torch.from_numpy(a).cuda())
    _compare(_host(got), np.histogram(a, 7))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_unique_of_device_data_matches_numpy(dtype: str) -> None:
    """A sort on the device, then counts read back to size the distinct values."""
    a = RNG.integers(0, 5, (4, 6)).astype(dtype)
    if dtype != "int64":
        a[0, :2] = np.nan
    got = dlbridge.jit(lambda x: np.unique(x, return_index=True, return_inverse=True, return_counts=True))(
        torch.from_numpy(a).cuda())
    _compare(_host(got), np.unique(a, return_index=True, return_inverse=True, return_counts=True))


def test_weights_that_sum_to_zero_are_refused_on_the_device() -> None:
    """The sum of the weights is read back from the device before the average divides by it."""
    a = torch.ones((3, 4), dtype=torch.float64, device="cuda")
    average = dlbridge.jit(lambda x, w: np.average(x, axis=1, weights=w))
    np.testing.assert_allclose(_host(average(a, torch.arange(4.0, device="cuda"))), np.ones(3))
    with pytest.raises(ValueError, match="Weights sum to zero"):
        average(a, torch.tensor([1.0, -1.0, 0.0, 0.0], dtype=torch.float64, device="cuda"))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_linear_algebra_checks_its_input_on_the_host(dtype: str) -> None:
    rtol = 1e-4 if dtype == "float32" else 1e-10
    a = (RNG.standard_normal((5, 5)) + 5 * np.eye(5)).astype(dtype)
    spd = (a @ a.T).astype(dtype)
    b = RNG.standard_normal(5).astype(dtype)
    da, dspd, db = (torch.from_numpy(v).cuda() for v in (a, spd, b))
    np.testing.assert_allclose(_host(dlbridge.jit(np.linalg.solve)(da, db)), np.linalg.solve(a, b),
                               rtol=rtol, atol=rtol)
    np.testing.assert_allclose(_host(dlbridge.jit(np.linalg.inv)(da)), np.linalg.inv(a), rtol=rtol,
                               atol=rtol)
    np.testing.assert_allclose(_host(dlbridge.jit(np.linalg.det)(da)), np.linalg.det(a), rtol=rtol)
    np.testing.assert_allclose(_host(dlbridge.jit(np.linalg.cholesky)(dspd)), np.linalg.cholesky(spd),
                               rtol=rtol, atol=rtol)
    singular = torch.zeros((5, 5), dtype=da.dtype, device="cuda")
    with pytest.raises(ValueError, match="Singular matrix"):
        dlbridge.jit(np.linalg.solve)(singular, db)
    with pytest.raises(ValueError, match="Matrix is not positive definite"):
        dlbridge.jit(np.linalg.cholesky)(-dspd)


def test_a_gather_checks_its_indices_on_the_host() -> None:
    gather = dlbridge.jit(lambda x, i: x[i] * 2)
    x = RNG.standard_normal(10)
    i = np.array([9, 0, -1, 3])
    _compare(_host(gather(torch.from_numpy(x).cuda(), torch.from_numpy(i).cuda())), x[i] * 2)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 10"):
        gather(torch.from_numpy(x).cuda(), torch.tensor([0, 10], device="cuda"))


def test_a_selection_in_a_loop_reads_its_count_each_time_round() -> None:
    def shrink(x: Any, trips: int) -> Any:
        total = x.sum() * 0
        for _ in range(trips):
            kept = np.flatnonzero(x > x.mean())
            total = total + (x[kept] * kept).sum()
            x = x * 0.5
        return total

    x = RNG.standard_normal(257)
    for trips in (0, 1, 4):
        np.testing.assert_allclose(_host(dlbridge.jit(shrink)(torch.from_numpy(x).cuda(), trips)),
                                   shrink(x, trips), rtol=1e-12)


def test_checks_of_statistics_read_the_data_back() -> None:
    """NumPy's errors that depend on the data are raised on the device too."""
    x = torch.tensor([[1.0, np.nan], [np.nan, np.nan]], dtype=torch.float64, device="cuda")
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        dlbridge.jit(lambda a: np.nanargmax(a, axis=1))(x)
    np.testing.assert_array_equal(_host(dlbridge.jit(lambda a: np.nanargmax(a, axis=1))(x[:1])), [0])
    bins = torch.tensor([0.0, 1.0, 0.5], dtype=torch.float64, device="cuda")
    with pytest.raises(ValueError, match="bins must be monotonically increasing or decreasing"):
        dlbridge.jit(lambda a, b: np.digitize(a, b))(x[0], bins)
    with pytest.raises(ValueError, match="index out of bounds"):
        dlbridge.jit(lambda i: np.unravel_index(i, (3, 4)))(torch.tensor([3, 12], device="cuda"))
