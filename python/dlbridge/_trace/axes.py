"""Operations that add, drop, reorder or broadcast an array's axes: ``atleast_1d/2d/3d``,
``expand_dims``, ``squeeze``, ``swapaxes``, ``moveaxis``, ``rollaxis``, ``rot90``,
``broadcast_to``, ``broadcast_arrays`` and ``ndarray.flatten``.

Each is a composition of traced operations, as NumPy's own Python implementations are: inserting
and dropping size-1 axes is basic indexing (``x[:, None]``, ``x[0]``), so the result is a view of
the array, as NumPy's; reordering is ``transpose`` (a view whose writes update the array);
rotating is ``flip`` and ``transpose``. Size-1 dims of the arguments are part of @jit's
specialisation, so ``squeeze`` knows which of their dims it drops while tracing; a dynamic dim
that may be 1 (``x[:1]``) is fixed by specialisation. Broadcasting needs no such number: it
reads index 0 along a dim that is 1 when the kernel runs. Called on nothing traced, each is
NumPy's function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import creation, lowering, shapes
from .errors import trace_error
from .indexing import flip, getitem, index_value
from .mlir_text import Block, affine_map, tensor_type
from .registry import op
from .traced_array import SymbolicDim, TracedArray, derived_view

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "broadcast_to", "expand_dims", "flatten",
    "is_one", "moveaxis", "rollaxis", "rot90", "squeeze", "swapaxes",
]


def _array(a: Any, name: str) -> TracedArray:
    ctx = lowering.context_of(a)
    if isinstance(a, (list, tuple)):
        return creation.array_operand(ctx, a, name)
    return lowering.to_tensor(ctx, lowering.lift(ctx, a, name))


def _axis(axis: Any, ndim: int, name: str, what: str = "axis") -> int:
    """One axis as NumPy's ``normalize_axis_index`` gives it (a TypeError for a non-integer,
    NumPy's AxisError out of range)."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise trace_error(f"{name}: '{type(axis).__name__}' object cannot be interpreted as an integer", TypeError)
    a = int(axis)
    if not -ndim <= a < ndim:
        raise trace_error(f"{what} {a} is out of bounds for array of dimension {ndim}", np.exceptions.AxisError)
    return a % ndim


def _axes_in_order(axes: Any, ndim: int, name: str, what: str) -> list[int]:
    """A sequence of axes (or one) in the order given, NumPy's ``normalize_axis_tuple``."""
    items = list(axes) if isinstance(axes, (tuple, list)) else [axes]
    out = [_axis(a, ndim, name, f"{what}: axis") for a in items]
    if len(set(out)) != len(out):
        raise trace_error(f"repeated axis in `{what}` argument", ValueError)
    return out


def is_one(x: TracedArray, k: int) -> bool:
    """Whether dim ``k`` of ``x`` has size 1. Size-1 dims of the arguments are part of @jit's
    specialisation, so an argument's dynamic dim is not 1; another dynamic dim (``x[:1]``, whose
    size is 0 or 1) is fixed at the call's value by specialisation (the trace starts again with
    the sizes known), as where Python code compares a size."""
    d = x.dims[k]
    if d is not None:
        return d == 1
    if x._arg is not None and x._arg.array is x:
        return False
    return bool(x.shape[k] == 1)


def _view(x: TracedArray) -> TracedArray:
    """A view of all of ``x`` (``x[...]``)."""
    return shapes.transpose(x, tuple(range(x.ndim)))


# --------------------------------------------------------------------------------------------------
# adding and dropping size-1 axes


def _at_least(name: str, arys: tuple[Any, ...], pad: Any) -> Any:
    if not lowering.holds_traced(*arys):
        return getattr(np, name)(*arys)
    out = []
    for a in arys:
        x = _array(a, f"numpy.{name}")
        key = pad(x.ndim)
        out.append(x if key is None else getitem(x, key, view=True))
    return out[0] if len(out) == 1 else tuple(out)


@op("atleast_1d")
def atleast_1d(*arys: Any) -> Any:
    """Each array with at least one dim (a 0-d one as a 1-element view)."""
    return _at_least("atleast_1d", arys, lambda n: (None,) if n == 0 else None)


@op("atleast_2d")
def atleast_2d(*arys: Any) -> Any:
    """Each array with at least two dims (new axes in front)."""
    return _at_least("atleast_2d", arys, lambda n: (None,) * (2 - n) + (slice(None),) * n if n < 2 else None)


@op("atleast_3d")
def atleast_3d(*arys: Any) -> Any:
    """Each array with at least three dims: a 1-D ``(N,)`` array as ``(1, N, 1)``, a 2-D
    ``(M, N)`` one as ``(M, N, 1)``."""
    keys = {0: (None, None, None), 1: (None, slice(None), None), 2: (slice(None), slice(None), None)}
    return _at_least("atleast_3d", arys, keys.get)


@op("expand_dims")
def expand_dims(a: Any, axis: Any) -> Any:
    """A view of ``a`` with size-1 axes inserted at ``axis`` (an int or a tuple, positions in
    the result)."""
    if not lowering.holds_traced(a):
        return np.expand_dims(a, axis)
    x = _array(a, "numpy.expand_dims")
    ndim = x.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    new = set(_axes_in_order(axis, ndim, "numpy.expand_dims", "axis"))
    if len(new) != (len(axis) if isinstance(axis, (tuple, list)) else 1):
        raise trace_error("repeated axis", ValueError)
    return getitem(x, tuple(None if j in new else slice(None) for j in range(ndim)), view=True)


@op("squeeze", method="squeeze")
def squeeze(a: Any, axis: Any = None) -> Any:
    """A view of ``a`` without its size-1 axes (or those of ``axis``, which must have size 1)."""
    if not lowering.holds_traced(a):
        return np.squeeze(a, axis)
    x = _array(a, "numpy.squeeze")
    if axis is None:
        drop = {k for k in range(x.ndim) if is_one(x, k)}
    else:
        drop = set(_axes_in_order(axis, x.ndim, "numpy.squeeze", "axis")) if x.ndim or axis != () else set()
        if not all(is_one(x, k) for k in drop):
            raise trace_error("cannot select an axis to squeeze out which has size not equal to one", ValueError)
    if not drop:
        return _view(x)
    return getitem(x, tuple(0 if k in drop else slice(None) for k in range(x.ndim)), view=True)


# --------------------------------------------------------------------------------------------------
# reordering axes


@op("swapaxes", method="swapaxes")
def swapaxes(a: Any, axis1: Any, axis2: Any) -> Any:
    """A view of ``a`` with axes ``axis1`` and ``axis2`` interchanged."""
    if not lowering.holds_traced(a):
        return np.swapaxes(a, axis1, axis2)
    x = _array(a, "numpy.swapaxes")
    i = _axis(axis1, x.ndim, "numpy.swapaxes", "axis1: axis")
    j = _axis(axis2, x.ndim, "numpy.swapaxes", "axis2: axis")
    perm = list(range(x.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return shapes.transpose(x, tuple(perm))


@op("moveaxis")
def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    """A view of ``a`` with the axes ``source`` moved to positions ``destination`` (ints or
    sequences of one length); the other axes keep their order."""
    if not lowering.holds_traced(a):
        return np.moveaxis(a, source, destination)
    x = _array(a, "numpy.moveaxis")
    src = _axes_in_order(source, x.ndim, "numpy.moveaxis", "source")
    dst = _axes_in_order(destination, x.ndim, "numpy.moveaxis", "destination")
    if len(src) != len(dst):
        raise trace_error("`source` and `destination` arguments must have the same number of elements", ValueError)
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return shapes.transpose(x, tuple(order))


@op("rollaxis")
def rollaxis(a: Any, axis: Any, start: Any = 0) -> Any:
    """A view of ``a`` with ``axis`` moved to just before position ``start``."""
    if not lowering.holds_traced(a):
        return np.rollaxis(a, axis, start)
    x = _array(a, "numpy.rollaxis")
    n = x.ndim
    ax = _axis(axis, n, "numpy.rollaxis")
    if isinstance(start, (bool, np.bool_)) or not isinstance(start, (int, np.integer)):
        raise trace_error(f"numpy.rollaxis: '{type(start).__name__}' object cannot be interpreted as an integer",
                          TypeError)
    s = int(start)
    if s < 0:
        s += n
    if not 0 <= s < n + 1:
        raise trace_error(f"'start' arg requires {-n} <= start < {n + 1}, but {int(start)} was passed in",
                          np.exceptions.AxisError)
    if ax < s:
        s -= 1
    if ax == s:
        return _view(x)
    axes = list(range(n))
    axes.remove(ax)
    axes.insert(s, ax)
    return shapes.transpose(x, tuple(axes))


@op("rot90")
def rot90(m: Any, k: Any = 1, axes: Any = (0, 1)) -> Any:
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``, from the first axis
    towards the second (a view: flips and a transpose)."""
    if not lowering.holds_traced(m):
        return np.rot90(m, k, axes)
    axes = tuple(axes)
    if len(axes) != 2:
        raise trace_error("len(axes) must be 2.", ValueError)
    x = _array(m, "numpy.rot90")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == x.ndim:
        raise trace_error("Axes must be different.", ValueError)
    if axes[0] >= x.ndim or axes[0] < -x.ndim or axes[1] >= x.ndim or axes[1] < -x.ndim:
        raise trace_error(f"Axes={axes} out of range for array of ndim={x.ndim}.", ValueError)
    if isinstance(k, TracedArray) and k.ndim == 0 and k.element_type.is_int:
        k = int(k)  # the rotation's shape depends on it: specialised on its value
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise trace_error(f"numpy.rot90: k must be an integer, not {type(k).__name__}", TypeError)
    k = int(k) % 4
    if k == 0:
        return _view(x)
    if k == 2:
        return flip(flip(x, axes[0]), axes[1])
    perm = list(range(x.ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return shapes.transpose(flip(x, axes[1]), tuple(perm))
    return flip(shapes.transpose(x, tuple(perm)), axes[1])


@op("flatten", numpy=(), method="flatten")
def flatten(a: Any, order: str = "C") -> TracedArray:
    """A new 1-D array of the elements of ``a`` in C order (``"F"``: column-major)."""
    x = _array(a, "ndarray.flatten")
    if order not in ("C", "F", "A", "K"):
        raise trace_error(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})", ValueError)
    if order == "F" and x.ndim > 1:
        x = shapes.transpose(x)
    return lowering.copy(lowering.to_tensor(x.context, shapes.reshape(x, -1)))


# --------------------------------------------------------------------------------------------------
# broadcasting


def _shown(shape: Any) -> str:
    """A shape as NumPy prints it, ``?`` for a size known only when the kernel runs."""
    parts = ["?" if isinstance(d, SymbolicDim) else str(d) for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _known_not_one(x: TracedArray, k: int) -> bool:
    """Whether dim ``k`` of ``x`` is known not to be 1: a static size, or an argument's own
    dynamic dim (size-1 dims of arguments are part of the specialisation)."""
    d = x.dims[k]
    if d is not None:
        return d != 1
    return x._arg is not None and x._arg.array is x


def _stretch(x: TracedArray, dims: list[int | None], sizes: list[str | None], message: str) -> TracedArray:
    """``x`` (right-aligned) repeated along its size-1 dims to ``dims`` (``sizes``: the SSA sizes
    of the dynamic ones), a new array. A dynamic dim of ``x`` may be 1 where it is not an
    argument's own (``x[:, :1]``): the kernel reads index 0 along it when it is 1 at run time,
    so no size is specialised; a size that is neither 1 nor the target's fails with NumPy's
    ValueError ``message`` when the kernel runs."""
    ctx = x.context
    top = ctx.top
    R = len(dims)
    lead = R - x.ndim
    wide = lowering.expand_units(ctx, x, list(range(lead)))
    stretched: dict[int, str] = {}  # dim -> i1 "is 1 at run time"
    for j in range(R):
        d, t = wide.dims[j], dims[j]
        if d == 1:
            continue
        target = sizes[j] if t is None else top.const(t, "index")
        have = top.const(d, "index") if d is not None else ctx.dim(wide, j)
        if d is not None and t is not None:
            continue  # equal: checked while tracing
        if have == target:
            continue
        same = top.op("same", f"arith.cmpi eq, {have}, {target} : index")
        if d is None and not _known_not_one(x, j - lead):
            one = top.op("one", f"arith.cmpi eq, {have}, {top.const(1, 'index')} : index")
            stretched[j] = one
            same = top.op("ok", f"arith.ori {same}, {one} : i1")
        top.raw(f'dlpack.assert {same}, shape_mismatch, "{lowering.message_literal(message)}"')
    if not stretched:
        if list(wide.dims) == list(dims) and None not in dims:
            return lowering.copy(wide)
        return creation.broadcast_to(wide, dims, sizes)
    ctx.begin_op()
    dt = wide.element_type
    init = lowering.empty(ctx, dims, dt, sizes)

    def body(b: Block, _ins: list[str], _out: str) -> str:
        at = []
        for j in range(R):
            if wide.dims[j] == 1:
                at.append(b.const(0, "index"))
                continue
            i = b.op("i", f"linalg.index {j} : index")
            if j in stretched:
                i = b.op("i", f"arith.select {stretched[j]}, {b.const(0, 'index')}, {i} : index")
            at.append(i)
        return b.op("v", f"tensor.extract {wide.value}[{', '.join(at)}] : {wide.mlir_type}")

    value = lowering.emit_generic(ctx, "bcast", [], [], init, tensor_type(dims, dt), dt,
                                  affine_map(R, [f"d{j}" for j in range(R)]), ["parallel"] * R, body)
    return TracedArray(ctx, value, dt, dims, sizes=sizes)


@op("broadcast_to")
def broadcast_to(array: Any, shape: Any, subok: bool = False) -> Any:
    """``array`` repeated along its size-1 (and new leading) axes to ``shape``."""
    if not lowering.holds_traced(array, shape):
        return np.broadcast_to(array, shape, subok=subok)
    ctx = lowering.context_of(array, *(shape if isinstance(shape, (tuple, list)) else (shape,)))
    x = _array(array, "numpy.broadcast_to") if lowering.holds_traced(array) else lowering.to_tensor(
        ctx, lowering.lift(ctx, np.asarray(array), "numpy.broadcast_to"))
    parts = list(shape) if isinstance(shape, (tuple, list)) else [shape]
    if len(parts) < x.ndim:
        raise trace_error("input operand has more dimensions than allowed by the axis remapping", ValueError)
    message = (f"operands could not be broadcast together with remapped shapes [original->remapped]: "
               f"{_shown(x.shape)} and requested shape {_shown(parts)}")
    lead = len(parts) - x.ndim
    dims: list[int | None] = []
    sizes: list[str | None] = []
    for j, part in enumerate(parts):
        v = index_value(ctx, part, "numpy.broadcast_to shape", "integer")
        src = x.dims[j - lead] if j >= lead else 1
        if isinstance(v, int):
            if v < 0:
                raise trace_error("all elements of broadcast shape must be non-negative", ValueError)
            if src is not None and src not in (1, v):
                raise trace_error(message, ValueError)
            dims.append(v)
            sizes.append(None)
            continue
        ok = ctx.top.op("size_ok", f"arith.cmpi sge, {v}, {ctx.top.const(0, 'index')} : index")
        ctx.top.raw(f'dlpack.assert {ok}, invalid_argument, "all elements of broadcast shape must be non-negative"')
        dims.append(None)
        sizes.append(v)
    return derived_view(x, _stretch(x, dims, sizes, message), "broadcast_to",
                        lambda p: _stretch(p, dims, sizes, message), None)


@op("broadcast_arrays")
def broadcast_arrays(*args: Any, subok: bool = False) -> Any:
    """The arrays broadcast against each other, as a tuple (an array that needs no broadcast
    is itself, as NumPy gives it)."""
    if not lowering.holds_traced(*args):
        return np.broadcast_arrays(*args, subok=subok)
    ctx = lowering.context_of(*args)
    xs = [_array(a, "numpy.broadcast_arrays") if lowering.holds_traced(a) else
          lowering.to_tensor(ctx, lowering.lift(ctx, np.asarray(a), "numpy.broadcast_arrays")) for a in args]
    shapes_text = ", ".join(f"arg {i} with shape {_shown(x.shape)}" for i, x in enumerate(xs))
    message = f"shape mismatch: objects cannot be broadcast to a single shape ({shapes_text})"
    R = max(x.ndim for x in xs)
    top = ctx.top
    dims: list[int | None] = []
    sizes: list[str | None] = []
    for j in range(R):
        at = [(x, j - R + x.ndim) for x in xs if j - R + x.ndim >= 0]
        statics = {x.dims[k] for x, k in at if x.dims[k] is not None and x.dims[k] != 1}
        if len(statics) > 1:
            raise trace_error(message, ValueError)
        if statics:
            dims.append(statics.pop())
            sizes.append(None)
            continue
        dynamic = [(x, k) for x, k in at if x.dims[k] is None]
        if not dynamic:
            dims.append(1)
            sizes.append(None)
            continue
        sure = [ctx.dim(x, k) for x, k in dynamic if _known_not_one(x, k)]
        if sure:
            size = sure[0]
        else:  # the first size that is not 1 at run time
            size = ctx.dim(*dynamic[0])
            for x, k in dynamic[1:]:
                n = ctx.dim(x, k)
                one = top.op("one", f"arith.cmpi eq, {size}, {top.const(1, 'index')} : index")
                size = top.op("size", f"arith.select {one}, {n}, {size} : index")
        dims.append(None)
        sizes.append(size)
    out = []
    for x in xs:
        same = x.ndim == R and all(d == t if t is not None else d is None and ctx.dim(x, j) == sizes[j]
                                   for j, (d, t) in enumerate(zip(x.dims, dims)))
        out.append(x if same else _stretch(x, dims, sizes, message))
    return tuple(out)
