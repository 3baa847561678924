"""In-place updates: ``x += y``, ``x[...] = v``, ``np.add(a, b, out=x)``, ``np.copyto(x, v)``.

NumPy updates the array object itself.  SSA values are immutable, so the tracer gives the
:class:`TracedArray` a new value instead: every Python name bound to that object sees the update, as
in NumPy.  An argument updated so becomes a written parameter of the entry (``trace`` declares it
as a memref and stores its final value into the caller's buffer).

Views are NumPy's: ``x[...]``, ``x[:]`` and transposes are views of ``x``; an update through one
updates ``x``, and a view taken before an update of ``x`` shows it.

A value read from the array being updated at other positions than those it replaces
(``x[:] = x[::-1]``, ``x[1:] += x[:-1]``) is staged through a temporary, as NumPy copies an
overlapping operand (``overlap``).

Updates the tracer cannot express raise a TraceError naming the operation and the user's line,
never drop the update: writing through a reshape (whether NumPy's reshape is a view depends on the
memory layout), indexed assignment other than the whole array (``x[0] = v``, ``x[::2] = v``),
``out=`` into something that is not a traced array.
"""

from __future__ import annotations

from typing import Any

from . import contractions, elementwise, indexing, lowering, overlap, shapes
from . import dtypes as D
from .errors import format_location, trace_error, unsupported, user_location
from .masked import MaskedSelection
from .mlir_text import Block, affine_map
from .registry import op
from .traced_array import TraceContext, TracedArray, public_type, sync_view

__all__ = ["assign", "ufunc", "setitem", "copyto"]

_AUGMENTED = {
    "add": "+=",
    "subtract": "-=",
    "multiply": "*=",
    "divide": "/=",
    "floor_divide": "//=",
    "remainder": "%=",
    "power": "**=",
    "bitwise_and": "&=",
    "bitwise_or": "|=",
    "bitwise_xor": "^=",
    "matmul": "@=",
}


def _shape(dims: tuple[int | None, ...]) -> str:
    inner = ", ".join("?" if d is None else str(d) for d in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"


def _check_target(target: TracedArray, op: str) -> None:
    """``target`` can be updated: an array, or a view that is a permutation of one (the update
    goes to that array, as in NumPy)."""
    if target._base is not None and target._perm is None and target._region is None:
        raise unsupported(
            op,
            f"writing through a view made by {target._view_op}: whether NumPy's {target._view_op} "
            "is a view depends on the array's memory layout; update the array itself",
        )


def _check_shape(target: TracedArray, value: Any, op: str, ufunc_output: bool) -> None:
    """NumPy's rule for storing ``value`` into ``target``: it broadcasts to ``target``'s shape."""
    if not lowering.is_tensor(value):
        return
    off = target.ndim - value.ndim
    # size-1 dims broadcast; a dim the specialisation knows to be 1 takes no other size at run
    # time; dynamic sizes must equal the other side's at run time
    fits = off >= 0 and all(
        v == 1 or (t != 1 and (t is None or v is None or t == v))
        for t, v in zip(target._dims[off:], value._dims)
    )
    if fits:
        return
    if ufunc_output:
        msg = (
            f"{op}: non-broadcastable output operand with shape {_shape(target._dims)} doesn't "
            f"match the broadcast shape {_shape(value._dims)}"
        )
    else:
        msg = (f"{op}: could not broadcast input array from shape {_shape(value._dims)} "
               f"into shape {_shape(target._dims)}")
    raise trace_error(msg, ValueError)


def _store(ctx: TraceContext, target: TracedArray, value: Any) -> str:
    """The new value of ``target``: ``value`` broadcast to its shape and converted to its dtype.

    One ``linalg.generic`` whose ``outs`` is ``target``'s current value (destination passing), so
    that its iteration space, and the run-time checks of the value's shape, are the target's."""
    ctx.begin_op()
    tdt = target._dtype
    ins: list[TracedArray] = []
    in_maps: list[str] = []
    if lowering.is_tensor(value):
        lowering.broadcast([target, value])  # the shape relation, as for any two operands
        ins.append(value)
        in_maps.append(lowering.broadcast_map(target.ndim, value._dims))
    else:
        scalar = lowering.scalar_value(ctx, value, tdt)

    def body(b: Block, args: list[str], _out: str) -> str:
        return lowering.convert(b, args[0], value._dtype, tdt) if ins else scalar

    R = target.ndim
    return lowering.emit_generic(
        ctx, "update", ins, in_maps, target._value, target.mlir_type, tdt,
        affine_map(R, [f"d{j}" for j in range(R)]), ["parallel"] * R, body,
    )


def assign(target: Any, value: Any, *, op: str, casting: str, ufunc_name: str | None = None) -> TracedArray:
    """Store ``value`` into ``target`` (broadcast to its shape, converted to its dtype under NumPy's
    ``casting`` rule: ``"same_kind"`` or ``"unsafe"``) and return ``target``.

    Raises:
        TraceError: ``target`` is not an array of this trace or is a reshape's view, or the cast
            is not allowed.
        ValueError: ``value`` does not broadcast to ``target``'s shape.
    """
    if not isinstance(target, TracedArray) or target._is_scalar:
        raise unsupported(op, f"the output is a {public_type(target)}, not an array of the traced function")
    ctx = lowering.context_of(target, value)
    _check_target(target, op)
    value = lowering.lift(ctx, value, op)
    tdt = target._dtype
    if casting == "same_kind":
        vdt = lowering.promote([value])[0]
        if not D.can_cast_same_kind(vdt, tdt):
            what = f"ufunc '{ufunc_name}' output" if ufunc_name else "array data"
            raise trace_error(
                f"{op}: Cannot cast {what} from dtype('{vdt.name}') to dtype('{tdt.name}') "
                "with casting rule 'same_kind'"
            )
    elif casting != "unsafe":
        raise unsupported(op, f"casting={casting!r}")
    _check_shape(target, value, op, ufunc_name is not None)
    sync_view(target)
    if isinstance(value, TracedArray) and value._dtype == tdt and overlap.same_view(ctx, target, value):
        return target  # ``t = x[k]; t += 1; x[k] = t``: t already lies where it is stored
    if lowering.is_tensor(value):
        held = overlap.held_values(ctx, target._base if target._base is not None else target)
        aligned = value.ndim == target.ndim and all(
            v != 1 or t == 1 for v, t in zip(value._dims, target._dims))
        if overlap.reads_overwritten(ctx, held, target._value, value._value, aligned):
            value = overlap.stage(ctx, value)
    new = _store(ctx, target, value)
    ctx.note_update(target._base if target._base is not None else target)
    root = target._base
    if root is None:
        target._value = new
        _updated(target)
        return target
    if target._region is not None:
        contents = TracedArray(ctx, new, target._dtype, target._dims)
        contents._dim_ssa = dict(target._dim_ssa)
        root._value = indexing.insert(root, target._region, contents)
        _updated(root)
        target._value = new
        target._base_version = root._version
        return target
    # through a view: its new contents, permuted back, are the new contents of the array
    inverse = [0] * len(target._perm)  # type: ignore[arg-type]
    for i, p in enumerate(target._perm):  # type: ignore[arg-type]
        inverse[p] = i
    root._value = shapes.transpose(TracedArray(ctx, new, target._dtype, target._dims), inverse)._value
    _updated(root)
    target._value = new
    target._base_version = root._version
    return target


def _updated(root: TracedArray) -> None:
    """Records an in-place update of ``root`` (an argument becomes a written parameter)."""
    root._version = root._ctx.fresh_version()
    root._updated_at = format_location(user_location())
    if root._arg is not None:
        root._arg.written = True


def ufunc(name: str, target: TracedArray, other: Any) -> Any:
    """``target <op>= other`` (``name`` is the NumPy ufunc): computed as NumPy does, then stored
    with ``same_kind`` casting.  Python and NumPy scalars are immutable: for them Python falls back
    to ``target = target <op> other``."""
    if target._is_scalar:
        return NotImplemented
    op = _AUGMENTED[name]
    lowering.context_of(target, other)
    _check_target(target, op)
    result = contractions.matmul(target, other) if name == "matmul" else elementwise.binary(name, target, other)
    return assign(target, result, op=op, casting="same_kind", ufunc_name=name)


def setitem(target: TracedArray, key: Any, value: Any) -> None:
    """``target[key] = value`` (NumPy's unsafe casting: ``int_array[...] = 2.7`` stores 2): a basic
    key stores into the region it selects; a traced boolean mask selects where ``value`` (a
    scalar) replaces the contents."""
    if target._is_scalar:
        raise trace_error(
            f"'numpy.{target._dtype.name}' object does not support item assignment", TypeError
        )
    op = "item assignment"
    ctx = lowering.context_of(target, value)
    parts = indexing.normalize_key(key, target.ndim)
    if isinstance(value, float) and target._dtype.is_int:
        # NumPy converts the Python float, then casts it like an array (truncating)
        value = TracedArray(ctx, ctx.top.const(value, "f64"), D.FLOAT64, (), is_scalar=True)
    if indexing.is_basic_key(parts):
        view = indexing.getitem(target, key)
        assign(view, value, op=op, casting="unsafe")
        return
    mask = [p for p in parts if not (isinstance(p, slice) and p == slice(None))]
    if len(mask) == 1 and isinstance(mask[0], TracedArray) and mask[0]._dtype.is_bool and parts[0] is mask[0]:
        _masked_store(target, mask[0], value)
        return
    if any(isinstance(p, TracedArray) and p._dtype.is_bool for p in parts):
        raise unsupported(op, "a traced boolean mask among other indices; use numpy.where")
    _scatter(target, parts, value)


def _scatter(target: TracedArray, parts: list[Any], value: Any) -> None:
    """``target[parts] = value`` with index arrays among ``parts``: NumPy assigns the selected
    elements in order, so where indices repeat the last one wins. An ``scf.for`` nest over the
    selection (:func:`indexing.select`) stores each element of ``value`` (broadcast to the
    selection, cast unsafely) with ``tensor.insert`` into the view the basic parts select,
    which is then written back. ``x[i] += v`` is this after a gather, so a repeated index adds
    once, as in NumPy."""
    op = "item assignment"
    ctx = target._ctx
    sel = indexing.select(target, parts)
    view = indexing.getitem(target, tuple(sel.basic))
    dt, R = target._dtype, len(sel.dims)
    value = lowering.to_tensor(ctx, lowering.lift(ctx, value, op))
    if value._dtype != dt:
        value = elementwise.astype(value, dt.name)
    selection = TracedArray(ctx, lowering.empty(ctx, sel.dims, dt, sel.sizes), dt, sel.dims, sizes=sel.sizes)
    dims, _ = lowering.broadcast([value, selection])
    if len(dims) != R or any(d is not None and e is not None and d != e for d, e in zip(dims, sel.dims)):
        raise trace_error(f"shape mismatch: value array of shape {value.shape} could not be broadcast to "
                          f"indexing result of shape {selection.shape}", ValueError)
    ctx.begin_op()
    top, fresh = ctx.top, ctx.names.fresh
    ivs = ["%" + fresh("i") for _ in range(R)]
    carried = [view._value] + ["%" + fresh("t") for _ in range(R)]
    results = ["%" + fresh("scattered") for _ in range(R)]
    ty = view.mlir_type
    body = Block(ctx.names, indent=top.indent + R)

    def at(exprs: list[str]) -> list[str]:
        return [body.const(0, "index") if e == "0" else ivs[int(e[1:])] for e in exprs]

    indices = [body.op("idx", f"tensor.extract {a._value}[{', '.join(at(sel.index_at(n)))}] : {a.mlir_type}")
               for n, a in enumerate(sel.arrays)]
    coords = sel.view_coords(body, indices, lambda i: ivs[i])
    if value._is_scalar:
        element = value._value
    else:
        reads = ["0" if value._dims[k] == 1 else f"d{R - value.ndim + k}" for k in range(value.ndim)]
        element = body.op("v", f"tensor.extract {value._value}[{', '.join(at(reads))}] : {value.mlir_type}")
    stored = body.op("stored", f"tensor.insert {element} into {carried[R]}[{', '.join(coords)}] : {ty}")
    body.raw(f"scf.yield {stored} : {ty}")

    def nest(k: int) -> list[str]:
        if k == R:
            return body.lines
        loop = Block(ctx.names, indent=top.indent + k)
        size = loop.const(sel.dims[k], "index") if sel.dims[k] is not None else sel.sizes[k]
        loop.raw(f"{results[k]} = scf.for {ivs[k]} = {loop.const(0, 'index')} to {size} step "
                 f"{loop.const(1, 'index')} iter_args({carried[k + 1]} = {carried[k]}) -> ({ty}) {{")
        loop.lines.extend(nest(k + 1))
        if k + 1 < R:
            Block.raw(inner := Block(ctx.names, indent=top.indent + k + 1), f"scf.yield {results[k + 1]} : {ty}")
            loop.lines.extend(inner.lines)
        loop.raw("}")
        return loop.lines

    top.lines.extend(nest(0))
    updated = TracedArray(ctx, results[0], dt, view._dims,
                          sizes=[ctx.dim(view, j) if d is None else None for j, d in enumerate(view._dims)])
    assign(view, updated, op=op, casting="unsafe")


def _masked_store(target: TracedArray, mask: TracedArray, value: Any) -> None:
    """``target[mask] = value`` for a traced boolean ``mask`` over the leading dims of ``target``
    and a scalar ``value`` or a selection by the same mask (``x[m] = x[m] ** 2 + c[m]``):
    ``where(mask, value, target)`` stored into ``target``."""
    op = "item assignment"
    if mask.ndim > target.ndim:
        raise trace_error(
            f"too many indices for array: array is {target.ndim}-dimensional, but {mask.ndim} were indexed",
            IndexError,
        )
    if isinstance(value, MaskedSelection):
        # x[m] = f(x[m], y[m]): the selections' k-th elements are x's k-th selected ones
        MaskedSelection(target, mask)._same_selection(value, op)
        if value.values.ndim != target.ndim:
            raise unsupported(op, "x[mask] = y[mask] with y of another rank than x")
        value = value.values
    elif lowering.is_tensor(value) and value.ndim > 0:
        raise unsupported(
            op, "x[mask] = array: the values are taken in order of the True elements; use "
            "x[...] = numpy.where(mask, values, x) with values of x's shape",
        )
    ctx = target._ctx
    for k in range(mask.ndim):
        t, m = target._dims[k], mask._dims[k]
        if t is not None and m is not None and t != m:
            raise trace_error(
                f"boolean index did not match indexed array along axis {k}; size of axis is {t} "
                f"but size of corresponding boolean axis is {m}",
                IndexError,
            )
    wide = lowering.expand_units(ctx, mask, list(range(mask.ndim, target.ndim)))
    if not isinstance(value, TracedArray):
        value = lowering.lift(ctx, value, op)
    if isinstance(value, TracedArray) and value._dtype != target._dtype:
        value = elementwise.astype(value, target._dtype.name)
    elif not isinstance(value, TracedArray):
        value = TracedArray(ctx, lowering.py_const(ctx.top, value, target._dtype), target._dtype, (), is_scalar=True)
    assign(target, elementwise.where(wide, value, target), op=op, casting="unsafe")


@op("copyto")
def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """``np.copyto(dst, src)`` into a traced array."""
    if where is not True:
        raise unsupported("numpy.copyto", "where= is not supported")
    assign(dst, src, op="numpy.copyto", casting=casting)
