"""The PyTorch front door: dlbridge functions as ``torch.library`` operators.

``custom_op("ns::name", f)`` registers a ``@dlbridge.jit`` function or a ``dlbridge.compile()``d
``Kernel`` as the operator ``torch.ops.ns.name``, through ``torch.library.Library``'s
``define``/``impl`` (the cheap path): CPU and CUDA implementations that call ``f`` zero-copy (a
CUDA call runs on PyTorch's current stream, which dlbridge's dispatcher takes from PyTorch's DLPack
exchange API), a fake implementation that computes the results' shapes from the traced shape
relations (``dlbridge._shape_rules``, symbolic sizes included) and their dtypes from the trace, and
``Tensor(a!)`` annotations on the parameters ``f`` writes. The operator works in eager mode, under
``torch.compile`` (no graph break) and through ``torch.export``; a backward makes it
differentiable (``torch.library.register_autograd``).

A plain ``@dlbridge.jit`` function needs none of this: once this module is imported (dlbridge
imports it when ``torch._dynamo`` is, see ``dlbridge._torch_hook``), Dynamo puts calls to jitted
functions into its graph as they are, and when a call then sees FakeTensors or FunctionalTensors
(Dynamo's and AOTAutograd's tracing, ``torch.export``) the dispatcher hands it to :func:`route`,
which calls an operator registered for it under an automatic name, ``torch.ops.dlbridge.<name>_<n>``.

Importing this module imports PyTorch; ``import dlbridge`` does not.
"""

from __future__ import annotations

import atexit
import functools
import inspect
import re
import sys
import threading
import typing
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Union

import torch

from . import _api
from ._api import JitFunction
from ._dlbridge import Kernel

__all__ = ["CustomOp", "custom_op", "route"]

#: PyTorch's dtypes dlbridge takes, by their NumPy names (what traces and signatures use).
_DTYPES: dict[torch.dtype, str] = {
    torch.bool: "bool", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
    torch.int64: "int64", torch.uint8: "uint8", torch.uint16: "uint16", torch.uint32: "uint32",
    torch.uint64: "uint64", torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.float32: "float32", torch.float64: "float64", torch.complex64: "complex64",
    torch.complex128: "complex128",
}
_TORCH_DTYPES = {name: dtype for dtype, name in _DTYPES.items()}
#: DLPack device types of the devices dlbridge runs on.
_DEVICE_TYPES = {"cpu": 1, "cuda": 2}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: schema types of scalar parameters, by the Python type annotating or defaulting them
_SCALAR_TYPES: dict[type, str] = {bool: "bool", int: "SymInt", float: "float"}

Function = Union[JitFunction, Kernel]


# --------------------------------------------------------------------------------------------------
# Parameters and schemas


@dataclass(frozen=True)
class _Param:
    """One operator parameter: its name, schema type (``Tensor``, ``float``, ``SymInt``,
    ``bool``), whether the function writes it, and its default (scalars only)."""

    name: str
    kind: str
    mutable: bool = False
    default: Any = inspect.Parameter.empty

    def schema(self, alias: str) -> str:
        """This parameter as a schema argument; ``alias`` names a written tensor's alias set."""
        kind = f"Tensor({alias}!)" if self.mutable else self.kind
        if self.default is inspect.Parameter.empty:
            return f"{kind} {self.name}"
        return f"{kind} {self.name}={self.default!r}"


def _schema(params: Sequence[_Param], num_results: int) -> str:
    """The operator schema (without its name): ``(Tensor x, float a) -> Tensor``."""
    aliases = iter("abcdefghijklmnopqrstuvwxyz")
    args = ", ".join(p.schema(next(aliases) if p.mutable else "") for p in params)
    results = "()" if num_results == 0 else "Tensor" if num_results == 1 else \
        "(" + ", ".join(["Tensor"] * num_results) + ")"
    return f"({args}) -> {results}"


def _split_name(name: object) -> tuple[str, str]:
    """``"ns::name"`` as its namespace and name.

    Raises:
        ValueError: anything else, naming it.
    """
    if isinstance(name, str) and name.count("::") == 1:
        namespace, op = name.split("::")
        if _NAME.match(namespace) and _NAME.match(op):
            return namespace, op
    raise ValueError(f"custom_op(): name: expected 'namespace::name' with identifiers on both sides, got {name!r}")


def _annotation_kind(annotation: Any) -> str | None:
    """The scalar schema type an annotation names (``float``, ``int``, ``bool`` or their
    names as strings), else None: a tensor."""
    if isinstance(annotation, str):
        annotation = {"float": float, "int": int, "bool": bool}.get(annotation.strip(), annotation)
    return _SCALAR_TYPES.get(annotation) if isinstance(annotation, type) else None


def _return_count(annotation: Any) -> tuple[int, bool] | None:
    """How many results a return annotation declares and whether it is a tuple; None when
    there is none. ``None`` is no result, ``tuple[A, B]`` two, anything else one."""
    if annotation is inspect.Signature.empty:
        return None
    if annotation is None or annotation is type(None) or annotation == "None":
        return 0, False
    text = annotation.replace(" ", "") if isinstance(annotation, str) else ""
    if typing.get_origin(annotation) is list or text.startswith(("list[", "List[", "typing.List[")):
        raise TypeError("custom_op(): a list return annotation does not say how many results there are: "
                        "annotate tuple[Tensor, Tensor] (the operator returns a tuple)")
    if isinstance(annotation, str):
        match = re.match(r"^(?:typing\.)?(?:tuple|Tuple)\[(.*)\]$", text)
        if not match:
            return 1, False
        depth, count = 0, 1
        for char in match.group(1):
            depth += char == "["
            depth -= char == "]"
            count += char == "," and depth == 0
        return count, True
    if typing.get_origin(annotation) is tuple:
        items = typing.get_args(annotation)
        if Ellipsis in items:
            raise TypeError("custom_op(): a tuple[Tensor, ...] return annotation does not say how many results "
                            "there are: write each, tuple[Tensor, Tensor]")
        return len(items), True
    return 1, False


def _python_params(fn: JitFunction, statics: Mapping[str, Any]) -> tuple[list[_Param], list[str], Any]:
    """The operator parameters of a jitted function from its Python signature (annotations and
    defaults give scalars' types; the others are tensors), the names of its static parameters,
    and its return annotation.

    Raises:
        TypeError: ``*args``/``**kwargs``, or a static parameter with no value to bake.
    """
    signature = inspect.signature(fn.__wrapped__)
    try:
        hints = typing.get_type_hints(fn.__wrapped__)
    except Exception:  # unresolvable string annotations: read them as written
        hints = dict(getattr(fn.__wrapped__, "__annotations__", {}))
    static_names = list(getattr(fn, "_static_names", ()))
    params: list[_Param] = []
    for p in signature.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise TypeError(f"custom_op(): {fn.__name__}(): parameter '{p.name}': an operator takes named "
                            "positional parameters only, not *args, **kwargs or keyword-only ones")
        if p.name in static_names:
            if p.name not in statics and p.default is p.empty:
                raise TypeError(f"custom_op(): {fn.__name__}(): parameter '{p.name}' is static: give its "
                                f"value with static_args={{'{p.name}': ...}}; it is baked into the operator")
            continue
        kind = _annotation_kind(hints.get(p.name, p.empty))
        if kind is None and p.name not in hints and type(p.default) in _SCALAR_TYPES:
            kind = _SCALAR_TYPES[type(p.default)]
        default = p.default if kind is not None else p.empty
        params.append(_Param(p.name, kind or "Tensor", default=default))
    unknown = sorted(set(statics) - set(static_names))
    if unknown:
        raise TypeError(f"custom_op(): static_args: {unknown[0]!r} is not a static parameter of "
                        f"{fn.__name__}() (its static parameters: {static_names})")
    return params, static_names, hints.get("return", signature.return_annotation)


def _kernel_params(kernel: Kernel) -> tuple[list[_Param], int]:
    """The operator parameters and result count of a compiled kernel, from its signature:
    ``read_write`` tensors are written; scalar dtypes give float, SymInt or bool."""
    params = []
    for arg in kernel.signature["args"]:
        if arg["kind"] == "scalar":
            dtype = arg["dtype"]
            kind = "bool" if dtype == "bool" else "float" if dtype.startswith(("float", "bfloat")) else "SymInt"
            params.append(_Param(arg["name"], kind))
        else:
            params.append(_Param(arg["name"], "Tensor", mutable=arg.get("access") == "read_write"))
    return params, len(kernel.signature["results"])


def _schema_params(text: str, qualname: str) -> tuple[list[_Param], int]:
    """The parameters and result count of a schema the user wrote.

    Raises:
        ValueError: a schema PyTorch cannot parse, or types other than Tensor, float, int,
            SymInt and bool.
    """
    try:
        parsed = torch._C.parse_schema(qualname + text)
    except RuntimeError as error:
        raise ValueError(f"custom_op(): schema: {error}") from None
    params = []
    for arg in parsed.arguments:
        kind = {"Tensor": "Tensor", "float": "float", "int": "SymInt", "SymInt": "SymInt",
                "bool": "bool"}.get(str(arg.type))
        if kind is None:
            raise ValueError(f"custom_op(): schema: argument '{arg.name}': type {arg.type} is not one of "
                             "Tensor, float, int, SymInt, bool")
        default = arg.default_value if arg.has_default_value() else inspect.Parameter.empty
        mutable = bool(arg.alias_info is not None and arg.alias_info.is_write)
        params.append(_Param(arg.name, kind, mutable, default))
    for ret in parsed.returns:
        if str(ret.type) != "Tensor" or ret.alias_info is not None:
            raise ValueError(f"custom_op(): schema: results must be new Tensors, got {ret.type}")
    return params, len(parsed.returns)


# --------------------------------------------------------------------------------------------------
# What an operator calls


@dataclass
class _Traced:
    """What the fake implementation needs of one specialisation: the results' dtypes, the
    arguments written, how the Python function structures its results, and the shape rule."""

    dtypes: list[str]
    written: list[str]
    tree: Any
    mlir: str
    entry: str


@functools.lru_cache(maxsize=256)
def _shape_rule(mlir: str, entry: str) -> Any:
    from ._shape_rules import shape_rule

    return shape_rule(mlir, entry)


def _size_ops(args: Sequence[Any]) -> Any:
    """Size operations for shape rules: PyTorch's symbolic ones when a size is a SymInt."""
    symbolic = any(isinstance(a, torch.SymInt) for a in args) or any(
        isinstance(d, torch.SymInt) for a in args if isinstance(a, torch.Tensor) for d in a.shape)
    if not symbolic:
        return None
    from ._shape_rules import SizeOps

    return SizeOps(min=torch.sym_min, max=torch.sym_max, select=torch.sym_ite)


def _unit_dim(size: Any) -> bool:
    """Whether a size is 1 for certain: a SymInt that may be 1 is taken as not (Dynamo
    specialises sizes 0 and 1, so a backed SymInt is never 1)."""
    if isinstance(size, int):
        return size == 1
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return bool(statically_known_true(size == 1))


def _spec_of(value: Any, where: str) -> tuple[Any, ...] | None:
    """The dispatcher's spec of one dynamic argument (see JitFunction.specs), for real, fake
    and functional tensors alike; None for a value no operator parameter takes.

    Raises:
        TypeError: a tensor of a dtype dlbridge does not take, naming the argument.
    """
    if isinstance(value, torch.Tensor):
        dtype = _DTYPES.get(value.dtype)
        if dtype is None:
            raise TypeError(f"{where}: dtype {value.dtype} is not supported by dlbridge "
                            f"(it takes {', '.join(sorted(_TORCH_DTYPES))})")
        device = value.device
        device_id = device.index if device.index is not None else 0
        return ("array", dtype, value.dim(), tuple(_unit_dim(d) for d in value.shape),
                (_DEVICE_TYPES.get(device.type, 0), device_id))
    if isinstance(value, (bool, torch.SymBool)):
        return ("scalar", "bool", None)
    if isinstance(value, (int, torch.SymInt)):
        return ("scalar", "int", None)
    if isinstance(value, (float, torch.SymFloat)):
        return ("scalar", "float", None)
    return None


def _hints(args: Sequence[Any]) -> tuple[Any, ...]:
    """What a trace needs where the function uses a size or an int as a number (see
    ``dlbridge._trace.trace``): each tensor's shape and each int's or bool's value, symbolic ones
    included (the trace then turns them into ints, and PyTorch guards on their values)."""
    return tuple(tuple(a.shape) if isinstance(a, torch.Tensor)
                 else a if isinstance(a, (bool, int, torch.SymInt, torch.SymBool)) else None for a in args)


def _name_of(fn: Function) -> str:
    """A jitted function's name, or a kernel's entry's."""
    return fn.__name__ if isinstance(fn, JitFunction) else str(fn.signature["name"])


def _leaves(tree: Any, value: Any, flat: list[Any]) -> None:
    """Puts the results in ``value``, structured as ``tree`` says, at their indices in ``flat``."""
    if tree is None:
        return
    if isinstance(tree, (tuple, list)):
        for node, item in zip(tree, value):
            _leaves(node, item, flat)
        return
    flat[tree] = value


class _Target:
    """What an operator runs: a jitted function (with its static arguments baked in) or a
    compiled kernel, behind one interface."""

    def __init__(self, fn: Function, params: list[_Param], statics: Mapping[str, Any], static_names: Sequence[str],
                 num_results: int) -> None:
        self.fn = fn
        self.params = params
        self.num_results = num_results
        self.jit = fn if isinstance(fn, JitFunction) else None
        self.name = _name_of(fn)
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
            self._kernel_traced = _Traced(
                [r["dtype"] for r in signature["results"]],
                [p.name for p in params if p.mutable], None, fn.mlir["input"], signature["name"])
            self.scalar_results = [(i, _TORCH_DTYPES[r["dtype"]]) for i, r in enumerate(signature["results"])
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
            spec = _spec_of(value, f"{where}: argument '{param.name}'")
            if spec is None or (spec[0] == "array") != (param.kind == "Tensor"):
                raise TypeError(f"{where}: argument '{param.name}': expected {param.kind}, got {type(value).__name__}")
            specs.append(spec)
        if not self.statics:
            return tuple(specs)
        given = dict(zip((p.name for p in self.params), specs))
        return tuple(("static", self.statics[n]) if n in self.statics else given[n] for n in self.order)

    def traced(self, specs: tuple[Any, ...], args: Sequence[Any]) -> _Traced:
        """The trace of the specialisation ``specs`` and the operator's arguments ``args``
        select (the kernel's, for a kernel)."""
        if self.jit is None:
            return self._kernel_traced
        result = self.jit._trace(specs, _hints(self.full_args(args)))
        return _Traced([r.dtype for r in result.results], list(result.written_args), result.result_tree,
                       result.mlir, result.entry)

    def check(self, args: Sequence[Any], where: str) -> tuple[tuple[Any, ...], _Traced]:
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
            if device not in _DEVICE_TYPES or (self.device is not None and device != self.device):
                expected = self.device or "cpu or cuda"
                raise ValueError(f"{where}: argument '{param.name}': a tensor on {value.device}, but "
                                 f"{self.name} was compiled for {expected}")
        specs = self.specs(args, where)
        if isinstance(self.fn, Kernel):
            for arg, param, value in zip(self.fn.signature["args"], self.params, args):
                if isinstance(value, torch.Tensor) and _DTYPES[value.dtype] != arg["dtype"]:
                    raise TypeError(f"{where}: argument '{param.name}': expected {arg['dtype']}, "
                                    f"got {_DTYPES[value.dtype]}")
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
        _leaves(self.jit._trace(self.jit.specs(*full), self.jit.hints(*full)).result_tree, out, flat)
        return flat[0] if count == 1 else tuple(flat)


# --------------------------------------------------------------------------------------------------
# Registration


_LIBRARIES: dict[str, torch.library.Library] = {}
#: what each of dlbridge's operators calls, by qualified name
_TARGETS: dict[str, _Target] = {}
_LOCK = threading.RLock()


@atexit.register
def _destroy_libraries() -> None:
    """Unregisters dlbridge's operators at exit, so that PyTorch's dispatcher lets go of the
    jitted functions they call before the extension checks for leaked objects (Dynamo's
    caches, which hold the graphs that call them, are emptied too)."""
    if "torch._dynamo" in sys.modules:
        torch._dynamo.reset()
    # Inductor's NumPy-keyword pass caches every callable it met in a plain dict (PyTorch 2.15)
    misc = sys.modules.get("torch._inductor.fx_passes.misc_patterns")
    cache = getattr(getattr(misc, "numpy_compat_normalization", None), "cache", None)
    if isinstance(cache, dict):
        for key in [k for k in cache if isinstance(k, JitFunction)]:
            del cache[key]
    with _LOCK:
        for lib in _LIBRARIES.values():
            lib._destroy()
        _LIBRARIES.clear()
        _TARGETS.clear()
        _AUTO.ops.clear()


def _library(namespace: str) -> torch.library.Library:
    with _LOCK:
        lib = _LIBRARIES.get(namespace)
        if lib is None:
            lib = _LIBRARIES[namespace] = torch.library.Library(namespace, "FRAGMENT")
        return lib


def _register(qualname: str, target: _Target) -> str:
    """Defines ``qualname`` with ``target``'s schema and registers its CPU, CUDA and fake
    implementations; returns the schema.

    Raises:
        ValueError: an operator of that name exists.
    """
    namespace, name = _split_name(qualname)
    schema = _schema(target.params, target.num_results)
    lib = _library(namespace)
    if hasattr(getattr(torch.ops, namespace), name):
        raise ValueError(f"custom_op(): an operator named {qualname} is already registered")
    lib.define(name + schema)
    _TARGETS[qualname] = target

    # The implementations find the target by name: PyTorch's registries may outlive the
    # library, _TARGETS is emptied at exit.
    def run(*args: Any) -> Any:
        target = _TARGETS[qualname]
        try:
            return target(args)
        except (TypeError, ValueError):
            target.check(args, qualname)  # names the argument where dlbridge's own error may not
            raise

    def refuse(*args: Any) -> Any:
        _TARGETS[qualname].check(args, qualname)  # a device the function was not compiled for
        return _TARGETS[qualname](args)

    def fake(*args: Any) -> Any:
        target = _TARGETS[qualname]
        _, traced = target.check(args, qualname)
        try:
            rule = _shape_rule(traced.mlir, traced.entry)
        except ValueError as error:
            raise ValueError(f"{qualname}: {target.name}(): {error}") from None
        shapes = rule(list(args), _size_ops(args))
        device = next(a.device for a in args if isinstance(a, torch.Tensor))
        outs = tuple(torch.empty(shape, dtype=_TORCH_DTYPES[dtype], device=device)
                     for shape, dtype in zip(shapes, traced.dtypes))
        return None if not outs else outs[0] if len(outs) == 1 else outs

    for key in ("CPU", "CUDA"):
        lib.impl(name, run if target.device in (None, key.lower()) else refuse, key)
    torch.library.register_fake(qualname, fake, lib=lib)
    return schema


class CustomOp:
    """A dlbridge function registered as a PyTorch operator by :func:`custom_op`.

    Calling it calls the operator (``torch.ops.<ns>.<name>``), which Dynamo and
    ``torch.export`` capture whole.

    Attributes:
        name: ``"ns::name"``.
        schema: the operator's schema, e.g. ``"(Tensor x, float alpha) -> Tensor"``.
        function: the jitted function or kernel the operator runs.
        op: the operator, ``torch.ops.<ns>.<name>``.
    """

    def __init__(self, name: str, target: _Target, schema: str, one_tuple: bool) -> None:
        namespace, op = _split_name(name)
        self.name = name
        self.schema = schema
        self.function = target.fn
        self.op = getattr(getattr(torch.ops, namespace), op)
        self._target = target
        self._one_tuple = one_tuple
        functools.update_wrapper(self, target.fn, updated=())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = self.op(*args, **kwargs)
        return (out,) if self._one_tuple else out

    def __repr__(self) -> str:
        return f"<dlbridge.torch.CustomOp {self.name}{self.schema}>"

    def register_autograd(self, backward: Function, *, static_args: Mapping[str, Any] | None = None) -> None:
        """Makes the operator differentiable with ``backward``, another jitted function or
        kernel, registered as the operator ``<name>_backward``.

        ``backward`` takes the forward's arguments followed by the gradient of each of its
        results, and returns the gradient of each Tensor parameter, in order (one array when
        there is one).

        Raises:
            TypeError: ``backward`` is not a jitted function or kernel, or takes another
                number of parameters.
            ValueError: the operator writes its arguments (PyTorch differentiates functional
                operators only).
        """
        _register_autograd(self, backward, dict(static_args or {}))


def _target_for(name: str, fn: object, mutates_args: Sequence[str] | None, schema: str | None,
                static_args: Mapping[str, Any]) -> tuple[_Target, bool]:
    """The target of ``custom_op(name, fn, ...)`` and whether the function returns a 1-tuple."""
    if isinstance(fn, Kernel):
        if static_args:
            raise TypeError("custom_op(): static_args: a compiled kernel has no static parameters")
        params, count = _kernel_params(fn)
        if schema is not None:
            declared, declared_count = _schema_params(schema, name)
            if [(p.name, p.kind, p.mutable) for p in declared] != [(p.name, p.kind, p.mutable) for p in params] \
                    or declared_count != count:
                raise ValueError(f"custom_op(): schema: {schema!r} does not match the kernel's signature "
                                 f"{_schema(params, count)!r}")
            params = declared
        written = {p.name for p in params if p.mutable}
        for arg in mutates_args or ():
            if arg not in written:
                raise ValueError(f"custom_op(): mutates_args: the kernel does not write {arg!r} "
                                 f"(it writes {sorted(written)})")
        _shape_rule(fn.mlir["input"], fn.signature["name"])  # data-dependent result sizes: ValueError now
        return _Target(fn, params, {}, (), count), False
    if not isinstance(fn, JitFunction):
        raise TypeError(f"custom_op(): expected a @dlbridge.jit function or a dlbridge.compile()d Kernel, "
                        f"got {type(fn).__name__}")
    params, static_names, returns = _python_params(fn, static_args)
    if schema is not None:
        declared, count = _schema_params(schema, name)
        if [p.name for p in declared] != [p.name for p in params]:
            raise ValueError(f"custom_op(): schema: its parameters {[p.name for p in declared]} are not "
                             f"{fn.__name__}()'s {[p.name for p in params]}")
        params = declared
        one_tuple = False
    else:
        declared_results = _return_count(returns)
        if declared_results is None:
            raise TypeError(f"custom_op(): {fn.__name__}() has no return annotation, so the number of its "
                            "results is unknown: annotate it (-> Tensor, -> tuple[Tensor, Tensor], -> None) "
                            "or give schema=")
        count, is_tuple = declared_results
        one_tuple = is_tuple and count == 1
    names = {p.name: p for p in params}
    for arg in mutates_args or ():
        if arg not in names or names[arg].kind != "Tensor":
            raise ValueError(f"custom_op(): mutates_args: {arg!r} is not a Tensor parameter of {fn.__name__}()")
    params = [_Param(p.name, p.kind, p.mutable or p.name in (mutates_args or ()), p.default) for p in params]
    if not any(p.kind == "Tensor" for p in params):
        raise TypeError(f"custom_op(): {fn.__name__}() has no Tensor parameter: PyTorch picks an operator's "
                        "device from its tensors")
    return _Target(fn, params, static_args, static_names, count), one_tuple


#: the operator custom_op registered for a jitted function, which route() calls for it (weakly
#: held both ways: the operator refers to the function)
_EXPLICIT: weakref.WeakKeyDictionary[JitFunction, weakref.ref[CustomOp]] = weakref.WeakKeyDictionary()


def custom_op(
    name: str,
    fn: Function | None = None,
    /,
    *,
    mutates_args: Sequence[str] | None = None,
    schema: str | None = None,
    static_args: Mapping[str, Any] | None = None,
    backward: Function | None = None,
) -> CustomOp | Callable[[Function], CustomOp]:
    """Registers a dlbridge function as the PyTorch operator ``torch.ops.<ns>.<name>``.

    Use as ``custom_op("mylib::scale", f)`` or as a decorator over ``@dlbridge.jit``, as
    ``torch.library.custom_op``. For a jitted function, parameters annotated (or defaulted)
    ``float``, ``int`` or ``bool`` become scalars (``int`` as ``SymInt``), the others tensors; the
    return annotation says how many results there are (``-> Tensor``, ``-> tuple[Tensor,
    Tensor]``, ``-> None``) unless ``schema`` is given; static parameters are baked into the
    operator (``static_args`` or their defaults). A kernel's signature says all of it, including
    which tensors it writes.

    Args:
        name: ``"namespace::name"``.
        fn: a ``@dlbridge.jit`` function or a ``dlbridge.compile()``d kernel.
        mutates_args: the tensor parameters ``fn`` writes in place (``Tensor(a!)``); a call that
            writes another is refused.
        schema: the schema, e.g. ``"(Tensor x, float alpha) -> Tensor"``, in place of the
            annotations.
        static_args: values of ``fn``'s static parameters, baked into the operator.
        backward: see :meth:`CustomOp.register_autograd`.

    Returns:
        The :class:`CustomOp` (or, without ``fn``, the decorator making it).

    Raises:
        ValueError: a bad name, a name taken, a schema or ``mutates_args`` that does not fit
            ``fn``, a kernel whose result sizes depend on its arguments' values.
        TypeError: ``fn`` is neither a jitted function nor a kernel, takes ``*args``, has a
            static parameter without a value or no tensor parameter, or its results are not
            declared.
    """
    _split_name(name)

    def make(function: Function) -> CustomOp:
        target, one_tuple = _target_for(name, function, mutates_args, schema, dict(static_args or {}))
        op = CustomOp(name, target, _register(name, target), one_tuple)
        if isinstance(function, JitFunction) and not target.statics:
            _EXPLICIT[function] = weakref.ref(op)
        if backward is not None:
            op.register_autograd(backward)
        return op

    return make if fn is None else make(fn)


def _register_autograd(op: CustomOp, backward: Function, static_args: dict[str, Any]) -> None:
    forward = op._target
    if any(p.mutable for p in forward.params):
        raise ValueError(f"register_autograd(): {op.name} writes its arguments; PyTorch differentiates "
                         "functional operators only")
    tensor_params = [p for p in forward.params if p.kind == "Tensor"]
    expected = len(forward.params) + forward.num_results
    if isinstance(backward, Kernel):
        names = [a["name"] for a in backward.signature["args"]]
        statics: list[str] = []
    elif isinstance(backward, JitFunction):
        own, statics, _ = _python_params(backward, static_args)
        names = [p.name for p in own]
    else:
        raise TypeError(f"register_autograd(): backward: expected a @dlbridge.jit function or a compiled "
                        f"Kernel, got {type(backward).__name__}")
    if len(names) != expected:
        raise TypeError(f"register_autograd(): backward {_name_of(backward)}() takes {len(names)} parameters; "
                        f"it must take {op.name}'s {len(forward.params)} arguments and the gradients of its "
                        f"{forward.num_results} result(s): {expected}")
    params = [_Param(n, p.kind) for n, p in zip(names, forward.params)]
    params += [_Param(n, "Tensor") for n in names[len(forward.params):]]
    target = _Target(backward, params, static_args, statics, len(tensor_params))
    backward_name = op.name + "_backward"
    _register(backward_name, target)
    namespace, name = _split_name(backward_name)
    backward_op = getattr(getattr(torch.ops, namespace), name)
    kinds = [p.kind for p in forward.params]

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.save_for_backward(*(x for x, kind in zip(inputs, kinds) if kind == "Tensor"))
        ctx.scalars = [x for x, kind in zip(inputs, kinds) if kind != "Tensor"]

    def run_backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        tensors, scalars = iter(ctx.saved_tensors), iter(ctx.scalars)
        inputs = [next(tensors) if kind == "Tensor" else next(scalars) for kind in kinds]
        out = backward_op(*inputs, *grads)
        results = iter((out,) if len(tensor_params) == 1 else out)
        return tuple(next(results) if kind == "Tensor" else None for kind in kinds)

    torch.library.register_autograd(op.name, run_backward, setup_context=setup_context,
                                    lib=_library(_split_name(op.name)[0]))


# --------------------------------------------------------------------------------------------------
# Jitted functions inside torch.compile and torch.export


@dataclass
class _AutoOps:
    """The operators registered for jitted functions called on FakeTensors, by function and
    by the kinds of call that need different schemas."""

    ops: weakref.WeakKeyDictionary[JitFunction, dict[tuple[Any, ...], tuple[Any, Any]]] = field(
        default_factory=weakref.WeakKeyDictionary)
    counts: dict[str, int] = field(default_factory=dict)


_AUTO = _AutoOps()


def _auto_op(fn: JitFunction, names: list[str], statics: dict[str, Any], specs: tuple[Any, ...],
             full_args: list[Any]) -> tuple[Any, Any]:
    """The automatic operator for calls of ``fn`` like this one, and the structure of its
    results; registers it (``dlbridge::<name>_<n>``) on first use."""
    traced = fn._trace(specs, _hints(full_args))
    kinds = tuple("Tensor" if s[0] == "array" else {"int": "SymInt"}.get(s[1], s[1])
                  for s in specs if s[0] != "static")
    key = (kinds, tuple(_api._dlbridge.static_key(v) for v in statics.values()),
           tuple(traced.written_args), traced.num_outputs)
    with _LOCK:
        table = _AUTO.ops.setdefault(fn, {})
        found = table.get(key)
        if found is not None:
            return found
        base = re.sub(r"\W", "_", fn.__name__) or "fn"
        number = _AUTO.counts.get(base, 0)
        _AUTO.counts[base] = number + 1
        params = [_Param(n, k, n in traced.written_args) for n, k in zip(names, kinds)]
        static_names = list(statics)
        target = _Target(fn, params, statics, static_names, traced.num_outputs)
        qualname = f"dlbridge::{base}_{number}"
        _register(qualname, target)
        op = getattr(torch.ops.dlbridge, f"{base}_{number}")
        table[key] = found = (op, _api._result_builder(traced.result_tree, traced.num_outputs))
        return found


def route(fn: JitFunction, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Calls a jitted function whose arguments are FakeTensors or FunctionalTensors (Dynamo,
    AOTAutograd, ``torch.export``) through its operator: the one :func:`custom_op` registered
    for it, else an automatic ``torch.ops.dlbridge.<name>_<n>``. Returns the call's results as
    the function structures them, or NotImplemented when the arguments do not bind to its
    parameters or hold no tensor.

    Raises:
        TypeError: an argument no operator takes (a NumPy array, a list...), naming it.
    """
    explicit_ref = _EXPLICIT.get(fn)
    explicit = explicit_ref() if explicit_ref is not None else None
    if explicit is not None:
        return explicit(*args, **kwargs)
    try:
        bound = inspect.signature(fn.__wrapped__).bind(*args, **kwargs)
    except TypeError:
        return NotImplemented
    bound.apply_defaults()
    static_names = set(getattr(fn, "_static_names", ()))
    names: list[str] = []
    values: list[Any] = []
    statics: dict[str, Any] = {}
    specs: list[tuple[Any, ...]] = []
    for name, value in bound.arguments.items():
        if name in static_names:
            statics[name] = value
            specs.append(("static", value))
            continue
        spec = _spec_of(value, f"{fn.__name__}(): argument '{name}'")
        if spec is None:
            raise TypeError(f"{fn.__name__}(): argument '{name}': {type(value).__name__} values cannot be passed to "
                            "a jitted function PyTorch is tracing (torch.compile, torch.export): it takes tensors, "
                            "ints, floats and bools, or static arguments")
        names.append(name)
        values.append(value)
        specs.append(spec)
    if not any(s[0] == "array" for s in specs):
        return NotImplemented
    op, rebuild = _auto_op(fn, names, statics, tuple(specs), list(bound.arguments.values()))
    out = op(*values)
    return out if rebuild is None else rebuild(out)


_ALLOWED: weakref.WeakSet[JitFunction] = weakref.WeakSet()


def _allow_in_graph(fn: JitFunction) -> None:
    """Lets Dynamo put calls to ``fn`` in its graph as they are (see :func:`route`)."""
    with _LOCK:
        if fn not in _ALLOWED:
            _ALLOWED.add(fn)
            torch.compiler.allow_in_graph(fn)


def _allow_all() -> None:
    """Allows every jitted function, and every one made from now on, in Dynamo's graph."""
    for fn in list(_api._LIVE_FUNCTIONS):
        _allow_in_graph(fn)
    if _allow_in_graph not in _api._NEW_FUNCTION_HOOKS:
        _api._NEW_FUNCTION_HOOKS.append(_allow_in_graph)
