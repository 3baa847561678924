"""Operator schemas of dlbridge functions, for ``dlbridge.torch``.

A jitted function's schema comes from its Python signature (annotations and defaults give
scalars' types, the return annotation the number of results) or from a schema the user writes;
a compiled kernel's from its signature. Only ``dlbridge.torch`` imports this (it imports PyTorch).
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from ._api import JitFunction
from ._dlbridge import Kernel

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: schema types of scalar parameters, by the Python type annotating or defaulting them
SCALAR_TYPES: dict[type, str] = {bool: "bool", int: "SymInt", float: "float"}


@dataclass(frozen=True)
class Param:
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


def schema_text(params: Sequence[Param], num_results: int) -> str:
    """The operator schema (without its name): ``(Tensor x, float a) -> Tensor``."""
    aliases = iter("abcdefghijklmnopqrstuvwxyz")
    args = ", ".join(p.schema(next(aliases) if p.mutable else "") for p in params)
    results = "()" if num_results == 0 else "Tensor" if num_results == 1 else \
        "(" + ", ".join(["Tensor"] * num_results) + ")"
    return f"({args}) -> {results}"


def split_name(name: object) -> tuple[str, str]:
    """``"ns::name"`` as its namespace and name.

    Raises:
        ValueError: anything else, naming it.
    """
    if isinstance(name, str) and name.count("::") == 1:
        namespace, op = name.split("::")
        if NAME.match(namespace) and NAME.match(op):
            return namespace, op
    raise ValueError(f"custom_op(): name: expected 'namespace::name' with identifiers on both sides, got {name!r}")


def annotation_kind(annotation: Any) -> str | None:
    """The scalar schema type an annotation names (``float``, ``int``, ``bool`` or their
    names as strings), else None: a tensor."""
    if isinstance(annotation, str):
        annotation = {"float": float, "int": int, "bool": bool}.get(annotation.strip(), annotation)
    return SCALAR_TYPES.get(annotation) if isinstance(annotation, type) else None


def return_count(annotation: Any) -> tuple[int, bool] | None:
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


def python_params(fn: JitFunction, statics: Mapping[str, Any]) -> tuple[list[Param], list[str], Any]:
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
    params: list[Param] = []
    for p in signature.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise TypeError(f"custom_op(): {fn.__name__}(): parameter '{p.name}': an operator takes named "
                            "positional parameters only, not *args, **kwargs or keyword-only ones")
        if p.name in static_names:
            if p.name not in statics and p.default is p.empty:
                raise TypeError(f"custom_op(): {fn.__name__}(): parameter '{p.name}' is static: give its "
                                f"value with static_args={{'{p.name}': ...}}; it is baked into the operator")
            continue
        kind = annotation_kind(hints.get(p.name, p.empty))
        if kind is None and p.name not in hints and type(p.default) in SCALAR_TYPES:
            kind = SCALAR_TYPES[type(p.default)]
        default = p.default if kind is not None else p.empty
        params.append(Param(p.name, kind or "Tensor", default=default))
    unknown = sorted(set(statics) - set(static_names))
    if unknown:
        raise TypeError(f"custom_op(): static_args: {unknown[0]!r} is not a static parameter of "
                        f"{fn.__name__}() (its static parameters: {static_names})")
    return params, static_names, hints.get("return", signature.return_annotation)


def kernel_params(kernel: Kernel) -> tuple[list[Param], int]:
    """The operator parameters and result count of a compiled kernel, from its signature:
    ``read_write`` tensors are written; scalar dtypes give float, SymInt or bool."""
    params = []
    for arg in kernel.signature["args"]:
        if arg["kind"] == "scalar":
            dtype = arg["dtype"]
            kind = "bool" if dtype == "bool" else "float" if dtype.startswith(("float", "bfloat")) else "SymInt"
            params.append(Param(arg["name"], kind))
        else:
            params.append(Param(arg["name"], "Tensor", mutable=arg.get("access") == "read_write"))
    return params, len(kernel.signature["results"])


def schema_params(text: str, qualname: str) -> tuple[list[Param], int]:
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
        params.append(Param(arg.name, kind, mutable, default))
    for ret in parsed.returns:
        if str(ret.type) != "Tensor" or ret.alias_info is not None:
            raise ValueError(f"custom_op(): schema: results must be new Tensors, got {ret.type}")
    return params, len(parsed.returns)
