"""``dlbridge.jit``, ``dlbridge.compile``, ``dlbridge.inspect`` and ``dlbridge.options``."""

from __future__ import annotations

import collections
import functools
import inspect as pyinspect
import os
import re
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from typing import Any, Callable, overload

import numpy as np

from . import _dlbridge, _torch_hook
from ._compile_log import compile_reason, failed_guard, log_compile
from ._trace import ArraySpec, ScalarSpec, StaticSpec, TraceResult, build_results, trace, unparsable_trace

_DEVICE_TARGETS = {1: "cpu", 2: "cuda", 3: "cpu", 13: "cuda"}
#: how many traces and compiled specs a jitted function remembers (its kernels: the extension's
#: in-memory cache, DLBRIDGE_MEMORY_CACHE_MAX)
_RECENT_TRACES = 8
_RECENT_SPECS = 64


def _check_type(keyword: str, value: object, expected: tuple[type, ...], what: str,
                caller: str = "compile") -> None:
    """Raises TypeError naming ``keyword`` unless ``value`` is one of ``expected``
    (a bool is not taken for an int)."""
    if isinstance(value, expected) and (bool in expected or not isinstance(value, bool)):
        return
    raise TypeError(f"{caller}(): {keyword}: expected {what}, got {type(value).__name__}")


def _check_options(caller: str, source: object, entry: object, target: object,
                   options: dict[str, Any]) -> dict[str, Any]:
    """Checks the types of compile()'s and inspect()'s arguments; returns the
    keyword options as the extension takes them."""
    none = type(None)
    _check_type("source", source, (str,), "str", caller)
    _check_type("entry", entry, (str, none), "str or None", caller)
    _check_type("target", target, (str,), "str", caller)
    _check_type("bufferize", options["bufferize"], (bool, none), "bool or None", caller)
    _check_type("opt_level", options["opt_level"], (int, none), "int or None", caller)
    for keyword in ("chip", "ptx_version", "format"):
        _check_type(keyword, options[keyword], (str, none), "str or None", caller)
    toolkit = options["toolkit"]
    _check_type("toolkit", toolkit, (str, os.PathLike, none), "str, os.PathLike or None", caller)
    return {**options, "toolkit": None if toolkit is None else os.fspath(toolkit)}


def compile(  # noqa: A001
    source: str,
    entry: str | None = None,
    target: str = "cpu",
    *,
    bufferize: bool | None = None,
    opt_level: int | None = None,
    chip: str | None = None,
    ptx_version: str | None = None,
    format: str | None = None,  # noqa: A002
    toolkit: str | os.PathLike[str] | None = None,
    cache: bool = True,
) -> _dlbridge.Kernel:
    """Compiles hand-written MLIR: a ``dlpack.entry`` function over tensors or memrefs.

    The options are those of ``dl-opt``'s pipelines, ``dl-run`` and the C++
    ``CompileOptions``, with the same names, values and defaults (docs/Options.md;
    ``dlbridge.options()`` lists them). None leaves an option at its default.

    Args:
        source: an MLIR module.
        entry: the function to compile; may be omitted when the module has one entry.
        target: ``"cpu"`` or ``"cuda"``.
        bufferize: bufferize tensor programs; False leaves the module's buffers as they are.
        opt_level: LLVM optimisation level, 0 to 3.
        chip: CUDA only: the GPU architecture, e.g. ``"sm_90"``.
        ptx_version: CUDA only: the PTX ISA version, e.g. ``"ptx80"``.
        format: CUDA only: ``"ptx"``, ``"cubin"`` or ``"fatbin"``.
        toolkit: CUDA only: the CUDA toolkit directory.
        cache: reuse and fill the in-memory and disk kernel caches.

    Returns:
        A callable taking DLPack tensors and Python scalars, with ``.signature``
        (names, dtypes, shapes, access of every parameter and result) and
        ``.mlir`` (the input and the LLVM-dialect stage).

    Raises:
        TypeError: an option of the wrong type, naming it.
        ValueError: an option out of range (naming it and what it accepts), a
            CUDA-only option with ``target="cpu"``, or MLIR's diagnostics when
            the source does not compile.
    """
    _check_type("cache", cache, (bool,), "bool")
    keywords = _check_options("compile", source, entry, target, dict(
        bufferize=bufferize, opt_level=opt_level, chip=chip, ptx_version=ptx_version,
        format=format, toolkit=toolkit))
    start = time.perf_counter()
    kernel = _dlbridge.compile(source, entry or "", target, cache=cache, **keywords)
    log_compile("", f"target {target}", time.perf_counter() - start, kernel)
    return kernel


def inspect(
    source: str,
    entry: str | None = None,
    target: str = "cpu",
    *,
    bufferize: bool | None = None,
    opt_level: int | None = None,
    chip: str | None = None,
    ptx_version: str | None = None,
    format: str | None = None,  # noqa: A002
    toolkit: str | os.PathLike[str] | None = None,
) -> dict[str, str]:
    """The IR of every stage of compiling ``source`` as :func:`compile` would.

    Takes compile()'s arguments and compiles afresh, bypassing the caches (it
    is for reading, not for calls). For the CPU, the stages are ``input``,
    ``tensors-to-buffers``, ``loops-and-vectors``, ``element-math`` and
    ``to-llvm`` (MLIR after each of the pipeline's stages), ``llvm-ir`` (after
    LLVM's optimisations) and ``asm`` (the host's assembly); for CUDA,
    ``input``, ``tensors-to-buffers``, ``loops-to-kernels``,
    ``entries-and-common-lowering``, ``kernels-to-nvvm``, ``host-to-llvm``,
    ``binary``, ``llvm-ir``, ``asm`` and ``ptx`` (the kernels). Strided
    arguments' specialisation is the one shown.

    Returns:
        Stage name to text, in the order of the compilation.

    Raises:
        TypeError: an argument of the wrong type, naming it.
        ValueError: as compile() raises it.
    """
    keywords = _check_options("inspect", source, entry, target, dict(
        bufferize=bufferize, opt_level=opt_level, chip=chip, ptx_version=ptx_version,
        format=format, toolkit=toolkit))
    return dict(_dlbridge.inspect(source, entry or "", target, **keywords))


def clear_cache() -> int:
    """Empties the in-memory kernel cache and removes every entry of the disk cache
    (``$DLBRIDGE_CACHE_DIR``, else ``$XDG_CACHE_HOME/dlbridge`` or ``~/.cache/dlbridge``),
    and nothing else in its directory. Kernels held keep working; jitted functions
    compile again on their next call with each kind of arguments.

    Returns:
        How many disk cache entries were removed.
    """
    return int(_dlbridge.clear_cache())


def options() -> list[dict[str, Any]]:
    """The compile options: for each its name (``opt-level``), Python and C++ spellings,
    accepted values, default, description and the interfaces that take it."""
    return list(_dlbridge.options())


def _to_arg_specs(specs: Sequence[tuple[Any, ...]]) -> list[ArraySpec | ScalarSpec | StaticSpec]:
    arg_specs: list[ArraySpec | ScalarSpec | StaticSpec] = []
    for spec in specs:
        if spec[0] == "static":
            arg_specs.append(StaticSpec(spec[1]))
        elif spec[0] == "array":
            _, dtype, rank, unit_dims, _device = spec
            arg_specs.append(ArraySpec(dtype, rank, tuple(unit_dims)))
        else:
            _, kind, dtype = spec
            arg_specs.append(ScalarSpec(kind, dtype=dtype))
    return arg_specs


def _target_of(specs: Sequence[tuple[Any, ...]], requested: str | None) -> str:
    if requested is not None:
        return requested
    for spec in specs:
        if spec[0] == "array":
            return _DEVICE_TARGETS.get(spec[4][0], "cpu")
    return "cpu"


def _device_chip(specs: Sequence[tuple[Any, ...]], target: str) -> str | None:
    """The chip of the CUDA device the first array is on (``"sm_90"`` for an H100),
    so that kernels are compiled for the GPU that runs them; None on the CPU, without a
    driver, or for a chip the CUDA pipeline does not know (its default applies)."""
    if target != "cuda":
        return None
    device = next((s[4] for s in specs if s[0] == "array" and _DEVICE_TARGETS.get(s[4][0]) == "cuda"), None)
    capability = _dlbridge.cuda_compute_capability(device[1] if device else 0)
    if capability is None:
        return None
    chip = f"sm_{capability[0]}{capability[1]}"
    known = next(o["values"] for o in _dlbridge.options() if o["name"] == "chip")
    return chip if re.search(rf"\b{chip}\b", known) else None


def _call_shape(
    fn: Callable[..., Any], static_argnums: Iterable[int], static_argnames: Iterable[str]
) -> tuple[list[str] | None, tuple[Any, ...], list[int]]:
    """The positional parameter names of ``fn`` (None when it takes ``*args``, ``**kwargs`` or
    keyword-only parameters: then calls pass arguments by position only), the defaults of the
    last ones, and the positions of the static parameters: those named, and those whose default
    is a tuple, a string, a function or a dtype (:func:`_static_by_default`).

    Raises:
        ValueError: a static name that is not a parameter, or a static number out of range.
    """
    try:
        params = list(pyinspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) and bool(params)
    names = [p.name for p in params] if plain else None
    defaults = tuple(p.default for p in params if p.default is not p.empty) if plain else ()
    statics: set[int] = set()
    for num in static_argnums:
        if not isinstance(num, int) or isinstance(num, bool):
            raise TypeError(f"jit(): static_argnums: expected ints, got {num!r}")
        count = len(names) if names is not None else None
        if count is not None and not -count <= num < count:
            raise ValueError(f"jit(): static_argnums: {num} is out of range for {count} parameters")
        if num < 0 and count is None:
            raise ValueError("jit(): static_argnums: negative numbers need a function without *args")
        statics.add(num % count if count else num)
    for name in static_argnames:
        if names is None or name not in names:
            raise ValueError(f"jit(): static_argnames: {name!r} is not a parameter of {_callable_name(fn)}()")
        statics.add(names.index(name))
    if names is not None:
        first_default = len(names) - len(defaults)
        statics.update(first_default + k for k, value in enumerate(defaults) if _static_by_default(value))
    return names, defaults, sorted(statics)


def _static_by_default(value: Any) -> bool:
    """Whether a parameter whose default is ``value`` is static without being named so: a
    default no array could stand for (a tuple of axes or sizes, a mode string, a function,
    a dtype), as a NumPy user writes ``axis=(0, 1)``, ``mode="same"``, ``act=np.tanh``."""
    if isinstance(value, (tuple, str, bytes, frozenset, np.dtype)):
        return True
    return callable(value)


def _trace_key(specs: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
    """The key of a function's traces: its specs, static values by type and value at every
    level, as the dispatcher keys them."""
    return tuple(("static", _dlbridge.static_key(s[1])) if s[0] == "static" else s for s in specs)


def _dispatcher_guards(specs: Sequence[tuple[Any, ...]],
                       guards: Sequence[tuple[int, int | None, float]]) -> list[tuple[int, int]]:
    """A trace's guards as the dispatcher keys them: (position among the non-static arguments,
    dim or -1 for the argument's value)."""
    dynamic = [i for i, spec in enumerate(specs) if spec[0] != "static"]
    return [(dynamic.index(i), -1 if dim is None else dim) for i, dim, _ in guards]


def _callable_name(fn: Callable[..., Any]) -> str:
    """The name of what ``jit`` compiles: a function's, the function a ``functools.partial`` or a
    bound method calls, or the type of another callable."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) else type(fn).__name__


def _result_builder(tree: Any, count: int) -> Callable[[Any], Any] | None:
    """The callable rebuilding the Python function's results from the kernel's (None, one value
    or a tuple), or None when the kernel returns them that way already."""
    if (tree is None and count == 0) or (tree == 0 and count == 1):
        return None
    if type(tree) is tuple and count >= 2 and tree == tuple(range(count)):
        return None

    def rebuild(result: Any) -> Any:
        flat = () if count == 0 else (result,) if count == 1 else result
        return build_results(tree, flat)

    return rebuild


class JitFunction(_dlbridge.Dispatcher):
    """A function compiled by ``@dlbridge.jit``.

    Calling it binds the arguments to the function's parameters (keywords and
    defaults as Python does), imports them through DLPack, finds the kernel
    specialised for their dtypes, ranks, size-1 dims, device and static
    values, and runs it; all of that is C++. Only the first call with new
    specs traces the Python function and compiles it.
    """

    # Set by functools.update_wrapper: the Python function and its name.
    __wrapped__: Callable[..., Any]
    __name__: str

    def __init__(
        self,
        fn: Callable[..., Any],
        target: str | None,
        static_argnums: Iterable[int] = (),
        static_argnames: Iterable[str] = (),
        cache: bool = True,
    ) -> None:
        names, defaults, statics = _call_shape(fn, static_argnums, static_argnames)
        name = _callable_name(fn)
        super().__init__(self._compile_specs, name, names, defaults, statics)
        functools.update_wrapper(self, fn)
        self.__name__ = name
        self._target = target
        self._cache = cache
        self._names = names
        self._static_names = tuple(names[i] for i in statics) if names is not None else ()
        # the latest traces (lower(), inspect() and a call's compile trace once) and specs
        # (compile_reason's comparisons); the kernels live in the extension's caches
        self._traces: collections.OrderedDict[tuple[Any, ...], TraceResult] = collections.OrderedDict()
        self._compiled: collections.deque[tuple[Any, ...]] = collections.deque(maxlen=_RECENT_SPECS)
        # Threads compile new specialisations at the same time: the two records above change
        # under this lock (tracing and compiling themselves run outside it).
        self._records = threading.Lock()
        _note_new_function(self)

    def _trace(self, specs: tuple[Any, ...], hints: tuple[Any, ...] | None = None) -> TraceResult:
        key = _trace_key(specs)
        traced = self._traces.get(key)
        if traced is None or failed_guard(traced.guards, hints, self._names) is not None:
            traced = trace(self.__wrapped__, _to_arg_specs(specs), name=self.__name__, hints=hints,
                           target=_target_of(specs, self._target))
        with self._records:
            self._traces[key] = traced
            self._traces.move_to_end(key)
            while len(self._traces) > _RECENT_TRACES:
                self._traces.popitem(last=False)
        return traced

    def _compile_specs(self, specs: tuple[Any, ...], hints: tuple[Any, ...] | None = None) -> Any:
        start = time.perf_counter()
        earlier = self._traces.get(_trace_key(specs))
        traced = self._trace(specs, hints)
        target = _target_of(specs, self._target)
        try:
            kernel = _dlbridge.compile(traced.mlir, traced.entry, target,
                                       chip=_device_chip(specs, target), cache=self._cache)
        except ValueError as exc:
            internal = unparsable_trace(self.__name__, traced.mlir, str(exc))
            if internal is None:
                raise
            raise internal from None
        guard = failed_guard(earlier.guards, hints, self._names) if earlier is not None else None
        with self._records:
            reason = guard or compile_reason(self._names, specs, self._compiled)
            self._compiled.append(specs)
        log_compile(self.__name__, reason, time.perf_counter() - start, kernel)
        builder = _result_builder(traced.result_tree, traced.num_outputs)
        if traced.guards:
            return kernel, builder, _dispatcher_guards(specs, traced.guards)
        return kernel if builder is None else (kernel, builder)

    def lower(self, *args: Any, **kwargs: Any) -> str:
        """The MLIR this function is compiled from for arguments like ``args``."""
        return self._trace(self.specs(*args, **kwargs), self.hints(*args, **kwargs)).mlir

    def inspect(self, *args: Any, **kwargs: Any) -> dict[str, str]:
        """The IR of every stage of compiling this function for arguments like ``args``:
        what :func:`dlbridge.inspect` gives for the specialisation a call with them runs."""
        specs = self.specs(*args, **kwargs)
        traced = self._trace(specs, self.hints(*args, **kwargs))
        return inspect(traced.mlir, traced.entry, _target_of(specs, self._target))


#: every live jitted function, for front doors that tell a framework about them (dlbridge.torch)
_LIVE_FUNCTIONS: weakref.WeakSet[JitFunction] = weakref.WeakSet()
#: called with each new jitted function (dlbridge.torch adds one once Dynamo is loaded)
_NEW_FUNCTION_HOOKS: list[Callable[[JitFunction], None]] = []


def _note_new_function(fn: JitFunction) -> None:
    """Remembers ``fn`` for the front doors: PyTorch's allows it in Dynamo's graph, now when
    Dynamo is loaded, else when it is (see ``_torch_hook``)."""
    _LIVE_FUNCTIONS.add(fn)
    for hook in _NEW_FUNCTION_HOOKS:
        hook(fn)
    _torch_hook.watch()


@overload
def jit(
    fn: Callable[..., Any],
    /,
    *,
    target: str | None = None,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    cache: bool = True,
) -> JitFunction: ...
@overload
def jit(
    *,
    target: str | None = None,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    cache: bool = True,
) -> Callable[[Callable[..., Any]], JitFunction]: ...


def jit(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    target: str | None = None,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    cache: bool = True,
) -> JitFunction | Callable[[Callable[..., Any]], JitFunction]:
    """Compiles an array function on its first call with each kind of arguments.

    Use as ``@dlbridge.jit`` or ``@dlbridge.jit(target="cpu",
    static_argnames=("axis",))``. The function may use operators, NumPy
    functions and methods, indexing, ``for ... in range(...)`` loops and the
    ``dlbridge`` functions; results come back in the framework of the first
    array argument (NumPy in, NumPy out; NumPy arrays when no argument is an
    array), sharing dlbridge's buffer, in the structure the function returns
    them (tuples, lists, None). Without
    ``target`` the device of the arguments decides.

    Sizes stay symbolic, so one kernel serves every size; where the
    function needs a size or an int or bool argument as a Python number
    (``int(n)``, ``math.sqrt(x.shape[-1])``, ``if n > 1:``), the trace fixes
    it at the call's value and the kernel is guarded on it: calls with the
    same value reuse it, others trace and compile again.

    Static arguments (``static_argnums``/``static_argnames``, as in
    ``jax.jit``) reach the function as the Python values themselves
    (hashable: ints, floats, strings, tuples...); each new value, compared by
    type and value at every level of tuples and frozensets (``1``, ``1.0``,
    ``True``, ``0.0`` and ``-0.0`` differ; every NaN is the same), compiles a
    new kernel. Kernels stay in memory until the in-memory kernel cache
    (``DLBRIDGE_MEMORY_CACHE_MAX`` kernels, default 512, shared with
    :func:`compile`) evicts the least recently called; an evicted
    specialisation compiles again (from the disk cache) when called.

    ``cache=False`` compiles every specialisation afresh instead of reusing
    kernels from the disk cache (and storing them there). With the environment
    variable ``DLBRIDGE_DISABLE_JIT=1``, ``jit`` returns the Python function
    itself, to debug it with print and pdb; ``DLBRIDGE_LOG=compile`` logs every
    compile with its reason and time.
    """
    _check_type("cache", cache, (bool,), "bool", "jit")
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
    if _jit_disabled():
        return (lambda f: f) if fn is None else fn  # type: ignore[return-value]
    if fn is None:
        return lambda f: JitFunction(f, target, nums, names, cache)
    return JitFunction(fn, target, nums, names, cache)


def _jit_disabled() -> bool:
    """Whether DLBRIDGE_DISABLE_JIT asks for plain Python functions."""
    value = os.environ.get("DLBRIDGE_DISABLE_JIT", "")
    if value not in ("", "0", "1"):
        raise ValueError(f"DLBRIDGE_DISABLE_JIT: expected 0 or 1, got {value!r}")
    return value == "1"
