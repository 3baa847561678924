"""Inserting and deleting along an axis: ``np.insert`` and ``np.delete``.

Both build the new array from slices of the old one and the values, joined by ``concatenate``
(NumPy's own implementation writes the same slices into a new array). Positions given as
Python ints need no size as a number: a negative one is the dynamic size plus it, and the bounds
are a run-time check (NumPy's IndexError). Where the order of the positions, or the positions a
slice or a boolean mask selects, depends on the size, it is fixed at the call's value by
specialisation. Called on nothing traced, each is NumPy's function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import creation, elementwise, lowering, shapes
from .axes import broadcast_to, moveaxis
from .errors import trace_error, unsupported
from .indexing import getitem, index_value
from .registry import op
from .traced_array import SymbolicDim, TraceContext, TracedArray

__all__ = ["delete", "insert"]

Size = Any  # an int or a SymbolicDim


def _along(x: TracedArray, axis: int, start: Any, stop: Any) -> TracedArray:
    return getitem(x, tuple(slice(start, stop) if k == axis else slice(None) for k in range(x.ndim)))


def _operand(ctx: TraceContext, arr: Any, axis: Any, name: str) -> tuple[TracedArray, int]:
    """The array (flattened for ``axis=None``) and the axis, NumPy's AxisError out of range."""
    x = creation.array_operand(ctx, arr, name)
    if axis is None:
        return (shapes.reshape(x, -1) if x.ndim != 1 else x), 0
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise trace_error(f"{name}: axis must be an integer", TypeError)
    if not -x.ndim <= int(axis) < x.ndim:
        raise trace_error(f"axis {int(axis)} is out of bounds for array of dimension {x.ndim}",
                          np.exceptions.AxisError)
    return x, int(axis) % x.ndim


def _as_size(v: Any) -> Any:
    return v.as_array() if isinstance(v, SymbolicDim) else v


def _check(ok: Any, message: str, n: Size) -> None:
    """NumPy's IndexError ``message`` (``{0}``: the axis size) when ``ok`` fails at run time."""
    lowering.runtime_check(ok, "index_out_of_range", message, [n])


def _position(n: Size, index: Any, axis: int, upper: bool, name: str) -> Any:
    """``index`` (an int or a traced integer) as a position in ``[0, n]`` (``upper``: insert)
    or ``[0, n)`` (delete), checked as NumPy does (an IndexError)."""
    message = f"index {'{index}'} is out of bounds for axis {axis} with size {'{0}'}"
    if isinstance(index, TracedArray):
        if index.ndim or not index.element_type.is_int:
            raise unsupported(name, "a traced obj that is not one integer (the result's size would depend on it)")
        size = _as_size(n)
        low = elementwise.binary("greater_equal", index, elementwise.unary("negative", size))
        high = elementwise.binary("less_equal" if upper else "less", index, size)
        shown = SymbolicDim(index.context, index_value(index.context, index, name, "integer"), "index")
        lowering.runtime_check(elementwise.binary("logical_and", low, high), "index_out_of_range",
                               message.replace("{index}", "{1}"), [n, shown])
        negative = elementwise.binary("less", index, 0)
        return elementwise.where(negative, elementwise.binary("add", index, size), index)
    i = int(index)
    text = message.replace("{index}", str(i))
    if isinstance(n, int):
        if i < -n or i > n or (i == n and not upper):
            raise trace_error(text.replace("{0}", str(n)), IndexError)
        return i + n if i < 0 else i
    if i < 0:
        _check(elementwise.binary("less_equal", -i, n.as_array()), text, n)
        return n + i
    _check(elementwise.binary("less_equal" if upper else "less", i, n.as_array()), text, n)
    return i


def _indices(obj: Any, name: str) -> np.ndarray:
    """A list of positions (not traced) as NumPy's integer array; booleans stay booleans."""
    try:
        indices = np.asarray(obj)
    except ValueError as error:
        raise trace_error(f"{name}: {error}", ValueError) from None
    if indices.size == 0 and indices.dtype.kind not in "b":
        return indices.astype(np.intp)
    if indices.dtype.kind not in "iub":
        raise trace_error(f"{name}: index arrays must be integers", IndexError)
    return indices


def _values(ctx: TraceContext, values: Any, x: TracedArray, name: str) -> TracedArray:
    """``np.array(values, ndmin=x.ndim, dtype=x.dtype)``."""
    v = creation.array_operand(ctx, values, name)
    if v.element_type != x.element_type:
        v = elementwise.astype(v, x.element_type.name)
    return lowering.expand_units(ctx, v, list(range(x.ndim - v.ndim))) if v.ndim < x.ndim else v


def _shape_with(x: TracedArray, axis: int, size: Size) -> tuple[Any, ...]:
    return tuple(size if k == axis else d for k, d in enumerate(x.shape))


@op("insert")
def insert(arr: Any, obj: Any, values: Any, axis: Any = None) -> Any:
    """``arr`` with ``values`` inserted before the positions ``obj`` (an int, a slice or a list
    of ints) along ``axis`` (None: of the flattened array)."""
    if not lowering.holds_traced(arr, obj, values):
        return np.insert(arr, obj, values, axis=axis)
    ctx = lowering.context_of(arr, obj, values, *(values if isinstance(values, (list, tuple)) else ()))
    x, ax = _operand(ctx, arr, axis, "numpy.insert")
    obj = obj.as_array() if isinstance(obj, SymbolicDim) else obj
    n: Size = x.shape[ax]
    scalar_obj = isinstance(obj, TracedArray) or not isinstance(obj, (slice, list, tuple, np.ndarray))
    if isinstance(obj, slice):
        indices = np.arange(*obj.indices(int(n)), dtype=np.intp)  # int(n): specialised when dynamic
    elif isinstance(obj, TracedArray):
        if obj.ndim:
            raise unsupported("numpy.insert", "a traced array of positions (pass a list)")
        indices = None
    else:
        indices = _indices(obj, "numpy.insert")
        if indices.dtype.kind == "b":
            raise unsupported("numpy.insert", "a boolean obj (NumPy takes it as integers, deprecated)")
        if indices.ndim > 1:
            raise trace_error("index array argument obj to insert must be one dimensional or scalar", ValueError)
        scalar_obj = indices.ndim == 0
    if indices is None or indices.size == 1:
        position = _position(n, obj if indices is None else indices.item(), ax, True, "numpy.insert")
        v = _values(ctx, values, x, "numpy.insert")
        if scalar_obj:
            v = moveaxis(v, 0, ax)
        v = broadcast_to(v, _shape_with(x, ax, v.shape[ax]))
        return creation.concatenate([_along(x, ax, None, position), v, _along(x, ax, position, None)], axis=ax)
    if indices.size == 0:
        return lowering.copy(x)
    points = [int(i) for i in indices]
    if isinstance(n, SymbolicDim) and any(i < 0 for i in points):
        n = int(n)  # their order depends on the size: specialised
    points = [_position(n, i, ax, True, "numpy.insert") for i in points]
    v = broadcast_to(_values(ctx, values, x, "numpy.insert"), _shape_with(x, ax, len(points)))
    order = sorted(range(len(points)), key=lambda k: points[k])
    pieces, prev = [], 0
    for k in order:
        pieces += [_along(x, ax, prev, points[k]), _along(v, ax, k, k + 1)]
        prev = points[k]
    pieces.append(_along(x, ax, prev, None))
    return creation.concatenate(pieces, axis=ax)


def _keep_runs(x: TracedArray, ax: int, deleted: list[Any]) -> TracedArray:
    """``x`` without the positions ``deleted`` (sorted, distinct, checked) along ``ax``."""
    pieces, prev = [], 0
    for d in deleted:
        pieces.append(_along(x, ax, prev, d))
        prev = d + 1
    pieces.append(_along(x, ax, prev, None))
    return creation.concatenate(pieces, axis=ax)


@op("delete")
def delete(arr: Any, obj: Any, axis: Any = None) -> Any:
    """``arr`` without the positions ``obj`` (an int, a slice, a list of ints or a boolean mask)
    along ``axis`` (None: of the flattened array)."""
    if not lowering.holds_traced(arr, obj):
        return np.delete(arr, obj, axis=axis)
    ctx = lowering.context_of(arr, obj)
    x, ax = _operand(ctx, arr, axis, "numpy.delete")
    obj = obj.as_array() if isinstance(obj, SymbolicDim) else obj
    n: Size = x.shape[ax]
    if isinstance(obj, slice):
        start, stop, step = obj.start, obj.stop, obj.step
        simple = (step in (None, 1) and (start is None or (isinstance(start, int) and start >= 0))
                  and (stop is None or (isinstance(stop, int) and stop >= 0 and stop >= (start or 0))))
        if simple:
            kept = [_along(x, ax, None, start or 0)]
            if stop is not None:
                kept.append(_along(x, ax, stop, None))
            return creation.concatenate(kept, axis=ax)
        gone = set(range(*obj.indices(int(n))))  # int(n): specialised when dynamic
        return _keep_runs(x, ax, sorted(gone))
    if isinstance(obj, TracedArray):
        if obj.ndim:
            raise unsupported("numpy.delete", "a traced array of positions or mask (the result's size would "
                              "depend on its values)")
        j = _position(n, obj, ax, False, "numpy.delete")
        return creation.concatenate([_along(x, ax, None, j), _along(x, ax, j + 1, None)], axis=ax)
    indices = _indices(obj, "numpy.delete")
    if indices.dtype.kind == "b":
        if indices.ndim != 1 or indices.shape[0] != int(n):  # int(n): specialised when dynamic
            raise trace_error("boolean array argument obj to delete must be one dimensional and match the axis "
                              f"length of {int(n)}", ValueError)
        return _keep_runs(x, ax, [int(i) for i in np.flatnonzero(indices)])
    if indices.ndim > 1:
        raise trace_error("index array argument obj to delete must be one dimensional or scalar", ValueError)
    points = [int(i) for i in indices.reshape(-1)]
    if not points:
        return lowering.copy(x)
    if isinstance(n, SymbolicDim) and len(points) > 1 and any(i < 0 for i in points):
        n = int(n)  # their order depends on the size: specialised
    checked = [_position(n, i, ax, False, "numpy.delete") for i in points]
    if len(checked) == 1:
        return _keep_runs(x, ax, checked)
    return _keep_runs(x, ax, sorted(set(checked)))
