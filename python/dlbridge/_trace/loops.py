"""``for i in range(...)`` loops of a traced function: as Python, or as one ``scf.for``.

Tracing runs the Python function once, so a plain ``for`` loop would be unrolled, and one whose
trip count is a dynamic size could not run at all. ``loop_source`` therefore rewrites the
function's range loops (``loop_rewrite``) so that :func:`enter_loop` decides, while tracing, how
each runs:

- as the Python loop itself when the trip count is known while tracing and at most
  :data:`UNROLL_LIMIT` (unrolled: Python's semantics exactly, side effects included), or when
  ``range`` is not the builtin;
- otherwise as an ``scf.for`` whose body is traced once, with the loop index a
  :class:`SymbolicDim`. The loop-carried values are the names the body rebinds whose value is
  traced (arrays, scalars, sizes; Python numbers that change become traced scalars) and every
  array the body updates in place; their types are found by tracing the body with stand-ins
  until they no longer change, then the body is traced for real.

``for row in x``, ``for i, row in enumerate(x)`` and ``for a, b in zip(x, y)`` over traced arrays
(:func:`enter_iteration`) are range loops over the first dim (the shortest one's, as ``zip``
stops there), their targets bound to the rows; ``zip(..., strict=True)`` checks the lengths
after the loop, raising Python's ValueError.

After the loop every name the body binds, the target included, has its Python value: its value
after the last iteration, or its value before the loop when the loop runs 0 times. Where the trip
count is dynamic and that value is not one value of one type (a name bound only in the loop), the
value after the loop checks, where it is used, that the loop ran (a run-time ``ValueError``
naming it), as Python would raise ``UnboundLocalError``. A body that changes Python objects (a
list appended to, a dict entry, an attribute), or Python values that cannot be carried, runs as
Python when the trip count is known, and is refused by name otherwise.
"""

from __future__ import annotations

import builtins
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import dtypes as D
from . import elementwise, lowering
from .dtypes import DType
from .errors import merge_sources, need_value, trace_error, unsupported, user_location
from .indexing import index_value
from .loop_state import PythonState
from .mlir_text import Block, tensor_type
from .traced_array import SymbolicDim, TraceContext, TracedArray, UseGuard, current_context

__all__ = [
    "FLAG", "UNBOUND", "UNROLL_LIMIT", "Carried", "IterationCall", "Loop", "LoopOutcome", "NoValue", "NotTraceable",
    "all_ok", "carried_value", "convert", "convert_unchecked", "dummy", "enter_iteration", "enter_loop",
    "globals_read", "guard_of", "is_number", "iteration_call", "iteration_row", "join_types", "kind_of",
    "mark_dead", "python_range", "range_loop", "restore_updates", "same_python_value", "take_results", "type_of",
]

#: Loops with a trip count known while tracing and at most this are unrolled: their few copies
#: optimise as well as a loop, and Python side effects of the body stay exact.
UNROLL_LIMIT = 8

_INDEX_MAX = (1 << 63) - 1
_DEFINED = re.compile(r"^\s*(%[A-Za-z0-9_$.]+)(?::\d+)?\s*=")


class NotTraceable(Exception):
    """A loop body that cannot be traced once as ``scf.for`` (it changes Python state)."""


class NoValue:
    """A name without a value: before its first assignment in a traced loop body, or after a
    traced loop that may not have given it one. Every use raises a TraceError saying so."""

    def __init__(self, message: str) -> None:
        self._message = message

    def __dlbridge_trace_error__(self) -> Exception:
        return trace_error(self._message)

    def _fail(self, *_: Any, **__: Any) -> Any:
        raise self.__dlbridge_trace_error__()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise self.__dlbridge_trace_error__()

    def __repr__(self) -> str:
        return f"<no value: {self._message}>"

    __call__ = __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = __neg__ = _fail
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __getitem__ = __setitem__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __len__ = __iter__ = __index__ = _fail
    __int__ = __float__ = __array__ = __str__ = __format__ = _fail
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = __abs__ = _fail
    __array_ufunc__ = None


@dataclass
class LoopOutcome:
    """How a rewritten loop runs: ``python`` with ``range``, or traced, with the ``values`` of
    its target and the names its body binds after the loop."""

    python: bool
    range: Any = None
    values: tuple[Any, ...] = ()


def _dynamic(args: Sequence[Any]) -> bool:
    return any(isinstance(a, (TracedArray, SymbolicDim)) for a in args)


def _where(line: int) -> str:
    loc = user_location()
    return f"{loc[0]}:{line}" if loc else f"line {line}"


def python_range(range_fn: Any, args: tuple[Any, ...], reason: str, line: int) -> Any:
    """The iterable of a range loop that can only run as Python (``reason`` says why): the
    range itself, unless its trip count is unknown while tracing (a TraceError)."""
    if current_context() is None or range_fn is not builtins.range or not _dynamic(args):
        return range_fn(*args)
    raise _needs_trip_count(args, f"the loop runs as a Python loop because {reason}, and a Python loop "
                                  "needs its trip count while tracing")


def _needs_trip_count(args: Sequence[Any], why: str) -> BaseException:
    """What a range loop over dynamic ``args`` that must run as Python raises: the trace is done
    again with the sizes and int arguments they come from fixed at the call's values (and
    guarded), as for ``int(n)``; a TraceError where they come from a loop index or data."""
    sources = merge_sources(*(a._sources for a in args if isinstance(a, (TracedArray, SymbolicDim))))
    return need_value(sources, unsupported("for loop over a range whose length is unknown while tracing", why))


def _static_trips(r: range) -> int:
    """``len(r)``, also beyond ``sys.maxsize``."""
    if r.step > 0:
        return max(0, (r.stop - r.start + r.step - 1) // r.step)
    return max(0, (r.start - r.stop - r.step - 1) // -r.step)


def enter_loop(range_fn: Any, args: tuple[Any, ...], body: Callable[..., tuple[Any, ...]],
               names: tuple[str, ...], line: int) -> LoopOutcome:
    """Runs ``for names[0] in range_fn(*args)`` as the rewritten code of a function being traced
    asks (see the module): returns whether to run it as Python, or its traced outcome. ``body``
    is the loop body as a function of the index and of the values of ``names[1:]``."""
    ctx = current_context()
    if ctx is None or range_fn is not builtins.range:
        return LoopOutcome(True, range_fn(*args))
    return _enter(ctx, args, body, names, line, sys._getframe(1))


class IterationCall:
    """``fn(*args, **kwargs)`` of ``for ... in enumerate(...)`` or ``zip(...)`` whose items the
    target unpacks, recorded by the rewritten code instead of called (the arguments evaluated as
    Python evaluates them), so that :func:`enter_iteration` can decide how the loop runs: traced,
    when ``fn`` is the builtin and every array iterated is a traced one; else as Python, over the
    call made as written (:meth:`python`)."""

    __slots__ = ("args", "fn", "kwargs")

    def __init__(self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.fn = fn
        self.args = args
        self.kwargs = kwargs

    def python(self) -> Any:
        """The call as Python makes it, the calls among its arguments first."""
        return self.fn(*(_python_iterable(a) for a in self.args), **self.kwargs)


def iteration_call(fn: Any, /, *args: Any, **kwargs: Any) -> IterationCall:
    """``fn(*args, **kwargs)``, recorded (see :class:`IterationCall`)."""
    return IterationCall(fn, args, kwargs)


def _python_iterable(items: Any) -> Any:
    return items.python() if isinstance(items, IterationCall) else items


def _start(call: IterationCall) -> Any:
    """The ``start`` of ``enumerate`` call ``call``: an int, a size or a traced integer (an int
    argument); None for another value (the loop then runs as Python, which gives its meaning or
    its error)."""
    start = call.args[1] if len(call.args) == 2 else call.kwargs.get("start", 0)
    if isinstance(start, SymbolicDim):
        return start
    if isinstance(start, TracedArray):
        return start if start.ndim == 0 and start._dtype.is_int else None
    return int(start) if isinstance(start, (int, np.integer)) else None


def iteration_row(items: Any, index: Any) -> Any:
    """What ``for <target> in <items>`` binds in iteration ``index`` of its traced loop: the
    row ``items[index]``, ``enumerate``'s ``(start + index, row)``, ``zip``'s tuple of rows."""
    if not isinstance(items, IterationCall):
        return items[index]
    if items.fn is not builtins.enumerate:
        return tuple(iteration_row(a, index) for a in items.args)
    start, row = _start(items), iteration_row(items.args[0], index)
    if isinstance(start, int) and start == 0:
        return index, row
    if isinstance(start, TracedArray):
        ctx, sources = start.context, start._sources
        value = index_value(ctx, start, "enumerate()", "integer")
        start = SymbolicDim(ctx, value, "the start of enumerate()", sources) if isinstance(value, str) else value
    return index + start, row


def _traced_lengths(items: Any, top: bool = True) -> Any:
    """How many items ``items`` has when the loop over it can be traced: the size of the first
    dim of a traced array, a list of those of ``zip``'s arguments, ``enumerate``'s of its own;
    None where it runs as Python (anything else iterated, ``enumerate``/``zip`` not the
    builtins, arguments they would not take, ``strict=True`` on a ``zip`` another ``zip``
    iterates, whose error Python raises only where that one asks it for an item)."""
    if isinstance(items, TracedArray):
        return items.shape[0] if items.ndim else None
    if not isinstance(items, IterationCall):
        return None
    if items.fn is builtins.enumerate:
        takes = len(items.args) == 1 and set(items.kwargs) <= {"start"} or len(items.args) == 2 and not items.kwargs
        if not takes or _start(items) is None:
            return None
        return _traced_lengths(items.args[0], top)
    if items.fn is not builtins.zip or not items.args or set(items.kwargs) - {"strict"}:
        return None
    strict = items.kwargs.get("strict", False)
    if not isinstance(strict, (bool, np.bool_)) or (strict and not top):
        return None
    lengths = [_traced_lengths(a, False) for a in items.args]
    if any(n is None for n in lengths):
        return None
    return [_shortest(n) if isinstance(n, list) else n for n in lengths]


def _shortest(lengths: Sequence[Any]) -> Any:
    """``min(lengths)`` of ints and sizes: an int where all are ints, else a size."""
    out = lengths[0]
    for n in lengths[1:]:
        if isinstance(out, int) and isinstance(n, int):
            out = min(out, n)
        elif isinstance(out, SymbolicDim):
            out = out._binary("minsi", "min", n, False)
        else:
            out = n._binary("minsi", "min", out, True)
    return out


def _zip_strict(items: Any) -> bool:
    """Whether ``items`` is ``zip(..., strict=True)``, or ``enumerate`` of one."""
    while isinstance(items, IterationCall) and items.fn is builtins.enumerate:
        items = items.args[0]
    return isinstance(items, IterationCall) and bool(items.kwargs.get("strict", False))


def _check_same_lengths(ctx: TraceContext, lengths: Sequence[Any], shortest: Any) -> None:
    """Python's ValueError of ``zip(..., strict=True)`` over arguments of ``lengths`` (ints or
    sizes) whose shortest is ``shortest``, checked where it arises: after the loop over the
    shortest. The first argument to run out names itself shorter than those before it; where
    that is the first, the first longer one names itself."""
    if all(isinstance(n, int) for n in lengths) and len(set(lengths)) == 1:
        return
    top = ctx.top

    def ssa(v: Any) -> str:
        i = index_value(ctx, v, "zip()")
        return top.const(i, "index") if isinstance(i, int) else i

    def check(ok: str, message: str) -> None:
        top.raw(f'dlpack.assert {ok}, invalid_argument, "{lowering.message_literal(message)}"')

    def before(i: int) -> str:
        return "argument 1" if i == 1 else f"arguments 1-{i}"

    sizes = [ssa(n) for n in lengths]
    least = ssa(shortest)
    earlier = sizes[0]  # the shortest of the arguments before the i-th
    for i, n in enumerate(sizes[1:], 1):
        if i > 1:
            earlier = top.op("zip_min", f"arith.minsi {earlier}, {sizes[i - 1]} : index")
        not_least = top.op("zip_ok", f"arith.cmpi ne, {n}, {least} : index")
        not_first = top.op("zip_ok", f"arith.cmpi sge, {n}, {earlier} : index")
        check(top.op("zip_ok", f"arith.ori {not_least}, {not_first} : i1"),
              f"zip() argument {i + 1} is shorter than {before(i)}")
    for i, n in enumerate(sizes[1:], 1):
        check(top.op("zip_ok", f"arith.cmpi sle, {n}, {sizes[0]} : index"),
              f"zip() argument {i + 1} is longer than {before(i)}")


def enter_iteration(items: Any, body: Callable[..., tuple[Any, ...]], names: tuple[str, ...],
                    line: int) -> LoopOutcome:
    """Runs ``for <target> in items`` (``items`` an :class:`IterationCall` where the target
    unpacks ``enumerate``/``zip``) as the rewritten code asks: where every array it iterates is
    traced, as a range loop over the shortest one's first dim (``body`` takes the index,
    ``names[0]``, and binds the target to :func:`iteration_row`), with ``zip``'s ``strict``
    length check after it; as Python over anything else, or where the rows are few and known
    while tracing, or the body is one ``scf.for`` cannot carry."""
    ctx = current_context()
    if ctx is not None:
        ctx.begin_op()
    lengths = None if ctx is None else _traced_lengths(items)
    if lengths is None:
        return LoopOutcome(True, _python_iterable(items))
    assert ctx is not None
    trips = _shortest(lengths) if isinstance(lengths, list) else lengths
    # A body scf.for cannot carry iterates as Python, fixing the lengths at the call's (NeedsValue).
    outcome = _enter(ctx, (trips,), body, names, line, sys._getframe(1), python_otherwise=True)
    if outcome.python:
        return LoopOutcome(True, _python_iterable(items))
    if _zip_strict(items):
        ctx.begin_op()
        _check_same_lengths(ctx, lengths, trips)
    return outcome


def _enter(ctx: TraceContext, args: tuple[Any, ...], body: Callable[..., tuple[Any, ...]],
           names: tuple[str, ...], line: int, frame: Any, python_otherwise: bool = False) -> LoopOutcome:
    """:func:`enter_loop` of ``range(*args)`` in the user's ``frame``. A loop ``scf.for``
    cannot carry runs as Python when its trip count is known, or ``python_otherwise``."""
    static = not _dynamic(args)
    if static:
        r = range(*args)
        if _static_trips(r) <= UNROLL_LIMIT:
            return LoopOutcome(True, r)
    scope = dict(frame.f_locals)
    prior = tuple(UNBOUND if isinstance(v, NoValue) else v for v in (scope.get(n, UNBOUND) for n in names))
    where = _where(line)
    read = globals_read(body)
    state = PythonState([*scope.items(), *read], (TracedArray, SymbolicDim, NoValue))
    try:
        return Loop(ctx, body, args, prior, names, where, state).emit()
    except NotTraceable as e:
        state.restore()
        if static or python_otherwise:
            return LoopOutcome(True, range(*args) if static else None)
        raise _needs_trip_count(args, str(e)) from None


def globals_read(body: Callable[..., Any]) -> list[tuple[str, Any]]:
    """The module globals ``body`` (nested code included) names."""
    glb = getattr(body, "__globals__", {})
    names: set[str] = set()
    stack = [body.__code__]
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    return [(n, glb[n]) for n in sorted(names) if n in glb]


def range_loop(body: Callable[[Any, tuple[Any, ...]], tuple[Any, ...]], args: tuple[Any, ...],
               initial: tuple[Any, ...], names: tuple[str, ...]) -> tuple[Any, ...]:
    """``for i in range(*args): state = body(i, state)`` traced by dlbridge's own operations
    (``initial`` holds traced values)."""
    ctx = current_context()
    if ctx is None or not _dynamic(args) and _static_trips(range(*args)) <= UNROLL_LIMIT:
        state = initial
        for i in range(*args):
            state = body(i, state)
        return state

    def with_target(i: Any, s: tuple[Any, ...]) -> tuple[Any, ...]:
        return (i, *body(i, s))

    out = Loop(ctx, with_target, args, (UNBOUND, *initial), ("", *names), "", None).emit()
    return out.values[1:]


class _Unbound:
    """The value before the loop of a name that had none."""

    def __repr__(self) -> str:
        return "<unbound>"


UNBOUND = _Unbound()


# --------------------------------------------------------------------------------------------------
# tracing a loop


@dataclass(frozen=True)
class Carried:
    """The type of a loop-carried value: ``kind`` is ``"tensor"``, ``"scalar"`` or ``"index"``."""

    kind: str
    dtype: DType | None = None
    dims: tuple[int | None, ...] = ()
    weak: str | None = None

    @property
    def mlir(self) -> str:
        if self.kind == "index":
            return "index"
        assert self.dtype is not None
        return self.dtype.mlir if self.kind == "scalar" else tensor_type(self.dims, self.dtype)


def type_of(v: Any) -> Carried | None:
    """The carried type of a traced value; None for a Python value."""
    if isinstance(v, SymbolicDim):
        return Carried("index")
    if isinstance(v, TracedArray):
        if v._is_scalar:
            return Carried("scalar", v._dtype, (), v._weak)
        return Carried("tensor", v._dtype, v._dims)
    if isinstance(v, (bool, np.bool_)):
        return Carried("scalar", D.BOOL, (), None if isinstance(v, np.bool_) else "bool")
    if isinstance(v, (int, float, complex)):
        kind = D.scalar_kind_of(v)
        return Carried("scalar", D.default_dtype_of_kind(kind), (), kind)
    if isinstance(v, np.generic):
        return Carried("scalar", D.dtype(v.dtype), ())
    return None


def join_types(before: Carried, after: Carried) -> Carried:
    """The type a value carried across iterations takes: the body's result dtype, static dims
    where both sides agree."""
    if before.kind == "index" and after.kind == "index":
        return before
    if after.kind == "index":
        after = Carried("scalar", D.INT64, (), "int")
    if before.kind == "tensor" or after.kind == "tensor":
        dims_b = before.dims if before.kind == "tensor" else ()
        dims_a = after.dims if after.kind == "tensor" else ()
        if len(dims_b) != len(dims_a):
            raise NotTraceable(
                f"a value it carries changes rank from {len(dims_b)} to {len(dims_a)} between "
                "iterations"
            )
        dims = tuple(b if b == a else None for b, a in zip(dims_b, dims_a))
        return Carried("tensor", after.dtype, dims)
    return Carried("scalar", after.dtype, (), after.weak if before.weak else None)


def convert(ctx: TraceContext, v: Any, t: Carried) -> str:
    """The SSA value of ``v`` as carried type ``t``."""
    if t.kind == "index":
        i = index_value(ctx, v, "loop value")
        return ctx.top.const(i, "index") if isinstance(i, int) else i
    assert t.dtype is not None
    if isinstance(v, SymbolicDim):
        v = v.as_array()
    if t.kind == "scalar":
        if isinstance(v, TracedArray) and not v._is_scalar:
            v = TracedArray(ctx, ctx.top.op("s", f"tensor.extract {v._value}[] : {v.mlir_type}"),
                            v._dtype, (), is_scalar=True)
        return lowering.scalar_value(ctx, v, t.dtype)
    x = lowering.to_tensor(ctx, lowering.lift(ctx, v, "loop value"))
    if x._dtype != t.dtype:
        x = elementwise.astype(x, t.dtype.name)
    if x.mlir_type != t.mlir:
        return ctx.top.op("carried", f"tensor.cast {x._value} : {x.mlir_type} to {t.mlir}")
    return x._value


def carried_value(ctx: TraceContext, ssa: str, t: Carried) -> Any:
    """A traced value standing for ``ssa`` of carried type ``t``."""
    if t.kind == "index":
        return SymbolicDim(ctx, ssa, "a loop-carried size")
    assert t.dtype is not None
    if t.kind == "scalar":
        return TracedArray(ctx, ssa, t.dtype, (), weak=t.weak, is_scalar=True)
    return TracedArray(ctx, ssa, t.dtype, t.dims)


def _trip_count(ctx: TraceContext, args: Sequence[Any]) -> tuple[Any, Any, Any]:
    """``(start, step, trips)`` of ``range(*args)``: ints when all are known, else ``index`` SSA
    values; the trip count is computed without overflow (a run-time error beyond 2**63 - 1)."""
    for a in args:
        if isinstance(a, (float, np.floating)) or (isinstance(a, TracedArray) and not a._dtype.is_int):
            raise trace_error(f"'{kind_of(a)}' object cannot be interpreted as an integer", TypeError)
    vals = [index_value(ctx, a, "range()", "integer") for a in args]
    start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals[0], vals[1], vals[2] if len(vals) == 3 else 1)
    if step == 0:
        raise trace_error("range() arg 3 must not be zero", ValueError)
    if all(isinstance(v, int) for v in (start, stop, step)):
        trips = _static_trips(range(start, stop, step))
        last = start + (trips - 1) * step
        if trips > _INDEX_MAX or not all(-_INDEX_MAX - 1 <= v <= _INDEX_MAX for v in (start, step, last)):
            raise unsupported(
                f"range({start}, {stop}, {step})",
                "a loop traced as scf.for counts in 64-bit integers; its bounds and trip count must fit",
            )
        return start, step, trips
    top = ctx.top

    def ssa(v: Any) -> str:
        return top.const(v, "index") if isinstance(v, int) else v  # type: ignore[no-any-return]

    zero, one = top.const(0, "index"), top.const(1, "index")
    s, e = ssa(start), ssa(stop)
    if isinstance(step, int):
        nonempty = top.op("nonempty", f"arith.cmpi {'slt' if step > 0 else 'sgt'}, {s}, {e} : index")
        diff = top.op("span", f"arith.subi {e}, {s} : index" if step > 0 else f"arith.subi {s}, {e} : index")
        astep = ssa(step) if step > 0 else top.op("astep", f"arith.subi {zero}, {ssa(step)} : index")
    else:
        step_ok = top.op("step_ok", f"arith.cmpi ne, {step}, {zero} : index")
        top.raw(f'dlpack.assert {step_ok}, invalid_argument, "range() arg 3 must not be zero"')
        up = top.op("up", f"arith.cmpi sgt, {step}, {zero} : index")
        rising = top.op("rising", f"arith.cmpi slt, {s}, {e} : index")
        falling = top.op("falling", f"arith.cmpi sgt, {s}, {e} : index")
        nonempty = top.op("nonempty", f"arith.select {up}, {rising}, {falling} : i1")
        d_up = top.op("span", f"arith.subi {e}, {s} : index")
        d_down = top.op("span", f"arith.subi {s}, {e} : index")
        diff = top.op("span", f"arith.select {up}, {d_up}, {d_down} : index")
        neg = top.op("neg_step", f"arith.subi {zero}, {step} : index")
        mag = top.op("astep", f"arith.select {up}, {step}, {neg} : index")
        astep = top.op("astep", f"arith.select {step_ok}, {mag}, {one} : index")
    # (span - 1) / |step| + 1 in unsigned arithmetic: exact for every pair of 64-bit bounds
    less = top.op("span", f"arith.subi {diff}, {one} : index")
    q = top.op("q", f"arith.divui {less}, {astep} : index")
    fits = top.op("fits", f"arith.cmpi ult, {q}, {top.const(_INDEX_MAX, 'index')} : index")
    ok = top.op("trips_ok", f"arith.select {nonempty}, {fits}, {top.const(True, 'i1')} : i1")
    top.raw(f'dlpack.assert {ok}, invalid_argument, "range() has more than 2**63 - 1 iterations, '
            'more than a traced loop counts"')
    more = top.op("trips", f"arith.addi {q}, {one} : index")
    trips = top.op("trips", f"arith.select {nonempty}, {more}, {zero} : index")
    return start, step, trips


def kind_of(v: Any) -> str:
    """What ``v`` is, in the user's words."""
    if isinstance(v, TracedArray):
        return f"{v._dtype.name} scalar" if v._is_scalar or not v._dims else f"{v._dtype.name} array"
    if isinstance(v, SymbolicDim):
        return "size (an int)"
    return type(v).__name__


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float, complex, np.number, np.bool_))


def _exit_type(v: Any) -> Carried:
    """The carried type of a value a name has after an iteration (Python ints as sizes)."""
    if isinstance(v, SymbolicDim) or (isinstance(v, int) and not isinstance(v, bool)):
        return Carried("index")
    t = type_of(v)
    assert t is not None
    return t


def _prior_fits(t: Carried, prior: Any) -> Carried | None:
    """The type carrying both ``prior`` and values of type ``t``, or None where they differ."""
    if prior is UNBOUND or not (isinstance(prior, (TracedArray, SymbolicDim)) or is_number(prior)):
        return None
    if t.kind == "index":
        if isinstance(prior, SymbolicDim) or (isinstance(prior, int) and not isinstance(prior, bool)):
            return t
        pt = type_of(prior)
        return pt if pt is not None and pt.kind == "scalar" and pt.dtype is not None and pt.dtype.is_int \
            and not pt.dtype.is_bool else None
    pt = _exit_type(prior)
    if pt.kind != t.kind or pt.dtype != t.dtype or pt.weak != t.weak or len(pt.dims) != len(t.dims):
        return None
    return Carried(t.kind, t.dtype, tuple(a if a == b else None for a, b in zip(pt.dims, t.dims)), t.weak)


def guard_of(v: Any) -> UseGuard | None:
    return v._guard if isinstance(v, (TracedArray, SymbolicDim)) else None


def convert_unchecked(ctx: TraceContext, v: Any, t: Carried) -> str:
    """``convert`` of a value that flows into or out of a loop without being used: its checks
    (a :class:`UseGuard`) travel with it instead of being asserted here."""
    guard = guard_of(v)
    if guard is None:
        return convert(ctx, v, t)
    v._guard = None
    try:
        return convert(ctx, v, t)
    finally:
        v._guard = guard


def all_ok(block: Block, guard: UseGuard | None) -> str:
    """An ``i1`` that holds where every check of ``guard`` passes."""
    if guard is None:
        return block.const(True, "i1")
    ok = guard.checks[0][0]
    for cond, _ in guard.checks[1:]:
        ok = block.op("ok", f"arith.andi {ok}, {cond} : i1")
    return ok


def dummy(ctx: TraceContext, t: Carried) -> str:
    """A value of type ``t`` that is never read (the start of a value only an iteration sets)."""
    if t.kind == "index":
        return ctx.top.const(0, "index")
    assert t.dtype is not None
    if t.kind == "scalar":
        return ctx.top.const(0, t.dtype.mlir)
    zero = ctx.top.const(0, "index")
    sizes = ", ".join(zero for d in t.dims if d is None)
    return ctx.top.op("unset", f"tensor.empty({sizes}) : {t.mlir}")


FLAG = Carried("scalar", D.BOOL)


@dataclass
class _Exit:
    """The value after the loop of a name the loop may give its first value, or of its target:
    ``value`` itself, or a loop result of type ``carried`` that starts from ``start`` (the value
    before the loop, or a dummy where there is none) and is ``after`` after each iteration;
    ``unset`` is the message of the check that the loop ran, where it must have."""

    value: Any = None
    carried: Carried | None = None
    start: Any = UNBOUND
    after: Any = None
    unset: str | None = None


class Loop:
    """One ``scf.for`` being traced.

    Values with run-time checks (see :class:`UseGuard`) flow through it unchecked: the check of
    a value before the loop applies where the loop may not have run, and each carried value whose
    value after an iteration has checks is carried with an ``i1`` saying whether they passed."""

    def __init__(self, ctx: TraceContext, body: Callable[..., tuple[Any, ...]], args: tuple[Any, ...],
                 prior: tuple[Any, ...], names: tuple[str, ...], where: str, state: PythonState | None) -> None:
        self.ctx = ctx
        self.body = body
        ctx.begin_op()
        self.start, self.step, self.trips = _trip_count(ctx, args)
        self.static = isinstance(self.trips, int)
        self.names = names
        self.where = where
        self.state = state
        self.target_prior = prior[0]
        self.unbound = [v is UNBOUND for v in prior[1:]]
        self.initial = tuple(
            NoValue(f"'{n}' is used in the loop at {where} before it is assigned (it has no value "
                     "before the loop)") if v is UNBOUND else v
            for n, v in zip(names[1:], prior[1:])
        )
        self.first_local = 0
        self.ran: str | None = None

    def _index(self, iv: str) -> SymbolicDim:
        """The loop variable ``start + iv * step``."""
        ctx = self.ctx
        i = SymbolicDim(ctx, iv, "the loop index")
        if self.step != 1:
            i = i * (self.step if isinstance(self.step, int) else SymbolicDim(ctx, self.step, "the range step"))
        if self.start != 0:
            i = i + (self.start if isinstance(self.start, int) else SymbolicDim(ctx, self.start, "the range start"))
        return i

    def _run_body(self, block: Block, types_: list[Carried | None], roots: list[TracedArray],
                  args: list[str], iv: str, flags: dict[int, tuple[str, str]]
                  ) -> tuple[Any, tuple[Any, ...], dict[int, Any], dict[int, Any], Any]:
        """Traces the body into ``block`` with the carried names as ``args`` (in order, then the
        roots updated in place) and ``flags`` (the ``i1`` saying that the value of a carried name
        is set, and the message when not); returns the target's value after the body, the body's
        state, the arrays it updated, the stand-ins it was given and the index."""
        ctx = self.ctx
        outer, saved_log, saved_dims = ctx.top, ctx.update_log, ctx.dim_log
        ctx.top, ctx.update_log, ctx.dim_log = block, {}, []
        self.first_local = ctx.fresh_serial()  # arrays numbered above are the body's own
        try:
            state = list(self.initial)
            standins: dict[int, Any] = {}
            it = iter(args)
            for j, t in enumerate(types_):
                if t is None:
                    continue
                state[j] = standins[j] = carried_value(ctx, next(it), t)
                checks = []
                before = guard_of(self.initial[j])
                if before is not None:  # read in the first iteration: the value before the loop
                    later = block.op("later", f"arith.cmpi ne, {iv}, {block.const(0, 'index')} : index")
                    for cond, message in before.checks:
                        checks.append((block.op("ok", f"arith.ori {later}, {cond} : i1"), message))
                if j in flags:
                    checks.append(flags[j])
                if checks:
                    standins[j]._guard = UseGuard(checks)
            for root in roots:
                ctx.note_update(root)
                root._value = next(it)
                root._dim_ssa = {}
                root._version = ctx.fresh_version()
            index = self._index(iv)
            result = self.body(index, tuple(state))
            log = ctx.update_log
        finally:
            for arr, k in ctx.dim_log or ():
                arr._dim_ssa.pop(k, None)
            ctx.top, ctx.update_log, ctx.dim_log = outer, saved_log, saved_dims
        return result[0], tuple(result[1:]), log, standins, index

    @staticmethod
    def _restore(log: dict[int, Any]) -> None:
        restore_updates(log)

    def _check_state(self, log: dict[int, Any]) -> None:
        what = self.state.changed() if self.state is not None else None
        if what is not None:
            self._restore(log)
            raise NotTraceable(f"its body changes {what}, which a loop traced once as scf.for cannot repeat")

    def _mark_dead(self, block: Block, names: Sequence[str]) -> None:
        mark_dead(self.ctx, block, names, self.where or "a loop")

    def _discover(self) -> tuple[list[Carried | None], list[TracedArray], dict[int, str]]:
        """The carried types, the arrays updated in place and the carried names whose value after
        an iteration has checks (with the message of the first), by tracing the body with
        stand-ins until they are stable; the stand-in traces are discarded."""
        ctx = self.ctx
        types_: list[Carried | None] = [
            type_of(v) if isinstance(v, (TracedArray, SymbolicDim)) else None for v in self.initial
        ]
        roots: list[TracedArray] = []
        for _ in range(4):
            scratch = Block(ctx.names, indent=ctx.top.indent + 1)
            args = ["%" + ctx.names.fresh("standin") for t in types_ if t is not None]
            args += ["%" + ctx.names.fresh("standin") for _ in roots]
            iv = "%" + ctx.names.fresh("iv")
            _, result, log, standins, _ = self._run_body(scratch, types_, roots, args, iv, {})
            self._restore(log)
            self._mark_dead(scratch, [*args, iv])
            self._check_state({})
            new_types = list(types_)
            new_roots = list(roots)
            for j, standin in standins.items():
                if result[j] is standin and isinstance(standin, TracedArray) and standin._base is None \
                        and isinstance(self.initial[j], TracedArray) \
                        and any(r is standin for r, _ in log.values()):
                    # updated in place, never rebound: the array object itself is carried (a Python
                    # number before the loop is immutable, so its stand-in's update is a new value)
                    new_types[j] = None
                    if all(r is not self.initial[j] for r in new_roots):
                        new_roots.append(self.initial[j])
            new_roots += [
                r for r, _ in log.values()
                if all(r is not x for x in new_roots) and all(r is not s for s in standins.values())
                and r._serial < self.first_local
            ]
            for j, (before, after) in enumerate(zip(self.initial, result)):
                if self.unbound[j] or (types_[j] is not None and new_types[j] is None) or after is before:
                    continue
                name = self.names[j + 1]
                t_after = type_of(after) if isinstance(after, (TracedArray, SymbolicDim)) else None
                if t_after is None:
                    if types_[j] is not None:
                        new_types[j] = join_types(types_[j], type_of(after) or types_[j])  # type: ignore[arg-type]
                    elif not same_python_value(before, after):
                        t = type_of(after) if is_number(after) and is_number(before) else None
                        if t is None:
                            change = (f"holds a {kind_of(before)} that changes in each iteration"
                                      if type(before) is type(after) else
                                      f"is a {kind_of(before)} before it and a "
                                      f"{kind_of(after)} after an iteration")
                            raise NotTraceable(
                                f"'{name}' {change}, and a loop traced as scf.for carries only arrays "
                                "and numbers"
                            )
                        new_types[j] = t
                    continue
                base = types_[j] or type_of(before)
                if base is None:
                    raise NotTraceable(
                        f"'{name}' holds a {kind_of(before)} before it and an array after an "
                        "iteration, which a loop traced as scf.for cannot carry"
                    )
                new_types[j] = join_types(base, t_after)
            if new_types == types_ and len(new_roots) == len(roots):
                checked = {j: g.checks[0][1] for j, t in enumerate(types_)
                           if t is not None and (g := guard_of(result[j])) is not None}
                return types_, roots, checked
            types_, roots = new_types, new_roots
        raise NotTraceable("the types of the values it carries do not settle")

    def _exit(self, name: str, prior: Any, after: Any, index: Any) -> _Exit:
        """The value after the loop of ``name``, which has ``after`` after the body and ``prior``
        before the loop (``UNBOUND`` when none)."""
        if isinstance(after, NoValue):  # the body never assigns it
            if prior is UNBOUND:
                return _Exit(NoValue(f"'{name}' has no value after the loop at {self.where}, which "
                                      "does not assign it"))
            return _Exit(prior)
        traced = isinstance(after, (TracedArray, SymbolicDim))
        if self.static:
            if after is index:
                return _Exit(self.start + (self.trips - 1) * self.step)
            if not traced:
                return _Exit(after)
            return _Exit(carried=_exit_type(after), after=after)
        if traced or is_number(after):
            t = _exit_type(after)
            both = _prior_fits(t, prior)
            if both is not None:
                return _Exit(carried=both, start=prior, after=after)
            if prior is UNBOUND:
                unset = f"'{name}' has no value: the loop at {self.where} that assigns it ran 0 times"
            else:
                unset = (f"'{name}' keeps its value from before the loop at {self.where}, which ran "
                         f"0 times: a {kind_of(prior)} that the traced loop cannot give back "
                         f"where it carries a {kind_of(after)}; give '{name}' a value of that "
                         "kind before the loop")
            return _Exit(carried=t, after=after, unset=unset)
        if prior is after or (prior is not UNBOUND and same_python_value(prior, after)):
            return _Exit(after)
        if prior is UNBOUND:
            return _Exit(NoValue(
                f"'{name}' may have no value after the loop at {self.where}: it is assigned only in "
                "the loop, whose trip count is unknown while tracing; give it a value before the loop"))
        return _Exit(NoValue(
            f"'{name}' is a {kind_of(prior)} before the loop at {self.where} and a "
            f"{kind_of(after)} after an iteration: which one it holds after the loop depends "
            "on a trip count unknown while tracing"))

    def _ran(self) -> str:
        """An ``i1`` after the loop: whether it ran at least once."""
        if self.ran is None:
            top = self.ctx.top
            trips = top.const(self.trips, "index") if isinstance(self.trips, int) else self.trips
            self.ran = top.op("ran", f"arith.cmpi sgt, {trips}, {top.const(0, 'index')} : index")
        return self.ran

    def _after_checks(self, before: Any, flag: tuple[str, str] | None, unset: str | None) -> list[tuple[str, str]]:
        """The checks of a value after the loop: those of ``before`` where the loop did not run,
        that it ran (``unset``), and the ``flag`` result of the checks of the last iteration."""
        top = self.ctx.top
        guard = guard_of(before)
        checks = [(top.op("ok", f"arith.ori {self._ran()}, {c} : i1"), m)
                  for c, m in (guard.checks if guard is not None else ())]
        if unset is not None:
            checks.append((self._ran(), unset))
        if flag is not None:
            checks.append(flag)
        return checks

    def carried_operands(self) -> tuple[list[Carried | None], list[TracedArray], list[tuple[int, Carried]],
                                        dict[int, str], list[Carried], list[str]]:
        """What the loop carries (found by :meth:`_discover`): the types of the names, the arrays
        the body updates in place, the carried names (position, type), those whose value after an
        iteration is checked (with the message), and the types and initial values of the loop's
        operands (the carried names, then the arrays)."""
        ctx = self.ctx
        types_, roots, checked = self._discover()
        for root in roots:  # a loop around this one carries them too
            ctx.note_update(root)
        carried = [(j, t) for j, t in enumerate(types_) if t is not None]
        checked = {j: m for j, m in checked.items() if types_[j] is not None}
        all_types = [t for _, t in carried] + [Carried("tensor", r._dtype, r._dims) for r in roots]
        inits = [convert_unchecked(ctx, self.initial[j], t) for j, t in carried]
        for root in roots:
            lowering.lift(ctx, root, "loop")
            inits.append(root._value)
        return types_, roots, carried, checked, all_types, inits

    def emit(self) -> LoopOutcome:
        """Emits the loop; returns the values of its target and of the names its body binds."""
        ctx = self.ctx
        types_, roots, carried, checked, all_types, inits = self.carried_operands()
        args = ["%" + ctx.names.fresh("carried") for _ in all_types]
        flags = {j: ("%" + ctx.names.fresh("set"), m) for j, m in checked.items()}
        for arg, _ in flags.values():
            all_types.append(FLAG)
            args.append(arg)
            inits.append(ctx.top.const(True, "i1"))
        iv = "%" + ctx.names.fresh("iv")
        block = Block(ctx.names, indent=ctx.top.indent + 1)
        t_after, result, log, _, index = self._run_body(block, types_, roots, args, iv, flags)
        try:
            self._check_state(log)
        except NotTraceable:
            self._mark_dead(block, [*args, iv])
            raise
        outer = ctx.top
        ctx.top = block
        try:
            yields = [convert_unchecked(ctx, result[j], t) for j, t in carried]
            yields += [convert(ctx, root, t) for root, t in zip(roots, all_types[len(carried):])]
            yields += [all_ok(block, guard_of(result[j])) for j in flags]
            exits: dict[int, _Exit] = {}
            if self.names[0]:
                exits[0] = self._exit(self.names[0], self.target_prior, t_after, index)
            for j, unbound in enumerate(self.unbound):
                if unbound:
                    exits[j + 1] = self._exit(self.names[j + 1], UNBOUND, result[j], index)
            slots = [(k, x) for k, x in exits.items() if x.carried is not None]
            slot_flags: dict[int, str] = {}
            for _, x in slots:
                assert x.carried is not None
                all_types.append(x.carried)
                args.append("%" + ctx.names.fresh("after"))
                yields.append(convert_unchecked(ctx, x.after, x.carried))
            for k, x in slots:
                guard = guard_of(x.after)
                if guard is not None:
                    slot_flags[k] = guard.checks[0][1]
                    all_types.append(FLAG)
                    args.append("%" + ctx.names.fresh("set"))
                    yields.append(all_ok(block, guard))
        finally:
            ctx.top = outer
        for _, x in slots:
            assert x.carried is not None
            inits.append(dummy(ctx, x.carried) if x.start is UNBOUND else convert_unchecked(ctx, x.start, x.carried))
        inits += [ctx.top.const(True, "i1") for _ in slot_flags]
        if all_types:
            block.raw(f"scf.yield {', '.join(yields)} : {', '.join(t.mlir for t in all_types)}")
        top = ctx.top
        trips = top.const(self.trips, "index") if isinstance(self.trips, int) else self.trips
        zero, one = top.const(0, "index"), top.const(1, "index")
        res = "%" + ctx.names.fresh("loop")
        head = f"scf.for {iv} = {zero} to {trips} step {one}"
        if all_types:
            iter_args = ", ".join(f"{a} = {v}" for a, v in zip(args, inits))
            top.raw(f"{res}:{len(all_types)} = {head} iter_args({iter_args}) -> "
                    f"({', '.join(t.mlir for t in all_types)}) {{")
        else:
            top.raw(f"{head} {{")
        top.lines.extend(block.lines)
        top.raw("}")
        self._mark_dead(block, [*args, iv])
        results = iter(f"{res}#{n}" for n in range(len(all_types)))
        values: list[Any] = [None] * len(self.names)
        for j, t in carried:
            values[j + 1] = carried_value(ctx, next(results), t)
        take_results(ctx, roots, results)
        for j, (_, message) in flags.items():
            checks = self._after_checks(self.initial[j], (next(results), message), None)
            values[j + 1]._guard = UseGuard(checks)
        for j, _ in carried:
            if j not in flags and (checks := self._after_checks(self.initial[j], None, None)):
                values[j + 1]._guard = UseGuard(checks)
        for j, before in enumerate(self.initial):
            if types_[j] is None and not self.unbound[j]:  # unchanged by the loop
                values[j + 1] = before
        for k, x in exits.items():
            values[k] = x.value
        for k, x in slots:
            assert x.carried is not None
            values[k] = carried_value(ctx, next(results), x.carried)
        for k, x in slots:
            flag = (next(results), slot_flags[k]) if k in slot_flags else None
            checks = self._after_checks(x.start, flag, x.unset)
            if checks:
                values[k]._guard = UseGuard(checks)
        return LoopOutcome(False, values=tuple(values))


def take_results(ctx: TraceContext, roots: Sequence[TracedArray], results: Iterator[str]) -> None:
    """Gives the arrays a structured op updated in place (``roots``) their values after it: the
    next of its ``results`` each."""
    for root in roots:
        root._value = next(results)
        root._dim_ssa = {}
        root._version = ctx.fresh_version()
        if root._arg is not None:
            root._arg.written = True


def restore_updates(log: dict[int, Any]) -> None:
    """Puts the arrays a traced region updated in place (its ``update_log``) back as they were
    before it."""
    for root, state in log.values():
        root._value, root._version, root._dim_ssa, root._updated_at, written = state
        if root._arg is not None:
            root._arg.written = written


def mark_dead(ctx: TraceContext, block: Block, names: Sequence[str], where: str) -> None:
    """Makes the values defined in ``block`` (a closed region: a loop body, a branch) and
    ``names`` (its block arguments) unusable from now on; ``where`` names the region."""
    dead = ctx.names.dead
    for line in block.lines:
        m = _DEFINED.match(line)
        if m:
            dead[m.group(1)] = where
    for name in names:
        dead[name] = where


def same_python_value(a: Any, b: Any) -> bool:
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:  # noqa: BLE001 - any object may be carried unchanged
        return False
