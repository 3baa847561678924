"""``np.linalg.qr``, ``eigh``, ``eigvalsh``, ``svd``, ``lstsq``, ``pinv``, ``matrix_rank`` and
``slogdet`` under ``@dlbridge.jit``: NumPy's answers (to the tolerance of the algorithm; QR
with LAPACK's very signs, eigen- and singular vectors up to theirs), dtypes and shapes for tall,
wide, square and 1 x 1 matrices of float64, float32 and int64, contiguous, strided and reversed,
inputs left untouched, one kernel for every size, NumPy's errors, and each function compiled
for CUDA (through ptxas)."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

SHAPES = [(1, 1), (3, 3), (6, 4), (4, 6), (20, 20)]
LAYOUTS = ["C", "strided", "reversed"]


def matrix(shape: tuple[int, int], dtype: str, layout: str = "C", seed: int = 0) -> np.ndarray:
    """A well-conditioned matrix of ``shape`` (integers for int64), laid out as ``layout``."""
    rng = np.random.default_rng([seed, *shape])
    a = rng.normal(size=shape) * 3 + 10 * np.eye(*shape)
    a = (np.round(a) if dtype == "int64" else a).astype(dtype)
    if layout == "strided":
        big = np.zeros((2 * shape[0], 3 * shape[1]), dtype)
        big[::2, ::3] = a
        return big[::2, ::3]
    if layout == "reversed":
        return np.ascontiguousarray(a[::-1, ::-1])[::-1, ::-1]
    return a


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


#: Whether the matrix being checked is float32: NumPy's float32 products (``a @ a.T``) round
#: differently from the kernel's, so results of float32 inputs agree to float32 precision only.
SINGLE = {"input": False}


def _rtol(dtype: Any) -> float:
    return 2e-5 if np.dtype(dtype) == np.float32 or SINGLE["input"] else 1e-9


def check_same(got: Any, want: Any) -> None:
    """Each result has NumPy's shape and dtype, and its values to the precision of its dtype
    (relative to the largest value of the result)."""
    assert type(got) is type(want) or not isinstance(want, tuple), (type(got), type(want))
    got_leaves, want_leaves = _leaves(got), _leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        scale = max(float(np.abs(w).max(initial=0)), 1.0)
        np.testing.assert_allclose(g, w, rtol=_rtol(w.dtype), atol=_rtol(w.dtype) * scale)


def check_vectors(got: np.ndarray, want: np.ndarray) -> None:
    """Eigen- or singular vectors (columns) as NumPy's, up to each one's sign."""
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(np.abs(got), np.abs(want), rtol=0, atol=50 * _rtol(want.dtype))


def check_orthonormal(q: np.ndarray, axis: int = 0) -> None:
    gram = q.T @ q if axis == 0 else q @ q.T
    np.testing.assert_allclose(gram, np.eye(len(gram)), rtol=0, atol=20 * _rtol(q.dtype))


# --------------------------------------------------------------------------------------------------
# the constructs: a user's function each, and how its results are checked against NumPy's


def qr_modes(a: Any) -> Any:
    return np.linalg.qr(a), np.linalg.qr(a, mode="complete"), np.linalg.qr(a, mode="r"), np.linalg.qr(a, "raw")


def check_qr(got: Any, want: Any, a: np.ndarray) -> None:
    check_same(got, want)  # LAPACK's Householder signs, hence NumPy's Q and R
    q, r = got[0]
    np.testing.assert_allclose(q @ r, a, rtol=0, atol=20 * _rtol(q.dtype) * max(np.abs(a).max(), 1))
    check_orthonormal(got[1][0])


def eigen(a: Any) -> Any:
    return np.linalg.eigh(a), np.linalg.eigh(a, UPLO="U"), np.linalg.eigvalsh(a), np.linalg.eigvalsh(a, "u")


def check_eigen(got: Any, want: Any, a: np.ndarray) -> None:
    for (w, v), (ww, wv), lower in ((got[0], want[0], True), (got[1], want[1], False)):
        assert type(got[0]) is type(want[0])
        check_same(w, ww)
        check_vectors(v, wv)
        tri = np.tril(a) if lower else np.triu(a)  # only the UPLO triangle is read
        sym = (tri + tri.T - np.diag(np.diag(a))).astype(np.float64)
        scale = max(np.abs(ww).max(), 1)
        np.testing.assert_allclose(sym @ v, v * w, rtol=0, atol=50 * _rtol(w.dtype) * scale)
        largest = v[np.argmax(np.abs(v), axis=0), np.arange(v.shape[1])]
        assert np.all(largest > 0)  # the deterministic sign
    check_same(got[2:], want[2:])


def singular(a: Any) -> Any:
    square = a @ a.T + np.eye(len(a))
    return (np.linalg.svd(a), np.linalg.svd(a, full_matrices=False), np.linalg.svd(a, compute_uv=False),
            np.linalg.svd(square, hermitian=True))


def check_singular(got: Any, want: Any, a: np.ndarray) -> None:
    k = min(a.shape)
    for (u, s, vh), (wu, ws, wvh) in zip(got[:2], want[:2]):
        assert type(got[0]) is type(want[0])
        check_same(s, ws)
        assert u.shape == wu.shape and vh.shape == wvh.shape and u.dtype == wu.dtype and vh.dtype == wvh.dtype
        check_vectors(u[:, :k], wu[:, :k])
        check_vectors(vh[:k], wvh[:k])
        check_orthonormal(u)
        check_orthonormal(vh, axis=1)
        np.testing.assert_allclose((u[:, :k] * s) @ vh[:k], a, rtol=0,
                                   atol=50 * _rtol(s.dtype) * max(np.abs(a).max(), 1))
    check_same(got[2], want[2])
    u, s, vh = got[3]
    check_same(s, want[3][1])
    square = (a @ a.T + np.eye(len(a))).astype(np.float64)
    np.testing.assert_allclose((u * s) @ vh, square, rtol=0, atol=50 * _rtol(s.dtype) * np.abs(square).max())


def least_squares(a: Any, b: Any) -> Any:
    return np.linalg.lstsq(a, b), np.linalg.lstsq(a, b[:, None] * np.arange(1, 4), rcond=1e-3)


def check_least_squares(got: Any, want: Any, a: np.ndarray) -> None:
    for (x, residuals, rank, s), (wx, wres, wrank, ws) in zip(got, want):
        check_same((x, residuals, s), (wx, wres, ws))
        assert int(rank) == int(wrank) and np.asarray(rank).dtype == np.asarray(wrank).dtype


def inverses(a: Any) -> Any:
    return (np.linalg.pinv(a), np.linalg.pinv(a @ a.T + np.eye(len(a)), hermitian=True),
            np.linalg.matrix_rank(a), np.linalg.matrix_rank(a, tol=0.5), np.linalg.matrix_rank(a[0]))


def check_inverses(got: Any, want: Any, a: np.ndarray) -> None:
    check_same(got[:2], want[:2])
    assert [int(r) for r in got[2:]] == [int(r) for r in want[2:]]


def log_determinant(a: Any) -> Any:
    return np.linalg.slogdet(a), np.linalg.slogdet(a[:, ::-1])


def check_log_determinant(got: Any, want: Any, a: np.ndarray) -> None:
    assert type(got[0]) is type(want[0])
    check_same(got, want)


def every_function(a: Any, b: Any) -> Any:
    square = a[:3, :3] + a[:3, :3].T
    return (np.linalg.qr(a), np.linalg.eigh(square), np.linalg.svd(a, full_matrices=False), np.linalg.lstsq(a, b),
            np.linalg.pinv(a), np.linalg.matrix_rank(a), np.linalg.slogdet(square))


def check_every_function(got: Any, want: Any, a: np.ndarray) -> None:
    check_same(got[0], want[0])  # also: NumPy's named tuples (QRResult, EighResult, SVDResult...)
    check_same(got[1].eigenvalues, want[1].eigenvalues)
    check_vectors(got[1].eigenvectors, want[1].eigenvectors)
    check_same(got[2].S, want[2].S)
    check_vectors(got[2].U, want[2].U)
    check_vectors(got[2].Vh, want[2].Vh)
    check_least_squares(got[3:4], want[3:4], a)
    check_same(got[4], want[4])
    assert int(got[5]) == int(want[5])
    check_same(got[6], want[6])


#: name -> (function, its check, whether it takes a square matrix, whether it takes a vector b)
CONSTRUCTS: dict[str, tuple[Callable[..., Any], Callable[..., None], bool, bool]] = {
    "qr": (qr_modes, check_qr, False, False),
    "eigh": (eigen, check_eigen, True, False),
    "svd": (singular, check_singular, False, False),
    "lstsq": (least_squares, check_least_squares, False, True),
    "pinv_rank": (inverses, check_inverses, False, False),
    "slogdet": (log_determinant, check_log_determinant, True, False),
    "every_function": (every_function, check_every_function, False, True),
}
JITTED = {name: dlbridge.jit(fn) for name, (fn, *_) in CONSTRUCTS.items()}


def arguments(name: str, shape: tuple[int, int], dtype: str, layout: str) -> tuple[Any, ...]:
    """The arguments of construct ``name`` for a matrix of ``shape``."""
    _, _, square, takes_b = CONSTRUCTS[name]
    if square:
        shape = (shape[0], shape[0])
    a = matrix(shape, dtype, layout)
    return (a, matrix((shape[0], 1), dtype, layout, seed=1)[:, 0]) if takes_b else (a,)


def run_construct(name: str, dtype: str, layout: str, shapes: list[tuple[int, int]]) -> None:
    """Construct ``name`` gives NumPy's answers at each of ``shapes``, leaves its inputs
    untouched, and every size but 1 x 1 (whose unit dims are a specialisation of their own)
    runs the kernel of the first."""
    fn, check, square, _ = CONSTRUCTS[name]
    jitted = JITTED[name]
    compiled = False
    SINGLE["input"] = dtype == "float32"
    try:
        for shape in [s for s in shapes if not square or s[0] == s[1]]:
            args = arguments(name, shape, dtype, layout)
            before = [a.copy() for a in args]
            kernels = jitted.num_specialisations
            got = jitted(*args)
            for a, b in zip(args, before):
                np.testing.assert_array_equal(a, b)
            check(got, fn(*args), args[0])
            if shape != (1, 1):
                assert not compiled or jitted.num_specialisations == kernels, f"{shape} needed a kernel of its own"
                compiled = True
    finally:
        SINGLE["input"] = False


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", [name for name in CONSTRUCTS if name != "every_function"])
def test_construct_matches_numpy(name: str, layout: str) -> None:
    """Each function with its arguments' variants, on float64 matrices of every shape."""
    run_construct(name, "float64", layout, SHAPES[1:])


@pytest.mark.parametrize(("dtype", "shapes"), [("float32", SHAPES[1:]), ("int64", SHAPES[1:]), ("float64", SHAPES[:1])])
def test_every_function_in_every_dtype(dtype: str, shapes: list[tuple[int, int]]) -> None:
    """float32 decomposed in float64 and given back in float32, integers in float64, 1 x 1."""
    run_construct("every_function", dtype, "strided", shapes)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "qr": lambda a, b: np.linalg.qr(a),
    "eigh": lambda a, b: np.linalg.eigh(a.T @ a),
    "eigvalsh": lambda a, b: np.linalg.eigvalsh(a.T @ a),
    "svd": lambda a, b: np.linalg.svd(a),
    "lstsq": lambda a, b: np.linalg.lstsq(a, b),
    "pinv": lambda a, b: np.linalg.pinv(a),
    "matrix_rank": lambda a, b: np.linalg.matrix_rank(a),
    "slogdet": lambda a, b: np.linalg.slogdet(a.T @ a),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_each_function_compiles_for_cuda(name: str) -> None:
    """Each is PTX that ptxas takes: the algorithms are array operations and loops only."""
    dlbridge.jit(FUNCTIONS[name], target="cuda").inspect(matrix((6, 4), "float64"), np.ones(6))


# --------------------------------------------------------------------------------------------------
# rank deficiency, conditioning, empty matrices


RANKS = dlbridge.jit(lambda a, b: (np.linalg.pinv(a), np.linalg.matrix_rank(a), np.linalg.lstsq(a, b),
                                   np.linalg.svd(a, compute_uv=False)))


@pytest.mark.parametrize("case", ["duplicate columns", "rank 3 of 20 x 6", "rank 1", "zeros", "wide rank 2"])
def test_rank_deficient_matrices(case: str) -> None:
    """The cutoffs drop the singular values NumPy drops: pinv and the minimum-norm lstsq
    solution of a rank-deficient matrix are NumPy's, and its rank is NumPy's."""
    rng = np.random.default_rng(3)
    a = {"duplicate columns": np.repeat(rng.normal(size=(8, 3)), 2, axis=1),
         "rank 3 of 20 x 6": rng.normal(size=(20, 3)) @ rng.normal(size=(3, 6)),
         "rank 1": np.outer(rng.normal(size=5), rng.normal(size=4)),
         "zeros": np.zeros((4, 3)),
         "wide rank 2": rng.normal(size=(4, 2)) @ rng.normal(size=(2, 7))}[case]
    b = rng.normal(size=a.shape[0])
    pinv, rank, (x, residuals, lrank, s), sv = RANKS(a, b)
    np.testing.assert_allclose(pinv, np.linalg.pinv(a), rtol=0, atol=1e-10 * max(np.abs(np.linalg.pinv(a)).max(), 1))
    assert int(rank) == np.linalg.matrix_rank(a) == int(lrank)
    want = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(x, want[0], rtol=0, atol=1e-10 * max(np.abs(want[0]).max(), 1))
    assert residuals.shape == want[1].shape == (0,)  # not of full rank: no residuals, as NumPy
    np.testing.assert_allclose(s, want[3], rtol=0, atol=1e-12 * max(want[3].max(), 1))
    np.testing.assert_allclose(sv, want[3], rtol=0, atol=1e-12 * max(want[3].max(), 1))


def test_singular_values_over_twelve_orders_of_magnitude() -> None:
    """Each to its last digits relative to the largest (as LAPACK's are): the ill-conditioned
    matrix is no harder than any other."""
    rng = np.random.default_rng(4)
    u, _ = np.linalg.qr(rng.normal(size=(9, 6)))
    v, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    s = np.logspace(0, -12, 6)
    got = dlbridge.jit(lambda a: np.linalg.svd(a, compute_uv=False))((u * s) @ v.T)
    np.testing.assert_allclose(got, s, rtol=1e-12, atol=1e-15)


def test_the_cutoffs_of_pinv_and_matrix_rank() -> None:
    """``rcond``, ``rtol`` and ``tol`` drop the singular values NumPy drops."""
    rng = np.random.default_rng(5)
    u, _ = np.linalg.qr(rng.normal(size=(7, 5)))
    v, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    a = (u * np.array([1.0, 0.5, 1e-2, 1e-6, 1e-17])) @ v.T

    def cutoffs(a: Any) -> Any:
        return (np.linalg.pinv(a, rtol=None), np.linalg.pinv(a, rcond=1e-3), np.linalg.matrix_rank(a, rtol=1e-3),
                np.linalg.matrix_rank(a, tol=0.1))

    got, want = dlbridge.jit(cutoffs)(a), cutoffs(a)
    for g, w in zip(got[:2], want[:2]):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-9 * np.abs(w).max())
    assert [int(r) for r in got[2:]] == [int(r) for r in want[2:]] == [3, 2]


def test_residuals_of_full_rank_tall_systems() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=(30, 5)), rng.normal(size=(30, 2))
    got = dlbridge.jit(np.linalg.lstsq)(a, b)
    want = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10)
    assert got[1].shape == (2,)


def test_empty_matrices_are_numpys() -> None:
    jitted = dlbridge.jit(lambda a: (np.linalg.qr(a), np.linalg.svd(a, compute_uv=False), np.linalg.pinv(a)))
    for shape in [(0, 3), (3, 0), (0, 0)]:
        a = np.zeros(shape)
        check_same(jitted(a), (np.linalg.qr(a), np.linalg.svd(a, compute_uv=False), np.linalg.pinv(a)))
    square = dlbridge.jit(lambda a: (np.linalg.slogdet(a), np.linalg.eigh(a)))(np.zeros((0, 0)))
    check_same(square, (np.linalg.slogdet(np.zeros((0, 0))), np.linalg.eigh(np.zeros((0, 0)))))


def test_singular_matrices_have_log_determinant_minus_infinity() -> None:
    sign, logdet = dlbridge.jit(np.linalg.slogdet)(np.ones((3, 3)))
    assert sign == 0.0 and logdet == -np.inf


# --------------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(("fn", "arg", "error", "message"), [
    (lambda a: np.linalg.eigh(a), np.ones((2, 3)), ValueError, "Last 2 dimensions of the array must be square"),
    (lambda a: np.linalg.slogdet(a), np.ones((2, 3)), ValueError, "Last 2 dimensions of the array must be square"),
    (lambda a: np.linalg.svd(a), np.ones(3), ValueError, "Array must be at least two-dimensional"),
    (lambda a: np.linalg.qr(a, mode="x"), np.ones((2, 2)), ValueError, "Unrecognized mode 'x'"),
    (lambda a: np.linalg.eigh(a, UPLO="X"), np.ones((2, 2)), ValueError, "UPLO argument must be 'L' or 'U'"),
    (lambda a: np.linalg.pinv(a, rcond=1e-3, rtol=1e-3), np.ones((2, 2)), ValueError, "can't be both set"),
    (lambda a: np.linalg.matrix_rank(a, tol=1, rtol=1), np.ones((2, 2)), ValueError, "can't be both set"),
    (lambda a: np.linalg.lstsq(a, np.ones(3)), np.ones((2, 2)), ValueError, "Incompatible dimensions"),
    (lambda a: np.linalg.svd(a), np.ones((2, 2), np.float16), TypeError, "float16 is unsupported in linalg"),
    (lambda a: np.linalg.pinv(a, rtol=None), np.eye(2, dtype=np.int64), ValueError, "not inexact"),
    (lambda a: np.linalg.qr(a), np.ones((2, 2, 2)), dlbridge.TraceError, "stacks of matrices"),
    (lambda a: np.linalg.eigh(a), np.ones((2, 2), np.complex128), dlbridge.TraceError, "complex matrices"),
])
def test_errors_are_numpys(fn: Callable[[Any], Any], arg: np.ndarray, error: type, message: str) -> None:
    if error is not dlbridge.TraceError:
        with pytest.raises(error, match=message):
            fn(arg)
    with pytest.raises(error, match=message):
        dlbridge.jit(fn)(arg)


def test_sizes_checked_when_the_kernel_runs() -> None:
    """A dynamic non-square matrix or b of the wrong length fails when called, with NumPy's words."""
    jitted = dlbridge.jit(lambda a, b: (np.linalg.eigvalsh(a), np.linalg.lstsq(a, b)))
    jitted(np.eye(3), np.ones(3))
    with pytest.raises(ValueError, match="Last 2 dimensions of the array must be square"):
        jitted(np.ones((3, 4)), np.ones(3))
    with pytest.raises(ValueError, match="Incompatible dimensions"):
        jitted(np.eye(3), np.ones(4))
    with pytest.raises(ValueError, match="Eigenvalues did not converge"):
        jitted(np.full((3, 3), np.nan), np.ones(3))


def test_nans_fail_as_numpys_lapack_does() -> None:
    a = np.eye(4, 3)
    a[1, 2] = np.nan
    with pytest.raises(ValueError, match="SVD did not converge"):
        RANKS(a, np.ones(4))


def test_huge_and_tiny_matrices_are_decomposed_without_overflow() -> None:
    jitted = dlbridge.jit(lambda a: np.linalg.svd(a, compute_uv=False))
    for scale in (1e200, 1e-200):
        a = matrix((5, 3), "float64") * scale
        np.testing.assert_allclose(jitted(a), np.linalg.svd(a, compute_uv=False), rtol=1e-12)
