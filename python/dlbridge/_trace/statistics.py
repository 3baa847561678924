"""Statistics that ignore NaNs or rank the data: the ``nan`` reductions (``nansum``,
``nanmean``, ``nanmax``, ``nanargmax``, ``nancumsum``...), ``ptp``, and the order statistics
``median``, ``quantile`` and ``percentile`` with their ``nan`` forms.

Each is written as NumPy's own Python implementation is, on top of the traced reductions, scans
and ``sorting.sort``: NaNs are replaced by the reduction's identity and counted. An order
statistic sorts the reduced axes (moved last and merged into one) and reads the elements at its
indices as one masked sum along the sorted axis (``sum(where(j == k, sorted, 0))``), so the index
may differ per row (the count of non-NaN values in each) and the quantiles may be an array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as D
from . import indexing, lowering, reductions, shapes, sorting
from .errors import trace_error, unsupported
from .numpy_proxy import numpy_proxy as xp
from .registry import op
from .traced_array import SymbolicDim, TracedArray

__all__ = ["median", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile"]


def _array(a: Any, name: str) -> TracedArray:
    ctx = lowering.context_of(a)
    return lowering.to_tensor(ctx, lowering.lift(ctx, a, f"numpy.{name}"))


def _has_nans(x: TracedArray) -> bool:
    return x.element_type.is_inexact


def _isnan(x: TracedArray) -> TracedArray:
    """Where ``x`` is NaN (a complex number with a NaN part)."""
    if x.element_type.is_complex:
        return xp.logical_or(xp.isnan(xp.real(x)), xp.isnan(xp.imag(x)))
    return xp.isnan(x)


def _filled(x: TracedArray, value: Any) -> TracedArray:
    """``x`` with its NaNs replaced by ``value`` (NumPy's ``_replace_nan``)."""
    return xp.where(_isnan(x), value, x) if _has_nans(x) else x


# --------------------------------------------------------------------------------------------------
# reductions that ignore NaNs


@op("nansum")
@lowering.numpy_unless_traced(np.nansum)
def nansum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
           initial: Any = None, where: Any = True) -> TracedArray:
    """The sum over ``axis`` with NaNs taken as zero (0 for an all-NaN slice)."""
    lowering.no_out(out, "numpy.nansum")
    return reductions.reduce("sum", _filled(_array(a, "nansum"), 0), axis=axis, keepdims=keepdims, dtype=dtype,
                             initial=initial, where=where)


@op("nanprod")
@lowering.numpy_unless_traced(np.nanprod)
def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
            initial: Any = None, where: Any = True) -> TracedArray:
    """The product over ``axis`` with NaNs taken as one (1 for an all-NaN slice)."""
    lowering.no_out(out, "numpy.nanprod")
    return reductions.reduce("prod", _filled(_array(a, "nanprod"), 1), axis=axis, keepdims=keepdims, dtype=dtype,
                             initial=initial, where=where)


def _nan_extreme(kind: str, a: Any, axis: Any, out: Any, keepdims: bool, initial: Any, where: Any) -> TracedArray:
    """``nanmax``/``nanmin``: the extreme of the non-NaN values, NaN for an all-NaN slice."""
    lowering.no_out(out, f"numpy.nan{kind}")
    x = _array(a, f"nan{kind}")
    if x.element_type.is_complex:
        raise unsupported(f"numpy.nan{kind}", "complex input")
    if not _has_nans(x):
        return reductions.reduce(kind, x, axis=axis, keepdims=keepdims, initial=initial, where=where)
    r = reductions.reduce(kind, _filled(x, -np.inf if kind == "max" else np.inf), axis=axis, keepdims=keepdims,
                          initial=initial, where=where)
    nan = _isnan(x) if where is True else xp.logical_and(_isnan(x), where)
    if initial is None:
        every = reductions.reduce("all", xp.logical_or(nan, xp.logical_not(where)) if where is not True else nan,
                                  axis=axis, keepdims=keepdims)
        r = xp.where(every, np.nan, r)
    return r


@op("nanmax")
@lowering.numpy_unless_traced(np.nanmax)
def nanmax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, initial: Any = None,
           where: Any = True) -> TracedArray:
    """The largest non-NaN element over ``axis`` (NaN for an all-NaN slice, as NumPy, which
    also warns)."""
    return _nan_extreme("max", a, axis, out, keepdims, initial, where)


@op("nanmin")
@lowering.numpy_unless_traced(np.nanmin)
def nanmin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, initial: Any = None,
           where: Any = True) -> TracedArray:
    """The smallest non-NaN element over ``axis`` (NaN for an all-NaN slice)."""
    return _nan_extreme("min", a, axis, out, keepdims, initial, where)


def _count(x: TracedArray, axis: Any, keepdims: bool, where: Any = True) -> TracedArray:
    """How many non-NaN elements (of those ``where`` selects) each slice over ``axis`` has."""
    valid = xp.logical_not(_isnan(x))
    return reductions.reduce("sum", valid, axis=axis, keepdims=keepdims, dtype="int64", where=where)


@op("nanmean")
@lowering.numpy_unless_traced(np.nanmean)
def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False, *,
            where: Any = True) -> TracedArray:
    """The mean of the non-NaN elements over ``axis`` (NaN for an all-NaN slice)."""
    lowering.no_out(out, "numpy.nanmean")
    x = _array(a, "nanmean")
    if not _has_nans(x):
        return reductions.reduce("mean", x, axis=axis, keepdims=keepdims, dtype=dtype, where=where)
    total = reductions.reduce("sum", _filled(x, 0), axis=axis, keepdims=keepdims, dtype=dtype, where=where)
    return xp.divide(total, _count(x, axis, keepdims, where)).astype(total.element_type.name)


def _nan_var(name: str, a: Any, axis: Any, dtype: Any, out: Any, ddof: Any, keepdims: bool, where: Any,
             mean: Any, correction: Any) -> TracedArray:
    """NumPy's ``nanvar``: the mean square deviation of the non-NaN values from their mean,
    over ``count - ddof`` (NaN where that is not positive)."""
    lowering.no_out(out, f"numpy.{name}")
    if mean is not None:
        raise unsupported(f"numpy.{name}", "mean= is not supported")
    if correction is not None and correction is not np._NoValue:
        ddof = correction
    if isinstance(ddof, (TracedArray, SymbolicDim)):
        raise unsupported(f"numpy.{name}", "a ddof that is not known while tracing")
    x = _array(a, name)
    if not _has_nans(x):
        fn = reductions.var if name == "nanvar" else reductions.std
        return fn(x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where)
    if where is not True:
        raise unsupported(f"numpy.{name}", "where= is not supported")
    nan = _isnan(x)
    filled = xp.where(nan, 0, x) if dtype is None else xp.where(nan, 0, x).astype(dtype)
    cnt = _count(x, axis, True)
    avg = xp.divide(reductions.reduce("sum", filled, axis=axis, keepdims=True), cnt).astype(filled.element_type.name)
    dev = xp.where(nan, 0, xp.subtract(filled, avg))
    if dev.element_type.is_complex:
        sq = xp.multiply(dev, xp.conjugate(dev)).real
    else:
        sq = xp.multiply(dev, dev)
    total = reductions.reduce("sum", sq, axis=axis, keepdims=keepdims)
    dof = xp.subtract(_count(x, axis, keepdims), ddof)
    var = xp.divide(total, dof).astype(total.element_type.name)
    var = xp.where(xp.less_equal(dof, 0), np.nan, var)
    return xp.sqrt(var) if name == "nanstd" else var


@op("nanvar")
@lowering.numpy_unless_traced(np.nanvar)
def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: bool = False, *,
           where: Any = True, mean: Any = None, correction: Any = None) -> TracedArray:
    """The variance of the non-NaN elements over ``axis``, over ``count - ddof``."""
    return _nan_var("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


@op("nanstd")
@lowering.numpy_unless_traced(np.nanstd)
def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: bool = False, *,
           where: Any = True, mean: Any = None, correction: Any = None) -> TracedArray:
    """The standard deviation of the non-NaN elements over ``axis``."""
    return _nan_var("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def _nan_arg(largest: bool, a: Any, axis: Any, out: Any, keepdims: bool) -> TracedArray:
    """``nanargmax``/``nanargmin``: the index of the first extreme non-NaN element; an all-NaN
    slice is NumPy's ``ValueError`` when the kernel runs on the CPU (CUDA kernels give the index
    of an infinity instead: their checks cannot read the data)."""
    name = "nanargmax" if largest else "nanargmin"
    lowering.no_out(out, f"numpy.{name}")
    x = _array(a, name)
    pick = reductions.argmax if largest else reductions.argmin
    if not _has_nans(x):
        return pick(x, axis=axis, keepdims=keepdims)
    if x.element_type.is_complex:
        raise unsupported(f"numpy.{name}", "complex input")
    nan = _isnan(x)
    lowering.runtime_check(xp.logical_not(xp.any(xp.all(nan, axis=axis))), "invalid_argument",
                           "All-NaN slice encountered")
    return pick(xp.where(nan, -np.inf if largest else np.inf, x), axis=axis, keepdims=keepdims)


@op("nanargmax")
@lowering.numpy_unless_traced(np.nanargmax)
def nanargmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> TracedArray:
    """The index of the first largest non-NaN element over ``axis`` (flattened when None)."""
    return _nan_arg(True, a, axis, out, keepdims)


@op("nanargmin")
@lowering.numpy_unless_traced(np.nanargmin)
def nanargmin(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> TracedArray:
    """The index of the first smallest non-NaN element over ``axis`` (flattened when None)."""
    return _nan_arg(False, a, axis, out, keepdims)


@op("nancumsum")
@lowering.numpy_unless_traced(np.nancumsum)
def nancumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> TracedArray:
    """The running sums along ``axis`` with NaNs taken as zero."""
    return reductions.cumsum(_filled(_array(a, "nancumsum"), 0), axis=axis, dtype=dtype, out=out)


@op("nancumprod")
@lowering.numpy_unless_traced(np.nancumprod)
def nancumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> TracedArray:
    """The running products along ``axis`` with NaNs taken as one."""
    return reductions.cumprod(_filled(_array(a, "nancumprod"), 1), axis=axis, dtype=dtype, out=out)


@op("ptp")
@lowering.numpy_unless_traced(np.ptp)
def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> TracedArray:
    """The range ``max - min`` over ``axis`` (in the input's dtype, wrapping as NumPy's)."""
    lowering.no_out(out, "numpy.ptp")
    x = _array(a, "ptp")
    return xp.subtract(reductions.reduce("max", x, axis=axis, keepdims=keepdims),
                       reductions.reduce("min", x, axis=axis, keepdims=keepdims))


# --------------------------------------------------------------------------------------------------
# order statistics


def _sorted_rows(x: TracedArray, axis: Any, name: str) -> tuple[TracedArray, tuple[int, ...]]:
    """``x`` sorted along its reduced axes, moved last and merged into one (NaNs last), and
    those axes."""
    if x.ndim == 0:
        if axis is not None:
            indexing.normalize_axes(axis, 0, f"numpy.{name}")
        return sorting.sort(shapes.reshape(x, (1,))), ()
    axes = reductions.normalize_reduction_axes(axis, x.ndim, f"numpy.{name}")
    kept = [k for k in range(x.ndim) if k not in axes]
    perm = tuple(kept + list(axes))
    y = shapes.transpose(x, perm) if perm != tuple(range(x.ndim)) else x
    if len(axes) != 1:
        y = shapes.reshape(y, tuple(y.shape[: len(kept)]) + (-1,))
    return sorting.sort(y, axis=-1), axes


def _size(n: Any) -> Any:
    """A count as a Python int or a traced int64 array (a dynamic size becomes one)."""
    return n.as_array() if isinstance(n, SymbolicDim) else n


def _pick(s: TracedArray, index: Any) -> TracedArray:
    """The elements of the sorted rows ``s`` at ``index`` along the last axis: a Python int, a
    size, or an int64 array broadcasting against the rows' leading shape."""
    if isinstance(index, int):
        return s[..., index]
    k = index.as_array() if isinstance(index, SymbolicDim) else index
    k = lowering.expand_units(s.context, k, [k.ndim]) if k.ndim else k
    hit = xp.equal(xp.arange(s.shape[-1]), k)
    dt = s.element_type
    if dt.is_bool:
        return reductions.reduce("any", xp.logical_and(hit, s), axis=-1)
    return reductions.reduce("sum", xp.where(hit, s, 0), axis=-1, dtype=dt.name)


def _keep(r: TracedArray, lead: int, axes: tuple[int, ...], ndim: int, keepdims: bool) -> TracedArray:
    """``r`` with the reduced ``axes`` of a rank-``ndim`` input back as size-1 dims after its
    ``lead`` quantile dims, when ``keepdims``."""
    if not keepdims:
        return r
    return lowering.expand_units(r.context, r, [lead + k for k in (axes if axes else range(ndim))])


def _order_statistic(name: str, a: Any, q: Any, axis: Any, out: Any, method: str, keepdims: bool,
                     interpolation: Any, weights: Any, nans: bool) -> TracedArray:
    """``quantile``/``nanquantile`` of ``a`` at ``q`` (already in [0, 1] units)."""
    lowering.no_out(out, f"numpy.{name}")
    if weights is not None:
        raise unsupported(f"numpy.{name}", "weights=")
    if interpolation is not None:
        method = interpolation
    if method not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise unsupported(f"numpy.{name}", f"method={method!r} (linear, lower, higher, nearest, midpoint)")
    x = _array(a, name)
    ctx = x.context
    if x.element_type.is_complex:
        raise trace_error("a must be an array of real numbers", TypeError)
    weak = type(q) in (int, float)
    if isinstance(q, TracedArray):
        qa = q
        if q.element_type.is_inexact:
            lowering.runtime_check(xp.all(xp.logical_and(xp.greater_equal(q, 0), xp.less_equal(q, 1))),
                                   "invalid_argument", "Quantiles must be in the range [0, 1]")
    else:
        qn = np.asanyarray(q)
        if qn.dtype.kind not in "biuf":
            raise trace_error(f"{name}: q must be real numbers, not {qn.dtype}", TypeError)
        if qn.size and not (np.all(qn >= 0) and np.all(qn <= 1)):
            raise trace_error("Quantiles must be in the range [0, 1]", ValueError)
        qa = lowering.to_tensor(ctx, lowering.lift(ctx, qn, f"numpy.{name}"))
    s, axes = _sorted_rows(x, axis, name)
    width = s.shape[-1]
    if not nans:
        _nonempty(width)
    lead = qa.ndim
    rows = s.ndim - 1
    n = _size(_count(x, axis, False) if nans and _has_nans(x) else width)
    qe = lowering.expand_units(ctx, qa, list(range(lead, lead + rows))) if rows else qa
    base = xp.multiply(n - 1, qe)
    integral = not qa.element_type.is_inexact
    dt = x.element_type
    if method in ("lower", "higher", "nearest") or (method == "linear" and integral):
        rounded = {"lower": xp.floor, "higher": xp.ceil, "nearest": xp.rint, "linear": xp.floor}[method](base)
        r = _pick(s, rounded.astype("int64"))
    else:
        if dt.is_bool:
            raise trace_error("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                              "the `^` operator, or the logical_xor function instead.", TypeError)
        if method == "midpoint":
            vi = xp.multiply(0.5, xp.add(xp.floor(base), xp.ceil(base)))
        else:
            vi = base
        lo = xp.floor(vi)
        last = n - 1
        top = xp.greater_equal(vi, last)
        prev = xp.where(top, last, lo.astype("int64"))
        nxt = xp.where(top, last, xp.add(lo, 1).astype("int64"))
        if method == "midpoint":
            gamma = xp.where(xp.equal(xp.remainder(vi, 1), 0), 0.0, 0.5)
        else:
            gamma = xp.subtract(vi, xp.where(top, -1, lo))
        rt = dt if weak and dt.is_inexact else D.result_type(dt, D.FLOAT64)
        below, above = _pick(s, prev).astype(rt.name), _pick(s, nxt).astype(rt.name)
        t = gamma.astype(rt.name)
        one_minus = xp.subtract(1, gamma).astype(rt.name)
        diff = xp.subtract(above, below)
        r = xp.where(xp.greater_equal(gamma, 0.5), xp.subtract(above, xp.multiply(diff, one_minus)),
                     xp.add(below, xp.multiply(diff, t)))
    if _has_nans(x):
        if nans:
            r = xp.where(xp.equal(n, 0), np.nan, r)
        else:
            r = xp.where(reductions.reduce("any", _isnan(s), axis=-1), np.nan, r)
    return _keep(r, lead, axes, x.ndim, keepdims)


def _nonempty(width: Any) -> None:
    """NumPy's ``IndexError`` for the quantiles of an empty slice (now, or when the kernel runs)."""
    message = "index -1 is out of bounds for axis 0 with size 0"
    if isinstance(width, int):
        if width == 0:
            raise trace_error(message, IndexError)
        return
    ctx = width.context
    ctx.begin_op()
    ok = ctx.top.op("nonempty", f"arith.cmpi ne, {width.value}, {ctx.top.const(0, 'index')} : index")
    ctx.top.raw(f'dlpack.assert {ok}, index_out_of_range, "{lowering.message_literal(message)}"')


def _percent(q: Any) -> Any:
    """``q / 100`` as NumPy's ``percentile`` divides it (a Python float stays weak)."""
    if isinstance(q, TracedArray):
        lowering.runtime_check(xp.all(xp.logical_and(xp.greater_equal(q, 0), xp.less_equal(q, 100))),
                               "invalid_argument", "Percentiles must be in the range [0, 100]")
        return xp.true_divide(q, 100)
    qn = np.true_divide(np.asanyarray(q), 100)
    if qn.size and not (np.all(qn >= 0) and np.all(qn <= 1)):
        raise trace_error("Percentiles must be in the range [0, 100]", ValueError)
    return float(qn) if type(q) in (int, float) else qn


@op("quantile")
@lowering.numpy_unless_traced(np.quantile)
def quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None,
             interpolation: Any = None) -> TracedArray:
    """The ``q``-th quantiles (``q`` in [0, 1], a scalar or an array, whose shape leads the
    result's) over ``axis`` (int, tuple or None), by ``method`` (``linear``, ``lower``,
    ``higher``, ``nearest``, ``midpoint``); NaN where a slice holds a NaN."""
    return _order_statistic("quantile", a, q, axis, out, method, keepdims, interpolation, weights, False)


@op("percentile")
@lowering.numpy_unless_traced(np.percentile)
def percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None,
               interpolation: Any = None) -> TracedArray:
    """The ``q``-th percentiles (``q`` in [0, 100]) over ``axis``: ``quantile`` at ``q / 100``."""
    return _order_statistic("percentile", a, _percent(q), axis, out, method, keepdims, interpolation, weights,
                            False)


@op("nanquantile")
@lowering.numpy_unless_traced(np.nanquantile)
def nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights: Any = None,
                interpolation: Any = None) -> TracedArray:
    """``quantile`` of the non-NaN values of each slice (NaN for an all-NaN slice)."""
    return _order_statistic("nanquantile", a, q, axis, out, method, keepdims, interpolation, weights, True)


@op("nanpercentile")
@lowering.numpy_unless_traced(np.nanpercentile)
def nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, weights: Any = None,
                  interpolation: Any = None) -> TracedArray:
    """``percentile`` of the non-NaN values of each slice (NaN for an all-NaN slice)."""
    return _order_statistic("nanpercentile", a, _percent(q), axis, out, method, keepdims, interpolation, weights,
                            True)


def _median(name: str, a: Any, axis: Any, out: Any, keepdims: bool, nans: bool) -> TracedArray:
    """The mean of the middle one or two sorted values of each slice (NaN for an empty one;
    NaN where it holds a NaN, or, for ``nanmedian``, where it holds nothing else)."""
    lowering.no_out(out, f"numpy.{name}")
    x = _array(a, name)
    dt = x.element_type if x.element_type.is_inexact else D.FLOAT64
    s, axes = _sorted_rows(x, axis, name)
    width = s.shape[-1]
    n = _size(_count(x, axis, False) if nans and _has_nans(x) else width)
    if isinstance(n, int):
        if n == 0:
            r = xp.multiply(reductions.reduce("sum", s, axis=-1, dtype=dt.name), np.nan)
            return _keep(r, 0, axes, x.ndim, keepdims)
        below = _pick(s, (n - 1) // 2).astype(dt.name)
        if n % 2:
            r = below
        else:
            r = reductions.reduce("mean", xp.stack([below, _pick(s, n // 2).astype(dt.name)], axis=-1), axis=-1)
    else:
        low, high = xp.floor_divide(n - 1, 2), xp.floor_divide(n, 2)
        below, above = _pick(s, low).astype(dt.name), _pick(s, high).astype(dt.name)
        r = reductions.reduce("mean", xp.stack([below, above], axis=-1), axis=-1)
        r = xp.where(xp.equal(low, high), below, r)
    if _has_nans(x):
        if nans:
            r = xp.where(xp.equal(n, 0), np.nan, r)
        else:
            r = xp.where(reductions.reduce("any", _isnan(s), axis=-1), np.nan, r)
    if not isinstance(n, int) and not nans:
        r = xp.where(xp.equal(n, 0), np.nan, r)
    return _keep(r, 0, axes, x.ndim, keepdims)


@op("median")
@lowering.numpy_unless_traced(np.median)
def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> TracedArray:
    """The median over ``axis`` (int, tuple or None): the middle value, or the mean of the two
    middle values, of each sorted slice."""
    return _median("median", a, axis, out, keepdims, False)


@op("nanmedian")
@lowering.numpy_unless_traced(np.nanmedian)
def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> TracedArray:
    """The median of the non-NaN values of each slice over ``axis`` (NaN for an all-NaN one)."""
    return _median("nanmedian", a, axis, out, keepdims, True)
