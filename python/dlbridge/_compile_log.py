"""``DLBRIDGE_LOG=compile``: one log line per compile, saying why and how long it took.

Lines go to the ``"dlbridge"`` logger at INFO level. Setting the variable
(a comma-separated list of topics; ``compile`` is the one there is) attaches
a handler writing to stderr when the logger has none, so nothing else needs
configuring; ``logging.getLogger("dlbridge").setLevel(logging.INFO)`` with a
handler of one's own does the same from code. Compiles are rare (Python runs
only on a cache miss), so logging costs calls nothing.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from . import _dlbridge
from ._trace.specs import guard_key

logger = logging.getLogger("dlbridge")

TOPICS = ("compile",)
_DEVICE_NAMES = {1: "cpu", 2: "cuda", 3: "cuda_host", 13: "cuda_managed"}


def _configure_from_environment() -> None:
    value = os.environ.get("DLBRIDGE_LOG", "")
    topics = {t.strip() for t in value.split(",") if t.strip()}
    unknown = sorted(topics - set(TOPICS))
    if unknown:
        warnings.warn(f"DLBRIDGE_LOG: unknown topic(s) {', '.join(unknown)}; "
                      f"accepted: {', '.join(TOPICS)}", RuntimeWarning, stacklevel=2)
    if "compile" in topics:
        logger.setLevel(logging.INFO)
        if not logger.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("dlbridge: %(message)s"))
            logger.addHandler(handler)


def _device_name(device: tuple[int, int]) -> str:
    return f"{_DEVICE_NAMES.get(device[0], f'device type {device[0]}')}:{device[1]}"


def _describe_change(name: str, old: tuple[Any, ...], new: tuple[Any, ...]) -> list[str]:
    """What differs between two specs of the argument ``name``."""
    if old[0] != new[0]:
        return [f"{name} is now a {new[0]} (was a {old[0]})"]
    if new[0] == "static":
        return [f"new static value of {name} ({old[1]!r} -> {new[1]!r})"]
    if new[0] == "scalar":
        return [f"new scalar type of {name} ({old[2] or old[1]} -> {new[2] or new[1]})"]
    changes = []
    _, dtype, rank, unit_dims, device = new
    if dtype != old[1]:
        changes.append(f"new dtype of {name} ({old[1]} -> {dtype})")
    if rank != old[2]:
        changes.append(f"new rank of {name} ({old[2]} -> {rank})")
    elif tuple(unit_dims) != tuple(old[3]):
        def ones(flags: Sequence[bool]) -> list[int]:
            return [i for i, one in enumerate(flags) if one]
        changes.append(f"new size-1 dims of {name} ({ones(old[3])} -> {ones(unit_dims)})")
    if tuple(device) != tuple(old[4]):
        changes.append(f"new device of {name} ({_device_name(old[4])} -> {_device_name(device)})")
    return changes


def compile_reason(names: Sequence[str] | None, specs: tuple[Any, ...],
                   earlier: Sequence[tuple[Any, ...]]) -> str:
    """Why ``specs`` needed a compile: the first call, or what differs from the
    nearest of the ``earlier`` specialisations (the fewest differences)."""
    if not earlier:
        return "first call"
    def name(i: int) -> str:
        return names[i] if names is not None and i < len(names) else f"argument {i}"
    candidates = [e for e in earlier if len(e) == len(specs)]
    if not candidates:
        return f"new number of arguments ({len(earlier[-1])} -> {len(specs)})"
    def changes(earlier_specs: tuple[Any, ...]) -> list[str]:
        return [change for i, (old, new) in enumerate(zip(earlier_specs, specs))
                if not _same_spec(old, new) for change in _describe_change(name(i), old, new)]
    # The most recent of the nearest, when several are as near.
    nearest = min((changes(e) for e in reversed(candidates)), key=len)
    if not nearest:
        return "compiled before, then unloaded (DLBRIDGE_MEMORY_CACHE_MAX, clear_cache())"
    return "; ".join(nearest)


def failed_guard(guards: Sequence[tuple[int, int | None, float]], hints: Sequence[Any] | None,
                 names: Sequence[str] | None) -> str | None:
    """The first of a trace's ``guards`` (argument, dim or None, value) that a call with
    ``hints`` (per argument: shape, int value or None) does not hold, as a compile reason
    (``guard n.shape[1] == 64 failed (now 128)``); None when all hold. Without hints none is
    known to hold."""
    for i, dim, value in guards:
        name = names[i] if names is not None and i < len(names) else f"argument {i}"
        hint = None if hints is None or i >= len(hints) else hints[i]
        if hint is not None and dim is not None and dim >= len(hint):
            hint = None
        now = None if hint is None else hint if dim is None else hint[dim]
        if now is None or guard_key(now) != guard_key(value):
            what = name if dim is None else f"{name}.shape[{dim}]"
            was = bool(value) if isinstance(now, bool) else value
            return f"guard {what} == {was} failed" + ("" if now is None else f" (now {now})")
    return None


def _same_spec(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    """Whether two specs of one argument specialise alike (static values by type and value at
    every level, as the dispatcher keys them)."""
    if old[0] == new[0] == "static":
        return bool(_dlbridge.static_key(old[1]) == _dlbridge.static_key(new[1]))
    return old == new


def log_compile(what: str, reason: str, seconds: float, kernel: Any) -> None:
    """Logs one compile of ``what`` (a function name, or ``compile()`` and the
    kernel's entry when empty) that gave ``kernel``."""
    if logger.isEnabledFor(logging.INFO):
        what = what or f"compile(): @{kernel.signature['name']}"
        source = "loaded from the disk cache" if kernel.from_disk_cache else "compiled"
        logger.info("%s: %s in %.1f ms (%s)", what, source, seconds * 1e3, reason)


_configure_from_environment()
