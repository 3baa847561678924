"""Counting into bins: ``np.bincount``, ``np.histogram``, ``np.histogram2d`` and
``np.histogramdd`` (numbers of equal bins).

Both add each element's weight into the bin its value picks: one pass in order, as NumPy's own
loop, carrying the counts (an ``scf.for`` over the elements). ``bincount``'s number of bins is
the largest value plus one, a size the data gives; ``histogram``'s is ``bins``.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from . import elementwise, lowering, registry, shapes
from .errors import trace_error, unsupported
from .mlir_text import Block, location
from .registry import op
from .traced_array import SymbolicDim, TracedArray


def _scatter_add(bins: TracedArray, weights: TracedArray, size: str) -> TracedArray:
    """Counts of ``size`` bins (an ``index`` SSA value): the sum of ``weights`` whose
    ``bins`` (1-D, int64, each in ``[0, size)``) name each bin."""
    ctx = bins.context
    top = ctx.top
    dt = weights.element_type
    ty = f"tensor<?x{dt.mlir}>"
    empty = top.op("bins", f"tensor.empty({size}) : {ty}")
    zero = top.const(0, dt.mlir) if not dt.is_float else top.const(0.0, dt.mlir)
    counts = top.op("bins", f"linalg.fill ins({zero} : {dt.mlir}) outs({empty} : {ty}) -> {ty}")
    c0, c1 = top.const(0, "index"), top.const(1, "index")
    n = ctx.dim(bins, 0)
    i, acc, done = ("%" + ctx.names.fresh(h) for h in ("i", "acc", "counted"))
    step = Block(ctx.names, indent=top.indent + 1)
    b = step.op("bin", f"tensor.extract {bins.value}[{i}] : {bins.mlir_type}")
    k = step.op("k", f"arith.index_cast {b} : i64 to index")
    w = step.op("w", f"tensor.extract {weights.value}[{i}] : {weights.mlir_type}")
    old = step.op("old", f"tensor.extract {acc}[{k}] : {ty}")
    new = lowering.scalar_add(step, old, w, dt)
    updated = step.op("acc", f"tensor.insert {new} into {acc}[{k}] : {ty}")
    step.raw(f"scf.yield {updated} : {ty}")
    top.raw(f"{done} = scf.for {i} = {c0} to {n} step {c1} iter_args({acc} = {counts}) -> ({ty}) {{")
    top.lines.extend(step.lines)
    top.raw(f"}} {location()}".rstrip())  # the loop at the user's line
    return TracedArray(ctx, done, dt, (None,), sizes=[size])


def _flat(ctx: Any, a: Any, what: str) -> TracedArray:
    a = lowering.lift(ctx, a, what)
    if not isinstance(a, TracedArray):
        raise unsupported(what, "a Python scalar; pass an array")
    return shapes.reshape(a, (-1,))


def _weights_for(ctx: Any, x: TracedArray, weights: Any, what: str) -> TracedArray:
    """The weight of each element: ``weights`` flattened as float64, or 1 (int64)."""
    if weights is None:
        return np.ones_like(x, dtype=np.int64)
    w = _flat(ctx, weights, what)
    message = f"{what}: The weights and list don't have the same length."
    n, m = w.shape[0], x.shape[0]
    if isinstance(n, int) and isinstance(m, int):
        if n != m:
            raise trace_error(message, ValueError)
    else:
        lowering.runtime_check(np.equal(lowering.lift(ctx, n), lowering.lift(ctx, m)), "invalid_argument", message)
    return elementwise.astype(w, "float64")


@op("bincount")
def bincount(x: Any, weights: Any = None, minlength: int = 0) -> TracedArray:
    """How many times each non-negative integer occurs in ``x`` (or the sum of its weights)."""
    ctx = lowering.context_of(x, weights)
    values = _flat(ctx, x, "numpy.bincount")
    if not values.element_type.is_int:
        raise trace_error("Cannot cast array data from dtype('float64') to dtype('int64') according to "
                          "the rule 'safe'", TypeError)
    if isinstance(minlength, (SymbolicDim, TracedArray)):  # a size or an int argument
        if isinstance(minlength, TracedArray) and (minlength.ndim or not minlength.element_type.is_int):
            raise trace_error("minlength must be a non-negative integer", ValueError)
        lowering.runtime_check(np.greater_equal(lowering.lift(ctx, minlength), 0), "invalid_argument",
                               "minlength must be a non-negative integer")
    elif isinstance(minlength, bool) or not isinstance(minlength, int) or minlength < 0:
        raise trace_error("minlength must be a non-negative integer", ValueError)
    values = elementwise.astype(values, "int64")
    if values.ndim != 1:
        raise trace_error("object too deep for desired array", ValueError)
    lowering.runtime_check(np.all(np.greater_equal(values, 0)), "invalid_argument",
                      "'list' argument must have no negative elements")
    largest = np.maximum(np.max(values, initial=-1), lowering.lift(ctx, minlength - 1))
    size = ctx.top.op("nbins", f"arith.index_cast {lowering.scalar_ssa(lowering.lift(ctx, largest))} : i64 to index")
    size = ctx.top.op("nbins", f"arith.addi {size}, {ctx.top.const(1, 'index')} : index")
    return _scatter_add(values, _weights_for(ctx, values, weights, "numpy.bincount"), size)


@op("histogram")
def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,  # noqa: A002
              weights: Any = None) -> tuple[TracedArray, TracedArray]:
    """The counts of ``a``'s values in ``bins`` equal bins over ``range`` (else from its
    minimum to its maximum), and the bin edges, as NumPy computes them."""
    ctx = lowering.context_of(a, weights)
    values = _flat(ctx, a, "numpy.histogram")
    if isinstance(bins, TracedArray) and bins.ndim == 0 and bins.element_type.is_int:
        bins = operator.index(bins)  # the number of bins sizes the result: fixed at the call's
    if isinstance(bins, bool) or not isinstance(bins, int):
        raise unsupported("numpy.histogram", "bins other than a number of equal bins")
    if bins < 1:
        raise trace_error("`bins` must be positive, when an integer", ValueError)
    if range is not None:
        first, last = range
        if first > last:
            raise trace_error("max must be larger than min in range parameter.", ValueError)
        first, last = float(first), float(last)
        if first == last:
            first, last = first - 0.5, last + 0.5
        lo: Any = first
        hi: Any = last
    else:
        values_f = elementwise.astype(values, "float64")
        lo, hi = np.min(values_f), np.max(values_f)
        lowering.runtime_check(np.logical_and(np.isfinite(lo), np.isfinite(hi)), "invalid_argument",
                          "autodetected range is not finite")
        same = np.equal(lo, hi)
        lo, hi = np.where(same, lo - 0.5, lo), np.where(same, hi + 0.5, hi)
    edges = registry.lookup_numpy("linspace").impl(lo, hi, bins + 1)  # type: ignore[union-attr]
    x = elementwise.astype(values, "float64")
    keep = np.logical_and(np.greater_equal(x, lo), np.less_equal(x, hi))
    index = np.floor((x - lo) * (bins / (hi - lo)))
    index = np.clip(np.where(keep, index, 0.0), 0, bins - 1).astype(np.int64)
    # NumPy's corrections where rounding put a value beside its bin
    index = np.where(np.logical_and(keep, np.less(x, edges[index])), index - 1, index)
    index = np.where(np.logical_and(np.logical_and(keep, np.greater_equal(x, edges[index + 1])),
                                    np.not_equal(index, bins - 1)), index + 1, index)
    if weights is None:
        w = keep.astype(np.int64)
    else:
        w = np.where(keep, _weights_for(ctx, values, weights, "numpy.histogram"), 0.0)
    counts = _scatter_add(index, w, ctx.top.const(bins, "index"))
    if density:
        counts = counts / (edges[1:] - edges[:-1]) / counts.sum()
    return counts, edges


def _columns(ctx: Any, sample: Any, what: str) -> list[TracedArray]:
    """The coordinates of ``histogramdd``'s sample, one float64 array per dim: the columns of an
    ``(N, D)`` array (``D`` known while tracing), or the arrays of a sequence."""
    if isinstance(sample, (list, tuple)):
        cols = [lowering.to_tensor(ctx, lowering.lift(ctx, s if not isinstance(s, list) else np.asarray(s), what))
                for s in sample]
        if any(c.ndim != 1 for c in cols):
            raise unsupported(what, "a sequence of arrays that are not 1-D")
    else:
        x = lowering.to_tensor(ctx, lowering.lift(ctx, sample, what))
        if x.ndim == 1:
            cols = [x]
        elif x.ndim == 2:
            d = x.dims[1]
            if d is None:
                d = operator.index(x.shape[1])  # the number of dims shapes the result: fixed at the call's
            cols = [x[:, i] for i in range(d)]
        else:
            raise unsupported(what, f"a sample of {x.ndim} dims; pass an (N, D) array")
    if not cols:
        raise unsupported(what, "a sample of no dims")
    common = lowering.promote(cols)[0]
    if common.is_complex:
        raise unsupported(what, "complex samples")
    # NumPy's edges are in the sample's float dtype (float64 for integers and bools)
    return [elementwise.astype(c, common.name if common.is_float else "float64") for c in cols]


def _outer_edges(col: TracedArray, bounds: Any, what: str) -> tuple[Any, Any]:
    """NumPy's ``_get_outer_edges``: the given range, else the data's extent (0 to 1 for no
    data), widened by a half on each side when it is one point."""
    if bounds is not None:
        first, last = bounds
        if first > last:
            raise trace_error(f"{what}: max must be larger than min in range parameter.", ValueError)
        first, last = float(first), float(last)
        if first == last:
            first, last = first - 0.5, last + 0.5
        return first, last
    empty = np.equal(col.shape[0], 0)
    dt = col.element_type.name
    lo = np.min(np.concatenate([col, np.full(1, np.inf, dtype=dt)]))
    hi = np.max(np.concatenate([col, np.full(1, -np.inf, dtype=dt)]))
    lo, hi = np.where(empty, 0.0, lo), np.where(empty, 1.0, hi)
    lowering.runtime_check(np.logical_and(np.isfinite(lo), np.isfinite(hi)), "invalid_argument",
                           "autodetected range is not finite")
    same = np.equal(lo, hi)
    return np.where(same, lo - 0.5, lo), np.where(same, hi + 0.5, hi)


@op("histogramdd")
def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None,  # noqa: A002
                weights: Any = None) -> tuple[TracedArray, list[TracedArray]]:
    """The counts of ``sample``'s points in a grid of equal bins (a number per dim) over
    ``range`` (else each dim's extent), as float64, and the edges of each dim, as NumPy's:
    each coordinate's bin by ``searchsorted`` of its edges, points on a last edge in the last
    bin, the others outside dropped, one ``bincount`` of the flat bin numbers."""
    what = "numpy.histogramdd"
    ctx = lowering.context_of(sample, weights)
    cols = _columns(ctx, sample, what)
    D = len(cols)
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        counts = [int(bins)] * D
    elif isinstance(bins, (list, tuple)) and all(isinstance(b, (int, np.integer)) and not isinstance(b, bool)
                                                 for b in bins):
        counts = [int(b) for b in bins]
    else:
        raise unsupported(what, "bins other than numbers of equal bins")
    if len(counts) != D:
        raise trace_error("The dimension of bins must be equal to the dimension of the sample x.", ValueError)
    if any(b < 1 for b in counts):
        raise trace_error(f"`bins[{min(i for i, b in enumerate(counts) if b < 1)}]` must be positive, when an "
                          "integer", ValueError)
    ranges = [None] * D if range is None else list(range)
    if len(ranges) != D:
        raise trace_error("range argument must have one entry per dimension", ValueError)
    n = cols[0].shape[0]
    message = "all the input array dimensions for the concatenation axis must match exactly"
    for c in cols[1:]:
        m = c.shape[0]
        if isinstance(m, int) and isinstance(n, int):
            if m != n:
                raise trace_error(f"{what}: {message}", ValueError)
        else:
            lowering.runtime_check(np.equal(lowering.lift(ctx, m), lowering.lift(ctx, n)), "invalid_argument",
                                   f"{what}: {message}")
    edges: list[TracedArray] = []
    flat: Any = None
    for col, b, bounds in zip(cols, counts, ranges):
        lo, hi = _outer_edges(col, bounds, what)
        e = registry.lookup_numpy("linspace").impl(lo, hi, b + 1)  # type: ignore[union-attr]
        if bounds is None:  # NumPy's edges have the sample's float dtype (its extent's)
            e = elementwise.astype(e, col.element_type.name)
        edges.append(e)
        index = np.searchsorted(e, col, side="right")
        index = np.where(np.equal(col, e[b]), index - 1, index)  # the last edge closes the last bin
        flat = index if flat is None else flat * (b + 2) + index
    total = int(np.prod([b + 2 for b in counts]))
    w = None if weights is None else _flat(ctx, weights, what)
    hist = bincount(flat, weights=w, minlength=total)
    hist = shapes.reshape(hist, tuple(b + 2 for b in counts))
    hist = hist[tuple(slice(1, -1) for _ in counts)]
    hist = elementwise.astype(hist, "float64")
    if density:
        whole = np.sum(hist)
        for i, e in enumerate(edges):
            hist = hist / np.reshape(e[1:] - e[:-1], tuple(-1 if j == i else 1 for j in builtins.range(D)))
        hist = hist / whole
    return hist, edges


@op("histogram2d")
def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None,  # noqa: A002
                weights: Any = None) -> tuple[TracedArray, TracedArray, TracedArray]:
    """The counts of the points ``(x, y)`` in a grid of equal bins, and the edges of each axis
    (``histogramdd`` of the two coordinates)."""
    if isinstance(bins, (list, tuple)) and len(bins) == 1:
        bins = bins[0]
    hist, (xedges, yedges) = histogramdd([x, y], bins, range, density, weights)
    return hist, xedges, yedges
