"""The public array functions (``dlbridge.exp``, ``dlbridge.where``...).

Inside a traced function they emit MLIR; called outside a trace on concrete arrays they fall back
to NumPy so the same code also runs eagerly."""

from __future__ import annotations

import math
from typing import Any

from . import ops
from .tracer import TracedArray, current_context

__all__ = [
    "exp", "log", "sqrt", "tanh", "sin", "cos", "erf", "sigmoid", "maximum", "minimum", "where",
    "abs", "sum", "max", "min", "mean", "matmul", "reshape", "transpose", "astype",
]


def _tracing(*xs: Any) -> bool:
    return current_context() is not None or any(isinstance(x, TracedArray) for x in xs)


def _np() -> Any:
    import numpy as np

    return np


def _unary(name: str, doc: str) -> Any:
    def f(x: Any) -> Any:
        if _tracing(x):
            return ops.unary(name, x)
        np = _np()
        if name == "erf":
            return np.vectorize(math.erf, otypes=[np.result_type(np.asarray(x).dtype, np.float16)])(x)
        if name == "sigmoid":
            x = np.asarray(x)
            return 1 / (1 + np.exp(-x))
        return getattr(np, name)(x)

    f.__name__ = f.__qualname__ = {"absolute": "abs"}.get(name, name)
    f.__doc__ = doc
    return f


exp = _unary("exp", "Elementwise e**x.")
log = _unary("log", "Elementwise natural logarithm.")
sqrt = _unary("sqrt", "Elementwise square root.")
tanh = _unary("tanh", "Elementwise hyperbolic tangent.")
sin = _unary("sin", "Elementwise sine.")
cos = _unary("cos", "Elementwise cosine.")
erf = _unary("erf", "Elementwise error function.")
sigmoid = _unary("sigmoid", "Elementwise logistic function 1 / (1 + exp(-x)).")
abs = _unary("absolute", "Elementwise absolute value (complex: modulus).")  # noqa: A001


def maximum(x: Any, y: Any) -> Any:
    """Elementwise maximum (NaN-propagating like NumPy)."""
    return ops.binary("maximum", x, y) if _tracing(x, y) else _np().maximum(x, y)


def minimum(x: Any, y: Any) -> Any:
    """Elementwise minimum (NaN-propagating like NumPy)."""
    return ops.binary("minimum", x, y) if _tracing(x, y) else _np().minimum(x, y)


def where(condition: Any, x: Any, y: Any) -> Any:
    """``x`` where ``condition`` else ``y``, with broadcasting."""
    return ops.where(condition, x, y) if _tracing(condition, x, y) else _np().where(condition, x, y)


def sum(x: Any, axis: Any = None, *, keepdims: bool = False, dtype: Any = None) -> Any:  # noqa: A001
    """Sum over ``axis`` (int, tuple or None = all)."""
    if _tracing(x):
        return ops.reduce("sum", x, axis=axis, keepdims=keepdims, dtype=dtype)
    return _np().sum(x, axis=axis, keepdims=keepdims, dtype=dtype)


def max(x: Any, axis: Any = None, *, keepdims: bool = False) -> Any:  # noqa: A001
    """Maximum over ``axis`` (NaN-propagating)."""
    if _tracing(x):
        return ops.reduce("max", x, axis=axis, keepdims=keepdims)
    return _np().max(x, axis=axis, keepdims=keepdims)


def min(x: Any, axis: Any = None, *, keepdims: bool = False) -> Any:  # noqa: A001
    """Minimum over ``axis`` (NaN-propagating)."""
    if _tracing(x):
        return ops.reduce("min", x, axis=axis, keepdims=keepdims)
    return _np().min(x, axis=axis, keepdims=keepdims)


def mean(x: Any, axis: Any = None, *, keepdims: bool = False, dtype: Any = None) -> Any:
    """Arithmetic mean over ``axis`` (integers give float64)."""
    if _tracing(x):
        return ops.reduce("mean", x, axis=axis, keepdims=keepdims, dtype=dtype)
    return _np().mean(x, axis=axis, keepdims=keepdims, dtype=dtype)


def matmul(x: Any, y: Any) -> Any:
    """Matrix product with NumPy's rules for 1-D and batched operands."""
    return ops.matmul(x, y) if _tracing(x, y) else _np().matmul(x, y)


def reshape(x: Any, shape: Any) -> Any:
    """Reshape (C order); sizes are ints, at most one -1, or entries of a traced ``.shape``."""
    return ops.reshape(x, shape) if _tracing(x) else _np().reshape(x, shape)


def transpose(x: Any, axes: Any = None) -> Any:
    """Permute dims (``axes=None`` reverses them)."""
    if _tracing(x):
        return ops.transpose(x, None if axes is None else tuple(axes))
    return _np().transpose(x, axes)


def astype(x: Any, dtype: Any) -> Any:
    """Convert to ``dtype`` (NumPy casting semantics)."""
    return ops.astype(x, dtype) if _tracing(x) else _np().asarray(x).astype(dtype)
