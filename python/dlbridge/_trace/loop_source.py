"""The function a trace runs, with its range loops and loops over arrays, its ``if`` and ``while``
statements and conditional expressions rewritten (``loop_rewrite``; ``loops``, ``branches``).

The rewrite starts from the function object, never from text that may differ from it: the source
lines at the code object's first line are parsed, compiled as Python compiled them (inside the
class and the closures the code object names, with its ``__future__`` flags) and compared with
the code object, nested code included. The rewritten code then runs with the function's own
globals, closure cells, defaults and decorators (a decorated function is traced as the wrapper it
is). ``functools.partial`` objects, bound methods and objects with a ``__call__`` method are
rewritten through the function they call. Without source, or with source that does not match
(edited since import, ``exec``'d text), the function runs unchanged: its loops are Python loops,
and :func:`rewrite_loops` says why.
"""

from __future__ import annotations
import __future__

import ast
import dis
import functools
import inspect
import linecache
import symtable
import types
from typing import Any, Callable

from .branches import condition, enter_if, enter_while, if_expression, refuse
from .loop_rewrite import HELPERS, PREFIX, rewrite_function
from .loops import enter_iteration, enter_loop, iteration_call, iteration_row, python_range

__all__ = ["rewrite_loops"]

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
_CO_NESTED = inspect.CO_NESTED

#: id(code object) -> (the code object, rewritten code object, None) or (..., None, why it is not
#: rewritten); by identity, as equal code objects may come from different texts
_REWRITTEN: dict[int, tuple[types.CodeType, types.CodeType | None, str | None]] = {}


_HELPERS: dict[str, Any] = dict(zip(HELPERS, (enter_loop, python_range, enter_iteration, iteration_call,
                                             iteration_row, condition, enter_if, if_expression, enter_while,
                                             refuse)))


def rewrite_loops(fn: Callable[..., Any]) -> tuple[Callable[..., Any], str | None]:
    """``fn`` with its ``for ... in range(...)`` and ``for ... in <iterable>`` loops rewritten; or
    ``fn`` itself and why, when it has loops that cannot be rewritten (the reason is None when it
    has none)."""
    if isinstance(fn, functools.partial):
        inner, why = rewrite_loops(fn.func)
        return (fn if inner is fn.func else functools.partial(inner, *fn.args, **fn.keywords)), why
    if isinstance(fn, types.MethodType):
        inner, why = rewrite_loops(fn.__func__)
        return (fn if inner is fn.__func__ else types.MethodType(inner, fn.__self__)), why
    if not isinstance(fn, types.FunctionType):
        if isinstance(type(fn).__dict__.get("__call__"), types.FunctionType):
            method = fn.__call__  # type: ignore[operator]
            inner, why = rewrite_loops(method)
            return (fn if inner is method else inner), why
        return fn, None
    has_loop = _has_loop(fn.__code__)
    if not has_loop and not _has_branch(fn.__code__):
        return fn, None
    code = fn.__code__
    entry = _REWRITTEN.get(id(code))
    if entry is None or entry[0] is not code:
        entry = _REWRITTEN[id(code)] = (code, *_rewrite(fn))
    _, new_code, why = entry
    if new_code is None:
        return fn, why if has_loop else None  # the reason says why its for loops run as Python
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    closure = tuple(cells[v] if v in cells else types.CellType(_HELPERS[v]) for v in new_code.co_freevars)
    new = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new.__dict__.update(fn.__dict__)
    return new, None


def _has_loop(code: types.CodeType) -> bool:
    """Whether ``code`` or a function defined in it (not a lambda or comprehension) has a ``for``
    loop (``FOR_ITER``): over a range, or over an array's rows."""
    return any(ins.opname == "FOR_ITER" for ins in dis.get_instructions(code)) or any(
        isinstance(c, types.CodeType) and not c.co_name.startswith("<") and _has_loop(c) for c in code.co_consts)


def _has_branch(code: types.CodeType) -> bool:
    """Whether ``code`` branches on a value (``if``, ``while``, ``a if c else b``, ``and``/``or``)."""
    return any("JUMP" in ins.opname and "IF_" in ins.opname for ins in dis.get_instructions(code))


def _rewrite(fn: types.FunctionType) -> tuple[types.CodeType | None, str | None]:
    code = fn.__code__
    where = f"{code.co_filename}:{code.co_firstlineno}"
    if any(n.startswith(PREFIX) for n in code.co_varnames + code.co_names + code.co_freevars + code.co_cellvars):
        return None, f"it uses names starting with {PREFIX}, which dlbridge reserves"
    tree = _parse(fn)
    if tree is None:
        return None, f"its source is not available (no text of {where})"
    module, func = tree
    original = _compile(module, fn)
    if original is None or not _same_code(original, code):
        return None, (f"the source text of {where} does not compile to the function being traced "
                      "(edited since it was imported, or not its source)")
    if not rewrite_function(func):
        return None, None
    ast.fix_missing_locations(module)
    return _compile(module, fn), None


def _parse(fn: types.FunctionType) -> tuple[ast.Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """``fn``'s definition, parsed from the lines at its code object's first line, inside
    ``def _dlbridge_factory(<free variables>): [class <C>:] <definition>``; None without source."""
    code = fn.__code__
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines):
        return None
    try:
        text = "".join(inspect.getblock(lines[start:]))
        indented = text[:1].isspace()
        parsed = ast.parse("if 1:\n" + text if indented else text)
    except (SyntaxError, ValueError, IndentationError, MemoryError, RecursionError):
        return None
    body = parsed.body
    if indented:
        if len(body) != 1 or not isinstance(body[0], ast.If):
            return None
        body = body[0].body
    if len(body) != 1 or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    func = body[0]
    if func.name != code.co_name:
        return None
    ast.increment_lineno(func, start - (1 if indented else 0))
    qualname = getattr(code, "co_qualname", fn.__qualname__).split(".")
    owner = qualname[-2] if len(qualname) >= 2 and qualname[-2] != "<locals>" else None
    inner: ast.stmt = func
    freevars = list(code.co_freevars)
    if owner is not None:  # a method: compiled in its class (name mangling, __class__)
        inner = ast.ClassDef(owner, [], [], [func], [])
        freevars = [v for v in freevars if v != "__class__"]
    params = ast.arguments(posonlyargs=[], args=[ast.arg(v) for v in freevars + list(HELPERS)],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    factory = ast.FunctionDef(f"{PREFIX}factory", params, [inner], [], None, None)
    # Python 3.11 compiles ``m.f()`` differently when ``m`` is imported at module level
    imports = [ast.Import([ast.alias("sys", n)]) for n in sorted(_module_imports(lines))]
    for node in (factory, inner, *imports):
        ast.copy_location(node, func)
    module = ast.Module([*imports, factory], [])
    ast.fix_missing_locations(module)
    return module, func


def _module_imports(lines: list[str]) -> set[str]:
    """The names the module of ``lines`` binds by ``import`` at its top level."""
    try:
        table = symtable.symtable("".join(lines), "<module>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {s.get_name() for s in table.get_symbols() if s.is_imported()}


def _compile(module: ast.Module, fn: types.FunctionType) -> types.CodeType | None:
    """The code object of ``fn``'s definition in ``module``, compiled as Python compiled ``fn``."""
    code = fn.__code__
    try:
        compiled = compile(module, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS,
                           dont_inherit=True)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    found: list[types.CodeType] = []

    def search(c: types.CodeType, depth: int) -> None:
        for const in c.co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name == code.co_name and const.co_firstlineno == code.co_firstlineno and depth:
                    found.append(const)
                elif depth < 3 and not found:
                    search(const, depth + 1)

    search(compiled, 0)
    return found[0] if len(found) == 1 else None


_COMPARED = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_stacksize",
             "co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_name",
             "co_firstlineno", "co_linetable", "co_exceptiontable")


def _same_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Whether two code objects do the same (all but the qualified name, which reflects where
    they were compiled), nested code included."""
    for attr in _COMPARED:
        if getattr(a, attr, None) != getattr(b, attr, None):
            return False
    if (a.co_flags ^ b.co_flags) & ~_CO_NESTED:
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    return all(_same_const(x, y) for x, y in zip(a.co_consts, b.co_consts))


def _same_const(x: Any, y: Any) -> bool:
    if type(x) is not type(y):
        return False
    if isinstance(x, types.CodeType):
        return _same_code(x, y)
    if isinstance(x, tuple):
        return len(x) == len(y) and all(_same_const(p, q) for p, q in zip(x, y))
    if isinstance(x, frozenset):
        return sorted(map(repr, x)) == sorted(map(repr, y))
    if isinstance(x, (float, complex)):
        return repr(x) == repr(y)
    return bool(x == y)
