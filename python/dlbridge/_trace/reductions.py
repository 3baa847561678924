"""Reductions and scans: ``sum``, ``mean``, ``max``, ``min``, ``prod``, ``any`` and ``all``
(:func:`reduce`: a ``linalg.fill`` and a ``linalg.generic`` with reduction iterators), ``var``,
``std``, ``argmax``, ``argmin``, ``cumsum`` and ``cumprod``; differences and statistics
(``diff``, ``average``, ``cov``, ``corrcoef``). Each is declared once in the op table (NumPy
function and ``ndarray`` method) with NumPy's dtypes, NaN rules and errors."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import reduce as _fold
from typing import Any, Callable

import numpy as np

from . import contractions, creation, elementwise, indexing, lowering, registry, shapes
from . import dtypes as D
from .dtypes import DType
from .errors import trace_error, unsupported
from .lowering import emit_elementwise
from .mlir_text import Block, affine_map, tensor_type
from .registry import op
from .traced_array import SymbolicDim, TracedArray

__all__ = [
    "argmax",
    "argmin",
    "check_reduced_extent",
    "cumprod",
    "cumsum",
    "normalize_reduction_axes",
    "reduce",
    "scan",
    "std",
    "var",
]


def normalize_reduction_axes(axis: Any, rank: int, opname: str) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence of ints) as sorted non-negative axes of a rank-``rank``
    array, with NumPy's errors for out-of-range and repeated axes."""
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
        if rank == 0 and a in (0, -1):
            continue  # NumPy's reductions take a 0-d array as one element along axis 0
        if not -rank <= a < rank:
            raise trace_error(f"{opname}: axis {a} is out of bounds for array of dimension {rank}",
                              np.exceptions.AxisError)
        a = a % rank
        if a in out:
            raise trace_error(f"{opname}: duplicate value in 'axis'", ValueError)
        out.append(a)
    return tuple(sorted(out))


def check_reduced_extent(x: TracedArray, axes: Sequence[int], ufunc: str, text: str | None = None) -> None:
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
    message = lowering.message_literal(text or f"zero-size array to reduction operation {ufunc} which has no identity")
    ctx.top.raw(f'dlpack.assert {ok}, invalid_argument, "{message}"')


_UFUNC_OF = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum", "mean": "add",
             "any": "logical_or", "all": "logical_and"}


def _masked(kind: str, x: TracedArray, where: Any, initial: Any) -> TracedArray:
    """``x`` with the elements ``where`` leaves out replaced by the reduction's identity (by
    ``initial`` for ``max``/``min``, which have none), broadcast to ``where``'s shape."""
    ctx = x.context
    mask = creation.array_operand(ctx, where, f"numpy.{kind} where") if isinstance(where, (list, tuple)) \
        else lowering.lift(ctx, where, f"numpy.{kind} where")
    if isinstance(mask, TracedArray) and not mask.element_type.is_bool:
        mask = elementwise.astype(mask, "bool")
    elif isinstance(mask, (bool, np.bool_)) or not isinstance(mask, TracedArray):
        mask = bool(mask)
    if kind in ("max", "min"):
        if initial is None:
            raise trace_error(f"reduction operation '{_UFUNC_OF[kind]}' does not have an identity, so to use a "
                              "where mask one has to specify 'initial'", ValueError)
        fill: Any = initial
    else:
        fill = {"sum": 0, "mean": 0, "prod": 1, "any": False, "all": True}[kind]
    if mask is True:
        return x
    filler = creation.full([], fill, dtype=x.element_type.name)
    return elementwise.where(mask, x, filler)


def reduce(kind: str, x: Any, *, axis: Any = None, keepdims: bool = False, dtype: Any = None,
           initial: Any = None, where: Any = True) -> TracedArray:
    """``sum``, ``prod``, ``max``, ``min``, ``mean``, ``any`` or ``all`` over ``axis`` (int, tuple
    or None), starting from ``initial`` (NumPy's start value; ``max``/``min`` of an empty axis
    need it) over the elements ``where`` selects (broadcast against ``x``)."""
    ctx = lowering.context_of(x, where if isinstance(where, TracedArray) else None)
    x = lowering.lift(ctx, x, kind)
    x = lowering.to_tensor(ctx, x)
    if initial is not None and kind in ("mean", "any", "all"):
        raise trace_error(f"{kind}() got an unexpected keyword argument 'initial'", TypeError)
    if isinstance(initial, TracedArray):
        raise unsupported(f"numpy.{kind}", "an initial= value that is not known while tracing")
    if where is not True:
        if kind == "mean":
            total = reduce("sum", _masked("sum", x, where, None), axis=axis, keepdims=keepdims,
                           dtype=dtype if dtype is not None else (None if x.element_type.is_inexact else "float64"))
            flags = _masked("sum", creation.ones(x.shape, dtype="int64"), where, None)
            count = reduce("sum", flags, axis=axis, keepdims=keepdims)
            res = elementwise.binary("divide", total, count)
            want = D.dtype(dtype) if dtype is not None else (x.element_type if x.element_type.is_inexact else D.FLOAT64)
            return elementwise.astype(res, want.name) if res.element_type != want else res
        x = lowering.to_tensor(ctx, _masked(kind, x, where, initial))
    in_dt = x.element_type
    R = x.ndim
    axes = normalize_reduction_axes(axis, R, kind)
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
        acc = res_dt = in_dt
    elif kind in ("any", "all"):
        acc = res_dt = D.BOOL
    else:  # pragma: no cover
        raise unsupported(kind)

    ctx.begin_op()
    if kind in ("max", "min") and initial is None:
        check_reduced_extent(x, axes, "maximum" if kind == "max" else "minimum")
    kept = [i for i in range(R) if i not in axes]
    out_dims = [x.dims[i] for i in kept]
    sizes = [ctx.dim(x, i) if x.dims[i] is None else None for i in kept]
    init_empty = lowering.empty(ctx, out_dims, acc, sizes)
    out_type = tensor_type(out_dims, acc)
    if kind in ("sum", "mean"):
        ident: Any = 0
    elif kind in ("prod", "all"):
        ident = 1
    elif kind == "any":
        ident = 0
    elif acc.is_complex:  # the least or greatest in NumPy's lexicographic order
        ident = complex(-float("inf"), -float("inf")) if kind == "max" else complex(float("inf"), float("inf"))
    elif kind == "max":
        ident = -float("inf") if acc.is_float else (False if acc.is_bool else D.int_range(acc)[0])
    else:
        ident = float("inf") if acc.is_float else (True if acc.is_bool else D.int_range(acc)[1])
    if initial is not None:
        iv = lowering.py_const(ctx.top, np.asarray(initial).astype(acc.name).item(), acc)
    else:
        iv = lowering.py_const(ctx.top, ident, acc)
    init = ctx.top.op("init", f"linalg.fill ins({iv} : {acc.mlir}) outs({init_empty} : {out_type}) -> {out_type}")
    combine = {
        "sum": lowering.scalar_add, "mean": lowering.scalar_add, "prod": lowering.scalar_mul,
        "max": lowering.scalar_max, "min": lowering.scalar_min,
        "any": lambda b, x, y, dt: lowering.arith(b, "ori", x, y, dt, "any"),
        "all": lambda b, x, y, dt: lowering.arith(b, "andi", x, y, dt, "all"),
    }[kind]
    if kind in ("max", "min") and acc.is_complex:
        extreme = "maximum" if kind == "max" else "minimum"
        combine = lambda b, x, y, dt: elementwise.complex_extreme(b, extreme, x, y, dt)  # noqa: E731

    def body(blk: Block, in_args: list[str], out: str) -> str:
        v = lowering.convert(blk, in_args[0], in_dt, acc)
        if kind in ("sum", "mean") and acc.is_float:
            # Reassociable, as NumPy's pairwise summation is: LLVM may then
            # vectorise the accumulation instead of chaining one add per element.
            return blk.op("add", f"arith.addf {out}, {v} fastmath<reassoc> : {acc.mlir}")
        return combine(blk, out, v, acc)

    res = lowering.emit_generic(
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
        nf = lowering.convert(ctx.top, n64, D.INT64, acc)
        cnt = TracedArray(ctx, nf, acc, (), is_scalar=True)
        out = emit_elementwise(ctx, "mean", [(out, acc), (cnt, acc)], res_dt,
                     lambda b, v: lowering.convert(b, lowering.scalar_div(b, v[0], v[1], acc), acc, res_dt))
    if keepdims:
        out = lowering.expand_units(ctx, out, list(axes))
    return out


def _reduction(kind: str, has_dtype: bool, numpy_names: tuple[str, ...]) -> None:
    def impl(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        names = (["dtype"] if has_dtype else []) + ["out", "keepdims"]
        names += ["initial", "where"] if kind != "mean" else []
        for k, v in zip(names, args):
            kwargs[k] = v
        lowering.no_out(kwargs.pop("out", None), f"numpy.{kind}")
        keepdims = kwargs.pop("keepdims", False)
        dtype = kwargs.pop("dtype", None)
        where = kwargs.pop("where", True)
        initial = kwargs.pop("initial", None) if kind != "mean" else None
        for k, v in kwargs.items():
            raise unsupported(f"numpy.{kind}", f"argument {k}={v!r}")
        return reduce(kind, a, axis=axis, keepdims=bool(keepdims), dtype=dtype, initial=_given(initial),
                      where=where)

    impl.__name__ = impl.__qualname__ = kind
    impl.__doc__ = f"``{kind}`` over ``axis`` (int, tuple or None = all)."
    op(kind, numpy=numpy_names, method=kind)(impl)


def _given(initial: Any) -> Any:
    """``initial``, None when left out (NumPy's ``np._NoValue``)."""
    return None if initial is np._NoValue else initial


_reduction("sum", True, ("sum",))
_reduction("mean", True, ("mean",))
_reduction("max", False, ("max", "amax"))
_reduction("min", False, ("min", "amin"))


def _array(a: Any, name: str) -> TracedArray:
    ctx = lowering.context_of(a)
    return lowering.to_tensor(ctx, lowering.lift(ctx, a, name))


def _no_where(where: Any, name: str) -> None:
    if where is not True:
        raise unsupported(f"numpy.{name}", "where= is not supported")


@op("prod", method="prod")
def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
         initial: Any = None, where: Any = True) -> TracedArray:
    """The product of the elements over ``axis`` (integers accumulate in int64, as NumPy)."""
    lowering.no_out(out, "numpy.prod")
    return reduce("prod", a, axis=axis, keepdims=keepdims, dtype=dtype, initial=_given(initial), where=where)


@op("any", method="any")
def any_(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *, where: Any = True) -> TracedArray:
    """Whether any element over ``axis`` is true (nonzero; NaN is true)."""
    lowering.no_out(out, "numpy.any")
    return reduce("any", a, axis=axis, keepdims=keepdims, where=where)


@op("all", method="all")
def all_(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *, where: Any = True) -> TracedArray:
    """Whether every element over ``axis`` is true (nonzero; NaN is true)."""
    lowering.no_out(out, "numpy.all")
    return reduce("all", a, axis=axis, keepdims=keepdims, where=where)


@op("count_nonzero")
def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> TracedArray:
    """How many elements over ``axis`` are non-zero (``int64``; NaN counts)."""
    ctx = lowering.context_of(a)
    a = lowering.lift(ctx, a, "numpy.count_nonzero")
    flags = a if isinstance(a, TracedArray) and a.element_type.is_bool else elementwise.binary("not_equal", a, 0)
    return reduce("sum", flags, axis=axis, keepdims=keepdims, dtype="int64")


def _count(x: TracedArray, axis: Any) -> Any:
    """The number of elements reduced over ``axis``: an int or a SymbolicDim."""
    axes = normalize_reduction_axes(axis, x.ndim, "var")
    n: Any = 1
    for k in axes:
        d = x.shape[k]
        n = d * n if not isinstance(n, int) or not isinstance(d, int) else n * d
    return n


@op("var", method="var")
def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
        keepdims: bool = False, *, where: Any = True, mean: Any = None, correction: Any = None) -> TracedArray:
    """The variance over ``axis``: ``sum(|x - x.mean()|**2) / (n - ddof)``."""
    lowering.no_out(out, "numpy.var")
    _no_where(where, "var")
    if mean is not None:
        raise unsupported("numpy.var", "mean= is not supported")
    if correction is not None:
        ddof = correction
    x = _array(a, "var")
    m = reduce("mean", x, axis=axis, keepdims=True, dtype=dtype)
    d = elementwise.binary("subtract", x if dtype is None else elementwise.astype(x, dtype), m)
    sq = elementwise.binary("multiply", d, d) if not d._dtype.is_complex else elementwise.binary(
        "multiply", elementwise.unary("absolute", d), elementwise.unary("absolute", d))
    total = reduce("sum", sq, axis=axis, keepdims=keepdims)
    return elementwise.binary("divide", total, _count(x, axis) - ddof)


@op("std", method="std")
def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
        keepdims: bool = False, *, where: Any = True, mean: Any = None, correction: Any = None) -> TracedArray:
    """The standard deviation over ``axis``: ``sqrt(var)``."""
    return elementwise.unary("sqrt", var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                                 correction=correction))


def _arg_reduce(a: Any, axis: Any, keepdims: bool, out: Any, largest: bool) -> TracedArray:
    """``argmax``/``argmin``: the first index of the extreme (of the first NaN, as NumPy), found
    by one reduction carrying (value, index) whose choice does not depend on the visiting order."""
    name = "argmax" if largest else "argmin"
    lowering.no_out(out, f"numpy.{name}")
    x = _array(a, name)
    ctx = x._ctx
    if axis is None:
        flat = shapes.reshape(x, -1) if x.ndim != 1 else x
        r = _arg_reduce(flat, 0, False, None, largest)
        return lowering.expand_units(ctx, r, list(range(x.ndim))) if keepdims else r
    (ax,) = normalize_reduction_axes(axis, x.ndim, name)
    ctx.begin_op()
    empty = f"attempt to get {name} of an empty sequence"
    if x._dims[ax] == 0:
        raise ValueError(empty)
    check_reduced_extent(x, [ax], name, empty)
    dt = x._dtype
    kept = [k for k in range(x.ndim) if k != ax]
    dims = [x._dims[k] for k in kept]
    sizes = [ctx.dim(x, k) if x._dims[k] is None else None for k in kept]
    val_ty, idx_ty = tensor_type(dims, dt), tensor_type(dims, D.INT64)
    if dt.is_complex:  # NumPy's lexicographic order
        worst: Any = complex(-np.inf, -np.inf) if largest else complex(np.inf, np.inf)
    elif dt.is_float:
        worst = -np.inf if largest else np.inf
    elif dt.is_bool:
        worst = not largest
    else:
        lo, hi = D.int_range(dt)
        worst = lo if largest else hi
    v0 = lowering.py_const(ctx.top, worst, dt)
    i0 = ctx.top.const(np.iinfo(np.int64).max, "i64")
    val_empty = lowering.empty(ctx, dims, dt, sizes)
    val_init = ctx.top.op("best", f"linalg.fill ins({v0} : {dt.mlir}) outs({val_empty} : {val_ty}) -> {val_ty}")
    idx_empty = lowering.empty(ctx, dims, D.INT64, sizes)
    idx_init = ctx.top.op("at", f"linalg.fill ins({i0} : i64) outs({idx_empty} : {idx_ty}) -> {idx_ty}")
    blk = Block(ctx.names, indent=3)
    v, best, at = ("%" + ctx.names.fresh(h) for h in ("v", "best", "at"))
    i = blk.op("i", f"linalg.index {ax} : index")
    i64 = blk.op("i", f"arith.index_cast {i} : index to i64")
    earlier = blk.op("earlier", f"arith.cmpi slt, {i64}, {at} : i64")
    pred = "gt" if largest else "lt"
    better = elementwise.compare_scalars(blk, pred, v, best, dt)
    tie = elementwise.compare_scalars(blk, "eq", v, best, dt)
    take = blk.op("take", f"arith.ori {better}, {blk.op('tie', f'arith.andi {tie}, {earlier} : i1')} : i1")
    if dt.is_float or dt.is_complex:
        v_nan, best_nan = (elementwise.isnan_scalar(blk, u, dt) for u in (v, best))
        first_nan = blk.op("nan", f"arith.andi {v_nan}, {earlier} : i1")
        nan_take = blk.op("nan", f"arith.select {best_nan}, {first_nan}, {v_nan} : i1")
        any_nan = blk.op("nan", f"arith.ori {v_nan}, {best_nan} : i1")
        take = blk.op("take", f"arith.select {any_nan}, {nan_take}, {take} : i1")
    new_v = lowering.select(blk, take, v, best, dt)
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
    return lowering.expand_units(ctx, r, [ax]) if keepdims else r


@op("argmax", method="argmax")
def argmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> TracedArray:
    """The index of the first largest element over ``axis`` (flattened when None)."""
    return _arg_reduce(a, axis, keepdims, out, True)


@op("argmin", method="argmin")
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
        return lowering.py_const(b, 0, dt)
    return lowering.py_const(b, 1, dt)


def scan(a: Any, axis: Any, dtype: Any, out: Any, name: str, combine: Combine,
          acc: D.DType | None = None) -> TracedArray:
    """``cumsum``/``cumprod`` in the accumulation dtype NumPy uses (int64 for small integers and
    bools), as one pass over the data: an ``scf.forall`` over every index but ``axis`` whose body
    walks ``axis`` with an ``scf.for`` carrying the running value, each element converted and
    combined in the order NumPy uses. The pipelines run the forall in parallel (OpenMP threads on
    the CPU, GPU threads or a block per row on CUDA)."""
    lowering.no_out(out, f"numpy.{name}")
    x = _array(a, name)
    ctx = x._ctx
    if acc is not None:
        pass
    elif dtype is not None:
        acc = D.dtype(dtype)
    elif x._dtype.is_bool or x._dtype.is_signed:
        acc = D.INT64
    elif x._dtype.is_unsigned:
        acc = D.UINT64
    else:
        acc = x._dtype
    if axis is None and x.ndim >= 2:
        ctx.begin_op()
        return lowering.collapse_units(ctx, _scan_along(ctx, _one_row(ctx, x), 1, acc, combine), [0])
    if axis is None:
        x = shapes.reshape(x, -1) if x.ndim != 1 else x
        axis = 0
    (ax,) = normalize_reduction_axes(axis, x.ndim, name)
    ctx.begin_op()
    if x.ndim == 1:
        # A row of one: the forall always has a dimension to run over.
        return lowering.collapse_units(ctx, _scan_along(ctx, lowering.expand_units(ctx, x, [0]), 1, acc, combine), [0])
    return _scan_along(ctx, x, ax, acc, combine)


def _one_row(ctx: Any, x: TracedArray) -> TracedArray:
    """``x`` flattened in C order into an array of one row (``tensor.collapse_shape``, a view
    where the layout allows one, a copy where bufferization must make one)."""
    e = lowering.expand_units(ctx, x, [0])
    n: int | None = 1
    for d in x._dims:
        n = None if n is None or d is None else n * d
    dims = [1, n]
    ty = tensor_type(dims, x._dtype)
    groups = ", ".join(str(k) for k in range(1, x.ndim + 1))
    v = ctx.top.op("flat", f"tensor.collapse_shape {e._value} [[0], [{groups}]] : {e.mlir_type} into {ty}")
    return TracedArray(ctx, v, x._dtype, dims, alias=x.may_alias_argument)


#: How a scan combines its running value with the next element: ``"add"``, ``"multiply"``, or
#: ``step(block, running, element)`` giving the next running value (a ufunc's ``accumulate``),
#: where the first element starts the run.
Combine = str | Callable[[Block, str, str], str]


def _scan_along(ctx: Any, x: TracedArray, ax: int, acc: D.DType, combine: Combine) -> TracedArray:
    """The scan of ``x`` (rank >= 2) along ``ax`` into a new array of ``acc``."""
    R = x.ndim
    kept = [k for k in range(R) if k != ax]
    sizes = [ctx.dim(x, k) if x._dims[k] is None else None for k in range(R)]
    ty = tensor_type(x._dims, acc)
    row_ty = tensor_type([x._dims[ax]], acc)
    top = ctx.top
    init = lowering.empty(ctx, x._dims, acc, sizes)
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
    start = _scan_identity(body, combine, acc) if isinstance(combine, str) else lowering.py_const(body, 0, acc)
    walked = "%" + ctx.names.fresh("walked")
    step = Block(ctx.names, indent=body.indent + 1)
    index = ", ".join(where.get(d, k) for d in range(R))
    v = step.op("x", f"tensor.extract {x._value}[{index}] : {x.mlir_type}")
    v = lowering.convert(step, v, x._dtype, acc)
    if isinstance(combine, str):
        new = (lowering.scalar_add if combine == "add" else lowering.scalar_mul)(step, run, v, acc)
    else:
        first = step.op("first", f"arith.cmpi eq, {k}, {c0} : index")
        new = lowering.select(step, first, v, combine(step, run, v), acc)
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


def _name_of(combine: Combine) -> str:
    """The SSA name hint of a scan's result."""
    return "cumsum" if combine == "add" else "cumprod" if combine == "multiply" else "accumulate"


@op("cumsum", method="cumsum")
def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> TracedArray:
    """The running sums along ``axis`` (flattened when None)."""
    return scan(a, axis, dtype, out, "cumsum", "add")


@op("cumprod", method="cumprod")
def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> TracedArray:
    """The running products along ``axis`` (flattened when None)."""
    return scan(a, axis, dtype, out, "cumprod", "multiply")


@op("norm", numpy=("norm",))
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> TracedArray:  # noqa: A002
    """``numpy.linalg.norm``: the 2-norm (Frobenius for matrices) by default; vector norms of
    any order over an int ``axis`` or of a 1-D array."""
    a = _array(x, "norm")
    vector = a.ndim == 1 or isinstance(axis, int) or (isinstance(axis, tuple) and len(axis) == 1)
    if ord is not None and not vector and ord != "fro":
        raise unsupported("numpy.linalg.norm", f"the matrix norm ord={ord!r} (only 'fro')")
    mag = elementwise.unary("absolute", a)
    if not mag._dtype.is_inexact:
        mag = elementwise.astype(mag, "float64")
    if ord is None or ord == "fro" or ord == 2:
        return elementwise.unary("sqrt", reduce("sum", elementwise.binary("multiply", mag, mag), axis=axis,
                                                keepdims=keepdims))
    if ord == np.inf:
        return reduce("max", mag, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return reduce("min", mag, axis=axis, keepdims=keepdims)
    if ord == 0:
        nonzero = elementwise.astype(elementwise.binary("not_equal", mag, 0), mag._dtype.name)
        return reduce("sum", nonzero, axis=axis, keepdims=keepdims)
    if ord == 1:
        return reduce("sum", mag, axis=axis, keepdims=keepdims)
    p = float(ord)
    total = reduce("sum", elementwise.binary("power", mag, p), axis=axis, keepdims=keepdims)
    return elementwise.binary("power", total, 1.0 / p)


# --------------------------------------------------------------------------------------------------
# differences and statistics


class _NotGiven:
    """An argument left out (NumPy's ``np._NoValue``)."""


_NOT_GIVEN = _NotGiven()


def _along(x: TracedArray, axis: int, part: slice) -> TracedArray:
    return indexing.getitem(x, tuple(part if k == axis else slice(None) for k in range(x.ndim)))


def _edge(ctx: Any, x: TracedArray, value: Any, axis: int, name: str) -> TracedArray:
    """``prepend``/``append`` of ``diff``: an array of ``x``'s shape with ``axis`` of size 1 when
    ``value`` is a scalar (NumPy's ``broadcast_to``), else ``value`` itself."""
    v = creation.array_operand(ctx, value, name)
    if v.ndim == 0:
        dims = [1 if k == axis else d for k, d in enumerate(x._dims)]
        sizes = [ctx.dim(x, k) if d is None else None for k, d in enumerate(dims)]
        v = creation.broadcast_to(lowering.expand_units(ctx, v, list(range(x.ndim))), dims, sizes)
    return v


@op("diff")
def diff(a: Any, n: Any = 1, axis: Any = -1, prepend: Any = _NOT_GIVEN, append: Any = _NOT_GIVEN) -> TracedArray:
    """The ``n``-th differences along ``axis`` (``a[1:] - a[:-1]``; ``!=`` for bools), with
    ``prepend``/``append`` joined to ``a`` first."""
    x = _array(a, "diff")
    ctx = x._ctx
    if isinstance(n, (TracedArray, SymbolicDim)):
        raise unsupported("numpy.diff", "an order n that is not known while tracing")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise trace_error(f"numpy.diff: '{type(n).__name__}' object cannot be interpreted as an integer", TypeError)
    n = int(n)
    if n < 0:
        raise trace_error(f"order must be non-negative but got {n}", ValueError)
    if x.ndim == 0:
        raise trace_error("diff requires input that is at least one dimensional", ValueError)
    (ax,) = indexing.normalize_axes(axis, x.ndim, "numpy.diff", allow_none=False)
    if n == 0:
        return x
    parts = []
    if prepend is not _NOT_GIVEN:
        parts.append(_edge(ctx, x, prepend, ax, "numpy.diff prepend"))
    parts.append(x)
    if append is not _NOT_GIVEN:
        parts.append(_edge(ctx, x, append, ax, "numpy.diff append"))
    if len(parts) > 1:
        x = creation.concatenate(parts, axis=ax)
    for _ in range(n):
        later, earlier = _along(x, ax, slice(1, None)), _along(x, ax, slice(None, -1))
        x = elementwise.binary("not_equal" if x._dtype.is_bool else "subtract", later, earlier)
    return x


def _weights_dtype(x: TracedArray, w: TracedArray) -> D.DType:
    """NumPy's ``average`` dtype: the promotion of the data and the weights, at least float64
    for integer and bool data."""
    dt = D.result_type(x._dtype, w._dtype)
    return D.result_type(dt, D.FLOAT64) if not x._dtype.is_inexact else dt


@op("average")
def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: Any = _NOT_GIVEN) -> Any:
    """The (weighted) mean over ``axis``; with ``returned`` also the sum of the weights (the
    count without weights), broadcast to the result's shape."""
    x = _array(a, "average")
    ctx = x._ctx
    keep = False if keepdims is _NOT_GIVEN else bool(keepdims)
    axes = indexing.normalize_axes(axis, x.ndim, "numpy.average")
    if weights is None:
        avg = reduce("mean", x, axis=axes, keepdims=keep)
        if not returned:
            return avg
        count = _count(x, axes)
        scale = creation.full([d for d in avg.shape], count, dtype=avg._dtype)
        return avg, scale
    w = creation.array_operand(ctx, weights, "numpy.average weights")
    dt = _weights_dtype(x, w)
    if w.ndim != x.ndim or any((d == 1) != (e == 1) for d, e in zip(w._dims, x._dims)):
        if axis is None:
            raise trace_error("Axis must be specified when shapes of a and weights differ.", TypeError)
        given = [int(k) % x.ndim for k in (axis if isinstance(axis, (tuple, list)) else [axis])]
        if w.ndim != len(given) or any((w._dims[i] == 1) != (x._dims[k] == 1) or (
                w._dims[i] is not None and x._dims[k] is not None and w._dims[i] != x._dims[k])
                for i, k in enumerate(given)):
            raise trace_error("Shape of weights must be consistent with shape of a along specified axis.",
                              ValueError)
        order = sorted(range(len(given)), key=given.__getitem__)
        w = shapes.transpose(w, tuple(order)) if order != list(range(len(order))) else w
        w = lowering.expand_units(ctx, w, [k for k in range(x.ndim) if k not in given])
    scl = reduce("sum", elementwise.astype(w, dt), axis=axes, keepdims=keep, dtype=dt)
    # The check reads the sums on the host (on CUDA, copied back from the device).
    nonzero = reduce("all", elementwise.binary("not_equal", scl, 0), axis=None)
    ctx.begin_op()
    ok = ctx.top.op("weights_ok", f"tensor.extract {nonzero._value}[] : {nonzero.mlir_type}") \
        if not nonzero._is_scalar else nonzero._value
    ctx.top.raw(f'dlpack.assert {ok}, invalid_argument, "Weights sum to zero, can\'t be normalized"')
    product = elementwise.binary("multiply", elementwise.astype(x, dt), elementwise.astype(w, dt))
    avg = elementwise.binary("divide", reduce("sum", product, axis=axes, keepdims=keep, dtype=dt), scl)
    if not returned:
        return avg
    if scl.ndim != avg.ndim or scl._dims != avg._dims:
        scl = elementwise.binary("add", creation.zeros([d for d in avg.shape], dtype=scl._dtype), scl)
    return avg, scl


def _as_rows(ctx: Any, m: Any, rowvar: bool, dt: D.DType, name: str) -> TracedArray:
    """``np.array(m, ndmin=2, dtype=dt)``, transposed when ``rowvar`` is false (variables in
    columns) and it has more than one row."""
    x = creation.array_operand(ctx, m, name)
    if x.ndim > 2:
        raise trace_error(f"{name}: m has more than 2 dimensions", ValueError)
    x = elementwise.astype(x, dt) if x._dtype != dt else x
    if x.ndim < 2:
        x = lowering.expand_units(ctx, x, list(range(2 - x.ndim)))
    if not rowvar and x._dims[0] != 1:
        x = shapes.transpose(x, (1, 0))
    return x


@op("cov")
def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> TracedArray:
    """The covariance matrix of the variables in the rows (``rowvar``) or columns of ``m`` (and
    ``y``), normalised by ``N - ddof`` (``ddof`` 1, or 0 with ``bias``)."""
    if fweights is not None or aweights is not None:
        raise unsupported("numpy.cov", "fweights= and aweights=")
    ctx = lowering.context_of(*(v for v in (m, y) if isinstance(v, TracedArray)))
    xm = creation.array_operand(ctx, m, "numpy.cov")
    ys = creation.array_operand(ctx, y, "numpy.cov") if y is not None else None
    if dtype is not None:
        dt = D.dtype(dtype)
    else:
        dt = D.result_type(xm._dtype, D.FLOAT64)
        if ys is not None:
            dt = D.result_type(dt, ys._dtype)
    if xm.ndim > 2 or (ys is not None and ys.ndim > 2):
        raise trace_error(f"{'m' if xm.ndim > 2 else 'y'} has more than 2 dimensions", ValueError)
    x = _as_rows(ctx, xm, rowvar or xm.ndim == 1, dt, "numpy.cov")
    if ys is not None:
        x = creation.concatenate([x, _as_rows(ctx, ys, rowvar, dt, "numpy.cov")], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    if isinstance(ddof, (TracedArray, SymbolicDim)):
        raise unsupported("numpy.cov", "a ddof that is not known while tracing")
    if dt.is_complex:
        mean = elementwise.binary("divide", reduce("sum", x, axis=1, keepdims=True), x.shape[1])
    else:
        mean = reduce("mean", x, axis=1, keepdims=True)
    centred = elementwise.binary("subtract", x, mean)
    product = contractions.matmul(centred, shapes.transpose(_conj(centred), (1, 0)))
    fact = x.shape[1] - int(ddof)
    # NumPy divides by 0 (infinities and NaNs, with a warning) when there are no more samples than ddof
    fact_v = elementwise.binary("maximum", fact.as_array() if isinstance(fact, SymbolicDim) else fact, 0)
    c = elementwise.binary("multiply", product, elementwise.binary("divide", 1, elementwise.astype(fact_v,
                                                                                                   dt.component.name)))
    units = [k for k in range(2) if c._dims[k] == 1]
    return lowering.collapse_units(ctx, c, units)


def _conj(x: TracedArray) -> TracedArray:
    return registry.lookup("conjugate").impl(x) if x._dtype.is_complex else x  # type: ignore[union-attr, no-any-return]


def _diagonal(c: TracedArray) -> TracedArray:
    """The diagonal of the square matrix ``c``: one ``linalg.generic`` reading ``c[i, i]``."""
    ctx = c._ctx
    ctx.begin_op()
    dims = [c._dims[0]]
    sizes = [ctx.dim(c, 0) if c._dims[0] is None else None]
    init = lowering.empty(ctx, dims, c._dtype, sizes)
    value = lowering.emit_generic(ctx, "diagonal", [c], [affine_map(1, ["d0", "d0"])], init,
                              tensor_type(dims, c._dtype), c._dtype, affine_map(1, ["d0"]), ["parallel"],
                              lambda b, ins, out: ins[0])
    return TracedArray(ctx, value, c._dtype, dims, sizes=sizes)


@op("corrcoef")
def corrcoef(x: Any, y: Any = None, rowvar: bool = True, bias: Any = _NOT_GIVEN, ddof: Any = _NOT_GIVEN, *,
             dtype: Any = None) -> TracedArray:
    """The correlation coefficients ``cov[i, j] / sqrt(cov[i, i] * cov[j, j])``, clipped to
    [-1, 1] (their real and imaginary parts for complex data)."""
    c = cov(x, y, rowvar, dtype=dtype)
    ctx = c._ctx
    if c.ndim == 0:
        return elementwise.binary("divide", c, c)
    d = _diagonal(c)
    std = elementwise.unary("sqrt", registry.lookup("real").impl(d))  # type: ignore[union-attr]
    c = elementwise.binary("divide", c, lowering.expand_units(ctx, std, [1]))
    c = elementwise.binary("divide", c, lowering.expand_units(ctx, std, [0]))
    if not c._dtype.is_complex:
        return elementwise.binary("minimum", elementwise.binary("maximum", c, -1), 1)
    re = elementwise.binary("minimum", elementwise.binary("maximum", registry.lookup("real").impl(c), -1), 1)  # type: ignore[union-attr]
    im = elementwise.binary("minimum", elementwise.binary("maximum", registry.lookup("imag").impl(c), -1), 1)  # type: ignore[union-attr]
    return elementwise.binary("add", re, elementwise.binary("multiply", im, 1j))
