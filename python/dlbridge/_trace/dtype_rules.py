"""The dtype rules the op table runs for every ufunc, before its implementation.

A ufunc declares one of these rules (``op(..., kind="ufunc", dtype_rule=FLOAT)``); the table calls
the declared implementation with the rule's answer, a :class:`Typed`: the operands lifted into the
trace, their NumPy promotion, and the result dtype the rule gives for them (as JAX's
``standard_primitive`` carries a dtype rule beside the primitive).  Implementations emit the
result in ``Typed.dtype`` and never compute it themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import dtypes as D
from . import lowering
from .dtypes import DType
from .errors import unsupported
from .registry import DTypeRule
from .traced_array import TraceContext

__all__ = [
    "BITWISE_COUNT",
    "BOOL",
    "FLOAT",
    "FLOAT_POWER",
    "INT",
    "INTEGER",
    "INT_NO_BOOL_LOOP",
    "LDEXP",
    "NO_BOOL_LOOP",
    "PROMOTE",
    "REAL",
    "SAME",
    "TRUE_DIVIDE",
    "Typed",
    "op_label",
]


@dataclass(frozen=True)
class Typed:
    """A ufunc's operands as its dtype rule leaves them for the implementation.

    Attributes:
        context: the trace the operands belong to.
        operands: the operands, lifted (traced arrays, or Python scalars, which stay weak).
        common: NumPy's promotion of the operands (NEP 50): the dtype an implementation computes
            in where its rule does not name another.
        common_weak: the weak kind of ``common`` when every operand was a Python scalar, else None.
        dtype: the result dtype the rule gives.
        weak: the weak kind of the result when every operand was a Python scalar, else None.
    """

    context: TraceContext
    operands: tuple[Any, ...]
    common: DType
    common_weak: str | None
    dtype: DType
    weak: str | None


#: NumPy ufunc name → the Python operator spelling it, for messages.
_OPERATOR = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "divide": "/",
    "floor_divide": "//",
    "remainder": "%",
    "power": "**",
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
    "equal": "==",
    "not_equal": "!=",
    "negative": "unary -",
    "invert": "~",
}


def op_label(name: str) -> str:
    """How messages name ufunc ``name``: with its operator where it has one, ``add (+)``."""
    symbol = _OPERATOR.get(name)
    return f"{name} ({symbol})" if symbol else name


Result = Callable[[DType, "str | None", str], "tuple[DType, str | None]"]


def _rule(name: str, doc: str, result: Result) -> DTypeRule:
    """A :class:`~.registry.DTypeRule` from ``result(common, common_weak, op)``, which gives the
    result dtype and weak kind from the operands' promotion, or refuses it."""

    def apply(op: str, operands: tuple[Any, ...]) -> Typed:
        ctx = lowering.context_of(*operands)
        lifted = tuple(lowering.lift(ctx, x, op) for x in operands)
        common, common_weak = lowering.promote(lifted)
        dtype, weak = result(common, common_weak, op)
        return Typed(ctx, lifted, common, common_weak, dtype, weak)

    return DTypeRule(name, doc, apply)


def _weak_of(dtype: DType, common_weak: str | None) -> str | None:
    """The weak kind of a result of ``dtype`` computed from weak operands only."""
    return None if common_weak is None else lowering.kind_of(dtype)


def _promoted(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    return common, weak


def _float(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    dtype = D.float_for(common)
    return dtype, _weak_of(dtype, weak)


def _true_divide(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    dtype = common if common.is_inexact else D.FLOAT64
    return dtype, _weak_of(dtype, weak)


def _bool(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    return D.BOOL, None if weak is None else "bool"


def _int(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    if not (common.is_bool or common.is_int):
        raise unsupported(op_label(op), f"not supported for {common.name}")
    return common, weak


def _no_bool_loop(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    dtype = D.DTYPES["int8"] if common.is_bool else common
    return dtype, _weak_of(dtype, weak)


def _integer(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    if not common.is_int:
        raise unsupported(op_label(op), f"not supported for {common.name}")
    return common, weak


def _int_no_bool_loop(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    return _no_bool_loop(*_int(common, weak, op), op)


def _bitwise_count(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    _int(common, weak, op)
    return D.DTYPES["uint8"], None


def _float_power(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    dtype = D.COMPLEX128 if common.is_complex else D.FLOAT64
    return dtype, _weak_of(dtype, weak)


def _ldexp(op: str, operands: tuple[Any, ...]) -> Typed:
    """``ldexp(x1, x2)``: the float that holds ``x1``'s dtype, scaled by the integer ``x2``
    (NumPy's loops take ``x2`` as int32 or int64: no uint64, no floats)."""
    ctx = lowering.context_of(*operands)
    lifted = tuple(lowering.lift(ctx, x, op) for x in operands)
    first, first_weak = lowering.promote(lifted[:1])
    second, _ = lowering.promote(lifted[1:])
    if second.is_inexact or second == D.UINT64 or first.is_complex:
        raise unsupported(op_label(op), f"not supported for {first.name} and {second.name}")
    dtype = D.float_for(first)
    common, common_weak = lowering.promote(lifted)
    return Typed(ctx, lifted, common, common_weak, dtype, _weak_of(dtype, first_weak))


def _real(common: DType, weak: str | None, op: str) -> tuple[DType, str | None]:
    if common.is_complex:
        return common.component, None if weak is None else "float"
    return common, weak


#: Arithmetic, ``maximum``/``minimum``, ``matmul``.
PROMOTE = _rule("promote", "NumPy's promotion of the inputs (NEP 50 for Python scalars)", _promoted)
#: Functions of one argument that keep its dtype (``negative``, rounding, ``sign``).
SAME = _rule("same", "the dtype of the input", _promoted)
#: Float functions: integers and bools become the float that holds them (8-bit: ``float16``).
FLOAT = _rule("float", "the promoted inputs, integers and bools becoming the float that holds them", _float)
#: ``divide``: NumPy's ``true_divide`` loops divide integers and bools in ``float64``.
TRUE_DIVIDE = _rule("true_divide", "the promoted inputs when inexact, else float64", _true_divide)
#: Comparisons, logical functions and float classes.
BOOL = _rule("bool", "bool", _bool)
#: The bitwise ufuncs, which NumPy defines for integers and bools only.
INT = _rule("int", "the promoted inputs, which must be integers or bools", _int)
#: Ufuncs with no bool loop (``floor_divide``, ``remainder``, ``power``, ``conjugate``): NumPy
#: runs bools through the ``int8`` loop.
NO_BOOL_LOOP = _rule("no_bool_loop", "the promoted inputs, bools becoming int8", _no_bool_loop)
#: ``absolute``: the magnitude of a complex number is its component float.
REAL = _rule("real", "the promoted inputs, complex becoming its component float", _real)
#: ``gcd``/``lcm``: NumPy defines them for integers only (not bools).
INTEGER = _rule("integer", "the promoted inputs, which must be integers", _integer)
#: The shifts: integers, bools running through the ``int8`` loop.
INT_NO_BOOL_LOOP = _rule("int_no_bool_loop", "the promoted inputs, which must be integers or bools; bools "
                         "becoming int8", _int_no_bool_loop)
#: ``bitwise_count``: the number of one bits of an integer, as uint8.
BITWISE_COUNT = _rule("bitwise_count", "uint8, of integer or bool inputs", _bitwise_count)
#: ``float_power``: NumPy's only loops are float64 and complex128.
FLOAT_POWER = _rule("float_power", "complex128 for complex inputs, else float64", _float_power)
#: ``ldexp``: the float that holds the first input; the second must be an integer.
LDEXP = DTypeRule("ldexp", "the float that holds the first input; the second must be an integer or bool", _ldexp)
