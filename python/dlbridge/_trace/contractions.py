"""Contractions: ``einsum`` with static subscripts as one ``linalg.generic``, and ``dot`` (NumPy's
N-D semantics), ``outer``, ``inner`` and ``tensordot`` expressed as einsums; each declared once in
the op table.  Plain 2-D products keep going to ``matmul``'s named op."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from . import dtypes as D
from . import ops
from .emitter import Block, affine_map, tensor_type
from .registry import op
from .tracer import TracedArray, trace_error, unsupported

__all__ = ["dot", "einsum", "inner", "outer", "tensordot"]


def _parse(subscripts: str, operands: Sequence[TracedArray]) -> tuple[list[str], str]:
    """The input subscripts and the output subscript (implicit output: the letters that appear
    once, sorted, as NumPy)."""
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise unsupported("numpy.einsum", "ellipsis ('...') in subscripts")
    if "->" in spec:
        lhs, out = spec.split("->")
    else:
        lhs, out = spec, None
    inputs = lhs.split(",")
    if len(inputs) != len(operands):
        raise trace_error("einsum: more operands than subscripts" if len(operands) > len(inputs)
                          else "einsum: fewer operands than subscripts", ValueError)
    for sub, x in zip(inputs, operands):
        if not all(c in string.ascii_letters for c in sub):
            raise trace_error(f"einsum: invalid subscript {sub!r}", ValueError)
        if len(sub) != x.ndim:
            raise trace_error(
                f"einsum: operand has {x.ndim} dimensions but subscript {sub!r} has {len(sub)}", ValueError
            )
    letters = "".join(inputs)
    if out is None:
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for c in out:
        if c not in letters:
            raise trace_error(f"einsum: output subscript {c!r} does not appear in the inputs", ValueError)
        if out.count(c) > 1:
            raise trace_error(f"einsum: output subscript {c!r} appears more than once", ValueError)
    return inputs, out


@op("einsum", dtype_rule="promote")
def einsum(subscripts: Any, *operands: Any, out: Any = None, dtype: Any = None, order: str = "K",
           casting: str = "safe", optimize: Any = False) -> TracedArray:
    """Sum of products of ``operands`` over the subscripts not in the output."""
    ops._no_out(out, "numpy.einsum")
    if not isinstance(subscripts, str):
        raise unsupported("numpy.einsum", "subscripts given as lists (use a string)")
    ctx = ops._ctx_of(*operands)
    xs = [ops._to_tensor(ctx, ops._lift(ctx, x, "einsum")) for x in operands]
    inputs, output = _parse(subscripts, xs)
    dt = D.dtype(dtype) if dtype is not None else ops._promote(xs)[0]
    acc = D.INT64 if dt.is_bool else dt
    ctx.begin_op()
    loops = list(dict.fromkeys(output + "".join(inputs)))
    # the size of every letter: static when an operand knows it, checked equal at run time
    static: dict[str, int] = {}
    dynamic: dict[str, list[str]] = {}
    for sub, x in zip(inputs, xs):
        for k, c in enumerate(sub):
            d = x._dims[k]
            if d is None:
                dynamic.setdefault(c, []).append(ctx.dim(x, k))
            elif static.setdefault(c, d) != d:
                raise trace_error(
                    f"einsum: operands could not be broadcast together: sizes {static[c]} and {d} "
                    f"for subscript {c!r}", ValueError,
                )
    for c, sizes in dynamic.items():
        expected = ctx.top.const(static[c], "index") if c in static else sizes[0]
        for s in sizes:
            if s != expected:
                ok = ctx.top.op("same", f"arith.cmpi eq, {s}, {expected} : index")
                ctx.top.raw(f'dlpack.assert {ok}, shape_mismatch, "einsum: operands could not be '
                            f'broadcast together (subscript {c})"')
    dims: list[int | None] = []
    sizes_out: list[str | None] = []
    for c in output:
        dims.append(static.get(c))
        sizes_out.append(None if c in static else dynamic[c][0])
    L = len(loops)
    pos = {c: i for i, c in enumerate(loops)}
    in_maps = [affine_map(L, [f"d{pos[c]}" for c in sub]) for sub in inputs]
    ty = tensor_type(dims, acc)
    init = ops._empty(ctx, dims, acc, sizes_out)
    zero = ops._py_const(ctx.top, 0, acc)
    init = ctx.top.op("init", f"linalg.fill ins({zero} : {acc.mlir}) outs({init} : {ty}) -> {ty}")

    def body(b: Block, args: list[str], out_arg: str) -> str:
        vals = [ops.convert(b, a, x._dtype, acc) for a, x in zip(args, xs)]
        p = vals[0]
        for v in vals[1:]:
            p = ops._s_mul(b, p, v, acc)
        return ops._s_add(b, out_arg, p, acc)

    value = ops._emit_generic(
        ctx, "einsum", xs, in_maps, init, ty, acc, affine_map(L, [f"d{pos[c]}" for c in output]),
        ["parallel" if c in output else "reduction" for c in loops], body,
    )
    result = TracedArray(ctx, value, acc, dims, sizes=sizes_out)
    return result if acc == dt else ops.astype(result, dt.name)


def _letters(n: int, start: int = 0) -> str:
    return string.ascii_letters[start : start + n]


@op("dot", method="dot", dtype_rule="promote")
def dot(a: Any, b: Any, out: Any = None) -> TracedArray:
    """NumPy's ``dot``: products with scalars, ``matmul`` for 1-D and 2-D operands, and for N-D
    operands the sum over the last axis of ``a`` and the second-to-last of ``b``."""
    ops._no_out(out, "numpy.dot")
    ctx = ops._ctx_of(a, b)
    x = ops._lift(ctx, a, "dot")
    y = ops._lift(ctx, b, "dot")
    if not ops._is_tensor(x) or not ops._is_tensor(y) or x.ndim == 0 or y.ndim == 0:
        return ops.binary("multiply", x, y)
    if x.ndim <= 2 and y.ndim <= 2:
        return ops.matmul(x, y)
    if y.ndim == 1:
        return einsum(f"{_letters(x.ndim - 1)}z,z->{_letters(x.ndim - 1)}", x, y)
    left = _letters(x.ndim - 1)
    right = _letters(y.ndim - 2, x.ndim - 1)
    last = "Y"
    return einsum(f"{left}Z,{right}Z{last}->{left}{right}{last}", x, y)


@op("outer", dtype_rule="promote")
def outer(a: Any, b: Any, out: Any = None) -> TracedArray:
    """``a.ravel()[:, None] * b.ravel()[None, :]``."""
    ops._no_out(out, "numpy.outer")
    ctx = ops._ctx_of(a, b)
    x = ops.reshape(ops._to_tensor(ctx, ops._lift(ctx, a, "outer")), -1)
    y = ops.reshape(ops._to_tensor(ctx, ops._lift(ctx, b, "outer")), -1)
    return einsum("i,j->ij", x, y)


@op("inner", dtype_rule="promote")
def inner(a: Any, b: Any) -> TracedArray:
    """The sum over the last axes of ``a`` and ``b``."""
    ctx = ops._ctx_of(a, b)
    x = ops._lift(ctx, a, "inner")
    y = ops._lift(ctx, b, "inner")
    if not ops._is_tensor(x) or not ops._is_tensor(y) or x.ndim == 0 or y.ndim == 0:
        return ops.binary("multiply", x, y)
    left, right = _letters(x.ndim - 1), _letters(y.ndim - 1, x.ndim - 1)
    return einsum(f"{left}Z,{right}Z->{left}{right}", x, y)


@op("tensordot", dtype_rule="promote")
def tensordot(a: Any, b: Any, axes: Any = 2) -> TracedArray:
    """The sum over ``axes`` (an int: the last of ``a`` with the first of ``b``; or two lists)."""
    ctx = ops._ctx_of(a, b)
    x = ops._to_tensor(ctx, ops._lift(ctx, a, "tensordot"))
    y = ops._to_tensor(ctx, ops._lift(ctx, b, "tensordot"))
    if isinstance(axes, int):
        ax_a = list(range(x.ndim - axes, x.ndim))
        ax_b = list(range(axes))
    else:
        ax_a, ax_b = ([v] if isinstance(v, int) else list(v) for v in axes)
    if len(ax_a) != len(ax_b):
        raise trace_error("tensordot: shape-mismatch for sum", ValueError)
    ax_a = [k % x.ndim for k in ax_a]
    ax_b = [k % y.ndim for k in ax_b]
    sub_a = list(_letters(x.ndim))
    sub_b = list(_letters(y.ndim, x.ndim))
    for i, j in zip(ax_a, ax_b):
        sub_b[j] = sub_a[i]
    out = [c for k, c in enumerate(sub_a) if k not in ax_a] + [c for k, c in enumerate(sub_b) if k not in ax_b]
    return einsum(f"{''.join(sub_a)},{''.join(sub_b)}->{''.join(out)}", x, y)
