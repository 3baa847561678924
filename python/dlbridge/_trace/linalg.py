"""``numpy.linalg``'s solvers: ``cholesky``, ``solve``, ``inv``, ``det`` and ``slogdet`` of square
matrices (the decompositions are in ``decompositions``).

Each is written here as the NumPy program of its textbook algorithm (Cholesky–Banachiewicz;
Gaussian elimination with partial pivoting, as LAPACK's ``getrf``/``getrs`` do) and traced like a
user's function: its ``range`` loops become ``scf.for`` over the matrix's rows, each step one
pass of array operations, so they run on the CPU and on CUDA alike. Failures are NumPy's
``LinAlgError`` messages, raised as ``ValueError`` (its base class) when the kernel runs.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Callable

import numpy as np

from . import elementwise, lowering
from .errors import trace_error
from .loop_source import rewrite_loops
from .numpy_proxy import numpy_proxy as xp
from .registry import op
from .traced_array import TracedArray

#: NumPy's result type of ``slogdet`` (a named tuple ``(sign, logabsdet)``).
SlogdetResult = getattr(getattr(np.linalg, "_linalg", None), "SlogdetResult", None) or \
    namedtuple("SlogdetResult", "sign logabsdet")


def square_matrix(a: Any, what: str) -> TracedArray:
    """``a`` as a float matrix, checked square (statically, or when called)."""
    ctx = lowering.context_of(a)
    a = lowering.lift(ctx, a, what)
    if not isinstance(a, TracedArray) or a.ndim != 2:
        rank = a.ndim if isinstance(a, TracedArray) else 0
        raise trace_error(f"{rank}-dimensional array given. Array must be two-dimensional"
                          if rank < 2 else f"{what}: stacks of matrices are not supported", ValueError)
    if not a.element_type.is_inexact:
        a = elementwise.astype(a, "float64")
    if a.element_type.is_complex:
        raise trace_error(f"{what}: complex matrices are not supported", TypeError)
    require_square(a)
    return a


def require_square(a: TracedArray) -> None:
    """Checks that the matrix ``a`` is square (statically, or when called), as NumPy does."""
    rows, cols = a.shape
    if isinstance(rows, int) and isinstance(cols, int):
        if rows != cols:
            raise trace_error("Last 2 dimensions of the array must be square", ValueError)
    else:
        lowering.runtime_check(xp.equal(rows, cols), "invalid_argument",
                               "Last 2 dimensions of the array must be square")


def traced(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (an algorithm written in NumPy) with its loops compiled as ``scf.for``, as a user's
    function's are."""
    return rewrite_loops(fn)[0]


# --------------------------------------------------------------------------------------------------
# the algorithms, in NumPy


def _cholesky_steps(a: Any) -> Any:
    n = a.shape[0]
    rows = xp.arange(n)
    low = xp.zeros_like(a)
    for j in range(n):
        row = low[j]
        diagonal = xp.sqrt(a[j, j] - xp.dot(row, row))
        column = (a[:, j] - low @ row) / diagonal
        low[:, j] = xp.where(rows > j, column, xp.where(rows == j, diagonal, 0.0))
    return low


def _eliminate(m: Any, n: Any) -> Any:
    """Gaussian elimination with partial pivoting on the rows of ``m`` (``n`` rows, the matrix
    in its first ``n`` columns): the upper triangular rows, and per step the pivot and whether
    rows were swapped."""
    rows = xp.arange(n)
    pivots = xp.ones(n, dtype=m.dtype)
    swaps = xp.zeros(n, dtype=xp.int64)
    for k in range(n):
        magnitude = xp.where(rows >= k, xp.abs(m[:, k]), -1.0)
        p = xp.argmax(magnitude)
        m = m[xp.where(rows == k, p, xp.where(rows == p, k, rows))]
        pivot = m[k, k]
        pivots[k] = pivot
        swaps[k] = p != k
        factors = xp.where(rows > k, m[:, k] / xp.where(pivot == 0, 1.0, pivot), 0.0)
        m = m - factors[:, None] * m[k][None, :]
    return m, pivots, swaps


def _solve_steps(a: Any, b: Any) -> Any:
    n = a.shape[0]
    m, pivots, _ = traced(_eliminate)(xp.concatenate([a, b], axis=1), n)
    rows = xp.arange(n)
    x = m[:, n:]
    for step in range(n):
        k = n - 1 - step
        xk = x[k] / m[k, k]
        x = x - xp.where((rows < k)[:, None], m[:, k][:, None] * xk[None, :], 0.0)
        x[k] = xk
    return x, pivots


def _det_steps(a: Any) -> Any:
    _, pivots, swaps = traced(_eliminate)(a, a.shape[0])
    sign = xp.where(xp.sum(swaps) % 2 == 0, 1, -1).astype(pivots.dtype)
    return sign * xp.prod(pivots)


def _slogdet_steps(a: Any) -> Any:
    _, pivots, swaps = traced(_eliminate)(a, a.shape[0])
    sign = xp.where(xp.sum(swaps) % 2 == 0, 1.0, -1.0) * xp.prod(xp.sign(pivots))
    return sign, xp.sum(xp.log(xp.abs(pivots)))


# --------------------------------------------------------------------------------------------------
# the operations


@op("cholesky")
def cholesky(a: Any, upper: bool = False) -> TracedArray:
    """The lower (or upper) Cholesky factor of a symmetric positive-definite matrix."""
    a = square_matrix(a, "numpy.linalg.cholesky")
    low = traced(_cholesky_steps)(a)
    lowering.runtime_check(xp.all(xp.isfinite(low)), "invalid_argument", "Matrix is not positive definite")
    return low.T if upper else low


@op("solve")
def solve(a: Any, b: Any) -> TracedArray:
    """The solution ``x`` of ``a @ x = b`` for a square matrix ``a`` and a vector or matrix ``b``."""
    a = square_matrix(a, "numpy.linalg.solve")
    ctx = a.context
    b = lowering.lift(ctx, b, "numpy.linalg.solve")
    if not isinstance(b, TracedArray) or b.ndim not in (1, 2):
        raise trace_error("numpy.linalg.solve: b must be a vector or a matrix", ValueError)
    dtype = xp.result_type(a.dtype, b.dtype)
    columns = b.reshape(b.shape[0], -1) if b.ndim == 1 else b
    x, pivots = traced(_solve_steps)(a.astype(dtype), columns.astype(dtype))
    lowering.runtime_check(xp.all(pivots != 0), "invalid_argument", "Singular matrix")
    return x.reshape(b.shape[0]) if b.ndim == 1 else x


@op("inv")
def inv(a: Any) -> TracedArray:
    """The inverse of a square matrix."""
    a = square_matrix(a, "numpy.linalg.inv")
    x, pivots = traced(_solve_steps)(a, xp.eye(a.shape[0], dtype=a.dtype))
    lowering.runtime_check(xp.all(pivots != 0), "invalid_argument", "Singular matrix")
    return x


@op("det")
def det(a: Any) -> TracedArray:
    """The determinant of a square matrix."""
    return traced(_det_steps)(square_matrix(a, "numpy.linalg.det"))


@op("slogdet")
@lowering.numpy_unless_traced(np.linalg.slogdet)
def slogdet(a: Any) -> Any:
    """The sign and the natural log of the absolute value of a square matrix's determinant
    (``0`` and ``-inf`` for a singular one), computed in float64 as NumPy does."""
    a = square_matrix(a, "numpy.linalg.slogdet")
    if a.dtype == np.float16:
        raise trace_error("array type float16 is unsupported in linalg", TypeError)
    result = "float32" if a.dtype == np.float32 else "float64"
    sign, logdet = traced(_slogdet_steps)(elementwise.astype(a, "float64"))
    return SlogdetResult(elementwise.astype(sign, result), elementwise.astype(logdet, result))
