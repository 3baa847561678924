"""Reductions and scans beyond ``sum``/``mean``/``max``/``min``: ``prod``, ``any``, ``all``,
``var``, ``std``, ``argmax``, ``argmin``, ``cumsum`` and ``cumprod``, each declared once in the op
table (NumPy function and ``ndarray`` method) with NumPy's dtypes, NaN rules and errors."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as D
from . import ops
from .emitter import Block, affine_map, tensor_type
from .registry import op
from .tracer import TracedArray, unsupported

__all__ = ["argmax", "argmin", "cumprod", "cumsum", "std", "var"]


def _array(a: Any, name: str) -> TracedArray:
    ctx = ops._ctx_of(a)
    return ops._to_tensor(ctx, ops._lift(ctx, a, name))


def _no_where(where: Any, name: str) -> None:
    if where is not True:
        raise unsupported(f"numpy.{name}", "where= is not supported")


@op("prod", method="prod", dtype_rule="promote")
def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
         initial: Any = None, where: Any = True) -> TracedArray:
    """The product of the elements over ``axis`` (integers accumulate in int64, as NumPy)."""
    ops._no_out(out, "numpy.prod")
    _no_where(where, "prod")
    r = ops.reduce("prod", a, axis=axis, keepdims=keepdims, dtype=dtype)
    return r if initial is None else ops.binary("multiply", r, initial)


@op("any", method="any", dtype_rule="bool")
def any_(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *, where: Any = True) -> TracedArray:
    """Whether any element over ``axis`` is true (nonzero; NaN is true)."""
    ops._no_out(out, "numpy.any")
    _no_where(where, "any")
    return ops.reduce("any", a, axis=axis, keepdims=keepdims)


@op("all", method="all", dtype_rule="bool")
def all_(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *, where: Any = True) -> TracedArray:
    """Whether every element over ``axis`` is true (nonzero; NaN is true)."""
    ops._no_out(out, "numpy.all")
    _no_where(where, "all")
    return ops.reduce("all", a, axis=axis, keepdims=keepdims)


@op("count_nonzero", dtype_rule="explicit")
def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> TracedArray:
    """How many elements over ``axis`` are non-zero (``int64``; NaN counts)."""
    ctx = ops._ctx_of(a)
    a = ops._lift(ctx, a, "numpy.count_nonzero")
    flags = a if isinstance(a, TracedArray) and a.element_type.is_bool else ops.binary("not_equal", a, 0)
    return ops.reduce("sum", flags, axis=axis, keepdims=keepdims, dtype="int64")


def _count(x: TracedArray, axis: Any) -> Any:
    """The number of elements reduced over ``axis``: an int or a SymbolicDim."""
    axes = ops._norm_axes(axis, x.ndim, "var")
    n: Any = 1
    for k in axes:
        d = x.shape[k]
        n = d * n if not isinstance(n, int) or not isinstance(d, int) else n * d
    return n


@op("var", method="var", dtype_rule="float")
def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
        keepdims: bool = False, *, where: Any = True, mean: Any = None, correction: Any = None) -> TracedArray:
    """The variance over ``axis``: ``sum(|x - x.mean()|**2) / (n - ddof)``."""
    ops._no_out(out, "numpy.var")
    _no_where(where, "var")
    if mean is not None:
        raise unsupported("numpy.var", "mean= is not supported")
    if correction is not None:
        ddof = correction
    x = _array(a, "var")
    m = ops.reduce("mean", x, axis=axis, keepdims=True, dtype=dtype)
    d = ops.binary("subtract", x if dtype is None else ops.astype(x, dtype), m)
    sq = ops.binary("multiply", d, d) if not d._dtype.is_complex else ops.binary(
        "multiply", ops.unary("absolute", d), ops.unary("absolute", d))
    total = ops.reduce("sum", sq, axis=axis, keepdims=keepdims)
    return ops.binary("divide", total, _count(x, axis) - ddof)


@op("std", method="std", dtype_rule="float")
def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
        keepdims: bool = False, *, where: Any = True, mean: Any = None, correction: Any = None) -> TracedArray:
    """The standard deviation over ``axis``: ``sqrt(var)``."""
    return ops.unary("sqrt", var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                                 correction=correction))


def _arg_reduce(a: Any, axis: Any, keepdims: bool, out: Any, largest: bool) -> TracedArray:
    """``argmax``/``argmin``: the first index of the extreme (of the first NaN, as NumPy), found
    by one reduction carrying (value, index) whose choice does not depend on the visiting order."""
    name = "argmax" if largest else "argmin"
    ops._no_out(out, f"numpy.{name}")
    x = _array(a, name)
    ctx = x._ctx
    if x._dtype.is_complex:
        raise unsupported(f"numpy.{name}", "not supported for complex")
    if axis is None:
        flat = ops.reshape(x, -1) if x.ndim != 1 else x
        r = _arg_reduce(flat, 0, False, None, largest)
        return ops._expand_units(ctx, r, list(range(x.ndim))) if keepdims else r
    (ax,) = ops._norm_axes(axis, x.ndim, name)
    ctx.begin_op()
    empty = f"attempt to get {name} of an empty sequence"
    if x._dims[ax] == 0:
        raise ValueError(empty)
    ops._check_reduced_extent(x, [ax], name, empty)
    dt = x._dtype
    kept = [k for k in range(x.ndim) if k != ax]
    dims = [x._dims[k] for k in kept]
    sizes = [ctx.dim(x, k) if x._dims[k] is None else None for k in kept]
    val_ty, idx_ty = tensor_type(dims, dt), tensor_type(dims, D.INT64)
    if dt.is_float:
        worst: Any = -np.inf if largest else np.inf
    elif dt.is_bool:
        worst = not largest
    else:
        lo, hi = D.int_range(dt)
        worst = lo if largest else hi
    v0 = ops._py_const(ctx.top, worst, dt)
    i0 = ctx.top.const(np.iinfo(np.int64).max, "i64")
    val_empty = ops._empty(ctx, dims, dt, sizes)
    val_init = ctx.top.op("best", f"linalg.fill ins({v0} : {dt.mlir}) outs({val_empty} : {val_ty}) -> {val_ty}")
    idx_empty = ops._empty(ctx, dims, D.INT64, sizes)
    idx_init = ctx.top.op("at", f"linalg.fill ins({i0} : i64) outs({idx_empty} : {idx_ty}) -> {idx_ty}")
    blk = Block(ctx.names, indent=3)
    v, best, at = ("%" + ctx.names.fresh(h) for h in ("v", "best", "at"))
    i = blk.op("i", f"linalg.index {ax} : index")
    i64 = blk.op("i", f"arith.index_cast {i} : index to i64")
    earlier = blk.op("earlier", f"arith.cmpi slt, {i64}, {at} : i64")
    pred = "gt" if largest else "lt"
    better = ops._cmp(blk, pred, v, best, dt)
    tie = ops._cmp(blk, "eq", v, best, dt)
    take = blk.op("take", f"arith.ori {better}, {blk.op('tie', f'arith.andi {tie}, {earlier} : i1')} : i1")
    if dt.is_float:
        v_nan = blk.op("nan", f"arith.cmpf uno, {v}, {v} : {dt.mlir}")
        best_nan = blk.op("nan", f"arith.cmpf uno, {best}, {best} : {dt.mlir}")
        first_nan = blk.op("nan", f"arith.andi {v_nan}, {earlier} : i1")
        nan_take = blk.op("nan", f"arith.select {best_nan}, {first_nan}, {v_nan} : i1")
        any_nan = blk.op("nan", f"arith.ori {v_nan}, {best_nan} : i1")
        take = blk.op("take", f"arith.select {any_nan}, {nan_take}, {take} : i1")
    new_v = ops._select(blk, take, v, best, dt)
    new_i = blk.op("at", f"arith.select {take}, {i64}, {at} : i64")
    blk.raw(f"linalg.yield {new_v}, {new_i} : {dt.mlir}, i64")
    R = x.ndim
    res = "%" + ctx.names.fresh(name)
    maps = ", ".join([affine_map(R, [f"d{k}" for k in range(R)])] + [affine_map(R, [f"d{k}" for k in kept])] * 2)
    its = ", ".join('"reduction"' if k == ax else '"parallel"' for k in range(R))
    top = ctx.top
    top.raw(f"{res}:2 = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} "
            f"ins({x._value} : {x.mlir_type}) outs({val_init}, {idx_init} : {val_ty}, {idx_ty}) {{")
    top.raw(f"^bb0({v}: {dt.mlir}, {best}: {dt.mlir}, {at}: i64):")
    top.lines.extend(blk.lines)
    top.raw(f"}} -> ({val_ty}, {idx_ty})")
    r = TracedArray(ctx, f"{res}#1", D.INT64, dims, sizes=sizes)
    return ops._expand_units(ctx, r, [ax]) if keepdims else r


@op("argmax", method="argmax", dtype_rule="explicit")
def argmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> TracedArray:
    """The index of the first largest element over ``axis`` (flattened when None)."""
    return _arg_reduce(a, axis, keepdims, out, True)


@op("argmin", method="argmin", dtype_rule="explicit")
def argmin(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> TracedArray:
    """The index of the first smallest element over ``axis`` (flattened when None)."""
    return _arg_reduce(a, axis, keepdims, out, False)


def _scan_identity(b: Block, combine: str, dt: D.DType) -> str:
    """The value a scan starts from: ``-0.0`` for float sums (``-0.0 + x`` is ``x`` for every
    ``x``, signed zeros included), 0 for other sums, 1 (true) for products."""
    if combine == "add":
        if dt.is_float:
            return b.const(-0.0, dt.mlir)
        if dt.is_complex:
            return b.const(complex(-0.0, -0.0), dt.mlir)
        return ops._py_const(b, 0, dt)
    return ops._py_const(b, 1, dt)


def _scan(a: Any, axis: Any, dtype: Any, out: Any, name: str, combine: str) -> TracedArray:
    """``cumsum``/``cumprod`` in the accumulation dtype NumPy uses (int64 for small integers and
    bools), as one pass over the data: an ``scf.forall`` over every index but ``axis`` whose body
    walks ``axis`` with an ``scf.for`` carrying the running value, each element converted and
    combined in the order NumPy uses. The pipelines run the forall in parallel (OpenMP threads on
    the CPU, GPU threads or a block per row on CUDA)."""
    ops._no_out(out, f"numpy.{name}")
    x = _array(a, name)
    ctx = x._ctx
    if dtype is not None:
        acc = D.dtype(dtype)
    elif x._dtype.is_bool or x._dtype.is_signed:
        acc = D.INT64
    elif x._dtype.is_unsigned:
        acc = D.UINT64
    else:
        acc = x._dtype
    if axis is None and x.ndim >= 2:
        ctx.begin_op()
        return ops._collapse_units(ctx, _scan_along(ctx, _one_row(ctx, x), 1, acc, combine), [0])
    if axis is None:
        x = ops.reshape(x, -1) if x.ndim != 1 else x
        axis = 0
    (ax,) = ops._norm_axes(axis, x.ndim, name)
    ctx.begin_op()
    if x.ndim == 1:
        # A row of one: the forall always has a dimension to run over.
        return ops._collapse_units(ctx, _scan_along(ctx, ops._expand_units(ctx, x, [0]), 1, acc, combine), [0])
    return _scan_along(ctx, x, ax, acc, combine)


def _one_row(ctx: Any, x: TracedArray) -> TracedArray:
    """``x`` flattened in C order into an array of one row (``tensor.collapse_shape``, a view
    where the layout allows one, a copy where bufferization must make one)."""
    e = ops._expand_units(ctx, x, [0])
    n: int | None = 1
    for d in x._dims:
        n = None if n is None or d is None else n * d
    dims = [1, n]
    ty = tensor_type(dims, x._dtype)
    groups = ", ".join(str(k) for k in range(1, x.ndim + 1))
    v = ctx.top.op("flat", f"tensor.collapse_shape {e._value} [[0], [{groups}]] : {e.mlir_type} into {ty}")
    return TracedArray(ctx, v, x._dtype, dims, alias=x.may_alias_argument)


def _scan_along(ctx: Any, x: TracedArray, ax: int, acc: D.DType, combine: str) -> TracedArray:
    """The scan of ``x`` (rank >= 2) along ``ax`` into a new array of ``acc``."""
    R = x.ndim
    kept = [k for k in range(R) if k != ax]
    sizes = [ctx.dim(x, k) if x._dims[k] is None else None for k in range(R)]
    ty = tensor_type(x._dims, acc)
    row_ty = tensor_type([x._dims[ax]], acc)
    top = ctx.top
    init = ops._empty(ctx, x._dims, acc, sizes)
    bounds = [ctx.dim(x, k) for k in kept]
    n = ctx.dim(x, ax)
    c0, c1 = top.const(0, "index"), top.const(1, "index")
    ivs = ["%" + ctx.names.fresh("i") for _ in kept]
    shared, res, k, run, row_arg = ("%" + ctx.names.fresh(h) for h in ("o", _name_of(combine), "k", "run", "row"))
    where = dict(zip(kept, ivs))
    offsets = ", ".join(where.get(d, "0") for d in range(R))
    extents = ", ".join("1" if d != ax else (str(x._dims[ax]) if x._dims[ax] is not None else n)
                        for d in range(R))
    unit = ", ".join("1" for _ in range(R))
    slice_at = f"[{offsets}] [{extents}] [{unit}]"
    body = Block(ctx.names, indent=top.indent + 1)
    row = body.op("row", f"tensor.extract_slice {shared}{slice_at} : {ty} to {row_ty}")
    start = _scan_identity(body, combine, acc)
    walked = "%" + ctx.names.fresh("walked")
    step = Block(ctx.names, indent=body.indent + 1)
    index = ", ".join(where.get(d, k) for d in range(R))
    v = step.op("x", f"tensor.extract {x._value}[{index}] : {x.mlir_type}")
    v = ops.convert(step, v, x._dtype, acc)
    new = (ops._s_add if combine == "add" else ops._s_mul)(step, run, v, acc)
    row2 = step.op("row", f"tensor.insert {new} into {row_arg}[{k}] : {row_ty}")
    step.raw(f"scf.yield {new}, {row2} : {acc.mlir}, {row_ty}")
    body.raw(f"{walked}:2 = scf.for {k} = {c0} to {n} step {c1} "
             f"iter_args({run} = {start}, {row_arg} = {row}) -> ({acc.mlir}, {row_ty}) {{")
    body.lines.extend(step.lines)
    body.raw("}")
    body.raw("scf.forall.in_parallel {")
    body.raw(f"  tensor.parallel_insert_slice {walked}#1 into {shared}{slice_at} : {row_ty} into {ty}")
    body.raw("}")
    top.raw(f"{res} = scf.forall ({', '.join(ivs)}) in ({', '.join(bounds)}) "
            f"shared_outs({shared} = {init}) -> ({ty}) {{")
    top.lines.extend(body.lines)
    top.raw("}")
    r = TracedArray(ctx, res, acc, x._dims)
    for d in range(R):
        if sizes[d] is not None:
            r.set_size(d, sizes[d])  # type: ignore[arg-type]
    return r


def _name_of(combine: str) -> str:
    """The SSA name hint of a scan's result."""
    return "cumsum" if combine == "add" else "cumprod"


@op("cumsum", method="cumsum", dtype_rule="promote")
def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> TracedArray:
    """The running sums along ``axis`` (flattened when None)."""
    return _scan(a, axis, dtype, out, "cumsum", "add")


@op("cumprod", method="cumprod", dtype_rule="promote")
def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> TracedArray:
    """The running products along ``axis`` (flattened when None)."""
    return _scan(a, axis, dtype, out, "cumprod", "multiply")


@op("norm", numpy=("norm",), dtype_rule="float")
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> TracedArray:  # noqa: A002
    """``numpy.linalg.norm``: the 2-norm (Frobenius for matrices) by default; vector norms of
    any order over an int ``axis`` or of a 1-D array."""
    a = _array(x, "norm")
    vector = a.ndim == 1 or isinstance(axis, int) or (isinstance(axis, tuple) and len(axis) == 1)
    if ord is not None and not vector and ord != "fro":
        raise unsupported("numpy.linalg.norm", f"the matrix norm ord={ord!r} (only 'fro')")
    mag = ops.unary("absolute", a)
    if not mag._dtype.is_inexact:
        mag = ops.astype(mag, "float64")
    if ord is None or ord == "fro" or ord == 2:
        return ops.unary("sqrt", ops.reduce("sum", ops.binary("multiply", mag, mag), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return ops.reduce("max", mag, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return ops.reduce("min", mag, axis=axis, keepdims=keepdims)
    if ord == 0:
        nonzero = ops.astype(ops.binary("not_equal", mag, 0), mag._dtype.name)
        return ops.reduce("sum", nonzero, axis=axis, keepdims=keepdims)
    if ord == 1:
        return ops.reduce("sum", mag, axis=axis, keepdims=keepdims)
    p = float(ord)
    total = ops.reduce("sum", ops.binary("power", mag, p), axis=axis, keepdims=keepdims)
    return ops.binary("power", total, 1.0 / p)
