"""What a dlbridge operator calls, for ``dlbridge.torch``: a jitted function (its static
arguments baked in) or a compiled kernel, with the checks, specs, traces and shape rules its
implementations and its fake implementation need, for real, fake and functional tensors alike.
Only ``dlbridge.torch`` imports this (it imports PyTorch).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

import torch

from ._api import JitFunction
from ._dlbridge import Kernel
from ._torch_schema import Param
from ._trace import place_results

#: PyTorch's dtypes dlbridge takes, by their NumPy names (what traces and signatures use).
DTYPES: dict[torch.dtype, str] = {
    torch.bool: "bool", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
    torch.int64: "int64", torch.uint8: "uint8", torch.uint16: "uint16", torch.uint32: "uint32",
    torch.uint64: "uint64", torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.float32: "float32", torch.float64: "float64", torch.complex64: "complex64",
    torch.complex128: "complex128",
}
TORCH_DTYPES = {name: dtype for dtype, name in DTYPES.items()}
#: DLPack device types of the devices dlbridge runs on.
DEVICE_TYPES = {"cpu": 1, "cuda": 2}

Function = Union[JitFunction, Kernel]


@dataclass
class Traced:
    """What the fake implementation needs of one specialisation: the results' dtypes, the
    arguments written, how the Python function structures its results, and the shape rule."""

    dtypes: list[str]
    written: list[str]
    tree: Any
    mlir: str
    entry: str


@functools.lru_cache(maxsize=256)
def shape_rule_of(mlir: str, entry: str) -> Any:
    from ._shape_rules import shape_rule

    return shape_rule(mlir, entry)


def size_ops(args: Sequence[Any]) -> Any:
    """Size operations for shape rules: PyTorch's symbolic ones when a size is a SymInt."""
    symbolic = any(isinstance(a, torch.SymInt) for a in args) or any(
        isinstance(d, torch.SymInt) for a in args if isinstance(a, torch.Tensor) for d in a.shape)
    if not symbolic:
        return None
    from ._shape_rules import SizeOps

    return SizeOps(min=torch.sym_min, max=torch.sym_max, select=torch.sym_ite)


def unit_dim(size: Any) -> bool:
    """Whether a size is 1 for certain: a SymInt that may be 1 is taken as not (Dynamo
    specialises sizes 0 and 1, so a backed SymInt is never 1)."""
    if isinstance(size, int):
        return size == 1
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return bool(statically_known_true(size == 1))


def spec_of(value: Any, where: str) -> tuple[Any, ...] | None:
    """The dispatcher's spec of one dynamic argument (see JitFunction.specs), for real, fake
    and functional tensors alike; None for a value no operator parameter takes.

    Raises:
        TypeError: a tensor of a dtype dlbridge does not take, naming the argument.
    """
    if isinstance(value, torch.Tensor):
        dtype = DTYPES.get(value.dtype)
        if dtype is None:
            raise TypeError(f"{where}: dtype {value.dtype} is not supported by dlbridge "
                            f"(it takes {', '.join(sorted(TORCH_DTYPES))})")
        device = value.device
        device_id = device.index if device.index is not None else 0
        return ("array", dtype, value.dim(), tuple(unit_dim(d) for d in value.shape),
                (DEVICE_TYPES.get(device.type, 0), device_id))
    if isinstance(value, (bool, torch.SymBool)):
        return ("scalar", "bool", None)
    if isinstance(value, (int, torch.SymInt)):
        return ("scalar", "int", None)
    if isinstance(value, (float, torch.SymFloat)):
        return ("scalar", "float", None)
    return None


def hints_of(args: Sequence[Any]) -> tuple[Any, ...]:
    """What a trace needs where the function uses a size or an int as a number (see
    ``dlbridge._trace.trace``): each tensor's shape and each int's or bool's value, symbolic ones
    included (the trace then turns them into ints, and PyTorch guards on their values)."""
    return tuple(tuple(a.shape) if isinstance(a, torch.Tensor)
                 else a if isinstance(a, (bool, int, torch.SymInt, torch.SymBool)) else None for a in args)


def name_of(fn: Function) -> str:
    """A jitted function's name, or a kernel's entry's."""
    return fn.__name__ if isinstance(fn, JitFunction) else str(fn.signature["name"])


class Target:
    """What an operator runs: a jitted function (with its static arguments baked in) or a
    compiled kernel, behind one interface."""

    def __init__(self, fn: Function, params: list[Param], statics: Mapping[str, Any], static_names: Sequence[str],
                 num_results: int) -> None:
        self.fn = fn
        self.params = params
        self.num_results = num_results
        self.jit = fn if isinstance(fn, JitFunction) else None
        self.name = name_of(fn)
        #: the kernel's scalar results (Python numbers), which the operator returns as 0-d tensors
        self.scalar_results: list[tuple[int, torch.dtype]] = []
        self.device: str | None
        if isinstance(fn, JitFunction):
            parameters = inspect.signature(fn.__wrapped__).parameters
            self.statics = {n: statics.get(n, parameters[n].default) for n in static_names}
            self.order = list(parameters)
            self.device = fn._target
        else:
            signature = fn.signature
            self.statics = {}
            self.order = [p.name for p in params]
            self.device = signature["device"]
            self._kernel_traced = Traced(
                [r["dtype"] for r in signature["results"]],
                [p.name for p in params if p.mutable], None, fn.mlir["input"], signature["name"])
            self.scalar_results = [(i, TORCH_DTYPES[r["dtype"]]) for i, r in enumerate(signature["results"])
                                   if r["kind"] == "scalar"]

    def full_args(self, args: Sequence[Any]) -> list[Any]:
        """The function's arguments in order, the static ones included."""
        if not self.statics:
            return list(args)
        given = dict(zip((p.name for p in self.params), args))
        return [self.statics[n] if n in self.statics else given[n] for n in self.order]

    def specs(self, args: Sequence[Any], where: str) -> tuple[Any, ...]:
        """The dispatcher's specs of a call with ``args`` (the operator's arguments)."""
        specs = []
        for param, value in zip(self.params, args):
            spec = spec_of(value, f"{where}: argument '{param.name}'")
            if spec is None or (spec[0] == "array") != (param.kind == "Tensor"):
                raise TypeError(f"{where}: argument '{param.name}': expected {param.kind}, got {type(value).__name__}")
            specs.append(spec)
        if not self.statics:
            return tuple(specs)
        given = dict(zip((p.name for p in self.params), specs))
        return tuple(("static", self.statics[n]) if n in self.statics else given[n] for n in self.order)

    def traced(self, specs: tuple[Any, ...], args: Sequence[Any]) -> Traced:
        """The trace of the specialisation ``specs`` and the operator's arguments ``args``
        select (the kernel's, for a kernel)."""
        if self.jit is None:
            return self._kernel_traced
        result = self.jit._trace(specs, hints_of(self.full_args(args)))
        return Traced([r.dtype for r in result.results], list(result.written_args), result.result_tree,
                       result.mlir, result.entry)

    def check(self, args: Sequence[Any], where: str) -> tuple[tuple[Any, ...], Traced]:
        """Checks a call against what the function and the schema say, naming the argument:
        devices the function was not compiled for, a kernel's dtypes, arguments written that
        the schema does not mark, the number of results.

        Raises:
            TypeError, ValueError: as above.
        """
        for param, value in zip(self.params, args):
            if not isinstance(value, torch.Tensor):
                continue
            device = value.device.type
            if device not in DEVICE_TYPES or (self.device is not None and device != self.device):
                expected = self.device or "cpu or cuda"
                raise ValueError(f"{where}: argument '{param.name}': a tensor on {value.device}, but "
                                 f"{self.name} was compiled for {expected}")
        specs = self.specs(args, where)
        if isinstance(self.fn, Kernel):
            for arg, param, value in zip(self.fn.signature["args"], self.params, args):
                if isinstance(value, torch.Tensor) and DTYPES[value.dtype] != arg["dtype"]:
                    raise TypeError(f"{where}: argument '{param.name}': expected {arg['dtype']}, "
                                    f"got {DTYPES[value.dtype]}")
        traced = self.traced(specs, args)
        marked = {p.name for p in self.params if p.mutable}
        for name in traced.written:
            if name not in marked:
                raise ValueError(f"{where}: {self.name}() writes argument '{name}', which the operator's "
                                 f"schema does not mark as written: add it to mutates_args")
        if len(traced.dtypes) != self.num_results:
            raise ValueError(f"{where}: {self.name}() returns {len(traced.dtypes)} result(s) for these "
                             f"arguments, the operator's schema {self.num_results}")
        return specs, traced

    def _scalars_as_tensors(self, args: Sequence[Any], out: Any) -> Any:
        device = next(a.device for a in args if isinstance(a, torch.Tensor))
        outs = list(out) if self.num_results > 1 else [out]
        for index, dtype in self.scalar_results:
            outs[index] = torch.tensor(outs[index], dtype=dtype, device=device)
        return tuple(outs) if self.num_results > 1 else outs[0]

    def __call__(self, args: Sequence[Any]) -> Any:
        """Runs the function on real tensors; returns its results as the operator does (None,
        one tensor, or a tuple)."""
        out = self.fn(*args) if not self.statics else self.fn(*self.full_args(args))
        count = self.num_results
        if self.scalar_results:
            return self._scalars_as_tensors(args, out)
        if self.jit is None or count == 0:
            return out
        if count == 1 and isinstance(out, torch.Tensor):
            return out
        if isinstance(out, tuple) and len(out) == count and all(isinstance(o, torch.Tensor) for o in out):
            return out if count > 1 else out[0]
        # another structure (lists, nesting, a result returned twice): the trace's tree says
        flat: list[Any] = [None] * count
        full = self.full_args(args)
        place_results(self.jit._trace(self.jit.specs(*full), self.jit.hints(*full)).result_tree, out, flat)
        return flat[0] if count == 1 else tuple(flat)
