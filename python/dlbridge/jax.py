"""JAX's front door: dlbridge kernels as XLA FFI targets.

``ffi_op(f)`` turns a ``@dlbridge.jit`` function or a :func:`dlbridge.compile`\\ d kernel into a
function of JAX arrays that XLA calls through its FFI (``jax.ffi.ffi_call``), so the kernel runs
inside ``jax.jit``, under ``jax.vmap`` (per batch element, or on the whole batch for functions
that broadcast) and inside ``jax.shard_map``, and differentiates with a backward
(``jax.custom_vjp``). XLA hands its handler (in the extension, ``XlaFfi.cpp``) the operand and
result buffers, and on the GPU its stream; the handler views them as DLTensors without copying,
runs the kernel there and copies its results into XLA's result buffers. Result shapes come from
the kernel's shape rule (:mod:`dlbridge._shape_rules`) when JAX traces the call. A plain
``@dlbridge.jit`` function called with tracers comes here by itself (:func:`route`). This module
is imported only when used; it needs JAX and an extension built where jaxlib was installed.
"""

from __future__ import annotations

import functools
import inspect as pyinspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import jax
    import jax.numpy as jnp
except ModuleNotFoundError as _exc:  # pragma: no cover - depends on the environment
    raise ImportError("dlbridge.jax needs JAX: pip install jax") from _exc

from jax.custom_derivatives import SymbolicZero

from . import _dlbridge
from ._api import JitFunction
from ._shape_rules import shape_rule
from ._trace.dtypes import DTYPES
from ._trace.specs import guard_key

__all__ = ["ffi_op", "route"]

#: The FFI target every dlbridge kernel is called through; the ``kernel`` attribute picks one.
TARGET = "dlbridge_kernel"

# DLPack device types of the platforms XLA runs the handlers on.
_DLPACK_DEVICES = {"cpu": 1, "cuda": 2}
_registered = False


def _register_target() -> None:
    """Registers the handlers with XLA (platforms ``cpu`` and ``CUDA``), once per process.

    Raises:
        RuntimeError: the extension was built without XLA's FFI headers.
    """
    global _registered
    if _registered:
        return
    handlers = getattr(_dlbridge, "_xla_ffi_handlers", None)
    if handlers is None:
        raise RuntimeError(
            "dlbridge.jax: this dlbridge was built without XLA FFI support (the Python that built "
            "it had no jaxlib); install jax and rebuild dlbridge to call kernels from JAX")
    for platform, capsule in handlers().items():
        jax.ffi.register_ffi_target(TARGET, capsule, platform=platform)
    _registered = True


def _is_array(value: Any) -> bool:
    """Whether ``value`` is an operand: a JAX array or tracer, or a NumPy array."""
    return isinstance(value, (jax.Array, np.ndarray))


def _platform(values: Sequence[Any]) -> str:
    """The platform XLA will run the call on: that of the first concrete JAX array, else JAX's
    default device's (which ``jax.jit`` uses for tracers).

    Raises:
        ValueError: a platform dlbridge does not compile for (TPU...).
    """
    platform = None
    for value in values:
        if isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer):
            platform = next(iter(value.devices())).platform
            break
    if platform is None:
        device = getattr(jax.config, "jax_default_device", None)
        platform = getattr(device, "platform", None) or device or jax.default_backend()
    platform = {"gpu": "cuda"}.get(str(platform), str(platform))
    if platform not in _DLPACK_DEVICES:
        raise ValueError(f"dlbridge.jax: dlbridge kernels run on cpu and cuda, not on JAX's {platform!r}")
    return platform


def _vary_alike(arrays: Sequence[Any]) -> tuple[list[Any], frozenset[Any]]:
    """``arrays`` made to vary along the same manual mesh axes (inside ``shard_map``: the union
    of theirs, as JAX's own operations do implicitly; ``pcast`` transposes to ``psum`` for the
    gradients of replicated inputs), and those axes; outside ``shard_map`` they are unchanged."""
    arrays = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in arrays]
    own = [getattr(jax.typeof(a), "manual_axis_type", None) for a in arrays]
    varying = frozenset().union(*(t.varying for t in own if t is not None))
    if not varying:
        return arrays, varying
    return [a if t is not None and t.varying == varying else
            jax.lax.pcast(a, tuple(varying - (t.varying if t is not None else frozenset())), to="varying")
            for a, t in zip(arrays, own)], varying


def _dtype_name(value: Any) -> str:
    """NumPy's name of an array's dtype (``"float32"``; ml_dtypes' for ``bfloat16``...)."""
    return str(np.dtype(value.dtype).name)


@dataclass
class _Entry:
    """One compiled specialisation: the kernel's registry key and what a call needs."""

    key: int
    name: str
    signature: dict[str, Any]
    rule: Any
    builder: Callable[[Any], Any] | None
    written: list[int]
    guards: list[tuple[int, int, int | bytes]]


def _bind(fn: JitFunction, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The values of ``fn``'s parameters in order, defaults included, as its dispatcher binds
    them (positional only for functions with ``*args`` or keyword-only parameters)."""
    try:
        signature = pyinspect.signature(fn.__wrapped__)
        plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                    for p in signature.parameters.values())
    except (TypeError, ValueError):
        plain = False
    if not plain:
        if kwargs:
            raise TypeError(f"{fn.__name__}() takes its arguments by position only")
        return list(args)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return list(bound.arguments.values())


def _is_traced_scalar(value: Any) -> bool:
    """Whether ``value`` is a Python number JAX traced (a weakly typed 0-d array: ``jax.jit``
    makes one of every number argument), which the function takes as a Python scalar."""
    return isinstance(value, jax.Array) and value.ndim == 0 and bool(jax.typeof(value).weak_type)


def _placeholder(value: Any) -> Any:
    """A NumPy array of ``value``'s dtype and shape that holds one element (a broadcast view),
    or a Python number of a traced number's kind, for the dispatcher's ``specs`` and
    ``hints``, which cannot import tracers."""
    if _is_traced_scalar(value):
        kind = np.dtype(value.dtype).kind
        return 0.0 if kind == "f" else 0j if kind == "c" else 0
    if not _is_array(value):
        return value
    return np.broadcast_to(np.empty((), dtype=value.dtype), value.shape)


def _guard_value(values: Sequence[Any], i: int, dim: int) -> int | bytes:
    """What a guard reads from the kernel's arguments: a size of argument ``i``, or with
    ``dim`` -1 its value: an int or bool scalar, or a float's bits (as the dispatcher keys it)."""
    return int(values[i].shape[dim]) if dim >= 0 else guard_key(values[i])


class _Op:
    """The FFI call of one function or kernel, compiled once per kind of arguments."""

    def __init__(self, source: JitFunction | _dlbridge.Kernel, vmap: str = "sequential") -> None:
        if vmap not in ("sequential", "broadcast"):
            raise ValueError(f"dlbridge.jax.ffi_op(): vmap: expected 'sequential' or 'broadcast', got {vmap!r}")
        if vmap == "broadcast" and not isinstance(source, JitFunction):
            raise ValueError("dlbridge.jax.ffi_op(): vmap='broadcast' needs a @dlbridge.jit function, which "
                             "compiles for the batched ranks; a compiled Kernel has fixed ranks")
        if not isinstance(source, (JitFunction, _dlbridge.Kernel)):
            raise TypeError(f"dlbridge.jax.ffi_op(): expected a @dlbridge.jit function or a "
                            f"dlbridge.compile()d Kernel, got {type(source).__name__}")
        self.source = source
        self.broadcast = vmap == "broadcast"
        self.name = source.__name__ if isinstance(source, JitFunction) else source.signature["name"]
        # per key, the specialisations traced for it, each with its guards
        self._entries: dict[Any, list[_Entry]] = {}

    def _entry(self, key: Any, dynamic: Sequence[Any], compile_kernel: Callable[[], Any]) -> _Entry:
        """The specialisation cached under ``key`` whose guards the kernel's arguments ``dynamic``
        hold, compiled (and registered with the handlers) by ``compile_kernel`` on a miss: a
        Kernel, a Kernel and its result builder, or those and its guards (positions among the
        kernel's arguments and dims, -1 for an argument's value, as the dispatcher keys them)."""
        for entry in self._entries.get(key, ()):
            if all((dim >= 0 or not isinstance(dynamic[i], jax.Array)) and _guard_value(dynamic, i, dim) == value
                   for i, dim, value in entry.guards):
                return entry
        compiled = compile_kernel()
        parts = compiled if isinstance(compiled, tuple) else (compiled,)
        kernel, builder = parts[0], parts[1] if len(parts) > 1 else None
        signature = kernel.signature
        guards = []
        for i, dim in parts[2] if len(parts) > 2 else ():
            if dim < 0 and isinstance(dynamic[i], jax.Array):
                raise ValueError(f"{self.name}(): argument {i} '{signature['args'][i]['name']}' is "
                                 f"needed as a Python number, but JAX traces it; make it static "
                                 f"(static_argnums of jax.jit) or close over it")
            guards.append((i, dim, _guard_value(dynamic, i, dim)))
        try:
            rule = shape_rule(kernel.mlir["input"], signature["name"])
        except ValueError as exc:
            raise ValueError(f"{self.name}(): JAX needs every result's shape before the kernel "
                             f"runs: {exc}") from None
        written = [i for i, a in enumerate(signature["args"])
                   if a["kind"] == "tensor" and "write" in a["access"]]
        register = _dlbridge._xla_register_kernel  # type: ignore[attr-defined]
        entry = _Entry(register(kernel), self.name, signature, rule, builder, written, guards)
        self._entries.setdefault(key, []).append(entry)
        return entry

    def prepare(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[_Entry, list[Any]]:
        """The specialisation for these arguments and the kernel's arguments (statics left out).

        Raises:
            TypeError, ValueError: arguments the kernel cannot take, named.
        """
        _register_target()
        if isinstance(self.source, _dlbridge.Kernel):
            if kwargs:
                raise TypeError(f"{self.name}() takes its arguments by position only")
            values = list(args)
            platform = _platform(values)
            device = self.source.signature["device"]
            if device != platform:
                first = next((i for i, v in enumerate(values) if _is_array(v)), None)
                where = "" if first is None else f" (argument {first} is)"
                raise ValueError(f"{self.name}(): the kernel was compiled for {device}, but XLA runs "
                                 f"this call on {platform}{where}: compile it with "
                                 f"target={platform!r}")
            return self._entry("kernel", values, lambda: self.source), values
        fn = self.source
        values = _bind(fn, args, kwargs)
        platform = _platform(values)
        for i, value in enumerate(values):
            if _is_array(value) and _dtype_name(value) not in DTYPES:
                raise TypeError(f"{self.name}(): argument {i}: dlbridge has no {_dtype_name(value)} "
                                f"dtype (it takes {', '.join(DTYPES)})")
        placeholders = tuple(_placeholder(a) for a in args)
        keywords = {k: _placeholder(v) for k, v in kwargs.items()}
        specs = fn.specs(*placeholders, **keywords)
        hints = fn.hints(*placeholders, **keywords)
        if platform != "cpu":
            specs = tuple((*s[:4], (_DLPACK_DEVICES[platform], 0)) if s[0] == "array" else s
                          for s in specs)
        # static values by type and value at every level, as the dispatcher keys them
        key = tuple(("static", _dlbridge.static_key(s[1])) if s[0] == "static" else s for s in specs)
        dynamic = [v for v, s in zip(values, specs) if s[0] != "static"]
        return self._entry(key, dynamic, lambda: fn._compile_specs(specs, hints)), dynamic

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The op on these arguments, refusing to be differentiated: it has no backward."""
        self.prepare(args, kwargs)  # its errors come from here, not from inside custom_jvp
        positions = _array_positions(args)

        @jax.custom_jvp
        def op(*arrays: Any) -> Any:
            return self.run(tuple(_merge(args, positions, arrays)), kwargs)

        @op.defjvp
        def no_derivative(primals: Any, tangents: Any) -> Any:
            raise TypeError(f"{self.name}() has no derivative: make it differentiable with "
                            f"dlbridge.jax.ffi_op({self.name}, backward=g), g computing its gradients")

        return op(*(args[i] for i in positions))

    def run(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The op on these arguments, with the broadcasting batching rule when asked for: under
        ``vmap`` the batched operands get the batch as their first dim, aligned for NumPy's
        broadcasting (size-1 dims inserted after it where an operand has fewer dims), and the
        kernel is compiled for those ranks and called once."""
        if not self.broadcast:
            return self.call(*self.prepare(args, kwargs))
        positions = _array_positions(args)

        @jax.custom_batching.custom_vmap
        def op(*arrays: Any) -> Any:
            return self.call(*self.prepare(tuple(_merge(args, positions, arrays)), kwargs))

        @op.def_vmap
        def batched(axis_size: int, in_batched: Sequence[bool], *arrays: Any) -> tuple[Any, Any]:
            ranks = [a.ndim - int(b) for a, b in zip(arrays, in_batched)]
            top = max(ranks, default=0)
            lifted = [jnp.reshape(a, (axis_size,) + (1,) * (top - r) + tuple(a.shape[1:])) if b else a
                      for a, b, r in zip(arrays, in_batched, ranks)]
            entry, _ = self.prepare(tuple(_merge(args, positions, lifted)), kwargs)
            if entry.written:
                raise ValueError(f"{self.name}(): vmap='broadcast' takes no function that writes its "
                                 f"arguments; use vmap='sequential'")
            out = self.run(tuple(_merge(args, positions, lifted)), kwargs)
            for j, leaf in enumerate(jax.tree_util.tree_leaves(out)):
                if leaf.ndim == 0 or leaf.shape[0] != axis_size:
                    raise ValueError(f"{self.name}(): vmap='broadcast': result {j} of the batched call "
                                     f"has shape {tuple(leaf.shape)}, not a leading batch of "
                                     f"{axis_size}: the function does not broadcast over a leading "
                                     f"dim (a reduction over every dim?); use vmap='sequential'")
            return out, jax.tree_util.tree_map(lambda _: True, out)

        return op(*(args[i] for i in positions))

    def call(self, entry: _Entry, values: list[Any]) -> Any:
        """Calls the FFI target with the kernel's arguments ``values``; returns the function's
        result structure, followed by the new values of the arguments it writes."""
        params = entry.signature["args"]
        if len(values) != len(params):
            names = ", ".join(p["name"] for p in params)
            raise TypeError(f"{self.name}() takes {len(params)} arguments ({names}), got {len(values)}")
        operands: list[Any] = []
        scalars: list[int] = []
        traced: list[Any] = []
        scalar_operands: list[int] = []
        for i, (value, param) in enumerate(zip(values, params)):
            where = f"{self.name}(): argument {i} '{param['name']}'"
            if param["kind"] == "scalar":
                if isinstance(value, np.ndarray) and value.ndim == 0:
                    value = value.item()
                if isinstance(value, jax.Array):
                    _check_traced_scalar(value, param, where)
                    traced.append(value)
                    scalars.append(0)
                    scalar_operands.append(1)
                    continue
                scalars.append(_scalar_bits(value, param["dtype"], where))
                scalar_operands.append(0)
                continue
            if not _is_array(value):
                raise TypeError(f"{where}: expected an array, got {type(value).__name__}")
            _check_operand(value, param, where)
            operands.append(value)
        operands, varying = _vary_alike([*operands, *traced])
        # inside shard_map the results vary as the operands do
        manual = jax.sharding.ManualAxisType(varying=varying) if varying else None
        mesh = jax.sharding.NamedSharding(jax.sharding.get_abstract_mesh(), jax.sharding.PartitionSpec()) \
            if varying else None
        try:
            shapes = entry.rule(values)
            sizes_known = all(isinstance(d, (int, np.integer)) for shape in shapes for d in shape)
        except Exception as exc:  # noqa: BLE001 - traced numbers fail in JAX's own ways
            if not traced:
                raise ValueError(f"{self.name}(): the result shapes cannot be computed: {exc}") from None
            sizes_known = False
        if not sizes_known:
            names = [f"{i} '{p['name']}'" for i, (v, p) in enumerate(zip(values, params))
                     if p["kind"] == "scalar" and isinstance(v, jax.Array)]
            raise ValueError(f"{self.name}(): the result shapes depend on argument {', '.join(names)}, "
                             f"which JAX traces; make it static (static_argnums of jax.jit) or close over it")
        results = []
        for j, (shape, result) in enumerate(zip(shapes, entry.signature["results"])):
            dtype = np.dtype(result["dtype"])
            if jax.dtypes.canonicalize_dtype(dtype) != dtype:
                raise TypeError(f"{self.name}(): result {j} is {dtype.name}, which JAX represents "
                                f"only with jax_enable_x64 on; enable it or cast in the function")
            results.append(jax.ShapeDtypeStruct(tuple(int(d) for d in shape), dtype,
                                                sharding=mesh, manual_axis_type=manual))
        operand_of = {i: k for k, i in enumerate(i for i, p in enumerate(params) if p["kind"] == "tensor")}
        aliases = {}
        for n, i in enumerate(entry.written):
            aliases[operand_of[i]] = len(results) + n
            results.append(jax.ShapeDtypeStruct(values[i].shape, values[i].dtype,
                                                sharding=mesh, manual_axis_type=manual))
        if not results:
            raise ValueError(f"{self.name}(): the kernel returns nothing and writes no argument: "
                             f"there is nothing for JAX to compute")
        call = jax.ffi.ffi_call(TARGET, results, vmap_method="sequential",
                                input_output_aliases=aliases or None)
        outputs = call(*operands, kernel=np.int64(entry.key), scalars=np.array(scalars, dtype=np.int64),
                       scalar_operands=np.array(scalar_operands, dtype=np.int64))
        count = len(entry.signature["results"])
        flat = outputs[:count]
        returned: Any = None if count == 0 else flat[0] if count == 1 else tuple(flat)
        if entry.builder is not None:
            returned = entry.builder(returned)
        updated = list(outputs[count:])
        if not updated:
            return returned
        if returned is None:
            return updated[0] if len(updated) == 1 else tuple(updated)
        return (returned, *updated)


def _check_operand(value: Any, param: dict[str, Any], where: str) -> None:
    """Refuses at trace time what the kernel would refuse when called.

    Raises:
        TypeError: a dtype other than the parameter's.
        ValueError: another rank, or a size other than a static one of the parameter.
    """
    dtype = _dtype_name(value)
    if dtype != param["dtype"]:
        raise TypeError(f"{where}: expected {param['dtype']}, got {dtype}")
    shape = param["shape"]
    if len(value.shape) != len(shape):
        raise ValueError(f"{where}: expected rank {len(shape)}, got {len(value.shape)}")
    for d, (size, expected) in enumerate(zip(value.shape, shape)):
        if expected is not None and size != expected:
            raise ValueError(f"{where}: expected size {expected} in dim {d}, got {size}")


def _check_traced_scalar(value: Any, param: dict[str, Any], where: str) -> None:
    """Refuses at trace time a traced number the handler cannot convert to the scalar parameter.

    Raises:
        TypeError: not 0-d, not a bool, integer, float32 or float64, or a float for an integer
            parameter.
    """
    dtype = np.dtype(value.dtype)
    if value.ndim != 0 or dtype.kind not in "biuf" or (dtype.kind == "f" and dtype.itemsize < 4):
        raise TypeError(f"{where}: expected a number for the kernel's {param['dtype']} scalar, "
                        f"got a {dtype.name} array of shape {tuple(value.shape)}")
    if dtype.kind == "f" and np.dtype(param["dtype"]).kind != "f":
        raise TypeError(f"{where}: expected an integer for the kernel's {param['dtype']} scalar, "
                        f"got a traced {dtype.name}")


def _scalar_bits(value: Any, dtype: str, where: str) -> int:
    """The bits of scalar ``value`` converted to ``dtype``, in the low bytes of an int64, as the
    handler hands them to the kernel.

    Raises:
        TypeError: not a Python or NumPy scalar, or a float for an integer parameter.
        OverflowError: out of the dtype's range.
    """
    if isinstance(value, jax.core.Tracer):
        raise TypeError(f"{where}: expected a Python scalar, got a traced value; pass it as a "
                        f"0-d array to a function that takes it as an array")
    if not isinstance(value, (bool, int, float, np.generic)):
        raise TypeError(f"{where}: expected a Python or NumPy scalar, got {type(value).__name__}")
    target = np.dtype(dtype)
    if target.kind in "iu" and isinstance(value, (float, np.floating)):
        raise TypeError(f"{where}: expected an integer, got {value!r}")
    if target.kind in "iu":
        info = np.iinfo(target)
        if not info.min <= int(value) <= info.max:
            raise OverflowError(f"{where}: expected {dtype} in [{info.min}, {info.max}], got {value!r}")
    word = np.zeros(1, dtype=np.int64)
    word.view(np.uint8)[: target.itemsize] = np.frombuffer(np.asarray(value, dtype=target).tobytes(),
                                                           dtype=np.uint8)
    return int(word[0])


def _array_positions(args: Sequence[Any]) -> list[int]:
    """The positions of the operands among ``args``: what JAX differentiates."""
    return [i for i, a in enumerate(args) if _is_array(a)]


def _merge(args: Sequence[Any], positions: Sequence[int], arrays: Sequence[Any]) -> list[Any]:
    """``args`` with the operands at ``positions`` replaced by ``arrays``."""
    full = list(args)
    for i, array in zip(positions, arrays):
        full[i] = array
    return full


def _differentiable(forward: _Op, backward: _Op) -> Callable[..., Any]:
    """``forward`` as a ``jax.custom_vjp`` function whose cotangents ``backward`` computes: it
    takes ``forward``'s arguments followed by one cotangent per result, and returns one gradient
    per array argument (one array, or a tuple in the arguments' order)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        entry, values = forward.prepare(args, kwargs)
        if entry.written:
            names = [entry.signature["args"][i]["name"] for i in entry.written]
            raise ValueError(f"{forward.name}(): a differentiable op writes no argument, this one "
                             f"writes {', '.join(names)}")
        positions = _array_positions(args)

        def merged(arrays: Sequence[Any]) -> list[Any]:
            return _merge(args, positions, arrays)

        def run(arrays: Sequence[Any]) -> Any:
            return forward.run(tuple(merged(arrays)), kwargs)

        @jax.custom_vjp
        def op(*arrays: Any) -> Any:
            return run(arrays)

        def fwd(*primals: Any) -> tuple[Any, tuple[Any, ...]]:
            arrays = tuple(p.value for p in primals)
            for k in numbers:
                if primals[k].perturbed:
                    i = positions[k]
                    raise TypeError(f"{forward.name}(): argument {i} is a number, which gets no gradient: "
                                    f"pass it as a 0-d array (jnp.asarray(value, jnp.float32)) and "
                                    f"return its gradient from {backward.name}()")
            return run(arrays), arrays

        # numbers jax.jit traces are Python scalars to the function: they get no gradient, and
        # differentiating with respect to one is refused
        numbers = {k for k, i in enumerate(positions) if _is_traced_scalar(args[i])}

        def bwd(arrays: tuple[Any, ...], cotangent: Any) -> tuple[Any, ...]:
            cotangents = [jnp.zeros(c.aval.shape, c.aval.dtype) if isinstance(c, SymbolicZero) else c
                          for c in jax.tree_util.tree_leaves(cotangent)]
            grads = backward(*merged(arrays), *cotangents, **kwargs)
            grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
            expected = len(arrays) - len(numbers)
            if len(grads) != expected:
                raise ValueError(f"{backward.name}(): the backward of {forward.name}() returned "
                                 f"{len(grads)} gradients for {expected} array arguments")
            out: list[Any] = []
            for k, primal in enumerate(arrays):
                grad = None if k in numbers else grads.pop(0)
                if grad is None or not jnp.issubdtype(primal.dtype, jnp.inexact):
                    out.append(None)
                    continue
                if tuple(grad.shape) != tuple(primal.shape):
                    raise ValueError(f"{backward.name}(): gradient {k} has shape {tuple(grad.shape)}, "
                                     f"its argument {tuple(primal.shape)}")
                out.append(grad)
            return tuple(out)

        # symbolic zeros: fwd learns which inputs are differentiated
        op.defvjp(fwd, bwd, symbolic_zeros=True)
        arrays, _ = _vary_alike([args[i] for i in positions])
        return op(*arrays)

    return call


def ffi_op(f: JitFunction | _dlbridge.Kernel, *,
           backward: JitFunction | _dlbridge.Kernel | None = None,
           vmap: str = "sequential") -> Callable[..., Any]:
    """A function of JAX arrays that calls ``f`` through XLA's FFI, in ``jax.jit``, ``vmap``
    (one call per batch element) and ``shard_map`` alike.

    ``f`` is a ``@dlbridge.jit`` function (compiled once per kind of arguments, for the platform
    XLA runs on) or a :func:`dlbridge.compile`\\ d kernel (whose device must be that platform).
    Arrays become XLA operands, Python scalars the kernel's scalar parameters (a new value
    compiles a new XLA program), static arguments stay static. The op returns what ``f``
    returns; when ``f`` writes arguments, XLA aliases their new values to the operands and the
    op returns them after the results (alone when ``f`` returns nothing).

    Under ``jax.vmap`` the op runs once per batch element (``vmap="sequential"``), or, with
    ``vmap="broadcast"`` for a ``@dlbridge.jit`` function that broadcasts as NumPy does over
    leading dims (elementwise arithmetic, ``@`` on stacks of matrices, ``axis=-1``
    reductions...), once on the whole batch: the batched operands get the batch as their first
    dim, aligned for broadcasting, and every result must come back with it (else ValueError).

    ``backward``, another ``@dlbridge.jit`` function or kernel, makes the op differentiable
    (``jax.custom_vjp``, reverse mode): it is called with ``f``'s arguments followed by one
    cotangent per result and returns one gradient per array argument (numbers, even those
    ``jax.jit`` traces, get none; differentiating with respect to one raises TypeError).

    Raises (when JAX traces a call):
        TypeError: an argument of a dtype the kernel does not take (named), or a result dtype
            JAX cannot hold without ``jax_enable_x64``.
        ValueError: a result whose size depends on the data, a kernel compiled for another
            device than the call's, a rank or static size the kernel refuses (named).
        RuntimeError: dlbridge was built without XLA FFI support.
    """
    op = _Op(f, vmap)
    if backward is None:
        return functools.wraps(f)(op) if isinstance(f, JitFunction) else op
    wrapped = _differentiable(op, _Op(backward))
    return functools.wraps(f)(wrapped) if isinstance(f, JitFunction) else wrapped


def route(fn: JitFunction, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A ``@dlbridge.jit`` function called with JAX tracers (inside ``jax.jit``, ``vmap``,
    ``grad``...): the call goes through the FFI target as :func:`ffi_op` would make it.
    ``NotImplemented`` when no argument is traced (then the dispatcher's own error stands).

    Raises:
        BufferError: the function writes an argument; JAX arrays are immutable, so use
            ``ffi_op(fn)``, which returns the new values.
    """
    if not any(isinstance(v, jax.core.Tracer) for v in (*args, *kwargs.values())):
        return NotImplemented
    op = fn.__dict__.get("_dlbridge_jax_op")
    if op is None:
        op = _Op(fn)
        fn.__dict__["_dlbridge_jax_op"] = op
    entry, values = op.prepare(args, kwargs)
    if entry.written:
        i = entry.written[0]
        raise BufferError(f"{op.name}(): argument {i} '{entry.signature['args'][i]['name']}' is written, "
                          f"and JAX arrays cannot be written in place; call "
                          f"dlbridge.jax.ffi_op({op.name}), which returns its new value")
    return op(*args, **kwargs)
