"""``trace``: a Python function over arrays into an MLIR module (linalg on tensors).

It rewrites the function's loops (``loops``), calls it on traced arguments with NumPy seen
through the proxy (``numpy_proxy``), and writes the entry function around what the operations
emitted, with the parameters of the arguments it reads and writes."""

from __future__ import annotations

import ast
import inspect
import linecache
import os
import re
import textwrap
from collections.abc import Sequence
from typing import Any, Callable

from . import dtypes as D
from . import lowering
from .dtypes import DType, int_range
from .errors import ALL_SIZES, NeedsValue, TraceError, as_user_error
from .loop_source import rewrite_loops
from .mlir_text import Block, clear_location, dims_str, tensor_type
from .numpy_proxy import with_numpy_proxy
from .overlap import stage
from .specs import ArraySpec, ResultSpec, ScalarSpec, StaticSpec, TraceResult, flatten_results
from .traced_array import ArgSlot, IntSlot, TraceContext, TracedArray, begin_trace, end_trace

__all__ = ["trace"]


# --------------------------------------------------------------------------------------------------
# trace


def _memref_type(arr: TracedArray) -> str:
    """The memref parameter type of a written argument: any strides and offset, so that every
    layout of the caller's array (strided, reversed, 0-d) is updated where it lies."""
    strides = ", ".join("?" for _ in arr._dims)
    shape = dims_str(arr._dims)
    elem = f"{shape}x{arr._dtype.mlir}" if arr._dims else arr._dtype.mlir
    return f"memref<{elem}, strided<[{strides}], offset: ?>>"


_SYMBOL_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def _symbol(name: str) -> str:
    if _SYMBOL_OK.match(name):
        return "@" + name
    return '@"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dtype_attr(dt: DType) -> str | None:
    if dt.is_unsigned:
        return f"dlpack.dtype = #dlpack.dtype<uint, {dt.bits}>"
    return None


def _param_names(fn: Callable[..., Any], n: int) -> list[str]:
    names: list[str] = []
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    var: str | None = None
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            var = p.name
            break
    names = names[:n]
    i = 0
    while len(names) < n:
        names.append(f"{var or 'arg'}{i}")
        i += 1
    return names


def _array_param(slot: ArgSlot) -> str:
    """The parameter of an array argument: a tensor when the function only reads it, a memref
    (updated in place) when it writes it."""
    arr = slot.array
    attrs = [f'dlpack.name = "{slot.name}"']
    extra = _dtype_attr(arr._dtype)
    if extra:
        attrs.append(extra)
    if slot.written:
        return f"{slot.buffer}: {_memref_type(arr)} {{{', '.join(attrs)}}}"
    return f"{slot.ssa}: {tensor_type(arr._dims, arr._dtype)} {{{', '.join(attrs)}}}"


def _int_param(slot: IntSlot) -> str:
    """The parameter of a Python int argument: ``i64``, or its narrowed dtype (see IntSlot)."""
    dt = slot.param_dtype()
    if dt is None:
        return f'{slot.ssa}: i64 {{dlpack.name = "{slot.name}"}}'
    return f'{slot.ssa}_in: {dt.mlir} {{dlpack.name = "{slot.name}"}}'


def _widen_int_args(ctx: TraceContext, prologue: Block) -> None:
    """Reads each narrowed int parameter as the ``i64`` the body uses (exact: it fits), and checks
    those converted to unsigned dtypes against their range."""
    for slot in ctx.int_args.values():
        dt = slot.param_dtype()
        if dt is not None:
            prologue.raw(f"{slot.ssa} = arith.extsi {slot.ssa}_in : {dt.mlir} to i64")
        bound = slot.unsigned_bound()
        if bound is None:
            continue
        low, high = int_range(bound)
        top = prologue.const(high, "i64")
        fits = prologue.op("fits", f"arith.cmpi ule, {slot.ssa}, {top} : i64")
        prologue.raw(
            f"dlpack.assert {fits}, invalid_argument, \"argument {slot.index} '{slot.name}': "
            f"expected {bound.name} in [{low}, {high}], got {{0}}\" ({slot.ssa} : i64)"
        )


def _store_written_args(ctx: TraceContext) -> Block:
    """For every argument the function updated in place: the prologue that reads it as a tensor
    (returned) and, at the end of the body, the store of its final value into the caller's buffer.

    This is upstream's pattern for destination-passing functions: ``to_tensor ... restrict
    writable`` and ``materialize_in_destination ... in restrict writable``, which one-shot
    bufferization turns into writes into the memref parameter."""
    prologue = Block(ctx.names, indent=2)
    for slot in ctx.args:
        if not slot.written:
            continue
        slot.buffer = buf = "%" + ctx.names.fresh(slot.ssa[1:] + "_buf")
        mem = _memref_type(slot.array)
        ten = tensor_type(slot.array._dims, slot.array._dtype)
        prologue.raw(f"{slot.ssa} = bufferization.to_tensor {buf} restrict writable : {mem} to {ten}")
        ctx.top.raw(
            f"bufferization.materialize_in_destination {slot.array._value} in restrict writable "
            f"{buf} : ({ten}, {mem}) -> ()"
        )
    return prologue


def _definition(fn: Callable[..., Any]) -> str:
    """``file:line: source`` of the ``return`` statement of ``fn`` when it has one, else of its
    ``def`` line."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return "an unknown line"
    line = code.co_firstlineno
    try:
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        tree = None
    if tree is not None and tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = tree.body[0]
        returns = [n for n in _own_nodes(node) if isinstance(n, ast.Return)]
        line = first - 1 + (returns[0].lineno if len(returns) == 1 else node.lineno)
    source = linecache.getline(code.co_filename, line).strip()
    return f"{os.path.basename(code.co_filename)}:{line}" + (f": {source}" if source else "")


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """The nodes of function ``fn``'s body, not those of functions and lambdas inside it."""
    found: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return found


Spec = ArraySpec | ScalarSpec | StaticSpec
#: A size or value fixed for a trace: ``(argument, dim)``, or ``(argument, None)`` for the value
#: of an int, float or bool argument.
Fixed = tuple[int, "int | None"]


def _values_at(sources: Any, specs: Sequence[Spec], hints: Sequence[Any] | None) -> dict[Fixed, float]:
    """The call's values at ``sources`` (NeedsValue): the sizes and scalar arguments a value was
    computed from; every dynamic size of every array argument for ALL_SIZES. Empty when the
    call's values are not known."""
    if hints is None:
        return {}
    if sources == ALL_SIZES:
        sources = {(i, k) for i, spec in enumerate(specs) if isinstance(spec, ArraySpec)
                   for k, d in enumerate(spec.dims) if d is None}
    values: dict[Fixed, float] = {}
    for i, k in sources:
        hint = hints[i] if i < len(hints) else None
        if hint is None:
            return {}
        values[(i, k)] = hint if k is None else int(hint[k])
    return values


def _fix(specs: Sequence[Spec], fixed: dict[Fixed, float]) -> list[Spec]:
    """``specs`` with the sizes and values of ``fixed`` made constants of the trace."""
    out: list[Spec] = []
    for i, spec in enumerate(specs):
        if isinstance(spec, ArraySpec) and any((i, k) in fixed for k in range(spec.rank)):
            sizes = tuple(fixed.get((i, k), s) for k, s in enumerate(spec.sizes))
            spec = ArraySpec(spec.dtype, spec.rank, spec.unit_dims, sizes)
        elif isinstance(spec, ScalarSpec) and (i, None) in fixed:
            spec = ScalarSpec(spec.kind, value=fixed[(i, None)], dtype=spec.dtype)
        out.append(spec)
    return out


def trace(
    fn: Callable[..., Any],
    arg_specs: Sequence[Spec],
    *,
    name: str,
    hints: Sequence[Any] | None = None,
    target: str = "cpu",
) -> TraceResult:
    """Trace ``fn`` called on symbolic arguments described by ``arg_specs`` into an MLIR module
    compiled for ``target``.

    Returns a :class:`TraceResult` whose ``mlir`` holds one ``func.func @<name>`` marked
    ``dlpack.entry`` (linalg on tensors). Sizes stay symbolic, so that one module serves every
    size; where the function needs a size or an int argument as a number (``int(n)``,
    ``math.sqrt(d)``, ``if d > 3:``), the trace starts again with it fixed at its value in
    ``hints`` (per argument: an array's shape, an int's or bool's value, else None), as
    ``torch.compile`` specialises dynamic shapes, and the result's ``guards`` say so.

    Raises:
        TraceError: (a ``TypeError``) for an operation that cannot be traced, naming the user's line.
        ValueError: for shapes that cannot broadcast, bad axes...
    """
    fixed: dict[Fixed, float] = {}
    while True:
        try:
            traced = _trace_once(fn, _fix(arg_specs, fixed), name, target)
        except NeedsValue as need:
            values = _values_at(need.sources, arg_specs, hints)
            if not values or values.keys() <= fixed.keys():
                raise need.error from None
            fixed.update(values)
            continue
        traced.guards = tuple(sorted(((i, k, v) for (i, k), v in fixed.items()),
                                     key=lambda g: (g[0], -1 if g[1] is None else g[1])))
        return traced


def _trace_once(fn: Callable[..., Any], arg_specs: Sequence[Spec], name: str, target: str) -> TraceResult:
    """One trace of ``fn`` for ``target`` (see :func:`trace`); raises NeedsValue where it needs a
    number."""
    ctx = TraceContext(target)
    pnames = _param_names(fn, len(arg_specs))
    params: list[str | ArgSlot] = []
    call_args: list[Any] = []
    for pname, spec in zip(pnames, arg_specs):
        if isinstance(spec, StaticSpec):
            call_args.append(spec.value)
            continue
        ssa = "%" + ctx.names.fresh(pname)
        attrs = [f'dlpack.name = "{pname}"']
        if isinstance(spec, ArraySpec):
            dt = D.dtype(spec.dtype)
            arr = TracedArray(ctx, ssa, dt, spec.dims, alias=True)
            arr._arg = ArgSlot(pname, ssa, arr, index=len(call_args))
            ctx.args.append(arr._arg)
            params.append(arr._arg)  # typed once the trace shows whether it is written
            call_args.append(arr)
        elif isinstance(spec, ScalarSpec) and spec.dtype is not None and spec.value is None:
            dt = D.dtype(spec.dtype)
            if dt.is_unsigned:
                params.append(f"{ssa}_in: i64 {{{', '.join(attrs)}}}")
                value = f"{ssa}_in" if dt.bits == 64 else ctx.top.op(
                    pname, f"arith.trunci {ssa}_in : i64 to {dt.mlir}")
            else:
                params.append(f"{ssa}: {dt.mlir} {{{', '.join(attrs)}}}")
                value = ssa
            call_args.append(TracedArray(ctx, value, dt, (), is_scalar=True))
        elif isinstance(spec, ScalarSpec):
            dt = D.dtype({"int": "int64", "float": "float64", "bool": "bool"}[spec.kind])
            params.append(f"{ssa}: {dt.mlir} {{{', '.join(attrs)}}}")
            if spec.value is not None:
                call_args.append({"int": int, "float": float, "bool": bool}[spec.kind](spec.value))
            else:
                scalar = TracedArray(ctx, ssa, dt, (), weak=spec.kind, is_scalar=True)
                scalar._sources = frozenset({(len(call_args), None)})
                call_args.append(scalar)
                if spec.kind == "int":
                    params[-1] = ctx.int_args[ssa] = IntSlot(len(params) - 1, pname, ssa)
        else:
            raise TypeError(f"dlbridge.trace: argument spec must be ArraySpec or ScalarSpec, not {spec!r}")

    token = begin_trace(ctx)
    clear_location()
    try:
        runs, not_rewritten = rewrite_loops(fn)
        try:
            out = with_numpy_proxy(runs)(*call_args)
        except Exception as exc:
            user_error = as_user_error(exc)
            if isinstance(user_error, TraceError) and not_rewritten is not None:
                user_error = TraceError(
                    f"{user_error} (the for loops of {name}() run as Python loops, unrolled "
                    f"while tracing, because {not_rewritten})")
            if user_error is exc:
                raise
            raise user_error from None
        outs: list[Any] = []
        tree = flatten_results(out, outs)
        try:
            finals = finalize_outputs(ctx, outs)
        except TraceError as error:
            if " at " in str(error):
                raise
            raise TraceError(f"{error} (returned by {name}()) at {_definition(fn)}") from None
        prologue = _store_written_args(ctx)
        _widen_int_args(ctx, prologue)
    finally:
        end_trace(token)
        clear_location()
        ctx.finished = True

    res_types: list[str] = []
    results: list[ResultSpec] = []
    for arr in finals:
        extra = _dtype_attr(arr._dtype)
        res_types.append(arr.mlir_type + (f" {{{extra}}}" if extra else ""))
        results.append(
            ResultSpec(
                arr._dtype.name,
                arr.ndim,
                tuple(d == 1 for d in arr._dims),
                arr._dims,
            )
        )
    if finals:
        ctx.top.raw(
            "return "
            + ", ".join(a._value for a in finals)
            + " : "
            + ", ".join(a.mlir_type for a in finals)
        )
    else:
        ctx.top.raw("return")
    sig = ", ".join(
        p if isinstance(p, str) else _int_param(p) if isinstance(p, IntSlot) else _array_param(p)
        for p in params
    )
    ret = f" -> ({', '.join(res_types)})" if res_types else ""
    body = "\n".join(b.text() for b in (prologue, ctx.top) if b.lines)
    text = (
        "module {\n"
        f"  func.func {_symbol(name)}({sig}){ret} attributes {{dlpack.entry}} {{\n"
        f"{body}\n"
        "  }\n"
        "}\n"
    )
    return TraceResult(
        mlir=text,
        entry=name,
        results=results,
        num_outputs=len(results),
        result_tree=tree,
        arg_names=pnames,
        written_args=[slot.name for slot in ctx.args if slot.written],
    )


def finalize_outputs(ctx: TraceContext, outs: Sequence[Any]) -> list[TracedArray]:
    """Turn returned values into fresh tensors: scalars become 0-d tensors; results that may share
    storage with an argument, or are returned twice, are copied (each result must own its buffer)."""
    finals: list[TracedArray] = []
    seen: set[str] = set()
    for i, o in enumerate(outs):
        if isinstance(o, TracedArray) and o.context is not ctx:
            raise TraceError("dlbridge.jit: a returned array belongs to another trace")
        try:
            o = lowering.lift(ctx, o, f"return value {i}")
        except TraceError:
            if isinstance(o, TracedArray) or hasattr(o, "__dlbridge_trace_error__"):
                raise
            raise TraceError(
                f"dlbridge.jit: return value {i} is a {type(o).__name__}; "
                "return arrays, or tuples, lists or dicts of them"
            ) from None
        ctx.begin_op()
        arr = lowering.to_tensor(ctx, o)
        if arr.may_alias_argument or arr.value in seen:
            arr = stage(ctx, arr)
        seen.add(arr.value)
        finals.append(arr)
    return finals
