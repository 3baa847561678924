"""Sorting and searching: ``sort``, ``argsort`` (``ndarray.sort`` sorts through ``sort``),
``lexsort``, ``partition``/``argpartition`` (a full stable sort, one valid partition) and
``searchsorted``, in NumPy's order (NaNs last; complex numbers by real part, then imaginary
part), stable as NumPy's ``kind="stable"``.

A sort moves the sorted axis last and sorts every row of the last axis. How rows are merged is
per-target knowledge (:data:`ROW_SORTS`): on the CPU a thread per row runs a sequential
bottom-up merge sort (n log n work, parallel across rows); on CUDA every element is a thread of
each merge pass (:func:`_merge_by_ranks`: n log² n work, parallel across rows *and* along
them, so that one long row fills the GPU as well as many short ones)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import creation, elementwise, indexing, lowering, shapes
from . import dtypes as D
from .errors import trace_error, unsupported
from .mlir_text import Block, affine_map, tensor_type
from .registry import op
from .traced_array import SymbolicDim, TracedArray, public_type

__all__ = ["argpartition", "argsort", "lexsort", "partition", "searchsorted", "sort"]


def _array(a: Any, name: str) -> TracedArray:
    ctx = lowering.context_of(a)
    return lowering.to_tensor(ctx, lowering.lift(ctx, a, name))


def _complex_less(b: Block, a: str, c: str, dt: D.DType) -> str:
    """``a < c`` of complex scalars in NumPy's sort order (``CDOUBLE_LT`` of npysort): by real
    part, then imaginary part, with NaNs last in either."""
    comp = dt.component
    ar, ai = lowering.complex_parts(b, a, dt)
    cr, ci = lowering.complex_parts(b, c, dt)
    t = comp.mlir

    def f(pred: str, u: str, v: str) -> str:
        return b.op("c", f"arith.cmpf {pred}, {u}, {v} : {t}")

    def both(p: str, q: str, op: str = "andi") -> str:
        return b.op("c", f"arith.{op} {p}, {q} : i1")

    a_imag_num, c_imag_nan = f("ord", ai, ai), f("uno", ci, ci)
    real_less = both(a_imag_num, c_imag_nan, "ori")                      # a.real < c.real
    real_more = both(c_imag_nan, a_imag_num)                              # a.real > c.real
    same = both(f("oeq", ar, cr), both(f("uno", ar, ar), f("uno", cr, cr)), "ori")
    by_imag = both(f("olt", ai, ci), both(c_imag_nan, a_imag_num), "ori")  # equal (or both NaN) reals
    otherwise = f("uno", cr, cr)
    r = b.op("c", f"arith.select {same}, {by_imag}, {otherwise} : i1")
    r = b.op("c", f"arith.select {f('ogt', ar, cr)}, {real_more}, {r} : i1")
    return b.op("c", f"arith.select {f('olt', ar, cr)}, {real_less}, {r} : i1")


def _greater(b: Block, x: str, y: str, dt: D.DType) -> str:
    """``x > y`` in NumPy's sort order, where NaN is above every number."""
    if dt.is_complex:
        return _complex_less(b, y, x, dt)
    gt = lowering.compare(b, "gt", x, y, dt)
    if not dt.is_float:
        return gt
    x_nan = b.op("nan", f"arith.cmpf uno, {x}, {x} : {dt.mlir}")
    y_num = b.op("num", f"arith.cmpf ord, {y}, {y} : {dt.mlir}")
    return b.op("gt", f"arith.ori {gt}, {b.op('nan_gt', f'arith.andi {x_nan}, {y_num} : i1')} : i1")


def _last_axis(x: TracedArray, axis: Any, name: str) -> tuple[TracedArray, int | None]:
    """``x`` with ``axis`` moved last (flattened for None), and the axis to move it back to."""
    if axis is None:
        return shapes.reshape(x, -1), None
    (ax,) = indexing.normalize_axes(axis, x.ndim, f"numpy.{name}", allow_none=False)
    if ax == x.ndim - 1:
        return x, ax
    perm = [k for k in range(x.ndim) if k != ax] + [ax]
    return shapes.transpose(x, tuple(perm)), ax


def _moved_back(r: TracedArray, ax: int | None) -> TracedArray:
    if ax is None or ax == r.ndim - 1:
        return r
    perm = list(range(r.ndim - 1))
    perm.insert(ax, r.ndim - 1)
    return shapes.transpose(r, tuple(perm))


def _merge_each_row(x: TracedArray, indices: bool) -> TracedArray:
    """The CPU's sort of the rows of ``x`` (rank >= 2): an ``scf.forall`` over the rows whose
    body copies its row and sorts it by :func:`_merge_sort`, n log n work on one thread a row."""
    ctx = x._ctx
    ctx.begin_op()
    R = x.ndim
    dt = x._dtype
    out_dt = D.INT64 if indices else dt
    sizes = [ctx.dim(x, k) if x._dims[k] is None else None for k in range(R)]
    ty, out_ty = tensor_type(x._dims, dt), tensor_type(x._dims, out_dt)
    row_ty, idx_ty = tensor_type([x._dims[-1]], dt), tensor_type([x._dims[-1]], D.INT64)
    top = ctx.top
    init = lowering.empty(ctx, x._dims, out_dt, sizes)
    n = ctx.dim(x, R - 1)
    fresh = ctx.names.fresh
    ivs = ["%" + fresh("i") for _ in range(R - 1)]
    shared, res = "%" + fresh("o"), "%" + fresh("argsort" if indices else "sort")
    extents = ", ".join(["1"] * (R - 1) + [str(x._dims[-1]) if x._dims[-1] is not None else n])
    slice_at = f"[{', '.join([*ivs, '0'])}] [{extents}] [{', '.join(['1'] * R)}]"
    body = Block(ctx.names, indent=top.indent + 1)
    row = body.op("row", f"tensor.extract_slice {x._value}{slice_at} : {ty} to {row_ty}")
    carried = [(row, row_ty)]
    if indices:
        empty = body.op("idx", f"tensor.empty({'' if x._dims[-1] is not None else n}) : {idx_ty}")
        iota = "%" + fresh("iota")
        body.raw(f"{iota} = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>], "
                 f"iterator_types = [\"parallel\"]}} outs({empty} : {idx_ty}) {{")
        body.raw(f"^bb0(%{fresh('unused')}: i64):")
        k_i = "%" + fresh("k")
        body.raw(f"  {k_i} = linalg.index 0 : index")
        k64 = "%" + fresh("k")
        body.raw(f"  {k64} = arith.index_cast {k_i} : index to i64")
        body.raw(f"  linalg.yield {k64} : i64")
        body.raw(f"}} -> {idx_ty}")
        carried.append((iota, idx_ty))
    sorted_rows = _merge_sort(ctx, body, carried, n, "" if x._dims[-1] is not None else n, dt)
    result_row = sorted_rows[1 if indices else 0]
    body.raw("scf.forall.in_parallel {")
    body.raw(f"  tensor.parallel_insert_slice {result_row} into {shared}{slice_at} : "
             f"{idx_ty if indices else row_ty} into {out_ty}")
    body.raw("}")
    bounds = [ctx.dim(x, k) for k in range(R - 1)]
    top.raw(f"{res} = scf.forall ({', '.join(ivs)}) in ({', '.join(bounds)}) shared_outs({shared} = {init}) "
            f"-> ({out_ty}) {{")
    top.lines.extend(body.lines)
    top.raw("}")
    return TracedArray(ctx, res, out_dt, x._dims, sizes=sizes)


def _merge_sort(ctx: Any, body: Block, rows: list[tuple[str, str]], n: str, dynamic: str, dt: D.DType) -> list[str]:
    """Emits into ``body`` a bottom-up merge sort of the 1-D tensors ``rows`` (values, then
    optionally their indices, moved along) of length ``n`` by the values, stable, NaNs last.

    Passes (:func:`_doublings` counts them) double the run width, merging pairs of runs from
    one buffer into the other (:func:`_merge_runs`). An ``scf.for`` runs them two at a time,
    there and back, so that each buffer it carries stays the same buffer (swapping them would
    copy both every pass); an odd count ends with a pass that only copies back. ``dynamic`` is
    the size operand of ``tensor.empty`` for the scratch buffers ("" for a static length).
    Returns the sorted tensors."""
    fresh = ctx.names.fresh
    types = [t for _, t in rows]
    all_types = ", ".join(["index", *types, *types])
    scratch = [body.op("scratch", f"tensor.empty({dynamic}) : {t}") for t in types]
    count = _doublings(ctx, body, body.const(1, "index"), n)
    rounds = body.op("rounds", f"arith.ceildivui {count}, {body.const(2, 'index')} : index")
    width = "%" + fresh("width")
    src = ["%" + fresh("src") for _ in rows]
    dst = ["%" + fresh("dst") for _ in rows]
    passes = "%" + fresh("passes")
    both = Block(ctx.names, indent=body.indent + 1)
    there = _merge_runs(ctx, both, src, dst, types, width, n, dt)
    wider = both.op("width", f"arith.muli {width}, {both.const(2, 'index')} : index")
    back = _merge_runs(ctx, both, there, src, types, wider, n, dt)
    widest = both.op("width", f"arith.muli {wider}, {both.const(2, 'index')} : index")
    both.raw(f"scf.yield {', '.join([widest, *back, *there])} : {all_types}")
    carried = zip([width, *src, *dst], [body.const(1, "index"), *(r for r, _ in rows), *scratch])
    body.raw(f"{passes}:{1 + 2 * len(rows)} = scf.for {'%' + fresh('round')} = {body.const(0, 'index')} to {rounds} "
             f"step {body.const(1, 'index')} iter_args({', '.join(f'{a} = {v}' for a, v in carried)}) -> "
             f"({all_types}) {{")
    body.lines.extend(both.lines)
    body.raw("}")
    return [f"{passes}#{1 + r}" for r in range(len(rows))]


def _merge_runs(ctx: Any, block: Block, src: list[str], dst: list[str], types: list[str], width: str, n: str,
                dt: D.DType) -> list[str]:
    """Emits into ``block`` one merge pass: the pairs of sorted runs of ``width`` in ``src``
    (values, then the indices moved with them; of ``types``, length ``n``) merged into ``dst``,
    by an ``scf.for`` over the pairs and an ``scf.for`` over the merged elements carrying both
    read positions. Returns the updated ``dst`` tensors."""
    fresh = ctx.names.fresh
    pair = block.op("pair", f"arith.muli {width}, {block.const(2, 'index')} : index")
    last = block.op("last", f"arith.subi {n}, {block.const(1, 'index')} : index")
    lo, out, out2 = "%" + fresh("lo"), ["%" + fresh("out") for _ in src], ["%" + fresh("out") for _ in src]
    k, i, j = "%" + fresh("k"), "%" + fresh("i"), "%" + fresh("j")
    merged, passed = "%" + fresh("merged"), "%" + fresh("passed")
    runs = Block(ctx.names, indent=block.indent + 1)
    mid = runs.op("mid", f"arith.minui {runs.op('mid', f'arith.addi {lo}, {width} : index')}, {n} : index")
    hi = runs.op("hi", f"arith.minui {runs.op('hi', f'arith.addi {lo}, {pair} : index')}, {n} : index")
    step = Block(ctx.names, indent=runs.indent + 1)
    at_i = step.op("at", f"arith.minui {i}, {last} : index")
    at_j = step.op("at", f"arith.minui {j}, {last} : index")
    left = step.op("left", f"tensor.extract {src[0]}[{at_i}] : {types[0]}")
    right = step.op("right", f"tensor.extract {src[0]}[{at_j}] : {types[0]}")
    has_left = step.op("has_left", f"arith.cmpi ult, {i}, {mid} : index")
    no_right = step.op("no_right", f"arith.cmpi uge, {j}, {hi} : index")
    # stable: the left element goes first unless the right one is smaller
    right_first = _greater(step, left, right, dt)
    left_first = step.op("left_first", f"arith.xori {right_first}, {step.const(True, 'i1')} : i1")
    take = step.op("take", f"arith.andi {has_left}, {step.op('take', f'arith.ori {no_right}, {left_first} : i1')} : i1")
    placed = [step.op("out", f"tensor.insert {lowering.select(step, take, left, right, dt)} into {out2[0]}[{k}] : "
                             f"{types[0]}")]
    for r in range(1, len(src)):
        li = step.op("left", f"tensor.extract {src[r]}[{at_i}] : {types[r]}")
        ri = step.op("right", f"tensor.extract {src[r]}[{at_j}] : {types[r]}")
        moved = step.op("moved", f"arith.select {take}, {li}, {ri} : i64")
        placed.append(step.op("out", f"tensor.insert {moved} into {out2[r]}[{k}] : {types[r]}"))
    one = step.const(1, "index")
    next_i = step.op("i", f"arith.select {take}, {step.op('i', f'arith.addi {i}, {one} : index')}, {i} : index")
    next_j = step.op("j", f"arith.select {take}, {j}, {step.op('j', f'arith.addi {j}, {one} : index')} : index")
    step.raw(f"scf.yield {', '.join([next_i, next_j, *placed])} : {', '.join(['index', 'index', *types])}")
    runs.raw(f"{merged}:{2 + len(src)} = scf.for {k} = {lo} to {hi} step {runs.const(1, 'index')} "
             f"iter_args({i} = {lo}, {j} = {mid}, {', '.join(f'{o} = {o0}' for o, o0 in zip(out2, out))}) -> "
             f"({', '.join(['index', 'index', *types])}) {{")
    runs.lines.extend(step.lines)
    runs.raw("}")
    runs.raw(f"scf.yield {', '.join(f'{merged}#{2 + r}' for r in range(len(src)))} : {', '.join(types)}")
    block.raw(f"{passed}:{len(src)} = scf.for {lo} = {block.const(0, 'index')} to {n} step {pair} "
              f"iter_args({', '.join(f'{o} = {d}' for o, d in zip(out, dst))}) -> ({', '.join(types)}) {{")
    block.lines.extend(runs.lines)
    block.raw("}")
    return [f"{passed}#{r}" for r in range(len(src))]


def _doublings(ctx: Any, block: Block, width: str, n: str) -> str:
    """Emits into ``block`` the count of merge passes from runs of ``width`` over rows of ``n``:
    how many times ``width`` doubles while below ``n``. An ``scf.while`` over indices only: the
    passes then run in an ``scf.for``, as carrying arrays through ``scf.while`` would copy them
    every pass."""
    fresh = ctx.names.fresh
    w, count, w2, count2, done = ("%" + fresh(h) for h in ("width", "passes", "width", "passes", "passes"))
    more = Block(ctx.names, indent=block.indent + 1)
    below = more.op("more", f"arith.cmpi ult, {w}, {n} : index")
    more.raw(f"scf.condition({below}) {w}, {count} : index, index")
    twice = Block(ctx.names, indent=block.indent + 1)
    doubled = twice.op("width", f"arith.muli {w2}, {twice.const(2, 'index')} : index")
    counted = twice.op("passes", f"arith.addi {count2}, {twice.const(1, 'index')} : index")
    twice.raw(f"scf.yield {doubled}, {counted} : index, index")
    block.raw(f"{done}:2 = scf.while ({w} = {width}, {count} = {block.const(0, 'index')}) : "
              f"(index, index) -> (index, index) {{")
    block.lines.extend(more.lines)
    block.raw("} do {")
    block.raw(f"^bb0({w2}: index, {count2}: index):")
    block.lines.extend(twice.lines)
    block.raw("}")
    return f"{done}#1"


def _merge_by_ranks(x: TracedArray, indices: bool) -> TracedArray:
    """The GPU's sort of the rows of ``x`` (rank >= 2): bottom-up merge passes, each one
    ``linalg.generic`` over every element (:func:`_merge_pass`), so that each pass is one
    kernel of a thread per element.

    The first pass (runs of 1) reads ``x`` itself, whatever its layout, and leaves a new array
    even when there is nothing to merge; an ``scf.for`` runs the others (:func:`_doublings`),
    doubling the run width while it is below the row length."""
    ctx = x._ctx
    ctx.begin_op()
    R, dt = x.ndim, x._dtype
    top, fresh = ctx.top, ctx.names.fresh
    sizes = [ctx.dim(x, k) if x._dims[k] is None else None for k in range(R)]
    n = ctx.dim(x, R - 1)
    identity = affine_map(R, [f"d{k}" for k in range(R)])
    carried: list[tuple[str, D.DType]] = [(x._value, dt)]
    if indices:
        carried.append((_positions_along_last_axis(x, sizes, identity), D.INT64))
    types = [tensor_type(x._dims, t) for _, t in carried]
    x_type = [x.mlir_type, *types[1:]]
    first = _merge_pass(ctx, top, x, carried, x_type, top.const(1, "index"), sizes)

    count = _doublings(ctx, top, top.const(2, "index"), n)
    step, w, runs, sorted_ = "%" + fresh("pass"), "%" + fresh("width"), ["%" + fresh("runs") for _ in carried], \
        "%" + fresh("argsort" if indices else "sort")
    body = Block(ctx.names, indent=top.indent + 1)
    merged = _merge_pass(ctx, body, x, list(zip(runs, (t for _, t in carried))), types, w, sizes)
    doubled = body.op("width", f"arith.muli {w}, {body.const(2, 'index')} : index")
    body.raw(f"scf.yield {', '.join([doubled, *merged])} : {', '.join(['index', *types])}")
    top.raw(f"{sorted_}:{1 + len(carried)} = scf.for {step} = {top.const(0, 'index')} to {count} "
            f"step {top.const(1, 'index')} iter_args({w} = {top.const(2, 'index')}, "
            f"{', '.join(f'{r} = {v}' for r, v in zip(runs, first))}) -> ({', '.join(['index', *types])}) {{")
    top.lines.extend(body.lines)
    top.raw("}")
    return TracedArray(ctx, f"{sorted_}#{len(carried)}", D.INT64 if indices else dt, x._dims, sizes=sizes)


def _merge_pass(ctx: Any, block: Block, x: TracedArray, runs: list[tuple[str, D.DType]], types: list[str],
                width: str, sizes: list[str | None]) -> list[str]:
    """Emits into ``block`` one merge pass over ``runs`` (the values, sorted in runs of
    ``width`` along the last axis, then the indices moved with them; of ``types``) into new
    arrays of ``x``'s shape: position ``p`` lies in the pair of runs ``A = [s, s+w)`` and
    ``B = [s+w, s+2w)`` (clipped to the row) with ``s = p - p % 2w``, and takes the element the
    stable merge of ``A`` and ``B`` puts there (:func:`_merge_source`). Returns the arrays."""
    fresh, R = ctx.names.fresh, x.ndim
    out_types = [tensor_type(x._dims, t) for _, t in runs]
    dynamic = ", ".join(s for d, s in zip(x._dims, sizes) if d is None)  # type: ignore[misc]
    inits = [block.op("merged", f"tensor.empty({dynamic}) : {t}") for t in out_types]
    outs = ["%" + fresh("out") for _ in runs]
    body = Block(ctx.names, indent=block.indent + 1)
    row = [body.op("row", f"linalg.index {k} : index") for k in range(R - 1)]
    src = _merge_source(ctx, body, row, body.op("p", f"linalg.index {R - 1} : index"), width,
                        ctx.dim(x, R - 1), runs[0][0], types[0], x._dtype)
    moved = [body.op("v", f"tensor.extract {v}[{', '.join([*row, src])}] : {t}") for (v, _), t in zip(runs, types)]
    body.raw(f"linalg.yield {', '.join(moved)} : {', '.join(t.mlir for _, t in runs)}")
    merged = "%" + fresh("merged")
    identity = affine_map(R, [f"d{k}" for k in range(R)])
    parallel = ", ".join(['"parallel"'] * R)
    block.raw(f"{merged}:{len(runs)} = linalg.generic {{indexing_maps = [{', '.join([identity] * len(runs))}], "
              f"iterator_types = [{parallel}]}} outs({', '.join(inits)} : {', '.join(out_types)}) {{")
    block.raw(f"^bb0({', '.join(f'{o}: {t.mlir}' for o, (_, t) in zip(outs, runs))}):")
    block.lines.extend(body.lines)
    block.raw(f"}} -> ({', '.join(out_types)})")
    return [f"{merged}#{r}" for r in range(len(runs))]


def _positions_along_last_axis(x: TracedArray, sizes: list[str | None], identity: str) -> str:
    """An int64 array of ``x``'s shape holding each element's position along the last axis."""
    ctx = x._ctx

    def body(b: Block, _ins: list[str], _out: str) -> str:
        return b.op("k", f"arith.index_cast {b.op('k', f'linalg.index {x.ndim - 1} : index')} : index to i64")

    return lowering.emit_generic(ctx, "positions", [], [], lowering.empty(ctx, x._dims, D.INT64, sizes),
                                 tensor_type(x._dims, D.INT64), D.INT64, identity, ["parallel"] * x.ndim, body)


def _merge_source(ctx: Any, b: Block, row: list[str], p: str, width: str, n: str, values: str, ty: str,
                  dt: D.DType) -> str:
    """Emits into ``b`` where in ``values`` (runs of ``width`` sorted along rows of ``n``) the
    element at position ``p`` of ``row`` comes from once pairs of runs are merged."""
    fresh = ctx.names.fresh

    def ix(hint: str, text: str) -> str:
        return b.op(hint, f"{text} : index")

    def at(block: Block, pos: str) -> str:
        return block.op("v", f"tensor.extract {values}[{', '.join([*row, pos])}] : {ty}")

    last = ix("last", f"arith.subi {n}, {b.const(1, 'index')}")
    pair = ix("pair", f"arith.muli {width}, {b.const(2, 'index')}")
    start = ix("start", f"arith.subi {p}, {ix('offset', f'arith.remui {p}, {pair}')}")
    split = ix("split", f"arith.minui {ix('split', f'arith.addi {start}, {width}')}, {n}")
    end = ix("end", f"arith.minui {ix('end', f'arith.addi {start}, {pair}')}, {n}")
    a_len, b_len = ix("a_len", f"arith.subi {split}, {start}"), ix("b_len", f"arith.subi {end}, {split}")
    k = ix("k", f"arith.subi {p}, {start}")
    # i lies in [max(0, k - |B|), min(k, |A|)]
    past_b = b.op("past_b", f"arith.cmpi ugt, {k}, {b_len} : index")
    lo0 = ix("lo", f"arith.select {past_b}, {ix('lo', f'arith.subi {k}, {b_len}')}, {b.const(0, 'index')}")
    hi0 = ix("hi", f"arith.minui {k}, {a_len}")

    lo, hi, lo2, hi2, found = ("%" + fresh(h) for h in ("lo", "hi", "lo", "hi", "found"))
    before = Block(ctx.names, indent=b.indent + 1)
    before.raw(f"scf.condition({before.op('more', f'arith.cmpi ult, {lo}, {hi} : index')}) {lo}, {hi} : index, index")
    step = Block(ctx.names, indent=b.indent + 1)
    c1 = step.const(1, "index")
    # the largest i with A[i-1] <= B[k-i] (or k-i == |B|): try the upper middle of (lo, hi]
    total = step.op("mid", f"arith.addi {step.op('mid', f'arith.addi {lo2}, {hi2} : index')}, {c1} : index")
    mid = step.op("mid", f"arith.divui {total}, {step.const(2, 'index')} : index")
    j = step.op("j", f"arith.subi {k}, {mid} : index")
    a_last = at(step, step.op("at", f"arith.subi {step.op('at', f'arith.addi {start}, {mid} : index')}, {c1} : index"))
    b_next = at(step, step.op("at", f"arith.minui {step.op('at', f'arith.addi {split}, {j} : index')}, {last} : index"))
    b_done = step.op("b_done", f"arith.cmpi eq, {j}, {b_len} : index")
    in_order = step.op("in_order", f"arith.xori {_greater(step, a_last, b_next, dt)}, {step.const(True, 'i1')} : i1")
    fits = step.op("fits", f"arith.ori {b_done}, {in_order} : i1")
    new_lo = step.op("lo", f"arith.select {fits}, {mid}, {lo2} : index")
    new_hi = step.op("hi", f"arith.select {fits}, {hi2}, {step.op('hi', f'arith.subi {mid}, {c1} : index')} : index")
    step.raw(f"scf.yield {new_lo}, {new_hi} : index, index")
    b.raw(f"{found}:2 = scf.while ({lo} = {lo0}, {hi} = {hi0}) : (index, index) -> (index, index) {{")
    b.lines.extend(before.lines)
    b.raw("} do {")
    b.raw(f"^bb0({lo2}: index, {hi2}: index):")
    b.lines.extend(step.lines)
    b.raw("}")

    # element k is B[k-i] if A is used up, or B has one left that is below A[i]
    i = f"{found}#0"
    j = ix("j", f"arith.subi {k}, {i}")
    a_at = ix("a_at", f"arith.minui {ix('a_at', f'arith.addi {start}, {i}')}, {last}")
    b_at = ix("b_at", f"arith.minui {ix('b_at', f'arith.addi {split}, {j}')}, {last}")
    a_done = b.op("a_done", f"arith.cmpi eq, {i}, {a_len} : index")
    b_left = b.op("b_left", f"arith.cmpi ult, {j}, {b_len} : index")
    b_first = b.op("b_first", f"arith.ori {a_done}, {_greater(b, at(b, a_at), at(b, b_at), dt)} : i1")
    take_b = b.op("take_b", f"arith.andi {b_left}, {b_first} : i1")
    return ix("from", f"arith.select {take_b}, {b_at}, {a_at}")


#: How each target sorts the rows of an array of rank >= 2 (``indices``: ``argsort``).
ROW_SORTS: dict[str, Callable[[TracedArray, bool], TracedArray]] = {
    "cpu": _merge_each_row,
    "cuda": _merge_by_ranks,
}


def _sort_rows(x: TracedArray, indices: bool) -> TracedArray:
    """Each row (the last axis) of ``x`` (rank >= 1) sorted, or (``indices``) the int64 indices
    that sort it, as the target sorts rows (:data:`ROW_SORTS`)."""
    ctx = x._ctx
    if x.ndim == 1:
        return lowering.collapse_units(ctx, _sort_rows(lowering.expand_units(ctx, x, [0]), indices), [0])
    return ROW_SORTS[ctx.target](x, indices)


def _sort_kind(kind: Any, order: Any, name: str) -> None:
    if order is not None:
        raise unsupported(f"numpy.{name}", "order= (structured arrays)")
    if kind is not None and not isinstance(kind, str):
        raise trace_error(f"{name}: sort kind must be str, not {public_type(kind)}", TypeError)
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise trace_error(f"{name}: sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})",
                          ValueError)


@op("sort")
def sort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> TracedArray:
    """A sorted copy of ``a`` along ``axis`` (None: flattened), NaNs last."""
    _sort_kind(kind, order, "sort")
    x = _array(a, "sort")
    if x.ndim == 0 and axis is not None:
        raise trace_error(f"numpy.sort: axis {axis} is out of bounds for array of dimension 0",
                          np.exceptions.AxisError)
    rows, ax = _last_axis(x, axis, "sort")
    return _moved_back(_sort_rows(rows, False), ax)


@op("argsort", method="argsort")
def argsort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> TracedArray:
    """The int64 indices that sort ``a`` along ``axis`` (None: flattened), ties in their order
    (NumPy's ``kind="stable"``), NaNs last."""
    _sort_kind(kind, order, "argsort")
    x = _array(a, "argsort")
    if x.ndim == 0:  # NumPy takes a 0-d array as 1-D for any axis
        x = shapes.reshape(x, -1)
        axis = 0 if axis is None else axis
    rows, ax = _last_axis(x, axis, "argsort")
    return _moved_back(_sort_rows(rows, True), ax)


@op("searchsorted", method="searchsorted")
def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> TracedArray:
    """Where the values ``v`` go in the sorted 1-D ``a`` (int64 indices, NumPy's order with
    NaNs last): a binary search (``scf.while``) per value, on the CPU and on CUDA."""
    if sorter is not None:
        raise unsupported("numpy.searchsorted", "sorter=")
    if side not in ("left", "right"):
        raise trace_error(f"searchsorted: side must be 'left' or 'right' (got {side!r})", ValueError)
    ctx = lowering.context_of(a, v)
    sorted_ = creation.array_operand(ctx, a, "numpy.searchsorted")
    if sorted_.ndim != 1:
        raise trace_error("searchsorted: object too deep for desired array" if sorted_.ndim > 1
                          else "searchsorted: object of too small depth for desired array", ValueError)

    values = creation.array_operand(ctx, v, "numpy.searchsorted") if isinstance(v, (list, tuple)) else \
        lowering.lift(ctx, v, "numpy.searchsorted")
    dt, _ = lowering.promote([sorted_, values])
    sorted_ = elementwise.astype(sorted_, dt)
    values = lowering.to_tensor(ctx, values)
    ctx.begin_op()
    R = values.ndim
    sizes = [ctx.dim(values, k) if values._dims[k] is None else None for k in range(R)]
    init = lowering.empty(ctx, values._dims, D.INT64, sizes)
    n = ctx.dim(sorted_, 0)
    table, table_ty = sorted_._value, sorted_.mlir_type

    def body(b: Block, ins: list[str], _out: str) -> str:
        key = lowering.convert(b, ins[0], values._dtype, dt)
        fresh = ctx.names.fresh
        lo, hi, lo2, hi2, found = ("%" + fresh(h) for h in ("lo", "hi", "lo", "hi", "found"))
        before = Block(ctx.names, indent=b.indent + 1)
        more = before.op("more", f"arith.cmpi slt, {lo}, {hi} : index")
        before.raw(f"scf.condition({more}) {lo}, {hi} : index, index")
        after = Block(ctx.names, indent=b.indent + 1)
        mid = after.op("mid", f"arith.divui {after.op('sum', f'arith.addi {lo2}, {hi2} : index')}, "
                              f"{after.const(2, 'index')} : index")
        at = after.op("at", f"tensor.extract {table}[{mid}] : {table_ty}")
        # left: a[mid] < key; right: a[mid] <= key, i.e. not key < a[mid]
        if side == "left":
            go_up = _greater(after, key, at, dt)
        else:
            below = _greater(after, at, key, dt)
            go_up = after.op("up", f"arith.xori {below}, {after.const(True, 'i1')} : i1")
        up = after.op("lo", f"arith.addi {mid}, {after.const(1, 'index')} : index")
        new_lo = after.op("lo", f"arith.select {go_up}, {up}, {lo2} : index")
        new_hi = after.op("hi", f"arith.select {go_up}, {hi2}, {mid} : index")
        after.raw(f"scf.yield {new_lo}, {new_hi} : index, index")
        zero = b.const(0, "index")
        b.raw(f"{found}:2 = scf.while ({lo} = {zero}, {hi} = {n}) : (index, index) -> (index, index) {{")
        b.lines.extend(before.lines)
        b.raw("} do {")
        b.raw(f"^bb0({lo2}: index, {hi2}: index):")
        b.lines.extend(after.lines)
        b.raw("}")
        return b.op("pos", f"arith.index_cast {found}#0 : index to i64")

    res = lowering.emit_generic(
        ctx, "searchsorted", [values], [affine_map(R, [f"d{k}" for k in range(R)])], init,
        tensor_type(values._dims, D.INT64), D.INT64, affine_map(R, [f"d{k}" for k in range(R)]),
        ["parallel"] * R, body)
    return TracedArray(ctx, res, D.INT64, values._dims, sizes=sizes)


def _kth(kth: Any, n: Any, name: str, x: TracedArray) -> None:
    """NumPy's checks of ``partition``'s ``kth``: integers within the partitioned axis (checked
    where its size is known while tracing)."""
    if isinstance(kth, TracedArray):
        if kth.ndim or np.dtype(kth.dtype).kind not in "iu":
            raise unsupported(f"numpy.{name}", "a kth that is not known while tracing")
        kth = int(kth)  # a Python int argument: the kernel is specialised on its value
    ks = np.asarray(kth)
    if ks.dtype.kind not in "iu" or ks.ndim > 1:
        raise trace_error("Partition index must be integer" if ks.dtype.kind not in "iu"
                          else "object too deep for desired array", TypeError if ks.dtype.kind not in "iu"
                          else ValueError)
    total: Any = 1
    for d in x.shape:
        total = total * d
    if isinstance(total, int) and total == 0:
        return  # NumPy does not check kth of an empty array
    for k in (int(k) for k in ks.ravel()):
        if isinstance(n, int):
            if not -n <= k < n:
                raise trace_error(f"kth(={k}) out of bounds ({n})", ValueError)
        else:
            size = n.as_array()
            inside = elementwise.binary("greater", size, k) if k >= 0 else elementwise.binary("greater_equal", size, -k)
            empty = elementwise.binary("equal", total.as_array() if isinstance(total, SymbolicDim) else total, 0)
            lowering.runtime_check(elementwise.binary("logical_or", inside, empty), "invalid_argument",
                                   f"kth(={k}) out of bounds ({{0}})", [n])


def _partition_rows(a: Any, kth: Any, axis: Any, kind: Any, order: Any, name: str) -> tuple[TracedArray, Any]:
    """The array ``partition``/``argpartition`` sorts and the axis, checked as NumPy does."""
    if kind != "introselect" or order is not None:
        raise unsupported(f"numpy.{name}", "kind= and order=")
    x = _array(a, name)
    if axis is None:
        x, axis = shapes.reshape(x, -1), -1
    if x.ndim == 0:
        raise trace_error(f"numpy.{name}: axis {axis} is out of bounds for array of dimension 0",
                          np.exceptions.AxisError)
    (ax,) = indexing.normalize_axes(axis, x.ndim, f"numpy.{name}", allow_none=False)
    _kth(kth, x.shape[ax], name, x)
    return x, ax


@op("partition")
@lowering.numpy_unless_traced(np.partition)
def partition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect", order: Any = None) -> TracedArray:
    """A copy of ``a`` whose elements at the ``kth`` positions along ``axis`` are where a sort
    puts them, smaller ones before and larger ones after: the tracer gives the full stable sort,
    which is one such partition (NumPy leaves the order within each side unspecified)."""
    x, ax = _partition_rows(a, kth, axis, kind, order, "partition")
    return sort(x, axis=ax)


@op("argpartition", method="argpartition")
@lowering.numpy_unless_traced(np.argpartition)
def argpartition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect", order: Any = None) -> TracedArray:
    """The int64 indices that partition ``a`` at ``kth`` along ``axis``: those of the full stable
    sort (``argsort(kind="stable")``), which is one valid partition; NumPy's own order within
    each side differs and is unspecified."""
    x, ax = _partition_rows(a, kth, axis, kind, order, "argpartition")
    return argsort(x, axis=ax)


def _gather_last(x: TracedArray, index: TracedArray) -> TracedArray:
    """``np.take_along_axis(x, index, -1)`` for ``index`` of ``x``'s shape."""
    ctx = x.context
    grids: list[Any] = []
    for k in range(x.ndim - 1):
        g = creation.arange(x.shape[k])
        grids.append(lowering.expand_units(ctx, g, [j for j in range(x.ndim) if j != k]))
    return indexing.getitem(x, (*grids, index))


@op("lexsort")
@lowering.numpy_unless_traced(np.lexsort)
def lexsort(keys: Any, axis: Any = -1) -> TracedArray:
    """The int64 indices that sort by the last key, ties by the one before and so on (a stable
    ``argsort`` per key, from the first to the last); ``keys`` is a sequence of arrays of one
    shape or an array whose first axis holds them."""
    if isinstance(keys, TracedArray):
        if keys.ndim == 0:
            raise trace_error("need sequence of keys with len > 0 in lexsort", TypeError)
        # the number of keys is a Python loop's: int() specialises a dynamic one
        ks = [indexing.getitem(keys, i) for i in range(int(keys.shape[0]))]
    else:
        if not isinstance(keys, (list, tuple)) or not keys:
            raise trace_error("need sequence of keys with len > 0 in lexsort", TypeError)
        ctx = lowering.context_of(*[k for k in keys if isinstance(k, TracedArray)])
        ks = [creation.array_operand(ctx, k, "numpy.lexsort") for k in keys]
    if any(k.ndim != ks[0].ndim for k in ks):
        raise trace_error("all keys need to be the same shape", ValueError)
    if ks[0].ndim == 0:
        ks = [shapes.reshape(k, (1,)) for k in ks]
        axis = -1 if axis in (0, -1) else axis
    (ax,) = indexing.normalize_axes(axis, ks[0].ndim, "numpy.lexsort", allow_none=False)
    ks = [_last_axis(k, ax, "lexsort")[0] for k in ks]
    order = argsort(ks[0], axis=-1)
    for k in ks[1:]:
        step = argsort(_gather_last(k, order), axis=-1)
        order = _gather_last(order, step)
    return _moved_back(order, ax)
