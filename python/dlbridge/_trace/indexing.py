"""NumPy indexing of traced arrays: ``x[key]`` and ``x[key] = v``.

Basic indexing (integers, slices with any step, ``None``, ``...``) selects a strided region of
the array: ``tensor.extract_slice`` reads it (a view once bufferized, never a copy) and
``tensor.insert_slice`` writes it.  Indices and slice bounds may be Python ints, dynamic sizes
(:class:`SymbolicDim`) or traced integer scalars; bounds are normalised and clamped as NumPy
does, and an integer index out of range is an IndexError (at trace time when the size is static,
else when the function runs).

``flip``/``fliplr``/``flipud`` are views with negative steps.

Advanced indexing takes integer index arrays (lists, NumPy arrays, traced integer arrays) and
concrete boolean masks, whose result shape does not depend on the data; a traced boolean mask can
be written through (``x[x < 0] = 0`` is a select) but not read (the result's size would depend on
the data).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import dtypes as D
from . import lowering, registry, shapes
from .errors import trace_error, unsupported
from .masked import MaskedSelection
from .mlir_text import affine_map, tensor_type
from .registry import op
from .traced_array import SymbolicDim, TraceContext, TracedArray, ViewStep, make_view, public_type, region_hooks

__all__ = [
    "Region", "Selection", "apply_mode", "basic_region", "flip", "fliplr", "flipud", "getitem", "index_operand",
    "is_basic_key", "normalize_axes", "normalize_key", "select",
]

#: A size, offset or stride: a Python int when known while tracing, else an ``index`` SSA value.
Idx = int | str


# --------------------------------------------------------------------------------------------------
# index arithmetic, folded when both sides are known


def _const(ctx: TraceContext, v: Idx) -> str:
    return ctx.top.const(v, "index") if isinstance(v, int) else v


def _binop(ctx: TraceContext, op: str, a: Idx, b: Idx) -> Idx:
    if isinstance(a, int) and isinstance(b, int):
        if op == "addi":
            return a + b
        if op == "subi":
            return a - b
        if op == "muli":
            return a * b
        if op == "minsi":
            return min(a, b)
        if op == "maxsi":
            return max(a, b)
        if op == "ceildivsi":
            return -(-a // b)
        raise AssertionError(op)
    if op == "ceildivsi" and b == 1:
        return a
    if op == "muli" and (a == 1 or b == 1):
        return b if a == 1 else a
    if op in ("addi", "subi") and b == 0:
        return a
    return ctx.top.op("idx", f"arith.{op} {_const(ctx, a)}, {_const(ctx, b)} : index")


def index_product(ctx: TraceContext, a: Idx, b: Idx) -> Idx:
    """``a * b``, folded when both are known while tracing."""
    return _binop(ctx, "muli", a, b)


def _select_negative(ctx: TraceContext, v: Idx, if_negative: Idx, otherwise: Idx) -> Idx:
    """``if_negative if v < 0 else otherwise``."""
    if isinstance(v, int):
        return if_negative if v < 0 else otherwise
    zero = ctx.top.const(0, "index")
    neg = ctx.top.op("neg", f"arith.cmpi slt, {v}, {zero} : index")
    return ctx.top.op(
        "idx", f"arith.select {neg}, {_const(ctx, if_negative)}, {_const(ctx, otherwise)} : index"
    )


def index_value(ctx: TraceContext, v: Any, what: str, kind: str = "index") -> Idx:
    """``v`` as an index: a Python int, or the SSA value of a dynamic size or traced integer.

    Anything else is NumPy's error for ``kind``: an IndexError for an ``"index"``, a TypeError
    for a ``"slice"`` bound or an ``"integer"`` argument (a size, a count, a shift)."""
    if isinstance(v, (bool, np.bool_)) and kind == "index":
        raise trace_error(f"{what}: a boolean is not an integer index", IndexError)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iu":
        return int(v)
    if isinstance(v, SymbolicDim):
        return v._value
    if isinstance(v, TracedArray) and v.ndim == 0 and (v._dtype.is_int):
        if v._is_scalar:
            scalar = v._value
        else:
            scalar = ctx.top.op("elem", f"tensor.extract {v._value}[] : {v.mlir_type}")
        cast = "index_castui" if v._dtype.is_unsigned else "index_cast"
        return ctx.top.op("i", f"arith.{cast} {scalar} : {v._dtype.mlir} to index")
    if kind == "slice":
        raise trace_error(f"{what}: slice indices must be integers or None or have an __index__ method, "
                          f"not {public_type(v)}", TypeError)
    if kind == "integer":
        raise trace_error(f"{what}: '{public_type(v)}' object cannot be interpreted as an integer", TypeError)
    raise trace_error(
        f"{what}: only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
        f"integer or boolean arrays are valid indices, not {public_type(v)}",
        IndexError,
    )


# --------------------------------------------------------------------------------------------------
# keys


@dataclass
class Region:
    """A strided region of an array of rank ``len(offsets)``, and how the view of it is shaped.

    ``offsets``/``sizes``/``strides`` are per dim of the array; ``kept`` lists, per dim of the
    view, the array dim it shows, or None for an axis ``None`` inserted; array dims not in
    ``kept`` were indexed by an integer (size 1, dropped)."""

    offsets: list[Idx]
    sizes: list[Idx]
    strides: list[Idx]
    kept: list[int | None]


def _is_advanced(part: Any) -> bool:
    if isinstance(part, TracedArray):
        return part.ndim > 0 or part._dtype.is_bool
    return isinstance(part, (list, np.ndarray)) and not (
        isinstance(part, np.ndarray) and part.ndim == 0 and part.dtype != np.bool_
    )


def normalize_key(key: Any, ndim: int) -> list[Any]:
    """The parts of ``key`` with the ellipsis expanded into full slices; IndexError for two
    ellipses or more indices than dims, as NumPy."""
    parts = list(key) if isinstance(key, tuple) else [key]
    parts = [list(p) if isinstance(p, tuple) else p for p in parts]  # NumPy: a sequence of indices
    if sum(p is Ellipsis for p in parts) > 1:
        raise trace_error("an index can only have a single ellipsis ('...')", IndexError)
    used = sum(
        1 if p is not None and p is not Ellipsis and not _is_bool_array(p) else
        (_bool_ndim(p) if _is_bool_array(p) else 0)
        for p in parts
    )
    if used > ndim:
        raise trace_error(
            f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed",
            IndexError,
        )
    ellipsis = [j for j, p in enumerate(parts) if p is Ellipsis]
    if ellipsis:
        parts[ellipsis[0] : ellipsis[0] + 1] = [slice(None)] * (ndim - used)
    else:
        parts += [slice(None)] * (ndim - used)
    return parts


def _is_bool_array(p: Any) -> bool:
    if isinstance(p, TracedArray):
        return p._dtype.is_bool and p.ndim > 0
    if isinstance(p, list):
        return len(p) > 0 and all(isinstance(v, (bool, np.bool_)) for v in p)
    return isinstance(p, np.ndarray) and p.dtype == np.bool_


def _bool_ndim(p: Any) -> int:
    return p.ndim if isinstance(p, (TracedArray, np.ndarray)) else 1


def is_basic_key(parts: Sequence[Any]) -> bool:
    """Whether every part is a basic index (no index or mask array)."""
    return not any(_is_advanced(p) for p in parts)


def _slice_bounds(ctx: TraceContext, s: slice, n: Idx, axis: int) -> tuple[Idx, Idx, Idx]:
    """Offset, length and step of ``s`` on a dim of size ``n`` (NumPy's clamping)."""
    if s.step is None:
        step = 1
    else:
        step_v = index_value(ctx, s.step, "slice step", "slice")
        if not isinstance(step_v, int):
            raise unsupported("slicing", "a slice step must be known while tracing (a Python int)")
        step = step_v
    if step == 0:
        raise trace_error("slice step cannot be zero", ValueError)
    start = None if s.start is None else index_value(ctx, s.start, "slice start", "slice")
    stop = None if s.stop is None else index_value(ctx, s.stop, "slice stop", "slice")
    if start is None and stop is None and step == 1:
        return 0, n, 1
    if isinstance(n, int) and isinstance(start, (int, type(None))) and isinstance(stop, (int, type(None))):
        r = range(*slice(start, stop, step).indices(n))
        return (r.start, len(r), step) if len(r) else (0, 0, 1)
    if step == 1 and isinstance(start, str) and isinstance(stop, str) and _is_successor(ctx, stop, start):
        return _unit_slice_start(ctx, start, n, axis, start), 1, 1
    if step == 1 and isinstance(n, str) and isinstance(start, (int, type(None))) and \
            isinstance(stop, (int, type(None))):
        first = 0 if start is None else start
        if (stop == first + 1 and (first >= 0 or stop < 0)) or (first == -1 and stop is None):
            text = f"{'' if start is None else start}:{'' if stop is None else stop}"
            offset = first if first >= 0 else _binop(ctx, "addi", n, first)
            return _unit_slice_start(ctx, _const(ctx, offset), n, axis, text), 1, 1

    def clamp(v: Idx, low: Idx, high: Idx) -> Idx:
        wrapped = _select_negative(ctx, v, _binop(ctx, "addi", v, n), v)
        return _binop(ctx, "minsi", _binop(ctx, "maxsi", wrapped, low), high)

    if step > 0:
        lo = 0 if start is None else clamp(start, 0, n)
        hi = n if stop is None else clamp(stop, 0, n)
        length = _binop(ctx, "ceildivsi", _binop(ctx, "subi", hi, lo), step)
    else:
        last = _binop(ctx, "subi", n, 1)
        lo = last if start is None else clamp(start, -1, last)
        hi = -1 if stop is None else clamp(stop, -1, last)
        length = _binop(ctx, "ceildivsi", _binop(ctx, "subi", lo, hi), -step)
        lo = _binop(ctx, "maxsi", lo, 0)
    return lo, _binop(ctx, "maxsi", length, 0), step


_ADD = re.compile(r"arith\.addi (%[^,\s]+), (%[^,\s]+) : (\w+)")
_CAST = re.compile(r"arith\.index_cast (%[^,\s]+) : \w+ to index")


def _is_successor(ctx: TraceContext, stop: str, start: str) -> bool:
    """Whether the dynamic index ``stop`` was computed as ``start + 1`` (as sizes, or as
    integers then made indices)."""
    defs = ctx.names.defs

    def uncast(v: str) -> str:
        m = _CAST.fullmatch(defs.get(v, ""))
        return m.group(1) if m is not None else v

    start, stop = uncast(start), uncast(stop)
    m = _ADD.fullmatch(defs.get(stop, ""))
    if m is None or start not in m.group(1, 2):
        return False
    other = m.group(2) if m.group(1) == start else m.group(1)
    return defs.get(other) == f"arith.constant 1 : {m.group(3)}"


def _unit_slice_start(ctx: TraceContext, start: str, n: Idx, axis: int, text: str) -> str:
    """The offset ``start`` of a slice of length 1 when in range (``text``: ``k:k+1`` for a
    dynamic ``k``, ``0:1``, ``-1:`` ... on a dynamic dim of size ``n``): such a slice keeps a
    dim of size 1 (``D[:, k:k+1] + D[k:k+1, :]`` broadcasts, as in NumPy), so ``start`` must
    lie in ``[0, n)``, checked when the function runs (NumPy would give an empty slice)."""
    zero = ctx.top.const(0, "index")
    size = _const(ctx, n)
    low = ctx.top.op("in_range", f"arith.cmpi sge, {start}, {zero} : index")
    high = ctx.top.op("in_range", f"arith.cmpi slt, {start}, {size} : index")
    ok = ctx.top.op("in_range", f"arith.andi {low}, {high} : i1")
    shown = "{0}:{0}+1" if text == start else text.replace("{", "{{").replace("}", "}}")
    message = _assert_message(f"slice {shown} is out of bounds for axis {axis} with size {{1}} "
                              "(a slice of one element keeps its size 1)")
    ctx.top.raw(f'dlpack.assert {ok}, index_out_of_range, "{message}" ({start}, {size} : index, index)')
    return start


def _int_index(ctx: TraceContext, v: Any, n: Idx, axis: int) -> Idx:
    """The offset of integer index ``v`` on a dim of size ``n``: NumPy's IndexError when it is
    out of range, at trace time when both are known, else when the function runs."""
    i = index_value(ctx, v, f"index on axis {axis}")
    if isinstance(i, int) and isinstance(n, int):
        if not -n <= i < n:
            raise trace_error(f"index {i} is out of bounds for axis {axis} with size {n}", IndexError)
        return i + n if i < 0 else i
    offset = _select_negative(ctx, i, _binop(ctx, "addi", i, n), i)
    zero = ctx.top.const(0, "index")
    off = _const(ctx, offset)
    size = _const(ctx, n)
    low = ctx.top.op("in_range", f"arith.cmpi sge, {off}, {zero} : index")
    high = ctx.top.op("in_range", f"arith.cmpi slt, {off}, {size} : index")
    ok = ctx.top.op("in_range", f"arith.andi {low}, {high} : i1")
    message = _assert_message(f"index {{0}} is out of bounds for axis {axis} with size {{1}}")
    ctx.top.raw(
        f'dlpack.assert {ok}, index_out_of_range, "{message}" '
        f"({_const(ctx, i)}, {size} : index, index)"
    )
    return offset


def basic_region(x: TracedArray, parts: Sequence[Any]) -> Region:
    """The region of ``x`` that the basic key ``parts`` (from :func:`normalize_key`) selects."""
    ctx = x._ctx
    offsets: list[Idx] = []
    sizes: list[Idx] = []
    strides: list[Idx] = []
    kept: list[int | None] = []
    axis = 0
    for part in parts:
        if part is None:
            kept.append(None)
            continue
        d = x._dims[axis]
        n: Idx = d if d is not None else ctx.dim(x, axis)
        if isinstance(part, slice):
            off, length, step = _slice_bounds(ctx, part, n, axis)
            offsets.append(off)
            sizes.append(length)
            strides.append(step)
            kept.append(axis)
        else:
            offsets.append(_int_index(ctx, part, n, axis))
            sizes.append(1)
            strides.append(1)
        axis += 1
    return Region(offsets, sizes, strides, kept)


def _assert_message(text: str) -> str:
    """A ``dlpack.assert`` message literal of ``text``, whose ``{i}`` are the assert's values (the
    assert's location names the user's line)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _lists(ctx: TraceContext, values: Sequence[Idx]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _offsets(ctx: TraceContext, x: TracedArray, region: Region) -> str:
    """The region's offsets, those at or past the end of a static dim (an empty slice: ``x[5:]``
    of 5 elements, any slice of a dim of 0) as SSA values: the verifier of ``extract_slice`` and
    ``insert_slice`` refuses such static offsets even for an empty slice."""
    values = [ctx.top.const(o, "index") if isinstance(o, int) and d is not None and o >= d else o
              for o, d in zip(region.offsets, x._dims)]
    return _lists(ctx, values)


def _region_dims(region: Region) -> tuple[list[int | None], list[int | None]]:
    """The dims of the extracted slice (array dims kept) and of the view (with new axes)."""
    sliced = [
        region.sizes[a] if isinstance(region.sizes[a], int) else None
        for a in region.kept
        if a is not None
    ]
    view = [
        1 if a is None else (region.sizes[a] if isinstance(region.sizes[a], int) else None)
        for a in region.kept
    ]
    return sliced, view  # type: ignore[return-value]


def extract(x: TracedArray, region: Region) -> TracedArray:
    """The contents of ``region`` of ``x`` (new axes included)."""
    ctx = x._ctx
    sliced_dims, _ = _region_dims(region)
    ty = tensor_type(sliced_dims, x._dtype)
    if _is_identity(x, region):
        value = x._value
    else:
        value = ctx.top.op(
            "slice",
            f"tensor.extract_slice {x._value}{_offsets(ctx, x, region)}"
            f"{_lists(ctx, region.sizes)}{_lists(ctx, region.strides)} : {x.mlir_type} to {ty}",
        )
    kept_sizes = [region.sizes[a] for a in region.kept if a is not None]
    sizes = [z if d is None else None for d, z in zip(sliced_dims, kept_sizes)]
    out = TracedArray(ctx, value, x._dtype, sliced_dims, alias=x._alias, sizes=sizes)  # type: ignore[arg-type]
    new_axes = [j for j, a in enumerate(region.kept) if a is None]
    return lowering.expand_units(ctx, out, new_axes)


def insert(x: TracedArray, region: Region, contents: TracedArray) -> str:
    """The value of ``x`` with ``region`` replaced by ``contents`` (shaped as the view)."""
    ctx = x._ctx
    new_axes = [j for j, a in enumerate(region.kept) if a is None]
    inner = lowering.collapse_units(ctx, contents, new_axes)
    if inner.mlir_type == x.mlir_type and (inner._value == x._value or _is_identity(x, region)):
        return inner._value  # all of x: its new contents are the view's
    return ctx.top.op(
        "inserted",
        f"tensor.insert_slice {inner._value} into {x._value}{_offsets(ctx, x, region)}"
        f"{_lists(ctx, region.sizes)}{_lists(ctx, region.strides)} : {inner.mlir_type} into "
        f"{x.mlir_type}",
    )


# --------------------------------------------------------------------------------------------------
# advanced indexing


def _index_array(ctx: TraceContext, part: Any, axis: int, n: Idx) -> tuple[TracedArray, bool]:
    """An advanced index as an integer array, and whether it was checked while tracing (a
    constant: lists and NumPy arrays; a concrete boolean mask becomes the indices it selects)."""
    if isinstance(part, TracedArray):
        if part._dtype.is_bool:  # a 0-d mask (the others are their indices: mask_indices)
            raise unsupported("indexing", "a 0-d boolean mask among other indices")
        if not part._dtype.is_int:
            raise trace_error("arrays used as indices must be of integer (or boolean) type", IndexError)
        return part, False
    arr = np.asarray(part)
    if arr.dtype == np.bool_:
        if arr.ndim != 1:
            raise unsupported("indexing", "a multi-dimensional boolean mask (use one 1-D mask per axis)")
        text = (
            f"boolean index did not match indexed array along axis {axis}; size of axis is "
            f"{{0}} but size of corresponding boolean axis is {arr.shape[0]}"
        )
        if isinstance(n, int) and arr.shape[0] != n:
            raise trace_error(text.replace("{0}", str(n)), IndexError)
        if not isinstance(n, int):
            same = ctx.top.op("mask_fits", f"arith.cmpi eq, {n}, {_const(ctx, arr.shape[0])} : index")
            ctx.top.raw(f'dlpack.assert {same}, index_out_of_range, "{_assert_message(text)}" ({n} : index)')
        (arr,) = np.nonzero(arr)
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise trace_error("arrays used as indices must be of integer (or boolean) type", IndexError)
    if isinstance(n, int) and arr.size and not (-n <= arr.min() and arr.max() < n):
        bad = int(arr[(arr < -n) | (arr >= n)].flat[0])
        raise trace_error(f"index {bad} is out of bounds for axis {axis} with size {n}", IndexError)
    return lowering.constant_array(ctx, arr.astype(np.int64)), isinstance(n, int)


def _check_indices(arr: TracedArray, size: str, axis: int) -> None:
    """Run-time check that every value of index array ``arr`` is in ``[-size, size)``."""
    ctx = arr._ctx
    i1 = D.dtype("bool")
    init = ctx.top.op("all_in", "tensor.empty() : tensor<i1>")
    true = ctx.top.const(True, "i1")
    init = ctx.top.op("all_in", f"linalg.fill ins({true} : i1) outs({init} : tensor<i1>) -> tensor<i1>")
    neg = _binop(ctx, "subi", 0, size)
    r = arr.ndim

    def body(b: Any, args: list[str], out: str) -> str:
        idx = b.op("i", f"arith.index_cast {args[0]} : {arr._dtype.mlir} to index")
        lo = b.op("lo", f"arith.cmpi sge, {idx}, {neg} : index")
        hi = b.op("hi", f"arith.cmpi slt, {idx}, {size} : index")
        ok = b.op("ok", f"arith.andi {lo}, {hi} : i1")
        return b.op("all", f"arith.andi {out}, {ok} : i1")

    done = lowering.emit_generic(
        ctx, "all_in", [arr], [affine_map(r, [f"d{k}" for k in range(r)])], init, "tensor<i1>",
        i1, affine_map(r, []), ["reduction"] * r, body,
    )
    ok = ctx.top.op("all_in", f"tensor.extract {done}[] : tensor<i1>")
    message = _assert_message(f"an index is out of bounds for axis {axis} with size {{0}}")
    ctx.top.raw(f'dlpack.assert {ok}, index_out_of_range, "{message}" ({size} : index)')


@dataclass
class Selection:
    """What ``x[parts]`` with at least one index array selects: ``view``, the strided view the
    basic parts select (``basic``: ``parts`` with full slices for the index arrays), read at the
    ``adv`` dims by ``arrays`` (integer index arrays, checked in bounds when ``checked``). The
    selection's dims are NumPy's (``dims``, the dynamic ones' sizes in ``sizes``): the broadcast
    index dims (``B`` of them, from ``bstart``) replace the indexed dims when those are
    adjacent, else come first; ``position`` maps the view's other dims to the selection's."""

    basic: list[Any]
    view: TracedArray
    adv: list[int]
    arrays: list[TracedArray]
    dims: list[int | None]
    sizes: list[str | None]
    position: dict[int, int]
    bstart: int
    B: int
    extents: dict[int, str]
    checked: bool

    def index_at(self, n: int) -> list[str]:
        """The affine results reading ``arrays[n]`` at a position of the selection (``d<i>``)."""
        a, end = self.arrays[n], self.bstart + self.B
        return ["0" if a._dims[k] == 1 else f"d{end - a.ndim + k}" for k in range(a.ndim)]

    def view_coords(self, b: Any, indices: list[str], iv: Callable[[int], str]) -> list[str]:
        """Emits into ``b`` the coordinates in ``view`` of the selection's element at the
        position whose ``i``-th coordinate is ``iv(i)``, where ``indices`` are the index
        arrays' elements there (negative indices wrap)."""
        coords: list[str] = []
        for j in range(self.view.ndim):
            if j in self.adv:
                n = self.adv.index(j)
                idx = b.op("i", f"arith.index_cast {indices[n]} : {self.arrays[n]._dtype.mlir} to index")
                neg = b.op("neg", f"arith.cmpi slt, {idx}, {b.const(0, 'index')} : index")
                wrapped = b.op("w", f"arith.addi {idx}, {self.extents[j]} : index")
                coords.append(b.op("i", f"arith.select {neg}, {wrapped}, {idx} : index"))
            else:
                coords.append(iv(self.position[j]))
        return coords


def mask_indices(x: TracedArray, parts: Sequence[Any]) -> list[Any]:
    """``parts`` with each traced boolean mask replaced by the index arrays of its True elements
    (``np.nonzero``: NumPy's definition of a mask among other indices, a size known when the call
    runs), its shape checked against the dims of ``x`` it covers (NumPy's IndexError)."""
    ctx = x._ctx
    out: list[Any] = []
    axis = 0
    for part in parts:
        if not (isinstance(part, TracedArray) and part._dtype.is_bool and part.ndim > 0):
            out.append(part)
            axis += part is not None
            continue
        for k in range(part.ndim):
            n = x._dims[axis + k] if x._dims[axis + k] is not None else ctx.dim(x, axis + k)
            m = part._dims[k] if part._dims[k] is not None else ctx.dim(part, k)
            text = (f"boolean index did not match indexed array along axis {axis + k}; size of axis is "
                    f"{{0}} but size of corresponding boolean axis is {{1}}")
            if isinstance(n, int) and isinstance(m, int):
                if m != n:
                    raise trace_error(text.replace("{0}", str(n)).replace("{1}", str(m)), IndexError)
            else:
                size, length = _const(ctx, n), _const(ctx, m)
                same = ctx.top.op("mask_fits", f"arith.cmpi eq, {size}, {length} : index")
                ctx.top.raw(f'dlpack.assert {same}, index_out_of_range, "{_assert_message(text)}" '
                            f"({size}, {length} : index, index)")
        out.extend(registry.lookup("nonzero").impl(part))  # type: ignore[union-attr]
        axis += part.ndim
    return out


def select(x: TracedArray, parts: Sequence[Any]) -> Selection:
    """The :class:`Selection` of ``x[parts]`` (``parts`` from :func:`normalize_key`, at least
    one an index array or traced mask: :func:`mask_indices`), its index arrays checked in bounds."""
    ctx = x._ctx
    parts = mask_indices(x, parts)
    if any(p is None for p in parts):
        raise unsupported("indexing", "numpy.newaxis combined with index arrays")
    basic = [slice(None) if _is_advanced(p) else p for p in parts]
    region = basic_region(x, basic)
    view = extract(x, region)
    view_axes = [a for a in region.kept if a is not None]
    adv: list[int] = []
    arrays: list[TracedArray] = []
    all_checked = True  # every index array checked in bounds, while tracing or by the call
    for axis, part in enumerate(parts):
        if not _is_advanced(part):
            continue
        j = view_axes.index(axis)
        extent = view._dims[j] if view._dims[j] is not None else ctx.dim(view, j)
        arr, checked = _index_array(ctx, part, axis, extent)
        if not checked and arr.ndim:
            _check_indices(arr, _const(ctx, extent), axis)
            checked = True
        all_checked = all_checked and checked
        adv.append(j)
        arrays.append(arr)
    bdims, bsrcs = lowering.broadcast(arrays)
    B = len(bdims)
    others = [j for j in range(view.ndim) if j not in adv]
    adjacent = adv == list(range(adv[0], adv[0] + len(adv)))
    before = [j for j in others if adjacent and j < adv[0]]
    after = [j for j in others if j not in before]
    bstart = len(before)
    position = {j: i for i, j in enumerate(before)}
    position.update({j: bstart + B + i for i, j in enumerate(after)})
    R = len(before) + B + len(after)
    dims: list[int | None] = [view._dims[j] for j in before] + list(bdims) + [view._dims[j] for j in after]
    sizes: list[str | None] = [None] * R
    for j, i in position.items():
        if view._dims[j] is None:
            sizes[i] = ctx.dim(view, j)
    for k, src in enumerate(bsrcs):
        if bdims[k] is None and src is not None:
            sizes[bstart + k] = ctx.dim(src[0], src[1])
    extents = {
        j: _const(ctx, view._dims[j] if view._dims[j] is not None else ctx.dim(view, j)) for j in adv
    }
    return Selection(basic, view, adv, arrays, dims, sizes, position, bstart, B, extents, all_checked)


def _gather(x: TracedArray, parts: Sequence[Any]) -> TracedArray:
    """``x[parts]`` with at least one index array: one ``linalg.generic`` over the
    :class:`Selection` reads its view with ``tensor.extract`` at the indexed positions."""
    ctx = x._ctx
    sel = select(x, parts)
    R = len(sel.dims)

    def body(b: Any, args: list[str], _out: str) -> str:
        coords = sel.view_coords(b, args, lambda i: b.op("d", f"linalg.index {i} : index"))
        # checked above: dlbridge-check-data-indices leaves the gather parallel
        in_bounds = " {dlpack.in_bounds}" if sel.checked else ""
        return b.op("g", f"tensor.extract {sel.view._value}[{', '.join(coords)}]{in_bounds} : "
                         f"{sel.view.mlir_type}")

    ty = tensor_type(sel.dims, x._dtype)
    out = lowering.emit_generic(
        ctx, "gathered", sel.arrays, [affine_map(R, sel.index_at(n)) for n in range(len(sel.arrays))],
        lowering.empty(ctx, sel.dims, x._dtype, sel.sizes), ty, x._dtype,
        affine_map(R, [f"d{j}" for j in range(R)]), ["parallel"] * R, body,
    )
    return TracedArray(ctx, out, x._dtype, sel.dims, sizes=sel.sizes)


# --------------------------------------------------------------------------------------------------
# reads


def getitem(x: TracedArray, key: Any, *, view: bool = False) -> TracedArray:
    """``x[key]``: a view of ``x`` for a basic key (NumPy's view semantics: writes through it
    update ``x``), except a key of one integer per dim, which gives the element as a NumPy
    scalar (a copy) unless ``view`` (the region an assignment stores into); a new array for
    index arrays."""
    if x._is_scalar:
        raise trace_error("invalid index to scalar variable", IndexError)
    lowering.lift(x._ctx, x, "indexing")
    x._ctx.begin_op()
    parts = normalize_key(key, x.ndim)
    mask = _sole_mask(parts)
    if mask is not None:
        return MaskedSelection.select(x, mask)  # type: ignore[return-value]
    if not is_basic_key(parts):
        return _gather(x, parts)
    region = basic_region(x, parts)
    contents = extract(x, region)
    if not view and _selects_an_element(key, parts, x.ndim):
        # NumPy gives a scalar, a copy: the element's value now, not a view that later writes
        # to ``x`` change (``a[0], a[1] = a[1], a[0]`` swaps)
        return contents
    _, view_dims = _region_dims(region)
    perm = tuple(range(x.ndim)) if _is_identity(x, region) else None
    view = make_view(x, contents._value, view_dims, "indexing", perm, None if perm else region,
                     step=region_step(region))
    view._dim_ssa = dict(contents._dim_ssa)
    return view


def _selects_an_element(key: Any, parts: Sequence[Any], ndim: int) -> bool:
    """Whether ``x[key]`` is one element as a NumPy scalar: an integer for every dim and nothing
    else (``x[..., 0]`` of a 1-D array is a 0-d view, ``x[True]`` a selection)."""
    keys = key if isinstance(key, tuple) else (key,)
    if len(keys) != ndim or len(parts) != ndim:
        return False
    return all(isinstance(k, (int, np.integer, SymbolicDim)) and not isinstance(k, (bool, np.bool_))
               or isinstance(k, TracedArray) and k.ndim == 0 and k.element_type.is_int for k in keys)


def region_step(region: Region, op: str = "indexing") -> ViewStep:
    """How the view of ``region`` of an array reads it (``tensor.extract_slice``) and writes it
    (``tensor.insert_slice``)."""

    def write(parent: TracedArray, new: TracedArray) -> TracedArray:
        out = TracedArray(parent._ctx, insert(parent, region, new), parent._dtype, parent._dims)
        out._dim_ssa = dict(parent._dim_ssa)
        return out

    return ViewStep(op, lambda parent: extract(parent, region), write)


def _sole_mask(parts: Sequence[Any]) -> TracedArray | None:
    """The traced boolean mask of a key that is one over the leading dims (``x[mask]``,
    ``x[mask, :]``), else None."""
    rest = [p for p in parts[1:]
            if not (isinstance(p, slice) and p.start is None and p.stop is None and p.step is None)]
    first = parts[0] if parts else None
    if not rest and isinstance(first, TracedArray) and first._dtype.is_bool and first.ndim > 0:
        return first
    return None


def _is_identity(x: TracedArray, region: Region) -> bool:
    """Whether ``region`` is all of ``x`` with its dims in order (``x[...]``, ``x[:, :]``)."""
    ctx = x._ctx
    return (
        region.kept == list(range(x.ndim))
        and all(o == 0 for o in region.offsets)
        and all(s == 1 for s in region.strides)
        and all(
            z == (d if d is not None else ctx.dim(x, a))
            for a, (z, d) in enumerate(zip(region.sizes, x._dims))
        )
    )


def compose(ctx: TraceContext, outer: Region, inner: Region) -> Region | None:
    """The region of an array that ``inner`` (a region of the view ``outer`` shows) is, or None
    when it is not one (a slice of an inserted axis that is not all of it)."""
    offsets, sizes, strides = list(outer.offsets), list(outer.sizes), list(outer.strides)
    for j, a in enumerate(outer.kept):
        o, z, s = inner.offsets[j], inner.sizes[j], inner.strides[j]
        if a is None:
            if o != 0 or z != 1:
                return None
            continue
        offsets[a] = _binop(ctx, "addi", outer.offsets[a], _binop(ctx, "muli", outer.strides[a], o))
        strides[a] = _binop(ctx, "muli", outer.strides[a], s)
        sizes[a] = z
    kept = [None if k is None else outer.kept[k] for k in inner.kept]
    return Region(offsets, sizes, strides, kept)


def permute(perm: Sequence[int], region: Region) -> Region | None:
    """The region of an array that ``region`` of its transpose by ``perm`` (view dim ``j`` is
    array dim ``perm[j]``) is, or None when the view shows the array's dims out of their order
    (a slice of ``x.T`` that keeps both dims)."""
    kept = [None if k is None else perm[k] for k in region.kept]
    shown = [k for k in kept if k is not None]
    if shown != sorted(shown):
        return None
    offsets: list[Idx] = [0] * len(perm)
    sizes: list[Idx] = [0] * len(perm)
    strides: list[Idx] = [1] * len(perm)
    for j, a in enumerate(perm):
        offsets[a], sizes[a], strides[a] = region.offsets[j], region.sizes[j], region.strides[j]
    return Region(offsets, sizes, strides, kept)


region_hooks["compose"] = compose
region_hooks["permute"] = permute
region_hooks["extract"] = extract


# --------------------------------------------------------------------------------------------------
# reversing: views with negative steps


def normalize_axes(axis: Any, ndim: int, name: str, *, allow_none: bool = True) -> tuple[int, ...]:
    """``axis`` (None: every axis, an int or a sequence of ints) as sorted non-negative axes of
    an array of ``ndim`` dims; NumPy's AxisError when one is out of range, ValueError for a
    repeated one and TypeError for one that is not an int."""
    if axis is None:
        if not allow_none:
            raise trace_error(f"{name}: axis must be an integer, not None", TypeError)
        return tuple(range(ndim))
    items = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    out: list[int] = []
    for a in items:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise trace_error(f"{name}: axis must be an integer or a tuple of integers, not {a!r}", TypeError)
        a = int(a)
        if not -ndim <= a < ndim:
            raise trace_error(f"{name}: axis {a} is out of bounds for array of dimension {ndim}",
                              np.exceptions.AxisError)
        if a % ndim in out:
            raise trace_error(f"{name}: repeated axis", ValueError)
        out.append(a % ndim)
    return tuple(sorted(out))


def _traced(m: Any, name: str) -> TracedArray:
    ctx = lowering.context_of(m)
    return lowering.to_tensor(ctx, lowering.lift(ctx, m, name))


@op("flip")
def flip(m: Any, axis: Any = None) -> TracedArray:
    """``m`` reversed along ``axis`` (None: every axis): a view with negative steps."""
    x = _traced(m, "numpy.flip")
    axes = normalize_axes(axis, x.ndim, "numpy.flip")
    return getitem(x, tuple(slice(None, None, -1) if k in axes else slice(None) for k in range(x.ndim)))


@op("fliplr")
def fliplr(m: Any) -> TracedArray:
    """``m`` reversed along axis 1 (columns); ``m`` must have at least 2 dims."""
    x = _traced(m, "numpy.fliplr")
    if x.ndim < 2:
        raise trace_error("fliplr: Input must be >= 2-d.", ValueError)
    return flip(x, 1)


@op("flipud")
def flipud(m: Any) -> TracedArray:
    """``m`` reversed along axis 0 (rows); ``m`` must have at least 1 dim."""
    x = _traced(m, "numpy.flipud")
    if x.ndim < 1:
        raise trace_error("flipud: Input must be >= 1-d.", ValueError)
    return flip(x, 0)


# --------------------------------------------------------------------------------------------------
# gathers along an axis: take, take_along_axis; open meshes: ix_


def axis_iota(ctx: TraceContext, size: Idx, axis: int, ndim: int) -> TracedArray:
    """``0, 1, ..., size - 1`` (int64) along dim ``axis`` of an array of ``ndim`` dims whose other
    dims are 1: the index array that selects every position of that axis in a fancy key."""
    dims: list[int | None] = [1] * ndim
    dims[axis] = size if isinstance(size, int) else None
    sizes: list[str | None] = [None] * ndim
    if not isinstance(size, int):
        sizes[axis] = size
    i64 = D.INT64

    def body(b: Any, _args: list[str], _out: str) -> str:
        i = b.op("i", f"linalg.index {axis} : index")
        return b.op("i", f"arith.index_cast {i} : index to i64")

    value = lowering.emit_generic(
        ctx, "iota", [], [], lowering.empty(ctx, dims, i64, sizes), tensor_type(dims, i64), i64,
        affine_map(ndim, [f"d{j}" for j in range(ndim)]), ["parallel"] * ndim, body,
    )
    return TracedArray(ctx, value, i64, dims, sizes=sizes)


def _extent(x: TracedArray, k: int) -> Idx:
    d = x._dims[k]
    return d if d is not None else x._ctx.dim(x, k)


def index_operand(ctx: TraceContext, indices: Any, what: str) -> Any:
    """``indices`` as a traced integer array, or a NumPy integer array when known while tracing."""
    if isinstance(indices, TracedArray):
        lowering.lift(ctx, indices, what)
        if not (indices._dtype.is_int or (indices._dtype.is_bool and indices.ndim == 0)):
            raise trace_error(f"{what}: Cannot cast array data from dtype('{indices._dtype.name}') to "
                              "dtype('int64') according to the rule 'safe'", TypeError)
        return indices
    arr = np.asarray(indices)
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iub":
        raise trace_error(f"{what}: Cannot cast array data from dtype('{arr.dtype}') to dtype('int64') according "
                          "to the rule 'safe'", TypeError)
    return arr.astype(np.int64)


def apply_mode(ctx: TraceContext, indices: Any, n: Idx, mode: str, what: str) -> Any:
    """``indices`` into an axis of ``n`` by NumPy's ``mode``: as they are (``"raise"``: the
    gather checks them), modulo ``n`` (``"wrap"``) or clipped to ``[0, n - 1]`` (``"clip"``)."""
    if mode == "raise":
        return indices
    if mode not in ("wrap", "clip"):
        raise trace_error(f"{what}: clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})", ValueError)
    if isinstance(n, int) and n == 0 and np.size(indices):
        raise trace_error(f"{what}: cannot do a non-empty take from an empty axes.", IndexError)
    if isinstance(indices, np.ndarray) and isinstance(n, int):
        return indices % n if mode == "wrap" else np.clip(indices, 0, n - 1)
    size: Any = n if isinstance(n, int) else TracedArray(
        ctx, ctx.top.op("n", f"arith.index_cast {n} : index to i64"), D.INT64, (), is_scalar=True)
    if mode == "wrap":
        return np.remainder(lowering.lift(ctx, indices, what), size)
    return np.clip(lowering.lift(ctx, indices, what), 0, np.subtract(size, 1))


@op("take", method="take")
def take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Any:
    """The elements of ``a`` at ``indices`` along ``axis`` (None: of ``a`` flattened), out of
    range ones as ``mode`` says: an IndexError (``"raise"``), wrapped or clipped."""
    ctx = lowering.context_of(a, indices)
    x = lowering.to_tensor(ctx, lowering.lift(ctx, a, "numpy.take"))
    if axis is None:
        x = shapes.reshape(x, (-1,))
        axis = 0
    (k,) = normalize_axes(axis, x.ndim, "numpy.take", allow_none=False) if x.ndim else (None,)
    if k is None:
        raise trace_error("numpy.take: axis 0 is out of bounds for array of dimension 0", np.exceptions.AxisError)
    ind = index_operand(ctx, indices, "numpy.take")
    ind = apply_mode(ctx, ind, _extent(x, k), mode, "numpy.take")
    if isinstance(ind, np.ndarray) and ind.ndim == 0:
        ind = int(ind)
    r = getitem(x, (slice(None),) * k + (ind,))
    r = lowering.copy(r) if r._base is not None else r  # a new array, not a view
    if out is None:
        return r
    registry.lookup("copyto").impl(out, r, casting="unsafe")  # type: ignore[union-attr]
    return out


def along_axis_key(arr: TracedArray, indices: TracedArray | np.ndarray, axis: int) -> tuple[Any, ...]:
    """NumPy's ``_make_along_axis_idx``: the fancy key that pairs ``indices`` along ``axis`` with
    every position of ``arr``'s other axes (broadcast together)."""
    ctx = arr._ctx
    if indices.ndim != arr.ndim:
        raise trace_error("`indices` and `arr` must have the same number of dimensions", ValueError)
    return tuple(indices if k == axis else axis_iota(ctx, _extent(arr, k), k, arr.ndim) for k in range(arr.ndim))


def _along_axis(arr: Any, indices: Any, axis: Any, what: str) -> tuple[TracedArray, Any, int]:
    ctx = lowering.context_of(arr, indices)
    x = lowering.to_tensor(ctx, lowering.lift(ctx, arr, what))
    ind = index_operand(ctx, indices, what)
    if isinstance(ind, TracedArray) and ind._dtype.is_bool:
        raise trace_error(f"{what}: `indices` must be an integer array", IndexError)
    if axis is None:
        if ind.ndim != 1:
            raise trace_error("when axis=None, `indices` must have a single dimension.", ValueError)
        return shapes.reshape(x, (-1,)), ind, 0
    (k,) = normalize_axes(axis, x.ndim, what, allow_none=False)
    return x, ind, k


@op("take_along_axis")
def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> TracedArray:
    """The elements of ``arr`` that ``indices`` pick along ``axis`` at each position of the
    other axes (the values ``argsort``/``argmax(keepdims=True)`` point at)."""
    x, ind, k = _along_axis(arr, indices, axis, "numpy.take_along_axis")
    return getitem(x, along_axis_key(x, ind, k))


@op("ix_")
def ix_(*args: Any) -> tuple[Any, ...]:
    """Open-mesh index arrays: the ``k``-th of ``n`` sequences shaped to lie along dim ``k`` of
    ``n`` (``a[np.ix_(rows, cols)]`` selects a sub-grid); boolean sequences give their indices."""
    if not any(isinstance(a, TracedArray) for a in args):
        return tuple(np.ix_(*args))
    ctx = lowering.context_of(*args)
    out: list[Any] = []
    n = len(args)
    meshes = np.ix_(*[np.zeros(1, np.intp) if isinstance(a, TracedArray) else a for a in args])
    for k, seq in enumerate(args):
        if not isinstance(seq, TracedArray):
            out.append(meshes[k])
            continue
        if seq.ndim != 1:
            raise trace_error("Cross index must be 1 dimensional", ValueError)
        if seq._dtype.is_bool:
            (seq,) = registry.lookup("nonzero").impl(seq)  # type: ignore[union-attr]
        elif not seq._dtype.is_int:
            raise trace_error("arrays used as indices must be of integer (or boolean) type", IndexError)
        out.append(lowering.expand_units(ctx, seq, [j for j in range(n) if j != k]))
    return tuple(out)
