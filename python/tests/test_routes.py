"""Calls with arguments DLPack cannot import go to the front door of the framework they come
from (``dlbridge._routes``), and fall back to the dispatcher's own error when no door takes them."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import Any

import dlbridge
import numpy as np
import pytest
from dlbridge import _routes


class _Traced:
    """A value of a made-up framework, with nothing to import."""

    __module__ = "madeupfw.core"


@pytest.fixture
def door(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, ...]]]:
    """A front door for `madeupfw` values that records its calls and takes those with a _Traced."""
    calls: list[tuple[Any, ...]] = []
    module = types.ModuleType("dlbridge_test_door")

    def route(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        calls.append((function, args, kwargs))
        return ("routed", function.__name__) if any(isinstance(a, _Traced) for a in args) else NotImplemented

    module.route = route  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "dlbridge_test_door", module)
    monkeypatch.setitem(_routes._FRONT_DOORS, "madeupfw", "dlbridge_test_door")
    yield calls


@dlbridge.jit
def _scale(x: Any, factor: Any = 2.0) -> Any:
    return x * factor


def test_foreign_arguments_reach_their_front_door(door: list[tuple[Any, ...]]) -> None:
    traced = _Traced()
    assert _scale(traced, factor=3.0) == ("routed", "_scale")
    function, args, kwargs = door[0]
    assert function is _scale and args == (traced,) and kwargs == {"factor": 3.0}


def test_arrays_never_reach_a_front_door(door: list[tuple[Any, ...]]) -> None:
    np.testing.assert_array_equal(_scale(np.arange(3.0)), [0.0, 2.0, 4.0])
    assert door == []


def test_values_no_door_takes_raise_the_dispatchers_error(door: list[tuple[Any, ...]]) -> None:
    with pytest.raises(TypeError, match="argument 0"):
        _scale(object())
    assert door == []


def test_a_missing_front_door_module_is_no_door(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(_routes._FRONT_DOORS, "madeupfw", "dlbridge_no_such_door")
    with pytest.raises(TypeError, match="argument 0"):
        _scale(_Traced())
