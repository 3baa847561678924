"""Numerical routines: comparisons with tolerances (``isclose``, ``allclose``, ``array_equal``,
``array_equiv``), calculus (``trapezoid``, ``gradient``), ``convolve``/``correlate``,
``interp``, binning and membership (``digitize``, ``isin``), ``select``, ``nan_to_num``,
``polyval``, and index arithmetic (``unravel_index``, ``ravel_multi_index``).

Each is written as NumPy's own implementation is, on the traced operations, so results follow
NumPy's dtype rules and rounding. ``correlate`` gathers the zero-padded signal at
``k + n`` for every output ``k`` and kernel tap ``n`` and sums along the taps (work of the output
length times the kernel length, parallel over both); ``isin`` compares every element with every
test value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import creation, indexing, lowering, reductions, shapes, sorting
from . import dtypes as D
from .errors import trace_error, unsupported
from .numpy_proxy import numpy_proxy as tnp
from .registry import op
from .traced_array import SymbolicDim, TracedArray

__all__ = ["isclose"]


def _operands(*values: Any, name: str) -> list[TracedArray]:
    """``values`` as traced arrays of one trace (NumPy arrays, scalars and lists as constants)."""
    ctx = lowering.context_of(*(v for v in values if isinstance(v, TracedArray)))
    return [creation.array_operand(ctx, v, f"numpy.{name}") for v in values]


def _require(holds: Any, message: str, error: type[Exception] = ValueError) -> None:
    """Raises NumPy's ``error`` now when ``holds`` is a Python answer that is false, or checks
    it when the kernel runs when it is traced (sizes)."""
    if isinstance(holds, TracedArray):
        lowering.runtime_check(holds, "invalid_argument", message)
    elif not holds:
        raise trace_error(message, error)


def _false() -> TracedArray:
    return creation.zeros((), dtype="bool")


# --------------------------------------------------------------------------------------------------
# comparisons


def _isnan(x: Any) -> Any:
    """Where ``x`` is NaN (a complex number with a NaN part)."""
    if isinstance(x, TracedArray) and x.element_type.is_complex:
        return tnp.logical_or(tnp.isnan(tnp.real(x)), tnp.isnan(tnp.imag(x)))
    return tnp.isnan(x)


def _isfinite(x: Any) -> Any:
    """Where ``x`` is finite (a complex number with both parts finite)."""
    if isinstance(x, TracedArray) and x.element_type.is_complex:
        return tnp.logical_and(tnp.isfinite(tnp.real(x)), tnp.isfinite(tnp.imag(x)))
    return tnp.isfinite(x)


@op("isclose")
@lowering.numpy_unless_traced(np.isclose)
def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> TracedArray:
    """Whether ``|a - b| <= atol + rtol * |b|`` elementwise (infinities equal only to
    themselves; NaNs equal to each other with ``equal_nan``)."""
    ctx = lowering.context_of(*(v for v in (a, b, rtol, atol) if isinstance(v, TracedArray)))
    x = a if isinstance(a, (int, float, complex)) else creation.array_operand(ctx, a, "numpy.isclose")
    y = b if isinstance(b, (int, float, complex)) else creation.array_operand(ctx, b, "numpy.isclose")
    if isinstance(y, TracedArray):
        dt = D.result_type(y.element_type, D.FLOAT64) if not y.element_type.is_inexact else y.element_type
        y = y.astype(dt.name) if dt != y.element_type else y
    elif isinstance(y, int):
        y = float(y)
    close = tnp.less_equal(tnp.abs(tnp.subtract(x, y)), tnp.add(atol, tnp.multiply(rtol, tnp.abs(y))))
    result = tnp.logical_or(tnp.logical_and(close, _isfinite(y)), tnp.equal(x, y))
    if equal_nan:
        result = tnp.logical_or(result, tnp.logical_and(_isnan(x), _isnan(y)))
    return result


@op("allclose")
@lowering.numpy_unless_traced(np.allclose)
def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> TracedArray:
    """Whether ``isclose`` holds everywhere: a 0-d bool array (NumPy gives a Python bool)."""
    return reductions.reduce("all", isclose(a, b, rtol, atol, equal_nan))


def _same_shape(x: TracedArray, y: TracedArray, broadcast: bool) -> bool:
    """Whether ``x`` and ``y`` have one shape (``broadcast``: shapes that broadcast); a Python
    answer, so dynamic sizes that are not the same size are specialised on."""
    if not broadcast and x.ndim != y.ndim:
        return False
    for d, e in zip(reversed(x.shape), reversed(y.shape)):
        if d is e:
            continue
        d, e = int(d), int(e)
        if d != e and not (broadcast and 1 in (d, e)):
            return False
    return True


@op("array_equal")
@lowering.numpy_unless_traced(np.array_equal)
def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> TracedArray:
    """Whether ``a1`` and ``a2`` have one shape and equal elements (NaNs equal with
    ``equal_nan``): a 0-d bool array."""
    x, y = _operands(a1, a2, name="array_equal")
    if not _same_shape(x, y, False):
        return _false()
    same = tnp.equal(x, y)
    if equal_nan and (x.element_type.is_inexact or y.element_type.is_inexact):
        same = tnp.logical_or(same, tnp.logical_and(_isnan(x), _isnan(y)))
    return reductions.reduce("all", same)


@op("array_equiv")
@lowering.numpy_unless_traced(np.array_equiv)
def array_equiv(a1: Any, a2: Any) -> TracedArray:
    """Whether ``a1`` and ``a2`` broadcast to one shape with equal elements: a 0-d bool array."""
    x, y = _operands(a1, a2, name="array_equiv")
    if not _same_shape(x, y, True):
        return _false()
    return reductions.reduce("all", tnp.equal(x, y))


# --------------------------------------------------------------------------------------------------
# calculus


def _along(x: TracedArray, axis: int, part: Any) -> TracedArray:
    return indexing.getitem(x, tuple(part if k == axis else slice(None) for k in range(x.ndim)))


@op("trapezoid", numpy=("trapezoid", *(("trapz",) if hasattr(np, "trapz") else ())))
@lowering.numpy_unless_traced(np.trapezoid)
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: Any = -1) -> TracedArray:
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, at sample points ``x`` (1-D
    along ``axis``, or ``y``'s shape) or spaced ``dx`` apart."""
    ctx = lowering.context_of(*(v for v in (y, x, dx) if isinstance(v, TracedArray)))
    f = creation.array_operand(ctx, y, "numpy.trapezoid")
    ax, = indexing.normalize_axes(axis, f.ndim, "numpy.trapezoid", allow_none=False)
    if x is None:
        d: Any = dx
    else:
        pts = creation.array_operand(ctx, x, "numpy.trapezoid")
        if pts.ndim == 1:
            d = tnp.diff(pts)
            d = lowering.expand_units(ctx, d, [k for k in range(f.ndim) if k != ax]) if f.ndim > 1 else d
        else:
            d = tnp.diff(pts, axis=ax)
    later, earlier = _along(f, ax, slice(1, None)), _along(f, ax, slice(None, -1))
    return reductions.reduce("sum", tnp.divide(tnp.multiply(d, tnp.add(later, earlier)), 2.0), axis=ax)


@op("gradient")
@lowering.numpy_unless_traced(np.gradient)
def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: Any = 1) -> Any:
    """The gradient by central differences inside and one-sided differences at the edges
    (``edge_order=1``), along each of ``axis`` (all by default), with scalar spacings (one for
    all axes or one per axis): one array, or a tuple of them for several axes."""
    x = creation.array_operand(lowering.context_of(f), f, "numpy.gradient")
    axes = indexing.normalize_axes(axis, x.ndim, "numpy.gradient")
    if edge_order != 1:
        raise unsupported("numpy.gradient", f"edge_order={edge_order!r} (only 1)")
    if len(varargs) == 0:
        spacing: list[Any] = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise trace_error("invalid number of arguments", TypeError)
    for s in spacing:
        if isinstance(s, (list, tuple)) or (isinstance(s, (TracedArray, np.ndarray)) and s.ndim != 0):
            raise unsupported("numpy.gradient", "coordinate arrays as spacing (only scalar spacings)")
    dt = x.element_type
    if not dt.is_inexact and not dt.is_bool:
        x = x.astype("float64")
    outs = []
    for ax, h in zip(axes, spacing):
        n = x.shape[ax]
        _require(tnp.greater_equal(n, 2), "Shape of array too small to calculate a numerical gradient, at least "
                 "(edge_order + 1) elements are required.")
        inner = tnp.divide(tnp.subtract(_along(x, ax, slice(2, None)), _along(x, ax, slice(None, -2))),
                           tnp.multiply(2.0, h))
        first = tnp.divide(tnp.subtract(_along(x, ax, slice(1, 2)), _along(x, ax, slice(0, 1))), h)
        last = tnp.divide(tnp.subtract(_along(x, ax, slice(-1, None)), _along(x, ax, slice(-2, -1))), h)
        outs.append(creation.concatenate([first, inner, last], axis=ax))
    return outs[0] if len(outs) == 1 else tuple(outs)


# --------------------------------------------------------------------------------------------------
# convolution


def _index_min(ctx: Any, a: Any, b: Any) -> Any:
    """``min(a, b)`` of two sizes: an int, or a SymbolicDim computed when the kernel runs."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    ctx.begin_op()
    top = ctx.top
    value = top.op("min", f"arith.minsi {a.value if isinstance(a, SymbolicDim) else top.const(a, 'index')}, "
                          f"{b.value if isinstance(b, SymbolicDim) else top.const(b, 'index')} : index")
    return SymbolicDim(ctx, value, "the shorter length")


def _vectors(a: Any, v: Any, name: str) -> tuple[TracedArray, TracedArray, D.DType]:
    x, k = _operands(a, v, name=name)
    if x.ndim != 1 or k.ndim != 1:
        raise trace_error("object too deep for desired array" if max(x.ndim, k.ndim) > 1
                          else "object of too small depth for desired array", ValueError)
    for arr, what in ((x, "a"), (k, "v")):
        _require(tnp.greater(arr.shape[0], 0), f"{what} cannot be empty")
    dt = D.result_type(x.element_type, k.element_type)
    return x.astype(dt.name), k.astype(dt.name), dt


def _correlate_full(x: TracedArray, k: TracedArray, dt: D.DType, conj: bool) -> TracedArray:
    """``c[j] = sum_n x[j + n - (len(k) - 1)] * k[n]`` (``conj(k[n])`` with ``conj``) over the
    ``n`` where ``x`` is defined: the full correlation, of length ``len(x) + len(k) - 1``."""
    ctx = x.context
    n, m = x.shape[0], k.shape[0]
    rows = lowering.expand_units(ctx, creation.arange(n + m - 1), [1])
    taps = lowering.expand_units(ctx, creation.arange(m), [0])
    at = tnp.subtract(tnp.add(rows, taps), m - 1)
    inside = tnp.logical_and(tnp.greater_equal(at, 0), tnp.less(at, n))
    windows = indexing.getitem(x, tnp.minimum(tnp.maximum(at, 0), n - 1))
    weights = tnp.conjugate(k) if dt.is_complex and conj else k
    if dt.is_bool:
        return reductions.reduce("any", tnp.logical_and(inside, tnp.logical_and(windows, weights)), axis=1)
    terms = tnp.where(inside, tnp.multiply(windows, weights), creation.zeros((), dtype=dt.name))
    return reductions.reduce("sum", terms, axis=1, dtype=dt.name)


def _window(full: TracedArray, start: Any, length: Any) -> TracedArray:
    return indexing.getitem(full, slice(start, start + length))


def _mode(mode: Any, name: str) -> str:
    modes = {0: "valid", 1: "same", 2: "full", "v": "valid", "s": "same", "f": "full"}
    mode = modes.get(mode, mode)
    if mode not in ("valid", "same", "full"):
        raise trace_error(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})", ValueError)
    return str(mode)


@op("correlate")
@lowering.numpy_unless_traced(np.correlate)
def correlate(a: Any, v: Any, mode: Any = "valid") -> TracedArray:
    """The cross-correlation ``c[k] = sum_n a[n + k] * conj(v[n])`` of two 1-D sequences, of
    ``mode`` ``full``, ``same`` (the length of the longer) or ``valid`` (where they overlap
    fully)."""
    mode = _mode(mode, "correlate")
    x, k, dt = _vectors(a, v, "correlate")
    full = _correlate_full(x, k, dt, True)
    if mode == "full":
        return full
    n, m = x.shape[0], k.shape[0]
    short = _index_min(x.context, n, m)
    if mode == "valid":
        return _window(full, short - 1, n + m - 2 * short + 1)
    # which sequence is the shorter decides where an even-length "same" window starts
    first_longer = int(n) >= int(m)
    return _window(full, short - 1 - short // 2 if first_longer else short // 2, n + m - short)


@op("convolve")
@lowering.numpy_unless_traced(np.convolve)
def convolve(a: Any, v: Any, mode: Any = "full") -> TracedArray:
    """The discrete linear convolution of two 1-D sequences (``correlate`` with ``v``
    reversed), of ``mode`` ``full``, ``same`` or ``valid``."""
    mode = _mode(mode, "convolve")
    x, k, dt = _vectors(a, v, "convolve")
    full = _correlate_full(x, indexing.flip(k), dt, False)
    if mode == "full":
        return full
    n, m = x.shape[0], k.shape[0]
    short = _index_min(x.context, n, m)
    if mode == "valid":
        return _window(full, short - 1, n + m - 2 * short + 1)
    return _window(full, short - 1 - short // 2, n + m - short)


# --------------------------------------------------------------------------------------------------
# interpolation, binning, selection


@op("interp")
@lowering.numpy_unless_traced(np.interp)
def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> TracedArray:
    """The piecewise-linear interpolant through ``(xp, fp)`` (``xp`` increasing) at ``x``, in
    float64; ``left``/``right`` (default ``fp[0]``/``fp[-1]``) outside ``xp``."""
    if period is not None:
        raise unsupported("numpy.interp", "period=")
    at, pts, vals = _operands(x, xp, fp, name="interp")
    if vals.element_type.is_complex:
        raise unsupported("numpy.interp", "complex fp")
    for v in (at, pts):
        if v.element_type.is_complex:
            raise trace_error("Cannot cast array data from dtype('complex128') to dtype('float64') according to the "
                              "rule 'safe'", TypeError)
    if pts.ndim != 1 or vals.ndim != 1:
        raise trace_error("object too deep for desired array" if max(pts.ndim, vals.ndim) > 1
                          else "object of too small depth for desired array", ValueError)
    if at.ndim == 0:
        return shapes.reshape(interp(shapes.reshape(at, (1,)), pts, vals, left, right), ())
    at, pts, vals = at.astype("float64"), pts.astype("float64"), vals.astype("float64")
    n, nf = pts.shape[0], vals.shape[0]
    _require(tnp.equal(n, nf), "fp and xp are not of the same length.")
    _require(tnp.greater(n, 0), "array of sample points is empty")
    j = tnp.subtract(sorting.searchsorted(pts, at, side="right"), 1)
    lo = tnp.maximum(tnp.minimum(j, n - 2), 0)
    hi = tnp.minimum(tnp.add(lo, 1), n - 1)
    x0, x1 = indexing.getitem(pts, lo), indexing.getitem(pts, hi)
    y0, y1 = indexing.getitem(vals, lo), indexing.getitem(vals, hi)
    slope = tnp.divide(tnp.subtract(y1, y0), tnp.subtract(x1, x0))
    r = tnp.add(tnp.multiply(slope, tnp.subtract(at, x0)), y0)
    r = tnp.where(tnp.isnan(r), tnp.add(tnp.multiply(slope, tnp.subtract(at, x1)), y1), r)
    r = tnp.where(tnp.logical_and(tnp.isnan(r), tnp.equal(y0, y1)), y0, r)
    last = indexing.getitem(vals, -1)
    r = tnp.where(tnp.logical_or(tnp.equal(j, n - 1), tnp.equal(x0, at)), tnp.where(tnp.equal(j, n - 1), last, y0), r)
    r = tnp.where(tnp.less(at, indexing.getitem(pts, 0)), indexing.getitem(vals, 0) if left is None else left, r)
    r = tnp.where(tnp.greater(at, indexing.getitem(pts, -1)), last if right is None else right, r)
    # NumPy's single sample point: fp[0] wherever x is neither below nor above it, NaN included
    return tnp.where(tnp.logical_and(tnp.isnan(at), tnp.greater(n, 1)), at, r).astype("float64")


@op("digitize")
@lowering.numpy_unless_traced(np.digitize)
def digitize(x: Any, bins: Any, right: bool = False) -> TracedArray:
    """The index of the bin of ``bins`` (increasing or decreasing) each ``x`` falls in (int64;
    ``right``: intervals closed on the right)."""
    at, edges = _operands(x, bins, name="digitize")
    if at.element_type.is_complex or edges.element_type.is_complex:
        raise trace_error("x may not be complex", TypeError)
    if edges.ndim != 1:
        raise trace_error("object too deep for desired array" if edges.ndim > 1
                          else "object of too small depth for desired array", ValueError)
    side = "left" if right else "right"
    if not isinstance(bins, TracedArray):
        b = np.asarray(bins)
        inc = b.size < 2 or bool(np.all(b[1:] >= b[:-1]))
        dec = b.size >= 2 and bool(np.all(b[1:] <= b[:-1]))
        if not inc and not dec:
            raise trace_error("bins must be monotonically increasing or decreasing", ValueError)
        if inc:
            return sorting.searchsorted(edges, at, side=side)
        return tnp.subtract(b.size, sorting.searchsorted(indexing.flip(edges), at, side=side))
    steps = tnp.diff(edges)
    increasing = reductions.reduce("all", tnp.greater_equal(steps, 0))
    decreasing = reductions.reduce("all", tnp.less_equal(steps, 0))
    lowering.runtime_check(tnp.logical_or(increasing, decreasing), "invalid_argument",
                           "bins must be monotonically increasing or decreasing")
    up = sorting.searchsorted(edges, at, side=side)
    down = tnp.subtract(edges.shape[0], sorting.searchsorted(indexing.flip(edges), at, side=side))
    return tnp.where(increasing, up, down)


@op("isin")
@lowering.numpy_unless_traced(np.isin)
def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, *,
         kind: Any = None) -> TracedArray:
    """Whether each element of ``element`` is among ``test_elements`` (negated with
    ``invert``), of ``element``'s shape: every element compared with every test value."""
    if kind not in (None, "sort", "table"):
        raise trace_error(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.", ValueError)
    e, t = _operands(element, test_elements, name="isin")
    flat = shapes.reshape(t, (-1,)) if t.ndim != 1 else t
    found = reductions.reduce("any", tnp.equal(lowering.expand_units(e.context, e, [e.ndim]), flat), axis=-1)
    return tnp.logical_not(found) if invert else found


def _like(v: Any) -> Any:
    """A NumPy stand-in of ``v``'s dtype, for NumPy's promotion rules (Python scalars weak)."""
    if type(v) in (int, float, complex):
        return v
    if isinstance(v, TracedArray):
        return np.zeros((1,) * v.ndim, dtype=v.element_type.name)
    return np.asarray(v)


@op("select")
@lowering.numpy_unless_traced(np.select)
def select(condlist: Any, choicelist: Any, default: Any = 0) -> TracedArray:
    """The element of the first choice whose condition holds, else ``default``, over the
    broadcast shape of all of them."""
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise unsupported("numpy.select", "conditions and choices given as lists")
    if len(condlist) != len(choicelist):
        raise trace_error("list of cases must be same length as list of conditions", ValueError)
    if not condlist:
        raise trace_error("select with an empty condition list is not possible", ValueError)
    ctx = lowering.context_of(*(v for v in (*condlist, *choicelist, default) if isinstance(v, TracedArray)))
    conds = [creation.array_operand(ctx, c, "numpy.select") for c in condlist]
    choices = [creation.array_operand(ctx, c, "numpy.select") for c in choicelist]
    fallback = creation.array_operand(ctx, default, "numpy.select")
    dt = np.result_type(*(_like(c) for c in choicelist), _like(default))
    for i, c in enumerate(conds):
        if not c.element_type.is_bool:
            raise trace_error(f"invalid entry {i} in condlist: should be boolean ndarray", TypeError)
    result = fallback.astype(dt.name)
    for c, v in reversed(list(zip(conds, choices))):
        result = tnp.where(c, v.astype(dt.name), result)
    return result


@op("nan_to_num")
@lowering.numpy_unless_traced(np.nan_to_num)
def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> TracedArray:
    """``x`` with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by
    default the largest and the most negative finite value of its dtype); real and imaginary
    parts separately for complex ``x``; other dtypes unchanged (a copy)."""
    v = creation.array_operand(lowering.context_of(x), x, "numpy.nan_to_num")
    dt = v.element_type
    if not dt.is_inexact:
        return creation.copy(v)

    def fix(part: TracedArray) -> TracedArray:
        top = np.finfo(part.element_type.name).max
        big = top if posinf is None else posinf
        small = -top if neginf is None else neginf
        filled = tnp.where(tnp.isnan(part), nan, part)
        filled = tnp.where(tnp.logical_and(tnp.isinf(part), tnp.greater(part, 0)), big, filled)
        filled = tnp.where(tnp.logical_and(tnp.isinf(part), tnp.less(part, 0)), small, filled)
        return filled.astype(part.element_type.name)

    if dt.is_complex:
        return tnp.add(fix(tnp.real(v)), tnp.multiply(fix(tnp.imag(v)), 1j)).astype(dt.name)
    return fix(v)


@op("polyval")
@lowering.numpy_unless_traced(np.polyval)
def polyval(p: Any, x: Any) -> TracedArray:
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's
    rule as NumPy evaluates it."""
    coeffs, at = _operands(p, x, name="polyval")
    if coeffs.ndim != 1:
        raise unsupported("numpy.polyval", "coefficients that are not a 1-D array")
    y: TracedArray = creation.zeros_like(at)
    # the coefficients are a Python loop's: int() specialises a dynamic count
    for i in range(int(coeffs.shape[0])):
        y = tnp.add(tnp.multiply(y, at), indexing.getitem(coeffs, i))
    return y


# --------------------------------------------------------------------------------------------------
# index arithmetic


def _dims(shape: Any, name: str) -> list[Any]:
    dims = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    for d in dims:
        if isinstance(d, TracedArray):
            raise unsupported(f"numpy.{name}", "a shape that is not known while tracing")
    return dims


def _order(order: Any, name: str) -> bool:
    if order not in ("C", "F"):
        raise trace_error(f"{name}: order must be one of 'C', 'F'", ValueError)
    return order == "F"


@op("unravel_index")
@lowering.numpy_unless_traced(np.unravel_index)
def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[TracedArray, ...]:
    """The coordinates, in an array of ``shape``, of the flat ``indices`` (int64 arrays of
    their shape); an index outside the array is NumPy's ``ValueError`` when the kernel runs."""
    dims = _dims(shape, "unravel_index")
    fortran = _order(order, "unravel_index")
    flat, = _operands(indices, name="unravel_index")
    if not (flat.element_type.is_int or flat.element_type.is_bool):
        raise trace_error("only int indices permitted", TypeError)
    flat = flat.astype("int64")
    size: Any = 1
    for d in dims:
        size = size * d
    inside = tnp.logical_and(tnp.greater_equal(flat, 0), tnp.less(flat, size))
    lowering.runtime_check(reductions.reduce("all", inside), "invalid_argument",
                           "index out of bounds for array with size {0}", [size])
    out: list[TracedArray] = []
    rest = flat
    for d in (dims if fortran else list(reversed(dims))):
        out.append(tnp.remainder(rest, d))
        rest = tnp.floor_divide(rest, d)
    return tuple(out if fortran else reversed(out))


@op("ravel_multi_index")
@lowering.numpy_unless_traced(np.ravel_multi_index)
def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise", order: str = "C") -> TracedArray:
    """The flat indices of the coordinates ``multi_index`` in an array of ``dims`` (int64);
    ``mode`` ``raise`` (NumPy's ``ValueError`` when the kernel runs), ``wrap`` or ``clip``, one
    or one per axis."""
    sizes = _dims(dims, "ravel_multi_index")
    fortran = _order(order, "ravel_multi_index")
    if not isinstance(multi_index, (list, tuple)) or len(multi_index) != len(sizes):
        raise trace_error(f"parameter multi_index must be a sequence of length {len(sizes)}", ValueError)
    modes = list(mode) if isinstance(mode, (list, tuple)) else [mode] * len(sizes)
    coords = _operands(*multi_index, name="ravel_multi_index")
    flat: Any = None
    stride: Any = 1
    order_ = range(len(sizes)) if fortran else reversed(range(len(sizes)))
    for k in order_:
        c = coords[k]
        if not (c.element_type.is_int or c.element_type.is_bool):
            raise trace_error("only int indices permitted", TypeError)
        c = c.astype("int64")
        if modes[k] == "wrap":
            c = tnp.remainder(c, sizes[k])
        elif modes[k] == "clip":
            c = tnp.minimum(tnp.maximum(c, 0), sizes[k] - 1)
        elif modes[k] == "raise":
            lowering.runtime_check(reductions.reduce("all", tnp.logical_and(tnp.greater_equal(c, 0),
                                                                            tnp.less(c, sizes[k]))),
                                   "invalid_argument", "invalid entry in coordinates array")
        elif modes[k] != "raise":
            raise trace_error(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {modes[k]!r})", ValueError)
        term = tnp.multiply(c, stride)
        flat = term if flat is None else tnp.add(flat, term)
        stride = stride * sizes[k]
    return flat
