"""The AST rewrite behind traced ``for`` loops over a ``range`` or over arrays (see ``loops``),
and behind ``if``/``while`` statements and conditional expressions on traced values (see
``branches`` and :class:`_Branches`, a second pass over the first one's output).

Every ``for <target> in range(<args>)`` statement of the function (not of functions nested in it)
is rewritten so that which way it runs is decided while tracing, by ``loops.enter_loop``:

- as Python (the original statements, unchanged), when the trip count is known while tracing and
  small, when ``range`` is not the builtin, or outside a trace;
- as one ``scf.for``, tracing a copy of the body once as the nested function
  ``_dlbridge_body_<n>(<target>, _dlbridge_state)``. It receives the loop index and the values before the
  iteration of every name the body binds, and returns the target's and those names' values after
  the iteration; the names are then bound to their values after the loop, as Python leaves them
  (to a stand-in whose every use is a TraceError where the traced loop cannot give one).

Every ``for <target> in <iterable>`` whose target is a name, or unpacks ``enumerate(...)`` and
``zip(...)`` into names (``for i, (a, b) in enumerate(zip(x, y))``), is rewritten the same way,
``loops.enter_iteration`` deciding: those calls are recorded rather than made (``loops.iteration_call``),
and where every array they iterate is traced the loop is one ``scf.for`` over the shortest one's
first dim, whose body binds the target to the rows of the iteration (``loops.iteration_row``);
anything else iterates as Python over the calls made as written.

A loop whose body Python could not run as such a function (``break``, ``continue``, ``return``,
``yield``, ``del`` of a name, a target that is not a name, a name it binds that is declared
``global``/``nonlocal`` or that a closure defined outside the body reads) only runs as Python:
``loops.python_range`` refuses it by name when its trip count is unknown while tracing.
"""

from __future__ import annotations

import ast
import copy
import itertools
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

__all__ = ["HELPERS", "PREFIX", "RETURNED", "rewrite_function"]

PREFIX = "_dlbridge_"
#: The free names the rewritten code uses: ``loops.enter_loop``, ``loops.python_range``,
#: ``loops.enter_iteration``, ``loops.iteration_call``, ``loops.iteration_row``, and
#: ``branches.condition``, ``branches.enter_if``, ``branches.if_expression``,
#: ``branches.enter_while`` and ``branches.refuse``.
HELPERS = (f"{PREFIX}enter_loop", f"{PREFIX}python_range", f"{PREFIX}enter_iteration",
           f"{PREFIX}iteration_call", f"{PREFIX}iteration_row",
           f"{PREFIX}condition", f"{PREFIX}enter_if", f"{PREFIX}if_expression", f"{PREFIX}enter_while",
           f"{PREFIX}refuse")
_CONDITION, _ENTER_IF, _IF_EXPRESSION, _ENTER_WHILE, _REFUSE = HELPERS[5:]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)
#: Scopes whose code may run after the statement that creates them (a closure sees the names it
#: reads as they are when it runs).
_LAZY = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.GeneratorExp)


@dataclass
class _LoopFacts:
    """What the rewrite knows of one range loop of the original function."""

    bound: list[str]  # the names its body binds in the function's scope, target excluded
    reason: str | None  # why it can only run as Python, or None


# --------------------------------------------------------------------------------------------------
# names


def _own_scope(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of ``nodes`` in their own scope, and the scope nodes nested in them (whose
    insides are not visited)."""
    stack = list(nodes)[::-1]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(list(ast.iter_child_nodes(node))[::-1])


def _walrus_targets(node: ast.AST) -> Iterator[str]:
    """The names ``:=`` binds inside comprehension ``node``: they belong to the enclosing scope."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
            yield sub.target.id


def _bindings(nodes: Sequence[ast.AST]) -> list[str]:
    """The names ``nodes`` bind in their own scope, in order of first binding."""
    names: list[str] = []
    for node in _own_scope(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.append(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.extend((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            names.extend(_walrus_targets(node))
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.append(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.append(node.rest)
    return list(dict.fromkeys(names))


def _declared(nodes: Sequence[ast.AST], kind: type) -> set[str]:
    return {n for node in _own_scope(nodes) if isinstance(node, kind) for n in node.names}  # type: ignore[attr-defined]


def _scope_body(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Lambda):
        return [node.body]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return list(node.body)
    return [node]  # a comprehension: its generators and element


def _params(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = node.args
        every = [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
                 *([a.kwarg] if a.kwarg else [])]
        return {p.arg for p in every}
    return set()


def _free_names(scope: ast.AST) -> set[str]:
    """The names scope ``scope`` reads or binds from enclosing scopes (a close superset)."""
    if isinstance(scope, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        inner: list[ast.AST] = [*scope.generators]
        inner += [scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]
        local = {n.id for g in scope.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        body = inner
    else:
        body = _scope_body(scope)
        local = _params(scope) | set(_bindings(body))
        local -= _declared(body, ast.Nonlocal) | _declared(body, ast.Global)
    used: set[str] = set()
    for node in _own_scope(body):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Nonlocal):
            used.update(node.names)
        elif isinstance(node, _SCOPES):
            used |= _free_names(node)
    return used - local


# --------------------------------------------------------------------------------------------------
# which loops can be traced


def _range_args(stmt: ast.stmt) -> list[ast.expr] | None:
    """The arguments of ``for ... in range(<args>)``, or None for another statement."""
    if not (isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Call)):
        return None
    call = stmt.iter
    if not (isinstance(call.func, ast.Name) and call.func.id == "range"):
        return None
    if call.keywords or not 1 <= len(call.args) <= 3 or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    return list(call.args)


def _iteration_source(target: ast.expr, iterable: ast.expr) -> ast.expr | None:
    """``iterable`` as the rewritten code evaluates it for ``for <target> in <iterable>``: each
    ``enumerate(...)``/``zip(...)`` call whose items ``target`` unpacks into names
    (``for i, (a, b) in enumerate(zip(x, y))``) recorded by ``loops.iteration_call`` instead
    of made. None where ``target`` is neither a name nor such an unpacking."""
    if isinstance(target, ast.Name):
        return iterable
    if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name) and iterable.func.id in ("enumerate", "zip")
            and iterable.args and not any(isinstance(a, ast.Starred) for a in iterable.args)
            and all(k.arg is not None for k in iterable.keywords)):
        return None
    func, args, parts = iterable.func, iterable.args, target.elts
    if func.id == "enumerate":
        if len(parts) != 2 or not isinstance(parts[0], ast.Name):
            return None
        pairs = [(parts[1], args[0])]
    elif len(parts) == len(args):
        pairs = list(zip(parts, args))
    else:
        return None
    inner = [s for s in (_iteration_source(t, a) for t, a in pairs) if s is not None]
    if len(inner) < len(pairs):
        return None
    return ast.Call(_name(HELPERS[3]), [func, *inner, *args[len(inner):]], iterable.keywords)


def _iteration_targets(stmt: ast.stmt) -> list[str] | None:
    """The names ``for <target> in <iterable>`` (over something other than ``range(...)``: an
    array, whose rows it takes, or any Python iterable) binds each iteration, where ``target`` is
    a name or unpacks ``enumerate``/``zip`` into names (:func:`_iteration_source`); None for
    another statement."""
    if not isinstance(stmt, ast.For) or _range_args(stmt) is not None:
        return None
    if _iteration_source(stmt.target, stmt.iter) is None:
        return None
    return _bindings([stmt.target])


def _iterates(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is a loop :func:`_iteration_targets` names."""
    return _iteration_targets(stmt) is not None


def _python_only(body: Sequence[ast.stmt]) -> str | None:
    """Why a loop body cannot run as a function called once per iteration, or None."""

    def visit(node: ast.AST, in_loop: bool) -> str | None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return None
        if isinstance(node, ast.Return):
            return "its body returns ('return')"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return "its body yields or awaits"
        if isinstance(node, ast.Break) and not in_loop:
            return "its body leaves it with 'break'"
        if isinstance(node, ast.Continue) and not in_loop:
            return "its body uses 'continue'"
        if isinstance(node, ast.Delete) and any(isinstance(t, ast.Name) for t in node.targets):
            return "its body deletes a name ('del')"
        if isinstance(node, ast.ExceptHandler) and node.name:
            return f"its body binds '{node.name}' in 'except ... as {node.name}', which Python unbinds"
        if isinstance(node, ast.AnnAssign) and node.value is None and isinstance(node.target, ast.Name):
            return f"its body annotates '{node.target.id}' without assigning it"
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            parts = [(c, True) for c in node.body] + [(c, in_loop) for c in node.orelse]
        else:
            parts = [(c, in_loop) for c in ast.iter_child_nodes(node)]
        for child, inside in parts:
            why = visit(child, inside)
            if why:
                return why
        return None

    for stmt in body:
        why = visit(stmt, False)
        if why:
            return why
    return None


def _analyse(func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """Attaches ``_LoopFacts`` (attribute ``dl_facts``) to every range loop of ``func``."""
    body = func.body
    declared = _declared(body, ast.Global) | _declared(body, ast.Nonlocal)
    parents: dict[int, ast.AST] = {}
    order: list[ast.AST] = []
    for node in _own_scope(body):
        order.append(node)
        if isinstance(node, _SCOPES):
            continue
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    position = {id(n): k for k, n in enumerate(order)}

    def ancestors(node: ast.AST) -> list[ast.AST]:
        out = []
        while id(node) in parents:
            node = parents[id(node)]
            out.append(node)
        return out

    lazy = [(n, _free_names(n), ancestors(n)) for n in order if isinstance(n, _LAZY)]
    for stmt in order:
        if not isinstance(stmt, ast.stmt) or (_range_args(stmt) is None and not _iterates(stmt)):
            continue
        assert isinstance(stmt, ast.For)
        targets = _iteration_targets(stmt)
        if targets is None:
            targets = [stmt.target.id] if isinstance(stmt.target, ast.Name) else []
        bound = [n for n in _bindings(stmt.body) if n not in targets]
        reason = None if targets else "its target is not a single name"
        reason = reason or _python_only(stmt.body)
        names = targets + bound
        for name in names:
            if reason:
                break
            if name in declared:
                reason = f"it rebinds '{name}', which is declared global or nonlocal"
        enclosing = [a for a in ancestors(stmt) if isinstance(a, (ast.For, ast.While, ast.AsyncFor))]
        for scope, free, scope_parents in lazy:
            if reason:
                break
            if any(p is stmt for p in scope_parents):
                continue  # created in the body: reads the body's own names
            before = position[id(scope)] < position[id(stmt)]
            if not before and not any(any(p is loop for p in scope_parents) for loop in enclosing):
                continue  # created after the loop, outside any loop around it
            caught = [n for n in names if n in free]
            if caught:
                reason = (f"it rebinds '{caught[0]}', which a closure created outside its body "
                          f"(line {scope.lineno}) reads")
        stmt.dl_facts = _LoopFacts(bound, reason)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------------
# the rewrite


def _name(id_: str, ctx: ast.expr_context | None = None) -> ast.Name:
    return ast.Name(id_, ctx or ast.Load())


def _call(func: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(_name(func), args, [])


def _names_tuple(ctx: ast.expr_context, names: Sequence[str]) -> ast.Tuple:
    return ast.Tuple([_name(c, ctx) for c in names], ctx)


def _arguments(names: Sequence[str]) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


class _Rewriter:
    def __init__(self) -> None:
        self.count = itertools.count()
        self.changed = False

    def statements(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt: ast.stmt) -> list[ast.stmt]:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # a helper defined in the function: its loops compile as the function's own
            self.changed |= rewrite_function(stmt)
            return [stmt]
        if isinstance(stmt, ast.ClassDef):
            return [stmt]
        facts: _LoopFacts | None = getattr(stmt, "dl_facts", None)
        if facts is None:
            self._inner(stmt)
            return [stmt]
        assert isinstance(stmt, ast.For)
        if _iterates(stmt):
            return self._iteration(stmt, facts)
        assert isinstance(stmt.iter, ast.Call)
        self.changed = True
        n = next(self.count)
        line = ast.Constant(stmt.lineno)
        args = ast.Tuple(list(stmt.iter.args), ast.Load())
        if facts.reason is not None:
            stmt.iter = _call(HELPERS[1], [_name("range"), args, ast.Constant(facts.reason), line])
            self._inner(stmt)
            return [ast.copy_location(stmt, stmt)]
        assert isinstance(stmt.target, ast.Name)
        target = stmt.target.id
        names = [target, *facts.bound]
        loop = f"{PREFIX}loop_{n}"
        body_name = f"{PREFIX}body_{n}"
        state = f"{PREFIX}state"

        traced_body: list[ast.stmt] = []
        if facts.bound:
            traced_body.append(ast.Assign([_names_tuple(ast.Store(), facts.bound)], _name(state)))
        traced_body += self.statements(copy.deepcopy(stmt.body))
        traced_body.append(ast.Return(_names_tuple(ast.Load(), names)))
        body_def = ast.FunctionDef(body_name, _arguments([target, state]), traced_body, [], None, None)
        enter = ast.Assign(
            [_name(loop, ast.Store())],
            _call(HELPERS[0], [_name("range"), args, _name(body_name),
                               ast.Tuple([ast.Constant(c) for c in names], ast.Load()), line]),
        )
        branch = self._branch(stmt, loop, names)
        out: list[ast.stmt] = [body_def, enter, branch]
        for node in out:
            ast.copy_location(node, stmt)
        return out

    def _iteration(self, stmt: ast.For, facts: _LoopFacts) -> list[ast.stmt]:
        """``for <target> in <iterable>`` where the target is a name or unpacks ``enumerate`` /
        ``zip`` (:func:`_iteration_source`): over traced arrays' rows as one ``scf.for`` (its
        body binds ``<target> = loops.iteration_row(<iterable>, i)``), else as Python over the
        iterable."""
        if facts.reason is not None:
            self._inner(stmt)
            return [stmt]
        targets = _iteration_targets(stmt)
        source = _iteration_source(stmt.target, stmt.iter)
        assert targets is not None and source is not None
        self.changed = True
        n = next(self.count)
        items = f"{PREFIX}items_{n}"
        index = f"{PREFIX}index_{n}"
        loop = f"{PREFIX}loop_{n}"
        body_name = f"{PREFIX}body_{n}"
        state = f"{PREFIX}state"
        bound = [*targets, *facts.bound]
        names = [index, *bound]

        row = ast.Assign([copy.deepcopy(stmt.target)], _call(HELPERS[4], [_name(items), _name(index)]))
        traced_body: list[ast.stmt] = [ast.Assign([_names_tuple(ast.Store(), bound)], _name(state)), row]
        traced_body += self.statements(copy.deepcopy(stmt.body))
        traced_body.append(ast.Return(_names_tuple(ast.Load(), names)))
        body_def = ast.FunctionDef(body_name, _arguments([index, state]), traced_body, [], None, None)
        hold = ast.Assign([_name(items, ast.Store())], source)
        enter = ast.Assign(
            [_name(loop, ast.Store())],
            _call(HELPERS[2], [_name(items), _name(body_name),
                               ast.Tuple([ast.Constant(c) for c in names], ast.Load()),
                               ast.Constant(stmt.lineno)]),
        )
        branch = self._branch(stmt, loop, names)
        out: list[ast.stmt] = [hold, body_def, enter, branch]
        for node in out:
            ast.copy_location(node, stmt)
        return out

    def _branch(self, stmt: ast.For, loop: str, names: Sequence[str]) -> ast.If:
        """``if <loop>.python:`` the original loop over ``<loop>.range``, ``else:`` ``names`` bound
        to the traced loop's values and the loop's ``else`` clause."""
        attr = lambda a: ast.Attribute(_name(loop), a, ast.Load())  # noqa: E731
        python_loop = ast.For(stmt.target, attr("range"), self.statements(stmt.body),
                              self.statements(copy.deepcopy(stmt.orelse)), None)
        traced: list[ast.stmt] = [ast.Assign([_names_tuple(ast.Store(), names)], attr("values"))]
        traced += self.statements(stmt.orelse)
        branch = ast.If(attr("python"), [python_loop], traced)
        branch.dl_generated = True  # type: ignore[attr-defined]
        return branch

    def _inner(self, stmt: ast.stmt) -> None:
        _rewrite_inner(stmt, self.statements)


def _rewrite_inner(stmt: ast.stmt, statements: Callable[[list[ast.stmt]], list[ast.stmt]]) -> None:
    """Rewrites the statement lists inside ``stmt`` (if/while/with/try/for/match bodies) with
    ``statements``."""
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(stmt, field, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            setattr(stmt, field, statements(inner))
    for handler in getattr(stmt, "handlers", []):
        handler.body = statements(handler.body)
    for case in getattr(stmt, "cases", []):
        case.body = statements(case.body)


# --------------------------------------------------------------------------------------------------
# if, while and conditional expressions (see ``branches``)


def _wrappable(expr: ast.expr) -> bool:
    """Whether ``expr`` computes the same inside a ``lambda``: it binds no name (``:=``),
    neither yields nor awaits, and does not call ``super()`` without arguments."""
    for node in _own_scope([expr]):
        if isinstance(node, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)) and any(_walrus_targets(node)):
            return False
        if isinstance(node, ast.Name) and node.id == "super":
            return False
    return True


def _lambda(expr: ast.expr) -> ast.Lambda:
    return ast.Lambda(_arguments([]), expr)


def _condition_tree(test: ast.expr) -> ast.expr:
    """``test`` as ``branches.condition`` takes it: a ``lambda`` computing the value tested, or
    ``("and"/"or", ...)``, ``("not", ...)`` of those, or ``("chain", <ops>, <operands>)`` of a
    chained comparison, so that it keeps Python's short-circuit."""
    if isinstance(test, ast.BoolOp):
        op = "and" if isinstance(test.op, ast.And) else "or"
        return ast.Tuple([ast.Constant(op), *(_condition_tree(v) for v in test.values)], ast.Load())
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.Tuple([ast.Constant("not"), _condition_tree(test.operand)], ast.Load())
    if isinstance(test, ast.Compare) and len(test.ops) > 1:  # a < b < c: each operand evaluated once
        ops = [ast.Constant(type(op).__name__) for op in test.ops]
        operands = [_lambda(e) for e in (test.left, *test.comparators)]
        return ast.Tuple([ast.Constant("chain"), ast.Tuple(ops, ast.Load()), ast.Tuple(operands, ast.Load())],
                         ast.Load())
    return _lambda(test)


def _condition(test: ast.expr, line: int, loop: bool = False) -> ast.Call:
    return _call(_CONDITION, [_condition_tree(test), ast.Constant(line), ast.Constant(loop)])


class _Expressions(ast.NodeTransformer):
    """Rewrites ``a if c else b`` in the function's own scope (and in the functions the loop
    rewrite made of its loop bodies) as ``branches.if_expression(<c>, lambda: a, lambda: b)``."""

    def __init__(self) -> None:
        self.changed = False

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return self.generic_visit(node) if node.name.startswith(PREFIX) else node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if not all(_wrappable(e) for e in (node.test, node.body, node.orelse)):
            return node
        self.changed = True
        call = _call(_IF_EXPRESSION, [_condition_tree(node.test), _lambda(node.body), _lambda(node.orelse),
                                      ast.Constant(node.lineno)])
        return ast.copy_location(call, node)


#: the name a branch's ``return <value>`` sets where the rewrite traces it (see ``_Branches``)
RETURNED = _RETURN = f"{PREFIX}return"


def _is_branch(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is an ``if`` of the user's that the rewrite takes."""
    return isinstance(stmt, ast.If) and not getattr(stmt, "dl_generated", False) and _wrappable(stmt.test)


def _ends_in_return(body: list[ast.stmt]) -> bool:
    """Whether every way through ``body`` ends in a ``return`` at its end."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _ends_in_return(last.body) and _ends_in_return(last.orelse)


def _without_tail_returns(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` as the rewrite of a region that ``return`` leaves makes it, without the
    ``return`` statements it turns into the value the traced ``if`` gives back: an ``if`` one of
    whose branches ends in ``return`` takes the statements after it into the other branch."""
    out: list[ast.stmt] = []
    for k, stmt in enumerate(body):
        if _is_branch(stmt) and (_ends_in_return(stmt.body) or _ends_in_return(stmt.orelse)):  # type: ignore[attr-defined]
            assert isinstance(stmt, ast.If)
            rest = body[k + 1:]
            then = stmt.body + ([] if _ends_in_return(stmt.body) else rest)
            other = stmt.orelse + ([] if _ends_in_return(stmt.orelse) else rest)
            out.append(ast.If(stmt.test, _without_tail_returns(then) or [ast.Pass()], _without_tail_returns(other)))
            return out
        if isinstance(stmt, ast.Return) and k == len(body) - 1:
            return out
        out.append(stmt)
    return out


class _Branches:
    """Rewrites the ``if`` and ``while`` statements of the function (see ``branches``)::

        if <test>: A else: B        _c = condition(<test>)
                                    if _c is True: A
                                    elif _c is False: B
                                    else:
                                        def then(state): <names> = state; A; return <names>
                                        def otherwise(state): <names> = state; B; return <names>
                                        <names> = enter_if(_c, then, otherwise, <names>)

        while <test>: A else: B     while (_c := condition(<test>)) is True: A
                                    else:
                                        if _c is not False:
                                            def test(state): <names> = state; return condition(<test>)
                                            def body(state): <names> = state; A; return <names>
                                            <names> = enter_while(_c, test, body, <names>)
                                        B

    where ``<names>`` are the names the branches (the body) bind. Branches or bodies that cannot
    run as such functions (``return``, ``break``, ``continue``...) call ``branches.refuse`` where
    the condition is traced, and run as written where it is Python's."""

    def __init__(self, declared: set[str]) -> None:
        self.count = itertools.count()
        self.changed = False
        self.declared = declared

    def statements(self, body: list[ast.stmt], tail: str | None = None) -> list[ast.stmt]:
        """``body`` rewritten. ``tail`` says whether it ends the function (``"function"``) or a
        branch of a traced ``if`` that ``return`` leaves (``"region"``): there an ``if`` one of
        whose branches ends in ``return`` takes the statements after it into its other branch,
        and in a region ``return <value>`` at its end sets ``_dlbridge_return``."""
        out: list[ast.stmt] = []
        for k, stmt in enumerate(body):
            if tail and _is_branch(stmt) and (_ends_in_return(stmt.body) or _ends_in_return(stmt.orelse)):
                assert isinstance(stmt, ast.If)
                out.extend(self._if(stmt, tail, body[k + 1:]))
                return out
            if tail == "region" and isinstance(stmt, ast.Return) and k == len(body) - 1:
                value = stmt.value or ast.Constant(None)
                out.append(ast.copy_location(ast.Assign([_name(_RETURN, ast.Store())], value), stmt))
                return out
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt: ast.stmt) -> list[ast.stmt]:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if stmt.name.startswith(PREFIX):  # a loop body of the loop rewrite
                stmt.body = self.statements(stmt.body)
            return [stmt]
        if isinstance(stmt, ast.ClassDef):
            return [stmt]
        if isinstance(stmt, ast.Assert) and not sys.flags.optimize and _wrappable(stmt.test):
            # ``assert <test>, <msg>`` as ``if not <test>: raise AssertionError(<msg>)``: on a
            # traced test, a run-time check (``branches``)
            error = ast.Call(_name("AssertionError"), [stmt.msg] if stmt.msg is not None else [], [])
            check = ast.If(ast.UnaryOp(ast.Not(), stmt.test), [ast.Raise(error, None)], [])
            return self._if(ast.fix_missing_locations(ast.copy_location(check, stmt)))
        if _is_branch(stmt):
            assert isinstance(stmt, ast.If)
            return self._if(stmt)
        if isinstance(stmt, ast.While) and _wrappable(stmt.test):
            return self._while(stmt)
        _rewrite_inner(stmt, self.statements)
        return [stmt]

    def _unfit(self, body: list[ast.stmt], names: Sequence[str], who: str) -> str | None:
        """Why ``body`` cannot run as a function traced once as a region, or None."""
        why = _python_only(body)
        if why is not None:
            return why.replace("its body", who)
        for name in names:
            if name in self.declared:
                return f"{who} rebinds '{name}', which is declared global or nonlocal"
        if any(isinstance(node, ast.Name) and node.id == "super" for node in _own_scope(body)):
            return f"{who} calls super()"
        return None

    def _region(self, name: str, names: Sequence[str], body: list[ast.stmt], returns: bool = False) -> ast.FunctionDef:
        """``def <name>(state): <names> = state; <body>; return <names>``; where the branch
        ``returns``, its ``return <value>`` sets ``_dlbridge_return`` (None where it ends without)."""
        state = f"{PREFIX}state"
        stmts: list[ast.stmt] = []
        if names:
            stmts.append(ast.Assign([_names_tuple(ast.Store(), names)], _name(state)))
        stmts += self.statements(body, "region" if returns else None)
        if returns and not _ends_in_return(body):
            stmts.append(ast.Assign([_name(_RETURN, ast.Store())], ast.Constant(None)))
        stmts.append(ast.Return(_names_tuple(ast.Load(), names)))
        return ast.FunctionDef(name, _arguments([state]), stmts, [], None, None)

    def _if(self, stmt: ast.If, tail: str | None = None, rest: list[ast.stmt] | None = None) -> list[ast.stmt]:
        """``stmt`` rewritten; ``rest``, the statements after it where it ends a function or a
        region (``tail``) and a branch of it returns, go into the branches that do not."""
        self.changed = True
        n = next(self.count)
        line = ast.Constant(stmt.lineno)
        returns = rest is not None
        then_body, else_body = stmt.body, stmt.orelse
        if returns:
            then_body = then_body + ([] if _ends_in_return(then_body) else copy.deepcopy(rest))
            else_body = else_body + ([] if _ends_in_return(else_body) else copy.deepcopy(rest))
        names = [x for x in _bindings(then_body + else_body) if _carried(x)]
        if returns:
            names.append(_RETURN)
        checked = then_body + else_body
        if returns:
            checked = _without_tail_returns(then_body) + _without_tail_returns(else_body)
        reason = self._unfit(checked, names, "a branch")
        cond = f"{PREFIX}cond_{n}"
        traced_then, traced_else = copy.deepcopy(then_body), copy.deepcopy(else_body)
        head = ast.Assign([_name(cond, ast.Store())], _condition(stmt.test, stmt.lineno))
        python_then = self.statements(then_body, tail if returns else None)
        python_else = self.statements(else_body, tail if returns else None) or [ast.Pass()]
        traced: list[ast.stmt]
        if reason is not None:
            traced = [ast.Expr(_call(_REFUSE, [ast.Constant("if"), _name(cond), ast.Constant(reason), line]))]
        else:
            then, otherwise = f"{PREFIX}then_{n}", f"{PREFIX}else_{n}"
            call = _call(_ENTER_IF, [_name(cond), _name(then), _name(otherwise),
                                     ast.Tuple([ast.Constant(c) for c in names], ast.Load()), line])
            traced = [self._region(then, names, traced_then, returns),
                      self._region(otherwise, names, traced_else, returns),
                      ast.Assign([_names_tuple(ast.Store(), names)], call) if names else ast.Expr(call)]
            if returns and tail == "function":
                traced.append(ast.Return(_name(_RETURN)))

        def test(value: bool) -> ast.Compare:
            return ast.Compare(_name(cond), [ast.Is()], [ast.Constant(value)])

        out: list[ast.stmt] = [head, ast.If(test(True), python_then, [ast.If(test(False), python_else, traced)])]
        for node in out:
            ast.copy_location(node, stmt)
        return out

    def _while(self, stmt: ast.While) -> list[ast.stmt]:
        self.changed = True
        n = next(self.count)
        line = ast.Constant(stmt.lineno)
        if any(_jumps(s) for s in stmt.body):
            return self._flagged(stmt, n)
        names = [x for x in _bindings(stmt.body) if _carried(x)]
        reason = self._unfit(stmt.body, names, "its body")
        cond = f"{PREFIX}cond_{n}"
        state = f"{PREFIX}state"
        traced_test, traced_body = copy.deepcopy(stmt.test), copy.deepcopy(stmt.body)
        first = ast.NamedExpr(_name(cond, ast.Store()), _condition(stmt.test, stmt.lineno, True))
        python_body = self.statements(stmt.body)
        traced: list[ast.stmt]
        if reason is not None:
            traced = [ast.Expr(_call(_REFUSE, [ast.Constant("while loop"), _name(cond), ast.Constant(reason), line]))]
        else:
            test_fn, body_fn = f"{PREFIX}test_{n}", f"{PREFIX}while_body_{n}"
            unpack = [ast.Assign([_names_tuple(ast.Store(), names)], _name(state))] if names else []
            test_def = ast.FunctionDef(test_fn, _arguments([state]),
                                       [*unpack, ast.Return(_condition(traced_test, stmt.lineno, True))], [], None,
                                       None)
            call = _call(_ENTER_WHILE, [_name(cond), _name(test_fn), _name(body_fn),
                                        ast.Tuple([ast.Constant(c) for c in names], ast.Load()), line])
            traced = [test_def, self._region(body_fn, names, traced_body),
                      ast.Assign([_names_tuple(ast.Store(), names)], call) if names else ast.Expr(call)]
        guard = ast.If(ast.Compare(_name(cond), [ast.IsNot()], [ast.Constant(False)]), traced, [])
        loop = ast.While(ast.Compare(first, [ast.Is()], [ast.Constant(True)]), python_body,
                         [guard, *self.statements(stmt.orelse)])
        ast.copy_location(guard, stmt)
        return [ast.copy_location(loop, stmt)]


    def _flagged(self, stmt: ast.While, n: int) -> list[ast.stmt]:
        """``while`` whose body leaves an iteration with ``break`` or ``continue`` (outside the
        loops inside it) rewritten with flags, as Python runs it, so that a traced one carries
        them: ``go = True; while go and <test>: next = True; <body>``, ``break`` setting both
        to False, ``continue`` ``next``, the statements after one guarded by ``if next:``, the
        ``else`` clause by ``if go:``."""
        go, more = f"{PREFIX}go_{n}", f"{PREFIX}next_{n}"

        def assign(name: str, value: bool) -> ast.Assign:
            return ast.Assign([_name(name, ast.Store())], ast.Constant(value))

        def flagged(body: list[ast.stmt]) -> list[ast.stmt]:
            out: list[ast.stmt] = []
            for k, part in enumerate(body):
                if isinstance(part, ast.Break):
                    return [*out, assign(go, False), assign(more, False)]
                if isinstance(part, ast.Continue):
                    return [*out, assign(more, False)]
                if isinstance(part, ast.If) and _jumps(part):
                    out.append(ast.copy_location(ast.If(part.test, flagged(part.body) or [ast.Pass()],
                                                        flagged(part.orelse)), part))
                    rest = body[k + 1:]
                    if rest:
                        out.append(ast.copy_location(ast.If(_name(more), flagged(rest), []), rest[0]))
                    return out
                out.append(part)
            return out

        test = ast.BoolOp(ast.And(), [_name(go), stmt.test])
        orelse: list[ast.stmt] = [ast.If(_name(go), stmt.orelse, [])] if stmt.orelse else []
        loop = ast.While(test, [assign(more, True), *flagged(stmt.body)], orelse)
        out: list[ast.stmt] = [assign(go, True), loop]
        for node in out:
            ast.fix_missing_locations(ast.copy_location(node, stmt))
        return [out[0], *self._while(loop)]


def _carried(name: str) -> bool:
    """Whether a traced branch or loop body carries ``name`` it binds: the user's names, and the
    rewrite's flags, range positions and value returned."""
    return not name.startswith(PREFIX) or name.startswith((f"{PREFIX}go_", f"{PREFIX}next_", f"{PREFIX}at_",
                                                           _RETURN))


def _step(args: list[ast.expr]) -> int | None:
    """The step of ``range(<args>)`` when it is an int literal (1 when absent), else None."""
    if len(args) < 3:
        return 1
    node = args[2]
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node, sign = node.operand, -1
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value != 0:
        return sign * node.value
    return None


def _left_early(stmt: ast.stmt, func: ast.AST) -> bool:
    """Whether ``stmt`` is a ``for <name> in range(...)`` of ``func`` with an int literal step and
    no ``else`` whose body leaves it early (``break``, ``continue``; no ``return``) and whose
    target is read nowhere else (after a loop of no trips Python leaves it unbound)."""
    args = _range_args(stmt)
    if args is None or _step(args) is None or not isinstance(stmt, ast.For) or stmt.orelse:
        return False
    if not isinstance(stmt.target, ast.Name) or not any(_jumps(s) for s in stmt.body):
        return False
    inside = {id(n) for n in ast.walk(stmt)}
    name = stmt.target.id
    if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and id(n) not in inside
           for n in ast.walk(func)):
        return False
    return not any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)) for n in _own_scope(stmt.body))


def _ranges_left_early(body: list[ast.stmt], func: ast.AST, counter: Iterator[int]) -> list[ast.stmt]:
    """``body`` with each loop :func:`_left_early` names written as the ``while`` Python runs it
    by: ``at = start; stop = stop; while at < stop: <name> = at; at += step; <body>`` (``>`` for a
    negative step), so that a jump on a traced condition becomes the traced ``while``'s flags
    (``_Branches._flagged``) instead of refusing the loop."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(stmt)
            continue
        _rewrite_inner(stmt, lambda inner: _ranges_left_early(inner, func, counter))
        if not _left_early(stmt, func):
            out.append(stmt)
            continue
        assert isinstance(stmt, ast.For)
        args = _range_args(stmt)
        step = _step(args)  # type: ignore[arg-type]
        assert args is not None and step is not None
        n = next(counter)
        at, stop = f"{PREFIX}at_{n}", f"{PREFIX}stop_{n}"
        start, end = (ast.Constant(0), args[0]) if len(args) == 1 else (args[0], args[1])
        loop = ast.While(
            ast.Compare(_name(at), [ast.Lt() if step > 0 else ast.Gt()], [_name(stop)]),
            [ast.Assign([stmt.target], _name(at)),
             ast.Assign([_name(at, ast.Store())], ast.BinOp(_name(at), ast.Add(), ast.Constant(step))),
             *stmt.body], [])
        for node in (ast.Assign([_name(at, ast.Store())], start), ast.Assign([_name(stop, ast.Store())], end), loop):
            out.append(ast.fix_missing_locations(ast.copy_location(node, stmt)))
    return out


def _jumps(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` has a ``break`` or ``continue`` of the loop it is in (not of a loop in it)."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(node.orelse)
            continue
        if isinstance(node, _SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def rewrite_function(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Rewrites the range loops, ``if`` and ``while`` statements and conditional expressions of
    ``func`` in place (see the module and ``branches``); whether it had any."""
    if "range" not in _bindings(func.body):
        func.body = _ranges_left_early(func.body, func, itertools.count())
    _analyse(func)
    rewriter = _Rewriter()
    func.body = rewriter.statements(func.body)
    expressions = _Expressions()
    func.body = [expressions.visit(stmt) for stmt in func.body]
    branches = _Branches(_declared(func.body, ast.Global) | _declared(func.body, ast.Nonlocal))
    generator = any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in _own_scope(func.body))
    func.body = branches.statements(func.body, None if generator else "function")
    return rewriter.changed or expressions.changed or branches.changed
