"""``numpy.linalg``'s decompositions: ``qr``, ``eigh``/``eigvalsh``, ``svd``, and ``lstsq``,
``pinv`` and ``matrix_rank`` on top of the SVD.

As the solvers in ``linalg``, each is the NumPy program of its textbook algorithm, traced like a
user's function (its ``range`` loops become ``scf.for``), so they run on the CPU and on CUDA
alike and one kernel serves every size:

- ``qr``: Householder reflections as LAPACK's ``geqrf`` makes them (``beta = -sign(alpha) *
  norm``, no reflection where the column below the diagonal is zero), ``Q`` accumulated
  backwards as ``orgqr`` does; so ``Q`` and ``R`` carry LAPACK's, hence NumPy's, signs.
- ``eigh``: Jacobi rotations on the symmetric matrix in the parallel (round-robin) order of
  Brent and Luk: each round rotates ``n // 2`` disjoint pairs at once, a few whole-array
  operations, and ``n`` rounds make a sweep in which every pair meets.
- ``svd``: a QR first (so the rotations work on ``min(m, n)`` rows), then one-sided Jacobi
  (Hestenes) on the columns of ``R``, in the same order; ``U`` is ``Q`` times the rotated
  columns normalised by a second QR, which also completes them where singular values are zero.

Jacobi sweeps converge quadratically once the off-diagonal part is small; since a loop cannot
stop on a value yet, they run a fixed :data:`SWEEPS` sweeps. Measured on random symmetric
matrices, the largest off-diagonal element falls to rounding level (``1e-15`` of the largest
element) within 6 sweeps at 20 x 20, 8 at 50 x 50 and 9 at 200 x 200, the count growing with
``log n``; 12 leave a margin to, by extrapolation, about a thousand rows. Sweeps after convergence change nothing
(their rotations are by angles that round to zero), they only cost time: ``n`` rounds of
``O(n^2)`` work each.

As NumPy does, float32 matrices are decomposed in float64 and the results given in float32;
integer matrices give float64.  Complex matrices and stacks of matrices are refused.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from . import elementwise, linalg, lowering
from .errors import trace_error, unsupported
from .numpy_proxy import numpy_proxy as xp
from .registry import op
from .traced_array import SymbolicDim, TracedArray

#: Jacobi sweeps run by ``eigh`` and ``svd`` (see the module's docstring).
SWEEPS = 12

_LINALG = getattr(np.linalg, "_linalg", None)
QRResult = getattr(_LINALG, "QRResult", None) or namedtuple("QRResult", "Q R")
EighResult = getattr(_LINALG, "EighResult", None) or namedtuple("EighResult", "eigenvalues eigenvectors")
SVDResult = getattr(_LINALG, "SVDResult", None) or namedtuple("SVDResult", "U S Vh")


def _size_min(ctx: Any, a: Any, b: Any) -> Any:
    """``min(a, b)`` of two sizes: an int, or a SymbolicDim computed when the kernel runs."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    top = ctx.top
    value = top.op("min", f"arith.minsi {a.value if isinstance(a, SymbolicDim) else top.const(a, 'index')}, "
                          f"{b.value if isinstance(b, SymbolicDim) else top.const(b, 'index')} : index")
    return SymbolicDim(ctx, value, "the shorter side")


# --------------------------------------------------------------------------------------------------
# the algorithms, in NumPy


def _householder_steps(a: Any, steps: Any) -> Any:
    """LAPACK's ``geqrf`` on ``a`` for ``steps`` columns: the reduced matrix (``R`` on and above
    the diagonal), the reflectors' vectors (columns, 1 on the diagonal) and their ``tau``."""
    m = a.shape[0]
    rows = xp.arange(m)
    vectors = xp.zeros((m, steps))
    taus = xp.zeros(steps)
    for k in range(steps):
        column = a[:, k]
        alpha = column[k]
        below = xp.where(rows > k, column, 0.0)
        scale = xp.max(xp.abs(below))
        unit = xp.where(scale > 0, scale, 1.0)
        xnorm = unit * xp.sqrt(xp.sum((below / unit) ** 2))
        reflect = xnorm > 0
        beta = xp.where(alpha >= 0, -1.0, 1.0) * xp.hypot(alpha, xnorm)
        tau = xp.where(reflect, (beta - alpha) / xp.where(reflect, beta, 1.0), 0.0)
        v = xp.where(rows > k, below / xp.where(reflect, alpha - beta, 1.0), xp.where(rows == k, 1.0, 0.0))
        a = a - tau * (v[:, None] * (v @ a)[None, :])
        a[:, k] = xp.where(rows == k, xp.where(reflect, beta, alpha), xp.where(rows > k, 0.0, column))
        vectors[:, k] = v
        taus[k] = tau
    return a, vectors, taus


def _accumulate_q(vectors: Any, taus: Any, q: Any) -> Any:
    """LAPACK's ``orgqr``: ``H_0 H_1 ... H_{k-1} q`` for the first columns ``q`` of the identity."""
    steps = taus.shape[0]
    for step in range(steps):
        k = steps - 1 - step
        v = vectors[:, k]
        q = q - taus[k] * (v[:, None] * (v @ q)[None, :])
    return q


def _partners(index: Any, n: Any, step: Any) -> Any:
    """Round ``step`` of a round-robin tournament among ``n`` players (a bye for the odd one):
    each index's partner, itself where it has none.  Player 0 stays, the others turn."""
    players = n + n % 2
    turn = players - 1
    position = xp.where(index == 0, 0, (index - 1 - step) % turn + 1)
    facing = turn - position
    partner = xp.where(facing == 0, 0, (facing - 1 + step) % turn + 1)
    return xp.where(partner < n, partner, index)


def _rotations(app: Any, aqq: Any, apq: Any, paired: Any) -> Any:
    """The Jacobi rotation zeroing ``apq`` of the symmetric 2 x 2 ``[[app, apq], [apq, aqq]]``:
    its cosine and sine (no rotation where ``paired`` is false or ``apq`` is zero)."""
    rotate = paired & (apq != 0)
    theta = (aqq - app) / xp.where(rotate, 2.0 * apq, 1.0)
    t = xp.where(theta >= 0, 1.0, -1.0) / (xp.abs(theta) + xp.hypot(theta, 1.0))
    t = xp.where(rotate, t, 0.0)
    cos = 1.0 / xp.sqrt(1.0 + t * t)
    return cos, t * cos


def _jacobi_eigen_steps(a: Any, sweeps: int) -> Any:
    """Jacobi's method on the symmetric ``a``: its diagonalised form and the rotations' product."""
    n = a.shape[0]
    index = xp.arange(n)
    vectors = xp.eye(n)
    for _ in range(sweeps):
        for step in range(n):
            partner = _partners(index, n, step)
            first = index < partner
            diagonal = xp.diagonal(a)
            mine = diagonal
            theirs = diagonal[partner]
            apq = xp.where(first, a[index, partner], a[partner, index])
            cos, sin = _rotations(xp.where(first, mine, theirs), xp.where(first, theirs, mine), apq,
                                  partner != index)
            sin = xp.where(first, -sin, sin)
            a = cos[:, None] * a + sin[:, None] * a[partner]
            a = a * cos[None, :] + a[:, partner] * sin[None, :]
            vectors = vectors * cos[None, :] + vectors[:, partner] * sin[None, :]
    return a, vectors


def _hestenes_steps(a: Any, sweeps: int) -> Any:
    """One-sided Jacobi on the columns of ``a``: ``a @ v`` with orthogonal columns, and ``v``."""
    n = a.shape[1]
    index = xp.arange(n)
    v = xp.eye(n)
    for _ in range(sweeps):
        for step in range(n):
            partner = _partners(index, n, step)
            first = index < partner
            other = a[:, partner]
            norms = xp.sum(a * a, axis=0)
            theirs = norms[partner]
            gamma = xp.sum(a * other, axis=0)
            cos, sin = _rotations(xp.where(first, norms, theirs), xp.where(first, theirs, norms), gamma,
                                  partner != index)
            sin = xp.where(first, -sin, sin)
            a = a * cos[None, :] + other * sin[None, :]
            v = v * cos[None, :] + v[:, partner] * sin[None, :]
    return a, v


def _eigh_steps(a: Any, sweeps: int) -> Any:
    """Eigenvalues (ascending) and eigenvectors of the symmetric ``a``, each eigenvector's
    largest component positive."""
    n = a.shape[0]
    diagonalised, vectors = linalg.traced(_jacobi_eigen_steps)(a, sweeps)
    values = xp.diagonal(diagonalised)
    order = xp.argsort(values, kind="stable")
    vectors = vectors[:, order]
    padded = xp.concatenate([vectors, xp.zeros((1, n))])  # a row to find for a 0 x 0 matrix
    largest = xp.argmax(xp.abs(padded), axis=0)
    sign = xp.where(padded[largest, xp.arange(n)] < 0, -1.0, 1.0)
    return values[order], vectors * sign[None, :]


def _orthonormal_columns(w: Any, columns: Any) -> Any:
    """The first ``columns`` columns of the ``Q`` of ``w``'s QR, each turned to point as its
    column of ``w`` does: ``w``'s columns normalised where they are orthogonal and not zero,
    completed to an orthonormal set."""
    m, k = w.shape
    r, vectors, taus = linalg.traced(_householder_steps)(w, k)
    q = linalg.traced(_accumulate_q)(vectors, taus, xp.eye(m, columns))
    sign = xp.ones(columns)
    sign[:k] = xp.where(xp.diagonal(r) < 0, -1.0, 1.0)
    return q * sign[None, :]


# --------------------------------------------------------------------------------------------------
# the operations


def _float_matrix(a: Any, what: str, square: bool = False) -> tuple[TracedArray, str]:
    """``a`` as a float64 matrix to decompose, and the dtype NumPy gives its results; as
    NumPy, float32 is decomposed in float64 and float16 refused."""
    ctx = lowering.context_of(a)
    a = lowering.lift(ctx, a, what)
    rank = a.ndim if isinstance(a, TracedArray) else 0
    if rank < 2:
        raise trace_error(f"{rank}-dimensional array given. Array must be at least two-dimensional", ValueError)
    if rank > 2:
        raise unsupported(what, "stacks of matrices")
    if a.element_type.is_complex:
        raise unsupported(what, "complex matrices")
    if a.dtype == np.float16:
        raise trace_error("array type float16 is unsupported in linalg", TypeError)
    if square:
        linalg.require_square(a)
    return elementwise.astype(a, "float64"), "float32" if a.dtype == np.float32 else "float64"


@op("qr")
@lowering.numpy_unless_traced(np.linalg.qr)
def qr(a: Any, mode: str = "reduced") -> Any:
    """The QR decomposition of a matrix (``mode`` ``'reduced'``, ``'complete'``, ``'r'`` or
    ``'raw'``), with LAPACK's signs."""
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full", "e", "economic"):
            raise unsupported("numpy.linalg.qr", f"the deprecated mode={mode!r}")
        raise trace_error(f"Unrecognized mode '{mode}'", ValueError)
    a, result = _float_matrix(a, "numpy.linalg.qr")
    m, n = a.shape
    steps = _size_min(a.context, m, n)
    r, vectors, taus = linalg.traced(_householder_steps)(a, steps)
    if mode == "r":
        return elementwise.astype(xp.triu(r[:steps]), result)
    if mode == "raw":
        raw = r.copy()
        raw[:, :steps] = r[:, :steps] + xp.tril(vectors, -1)
        return elementwise.astype(raw.T, result), elementwise.astype(taus, result)
    columns = m if mode == "complete" else steps
    q = linalg.traced(_accumulate_q)(vectors, taus, xp.eye(m, columns))
    return QRResult(elementwise.astype(q, result), elementwise.astype(xp.triu(r[:columns]), result))


def _uplo(uplo: Any) -> str:
    side = uplo.upper() if isinstance(uplo, str) else uplo
    if side not in ("L", "U"):
        raise trace_error("UPLO argument must be 'L' or 'U'", ValueError)
    return str(side)


def _symmetric(a: TracedArray, side: str) -> Any:
    """The symmetric matrix that ``a``'s ``side`` triangle holds (the other is not read)."""
    if side == "L":
        return xp.tril(a) + xp.tril(a, -1).T
    return xp.triu(a) + xp.triu(a, 1).T


@op("eigh")
@lowering.numpy_unless_traced(np.linalg.eigh)
def eigh(a: Any, UPLO: str = "L") -> Any:  # noqa: N803 - NumPy's name
    """The eigenvalues (ascending) and eigenvectors of a symmetric matrix, read from its
    ``UPLO`` triangle; each eigenvector's largest component is positive."""
    side = _uplo(UPLO)
    a, result = _float_matrix(a, "numpy.linalg.eigh", square=True)
    symmetric = _symmetric(a, side)
    _converges(symmetric, "Eigenvalues did not converge")
    values, vectors = _eigh_steps(symmetric, SWEEPS)
    return EighResult(elementwise.astype(values, result), elementwise.astype(vectors, result))


@op("eigvalsh")
@lowering.numpy_unless_traced(np.linalg.eigvalsh)
def eigvalsh(a: Any, UPLO: str = "L") -> TracedArray:  # noqa: N803 - NumPy's name
    """The eigenvalues (ascending) of a symmetric matrix, read from its ``UPLO`` triangle."""
    side = _uplo(UPLO)
    a, result = _float_matrix(a, "numpy.linalg.eigvalsh", square=True)
    symmetric = _symmetric(a, side)
    _converges(symmetric, "Eigenvalues did not converge")
    diagonalised, _ = linalg.traced(_jacobi_eigen_steps)(symmetric, SWEEPS)
    return elementwise.astype(xp.sort(xp.diagonal(diagonalised)), result)


def _converges(a: Any, message: str) -> None:
    """LAPACK does not converge on NaNs, and NumPy raises ``LinAlgError(message)``: so do we,
    when the kernel runs."""
    lowering.runtime_check(xp.logical_not(xp.any(xp.isnan(a))), "invalid_argument", message)


def _svd(a: TracedArray, full_matrices: bool, compute_uv: bool, hermitian: bool,
         message: str = "SVD did not converge") -> Any:
    """NumPy's ``svd`` of the float64 matrix ``a``: ``(u, s, vh)`` in float64, or ``s``."""
    if hermitian:
        # NumPy's: the eigendecomposition, signs moved into vh
        symmetric = _symmetric(a, "L")
        _converges(symmetric, "Eigenvalues did not converge")
        values, vectors = _eigh_steps(symmetric, SWEEPS)
        order = xp.argsort(xp.abs(values), kind="stable")[::-1]
        s = xp.abs(values)[order]
        if not compute_uv:
            return s
        u = vectors[:, order]
        sign = xp.where(values[order] < 0, -1.0, 1.0)
        return u, s, (u * sign[None, :]).T
    _converges(a, message)
    m, n = a.shape
    k = _size_min(a.context, m, n)
    # rotated in units of its largest element, so that no square overflows or underflows
    largest = xp.max(xp.abs(a), initial=0.0)
    unit = xp.where((largest > 0) & (largest < xp.inf), largest, 1.0)
    # as LAPACK's gesvd: a = q r first, and the rotations on the k x n r (k = min(m, n)), not
    # on the m rows of a tall matrix
    reduced, vectors, taus = linalg.traced(_householder_steps)(a / unit, k)
    w, v = linalg.traced(_hestenes_steps)(xp.triu(reduced[:k]), SWEEPS)
    norms = xp.sqrt(xp.sum(w * w, axis=0)) * unit
    order = xp.argsort(-norms, kind="stable")
    s = norms[order][:k]
    if not compute_uv:
        return s
    rotated = _orthonormal_columns(w[:, order][:, :k], k)
    columns = m if full_matrices else k
    block = xp.eye(m, columns)
    block[:k, :k] = rotated
    u = linalg.traced(_accumulate_q)(vectors, taus, block)
    v = v[:, order]
    return u, s, (v if full_matrices else v[:, :k]).T


@op("svd")
@lowering.numpy_unless_traced(np.linalg.svd)
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False) -> Any:
    """The singular value decomposition ``u @ diag(s) @ vh`` of a matrix, singular values
    descending (one-sided Jacobi; ``hermitian``: from ``eigh``, as NumPy)."""
    a, result = _float_matrix(a, "numpy.linalg.svd", square=bool(hermitian))
    out = _svd(a, bool(full_matrices), bool(compute_uv), bool(hermitian))
    if not compute_uv:
        return elementwise.astype(out, result)
    return SVDResult(*(elementwise.astype(x, result) for x in out))


def _size_max(ctx: Any, a: Any, b: Any) -> Any:
    """``max(a, b)`` of two sizes, as :func:`_size_min`."""
    return a + b - _size_min(ctx, a, b)


def _reciprocals(s: Any, cutoff: Any) -> Any:
    """``1 / s`` where ``s`` is above ``cutoff``, else 0: the singular values a pseudo-inverse keeps."""
    large = s > cutoff
    return xp.where(large, 1.0 / xp.where(large, s, 1.0), 0.0)


@op("pinv")
@lowering.numpy_unless_traced(np.linalg.pinv)
def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = np._NoValue) -> TracedArray:
    """The Moore-Penrose pseudo-inverse of a matrix, from its SVD: singular values up to
    ``rcond`` (or ``rtol``) times the largest are dropped, as NumPy does."""
    given = lowering.lift(lowering.context_of(a), a, "numpy.linalg.pinv")
    a, result = _float_matrix(given, "numpy.linalg.pinv", square=bool(hermitian))
    m, n = a.shape
    if rcond is None:
        if rtol is np._NoValue:
            rcond = 1e-15
        elif rtol is None:
            if not given.element_type.is_inexact:  # NumPy asks finfo of the matrix's dtype
                raise trace_error(f"data type {given.dtype.type!r} not inexact", ValueError)
            rcond = _size_max(a.context, m, n) * float(np.finfo(result).eps)
        else:
            rcond = rtol
    elif rtol is not np._NoValue:
        raise trace_error("`rtol` and `rcond` can't be both set.", ValueError)
    u, s, vh = _svd(a, False, True, bool(hermitian))
    kept = _reciprocals(s, rcond * xp.max(s, initial=0.0))
    return elementwise.astype(vh.T @ (kept[:, None] * u.T), result)


@op("matrix_rank")
@lowering.numpy_unless_traced(np.linalg.matrix_rank)
def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> TracedArray:  # noqa: N803
    """The rank of a matrix: its singular values above ``tol`` (by default ``max(M, N) * eps``
    times the largest), as NumPy counts them; an array of fewer dims has rank 1 unless all zero."""
    if rtol is not None and tol is not None:
        raise trace_error("`tol` and `rtol` can't be both set.", ValueError)
    ctx = lowering.context_of(A)
    x = lowering.lift(ctx, A, "numpy.linalg.matrix_rank")
    if not isinstance(x, TracedArray) or x.ndim < 2:
        return elementwise.astype(xp.any(x != 0), "int64")
    a, result = _float_matrix(x, "numpy.linalg.matrix_rank", square=bool(hermitian))
    s = elementwise.astype(_svd(a, False, False, bool(hermitian)), result)
    if tol is None:
        if rtol is None:
            m, n = a.shape
            rtol = _size_max(ctx, m, n) * float(np.finfo(result).eps)
        tol = xp.max(s, initial=0.0) * rtol
    return xp.sum(s > tol, dtype=xp.int64)


@op("lstsq")
@lowering.numpy_unless_traced(np.linalg.lstsq)
def lstsq(a: Any, b: Any, rcond: Any = None) -> Any:
    """The least-squares solution ``x`` of ``a @ x = b``, with the residuals' sums of squares
    (empty unless ``a`` has full column rank and more rows than columns), ``a``'s rank and its
    singular values: the minimum-norm solution from the SVD, as LAPACK's ``gelsd`` gives."""
    a, result_a = _float_matrix(a, "numpy.linalg.lstsq")
    ctx = a.context
    b = lowering.lift(ctx, b, "numpy.linalg.lstsq")
    rank_b = b.ndim if isinstance(b, TracedArray) else 0
    if rank_b not in (1, 2):
        raise trace_error(f"{rank_b}-dimensional array given. Array must be two-dimensional", ValueError)
    if b.element_type.is_complex:
        raise unsupported("numpy.linalg.lstsq", "complex matrices")
    if b.dtype == np.float16:
        raise trace_error("array type float16 is unsupported in linalg", TypeError)
    result = "float32" if result_a == "float32" and b.dtype == np.float32 else "float64"
    m, n = a.shape
    if isinstance(m, int) and isinstance(b.shape[0], int):
        if m != b.shape[0]:
            raise trace_error("Incompatible dimensions", ValueError)
    else:
        lowering.runtime_check(xp.equal(m, b.shape[0]), "invalid_argument", "Incompatible dimensions")
    columns = elementwise.astype(b if rank_b == 2 else b[:, None], "float64")
    eps = float(np.finfo(np.float64).eps)
    if rcond is None:
        rcond = _size_max(ctx, m, n) * eps
    elif isinstance(rcond, (int, float)) and rcond < 0:
        rcond = eps  # gelsd: a negative rcond means machine precision
    u, s, vh = _svd(a, False, True, False, "SVD did not converge in Linear Least Squares")
    smax = xp.max(s, initial=0.0)
    x = vh.T @ (_reciprocals(s, rcond * smax)[:, None] * (u.T @ columns))
    rank = xp.sum(s > rcond * smax, dtype=xp.int32)
    left = columns - a @ x
    sums = xp.sum(left * left, axis=0)
    full = (rank == n) & xp.greater(m, n)
    residuals = sums[xp.broadcast_to(full, sums.shape)]
    x = x if rank_b == 2 else x[:, 0]
    return (elementwise.astype(x, result), elementwise.astype(residuals, result), rank,
            elementwise.astype(s, result))
