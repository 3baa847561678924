"""NumPy protocol hooks: ``np.exp(x)``, ``np.where(c, x, y)``, ``np.sum(x, axis=1)``... on traced
arrays trace like the corresponding dlbridge functions; anything else raises a TraceError naming
the NumPy function and the user's line."""

from __future__ import annotations

from typing import Any, Callable

from . import inplace, ops, registry
from .tracer import unsupported

_BINARY = {
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "power", "maximum", "minimum", "greater", "greater_equal", "less", "less_equal", "equal",
    "not_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor",
}
_ALIAS = {"true_divide": "divide", "mod": "remainder", "bitwise_not": "invert", "bitwise_invert": "invert", "abs": "absolute"}
_UNARY = {
    "negative", "positive", "absolute", "exp", "log", "sqrt", "tanh", "sin", "cos", "erf",
    "logical_not", "invert", "bitwise_not", "square",
}
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}


class _NoValue:
    pass


_NV = _NoValue()


def array_ufunc(ufunc: Any, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Implementation of ``TracedArray.__array_ufunc__``."""
    name = getattr(ufunc, "__name__", str(ufunc))
    qual = f"numpy.{name}" if name != "erf" else "erf"
    out = kwargs.pop("out", None)
    if isinstance(out, tuple):
        if len(out) != 1:
            raise unsupported(qual, f"out= with {len(out)} arrays")
        out = out[0]
    if out is not None and method != "__call__":
        raise unsupported(f"{qual}.{method}", "out= is not supported")
    if method == "reduce" and name in _REDUCE:
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        dtype = kwargs.pop("dtype", None)
        if kwargs:
            raise unsupported(f"{qual}.reduce", f"arguments {sorted(kwargs)}")
        return ops.reduce(_REDUCE[name], inputs[0], axis=axis, keepdims=keepdims, dtype=dtype if name in ("add", "multiply") else None)
    if method != "__call__":
        raise unsupported(f"{qual}.{method}")
    dtype = kwargs.pop("dtype", None)
    casting = kwargs.pop("casting", "same_kind")
    if casting not in ("same_kind", "unsafe"):
        raise unsupported(qual, f"argument casting={casting!r}")
    for k, v in kwargs.items():
        if k == "where" and v is True:
            continue
        if k in ("order", "subok", "signature") and v in ("K", True, None):
            continue
        raise unsupported(qual, f"argument {k}={v!r}")
    n = _ALIAS.get(name, name)
    if n in _BINARY and len(inputs) == 2:
        r = ops.binary(n, inputs[0], inputs[1])
    elif n in _UNARY and len(inputs) == 1:
        r = ops.unary(n, inputs[0])
    elif n == "matmul" and len(inputs) == 2:
        r = ops.matmul(inputs[0], inputs[1])
    else:
        declared = registry.lookup_numpy(n)
        if declared is None or declared.kind != "ufunc" or declared.arity != len(inputs):
            raise unsupported(qual)
        r = declared.impl(*inputs)
    if dtype is not None:
        r = ops.astype(r, dtype)
    if out is not None:
        return inplace.assign(out, r, op=f"{qual}(out=...)", casting=casting, ufunc_name=name)
    return r


def _np_where(condition: Any, x: Any = _NV, y: Any = _NV) -> Any:
    if x is _NV or y is _NV:
        raise unsupported("numpy.where", "the one-argument form (nonzero) has a data-dependent shape")
    return ops.where(condition, x, y)


def _reduction(kind: str, has_dtype: bool) -> Callable[..., Any]:
    def impl(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        names = (["dtype"] if has_dtype else []) + ["out", "keepdims"]
        for k, v in zip(names, args):
            kwargs[k] = v
        out = kwargs.pop("out", None)
        ops._no_out(out, f"numpy.{kind}")
        keepdims = kwargs.pop("keepdims", False)
        dtype = kwargs.pop("dtype", None)
        for k, v in kwargs.items():
            if v is _NV or (k == "where" and v is True):
                continue
            raise unsupported(f"numpy.{kind}", f"argument {k}={v!r}")
        return ops.reduce(kind, a, axis=axis, keepdims=bool(keepdims), dtype=dtype)

    return impl


def _np_reshape(a: Any, *args: Any, **kwargs: Any) -> Any:
    shape = args[0] if args else kwargs.pop("shape", kwargs.pop("newshape", None))
    order = args[1] if len(args) > 1 else kwargs.pop("order", "C")
    kwargs.pop("copy", None)
    if order != "C" or kwargs:
        raise unsupported("numpy.reshape", f"order={order!r}" if order != "C" else f"arguments {sorted(kwargs)}")
    return ops.reshape(a, shape)


def _np_transpose(a: Any, axes: Any = None) -> Any:
    return ops.transpose(a, None if axes is None else tuple(axes))


def _np_astype(x: Any, dtype: Any, copy: bool = True, **kwargs: Any) -> Any:
    return ops.astype(x, dtype, copy=copy)


def _unary_fn(name: str) -> Callable[..., Any]:
    return lambda x, *a, **k: array_ufunc(type("U", (), {"__name__": name})(), "__call__", (x, *a), dict(k))


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "where": _np_where,
    "sum": _reduction("sum", True),
    "mean": _reduction("mean", True),
    "max": _reduction("max", False),
    "amax": _reduction("max", False),
    "min": _reduction("min", False),
    "amin": _reduction("min", False),
    "reshape": _np_reshape,
    "transpose": _np_transpose,
    "matmul": lambda a, b, **k: ops.matmul(a, b),
    "astype": _np_astype,
    "ndim": lambda a: a.ndim,
    "shape": lambda a: a.shape,
    "permute_dims": _np_transpose,
    "matrix_transpose": lambda a: a.mT,
    "copyto": inplace.copyto,
}


def array_function(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Implementation of ``TracedArray.__array_function__``."""
    mod = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", repr(func))
    impl = None
    if mod == "numpy" or mod.startswith("numpy."):
        impl = _FUNCTIONS.get(name)
        declared = registry.lookup_numpy(name) if impl is None else None
        impl = declared.impl if declared is not None else impl
    if impl is None:
        raise unsupported(f"{mod}.{name}" if mod else name)
    return impl(*args, **kwargs)
