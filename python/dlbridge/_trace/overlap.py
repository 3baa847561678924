"""Whether an in-place update reads what it overwrites (``x[:] = x[::-1]``, ``x[1:] += x[:-1]``).

NumPy computes the value to store first, through a temporary when it overlaps the destination, so
``x[:] = x[::-1]`` reverses ``x``.  The generated code stores in place: bufferization writes the
destination's buffer while elementwise fusion may still be reading the value from that same buffer,
at other positions.  So a value computed from the array being updated, other than elementwise from
the very elements the store replaces, is staged through a fresh tensor (``linalg.copy``, which
fusion never folds into the store).  ``x[:] = x * 2`` or ``x[1:] += 1`` read each element only to
replace that same element, and stay copy-free.

The trace's values are SSA names; :class:`~.mlir_text.NameTable` records what each was computed from
and, for ``linalg.generic``, with which indexing maps.
"""

from __future__ import annotations

from . import lowering
from .mlir_text import SSA_NAME
from .traced_array import TraceContext, TracedArray

__all__ = ["held_values", "reads_overwritten", "same_view", "stage"]


def held_values(ctx: TraceContext, root: TracedArray) -> set[str]:
    """Every value ``root`` (an array that owns its storage) has held during the trace: its
    contents before and after each in-place update, all in the same buffer."""
    held = ctx.buffer_values.setdefault(id(root), set())
    held.add(root._value)
    return held


def _is_identity(affine: str) -> bool:
    """Whether ``affine`` (``affine_map<(d0, d1) -> (d0, d1)>``) is an identity map."""
    inner = affine[len("affine_map<"):-1]
    dims, _, exprs = inner.partition(" -> ")
    return dims == exprs


def reads_overwritten(ctx: TraceContext, held: set[str], dest: str, value: str, aligned: bool) -> bool:
    """Whether computing ``value`` reads a value of ``held`` (the destination's buffer) other than
    elementwise from ``dest`` (the destination's current contents) at the positions it stores to.

    ``aligned`` says whether ``value``'s elements map one to one onto ``dest``'s (no broadcast).
    What the trace does not describe (loops, named ops) counts as reading anything it mentions."""
    names = ctx.names
    seen: set[tuple[str, bool]] = set()
    stack = [(value, aligned)]
    while stack:
        node, ok = stack.pop()
        if (node, ok) in seen:
            continue
        seen.add((node, ok))
        if node == dest and ok:
            continue
        if node == dest or node in held:
            return True
        if node in names.shape_only:
            continue
        generic = names.generics.get(node)
        if generic is None:
            stack.extend((d, False) for d in names.deps.get(node, ()))
            continue
        ins, init, out_map, parallel = generic
        elementwise = ok and parallel and _is_identity(out_map)
        stack.extend((operand, elementwise and m == out_map) for operand, m in ins)
        stack.append((init, elementwise))
        direct = {operand for operand, _ in ins} | {init}
        stack.extend((d, False) for d in names.deps.get(node, ()) if d not in direct)
    return False


def _canonical(ctx: TraceContext, v: object, memo: dict[str, str]) -> str:
    """``v`` (an int, or an SSA name) as the text that computes it, with its operands' texts in
    place of their names: equal for two index computations that repeat the same ops."""
    if not isinstance(v, str):
        return repr(v)
    if v in memo:
        return memo[v]
    text = ctx.names.defs.get(v)
    memo[v] = v  # cycles cannot occur in SSA, but a name without a definition stays a name
    if text is not None and (text.startswith("arith.") or text.startswith("tensor.dim ")):
        memo[v] = SSA_NAME.sub(lambda m: "(" + _canonical(ctx, m.group(0), memo) + ")", text)
    return memo[v]


def same_view(ctx: TraceContext, a: TracedArray, b: TracedArray) -> bool:
    """Whether ``a`` and ``b`` are views of one array showing the same elements in the same order
    (``t = x[k]; t *= 2; x[k] = t`` stores ``t`` where it already lies)."""
    if a is b:
        return True
    if a._base is None or a._base is not b._base or a._base_version != b._base_version:
        return False
    if a._region is None or b._region is None:
        return a._region is None and b._region is None and a._perm is not None and a._perm == b._perm
    ra, rb = a._region, b._region
    if ra.kept != rb.kept:
        return False
    memo: dict[str, str] = {}
    return all(
        len(xs) == len(ys) and all(_canonical(ctx, p, memo) == _canonical(ctx, q, memo) for p, q in zip(xs, ys))
        for xs, ys in ((ra.offsets, rb.offsets), (ra.sizes, rb.sizes), (ra.strides, rb.strides))
    )


def stage(ctx: TraceContext, value: TracedArray) -> TracedArray:
    """``value`` copied into a fresh tensor."""
    dims = value._dims
    sizes = [ctx.dim(value, k) if d is None else None for k, d in enumerate(dims)]
    empty = lowering.empty(ctx, dims, value._dtype, sizes)
    ty = value.mlir_type
    copy = ctx.top.op("staged", f"linalg.copy ins({value._value} : {ty}) outs({empty} : {ty}) -> {ty}")
    out = TracedArray(ctx, copy, value._dtype, dims)
    out._dim_ssa = dict(value._dim_ssa)
    return out
