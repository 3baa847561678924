"""The one table of traced operations.

Every operation the tracer knows is declared here once, by the module that implements it, with
:func:`op`: its name, the NumPy names that dispatch to it, its implementation and, for a ufunc, its
arity and its dtype rule, which the table runs on the operands before the implementation (the
rules themselves are code in ``dtype_rules``).  ``TracedArray``'s operators and methods,
``__array_ufunc__``/``__array_function__`` and the public ``dlbridge.*`` functions are all looked
up in this table, so adding an operation is one declaration.

This module imports nothing from the tracer: the implementations import it, never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

__all__ = ["KINDS", "DTypeRule", "OpDef", "all_ops", "lookup", "lookup_method", "lookup_numpy", "op"]

#: ``"ufunc"``: elementwise over broadcast inputs (operators, ``out=``, ``ufunc.reduce``);
#: ``"function"``: anything else, called with NumPy's signature.
KINDS = ("ufunc", "function")

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class DTypeRule:
    """How the result dtype of a ufunc follows from its operands, as code the table runs.

    Attributes:
        name: a short name (``"promote"``, ``"float"``...).
        doc: the rule in words.
        apply: ``apply(op, operands)`` prepares the operands of ufunc ``op`` and gives the result
            dtype (``dtype_rules.Typed``), or raises when the operands' dtypes have no result.
    """

    name: str
    doc: str
    apply: Callable[[str, tuple[Any, ...]], Any]


@dataclass(frozen=True)
class OpDef:
    """One traced operation.

    Attributes:
        name: the public name, ``dlbridge.<name>``.
        impl: the implementation, called with NumPy's signature while tracing; returns the result
            (a ``TracedArray``, a tuple of them, or a Python value).  For a ufunc the table makes
            it: it runs ``dtype_rule`` on the operands and calls ``lower`` with the answer.
        numpy: the NumPy function or ufunc names (``numpy.<name>``) that dispatch to ``impl``.
        kind: one of :data:`KINDS`.
        arity: the number of array inputs of a ufunc; None for functions.
        dtype_rule: the result dtype rule of a ufunc; None for functions, whose arguments
            (``dtype=``, ``axis=``...) decide their result dtype in their implementation.
        lower: a ufunc's declared implementation, called with what ``dtype_rule`` gives; None
            for functions.
        method: the ``ndarray`` method name that calls ``impl`` with the array first, if any.
        doc: one line for ``dlbridge.<name>.__doc__``.
    """

    name: str
    impl: Callable[..., Any]
    numpy: tuple[str, ...]
    kind: str
    arity: int | None
    dtype_rule: DTypeRule | None
    lower: Callable[[Any], Any] | None
    method: str | None
    doc: str

    def result(self, *operands: Any) -> Any:
        """What this ufunc's dtype rule gives for ``operands`` (``dtype_rules.Typed``)."""
        if self.dtype_rule is None:
            raise TypeError(f"{self.name} is not a ufunc: it has no dtype rule")
        return self.dtype_rule.apply(self.name, operands)


def _ufunc_impl(name: str, arity: int, rule: DTypeRule, lower: Callable[[Any], Any]) -> Callable[..., Any]:
    """The NumPy-signature implementation of ufunc ``name``: its operands go through ``rule``,
    whose answer ``lower`` emits."""
    if arity == 1:

        def impl(x: Any) -> Any:
            return lower(rule.apply(name, (x,)))

    elif arity == 2:

        def impl(x1: Any, x2: Any) -> Any:  # type: ignore[misc]
            return lower(rule.apply(name, (x1, x2)))

    else:
        raise ValueError(f"op {name!r}: ufuncs of {arity} operands are not supported")
    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = lower.__doc__
    impl.__wrapped__ = lower  # type: ignore[attr-defined]
    return impl


_BY_NAME: dict[str, OpDef] = {}
_BY_NUMPY: dict[str, OpDef] = {}
_BY_METHOD: dict[str, OpDef] = {}


def op(
    name: str,
    *,
    numpy: tuple[str, ...] | None = None,
    kind: str = "function",
    arity: int | None = None,
    dtype_rule: DTypeRule | None = None,
    method: str | None = None,
    doc: str | None = None,
) -> Callable[[F], F]:
    """Declares the decorated function as the implementation of operation ``name``.

    A ufunc (``kind="ufunc"``) declares its ``arity`` and ``dtype_rule``, and the decorated
    function takes what the rule gives (``dtype_rules.Typed``): the table runs the rule on the
    operands first.  A function takes NumPy's arguments.  ``numpy`` defaults to ``(name,)``; pass
    ``()`` for a dlbridge-only operation.  ``doc`` defaults to the first line of the decorated
    function's docstring.  Declaring a name twice is an error.
    """
    if kind not in KINDS:
        raise ValueError(f"op {name!r}: kind must be one of {KINDS}, not {kind!r}")
    if (kind == "ufunc") != (arity is not None):
        raise ValueError(f"op {name!r}: a ufunc has an arity, a function has none")
    if (kind == "ufunc") != (dtype_rule is not None):
        raise ValueError(f"op {name!r}: a ufunc has a dtype rule, a function has none")

    def register(declared: F) -> F:
        first_line = (declared.__doc__ or "").strip().splitlines()
        ufunc = dtype_rule is not None and arity is not None
        entry = OpDef(
            name=name,
            impl=_ufunc_impl(name, arity, dtype_rule, declared) if ufunc else declared,  # type: ignore[arg-type]
            numpy=(name,) if numpy is None else tuple(numpy),
            kind=kind,
            arity=arity,
            dtype_rule=dtype_rule,
            lower=declared if ufunc else None,
            method=method,
            doc=doc if doc is not None else (first_line[0] if first_line else ""),
        )
        if name in _BY_NAME:
            raise ValueError(f"op {name!r} is declared twice")
        for np_name in entry.numpy:
            if np_name in _BY_NUMPY:
                raise ValueError(f"numpy.{np_name} is declared by {_BY_NUMPY[np_name].name!r} and {name!r}")
        if method is not None and method in _BY_METHOD:
            raise ValueError(f"ndarray.{method} is declared by {_BY_METHOD[method].name!r} and {name!r}")
        _BY_NAME[name] = entry
        for np_name in entry.numpy:
            _BY_NUMPY[np_name] = entry
        if method is not None:
            _BY_METHOD[method] = entry
        return declared

    return register


def lookup(name: str) -> OpDef | None:
    """The operation ``dlbridge.<name>``, if declared."""
    return _BY_NAME.get(name)


def lookup_numpy(name: str) -> OpDef | None:
    """The operation that ``numpy.<name>`` dispatches to, if declared."""
    return _BY_NUMPY.get(name)


def lookup_method(name: str) -> OpDef | None:
    """The operation that the ``ndarray`` method ``name`` calls, if declared."""
    return _BY_METHOD.get(name)


def all_ops() -> list[OpDef]:
    """Every declared operation, in declaration order."""
    return list(_BY_NAME.values())
