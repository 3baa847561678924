"""MLIR text building: unique SSA names, blocks of operations, constants and type strings.

Everything here is deterministic: names come from hints plus a counter, never from ``id()`` or
hashing, so the same traced function gives byte-identical text (the text is a cache key).
"""

from __future__ import annotations

import contextvars
import math
import re
import struct
from collections.abc import Sequence
from typing import Callable

from .dtypes import DType

__all__ = ["NameTable", "Block", "tensor_type", "float_literal", "affine_map", "clear_location", "set_location"]

#: The MLIR location (``loc("file.py":line:col)``) of the user's line being traced; every op the
#: tracer emits carries it, so that diagnostics point at the Python source.
_location: contextvars.ContextVar[str] = contextvars.ContextVar("dlbridge_trace_loc", default="")


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def set_location(filename: str, line: int, column: int, shown: str) -> None:
    """Makes the ops emitted from now on carry the user's ``filename:line:column``, named by
    ``shown`` (``file.py:12: source``), which run-time check failures append to their message."""
    _location.set(f"loc({_quoted(shown)}({_quoted(filename)}:{line}:{column}))")


def clear_location() -> None:
    """Ops emitted from now on carry no user location."""
    _location.set("")


def location() -> str:
    """The current user location as an MLIR location, or "" outside a traced line."""
    return _location.get()

_NAME_OK = re.compile(r"[^A-Za-z0-9_$.]")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
SSA_NAME = re.compile(r"%[A-Za-z0-9_$.]+")
_DEFINITION = re.compile(r"^\s*(%[A-Za-z0-9_$.]+)(?::\d+)?((?:\s*,\s*%[A-Za-z0-9_$.]+)*)\s*=\s")


class NameTable:
    """Hands out unique SSA names (``%x``, ``%x_1``...) within one function, and records what
    each emitted value was computed from (``deps``: every SSA name its defining text mentions),
    which the in-place updates read to find values that overlap what they write."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self.deps: dict[str, tuple[str, ...]] = {}
        #: the ``tensor.dim``/``tensor.empty`` values: they read shapes, never contents
        self.shape_only: set[str] = set()
        #: per ``linalg.generic`` result: its inputs with their indexing maps, its init and map,
        #: and whether every loop is parallel
        self.generics: dict[str, tuple[tuple[tuple[str, str], ...], str, str, bool]] = {}
        #: the defining text of single-line values (without its location)
        self.defs: dict[str, str] = {}
        #: the values defined in loop regions already closed (not visible any more), with where
        #: the loop is, and the error a use of one of them raises
        self.dead: dict[str, str] = {}
        self.dead_error: Callable[[str, str], Exception] | None = None

    def check_live(self, text: str) -> None:
        """Raises ``dead_error`` when ``text`` uses a value of a closed loop region."""
        if not self.dead:
            return
        for name in SSA_NAME.findall(_QUOTED.sub("", text)):
            where = self.dead.get(name)
            if where is not None:
                raise (self.dead_error or (lambda n, w: ValueError(f"{n} is not defined here")))(name, where)

    def record(self, text: str) -> None:
        """Records the values ``text`` (one emitted line or op, ``%r = ...``) defines and what
        they were computed from."""
        m = _DEFINITION.match(text)
        if m is None:
            return
        rest = text[m.end():]
        results = [m.group(1)] + SSA_NAME.findall(m.group(2))
        used = tuple(n for n in SSA_NAME.findall(rest) if n not in results)
        shape = rest.startswith(("tensor.dim ", "tensor.empty("))
        if len(results) == 1 and "\n" not in rest:
            self.defs[results[0]] = rest.split(" loc(")[0]
        for r in results:
            self.deps[r] = used
            if shape:
                self.shape_only.add(r)

    def fresh(self, hint: str) -> str:
        """A new name derived from ``hint`` (sanitised), without the leading ``%``."""
        base = _NAME_OK.sub("_", hint) or "v"
        if base[0].isdigit() or base[0] == "$" or base[0] == ".":
            base = "v" + base
        name = base
        i = 0
        while name in self._used:
            i += 1
            name = f"{base}_{i}"
        self._used.add(name)
        return name


def dims_str(dims: Sequence[int | None]) -> str:
    return "x".join("?" if d is None else str(d) for d in dims)


def tensor_type(dims: Sequence[int | None], dt: DType) -> str:
    """``tensor<?x1xf32>`` (``tensor<f32>`` for rank 0)."""
    if not dims:
        return f"tensor<{dt.mlir}>"
    return f"tensor<{dims_str(dims)}x{dt.mlir}>"


_SPECIAL_BITS = {
    # (inf, -inf, nan) bit patterns
    "f16": ("0x7C00", "0xFC00", "0x7E00"),
    "bf16": ("0x7F80", "0xFF80", "0x7FC0"),
    "f32": ("0x7F800000", "0xFF800000", "0x7FC00000"),
    "f64": ("0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"),
}
_MAX_FINITE = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38}


def float_literal(value: float, mlir_type: str) -> str:
    """An MLIR float attribute literal of ``value`` for ``mlir_type`` (hex for inf/nan and for
    values that overflow the type, decimal otherwise)."""
    v = float(value)
    if not math.isnan(v) and not math.isinf(v):
        limit = _MAX_FINITE.get(mlir_type)
        if limit is not None and abs(v) > limit:
            # round-to-nearest may still give the max finite value; let struct decide for f16/f32
            fmt = {"f16": "<e", "f32": "<f"}.get(mlir_type)
            try:
                if fmt is None:
                    raise OverflowError
                struct.pack(fmt, v)
            except OverflowError:
                v = math.copysign(math.inf, v)
    inf, ninf, nan = _SPECIAL_BITS[mlir_type]
    if math.isnan(v):
        return nan
    if math.isinf(v):
        return inf if v > 0 else ninf
    return f"{v:.17e}"


def affine_map(num_dims: int, exprs: Sequence[str]) -> str:
    """``affine_map<(d0, d1) -> (d0, 0)>``."""
    ds = ", ".join(f"d{i}" for i in range(num_dims))
    return f"affine_map<({ds}) -> ({', '.join(exprs)})>"


class Block:
    """A list of operation lines sharing a name table; one for the function body and one per
    ``linalg.generic`` region.

    Constants are cached per block (a region's constants stay inside the region)."""

    def __init__(self, names: NameTable, indent: int = 1) -> None:
        self.names = names
        self.indent = indent
        self.lines: list[str] = []
        self._consts: dict[tuple[str, str], str] = {}

    def raw(self, text: str) -> None:
        """Emit a line (may contain newlines; each gets this block's indentation); a run-time
        check (``dlpack.assert``) carries the user's location."""
        if not text.startswith("//"):
            self.names.check_live(text)
        loc = _location.get()
        if loc and text.startswith("dlpack.assert") and "\n" not in text:
            text = f"{text} {loc}"
        self.names.record(text)
        pad = "  " * self.indent
        for ln in text.split("\n"):
            self.lines.append(pad + ln if ln else "")

    def comment(self, text: str) -> None:
        self.raw("// " + text.replace("\n", " "))

    def op(self, hint: str, text: str) -> str:
        """Emit ``%name = text`` (at the user's location) and return ``%name``."""
        name = "%" + self.names.fresh(hint)
        loc = _location.get()
        self.raw(f"{name} = {text} {loc}" if loc and "\n" not in text else f"{name} = {text}")
        return name

    def const(self, value: object, mlir_type: str, hint: str | None = None) -> str:
        """A cached ``arith.constant`` (int, bool, float or index; complex via ``complex.constant``)."""
        if mlir_type.startswith("complex<"):
            c = complex(value)  # type: ignore[arg-type]
            comp = mlir_type[len("complex<") : -1]
            lit = f"[{float_literal(c.real, comp)} : {comp}, {float_literal(c.imag, comp)} : {comp}]"
            key = (lit, mlir_type)
            if key not in self._consts:
                self._consts[key] = self.op(hint or "cst", f"complex.constant {lit} : {mlir_type}")
            return self._consts[key]
        if mlir_type in _SPECIAL_BITS:
            lit = float_literal(float(value), mlir_type)  # type: ignore[arg-type]
        elif mlir_type == "i1":
            lit = "true" if value else "false"
        else:
            lit = str(int(value))  # type: ignore[call-overload]
        key = (lit, mlir_type)
        if key not in self._consts:
            if hint is None:
                if mlir_type == "index":
                    hint = f"c{lit}".replace("-", "m")
                elif mlir_type == "i1":
                    hint = lit
                elif mlir_type in _SPECIAL_BITS:
                    hint = "cst"
                else:
                    hint = f"c{lit}_{mlir_type}".replace("-", "m")
            text = f"arith.constant {lit}" if mlir_type == "i1" else f"arith.constant {lit} : {mlir_type}"
            self._consts[key] = self.op(hint, text)
        return self._consts[key]

    def text(self) -> str:
        return "\n".join(self.lines)
