"""Result shapes of a kernel from its arguments' shapes, without running it.

A framework that puts a dlbridge kernel in its graph needs the result shapes
before any data exists: ``torch.compile`` runs a fake implementation on fake
tensors (with symbolic sizes), ``jax.ffi.ffi_call`` takes the result shapes up
front. The compiler reads them off the kernel's IR (``ResultShapes.h``): each
size of each result as integer arithmetic on the arguments' sizes and integer
scalars. A :class:`ShapeRule` evaluates that arithmetic for the arguments at
hand, with plain ints or with a framework's symbolic sizes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import _dlbridge


def _select(condition: Any, if_true: Any, if_false: Any) -> Any:
    return if_true if condition else if_false


@dataclass(frozen=True)
class SizeOps:
    """How a rule takes the minimum, the maximum and a choice of two sizes: Python's by default;
    ``SizeOps(min=torch.sym_min, max=torch.sym_max, select=torch.sym_ite)`` for PyTorch's
    symbolic sizes, which Python's ``min``/``max``/``if`` would specialise."""

    min: Callable[[Any, Any], Any] = min
    max: Callable[[Any, Any], Any] = max
    select: Callable[[Any, Any, Any], Any] = _select


def _ceildiv(a: Any, b: Any, ops: SizeOps) -> Any:
    return -(-a // b)


def _div(a: Any, b: Any, ops: SizeOps) -> Any:
    """``a / b`` rounded towards zero (C's division), as ``arith.divsi``."""
    floor = a // b
    return ops.select((a % b != 0) & ((a < 0) != (b < 0)), floor + 1, floor)


def _rem(a: Any, b: Any, ops: SizeOps) -> Any:
    """The remainder of :func:`_div`, with ``a``'s sign, as ``arith.remsi``."""
    return a - _div(a, b, ops) * b


def _binary(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any, SizeOps], Any]:
    return lambda a, b, ops: fn(a, b)


_OPERATIONS: dict[str, Callable[..., Any]] = {
    "add": _binary(operator.add),
    "sub": _binary(operator.sub),
    "mul": _binary(operator.mul),
    "floordiv": _binary(operator.floordiv),
    "mod": _binary(operator.mod),
    "ceildiv": _ceildiv,
    "div": _div,
    "rem": _rem,
    "min": lambda a, b, ops: ops.min(a, b),
    "max": lambda a, b, ops: ops.max(a, b),
    "eq": _binary(operator.eq),
    "ne": _binary(operator.ne),
    "lt": _binary(operator.lt),
    "le": _binary(operator.le),
    "gt": _binary(operator.gt),
    "ge": _binary(operator.ge),
    "and": _binary(operator.and_),
    "or": _binary(operator.or_),
    "xor": _binary(operator.xor),
    "select": lambda c, a, b, ops: ops.select(c, a, b),
}

_DEFAULT_OPS = SizeOps()


class ShapeRule:
    """The result shapes of one kernel entry as a function of its arguments (see
    :func:`shape_rule`)."""

    def __init__(self, nodes: Sequence[tuple[str, int, int, tuple[int, ...]]],
                 results: Sequence[Sequence[int]]) -> None:
        self._nodes = list(nodes)
        self._results = [tuple(dims) for dims in results]

    @property
    def num_results(self) -> int:
        """How many results the entry returns."""
        return len(self._results)

    def __call__(self, args: Sequence[Any], size_ops: SizeOps | None = None) -> list[tuple[Any, ...]]:
        """Each result's shape for the entry's arguments ``args``, in order: arrays as anything
        with a ``shape`` (sizes may be ints or symbolic sizes), scalars as ints, bools or
        symbolic ints. The sizes come back of the kinds the arguments' were."""
        ops = size_ops or _DEFAULT_OPS
        values: list[Any] = []
        for op, value, arg, operands in self._nodes:
            if op == "const":
                values.append(value)
            elif op == "dim":
                values.append(args[arg].shape[value])
            elif op == "arg":
                values.append(args[arg])
            else:
                values.append(_OPERATIONS[op](*(values[k] for k in operands), ops))
        return [tuple(values[k] for k in dims) for dims in self._results]


def shape_rule(mlir: str, entry: str = "") -> ShapeRule:
    """The rule giving the result shapes of ``entry`` of the MLIR module ``mlir`` (a trace's
    module, or a compiled kernel's ``kernel.mlir["input"]``) from its arguments' shapes.

    Raises:
        ValueError: a result's size depends on the arguments' values (``np.nonzero``,
            ``x[mask]``), naming the result, the dim and the operation with its source line;
            or the module does not parse, or has no such entry.
    """
    nodes, results = _dlbridge.result_shapes(mlir, entry)
    return ShapeRule(nodes, results)
