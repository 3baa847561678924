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
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from . import _api
from ._api import JitFunction
from ._dlbridge import Kernel
from ._torch_schema import Param, kernel_params, python_params, return_count, schema_params, schema_text, split_name
from ._torch_target import TORCH_DTYPES, Function, Target, hints_of, name_of, shape_rule_of, size_ops, spec_of

__all__ = ["CustomOp", "custom_op", "route"]


# --------------------------------------------------------------------------------------------------
# Registration


_LIBRARIES: dict[str, torch.library.Library] = {}
#: what each of dlbridge's operators calls, by qualified name
_TARGETS: dict[str, Target] = {}
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


def _register(qualname: str, target: Target) -> str:
    """Defines ``qualname`` with ``target``'s schema and registers its CPU, CUDA and fake
    implementations; returns the schema.

    Raises:
        ValueError: an operator of that name exists.
    """
    namespace, name = split_name(qualname)
    schema = schema_text(target.params, target.num_results)
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
            rule = shape_rule_of(traced.mlir, traced.entry)
        except ValueError as error:
            raise ValueError(f"{qualname}: {target.name}(): {error}") from None
        shapes = rule(list(args), size_ops(args))
        device = next(a.device for a in args if isinstance(a, torch.Tensor))
        outs = tuple(torch.empty(shape, dtype=TORCH_DTYPES[dtype], device=device)
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

    def __init__(self, name: str, target: Target, schema: str, one_tuple: bool) -> None:
        namespace, op = split_name(name)
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
        _register_autograd(self.name, self._target, _backward_target(self.name, self._target, backward,
                                                                     dict(static_args or {})))


def _target_for(name: str, fn: object, mutates_args: Sequence[str] | None, schema: str | None,
                static_args: Mapping[str, Any]) -> tuple[Target, bool]:
    """The target of ``custom_op(name, fn, ...)`` and whether the function returns a 1-tuple."""
    if isinstance(fn, Kernel):
        if static_args:
            raise TypeError("custom_op(): static_args: a compiled kernel has no static parameters")
        params, count = kernel_params(fn)
        if schema is not None:
            declared, declared_count = schema_params(schema, name)
            if [(p.name, p.kind, p.mutable) for p in declared] != [(p.name, p.kind, p.mutable) for p in params] \
                    or declared_count != count:
                raise ValueError(f"custom_op(): schema: {schema!r} does not match the kernel's signature "
                                 f"{schema_text(params, count)!r}")
            params = declared
        written = {p.name for p in params if p.mutable}
        for arg in mutates_args or ():
            if arg not in written:
                raise ValueError(f"custom_op(): mutates_args: the kernel does not write {arg!r} "
                                 f"(it writes {sorted(written)})")
        shape_rule_of(fn.mlir["input"], fn.signature["name"])  # data-dependent result sizes: ValueError now
        return Target(fn, params, {}, (), count), False
    if not isinstance(fn, JitFunction):
        raise TypeError(f"custom_op(): expected a @dlbridge.jit function or a dlbridge.compile()d Kernel, "
                        f"got {type(fn).__name__}")
    params, static_names, returns = python_params(fn, static_args)
    if schema is not None:
        declared, count = schema_params(schema, name)
        if [p.name for p in declared] != [p.name for p in params]:
            raise ValueError(f"custom_op(): schema: its parameters {[p.name for p in declared]} are not "
                             f"{fn.__name__}()'s {[p.name for p in params]}")
        params = declared
        one_tuple = False
    else:
        declared_results = return_count(returns)
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
    params = [Param(p.name, p.kind, p.mutable or p.name in (mutates_args or ()), p.default) for p in params]
    if not any(p.kind == "Tensor" for p in params):
        raise TypeError(f"custom_op(): {fn.__name__}() has no Tensor parameter: PyTorch picks an operator's "
                        "device from its tensors")
    return Target(fn, params, static_args, static_names, count), one_tuple


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
    split_name(name)

    def make(function: Function) -> CustomOp:
        target, one_tuple = _target_for(name, function, mutates_args, schema, dict(static_args or {}))
        # the backward is checked before anything is registered
        backward_target = None if backward is None else _backward_target(name, target, backward, {})
        op = CustomOp(name, target, _register(name, target), one_tuple)
        if isinstance(function, JitFunction) and not target.statics:
            _EXPLICIT[function] = weakref.ref(op)
        if backward_target is not None:
            _register_autograd(name, target, backward_target)
        return op

    return make if fn is None else make(fn)


def _backward_target(name: str, forward: Target, backward: object, static_args: Mapping[str, Any]) -> Target:
    """What the operator ``<name>_backward`` calls: ``backward``, checked against the forward.

    Raises:
        TypeError: ``backward`` is not a jitted function or kernel, or takes another number of
            parameters than the forward's arguments and gradients.
        ValueError: the forward writes its arguments.
    """
    if any(p.mutable for p in forward.params):
        raise ValueError(f"register_autograd(): {name} writes its arguments; PyTorch differentiates "
                         "functional operators only")
    expected = len(forward.params) + forward.num_results
    if isinstance(backward, Kernel):
        names = [a["name"] for a in backward.signature["args"]]
        statics: list[str] = []
    elif isinstance(backward, JitFunction):
        own, statics, _ = python_params(backward, static_args)
        names = [p.name for p in own]
    else:
        raise TypeError(f"register_autograd(): backward: expected a @dlbridge.jit function or a compiled "
                        f"Kernel, got {type(backward).__name__}")
    if len(names) != expected:
        raise TypeError(f"register_autograd(): backward {name_of(backward)}() takes {len(names)} parameters; "
                        f"it must take {name}'s {len(forward.params)} arguments and the gradients of its "
                        f"{forward.num_results} result(s): {expected}")
    params = [Param(n, p.kind) for n, p in zip(names, forward.params)]
    params += [Param(n, "Tensor") for n in names[len(forward.params):]]
    return Target(backward, params, static_args, statics, sum(p.kind == "Tensor" for p in forward.params))


def _register_autograd(name: str, forward: Target, backward: Target) -> None:
    """Registers ``backward`` as ``<name>_backward`` and makes ``name`` differentiable with it:
    the forward's tensors are saved for the backward, which returns a gradient for each."""
    backward_name = name + "_backward"
    _register(backward_name, backward)
    namespace, op_name = split_name(backward_name)
    backward_op = getattr(getattr(torch.ops, namespace), op_name)
    kinds = [p.kind for p in forward.params]
    single = backward.num_results == 1

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.save_for_backward(*(x for x, kind in zip(inputs, kinds) if kind == "Tensor"))
        ctx.scalars = [x for x, kind in zip(inputs, kinds) if kind != "Tensor"]

    def run_backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        tensors, scalars = iter(ctx.saved_tensors), iter(ctx.scalars)
        inputs = [next(tensors) if kind == "Tensor" else next(scalars) for kind in kinds]
        out = backward_op(*inputs, *grads)
        results = iter((out,) if single else out)
        return tuple(next(results) if kind == "Tensor" else None for kind in kinds)

    torch.library.register_autograd(name, run_backward, setup_context=setup_context, lib=_library(namespace))


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
    traced = fn._trace(specs, hints_of(full_args))
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
        params = [Param(n, k, n in traced.written_args) for n, k in zip(names, kinds)]
        static_names = list(statics)
        target = Target(fn, params, statics, static_names, traced.num_outputs)
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
        spec = spec_of(value, f"{fn.__name__}(): argument '{name}'")
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
