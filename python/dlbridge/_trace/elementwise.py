"""Elementwise operations: the arithmetic, comparison, bitwise and logical ufuncs (``binary``), the
float functions of one argument (``unary``), ``where`` and ``astype``, and NumPy's everyday
elementwise functions beyond arithmetic: rounding, signs, float classes,
inverse and hyperbolic trigonometry, ``arctan2``/``hypot``/``copysign``/``fmax``/``fmin``,
``clip`` and the parts of complex numbers (``real``, ``imag``, ``conjugate``).  Each is declared
once in the op table (ufuncs reach it through ``__array_ufunc__``, ``clip`` through
``__array_function__`` and ``x.clip``), with NumPy 2's dtype rules: float functions compute
integers in the float that holds them, rounding keeps integer dtypes, the float classes of an
integer are constant.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import dtypes as D
from . import lowering, registry
from .complex_math import COMPLEX_UNARY, complex_sign, complex_unary
from .dtype_rules import (
    BOOL,
    FLOAT,
    INT,
    NO_BOOL_LOOP,
    PROMOTE,
    REAL,
    SAME,
    TRUE_DIVIDE,
    Typed,
    op_label,
)
from .dtypes import DType
from .errors import TraceError, trace_error, unsupported
from .lowering import emit_elementwise
from .mlir_text import Block, affine_map, tensor_type
from .registry import DTypeRule, op
from .traced_array import TraceContext, TracedArray, derived_view

__all__ = ["astype", "binary", "clip", "compare_scalars", "complex_extreme", "float_unary_names", "isnan_scalar",
           "unary", "where"]


def _check_no_negative_exponent(ctx: TraceContext, y: Any, dt: DType) -> None:
    """NumPy refuses integers to negative integer powers (ValueError): a negative Python int is
    refused now, a traced exponent by a run-time check (over all elements of an array)."""
    message = "Integers to negative integer powers are not allowed."
    if not isinstance(y, TracedArray):
        if int(y) < 0:
            raise trace_error(message, ValueError)
        return
    zero = ctx.top.const(0, dt.mlir)
    if y.is_scalar:
        ok = ctx.top.op("nonneg", f"arith.cmpi sge, {lowering.scalar_value(ctx, y, dt)}, {zero} : {dt.mlir}")
    else:
        flag_type = tensor_type((), D.BOOL)
        empty = ctx.top.op("empty", f"tensor.empty() : {flag_type}")
        init = ctx.top.op(
            "init", f"linalg.fill ins({ctx.top.const(True, 'i1')} : i1) outs({empty} : {flag_type}) "
            f"-> {flag_type}")

        def body(blk: Block, in_args: list[str], out: str) -> str:
            v = lowering.convert(blk, in_args[0], y.element_type, dt)
            nonneg = blk.op("nonneg", f"arith.cmpi sge, {v}, {blk.const(0, dt.mlir)} : {dt.mlir}")
            return blk.op("nonneg", f"arith.andi {out}, {nonneg} : i1")

        flag = lowering.emit_generic(
            ctx, "nonneg", [y], [affine_map(y.ndim, [f"d{j}" for j in range(y.ndim)])], init,
            flag_type, D.BOOL, affine_map(y.ndim, []), ["reduction"] * y.ndim, body)
        ok = ctx.top.op("nonneg", f"tensor.extract {flag}[] : {flag_type}")
    ctx.top.raw(f'dlpack.assert {ok}, invalid_argument, "{lowering.message_literal(message)}"')


_CMP = {
    "less": "lt",
    "less_equal": "le",
    "greater": "gt",
    "greater_equal": "ge",
    "equal": "eq",
    "not_equal": "ne",
}


def _operand_key(x: Any) -> Any:
    """What identifies an operand's value: an array's SSA value (immutable), a scalar's type
    and value."""
    return ("ssa", x.value) if isinstance(x, TracedArray) else (type(x).__name__, repr(x))


def binary(name: str, x: Any, y: Any) -> TracedArray:
    """The binary ufunc ``name`` (``add``, ``floor_divide``, ``less``...) of ``x`` and ``y``, as
    the op table runs it: its dtype rule, then its lowering."""
    return registry.lookup(name).impl(x, y)  # type: ignore[union-attr, no-any-return]


def unary(name: str, x: Any) -> TracedArray:
    """The unary ufunc ``name`` (``negative``, ``exp``, ``sigmoid``...) of ``x``, as the op table
    runs it."""
    return registry.lookup(name).impl(x)  # type: ignore[union-attr, no-any-return]


def _lower_binary(name: str, t: Typed) -> TracedArray:
    """Arithmetic, comparison, bitwise and logical ufuncs, in the dtype their rule gives."""
    ctx, (x, y), dt, weak = t.context, t.operands, t.dtype, t.weak
    ops2 = [(x, dt), (y, dt)]

    def bad_dtype() -> TraceError:
        return unsupported(op_label(name), f"not supported for {dt.name}")

    if name in ("add", "multiply"):
        f = lowering.scalar_add if name == "add" else lowering.scalar_mul
        return emit_elementwise(ctx, "add" if name == "add" else "mul", ops2, dt,
                                lambda b, v: f(b, v[0], v[1], dt), weak)
    if name == "subtract":
        if dt.is_bool:
            raise bad_dtype()
        return emit_elementwise(ctx, "sub", ops2, dt, lambda b, v: lowering.scalar_sub(b, v[0], v[1], dt), weak)
    if name == "divide":
        return emit_elementwise(ctx, "div", ops2, dt, lambda b, v: lowering.scalar_div(b, v[0], v[1], dt), weak)
    if name == "power" and dt.is_complex:
        return _complex_power(ctx, x, y, dt, weak)
    if name in ("floor_divide", "remainder", "power"):
        if dt.is_complex:
            raise bad_dtype()
        if name == "power" and dt.is_signed:
            _check_no_negative_exponent(ctx, y, dt)
        f = {"floor_divide": lowering.scalar_floordiv, "remainder": lowering.scalar_mod,
             "power": lowering.scalar_pow}[name]
        hint = {"floor_divide": "floordiv", "remainder": "mod", "power": "pow"}[name]
        return emit_elementwise(ctx, hint, ops2, dt, lambda b, v: f(b, v[0], v[1], dt), weak)
    if name in ("maximum", "minimum"):
        if dt.is_complex:
            return emit_elementwise(ctx, name[:3], ops2, dt,
                                    lambda b, v: complex_extreme(b, name, v[0], v[1], dt), weak)
        f = lowering.scalar_max if name == "maximum" else lowering.scalar_min
        return emit_elementwise(ctx, name[:3], ops2, dt, lambda b, v: f(b, v[0], v[1], dt), weak)
    if name in _CMP:
        pred = _CMP[name]
        common = t.common
        settled = _beyond_range(pred, x, y, common)
        if settled is not None:
            array, answer = settled
            return emit_elementwise(ctx, pred, [(array, common)], dt, lambda b, v: b.const(answer, "i1"), weak)
        compared = [(x, common), (y, common)]
        if common.is_complex:
            compare = _complex_equal if pred in ("eq", "ne") else _complex_order
            return emit_elementwise(ctx, pred, compared, dt, lambda b, v: compare(b, pred, v[0], v[1], common), weak)
        out = emit_elementwise(ctx, pred, compared, dt,
                               lambda b, v: lowering.compare(b, pred, v[0], v[1], common), weak)
        # masks computed twice alike (x[x > 0] = x[x > 0] ** 2) are known to be equal
        out._recipe = (name, _operand_key(x), _operand_key(y))
        return out
    if name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        op = {"bitwise_and": "andi", "bitwise_or": "ori", "bitwise_xor": "xori"}[name]
        return emit_elementwise(ctx, op[:-1], ops2, dt,
                                lambda b, v: lowering.arith(b, op, v[0], v[1], dt, op[:-1]), weak)
    if name in ("logical_and", "logical_or", "logical_xor"):
        op = {"logical_and": "andi", "logical_or": "ori", "logical_xor": "xori"}[name]
        return emit_elementwise(ctx, op[:-1], ops2, dt,
                                lambda b, v: lowering.arith(b, op, v[0], v[1], dt, op[:-1]), weak)
    raise unsupported(f"numpy.{name}")


_MIRRORED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def _beyond_range(pred: str, x: Any, y: Any, dt: DType) -> tuple[TracedArray, bool] | None:
    """The traced operand and the answer of every element when an integer array of ``dt`` is
    compared (``x <pred> y``) with a Python int outside ``dt``'s range: NumPy 2 compares them
    exactly (``uint8_array == -1`` is all False, ``< 300`` all True) rather than converting
    the int. None for other comparisons."""
    if not dt.is_int:
        return None
    info = np.iinfo(dt.name)
    for array, value, p in ((x, y, pred), (y, x, _MIRRORED[pred])):
        if not isinstance(array, TracedArray) or type(value) is not int:
            continue
        if value > info.max:
            return array, p in ("lt", "le", "ne")
        if value < info.min:
            return array, p in ("gt", "ge", "ne")
    return None


def compare_scalars(b: Block, pred: str, x: str, y: str, dt: DType) -> str:
    """``x <pred> y`` (eq ne lt le gt ge) of scalars of ``dt`` as NumPy compares them: NaN unequal,
    complex numbers in NumPy's lexicographic order."""
    if not dt.is_complex:
        return lowering.compare(b, pred, x, y, dt)
    return (_complex_equal if pred in ("eq", "ne") else _complex_order)(b, pred, x, y, dt)


def isnan_scalar(b: Block, v: str, dt: DType) -> str:
    """Whether the float or complex scalar ``v`` is (or has a part that is) NaN."""
    if not dt.is_complex:
        return b.op("nan", f"arith.cmpf uno, {v}, {v} : {dt.mlir}")
    re, im = lowering.complex_parts(b, v, dt)
    return b.op("nan", f"arith.cmpf uno, {re}, {im} : {dt.component.mlir}")


def _complex_equal(b: Block, pred: str, x: str, y: str, dt: DType) -> str:
    """``x == y`` (``pred`` ``"eq"``) or ``x != y`` of complex scalars: both parts compared."""
    comp = dt.component
    parts = [lowering.compare(b, pred, b.op(h, f"complex.{h} {x} : {dt.mlir}"),
                              b.op(h, f"complex.{h} {y} : {dt.mlir}"), comp)
             for h in ("re", "im")]
    return b.op(pred, f"arith.{'andi' if pred == 'eq' else 'ori'} {parts[0]}, {parts[1]} : i1")


def _complex_order(b: Block, pred: str, x: str, y: str, dt: DType) -> str:
    """``x < y`` (``pred`` lt, le, gt or ge) of complex scalars in NumPy's lexicographic order:
    the real parts decide, unless an imaginary part is NaN; equal real parts leave it to the
    imaginary ones (NumPy's ``CLT``/``CLE``/``CGT``/``CGE``)."""
    comp = dt.component
    xr, xi = lowering.complex_parts(b, x, dt)
    yr, yi = lowering.complex_parts(b, y, dt)
    strict = {"le": "lt", "ge": "gt"}.get(pred, pred)
    both_ordered = b.op("ord", f"arith.cmpf ord, {xi}, {yi} : {comp.mlir}")
    by_real = b.op("by_re", f"arith.andi {lowering.compare(b, strict, xr, yr, comp)}, {both_ordered} : i1")
    same_real = lowering.compare(b, "eq", xr, yr, comp)
    by_imag = b.op("by_im", f"arith.andi {same_real}, {lowering.compare(b, pred, xi, yi, comp)} : i1")
    return b.op(pred, f"arith.ori {by_real}, {by_imag} : i1")


def complex_extreme(b: Block, name: str, x: str, y: str, dt: DType) -> str:
    """NumPy's ``maximum``/``minimum`` of complex scalars: ``x`` when it has a NaN part or wins
    (``>=``/``<=`` in the lexicographic order), else ``y``, so NaNs propagate."""
    comp = dt.component
    xr, xi = lowering.complex_parts(b, x, dt)
    nan = b.op("nan", f"arith.ori {b.op('nan', f'arith.cmpf uno, {xr}, {xr} : {comp.mlir}')}, "
                      f"{b.op('nan', f'arith.cmpf uno, {xi}, {xi} : {comp.mlir}')} : i1")
    wins = _complex_order(b, "ge" if name == "maximum" else "le", x, y, dt)
    keep = b.op("keep", f"arith.ori {nan}, {wins} : i1")
    return lowering.select(b, keep, x, y, dt)


def _complex_power(ctx: TraceContext, x: Any, y: Any, dt: DType, weak: str | None) -> TracedArray:
    """``x ** y`` in complex ``dt`` as NumPy's ``npy_cpow``: ``1`` for a zero exponent, ``0`` for
    a zero base and a positive real exponent (NaN for other exponents of zero), products by
    repeated squaring for a real integer exponent known while tracing with ``|n| < 100``, else
    ``exp(y * log(x))`` (``complex.pow``)."""
    ty = dt.mlir
    comp = dt.component
    known = y if not isinstance(y, TracedArray) else None
    n: int | None = None
    if known is not None:
        c = complex(known)
        if c.imag == 0 and c.real == int(c.real) and -100 < c.real < 100:
            n = int(c.real)

    def cmul(b: Block, u: str, v: str) -> str:
        return b.op("mul", f"complex.mul {u}, {v} : {ty}")

    def body(b: Block, v: list[str]) -> str:
        base, exp = v
        one = b.const(complex(1.0, 0.0), ty)
        if n is not None:
            if n == 0:
                return one
            acc: str | None = None
            p = base
            k = abs(n)
            while True:
                if k & 1:
                    acc = p if acc is None else cmul(b, acc, p)
                k >>= 1
                if not k:
                    break
                p = cmul(b, p, p)
            r = acc if n > 0 else b.op("div", f"complex.div {one}, {acc} : {ty}")
        else:
            r = b.op("pow", f"complex.pow {base}, {exp} : {ty}")
        zero = b.const(0.0, comp.mlir)
        czero = b.const(complex(0.0, 0.0), ty)
        nan = b.const(complex(float("nan"), float("nan")), ty)
        br = b.op("re", f"complex.re {exp} : {ty}")
        bi = b.op("im", f"complex.im {exp} : {ty}")
        ar = b.op("re", f"complex.re {base} : {ty}")
        ai = b.op("im", f"complex.im {base} : {ty}")
        b_re0 = lowering.compare(b, "eq", br, zero, comp)
        b_im0 = lowering.compare(b, "eq", bi, zero, comp)
        exp_zero = b.op("z", f"arith.andi {b_re0}, {b_im0} : i1")
        re_zero = lowering.compare(b, "eq", ar, zero, comp)
        base_zero = b.op("z", f"arith.andi {re_zero}, {lowering.compare(b, 'eq', ai, zero, comp)} : i1")
        positive = b.op("pos", f"arith.andi {lowering.compare(b, 'gt', br, zero, comp)}, {b_im0} : i1")
        at_zero = b.op("sel", f"arith.select {positive}, {czero}, {nan} : {ty}")
        r = b.op("sel", f"arith.select {base_zero}, {at_zero}, {r} : {ty}")
        return b.op("sel", f"arith.select {exp_zero}, {one}, {r} : {ty}")

    return emit_elementwise(ctx, "pow", [(x, dt), (y, dt)], dt, body, weak)


_BASIC_FLOAT_UNARY = {"exp", "log", "sqrt", "tanh", "sin", "cos", "erf", "sigmoid"}


def _lower_unary(name: str, t: Typed) -> TracedArray:
    """Signs, ``absolute``, ``invert``, ``logical_not``, ``square`` and the float functions of
    the first version, in the dtype their rule gives."""
    ctx, (x,), dt, weak = t.context, t.operands, t.dtype, t.weak
    if name == "positive":
        if dt.is_bool:
            raise unsupported(op_label(name), "not supported for bool")
        if isinstance(x, TracedArray):
            return lowering.copy(x)
        return emit_elementwise(ctx, "pos", [(x, dt)], dt, lambda b, v: v[0], weak)
    if name == "negative":
        if dt.is_bool:
            raise unsupported(op_label(name), "not supported for bool; use ~ or logical_not")

        def neg(b: Block, v: list[str]) -> str:
            if dt.is_complex:
                return b.op("neg", f"complex.neg {v[0]} : {dt.mlir}")
            if dt.is_float:
                return b.op("neg", f"arith.negf {v[0]} : {dt.mlir}")
            return lowering.arith(b, "subi", b.const(0, dt.mlir), v[0], dt, "neg")

        return emit_elementwise(ctx, "neg", [(x, dt)], dt, neg, weak)
    if name == "absolute":
        src = t.common
        if src.is_complex:
            return emit_elementwise(ctx, "abs", [(x, src)], dt,
                                    lambda b, v: b.op("abs", f"complex.abs {v[0]} : {src.mlir}"), weak)
        if dt.is_bool or dt.is_unsigned:
            return emit_elementwise(ctx, "abs", [(x, dt)], dt, lambda b, v: v[0], weak)
        if dt.is_float:
            return emit_elementwise(ctx, "abs", [(x, dt)], dt,
                                    lambda b, v: lowering.math_call(b, "absf", v, dt, "abs"), weak)
        def abs_int(b: Block, v: list[str]) -> str:  # no math.absi: CUDA's pipeline lowers none
            negative = lowering.compare(b, "lt", v[0], b.const(0, dt.mlir), dt)
            return lowering.select(b, negative, lowering.arith(b, "subi", b.const(0, dt.mlir), v[0], dt, "neg"),
                                   v[0], dt)

        return emit_elementwise(ctx, "abs", [(x, dt)], dt, abs_int, weak)
    if name == "invert":
        ones = True if dt.is_bool else -1
        return emit_elementwise(
            ctx, "not", [(x, dt)], dt,
            lambda b, v: lowering.arith(b, "xori", v[0], b.const(ones, dt.mlir), dt, "not"), weak,
        )
    if name == "logical_not":
        return emit_elementwise(
            ctx, "not", [(x, dt)], dt,
            lambda b, v: lowering.arith(b, "xori", v[0], b.const(True, "i1"), dt, "not"), weak,
        )
    if name == "square":
        if dt != t.common:  # bools square in int8, as NumPy's (square has no bool loop)
            return emit_elementwise(ctx, "square", [(x, dt)], dt,
                                    lambda b, v: lowering.scalar_mul(b, v[0], v[0], dt), weak)
        return binary("multiply", x, x)
    if name in _BASIC_FLOAT_UNARY:
        if dt.is_complex:
            if name not in COMPLEX_UNARY:
                raise unsupported(name, f"not supported for {dt.name}")
            return emit_elementwise(ctx, name, [(x, dt)], dt, lambda b, v: complex_unary(b, name, v[0], dt), weak)
        if name == "sigmoid":

            def sig(b: Block, v: list[str]) -> str:
                n = b.op("neg", f"arith.negf {v[0]} : {dt.mlir}")
                e = lowering.math_call(b, "exp", [n], dt)
                one = b.const(1.0, dt.mlir)
                d = lowering.arith(b, "addf", one, e, dt, "den")
                return lowering.arith(b, "divf", one, d, dt, "sigmoid")

            return emit_elementwise(ctx, "sigmoid", [(x, dt)], dt, sig, weak)
        return emit_elementwise(ctx, name, [(x, dt)], dt, lambda b, v: lowering.math_call(b, name, v, dt), weak)
    raise unsupported(f"numpy.{name}")


class _NoValue:
    """NumPy's "argument not given" (``np.where(c)`` has no x and y)."""


_NV = _NoValue()


@op("where")
def where(condition: Any, x: Any = _NV, y: Any = _NV) -> TracedArray:
    """``x`` where ``condition`` else ``y``, with broadcasting; with ``condition`` alone the
    indices of its non-zero elements (``nonzero``)."""
    if x is _NV and y is _NV:  # NumPy's where(condition) is nonzero(condition)
        if not isinstance(condition, TracedArray):
            return np.nonzero(condition)  # type: ignore[return-value]
        return registry.lookup_numpy("nonzero").impl(condition)  # type: ignore[union-attr, no-any-return]
    if x is _NV or y is _NV:
        raise trace_error("either both or neither of x and y should be given", ValueError)
    ctx = lowering.context_of(condition, x, y)
    cond = lowering.lift(ctx, condition, "where")
    x = lowering.lift(ctx, x, "where")
    y = lowering.lift(ctx, y, "where")
    dt, weak = lowering.promote([x, y])
    return emit_elementwise(
        ctx, "where", [(cond, D.BOOL), (x, dt), (y, dt)], dt,
        lambda b, v: lowering.select(b, v[0], v[1], v[2], dt), weak,
    )


@op("astype", method="astype", doc="Convert to ``dtype`` (NumPy casting semantics).")
def astype(x: Any, dtype: Any, copy: bool = True, **kwargs: Any) -> TracedArray:
    """``x.astype(dtype)``: a new array, or with ``copy=False`` ``x`` itself when it has ``dtype``
    already (so that updating the result updates ``x``, as in NumPy)."""
    ctx = lowering.context_of(x)
    x = lowering.lift(ctx, x, "astype")
    try:
        dt = D.dtype(dtype)
    except TypeError as e:
        raise unsupported("astype", str(e)) from None
    if isinstance(x, TracedArray) and x.element_type == dt and x.weak is None:
        return lowering.copy(x) if copy else x
    return emit_elementwise(ctx, "cast", [(x, dt)], dt, lambda b, v: v[0])


#: name → (NumPy aliases, dtype rule)
_BINARY: dict[str, tuple[tuple[str, ...], DTypeRule]] = {
    "add": ((), PROMOTE),
    "subtract": ((), PROMOTE),
    "multiply": ((), PROMOTE),
    "divide": (("true_divide",), TRUE_DIVIDE),
    "floor_divide": ((), NO_BOOL_LOOP),
    "remainder": (("mod",), NO_BOOL_LOOP),
    "power": (("pow",), NO_BOOL_LOOP),
    "maximum": ((), PROMOTE),
    "minimum": ((), PROMOTE),
    "less": ((), BOOL),
    "less_equal": ((), BOOL),
    "greater": ((), BOOL),
    "greater_equal": ((), BOOL),
    "equal": ((), BOOL),
    "not_equal": ((), BOOL),
    "bitwise_and": ((), INT),
    "bitwise_or": ((), INT),
    "bitwise_xor": ((), INT),
    "logical_and": ((), BOOL),
    "logical_or": ((), BOOL),
    "logical_xor": ((), BOOL),
}

#: name → (NumPy names, dtype rule); NumPy has neither erf nor sigmoid: ``erf`` is what
#: ``scipy.special.erf``, a ufunc, dispatches to.
_UNARY: dict[str, tuple[tuple[str, ...], DTypeRule]] = {
    "negative": (("negative",), SAME),
    "positive": (("positive",), SAME),
    "absolute": (("absolute", "abs"), REAL),
    "invert": (("invert", "bitwise_not", "bitwise_invert"), INT),
    "logical_not": (("logical_not",), BOOL),
    "square": (("square",), NO_BOOL_LOOP),
    "exp": (("exp",), FLOAT),
    "log": (("log",), FLOAT),
    "sqrt": (("sqrt",), FLOAT),
    "tanh": (("tanh",), FLOAT),
    "sin": (("sin",), FLOAT),
    "cos": (("cos",), FLOAT),
    "erf": (("erf",), FLOAT),
    "sigmoid": ((), FLOAT),
}


def _declare_binary(name: str, aliases: tuple[str, ...], rule: DTypeRule) -> None:
    def lower(t: Typed) -> TracedArray:
        return _lower_binary(name, t)

    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = f"Elementwise ``numpy.{name}``."
    op(name, numpy=(name, *aliases), kind="ufunc", arity=2, dtype_rule=rule)(lower)


def _declare_unary(name: str, numpy_names: tuple[str, ...], rule: DTypeRule) -> None:
    def lower(t: Typed) -> TracedArray:
        return _lower_unary(name, t)

    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = f"Elementwise {name}."
    op(name, numpy=numpy_names, kind="ufunc", arity=1, dtype_rule=rule)(lower)


for _name, (_aliases, _rule) in _BINARY.items():
    _declare_binary(_name, _aliases, _rule)
for _name, (_names, _rule) in _UNARY.items():
    _declare_unary(_name, _names, _rule)


#: NumPy name → ``math`` dialect op, for the float functions of one argument.
_FLOAT_UNARY = {
    "log1p": "log1p", "expm1": "expm1", "log2": "log2", "log10": "log10", "exp2": "exp2",
    "tan": "tan", "sinh": "sinh", "cosh": "cosh", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "cbrt": "cbrt",
    "rint": "roundeven",
}


#: NumPy 2's array-API spellings of the inverse trigonometric functions.
_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
            "arctanh": "atanh", "arctan2": "atan2"}


def float_unary_names() -> list[str]:
    """The NumPy names of the float functions of one argument declared here."""
    return list(_FLOAT_UNARY)


def _operand(x: Any, name: str) -> tuple[Any, Any, DType, str | None]:
    """The context, lifted value, dtype and weak kind of the array argument of a function."""
    ctx = lowering.context_of(x)
    x = lowering.lift(ctx, x, name)
    dt, weak = lowering.promote([x])
    return ctx, x, dt, weak


def _declare_float_unary(name: str, math_op: str) -> None:
    def lower(t: Typed) -> TracedArray:
        dt = t.dtype
        if dt.is_complex:
            if name not in COMPLEX_UNARY:
                raise unsupported(f"numpy.{name}", f"not supported for {dt.name}")
            return emit_elementwise(t.context, name, [(t.operands[0], dt)], dt,
                                    lambda b, v: complex_unary(b, name, v[0], dt), t.weak)
        return emit_elementwise(t.context, name, [(t.operands[0], dt)], dt,
                                lambda b, v: lowering.math_call(b, math_op, v, dt, name), t.weak)

    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = f"Elementwise {name} (NumPy's ``numpy.{name}``)."
    numpy = (name, _ALIASES[name]) if name in _ALIASES else None
    op(name, numpy=numpy, kind="ufunc", arity=1, dtype_rule=FLOAT)(lower)


for _name, _math_op in _FLOAT_UNARY.items():
    _declare_float_unary(_name, _math_op)


def _rounding(name: str, math_op: str) -> Callable[[Typed], TracedArray]:
    def lower(t: Typed) -> TracedArray:
        ctx, (x,), dt = t.context, t.operands, t.dtype
        if dt.is_complex:
            raise unsupported(f"numpy.{name}", f"not supported for {dt.name}")
        if not dt.is_float:  # NumPy 2: integers and bools round to themselves
            return emit_elementwise(ctx, name, [(x, dt)], dt, lambda b, v: v[0], t.weak)
        if math_op == "trunc":  # floor or ceil by the sign: CUDA's pipeline lowers no math.trunc
            def trunc(b: Block, v: list[str]) -> str:
                negative = lowering.compare(b, "lt", v[0], b.const(0.0, dt.mlir), dt)
                return lowering.select(b, negative, lowering.math_call(b, "ceil", v, dt),
                                       lowering.math_call(b, "floor", v, dt), dt)

            return emit_elementwise(ctx, name, [(x, dt)], dt, trunc, t.weak)
        return emit_elementwise(ctx, name, [(x, dt)], dt,
                                lambda b, v: lowering.math_call(b, math_op, v, dt, name), t.weak)

    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = f"Elementwise {name}; integers keep their dtype (NumPy 2)."
    return lower


op("floor", kind="ufunc", arity=1, dtype_rule=SAME)(_rounding("floor", "floor"))
op("ceil", kind="ufunc", arity=1, dtype_rule=SAME)(_rounding("ceil", "ceil"))
op("trunc", kind="ufunc", arity=1, dtype_rule=SAME)(_rounding("trunc", "trunc"))


@op("round", numpy=("round", "around"), method="round")
def round_(a: Any, decimals: int = 0, out: Any = None) -> TracedArray:  # noqa: A001
    """``a`` rounded to ``decimals`` digits, halves to even (NumPy's ``round``)."""
    lowering.no_out(out, "numpy.round")
    ctx, x, dt, weak = _operand(a, "round")
    d = int(decimals)
    if dt.is_complex:
        raise unsupported("numpy.round", f"not supported for {dt.name}")
    if not dt.is_float and d >= 0:
        return emit_elementwise(ctx, "round", [(x, dt)], dt, lambda b, v: v[0], weak)
    cdt = dt if dt.is_float else D.FLOAT64
    scale = 10.0 ** abs(d)

    def body(b: Block, v: list[str]) -> str:
        if d == 0:
            return lowering.math_call(b, "roundeven", v, cdt, "round")
        s = b.const(scale, cdt.mlir)
        first, second = ("mulf", "divf") if d > 0 else ("divf", "mulf")
        y = lowering.arith(b, first, v[0], s, cdt, "scaled")
        r = lowering.math_call(b, "roundeven", [y], cdt, "round")
        r = lowering.arith(b, second, r, s, cdt, "round")
        return r if dt.is_float else lowering.convert(b, r, cdt, dt)

    return emit_elementwise(ctx, "round", [(x, cdt)], dt, body, weak)


@op("sign", kind="ufunc", arity=1, dtype_rule=SAME)
def sign(t: Typed) -> TracedArray:
    """-1, 0 or 1 by the sign of each element (NaN for NaN)."""
    dt = t.dtype
    if dt.is_bool:
        raise unsupported("numpy.sign", f"not supported for {dt.name}")
    if dt.is_complex:  # NumPy 2: z / |z|, 0 at 0
        return emit_elementwise(t.context, "sign", [(t.operands[0], dt)], dt,
                                lambda b, v: complex_sign(b, v[0], dt), t.weak)

    def body(b: Block, v: list[str]) -> str:
        zero = b.const(0, dt.mlir) if not dt.is_float else b.const(0.0, dt.mlir)
        one = b.const(1, dt.mlir) if not dt.is_float else b.const(1.0, dt.mlir)
        pos = lowering.compare(b, "gt", v[0], zero, dt)
        if dt.is_unsigned:
            return lowering.select(b, pos, one, zero, dt)
        neg = lowering.compare(b, "lt", v[0], zero, dt)
        minus = b.const(-1, dt.mlir) if not dt.is_float else b.const(-1.0, dt.mlir)
        r = lowering.select(b, pos, one, lowering.select(b, neg, minus, zero, dt), dt)
        if dt.is_float:  # NaN stays NaN
            nan = b.op("nan", f"arith.cmpf uno, {v[0]}, {v[0]} : {dt.mlir}")
            r = lowering.select(b, nan, v[0], r, dt)
        return r

    return emit_elementwise(t.context, "sign", [(t.operands[0], dt)], dt, body, t.weak)


def _float_class(name: str, predicate: Callable[[Block, str, DType], str], for_ints: bool) -> None:
    """Declares ``name``, ``predicate`` of each element; for complex numbers, of either part
    (``isnan``, ``isinf``) or of both (``isfinite``)."""

    def of_complex(b: Block, v: str, dt: DType) -> str:
        re, im = (predicate(b, part, dt.component) for part in lowering.complex_parts(b, v, dt))
        return b.op(name, f"arith.{'andi' if for_ints else 'ori'} {re}, {im} : i1")

    def lower(t: Typed) -> TracedArray:
        ctx, (x,), src = t.context, t.operands, t.common
        if src.is_complex:
            return emit_elementwise(ctx, name, [(x, src)], t.dtype, lambda b, v: of_complex(b, v[0], src), t.weak)
        if not src.is_float:
            return emit_elementwise(ctx, name, [(x, src)], t.dtype, lambda b, v: b.const(for_ints, "i1"), t.weak)
        return emit_elementwise(ctx, name, [(x, src)], t.dtype, lambda b, v: predicate(b, v[0], src), t.weak)

    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = f"Elementwise {name} (all {for_ints} for integers)."
    op(name, kind="ufunc", arity=1, dtype_rule=BOOL)(lower)


def _isinf(b: Block, v: str, dt: DType) -> str:
    a = lowering.math_call(b, "absf", [v], dt, "abs")
    return b.op("inf", f"arith.cmpf oeq, {a}, {b.const(float('inf'), dt.mlir)} : {dt.mlir}")


def _isfinite(b: Block, v: str, dt: DType) -> str:
    a = lowering.math_call(b, "absf", [v], dt, "abs")
    return b.op("finite", f"arith.cmpf olt, {a}, {b.const(float('inf'), dt.mlir)} : {dt.mlir}")


_float_class("isnan", lambda b, v, dt: b.op("nan", f"arith.cmpf uno, {v}, {v} : {dt.mlir}"), False)
_float_class("isinf", _isinf, False)
_float_class("isfinite", _isfinite, True)


def _float_binary(name: str, body: Callable[[Block, str, str, DType], str]) -> None:
    def lower(t: Typed) -> TracedArray:
        dt = t.dtype
        if dt.is_complex:
            raise unsupported(f"numpy.{name}", f"not supported for {dt.name}")
        return emit_elementwise(t.context, name, [(x, dt) for x in t.operands], dt,
                                lambda b, v: body(b, v[0], v[1], dt), t.weak)

    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = f"Elementwise {name} (NumPy's ``numpy.{name}``)."
    numpy = (name, _ALIASES[name]) if name in _ALIASES else None
    op(name, numpy=numpy, kind="ufunc", arity=2, dtype_rule=FLOAT)(lower)


def _hypot(b: Block, x: str, y: str, dt: DType) -> str:
    """``sqrt(x*x + y*y)`` without overflow: ``m * sqrt(1 + (n/m)**2)`` for ``m >= n >= 0``;
    infinite when either is (even against NaN), as C's hypot."""
    ax = lowering.math_call(b, "absf", [x], dt, "ax")
    ay = lowering.math_call(b, "absf", [y], dt, "ay")
    m = lowering.arith(b, "maximumf", ax, ay, dt, "m")
    n = lowering.arith(b, "minimumf", ax, ay, dt, "n")
    zero = b.const(0.0, dt.mlir)
    one = b.const(1.0, dt.mlir)
    q = lowering.arith(b, "divf", n, m, dt, "q")
    q2 = lowering.arith(b, "mulf", q, q, dt, "q2")
    root = lowering.math_call(b, "sqrt", [lowering.arith(b, "addf", one, q2, dt, "s")], dt)
    r = lowering.arith(b, "mulf", m, root, dt, "h")
    is_zero = b.op("z", f"arith.cmpf oeq, {m}, {zero} : {dt.mlir}")
    r = lowering.select(b, is_zero, zero, r, dt)
    inf = b.const(float("inf"), dt.mlir)
    either_inf = b.op("inf", f"arith.ori {_isinf(b, x, dt)}, {_isinf(b, y, dt)} : i1")
    return lowering.select(b, either_inf, inf, r, dt)


_float_binary("arctan2", lambda b, x, y, dt: lowering.math_call(b, "atan2", [x, y], dt, "atan2"))
_float_binary("hypot", _hypot)
_float_binary("copysign", lambda b, x, y, dt: lowering.math_call(b, "copysign", [x, y], dt, "copysign"))


def _nan_ignoring(name: str, arith_op: str, int_op: str) -> None:
    def lower(t: Typed) -> TracedArray:
        dt = t.dtype
        if dt.is_complex:
            raise unsupported(f"numpy.{name}", f"not supported for {dt.name}")
        if dt.is_float:
            return emit_elementwise(t.context, name, [(x, dt) for x in t.operands], dt,
                                    lambda b, v: lowering.arith(b, arith_op, v[0], v[1], dt, name), t.weak)
        return binary(int_op, *t.operands)

    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = f"Elementwise {name}, ignoring NaNs (NumPy's ``numpy.{name}``)."
    op(name, kind="ufunc", arity=2, dtype_rule=PROMOTE)(lower)


_nan_ignoring("fmax", "maxnumf", "maximum")
_nan_ignoring("fmin", "minnumf", "minimum")


@op("reciprocal", kind="ufunc", arity=1, dtype_rule=SAME)
def reciprocal(t: Typed) -> TracedArray:
    """Elementwise ``1 / x`` in the dtype of ``x`` (floats)."""
    dt, (x,) = t.dtype, t.operands
    if not dt.is_inexact:
        raise unsupported("numpy.reciprocal", f"integer reciprocal ({dt.name}); use 1 / x")
    return binary("divide", 1.0, x) if dt.is_float else binary("divide", 1, x)


@op("clip", method="clip")
def clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, **kwargs: Any) -> TracedArray:
    """``a`` limited to ``[a_min, a_max]`` (either may be None)."""
    lowering.no_out(out, "numpy.clip")
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if kwargs:
        raise unsupported("numpy.clip", f"arguments {sorted(kwargs)}")
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    r = a
    if a_min is not None:
        r = binary("maximum", r, a_min)
    if a_max is not None:
        r = binary("minimum", r, a_max)
    return r if isinstance(r, TracedArray) else lowering.copy(r)


# --------------------------------------------------------------------------------------------------
# complex parts


def _real_part(x: Any, name: str, imaginary: bool) -> Any:
    """The real (or imaginary) part of ``x``: ``complex.re``/``complex.im`` of a complex array in
    its component dtype; of a real array the array itself (a view, as NumPy's ``x.real``) or
    zeros of its dtype."""
    ctx, x, dt, weak = _operand(x, name)
    w = None if weak is None else ("float" if weak == "complex" else weak)
    if dt.is_complex:
        op_name = "complex.im" if imaginary else "complex.re"

        def part(p: Any) -> Any:
            return emit_elementwise(ctx, name, [(p, dt)], dt.component,
                                    lambda b, v: b.op(name, f"{op_name} {v[0]} : {dt.mlir}"), w)

        def write(p: TracedArray, new: TracedArray) -> TracedArray:
            # the parent's other part, with ``new`` as this one
            other = emit_elementwise(ctx, name, [(p, dt)], dt.component, lambda b, v: b.op(
                name, f"{'complex.re' if imaginary else 'complex.im'} {v[0]} : {dt.mlir}"), None)
            re_im = [other, new] if imaginary else [new, other]
            return emit_elementwise(ctx, "complex", [(re_im[0], dt.component), (re_im[1], dt.component)], dt,
                                    lambda b, v: b.op("c", f"complex.create {v[0]}, {v[1]} : {dt.mlir}"), None)

        out = part(x)
        if not lowering.is_tensor(x) or x.weak is not None:
            return out
        return derived_view(x, out, name, part, write)
    if not imaginary:
        if isinstance(x, TracedArray):
            return x
        return emit_elementwise(ctx, name, [(x, dt)], dt, lambda b, v: v[0], weak)

    def zeros(p: Any) -> Any:
        return emit_elementwise(ctx, name, [(p, dt)], dt, lambda b, v: lowering.py_const(b, 0, dt), w)

    out = zeros(x)
    if not lowering.is_tensor(x) or x.weak is not None:
        return out
    return derived_view(x, out, name, zeros, None)  # NumPy: read-only zeros


@op("real")
def real(val: Any) -> Any:
    """The real part (NumPy's ``numpy.real``: the array itself when it is not complex)."""
    return _real_part(val, "real", False)


@op("imag")
def imag(val: Any) -> Any:
    """The imaginary part (NumPy's ``numpy.imag``: zeros when the array is not complex)."""
    return _real_part(val, "imag", True)


@op("conjugate", numpy=("conjugate", "conj"), kind="ufunc", arity=1, dtype_rule=NO_BOOL_LOOP)
def conjugate(t: Typed) -> TracedArray:
    """The complex conjugate; real arrays are copied unchanged (NumPy's ``numpy.conjugate``)."""
    ctx, (x,), dt = t.context, t.operands, t.dtype
    if dt.is_complex:
        return emit_elementwise(ctx, "conj", [(x, dt)], dt,
                                lambda b, v: b.op("conj", f"complex.conj {v[0]} : {dt.mlir}"), t.weak)
    return emit_elementwise(ctx, "conj", [(x, dt)], dt, lambda b, v: v[0], t.weak)


def conjugate_method(x: TracedArray) -> TracedArray:
    """``x.conj()``/``x.conjugate()``: the conjugate of a complex array, ``x`` itself otherwise
    (as NumPy's method returns the array)."""
    return unary("conjugate", x) if x.element_type.is_complex else x
