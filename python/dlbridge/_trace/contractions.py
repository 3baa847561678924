"""Contractions: ``matmul`` (the named ``linalg`` contractions, or a batched ``linalg.generic``),
``einsum`` with static subscripts as one ``linalg.generic``, and ``dot`` (NumPy's N-D semantics),
``outer``, ``inner`` and ``tensordot`` expressed as einsums; each declared once in the op table.
Plain 2-D products keep going to ``matmul``'s named op."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from . import dtypes as D
from . import elementwise, lowering, registry, shapes
from .dtype_rules import PROMOTE, Typed
from .dtypes import DType
from .errors import trace_error, unsupported
from .mlir_text import Block, affine_map, tensor_type
from .registry import op
from .traced_array import TraceContext, TracedArray

__all__ = ["dot", "einsum", "inner", "matmul", "outer", "tensordot"]


def _check_contraction(a: TracedArray, b: TracedArray) -> None:
    """Checks that the last dim of ``a`` equals the second to last of ``b`` (no broadcasting), when
    tracing if both are static, else at run time; NumPy's ``ValueError`` either way."""
    ctx = a.context
    ka, kb = a.dims[-1], b.dims[-2]
    message = (
        "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
        "(n?,k),(k,m?)->(n?,m?) (size {1} is different from {0})"
    )
    if ka is not None and kb is not None:
        if ka != kb:
            raise trace_error(message.format(ka, kb), ValueError)
        return
    sa, sb = ctx.dim(a, a.ndim - 1), ctx.dim(b, b.ndim - 2)
    ok = ctx.top.op("k_ok", f"arith.cmpi eq, {sa}, {sb} : index")
    text = lowering.message_literal(message).replace("{{0}}", "{0}").replace("{{1}}", "{1}")
    ctx.top.raw(f'dlpack.assert {ok}, shape_mismatch, "{text}" ({sa}, {sb} : index, index)')


def _zeroed_product(ctx: TraceContext, a: TracedArray, b: TracedArray, batch: Sequence[int | None],
                    batch_sizes: Sequence[str | None], dt: DType) -> tuple[str, tuple[int | None, ...], str]:
    """The zero-filled output of ``a @ b`` with ``batch`` leading dims (their SSA sizes where
    dynamic): its value, dims and type."""
    dims = tuple(batch) + (a.dims[-2], b.dims[-1])
    sizes = list(batch_sizes) + [
        ctx.dim(a, a.ndim - 2) if a.dims[-2] is None else None,
        ctx.dim(b, b.ndim - 1) if b.dims[-1] is None else None,
    ]
    e = lowering.empty(ctx, dims, dt, sizes)
    ty = tensor_type(dims, dt)
    zero = lowering.py_const(ctx.top, 0, dt)
    return ctx.top.op("init", f"linalg.fill ins({zero} : {dt.mlir}) outs({e} : {ty}) -> {ty}"), dims, ty


def _matmul_named(ctx: TraceContext, a: TracedArray, b: TracedArray, dt: DType) -> TracedArray:
    """``a @ b`` for 2-D operands (``linalg.matmul``) and 3-D ones with the same batch size
    (``linalg.batch_matmul``): the named ops the CPU pipeline hands to BLAS."""
    batch: list[int | None] = []
    batch_sizes: list[str | None] = []
    if a.ndim == 3:
        firsts = [TracedArray(ctx, a.value, dt, a.dims[:1]), TracedArray(ctx, b.value, dt, b.dims[:1])]
        bdims, _ = lowering.broadcast(firsts, [a, b])
        batch = list(bdims)
        batch_sizes = [ctx.dim(a, 0) if batch[0] is None else None]
    f, dims, ty = _zeroed_product(ctx, a, b, batch, batch_sizes, dt)
    name = "linalg.batch_matmul" if a.ndim == 3 else "linalg.matmul"
    r = ctx.top.op(
        "matmul", f"{name} ins({a.value}, {b.value} : {a.mlir_type}, {b.mlir_type}) outs({f} : {ty}) -> {ty}"
    )
    return TracedArray(ctx, r, dt, dims)


def _matmul_rows(ctx: TraceContext, a: TracedArray, b: TracedArray, dt: DType) -> TracedArray:
    """``a @ b`` for N-D ``a`` and 2-D ``b``: the leading dims of ``a`` are rows of one 2-D
    ``linalg.matmul`` (a view for compact ``a``, which bufferization copies otherwise)."""
    lead = a.dims[:-1]
    rows: int | None = None
    if all(d is not None for d in lead):
        rows = 1
        for d in lead:
            rows *= d  # type: ignore[operator]
    last = a.ndim - 1
    flat_dims = (rows, a.dims[-1])
    flat_ty = tensor_type(flat_dims, dt)
    groups = "[[" + ", ".join(str(i) for i in range(last)) + f"], [{last}]]"
    flat = ctx.top.op("rows", f"tensor.collapse_shape {a.value} {groups} : {a.mlir_type} into {flat_ty}")
    product = _matmul_named(ctx, TracedArray(ctx, flat, dt, flat_dims), b, dt)
    # tensor.reshape rather than expand_shape: LLVM 22's expand-strided-metadata crashes on an
    # expand_shape with two dynamic sizes in one group.
    dims = tuple(lead) + (b.dims[-1],)
    shape = [ctx.dim(a, i) if d is None else ctx.top.const(d, "index") for i, d in enumerate(lead)]
    shape.append(ctx.dim(b, 1) if b.dims[-1] is None else ctx.top.const(b.dims[-1], "index"))
    shape_type = f"tensor<{len(shape)}xindex>"
    shp = ctx.top.op("shape", f"tensor.from_elements {', '.join(shape)} : {shape_type}")
    v = ctx.top.op(
        "matmul",
        f"tensor.reshape {product.value}({shp}) : ({product.mlir_type}, {shape_type}) -> {tensor_type(dims, dt)}",
    )
    out = TracedArray(ctx, v, dt, dims)
    for i, d in enumerate(dims):
        if d is None:
            out.set_size(i, shape[i])
    return out


def matmul(a: Any, b: Any) -> TracedArray:
    """NumPy ``matmul`` (``@``) of ``a`` and ``b``, as the op table runs it."""
    return registry.lookup("matmul").impl(a, b)  # type: ignore[union-attr, no-any-return]


@op("matmul", kind="ufunc", arity=2, dtype_rule=PROMOTE,
    doc="Matrix product with NumPy's rules for 1-D and batched operands.")
def _lower_matmul(t: Typed) -> TracedArray:
    """NumPy ``matmul`` (``@``): 2-D, N-D @ 2-D and equal-batch 3-D products via the named
    ``linalg`` contractions; 1-D operands via expand/collapse; other batched products (with
    broadcasting of batch dims) via a ``linalg.generic``."""
    ctx, (a, b), dt = t.context, t.operands, t.dtype
    if not (lowering.is_tensor(a) and lowering.is_tensor(b)) or a.ndim == 0 or b.ndim == 0:
        raise trace_error("matmul: operands must have at least one dimension (no scalars)", ValueError)
    if dt.is_bool:
        raise unsupported("matmul", "not supported for bool")
    a = elementwise.astype(a, dt)
    b = elementwise.astype(b, dt)
    ctx.begin_op()
    a1 = a.ndim == 1
    b1 = b.ndim == 1
    if a1:
        a = lowering.expand_units(ctx, a, [0])
    if b1:
        b = lowering.expand_units(ctx, b, [1])
    _check_contraction(a, b)
    if a.ndim == 2 and b.ndim == 2:
        out = _matmul_named(ctx, a, b, dt)
    elif b.ndim == 2:
        out = _matmul_rows(ctx, a, b, dt)
    elif a.ndim == 3 and b.ndim == 3 and a.dims[0] != 1 and b.dims[0] != 1:
        out = _matmul_named(ctx, a, b, dt)
    else:
        ba = TracedArray(ctx, a.value, dt, a.dims[:-2])
        bb = TracedArray(ctx, b.value, dt, b.dims[:-2])
        bdims, bsrcs = lowering.broadcast([ba, bb], [a, b]) if (ba.ndim or bb.ndim) else ((), [])
        # sources refer to the fake batch views: map them back to the real arrays
        fixed: list[str | None] = []
        for s in bsrcs:
            if s is None:
                fixed.append(None)
            else:
                arr = a if s[0] is ba else b
                fixed.append(ctx.dim(arr, s[1]))
        Rb = len(bdims)
        f, dims, ty = _zeroed_product(ctx, a, b, bdims, fixed, dt)
        L = Rb + 3
        m, n, k = f"d{Rb}", f"d{Rb + 1}", f"d{Rb + 2}"

        def bmap(arr: TracedArray, last2: list[str]) -> str:
            nb = arr.ndim - 2
            ex = ["0" if arr.dims[i] == 1 else f"d{Rb - nb + i}" for i in range(nb)]
            return affine_map(L, ex + last2)

        def body(blk: Block, ins_: list[str], out_: str) -> str:
            p = lowering.scalar_mul(blk, ins_[0], ins_[1], dt)
            return lowering.scalar_add(blk, out_, p, dt)

        r = lowering.emit_generic(
            ctx, "matmul", [a, b], [bmap(a, [m, k]), bmap(b, [k, n])], f, ty, dt,
            affine_map(L, [f"d{i}" for i in range(Rb)] + [m, n]),
            ["parallel"] * (Rb + 2) + ["reduction"], body,
        )
        out = TracedArray(ctx, r, dt, dims)
    drop = []
    if a1:
        drop.append(out.ndim - 2)
    if b1:
        drop.append(out.ndim - 1)
    return lowering.collapse_units(ctx, out, drop)


def _expand_ellipses(spec: str, inputs: list[str], out: str | None,
                     operands: Sequence[TracedArray]) -> tuple[list[str], str | None, str]:
    """``inputs`` and ``out`` with each ``...`` replaced by letters the subscripts do not use:
    the broadcast dims of the operands, right-aligned (NumPy's rule); and those letters."""
    unused = [c for c in string.ascii_letters if c not in spec]
    counts = []
    for sub, x in zip(inputs, operands):
        if sub.count("...") > 1 or sub.replace("...", "").count("."):
            raise trace_error("einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...')",
                              ValueError)
        extra = x.ndim - (len(sub) - 3) if "..." in sub else 0
        if extra < 0:
            raise trace_error(f"einstein sum subscripts string {sub!r} has more subscripts than operand "
                              f"dimensions ({x.ndim})", ValueError)
        counts.append(extra)
    broadcast = "".join(unused[: max(counts, default=0)])
    inputs = [sub.replace("...", broadcast[len(broadcast) - n:]) for sub, n in zip(inputs, counts)]
    if out is not None:
        if "..." in out:
            out = out.replace("...", broadcast)
        elif broadcast:
            raise trace_error("output has more dimensions than subscripts given in einstein sum, but no '...' "
                              "ellipsis provided to broadcast the extra dimensions.", ValueError)
    return inputs, out, broadcast


def _parse(subscripts: str, operands: Sequence[TracedArray]) -> tuple[list[str], str]:
    """The input subscripts and the output subscript, each ``...`` spelled as letters (implicit
    output: the broadcast dims, then the letters that appear once, sorted, as NumPy)."""
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        lhs, out = spec.split("->")
    else:
        lhs, out = spec, None
    inputs = lhs.split(",")
    if len(inputs) != len(operands):
        raise trace_error("einsum: more operands than subscripts" if len(operands) > len(inputs)
                          else "einsum: fewer operands than subscripts", ValueError)
    explicit = "".join(inputs).replace(".", "")
    broadcast = ""
    if "." in spec:
        inputs, out, broadcast = _expand_ellipses(spec, inputs, out, operands)
    for sub, x in zip(inputs, operands):
        if not all(c in string.ascii_letters for c in sub):
            raise trace_error(f"einsum: invalid subscript {sub!r}", ValueError)
        if len(sub) != x.ndim:
            raise trace_error(
                f"einsum: operand has {x.ndim} dimensions but subscript {sub!r} has {len(sub)}", ValueError
            )
    letters = "".join(inputs)
    if out is None:
        out = broadcast + "".join(sorted(c for c in set(explicit) if explicit.count(c) == 1))
    for c in out:
        if c not in letters:
            raise trace_error(f"einsum: output subscript {c!r} does not appear in the inputs", ValueError)
        if out.count(c) > 1:
            raise trace_error(f"einsum: output subscript {c!r} appears more than once", ValueError)
    return inputs, out


@op("einsum")
def einsum(subscripts: Any, *operands: Any, out: Any = None, dtype: Any = None, order: str = "K",
           casting: str = "safe", optimize: Any = False) -> TracedArray:
    """Sum of products of ``operands`` over the subscripts not in the output."""
    lowering.no_out(out, "numpy.einsum")
    if not isinstance(subscripts, str):
        raise unsupported("numpy.einsum", "subscripts given as lists (use a string)")
    ctx = lowering.context_of(*operands)
    xs = [lowering.to_tensor(ctx, lowering.lift(ctx, x, "einsum")) for x in operands]
    inputs, output = _parse(subscripts, xs)
    dt = D.dtype(dtype) if dtype is not None else lowering.promote(xs)[0]
    acc = D.INT64 if dt.is_bool else dt
    ctx.begin_op()
    loops = list(dict.fromkeys(output + "".join(inputs)))
    # the size of every letter: static when an operand knows it, checked equal at run time; a
    # dim of 1 where the letter is longer elsewhere broadcasts (read at index 0)
    longer = {c for sub, x in zip(inputs, xs) for c, d in zip(sub, x.dims) if d != 1}
    static: dict[str, int] = {}
    dynamic: dict[str, list[str]] = {}
    for sub, x in zip(inputs, xs):
        for k, c in enumerate(sub):
            d = x.dims[k]
            if d == 1 and c in longer:
                continue
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
    in_maps = [affine_map(L, ["0" if d == 1 and c in longer else f"d{pos[c]}" for c, d in zip(sub, x.dims)])
               for sub, x in zip(inputs, xs)]
    ty = tensor_type(dims, acc)
    init = lowering.empty(ctx, dims, acc, sizes_out)
    zero = lowering.py_const(ctx.top, 0, acc)
    init = ctx.top.op("init", f"linalg.fill ins({zero} : {acc.mlir}) outs({init} : {ty}) -> {ty}")

    def body(b: Block, args: list[str], out_arg: str) -> str:
        vals = [lowering.convert(b, a, x.element_type, acc) for a, x in zip(args, xs)]
        p = vals[0]
        for v in vals[1:]:
            p = lowering.scalar_mul(b, p, v, acc)
        return lowering.scalar_add(b, out_arg, p, acc)

    value = lowering.emit_generic(
        ctx, "einsum", xs, in_maps, init, ty, acc, affine_map(L, [f"d{pos[c]}" for c in output]),
        ["parallel" if c in output else "reduction" for c in loops], body,
    )
    result = TracedArray(ctx, value, acc, dims, sizes=sizes_out)
    return result if acc == dt else elementwise.astype(result, dt.name)


def _letters(n: int, start: int = 0) -> str:
    return string.ascii_letters[start : start + n]


@op("dot", method="dot")
def dot(a: Any, b: Any, out: Any = None) -> TracedArray:
    """NumPy's ``dot``: products with scalars, ``matmul`` for 1-D and 2-D operands, and for N-D
    operands the sum over the last axis of ``a`` and the second-to-last of ``b``."""
    lowering.no_out(out, "numpy.dot")
    ctx = lowering.context_of(a, b)
    x = lowering.lift(ctx, a, "dot")
    y = lowering.lift(ctx, b, "dot")
    if not lowering.is_tensor(x) or not lowering.is_tensor(y) or x.ndim == 0 or y.ndim == 0:
        return elementwise.binary("multiply", x, y)
    if x.ndim <= 2 and y.ndim <= 2:
        return matmul(x, y)
    if y.ndim == 1:
        return einsum(f"{_letters(x.ndim - 1)}z,z->{_letters(x.ndim - 1)}", x, y)
    left = _letters(x.ndim - 1)
    right = _letters(y.ndim - 2, x.ndim - 1)
    last = "Y"
    return einsum(f"{left}Z,{right}Z{last}->{left}{right}{last}", x, y)


@op("outer")
def outer(a: Any, b: Any, out: Any = None) -> TracedArray:
    """``a.ravel()[:, None] * b.ravel()[None, :]``."""
    lowering.no_out(out, "numpy.outer")
    ctx = lowering.context_of(a, b)
    x = shapes.reshape(lowering.to_tensor(ctx, lowering.lift(ctx, a, "outer")), -1)
    y = shapes.reshape(lowering.to_tensor(ctx, lowering.lift(ctx, b, "outer")), -1)
    return einsum("i,j->ij", x, y)


@op("inner")
def inner(a: Any, b: Any) -> TracedArray:
    """The sum over the last axes of ``a`` and ``b``."""
    ctx = lowering.context_of(a, b)
    x = lowering.lift(ctx, a, "inner")
    y = lowering.lift(ctx, b, "inner")
    if not lowering.is_tensor(x) or not lowering.is_tensor(y) or x.ndim == 0 or y.ndim == 0:
        return elementwise.binary("multiply", x, y)
    left, right = _letters(x.ndim - 1), _letters(y.ndim - 1, x.ndim - 1)
    return einsum(f"{left}Z,{right}Z->{left}{right}", x, y)


@op("tensordot")
def tensordot(a: Any, b: Any, axes: Any = 2) -> TracedArray:
    """The sum over ``axes`` (an int: the last of ``a`` with the first of ``b``; or two lists)."""
    ctx = lowering.context_of(a, b)
    x = lowering.to_tensor(ctx, lowering.lift(ctx, a, "tensordot"))
    y = lowering.to_tensor(ctx, lowering.lift(ctx, b, "tensordot"))
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
