"""``np.pad`` in the modes ``constant`` (with ``constant_values``), ``edge``, ``reflect``,
``symmetric``, ``wrap`` (and ``empty``, as zeros), with every ``pad_width`` form NumPy takes.

The array is copied into the middle of the result, then the slabs of each axis in turn are
filled, as NumPy fills them (so a corner takes the last axis's constant): a ``linalg.fill`` of
the constant, or one ``linalg.generic`` reading the array at a source index computed per axis
from the padded index (clamped for ``edge``, periodic for ``wrap``, mirrored for
``reflect``/``symmetric``; each axis's map is independent of the others, so reading the array
itself gives what NumPy's axis-after-axis padding does).
The widths decide the result's shape: traced widths are fixed at the call's values by
specialisation; the array's sizes stay dynamic. Called on nothing traced, it is NumPy's function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import creation, elementwise, lowering
from .errors import trace_error, unsupported
from .mlir_text import Block, affine_map, tensor_type
from .registry import op
from .traced_array import SymbolicDim, TracedArray

__all__ = ["pad"]

_MODES = {"constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
          "reflect": ("reflect_type",), "symmetric": ("reflect_type",)}
_NUMPY_ONLY = ("linear_ramp", "maximum", "mean", "median", "minimum")


def _leaf(v: Any) -> bool:
    return not isinstance(v, (list, tuple, np.ndarray)) or (isinstance(v, np.ndarray) and v.ndim == 0)


def _pairs(value: Any, ndim: int, what: str) -> list[tuple[Any, Any]]:
    """NumPy's ``_as_pairs``: a scalar, ``(v,)``, ``(before, after)``, ``((before, after),)`` or
    one ``(before, after)`` (or ``(v,)``) per axis, as a pair per axis."""
    if isinstance(value, np.ndarray) and value.ndim:
        value = value.tolist()
    if _leaf(value):
        return [(value, value)] * ndim
    items = list(value)
    if all(_leaf(v) for v in items):
        if len(items) == 1:
            return [(items[0], items[0])] * ndim
        if len(items) == 2:
            return [(items[0], items[1])] * ndim
        raise trace_error(f"numpy.pad: {what} of {len(items)} values cannot be broadcast to ({ndim}, 2)", ValueError)
    rows = [list(r.tolist() if isinstance(r, np.ndarray) else r) if not _leaf(r) else [r] for r in items]
    if len(rows) == 1:
        rows = rows * ndim
    if len(rows) != ndim or any(len(r) not in (1, 2) or not all(_leaf(v) for v in r) for r in rows):
        raise trace_error(f"numpy.pad: {what} cannot be broadcast to ({ndim}, 2)", ValueError)
    return [(r[0], r[-1]) for r in rows]


def _width(v: Any) -> int:
    """A pad width (an integer); a traced one is fixed at the call's value by specialisation."""
    if isinstance(v, (TracedArray, SymbolicDim)):
        v = int(v)  # the result's shape depends on it
    if not isinstance(v, (int, np.integer)):
        raise trace_error("`pad_width` must be of integral type.", TypeError)
    w = int(v)
    if w < 0:
        raise trace_error("index can't contain negative values", ValueError)
    return w


def _source(b: Block, mode: str, t: str, n: str) -> str:
    """The source index along one axis of padded index ``t`` (relative to the array's start,
    so negative before it) for an axis of size ``n`` (at least 1 where it is read)."""
    zero, one = b.const(0, "index"), b.const(1, "index")
    if mode == "edge":
        last = b.op("last", f"arith.subi {n}, {one} : index")
        low = b.op("src", f"arith.maxsi {t}, {zero} : index")
        return b.op("src", f"arith.minsi {low}, {last} : index")
    if mode == "wrap":
        period = n
    elif mode == "reflect":
        period = b.op("period", f"arith.subi {b.op('twice', f'arith.addi {n}, {n} : index')}, "
                                f"{b.const(2, 'index')} : index")
    else:
        period = b.op("period", f"arith.addi {n}, {n} : index")
    degenerate = b.op("degenerate", f"arith.cmpi sle, {period}, {zero} : index")
    period = b.op("period", f"arith.select {degenerate}, {one}, {period} : index")
    r = b.op("r", f"arith.remsi {t}, {period} : index")
    negative = b.op("negative", f"arith.cmpi slt, {r}, {zero} : index")
    m = b.op("m", f"arith.select {negative}, {b.op('r', f'arith.addi {r}, {period} : index')}, {r} : index")
    if mode == "wrap":
        return m
    inside = b.op("inside", f"arith.cmpi slt, {m}, {n} : index")
    back = period if mode == "reflect" else b.op("back", f"arith.subi {period}, {one} : index")
    mirrored = b.op("src", f"arith.subi {back}, {m} : index")
    return b.op("src", f"arith.select {inside}, {m}, {mirrored} : index")


def _fill_value(v: Any, dt: Any) -> Any:
    """A constant to pad with, converted to the array's dtype as NumPy does (unsafe casting)."""
    if isinstance(v, SymbolicDim):
        v = v.as_array()
    if isinstance(v, TracedArray):
        if v.ndim:
            raise trace_error("numpy.pad: constant_values must be scalars", ValueError)
        return lowering.scalar_ssa(elementwise.astype(v, dt.name))
    try:
        v = np.asarray(v).astype(np.dtype(dt.name)).item()
    except TypeError:
        pass  # a dtype NumPy lacks (bfloat16): the constant as given
    return v


def _padded(x: TracedArray, widths: list[tuple[int, int]], mode: str,
            values: list[tuple[Any, Any]]) -> TracedArray:
    """``x`` padded in ``mode``: the array copied into the middle of the result, then for each
    axis ``k`` in turn the slabs before and after it (spanning the padded extent of the axes
    before ``k`` and the array's extent of those after, as NumPy fills them), each a fill of
    its constant or one generic reading ``x`` at the source index of every axis."""
    ctx = x.context
    ctx.begin_op()
    top = ctx.top
    dt = x.element_type
    R = x.ndim
    dims: list[int | None] = []
    sizes: list[str | None] = []
    n_values: list[str] = []
    for k, (before, after) in enumerate(widths):
        d = x.dims[k]
        if mode not in ("constant", "empty") and (before or after):
            if d == 0:
                raise trace_error(f"can't extend empty axis {k} using modes other than 'constant' or 'empty'",
                                  ValueError)
            if d is None:
                ok = top.op("nonempty", f"arith.cmpi sgt, {ctx.dim(x, k)}, {top.const(0, 'index')} : index")
                message = lowering.message_literal(
                    f"can't extend empty axis {k} using modes other than 'constant' or 'empty'")
                top.raw(f'dlpack.assert {ok}, invalid_argument, "{message}"')
        if d is not None:
            dims.append(d + before + after)
            sizes.append(None)
            n_values.append(top.const(d, "index"))
        else:
            n_values.append(ctx.dim(x, k))
            dims.append(None)
            sizes.append(top.op("padded", f"arith.addi {n_values[k]}, {top.const(before + after, 'index')} : index"))
    out_ty = tensor_type(dims, dt)

    def place(into: str, part: str, part_ty: str, offsets: list[Any], part_dims: list[Any]) -> str:
        """``part`` inserted into ``into`` at ``offsets``; a static offset at or past the end of
        a static dim (an empty part) as an SSA value, which the verifier would refuse."""
        offs = [top.const(o, "index") if isinstance(o, int) and d is not None and o >= d else o
                for o, d in zip(offsets, dims)]
        return top.op("padded", f"tensor.insert_slice {part} into {into}[{', '.join(map(str, offs))}]"
                                f"[{', '.join(map(str, part_dims))}][{', '.join(['1'] * R)}] : {part_ty} into {out_ty}")

    out = lowering.empty(ctx, dims, dt, sizes)
    x_sizes = [d if d is not None else n for d, n in zip(x.dims, n_values)]
    out = place(out, x.value, x.mlir_type, [b for b, _ in widths], x_sizes)
    for k, (before, after) in enumerate(widths):
        for side, width in ((0, before), (1, after)):
            if not width:
                continue
            slab_dims = [dims[j] if j < k else width if j == k else x.dims[j] for j in range(R)]
            slab_sizes = [sizes[j] if j < k else None if j == k else (None if x.dims[j] is not None else n_values[j])
                          for j in range(R)]
            slab_ty = tensor_type(slab_dims, dt)
            init = lowering.empty(ctx, slab_dims, dt, slab_sizes)
            if side:
                at_k: Any = before + x.dims[k] if x.dims[k] is not None else top.op(
                    "after", f"arith.addi {n_values[k]}, {top.const(before, 'index')} : index")
            else:
                at_k = 0
            if mode in ("constant", "empty"):
                v = values[k][side] if mode == "constant" else 0
                scalar = v if isinstance(v, str) else lowering.py_const(top, v, dt)
                slab = top.op("slab", f"linalg.fill ins({scalar} : {dt.mlir}) outs({init} : {slab_ty}) -> {slab_ty}")
            else:
                def body(b: Block, _ins: list[str], _out: str, k: int = k, side: int = side) -> str:
                    at = []
                    for j in range(R):
                        i = b.op("i", f"linalg.index {j} : index")
                        if j > k:
                            at.append(i)
                            continue
                        if j == k and side:
                            t = b.op("t", f"arith.addi {i}, {n_values[j]} : index")
                        elif widths[j][0]:
                            t = b.op("t", f"arith.subi {i}, {b.const(widths[j][0], 'index')} : index")
                        else:
                            t = i
                        at.append(_source(b, mode, t, n_values[j]))
                    return b.op("v", f"tensor.extract {x.value}[{', '.join(at)}] : {x.mlir_type}")

                slab = lowering.emit_generic(ctx, "slab", [], [], init, slab_ty, dt,
                                             affine_map(R, [f"d{j}" for j in range(R)]), ["parallel"] * R, body)
            offsets = [0 if j < k else at_k if j == k else widths[j][0] for j in range(R)]
            part = [slab_dims[j] if slab_dims[j] is not None else slab_sizes[j] for j in range(R)]
            out = place(out, slab, slab_ty, offsets, part)
    return TracedArray(ctx, out, dt, dims, sizes=sizes)


@op("pad")
def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
    """``array`` padded by ``pad_width`` (per axis, before and after) in ``mode``."""
    if not lowering.holds_traced(array, pad_width, kwargs):
        return np.pad(array, pad_width, mode, **kwargs)
    if callable(mode):
        raise unsupported("numpy.pad", "a function as mode")
    if mode in _NUMPY_ONLY:
        raise unsupported("numpy.pad", f"mode={mode!r}")
    if mode not in _MODES:
        raise trace_error(f"mode '{mode}' is not supported", ValueError)
    extra = set(kwargs) - set(_MODES[mode])
    if extra:
        raise trace_error(f"unsupported keyword arguments for mode '{mode}': {extra}", ValueError)
    if kwargs.get("reflect_type", "even") != "even":
        if kwargs["reflect_type"] == "odd":
            raise unsupported("numpy.pad", "reflect_type='odd'")
        raise trace_error("reflect_type must be 'even' or 'odd'", ValueError)
    ctx = lowering.context_of(array)
    x = creation.array_operand(ctx, array, "numpy.pad")
    widths = [(_width(b), _width(a)) for b, a in _pairs(pad_width, x.ndim, "pad_width")]
    if not any(b or a for b, a in widths):
        return lowering.copy(x)
    values = [(_fill_value(b, x.element_type), _fill_value(a, x.element_type))
              for b, a in _pairs(kwargs.get("constant_values", 0), x.ndim, "constant_values")]
    return _padded(x, widths, mode, values)
