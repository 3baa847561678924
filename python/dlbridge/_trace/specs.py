"""What a trace takes and gives: the specs of the arguments (``ArraySpec``, ``ScalarSpec``,
``StaticSpec``), of the results (``ResultSpec``) and the ``TraceResult``."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from . import dtypes as D

__all__ = [
    "ArraySpec",
    "ResultSpec",
    "ScalarSpec",
    "StaticSpec",
    "TraceResult",
    "build_results",
    "flatten_results",
    "place_results",
]



def flatten_results(out: Any, leaves: list[Any]) -> Any:
    """The result tree of ``out`` as the Python function returned it: tuples, lists, named tuples
    and dicts (by key, in order) kept, None kept, anything else a leaf numbered in the order it
    is appended to ``leaves``."""
    if out is None:
        return None
    if isinstance(out, dict):
        return {key: flatten_results(value, leaves) for key, value in out.items()}
    if isinstance(out, (tuple, list)):
        items = [flatten_results(o, leaves) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    leaves.append(out)
    return len(leaves) - 1


def build_results(tree: Any, flat: Any) -> Any:
    """The function's results from the kernel's ``flat`` ones, structured as ``tree`` says."""
    if tree is None:
        return None
    if isinstance(tree, dict):
        return {key: build_results(node, flat) for key, node in tree.items()}
    if isinstance(tree, (tuple, list)):
        items = [build_results(node, flat) for node in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    return flat[tree]


def place_results(tree: Any, value: Any, flat: list[Any]) -> None:
    """Puts the results in ``value``, structured as ``tree`` says, at their indices in ``flat``."""
    if tree is None:
        return
    if isinstance(tree, dict):
        for key, node in tree.items():
            place_results(node, value[key], flat)
        return
    if isinstance(tree, (tuple, list)):
        for node, item in zip(tree, value):
            place_results(node, item, flat)
        return
    flat[tree] = value


def guard_key(value: Any) -> int | bytes:
    """A guarded argument value as the dispatcher keys it (``Dispatcher::guardedKey``): a float by
    its bits (``-0.0`` is not ``0.0``, a NaN is itself), an int or bool by value."""
    return struct.pack("<d", value) if isinstance(value, float) else int(value)

@dataclass(frozen=True)
class ArraySpec:
    """An array argument (or result): dtype name, rank, and which dims are known to be 1.

    Every dim not marked in ``unit_dims`` is dynamic (``?``), unless ``sizes`` fixes it (a size
    the function needed as a number, see :class:`~.errors.NeedsValue`).  ``unit_dims`` and ``sizes`` may
    be left empty to mean "none"."""

    dtype: str
    rank: int
    unit_dims: tuple[bool, ...] = ()
    sizes: tuple[int | None, ...] = ()

    def __post_init__(self) -> None:
        if not self.unit_dims:
            object.__setattr__(self, "unit_dims", (False,) * self.rank)
        else:
            object.__setattr__(self, "unit_dims", tuple(bool(u) for u in self.unit_dims))
        if len(self.unit_dims) != self.rank:
            raise ValueError(f"ArraySpec: unit_dims {self.unit_dims} does not match rank {self.rank}")
        if not self.sizes:
            object.__setattr__(self, "sizes", (None,) * self.rank)
        if len(self.sizes) != self.rank:
            raise ValueError(f"ArraySpec: sizes {self.sizes} does not match rank {self.rank}")

    @property
    def dims(self) -> tuple[int | None, ...]:
        """The traced argument's dims: fixed sizes, 1 for unit dims, None for dynamic ones."""
        return tuple(s if s is not None else 1 if u else None for s, u in zip(self.sizes, self.unit_dims))
        D.dtype(self.dtype)  # validate


@dataclass(frozen=True)
class ScalarSpec:
    """A Python scalar argument: ``kind`` is ``"int"``, ``"float"`` or ``"bool"``.

    It becomes a scalar function parameter (``i64``, ``f64``, ``i1``) and a weakly typed operand.
    A NumPy scalar has a ``dtype``: it is a strongly typed operand of that dtype (NEP 50), read
    from a parameter of that dtype (unsigned ones from ``i64``, scalar parameters being signless).
    When ``value`` is given the function is specialised on it: the traced function receives the
    Python value itself (so it may serve as an ``axis`` or a reshape size); the parameter stays in
    the signature."""

    kind: str
    value: Any = None
    dtype: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("int", "float", "bool"):
            raise ValueError(f"ScalarSpec: kind must be 'int', 'float' or 'bool', not {self.kind!r}")


@dataclass(frozen=True)
class StaticSpec:
    """A static argument (``jit(static_argnums=...)``): the traced function receives ``value``
    itself, a compile-time constant, and the entry has no parameter for it."""

    value: Any


@dataclass(frozen=True)
class ResultSpec:
    """A result of a traced function: dtype name, rank, unit dims and static sizes (``None`` for
    dynamic dims; static sizes other than 1 only come from ``reshape`` with explicit sizes)."""

    dtype: str
    rank: int
    unit_dims: tuple[bool, ...]
    shape: tuple[int | None, ...]


@dataclass
class TraceResult:
    """What ``trace`` produces.

    Attributes:
        mlir: the complete module text.
        entry: the entry function's name.
        results: one :class:`ResultSpec` per result.
        num_outputs: ``len(results)``.
        result_tree: how the Python function returned its results: an int (the index of a
            result), None, or a tuple, list, named tuple or dict of such trees
            (:func:`flatten_results`).
        arg_names: the parameter names, in order.
        written_args: the names of the arguments the function updates in place (memref
            parameters of the entry).
        guards: the sizes and values the trace fixed because the function needed them as
            numbers, as ``(argument, dim, value)`` (``dim`` None: the argument's own value); the
            module is right only for calls that have these.
    """

    mlir: str
    entry: str
    results: list[ResultSpec]
    num_outputs: int
    result_tree: Any
    arg_names: list[str] = field(default_factory=list)
    written_args: list[str] = field(default_factory=list)
    guards: tuple[tuple[int, int | None, float], ...] = ()


