"""Arrays whose size the data gives: the positions a mask selects, and what NumPy builds on
them (``np.flatnonzero``, ``np.nonzero``, ``np.argwhere``, ``np.extract``, ``np.unique``, and
``x[mask]`` used as an array).

The positions are found as NumPy finds them: a count of the selected elements, which sizes the
result, then one pass in order storing each selected position at the next slot. The result's
size is a value the kernel computes, so a kernel returning one has no shape rule
(``dlbridge._shape_rules``) and, on CUDA, needs the count on the host: the CUDA pipeline copies
it back from the device and waits for it (``dlpack-offload-host-code``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as D
from . import lowering, shapes
from .errors import trace_error, unsupported
from .mlir_text import Block, location
from .registry import op
from .traced_array import TracedArray


def flat_positions(mask: TracedArray) -> TracedArray:
    """The C-order flat positions of ``mask``'s true (non-zero) elements, in order: a 1-D
    ``int64`` array of as many elements as there are."""
    ctx = mask.context
    flat = shapes.reshape(lowering.lift(ctx, mask), (-1,))
    if not flat.element_type.is_bool:
        flat = np.not_equal(flat, 0)
    top = ctx.top
    count = np.sum(flat, dtype=np.int64)
    size = top.op("count", f"arith.index_cast {lowering.scalar_ssa(lowering.lift(ctx, count))} : "
                           f"{D.INT64.mlir} to index")
    n = ctx.dim(flat, 0)
    out_ty = "tensor<?xi64>"
    empty = top.op("positions", f"tensor.empty({size}) : {out_ty}")
    c0, c1 = top.const(0, "index"), top.const(1, "index")
    i, slots, next_slot, found = ("%" + ctx.names.fresh(h) for h in ("i", "slots", "slot", "found"))
    step = Block(ctx.names, indent=top.indent + 1)
    selected = step.op("selected", f"tensor.extract {flat.value}[{i}] : {flat.mlir_type}")
    taken = Block(ctx.names, indent=step.indent + 1)
    position = taken.op("position", f"arith.index_cast {i} : index to i64")
    stored = taken.op("slots", f"tensor.insert {position} into {slots}[{next_slot}] : {out_ty}")
    advanced = taken.op("slot", f"arith.addi {next_slot}, {c1} : index")
    taken.raw(f"scf.yield {stored}, {advanced} : {out_ty}, index")
    branch = "%" + ctx.names.fresh("kept")
    step.raw(f"{branch}:2 = scf.if {selected} -> ({out_ty}, index) {{")
    step.lines.extend(taken.lines)
    step.raw("} else {")
    step.raw(f"  scf.yield {slots}, {next_slot} : {out_ty}, index")
    step.raw("}")
    step.raw(f"scf.yield {branch}#0, {branch}#1 : {out_ty}, index")
    top.raw(f"{found}:2 = scf.for {i} = {c0} to {n} step {c1} "
            f"iter_args({slots} = {empty}, {next_slot} = {c0}) -> ({out_ty}, index) {{")
    top.lines.extend(step.lines)
    top.raw(f"}} {location()}".rstrip())  # the loop at the user's line
    return TracedArray(ctx, f"{found}#0", D.INT64, (None,), sizes=[size])


def _as_array(ctx: Any, a: Any, what: str) -> TracedArray:
    a = lowering.lift(ctx, a, what)
    if not isinstance(a, TracedArray):
        a = TracedArray(ctx, lowering.py_const(ctx.top, a, D.dtype(np.asarray(a).dtype)),
                        D.dtype(np.asarray(a).dtype), (), is_scalar=True)
    return a


@op("flatnonzero")
def flatnonzero(a: Any) -> TracedArray:
    """The indices of the non-zero elements of ``a`` flattened, in order."""
    ctx = lowering.context_of(a)
    return flat_positions(_as_array(ctx, a, "numpy.flatnonzero"))


@op("nonzero", method="nonzero")
def nonzero(a: Any) -> tuple[TracedArray, ...]:
    """The indices of the non-zero elements of ``a``, one array per dim."""
    ctx = lowering.context_of(a)
    a = _as_array(ctx, a, "numpy.nonzero")
    if a.ndim == 0:
        raise trace_error("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
                          "instead.", ValueError)
    rest = flat_positions(a)
    coords: list[Any] = []
    for k in range(a.ndim - 1, 0, -1):
        size = a.shape[k]
        coords.append(rest % size)
        rest = rest // size
    coords.append(rest)
    return tuple(reversed(coords))


@op("argwhere")
def argwhere(a: Any) -> TracedArray:
    """The indices of the non-zero elements of ``a``, one row per element."""
    ctx = lowering.context_of(a)
    a = _as_array(ctx, a, "numpy.argwhere")
    if a.ndim == 0:
        return np.reshape(flat_positions(a), (-1, 0))
    return np.stack(nonzero(a), axis=-1)


@op("extract")
def extract(condition: Any, arr: Any) -> TracedArray:
    """The elements of ``arr`` flattened where ``condition`` flattened is non-zero."""
    ctx = lowering.context_of(condition, arr)
    arr = _as_array(ctx, arr, "numpy.extract")
    return shapes.reshape(arr, (-1,))[flat_positions(_as_array(ctx, condition, "numpy.extract"))]


@op("unique")
def unique(ar: Any, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: Any = None, *, equal_nan: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    """The sorted distinct values of ``ar`` flattened (NaNs one value unless ``equal_nan`` is
    false), with the first index of each, the index of each element's value and their counts
    on request: a stable sort, then the positions where the sorted values change (CPU only,
    as sorting is)."""
    ctx = lowering.context_of(ar)
    if axis is not None:
        raise unsupported("numpy.unique", "axis=")
    a = _as_array(ctx, ar, "numpy.unique")
    flat = shapes.reshape(a, (-1,))
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    n = flat.shape[0]
    changes = np.not_equal(ordered[1:], ordered[:-1])
    if equal_nan and (a.element_type.is_float or a.element_type.is_complex):
        changes = np.logical_and(changes, np.logical_not(np.logical_and(np.isnan(ordered[1:]),
                                                                        np.isnan(ordered[:-1]))))
    starts = flat_positions(np.concatenate([np.ones(1, dtype=np.bool_), changes])[:n])
    values = ordered[starts]
    if not (return_index or return_inverse or return_counts):
        return values
    out: list[Any] = [values]
    if return_index:
        out.append(order[starts])
    if return_inverse:
        out.append(np.reshape(np.searchsorted(values, flat), a.shape))
    if return_counts:
        ends = np.concatenate([starts[1:], np.reshape(lowering.lift(ctx, n), (1,)).astype(np.int64)])
        out.append(ends[:starts.shape[0]] - starts)
    return tuple(out)
