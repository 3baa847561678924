"""Array creation inside a traced function: ``zeros``/``ones``/``empty``/``full`` and their
``_like``, ``arange``, ``linspace``, ``eye``/``identity``, ``copy``, joining
(``concatenate``/``stack``/``hstack``/``vstack``/``column_stack``/``dstack``/``append``, of
arrays and Python lists), repeating and rolling (``tile``, ``repeat``, ``resize``, ``roll``) and
triangles (``triu``/``tril``).

Sizes may be Python ints, dynamic sizes (:class:`SymbolicDim`, e.g. ``x.shape[0]``) or traced
integers; a negative size is NumPy's ValueError, while tracing when it is known, else when the
function runs.  Each function is declared in the op table under its NumPy name, so ``np.zeros``
reaches it through the NumPy proxy (``numpy_proxy``) and ``np.concatenate`` of traced arrays
through ``__array_function__``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes as D
from . import elementwise, lowering, shapes
from .dtypes import DType
from .errors import trace_error, unsupported
from .indexing import getitem, index_value, normalize_axes
from .mlir_text import Block, affine_map, tensor_type
from .registry import op
from .traced_array import SymbolicDim, TraceContext, TracedArray, current_context

__all__ = [
    "append", "arange", "column_stack", "concatenate", "copy", "dstack", "empty", "empty_like", "eye", "full",
    "full_like", "hstack", "identity", "linspace", "ones", "ones_like", "resize", "row_stack", "stack", "vstack",
    "zeros", "zeros_like",
]


def _flat(values: Any) -> list[Any]:
    """The items of ``values`` and of the lists and tuples in it, at every depth."""
    if isinstance(values, (list, tuple)):
        return [v for item in values for v in _flat(item)]
    return [values]


def _context(*xs: Any) -> TraceContext:
    for x in xs:
        if isinstance(x, (TracedArray, SymbolicDim)):
            return x._ctx
    ctx = current_context()
    if ctx is None or ctx.finished:
        raise TypeError("dlbridge: array creation outside of a traced function")
    return ctx


def _shape(ctx: TraceContext, shape: Any, what: str) -> tuple[list[int | None], list[str | None]]:
    """Static dims (None: dynamic) and the SSA sizes of the dynamic ones, for a NumPy ``shape``
    argument; negative sizes are a ValueError (checked at run time when dynamic)."""
    parts = list(shape) if isinstance(shape, (tuple, list)) else [shape]
    dims: list[int | None] = []
    sizes: list[str | None] = []
    for part in parts:
        if isinstance(part, float) or (isinstance(part, np.ndarray) and part.dtype.kind == "f"):
            raise trace_error(f"{what}: 'float' object cannot be interpreted as an integer", TypeError)
        v = index_value(ctx, part, what, "integer")
        if isinstance(v, int):
            if v < 0:
                raise trace_error(f"{what}: negative dimensions are not allowed", ValueError)
            dims.append(v)
            sizes.append(None)
            continue
        zero = ctx.top.const(0, "index")
        ok = ctx.top.op("size_ok", f"arith.cmpi sge, {v}, {zero} : index")
        ctx.top.raw(f'dlpack.assert {ok}, invalid_argument, "{what}: negative dimensions are not allowed"')
        dims.append(None)
        sizes.append(v)
    return dims, sizes


def _filled(ctx: TraceContext, dims: Sequence[int | None], sizes: Sequence[str | None], dt: DType,
            value: Any) -> TracedArray:
    """A new array of ``dt`` holding ``value`` (a Python scalar or traced scalar) everywhere;
    ``value`` None leaves it uninitialised (``empty``)."""
    ctx.begin_op()
    init = lowering.empty(ctx, dims, dt, sizes)
    if value is not None:
        if isinstance(value, TracedArray) and not value._is_scalar:
            if value.ndim != 0:
                raise trace_error("full: fill_value must be a scalar here", ValueError)
            value = TracedArray(
                ctx, ctx.top.op("fill", f"tensor.extract {value._value}[] : {value.mlir_type}"),
                value._dtype, (), is_scalar=True,
            )
        scalar = lowering.scalar_value(ctx, value, dt)
        ty = tensor_type(dims, dt)
        init = ctx.top.op("filled", f"linalg.fill ins({scalar} : {dt.mlir}) outs({init} : {ty}) -> {ty}")
    out = TracedArray(ctx, init, dt, dims, sizes=sizes)
    return out


def _dtype_or(dtype: Any, default: DType) -> DType:
    if dtype is None:
        return default
    try:
        return D.dtype(dtype)
    except TypeError as e:
        raise unsupported("array creation", str(e)) from None


def _check_order(order: str, name: str) -> None:
    if order not in ("C", "K", "A"):
        raise unsupported(f"numpy.{name}", f"order={order!r}: traced arrays have no memory order")


def _fill_dtype(value: Any) -> DType:
    if isinstance(value, TracedArray):
        return value._dtype if value._weak is None else D.default_dtype_of_kind(value._weak)
    if isinstance(value, (np.generic, np.ndarray)):
        return D.dtype(value.dtype)
    return D.default_dtype_of_kind(D.scalar_kind_of(value))


# --------------------------------------------------------------------------------------------------
# filled arrays


def _new(name: str, shape: Any, dtype: Any, order: str, fill: Any) -> TracedArray:
    """``numpy.<name>(shape, dtype, order)``: a new array holding ``fill`` (None: uninitialised)."""
    _check_order(order, name)
    ctx = _context(shape, *(shape if isinstance(shape, (tuple, list)) else ()))
    dims, sizes = _shape(ctx, shape, name)
    return _filled(ctx, dims, sizes, _dtype_or(dtype, D.FLOAT64), fill)


@op("zeros")
def zeros(shape: Any, dtype: Any = float, order: str = "C", *, like: Any = None) -> TracedArray:
    """A new array of zeros."""
    return _new("zeros", shape, dtype, order, 0)


@op("ones")
def ones(shape: Any, dtype: Any = None, order: str = "C", *, like: Any = None) -> TracedArray:
    """A new array of ones."""
    return _new("ones", shape, dtype, order, 1)


@op("empty")
def empty(shape: Any, dtype: Any = float, order: str = "C", *, like: Any = None) -> TracedArray:
    """A new uninitialised array."""
    return _new("empty", shape, dtype, order, None)


@op("full")
def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *, like: Any = None) -> TracedArray:
    """A new array filled with ``fill_value``."""
    _check_order(order, "full")
    ctx = _context(shape, fill_value, *(shape if isinstance(shape, (tuple, list)) else ()))
    dims, sizes = _shape(ctx, shape, "full")
    if isinstance(fill_value, SymbolicDim):
        fill_value = fill_value.as_array()
    return _filled(ctx, dims, sizes, _dtype_or(dtype, _fill_dtype(fill_value)), fill_value)


def _like(a: Any, dtype: Any, shape: Any, name: str) -> tuple[TraceContext, list[int | None], list[str | None], DType]:
    ctx = _context(a)
    if shape is not None:
        dims, sizes = _shape(ctx, shape, name)
    elif isinstance(a, TracedArray):
        dims = list(a._dims)
        sizes = [None if d is not None else ctx.dim(a, k) for k, d in enumerate(a._dims)]
    else:
        arr = np.asarray(a)
        dims, sizes = list(arr.shape), [None] * arr.ndim
    base = _fill_dtype(a) if isinstance(a, TracedArray) else D.dtype(np.asarray(a).dtype)
    return ctx, dims, sizes, _dtype_or(dtype, base)


@op("zeros_like")
def zeros_like(a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None) -> TracedArray:
    """A new array of zeros with the shape and dtype of ``a``."""
    ctx, dims, sizes, dt = _like(a, dtype, shape, "zeros_like")
    return _filled(ctx, dims, sizes, dt, 0)


@op("ones_like")
def ones_like(a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None) -> TracedArray:
    """A new array of ones with the shape and dtype of ``a``."""
    ctx, dims, sizes, dt = _like(a, dtype, shape, "ones_like")
    return _filled(ctx, dims, sizes, dt, 1)


@op("empty_like")
def empty_like(a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None) -> TracedArray:
    """A new uninitialised array with the shape and dtype of ``a``."""
    ctx, dims, sizes, dt = _like(a, dtype, shape, "empty_like")
    return _filled(ctx, dims, sizes, dt, None)


@op("full_like")
def full_like(a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: bool = True,
              shape: Any = None) -> TracedArray:
    """A new array with the shape and dtype of ``a`` filled with ``fill_value``."""
    ctx, dims, sizes, dt = _like(a, dtype, shape, "full_like")
    if isinstance(fill_value, SymbolicDim):
        fill_value = fill_value.as_array()
    if isinstance(fill_value, float) and dt.is_int:
        fill_value = int(fill_value)  # NumPy casts the fill value to the array's dtype
    return _filled(ctx, dims, sizes, dt, fill_value)


@op("copy", method="copy")
def copy(a: Any, order: str = "K", subok: bool = False) -> TracedArray:
    """A new array with the contents of ``a``."""
    ctx = _context(a)
    x = lowering.lift(ctx, a, "copy")
    if not isinstance(x, TracedArray):
        return lowering.to_tensor(ctx, x)
    return lowering.copy(lowering.to_tensor(ctx, x))


# --------------------------------------------------------------------------------------------------
# ranges


def _iota(ctx: TraceContext, length: int | str, dt: DType, value: Any) -> TracedArray:
    """A 1-D array whose element ``i`` is ``value(block, i_as_f64_or_i64)``."""
    dims: list[int | None] = [length if isinstance(length, int) else None]
    sizes: list[str | None] = [None if isinstance(length, int) else length]
    init = lowering.empty(ctx, dims, dt, sizes)

    def body(b: Block, _args: list[str], _out: str) -> str:
        i = b.op("i", "linalg.index 0 : index")
        return value(b, i)

    out = lowering.emit_generic(
        ctx, "range", [], [], init, tensor_type(dims, dt), dt, affine_map(1, ["d0"]), ["parallel"], body
    )
    return TracedArray(ctx, out, dt, dims, sizes=sizes)


def _is_int_like(v: Any) -> bool:
    if isinstance(v, SymbolicDim):
        return True
    if isinstance(v, TracedArray):
        return v._dtype.is_int or v._dtype.is_bool
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


@op("arange")
def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *, like: Any = None) -> TracedArray:
    """Evenly spaced values in ``[start, stop)``: NumPy's length ``ceil((stop - start) / step)``."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    ctx = _context(start, stop, step)
    ctx.begin_op()
    ints = all(_is_int_like(v) for v in (start, stop, step))
    if ints:
        if not isinstance(step, (int, np.integer)):
            raise unsupported("numpy.arange", "a step that is not known while tracing")
        if step == 0:
            raise trace_error("arange: Maximum allowed size exceeded", ValueError)
        lo = index_value(ctx, start, "arange start", "integer")
        hi = index_value(ctx, stop, "arange stop", "integer")
        if isinstance(lo, int) and isinstance(hi, int):
            length: int | str = max(0, -(-(hi - lo) // int(step)))
        else:
            lo_v = ctx.top.const(lo, "index") if isinstance(lo, int) else lo
            hi_v = ctx.top.const(hi, "index") if isinstance(hi, int) else hi
            diff = ctx.top.op("span", f"arith.subi {hi_v}, {lo_v} : index")
            n = ctx.top.op("n", f"arith.ceildivsi {diff}, {ctx.top.const(int(step), 'index')} : index")
            length = ctx.top.op("n", f"arith.maxsi {n}, {ctx.top.const(0, 'index')} : index")
        dt = _dtype_or(dtype, D.INT64)
        first = ctx.top.const(lo, "index") if isinstance(lo, int) else lo

        def value(b: Block, i: str) -> str:
            k = b.op("k", f"arith.muli {i}, {b.const(int(step), 'index')} : index")
            v = b.op("v", f"arith.addi {first}, {k} : index")
            as_i64 = b.op("v", f"arith.index_cast {v} : index to i64")
            return lowering.convert(b, as_i64, D.INT64, dt)

        return _iota(ctx, length, dt, value)
    if any(isinstance(v, (TracedArray, SymbolicDim)) for v in (start, stop, step)):
        raise unsupported("numpy.arange", "float bounds that are not known while tracing (use linspace)")
    length = max(0, math.ceil((float(stop) - float(start)) / float(step)))
    dt = _dtype_or(dtype, D.dtype(np.result_type(start, stop, step, 1.0)))

    def fvalue(b: Block, i: str) -> str:
        as_i64 = b.op("i", f"arith.index_cast {i} : index to i64")
        f = b.op("f", f"arith.sitofp {as_i64} : i64 to f64")
        k = b.op("k", f"arith.mulf {f}, {b.const(float(step), 'f64')} : f64")
        v = b.op("v", f"arith.addf {b.const(float(start), 'f64')}, {k} : f64")
        return lowering.convert(b, v, D.FLOAT64, dt)

    return _iota(ctx, length, dt, fvalue)


def _f64(ctx: TraceContext, v: Any, what: str) -> str:
    """A scalar as an ``f64`` SSA value."""
    if isinstance(v, SymbolicDim):
        v = v.as_array()
    if isinstance(v, TracedArray):
        if not v._is_scalar:
            if v.ndim:
                raise unsupported("numpy.linspace", f"an array {what}")
            element = ctx.top.op("s", f"tensor.extract {v._value}[] : {v.mlir_type}")
            v = TracedArray(ctx, element, v._dtype, (), is_scalar=True)
        return lowering.convert(ctx.top, v._value, v._dtype, D.FLOAT64)
    return ctx.top.const(float(v), "f64")


@op("linspace")
def linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0) -> Any:
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    ctx = _context(start, stop, num)
    ctx.begin_op()
    if axis != 0:
        raise unsupported("numpy.linspace", "axis")
    n = index_value(ctx, num, "linspace num", "integer")
    if isinstance(n, int) and n < 0:
        raise trace_error(f"Number of samples, {n}, must be non-negative.", ValueError)
    lo = _f64(ctx, start, "start")
    hi = _f64(ctx, stop, "stop")
    top = ctx.top
    n_v = top.const(n, "index") if isinstance(n, int) else n
    div_i = top.op("div", f"arith.subi {n_v}, {top.const(1, 'index')} : index") if endpoint else n_v
    div_i64 = top.op("div", f"arith.index_cast {div_i} : index to i64")
    div = top.op("div", f"arith.sitofp {div_i64} : i64 to f64")
    span = top.op("span", f"arith.subf {hi}, {lo} : f64")
    # one sample (div == 0): NumPy's step is NaN and the sample is start
    zero = top.const(0.0, "f64")
    single = top.op("single", f"arith.cmpf oeq, {div}, {zero} : f64")
    quotient = top.op("step", f"arith.divf {span}, {div} : f64")
    step = top.op("step", f"arith.select {single}, {span}, {quotient} : f64")
    results = [start, stop] if not isinstance(start, TracedArray) and not isinstance(stop, TracedArray) else []
    base = D.dtype(np.result_type(*results, 1.0)) if results else D.FLOAT64
    dt = _dtype_or(dtype, base)

    def value(b: Block, i: str) -> str:
        as_i64 = b.op("i", f"arith.index_cast {i} : index to i64")
        f = b.op("f", f"arith.sitofp {as_i64} : i64 to f64")
        k = b.op("k", f"arith.mulf {f}, {step} : f64")
        v = b.op("v", f"arith.addf {lo}, {k} : f64")
        if endpoint:  # the last of several values is exactly stop, as NumPy
            at_end = b.op("last", f"arith.cmpi eq, {i}, {div_i} : index")
            several = b.op("last", f"arith.cmpi sgt, {div_i}, {b.const(0, 'index')} : index")
            last = b.op("last", f"arith.andi {at_end}, {several} : i1")
            v = b.op("v", f"arith.select {last}, {hi}, {v} : f64")
        if dt.is_int:
            v = b.op("v", f"math.floor {v} : f64")
        return lowering.convert(b, v, D.FLOAT64, dt)

    out = _iota(ctx, n, dt, value)
    if retstep:
        nan = ctx.top.const(float("nan"), "f64")
        step = ctx.top.op("step", f"arith.select {single}, {nan}, {step} : f64")
        return out, TracedArray(ctx, step, D.FLOAT64, (), is_scalar=True)
    return out


@op("eye")
def eye(N: Any, M: Any = None, k: int = 0, dtype: Any = float, order: str = "C", *, like: Any = None) -> TracedArray:
    """A 2-D array with ones on diagonal ``k`` and zeros elsewhere."""
    _check_order(order, "eye")
    ctx = _context(N, M)
    dims, sizes = _shape(ctx, (N, N if M is None else M), "eye")
    dt = _dtype_or(dtype, D.FLOAT64)
    ctx.begin_op()
    init = lowering.empty(ctx, dims, dt, sizes)
    offset = int(k)

    def body(b: Block, _args: list[str], _out: str) -> str:
        i = b.op("i", "linalg.index 0 : index")
        j = b.op("j", "linalg.index 1 : index")
        ik = b.op("ik", f"arith.addi {i}, {b.const(offset, 'index')} : index")
        on = b.op("on", f"arith.cmpi eq, {ik}, {j} : index")
        return b.op("e", f"arith.select {on}, {lowering.py_const(b, 1, dt)}, {lowering.py_const(b, 0, dt)} : {dt.mlir}")

    out = lowering.emit_generic(
        ctx, "eye", [], [], init, tensor_type(dims, dt), dt, affine_map(2, ["d0", "d1"]),
        ["parallel", "parallel"], body,
    )
    arr = TracedArray(ctx, out, dt, dims, sizes=sizes)
    return arr


@op("identity")
def identity(n: Any, dtype: Any = None, *, like: Any = None) -> TracedArray:
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=float if dtype is None else dtype)


# --------------------------------------------------------------------------------------------------
# joining


def array_operand(ctx: TraceContext, value: Any, name: str) -> TracedArray:
    """``np.asarray(value)`` for an operand of ``name``: a traced array, a NumPy array or scalar,
    or a (nested) Python list or tuple of them, which becomes a constant when it holds no traced
    value and the stack of its items otherwise."""
    if isinstance(value, (list, tuple)):
        if not lowering.holds_traced(value):
            try:
                constant = np.asarray(value)
            except ValueError as error:
                raise trace_error(f"{name}: {error}", ValueError) from None
            if constant.dtype == object or constant.dtype.kind in "SUV":
                raise unsupported(name, f"a list of {type(value[0]).__name__} items" if value else "")
            return lowering.to_tensor(ctx, lowering.lift(ctx, constant, name))
        if not value:
            raise unsupported(name, "an empty list")
        return stack([array_operand(ctx, v, name) for v in value])
    return lowering.to_tensor(ctx, lowering.lift(ctx, value, name))


def _arrays(ctx: TraceContext, arrays: Any, name: str) -> list[TracedArray]:
    if isinstance(arrays, TracedArray) or not isinstance(arrays, (list, tuple)):
        raise unsupported(f"numpy.{name}", "the arrays must be given as a list or tuple")
    if not arrays:
        raise trace_error("need at least one array to concatenate", ValueError)
    return [array_operand(ctx, a, name) for a in arrays]


def _check_equal(ctx: TraceContext, sizes: list[str], message: str) -> None:
    first = sizes[0]
    for s in sizes[1:]:
        ok = ctx.top.op("same", f"arith.cmpi eq, {first}, {s} : index")
        ctx.top.raw(f'dlpack.assert {ok}, shape_mismatch, "{lowering.message_literal(message)}"')


@op("concatenate")
def concatenate(arrays: Any, axis: Any = 0, out: Any = None, dtype: Any = None,
                casting: str = "same_kind") -> TracedArray:
    """The arrays joined along ``axis`` (``None``: flattened first)."""
    lowering.no_out(out, "numpy.concatenate")
    ctx = _context(*_flat(arrays))
    xs = _arrays(ctx, arrays, "concatenate")
    if axis is None:
        xs = [shapes.reshape(x, -1) for x in xs]
        axis = 0
    rank = xs[0].ndim
    if rank == 0:
        raise trace_error("zero-dimensional arrays cannot be concatenated", ValueError)
    for x in xs:
        if x.ndim != rank:
            raise trace_error(
                "all the input array dimensions except for the concatenation axis must match "
                f"exactly, but along dimension 0, the array at index 0 has {rank} dimension(s) and "
                f"another has {x.ndim} dimension(s)",
                ValueError,
            )
    ax = int(axis)
    if not -rank <= ax < rank:
        raise trace_error(f"axis {ax} is out of bounds for array of dimension {rank}", np.exceptions.AxisError)
    ax %= rank
    dt = _dtype_or(dtype, lowering.promote(xs)[0])
    xs = [elementwise.astype(x, dt.name) if x._dtype != dt else x for x in xs]
    ctx.begin_op()
    dims: list[int | None] = []
    sizes: list[str | None] = []
    for k in range(rank):
        if k == ax:
            statics = [x._dims[k] for x in xs]
            if all(d is not None for d in statics):
                dims.append(sum(statics))  # type: ignore[arg-type]
                sizes.append(None)
            else:
                total = ctx.top.const(0, "index")
                for x in xs:
                    total = ctx.top.op("len", f"arith.addi {total}, {ctx.dim(x, k)} : index")
                dims.append(None)
                sizes.append(total)
            continue
        statics = {x._dims[k] for x in xs if x._dims[k] is not None}
        if len(statics) > 1:
            raise trace_error(
                "all the input array dimensions except for the concatenation axis must match "
                f"exactly, but along dimension {k} the sizes are {sorted(statics)}",
                ValueError,
            )
        message = (
            "all the input array dimensions except for the concatenation axis must match "
            f"exactly (dimension {k})"
        )
        _check_equal(ctx, [ctx.dim(x, k) for x in xs], message)
        dims.append(statics.pop() if statics else None)
        sizes.append(None if dims[-1] is not None else ctx.dim(xs[0], k))
    if 0 in dims:
        return _filled(ctx, dims, sizes, dt, None)
    # a piece known to be empty adds nothing (tensor.concat would place it at an offset past the end)
    xs = [x for x in xs if x._dims[ax] != 0]
    if len(xs) == 1:
        return lowering.copy(xs[0]) if xs[0]._dims == tuple(dims) else TracedArray(
            ctx, ctx.top.op("cast", f"tensor.cast {xs[0]._value} : {xs[0].mlir_type} to {tensor_type(dims, dt)}"),
            dt, dims, sizes=sizes)
    value = ctx.top.op(
        "concat",
        f"tensor.concat dim({ax}) {', '.join(x._value for x in xs)} : "
        f"({', '.join(x.mlir_type for x in xs)}) -> {tensor_type(dims, dt)}",
    )
    out_arr = TracedArray(ctx, value, dt, dims, sizes=sizes)
    return out_arr


@op("stack")
def stack(arrays: Any, axis: int = 0, out: Any = None, dtype: Any = None, casting: str = "same_kind") -> TracedArray:
    """The arrays (all of one shape) joined along a new axis."""
    lowering.no_out(out, "numpy.stack")
    ctx = _context(*_flat(arrays))
    xs = _arrays(ctx, arrays, "stack")
    rank = xs[0].ndim
    if any(x.ndim != rank for x in xs):
        raise trace_error("all input arrays must have the same shape", ValueError)
    ax = int(axis)
    if not -(rank + 1) <= ax <= rank:
        raise trace_error(f"axis {ax} is out of bounds for array of dimension {rank + 1}", np.exceptions.AxisError)
    ax %= rank + 1
    return concatenate([lowering.expand_units(ctx, x, [ax]) for x in xs], axis=ax, dtype=dtype)


@op("hstack")
def hstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> TracedArray:
    """The arrays joined column-wise (along axis 0 for 1-D arrays, else axis 1)."""
    ctx = _context(*_flat(tup))
    xs = _arrays(ctx, tup, "hstack")
    xs = [lowering.expand_units(ctx, x, [0]) if x.ndim == 0 else x for x in xs]
    return concatenate(xs, axis=0 if xs[0].ndim == 1 else 1, dtype=dtype)


@op("vstack")
def vstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> TracedArray:
    """The arrays joined row-wise (1-D arrays become rows)."""
    ctx = _context(*_flat(tup))
    xs = _arrays(ctx, tup, "vstack")
    xs = [lowering.expand_units(ctx, x, list(range(2 - x.ndim))) if x.ndim < 2 else x for x in xs]
    return concatenate(xs, axis=0, dtype=dtype)


@op("row_stack")
def row_stack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> TracedArray:
    """``vstack`` under its name deprecated in NumPy 2.0 (which warns as NumPy does)."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.", DeprecationWarning, stacklevel=3)
    if not lowering.holds_traced(tup):
        return np.vstack(tup, dtype=dtype, casting=casting)  # type: ignore[no-any-return]
    return vstack(tup, dtype=dtype, casting=casting)


@op("column_stack")
def column_stack(tup: Any) -> TracedArray:
    """The arrays joined along axis 1, 0-d and 1-D ones as columns."""
    if not lowering.holds_traced(tup):
        return np.column_stack(tup)  # type: ignore[no-any-return]
    ctx = _context(*_flat(tup))
    xs = _arrays(ctx, tup, "column_stack")
    cols = []
    for x in xs:
        if x.ndim == 0:
            x = lowering.expand_units(ctx, x, [0, 1])
        elif x.ndim == 1:
            x = lowering.expand_units(ctx, x, [1])
        cols.append(x)
    return concatenate(cols, axis=1)


@op("dstack")
def dstack(tup: Any) -> TracedArray:
    """The arrays joined along axis 2 (depth), after ``atleast_3d``: a 1-D ``(N,)`` array as
    ``(1, N, 1)``, a 2-D ``(M, N)`` one as ``(M, N, 1)``."""
    if not lowering.holds_traced(tup):
        return np.dstack(tup)  # type: ignore[no-any-return]
    ctx = _context(*_flat(tup))
    xs = _arrays(ctx, tup, "dstack")
    at = {0: [0, 1, 2], 1: [0, 2], 2: [2]}
    return concatenate([lowering.expand_units(ctx, x, at[x.ndim]) if x.ndim < 3 else x for x in xs], axis=2)


def _block_depths(arrays: Any, index: tuple[int, ...]) -> tuple[int, int]:
    """The list depth of ``arrays`` (one for every leaf, NumPy's error otherwise) and the largest
    rank among its leaves."""
    if type(arrays) is tuple:
        raise trace_error(f"arrays{''.join(f'[{i}]' for i in index)} is a tuple. Only lists can be used to "
                          "arrange blocks, and np.block does not allow implicit conversion from tuple to "
                          "ndarray.", TypeError)
    if type(arrays) is not list:
        return 0, getattr(arrays, "ndim", np.ndim(arrays))
    if not arrays:
        raise trace_error(f"List at arrays{''.join(f'[{i}]' for i in index)} cannot be empty", ValueError)
    found = [_block_depths(a, (*index, i)) for i, a in enumerate(arrays)]
    if any(d != found[0][0] for d, _ in found):
        raise trace_error("List depths are mismatched. All lists in np.block must be nested equally deep",
                          ValueError)
    return found[0][0] + 1, max(r for _, r in found)


@op("block")
def block(arrays: Any) -> TracedArray:
    """An array assembled from nested lists of blocks: the innermost lists joined along the last
    axis, each enclosing level along the axis before (NumPy's ``block``)."""
    if not lowering.holds_traced(arrays):
        return np.block(arrays)  # type: ignore[no-any-return]
    ctx = _context(*_flat(arrays))
    depth, rank = _block_depths(arrays, ())
    ndim = max(depth, rank)

    def assemble(part: Any, level: int) -> TracedArray:
        if level == depth:
            x = array_operand(ctx, part, "numpy.block")
            return lowering.expand_units(ctx, x, list(range(ndim - x.ndim))) if x.ndim < ndim else x
        return concatenate([assemble(p, level + 1) for p in part], axis=-(depth - level))

    return assemble(arrays, 0)


@op("append")
def append(arr: Any, values: Any, axis: Any = None) -> TracedArray:
    """``values`` joined to the end of ``arr`` along ``axis`` (None: both flattened)."""
    if not lowering.holds_traced([arr, values]):
        return np.append(arr, values, axis)  # type: ignore[no-any-return]
    ctx = _context(arr, values, *_flat(values))
    x = array_operand(ctx, arr, "numpy.append")
    v = array_operand(ctx, values, "numpy.append")
    if axis is None:
        return concatenate([shapes.reshape(x, -1), shapes.reshape(v, -1)], axis=0)
    return concatenate([x, v], axis=axis)


@op("meshgrid")
def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple[Any, ...]:
    """Coordinate arrays from 1-D coordinate vectors (``indexing="xy"``: the first two axes
    swapped, as NumPy)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ctx = _context(*xi)
    xs = [shapes.reshape(lowering.to_tensor(ctx, lowering.lift(ctx, x, "meshgrid")), -1) for x in xi]
    n = len(xs)
    order = list(range(n))
    if indexing == "xy" and n > 1:
        order[0], order[1] = 1, 0
    dims = [xs[order[k]]._dims[0] for k in range(n)]
    sizes = [None if d is not None else ctx.dim(xs[order[k]], 0) for k, d in enumerate(dims)]
    outputs = []
    for i, x in enumerate(xs):
        shaped = lowering.expand_units(ctx, x, [k for k in range(n) if order[k] != i])
        if not sparse:  # broadcast to the full grid
            shaped = elementwise.binary("add", shaped, _filled(ctx, dims, sizes, x._dtype, 0))
        outputs.append(shaped)
    return tuple(outputs)


# --------------------------------------------------------------------------------------------------
# repeating and rolling


def broadcast_to(x: TracedArray, dims: Sequence[int | None], sizes: Sequence[str | None]) -> TracedArray:
    """``x`` (of the same rank) repeated along its size-1 dims into a new array of ``dims``
    (the SSA sizes of the dynamic ones in ``sizes``): one ``linalg.generic`` copying it."""
    ctx = x._ctx
    ctx.begin_op()
    R = len(dims)
    dt = x._dtype
    init = lowering.empty(ctx, dims, dt, sizes)
    value = lowering.emit_generic(
        ctx, "bcast", [x], [lowering.broadcast_map(R, x._dims)], init, tensor_type(dims, dt), dt,
        affine_map(R, [f"d{j}" for j in range(R)]), ["parallel"] * R, lambda b, ins, out: ins[0],
    )
    return TracedArray(ctx, value, dt, dims, sizes=sizes)


def _count(value: Any, name: str, what: str) -> int:
    """A repeat count that must be a non-negative Python int (NumPy's ValueError otherwise)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (TracedArray, SymbolicDim)):
        raise unsupported(name, f"{what} that is not known while tracing (the result's size would depend on it)")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise trace_error(f"{name}: {what} must be integers, not {type(value).__name__}", TypeError)
    if value < 0:
        raise trace_error(f"{name}: negative dimensions are not allowed", ValueError)
    return int(value)


def _repeated(x: TracedArray, counts: Sequence[int], inner: bool) -> TracedArray:
    """``x`` with dim ``k`` repeated ``counts[k]`` times: each element ``counts[k]`` times in a
    row when ``inner`` (``repeat``), else the whole dim (``tile``)."""
    ctx = x._ctx
    expanded_at: list[int] = []
    for k in range(x.ndim):
        if counts[k] != 1:
            expanded_at.append(k + len(expanded_at) + (1 if inner else 0))
    wide = lowering.expand_units(ctx, x, expanded_at)
    dims: list[int | None] = []
    sizes: list[str | None] = []
    for k in range(wide.ndim):
        if k in expanded_at:
            dims.append(counts[_source_dim(k, expanded_at, inner)])
            sizes.append(None)
        else:
            dims.append(wide._dims[k])
            sizes.append(ctx.dim(wide, k) if wide._dims[k] is None else None)
    full = broadcast_to(wide, dims, sizes)
    # each inserted dim merges with its neighbour: a collapse_shape, which needs no shape operand
    groups: list[list[int]] = []
    merged: list[int | None] = []
    k = 0
    while k < full.ndim:
        group = [k, k + 1] if k in expanded_at or (inner and k + 1 in expanded_at) else [k]
        groups.append(group)
        size: int | None = 1
        for j in group:
            size = None if size is None or dims[j] is None else size * dims[j]  # type: ignore[operator]
        merged.append(size)
        k += len(group)
    text = "[" + ", ".join("[" + ", ".join(str(j) for j in g) + "]" for g in groups) + "]"
    value = ctx.top.op("repeated", f"tensor.collapse_shape {full._value} {text} : {full.mlir_type} into "
                                   f"{tensor_type(merged, x._dtype)}")
    return TracedArray(ctx, value, x._dtype, merged)


def _source_dim(position: int, expanded_at: Sequence[int], inner: bool) -> int:
    """The dim of the original array whose count the inserted unit dim at ``position`` holds."""
    before = sum(1 for p in expanded_at if p < position)
    return position - before - (1 if inner else 0)


@op("tile")
def tile(A: Any, reps: Any) -> TracedArray:
    """``A`` repeated ``reps`` times along each axis (NumPy's rules for unequal ranks)."""
    ctx = _context(A)
    x = array_operand(ctx, A, "numpy.tile")
    counts = [_count(r, "numpy.tile", "reps") for r in (reps if isinstance(reps, (tuple, list)) else (reps,))]
    if x.ndim < len(counts):
        x = lowering.expand_units(ctx, x, list(range(len(counts) - x.ndim)))
    counts = [1] * (x.ndim - len(counts)) + counts
    if all(c == 1 for c in counts):
        return lowering.copy(x)
    return _repeated(x, counts, inner=False)


@op("repeat", method="repeat")
def repeat(a: Any, repeats: Any, axis: Any = None) -> TracedArray:
    """Each element of ``a`` repeated ``repeats`` (an int) times along ``axis`` (None: of the
    flattened array)."""
    ctx = _context(a)
    x = array_operand(ctx, a, "numpy.repeat")
    if isinstance(repeats, (list, tuple, np.ndarray)) and np.ndim(repeats) == 1 and len(repeats) == 1:
        repeats = repeats[0]
    if isinstance(repeats, (list, tuple, TracedArray, SymbolicDim)) or (isinstance(repeats, np.ndarray)
                                                                          and repeats.ndim):
        return _repeat_each(ctx, x, repeats, axis)
    count = _count(repeats, "numpy.repeat", "repeats")
    if axis is None and x.ndim > 1:
        r = ctx.top.const(count, "index")
        length: Any = x.size * count
        dims = [length if isinstance(length, int) else None]
        return _flat_gather(x, "repeat", dims, [None if dims[0] is not None else length._value],
                            lambda b, i: b.op("src", f"arith.divui {i}, {r} : index"))
    if axis is None or x.ndim == 0:  # NumPy takes a 0-d array as 1-D for any axis
        x = shapes.reshape(x, -1)
        axis = 0 if axis is None else axis
    (ax,) = normalize_axes(axis, x.ndim, "numpy.repeat", allow_none=False)
    counts = [count if k == ax else 1 for k in range(x.ndim)]
    if count == 1:
        return lowering.copy(x)
    return _repeated(x, counts, inner=True)


@op("resize")
def resize(a: Any, new_shape: Any) -> TracedArray:
    """A new array of ``new_shape`` holding the elements of ``a`` in C order, repeated as often
    as needed (zeros when ``a`` is empty)."""
    if not lowering.holds_traced([a, new_shape]):
        return np.resize(a, new_shape)  # type: ignore[no-any-return]
    ctx = _context(a, *(new_shape if isinstance(new_shape, (tuple, list)) else (new_shape,)))
    x = array_operand(ctx, a, "numpy.resize")
    parts = list(new_shape) if isinstance(new_shape, (tuple, list)) else [new_shape]
    for part in parts:
        if isinstance(part, int) and part < 0:
            raise trace_error("all elements of `new_shape` must be non-negative", ValueError)
    dims, sizes = _shape(ctx, parts, "numpy.resize")
    flat = shapes.reshape(x, -1)
    n = flat._dims[0]
    if n == 0:
        return _filled(ctx, dims, sizes, x._dtype, 0)
    top = ctx.top
    if n is None:
        # an empty a gives zeros: a zero after its elements is what position 0 reads then
        count = ctx.dim(flat, 0)
        flat = concatenate([flat, _filled(ctx, [1], [None], x._dtype, 0)])
        zero, one = top.const(0, "index"), top.const(1, "index")
        empty_a = top.op("empty_a", f"arith.cmpi eq, {count}, {zero} : index")
        period = top.op("period", f"arith.select {empty_a}, {one}, {count} : index")
    else:
        period = top.const(n, "index")
    return _flat_gather(flat, "resize", dims, sizes, lambda b, i: b.op("src", f"arith.remui {i}, {period} : index"))


def _repeat_each(ctx: TraceContext, x: TracedArray, repeats: Any, axis: Any) -> TracedArray:
    """``np.repeat`` with a count per element (or a count known only when the kernel runs): the
    result's length along ``axis`` is the counts' sum, a size the data gives; output slot ``j``
    reads the element whose running count first exceeds ``j`` (a ``searchsorted`` of the
    cumulative counts), then one gather."""
    name = "numpy.repeat"
    if axis is None or x.ndim == 0:
        x = shapes.reshape(x, -1)
        axis = 0 if axis is None else axis
    (ax,) = normalize_axes(axis, x.ndim, name, allow_none=False)
    if isinstance(repeats, (list, tuple)) and not any(isinstance(r, (TracedArray, SymbolicDim)) for r in repeats):
        repeats = np.asarray(repeats).astype(np.int64)  # NumPy converts Python numbers as int()
    reps = array_operand(ctx, repeats.as_array() if isinstance(repeats, SymbolicDim) else repeats, name)
    reps = lowering.to_tensor(ctx, reps)
    if not (reps.element_type.is_int or reps.element_type.is_bool) or reps.element_type == D.UINT64:
        raise trace_error(f"{name}: Cannot cast array data from dtype('{reps.element_type.name}') to "
                          "dtype('int64') according to the rule 'safe'", TypeError)
    if reps.ndim > 1:
        raise trace_error(f"{name}: object too deep for desired array", ValueError)
    n = x.shape[ax]
    if reps.ndim == 0 or reps.dims[0] == 1:
        reps = elementwise.binary("add", zeros((n,), np.int64), shapes.reshape(reps, (-1,)))
    reps = elementwise.astype(reps, "int64")
    m = reps.shape[0]
    message = f"{name}: operands could not be broadcast together with shape ({{0}},) ({{1}},)"
    if isinstance(n, int) and isinstance(m, int):
        if n != m:
            raise trace_error(message.format(n, m), ValueError)
    else:
        lowering.runtime_check(np.equal(lowering.lift(ctx, n), lowering.lift(ctx, m)), "invalid_argument",
                               message, [n, m])
    lowering.runtime_check(np.all(np.greater_equal(reps, 0)), "invalid_argument",
                           "repeats may not contain negative values.")
    ends = np.cumsum(reps)
    slots = arange(np.sum(reps))
    source = np.searchsorted(ends, slots, side="right")
    return getitem(x, (slice(None),) * ax + (source,))


def _shift_mod(ctx: TraceContext, shift: Any, n: Any) -> Any:
    """``shift % n`` (0 for an empty dim), an int when both are known, else a SymbolicDim."""
    if isinstance(shift, (float, np.floating)):
        raise unsupported("numpy.roll", "a float shift (NumPy's result for one follows from float slicing)")
    s = index_value(ctx, shift, "numpy.roll shift", "integer")
    if isinstance(s, int) and isinstance(n, int):
        return s % n if n else 0
    top = ctx.top
    s_v = top.const(s, "index") if isinstance(s, int) else s
    n_v = top.const(n, "index") if isinstance(n, int) else n._value
    zero, one = top.const(0, "index"), top.const(1, "index")
    empty = top.op("empty_dim", f"arith.cmpi eq, {n_v}, {zero} : index")
    safe = top.op("n", f"arith.select {empty}, {one}, {n_v} : index")
    r = top.op("shift", f"arith.remsi {s_v}, {safe} : index")
    wrapped = top.op("shift", f"arith.addi {r}, {safe} : index")
    r = top.op("shift", f"arith.remsi {wrapped}, {safe} : index")
    r = top.op("shift", f"arith.select {empty}, {zero}, {r} : index")
    return SymbolicDim(ctx, r, "roll shift")


def _flat_gather(x: TracedArray, hint: str, dims: Sequence[int | None], sizes: Sequence[str | None],
                 source: Any) -> TracedArray:
    """A new array of ``dims`` (the SSA sizes of the dynamic ones in ``sizes``) whose element at
    flat position ``i`` (C order) is the element at flat position ``source(block, i)`` of ``x``:
    one ``linalg.generic`` reading ``x`` at the unravelled index, without a reshape (whose shape
    operand CUDA kernels could not read)."""
    ctx = x._ctx
    ctx.begin_op()
    dt = x._dtype
    in_sizes = [ctx.dim(x, k) for k in range(x.ndim)]
    out_sizes = [ctx.top.const(d, "index") if d is not None else z for d, z in zip(dims, sizes)]
    init = lowering.empty(ctx, dims, dt, sizes)

    def body(b: Block, _ins: list[str], _out: str) -> str:
        flat = b.const(0, "index")
        for k, n in enumerate(out_sizes):
            i = b.op("i", f"linalg.index {k} : index")
            flat = b.op("flat", f"arith.addi {b.op('flat', f'arith.muli {flat}, {n} : index')}, {i} : index")
        src = source(b, flat)
        at: list[str] = []
        for n in reversed(in_sizes):
            at.append(b.op("at", f"arith.remui {src}, {n} : index"))
            src = b.op("src", f"arith.divui {src}, {n} : index")
        return b.op("v", f"tensor.extract {x._value}[{', '.join(reversed(at))}] : {x.mlir_type}")

    R = len(dims)
    value = lowering.emit_generic(ctx, hint, [], [], init, tensor_type(dims, dt), dt,
                              affine_map(R, [f"d{k}" for k in range(R)]), ["parallel"] * R, body)
    return TracedArray(ctx, value, dt, dims, sizes=sizes)


def _roll_flat(x: TracedArray, shift: Any) -> TracedArray:
    """``np.roll(x, shift)`` of an array of 2 dims or more: element ``i`` (in C order) of the
    result is element ``(i - shift) % x.size`` of ``x``."""
    ctx = x._ctx
    total: Any = x.size
    s = _shift_mod(ctx, shift, total)
    n_v = ctx.top.const(total, "index") if isinstance(total, int) else total._value
    s_v = ctx.top.const(s, "index") if isinstance(s, int) else s._value

    def source(b: Block, i: str) -> str:
        src = b.op("src", f"arith.subi {i}, {s_v} : index")
        wrapped = b.op("src", f"arith.addi {src}, {n_v} : index")
        negative = b.op("neg", f"arith.cmpi slt, {src}, {b.const(0, 'index')} : index")
        return b.op("src", f"arith.select {negative}, {wrapped}, {src} : index")

    sizes = [ctx.dim(x, k) if d is None else None for k, d in enumerate(x._dims)]
    return _flat_gather(x, "roll", x._dims, sizes, source)


@op("roll")
def roll(a: Any, shift: Any, axis: Any = None) -> TracedArray:
    """``a`` rolled by ``shift`` along ``axis`` (None: the flattened array, reshaped back);
    ``shift`` and ``axis`` may be tuples (broadcast against each other)."""
    ctx = _context(a, shift)
    x = array_operand(ctx, a, "numpy.roll")
    if axis is None:
        if isinstance(shift, (tuple, list)):
            shift = sum(shift)  # rolls of the flattened array add up
        if x.ndim == 0:
            return lowering.copy(x)
        return roll(x, shift, 0) if x.ndim == 1 else _roll_flat(x, shift)
    shifts = list(shift) if isinstance(shift, (tuple, list)) else [shift]
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    if len(shifts) != len(axes):
        if len(shifts) != 1 and len(axes) != 1:
            raise trace_error("numpy.roll: 'shift' and 'axis' should be scalars or 1D sequences", ValueError)
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        else:
            axes = axes * len(shifts)
    total: dict[int, Any] = {}
    for s, ax in zip(shifts, axes):
        (k,) = normalize_axes(ax, x.ndim, "numpy.roll", allow_none=False)
        total[k] = total[k] + s if k in total else s
    out = x
    for k, s in total.items():
        n = out.shape[k]
        r = _shift_mod(ctx, s, n)
        if isinstance(r, int) and r == 0:
            continue
        cut = n - r
        head = getitem(out, tuple(slice(cut, None) if j == k else slice(None) for j in range(out.ndim)))
        tail = getitem(out, tuple(slice(None, cut) if j == k else slice(None) for j in range(out.ndim)))
        rolled = concatenate([head, tail], axis=k)
        if x._dims[k] is not None and rolled._dims[k] is None:
            rolled = shapes.reshape(rolled, [x._dims[k] if j == k else d for j, d in enumerate(rolled.shape)])
        out = rolled
    return out if out is not x else lowering.copy(x)


# --------------------------------------------------------------------------------------------------
# triangles


def _triangle(m: Any, k: Any, upper: bool) -> TracedArray:
    """``m`` with the elements below (``upper``) or above diagonal ``k`` of its last two dims
    zeroed; a 1-D ``m`` is broadcast to a square first, as NumPy does."""
    name = "numpy.triu" if upper else "numpy.tril"
    ctx = _context(m, k)
    x = array_operand(ctx, m, name)
    if x.ndim == 0:
        raise trace_error(f"{name}: the array must have at least one dimension", TypeError)
    offset = index_value(ctx, k, f"{name} k", "integer")
    ctx.begin_op()
    if x.ndim == 1:
        dims: list[int | None] = [x._dims[0], x._dims[0]]
        sizes: list[str | None] = [ctx.dim(x, 0) if x._dims[0] is None else None] * 2
    else:
        dims = list(x._dims)
        sizes = [ctx.dim(x, j) if d is None else None for j, d in enumerate(dims)]
    R = len(dims)
    dt = x._dtype
    init = lowering.empty(ctx, dims, dt, sizes)
    k_v = ctx.top.const(offset, "index") if isinstance(offset, int) else offset

    def body(b: Block, ins: list[str], _out: str) -> str:
        i = b.op("i", f"linalg.index {R - 2} : index")
        j = b.op("j", f"linalg.index {R - 1} : index")
        d = b.op("d", f"arith.subi {j}, {i} : index")
        keep = b.op("keep", f"arith.cmpi {'sge' if upper else 'sle'}, {d}, {k_v} : index")
        return lowering.select(b, keep, ins[0], lowering.py_const(b, 0, dt), dt)

    value = lowering.emit_generic(
        ctx, "triu" if upper else "tril", [x], [lowering.broadcast_map(R, x._dims)], init, tensor_type(dims, dt), dt,
        affine_map(R, [f"d{j}" for j in range(R)]), ["parallel"] * R, body,
    )
    return TracedArray(ctx, value, dt, dims, sizes=sizes)


@op("triu")
def triu(m: Any, k: Any = 0) -> TracedArray:
    """The upper triangle of ``m`` from diagonal ``k`` on (the rest zeroed)."""
    return _triangle(m, k, True)


@op("tril")
def tril(m: Any, k: Any = 0) -> TracedArray:
    """The lower triangle of ``m`` up to diagonal ``k`` (the rest zeroed)."""
    return _triangle(m, k, False)
