"""NumPy's ufuncs beyond ``elementwise``'s everyday ones: integer shifts, ``gcd``/``lcm``,
``bitwise_count``, ``fmod``, ``divmod``, ``float_power``, ``heaviside``, ``logaddexp``/``logaddexp2``,
angle conversions, and the functions that take floats apart (``fabs``, ``signbit``, ``modf``,
``frexp``, ``ldexp``, ``nextafter``, ``spacing``).

Each is declared in the op table with NumPy's dtype rule and computes NumPy's values where C
and hardware differ: shifts by the bit width or more give 0 (or -1 for a negative number shifted
right), ``gcd`` and ``lcm`` of negatives are non-negative, ``fmod`` takes the dividend's sign and
gives 0 for an integer divisor of 0, float parts keep the sign of zero, infinities and NaNs as
C's ``modf``/``frexp``/``nextafter`` do.  16-bit floats are computed in float32 and rounded once,
as NumPy's half loops do.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from . import dtypes as D
from . import elementwise, lowering
from .dtype_rules import (
    BITWISE_COUNT,
    BOOL,
    FLOAT,
    FLOAT_POWER,
    INT_NO_BOOL_LOOP,
    INTEGER,
    LDEXP,
    NO_BOOL_LOOP,
    Typed,
)
from .dtypes import DType
from .errors import unsupported
from .mlir_text import Block
from .registry import op
from .traced_array import TracedArray

__all__: list[str] = []

Body = Callable[[Block, list[str], DType], str]


def _wide(dt: DType) -> DType:
    """The dtype a float function of ``dt`` is computed in: 16-bit floats in float32."""
    return D.FLOAT32 if dt.bits == 16 else dt


def _real_only(name: str, dt: DType) -> None:
    if dt.is_complex:
        raise unsupported(f"numpy.{name}", f"not supported for {dt.name}")


def _float_op(t: Typed, name: str, body: Body) -> TracedArray:
    """``body(block, operands, dtype)`` over the operands of float ufunc ``name``, computed in
    :func:`_wide` of its result dtype and rounded to that dtype once."""
    dt = t.dtype
    _real_only(name, dt)
    wide = _wide(dt)

    def compute(b: Block, v: list[str]) -> str:
        return lowering.convert(b, body(b, v, wide), wide, dt)

    return lowering.emit_elementwise(t.context, name, [(x, wide) for x in t.operands], dt, compute, t.weak)


def _int_type(dt: DType) -> str:
    """The integer type of the bits of float ``dt``."""
    return f"i{dt.bits}"


def _bits(b: Block, v: str, dt: DType) -> str:
    return b.op("bits", f"arith.bitcast {v} : {dt.mlir} to {_int_type(dt)}")


def _from_bits(b: Block, v: str, dt: DType) -> str:
    return b.op("fp", f"arith.bitcast {v} : {_int_type(dt)} to {dt.mlir}")


def _is_nan(b: Block, v: str, dt: DType) -> str:
    return b.op("nan", f"arith.cmpf uno, {v}, {v} : {dt.mlir}")


def _is_inf(b: Block, v: str, dt: DType) -> str:
    a = lowering.math_call(b, "absf", [v], dt, "abs")
    return b.op("inf", f"arith.cmpf oeq, {a}, {b.const(float('inf'), dt.mlir)} : {dt.mlir}")


def _or(b: Block, *flags: str) -> str:
    r = flags[0]
    for f in flags[1:]:
        r = b.op("or", f"arith.ori {r}, {f} : i1")
    return r


def _and(b: Block, *flags: str) -> str:
    r = flags[0]
    for f in flags[1:]:
        r = b.op("and", f"arith.andi {r}, {f} : i1")
    return r


def _declare(name: str, rule: Any, arity: int, lower: Callable[[Typed], Any], doc: str,
             numpy: tuple[str, ...] | None = None) -> None:
    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = doc
    op(name, numpy=numpy, kind="ufunc", arity=arity, dtype_rule=rule)(lower)


# --------------------------------------------------------------------------------------------------
# integers: shifts, gcd, lcm, bitwise_count


def _shift(name: str) -> Callable[[Typed], TracedArray]:
    left = name == "left_shift"

    def lower(t: Typed) -> TracedArray:
        dt = t.dtype
        ty = dt.mlir

        def body(b: Block, v: list[str]) -> str:
            x, n = v
            # NumPy compares the count as unsigned: negative counts are as large ones
            fits = b.op("fits", f"arith.cmpi ult, {n}, {b.const(dt.bits, ty)} : {ty}")
            zero = b.const(0, ty)
            if left:
                return lowering.select(b, fits, b.op("shl", f"arith.shli {x}, {n} : {ty}"), zero, dt)
            if dt.is_unsigned:
                return lowering.select(b, fits, b.op("shr", f"arith.shrui {x}, {n} : {ty}"), zero, dt)
            count = lowering.select(b, fits, n, b.const(dt.bits - 1, ty), dt)
            return b.op("shr", f"arith.shrsi {x}, {count} : {ty}")

        return lowering.emit_elementwise(t.context, name[:-6] + "sh", [(x, dt) for x in t.operands], dt, body,
                                         t.weak)

    return lower


_declare("left_shift", INT_NO_BOOL_LOOP, 2, _shift("left_shift"),
         "``x1 << x2``; 0 for a count of the bit width or more (NumPy's ``left_shift``).",
         ("left_shift", "bitwise_left_shift"))
_declare("right_shift", INT_NO_BOOL_LOOP, 2, _shift("right_shift"),
         "``x1 >> x2``, arithmetic for signed integers (NumPy's ``right_shift``).",
         ("right_shift", "bitwise_right_shift"))


def _magnitude(b: Block, v: str, dt: DType) -> str:
    """``|v|`` as the bits of an unsigned number (``|MIN|`` is ``2**(bits-1)``)."""
    if not dt.is_signed:
        return v
    negative = lowering.compare(b, "lt", v, b.const(0, dt.mlir), dt)
    return lowering.select(b, negative, lowering.arith(b, "subi", b.const(0, dt.mlir), v, dt, "neg"), v, dt)


def _gcd_of(b: Block, x: str, y: str, dt: DType) -> str:
    """Euclid's ``gcd(|x|, |y|)`` in unsigned arithmetic (an ``scf.while``)."""
    ty = dt.mlir
    names = b.names
    a0, b0 = _magnitude(b, x, dt), _magnitude(b, y, dt)
    res = "%" + names.fresh("gcd")
    ca, cb, da, db = ("%" + names.fresh(h) for h in ("a", "b", "a", "b"))
    cond = Block(names, indent=b.indent + 1)
    more = cond.op("more", f"arith.cmpi ne, {cb}, {cond.const(0, ty)} : {ty}")
    cond.raw(f"scf.condition({more}) {ca}, {cb} : {ty}, {ty}")
    step = Block(names, indent=b.indent + 1)
    rem = step.op("rem", f"arith.remui {da}, {db} : {ty}")
    step.raw(f"scf.yield {db}, {rem} : {ty}, {ty}")
    b.raw(f"{res}:2 = scf.while ({ca} = {a0}, {cb} = {b0}) : ({ty}, {ty}) -> ({ty}, {ty}) {{")
    b.lines.extend(cond.lines)
    b.raw("} do {")
    b.raw(f"^bb0({da}: {ty}, {db}: {ty}):")
    b.lines.extend(step.lines)
    b.raw("}")
    return f"{res}#0"


def _gcd(t: Typed) -> TracedArray:
    dt = t.dtype
    return lowering.emit_elementwise(t.context, "gcd", [(x, dt) for x in t.operands], dt,
                                     lambda b, v: _gcd_of(b, v[0], v[1], dt), t.weak)


def _lcm(t: Typed) -> TracedArray:
    dt = t.dtype
    ty = dt.mlir

    def body(b: Block, v: list[str]) -> str:
        g = _gcd_of(b, v[0], v[1], dt)
        zero = b.const(0, ty)
        is_zero = b.op("z", f"arith.cmpi eq, {g}, {zero} : {ty}")
        safe = lowering.select(b, is_zero, b.const(1, ty), g, dt)
        q = b.op("q", f"arith.divui {_magnitude(b, v[0], dt)}, {safe} : {ty}")
        r = b.op("lcm", f"arith.muli {q}, {_magnitude(b, v[1], dt)} : {ty}")
        return lowering.select(b, is_zero, zero, r, dt)

    return lowering.emit_elementwise(t.context, "lcm", [(x, dt) for x in t.operands], dt, body, t.weak)


_declare("gcd", INTEGER, 2, _gcd, "The greatest common divisor of ``|x1|`` and ``|x2|`` (NumPy's ``gcd``).")
_declare("lcm", INTEGER, 2, _lcm, "The least common multiple of ``|x1|`` and ``|x2|`` (NumPy's ``lcm``).")


def _popcount(b: Block, x: str, bits: int) -> str:
    """The number of one bits of the ``bits``-wide integer ``x``, by halving sums (SWAR): the
    CUDA pipeline lowers no ``math.ctpop``."""
    ty = f"i{bits}"

    def pattern(byte: int) -> int:
        return int.from_bytes(bytes([byte]) * (bits // 8), "little")

    def c(v: int) -> str:
        return b.const(v - (1 << bits) if v >= 1 << (bits - 1) else v, ty)

    def op(name: str, u: str, w: str) -> str:
        return b.op("pop", f"arith.{name} {u}, {w} : {ty}")

    x = op("subi", x, op("andi", op("shrui", x, c(1)), c(pattern(0x55))))
    x = op("addi", op("andi", x, c(pattern(0x33))), op("andi", op("shrui", x, c(2)), c(pattern(0x33))))
    x = op("andi", op("addi", x, op("shrui", x, c(4))), c(pattern(0x0F)))
    if bits == 8:
        return x
    return op("shrui", op("muli", x, c(pattern(0x01))), c(bits - 8))


def _bitwise_count(t: Typed) -> TracedArray:
    src = t.common
    src = D.DTYPES["int8"] if src.is_bool else src
    out = t.dtype

    def body(b: Block, v: list[str]) -> str:
        n = _popcount(b, _magnitude(b, v[0], src), src.bits)
        return lowering.convert(b, n, D.dtype(f"uint{src.bits}"), out)

    return lowering.emit_elementwise(t.context, "popcount", [(t.operands[0], src)], out, body)


_declare("bitwise_count", BITWISE_COUNT, 1, _bitwise_count,
         "The number of one bits of ``|x|``, as uint8 (NumPy's ``bitwise_count``).")


# --------------------------------------------------------------------------------------------------
# division: fmod, divmod; powers: float_power


def _fmod(t: Typed) -> TracedArray:
    dt = t.dtype
    _real_only("fmod", dt)
    ty = dt.mlir

    def body(b: Block, v: list[str]) -> str:
        x, y = v
        if dt.is_float:
            return lowering.convert(b, lowering.arith(b, "remf", *[lowering.convert(b, a, dt, _wide(dt)) for a in v],
                                                      _wide(dt), "fmod"), _wide(dt), dt)
        zero = b.const(0, ty)
        bad = lowering.compare(b, "eq", y, zero, dt)
        if dt.is_signed:  # MIN % -1 traps in hardware; its remainder is 0
            bad = _or(b, bad, lowering.compare(b, "eq", y, b.const(-1, ty), dt))
        safe = lowering.select(b, bad, b.const(1, ty), y, dt)
        r = lowering.arith(b, "remsi" if dt.is_signed else "remui", x, safe, dt, "fmod")
        return lowering.select(b, bad, zero, r, dt)

    return lowering.emit_elementwise(t.context, "fmod", [(x, dt) for x in t.operands], dt, body, t.weak)


_declare("fmod", NO_BOOL_LOOP, 2, _fmod,
         "The remainder of ``x1 / x2`` with the sign of ``x1`` (C's ``fmod``); 0 for an integer ``x2`` of 0.")


def _divmod(t: Typed) -> tuple[TracedArray, TracedArray]:
    _real_only("divmod", t.dtype)
    return elementwise.binary("floor_divide", *t.operands), elementwise.binary("remainder", *t.operands)


_declare("divmod", NO_BOOL_LOOP, 2, _divmod, "``(x1 // x2, x1 % x2)`` (NumPy's ``divmod``).")


def _float_power(t: Typed) -> TracedArray:
    dt = t.dtype
    ops = [x if isinstance(x, TracedArray) else (complex(x) if dt.is_complex else float(x)) for x in t.operands]
    ops = [elementwise.astype(x, dt.name) if isinstance(x, TracedArray) else x for x in ops]
    return elementwise.binary("power", *ops)


_declare("float_power", FLOAT_POWER, 2, _float_power,
         "``x1 ** x2`` in float64 (complex128 for complex inputs), NumPy's ``float_power``.")


# --------------------------------------------------------------------------------------------------
# float functions


def _heaviside(t: Typed) -> TracedArray:
    def body(b: Block, v: list[str], dt: DType) -> str:
        x, h0 = v
        zero, one = b.const(0.0, dt.mlir), b.const(1.0, dt.mlir)
        r = lowering.select(b, lowering.compare(b, "lt", x, zero, dt), zero, one, dt)
        r = lowering.select(b, lowering.compare(b, "eq", x, zero, dt), h0, r, dt)
        return lowering.select(b, _is_nan(b, x, dt), x, r, dt)

    return _float_op(t, "heaviside", body)


_declare("heaviside", FLOAT, 2, _heaviside,
         "The step function: 0 below zero, ``x2`` at zero, 1 above (NaN stays NaN).")


def _logaddexp(base2: bool) -> Callable[[Typed], TracedArray]:
    name = "logaddexp2" if base2 else "logaddexp"

    def body(b: Block, v: list[str], dt: DType) -> str:
        """NumPy's ``npy_logaddexp``: the larger plus ``log1p(exp(-|x - y|))``; ``x`` when both
        are equal (infinities included)."""
        x, y = v
        ty = dt.mlir
        diff = lowering.arith(b, "subf", x, y, dt, "diff")
        neg = b.op("neg", f"arith.negf {lowering.math_call(b, 'absf', [diff], dt)} : {ty}")
        if base2:
            p = lowering.math_call(b, "exp2", [neg], dt)
            tail = lowering.arith(b, "mulf", lowering.math_call(b, "log1p", [p], dt),
                                  b.const(1 / math.log(2), ty), dt, "tail")
        else:
            tail = lowering.math_call(b, "log1p", [lowering.math_call(b, "exp", [neg], dt)], dt)
        big = lowering.arith(b, "maximumf", x, y, dt, "big")
        r = lowering.arith(b, "addf", big, tail, dt, name)
        same = lowering.compare(b, "eq", x, y, dt)
        if base2:
            at_same = lowering.arith(b, "addf", x, b.const(1.0, ty), dt, "same")
        else:
            at_same = lowering.arith(b, "addf", x, b.const(math.log(2), ty), dt, "same")
        return lowering.select(b, same, at_same, r, dt)

    return lambda t: _float_op(t, name, body)


_declare("logaddexp", FLOAT, 2, _logaddexp(False), "``log(exp(x1) + exp(x2))`` without overflow.")
_declare("logaddexp2", FLOAT, 2, _logaddexp(True), "``log2(2**x1 + 2**x2)`` without overflow.")


def _scale(name: str, factor64: float, factor32: float) -> Callable[[Typed], TracedArray]:
    """Multiplication by a constant, rounded in each dtype as NumPy's C constant is."""

    def body(b: Block, v: list[str], dt: DType) -> str:
        return lowering.arith(b, "mulf", v[0], b.const(factor64 if dt.bits == 64 else factor32, dt.mlir), dt, name)

    return lambda t: _float_op(t, name, body)


def _f32(v: float) -> float:
    """``v`` rounded to the nearest float32, as a Python float."""
    return float(np.float32(v))


_PI32 = _f32(math.pi)
_DEG2RAD = (math.pi / 180.0, _f32(_PI32 / 180.0))
_RAD2DEG = (180.0 / math.pi, _f32(180.0 / _PI32))
_declare("deg2rad", FLOAT, 1, _scale("deg2rad", *_DEG2RAD), "Degrees to radians.", ("deg2rad",))
_declare("radians", FLOAT, 1, _scale("radians", *_DEG2RAD), "Degrees to radians.", ("radians",))
_declare("rad2deg", FLOAT, 1, _scale("rad2deg", *_RAD2DEG), "Radians to degrees.", ("rad2deg",))
_declare("degrees", FLOAT, 1, _scale("degrees", *_RAD2DEG), "Radians to degrees.", ("degrees",))


def _fabs(t: Typed) -> TracedArray:
    return _float_op(t, "fabs", lambda b, v, dt: lowering.math_call(b, "absf", v, dt, "fabs"))


_declare("fabs", FLOAT, 1, _fabs, "The absolute value of real numbers, as floats (C's ``fabs``).")


def _signbit(t: Typed) -> TracedArray:
    src = t.common
    _real_only("signbit", src)

    def body(b: Block, v: list[str]) -> str:
        if src.is_float:
            return b.op("neg", f"arith.cmpi slt, {_bits(b, v[0], src)}, {b.const(0, _int_type(src))} : "
                               f"{_int_type(src)}")
        if src.is_signed:
            return lowering.compare(b, "lt", v[0], b.const(0, src.mlir), src)
        return b.const(False, "i1")

    return lowering.emit_elementwise(t.context, "signbit", [(t.operands[0], src)], t.dtype, body, t.weak)


_declare("signbit", BOOL, 1, _signbit, "Whether the sign bit is set (``-0.0`` and negative NaNs included).")


def _modf_parts(b: Block, x: str, dt: DType) -> tuple[str, str]:
    # trunc as floor or ceil: the CUDA pipeline lowers those, not math.trunc
    negative = lowering.compare(b, "lt", x, b.const(0.0, dt.mlir), dt)
    up, down = lowering.math_call(b, "ceil", [x], dt), lowering.math_call(b, "floor", [x], dt)
    whole = lowering.select(b, negative, up, down, dt)
    frac = lowering.arith(b, "subf", x, whole, dt, "frac")
    frac = lowering.select(b, _is_inf(b, x, dt), b.const(0.0, dt.mlir), frac, dt)
    return lowering.math_call(b, "copysign", [frac, x], dt, "frac"), whole


def _modf(t: Typed) -> tuple[TracedArray, TracedArray]:
    return (_float_op(t, "modf", lambda b, v, dt: _modf_parts(b, v[0], dt)[0]),
            _float_op(t, "modf", lambda b, v, dt: _modf_parts(b, v[0], dt)[1]))


_declare("modf", FLOAT, 1, _modf,
         "The fractional and integral parts, both with the sign of ``x`` (NumPy's ``modf``).")

#: float32 and float64: the mantissa's bits, the exponent field's mask and the exponent of 0.5.
_LAYOUT = {32: (23, 0xFF, 126), 64: (52, 0x7FF, 1022)}


def _frexp_parts(b: Block, x: str, dt: DType) -> tuple[str, str]:
    """C's ``frexp`` of ``x`` (float32 or float64): the mantissa in ``[0.5, 1)`` with ``x``'s sign,
    and the exponent (as the integer of ``dt``'s width), from the bits; subnormals are scaled up
    first; zeros, infinities and NaNs are their own mantissa, with exponent 0."""
    mant_bits, mask, half = _LAYOUT[dt.bits]
    ity = _int_type(dt)
    ty = dt.mlir
    shift = dt.bits
    tiny = b.const(2.0 ** (-half), ty)  # the smallest normal number
    sub = b.op("sub", f"arith.cmpf olt, {lowering.math_call(b, 'absf', [x], dt)}, {tiny} : {ty}")
    scaled = lowering.select(b, sub, lowering.arith(b, "mulf", x, b.const(2.0 ** shift, ty), dt, "scaled"), x, dt)
    bits = _bits(b, scaled, dt)
    field = b.op("e", f"arith.shrui {bits}, {b.const(mant_bits, ity)} : {ity}")
    field = b.op("field", f"arith.andi {field}, {b.const(mask, ity)} : {ity}")
    exp = b.op("e", f"arith.subi {field}, {b.const(half, ity)} : {ity}")
    adjust = b.op("adj", f"arith.select {sub}, {b.const(shift, ity)}, {b.const(0, ity)} : {ity}")
    exp = b.op("e", f"arith.subi {exp}, {adjust} : {ity}")
    keep = b.op("keep", f"arith.andi {bits}, {b.const(~(mask << mant_bits), ity)} : {ity}")
    mant = _from_bits(b, b.op("m", f"arith.ori {keep}, {b.const(half << mant_bits, ity)} : {ity}"), dt)
    special = _or(b, lowering.compare(b, "eq", x, b.const(0.0, ty), dt), _is_nan(b, x, dt), _is_inf(b, x, dt))
    return (lowering.select(b, special, x, mant, dt),
            b.op("e", f"arith.select {special}, {b.const(0, ity)}, {exp} : {ity}"))


def _frexp(t: Typed) -> tuple[TracedArray, TracedArray]:
    int32 = D.dtype("int32")
    mantissa = _float_op(t, "frexp", lambda b, v, dt: _frexp_parts(b, v[0], dt)[0])
    wide = _wide(t.dtype)
    exp_dt = D.dtype(f"int{wide.bits}")

    def exponent(b: Block, v: list[str]) -> str:
        return lowering.convert(b, _frexp_parts(b, v[0], wide)[1], exp_dt, int32)

    exps = lowering.emit_elementwise(t.context, "frexp", [(t.operands[0], wide)], int32, exponent)
    return mantissa, exps


_declare("frexp", FLOAT, 1, _frexp,
         "``x = mantissa * 2**exponent`` with ``|mantissa|`` in ``[0.5, 1)``, the exponent as int32.")


def _power_of_two(b: Block, k: str) -> str:
    """``2.0**k`` (f64) for an i64 ``k`` in ``[-1022, 1023]``, from its bits."""
    biased = b.op("k", f"arith.addi {k}, {b.const(1023, 'i64')} : i64")
    shifted = b.op("k", f"arith.shli {biased}, {b.const(52, 'i64')} : i64")
    return b.op("p2", f"arith.bitcast {shifted} : i64 to f64")


def _ldexp(t: Typed) -> TracedArray:
    """``x1 * 2**x2``: float32 and 16-bit floats exactly in float64 and rounded once; float64
    in three steps of powers of two that cannot overflow before the result does."""
    dt = t.dtype
    x1, x2 = t.operands
    n_dt = lowering.promote([x2])[0]
    i64 = D.INT64
    limit = 2200 if dt.bits == 64 else 400  # beyond: every result is 0 or inf already

    def body(b: Block, v: list[str]) -> str:
        x = lowering.convert(b, v[0], dt, D.FLOAT64)
        n = lowering.convert(b, v[1], n_dt, i64)
        n = lowering.arith(b, "maxsi", n, b.const(-limit, "i64"), i64, "n")
        n = lowering.arith(b, "minsi", n, b.const(limit, "i64"), i64, "n")
        if dt.bits != 64:
            r = lowering.arith(b, "mulf", x, _power_of_two(b, n), D.FLOAT64, "ldexp")
            return lowering.convert(b, r, D.FLOAT64, dt)
        k1 = b.op("k", f"arith.divsi {n}, {b.const(3, 'i64')} : i64")
        rest = b.op("k", f"arith.subi {n}, {k1} : i64")
        k2 = b.op("k", f"arith.divsi {rest}, {b.const(2, 'i64')} : i64")
        k3 = b.op("k", f"arith.subi {rest}, {k2} : i64")
        r = x
        for k in (k1, k2, k3):
            r = lowering.arith(b, "mulf", r, _power_of_two(b, k), D.FLOAT64, "ldexp")
        return r

    return lowering.emit_elementwise(t.context, "ldexp", [(x1, dt), (x2, n_dt)], dt, body, t.weak)


_declare("ldexp", LDEXP, 2, _ldexp, "``x1 * 2**x2`` for an integer ``x2`` (C's ``ldexp``).")


def _next_after(b: Block, x: str, y: str, dt: DType) -> str:
    """C's ``nextafter``: the float next to ``x`` towards ``y`` (one step of its bits)."""
    ity, ty = _int_type(dt), dt.mlir
    zero = b.const(0.0, ty)
    bits = _bits(b, x, dt)
    # away from zero when y lies beyond x on x's side: one more in the bits' magnitude
    away = b.op("away", f"arith.xori {lowering.compare(b, 'lt', x, y, dt)}, "
                        f"{lowering.compare(b, 'lt', x, zero, dt)} : i1")
    step = lowering.select(b, away, b.const(1, ity), b.const(-1, ity), D.dtype(f"int{dt.bits}"))
    r = _from_bits(b, b.op("next", f"arith.addi {bits}, {step} : {ity}"), dt)
    tiny = _from_bits(b, b.const(1, ity), dt)
    towards = lowering.math_call(b, "copysign", [tiny, y], dt)
    r = lowering.select(b, lowering.compare(b, "eq", x, zero, dt), towards, r, dt)
    r = lowering.select(b, lowering.compare(b, "eq", x, y, dt), y, r, dt)
    either_nan = _or(b, _is_nan(b, x, dt), _is_nan(b, y, dt))
    return lowering.select(b, either_nan, lowering.arith(b, "addf", x, y, dt, "nan"), r, dt)


def _nextafter(t: Typed) -> TracedArray:
    dt = t.dtype
    _real_only("nextafter", dt)
    return lowering.emit_elementwise(t.context, "nextafter", [(x, dt) for x in t.operands], dt,
                                     lambda b, v: _next_after(b, v[0], v[1], dt), t.weak)


_declare("nextafter", FLOAT, 2, _nextafter, "The next float after ``x1`` towards ``x2``.")


def _spacing(t: Typed) -> TracedArray:
    dt = t.dtype
    _real_only("spacing", dt)

    ity, ty = _int_type(dt), dt.mlir

    def body(b: Block, v: list[str]) -> str:
        """NumPy's ``npy_spacing``: the step away from zero (towards +inf from either zero).
        Its half version differs: always positive, and below a negative power of two (or
        -65504) the step towards zero."""
        x = v[0]
        pos_inf = b.const(float("inf"), ty)
        if dt.name != "float16":
            neg = lowering.compare(b, "lt", x, b.const(0.0, ty), dt)
            towards = lowering.select(b, neg, b.const(float("-inf"), ty), pos_inf, dt)
            r = lowering.arith(b, "subf", _next_after(b, x, towards, dt), x, dt, "spacing")
        else:
            a = lowering.math_call(b, "absf", [x], dt)
            up = lowering.arith(b, "subf", _next_after(b, a, pos_inf, dt), a, dt, "up")
            down = lowering.arith(b, "subf", a, _next_after(b, a, b.const(0.0, ty), dt), dt, "down")
            bits = _bits(b, x, dt)
            sig = b.op("sig", f"arith.andi {bits}, {b.const(0x3FF, ity)} : {ity}")
            negative = b.op("neg", f"arith.cmpi slt, {bits}, {b.const(0, ity)} : {ity}")
            boundary = _and(b, negative, b.op("pow2", f"arith.cmpi eq, {sig}, {b.const(0, ity)} : {ity}"),
                            lowering.compare(b, "ne", a, b.const(0.0, ty), dt))
            lowest = lowering.compare(b, "eq", x, b.const(-65504.0, ty), dt)
            r = lowering.select(b, _or(b, boundary, lowest), down, up, dt)
        return lowering.select(b, _is_inf(b, x, dt), b.const(float("nan"), ty), r, dt)

    return lowering.emit_elementwise(t.context, "spacing", [(t.operands[0], dt)], dt, body, t.weak)


_declare("spacing", FLOAT, 1, _spacing, "The distance from ``x`` to the next float away from zero.")

