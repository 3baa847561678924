"""``TraceError`` and how the tracer reports errors: at the user's line (the first frame outside
dlbridge), naming the operation, with internal errors turned into dlbridge's own; and where traced
sizes come from, for when Python needs one as a number (``NeedsValue``)."""

from __future__ import annotations

import inspect
import linecache
import os
import re
import sys
import traceback
import types
from typing import Any

__all__ = [
    "ALL_SIZES",
    "NeedsValue",
    "TraceError",
    "as_user_error",
    "format_location",
    "frame_column",
    "merge_sources",
    "need_value",
    "public_message",
    "trace_error",
    "unparsable_trace",
    "unsupported",
    "user_frame",
    "user_location",
]


class TraceError(TypeError):
    """An operation that cannot be traced (unsupported op, data-dependent control flow...)."""


#: Where a traced size or scalar comes from ("sources"), for when Python needs it as a number:
#: a frozenset of the ``(argument, dim)`` sizes and ``(argument, None)`` int or bool arguments it
#: is computed from; ALL_SIZES when it comes from an intermediate array (any argument's size may
#: matter); None when no call-time value can stand for it (a loop index, array data).
ALL_SIZES = "all sizes"


def merge_sources(*sources: Any) -> Any:
    """The sources of a value computed from values with ``sources``."""
    if any(s is None for s in sources):
        return None
    if any(s == ALL_SIZES for s in sources):
        return ALL_SIZES
    return frozenset().union(*sources)


class NeedsValue(BaseException):
    """Python needs a size or an int argument as a number (``int(n)``, ``math.sqrt(d)``,
    ``if d > 3:``): ``trace`` traces again with ``sources`` fixed at the call's values, guarding
    the kernel on them, or raises ``error`` when it cannot. A BaseException, so that neither the
    user's ``except Exception`` nor the tracer's own fallbacks take it for an error."""

    def __init__(self, sources: Any, error: TraceError) -> None:
        super().__init__(str(error))
        self.sources = sources
        self.error = error


def need_value(sources: Any, error: TraceError) -> BaseException:
    """What to raise where Python needs a traced value with ``sources`` as a number."""
    return error if sources is None else NeedsValue(sources, error)


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/dlbridge


def _skip_frame(filename: str) -> bool:
    fn = os.path.abspath(filename)
    if fn.startswith(_PKG_DIR + os.sep):
        return True
    np_mod = sys.modules.get("numpy")
    if np_mod is not None and getattr(np_mod, "__file__", None):
        np_dir = os.path.dirname(os.path.abspath(np_mod.__file__))  # type: ignore[arg-type]
        if fn.startswith(np_dir + os.sep):
            return True
    return filename.startswith("<frozen")


def user_frame() -> types.FrameType | None:
    """The innermost frame outside dlbridge and NumPy (the user's code)."""
    f = inspect.currentframe()
    while f is not None and _skip_frame(f.f_code.co_filename):
        f = f.f_back
    return f


def user_location() -> tuple[str, int, str] | None:
    """``(basename, line, source text)`` of the user's current line, or None."""
    f = user_frame()
    if f is None:
        return None
    filename = f.f_code.co_filename
    line = f.f_lineno
    src = linecache.getline(filename, line).strip()
    return os.path.basename(filename), line, src


def frame_column(frame: types.FrameType) -> int:
    """The 1-based column of the expression ``frame`` is executing (1 when unknown)."""
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    if 0 <= index < len(positions) and positions[index][2] is not None:
        return positions[index][2] + 1  # type: ignore[operator]
    return 1


def format_location(loc: tuple[str, int, str] | None) -> str:
    """``file.py:line: source`` for messages ("" when unknown)."""
    if loc is None:
        return ""
    base, line, src = loc
    return f"{base}:{line}" + (f": {src}" if src else "")


def unsupported(op: str, detail: str = "") -> TraceError:
    """A :class:`TraceError` for ``op`` naming the user's source line."""
    msg = f"dlbridge.jit: unsupported operation '{op}'"
    if detail:
        msg += f" ({public_message(detail)})"
    where = format_location(user_location())
    if where:
        msg += f" at {where}"
    return TraceError(msg)


def trace_error(message: str, exc: type[Exception] = TraceError) -> Exception:
    """An exception of type ``exc`` whose message ends with the user's source line."""
    where = format_location(user_location())
    return exc(f"dlbridge.jit: {public_message(message)}" + (f" at {where}" if where else ""))


#: The tracer's own classes a message may name, and what a NumPy user calls them.
_PUBLIC_NAMES = {"TracedArray": "numpy.ndarray", "SymbolicDim": "int"}
_INTERNAL_NAME = re.compile(r"\b(" + "|".join(_PUBLIC_NAMES) + r")\b")

#: Exceptions Python or NumPy raise at the user's line that are rebuilt with the line in their
#: message and the tracer's class names replaced (others pass unchanged: the user's own, and
#: KeyError, whose message is the key's repr).
_REBUILT = (
    TypeError, ValueError, IndexError, NameError, AttributeError, ArithmeticError,
    AssertionError, NotImplementedError, RecursionError,
)
#: Exceptions that, raised from inside dlbridge without a message of its own, are its bugs.
_INTERNAL = (AttributeError, KeyError, NameError, AssertionError, RecursionError)


def public_message(text: str) -> str:
    """``text`` with the tracer's class names replaced by the NumPy names a user knows."""
    return _INTERNAL_NAME.sub(lambda m: _PUBLIC_NAMES[m.group(1)], text)


def _traceback_location(exc: BaseException) -> tuple[str, int, str] | None:
    """``(basename, line, source text)`` of the innermost user frame ``exc`` passed through."""
    found = None
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if not _skip_frame(frame.f_code.co_filename):
            found = (frame.f_code.co_filename, line)
    if found is None:
        return None
    filename, line = found
    return os.path.basename(filename), line, linecache.getline(filename, line).strip()


def as_user_error(exc: Exception) -> Exception:
    """``exc``, escaped from the traced function, as its user should see it.

    dlbridge's own errors (their message starts with ``dlbridge``) and exceptions of the user's
    own classes come back unchanged. Python's and NumPy's errors at the user's line (a name
    that is not defined, an operator a traced array lacks) keep their type and get the line and
    NumPy's names; an error dlbridge itself caused becomes a :class:`TraceError` that says so.
    """
    message = str(exc)
    if message.startswith("dlbridge") or not isinstance(exc, _REBUILT + _INTERNAL):
        return exc
    where = format_location(_traceback_location(exc))
    at = f" at {where}" if where else ""
    frames = list(traceback.walk_tb(exc.__traceback__))
    raised_inside = bool(frames) and frames[-1][0].f_code.co_filename.startswith(_PKG_DIR + os.sep)
    if raised_inside and isinstance(exc, _INTERNAL):
        detail = public_message(f"{type(exc).__name__}: {message}")
        return TraceError(f"dlbridge.jit: internal error while tracing ({detail}){at}; "
                          "please report it with the function")
    if not isinstance(exc, _REBUILT):
        return exc
    text = f"dlbridge.jit: {public_message(message)}{at}"
    try:
        rebuilt = type(exc)(text)
    except Exception:
        return exc
    if isinstance(exc, NameError):
        rebuilt.name = exc.name  # type: ignore[attr-defined]
    return rebuilt.with_traceback(exc.__traceback__)


_PARSE_ERROR = re.compile(r"<source>:(\d+):\d+: error: ")


def unparsable_trace(function: str, mlir: str, message: str) -> TraceError | None:
    """The error for a compile ``message`` saying that the MLIR traced from ``function`` does
    not parse (a fault of the tracer's, not the user's), naming the user's line that emitted the
    op; None for other compile errors (they carry the user's locations themselves)."""
    found = _PARSE_ERROR.match(message)
    if found is None:
        return None
    lines = mlir.splitlines()[: int(found.group(1))]
    shown = next((ln.strip()[3:] for ln in reversed(lines) if ln.strip().startswith("// ")), "")
    return TraceError(f"dlbridge.jit: internal error: {function}() was traced into code that does "
                      "not compile; please report it with the function"
                      + (f" (the operation at {shown})" if shown else ""))


