"""NumPy's everyday elementwise functions beyond arithmetic: rounding, signs, float classes,
inverse and hyperbolic trigonometry, ``arctan2``/``hypot``/``copysign``/``fmax``/``fmin``,
``clip`` and the parts of complex numbers (``real``, ``imag``, ``conjugate``).  Each is declared
once in the op table (ufuncs reach it through ``__array_ufunc__``, ``clip`` through
``__array_function__`` and ``x.clip``), with NumPy 2's dtype rules: float functions compute
integers in the float that holds them, rounding keeps integer dtypes, the float classes of an
integer are constant.
"""

from __future__ import annotations

from typing import Any, Callable

from . import dtypes as D
from . import ops
from .dtypes import DType
from .emitter import Block
from .registry import op
from .tracer import TracedArray, unsupported

__all__ = ["clip", "float_unary_names"]

#: NumPy name → ``math`` dialect op, for the float functions of one argument.
_FLOAT_UNARY = {
    "log1p": "log1p", "expm1": "expm1", "log2": "log2", "log10": "log10", "exp2": "exp2",
    "tan": "tan", "sinh": "sinh", "cosh": "cosh", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "cbrt": "cbrt",
    "rint": "roundeven",
}


def float_unary_names() -> list[str]:
    """The NumPy names of the float functions of one argument declared here."""
    return list(_FLOAT_UNARY)


def _operand(x: Any, name: str) -> tuple[Any, Any, DType, str | None]:
    ctx = ops._ctx_of(x)
    x = ops._lift(ctx, x, name)
    dt, weak = ops._promote([x])
    return ctx, x, dt, weak


def _float_kind(dt: DType, weak: str | None) -> tuple[DType, str | None]:
    cdt = D.float_for(dt)
    return cdt, None if weak is None else ops._kind_of(cdt)


def _declare_float_unary(name: str, math_op: str) -> None:
    def impl(x: Any) -> TracedArray:
        ctx, x, dt, weak = _operand(x, name)
        cdt, w = _float_kind(dt, weak)
        if cdt.is_complex:
            raise unsupported(f"numpy.{name}", f"not supported for {cdt.name}")
        return ops._ewise(ctx, name, [(x, cdt)], cdt, lambda b, v: ops._math(b, math_op, v, cdt, name), w)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"Elementwise {name} (NumPy's ``numpy.{name}``)."
    op(name, kind="ufunc", arity=1, dtype_rule="float")(impl)


for _name, _math_op in _FLOAT_UNARY.items():
    _declare_float_unary(_name, _math_op)


def _rounding(name: str, math_op: str) -> Callable[[Any], TracedArray]:
    def impl(x: Any) -> TracedArray:
        ctx, x, dt, weak = _operand(x, name)
        if dt.is_complex:
            raise unsupported(f"numpy.{name}", f"not supported for {dt.name}")
        if not dt.is_float:  # NumPy 2: integers and bools round to themselves
            return ops._ewise(ctx, name, [(x, dt)], dt, lambda b, v: v[0], weak)
        return ops._ewise(ctx, name, [(x, dt)], dt, lambda b, v: ops._math(b, math_op, v, dt, name), weak)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"Elementwise {name}; integers keep their dtype (NumPy 2)."
    return impl


op("floor", kind="ufunc", arity=1, dtype_rule="same")(_rounding("floor", "floor"))
op("ceil", kind="ufunc", arity=1, dtype_rule="same")(_rounding("ceil", "ceil"))
op("trunc", kind="ufunc", arity=1, dtype_rule="same")(_rounding("trunc", "trunc"))


@op("round", numpy=("round", "around"), method="round", dtype_rule="same")
def round_(a: Any, decimals: int = 0, out: Any = None) -> TracedArray:  # noqa: A001
    """``a`` rounded to ``decimals`` digits, halves to even (NumPy's ``round``)."""
    ops._no_out(out, "numpy.round")
    ctx, x, dt, weak = _operand(a, "round")
    d = int(decimals)
    if dt.is_complex:
        raise unsupported("numpy.round", f"not supported for {dt.name}")
    if not dt.is_float and d >= 0:
        return ops._ewise(ctx, "round", [(x, dt)], dt, lambda b, v: v[0], weak)
    cdt = dt if dt.is_float else D.FLOAT64
    scale = 10.0 ** abs(d)

    def body(b: Block, v: list[str]) -> str:
        if d == 0:
            return ops._math(b, "roundeven", v, cdt, "round")
        s = b.const(scale, cdt.mlir)
        first, second = ("mulf", "divf") if d > 0 else ("divf", "mulf")
        y = ops._arith(b, first, v[0], s, cdt, "scaled")
        r = ops._math(b, "roundeven", [y], cdt, "round")
        r = ops._arith(b, second, r, s, cdt, "round")
        return r if dt.is_float else ops.convert(b, r, cdt, dt)

    return ops._ewise(ctx, "round", [(x, cdt)], dt, body, weak)


@op("sign", kind="ufunc", arity=1, dtype_rule="same")
def sign(x: Any) -> TracedArray:
    """-1, 0 or 1 by the sign of each element (NaN for NaN)."""
    ctx, x, dt, weak = _operand(x, "sign")
    if dt.is_bool or dt.is_complex:
        raise unsupported("numpy.sign", f"not supported for {dt.name}")

    def body(b: Block, v: list[str]) -> str:
        zero = b.const(0, dt.mlir) if not dt.is_float else b.const(0.0, dt.mlir)
        one = b.const(1, dt.mlir) if not dt.is_float else b.const(1.0, dt.mlir)
        pos = ops._cmp(b, "gt", v[0], zero, dt)
        if dt.is_unsigned:
            return ops._select(b, pos, one, zero, dt)
        neg = ops._cmp(b, "lt", v[0], zero, dt)
        minus = b.const(-1, dt.mlir) if not dt.is_float else b.const(-1.0, dt.mlir)
        r = ops._select(b, pos, one, ops._select(b, neg, minus, zero, dt), dt)
        if dt.is_float:  # NaN stays NaN
            nan = b.op("nan", f"arith.cmpf uno, {v[0]}, {v[0]} : {dt.mlir}")
            r = ops._select(b, nan, v[0], r, dt)
        return r

    return ops._ewise(ctx, "sign", [(x, dt)], dt, body, weak)


def _float_class(name: str, predicate: Callable[[Block, str, DType], str], for_ints: bool) -> None:
    def impl(x: Any) -> TracedArray:
        ctx, x, dt, weak = _operand(x, name)
        w = None if weak is None else "bool"
        if dt.is_complex:
            raise unsupported(f"numpy.{name}", f"not supported for {dt.name}")
        if not dt.is_float:
            return ops._ewise(ctx, name, [(x, dt)], D.BOOL, lambda b, v: b.const(for_ints, "i1"), w)
        return ops._ewise(ctx, name, [(x, dt)], D.BOOL, lambda b, v: predicate(b, v[0], dt), w)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"Elementwise {name} (all {for_ints} for integers)."
    op(name, kind="ufunc", arity=1, dtype_rule="bool")(impl)


def _isinf(b: Block, v: str, dt: DType) -> str:
    a = ops._math(b, "absf", [v], dt, "abs")
    return b.op("inf", f"arith.cmpf oeq, {a}, {b.const(float('inf'), dt.mlir)} : {dt.mlir}")


def _isfinite(b: Block, v: str, dt: DType) -> str:
    a = ops._math(b, "absf", [v], dt, "abs")
    return b.op("finite", f"arith.cmpf olt, {a}, {b.const(float('inf'), dt.mlir)} : {dt.mlir}")


_float_class("isnan", lambda b, v, dt: b.op("nan", f"arith.cmpf uno, {v}, {v} : {dt.mlir}"), False)
_float_class("isinf", _isinf, False)
_float_class("isfinite", _isfinite, True)


def _float_binary(name: str, body: Callable[[Block, str, str, DType], str]) -> None:
    def impl(x1: Any, x2: Any) -> TracedArray:
        ctx = ops._ctx_of(x1, x2)
        x = ops._lift(ctx, x1, name)
        y = ops._lift(ctx, x2, name)
        dt, weak = ops._promote([x, y])
        cdt, w = _float_kind(dt, weak)
        if cdt.is_complex:
            raise unsupported(f"numpy.{name}", f"not supported for {cdt.name}")
        return ops._ewise(ctx, name, [(x, cdt), (y, cdt)], cdt, lambda b, v: body(b, v[0], v[1], cdt), w)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"Elementwise {name} (NumPy's ``numpy.{name}``)."
    op(name, kind="ufunc", arity=2, dtype_rule="float")(impl)


def _hypot(b: Block, x: str, y: str, dt: DType) -> str:
    """``sqrt(x*x + y*y)`` without overflow: ``m * sqrt(1 + (n/m)**2)`` for ``m >= n >= 0``;
    infinite when either is (even against NaN), as C's hypot."""
    ax = ops._math(b, "absf", [x], dt, "ax")
    ay = ops._math(b, "absf", [y], dt, "ay")
    m = ops._arith(b, "maximumf", ax, ay, dt, "m")
    n = ops._arith(b, "minimumf", ax, ay, dt, "n")
    zero = b.const(0.0, dt.mlir)
    one = b.const(1.0, dt.mlir)
    q = ops._arith(b, "divf", n, m, dt, "q")
    q2 = ops._arith(b, "mulf", q, q, dt, "q2")
    r = ops._arith(b, "mulf", m, ops._math(b, "sqrt", [ops._arith(b, "addf", one, q2, dt, "s")], dt), dt, "h")
    is_zero = b.op("z", f"arith.cmpf oeq, {m}, {zero} : {dt.mlir}")
    r = ops._select(b, is_zero, zero, r, dt)
    inf = b.const(float("inf"), dt.mlir)
    either_inf = b.op("inf", f"arith.ori {_isinf(b, x, dt)}, {_isinf(b, y, dt)} : i1")
    return ops._select(b, either_inf, inf, r, dt)


_float_binary("arctan2", lambda b, x, y, dt: ops._math(b, "atan2", [x, y], dt, "atan2"))
_float_binary("hypot", _hypot)
_float_binary("copysign", lambda b, x, y, dt: ops._math(b, "copysign", [x, y], dt, "copysign"))


def _nan_ignoring(name: str, arith_op: str, int_op: str) -> None:
    def impl(x1: Any, x2: Any) -> TracedArray:
        ctx = ops._ctx_of(x1, x2)
        x = ops._lift(ctx, x1, name)
        y = ops._lift(ctx, x2, name)
        dt, weak = ops._promote([x, y])
        if dt.is_complex:
            raise unsupported(f"numpy.{name}", f"not supported for {dt.name}")
        if dt.is_float:
            return ops._ewise(ctx, name, [(x, dt), (y, dt)], dt,
                              lambda b, v: ops._arith(b, arith_op, v[0], v[1], dt, name), weak)
        return ops.binary(int_op, x, y)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"Elementwise {name}, ignoring NaNs (NumPy's ``numpy.{name}``)."
    op(name, kind="ufunc", arity=2, dtype_rule="promote")(impl)


_nan_ignoring("fmax", "maxnumf", "maximum")
_nan_ignoring("fmin", "minnumf", "minimum")


@op("reciprocal", kind="ufunc", arity=1, dtype_rule="same")
def reciprocal(x: Any) -> TracedArray:
    """Elementwise ``1 / x`` in the dtype of ``x`` (floats)."""
    ctx, x, dt, weak = _operand(x, "reciprocal")
    if not dt.is_inexact:
        raise unsupported("numpy.reciprocal", f"integer reciprocal ({dt.name}); use 1 / x")
    return ops.binary("divide", 1.0, x) if dt.is_float else ops.binary("divide", 1, x)


@op("clip", method="clip", dtype_rule="promote")
def clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, **kwargs: Any) -> TracedArray:
    """``a`` limited to ``[a_min, a_max]`` (either may be None)."""
    ops._no_out(out, "numpy.clip")
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if kwargs:
        raise unsupported("numpy.clip", f"arguments {sorted(kwargs)}")
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    r = a
    if a_min is not None:
        r = ops.binary("maximum", r, a_min)
    if a_max is not None:
        r = ops.binary("minimum", r, a_max)
    return r if isinstance(r, TracedArray) else ops._copy(r)


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
        return ops._ewise(ctx, name, [(x, dt)], dt.component,
                          lambda b, v: b.op(name, f"{op_name} {v[0]} : {dt.mlir}"), w)
    if not imaginary:
        return x if isinstance(x, TracedArray) else ops._ewise(ctx, name, [(x, dt)], dt, lambda b, v: v[0], weak)
    return ops._ewise(ctx, name, [(x, dt)], dt, lambda b, v: ops._py_const(b, 0, dt), w)


@op("real", dtype_rule="explicit")
def real(val: Any) -> Any:
    """The real part (NumPy's ``numpy.real``: the array itself when it is not complex)."""
    return _real_part(val, "real", False)


@op("imag", dtype_rule="explicit")
def imag(val: Any) -> Any:
    """The imaginary part (NumPy's ``numpy.imag``: zeros when the array is not complex)."""
    return _real_part(val, "imag", True)


@op("conjugate", numpy=("conjugate", "conj"), kind="ufunc", arity=1, dtype_rule="same")
def conjugate(x: Any) -> TracedArray:
    """The complex conjugate; real arrays are copied unchanged (NumPy's ``numpy.conjugate``)."""
    ctx, x, dt, weak = _operand(x, "conjugate")
    if dt.is_complex:
        return ops._ewise(ctx, "conj", [(x, dt)], dt, lambda b, v: b.op("conj", f"complex.conj {v[0]} : {dt.mlir}"),
                          weak)
    out_dt = D.DTYPES["int8"] if dt.is_bool else dt  # NumPy's conjugate has no bool loop: int8's runs
    return ops._ewise(ctx, "conj", [(x, out_dt)], out_dt, lambda b, v: v[0], weak)


def conjugate_method(x: TracedArray) -> TracedArray:
    """``x.conj()``/``x.conjugate()``: the conjugate of a complex array, ``x`` itself otherwise
    (as NumPy's method returns the array)."""
    return conjugate(x) if x._dtype.is_complex else x
