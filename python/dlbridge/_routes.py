"""Calls of ``@dlbridge.jit`` functions with values DLPack cannot import.

Inside ``jax.jit`` a function's arguments are tracers, and inside
``torch.compile`` or ``torch.export`` they are fake tensors: neither has data
to import. When importing an argument fails, the dispatcher asks :func:`route`
before raising its error. It finds the framework each argument's type comes
from and hands the call to that framework's front door (``dlbridge.jax``,
``dlbridge.torch``), imported only then; the front door turns the call into an
operation of the framework's graph, or returns ``NotImplemented`` when the
arguments are not its to take.
"""

from __future__ import annotations

import importlib
from typing import Any

# The top-level module of an argument's type -> the front door that takes such arguments.
_FRONT_DOORS = {
    "jax": "dlbridge.jax",
    "jaxlib": "dlbridge.jax",
    "torch": "dlbridge.torch",
}


def route(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The result of calling ``function`` with ``args`` and ``kwargs`` through the front door of
    the first framework whose values are among them, or ``NotImplemented`` when none takes the
    call (the dispatcher then raises its own error)."""
    tried: set[str] = set()
    for value in (*args, *kwargs.values()):
        door = _FRONT_DOORS.get(type(value).__module__.partition(".")[0])
        if door is None or door in tried:
            continue
        tried.add(door)
        try:
            module = importlib.import_module(door)
        except ModuleNotFoundError as exc:
            if exc.name != door:
                raise
            continue
        result = module.route(function, args, kwargs)
        if result is not NotImplemented:
            return result
    return NotImplemented
