"""``for i in range(...)`` loops of a traced function as ``scf.for`` loops.

Tracing runs the Python function once, so a plain ``for`` loop would be unrolled, and one whose
trip count is a dynamic size could not run at all.  :func:`rewrite_loops` therefore rewrites the
function's source: the body of each ``for <name> in range(...)`` loop becomes a nested function of
the loop index and of the loop's state (the names the body assigns), and the loop a call of
:func:`range_loop`, which traces that body once inside an ``scf.for`` region:

- the loop index is a :class:`SymbolicDim`;
- the loop-carried values are the names the body rebinds whose value is traced (arrays, scalars,
  sizes; Python numbers that change become traced scalars) and every array the body updates in
  place (``x[i] = v``, ``x += v``, ``np.add(a, b, out=x)``);
- their types are found by tracing the body with stand-ins until they no longer change (an array
  that becomes float on the first iteration is carried as float), then the body is traced for real.

A loop whose trip count is known while tracing and at most :data:`UNROLL_LIMIT` runs as Python
(unrolled), which also keeps Python side effects (``list.append``) exact.  Loops with ``break``,
``continue``, ``return`` or ``else`` are left to Python, as are functions without source.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import dtypes as D
from . import ops
from .dtypes import DType
from .emitter import Block, tensor_type
from .indexing import index_value
from .tracer import SymbolicDim, TraceContext, TracedArray, current_context, trace_error, unsupported

__all__ = ["UNROLL_LIMIT", "range_loop", "rewrite_loops"]

#: Loops with a trip count known while tracing and at most this are unrolled: their few copies
#: optimise as well as a loop, and Python side effects of the body stay exact.
UNROLL_LIMIT = 8

_PREFIX = "__dl_"
_REWRITTEN: dict[types.CodeType, Callable[..., Any] | None] = {}


# --------------------------------------------------------------------------------------------------
# the source rewrite


def _assigned_names(body: Sequence[ast.stmt]) -> list[str]:
    """Names bound by ``body`` in its own scope (not in nested functions or comprehensions)."""
    names: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if not node.name.startswith(_PREFIX):
                names.append(node.name)
            return
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.append(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in body:
        visit(stmt)
    return list(dict.fromkeys(n for n in names if not n.startswith(_PREFIX)))


def _leaves_python(body: Sequence[ast.stmt]) -> bool:
    """Whether the loop body has ``break``/``continue`` of this loop, or ``return``/``yield``."""

    def visit(node: ast.AST, in_loop: bool) -> bool:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return False
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)):
            return True
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return True
        nested = in_loop or isinstance(node, (ast.For, ast.While, ast.AsyncFor))
        return any(visit(c, nested) for c in ast.iter_child_nodes(node))

    return any(visit(s, False) for s in body)


class _LoopRewriter(ast.NodeTransformer):
    def __init__(self) -> None:
        self.count = itertools.count()
        self.changed = False

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.body = self._statements(node.body)
        return node

    def _statements(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            out.extend(self._statement(stmt))
        return out

    def _statement(self, stmt: ast.stmt) -> list[ast.stmt]:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt) and not isinstance(
                stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                setattr(stmt, field, self._statements(inner))
        if not self._is_range_loop(stmt):
            return [stmt]
        assert isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Call)
        assert isinstance(stmt.target, ast.Name)
        self.changed = True
        n = next(self.count)
        carried = [name for name in _assigned_names(stmt.body) if name != stmt.target.id]
        body_name = f"{_PREFIX}body_{n}"
        state = f"{_PREFIX}state"

        def names_tuple(ctx: ast.expr_context) -> ast.Tuple:
            return ast.Tuple([ast.Name(c, ctx) for c in carried], ctx)

        args = ast.arguments(
            posonlyargs=[], args=[ast.arg(stmt.target.id), ast.arg(state)], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[],
        )
        unpack = ast.Assign([names_tuple(ast.Store())], ast.Name(state, ast.Load()))
        ret = ast.Return(names_tuple(ast.Load()))
        body_def = ast.FunctionDef(body_name, args, [unpack, *stmt.body, ret], [], None, None)
        initial = ast.Tuple(
            [
                ast.Call(
                    ast.Name(f"{_PREFIX}bound", ast.Load()),
                    [ast.Lambda(
                        ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                      kw_defaults=[], kwarg=None, defaults=[]),
                        ast.Name(c, ast.Load()),
                    )],
                    [],
                )
                for c in carried
            ],
            ast.Load(),
        )
        call = ast.Call(
            ast.Name(f"{_PREFIX}range_loop", ast.Load()),
            [
                ast.Name(body_name, ast.Load()),
                ast.Tuple(list(stmt.iter.args), ast.Load()),
                initial,
                ast.Tuple([ast.Constant(c) for c in carried], ast.Load()),
            ],
            [],
        )
        loop = ast.Assign([names_tuple(ast.Store())], call)
        for node in (body_def, loop):
            ast.copy_location(node, stmt)
        return [body_def, loop]

    @staticmethod
    def _is_range_loop(stmt: ast.stmt) -> bool:
        return (
            isinstance(stmt, ast.For)
            and isinstance(stmt.target, ast.Name)
            and not stmt.orelse
            and isinstance(stmt.iter, ast.Call)
            and isinstance(stmt.iter.func, ast.Name)
            and stmt.iter.func.id == "range"
            and 1 <= len(stmt.iter.args) <= 3
            and not stmt.iter.keywords
            and not any(isinstance(a, ast.Starred) for a in stmt.iter.args)
            and not _leaves_python(stmt.body)
        )


class _Unbound:
    """The value of a name a loop body assigns that had no value before the loop."""

    def __repr__(self) -> str:
        return "<unbound>"


_UNBOUND = _Unbound()


class _LoopLocal:
    """A name assigned only inside a traced loop: it has no value after the loop."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __dlbridge_trace_error__(self) -> Exception:
        return unsupported(
            f"using '{self._name}' after the loop",
            f"'{self._name}' is assigned only inside a loop that runs as scf.for; give it a "
            "value before the loop",
        )

    def _fail(self, *_: Any, **__: Any) -> Any:
        raise self.__dlbridge_trace_error__()

    __getattr__ = __call__ = __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = _fail
    __truediv__ = __rtruediv__ = __getitem__ = __array__ = __len__ = __iter__ = _fail
    __array_ufunc__ = None


def _bound(get: Callable[[], Any]) -> Any:
    try:
        return get()
    except NameError:
        return _UNBOUND


def rewrite_loops(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its ``for ... in range(...)`` loops traced as ``scf.for`` (see the module);
    ``fn`` itself when it has none or its source is not available."""
    if not isinstance(fn, types.FunctionType):
        return fn
    code = fn.__code__
    if code not in _REWRITTEN:
        _REWRITTEN[code] = _compile_rewritten(fn)
    template = _REWRITTEN[code]
    if template is None:
        return fn
    glb = dict(fn.__globals__)
    glb[f"{_PREFIX}range_loop"] = range_loop
    glb[f"{_PREFIX}bound"] = _bound
    cells = [c.cell_contents for c in fn.__closure__ or ()]
    factory = types.FunctionType(template.__code__, glb, fn.__name__)
    new = factory(*cells)
    new.__defaults__ = fn.__defaults__
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    return new  # type: ignore[no-any-return]


def _compile_rewritten(fn: types.FunctionType) -> Callable[..., Any] | None:
    """A factory taking ``fn``'s closure values and returning the rewritten function, or None."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    func = tree.body[0]
    if func.name != fn.__name__:
        return None
    for cell in fn.__closure__ or ():
        try:
            _ = cell.cell_contents
        except ValueError:
            return None
    rewriter = _LoopRewriter()
    func = rewriter.visit(func)
    if not rewriter.changed:
        return None
    func.decorator_list = []
    func.args.defaults = []
    func.args.kw_defaults = [None] * len(func.args.kwonlyargs)
    factory = ast.FunctionDef(
        f"{_PREFIX}factory",
        ast.arguments(posonlyargs=[], args=[ast.arg(v) for v in fn.__code__.co_freevars],
                      vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        [func, ast.Return(ast.Name(func.name, ast.Load()))],
        [], None, None,
    )
    module = ast.Module([factory], [])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, fn.__code__.co_firstlineno - 1)
    namespace: dict[str, Any] = {}
    exec(compile(module, fn.__code__.co_filename, "exec"), fn.__globals__.copy(), namespace)  # noqa: S102
    return namespace[f"{_PREFIX}factory"]  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------------------
# tracing a loop


@dataclass(frozen=True)
class _Carried:
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


def _type_of(v: Any) -> _Carried | None:
    """The carried type of a traced value; None for a Python value."""
    if isinstance(v, SymbolicDim):
        return _Carried("index")
    if isinstance(v, TracedArray):
        if v._is_scalar:
            return _Carried("scalar", v._dtype, (), v._weak)
        return _Carried("tensor", v._dtype, v._dims)
    if isinstance(v, (bool, np.bool_)):
        return _Carried("scalar", D.BOOL, (), None if isinstance(v, np.bool_) else "bool")
    if isinstance(v, (int, float, complex)):
        kind = D.scalar_kind_of(v)
        return _Carried("scalar", D.default_dtype_of_kind(kind), (), kind)
    if isinstance(v, np.generic):
        return _Carried("scalar", D.dtype(v.dtype), ())
    return None


def _join(before: _Carried, after: _Carried) -> _Carried:
    """The type a value carried across iterations takes: the body's result dtype, static dims
    where both sides agree."""
    if before.kind == "index" and after.kind == "index":
        return before
    if after.kind == "index":
        after = _Carried("scalar", D.INT64, (), "int")
    if before.kind == "tensor" or after.kind == "tensor":
        dims_b = before.dims if before.kind == "tensor" else ()
        dims_a = after.dims if after.kind == "tensor" else ()
        if len(dims_b) != len(dims_a):
            raise trace_error(
                f"a value carried by a loop changes rank from {len(dims_b)} to {len(dims_a)} "
                "between iterations",
                ValueError,
            )
        dims = tuple(b if b == a else None for b, a in zip(dims_b, dims_a))
        return _Carried("tensor", after.dtype, dims)
    return _Carried("scalar", after.dtype, (), after.weak if before.weak else None)


def _convert(ctx: TraceContext, v: Any, t: _Carried) -> str:
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
        return ops._scalar_value(ctx, v, t.dtype)
    x = ops._to_tensor(ctx, ops._lift(ctx, v, "loop value"))
    if x._dtype != t.dtype:
        x = ops.astype(x, t.dtype.name)
    if x.mlir_type != t.mlir:
        return ctx.top.op("carried", f"tensor.cast {x._value} : {x.mlir_type} to {t.mlir}")
    return x._value


def _value(ctx: TraceContext, ssa: str, t: _Carried) -> Any:
    """A traced value standing for ``ssa`` of carried type ``t``."""
    if t.kind == "index":
        return SymbolicDim(ctx, ssa, "a loop-carried size")
    assert t.dtype is not None
    if t.kind == "scalar":
        return TracedArray(ctx, ssa, t.dtype, (), weak=t.weak, is_scalar=True)
    return TracedArray(ctx, ssa, t.dtype, t.dims)


def _trip_count(ctx: TraceContext, args: Sequence[Any]) -> tuple[Any, Any, Any]:
    """``(start, step, trips)`` of ``range(*args)`` (ints or ``index`` SSA values)."""
    for a in args:
        if isinstance(a, (float, np.floating)) or (isinstance(a, TracedArray) and not a._dtype.is_int):
            raise trace_error(f"'{type(a).__name__}' object cannot be interpreted as an integer", TypeError)
    vals = [index_value(ctx, a, "range()") for a in args]
    start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals[0], vals[1], vals[2] if len(vals) == 3 else 1)
    if step == 0:
        raise trace_error("range() arg 3 must not be zero", ValueError)
    if all(isinstance(v, int) for v in (start, stop, step)):
        return start, step, len(range(start, stop, step))
    top = ctx.top

    def ssa(v: Any) -> str:
        return top.const(v, "index") if isinstance(v, int) else v

    zero = top.const(0, "index")
    if isinstance(step, int):
        span = top.op("span", f"arith.subi {ssa(stop)}, {ssa(start)} : index") if step > 0 else \
            top.op("span", f"arith.subi {ssa(start)}, {ssa(stop)} : index")
        n = top.op("trips", f"arith.ceildivsi {span}, {top.const(abs(step), 'index')} : index")
    else:
        nonzero = top.op("step_ok", f"arith.cmpi ne, {step}, {zero} : index")
        top.raw(f'dlpack.assert {nonzero}, invalid_argument, "range() arg 3 must not be zero"')
        span = top.op("span", f"arith.subi {ssa(stop)}, {ssa(start)} : index")
        n = top.op("trips", f"arith.ceildivsi {span}, {step} : index")
    trips = top.op("trips", f"arith.maxsi {n}, {zero} : index")
    return start, step, trips


def range_loop(body: Callable[[Any, tuple[Any, ...]], tuple[Any, ...]], args: tuple[Any, ...],
               initial: tuple[Any, ...], names: tuple[str, ...]) -> tuple[Any, ...]:
    """``for i in range(*args): state = body(i, state)`` in the function being traced."""
    ctx = current_context()
    if ctx is None:
        state = initial
        for i in range(*args):
            state = body(i, state)
        return state
    start, step, trips = _trip_count(ctx, args)
    if isinstance(trips, int) and trips <= UNROLL_LIMIT:
        state = initial
        for k in range(trips):
            state = body(start + k * step, state)
        return tuple(_LoopLocal(n) if v is _UNBOUND else v for n, v in zip(names, state))
    return _Loop(ctx, body, start, step, trips, initial, names).emit()


class _Loop:
    """One ``scf.for`` being traced."""

    def __init__(self, ctx: TraceContext, body: Callable[..., tuple[Any, ...]], start: Any, step: Any,
                 trips: Any, initial: tuple[Any, ...], names: tuple[str, ...]) -> None:
        self.ctx = ctx
        self.body = body
        self.start, self.step, self.trips = start, step, trips
        self.initial = initial
        self.names = names
        self.first_local = 0

    def _index(self, iv: str) -> SymbolicDim:
        """The loop variable ``start + iv * step``."""
        ctx = self.ctx
        i = SymbolicDim(ctx, iv, "the loop index")
        if self.step != 1:
            i = i * (self.step if isinstance(self.step, int) else SymbolicDim(ctx, self.step, "the range step"))
        if self.start != 0:
            i = i + (self.start if isinstance(self.start, int) else SymbolicDim(ctx, self.start, "the range start"))
        return i

    def _run_body(self, block: Block, types_: list[_Carried | None], roots: list[TracedArray],
                  args: list[str], iv: str
                  ) -> tuple[tuple[Any, ...], dict[int, tuple[TracedArray, tuple[Any, ...]]], dict[int, Any]]:
        """Traces the body into ``block`` with the carried names as ``args`` (in order, then the
        roots updated in place); returns the body's state, the arrays it updated and the stand-ins
        it was given for the carried names."""
        ctx = self.ctx
        outer, saved_log, saved_dims = ctx.top, ctx.update_log, ctx.dim_log
        ctx.top, ctx.update_log, ctx.dim_log = block, {}, []
        self.first_local = ctx.fresh_serial()  # arrays numbered above are the body's own
        try:
            state = list(self.initial)
            standins: dict[int, Any] = {}
            it = iter(args)
            for j, t in enumerate(types_):
                if t is not None:
                    state[j] = standins[j] = _value(ctx, next(it), t)
            for root in roots:
                ctx.note_update(root)
                root._value = next(it)
                root._dim_ssa = {}
                root._version = ctx.fresh_version()
            result = self.body(self._index(iv), tuple(state))
            log = ctx.update_log
        finally:
            for arr, k in ctx.dim_log or ():
                arr._dim_ssa.pop(k, None)
            ctx.top, ctx.update_log, ctx.dim_log = outer, saved_log, saved_dims
        return result, log, standins

    def _discover(self) -> tuple[list[_Carried | None], list[TracedArray]]:
        """The carried types and the arrays updated in place, by tracing the body with stand-ins
        until they are stable; the stand-in traces are discarded."""
        ctx = self.ctx
        types_: list[_Carried | None] = [
            _type_of(v) if isinstance(v, (TracedArray, SymbolicDim)) else None for v in self.initial
        ]
        roots: list[TracedArray] = []
        for _ in range(4):
            scratch = Block(ctx.names, indent=ctx.top.indent + 1)
            args = ["%" + ctx.names.fresh("standin") for t in types_ if t is not None]
            args += ["%" + ctx.names.fresh("standin") for _ in roots]
            result, log, standins = self._run_body(scratch, types_, roots, args, "%" + ctx.names.fresh("iv"))
            for root, state in log.values():
                root._value, root._version, root._dim_ssa, root._updated_at, written = state
                if root._arg is not None:
                    root._arg.written = written
            new_types = list(types_)
            new_roots = list(roots)
            for j, standin in standins.items():
                if result[j] is standin and standin._base is None and any(r is standin for r, _ in log.values()):
                    # updated in place, never rebound: the array object itself is carried
                    new_types[j] = None
                    if all(r is not self.initial[j] for r in new_roots):
                        new_roots.append(self.initial[j])
            new_roots += [
                r for r, _ in log.values()
                if all(r is not x for x in new_roots) and all(r is not s for s in standins.values())
                and r._serial < self.first_local
            ]
            for j, (before, after) in enumerate(zip(self.initial, result)):
                if (types_[j] is not None and new_types[j] is None) or after is before:
                    continue
                t_after = _type_of(after) if isinstance(after, (TracedArray, SymbolicDim)) else None
                if t_after is None:
                    if types_[j] is not None:
                        new_types[j] = _join(types_[j], _type_of(after) or types_[j])  # type: ignore[arg-type]
                    elif after is not before and not _same_python_value(before, after):
                        t = _type_of(after)
                        if t is None:
                            raise unsupported(
                                f"assigning '{self.names[j]}' in a loop",
                                f"a {type(after).__name__} that changes between iterations cannot be "
                                "carried by a traced loop",
                            )
                        new_types[j] = t
                    continue
                if before is _UNBOUND:
                    continue  # assigned only inside the loop: not carried
                base = types_[j] or _type_of(before)
                if base is None:
                    raise unsupported(
                        f"assigning '{self.names[j]}' in a loop",
                        f"it holds a {type(before).__name__} before the loop and an array in it",
                    )
                new_types[j] = _join(base, t_after)
            if new_types == types_ and len(new_roots) == len(roots):
                return types_, roots
            types_, roots = new_types, new_roots
        raise trace_error("the types of the values a loop carries do not settle", TypeError)

    def emit(self) -> tuple[Any, ...]:
        ctx = self.ctx
        ctx.begin_op()
        types_, roots = self._discover()
        for root in roots:  # a loop around this one carries them too
            ctx.note_update(root)
        carried = [(j, t) for j, t in enumerate(types_) if t is not None]
        root_types = [_Carried("tensor", r._dtype, r._dims) for r in roots]
        inits = [_convert(ctx, self.initial[j], t) for j, t in carried]
        for root in roots:
            ops._lift(ctx, root, "loop")
            inits.append(root._value)
        all_types = [t for _, t in carried] + root_types
        args = ["%" + ctx.names.fresh("carried") for _ in all_types]
        iv = "%" + ctx.names.fresh("iv")
        block = Block(ctx.names, indent=ctx.top.indent + 1)
        result, _log, _ = self._run_body(block, types_, roots, args, iv)
        outer = ctx.top
        ctx.top = block
        try:
            yields = [_convert(ctx, result[j], t) for j, t in carried]
            yields += [_convert(ctx, root, t) for root, t in zip(roots, root_types)]
        finally:
            ctx.top = outer
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
        out = list(result)
        for n, (j, t) in enumerate(carried):
            out[j] = _value(ctx, f"{res}#{n}", t)
        for j, before in enumerate(self.initial):
            if types_[j] is None:  # unchanged by the loop, or assigned only inside it
                out[j] = _LoopLocal(self.names[j]) if before is _UNBOUND else before
        for n, root in enumerate(roots):
            root._value = f"{res}#{len(carried) + n}"
            root._dim_ssa = {}
            root._version = ctx.fresh_version()
            if root._arg is not None:
                root._arg.written = True
        return tuple(out)


def _same_python_value(a: Any, b: Any) -> bool:
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:  # noqa: BLE001 - any object may be carried unchanged
        return False
