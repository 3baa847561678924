"""Operation implementations: each appends MLIR (linalg on tensors) to the current trace.

Elementwise operations become one ``linalg.generic`` each (broadcasting through indexing maps
that send size-1 dims to the constant 0; operands are converted to the computation dtype inside
the body; scalars are captured from above).  Reductions are a ``linalg.fill`` + ``linalg.generic``
with reduction iterators, ``matmul`` is ``linalg.matmul`` (or a batched ``linalg.generic``),
``transpose`` is ``linalg.transpose`` and ``reshape`` is ``tensor.reshape``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import reduce as _fold
from typing import Any, Callable

import numpy as np

from . import dtypes as D
from .dtypes import DType
from .emitter import SSA_NAME, Block, affine_map, tensor_type
from .tracer import (
    SymbolicDim,
    TraceContext,
    TracedArray,
    TraceError,
    current_context,
    make_view,
    merge_sources,
    public_type,
    sync_view,
    trace_error,
    unsupported,
)

PyScalar = (bool, int, float, complex)
Operand = Any  # TracedArray | bool | int | float | complex

# --------------------------------------------------------------------------------------------------
# operands


def _ctx_of(*xs: Any) -> TraceContext:
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


def _lift(ctx: TraceContext, x: Any, opname: str = "operand") -> Any:
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
        v = _py_const(ctx.top, item, dt)
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
        return astype(constant_array(ctx, arr.astype(np.uint8), opname), D.BOOL)
    ty = tensor_type(arr.shape, dt)
    if arr.size == 0:
        value = ctx.top.op("cst", f"tensor.empty() : {ty}")
    else:
        data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes().hex().upper()
        value = ctx.top.op("cst", f'arith.constant dense<"0x{data}"> : {ty}')
    return TracedArray(ctx, value, dt, arr.shape)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, TracedArray) and not x.is_scalar


def _promote(xs: Sequence[Any]) -> tuple[DType, str | None]:
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


def _kind_of(dt: DType) -> str:
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[dt.kind]


# --------------------------------------------------------------------------------------------------
# scalar code (used in linalg bodies and at the top level)


def _py_const(b: Block, value: Any, dt: DType) -> str:
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
    away = b.op("odd", f"arith.cmpf ogt, {_math(b, 'absf', [back], D.FLOAT64, 'odd')}, "
                f"{_math(b, 'absf', [v], D.FLOAT64, 'odd')} : f64")
    bits = b.op("odd", f"arith.bitcast {near} : f32 to i32")
    # one step towards zero when rounding went away from it (sign-magnitude: bits - 1)
    less = b.op("odd", f"arith.subi {bits}, {b.const(1, 'i32')} : i32")
    trunc = b.op("odd", f"arith.select {away}, {less}, {bits} : i32")
    odd = b.op("odd", f"arith.ori {trunc}, {b.const(1, 'i32')} : i32")
    bits = b.op("odd", f"arith.select {inexact}, {odd}, {bits} : i32")
    return b.op("odd", f"arith.bitcast {bits} : i32 to f32")


def _math(b: Block, name: str, args: Sequence[str], dt: DType, hint: str | None = None) -> str:
    """``math.<name>`` on floats; 16-bit floats are computed in f32 (libm has no f16 entry points)."""
    hint = hint or name
    if dt.bits == 16:
        f32 = D.FLOAT32
        wide = [convert(b, a, dt, f32) for a in args]
        r = b.op(hint, f"math.{name} {', '.join(wide)} : f32")
        return convert(b, r, f32, dt)
    return b.op(hint, f"math.{name} {', '.join(args)} : {dt.mlir}")


def _cmp(b: Block, pred: str, x: str, y: str, dt: DType) -> str:
    """``pred`` in eq ne lt le gt ge, NumPy semantics (NaN != NaN)."""
    if dt.is_float:
        fp = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}[pred]
        return b.op(pred, f"arith.cmpf {fp}, {x}, {y} : {dt.mlir}")
    if pred in ("eq", "ne"):
        ip = pred
    else:
        ip = ("s" if dt.is_signed else "u") + pred
    return b.op(pred, f"arith.cmpi {ip}, {x}, {y} : {dt.mlir}")


def _select(b: Block, c: str, x: str, y: str, dt: DType) -> str:
    return b.op("sel", f"arith.select {c}, {x}, {y} : {dt.mlir}")


def _arith(b: Block, op: str, x: str, y: str, dt: DType, hint: str | None = None) -> str:
    return b.op(hint or op, f"arith.{op} {x}, {y} : {dt.mlir}")


def _s_add(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_complex:
        return b.op("add", f"complex.add {x}, {y} : {dt.mlir}")
    if dt.is_bool:
        return _arith(b, "ori", x, y, dt, "add")
    return _arith(b, "addf" if dt.is_float else "addi", x, y, dt, "add")


def _s_mul(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_complex:
        return b.op("mul", f"complex.mul {x}, {y} : {dt.mlir}")
    if dt.is_bool:
        return _arith(b, "andi", x, y, dt, "mul")
    return _arith(b, "mulf" if dt.is_float else "muli", x, y, dt, "mul")


def _s_sub(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_complex:
        return b.op("sub", f"complex.sub {x}, {y} : {dt.mlir}")
    return _arith(b, "subf" if dt.is_float else "subi", x, y, dt, "sub")


def _s_div(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_complex:
        return b.op("div", f"complex.div {x}, {y} : {dt.mlir}")
    return _arith(b, "divf", x, y, dt, "div")


def _s_floordiv(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_float:
        q = _arith(b, "divf", x, y, dt, "div")
        return _math(b, "floor", [q], dt, "floordiv")
    zero = b.const(0, dt.mlir)
    one = b.const(1, dt.mlir)
    bz = _cmp(b, "eq", y, zero, dt)
    if dt.is_unsigned:
        ys = _select(b, bz, one, y, dt)
        q = _arith(b, "divui", x, ys, dt, "floordiv")
        return _select(b, bz, zero, q, dt)
    # signed: guard /0 (NumPy gives 0) and MIN / -1 (wraps) — both trap in hardware
    m1 = b.const(-1, dt.mlir)
    bm1 = _cmp(b, "eq", y, m1, dt)
    bad = b.op("bad", f"arith.ori {bz}, {bm1} : i1")
    ys = _select(b, bad, one, y, dt)
    q = _arith(b, "floordivsi", x, ys, dt, "floordiv")
    neg = _arith(b, "subi", zero, x, dt, "neg")
    q = _select(b, bm1, neg, q, dt)
    return _select(b, bz, zero, q, dt)


def _s_mod(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_float:
        r = _arith(b, "remf", x, y, dt, "rem")
        zero = b.const(0.0, dt.mlir)
        rnz = _cmp(b, "ne", r, zero, dt)
        rneg = _cmp(b, "lt", r, zero, dt)
        yneg = _cmp(b, "lt", y, zero, dt)
        diff = b.op("diff", f"arith.xori {rneg}, {yneg} : i1")
        fix = b.op("fix", f"arith.andi {rnz}, {diff} : i1")
        adj = _arith(b, "addf", r, y, dt, "adj")
        r = _select(b, fix, adj, r, dt)
        # a zero result takes the divisor's sign, like NumPy
        nzero = b.const(-0.0, dt.mlir)
        sz = _select(b, yneg, nzero, zero, dt)
        req = _cmp(b, "eq", r, zero, dt)
        return _select(b, req, sz, r, dt)
    zero = b.const(0, dt.mlir)
    one = b.const(1, dt.mlir)
    bz = _cmp(b, "eq", y, zero, dt)
    if dt.is_unsigned:
        ys = _select(b, bz, one, y, dt)
        return _arith(b, "remui", x, ys, dt, "rem")
    m1 = b.const(-1, dt.mlir)
    bm1 = _cmp(b, "eq", y, m1, dt)
    bad = b.op("bad", f"arith.ori {bz}, {bm1} : i1")
    ys = _select(b, bad, one, y, dt)
    r = _arith(b, "remsi", x, ys, dt, "rem")
    rnz = _cmp(b, "ne", r, zero, dt)
    rneg = _cmp(b, "lt", r, zero, dt)
    yneg = _cmp(b, "lt", ys, zero, dt)
    diff = b.op("diff", f"arith.xori {rneg}, {yneg} : i1")
    fix = b.op("fix", f"arith.andi {rnz}, {diff} : i1")
    adj = _arith(b, "addi", r, ys, dt, "adj")
    return _select(b, fix, adj, r, dt)


def _s_pow(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_float:
        return _math(b, "powf", [x, y], dt, "pow")
    # integers: math.ipowi (needs --convert-math-to-funcs); 0 ** negative would divide by zero
    zero = b.const(0, dt.mlir)
    one = b.const(1, dt.mlir)
    xz = _cmp(b, "eq", x, zero, dt)
    yneg = b.op("lt", f"arith.cmpi slt, {y}, {zero} : {dt.mlir}")
    bad = b.op("bad", f"arith.andi {xz}, {yneg} : i1")
    ys = _select(b, bad, one, y, dt)
    return b.op("pow", f"math.ipowi {x}, {ys} : {dt.mlir}")


def _s_max(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_bool:
        return _arith(b, "ori", x, y, dt, "max")
    if dt.is_float:
        return _arith(b, "maximumf", x, y, dt, "max")
    return _arith(b, "maxsi" if dt.is_signed else "maxui", x, y, dt, "max")


def _s_min(b: Block, x: str, y: str, dt: DType) -> str:
    if dt.is_bool:
        return _arith(b, "andi", x, y, dt, "min")
    if dt.is_float:
        return _arith(b, "minimumf", x, y, dt, "min")
    return _arith(b, "minsi" if dt.is_signed else "minui", x, y, dt, "min")


# --------------------------------------------------------------------------------------------------
# structure helpers


def _broadcast(
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


def _message_literal(text: str) -> str:
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
    message = _message_literal("operands could not be broadcast together with shapes ") + " ".join(shapes)
    types = ", ".join("index" for _ in values)
    ctx.top.raw(f'dlpack.assert {ok}, shape_mismatch, "{message}" ({", ".join(values)} : {types})')


def _bcast_map(R: int, dims: Sequence[int | None]) -> str:
    r = len(dims)
    exprs = ["0" if dims[k] == 1 else f"d{R - r + k}" for k in range(r)]
    return affine_map(R, exprs)


def _empty(ctx: TraceContext, dims: Sequence[int | None], dt: DType, sizes: Sequence[str | None]) -> str:
    """``tensor.empty`` with dynamic sizes ``sizes[j]`` for the ``None`` dims."""
    dyn = [s for d, s in zip(dims, sizes) if d is None]
    assert all(s is not None for s in dyn)
    return ctx.top.op("empty", f"tensor.empty({', '.join(dyn)}) : {tensor_type(dims, dt)}")  # type: ignore[arg-type]


def _emit_generic(
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


def _scalar_value(ctx: TraceContext, x: Any, t: DType) -> str:
    if isinstance(x, TracedArray):
        assert x.is_scalar
        slot = ctx.int_args.get(x.value)
        if slot is not None and t.is_int and t.bits < 64 and t not in slot.narrowed:
            slot.narrowed.append(t)
        return convert(ctx.top, x.value, x.element_type, t)
    return _py_const(ctx.top, x, t)


def _ewise(
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
    tensors = [x for x, _ in operands if _is_tensor(x)]
    if not tensors:
        vals = [_scalar_value(ctx, x, t) for x, t in operands]
        v = body(ctx.top, vals)
        out = TracedArray(ctx, v, res_dt, (), weak=weak, is_scalar=True)
        # arithmetic on sizes and int arguments: Python may need the result as a number
        out._sources = merge_sources(
            *(x._sources if isinstance(x, TracedArray) else frozenset() for x, _ in operands))
        return out
    dims, srcs = _broadcast(tensors)
    R = len(dims)
    ins: list[TracedArray] = []
    for x in tensors:
        if all(x is not y for y in ins):
            ins.append(x)
    captured: list[str | None] = [
        None if _is_tensor(x) else _scalar_value(ctx, x, t) for x, t in operands
    ]
    sizes = [ctx.dim(*s) if s is not None else None for s in srcs]
    init = _empty(ctx, dims, res_dt, sizes)
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

    res = _emit_generic(
        ctx,
        hint,
        ins,
        [_bcast_map(R, a.dims) for a in ins],
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


def _to_tensor(ctx: TraceContext, x: Any) -> TracedArray:
    """A 0-d tensor holding scalar ``x`` (weak scalars take their default dtype)."""
    if _is_tensor(x):
        return x
    if isinstance(x, TracedArray):
        dt = x.element_type
        v = x.value
    else:
        dt = D.default_dtype_of_kind(D.scalar_kind_of(x))
        v = _py_const(ctx.top, x, dt)
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


def _expand_units(ctx: TraceContext, x: TracedArray, positions: Sequence[int]) -> TracedArray:
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


def _collapse_units(ctx: TraceContext, x: TracedArray, positions: Sequence[int]) -> TracedArray:
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


def _copy(x: TracedArray) -> TracedArray:
    """A new array with the contents of ``x`` (NumPy's copy): the same SSA value, but another
    object, so that updating one in place leaves the other alone."""
    out = TracedArray(x.context, x.value, x.element_type, x.dims, weak=x.weak, is_scalar=x.is_scalar,
                      alias=x.may_alias_argument)
    out.copy_sizes_from(x)
    out._sources = x._sources
    return out


def _no_out(out: Any, name: str) -> None:
    if out is not None:
        raise unsupported(name, "out= is not supported: jitted functions return new arrays")


# --------------------------------------------------------------------------------------------------
# elementwise ops

_CMP = {
    "less": "lt",
    "less_equal": "le",
    "greater": "gt",
    "greater_equal": "ge",
    "equal": "eq",
    "not_equal": "ne",
}

_OP_SYMBOL = {
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


def _opname(name: str) -> str:
    sym = _OP_SYMBOL.get(name)
    return f"{name} ({sym})" if sym else name


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
        ok = ctx.top.op("nonneg", f"arith.cmpi sge, {_scalar_value(ctx, y, dt)}, {zero} : {dt.mlir}")
    else:
        flag_type = tensor_type((), D.BOOL)
        empty = ctx.top.op("empty", f"tensor.empty() : {flag_type}")
        init = ctx.top.op(
            "init", f"linalg.fill ins({ctx.top.const(True, 'i1')} : i1) outs({empty} : {flag_type}) "
            f"-> {flag_type}")

        def body(blk: Block, in_args: list[str], out: str) -> str:
            v = convert(blk, in_args[0], y.element_type, dt)
            nonneg = blk.op("nonneg", f"arith.cmpi sge, {v}, {blk.const(0, dt.mlir)} : {dt.mlir}")
            return blk.op("nonneg", f"arith.andi {out}, {nonneg} : i1")

        flag = _emit_generic(
            ctx, "nonneg", [y], [affine_map(y.ndim, [f"d{j}" for j in range(y.ndim)])], init,
            flag_type, D.BOOL, affine_map(y.ndim, []), ["reduction"] * y.ndim, body)
        ok = ctx.top.op("nonneg", f"tensor.extract {flag}[] : {flag_type}")
    ctx.top.raw(f'dlpack.assert {ok}, invalid_argument, "{_message_literal(message)}"')


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


def _operand_key(x: Any) -> Any:
    """What identifies an operand's value: an array's SSA value (immutable), a scalar's type
    and value."""
    return ("ssa", x.value) if isinstance(x, TracedArray) else (type(x).__name__, repr(x))


def binary(name: str, x: Any, y: Any) -> TracedArray:
    """A binary elementwise NumPy ufunc by name (``add``, ``floor_divide``, ``less``...)."""
    ctx = _ctx_of(x, y)
    x = _lift(ctx, x, name)
    y = _lift(ctx, y, name)
    dt, weak = _promote([x, y])
    ops2 = [(x, dt), (y, dt)]

    def bad_dtype() -> TraceError:
        return unsupported(_opname(name), f"not supported for {dt.name}")

    if name in ("add", "multiply"):
        f = _s_add if name == "add" else _s_mul
        return _ewise(ctx, "add" if name == "add" else "mul", ops2, dt, lambda b, v: f(b, v[0], v[1], dt), weak)
    if name == "subtract":
        if dt.is_bool:
            raise bad_dtype()
        return _ewise(ctx, "sub", ops2, dt, lambda b, v: _s_sub(b, v[0], v[1], dt), weak)
    if name == "divide":
        cdt = dt if dt.is_inexact else D.FLOAT64
        w = weak if weak is None else _kind_of(cdt)
        return _ewise(ctx, "div", [(x, cdt), (y, cdt)], cdt, lambda b, v: _s_div(b, v[0], v[1], cdt), w)
    if name == "power" and dt.is_complex:
        return _complex_power(ctx, x, y, dt, weak)
    if name in ("floor_divide", "remainder", "power"):
        if dt.is_complex:
            raise bad_dtype()
        cdt = D.DTYPES["int8"] if dt.is_bool else dt
        if name == "power" and cdt.is_signed:
            _check_no_negative_exponent(ctx, y, cdt)
        f = {"floor_divide": _s_floordiv, "remainder": _s_mod, "power": _s_pow}[name]
        hint = {"floor_divide": "floordiv", "remainder": "mod", "power": "pow"}[name]
        w = weak if weak is None else _kind_of(cdt)
        return _ewise(ctx, hint, [(x, cdt), (y, cdt)], cdt, lambda b, v: f(b, v[0], v[1], cdt), w)
    if name in ("maximum", "minimum"):
        if dt.is_complex:
            return _ewise(ctx, name[:3], ops2, dt, lambda b, v: _complex_extreme(b, name, v[0], v[1], dt), weak)
        f = _s_max if name == "maximum" else _s_min
        return _ewise(ctx, name[:3], ops2, dt, lambda b, v: f(b, v[0], v[1], dt), weak)
    if name in _CMP:
        pred = _CMP[name]
        if dt.is_complex:
            w = None if weak is None else "bool"
            compare = _complex_equal if pred in ("eq", "ne") else _complex_order
            return _ewise(ctx, pred, ops2, D.BOOL, lambda b, v: compare(b, pred, v[0], v[1], dt), w)
        w = None if weak is None else "bool"
        out = _ewise(ctx, pred, ops2, D.BOOL, lambda b, v: _cmp(b, pred, v[0], v[1], dt), w)
        # masks computed twice alike (x[x > 0] = x[x > 0] ** 2) are known to be equal
        out._recipe = (name, _operand_key(x), _operand_key(y))
        return out
    if name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        if not (dt.is_bool or dt.is_int):
            raise bad_dtype()
        op = {"bitwise_and": "andi", "bitwise_or": "ori", "bitwise_xor": "xori"}[name]
        return _ewise(ctx, op[:-1], ops2, dt, lambda b, v: _arith(b, op, v[0], v[1], dt, op[:-1]), weak)
    if name in ("logical_and", "logical_or", "logical_xor"):
        op = {"logical_and": "andi", "logical_or": "ori", "logical_xor": "xori"}[name]
        w = None if weak is None else "bool"
        return _ewise(
            ctx, op[:-1], [(x, D.BOOL), (y, D.BOOL)], D.BOOL,
            lambda b, v: _arith(b, op, v[0], v[1], D.BOOL, op[:-1]), w,
        )
    raise unsupported(f"numpy.{name}")


def _complex_equal(b: Block, pred: str, x: str, y: str, dt: DType) -> str:
    """``x == y`` (``pred`` ``"eq"``) or ``x != y`` of complex scalars: both parts compared."""
    comp = dt.component
    parts = [_cmp(b, pred, b.op(h, f"complex.{h} {x} : {dt.mlir}"), b.op(h, f"complex.{h} {y} : {dt.mlir}"), comp)
             for h in ("re", "im")]
    return b.op(pred, f"arith.{'andi' if pred == 'eq' else 'ori'} {parts[0]}, {parts[1]} : i1")


def _parts(b: Block, v: str, dt: DType) -> tuple[str, str]:
    return b.op("re", f"complex.re {v} : {dt.mlir}"), b.op("im", f"complex.im {v} : {dt.mlir}")


def _complex_order(b: Block, pred: str, x: str, y: str, dt: DType) -> str:
    """``x < y`` (``pred`` lt, le, gt or ge) of complex scalars in NumPy's lexicographic order:
    the real parts decide, unless an imaginary part is NaN; equal real parts leave it to the
    imaginary ones (NumPy's ``CLT``/``CLE``/``CGT``/``CGE``)."""
    comp = dt.component
    xr, xi = _parts(b, x, dt)
    yr, yi = _parts(b, y, dt)
    strict = {"le": "lt", "ge": "gt"}.get(pred, pred)
    both_ordered = b.op("ord", f"arith.cmpf ord, {xi}, {yi} : {comp.mlir}")
    by_real = b.op("by_re", f"arith.andi {_cmp(b, strict, xr, yr, comp)}, {both_ordered} : i1")
    by_imag = b.op("by_im", f"arith.andi {_cmp(b, 'eq', xr, yr, comp)}, {_cmp(b, pred, xi, yi, comp)} : i1")
    return b.op(pred, f"arith.ori {by_real}, {by_imag} : i1")


def _complex_extreme(b: Block, name: str, x: str, y: str, dt: DType) -> str:
    """NumPy's ``maximum``/``minimum`` of complex scalars: ``x`` when it has a NaN part or wins
    (``>=``/``<=`` in the lexicographic order), else ``y``, so NaNs propagate."""
    comp = dt.component
    xr, xi = _parts(b, x, dt)
    nan = b.op("nan", f"arith.ori {b.op('nan', f'arith.cmpf uno, {xr}, {xr} : {comp.mlir}')}, "
                      f"{b.op('nan', f'arith.cmpf uno, {xi}, {xi} : {comp.mlir}')} : i1")
    wins = _complex_order(b, "ge" if name == "maximum" else "le", x, y, dt)
    keep = b.op("keep", f"arith.ori {nan}, {wins} : i1")
    return _select(b, keep, x, y, dt)


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
        b_re0 = _cmp(b, "eq", br, zero, comp)
        b_im0 = _cmp(b, "eq", bi, zero, comp)
        exp_zero = b.op("z", f"arith.andi {b_re0}, {b_im0} : i1")
        base_zero = b.op("z", f"arith.andi {_cmp(b, 'eq', ar, zero, comp)}, {_cmp(b, 'eq', ai, zero, comp)} : i1")
        positive = b.op("pos", f"arith.andi {_cmp(b, 'gt', br, zero, comp)}, {b_im0} : i1")
        at_zero = b.op("sel", f"arith.select {positive}, {czero}, {nan} : {ty}")
        r = b.op("sel", f"arith.select {base_zero}, {at_zero}, {r} : {ty}")
        return b.op("sel", f"arith.select {exp_zero}, {one}, {r} : {ty}")

    return _ewise(ctx, "pow", [(x, dt), (y, dt)], dt, body, weak)


_FLOAT_UNARY = {"exp", "log", "sqrt", "tanh", "sin", "cos", "erf", "sigmoid"}


def unary(name: str, x: Any) -> TracedArray:
    """A unary elementwise op by NumPy name (``negative``, ``exp``, ``sigmoid``...)."""
    ctx = _ctx_of(x)
    x = _lift(ctx, x, name)
    dt, weak = _promote([x])
    if name == "positive":
        if dt.is_bool:
            raise unsupported(_opname(name), "not supported for bool")
        return _copy(x) if isinstance(x, TracedArray) else _ewise(ctx, "pos", [(x, dt)], dt, lambda b, v: v[0], weak)
    if name == "negative":
        if dt.is_bool:
            raise unsupported(_opname(name), "not supported for bool; use ~ or logical_not")

        def neg(b: Block, v: list[str]) -> str:
            if dt.is_complex:
                return b.op("neg", f"complex.neg {v[0]} : {dt.mlir}")
            if dt.is_float:
                return b.op("neg", f"arith.negf {v[0]} : {dt.mlir}")
            return _arith(b, "subi", b.const(0, dt.mlir), v[0], dt, "neg")

        return _ewise(ctx, "neg", [(x, dt)], dt, neg, weak)
    if name == "absolute":
        if dt.is_complex:
            rdt = dt.component
            return _ewise(
                ctx, "abs", [(x, dt)], rdt, lambda b, v: b.op("abs", f"complex.abs {v[0]} : {dt.mlir}"),
                None if weak is None else "float",
            )
        if dt.is_bool or dt.is_unsigned:
            return _ewise(ctx, "abs", [(x, dt)], dt, lambda b, v: v[0], weak)
        if dt.is_float:
            return _ewise(ctx, "abs", [(x, dt)], dt, lambda b, v: _math(b, "absf", v, dt, "abs"), weak)
        return _ewise(ctx, "abs", [(x, dt)], dt, lambda b, v: b.op("abs", f"math.absi {v[0]} : {dt.mlir}"), weak)
    if name == "invert":
        if not (dt.is_bool or dt.is_int):
            raise unsupported(_opname(name), f"not supported for {dt.name}")
        ones = True if dt.is_bool else -1
        return _ewise(
            ctx, "not", [(x, dt)], dt,
            lambda b, v: _arith(b, "xori", v[0], b.const(ones, dt.mlir), dt, "not"), weak,
        )
    if name == "logical_not":
        w = None if weak is None else "bool"
        return _ewise(
            ctx, "not", [(x, D.BOOL)], D.BOOL,
            lambda b, v: _arith(b, "xori", v[0], b.const(True, "i1"), D.BOOL, "not"), w,
        )
    if name == "square":
        return binary("multiply", x, x)
    if name in _FLOAT_UNARY:
        cdt = D.float_for(dt)
        w = None if weak is None else _kind_of(cdt)
        if cdt.is_complex:
            if name != "exp":
                raise unsupported(name, f"not supported for {cdt.name}")
            return _ewise(ctx, "exp", [(x, cdt)], cdt, lambda b, v: b.op("exp", f"complex.exp {v[0]} : {cdt.mlir}"), w)
        if name == "sigmoid":

            def sig(b: Block, v: list[str]) -> str:
                n = b.op("neg", f"arith.negf {v[0]} : {cdt.mlir}")
                e = _math(b, "exp", [n], cdt)
                one = b.const(1.0, cdt.mlir)
                d = _arith(b, "addf", one, e, cdt, "den")
                return _arith(b, "divf", one, d, cdt, "sigmoid")

            return _ewise(ctx, "sigmoid", [(x, cdt)], cdt, sig, w)
        return _ewise(ctx, name, [(x, cdt)], cdt, lambda b, v: _math(b, name, v, cdt), w)
    raise unsupported(f"numpy.{name}")


def where(cond: Any, x: Any, y: Any) -> TracedArray:
    """``where(cond, x, y)`` with broadcasting; ``cond`` is converted to bool."""
    ctx = _ctx_of(cond, x, y)
    cond = _lift(ctx, cond, "where")
    x = _lift(ctx, x, "where")
    y = _lift(ctx, y, "where")
    dt, weak = _promote([x, y])
    return _ewise(
        ctx, "where", [(cond, D.BOOL), (x, dt), (y, dt)], dt,
        lambda b, v: _select(b, v[0], v[1], v[2], dt), weak,
    )


def astype(x: Any, dtype: Any, copy: bool = True) -> TracedArray:
    """``x.astype(dtype)``: a new array, or with ``copy=False`` ``x`` itself when it has ``dtype``
    already (so that updating the result updates ``x``, as in NumPy)."""
    ctx = _ctx_of(x)
    x = _lift(ctx, x, "astype")
    try:
        dt = D.dtype(dtype)
    except TypeError as e:
        raise unsupported("astype", str(e)) from None
    if isinstance(x, TracedArray) and x.element_type == dt and x.weak is None:
        return _copy(x) if copy else x
    return _ewise(ctx, "cast", [(x, dt)], dt, lambda b, v: v[0])


# --------------------------------------------------------------------------------------------------
# reductions


def _norm_axes(axis: Any, rank: int, opname: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, (list, tuple)):
        axes = list(axis)
    else:
        axes = [axis]
    out: list[int] = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int):
            try:
                a = operator.index(a)
            except TypeError:
                raise unsupported(opname, f"axis must be an int or a tuple of ints, not {a!r}") from None
        if not -rank <= a < rank or (rank == 0 and True):
            raise trace_error(f"{opname}: axis {a} is out of bounds for array of dimension {rank}", ValueError)
        a = a % rank
        if a in out:
            raise trace_error(f"{opname}: duplicate value in 'axis'", ValueError)
        out.append(a)
    return tuple(sorted(out))


def _check_reduced_extent(x: TracedArray, axes: Sequence[int], ufunc: str, text: str | None = None) -> None:
    """Emits a run-time check that no axis in ``axes`` of ``x`` is empty, for reductions without
    an identity; it fails with NumPy's message (or ``text``), raised as ``ValueError``."""
    ctx = x.context
    zero = ctx.top.const(0, "index")
    conditions = [
        ctx.top.op("nonempty", f"arith.cmpi ne, {ctx.dim(x, i)}, {zero} : index")
        for i in axes
        if x.dims[i] is None
    ]
    if not conditions:
        return
    ok = _fold(lambda a, b: ctx.top.op("nonempty", f"arith.andi {a}, {b} : i1"), conditions)
    message = _message_literal(text or f"zero-size array to reduction operation {ufunc} which has no identity")
    ctx.top.raw(f'dlpack.assert {ok}, invalid_argument, "{message}"')


def reduce(kind: str, x: Any, *, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> TracedArray:
    """``sum``, ``prod``, ``max``, ``min``, ``mean``, ``any`` or ``all`` over ``axis`` (int, tuple
    or None)."""
    ctx = _ctx_of(x)
    x = _lift(ctx, x, kind)
    x = _to_tensor(ctx, x)
    in_dt = x.element_type
    R = x.ndim
    axes = _norm_axes(axis, R, kind)
    want: DType | None = None
    if dtype is not None:
        if kind in ("max", "min", "any", "all"):
            raise unsupported(kind, "dtype= is not supported")
        want = D.dtype(dtype)
    if kind in ("sum", "prod"):
        if want is not None:
            acc = want
        elif in_dt.is_bool or in_dt.is_signed:
            acc = D.INT64
        elif in_dt.is_unsigned:
            acc = D.UINT64
        else:
            acc = in_dt
        res_dt = acc
    elif kind == "mean":
        res_dt = want or (in_dt if in_dt.is_inexact else D.FLOAT64)
        if not res_dt.is_inexact:
            raise unsupported("mean", f"dtype {res_dt.name}")
        acc = D.FLOAT32 if res_dt.bits == 16 else res_dt
    elif kind in ("max", "min"):
        if in_dt.is_complex:
            raise unsupported(kind, "not supported for complex")
        acc = res_dt = in_dt
    elif kind in ("any", "all"):
        acc = res_dt = D.BOOL
    else:  # pragma: no cover
        raise unsupported(kind)

    ctx.begin_op()
    if kind in ("max", "min"):
        _check_reduced_extent(x, axes, "maximum" if kind == "max" else "minimum")
    kept = [i for i in range(R) if i not in axes]
    out_dims = [x.dims[i] for i in kept]
    sizes = [ctx.dim(x, i) if x.dims[i] is None else None for i in kept]
    init_empty = _empty(ctx, out_dims, acc, sizes)
    out_type = tensor_type(out_dims, acc)
    if kind in ("sum", "mean"):
        ident: Any = 0
    elif kind in ("prod", "all"):
        ident = 1
    elif kind == "any":
        ident = 0
    elif kind == "max":
        ident = -float("inf") if acc.is_float else (False if acc.is_bool else D.int_range(acc)[0])
    else:
        ident = float("inf") if acc.is_float else (True if acc.is_bool else D.int_range(acc)[1])
    iv = _py_const(ctx.top, ident, acc)
    init = ctx.top.op("init", f"linalg.fill ins({iv} : {acc.mlir}) outs({init_empty} : {out_type}) -> {out_type}")
    combine = {
        "sum": _s_add, "mean": _s_add, "prod": _s_mul, "max": _s_max, "min": _s_min,
        "any": lambda b, x, y, dt: _arith(b, "ori", x, y, dt, "any"),
        "all": lambda b, x, y, dt: _arith(b, "andi", x, y, dt, "all"),
    }[kind]

    def body(blk: Block, in_args: list[str], out: str) -> str:
        v = convert(blk, in_args[0], in_dt, acc)
        if kind in ("sum", "mean") and acc.is_float:
            # Reassociable, as NumPy's pairwise summation is: LLVM may then
            # vectorise the accumulation instead of chaining one add per element.
            return blk.op("add", f"arith.addf {out}, {v} fastmath<reassoc> : {acc.mlir}")
        return combine(blk, out, v, acc)

    res = _emit_generic(
        ctx, kind, [x], [affine_map(R, [f"d{j}" for j in range(R)])], init, out_type, acc,
        affine_map(R, [f"d{j}" for j in kept]),
        ["reduction" if j in axes else "parallel" for j in range(R)], body,
    )
    out = TracedArray(ctx, res, acc, out_dims)
    for j, s in enumerate(sizes):
        if s is not None:
            out.set_size(j, s)
    if kind == "mean":
        n: str = ctx.top.const(1, "index")
        for i in axes:
            n = ctx.top.op("count", f"arith.muli {n}, {ctx.dim(x, i)} : index") if x.dims[i] != 1 else n
        n64 = ctx.top.op("count", f"arith.index_cast {n} : index to i64")
        nf = convert(ctx.top, n64, D.INT64, acc)
        cnt = TracedArray(ctx, nf, acc, (), is_scalar=True)
        out = _ewise(ctx, "mean", [(out, acc), (cnt, acc)], res_dt,
                     lambda b, v: convert(b, _s_div(b, v[0], v[1], acc), acc, res_dt))
    if keepdims:
        out = _expand_units(ctx, out, list(axes))
    return out


# --------------------------------------------------------------------------------------------------
# matmul, transpose, reshape


def _check_contraction(a: TracedArray, b: TracedArray) -> None:
    """Checks that the last dim of ``a`` equals the second to last of ``b`` (no broadcasting), when
    tracing if both are static, else at run time; NumPy's ``ValueError`` either way."""
    ctx = a.context
    ka, kb = a.dims[-1], b.dims[-2]
    message = (
        "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
        "(n?,k),(k,m?)->(n?,m?) (size {1} is different from {0})"
    )
    if ka is not None and kb is not None:
        if ka != kb:
            raise trace_error(message.format(ka, kb), ValueError)
        return
    sa, sb = ctx.dim(a, a.ndim - 1), ctx.dim(b, b.ndim - 2)
    ok = ctx.top.op("k_ok", f"arith.cmpi eq, {sa}, {sb} : index")
    text = _message_literal(message).replace("{{0}}", "{0}").replace("{{1}}", "{1}")
    ctx.top.raw(f'dlpack.assert {ok}, shape_mismatch, "{text}" ({sa}, {sb} : index, index)')


def _zeroed_product(ctx: TraceContext, a: TracedArray, b: TracedArray, batch: Sequence[int | None],
                    batch_sizes: Sequence[str | None], dt: DType) -> tuple[str, tuple[int | None, ...], str]:
    """The zero-filled output of ``a @ b`` with ``batch`` leading dims (their SSA sizes where
    dynamic): its value, dims and type."""
    dims = tuple(batch) + (a.dims[-2], b.dims[-1])
    sizes = list(batch_sizes) + [
        ctx.dim(a, a.ndim - 2) if a.dims[-2] is None else None,
        ctx.dim(b, b.ndim - 1) if b.dims[-1] is None else None,
    ]
    e = _empty(ctx, dims, dt, sizes)
    ty = tensor_type(dims, dt)
    zero = _py_const(ctx.top, 0, dt)
    return ctx.top.op("init", f"linalg.fill ins({zero} : {dt.mlir}) outs({e} : {ty}) -> {ty}"), dims, ty


def _matmul_named(ctx: TraceContext, a: TracedArray, b: TracedArray, dt: DType) -> TracedArray:
    """``a @ b`` for 2-D operands (``linalg.matmul``) and 3-D ones with the same batch size
    (``linalg.batch_matmul``): the named ops the CPU pipeline hands to BLAS."""
    batch: list[int | None] = []
    batch_sizes: list[str | None] = []
    if a.ndim == 3:
        bdims, _ = _broadcast([TracedArray(ctx, a.value, dt, a.dims[:1]), TracedArray(ctx, b.value, dt, b.dims[:1])],
                              [a, b])
        batch = list(bdims)
        batch_sizes = [ctx.dim(a, 0) if batch[0] is None else None]
    f, dims, ty = _zeroed_product(ctx, a, b, batch, batch_sizes, dt)
    name = "linalg.batch_matmul" if a.ndim == 3 else "linalg.matmul"
    r = ctx.top.op(
        "matmul", f"{name} ins({a.value}, {b.value} : {a.mlir_type}, {b.mlir_type}) outs({f} : {ty}) -> {ty}"
    )
    return TracedArray(ctx, r, dt, dims)


def _matmul_rows(ctx: TraceContext, a: TracedArray, b: TracedArray, dt: DType) -> TracedArray:
    """``a @ b`` for N-D ``a`` and 2-D ``b``: the leading dims of ``a`` are rows of one 2-D
    ``linalg.matmul`` (a view for compact ``a``, which bufferization copies otherwise)."""
    lead = a.dims[:-1]
    rows: int | None = None
    if all(d is not None for d in lead):
        rows = 1
        for d in lead:
            rows *= d  # type: ignore[operator]
    last = a.ndim - 1
    flat_dims = (rows, a.dims[-1])
    flat_ty = tensor_type(flat_dims, dt)
    groups = "[[" + ", ".join(str(i) for i in range(last)) + f"], [{last}]]"
    flat = ctx.top.op("rows", f"tensor.collapse_shape {a.value} {groups} : {a.mlir_type} into {flat_ty}")
    product = _matmul_named(ctx, TracedArray(ctx, flat, dt, flat_dims), b, dt)
    # tensor.reshape rather than expand_shape: LLVM 22's expand-strided-metadata crashes on an
    # expand_shape with two dynamic sizes in one group.
    dims = tuple(lead) + (b.dims[-1],)
    shape = [ctx.dim(a, i) if d is None else ctx.top.const(d, "index") for i, d in enumerate(lead)]
    shape.append(ctx.dim(b, 1) if b.dims[-1] is None else ctx.top.const(b.dims[-1], "index"))
    shape_type = f"tensor<{len(shape)}xindex>"
    shp = ctx.top.op("shape", f"tensor.from_elements {', '.join(shape)} : {shape_type}")
    v = ctx.top.op(
        "matmul",
        f"tensor.reshape {product.value}({shp}) : ({product.mlir_type}, {shape_type}) -> {tensor_type(dims, dt)}",
    )
    out = TracedArray(ctx, v, dt, dims)
    for i, d in enumerate(dims):
        if d is None:
            out.set_size(i, shape[i])
    return out


def matmul(a: Any, b: Any) -> TracedArray:
    """NumPy ``matmul`` (``@``): 2-D, N-D @ 2-D and equal-batch 3-D products via the named
    ``linalg`` contractions; 1-D operands via expand/collapse; other batched products (with
    broadcasting of batch dims) via a ``linalg.generic``."""
    ctx = _ctx_of(a, b)
    a = _lift(ctx, a, "matmul")
    b = _lift(ctx, b, "matmul")
    if not (_is_tensor(a) and _is_tensor(b)) or a.ndim == 0 or b.ndim == 0:
        raise trace_error("matmul: operands must have at least one dimension (no scalars)", ValueError)
    dt = D.result_type(a.element_type, b.element_type)
    if dt.is_bool:
        raise unsupported("matmul", "not supported for bool")
    a = astype(a, dt)
    b = astype(b, dt)
    ctx.begin_op()
    a1 = a.ndim == 1
    b1 = b.ndim == 1
    if a1:
        a = _expand_units(ctx, a, [0])
    if b1:
        b = _expand_units(ctx, b, [1])
    _check_contraction(a, b)
    if a.ndim == 2 and b.ndim == 2:
        out = _matmul_named(ctx, a, b, dt)
    elif b.ndim == 2:
        out = _matmul_rows(ctx, a, b, dt)
    elif a.ndim == 3 and b.ndim == 3 and a.dims[0] != 1 and b.dims[0] != 1:
        out = _matmul_named(ctx, a, b, dt)
    else:
        ba = TracedArray(ctx, a.value, dt, a.dims[:-2])
        bb = TracedArray(ctx, b.value, dt, b.dims[:-2])
        bdims, bsrcs = _broadcast([ba, bb], [a, b]) if (ba.ndim or bb.ndim) else ((), [])
        # sources refer to the fake batch views: map them back to the real arrays
        fixed: list[str | None] = []
        for s in bsrcs:
            if s is None:
                fixed.append(None)
            else:
                arr = a if s[0] is ba else b
                fixed.append(ctx.dim(arr, s[1]))
        Rb = len(bdims)
        f, dims, ty = _zeroed_product(ctx, a, b, bdims, fixed, dt)
        L = Rb + 3
        m, n, k = f"d{Rb}", f"d{Rb + 1}", f"d{Rb + 2}"

        def bmap(arr: TracedArray, last2: list[str]) -> str:
            nb = arr.ndim - 2
            ex = ["0" if arr.dims[i] == 1 else f"d{Rb - nb + i}" for i in range(nb)]
            return affine_map(L, ex + last2)

        def body(blk: Block, ins_: list[str], out_: str) -> str:
            p = _s_mul(blk, ins_[0], ins_[1], dt)
            return _s_add(blk, out_, p, dt)

        r = _emit_generic(
            ctx, "matmul", [a, b], [bmap(a, [m, k]), bmap(b, [k, n])], f, ty, dt,
            affine_map(L, [f"d{i}" for i in range(Rb)] + [m, n]),
            ["parallel"] * (Rb + 2) + ["reduction"], body,
        )
        out = TracedArray(ctx, r, dt, dims)
    drop = []
    if a1:
        drop.append(out.ndim - 2)
    if b1:
        drop.append(out.ndim - 1)
    return _collapse_units(ctx, out, drop)


def transpose(x: Any, axes: Any = None) -> TracedArray:
    """``transpose`` via ``linalg.transpose`` (``axes=None`` reverses the dims)."""
    ctx = _ctx_of(x)
    x = _lift(ctx, x, "transpose")
    if not _is_tensor(x):
        return x
    R = x.ndim
    if axes is None:
        perm = list(range(R))[::-1]
    else:
        perm = [int(a) % R if R else int(a) for a in axes]
        if sorted(perm) != list(range(R)):
            raise trace_error(f"transpose: axes {tuple(axes)} don't match array of dimension {R}", ValueError)
    if perm == list(range(R)):
        view = make_view(x, x.value, x.dims, "transpose", perm)
        view.copy_sizes_from(x)
        return view
    ctx.begin_op()
    dims = tuple(x.dims[p] for p in perm)
    sizes = [ctx.dim(x, p) if x.dims[p] is None else None for p in perm]
    e = _empty(ctx, dims, x.element_type, sizes)
    ty = tensor_type(dims, x.element_type)
    r = ctx.top.op(
        "transposed",
        f"linalg.transpose ins({x.value} : {x.mlir_type}) outs({e} : {ty}) "
        f"permutation = [{', '.join(str(p) for p in perm)}]",
    )
    out = make_view(x, r, dims, "transpose", perm)
    for j, s in enumerate(sizes):
        if s is not None:
            out.set_size(j, s)
    return out


def reshape(x: Any, shape: Any) -> TracedArray:
    """``reshape`` to sizes given as Python ints, at most one ``-1``, or dynamic sizes taken from
    ``.shape`` of a traced array."""
    ctx = _ctx_of(x)
    x = _lift(ctx, x, "reshape")
    x = _to_tensor(ctx, x)
    if isinstance(shape, (int, SymbolicDim)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        target = list(shape)
    except TypeError:
        raise unsupported("reshape", f"shape {shape!r}") from None
    tdims: list[int | None] = []
    tsizes: list[str | None] = []
    infer = -1
    for i, s in enumerate(target):
        if isinstance(s, SymbolicDim):
            if s.context is not ctx:
                raise TraceError("dlbridge.jit: a shape entry from another trace was used")
            tdims.append(None)
            tsizes.append(s.value)
            continue
        if isinstance(s, bool) or not isinstance(s, int):
            try:
                s = operator.index(s)
            except TypeError:
                raise unsupported("reshape", f"size {s!r} is not an int") from None
        if s == -1:
            if infer >= 0:
                raise trace_error("reshape: can only specify one unknown dimension", ValueError)
            infer = i
            tdims.append(None)
            tsizes.append(None)
        elif s < 0:
            raise trace_error(f"reshape: negative dimension {s}", ValueError)
        else:
            tdims.append(s)
            tsizes.append(None)
    src_static = all(d is not None for d in x.dims)
    known = [d for d, z in zip(tdims, tsizes) if d is not None]
    prod_known = 1
    for d in known:
        prod_known *= d
    if src_static:
        total = 1
        for d in x.dims:
            total *= d  # type: ignore[operator]
        if infer >= 0 and all(d is not None or j == infer for j, d in enumerate(tdims)):
            if prod_known == 0 or total % prod_known:
                raise trace_error(f"reshape: cannot reshape array of size {total} into shape {tuple(target)}",
                                  ValueError)
            tdims[infer] = total // prod_known
        elif all(d is not None for d in tdims) and prod_known != total:
            raise trace_error(f"reshape: cannot reshape array of size {total} into shape {tuple(target)}", ValueError)
    if tuple(tdims) == x.dims and all(d is not None for d in tdims):
        return make_view(x, x.value, x.dims, "reshape")
    ctx.begin_op()
    # SSA sizes of the target dims
    if infer >= 0 and tdims[infer] is None:
        total_v = ctx.top.const(1, "index")
        for k in range(x.ndim):
            if x.dims[k] != 1:
                total_v = ctx.top.op("numel", f"arith.muli {total_v}, {ctx.dim(x, k)} : index")
        others = ctx.top.const(1, "index")
        for j, (d, z) in enumerate(zip(tdims, tsizes)):
            if j == infer:
                continue
            sv = z if z is not None else ctx.top.const(d, "index")
            if d != 1:
                others = ctx.top.op("numel", f"arith.muli {others}, {sv} : index")
        tsizes[infer] = ctx.top.op("size", f"arith.divui {total_v}, {others} : index")
    vals = [z if z is not None else ctx.top.const(d, "index") for d, z in zip(tdims, tsizes)]
    ty = tensor_type(tdims, x.element_type)
    if not tdims:
        if any(d != 1 for d in x.dims):
            raise trace_error("reshape: to a 0-d array needs a source with static size-1 dims", ValueError)
        return make_view(x, _collapse_units(ctx, x, list(range(x.ndim))).value, (), "reshape")
    shp = ctx.top.op("shape", f"tensor.from_elements {', '.join(vals)} : tensor<{len(vals)}xindex>")
    r = ctx.top.op(
        "reshaped",
        f"tensor.reshape {x.value}({shp}) : ({x.mlir_type}, tensor<{len(vals)}xindex>) -> {ty}",
    )
    out = make_view(x, r, tdims, "reshape")
    for j, (d, z) in enumerate(zip(tdims, tsizes)):
        if d is None and z is not None:
            out.set_size(j, z)
    return out


# --------------------------------------------------------------------------------------------------
# outputs


def finalize_outputs(ctx: TraceContext, outs: Sequence[Any]) -> list[TracedArray]:
    """Turn returned values into fresh tensors: scalars become 0-d tensors; results that may share
    storage with an argument, or are returned twice, are copied (each result must own its buffer)."""
    finals: list[TracedArray] = []
    seen: set[str] = set()
    for i, o in enumerate(outs):
        if isinstance(o, TracedArray) and o.context is not ctx:
            raise TraceError("dlbridge.jit: a returned array belongs to another trace")
        try:
            o = _lift(ctx, o, f"return value {i}")
        except TraceError:
            if isinstance(o, TracedArray) or hasattr(o, "__dlbridge_trace_error__"):
                raise
            raise TraceError(
                f"dlbridge.jit: return value {i} is a {type(o).__name__}; return arrays or a tuple of arrays"
            ) from None
        ctx.begin_op()
        arr = _to_tensor(ctx, o)
        if arr.may_alias_argument or arr.value in seen:
            dims = arr.dims
            sizes = [ctx.dim(arr, k) if d is None else None for k, d in enumerate(dims)]
            e = _empty(ctx, dims, arr.element_type, sizes)
            ty = arr.mlir_type
            c = ctx.top.op("copy", f"linalg.copy ins({arr.value} : {ty}) outs({e} : {ty}) -> {ty}")
            arr = TracedArray(ctx, c, arr.element_type, dims)
        seen.add(arr.value)
        finals.append(arr)
    return finals
