"""``TracedArray``'s operators and methods, installed from the op table.

Every operator is the table's entry for its NumPy ufunc (``a + b`` is ``add``, ``b + a`` the same
with the operands swapped, ``a += b`` an in-place update through ``inplace.ufunc``), and every
method the table declares with ``method=`` is reached through ``TracedArray.__getattr__``. Only
the methods whose signature differs from the NumPy function's (``x.reshape(2, 3)``,
``x.transpose(1, 0)``) are adapted here. This module imports the implementations; the tracer
module, which defines ``TracedArray``, imports none of them.
"""

from __future__ import annotations

from typing import Any, Callable

from . import (  # noqa: F401 - declare what is installed
    contractions,
    elementwise,
    indexing,
    inplace,
    numpy_dispatch,
    reductions,
    registry,
    shapes,
    ufuncs,
)
from . import dtypes as D
from .errors import trace_error, unsupported
from .traced_array import TracedArray

__all__: list[str] = []

#: operator → NumPy ufunc
_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "matmul": "matmul", "lshift": "left_shift", "rshift": "right_shift",
}
_COMPARISONS = {
    "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal", "eq": "equal",
    "ne": "not_equal",
}
_UNARY = {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}


def _impl(name: str) -> Callable[..., Any]:
    declared = registry.lookup(name)
    assert declared is not None, name
    return declared.impl


def _binary(name: str, reflected: bool) -> Callable[[TracedArray, Any], Any]:
    impl = _impl(name)
    if reflected:
        return lambda self, other: impl(other, self)
    return lambda self, other: impl(self, other)


def _in_place(name: str) -> Callable[[TracedArray, Any], Any]:
    return lambda self, other: inplace.ufunc(name, self, other)


def _unary(name: str) -> Callable[[TracedArray], Any]:
    impl = _impl(name)
    return lambda self: impl(self)


def _reshape(self: TracedArray, *shape: Any, order: str = "C") -> Any:
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    if order != "C":
        raise unsupported("reshape", f"order={order!r}")
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _impl("reshape")(self, shape)


def _transpose(self: TracedArray, *axes: Any) -> Any:
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]  # type: ignore[assignment]
    return _impl("transpose")(self, tuple(axes) if axes else None)


def _round(self: TracedArray, ndigits: Any = None) -> Any:
    """``round(x)`` of a scalar (a Python number argument, a 0-d result such as ``x.sum()``,
    which NumPy gives as a scalar): halves to even, a Python int without ``ndigits``; arrays
    refuse it as NumPy's do."""
    if self.ndim or (self._arg is not None and not self._is_scalar):
        raise trace_error("type numpy.ndarray doesn't define __round__ method", TypeError)
    rounded = _impl("round")(self, 0 if ndigits is None else ndigits)
    if ndigits is not None:
        return rounded
    if not self._dtype.is_inexact:
        return self
    return TracedArray(self._ctx, _impl("astype")(rounded, "int64")._value, D.INT64, (), weak="int",
                       is_scalar=rounded._is_scalar)


def _format(self: TracedArray, spec: str) -> str:
    """``format(x, spec)``: the text of a traced array without a spec; a value with one needs
    the value, which only the kernel has."""
    if spec:
        raise unsupported(f"formatting a traced value with {spec!r}", "its value is known only when the kernel runs")
    return str(self)


def _sort(self: TracedArray, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> None:
    """``x.sort()``: ``x`` sorted in place (NumPy's method returns None)."""
    inplace.assign(self, _impl("sort")(self, axis, kind, order), op="ndarray.sort", casting="unsafe")


def _install() -> None:
    for op, name in {**_BINARY, **_COMPARISONS}.items():
        setattr(TracedArray, f"__{op}__", _binary(name, False))
    for op, name in _BINARY.items():
        setattr(TracedArray, f"__r{op}__", _binary(name, True))
        setattr(TracedArray, f"__i{op}__", _in_place(name))
    for op, name in _UNARY.items():
        setattr(TracedArray, f"__{op}__", _unary(name))
    TracedArray.__hash__ = lambda self: id(self)  # type: ignore[method-assign]
    TracedArray.__getitem__ = indexing.getitem  # type: ignore[method-assign]
    TracedArray.__setitem__ = inplace.setitem  # type: ignore[method-assign]
    TracedArray.real = property(lambda self: _impl("real")(self), doc="The real part.")  # type: ignore[attr-defined]
    TracedArray.imag = property(lambda self: _impl("imag")(self), doc="The imaginary part.")  # type: ignore[attr-defined]
    TracedArray.conj = TracedArray.conjugate = elementwise.conjugate_method  # type: ignore[attr-defined]
    TracedArray.__divmod__ = _binary("divmod", False)  # type: ignore[attr-defined]
    TracedArray.__rdivmod__ = _binary("divmod", True)  # type: ignore[attr-defined]
    TracedArray.sort = _sort  # type: ignore[attr-defined]
    TracedArray.__round__ = _round  # type: ignore[attr-defined]
    TracedArray.__format__ = _format  # type: ignore[method-assign]
    TracedArray.reshape = _reshape  # type: ignore[attr-defined]
    TracedArray.transpose = _transpose  # type: ignore[attr-defined]
    TracedArray.__array_ufunc__ = (  # type: ignore[attr-defined]
        lambda self, ufunc, method, *inputs, **kwargs: numpy_dispatch.array_ufunc(ufunc, method, inputs, kwargs)
    )
    TracedArray.__array_function__ = (  # type: ignore[attr-defined]
        lambda self, func, types_, args, kwargs: numpy_dispatch.array_function(func, args, kwargs)
    )


_install()
