"""In-place updates: ``x += y``, ``x[...] = v``, ``np.add(a, b, out=x)``, ``np.copyto(x, v)``.

NumPy updates the array object itself.  SSA values are immutable, so the tracer gives the
:class:`TracedArray` a new value instead: every Python name bound to that object sees the update, as
in NumPy.  An argument updated so becomes a written parameter of the entry (``trace`` declares it
as a memref and stores its final value into the caller's buffer).

Views are NumPy's: basic indexing, transposes, ``expand_dims``/``squeeze``, flips, ``x.real``/
``x.imag`` and reshapes of arrays the function made are views of ``x``, alone or chained; each
records the steps that made it from ``x`` (``traced_array.ViewStep``), so an update through one
goes back step by step into ``x`` (:func:`_write`), and a view taken before an update of ``x``
shows it.  ``broadcast_to``, ``diagonal`` and ``.imag`` of a real array are read-only: writing
them is NumPy's ValueError.

A value read from the array being updated at other positions than those it replaces
(``x[:] = x[::-1]``, ``x[1:] += x[:-1]``) is staged through a temporary, as NumPy copies an
overlapping operand (``overlap``).

Scatters (``x[index arrays] = v``, ``x[i] += v``, ``np.put``, ``put_along_axis``, ``place``,
``fill_diagonal``, ``ufunc.at``) are one primitive, :func:`scatter`: a loop over the selection the
key makes (``indexing.select``: NumPy's bounds checks and negative indices) that stores, or for
``ufunc.at`` combines, element by element in NumPy's order; the flat-index functions scatter into
the array's C-order flattening (:func:`scatter_flat`).

Updates the tracer cannot express raise a TraceError naming the operation and the user's line,
never drop the update: writing through a reshape of an argument, or through ``ascontiguousarray``
of one (whether NumPy's result is a view depends on the caller's memory layout), ``out=`` into
something that is not a traced array.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import contractions, creation, elementwise, indexing, lowering, overlap, registry, shapes
from . import dtypes as D
from .errors import format_location, trace_error, unsupported, user_location
from .masked import MaskedSelection
from .mlir_text import Block, affine_map, location
from .registry import op
from .traced_array import TraceContext, TracedArray, public_type, read_through, sync_view

__all__ = ["assign", "can_store", "copyto", "scatter", "scatter_flat", "setitem", "ufunc"]

#: ``combine(block, old, value)``: the scalar a scatter stores where it found ``old`` (``value``
#: in its own dtype; ``""`` for a unary one), in the array's dtype.
Combine = Callable[[Block, str, str], str]

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
    "left_shift": "<<=",
    "right_shift": ">>=",
}


def _shape(dims: tuple[int | None, ...]) -> str:
    inner = ", ".join("?" if d is None else str(d) for d in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"


#: NumPy's message for writing into a read-only array, by the operation (default: assignment).
_READONLY = {
    "numpy.put": "put: output array is read-only",
    "numpy.putmask": "putmask: output array is read-only",
    "numpy.place": "WRITEBACKIFCOPY base is read-only",
    "numpy.fill_diagonal": "underlying array is read-only",
    "ndarray.sort": "sort array is read-only",
}


def _readonly_message(op: str) -> str:
    if op in _READONLY:
        return _READONLY[op]
    if op in _AUGMENTED.values() or op.endswith("(out=...)"):
        return "output array is read-only"
    if op.endswith(".at"):
        return "operand array with iterator write flag set is read-only"
    return "assignment destination is read-only"


def _check_target(target: TracedArray, op: str) -> None:
    """``target`` can be updated: an array, or a view of one through any chain of NumPy's views
    (the update goes to that array, as in NumPy). NumPy's ValueError for a read-only view
    (``broadcast_to``, ``diagonal``); a TraceError for a reshape whose being a view depends
    on the memory layout."""
    if target._base is None:
        return
    for step in target._path:
        if step.write is None:
            raise trace_error(_readonly_message(op), ValueError)
    for step in target._path:
        if step.layout:
            raise unsupported(op, step.layout)
    if not target._path and target._perm is None and target._region is None:
        raise unsupported(op, f"writing through a view made by {target._view_op}")


def _check_shape(target: TracedArray, value: Any, op: str, ufunc_output: bool) -> None:
    """NumPy's rule for storing ``value`` into ``target``: it broadcasts to ``target``'s shape."""
    if not lowering.is_tensor(value):
        return
    off = target.ndim - value.ndim
    # size-1 dims broadcast; dynamic sizes must equal the other side's at run time. A dynamic
    # value dim stored into a dim of 1 must be 1 when the function runs: sizes computed while
    # tracing (``x[s + h:s + 2 * h]`` where ``x[s:s + h]`` had a size of 1) may be 1 there
    fits = off >= 0 and all(
        v == 1 or t is None or v is None or t == v
        for t, v in zip(target._dims[off:], value._dims)
    )
    if fits:
        ctx = target._ctx
        for k, (t, v) in enumerate(zip(target._dims[off:], value._dims)):
            if t == 1 and v is None:
                size = ctx.dim(value, k)
                one = ctx.top.op("is_one", f"arith.cmpi eq, {size}, {ctx.top.const(1, 'index')} : index")
                text = lowering.message_literal(_shape_error(target, value, op, ufunc_output))
                ctx.top.raw(f'dlpack.assert {one}, shape_mismatch, "{text} (a size of {{0}} where 1 is stored)" '
                            f"({size} : index)")
        return
    raise trace_error(_shape_error(target, value, op, ufunc_output), ValueError)


def _shape_error(target: TracedArray, value: TracedArray, op: str, ufunc_output: bool) -> str:
    """NumPy's message for ``value`` that does not broadcast to ``target``'s shape."""
    if ufunc_output:
        return (f"{op}: non-broadcastable output operand with shape {_shape(target._dims)} doesn't "
                f"match the broadcast shape {_shape(value._dims)}")
    return f"{op}: could not broadcast input array from shape {_shape(value._dims)} into shape {_shape(target._dims)}"


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


#: NEP 50: the dtypes a Python scalar of each kind is stored into under ``same_kind`` casting.
_WEAK_INTO = {"bool": "biufc", "int": "iufc", "float": "fc", "complex": "c"}


def can_store(vdt: D.DType, weak: str | None, tdt: D.DType) -> bool:
    """Whether a value of ``vdt`` (a Python scalar of kind ``weak``, when not None) may be stored
    into an array of ``tdt`` under ``same_kind`` casting."""
    if weak is not None:
        return tdt.kind in _WEAK_INTO[weak]
    return D.can_cast_same_kind(vdt, tdt)


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
        vdt, weak = lowering.promote([value])
        if not can_store(vdt, weak, tdt):
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
    _write(target, TracedArray(ctx, _store(ctx, target, value), target._dtype, target._dims))
    return target


def _write(target: TracedArray, new: TracedArray) -> None:
    """Gives ``target`` (an array, or a view checked by :func:`_check_target`) the contents
    ``new`` (its shape and dtype): a view's base gets them through the view's chain of steps,
    each step writing its new contents into its parent's, as NumPy's view writes its base."""
    ctx = target._ctx
    root = target._base if target._base is not None else target
    overlap.held_values(ctx, root)
    ctx.note_update(root)
    new.copy_sizes_from(target)
    if target._base is None:
        target._value = new._value
        _updated(target)
        return
    if target._region is not None:  # one region of the array
        root._value = indexing.insert(root, target._region, new)
    elif target._perm is not None:  # a permutation of the array
        inverse = [0] * len(target._perm)
        for i, p in enumerate(target._perm):
            inverse[p] = i
        root._value = shapes.transpose(new, inverse)._value
    else:
        parents = [read_through(root, [])]
        for step in target._path[:-1]:
            parents.append(step.read(parents[-1]))
        contents = new
        for step, parent in zip(reversed(target._path), reversed(parents)):
            contents = step.write(parent, contents)  # type: ignore[misc]
        root._value = contents._value
    _updated(root)
    target._value = new._value
    target._base_version = root._version


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
    _check_target(target, op)
    parts = indexing.normalize_key(key, target.ndim)
    if isinstance(value, float) and target._dtype.is_int:
        # NumPy converts the Python float, then casts it like an array (truncating)
        value = TracedArray(ctx, ctx.top.const(value, "f64"), D.FLOAT64, (), is_scalar=True)
    if indexing.is_basic_key(parts):
        view = indexing.getitem(target, key, view=True)
        assign(view, value, op=op, casting="unsafe")
        return
    mask = [p for p in parts if not (isinstance(p, slice) and p == slice(None))]
    if len(mask) == 1 and isinstance(mask[0], TracedArray) and mask[0]._dtype.is_bool and parts[0] is mask[0] \
            and (isinstance(value, MaskedSelection) or not (lowering.is_tensor(value) and value.ndim > 0)):
        _masked_store(target, mask[0], value)
        return
    scatter(target, tuple(parts), value, op)


def scatter(target: TracedArray, key: Any, values: Any, op: str, combine: Combine | None = None) -> None:
    """``target[key] = values`` for a key with index arrays: the one scatter, which every update
    at indices uses (``x[i] = v``, ``x[i] += v``, ``put``, ``put_along_axis``, ``place``,
    ``fill_diagonal``, ``ufunc.at``).

    NumPy stores the selected elements one after the other, so where indices repeat the last
    one wins; with ``combine(block, old, value)`` (``ufunc.at``, the value in its own dtype)
    each repeat combines again.  An ``scf.for`` nest over the selection (:func:`indexing.select`,
    which checks the indices in bounds and wraps negative ones) reads the indices and the value
    (``values`` broadcast to the selection; converted unsafely) and stores with
    ``tensor.insert`` into the view the key's basic parts select, which is then written back:
    the work is the selection's size, not the array's."""
    ctx = target._ctx
    _check_target(target, op)
    sync_view(target)
    if isinstance(key, TracedArray) and key._dtype.is_bool and key.ndim == 0:
        # a 0-d mask selects all of the array or nothing: ``where``
        scattered = lowering.copy(target)
        scatter(scattered, Ellipsis, values, op, combine)
        assign(target, elementwise.where(key, scattered, target), op=op, casting="unsafe")
        return
    parts = indexing.mask_indices(target, indexing.normalize_key(key, target.ndim))
    if indexing.is_basic_key(parts):  # no index arrays: no element is selected twice
        view = indexing.getitem(target, tuple(parts), view=True)
        if combine is not None:
            view_dt = view._dtype
            operands: list[tuple[Any, D.DType]] = [(view, view_dt)]
            if values is not None:
                value = _operand(ctx, values, op)
                operands.append((value, lowering.promote([value])[0]))
            values = lowering.emit_elementwise(
                ctx, "combined", operands, view_dt,
                lambda b, v: combine(b, v[0], v[1] if len(v) > 1 else ""), None)  # type: ignore[misc]
        assign(view, values, op=op, casting="unsafe")
        return
    sel = indexing.select(target, parts)
    view = indexing.getitem(target, tuple(sel.basic), view=True)
    _write(view, _scatter_loop(ctx, sel, view, values, op, combine))


def scatter_flat(target: TracedArray, at: Any, values: Any, op: str, combine: Combine | None = None,
                 cycle: bool = False) -> None:
    """:func:`scatter` at the flat (C order) positions ``at`` (a 1-D integer array; negative ones
    count from the end, others out of range are NumPy's IndexError) of ``target``, as
    ``target.flat[at] = values`` (``put``, ``place``, ``fill_diagonal``)."""
    ctx = target._ctx
    _check_target(target, op)
    sync_view(target)
    extents = [target._dims[k] if target._dims[k] is not None else ctx.dim(target, k) for k in range(target.ndim)]
    total: int | str = 1
    for e in extents:
        total = indexing.index_product(ctx, total, e)
    # a stand-in of the flattened array (never read): the selection of ``at`` on it checks the
    # indices against its size, as NumPy's flat indexing does
    dims = [total if isinstance(total, int) else None]
    flat = TracedArray(ctx, lowering.empty(ctx, dims, target._dtype, [None if dims[0] is not None else total]),
                       target._dtype, dims, sizes=[None if dims[0] is not None else total])  # type: ignore[list-item]
    sel = indexing.select(flat, [at])
    size = sel.extents[0]

    def coords(b: Block, indices: list[str], _iv: Callable[[int], str]) -> list[str]:
        # the C-order coordinates of flat position ``p`` (a negative one from the end)
        if not extents:
            return []
        idx = b.op("i", f"arith.index_cast {indices[0]} : {sel.arrays[0]._dtype.mlir} to index")
        neg = b.op("neg", f"arith.cmpi slt, {idx}, {b.const(0, 'index')} : index")
        p = b.op("p", f"arith.select {neg}, {b.op('w', f'arith.addi {idx}, {size} : index')}, {idx} : index")
        out: list[str] = []
        for e in reversed(extents[1:]):
            n = b.const(e, "index") if isinstance(e, int) else e
            out.append(b.op("c", f"arith.remui {p}, {n} : index"))
            p = b.op("p", f"arith.divui {p}, {n} : index")
        return [p, *reversed(out)]

    _write(target, _scatter_loop(ctx, sel, lowering.copy(target), values, op, combine, coords, cycle))


def _scatter_loop(ctx: TraceContext, sel: indexing.Selection, view: TracedArray, values: Any, op: str,
                  combine: Combine | None, coords_of: Any = None, cycle: bool = False) -> TracedArray:
    """The new contents of ``view`` (the contents of ``sel.view``) with ``values`` scattered over
    the selection ``sel`` in NumPy's order (see :func:`scatter`); ``values`` None for a unary
    ``combine``. ``coords_of(block, indices, iv)``: where in ``view`` the selection's element
    lies (default: ``sel.view_coords``, ``view`` being ``sel.view``). ``cycle``: ``values`` is 1-D
    and repeats along the 1-D selection (``put``, ``place``), instead of broadcasting."""
    dt, R = view._dtype, len(sel.dims)
    value: TracedArray | None = None
    if values is not None:
        value = lowering.to_tensor(ctx, _operand(ctx, values, op))
        if combine is None and value._dtype != dt:
            value = elementwise.astype(value, dt.name)
    if value is not None and not cycle:
        selection = TracedArray(ctx, lowering.empty(ctx, sel.dims, dt, sel.sizes), dt, sel.dims, sizes=sel.sizes)
        fits = value.ndim <= R and all(
            v == 1 or s is None or v is None or v == s for v, s in zip(value._dims, sel.dims[R - value.ndim:]))
        if not fits:
            raise trace_error(f"shape mismatch: value array of shape {_shape(value._dims)} could not be "
                              f"broadcast to indexing result of shape {_shape(tuple(sel.dims))}", ValueError)
        lowering.broadcast([value, selection])  # run-time checks of dynamic sizes
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
    coords = (coords_of or sel.view_coords)(body, indices, lambda i: ivs[i])
    element = ""
    if value is not None:
        if value._is_scalar:
            element = value._value
        elif cycle:
            n = value._dims[0] if value._dims[0] is not None else ctx.dim(value, 0)
            k = body.op("k", f"arith.remui {ivs[0]}, {body.const(n, 'index') if isinstance(n, int) else n} : index")
            element = body.op("v", f"tensor.extract {value._value}[{k}] : {value.mlir_type}")
        else:
            reads = ["0" if value._dims[k] == 1 else f"d{R - value.ndim + k}" for k in range(value.ndim)]
            element = body.op("v", f"tensor.extract {value._value}[{', '.join(at(reads))}] : {value.mlir_type}")
    if combine is not None:
        old = body.op("old", f"tensor.extract {carried[R]}[{', '.join(coords)}] : {ty}")
        element = combine(body, old, element)
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
        loop.raw(f"}} {location()}".rstrip())
        return loop.lines

    top.lines.extend(nest(0))
    return TracedArray(ctx, results[0], dt, view._dims,
                       sizes=[ctx.dim(view, j) if d is None else None for j, d in enumerate(view._dims)])


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
    """``np.copyto(dst, src)`` into a traced array; with ``where`` only where it is true."""
    if where is True:
        assign(dst, src, op="numpy.copyto", casting=casting)
        return
    if not isinstance(dst, TracedArray):
        raise unsupported("numpy.copyto", f"the output is a {public_type(dst)}, not an array of the traced function")
    ctx = lowering.context_of(dst, src, where)
    value = _operand(ctx, src, "numpy.copyto")
    if casting == "same_kind":
        vdt, weak = lowering.promote([value])
        if not can_store(vdt, weak, dst._dtype):
            raise trace_error(f"numpy.copyto: Cannot cast array data from dtype('{vdt.name}') to "
                              f"dtype('{dst._dtype.name}') with casting rule 'same_kind'")
    elif casting != "unsafe":
        raise unsupported("numpy.copyto", f"casting={casting!r}")
    _check_shape(dst, value, "numpy.copyto", False)
    mask = elementwise.astype(_operand(ctx, where, "numpy.copyto"), "bool")
    _check_shape(dst, mask, "numpy.copyto", False)
    if isinstance(value, TracedArray):
        value = elementwise.astype(value, dst._dtype.name)
    assign(dst, elementwise.where(mask, value, dst), op="numpy.copyto", casting="unsafe")


# --------------------------------------------------------------------------------------------------
# scatters: x[index arrays] = v, put, put_along_axis, place, putmask, fill_diagonal, ufunc.at


def _operand(ctx: TraceContext, value: Any, op: str) -> Any:
    """``value`` lifted into the trace; Python lists and tuples as NumPy makes arrays of them."""
    if isinstance(value, (list, tuple)):
        return creation.array_operand(ctx, value, op)
    return lowering.lift(ctx, value, op)


def _target(a: Any, op: str) -> TracedArray:
    if not isinstance(a, TracedArray) or a._is_scalar:
        raise unsupported(op, f"the array to update is a {public_type(a)}, not an array of the traced function")
    _check_target(a, op)
    return a


def _cycled(ctx: TraceContext, values: Any, op: str) -> TracedArray | None:
    """``values`` flattened, to repeat along the positions as NumPy's ``put``, ``place`` and
    ``putmask`` repeat a shorter ``values``; None when ``values`` is empty."""
    v = shapes.reshape(lowering.to_tensor(ctx, _operand(ctx, values, op)), (-1,))
    return None if v._dims[0] == 0 else v


def _length(at: Any) -> int | str:
    """The length of the 1-D index array ``at`` (NumPy's or traced)."""
    if isinstance(at, np.ndarray):
        return int(at.size)
    return at._dims[0] if at._dims[0] is not None else at._ctx.dim(at, 0)  # type: ignore[no-any-return]


def _safe_values(ctx: TraceContext, target: TracedArray, values: Any, op: str) -> Any:
    """``values`` for ``place``/``putmask``: an array must cast to ``target``'s dtype by NumPy's
    ``safe`` rule (TypeError otherwise); Python scalars and lists become ``target``'s dtype."""
    tdt = target._dtype
    if isinstance(values, (list, tuple)):
        return elementwise.astype(lowering.to_tensor(ctx, creation.array_operand(ctx, values, op)), tdt.name)
    if isinstance(values, (np.ndarray, TracedArray)) and not (isinstance(values, TracedArray) and values.weak):
        vdt = values._dtype if isinstance(values, TracedArray) else D.dtype(values.dtype)
        try:
            safe = np.can_cast(np.dtype(vdt.name), np.dtype(tdt.name), "safe")
        except TypeError:
            safe = vdt == tdt
        if not safe:
            raise trace_error(f"{op}: Cannot cast array data from dtype('{vdt.name}') to dtype('{tdt.name}') "
                              "according to the rule 'safe'", TypeError)
    return values


def _put_at(target: TracedArray, at: Any, values: Any, op: str) -> None:
    cycled = _cycled(target._ctx, values, op)
    if cycled is not None:
        scatter_flat(target, at, cycled, op, cycle=True)


def _flat_indices(ctx: TraceContext, ind: Any, op: str) -> Any:
    """``ind`` as a 1-D integer index array (a NumPy array when known while tracing)."""
    if isinstance(ind, (list, tuple)) and lowering.holds_traced(ind):
        ind = _operand(ctx, ind, op)
    ind = indexing.index_operand(ctx, ind, op)
    if isinstance(ind, np.ndarray):
        return ind.reshape(-1)
    return shapes.reshape(lowering.to_tensor(ctx, ind), (-1,))


@op("put", method="put")
def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
    """``a.flat[ind] = v``: ``v`` repeated as needed, indices out of range as ``mode`` says
    (``"raise"``: NumPy's IndexError, ``"wrap"``, ``"clip"``), negative ones from the end."""
    if not isinstance(a, TracedArray):
        return np.put(a, ind, v, mode=mode)  # type: ignore[no-any-return]
    target = _target(a, "numpy.put")
    ctx = target._ctx
    at = _flat_indices(ctx, ind, "numpy.put")
    size = target.size
    at = indexing.apply_mode(ctx, at, size if isinstance(size, int) else ctx.dim(shapes.reshape(target, (-1,)), 0),
                             mode, "numpy.put")
    if not isinstance(at, np.ndarray):
        at = lowering.to_tensor(ctx, at)
    if _length(at) != 0:
        _put_at(target, at, v, "numpy.put")
    return None


@op("put_along_axis")
def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """Stores ``values`` where ``indices`` point along ``axis`` at each position of the other
    axes (the inverse of ``take_along_axis``)."""
    if not isinstance(arr, TracedArray):
        return np.put_along_axis(arr, indices, values, axis)  # type: ignore[no-any-return]
    target = _target(arr, "numpy.put_along_axis")
    ctx = target._ctx
    ind = lowering.to_tensor(ctx, _operand(ctx, indices, "numpy.put_along_axis"))
    if not ind._dtype.is_int:
        raise trace_error("`indices` must be an integer array", IndexError)
    if axis is None:
        if ind.ndim != 1:
            raise trace_error("when axis=None, `indices` must have a single dimension.", ValueError)
        scatter_flat(target, ind, values, "numpy.put_along_axis")
        return None
    (k,) = indexing.normalize_axes(axis, target.ndim, "numpy.put_along_axis", allow_none=False)
    scatter(target, indexing.along_axis_key(target, ind, k), values, "numpy.put_along_axis")
    return None


@op("place")
def place(arr: Any, mask: Any, vals: Any) -> None:
    """Stores ``vals`` (repeated as needed) at the elements of ``arr`` where ``mask`` is true,
    in order."""
    if not isinstance(arr, TracedArray) and not isinstance(mask, TracedArray):
        return np.place(arr, mask, vals)  # type: ignore[no-any-return]
    target = _target(arr, "numpy.place")
    ctx = target._ctx
    m = lowering.to_tensor(ctx, _operand(ctx, mask, "numpy.place"))
    _same_size(target, m, "place: mask and data must be the same size")
    at = registry.lookup("flatnonzero").impl(m)  # type: ignore[union-attr]
    cycled = _cycled(ctx, _safe_values(ctx, target, vals, "numpy.place"), "numpy.place")
    if cycled is None:
        lowering.runtime_check(np.logical_not(np.any(m)), "invalid_argument", "Cannot insert from an empty array!")
        return None
    scatter_flat(target, at, cycled, "numpy.place", cycle=True)
    return None


def _same_size(target: TracedArray, mask: TracedArray, message: str) -> None:
    """NumPy's ValueError ``message`` unless ``mask`` has as many elements as ``target``."""
    n, m = target.size, mask.size
    if isinstance(n, int) and isinstance(m, int):
        if n != m:
            raise trace_error(message, ValueError)
        return
    ctx = target._ctx
    lowering.runtime_check(np.equal(lowering.lift(ctx, n), lowering.lift(ctx, m)), "invalid_argument", message)


@op("putmask")
def putmask(a: Any, mask: Any, values: Any) -> None:
    """``a.flat[n] = values.flat[n % values.size]`` wherever ``mask.flat[n]``: a select, no
    scatter."""
    if not isinstance(a, TracedArray) and not isinstance(mask, TracedArray):
        return np.putmask(a, mask, values)  # type: ignore[no-any-return]
    target = _target(a, "numpy.putmask")
    ctx = target._ctx
    m = lowering.to_tensor(ctx, _operand(ctx, mask, "numpy.putmask"))
    _same_size(target, m, "putmask: mask and data must be the same size")
    cycled = _cycled(ctx, _safe_values(ctx, target, values, "numpy.putmask"), "numpy.putmask")
    if cycled is None:
        return None
    if cycled._dims[0] == 1:
        fill = indexing.getitem(cycled, 0)
    else:
        flat = shapes.reshape(lowering.copy(target), (-1,))
        n = flat._dims[0] if flat._dims[0] is not None else ctx.dim(flat, 0)
        if cycled._dims[0] is None or cycled._dims[0] != n:
            cycled = indexing.take(cycled, indexing.axis_iota(ctx, n, 0, 1), mode="wrap")
        fill = shapes.reshape(cycled, target.shape)
    chosen = elementwise.where(shapes.reshape(elementwise.astype(m, "bool"), target.shape), fill, target)
    assign(target, chosen, op="numpy.putmask", casting="unsafe")
    return None


@op("fill_diagonal")
def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """Stores ``val`` (repeated as needed) on the main diagonal of ``a`` (2-D; or of equal dims),
    with ``wrap`` continuing it below a tall matrix's first square, as NumPy's."""
    if not isinstance(a, TracedArray):
        return np.fill_diagonal(a, val, wrap)  # type: ignore[no-any-return]
    target = _target(a, "numpy.fill_diagonal")
    ctx = target._ctx
    if target.ndim < 2:
        raise trace_error("array must be at least 2-d", ValueError)
    top = ctx.top
    if target.ndim == 2:
        rows, cols = ctx.dim(target, 0), ctx.dim(target, 1)
        step = top.op("step", f"arith.addi {cols}, {top.const(1, 'index')} : index")
        if wrap:
            size = top.op("size", f"arith.muli {rows}, {cols} : index")
            count = top.op("count", f"arith.ceildivsi {size}, {step} : index")
        else:
            count = top.op("count", f"arith.minsi {rows}, {cols} : index")
    else:
        dims = target._dims
        if any(d is None for d in dims):
            raise unsupported("numpy.fill_diagonal", "an array of more than 2 dims whose sizes are not fixed")
        if len(set(dims)) != 1:
            raise trace_error("All dimensions of input must be of equal length", ValueError)
        n = dims[0]
        step = top.const(sum(n**j for j in range(target.ndim)), "index")  # type: ignore[operator]
        count = top.const(n, "index")
    iota = indexing.axis_iota(ctx, count, 0, 1)
    stride = TracedArray(ctx, top.op("step", f"arith.index_cast {step} : index to i64"), D.INT64, (), is_scalar=True)
    _put_at(target, elementwise.binary("multiply", iota, stride), val, "numpy.fill_diagonal")
    return None
