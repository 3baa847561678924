"""What the traced function sees as Python's ``math`` module: ``math.sqrt(v)``, ``math.erf(v)``...
of a traced 0-d value are the op table's ufuncs on it in float64, a traced Python float (a
``bool`` for ``isnan`` and friends, an ``int`` for ``floor``/``ceil``/``trunc``), as Python would
give; on anything else (numbers, sizes, which specialise) they are ``math``'s own. Functions
``math`` has and NumPy has no ufunc for (``gamma``, ``erfc``...) stay ``math``'s: on a traced
value they fail as Python's would, by asking for a number.
"""

from __future__ import annotations

import math
import types
from typing import Any, Callable

from . import dtypes as D
from . import lowering, registry
from .errors import trace_error
from .traced_array import TracedArray

__all__ = ["MATH_FUNCTIONS", "math_proxy", "python_scalar"]

#: ``math`` name -> (the op table's ufunc, the Python kind of the result).
_UFUNCS: dict[str, tuple[str, str]] = {
    **{n: (n, "float") for n in ("sqrt", "exp", "log10", "log2", "log1p", "expm1", "sin", "cos", "tan", "sinh",
                                 "cosh", "tanh", "erf", "hypot", "copysign", "degrees", "radians", "fmod")},
    "asin": ("arcsin", "float"), "acos": ("arccos", "float"), "atan": ("arctan", "float"),
    "atan2": ("arctan2", "float"), "asinh": ("arcsinh", "float"), "acosh": ("arccosh", "float"),
    "atanh": ("arctanh", "float"), "fabs": ("absolute", "float"), "pow": ("power", "float"),
    "exp2": ("exp2", "float"), "cbrt": ("cbrt", "float"),
    "isnan": ("isnan", "bool"), "isinf": ("isinf", "bool"), "isfinite": ("isfinite", "bool"),
    "floor": ("floor", "int"), "ceil": ("ceil", "int"), "trunc": ("trunc", "int"),
}


def python_scalar(value: TracedArray, kind: str) -> TracedArray:
    """The 0-d ``value`` as the traced Python scalar of ``kind`` (weak in NumPy's promotion)."""
    dt = {"float": D.FLOAT64, "int": D.INT64, "bool": D.BOOL}[kind]
    value = registry.lookup("astype").impl(value, dt.name) if value.element_type != dt else value  # type: ignore[union-attr]
    ssa = lowering.scalar_ssa(value)
    return TracedArray(value.context, ssa, dt, (), weak=kind, is_scalar=True)


def _function(name: str, ufunc: str, kind: str) -> Callable[..., Any]:
    real = getattr(math, name)
    impl = registry.lookup(ufunc).impl  # type: ignore[union-attr]

    def call(*args: Any) -> Any:
        if not any(isinstance(a, TracedArray) for a in args):
            return real(*args)
        for a in args:
            if isinstance(a, TracedArray) and a.ndim:
                raise trace_error(f"math.{name}: only 0-dimensional arrays can be converted to Python scalars",
                                  TypeError)
        values = [registry.lookup("astype").impl(a, "float64") if isinstance(a, TracedArray)  # type: ignore[union-attr]
                  else float(a) for a in args]
        result = impl(*values)
        return python_scalar(result, kind)

    call.__name__ = name
    call.__doc__ = real.__doc__
    return call


_ln = _function("log", "log", "float")


def _log(x: Any, base: Any = None) -> Any:
    """``math.log(x[, base])``."""
    if not isinstance(x, TracedArray) and not isinstance(base, TracedArray):
        return math.log(x) if base is None else math.log(x, base)
    return _ln(x) if base is None else registry.lookup("divide").impl(_ln(x), _ln(base))  # type: ignore[union-attr]


#: The ``math`` functions that take traced values, by the ``math`` function they stand for.
MATH_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    getattr(math, name): _function(name, ufunc, kind) for name, (ufunc, kind) in _UFUNCS.items() if hasattr(math, name)
}
MATH_FUNCTIONS[math.log] = _log


class _MathProxy(types.ModuleType):
    """The ``math`` module as a traced function sees it."""

    def __getattr__(self, name: str) -> Any:
        value = getattr(math, name)
        return MATH_FUNCTIONS.get(value, value) if callable(value) else value

    def __dir__(self) -> list[str]:
        return dir(math)


math_proxy = _MathProxy("math", math.__doc__)
