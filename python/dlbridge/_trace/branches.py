"""Python control flow on values known only at run time: ``if``, conditional expressions, ``while``.

``loop_rewrite`` rewrites every ``if``/``elif``/``else`` statement, ``while`` loop and conditional
expression (``a if c else b``) of a traced function so that its condition is evaluated by
:func:`condition`: a Python bool where it is one (``if x.ndim == 2:``, ``if axis is None:``, a
size specialised at the call's value), and the statement then runs as Python exactly as
written; or a traced bool, the condition's value at run time, and then:

- ``if`` (:func:`enter_if`) is one ``scf.if`` whose results are the names the branches bind
  and the arrays they update in place. Each branch is traced once, as a nested function of the
  values of those names before it (as ``loops`` traces a ``for`` body). A name both branches
  leave alone keeps its value; Python numbers that differ become traced scalars; arrays whose
  sizes differ between the branches get dynamic sizes. A name bound in one branch only (and not
  before) is carried with an ``i1`` saying whether it was set: using it after the ``if`` checks,
  at run time, that the branch binding it ran (a ``ValueError`` naming it, where Python would
  raise ``UnboundLocalError``).
- ``a if c else b`` (:func:`if_expression`) is an ``scf.if`` with one result: only the branch
  taken runs, as in Python.
- ``while`` (:func:`enter_while`) runs as Python while its condition is a Python bool (the
  first test of ``err = np.inf; while err > tol:`` is Python's ``True``), then, once the
  condition is traced, the rest of the loop is one ``scf.while`` over the names its body binds
  and the arrays it updates, their types found as for ``scf.for`` (``loops.Loop``).
- ``and``, ``or`` and ``not`` in those conditions keep Python's short-circuit: the right operand
  of ``and``/``or`` is evaluated in an ``scf.if`` on the left one where the left one is traced.

Inside those conditions a comparison of sizes that cannot be specialised (a loop index: ``if i +
1 < n:`` in a traced ``for`` loop) is itself traced (``SymbolicDim``). Sizes and int arguments
that can be specialised still are, as elsewhere (the kernel is then guarded on their values).
An ``if`` that ends the function (or a branch of such an ``if``) and one of whose branches ends
in ``return`` takes the statements after it into its other branch, and what the branches return
is one more result (``if s > 0: return x / s`` then ``return -x``); tuples returned or bound in
both branches are joined item by item. A branch or loop body that leaves with ``return``
elsewhere (inside a loop), ``break`` or ``continue`` is refused by :func:`refuse` naming the
construct and its line, when (only when) its condition is traced.
"""

from __future__ import annotations

import operator
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

from . import dtypes as D
from . import lowering
from .dtypes import DType
from .errors import TraceError, need_value, unsupported, user_location
from .loop_rewrite import RETURNED
from .loop_state import PythonState
from .loops import (
    FLAG,
    UNBOUND,
    Carried,
    Loop,
    NotTraceable,
    NoValue,
    all_ok,
    carried_value,
    convert,
    convert_unchecked,
    dummy,
    globals_read,
    guard_of,
    is_number,
    kind_of,
    mark_dead,
    restore_updates,
    same_python_value,
    take_results,
    type_of,
)
from .mlir_text import Block
from .traced_array import SymbolicDim, TraceContext, TracedArray, UseGuard, current_context

__all__ = ["condition", "enter_if", "enter_while", "if_expression", "refuse"]

#: A condition as the rewritten code passes it: a function computing the value tested, or
#: ``("not", c)``, ``("and", c1, c2, ...)``, ``("or", c1, c2, ...)`` of conditions, or
#: ``("chain", ("Lt", "LtE"), (a, b, c))`` for ``a() < b() <= c()``.
Condition = Any

_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge, "Eq": operator.eq,
    "NotEq": operator.ne, "Is": operator.is_, "IsNot": operator.is_not,
    "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b,
}

_INDEX = Carried("index")


def _where(line: int) -> str:
    loc = user_location()
    return f"{loc[0]}:{line}" if loc else f"line {line}"


# --------------------------------------------------------------------------------------------------
# conditions


def _python_truth(tree: Condition) -> bool:
    """The condition as Python evaluates it (outside a trace)."""
    if callable(tree):
        return bool(tree())
    op, *parts = tree
    if op == "chain":
        ops, operands = parts
        left = operands[0]()
        for name, right_fn in zip(ops, operands[1:]):
            right = right_fn()
            if not _COMPARE[name](left, right):
                return False
            left = right
        return True
    if op == "not":
        return not _python_truth(parts[0])
    if op == "and":
        return all(_python_truth(p) for p in parts)
    return any(_python_truth(p) for p in parts)


def condition(tree: Condition, line: int, loop: bool = False) -> Any:
    """The value of the condition of a rewritten ``if``/``while`` (``loop``)/conditional
    expression: Python's ``True`` or ``False`` where Python can evaluate it, else a traced bool
    scalar."""
    ctx = current_context()
    if ctx is None:
        return _python_truth(tree)
    ctx.conditions += 1
    ctx.loop_conditions += loop
    try:
        return _evaluate(ctx, tree, line)
    finally:
        ctx.conditions -= 1
        ctx.loop_conditions -= loop


def _truth(ctx: TraceContext, v: Any) -> Any:
    """``bool(v)``: Python's answer, or a traced bool where ``v`` is known only at run time
    (data, a loop index, a value computed from them). Traced values computed from the sizes and
    int arguments alone are specialised by ``bool`` itself (``NeedsValue``), as elsewhere, except
    in the condition of a ``while`` loop: it stays traced (one ``scf.while`` for every value),
    and the loop is specialised only where it cannot be traced (:func:`enter_while`)."""
    loop = ctx.loop_conditions > 0
    if isinstance(v, SymbolicDim) and (v._sources is None or loop) and v.context is ctx:
        return v != 0
    if isinstance(v, TracedArray) and (v._sources is None or loop) and v.context is ctx:
        if any(d != 1 for d in v._dims):
            return bool(v)  # the error of an array of several (or dynamic) elements
        if not v._dtype.is_bool:
            v = v != 0
        if v.ndim:
            v = v.reshape(())
        return v
    return bool(v)


def _i1(ctx: TraceContext, c: Any) -> str:
    """The ``i1`` SSA value of a condition (a Python bool or a traced bool) in the current block."""
    if isinstance(c, bool):
        return ctx.top.const(c, "i1")
    return convert(ctx, c, FLAG)


def _traced_bool(ctx: TraceContext, ssa: str) -> TracedArray:
    return TracedArray(ctx, ssa, D.BOOL, (), is_scalar=True)


def _evaluate(ctx: TraceContext, tree: Condition, line: int) -> Any:
    if callable(tree):
        return _truth(ctx, tree())
    op, *parts = tree
    if op == "chain":
        ops, operands = parts
        return _chain(ctx, ops, operands, operands[0](), line)
    if op == "not":
        c = _evaluate(ctx, parts[0], line)
        if isinstance(c, bool):
            return not c
        ctx.begin_op()
        true = ctx.top.const(True, "i1")
        return _traced_bool(ctx, ctx.top.op("not", f"arith.xori {_i1(ctx, c)}, {true} : i1"))
    first = _evaluate(ctx, parts[0], line)
    rest = parts[1:]
    if not rest:
        return first
    rest_tree = (op, *rest) if len(rest) > 1 else rest[0]
    stops = op == "or"  # the value of the first operand that ends the evaluation
    if isinstance(first, bool):
        return first if first == stops else _evaluate(ctx, rest_tree, line)

    def evaluate_rest(_: tuple[Any, ...]) -> tuple[Any, ...]:
        return (_evaluate(ctx, rest_tree, line),)

    def constant(_: tuple[Any, ...]) -> tuple[Any, ...]:
        return (stops,)

    then, other = (constant, evaluate_rest) if stops else (evaluate_rest, constant)
    where = _where(line)
    out = _traced_if(ctx, first, (then, other), (NoValue("no value"),), (f"the condition at {where}",),
                     f"the condition at {where}", None)[0]
    if isinstance(out, TracedArray) and not out._dtype.is_bool:
        out = out != 0
    return out


def _chain(ctx: TraceContext, ops: Sequence[str], operands: Sequence[Callable[[], Any]], left: Any,
           line: int) -> Any:
    """``left <ops[0]> operands[1]() <ops[1]> ...``: each operand evaluated once, and only while
    the comparisons before it hold (in an ``scf.if`` on a traced one)."""
    right = operands[1]()
    first = _truth(ctx, _COMPARE[ops[0]](left, right))
    if len(ops) == 1 or first is False:
        return first
    if first is True:
        return _chain(ctx, ops[1:], operands[1:], right, line)

    def rest(_: tuple[Any, ...]) -> tuple[Any, ...]:
        return (_chain(ctx, ops[1:], operands[1:], right, line),)

    where = _where(line)
    out = _traced_if(ctx, first, (rest, lambda _: (False,)), (NoValue("no value"),), ("the condition",), where,
                     None)[0]
    return out != 0 if isinstance(out, TracedArray) and not out._dtype.is_bool else out


# --------------------------------------------------------------------------------------------------
# if


@dataclass
class _Branch:
    """One branch of an ``scf.if``, traced: its region, the values of the names after it, and
    the arrays created before it that it updated in place, with their values after it."""

    block: Block
    result: tuple[Any, ...]
    updated: dict[int, tuple[TracedArray, str]] = field(default_factory=dict)


def _run_branch(ctx: TraceContext, fn: Callable[[tuple[Any, ...]], tuple[Any, ...]], initial: tuple[Any, ...],
                where: str, state: PythonState | None) -> _Branch:
    """Traces ``fn(initial)`` into a region of its own; the arrays it updates in place are put
    back as they were before it (their values after it are in the branch's ``updated``)."""
    block = Block(ctx.names, indent=ctx.top.indent + 1)
    outer, saved_log, saved_dims = ctx.top, ctx.update_log, ctx.dim_log
    ctx.top, ctx.update_log, ctx.dim_log = block, {}, []
    first_local = ctx.fresh_serial()  # arrays numbered above are the branch's own
    log: dict[int, Any] = {}
    try:
        result = tuple(fn(initial))
        log = ctx.update_log or {}
        updated = {k: (root, root._value) for k, (root, _) in log.items() if root._serial < first_local}
    finally:
        log = ctx.update_log or log
        for arr, k in ctx.dim_log or ():
            arr._dim_ssa.pop(k, None)
        ctx.top, ctx.update_log, ctx.dim_log = outer, saved_log, saved_dims
        restore_updates(log)
    if state is not None and (what := state.changed()) is not None:
        state.restore()
        raise unsupported(f"if on a condition known only at run time (at {where})",
                          f"a branch changes {what}, which the traced if cannot do only where the "
                          "branch runs")
    return _Branch(block, result, updated)


def _branch_type(v: Any) -> Carried | None:
    """The type an ``scf.if`` result holding ``v`` takes: Python ints as sizes; None for a
    value that is not an array, a size or a number."""
    if isinstance(v, SymbolicDim) or (isinstance(v, int) and not isinstance(v, bool)):
        return _INDEX
    if isinstance(v, (TracedArray, SymbolicDim)) or is_number(v):
        return type_of(v)
    return None


_KINDS = {"bool": 0, "int": 1, "float": 2, "complex": 3}


def _join_dtypes(a: Carried, b: Carried) -> tuple[DType, str | None]:
    """The dtype (and weak kind) of a value that is ``a`` after one branch and ``b`` after the
    other: NumPy's promotion of the two (a Python number's kind joins the other's as NEP 50 says),
    as numba unifies the types of a variable assigned in both branches (the taken branch's value
    is converted as NumPy's promotion converts it)."""
    assert a.dtype is not None and b.dtype is not None
    if a.dtype == b.dtype:
        return a.dtype, a.weak if a.weak == b.weak else None
    if a.weak and b.weak:
        wider = a if _KINDS[a.weak] >= _KINDS[b.weak] else b
        return wider.dtype, wider.weak  # type: ignore[return-value]
    for weak, strong in ((a, b), (b, a)):
        if weak.weak and not strong.weak:
            # a Python number and a NumPy value: NumPy's promotion of the two (``lo if v < lo else v``
            # of an int array and a float bound is a float64, as numba unifies them)
            return D.weak_result_type(strong.dtype, weak.weak), None  # type: ignore[arg-type]
    return D.result_type(a.dtype, b.dtype), None


def _join(name: str, a: Carried, b: Carried, where: str) -> Carried:
    """The type of an ``scf.if`` result that is of type ``a`` after one branch, ``b`` after the
    other (see the module)."""
    if a == b:
        return a
    if a.kind == "index" and b.kind == "index":
        return a
    a, b = (Carried("scalar", D.INT64, (), "int") if t.kind == "index" else t for t in (a, b))
    if a.kind == "tensor" or b.kind == "tensor":
        if len(a.dims) != len(b.dims):
            raise unsupported(
                f"if on a condition known only at run time (at {where})",
                f"'{name}' has {len(a.dims)} dims after one branch and {len(b.dims)} after the other")
        dtype, _ = _join_dtypes(a, b)
        return Carried("tensor", dtype, tuple(x if x == y else None for x, y in zip(a.dims, b.dims)))
    dtype, weak = _join_dtypes(a, b)
    return Carried("scalar", dtype, (), weak)


@dataclass
class _Result:
    """How a name leaves an ``scf.if``: ``value`` itself, or a result of type ``carried`` that is
    ``values[k]`` after branch ``k`` (a ``NoValue`` where the branch leaves it unset), with an
    ``i1`` result saying it is set where ``message`` is not None."""

    value: Any = None
    carried: Carried | None = None
    values: tuple[Any, ...] = ()
    message: str | None = None


def _result(name: str, values: tuple[Any, Any], where: str) -> _Result:
    if name.startswith(RETURNED):
        name = "the value returned" + name[len(RETURNED):]
    a, b = values
    if a is b:
        return _Result(a)
    unset = [isinstance(v, NoValue) for v in values]
    if all(unset):
        return _Result(a)
    if any(unset):
        set_value = b if unset[0] else a
        t = _branch_type(set_value)
        if t is None:
            return _Result(NoValue(f"'{name}' has a value after the if at {where} only where the branch "
                                   "that assigns it ran, which is known only at run time"))
        return _Result(carried=t, values=values,
                       message=f"'{name}' has no value: it is assigned only in the branch of the if at {where} "
                               "that did not run")
    traced = [isinstance(v, (TracedArray, SymbolicDim)) for v in values]
    if not any(traced) and same_python_value(a, b):
        return _Result(a)
    ta, tb = _branch_type(a), _branch_type(b)
    if ta is None or tb is None:
        return _Result(NoValue(
            f"'{name}' is a {kind_of(a)} after one branch of the if at {where} and a {kind_of(b)} "
            "after the other: which one it holds depends on a condition known only at run time"))
    t = _join(name, ta, tb, where)
    guards = [guard_of(v) for v in values]
    message = next((g.checks[0][1] for g in guards if g is not None), None)
    return _Result(carried=t, values=values, message=message)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _raised_by_the_branch(error: Exception) -> bool:
    """Whether ``error``, raised while a branch was traced, is what the branch raises where it
    runs (the user's ``raise``, NumPy's error for what the branch does), not a failure of the
    tracer itself."""
    if isinstance(error, TraceError):
        return False
    tb, last = error.__traceback__, ""
    while tb is not None:
        last, tb = tb.tb_frame.f_code.co_filename, tb.tb_next
    if not os.path.abspath(last).startswith(_PACKAGE):
        return True
    return isinstance(error, (ValueError, IndexError, TypeError, ArithmeticError))


def _traced_if(ctx: TraceContext, cond: Any, branches: Sequence[Callable[[tuple[Any, ...]], tuple[Any, ...]]],
               initial: tuple[Any, ...], names: Sequence[str], where: str,
               state: PythonState | None) -> tuple[Any, ...]:
    """Traces ``if cond: names = branches[0](initial) else: names = branches[1](initial)`` as
    one ``scf.if``; returns the values of ``names`` after it. Where one branch raises (``if
    x.min() < 0: raise ValueError(...)``), the ``if`` is a run-time check that the other runs,
    followed by that one (a ValueError with the message where it fails)."""
    ctx.begin_op()
    c = _i1(ctx, cond)
    runs: list[_Branch] = []
    for k, fn in enumerate(branches):
        try:
            runs.append(_run_branch(ctx, fn, initial, where, state))
        except Exception as error:  # noqa: BLE001 - sorted by _raised_by_the_branch
            if not _raised_by_the_branch(error):
                raise
            if state is not None:
                state.restore()
            for run in runs:
                mark_dead(ctx, run.block, (), f"the branches of the if at {where}")
            return _checked_branch(ctx, c, k, error, branches[1 - k], initial)
    leaves: list[tuple[str, tuple[Any, Any]]] = []
    shapes = [_split(n, runs[0].result[j], runs[1].result[j], leaves) for j, n in enumerate(names)]
    results = [_result(n, pair, where) for n, pair in leaves]
    carried = [(j, r) for j, r in enumerate(results) if r.carried is not None]
    flagged = [(j, r) for j, r in carried if r.message is not None]
    roots: list[TracedArray] = []
    for run in runs:
        roots += [root for root, _ in run.updated.values() if all(root is not r for r in roots)]
    for root in roots:
        ctx.note_update(root)  # an enclosing loop or branch carries it too
        lowering.lift(ctx, root, "if")
    before = {id(root): root._value for root in roots}
    types_ = [r.carried for _, r in carried] + [Carried("tensor", r._dtype, r._dims) for r in roots]
    types_ += [FLAG for _ in flagged]
    for k, run in enumerate(runs):
        outer, saved_dims = ctx.top, ctx.dim_log
        ctx.top, ctx.dim_log = run.block, []
        try:
            yields = []
            for _, r in carried:
                v = r.values[k]
                assert r.carried is not None
                yields.append(dummy(ctx, r.carried) if isinstance(v, NoValue) else convert_unchecked(ctx, v, r.carried))
            yields += [run.updated[id(root)][1] if id(root) in run.updated else before[id(root)] for root in roots]
            for _, r in flagged:
                v = r.values[k]
                yields.append(ctx.top.const(False, "i1") if isinstance(v, NoValue) else all_ok(run.block, guard_of(v)))
            if yields:
                run.block.raw(f"scf.yield {', '.join(yields)} : {', '.join(t.mlir for t in types_)}")
        finally:
            for arr, d in ctx.dim_log or ():
                arr._dim_ssa.pop(d, None)
            ctx.top, ctx.dim_log = outer, saved_dims
    top = ctx.top
    res = "%" + ctx.names.fresh("if")
    if types_:
        top.raw(f"{res}:{len(types_)} = scf.if {c} -> ({', '.join(t.mlir for t in types_)}) {{")
    else:
        top.raw(f"scf.if {c} {{")
    top.lines.extend(runs[0].block.lines)
    top.raw("} else {")
    top.lines.extend(runs[1].block.lines)
    top.raw("}")
    for run in runs:
        mark_dead(ctx, run.block, (), f"the branches of the if at {where}")
    outs = iter(f"{res}#{k}" for k in range(len(types_)))
    values = [r.value for r in results]
    for j, r in carried:
        assert r.carried is not None
        values[j] = out = carried_value(ctx, next(outs), r.carried)
        if isinstance(out, TracedArray) and any(isinstance(v, TracedArray) and v.may_alias_argument for v in r.values):
            out._alias = True  # a branch may give an argument's buffer back: returned, it is copied
    take_results(ctx, roots, outs)
    for j, r in flagged:
        assert r.message is not None
        values[j]._guard = UseGuard([(next(outs), r.message)])
    leaf_values = iter(values)
    return tuple(_build(shape, leaf_values) for shape in shapes)


def _checked_branch(ctx: TraceContext, c: str, raising: int, error: Exception,
                    other: Callable[[tuple[Any, ...]], tuple[Any, ...]], initial: tuple[Any, ...]) -> tuple[Any, ...]:
    """An ``if`` whose branch ``raising`` raises ``error`` where it runs: a run-time check that
    the ``i1`` condition ``c`` takes the ``other`` branch, then that branch, traced in place
    (where it raises too, so does the ``if``, while tracing)."""
    ctx.begin_op()
    ok = c
    if raising == 0:
        ok = ctx.top.op("ok", f"arith.xori {c}, {ctx.top.const(True, 'i1')} : i1")
    message = str(error) if isinstance(error, ValueError) else f"{type(error).__name__}: {error}"
    ctx.top.raw(f'dlpack.assert {ok}, invalid_argument, "{lowering.message_literal(message)}"')
    return tuple(other(initial))


def _split(name: str, a: Any, b: Any, leaves: list[tuple[str, tuple[Any, Any]]]) -> Any:
    """Appends to ``leaves`` the values a name holds after the two branches, tuples and lists of
    the same length taken apart (``return x, n`` in both); returns how to put them together."""
    if (type(a) is type(b) and isinstance(a, (tuple, list)) and a is not b and len(a) == len(b)):
        return type(a), [_split(f"{name}[{k}]", x, y, leaves) for k, (x, y) in enumerate(zip(a, b))]
    leaves.append((name, (a, b)))
    return None


def _build(shape: Any, values: Any) -> Any:
    """The value :func:`_split` took apart as ``shape``, from its leaves' ``values``."""
    if shape is None:
        return next(values)
    kind, parts = shape
    items = [_build(p, values) for p in parts]
    return kind(*items) if hasattr(kind, "_fields") else kind(items)


def _scope_state(frame: Any, fn: Callable[..., Any], names: Sequence[str]) -> tuple[tuple[Any, ...], PythonState]:
    """The values of ``names`` in the user's ``frame`` (``UNBOUND`` where it has none) and the
    Python objects a region traced from ``fn`` could change."""
    scope = dict(frame.f_locals)
    prior = tuple(UNBOUND if isinstance(v, NoValue) else v for v in (scope.get(n, UNBOUND) for n in names))
    state = PythonState([*scope.items(), *globals_read(fn)], (TracedArray, SymbolicDim, NoValue))
    return prior, state


def enter_if(cond: Any, then: Callable[[tuple[Any, ...]], tuple[Any, ...]],
             otherwise: Callable[[tuple[Any, ...]], tuple[Any, ...]], names: tuple[str, ...],
             line: int) -> tuple[Any, ...]:
    """``if cond: <then> else: <otherwise>`` with a traced ``cond``, as the rewritten code of a
    function being traced asks: the values after it of the names the branches bind (each branch
    a function of those names' values before it, returning their values after it)."""
    ctx = current_context()
    assert ctx is not None
    where = _where(line)
    prior, state = _scope_state(sys._getframe(1), then, names)
    initial = tuple(NoValue(f"'{n}' is used in a branch of the if at {where} before it is assigned")
                    if v is UNBOUND else v for n, v in zip(names, prior))
    return _traced_if(ctx, cond, (then, otherwise), initial, names, where, state)


def if_expression(tree: Condition, then: Callable[[], Any], otherwise: Callable[[], Any], line: int) -> Any:
    """``then() if <tree> else otherwise()``: only the branch taken runs, as in Python."""
    c = condition(tree, line)
    if isinstance(c, bool):
        return then() if c else otherwise()
    ctx = current_context()
    assert ctx is not None
    where = _where(line)
    unset = NoValue("no value")
    return _traced_if(ctx, c, (lambda _: (then(),), lambda _: (otherwise(),)), (unset,),
                      ("the value of the conditional expression",), where, None)[0]


def _sources(cond: Any) -> Any:
    """The sizes and int arguments a traced condition is computed from alone (None where it
    depends on data or loop indices): fixing them at the call's values makes it Python's."""
    return cond._sources if isinstance(cond, TracedArray) else None


def refuse(construct: str, cond: Any, reason: str, line: int) -> Any:
    """What a rewritten ``if``/``while`` whose condition ``cond`` is traced raises where its body
    cannot be traced as a region (``reason`` says why): the trace is done again with the sizes
    and int arguments fixed where ``cond`` comes from them alone, a TraceError otherwise."""
    raise need_value(_sources(cond), unsupported(
        f"{construct} on a condition known only at run time (at {_where(line)})",
        f"{reason}; compute both outcomes and pick with where(), or restructure the loop around a flag"))


# --------------------------------------------------------------------------------------------------
# while


def enter_while(first: Any, cond: Callable[[tuple[Any, ...]], Any], body: Callable[[tuple[Any, ...]], tuple[Any, ...]],
                names: tuple[str, ...], line: int) -> tuple[Any, ...]:
    """The rest of ``while <cond>: <body>`` once its condition is traced (``first``, its value
    now), as one ``scf.while``: the values after it of the names the body binds (``cond`` and
    ``body`` functions of their values). A loop that cannot be traced so is specialised where
    ``first`` comes from sizes and int arguments alone (see :func:`refuse`)."""
    ctx = current_context()
    assert ctx is not None
    where = _where(line)
    prior, state = _scope_state(sys._getframe(1), body, names)
    try:
        return _While(ctx, cond, body, prior, names, where, state).emit_while()
    except NotTraceable as e:
        state.restore()
        raise need_value(_sources(first), unsupported(
            f"while loop on a condition known only at run time (at {where})", str(e))) from None


class _While(Loop):
    """One ``scf.while`` being traced: ``Loop``'s discovery of the carried types and arrays,
    with the condition traced in the ``before`` region and the body in the ``after`` one. An
    iteration count is carried as well (the loop index of ``Loop``'s checks)."""

    def __init__(self, ctx: TraceContext, cond: Callable[[tuple[Any, ...]], Any],
                 body: Callable[[tuple[Any, ...]], tuple[Any, ...]], prior: tuple[Any, ...],
                 names: tuple[str, ...], where: str, state: PythonState) -> None:
        self.ctx = ctx
        self.cond = cond
        self.user_body = body
        self.body = self._body
        ctx.begin_op()
        self.start, self.step, self.trips = 0, 1, None
        self.static = False
        self.names = ("", *names)
        self.where = where
        self.state = state
        self.target_prior = UNBOUND
        self.unbound = [v is UNBOUND for v in prior]
        self.initial = tuple(
            NoValue(f"'{n}' is used in the while loop at {where} before it is assigned (it has no value "
                    "before the loop)") if v is UNBOUND else v
            for n, v in zip(names, prior)
        )
        self.first_local = 0
        self.ran = None

    def _body(self, index: Any, state: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None, *self.user_body(state))

    def _test(self, index: Any, state: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None, _i1(self.ctx, self.cond(state)))

    def _index(self, iv: str) -> SymbolicDim:
        return SymbolicDim(self.ctx, iv, "the iteration count of a while loop")

    def emit_while(self) -> tuple[Any, ...]:
        """Emits the loop; returns the values of the names its body binds."""
        ctx = self.ctx
        types_, roots, carried, checked, all_types, inits = self.carried_operands()
        all_types += [FLAG for _ in checked]
        inits += [ctx.top.const(True, "i1") for _ in checked]
        all_types.append(_INDEX)
        inits.append(ctx.top.const(0, "index"))
        values_n = len(carried) + len(roots)

        def region() -> tuple[Block, list[str], dict[int, tuple[str, str]]]:
            block = Block(ctx.names, indent=ctx.top.indent + 1)
            args = ["%" + ctx.names.fresh("w") for _ in all_types]
            flags = {j: (args[values_n + k], m) for k, (j, m) in enumerate(checked.items())}
            return block, args, flags

        before, b_args, b_flags = region()
        self.body = self._test
        try:
            _, test, log, _, _ = self._run_body(before, types_, roots, b_args[:values_n], b_args[-1], b_flags)
        finally:
            self.body = self._body
        # the arrays the body updates are the region's arguments there (logged as updates): the
        # condition writes one only if it leaves it another value, or another array
        root_args = b_args[len(carried):values_n]
        if any(all(r is not root for root in roots) for r, _ in log.values()) or any(
                root._value != arg for root, arg in zip(roots, root_args)):
            restore_updates(log)
            mark_dead(ctx, before, b_args, f"the while loop at {self.where}")
            raise NotTraceable("its condition updates an array in place")
        self._check_state({})
        before.raw(f"scf.condition({test[0]}) {', '.join(b_args)} : {', '.join(t.mlir for t in all_types)}")

        after, a_args, a_flags = region()
        _, result, log, _, _ = self._run_body(after, types_, roots, a_args[:values_n], a_args[-1], a_flags)
        try:
            self._check_state(log)
        except NotTraceable:
            mark_dead(ctx, before, b_args, f"the while loop at {self.where}")
            mark_dead(ctx, after, a_args, f"the while loop at {self.where}")
            raise
        outer = ctx.top
        ctx.top = after
        try:
            yields = [convert_unchecked(ctx, result[j], t) for j, t in carried]
            yields += [convert(ctx, root, t) for root, t in zip(roots, all_types[len(carried):values_n])]
            yields += [all_ok(after, guard_of(result[j])) for j in checked]
            yields.append(after.op("count", f"arith.addi {a_args[-1]}, {after.const(1, 'index')} : index"))
        finally:
            ctx.top = outer
        after.raw(f"scf.yield {', '.join(yields)} : {', '.join(t.mlir for t in all_types)}")
        top = ctx.top
        res = "%" + ctx.names.fresh("while")
        type_list = ", ".join(t.mlir for t in all_types)
        inits_text = ", ".join(f"{a} = {v}" for a, v in zip(b_args, inits))
        top.raw(f"{res}:{len(all_types)} = scf.while ({inits_text}) : ({type_list}) -> ({type_list}) {{")
        top.lines.extend(before.lines)
        top.raw("} do {")
        top.raw(f"^bb0({', '.join(f'{a}: {t.mlir}' for a, t in zip(a_args, all_types))}):")
        top.lines.extend(after.lines)
        top.raw("}")
        mark_dead(ctx, before, b_args, f"the while loop at {self.where}")
        mark_dead(ctx, after, a_args, f"the while loop at {self.where}")
        outs = iter(f"{res}#{k}" for k in range(len(all_types)))
        values: list[Any] = list(self.initial)
        for j, t in carried:
            values[j] = carried_value(ctx, next(outs), t)
        take_results(ctx, roots, outs)
        flag_values = {j: next(outs) for j in checked}
        count = next(outs)
        self.ran = top.op("ran", f"arith.cmpi sgt, {count}, {top.const(0, 'index')} : index")
        for j, message in checked.items():
            values[j]._guard = UseGuard(self._after_checks(self.initial[j], (flag_values[j], message), None))
        for j, _ in carried:
            if j not in checked and (checks := self._after_checks(self.initial[j], None, None)):
                values[j]._guard = UseGuard(checks)
        for j, unbound in enumerate(self.unbound):
            if unbound:
                values[j] = NoValue(
                    f"'{self.names[j + 1]}' may have no value after the while loop at {self.where}: it is "
                    "assigned only in the loop, whose condition is known only at run time; give it a "
                    "value before the loop")
        return tuple(values)
