"""Shape operations: ``reshape`` (a ``collapse_shape``/``expand_shape`` where it regroups dims,
else ``tensor.reshape``; a view where the sizes allow),
``transpose`` (``linalg.transpose``, or a view), ``ravel``, ``matrix_transpose``, ``ndim`` and
``shape``; each declared once in the op table."""

from __future__ import annotations

import operator
from typing import Any

from . import lowering
from .errors import TraceError, trace_error, unsupported
from .mlir_text import tensor_type
from .registry import op
from .traced_array import SymbolicDim, TracedArray, ViewStep, known_c_contiguous, make_view

__all__ = ["reshape", "transpose"]


def _transpose(x: Any, axes: Any = None) -> TracedArray:
    """``transpose`` via ``linalg.transpose`` (``axes=None`` reverses the dims)."""
    ctx = lowering.context_of(x)
    x = lowering.lift(ctx, x, "transpose")
    if not lowering.is_tensor(x):
        return x
    R = x.ndim
    if axes is None:
        perm = list(range(R))[::-1]
    else:
        perm = [int(a) % R if R else int(a) for a in axes]
        if sorted(perm) != list(range(R)):
            raise trace_error(f"transpose: axes {tuple(axes)} don't match array of dimension {R}", ValueError)
    inverse = [0] * R
    for i, p in enumerate(perm):
        inverse[p] = i
    step = ViewStep("transpose", lambda p: _transpose(p, perm), lambda _p, new: _transpose(new, inverse))
    if perm == list(range(R)):
        view = make_view(x, x.value, x.dims, "transpose", perm, step=step)
        view.copy_sizes_from(x)
        return view
    ctx.begin_op()
    dims = tuple(x.dims[p] for p in perm)
    sizes = [ctx.dim(x, p) if x.dims[p] is None else None for p in perm]
    e = lowering.empty(ctx, dims, x.element_type, sizes)
    ty = tensor_type(dims, x.element_type)
    r = ctx.top.op(
        "transposed",
        f"linalg.transpose ins({x.value} : {x.mlir_type}) outs({e} : {ty}) "
        f"permutation = [{', '.join(str(p) for p in perm)}]",
    )
    out = make_view(x, r, dims, "transpose", perm, step=step)
    for j, s in enumerate(sizes):
        if s is not None:
            out.set_size(j, s)
    return out


def _reshape(x: Any, shape: Any) -> TracedArray:
    """``reshape`` to sizes given as Python ints, at most one ``-1``, or dynamic sizes taken from
    ``.shape`` of a traced array."""
    ctx = lowering.context_of(x)
    x = lowering.lift(ctx, x, "reshape")
    x = lowering.to_tensor(ctx, x)
    if isinstance(shape, (int, SymbolicDim)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        target = list(shape)
    except TypeError:
        raise unsupported("reshape", f"shape {shape!r}") from None
    tdims: list[int | None] = []
    tsizes: list[str | None] = []
    infer = -1
    for i, s in enumerate(target):
        if isinstance(s, SymbolicDim):
            if s.context is not ctx:
                raise TraceError("dlbridge.jit: a shape entry from another trace was used")
            tdims.append(None)
            tsizes.append(s.value)
            continue
        if isinstance(s, bool) or not isinstance(s, int):
            try:
                s = operator.index(s)
            except TypeError:
                raise unsupported("reshape", f"size {s!r} is not an int") from None
        if s == -1:
            if infer >= 0:
                raise trace_error("reshape: can only specify one unknown dimension", ValueError)
            infer = i
            tdims.append(None)
            tsizes.append(None)
        elif s < 0:
            raise trace_error(f"reshape: negative dimension {s}", ValueError)
        else:
            tdims.append(s)
            tsizes.append(None)
    src_static = all(d is not None for d in x.dims)
    known = [d for d, z in zip(tdims, tsizes) if d is not None]
    prod_known = 1
    for d in known:
        prod_known *= d
    if src_static:
        total = 1
        for d in x.dims:
            total *= d  # type: ignore[operator]
        if infer >= 0 and all(d is not None or j == infer for j, d in enumerate(tdims)):
            if prod_known == 0 or total % prod_known:
                raise trace_error(f"reshape: cannot reshape array of size {total} into shape {tuple(target)}",
                                  ValueError)
            tdims[infer] = total // prod_known
        elif all(d is not None for d in tdims) and prod_known != total:
            raise trace_error(f"reshape: cannot reshape array of size {total} into shape {tuple(target)}", ValueError)
    if tuple(tdims) == x.dims and all(d is not None for d in tdims):
        return make_view(x, x.value, x.dims, "reshape", step=_reshape_step(x, tuple(tdims)))
    ctx.begin_op()
    # SSA sizes of the target dims
    if infer >= 0 and tdims[infer] is None:
        total_v = ctx.top.const(1, "index")
        for k in range(x.ndim):
            if x.dims[k] != 1:
                total_v = ctx.top.op("numel", f"arith.muli {total_v}, {ctx.dim(x, k)} : index")
        others = ctx.top.const(1, "index")
        for j, (d, z) in enumerate(zip(tdims, tsizes)):
            if j == infer:
                continue
            sv = z if z is not None else ctx.top.const(d, "index")
            if d != 1:
                others = ctx.top.op("numel", f"arith.muli {others}, {sv} : index")
        tsizes[infer] = ctx.top.op("size", f"arith.divui {total_v}, {others} : index")
    regrouped = _regrouping_reshape(x, tdims, tsizes, infer)
    if regrouped is not None:
        out = make_view(x, regrouped.value, regrouped.dims, "reshape", step=_reshape_step(x, regrouped.shape))
        for j in range(regrouped.ndim):
            size = regrouped.known_size(j)
            if regrouped.dims[j] is None and size is not None:
                out.set_size(j, size)
        return out
    if not tdims:
        raise trace_error("reshape: to a 0-d array needs a source with static size-1 dims", ValueError)
    vals = [z if z is not None else ctx.top.const(d, "index") for d, z in zip(tdims, tsizes)]
    ty = tensor_type(tdims, x.element_type)
    shp = ctx.top.op("shape", f"tensor.from_elements {', '.join(vals)} : tensor<{len(vals)}xindex>")
    r = ctx.top.op(
        "reshaped",
        f"tensor.reshape {x.value}({shp}) : ({x.mlir_type}, tensor<{len(vals)}xindex>) -> {ty}",
    )
    shown = tuple(d if d is not None else SymbolicDim(ctx, z, f"dim {j}")  # type: ignore[arg-type]
                  for j, (d, z) in enumerate(zip(tdims, tsizes)))
    out = make_view(x, r, tdims, "reshape", step=_reshape_step(x, shown))
    for j, (d, z) in enumerate(zip(tdims, tsizes)):
        if d is None and z is not None:
            out.set_size(j, z)
    return out


def _reshape_step(x: TracedArray, shape: tuple[Any, ...]) -> ViewStep:
    """How the reshape of ``x`` to ``shape`` reads and writes ``x``. NumPy's reshape is a view
    when it only adds or drops size-1 dims, or when ``x`` is C-contiguous; otherwise whether
    it copies depends on the memory layout, which the trace does not know."""
    source = x.shape
    kept_in = [d for d in x.dims if d != 1]
    kept_out = [d if isinstance(d, int) else None for d in shape if not (isinstance(d, int) and d == 1)]
    units_only = kept_in == kept_out and all(d is not None for d in kept_in)
    layout = "" if units_only or known_c_contiguous(x) else (
        "writing through a reshape of an array whose memory layout is not known while tracing (an "
        "argument, or a view of one): NumPy's reshape is a view of a C-contiguous array and a copy "
        "of others; update the array itself, or reshape a copy (numpy.array(x))")
    return ViewStep("reshape", lambda p: _reshape(p, shape), lambda _p, new: _reshape(new, source), layout=layout)


def _regrouping_reshape(x: TracedArray, tdims: list[int | None], tsizes: list[str | None],
                        infer: int) -> TracedArray | None:
    """``x`` reshaped to ``tdims`` (the sizes of the dynamic ones in ``tsizes``; ``infer``: the
    ``-1``) by a ``collapse_shape`` and an ``expand_shape``, when the reshape only drops and adds
    size-1 dims around ``x``'s other dims, in order, or flattens them into one (``ravel``,
    ``reshape(-1)``): these need no shape operand, which CUDA host code would have to read
    back from the device for ``tensor.reshape``. None for another reshape."""
    ctx = x.context
    kept = [k for k in range(x.ndim) if x.dims[k] != 1]
    target = [j for j in range(len(tdims)) if tdims[j] != 1]
    units = [j for j in range(len(tdims)) if tdims[j] == 1]
    if len(target) == 1 and len(kept) > 1 and (target[0] == infer or None not in x.dims):
        (j,) = target
        dims = [tdims[j]]
        flat = ctx.top.op("flat", f"tensor.collapse_shape {x.value} [[{', '.join(map(str, range(x.ndim)))}]] : "
                                  f"{x.mlir_type} into {tensor_type(dims, x.element_type)}")
        out = TracedArray(ctx, flat, x.element_type, dims, alias=x.may_alias_argument)
        if tsizes[j] is not None:
            out.set_size(0, tsizes[j])
        return lowering.expand_units(ctx, out, units)
    if len(kept) != len(target):
        return None
    for k, j in zip(kept, target):
        if j == infer and tdims[j] is None:
            continue  # the others match, so the inferred size is x's
        if x.dims[k] is not None:
            if tdims[j] != x.dims[k]:
                return None
        elif tdims[j] is not None or tsizes[j] != ctx.dim(x, k):
            return None
    collapsed = lowering.collapse_units(ctx, x, [k for k in range(x.ndim) if x.dims[k] == 1])
    return lowering.expand_units(ctx, collapsed, units)


@op("reshape")
def reshape(a: Any, *args: Any, **kwargs: Any) -> Any:
    """Reshape in C order; sizes are ints, at most one -1, or dynamic sizes."""
    shape = args[0] if args else kwargs.pop("shape", kwargs.pop("newshape", None))
    order = args[1] if len(args) > 1 else kwargs.pop("order", "C")
    kwargs.pop("copy", None)
    if order != "C" or kwargs:
        raise unsupported("numpy.reshape", f"order={order!r}" if order != "C" else f"arguments {sorted(kwargs)}")
    return _reshape(a, shape)


@op("ravel", method="ravel")
def ravel(a: Any, order: str = "C") -> Any:
    """The elements in C order as a 1-D array (a view where the layout allows)."""
    if order != "C":
        raise unsupported("numpy.ravel", f"order={order!r}")
    return _reshape(a, (-1,))


@op("transpose", numpy=("transpose", "permute_dims"))
def transpose(a: Any, axes: Any = None) -> Any:
    """Permute dims (``axes=None`` reverses them)."""
    return _transpose(a, None if axes is None else tuple(axes))


@op("matrix_transpose")
def matrix_transpose(x: Any) -> Any:
    """Swap the last two dims."""
    return x.mT


@op("ndim")
def ndim(a: Any) -> int:
    """The number of dims."""
    return a.ndim  # type: ignore[no-any-return]


@op("shape")
def shape(a: Any) -> tuple[Any, ...]:
    """The shape (dynamic sizes as SymbolicDims)."""
    return a.shape  # type: ignore[no-any-return]

