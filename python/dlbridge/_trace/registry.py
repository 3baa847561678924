"""The one table of traced operations.

Every operation the tracer knows is declared here once, by the module that implements it, with
:func:`op`: its name, the NumPy names that dispatch to it, its arity and dtype rule when it is
elementwise, and its implementation.  ``TracedArray``'s operators and methods,
``__array_ufunc__``/``__array_function__`` and the public ``dlbridge.*`` functions are all looked
up in this table, so adding an operation is one declaration.

This module imports nothing from the tracer: the implementations import it, never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

__all__ = ["DTYPE_RULES", "KINDS", "OpDef", "all_ops", "lookup", "lookup_method", "lookup_numpy", "op"]

#: ``"ufunc"``: elementwise over broadcast inputs (operators, ``out=``, ``ufunc.reduce``);
#: ``"function"``: anything else, called with NumPy's signature.
KINDS = ("ufunc", "function")

#: How the result dtype of an operation follows from its inputs.
DTYPE_RULES = {
    "promote": "NumPy's promotion of the inputs (NEP 50 for Python scalars)",
    "float": "the promoted inputs, integers and bools becoming the float that holds them",
    "bool": "bool",
    "int": "the promoted inputs, which must be integers or bools",
    "same": "the dtype of the (first) input",
    "explicit": "given by the arguments (dtype=, the values of a creation function)",
}

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class OpDef:
    """One traced operation.

    Attributes:
        name: the public name, ``dlbridge.<name>``.
        impl: the implementation, called with NumPy's signature while tracing; returns the result
            (a ``TracedArray``, a tuple of them, or a Python value).
        numpy: the NumPy function or ufunc names (``numpy.<name>``) that dispatch to ``impl``.
        kind: one of :data:`KINDS`.
        arity: the number of array inputs of a ufunc; None for functions.
        dtype_rule: one of :data:`DTYPE_RULES`.
        method: the ``ndarray`` method name that calls ``impl`` with the array first, if any.
        doc: one line for ``dlbridge.<name>.__doc__``.
    """

    name: str
    impl: Callable[..., Any]
    numpy: tuple[str, ...]
    kind: str
    arity: int | None
    dtype_rule: str
    method: str | None
    doc: str


_BY_NAME: dict[str, OpDef] = {}
_BY_NUMPY: dict[str, OpDef] = {}
_BY_METHOD: dict[str, OpDef] = {}


def op(
    name: str,
    *,
    numpy: tuple[str, ...] | None = None,
    kind: str = "function",
    arity: int | None = None,
    dtype_rule: str = "explicit",
    method: str | None = None,
    doc: str | None = None,
) -> Callable[[F], F]:
    """Declares the decorated function as the implementation of operation ``name``.

    ``numpy`` defaults to ``(name,)``; pass ``()`` for a dlbridge-only operation.  ``doc`` defaults
    to the first line of the implementation's docstring.  Declaring a name twice is an error.
    """
    if kind not in KINDS:
        raise ValueError(f"op {name!r}: kind must be one of {KINDS}, not {kind!r}")
    if dtype_rule not in DTYPE_RULES:
        raise ValueError(f"op {name!r}: dtype_rule must be one of {sorted(DTYPE_RULES)}")
    if (kind == "ufunc") != (arity is not None):
        raise ValueError(f"op {name!r}: a ufunc has an arity, a function has none")

    def register(impl: F) -> F:
        first_line = (impl.__doc__ or "").strip().splitlines()
        entry = OpDef(
            name=name,
            impl=impl,
            numpy=(name,) if numpy is None else tuple(numpy),
            kind=kind,
            arity=arity,
            dtype_rule=dtype_rule,
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
        return impl

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
