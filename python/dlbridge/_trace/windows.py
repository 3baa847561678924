"""Overlapping windows: ``numpy.lib.stride_tricks.sliding_window_view``.

NumPy makes the windows a read-only view with repeated strides; a tensor cannot alias itself, so
here they are one ``linalg.generic`` whose input map reads ``x[..., i + k, ...]`` (an affine sum of
the window's position and the offset in it), a copy of the windows that fuses into its consumer
(``v.mean(axis=-1)`` reads each element where the window needs it).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from . import creation, elementwise, lowering
from .errors import trace_error, unsupported
from .mlir_text import affine_map, tensor_type
from .registry import op
from .traced_array import TracedArray

__all__ = ["sliding_window_view"]

_NAME = "numpy.lib.stride_tricks.sliding_window_view"


def _window_shape(window_shape: Any) -> tuple[int, ...]:
    """The window's sizes as Python ints (an int argument is specialised on its value)."""
    sizes = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    try:
        return tuple(operator.index(w) for w in sizes)
    except TypeError:
        raise trace_error(f"{_NAME}: window_shape must be integers, not {window_shape!r}", TypeError) from None


@op("sliding_window_view")
@lowering.numpy_unless_traced(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(x: Any, window_shape: Any, axis: Any = None, *, subok: bool = False,
                        writeable: bool = False) -> TracedArray:
    """The windows of ``window_shape`` sliding along ``axis`` (every axis when None), as the
    trailing dims of the result; each windowed axis keeps ``n - w + 1`` positions."""
    if writeable:
        raise unsupported(_NAME, "writeable=True (the windows are a copy, not a view of x)")
    a = creation.array_operand(lowering.context_of(x), x, _NAME)
    window = _window_shape(window_shape)
    if any(w < 0 for w in window):
        raise trace_error("`window_shape` cannot contain negative values", ValueError)
    if axis is None:
        if len(window) != a.ndim:
            raise trace_error(f"Since axis is `None`, must provide window_shape for all dimensions of `x`; "
                              f"got {len(window)} window_shape elements and `x.ndim` is {a.ndim}.", ValueError)
        axes = tuple(range(a.ndim))
    else:
        try:
            axes = normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
        except TypeError:
            raise trace_error(f"{_NAME}: axis must be integers, not {axis!r}", TypeError) from None
        if len(window) != len(axes):
            raise trace_error(f"Must provide matching length window_shape and axis; got {len(window)} "
                              f"window_shape elements and {len(axes)} axes elements.", ValueError)
    trimmed: list[Any] = list(a.shape)
    for ax, w in zip(axes, window):
        n = trimmed[ax]
        if isinstance(n, int):
            if n < w:
                raise trace_error("window shape cannot be larger than input array shape", ValueError)
        else:
            lowering.runtime_check(elementwise.binary("greater_equal", n.as_array(), w), "invalid_argument",
                                   "window shape cannot be larger than input array shape")
        trimmed[ax] = n - (w - 1)
    R, W = a.ndim, len(window)
    ctx = a.context
    src = lowering.to_tensor(ctx, a)
    init = creation.empty((*trimmed, *window), dtype=a.element_type.name)
    ctx.begin_op()
    reads = [" + ".join([f"d{d}", *(f"d{R + j}" for j, ax in enumerate(axes) if ax == d)]) for d in range(R)]
    out = [f"d{k}" for k in range(R + W)]
    value = lowering.emit_generic(ctx, "windows", [src], [affine_map(R + W, reads)], init.value,
                                  tensor_type(init.dims, a.element_type), a.element_type,
                                  affine_map(R + W, out), ["parallel"] * (R + W), lambda b, ins, o: ins[0])
    sizes = [ctx.dim(init, k) if init.dims[k] is None else None for k in range(R + W)]
    return TracedArray(ctx, value, a.element_type, init.dims, sizes=sizes)
