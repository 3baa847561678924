"""What the traced function sees as ``numpy``: NumPy, except for the operations of the op table.

NumPy functions called without a traced argument (``np.zeros((n, m))``, ``np.arange(n)``) never
reach ``__array_function__``, and dynamic sizes cannot become the Python ints NumPy wants.  So
:func:`with_numpy_proxy` calls the user's function with :data:`numpy_proxy` in place of the
``numpy`` module in its globals and closure, NumPy functions it imported by name replaced by
their traced implementations, and ``len`` answering for traced arrays; helper functions it calls
from its globals are treated the same way.  NumPy's scalar types and ``np.ndarray`` are
stand-ins: called on a traced value ``np.float32(x)`` is a cast and ``np.ndarray(shape, dtype)``
is ``np.empty``; as dtypes, in ``==`` and in ``isinstance`` checks they are NumPy's types (only
``is`` tells them apart), and ``isinstance(x, np.ndarray)`` holds for traced arrays as for NumPy's.
Python's ``math`` module is ``math_proxy``'s (its functions on traced scalars are ufuncs).
``np.random``'s global state is refused (its draws would be constants of the kernel, the same in
every call) and ``default_rng`` needs a seed. Everything else is NumPy's own object (``np.pi``,
``np.newaxis``, the ufuncs).
"""

from __future__ import annotations

import builtins
import functools
import math
import types
from typing import Any, Callable

import numpy as np

from . import dtypes as D
from . import registry
from .errors import unsupported
from .loop_source import rewrite_loops
from .masked import MaskedSelection
from .math_proxy import MATH_FUNCTIONS, math_proxy, python_scalar
from .traced_array import SymbolicDim, TracedArray

__all__ = ["as_traced", "numpy_proxy", "traced_len", "with_numpy_proxy"]


def _is_traced(value: Any) -> bool:
    return isinstance(value, (TracedArray, SymbolicDim))


class _StandIn(type):
    """The metaclass of the proxy's NumPy types: they are NumPy's for ``isinstance``,
    ``issubclass``, ``==`` and as dtypes, and only their calls on traced values differ."""

    def __instancecheck__(cls, obj: Any) -> bool:
        if isinstance(obj, TracedArray) and cls.__mro__[1] is np.ndarray:
            # NumPy arrays, not the scalars NumPy gives for 0-d results (``x.sum()``)
            return obj.ndim > 0 or obj._arg is not None
        return isinstance(obj, cls.__mro__[1])

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, cls.__mro__[1])

    def __eq__(cls, other: Any) -> bool:
        return other is cls.__mro__[1] or type.__eq__(cls, other)

    def __hash__(cls) -> int:
        return hash(cls.__mro__[1])


def _scalar_type(base: type) -> type:
    """``base`` (``np.float32``...) as the proxy shows it: called on a traced value it is a cast
    (``np.float32(x)`` is ``x.astype(np.float32)``), otherwise NumPy's own scalar."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if args and _is_traced(args[0]):
            if len(args) > 1 or kwargs:
                raise unsupported(f"numpy.{base.__name__}", "more than one argument")
            value = args[0].as_array() if isinstance(args[0], SymbolicDim) else args[0]
            return registry.lookup("astype").impl(value, base)  # type: ignore[union-attr]
        return base(*args, **kwargs)

    return _StandIn(base.__name__, (base,), {"__new__": __new__, "__doc__": base.__doc__})


def _ndarray_type() -> type:
    """``np.ndarray`` as the proxy shows it: ``np.ndarray(shape, dtype)`` is ``np.empty``."""

    def __new__(cls: type, shape: Any, dtype: Any = float, buffer: Any = None, offset: int = 0,
                strides: Any = None, order: Any = None) -> Any:
        if buffer is not None or strides is not None or offset:
            raise unsupported("numpy.ndarray", "buffer=, offset= and strides= (a new array is a copy)")
        return registry.lookup("empty").impl(shape, dtype, "C" if order is None else order)  # type: ignore[union-attr]

    return _StandIn("ndarray", (np.ndarray,), {"__new__": __new__, "__doc__": np.ndarray.__doc__})


_SCALAR_TYPES = (
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
    "float32", "float64", "complex64", "complex128", "half", "single", "double", "intc", "intp", "uintp",
    "int_", "uint", "byte", "ubyte", "short", "ushort", "longlong", "ulonglong", "csingle", "cdouble",
)
#: The proxy's stand-ins for NumPy's types, by NumPy name.
_TYPES: dict[str, type] = {}


def _make_types() -> None:
    by_base: dict[type, type] = {}
    for name in _SCALAR_TYPES:
        base = getattr(np, name, None)
        if not isinstance(base, type):
            continue
        try:
            D.dtype(np.dtype(base))
        except TypeError:
            continue  # a dtype the tracer has not (longdouble...): NumPy's own type
        if base not in by_base:
            by_base[base] = _scalar_type(base)
        _TYPES[name] = by_base[base]
    _TYPES["ndarray"] = _ndarray_type()


_make_types()


def _taking_selections(name: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    """``impl``, except that a call with an ``x[mask]`` selection among its arguments goes to
    the selection (``np.mean(x[m])``), as NumPy's own function would send it there."""

    @functools.wraps(impl)
    def call(*args: Any, **kwargs: Any) -> Any:
        selection = next((a for a in args if isinstance(a, MaskedSelection)), None)
        if selection is not None:
            return selection.__array_function__(getattr(np, name), (), args, kwargs)
        return impl(*args, **kwargs)

    return call


#: NumPy's global random state, which ``np.random.rand`` and friends draw from.
_GLOBAL_RANDOM = np.random.mtrand._rand


def _draws_from_global_state(value: Any) -> bool:
    return getattr(value, "__self__", None) is _GLOBAL_RANDOM


def _refused_draw(name: str) -> Callable[..., Any]:
    """``numpy.random.<name>`` of the global state, refused: run while tracing, its numbers would
    be constants of the kernel, the same in every call, where NumPy's differ."""

    def call(*args: Any, **kwargs: Any) -> Any:
        raise unsupported(
            f"numpy.random.{name}",
            "NumPy's global random state, used while tracing, would give the kernel the same numbers in "
            "every call; pass the random numbers as an argument, or draw them from "
            "np.random.default_rng(seed) inside the function",
        )

    call.__name__ = name
    return call


def _seeded_default_rng(seed: Any = None) -> Any:
    """``np.random.default_rng(seed)``: a generator whose numbers are the same in every call, as
    the kernel's constants are; without a seed (fresh entropy each call in NumPy) it is refused."""
    if seed is None:
        raise unsupported("numpy.random.default_rng",
                          "a generator without a seed draws new numbers in every call, while tracing would "
                          "make them constants of the kernel; pass a seed, or the numbers as an argument")
    return np.random.default_rng(seed)


class _RandomProxy(types.ModuleType):
    """``numpy.random`` as a traced function sees it: the global state's draws are refused,
    ``default_rng`` needs a seed, the rest is NumPy's."""

    def __getattr__(self, name: str) -> Any:
        value = getattr(np.random, name)
        if name == "default_rng":
            return _seeded_default_rng
        if _draws_from_global_state(value):
            return _refused_draw(name)
        return value


random_proxy = _RandomProxy("numpy.random", np.random.__doc__)


class _NumpyProxy(types.ModuleType):
    """The ``numpy`` module as a traced function sees it."""

    def __getattr__(self, name: str) -> Any:
        if name == "random":
            return random_proxy
        traced = _traced_function(name)
        if traced is not None:
            return traced
        stand_in = _TYPES.get(name)
        if stand_in is not None:
            return stand_in
        return getattr(np, name)  # ufuncs included: they reach the table through __array_ufunc__

    def __dir__(self) -> list[str]:
        return dir(np)


#: NumPy name -> (the op table's implementation, the function the proxy gives for it).
_WRAPPED: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {}


def _traced_function(name: str) -> Callable[..., Any] | None:
    """What the traced function calls for ``numpy.<name>``: the op table's function, or None
    when the table has none."""
    entry = registry.lookup_numpy(name)
    if entry is None or entry.kind != "function":
        return None
    wrapped = _WRAPPED.get(name)
    if wrapped is None or wrapped[0] is not entry.impl:
        wrapped = _WRAPPED[name] = (entry.impl, _taking_selections(name, entry.impl))
    return wrapped[1]


numpy_proxy = _NumpyProxy("numpy", np.__doc__)


def _traced_extreme(builtin: Callable[..., Any], beats: Callable[[Any, Any], Any],
                    index_op: str) -> Callable[..., Any]:
    """The built-in ``max`` or ``min`` for traced scalars: Python's choice (the first argument
    no later one beats, so ``max(1.0, nan)`` is 1.0) made in the kernel, and for sizes the
    size itself; anything else goes to the built-in."""

    def call(*args: Any, **kwargs: Any) -> Any:
        traced = (TracedArray, SymbolicDim)
        if kwargs or len(args) < 2 or not any(isinstance(a, traced) for a in args):
            return builtin(*args, **kwargs)
        if any(isinstance(a, TracedArray) and a.ndim > 0 for a in args):
            return builtin(*args)  # NumPy's: the truth value of an array is ambiguous
        if all(isinstance(a, SymbolicDim) or type(a) is int for a in args):
            result = args[0]
            for a in args[1:]:
                result = (a._binary(index_op, builtin.__name__, result, True) if isinstance(a, SymbolicDim)
                          else result._binary(index_op, builtin.__name__, a, False)
                          if isinstance(result, SymbolicDim) else builtin(result, a))
            return result
        result = args[0]
        for a in args[1:]:
            result = np.where(beats(a, result), a, result)
        return result

    call.__name__ = builtin.__name__
    call.__doc__ = builtin.__doc__
    return call


def _number_type(builtin: type, kind: str) -> type:
    """``int`` or ``float`` as the traced function sees them: of a traced 0-d value that is not a
    size or an argument (which specialise, as before) the conversion is made in the kernel (``int``
    truncates, as Python's), a traced Python number; otherwise, and for ``isinstance``, the
    built-in."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if (len(args) == 1 and not kwargs and isinstance(args[0], TracedArray) and args[0].ndim == 0
                and args[0]._sources is None):
            dtype = "int64" if kind == "int" else "float64"
            return python_scalar(registry.lookup("astype").impl(args[0], dtype), kind)  # type: ignore[union-attr]
        return builtin(*args, **kwargs)

    return _StandIn(builtin.__name__, (builtin,), {"__new__": __new__, "__doc__": builtin.__doc__})


#: Built-ins that answer for traced values, in the traced function's globals.
_BUILTINS: dict[str, Callable[..., Any]] = {
    "int": _number_type(int, "int"),
    "float": _number_type(float, "float"),
    "max": _traced_extreme(builtins.max, lambda a, b: a > b, "maxsi"),
    "min": _traced_extreme(builtins.min, lambda a, b: a < b, "minsi"),
}


def traced_len(obj: Any) -> Any:
    """``len(obj)``: the size of a traced array's first dim (a SymbolicDim when dynamic)."""
    if isinstance(obj, TracedArray):
        if obj.ndim == 0:
            raise TypeError("len() of unsized object")
        return obj.shape[0]
    return builtins.len(obj)


def _replacement(value: Any, seen: dict[int, Any]) -> Any:
    """What ``value`` (a global or closure value of the traced function) becomes while tracing."""
    if value is np:
        return numpy_proxy
    if value is math:
        return math_proxy
    if callable(value) and value in MATH_FUNCTIONS:
        return MATH_FUNCTIONS[value]
    if isinstance(value, np.vectorize):  # ``@np.vectorize`` outside: the traced stand-in
        return registry.lookup("vectorize").impl(  # type: ignore[union-attr]
            value.pyfunc, otypes=value.otypes or None, excluded=value.excluded, cache=value.cache,
            signature=value.signature)
    if value is np.random:
        return random_proxy
    if value is np.random.default_rng:
        return _seeded_default_rng
    if _draws_from_global_state(value):
        return _refused_draw(value.__name__)
    if callable(value):
        name = getattr(value, "__name__", None)
        module = getattr(value, "__module__", "") or ""
        if isinstance(value, type):
            for np_name, stand_in in _TYPES.items():
                if getattr(np, np_name, None) is value:
                    return stand_in
        if name and (module == "numpy" or module.startswith("numpy.")) and getattr(np, name, None) is value:
            traced = _traced_function(name)
            if traced is not None:
                return traced
    if isinstance(value, types.FunctionType) and not _is_library(value):
        # a helper's loops are compiled as the function's own are
        return with_numpy_proxy(rewrite_loops(value)[0], seen)
    return value


def as_traced(value: Any) -> Any:
    """What ``value`` (a function given to a traced operation: ``np.vectorize(f)``) becomes
    while tracing, as the traced function's own globals do (a helper's loops and branches
    compiled, ``math.erf`` the ufunc)."""
    return _replacement(value, {})


def _is_library(fn: types.FunctionType) -> bool:
    """Functions of NumPy, dlbridge and other installed packages are called as they are."""
    module = fn.__module__ or ""
    root = module.split(".")[0]
    return root in ("numpy", "dlbridge", "builtins") or fn.__code__.co_filename.startswith("<frozen")


def _global_names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the functions defined in it (which share its globals) read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def with_numpy_proxy(fn: Callable[..., Any], seen: dict[int, Any] | None = None) -> Callable[..., Any]:
    """``fn`` with the proxy in place of NumPy in its globals and closure (see the module)."""
    if not isinstance(fn, types.FunctionType):
        return fn
    seen = {} if seen is None else seen
    if id(fn) in seen:
        return seen[id(fn)]  # type: ignore[no-any-return]
    names = _global_names(fn.__code__)
    glb = dict(fn.__globals__)
    clone = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
    seen[id(fn)] = clone
    for name in names:
        if name in glb:
            glb[name] = _replacement(glb[name], seen)
    if "len" in names and "len" not in fn.__globals__:
        glb["len"] = traced_len
    for name, replacement in _BUILTINS.items():
        if name in names and name not in fn.__globals__:
            glb[name] = replacement
    if fn.__closure__:
        cells = []
        for cell in fn.__closure__:
            try:
                cells.append(types.CellType(_replacement(cell.cell_contents, seen)))
            except ValueError:  # an empty cell (a name assigned later)
                cells.append(cell)
        clone = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, tuple(cells))
        seen[id(fn)] = clone
    clone.__kwdefaults__ = fn.__kwdefaults__
    clone.__dict__.update(fn.__dict__)
    clone.__qualname__ = fn.__qualname__
    clone.__module__ = fn.__module__
    return clone

