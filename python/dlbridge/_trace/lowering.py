"""The emission toolkit every traced operation lowers through: operands (lifting Python and NumPy
values, promotion), scalar code for ``linalg`` bodies and the top level (constants, conversions,
arithmetic, comparisons), structure (broadcasting, ``linalg.generic``, unit dims, 0-d tensors) and
run-time checks.  The op families (``elementwise``, ``reductions``, ``contractions``, ``shapes``,
``indexing``, ``creation``...) declare their operations in the table and emit through these.

Elementwise operations become one ``linalg.generic`` each (broadcasting through indexing maps that
send size-1 dims to the constant 0; operands are converted to the computation dtype inside the body;
scalars are captured from above).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from functools import reduce as _fold
from typing import Any, Callable

import numpy as np

from . import dtypes as D
from .dtypes import DType
from .errors import TraceError, merge_sources, trace_error, unsupported
from .mlir_text import SSA_NAME, Block, affine_map, tensor_type
from .traced_array import SymbolicDim, TraceContext, TracedArray, current_context, public_type, sync_view

__all__ = [
    "MAX_CONSTANT_BYTES", "PyScalar", "arith", "broadcast", "broadcast_map", "collapse_units",
    "compare", "complex_parts", "constant_array", "context_of", "convert", "copy", "emit_elementwise",
    "emit_generic", "empty", "expand_units", "holds_traced", "is_tensor", "kind_of", "lift", "math_call",
    "message_literal", "no_out", "numpy_unless_traced", "promote", "py_const", "runtime_check", "scalar_add",
    "scalar_div",
    "scalar_floordiv", "scalar_max", "scalar_min", "scalar_mod", "scalar_mul", "scalar_pow",
    "scalar_ssa", "scalar_sub", "scalar_value", "select", "to_tensor",
]

PyScalar = (bool, int, float, complex)
Operand = Any  # TracedArray | bool | int | float | complex

# --------------------------------------------------------------------------------------------------
# operands


def context_of(*xs: Any) -> TraceContext:
    """The trace the traced operands among ``xs`` belong to (else the current one); mixing two
    traces, or a trace that has finished, is a TraceError."""
    ctx: TraceContext | None = None
    for x in xs:
        if isinstance(x, TracedArray):
            if ctx is None:
                ctx = x.context
            elif x.context is not ctx:
                raise TraceError("dlbridge.jit: arrays from two different traces were mixed")
    if ctx is None:
        ctx = current_context()
    if ctx is None or ctx.finished:
        raise TraceError(
            "dlbridge.jit: a traced array was used outside of its trace (did it escape the function?)"
        )
    return ctx


def lift(ctx: TraceContext, x: Any, opname: str = "operand") -> Any:
    """TracedArray or Python scalar; NumPy scalars / 0-d arrays become strong scalar constants."""
    if isinstance(x, TracedArray):
        sync_view(x)
        return x
    if isinstance(x, PyScalar):
        return x
    if isinstance(x, (np.generic, np.ndarray)):
        if isinstance(x, np.ndarray) and x.ndim != 0:
            return constant_array(ctx, x, opname)
        dt = D.dtype(x.dtype)
        item = x.item()
        v = py_const(ctx.top, item, dt)
        return TracedArray(ctx, v, dt, (), is_scalar=True)
    if isinstance(x, SymbolicDim):
        if x.context is not ctx:
            raise TraceError("dlbridge.jit: a shape entry from another trace was used")
        return x.as_array()
    as_array = getattr(x, "__dlbridge_array__", None)
    if as_array is not None:
        return as_array()
    explain = getattr(x, "__dlbridge_trace_error__", None)
    if explain is not None:
        raise explain()
    raise unsupported(opname, f"an operand of type {public_type(x)}")


#: Larger NumPy arrays used by a traced function are refused as constants: they belong in the
#: arguments, not in the compiled code.
MAX_CONSTANT_BYTES = 16 << 20


def constant_array(ctx: TraceContext, arr: Any, opname: str = "operand") -> TracedArray:
    """A NumPy array the traced function uses (a lookup table, ``np.mgrid[...]``) as a constant
    tensor: its bytes, little-endian, in a hex ``dense`` literal."""
    try:
        dt = D.dtype(arr.dtype)
    except TypeError:
        raise unsupported(opname, f"a NumPy array constant of dtype {arr.dtype}") from None
    if arr.nbytes > MAX_CONSTANT_BYTES:
        raise unsupported(
            opname,
            f"a NumPy array constant of {arr.nbytes} bytes (more than {MAX_CONSTANT_BYTES}); pass "
            "it as an argument of the jitted function instead",
        )
    if dt.is_bool:
        as_bytes = constant_array(ctx, arr.astype(np.uint8), opname)
        return emit_elementwise(ctx, "cast", [(as_bytes, D.BOOL)], D.BOOL, lambda b, v: v[0])
    ty = tensor_type(arr.shape, dt)
    if arr.size == 0:
        value = ctx.top.op("cst", f"tensor.empty() : {ty}")
    else:
        data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes().hex().upper()
        value = ctx.top.op("cst", f'arith.constant dense<"0x{data}"> : {ty}')
    return TracedArray(ctx, value, dt, arr.shape)


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a traced array, not a traced scalar or a Python value."""
    return isinstance(x, TracedArray) and not x.is_scalar


def promote(xs: Sequence[Any]) -> tuple[DType, str | None]:
    """Result dtype of combining ``xs`` (arrays strong, Python scalars weak) and the weak kind of
    the result when every operand was weak."""
    strong: list[DType] = []
    kinds: list[str] = []
    for x in xs:
        if isinstance(x, TracedArray):
            if x.weak is None:
                strong.append(x.element_type)
            else:
                kinds.append(x.weak)
        else:
            kinds.append(D.scalar_kind_of(x))
    if strong:
        dt = _fold(D.result_type, strong)
        for k in kinds:
            dt = D.weak_result_type(dt, k)
        return dt, None
    k = _fold(D.join_scalar_kinds, kinds)
    return D.default_dtype_of_kind(k), k


def kind_of(dt: DType) -> str:
    """The Python scalar kind (NEP 50 weak kind) of ``dt``: bool, int, float or complex."""
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[dt.kind]


# --------------------------------------------------------------------------------------------------
# scalar code (used in linalg bodies and at the top level)


def py_const(b: Block, value: Any, dt: DType) -> str:
    """Materialise a Python scalar as a constant of ``dt`` (NEP 50: out-of-range ints raise)."""
    if dt.is_bool:
        return b.const(bool(value), "i1")
    if dt.is_int:
        if isinstance(value, (float, complex)):
            raise trace_error(f"cannot convert {value!r} to {dt.name}", TypeError)
        v = int(value)
        lo, hi = D.int_range(dt)
        if not lo <= v <= hi:
            raise trace_error(f"Python integer {v} out of bounds for {dt.name}", OverflowError)
        if v >= 1 << (dt.bits - 1):
            v -= 1 << dt.bits
        return b.const(v, dt.mlir)
    if dt.is_float:
        if isinstance(value, complex):
            raise trace_error(f"cannot convert complex {value!r} to {dt.name}", TypeError)
        return b.const(float(value), dt.mlir)
    return b.const(complex(value), dt.mlir)


def convert(b: Block, v: str, src: DType, dst: DType) -> str:
    """Convert scalar SSA value ``v`` from ``src`` to ``dst`` (NumPy ``astype`` semantics)."""
    if src == dst:
        return v
    if src.mlir == dst.mlir and src.is_int and dst.is_int:
        return v  # signless: int8 <-> uint8 reinterpretation
    if dst.is_bool:
        if src.is_int:
            z = b.const(0, src.mlir)
            return b.op("tobool", f"arith.cmpi ne, {v}, {z} : {src.mlir}")
        if src.is_float:
            z = b.const(0.0, src.mlir)
            return b.op("tobool", f"arith.cmpf une, {v}, {z} : {src.mlir}")
        comp = src.component
        re = b.op("re", f"complex.re {v} : {src.mlir}")
        im = b.op("im", f"complex.im {v} : {src.mlir}")
        z = b.const(0.0, comp.mlir)
        r1 = b.op("tobool", f"arith.cmpf une, {re}, {z} : {comp.mlir}")
        r2 = b.op("tobool", f"arith.cmpf une, {im}, {z} : {comp.mlir}")
        return b.op("tobool", f"arith.ori {r1}, {r2} : i1")
    if dst.is_complex:
        comp = dst.component
        if src.is_complex:
            re = b.op("re", f"complex.re {v} : {src.mlir}")
            im = b.op("im", f"complex.im {v} : {src.mlir}")
            re = convert(b, re, src.component, comp)
            im = convert(b, im, src.component, comp)
        else:
            re = convert(b, v, src, comp)
            im = b.const(0.0, comp.mlir)
        return b.op("cplx", f"complex.create {re}, {im} : {dst.mlir}")
    if src.is_complex:  # to real: drop the imaginary part (NumPy warns)
        re = b.op("re", f"complex.re {v} : {src.mlir}")
        return convert(b, re, src.component, dst)
    if src.is_bool:
        if dst.is_int:
            return b.op("cast", f"arith.extui {v} : i1 to {dst.mlir}")
        return b.op("cast", f"arith.uitofp {v} : i1 to {dst.mlir}")
    if src.is_int and dst.is_int:
        if dst.bits > src.bits:
            op = "arith.extsi" if src.is_signed else "arith.extui"
        else:
            op = "arith.trunci"
        return b.op("cast", f"{op} {v} : {src.mlir} to {dst.mlir}")
    if src.is_int and dst.is_float:
        op = "arith.sitofp" if src.is_signed else "arith.uitofp"
        return b.op("cast", f"{op} {v} : {src.mlir} to {dst.mlir}")
    if src.is_float and dst.is_int:
        op = "arith.fptosi" if dst.is_signed else "arith.fptoui"
        return b.op("cast", f"{op} {v} : {src.mlir} to {dst.mlir}")
    # float -> float
    if src.bits == dst.bits:  # f16 <-> bf16
        mid = b.op("cast", f"arith.extf {v} : {src.mlir} to f32")
        return b.op("cast", f"arith.truncf {mid} : f32 to {dst.mlir}")
    if src.bits == 64 and dst.bits == 16:
        return b.op("cast", f"arith.truncf {_f64_to_f32_odd(b, v)} : f32 to {dst.mlir}")
    op = "arith.extf" if dst.bits > src.bits else "arith.truncf"
    return b.op("cast", f"{op} {v} : {src.mlir} to {dst.mlir}")


def _f64_to_f32_odd(b: Block, v: str) -> str:
    """``v`` (f64) rounded to f32 with round-to-odd: truncated, its last bit set when inexact.

    LLVM lowers a direct f64 -> f16/bf16 ``truncf`` to compiler-rt calls the JIT does not have;
    rounding to nearest through f32 instead would round twice and miss the nearest value for some
    inputs.  Rounding to odd first keeps enough information: with 24 >= 11 + 2 bits the second
    rounding to a 16-bit float is correct (Boldo & Melquiond)."""
    near = b.op("odd", f"arith.truncf {v} : f64 to f32")
    back = b.op("odd", f"arith.extf {near} : f32 to f64")
    inexact = b.op("odd", f"arith.cmpf one, {back}, {v} : f64")
    away = b.op("odd", f"arith.cmpf ogt, {math_call(b, 'absf', [back], D.FLOAT64, 'odd')}, "
                f"{math_call(b, 'absf', [v], D.FLOAT64, 'odd')} : f64")
    bits = b.op("odd", f"arith.bitcast {near} : f32 to i32")
    # one step towards zero when rounding went away from it (sign-magnitude: bits - 1)
    less = b.op("odd", f"arith.subi {bits}, {b.const(1, 'i32')} : i32")
    trunc = b.op("odd", f"arith.select {away}, {less}, {bits} : i32")
    odd = b.op("odd", f"arith.ori {trunc}, {b.const(1, 'i32')} : i32")
    bits = b.op("odd", f"arith.select {inexact}, {odd}, {bits} : i32")
    return b.op("odd", f"arith.bitcast {bits} : i32 to f32")


def math_call(b: Block, name: str, args: Sequence[str], dt: DType, hint: str | None = None) -> str:
    """``math.<name>`` on floats; 16-bit floats are computed in f32 (libm has no f16 entry points)."""
    hint = hint or name
    if dt.bits == 16:
        f32 = D.FLOAT32
        wide = [convert(b, a, dt, f32) for a in args]
        r = b.op(hint, f"math.{name} {', '.join(wide)} : f32")
        return convert(b, r, f32, dt)
    return b.op(hint, f"math.{name} {', '.join(args)} : {dt.mlir}")


def compare(b: Block, pred: str, x: str, y: str, dt: DType) -> str:
    """``pred`` in eq ne lt le gt ge, NumPy semantics (NaN != NaN)."""
    if dt.is_float:
        fp = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}[pred]
        return b.op(pred, f"arith.cmpf {fp}, {x}, {y} : {dt.mlir}")
    if pred in ("eq", "ne"):
        ip = pred
    else:
        ip = ("s" if dt.is_signed else "u") + pred
    return b.op(pred, f"arith.cmpi {ip}, {x}, {y} : {dt.mlir}")


def select(b: Block, c: str, x: str, y: str, dt: DType) -> str:
    """``c ? x : y`` of scalars of ``dt``."""
    return b.op("sel", f"arith.select {c}, {x}, {y} : {dt.mlir}")


def arith(b: Block, op: str, x: str, y: str, dt: DType, hint: str | None = None) -> str:
    """The binary ``arith`` op ``op`` (``addf``, ``andi``...) of scalars of ``dt``."""
    return b.op(hint or op, f"arith.{op} {x}, {y} : {dt.mlir}")


def scalar_add(b: Block, x: str, y: str, dt: DType) -> str:
    """``x + y`` of scalars of ``dt`` (``or`` for bools, as NumPy's ``add``)."""
    if dt.is_complex:
        return b.op("add", f"complex.add {x}, {y} : {dt.mlir}")
    if dt.is_bool:
        return arith(b, "ori", x, y, dt, "add")
    return arith(b, "addf" if dt.is_float else "addi", x, y, dt, "add")


def scalar_mul(b: Block, x: str, y: str, dt: DType) -> str:
    """``x * y`` of scalars of ``dt`` (``and`` for bools, as NumPy's ``multiply``)."""
    if dt.is_complex:
        return b.op("mul", f"complex.mul {x}, {y} : {dt.mlir}")
    if dt.is_bool:
        return arith(b, "andi", x, y, dt, "mul")
    return arith(b, "mulf" if dt.is_float else "muli", x, y, dt, "mul")


def scalar_sub(b: Block, x: str, y: str, dt: DType) -> str:
    """``x - y`` of scalars of ``dt`` (not bools: NumPy refuses them)."""
    if dt.is_complex:
        return b.op("sub", f"complex.sub {x}, {y} : {dt.mlir}")
    return arith(b, "subf" if dt.is_float else "subi", x, y, dt, "sub")


def scalar_div(b: Block, x: str, y: str, dt: DType) -> str:
    """``x / y`` of float or complex scalars of ``dt``."""
    if dt.is_complex:
        return b.op("div", f"complex.div {x}, {y} : {dt.mlir}")
    return arith(b, "divf", x, y, dt, "div")


def scalar_floordiv(b: Block, x: str, y: str, dt: DType) -> str:
    """``x // y`` of scalars of ``dt`` with NumPy's results where hardware traps: 0 for a
    zero integer divisor, wrapping for ``MIN // -1``."""
    if dt.is_float:
        if dt.bits == 16:  # NumPy's half loops divide in float32, rounded once
            wide = D.FLOAT32
            q = scalar_floordiv(b, convert(b, x, dt, wide), convert(b, y, dt, wide), wide)
            return convert(b, q, wide, dt)
        return _float_floordiv(b, x, y, dt)
    zero = b.const(0, dt.mlir)
    one = b.const(1, dt.mlir)
    bz = compare(b, "eq", y, zero, dt)
    if dt.is_unsigned:
        ys = select(b, bz, one, y, dt)
        q = arith(b, "divui", x, ys, dt, "floordiv")
        return select(b, bz, zero, q, dt)
    # signed: guard /0 (NumPy gives 0) and MIN / -1 (wraps) — both trap in hardware
    m1 = b.const(-1, dt.mlir)
    bm1 = compare(b, "eq", y, m1, dt)
    bad = b.op("bad", f"arith.ori {bz}, {bm1} : i1")
    ys = select(b, bad, one, y, dt)
    q = arith(b, "floordivsi", x, ys, dt, "floordiv")
    neg = arith(b, "subi", zero, x, dt, "neg")
    q = select(b, bm1, neg, q, dt)
    return select(b, bz, zero, q, dt)


def _float_floordiv(b: Block, x: str, y: str, dt: DType) -> str:
    """NumPy's ``npy_floor_divide`` of floats: ``(x - fmod(x, y)) / y``, one less where the
    remainder's sign is not the divisor's, snapped to the nearest integer (so ``1 // 0.1`` is 9,
    ``inf // 2`` NaN and ``1.5 // -inf`` -1); ``x / y`` for a zero divisor."""
    ty = dt.mlir
    zero = b.const(0.0, ty)
    mod = arith(b, "remf", x, y, dt, "mod")
    div = arith(b, "divf", arith(b, "subf", x, mod, dt, "sub"), y, dt, "div")
    differ = b.op("differ", f"arith.xori {compare(b, 'lt', y, zero, dt)}, {compare(b, 'lt', mod, zero, dt)} : i1")
    fix = b.op("fix", f"arith.andi {compare(b, 'ne', mod, zero, dt)}, {differ} : i1")
    div = select(b, fix, arith(b, "subf", div, b.const(1.0, ty), dt, "div"), div, dt)
    floor = math_call(b, "floor", [div], dt, "floordiv")
    up = b.op("up", f"arith.cmpf ogt, {arith(b, 'subf', div, floor, dt, 'frac')}, {b.const(0.5, ty)} : {ty}")
    floor = select(b, up, arith(b, "addf", floor, b.const(1.0, ty), dt, "floordiv"), floor, dt)
    quotient = arith(b, "divf", x, y, dt, "q")
    signed_zero = math_call(b, "copysign", [zero, quotient], dt, "floordiv")
    r = select(b, compare(b, "eq", div, zero, dt), signed_zero, floor, dt)
    return select(b, compare(b, "eq", y, zero, dt), quotient, r, dt)


def scalar_mod(b: Block, x: str, y: str, dt: DType) -> str:
    """``x % y`` of scalars of ``dt`` with NumPy's signs (the divisor's), 0 for a zero integer
    divisor."""
    if dt.is_float:
        r = arith(b, "remf", x, y, dt, "rem")
        zero = b.const(0.0, dt.mlir)
        rnz = compare(b, "ne", r, zero, dt)
        rneg = compare(b, "lt", r, zero, dt)
        yneg = compare(b, "lt", y, zero, dt)
        diff = b.op("diff", f"arith.xori {rneg}, {yneg} : i1")
        fix = b.op("fix", f"arith.andi {rnz}, {diff} : i1")
        adj = arith(b, "addf", r, y, dt, "adj")
        r = select(b, fix, adj, r, dt)
        # a zero result takes the divisor's sign, like NumPy
        nzero = b.const(-0.0, dt.mlir)
        sz = select(b, yneg, nzero, zero, dt)
        req = compare(b, "eq", r, zero, dt)
        return select(b, req, sz, r, dt)
    zero = b.const(0, dt.mlir)
    one = b.const(1, dt.mlir)
    bz = compare(b, "eq", y, zero, dt)
    if dt.is_unsigned:
        ys = select(b, bz, one, y, dt)
        return arith(b, "remui", x, ys, dt, "rem")
    m1 = b.const(-1, dt.mlir)
    bm1 = compare(b, "eq", y, m1, dt)
    bad = b.op("bad", f"arith.ori {bz}, {bm1} : i1")
    ys = select(b, bad, one, y, dt)
    r = arith(b, "remsi", x, ys, dt, "rem")
    rnz = compare(b, "ne", r, zero, dt)
    rneg = compare(b, "lt", r, zero, dt)
    yneg = compare(b, "lt", ys, zero, dt)
    diff = b.op("diff", f"arith.xori {rneg}, {yneg} : i1")
    fix = b.op("fix", f"arith.andi {rnz}, {diff} : i1")
    adj = arith(b, "addi", r, ys, dt, "adj")
    return select(b, fix, adj, r, dt)


def scalar_pow(b: Block, x: str, y: str, dt: DType) -> str:
    """``x ** y`` of float or integer scalars of ``dt`` (negative integer exponents are refused
    before, by the caller's check)."""
    if dt.is_float:
        return math_call(b, "powf", [x, y], dt, "pow")
    # integers: math.ipowi (needs --convert-math-to-funcs); 0 ** negative would divide by zero
    zero = b.const(0, dt.mlir)
    one = b.const(1, dt.mlir)
    xz = compare(b, "eq", x, zero, dt)
    yneg = b.op("lt", f"arith.cmpi slt, {y}, {zero} : {dt.mlir}")
    bad = b.op("bad", f"arith.andi {xz}, {yneg} : i1")
    ys = select(b, bad, one, y, dt)
    return b.op("pow", f"math.ipowi {x}, {ys} : {dt.mlir}")


def scalar_max(b: Block, x: str, y: str, dt: DType) -> str:
    """NumPy's ``maximum`` of scalars of ``dt`` (NaN-propagating for floats)."""
    if dt.is_bool:
        return arith(b, "ori", x, y, dt, "max")
    if dt.is_float:
        return arith(b, "maximumf", x, y, dt, "max")
    return arith(b, "maxsi" if dt.is_signed else "maxui", x, y, dt, "max")


def scalar_min(b: Block, x: str, y: str, dt: DType) -> str:
    """NumPy's ``minimum`` of scalars of ``dt`` (NaN-propagating for floats)."""
    if dt.is_bool:
        return arith(b, "andi", x, y, dt, "min")
    if dt.is_float:
        return arith(b, "minimumf", x, y, dt, "min")
    return arith(b, "minsi" if dt.is_signed else "minui", x, y, dt, "min")


# --------------------------------------------------------------------------------------------------
# structure helpers


def broadcast(
    arrays: Sequence[TracedArray], shown: Sequence[TracedArray] | None = None
) -> tuple[tuple[int | None, ...], list[tuple[TracedArray, int] | None]]:
    """Broadcast result dims (right-aligned) and, per dynamic result dim, an operand dim giving its
    size.  Size-1 dims are known statically (they are part of the specialisation), so a dynamic dim
    must equal the other operands' sizes: that is checked at run time (:func:`_check_broadcast`).
    ``shown`` are the arrays whose leading dims ``arrays`` are (matmul's batch dims), named in the
    message; by default ``arrays`` themselves."""
    _check_broadcast(arrays, shown if shown is not None else arrays)
    R = max(a.ndim for a in arrays)
    dims: list[int | None] = []
    srcs: list[tuple[TracedArray, int] | None] = []
    for j in range(R):
        statics: set[int] = set()
        dyn: tuple[TracedArray, int] | None = None
        for a in arrays:
            k = j - (R - a.ndim)
            if k < 0:
                continue
            d = a.dims[k]
            if d is None:
                if dyn is None:
                    dyn = (a, k)
            elif d != 1:
                statics.add(d)
        if len(statics) > 1:
            shapes = ", ".join(str(a.shape) for a in arrays)
            raise trace_error(f"operands could not be broadcast together with shapes {shapes}", ValueError)
        if statics:
            dims.append(statics.pop())
            srcs.append(None)
        elif dyn is not None:
            dims.append(None)
            srcs.append(dyn)
        else:
            dims.append(1)
            srcs.append(None)
    return tuple(dims), srcs


def message_literal(text: str) -> str:
    """``text`` escaped for a ``dlpack.assert`` message literal: read literally, not as
    placeholders (braces doubled), inside MLIR quotes."""
    text = text.replace("{", "{{").replace("}", "}}").replace("\n", " ")
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _check_broadcast(arrays: Sequence[TracedArray], shown: Sequence[TracedArray]) -> None:
    """Emits a run-time check that the dynamic dims of ``arrays`` broadcast by NumPy's rule: each
    equals the static size (other than 1) of the same result dim, or the other dynamic dims there.
    It fails with NumPy's message and the actual shapes of ``shown`` (whose leading dims are
    those of ``arrays``, in order), raised as ``ValueError``."""
    ctx = arrays[0].context
    R = max(a.ndim for a in arrays)
    conditions: list[str] = []
    for j in range(R):
        static: int | None = None
        dynamic: list[str] = []
        for a, s in zip(arrays, shown):
            k = j - (R - a.ndim)
            if k < 0:
                continue
            d = a.dims[k]
            if d is None:
                dynamic.append(ctx.dim(s, k))
            elif d != 1:
                static = d
        expected = ctx.top.const(static, "index") if static is not None else None
        for size in dynamic:
            if expected is None:
                expected = size
            elif size != expected:
                conditions.append(ctx.top.op("bcast_ok", f"arith.cmpi eq, {size}, {expected} : index"))
    if not conditions:
        return
    ok = _fold(lambda x, y: ctx.top.op("bcast_ok", f"arith.andi {x}, {y} : i1"), conditions)
    values: list[str] = []
    shapes: list[str] = []
    for s in shown:
        parts: list[str] = []
        for k, d in enumerate(s.dims):
            if d is None:
                parts.append(f"{{{len(values)}}}")
                values.append(ctx.dim(s, k))
            else:
                parts.append(str(d))
        shapes.append("(" + ",".join(parts) + ("," if len(parts) == 1 else "") + ")")
    message = message_literal("operands could not be broadcast together with shapes ") + " ".join(shapes)
    types = ", ".join("index" for _ in values)
    ctx.top.raw(f'dlpack.assert {ok}, shape_mismatch, "{message}" ({", ".join(values)} : {types})')


def broadcast_map(R: int, dims: Sequence[int | None]) -> str:
    """The indexing map reading an operand of static sizes ``dims`` in a rank-``R`` loop nest:
    trailing-aligned, its size-1 dims at the constant 0."""
    r = len(dims)
    exprs = ["0" if dims[k] == 1 else f"d{R - r + k}" for k in range(r)]
    return affine_map(R, exprs)


def empty(ctx: TraceContext, dims: Sequence[int | None], dt: DType, sizes: Sequence[str | None]) -> str:
    """``tensor.empty`` with dynamic sizes ``sizes[j]`` for the ``None`` dims."""
    dyn = [s for d, s in zip(dims, sizes) if d is None]
    assert all(s is not None for s in dyn)
    return ctx.top.op("empty", f"tensor.empty({', '.join(dyn)}) : {tensor_type(dims, dt)}")  # type: ignore[arg-type]


def emit_generic(
    ctx: TraceContext,
    hint: str,
    ins: Sequence[TracedArray],
    in_maps: Sequence[str],
    out_init: str,
    out_type: str,
    out_dt: DType,
    out_map: str,
    iterators: Sequence[str],
    body: Callable[[Block, list[str], str], str],
) -> str:
    """A ``linalg.generic`` over ``ins`` (read through ``in_maps``) into ``out_init`` of
    ``out_type``, whose body ``body(block, in_args, out_arg)`` returns the yielded value; the
    result's SSA name."""
    blk = Block(ctx.names, indent=3)
    in_args = ["%" + ctx.names.fresh("in") for _ in ins]
    out_arg = "%" + ctx.names.fresh("out")
    r = body(blk, in_args, out_arg)
    blk.raw(f"linalg.yield {r} : {out_dt.mlir}")
    res = "%" + ctx.names.fresh(hint)
    maps = ", ".join(list(in_maps) + [out_map])
    its = ", ".join(f'"{i}"' for i in iterators)
    ins_s = ""
    if ins:
        ins_s = (
            f"ins({', '.join(a.value for a in ins)} : {', '.join(a.mlir_type for a in ins)}) "
        )
    top = ctx.top
    top.raw(
        f"{res} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} "
        f"{ins_s}outs({out_init} : {out_type}) {{"
    )
    bb_args = [f"{n}: {a.element_type.mlir}" for n, a in zip(in_args, ins)] + [f"{out_arg}: {out_dt.mlir}"]
    top.raw(f"^bb0({', '.join(bb_args)}):")
    top.lines.extend(blk.lines)
    top.raw(f"}} -> {out_type}")
    # what the body reads from outside the op counts among the result's sources too
    inner = {n for line in blk.lines for n in SSA_NAME.findall(line)}
    ctx.names.deps[res] = ctx.names.deps.get(res, ()) + tuple(sorted(inner))
    ctx.names.generics[res] = (
        tuple((a.value, m) for a, m in zip(ins, in_maps)), out_init, out_map,
        all(i == "parallel" for i in iterators),
    )
    return res


def scalar_value(ctx: TraceContext, x: Any, t: DType) -> str:
    """A traced scalar or Python scalar ``x`` as an SSA scalar of ``t`` at the top level."""
    if isinstance(x, TracedArray):
        assert x.is_scalar
        slot = ctx.int_args.get(x.value)
        if slot is not None and t.is_int and t.bits < 64 and t not in slot.narrowed:
            slot.narrowed.append(t)
        return convert(ctx.top, x.value, x.element_type, t)
    return py_const(ctx.top, x, t)


def emit_elementwise(
    ctx: TraceContext,
    hint: str,
    operands: Sequence[tuple[Any, DType]],
    res_dt: DType,
    body: Callable[[Block, list[str]], str],
    weak: str | None = None,
) -> TracedArray:
    """One elementwise op: each operand converted to its computation dtype, ``body`` gives the
    result.  Without any tensor operand the op is computed on scalars at the top level."""
    ctx.begin_op()
    tensors = [x for x, _ in operands if is_tensor(x)]
    if not tensors:
        vals = [scalar_value(ctx, x, t) for x, t in operands]
        v = body(ctx.top, vals)
        out = TracedArray(ctx, v, res_dt, (), weak=weak, is_scalar=True)
        # arithmetic on sizes and int arguments: Python may need the result as a number
        out._sources = merge_sources(
            *(x._sources if isinstance(x, TracedArray) else frozenset() for x, _ in operands))
        return out
    dims, srcs = broadcast(tensors)
    R = len(dims)
    ins: list[TracedArray] = []
    for x in tensors:
        if all(x is not y for y in ins):
            ins.append(x)
    captured: list[str | None] = [
        None if is_tensor(x) else scalar_value(ctx, x, t) for x, t in operands
    ]
    sizes = [ctx.dim(*s) if s is not None else None for s in srcs]
    init = empty(ctx, dims, res_dt, sizes)
    out_type = tensor_type(dims, res_dt)

    def gen_body(blk: Block, in_args: list[str], _out: str) -> str:
        vals: list[str] = []
        for (x, t), cap in zip(operands, captured):
            if cap is not None:
                vals.append(cap)
            else:
                i = next(i for i, y in enumerate(ins) if y is x)
                vals.append(convert(blk, in_args[i], x.element_type, t))
        return body(blk, vals)

    res = emit_generic(
        ctx,
        hint,
        ins,
        [broadcast_map(R, a.dims) for a in ins],
        init,
        out_type,
        res_dt,
        affine_map(R, [f"d{j}" for j in range(R)]),
        ["parallel"] * R,
        gen_body,
    )
    out = TracedArray(ctx, res, res_dt, dims)
    for j, s in enumerate(sizes):
        if s is not None and dims[j] is None:
            out.set_size(j, s)
    return out


def to_tensor(ctx: TraceContext, x: Any) -> TracedArray:
    """A 0-d tensor holding scalar ``x`` (weak scalars take their default dtype)."""
    if is_tensor(x):
        return x
    if isinstance(x, TracedArray):
        dt = x.element_type
        v = x.value
    else:
        dt = D.default_dtype_of_kind(D.scalar_kind_of(x))
        v = py_const(ctx.top, x, dt)
    ty = tensor_type((), dt)
    e = ctx.top.op("empty", f"tensor.empty() : {ty}")
    f = ctx.top.op("scalar", f"linalg.fill ins({v} : {dt.mlir}) outs({e} : {ty}) -> {ty}")
    return TracedArray(ctx, f, dt, ())


def _reassociation(src_rank: int, kept: Sequence[int], big_rank: int) -> str:
    """Groups for collapse/expand between a rank ``big_rank`` shape and the shape made of its dims
    ``kept`` (the others are unit dims)."""
    if not kept:
        return "[]"
    groups: list[list[int]] = [[] for _ in kept]
    gi = 0
    seen_kept = 0
    for i in range(big_rank):
        if seen_kept < len(kept) and i == kept[seen_kept]:
            gi = seen_kept
            seen_kept += 1
        groups[gi].append(i)
    return "[" + ", ".join("[" + ", ".join(str(i) for i in g) + "]" for g in groups) + "]"


def expand_units(ctx: TraceContext, x: TracedArray, positions: Sequence[int]) -> TracedArray:
    """Insert unit dims so that they sit at ``positions`` of the result."""
    if not positions:
        return x
    T = x.ndim + len(positions)
    pos = set(positions)
    kept = [i for i in range(T) if i not in pos]
    dims: list[int | None] = []
    shape: list[str] = []
    it = iter(range(x.ndim))
    for i in range(T):
        if i in pos:
            dims.append(1)
            shape.append("1")
        else:
            k = next(it)
            dims.append(x.dims[k])
            shape.append(ctx.dim(x, k) if x.dims[k] is None else str(x.dims[k]))
    ty = tensor_type(dims, x.element_type)
    v = ctx.top.op(
        "expanded",
        f"tensor.expand_shape {x.value} {_reassociation(x.ndim, kept, T)} "
        f"output_shape [{', '.join(shape)}] : {x.mlir_type} into {ty}",
    )
    out = TracedArray(ctx, v, x.element_type, dims, alias=x.may_alias_argument)
    it2 = iter(range(x.ndim))
    for i in range(T):
        if i not in pos:
            k = next(it2)
            if x.dims[k] is None:
                out.set_size(i, ctx.dim(x, k))
    return out


def collapse_units(ctx: TraceContext, x: TracedArray, positions: Sequence[int]) -> TracedArray:
    """Drop the unit dims at ``positions``."""
    if not positions:
        return x
    pos = set(positions)
    assert all(x.dims[p] == 1 for p in pos)
    kept = [i for i in range(x.ndim) if i not in pos]
    dims = [x.dims[i] for i in kept]
    ty = tensor_type(dims, x.element_type)
    v = ctx.top.op(
        "collapsed",
        f"tensor.collapse_shape {x.value} {_reassociation(len(kept), kept, x.ndim)} : "
        f"{x.mlir_type} into {ty}",
    )
    out = TracedArray(ctx, v, x.element_type, dims, alias=x.may_alias_argument)
    for j, i in enumerate(kept):
        size = x.known_size(i)
        if x.dims[i] is None and size is not None:
            out.set_size(j, size)
    return out


def copy(x: TracedArray) -> TracedArray:
    """A new array with the contents of ``x`` (NumPy's copy): the same SSA value, but another
    object, so that updating one in place leaves the other alone."""
    out = TracedArray(x.context, x.value, x.element_type, x.dims, weak=x.weak, is_scalar=x.is_scalar,
                      alias=x.may_alias_argument)
    out.copy_sizes_from(x)
    out._sources = x._sources
    return out


def no_out(out: Any, name: str) -> None:
    """Refuses ``out=`` of operation ``name``: jitted functions return new arrays."""
    if out is not None:
        raise unsupported(name, "out= is not supported: jitted functions return new arrays")


def complex_parts(b: Block, v: str, dt: DType) -> tuple[str, str]:
    """The real and imaginary parts of complex scalar ``v`` of ``dt``."""
    return b.op("re", f"complex.re {v} : {dt.mlir}"), b.op("im", f"complex.im {v} : {dt.mlir}")


def scalar_ssa(value: TracedArray) -> str:
    """The SSA scalar of a 0-d traced value."""
    if value.is_scalar:
        return value.value
    return value.context.top.op("s", f"tensor.extract {value.value}[] : {value.mlir_type}")


def runtime_check(condition: TracedArray, kind: str, message: str, sizes: Sequence[Any] = ()) -> None:
    """A ``dlpack.assert`` that the traced bool ``condition`` holds when the kernel runs, else
    the call fails with status ``kind`` and ``message``, whose ``{i}`` are ``sizes`` (ints or
    SymbolicDims), at the user's line."""
    ctx = condition.context
    text = message.replace("\\", "\\\\").replace('"', '\\"')
    values = [ctx.top.const(z, "index") if isinstance(z, int) else z.value for z in sizes]
    operands = f" ({', '.join(values)} : {', '.join('index' for _ in values)})" if values else ""
    ctx.top.raw(f'dlpack.assert {scalar_ssa(condition)}, {kind}, "{text}"{operands}')


def holds_traced(*values: Any) -> bool:
    """Whether a traced array or size is among ``values`` (or in lists, tuples and dicts of
    them)."""
    for v in values:
        if isinstance(v, (TracedArray, SymbolicDim)):
            return True
        if isinstance(v, (list, tuple)) and holds_traced(*v):
            return True
        if isinstance(v, dict) and holds_traced(*v.values()):
            return True
    return False


def numpy_unless_traced(numpy_function: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Makes an operation's implementation call ``numpy_function`` itself when none of its
    arguments is traced (``np.median([1.0, 2.0])`` in a traced function is NumPy's answer)."""

    def decorate(impl: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(impl)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not holds_traced(args, kwargs):
                return numpy_function(*args, **kwargs)
            return impl(*args, **kwargs)

        return call

    return decorate
