"""The public array functions, ``dlbridge.<name>``, one per name in the op table.

Inside a traced function (or given traced arrays) each runs the table's implementation; called
outside a trace on concrete arrays it runs NumPy's function of the same name, so the same code
also runs eagerly (``erf`` and ``sigmoid``, which NumPy lacks, have their own)."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from . import registry
from .registry import OpDef
from .traced_array import SymbolicDim, TracedArray, current_context

__all__: list[str] = []


def _erf(x: Any) -> Any:
    x = np.asarray(x)
    return np.vectorize(math.erf, otypes=[np.result_type(x.dtype, np.float16)])(x)


def _sigmoid(x: Any) -> Any:
    x = np.asarray(x)
    return 1 / (1 + np.exp(-x))


_EAGER: dict[str, Callable[..., Any]] = {"erf": _erf, "sigmoid": _sigmoid}


def _tracing(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    if current_context() is not None:
        return True
    values = [*args, *kwargs.values()]
    values += [v for a in args if isinstance(a, (list, tuple)) for v in a]
    return any(isinstance(v, (TracedArray, SymbolicDim)) for v in values)


def _public(entry: OpDef, name: str) -> Callable[..., Any]:
    eager = _EAGER.get(entry.name) or getattr(np, name, None) or getattr(np, entry.name, None)

    def function(*args: Any, **kwargs: Any) -> Any:
        if _tracing(args, kwargs):
            return entry.impl(*args, **kwargs)
        if eager is None:
            raise TypeError(f"dlbridge.{name}() runs only inside a traced function")
        return eager(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = entry.doc
    function.__wrapped__ = entry.impl  # type: ignore[attr-defined]
    return function


def public() -> dict[str, Callable[..., Any]]:
    """Every ``dlbridge.<name>`` function: the table's names and the NumPy names they declare."""
    out: dict[str, Callable[..., Any]] = {}
    for entry in registry.all_ops():
        for name in (entry.name, *entry.numpy):
            if name.isidentifier() and name not in out:
                out[name] = _public(entry, name)
    return out
