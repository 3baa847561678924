"""NumPy protocol hooks: ``np.exp(x)``, ``np.where(c, x, y)``, ``np.sum(x, axis=1)``... on traced
arrays run the operation the op table declares for that NumPy name; anything else raises a
TraceError naming the NumPy function and the user's line."""

from __future__ import annotations

from typing import Any

from . import inplace, ops, registry
from .tracer import unsupported

__all__ = ["array_function", "array_ufunc"]

#: ``ufunc.reduce`` → the reduction it is.
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}


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
        with_dtype = name in ("add", "multiply")
        return ops.reduce(_REDUCE[name], inputs[0], axis=axis, keepdims=keepdims,
                          dtype=dtype if with_dtype else None)
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
    declared = registry.lookup_numpy(name)
    if declared is None or declared.kind != "ufunc" or declared.arity != len(inputs):
        raise unsupported(qual)
    r = declared.impl(*inputs)
    if dtype is not None:
        r = ops.astype(r, dtype)
    if out is not None:
        return inplace.assign(out, r, op=f"{qual}(out=...)", casting=casting, ufunc_name=name)
    return r


def array_function(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Implementation of ``TracedArray.__array_function__``."""
    mod = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", repr(func))
    declared = registry.lookup_numpy(name) if mod == "numpy" or mod.startswith("numpy.") else None
    if declared is None:
        raise unsupported(f"{mod}.{name}" if mod else name)
    return declared.impl(*args, **kwargs)
