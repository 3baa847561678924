"""NumPy protocol hooks: ``np.exp(x)``, ``np.where(c, x, y)``, ``np.sum(x, axis=1)``... on traced
arrays run the operation the op table declares for that NumPy name, and the ufunc methods
``outer``, ``accumulate`` and ``reduce`` run the table's binary ufuncs; anything else raises a
TraceError naming the NumPy function and the user's line."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import creation, elementwise, inplace, lowering, reductions, registry
from . import dtypes as D
from .errors import trace_error, unsupported
from .mlir_text import Block, affine_map, tensor_type
from .registry import OpDef
from .traced_array import TracedArray

__all__ = ["array_function", "array_ufunc"]

#: ``ufunc.reduce`` → the reduction it is.
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}


def array_ufunc(ufunc: Any, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Implementation of ``TracedArray.__array_ufunc__``."""
    name = getattr(ufunc, "__name__", str(ufunc))
    qual = f"numpy.{name}" if name != "erf" else "erf"
    out = kwargs.pop("out", None)
    nout = getattr(ufunc, "nout", 1)
    outs: tuple[Any, ...] = out if isinstance(out, tuple) else (out,) * nout if out is None else (out,)
    if len(outs) != nout:
        if nout == 1:
            raise unsupported(qual, f"out= with {len(outs)} arrays")
        raise trace_error(f"{qual}: The 'out' tuple must have exactly one entry per ufunc output", ValueError)
    out = outs[0] if nout == 1 else (None if all(o is None for o in outs) else outs)
    if out is not None and method != "__call__":
        raise unsupported(f"{qual}.{method}", "out= is not supported")
    if method == "outer":
        return _outer(ufunc, qual, inputs, kwargs)
    if method == "accumulate":
        return _accumulate(ufunc, qual, inputs, kwargs)
    if method == "at":
        return _at(ufunc, qual, inputs, kwargs)
    if method == "reduce" and name not in _REDUCE:
        return _reduce(ufunc, qual, inputs, kwargs)
    if method == "reduce" and name in _REDUCE:
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        dtype = kwargs.pop("dtype", None)
        if kwargs:
            raise unsupported(f"{qual}.reduce", f"arguments {sorted(kwargs)}")
        with_dtype = name in ("add", "multiply")
        return reductions.reduce(_REDUCE[name], inputs[0], axis=axis, keepdims=keepdims,
                          dtype=dtype if with_dtype else None)
    if method != "__call__":
        raise unsupported(f"{qual}.{method}")
    dtype = kwargs.pop("dtype", None)
    casting = kwargs.pop("casting", "same_kind")
    if casting not in ("same_kind", "unsafe"):
        raise unsupported(qual, f"argument casting={casting!r}")
    for k, v in kwargs.items():
        if k == "where" and v is True:
            continue
        if k in ("order", "subok", "signature") and v in ("K", True, None):
            continue
        raise unsupported(qual, f"argument {k}={v!r}")
    declared = registry.lookup_numpy(name)
    if declared is None or declared.kind != "ufunc" or declared.arity != len(inputs):
        raise unsupported(qual)
    results = declared.impl(*inputs)
    if nout == 1:
        results = (results,)
    if dtype is not None:
        results = tuple(elementwise.astype(r, dtype) for r in results)
    results = tuple(r if o is None else inplace.assign(o, r, op=f"{qual}(out=...)", casting=casting, ufunc_name=name)
                    for r, o in zip(results, outs))
    return results if nout > 1 else results[0]


def array_function(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Implementation of ``TracedArray.__array_function__``."""
    mod = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", repr(func))
    declared = registry.lookup_numpy(name) if mod == "numpy" or mod.startswith("numpy.") else None
    if declared is None:
        raise unsupported(f"{mod}.{name}" if mod else name)
    return declared.impl(*args, **kwargs)


# --------------------------------------------------------------------------------------------------
# ufunc methods: outer, accumulate and the reductions beyond sum/prod/max/min


def _binary_ufunc(ufunc: Any, qual: str) -> OpDef:
    """The op table's entry of the binary ufunc ``ufunc``, or a TraceError."""
    declared = registry.lookup_numpy(getattr(ufunc, "__name__", ""))
    if declared is None or declared.kind != "ufunc" or declared.arity != 2:
        raise unsupported(qual)
    return declared


def _numpy_dtype(x: TracedArray, qual: str) -> Any:
    try:
        return np.dtype(x._dtype.name)
    except TypeError:
        raise unsupported(qual, f"not supported for {x._dtype.name}") from None


def _as_numpy_would(qual: str, run: Any) -> Any:
    """``run()`` (NumPy on a stand-in array, for the result dtype and NumPy's argument errors),
    with NumPy's errors raised at the user's line."""
    try:
        return run()
    except (TypeError, ValueError) as error:
        kind = np.exceptions.AxisError if isinstance(error, np.exceptions.AxisError) else type(error)
        raise trace_error(f"{qual}: {error}", kind) from None


def _scalar_step(declared: OpDef, ctx: Any, block: Block, a: str, b: str, dt: D.DType, out: D.DType) -> str:
    """The code of ``declared(a, b)`` on scalars ``a`` and ``b`` of ``dt`` emitted into ``block``
    (a loop or ``linalg.generic`` body), converted to ``out``."""
    outer = ctx.top
    ctx.top = block
    try:
        r = declared.impl(TracedArray(ctx, a, dt, (), is_scalar=True), TracedArray(ctx, b, dt, (), is_scalar=True))
        return lowering.convert(block, r._value, r._dtype, out)
    finally:
        ctx.top = outer


def _outer(ufunc: Any, qual: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc.outer(a, b)``: ``ufunc(a[..., None, ..., None], b)``, of shape ``a.shape + b.shape``."""
    declared = _binary_ufunc(ufunc, f"{qual}.outer")
    if len(inputs) != 2:
        raise trace_error(f"{qual}.outer: exactly two arguments expected", TypeError)
    dtype = kwargs.pop("dtype", None)
    if kwargs:
        raise unsupported(f"{qual}.outer", f"arguments {sorted(kwargs)}")
    ctx = lowering.context_of(*inputs)
    a, b = (creation.array_operand(ctx, v, f"{qual}.outer") if isinstance(v, (list, tuple))
            else lowering.lift(ctx, v, f"{qual}.outer") for v in inputs)
    a = lowering.to_tensor(ctx, a)
    b_ndim = b.ndim if isinstance(b, TracedArray) else 0
    if b_ndim:
        a = lowering.expand_units(ctx, a, list(range(a.ndim, a.ndim + b_ndim)))
    r = declared.impl(a, b)
    return r if dtype is None else elementwise.astype(r, dtype)


def _accumulate(ufunc: Any, qual: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc.accumulate(x, axis=0, dtype=None)``: one pass along ``axis`` (the scan of
    ``cumsum``) whose step is the ufunc, in the dtype NumPy gives."""
    declared = _binary_ufunc(ufunc, f"{qual}.accumulate")
    name = f"{qual}.accumulate"
    args = list(inputs[1:])
    axis = args.pop(0) if args else kwargs.pop("axis", 0)
    dtype = args.pop(0) if args else kwargs.pop("dtype", None)
    if args or kwargs:
        raise unsupported(name, f"arguments {sorted(kwargs)}" if kwargs else "out=")
    ctx = lowering.context_of(inputs[0])
    x = lowering.to_tensor(ctx, lowering.lift(ctx, inputs[0], name))
    np_dt = _numpy_dtype(x, name)
    stand_in = np.zeros((1,) * x.ndim, np_dt)
    want = _as_numpy_would(name, lambda: ufunc.accumulate(stand_in, axis=axis, dtype=dtype)).dtype
    if isinstance(axis, (tuple, list)) or axis is None:
        raise trace_error(f"{name}: axis must be an integer", TypeError)
    acc = D.dtype(want)
    if ufunc.__name__ == "power" and acc.is_int:
        raise unsupported(name, "integer powers (their negative exponent check runs per element)")
    if ufunc.__name__ in ("add", "multiply") and D.dtype(np.result_type(np_dt, want)) == acc:
        combine: reductions.Combine = ufunc.__name__
    else:
        def combine(block: Block, run: str, v: str) -> str:
            return _scalar_step(declared, ctx, block, run, v, acc, acc)
    return reductions.scan(x, int(axis), None, None, name, combine, acc)


def _identity(ufunc: Any, dt: D.DType) -> Any:
    """The value a reduction by ``ufunc`` starts from in ``dt``; None when it has none."""
    name = ufunc.__name__
    if name in ("fmax", "fmin"):
        return float("nan") if dt.is_float else None
    ident = ufunc.identity
    if ident is None:
        return None
    if ident == -1 and dt.is_unsigned:
        return D.int_range(dt)[1]
    return bool(ident) if dt.is_bool else ident


#: Reductions whose result does not depend on the order of the elements, which a reduction
#: over any axes (in parallel on the GPU) may take in any order.
_ORDER_FREE = {
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "fmax", "fmin",
}


def _reduce(ufunc: Any, qual: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc.reduce(x, axis=0, dtype=None, keepdims=False)`` for the order-free ufuncs beyond
    ``add``/``multiply``/``maximum``/``minimum``: one ``linalg.generic`` reduction whose body is
    the ufunc, from its identity, in the dtype NumPy gives."""
    name = f"{qual}.reduce"
    declared = _binary_ufunc(ufunc, name)
    if ufunc.__name__ not in _ORDER_FREE:
        raise unsupported(name, "the result depends on the order of the elements")
    args = list(inputs[1:])
    axis = args.pop(0) if args else kwargs.pop("axis", 0)
    dtype = args.pop(0) if args else kwargs.pop("dtype", None)
    keepdims = bool(kwargs.pop("keepdims", False))
    for k, v in kwargs.items():
        if not (k == "where" and v is True):
            raise unsupported(name, f"argument {k}={v!r}")
    if args:
        raise unsupported(name, "out=")
    ctx = lowering.context_of(inputs[0])
    x = lowering.to_tensor(ctx, lowering.lift(ctx, inputs[0], name))
    np_dt = _numpy_dtype(x, name)
    stand_in = np.zeros((1,) * x.ndim, np_dt)
    acc = D.dtype(_as_numpy_would(name, lambda: np.asarray(ufunc.reduce(stand_in, axis=axis, dtype=dtype))).dtype)
    axes = reductions.normalize_reduction_axes(axis, x.ndim,
                                               name) if x.ndim else ()  # NumPy reduces a 0-d array to itself
    ident = _identity(ufunc, acc)
    if ident is None:
        if any(x._dims[k] == 0 for k in axes):
            raise trace_error(f"zero-size array to reduction operation {ufunc.__name__} which has no identity",
                              ValueError)
        reductions.check_reduced_extent(x, axes, ufunc.__name__)
        ident = D.int_range(acc)[0] if ufunc.__name__ == "fmax" else D.int_range(acc)[1]
    ctx.begin_op()
    R = x.ndim
    kept = [k for k in range(R) if k not in axes]
    dims = [x._dims[k] for k in kept]
    sizes = [ctx.dim(x, k) if x._dims[k] is None else None for k in kept]
    out_type = tensor_type(dims, acc)
    init = ctx.top.op("init", f"linalg.fill ins({lowering.py_const(ctx.top, ident, acc)} : {acc.mlir}) "
                      f"outs({lowering.empty(ctx, dims, acc, sizes)} : {out_type}) -> {out_type}")

    def body(blk: Block, ins: list[str], out: str) -> str:
        v = lowering.convert(blk, ins[0], x._dtype, acc)
        return _scalar_step(declared, ctx, blk, out, v, acc, acc)

    res = lowering.emit_generic(
        ctx, ufunc.__name__, [x], [affine_map(R, [f"d{j}" for j in range(R)])], init, out_type, acc,
        affine_map(R, [f"d{j}" for j in kept]), ["reduction" if j in axes else "parallel" for j in range(R)], body)
    out = TracedArray(ctx, res, acc, dims, sizes=sizes)
    return lowering.expand_units(ctx, out, list(axes)) if keepdims else out


def _at(ufunc: Any, qual: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """``ufunc.at(a, indices, b=None)``: ``a[indices] = ufunc(a[indices], b)`` in place, each
    repeated index applied again (unbuffered, as NumPy's): a scatter whose step is the ufunc,
    computed in the dtype NumPy's loop takes and cast back unsafely, as NumPy's ``at`` does."""
    name = f"{qual}.at"
    if kwargs or len(inputs) not in (2, 3):
        raise trace_error(f"{name}: at() takes the array, the indices and, for a binary ufunc, the values",
                          TypeError)
    declared = registry.lookup_numpy(getattr(ufunc, "__name__", ""))
    if declared is None or declared.kind != "ufunc":
        raise unsupported(name)
    a, indices = inputs[0], inputs[1]
    if declared.arity != len(inputs) - 1:
        needed = "second operand needed for ufunc" if declared.arity == 2 else \
            "second operand provided when ufunc is unary"
        raise trace_error(f"{name}: {needed}", ValueError)
    if not isinstance(a, TracedArray) or a.is_scalar:
        raise unsupported(name, "the array to update is not an array of the traced function")
    ctx = a.context
    tdt = a.element_type
    values: Any = None
    if declared.arity == 2:
        given = inputs[2]
        values = lowering.to_tensor(ctx, creation.array_operand(ctx, given, name) if isinstance(given, (list, tuple))
                                    else lowering.lift(ctx, given, name))
        typed = declared.result(a, values if isinstance(given, (list, tuple)) else given)
    else:
        typed = declared.result(a)
    common = typed.common
    vdt = values.element_type if values is not None else tdt

    def combine(block: Block, old: str, v: str) -> str:
        outer = ctx.top
        ctx.top = block
        try:
            first = TracedArray(ctx, lowering.convert(block, old, tdt, common), common, (), is_scalar=True)
            if declared.arity == 1:
                r = declared.impl(first)
            else:
                second = TracedArray(ctx, lowering.convert(block, v, vdt, common), common, (), is_scalar=True)
                r = declared.impl(first, second)
            return lowering.convert(block, r.value, r.element_type, tdt)
        finally:
            ctx.top = outer

    inplace.scatter(a, indices, values, name, combine)
