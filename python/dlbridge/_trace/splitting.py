"""Splitting an array into pieces: ``split``, ``array_split``, ``hsplit``, ``vsplit``, ``dsplit``.

The pieces are basic-indexing views of the array, as NumPy's are. A number of sections needs
no size as a number: the bounds of the pieces are arithmetic on the dynamic size of the split
axis (``split``'s equal division a run-time check), so the kernel stays shape-generic; a traced
number of sections, which decides how many arrays come back, is fixed at the call's value by
specialisation. Called on nothing traced, each is NumPy's function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import elementwise, lowering
from .creation import array_operand
from .errors import trace_error
from .indexing import getitem
from .registry import op
from .traced_array import SymbolicDim, TracedArray

__all__ = ["array_split", "dsplit", "hsplit", "split", "vsplit"]

Size = Any  # an int or a SymbolicDim


def _min(a: Size, b: Size) -> Size:
    """``min(a, b)`` of sizes, as size arithmetic when one is dynamic."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    d = a - b
    return a - (d + abs(d)) // 2


def _piece(x: TracedArray, axis: int, start: Any, stop: Any) -> TracedArray:
    return getitem(x, tuple(slice(start, stop) if k == axis else slice(None) for k in range(x.ndim)))


def _sections(value: Any, name: str) -> int | None:
    """The number of sections ``value`` asks for, or None for a list of split points."""
    if isinstance(value, TracedArray) and value.ndim == 0:
        if not value.element_type.is_int:
            raise trace_error(f"{name}: the number of sections must be an integer", TypeError)
        return int(value)  # how many arrays come back depends on it: specialised on its value
    if isinstance(value, SymbolicDim):
        return int(value)
    if isinstance(value, (bool, np.bool_)):
        raise trace_error(f"{name}: the number of sections must be an integer, not bool", TypeError)
    if isinstance(value, (int, np.integer)) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return int(value)
    return None


def _points(value: Any, name: str) -> list[Any]:
    """The split points of a list, tuple, NumPy or traced 1-D array of integers."""
    if isinstance(value, TracedArray):
        if value.ndim != 1 or value.dims[0] is None:
            raise trace_error(f"{name}: split points in a traced array need a length known while tracing "
                              "(pass a list)", TypeError)
        if not value.element_type.is_int:
            raise trace_error(f"{name}: split points must be integers", TypeError)
        return [getitem(value, k) for k in range(value.dims[0])]
    if isinstance(value, np.ndarray):
        if value.ndim != 1 or value.dtype.kind not in "iu":
            raise trace_error(f"{name}: split points must be a 1-D array of integers", TypeError)
        return [int(v) for v in value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise trace_error(f"{name}: indices_or_sections must be an integer or a sequence of integers, "
                      f"not {type(value).__name__}", TypeError)


def _split(ary: Any, indices_or_sections: Any, axis: Any, name: str, equal: bool) -> list[TracedArray]:
    ctx = lowering.context_of(ary)
    x = array_operand(ctx, ary, f"numpy.{name}")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise trace_error(f"numpy.{name}: axis must be an integer", TypeError)
    if not -x.ndim <= int(axis) < x.ndim:
        raise trace_error(f"axis {int(axis)} is out of bounds for array of dimension {x.ndim}",
                          np.exceptions.AxisError)
    ax = int(axis) % x.ndim
    n: Size = x.shape[ax]
    sections = _sections(indices_or_sections, f"numpy.{name}")
    if sections is None:
        points = _points(indices_or_sections, f"numpy.{name}")
        bounds = [0, *points, None]
        return [_piece(x, ax, bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    if equal and sections == 0:
        raise trace_error("integer modulo by zero", ZeroDivisionError)  # NumPy's split takes size % 0
    if sections <= 0:
        raise trace_error("number sections must be larger than 0.", ValueError)
    if equal:
        if isinstance(n, int):
            if n % sections:
                raise trace_error("array split does not result in an equal division", ValueError)
        elif sections > 1:
            rest = (n % sections).as_array()
            lowering.runtime_check(elementwise.binary("equal", rest, 0), "invalid_argument",
                                   "array split does not result in an equal division")
    each, extras = n // sections, n % sections
    starts = [i * each + _min(i, extras) for i in range(sections)]
    return [_piece(x, ax, starts[i], starts[i + 1] if i + 1 < sections else None) for i in range(sections)]


@op("split")
def split(ary: Any, indices_or_sections: Any, axis: Any = 0) -> Any:
    """``ary`` split along ``axis`` into equal sections (an int, which must divide the size) or
    at the given indices (a list of views)."""
    if not lowering.holds_traced(ary, indices_or_sections):
        return np.split(ary, indices_or_sections, axis)
    return _split(ary, indices_or_sections, axis, "split", True)


@op("array_split")
def array_split(ary: Any, indices_or_sections: Any, axis: Any = 0) -> Any:
    """``ary`` split along ``axis`` into sections (the first ``size % n`` one longer) or at the
    given indices."""
    if not lowering.holds_traced(ary, indices_or_sections):
        return np.array_split(ary, indices_or_sections, axis)
    return _split(ary, indices_or_sections, axis, "array_split", False)


def _split_along(name: str, ary: Any, indices_or_sections: Any, min_ndim: int, axis: Any) -> Any:
    if not lowering.holds_traced(ary, indices_or_sections):
        return getattr(np, name)(ary, indices_or_sections)
    ctx = lowering.context_of(ary)
    x = array_operand(ctx, ary, f"numpy.{name}")
    if x.ndim < min_ndim:
        raise trace_error(f"{name} only works on arrays of {min_ndim} or more dimensions", ValueError)
    return _split(x, indices_or_sections, axis(x.ndim), name, True)


@op("hsplit")
def hsplit(ary: Any, indices_or_sections: Any) -> Any:
    """``split`` along axis 1 (axis 0 of a 1-D array)."""
    return _split_along("hsplit", ary, indices_or_sections, 1, lambda n: 1 if n > 1 else 0)


@op("vsplit")
def vsplit(ary: Any, indices_or_sections: Any) -> Any:
    """``split`` along axis 0 of an array of 2 dims or more."""
    return _split_along("vsplit", ary, indices_or_sections, 2, lambda n: 0)


@op("dsplit")
def dsplit(ary: Any, indices_or_sections: Any) -> Any:
    """``split`` along axis 2 of an array of 3 dims or more."""
    return _split_along("dsplit", ary, indices_or_sections, 3, lambda n: 2)
