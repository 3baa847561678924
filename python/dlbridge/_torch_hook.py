"""Tells PyTorch's compiler about jitted functions without importing PyTorch.

Dynamo graph-breaks on a call to an object it cannot trace into, as a jitted function is (its
``__call__`` is the extension's), unless the object is allowed in its graph. ``dlbridge.torch``
allows every jitted function once Dynamo is loaded: right away when it is, else when
``torch._dynamo`` is imported, which a one-shot import hook notices. ``import dlbridge`` imports
neither PyTorch nor Dynamo (Dynamo alone takes about a second to import).
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
import threading
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

_LOCK = threading.Lock()
_state = {"active": False, "watching": False}


def watch() -> None:
    """Makes sure ``dlbridge.torch`` allows jitted functions in Dynamo's graph once Dynamo is
    loaded (now, if it is)."""
    if _state["active"]:
        return
    if "torch._dynamo" in sys.modules:
        _activate()
        return
    with _LOCK:
        if not _state["watching"]:
            _state["watching"] = True
            sys.meta_path.insert(0, _DynamoFinder())


def _activate() -> None:
    with _LOCK:
        if _state["active"]:
            return
        _state["active"] = True
    try:
        importlib.import_module("dlbridge.torch")._allow_all()
    except Exception as error:  # never break the user's import of PyTorch; the next @jit tries again
        _state["active"] = False
        warnings.warn(f"dlbridge: jitted functions graph-break under torch.compile for now: {error}",
                      RuntimeWarning, stacklevel=2)


class _DynamoFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``torch._dynamo`` is imported it lets the other finders find
    it and runs :func:`_activate` once the module has run."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if name != "torch._dynamo":
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec

        def exec_then_activate(module: ModuleType) -> None:
            exec_module(module)
            _activate()

        loader.exec_module = exec_then_activate  # type: ignore[union-attr]
        return spec
