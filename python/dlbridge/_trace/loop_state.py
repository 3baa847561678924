"""The Python objects a traced loop body could change, so that a change is found and undone.

A loop traced as ``scf.for`` runs its body once (a few times while its carried types settle), so
a body that appends to a list, sets a dict entry or an attribute would leave Python objects as no
number of iterations would. :class:`PythonState` records the mutable objects reachable from the
loop's scope (lists, dicts, sets, bytearrays and the attributes of plain objects, a few levels
deep) with their contents, says which one the body changed, and puts their contents back.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["PythonState"]

_MAX_DEPTH = 3
_MAX_OBJECTS = 4096
_MAX_ITEMS = 1 << 16
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType,
           types.CodeType, functools.partial, np.ndarray, np.generic, str, bytes, int, float, complex)


class PythonState:
    """The contents of the mutable objects reachable from ``roots`` (name, value pairs)."""

    def __init__(self, roots: Iterable[tuple[str, Any]], skip: tuple[type, ...] = ()) -> None:
        self._skip = _OPAQUE + skip
        self._saved: list[tuple[str, Any, Any, str]] = []  # (path, object, contents, what)
        self._seen: set[int] = set()
        for name, value in roots:
            self._visit(value, name, 0)

    def _visit(self, obj: Any, path: str, depth: int) -> None:
        if depth > _MAX_DEPTH or id(obj) in self._seen or len(self._saved) >= _MAX_OBJECTS:
            return
        if obj is None or isinstance(obj, self._skip):
            return
        self._seen.add(id(obj))
        children: Iterable[tuple[str, Any]] = ()
        if isinstance(obj, list):
            self._saved.append((path, obj, list(obj), "list"))
            children = ((f"{path}[{k}]", v) for k, v in enumerate(obj[:_MAX_ITEMS]))
        elif isinstance(obj, dict):
            self._saved.append((path, obj, dict(obj), "dict"))
            children = ((f"{path}[{k!r}]", v) for k, v in list(obj.items())[:_MAX_ITEMS])
        elif isinstance(obj, (set, bytearray)):
            self._saved.append((path, obj, obj.copy(), type(obj).__name__))
        elif isinstance(obj, tuple):
            children = ((f"{path}[{k}]", v) for k, v in enumerate(obj[:_MAX_ITEMS]))
        else:
            attrs = getattr(obj, "__dict__", None)
            if type(attrs) is dict:
                self._saved.append((path, attrs, dict(attrs), "attributes of"))
                children = ((f"{path}.{k}", v) for k, v in list(attrs.items()))
        for sub_path, value in children:
            self._visit(value, sub_path, depth + 1)

    def changed(self) -> str | None:
        """The first object whose contents changed, as ``the list 'parts'``; None if none did."""
        for path, obj, saved, what in self._saved:
            if isinstance(obj, (list, dict)):
                same = len(obj) == len(saved) and all(
                    a is b for a, b in zip(obj, saved)) if isinstance(obj, list) else (
                    obj.keys() == saved.keys() and all(obj[k] is saved[k] for k in saved))
            else:
                same = obj == saved
            if not same:
                return f"the {what} '{path}'"
        return None

    def restore(self) -> None:
        """Puts back the contents recorded."""
        for _, obj, saved, _ in self._saved:
            if isinstance(obj, list):
                obj[:] = saved
            elif isinstance(obj, (dict, set)):
                obj.clear()
                obj.update(saved)
            elif isinstance(obj, bytearray):
                obj[:] = saved
