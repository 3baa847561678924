"""``np.pad`` in the modes ``constant`` (with ``constant_values``), ``edge``, ``reflect``,
``symmetric``, ``wrap`` (and ``empty``, as zeros), with every ``pad_width`` form NumPy takes.

``constant`` joins blocks of the constant to the array axis after axis (``concatenate``), so the
corners take the last axis's value, as NumPy's. The other modes are one ``linalg.generic`` over
the padded array reading the array at a source index computed per axis from the padded index
(clamped for ``edge``, periodic for ``wrap``, mirrored for ``reflect``/``symmetric``): NumPy pads
axis after axis, but each axis's map is independent of the others, so the result is the same.
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


def _holds_traced(*values: Any) -> bool:
    for v in values:
        if isinstance(v, (list, tuple)):
            if _holds_traced(*v):
                return True
        elif isinstance(v, dict):
            if _holds_traced(*v.values()):
                return True
        elif isinstance(v, (TracedArray, SymbolicDim)):
            return True
    return False


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


def _constant(x: TracedArray, widths: list[tuple[int, int]], values: list[tuple[Any, Any]]) -> TracedArray:
    """``x`` with blocks of the constants joined along each axis in turn."""
    dt = x.element_type
    out = x
    for k, ((before, after), (v_before, v_after)) in enumerate(zip(widths, values)):
        if not before and not after:
            continue
        pieces = []
        for width, v in ((before, v_before), (after, v_after)):
            if isinstance(v, SymbolicDim):
                v = v.as_array()
            if isinstance(v, TracedArray):
                if v.ndim:
                    raise trace_error("numpy.pad: constant_values must be scalars", ValueError)
                v = elementwise.astype(v, dt.name)
            else:
                try:
                    v = np.asarray(v).astype(np.dtype(dt.name)).item()
                except TypeError:
                    pass  # a dtype NumPy lacks (bfloat16): the constant as given
            shape = tuple(width if j == k else d for j, d in enumerate(out.shape))
            pieces.append(creation.full(shape, v, dtype=dt.name) if width else None)
        joined = [p for p in (pieces[0], out, pieces[1]) if p is not None]
        out = creation.concatenate(joined, axis=k)
    return out if out is not x else lowering.copy(x)


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


def _gather(x: TracedArray, widths: list[tuple[int, int]], mode: str) -> TracedArray:
    """``x`` padded in ``mode`` (edge, wrap, reflect, symmetric): one generic reading ``x``."""
    ctx = x.context
    ctx.begin_op()
    top = ctx.top
    dims: list[int | None] = []
    sizes: list[str | None] = []
    n_values: list[str] = []
    for k, (before, after) in enumerate(widths):
        d = x.dims[k]
        if d is not None:
            if d == 0 and (before or after):
                raise trace_error(f"can't extend empty axis {k} using modes other than 'constant' or 'empty'",
                                  ValueError)
            dims.append(d + before + after)
            sizes.append(None)
            n_values.append(top.const(d, "index"))
            continue
        n = ctx.dim(x, k)
        if before or after:
            ok = top.op("nonempty", f"arith.cmpi sgt, {n}, {top.const(0, 'index')} : index")
            message = lowering.message_literal(
                f"can't extend empty axis {k} using modes other than 'constant' or 'empty'")
            top.raw(f'dlpack.assert {ok}, invalid_argument, "{message}"')
        dims.append(None)
        sizes.append(top.op("padded", f"arith.addi {n}, {top.const(before + after, 'index')} : index"))
        n_values.append(n)
    dt = x.element_type
    init = lowering.empty(ctx, dims, dt, sizes)
    R = x.ndim

    def body(b: Block, _ins: list[str], _out: str) -> str:
        at = []
        for k, ((before, _after), n) in enumerate(zip(widths, n_values)):
            i = b.op("i", f"linalg.index {k} : index")
            t = b.op("t", f"arith.subi {i}, {b.const(before, 'index')} : index") if before else i
            at.append(_source(b, mode, t, n))
        return b.op("v", f"tensor.extract {x.value}[{', '.join(at)}] : {x.mlir_type}")

    value = lowering.emit_generic(ctx, "padded", [], [], init, tensor_type(dims, dt), dt,
                                  affine_map(R, [f"d{k}" for k in range(R)]), ["parallel"] * R, body)
    return TracedArray(ctx, value, dt, dims, sizes=sizes)


@op("pad")
def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
    """``array`` padded by ``pad_width`` (per axis, before and after) in ``mode``."""
    if not _holds_traced(array, pad_width, kwargs):
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
    if mode in ("constant", "empty"):
        values = _pairs(kwargs.get("constant_values", 0), x.ndim, "constant_values")
        return _constant(x, widths, values)
    if not any(b or a for b, a in widths):
        return lowering.copy(x)
    return _gather(x, widths, mode)
