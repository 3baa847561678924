"""NumPy's transcendental ufuncs on complex scalars, as the scalar code of an elementwise kernel.

``exp`` and ``log`` are the ``complex`` dialect's. The others are written on the real and
imaginary parts with the real functions, as C99's ``c*`` functions and NumPy's ``nc_*`` are,
because the dialect's expansions lose the imaginary part of small arguments (``sin(1e-8 + 1e-8j)``
off by 1e-8 relatively), leave ``sqrt(-1)`` a real part of 6e-17, and add constants with a ``+0j``
that flips the sign of zero on branch cuts: ``sqrt`` as C99's ``csqrt``;
``sin``/``cos``/``sinh``/``cosh`` from ``sinh``/``cosh`` of the parts; ``tanh`` by Kahan's formula
(``tan(z) = -i tanh(iz)``); ``expm1`` and ``log1p`` (NumPy's ``log(hypot(1 + x, y))``) by parts;
``arctanh`` as ``0.25 log1p(4x / ((1 - x)^2 + y^2))``; ``arcsin``, ``arccos``, ``arccosh`` by
Kahan's formulas from ``sqrt(1 - z)``, ``sqrt(1 + z)``, ``sqrt(z - 1)``; ``arcsinh`` and
``arctan`` from those.
"""

from __future__ import annotations

import math
from typing import Callable

from . import lowering
from .dtypes import DType
from .mlir_text import Block

__all__ = ["COMPLEX_UNARY", "complex_sign", "complex_unary"]


class _Z:
    """Complex and real scalar code of one complex ``dt`` in block ``b``."""

    def __init__(self, b: Block, dt: DType) -> None:
        self.b, self.dt, self.ty = b, dt, dt.mlir
        self.comp = dt.component
        self.ct = self.comp.mlir

    # ---- real parts
    def f(self, op: str, *args: str) -> str:
        return self.b.op(op, f"arith.{op} {', '.join(args)} : {self.ct}")

    def math(self, name: str, *args: str) -> str:
        return lowering.math_call(self.b, name, list(args), self.comp)

    def k(self, value: float) -> str:
        return self.b.const(float(value), self.ct)

    # ---- complex values
    def parts(self, z: str) -> tuple[str, str]:
        return lowering.complex_parts(self.b, z, self.dt)

    def make(self, re: str, im: str) -> str:
        return self.b.op("z", f"complex.create {re}, {im} : {self.ty}")

    def op(self, name: str, *args: str) -> str:
        return self.b.op(name, f"complex.{name} {', '.join(args)} : {self.ty}")

    def const_nan(self) -> str:
        return self.b.const(complex(math.nan, math.nan), self.ty)

    def add_real(self, z: str, k: float) -> str:
        """``z + k`` for a real ``k``, keeping the imaginary part's sign of zero."""
        re, im = self.parts(z)
        return self.make(self.f("addf", re, self.k(k)), im)

    def scale(self, z: str, k: float) -> str:
        """``k * z`` for a real ``k``, part by part (infinities stay infinities)."""
        re, im = self.parts(z)
        return self.make(self.f("mulf", re, self.k(k)), self.f("mulf", im, self.k(k)))

    def times_i(self, z: str, sign: float = 1.0) -> str:
        """``sign * i * z``, exactly."""
        re, im = self.parts(z)
        return self.make(self.f("negf", im), re) if sign > 0 else self.make(im, self.f("negf", re))

    def select(self, cond: str, a: str, b: str) -> str:
        return self.b.op("sel", f"arith.select {cond}, {a}, {b} : {self.ty}")


def _trig(name: str) -> Callable[[_Z, str], str]:
    """``sin``, ``cos``, ``sinh`` and ``cosh`` of ``x + iy`` from ``sin``/``cos`` of ``y`` or ``x``
    and ``sinh``/``cosh`` of the other part."""

    def body(z: _Z, v: str) -> str:
        x, y = z.parts(v)
        if name in ("sin", "cos"):  # sin x cosh y + i cos x sinh y; cos x cosh y - i sin x sinh y
            s, c, sh, ch = z.math("sin", x), z.math("cos", x), z.math("sinh", y), z.math("cosh", y)
            if name == "sin":
                return z.make(z.f("mulf", s, ch), z.f("mulf", c, sh))
            return z.make(z.f("mulf", c, ch), z.f("negf", z.f("mulf", s, sh)))
        sh, ch, c, s = z.math("sinh", x), z.math("cosh", x), z.math("cos", y), z.math("sin", y)
        if name == "sinh":  # sinh x cos y + i cosh x sin y
            return z.make(z.f("mulf", sh, c), z.f("mulf", ch, s))
        return z.make(z.f("mulf", ch, c), z.f("mulf", sh, s))  # cosh x cos y + i sinh x sin y

    return body


def _tanh(z: _Z, v: str) -> str:
    """Kahan's ``tanh``: with ``t = tan y``, ``s = sinh x``, ``beta = 1 + t^2``, ``rho = sqrt(1 + s^2)``,
    ``(beta rho s + i t) / (1 + beta s^2)``; beyond ``|x| > 22`` (``9`` in single precision) the
    real part is ``sign(x)`` and the imaginary ``4 sin y cos y e^(-2|x|)``."""
    x, y = z.parts(v)
    t, s = z.math("tan", y), z.math("sinh", x)
    beta = z.f("addf", z.k(1.0), z.f("mulf", t, t))
    rho = z.math("sqrt", z.f("addf", z.k(1.0), z.f("mulf", s, s)))
    denom = z.f("addf", z.k(1.0), z.f("mulf", beta, z.f("mulf", s, s)))
    near = z.make(z.f("divf", z.f("mulf", z.f("mulf", beta, rho), s), denom), z.f("divf", t, denom))
    ax = z.math("absf", x)
    exp = z.math("exp", z.f("mulf", z.k(-2.0), ax))
    far_im = z.f("mulf", z.f("mulf", z.k(4.0), z.f("mulf", z.math("sin", y), z.math("cos", y))), exp)
    far = z.make(z.math("copysign", z.k(1.0), x), far_im)
    large = z.b.op("large", f"arith.cmpf ogt, {ax}, {z.k(22.0 if z.comp.bits == 64 else 9.0)} : {z.ct}")
    return z.select(large, far, near)


def _expm1(z: _Z, v: str) -> str:
    """``expm1(x) cos y - 2 sin^2(y / 2) + i e^x sin y``."""
    x, y = z.parts(v)
    half = z.math("sin", z.f("mulf", y, z.k(0.5)))
    re = z.f("subf", z.f("mulf", z.math("expm1", x), z.math("cos", y)), z.f("mulf", z.k(2.0), z.f("mulf", half, half)))
    return z.make(re, z.f("mulf", z.math("exp", x), z.math("sin", y)))


def _log1p_numpy(z: _Z, v: str) -> str:
    """NumPy's ``log1p``: ``log(hypot(1 + x, y)) + i atan2(y, 1 + x)``."""
    x, y = z.parts(v)
    xp1 = z.f("addf", x, z.k(1.0))
    return z.make(z.math("log", _hypot(z, xp1, y)), z.math("atan2", y, xp1))


def _hypot(z: _Z, a: str, b: str) -> str:
    """``sqrt(a^2 + b^2)`` without overflow: ``m sqrt(1 + (n / m)^2)`` for ``m = max(|a|, |b|)``."""
    aa, ab = z.math("absf", a), z.math("absf", b)
    m, n = z.f("maximumf", aa, ab), z.f("minimumf", aa, ab)
    zero = z.b.op("zero", f"arith.cmpf oeq, {m}, {z.k(0.0)} : {z.ct}")
    r = z.f("divf", n, m)
    h = z.f("mulf", m, z.math("sqrt", z.f("addf", z.k(1.0), z.f("mulf", r, r))))
    inf = z.b.op("inf", f"arith.cmpf oeq, {m}, {z.k(math.inf)} : {z.ct}")
    h = z.b.op("h", f"arith.select {inf}, {m}, {h} : {z.ct}")
    return z.b.op("h", f"arith.select {zero}, {z.k(0.0)}, {h} : {z.ct}")


def _arctanh(z: _Z, v: str) -> str:
    """``0.25 log1p(4x / ((1 - x)^2 + y^2)) + i 0.5 atan2(2y, (1 - x)(1 + x) - y^2)``."""
    x, y = z.parts(v)
    one_minus = z.f("subf", z.k(1.0), x)
    den = z.f("addf", z.f("mulf", one_minus, one_minus), z.f("mulf", y, y))
    re = z.f("mulf", z.k(0.25), z.math("log1p", z.f("divf", z.f("mulf", z.k(4.0), x), den)))
    im_den = z.f("subf", z.f("mulf", one_minus, z.f("addf", z.k(1.0), x)), z.f("mulf", y, y))
    im = z.f("mulf", z.k(0.5), z.math("atan2", z.f("mulf", z.k(2.0), y), im_den))
    return z.make(re, im)


def _sqrt(z: _Z, v: str) -> str:
    """C99's ``csqrt``: ``t = sqrt((|x| + |z|) / 2)``, then ``(t, y / 2t)`` for ``x >= 0`` and
    ``(|y| / 2t, copysign(t, y))`` otherwise; ``(0, y)`` at zero, ``(inf, y)`` for an infinite
    ``y`` (the sign of a zero ``y`` picks the side of the cut on the negative axis)."""
    x, y = z.parts(v)
    t = z.math("sqrt", z.f("mulf", z.f("addf", z.math("absf", x), _hypot(z, x, y)), z.k(0.5)))
    half_y = z.f("divf", y, z.f("mulf", z.k(2.0), t))
    right = z.make(t, half_y)
    left = z.make(z.math("absf", half_y), z.math("copysign", t, y))
    nonneg = z.b.op("right", f"arith.cmpf oge, {x}, {z.k(0.0)} : {z.ct}")
    r = z.select(nonneg, right, left)
    is_zero = z.b.op("zero", f"arith.cmpf oeq, {_hypot(z, x, y)}, {z.k(0.0)} : {z.ct}")
    r = z.select(is_zero, z.make(z.k(0.0), y), r)
    inf_y = z.b.op("inf", f"arith.cmpf oeq, {z.math('absf', y)}, {z.k(math.inf)} : {z.ct}")
    return z.select(inf_y, z.make(z.k(math.inf), y), r)


def _roots(z: _Z, v: str, first: float, second: float) -> tuple[tuple[str, str], tuple[str, str]]:
    """The parts of ``sqrt(first + z)`` (``first`` 1: ``1 + z``, -1: ``z - 1``; negative the
    ``1 - z`` of ``first == -2``) and ``sqrt(second + z)``, by parts so signed zeros survive."""

    def shifted(k: float) -> str:
        x, y = z.parts(v)
        if k == -2.0:  # 1 - z
            return z.make(z.f("subf", z.k(1.0), x), z.f("negf", y))
        return z.make(z.f("addf", x, z.k(k)), y)

    return z.parts(_sqrt(z, shifted(first))), z.parts(_sqrt(z, shifted(second)))


def _arcsin(z: _Z, v: str) -> str:
    """Kahan's ``arcsin``: with ``a = sqrt(1 - z)``, ``b = sqrt(1 + z)``,
    ``atan2(x, Re(a b)) + i asinh(Im(conj(a) b))``."""
    x, _ = z.parts(v)
    (ar, ai), (br, bi) = _roots(z, v, -2.0, 1.0)
    re = z.math("atan2", x, z.f("subf", z.f("mulf", ar, br), z.f("mulf", ai, bi)))
    im = z.math("asinh", z.f("subf", z.f("mulf", ar, bi), z.f("mulf", ai, br)))
    return z.make(re, im)


def _arccos(z: _Z, v: str) -> str:
    """Kahan's ``arccos``: with ``a = sqrt(1 - z)``, ``b = sqrt(1 + z)``,
    ``2 atan2(Re a, Re b) + i asinh(Im(conj(b) a))``."""
    (ar, ai), (br, bi) = _roots(z, v, -2.0, 1.0)
    re = z.f("mulf", z.k(2.0), z.math("atan2", ar, br))
    im = z.math("asinh", z.f("subf", z.f("mulf", br, ai), z.f("mulf", bi, ar)))
    return z.make(re, im)


def _arccosh(z: _Z, v: str) -> str:
    """Kahan's ``arccosh``: with ``a = sqrt(z - 1)``, ``b = sqrt(z + 1)``,
    ``asinh(Re(conj(a) b)) + 2i atan2(Im a, Re b)``."""
    (ar, ai), (br, bi) = _roots(z, v, -1.0, 1.0)
    re = z.math("asinh", z.f("addf", z.f("mulf", ar, br), z.f("mulf", ai, bi)))
    im = z.f("mulf", z.k(2.0), z.math("atan2", ai, br))
    return z.make(re, im)


def _arcsinh(z: _Z, v: str) -> str:
    """``-i arcsin(iz)``."""
    return z.times_i(_arcsin(z, z.times_i(v)), -1.0)


_FUNCTIONS: dict[str, Callable[[_Z, str], str]] = {
    "exp": lambda z, v: z.op("exp", v),
    "log": lambda z, v: z.op("log", v),
    "sqrt": _sqrt,
    "sin": _trig("sin"),
    "cos": _trig("cos"),
    "sinh": _trig("sinh"),
    "cosh": _trig("cosh"),
    "tanh": _tanh,
    "tan": lambda z, v: z.times_i(_tanh(z, z.times_i(v)), -1.0),  # -i tanh(iz)
    "expm1": _expm1,
    "log1p": _log1p_numpy,
    "arctanh": _arctanh,
    "arctan": lambda z, v: z.times_i(_arctanh(z, z.times_i(v)), -1.0),  # -i arctanh(iz)
    "arcsinh": _arcsinh,
    "arccosh": _arccosh,
    "arcsin": _arcsin,
    "arccos": _arccos,
    "log10": lambda z, v: z.scale(z.op("log", v), 1.0 / math.log(10.0)),
    "log2": lambda z, v: z.scale(z.op("log", v), 1.0 / math.log(2.0)),
    "exp2": lambda z, v: z.op("exp", z.scale(v, math.log(2.0))),
}

#: The unary float ufuncs that take complex numbers.
COMPLEX_UNARY = frozenset(_FUNCTIONS)


def complex_unary(b: Block, name: str, v: str, dt: DType) -> str:
    """NumPy's ``name`` (one of :data:`COMPLEX_UNARY`) of the complex scalar ``v`` of ``dt``."""
    return _FUNCTIONS[name](_Z(b, dt), v)


def complex_sign(b: Block, v: str, dt: DType) -> str:
    """NumPy 2's ``sign`` of a complex scalar: ``z / |z|``, ``0`` at zero; an infinite part gives
    its sign (``±1`` or ``±1j``) whatever the other part, two infinite parts or a NaN give NaN."""
    z = _Z(b, dt)
    x, y = z.parts(v)
    inf = z.k(math.inf)
    inf_x = b.op("inf", f"arith.cmpf oeq, {z.math('absf', x)}, {inf} : {z.ct}")
    inf_y = b.op("inf", f"arith.cmpf oeq, {z.math('absf', y)}, {inf} : {z.ct}")
    nan = z.const_nan()
    mag = _hypot(z, x, y)
    zero = b.op("zero", f"arith.cmpf oeq, {mag}, {z.k(0.0)} : {z.ct}")
    r = z.select(zero, z.make(z.k(0.0), z.k(0.0)), z.make(z.f("divf", x, mag), z.f("divf", y, mag)))
    unordered = b.op("nan", f"arith.cmpf uno, {x}, {y} : {z.ct}")
    r = z.select(unordered, nan, r)
    r = z.select(inf_y, z.make(z.k(0.0), z.math("copysign", z.k(1.0), y)), r)
    r = z.select(inf_x, z.make(z.math("copysign", z.k(1.0), x), z.k(0.0)), r)
    both = b.op("both", f"arith.andi {inf_x}, {inf_y} : i1")
    return z.select(both, nan, r)
