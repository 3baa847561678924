"""NumPy's functional forms: ``apply_along_axis`` and ``apply_over_axes``.

``apply_along_axis`` is NumPy's own algorithm as a traced program: the function's result on the
first 1-d slice fixes the result's shape and dtype, and the other slices are one ``scf.for`` (the
loop rewrite of a user's function, ``loop_source``) whose body is the user's function traced
once, so any number of slices compiles to the same few lines.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import creation, elementwise, lowering
from .errors import trace_error
from .loop_source import rewrite_loops
from .numpy_proxy import numpy_proxy as xp
from .registry import op

__all__ = ["apply_along_axis", "apply_over_axes"]


def _axis(axis: Any, ndim: int, name: str) -> int:
    """``axis`` within ``ndim`` dims, NumPy's AxisError when it is not."""
    try:
        return int(normalize_axis_index(operator.index(axis), ndim))
    except TypeError:
        raise trace_error(f"numpy.{name}: axis must be an integer, not {axis!r}", TypeError) from None
    except np.exceptions.AxisError as error:
        raise trace_error(str(error), np.exceptions.AxisError) from None


def _slices_applied(func1d: Callable[..., Any], rows: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``func1d`` of each row of ``rows``, stacked: the first row's result gives the shape and
    dtype the others are stored in (cast as NumPy's assignment casts)."""
    first = xp.asanyarray(func1d(rows[0], *args, **kwargs))
    out = xp.empty_like(rows, shape=(rows.shape[0], *first.shape), dtype=first.dtype)
    out[0] = first
    for i in range(1, rows.shape[0]):
        out[i] = func1d(rows[i], *args, **kwargs)
    return out


_traced_slices_applied = rewrite_loops(_slices_applied)[0]


@op("apply_along_axis")
@lowering.numpy_unless_traced(np.apply_along_axis)
def apply_along_axis(func1d: Callable[..., Any], axis: Any, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """``func1d`` of every 1-d slice along ``axis``; its result's dims replace ``axis``."""
    a = creation.array_operand(lowering.context_of(arr, *args, *kwargs.values()), arr, "numpy.apply_along_axis")
    ax = _axis(axis, a.ndim, "apply_along_axis")
    moved = xp.moveaxis(a, ax, -1)
    lead = tuple(moved.shape[:-1])
    count: Any = 1
    for d in lead:
        count = count * d
    if isinstance(count, int):
        if count == 0:
            raise trace_error("Cannot apply_along_axis when any iteration dimensions are 0", ValueError)
    else:
        lowering.runtime_check(elementwise.binary("greater", count.as_array(), 0), "invalid_argument",
                               "Cannot apply_along_axis when any iteration dimensions are 0")
    rows = xp.reshape(moved, (count, moved.shape[-1]))
    out = _traced_slices_applied(func1d, rows, args, kwargs)
    result_dims = tuple(out.shape[1:])
    out = xp.reshape(out, (*lead, *result_dims))
    k, n_lead = len(result_dims), len(lead)
    perm = [*range(ax), *range(n_lead, n_lead + k), *range(ax, n_lead)]
    return xp.transpose(out, perm) if perm != list(range(n_lead + k)) else out


@op("apply_over_axes")
@lowering.numpy_unless_traced(np.apply_over_axes)
def apply_over_axes(func: Callable[..., Any], a: Any, axes: Any) -> Any:
    """``func(a, axis)`` for each of ``axes`` in turn, keeping the reduced axis (NumPy's rule)."""
    val = creation.array_operand(lowering.context_of(a), a, "numpy.apply_over_axes")
    for axis in np.atleast_1d(np.asarray(axes)):
        ax = int(axis) + val.ndim if axis < 0 else int(axis)  # unchecked: func decides, as in NumPy
        res = func(val, ax)
        if np.ndim(res) != val.ndim:
            res = xp.expand_dims(res, ax)
            if np.ndim(res) != val.ndim:
                raise trace_error("function is not returning an array of the correct shape", ValueError)
        val = res
    return val
