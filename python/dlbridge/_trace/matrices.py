"""Matrix construction and structure: ``diagonal``, ``diag``, ``trace``, ``tri``, ``vander``,
``kron``, ``cross`` and ``linalg.matrix_power``.

``diagonal`` is one ``linalg.generic`` reading ``x[..., i + r, i + c]``; the others are written as
NumPy's own Python implementations are, on the traced operations (``vander`` is NumPy's
``multiply.accumulate`` of its columns, ``matrix_power`` its binary decomposition of ``n``, so
their rounding is NumPy's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import contractions, creation, indexing, lowering, reductions, shapes
from . import dtypes as D
from .errors import trace_error, unsupported
from .mlir_text import affine_map, tensor_type
from .numpy_proxy import numpy_proxy as xp
from .registry import op
from .traced_array import SymbolicDim, TracedArray, derived_view

__all__ = ["diagonal"]


def _array(a: Any, name: str) -> TracedArray:
    ctx = lowering.context_of(*(v for v in (a if isinstance(a, (list, tuple)) else [a])
                                if isinstance(v, TracedArray)))
    return creation.array_operand(ctx, a, f"numpy.{name}")


def _offset(k: Any, name: str) -> int:
    if isinstance(k, (TracedArray, SymbolicDim)):
        raise unsupported(f"numpy.{name}", "an offset that is not known while tracing")
    try:
        return int(k.__index__())
    except (AttributeError, TypeError):
        raise trace_error(f"{name}: '{type(k).__name__}' object cannot be interpreted as an integer",
                          TypeError) from None


@op("diagonal", method="diagonal")
@lowering.numpy_unless_traced(np.diagonal)
def diagonal(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> TracedArray:
    """The ``offset`` diagonal of the ``axis1``/``axis2`` planes, as the last axis of the result:
    NumPy's read-only view (writing it is NumPy's ValueError; it shows later updates of ``a``)."""
    x = _array(a, "diagonal")
    return derived_view(x, _diagonal_of(x, offset, axis1, axis2), "diagonal",
                        lambda p: _diagonal_of(p, offset, axis1, axis2), None)


def _diagonal_of(a: Any, offset: Any, axis1: Any, axis2: Any) -> TracedArray:
    """The contents of ``numpy.diagonal(a, offset, axis1, axis2)``."""
    x = _array(a, "diagonal")
    off = _offset(offset, "diagonal")
    if x.ndim < 2:
        raise trace_error("diag requires an array of at least two dimensions", ValueError)
    ax1, = indexing.normalize_axes(axis1, x.ndim, "numpy.diagonal", allow_none=False)
    ax2, = indexing.normalize_axes(axis2, x.ndim, "numpy.diagonal", allow_none=False)
    if ax1 == ax2:
        raise trace_error("axis1 and axis2 cannot be the same", ValueError)
    rest = [k for k in range(x.ndim) if k not in (ax1, ax2)]
    perm = (*rest, ax1, ax2)
    x = shapes.transpose(x, perm) if perm != tuple(range(x.ndim)) else x
    ctx = x.context
    R = x.ndim
    r0, c0 = max(0, -off), max(0, off)
    n1, n2 = x.shape[R - 2], x.shape[R - 1]
    length: Any
    if (isinstance(n1, int) and r0 >= n1) or (isinstance(n2, int) and c0 >= n2):
        # no diagonal (a slice starting past the end is no tensor.extract_slice)
        return creation.zeros((*x.shape[:-2], 0), dtype=x.element_type.name)
    if isinstance(n1, int) and isinstance(n2, int):
        length = max(0, min(n1 - r0, n2 - c0))
    else:
        ctx.begin_op()
        top = ctx.top
        rows = top.op("rows", f"arith.subi {ctx.dim(x, R - 2)}, {top.const(r0, 'index')} : index")
        cols = top.op("cols", f"arith.subi {ctx.dim(x, R - 1)}, {top.const(c0, 'index')} : index")
        size = top.op("len", f"arith.maxsi {top.op('len', f'arith.minsi {rows}, {cols} : index')}, "
                             f"{top.const(0, 'index')} : index")
        length = SymbolicDim(ctx, size, "the diagonal's length")
    # the square block the diagonal runs through, read along (i, i)
    square = lowering.to_tensor(ctx, indexing.getitem(x, (Ellipsis, slice(r0, r0 + length), slice(c0, c0 + length))))
    ctx.begin_op()
    dims = list(square.dims[:-1])
    sizes = [ctx.dim(square, k) if square.dims[k] is None else None for k in range(R - 1)]
    init = lowering.empty(ctx, dims, x.element_type, sizes)
    lead = [f"d{k}" for k in range(R - 1)]
    value = lowering.emit_generic(ctx, "diagonal", [square], [affine_map(R - 1, [*lead, f"d{R - 2}"])], init,
                                  tensor_type(dims, x.element_type), x.element_type, affine_map(R - 1, lead),
                                  ["parallel"] * (R - 1), lambda b, ins, out: ins[0])
    return TracedArray(ctx, value, x.element_type, dims, sizes=sizes)


@op("trace", method="trace")
@lowering.numpy_unless_traced(np.trace)
def trace(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1, dtype: Any = None, out: Any = None) -> TracedArray:
    """The sum along the ``offset`` diagonal (of each ``axis1``/``axis2`` plane), in ``sum``'s
    dtype."""
    lowering.no_out(out, "numpy.trace")
    return reductions.reduce("sum", diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


@op("diag")
@lowering.numpy_unless_traced(np.diag)
def diag(v: Any, k: Any = 0) -> TracedArray:
    """The ``k``-th diagonal of a matrix, or the square matrix with the 1-D ``v`` on its ``k``-th
    diagonal and zeros elsewhere."""
    x = _array(v, "diag")
    off = _offset(k, "diag")
    if x.ndim == 2:
        return diagonal(x, off)
    if x.ndim != 1:
        raise trace_error("Input must be 1- or 2-d.", ValueError)
    n = x.shape[0]
    m = n + abs(off)
    rows = lowering.expand_units(x.context, creation.arange(m), [1])
    cols = lowering.expand_units(x.context, creation.arange(m), [0])
    along = rows if off >= 0 else cols
    if isinstance(n, int) and n == 0:
        return creation.zeros((m, m), dtype=x.element_type.name)
    values = indexing.getitem(x, xp.minimum(along, n - 1))
    return xp.where(xp.equal(xp.subtract(cols, rows), off), values, creation.zeros((), dtype=x.element_type.name))


@op("tri")
@lowering.numpy_unless_traced(np.tri)
def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = float, *, like: Any = None) -> TracedArray:
    """The ``N`` x ``M`` matrix of ones at and below the ``k``-th diagonal."""
    off = _offset(k, "tri")
    cols = N if M is None else M
    ctx = lowering.context_of(*(v for v in (N, M) if isinstance(v, TracedArray)))
    below = xp.greater_equal(lowering.expand_units(ctx, creation.arange(N), [1]),
                             lowering.expand_units(ctx, xp.subtract(creation.arange(cols), off), [0]))
    return below.astype(D.dtype(dtype).name)


@op("vander")
@lowering.numpy_unless_traced(np.vander)
def vander(x: Any, N: Any = None, increasing: bool = False) -> TracedArray:
    """The Vandermonde matrix of the 1-D ``x``: its powers ``N - 1`` down to 0 (up with
    ``increasing``), each column the one before times ``x``, as NumPy's ``multiply.accumulate``."""
    v = _array(x, "vander")
    if v.ndim != 1:
        raise trace_error("x must be a one-dimensional array or sequence.", ValueError)
    n = v.shape[0] if N is None else N
    if isinstance(n, TracedArray):
        if n.ndim or not n.element_type.is_int:
            raise unsupported("numpy.vander", "an N that is not known while tracing")
        n = int(n)  # a Python int argument (``degree + 1``): the kernel is specialised on it
    dt = np.promote_types(np.dtype(v.element_type.name), np.dtype(int))
    v = v.astype(dt.name)
    first = xp.equal(lowering.expand_units(v.context, creation.arange(n), [0]), 0)
    columns = xp.where(first, creation.ones((), dtype=dt.name), lowering.expand_units(v.context, v, [1]))
    powers = reductions.cumprod(columns, axis=1)
    return powers if increasing else indexing.flip(powers, 1)


@op("kron")
@lowering.numpy_unless_traced(np.kron)
def kron(a: Any, b: Any) -> TracedArray:
    """The Kronecker product: blocks ``a[i, j] * b``, over the ranks of both (the smaller
    padded with leading 1s)."""
    ctx = lowering.context_of(*(v for v in (a, b) if isinstance(v, TracedArray)))
    x = creation.array_operand(ctx, a, "numpy.kron")
    y = creation.array_operand(ctx, b, "numpy.kron")
    nd = max(x.ndim, y.ndim)
    if nd == 0:
        return xp.multiply(x, y)
    if x.ndim < nd:
        x = lowering.expand_units(ctx, x, list(range(nd - x.ndim)))
    if y.ndim < nd:
        y = lowering.expand_units(ctx, y, list(range(nd - y.ndim)))
    product = xp.multiply(lowering.expand_units(ctx, x, [2 * k + 1 for k in range(nd)]),
                          lowering.expand_units(ctx, y, [2 * k for k in range(nd)]))
    return shapes.reshape(product, tuple(x.shape[k] * y.shape[k] for k in range(nd)))


def _components(v: TracedArray) -> list[TracedArray]:
    """The components of the vectors along the last axis of ``v`` (2 or 3 of them)."""
    count = v.shape[-1]
    if isinstance(count, SymbolicDim):
        count = int(count)  # a Python choice between formulas: specialised on the size
    if count not in (2, 3):
        raise trace_error("incompatible dimensions for cross product\n(dimension must be 2 or 3)", ValueError)
    return [v[..., i] for i in range(count)]


@op("cross")
@lowering.numpy_unless_traced(np.cross)
def cross(a: Any, b: Any, axisa: Any = -1, axisb: Any = -1, axisc: Any = -1, axis: Any = None) -> TracedArray:
    """The cross product of the 2- or 3-vectors along ``axisa`` of ``a`` and ``axisb`` of ``b``
    (broadcast over the other axes), along ``axisc`` of the result; of two 2-vectors, the z
    component alone."""
    if axis is not None:
        axisa = axisb = axisc = axis
    ctx = lowering.context_of(*(v for v in (a, b) if isinstance(v, TracedArray)))
    x = creation.array_operand(ctx, a, "numpy.cross")
    y = creation.array_operand(ctx, b, "numpy.cross")
    if x.ndim == 0 or y.ndim == 0:
        raise trace_error("At least one array has zero dimension", ValueError)
    ax, = indexing.normalize_axes(axisa, x.ndim, "numpy.cross", allow_none=False)
    bx, = indexing.normalize_axes(axisb, y.ndim, "numpy.cross", allow_none=False)
    x = shapes.transpose(x, tuple(k for k in range(x.ndim) if k != ax) + (ax,)) if ax != x.ndim - 1 else x
    y = shapes.transpose(y, tuple(k for k in range(y.ndim) if k != bx) + (bx,)) if bx != y.ndim - 1 else y
    p, q = _components(x), _components(y)
    if len(p) == 2 and len(q) == 2:
        return xp.subtract(xp.multiply(p[0], q[1]), xp.multiply(p[1], q[0]))
    if len(p) == 2:
        c = [xp.multiply(p[1], q[2]), xp.negative(xp.multiply(p[0], q[2])),
             xp.subtract(xp.multiply(p[0], q[1]), xp.multiply(p[1], q[0]))]
    elif len(q) == 2:
        c = [xp.negative(xp.multiply(p[2], q[1])), xp.multiply(p[2], q[0]),
             xp.subtract(xp.multiply(p[0], q[1]), xp.multiply(p[1], q[0]))]
    else:
        c = [xp.subtract(xp.multiply(p[1], q[2]), xp.multiply(p[2], q[1])),
             xp.subtract(xp.multiply(p[2], q[0]), xp.multiply(p[0], q[2])),
             xp.subtract(xp.multiply(p[0], q[1]), xp.multiply(p[1], q[0]))]
    r = creation.stack(c, axis=-1)
    cx, = indexing.normalize_axes(axisc, r.ndim, "numpy.cross", allow_none=False)
    if cx == r.ndim - 1:
        return r
    perm = list(range(r.ndim - 1))
    perm.insert(cx, r.ndim - 1)
    return shapes.transpose(r, tuple(perm))


@op("matrix_power", numpy=("matrix_power",))
@lowering.numpy_unless_traced(np.linalg.matrix_power)
def matrix_power(a: Any, n: Any) -> TracedArray:
    """``a`` (a square matrix or a stack of them) to the integer power ``n >= 0``, by NumPy's
    binary decomposition of ``n`` (``n = 0`` is the identity)."""
    x = _array(a, "linalg.matrix_power")
    if isinstance(n, (TracedArray, SymbolicDim)):
        raise unsupported("numpy.linalg.matrix_power", "an exponent that is not known while tracing")
    try:
        n = int(n.__index__())
    except (AttributeError, TypeError):
        raise trace_error("exponent must be an integer", TypeError) from None
    if x.ndim < 2:
        raise trace_error(f"{x.ndim}-dimensional array given. Array must be at least two-dimensional", ValueError)
    rows, cols = x.shape[-2], x.shape[-1]
    if isinstance(rows, int) and isinstance(cols, int):
        if rows != cols:
            raise trace_error("Last 2 dimensions of the array must be square", np.linalg.LinAlgError)
    else:  # LinAlgError's base class, when the kernel runs
        lowering.runtime_check(xp.equal(rows, cols), "invalid_argument",
                               "Last 2 dimensions of the array must be square")
    if n < 0:
        raise unsupported("numpy.linalg.matrix_power", "a negative exponent (the inverse)")
    if n == 0:
        eye = creation.eye(rows, dtype=x.element_type.name)
        return xp.add(creation.zeros_like(x), eye)
    if n == 1:
        return creation.copy(x)
    z: TracedArray | None = None
    result: TracedArray | None = None
    while n > 0:
        z = x if z is None else contractions.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else contractions.matmul(result, z)
    assert result is not None
    return result
