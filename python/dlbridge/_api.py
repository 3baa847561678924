"""``dlbridge.jit``, ``dlbridge.compile`` and its ``dlbridge.options``."""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, Sequence, overload

from . import _dlbridge
from ._trace import ArraySpec, ScalarSpec, TraceResult, trace

_DEVICE_TARGETS = {1: "cpu", 2: "cuda", 3: "cpu", 13: "cuda"}


def _check_type(keyword: str, value: object, expected: tuple[type, ...], what: str) -> None:
    """Raises TypeError naming ``keyword`` unless ``value`` is one of ``expected``
    (a bool is not taken for an int)."""
    if isinstance(value, expected) and (bool in expected or not isinstance(value, bool)):
        return
    raise TypeError(f"compile(): {keyword}: expected {what}, got {type(value).__name__}")


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
    none = type(None)
    _check_type("source", source, (str,), "str")
    _check_type("entry", entry, (str, none), "str or None")
    _check_type("target", target, (str,), "str")
    _check_type("bufferize", bufferize, (bool, none), "bool or None")
    _check_type("opt_level", opt_level, (int, none), "int or None")
    for keyword, value in (("chip", chip), ("ptx_version", ptx_version), ("format", format)):
        _check_type(keyword, value, (str, none), "str or None")
    _check_type("toolkit", toolkit, (str, os.PathLike, none), "str, os.PathLike or None")
    _check_type("cache", cache, (bool,), "bool")
    return _dlbridge.compile(
        source, entry or "", target, bufferize=bufferize, opt_level=opt_level, chip=chip,
        ptx_version=ptx_version, format=format,
        toolkit=None if toolkit is None else os.fspath(toolkit), cache=cache)


def options() -> list[dict[str, Any]]:
    """The compile options: for each its name (``opt-level``), Python and C++ spellings,
    accepted values, default, description and the interfaces that take it."""
    return list(_dlbridge.options())


def _to_arg_specs(specs: Sequence[tuple[Any, ...]]) -> list[ArraySpec | ScalarSpec]:
    arg_specs: list[ArraySpec | ScalarSpec] = []
    for spec in specs:
        if spec[0] == "array":
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


class JitFunction(_dlbridge.Dispatcher):
    """A function compiled by ``@dlbridge.jit``.

    Calling it imports the arguments through DLPack, finds the kernel
    specialised for their dtypes, ranks, size-1 dims and device, and runs it;
    all of that is C++. Only the first call with new specs traces the Python
    function and compiles it.
    """

    def __init__(self, fn: Callable[..., Any], target: str | None) -> None:
        super().__init__(self._compile_specs, fn.__name__)
        functools.update_wrapper(self, fn)
        self._target = target
        self._traces: dict[tuple[Any, ...], TraceResult] = {}

    def _trace(self, specs: tuple[Any, ...]) -> TraceResult:
        if specs not in self._traces:
            self._traces[specs] = trace(
                self.__wrapped__, _to_arg_specs(specs), name=self.__name__)
        return self._traces[specs]

    def _compile_specs(self, specs: tuple[Any, ...]) -> _dlbridge.Kernel:
        traced = self._trace(specs)
        return _dlbridge.compile(traced.mlir, traced.entry, _target_of(specs, self._target))

    def lower(self, *args: Any) -> str:
        """The MLIR this function is compiled from for arguments like ``args``."""
        return self._trace(self.specs(*args)).mlir


@overload
def jit(fn: Callable[..., Any], /) -> JitFunction: ...
@overload
def jit(*, target: str | None = None) -> Callable[[Callable[..., Any]], JitFunction]: ...


def jit(fn: Callable[..., Any] | None = None, /, *, target: str | None = None) -> Any:
    """Compiles an array function on its first call with each kind of arguments.

    Use as ``@dlbridge.jit`` or ``@dlbridge.jit(target="cpu")``. The function
    may use operators, ``dlbridge.exp``/``where``/``sum``/... or the NumPy
    functions of the same names; results come back in the framework of the
    first array argument (NumPy in, NumPy out), sharing dlbridge's buffer.
    Without ``target`` the device of the arguments decides.
    """
    if fn is None:
        return lambda f: JitFunction(f, target)
    return JitFunction(fn, target)
