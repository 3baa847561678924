"""The op table's entries for the operations ``ops.py`` emits: arithmetic, comparison, bitwise
and logical ufuncs, the float functions of the first version, ``matmul``, ``where``, the basic
reductions, ``reshape``/``transpose``/``astype`` and ``copyto``."""

from __future__ import annotations

from typing import Any

from . import inplace, ops
from .registry import op
from .tracer import unsupported

__all__: list[str] = []

#: name → (NumPy aliases, dtype rule)
_BINARY: dict[str, tuple[tuple[str, ...], str]] = {
    "add": ((), "promote"),
    "subtract": ((), "promote"),
    "multiply": ((), "promote"),
    "divide": (("true_divide",), "float"),
    "floor_divide": ((), "promote"),
    "remainder": (("mod",), "promote"),
    "power": ((), "promote"),
    "maximum": ((), "promote"),
    "minimum": ((), "promote"),
    "less": ((), "bool"),
    "less_equal": ((), "bool"),
    "greater": ((), "bool"),
    "greater_equal": ((), "bool"),
    "equal": ((), "bool"),
    "not_equal": ((), "bool"),
    "bitwise_and": ((), "int"),
    "bitwise_or": ((), "int"),
    "bitwise_xor": ((), "int"),
    "logical_and": ((), "bool"),
    "logical_or": ((), "bool"),
    "logical_xor": ((), "bool"),
}

#: name → (NumPy names, dtype rule); NumPy has neither erf nor sigmoid: ``erf`` is what
#: ``scipy.special.erf``, a ufunc, dispatches to.
_UNARY: dict[str, tuple[tuple[str, ...], str]] = {
    "negative": (("negative",), "same"),
    "positive": (("positive",), "same"),
    "absolute": (("absolute", "abs"), "same"),
    "invert": (("invert", "bitwise_not", "bitwise_invert"), "int"),
    "logical_not": (("logical_not",), "bool"),
    "square": (("square",), "same"),
    "exp": (("exp",), "float"),
    "log": (("log",), "float"),
    "sqrt": (("sqrt",), "float"),
    "tanh": (("tanh",), "float"),
    "sin": (("sin",), "float"),
    "cos": (("cos",), "float"),
    "erf": (("erf",), "float"),
    "sigmoid": ((), "float"),
}


def _declare_binary(name: str, aliases: tuple[str, ...], rule: str) -> None:
    def impl(x1: Any, x2: Any) -> Any:
        return ops.binary(name, x1, x2)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"Elementwise ``numpy.{name}``."
    op(name, numpy=(name, *aliases), kind="ufunc", arity=2, dtype_rule=rule)(impl)


def _declare_unary(name: str, numpy_names: tuple[str, ...], rule: str) -> None:
    def impl(x: Any) -> Any:
        return ops.unary(name, x)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"Elementwise {name}."
    op(name, numpy=numpy_names, kind="ufunc", arity=1, dtype_rule=rule)(impl)


for _name, (_aliases, _rule) in _BINARY.items():
    _declare_binary(_name, _aliases, _rule)
for _name, (_names, _rule) in _UNARY.items():
    _declare_unary(_name, _names, _rule)


@op("matmul", kind="ufunc", arity=2, dtype_rule="promote")
def matmul(x1: Any, x2: Any) -> Any:
    """Matrix product with NumPy's rules for 1-D and batched operands."""
    return ops.matmul(x1, x2)


class _NoValue:
    """NumPy's "argument not given" (``np.where(c)`` has no x and y)."""


_NV = _NoValue()


@op("where", dtype_rule="promote")
def where(condition: Any, x: Any = _NV, y: Any = _NV) -> Any:
    """``x`` where ``condition`` else ``y``, with broadcasting."""
    if x is _NV or y is _NV:
        raise unsupported("numpy.where", "the one-argument form (nonzero) has a data-dependent shape")
    return ops.where(condition, x, y)


def _reduction(kind: str, has_dtype: bool, numpy_names: tuple[str, ...], rule: str) -> None:
    def impl(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        names = (["dtype"] if has_dtype else []) + ["out", "keepdims"]
        for k, v in zip(names, args):
            kwargs[k] = v
        ops._no_out(kwargs.pop("out", None), f"numpy.{kind}")
        keepdims = kwargs.pop("keepdims", False)
        dtype = kwargs.pop("dtype", None)
        for k, v in kwargs.items():
            if v is _NV or (k == "where" and v is True):
                continue
            raise unsupported(f"numpy.{kind}", f"argument {k}={v!r}")
        return ops.reduce(kind, a, axis=axis, keepdims=bool(keepdims), dtype=dtype)

    impl.__name__ = impl.__qualname__ = kind
    impl.__doc__ = f"``{kind}`` over ``axis`` (int, tuple or None = all)."
    op(kind, numpy=numpy_names, method=kind, dtype_rule=rule)(impl)


_reduction("sum", True, ("sum",), "promote")
_reduction("mean", True, ("mean",), "float")
_reduction("max", False, ("max", "amax"), "same")
_reduction("min", False, ("min", "amin"), "same")


@op("reshape", dtype_rule="same")
def reshape(a: Any, *args: Any, **kwargs: Any) -> Any:
    """Reshape in C order; sizes are ints, at most one -1, or dynamic sizes."""
    shape = args[0] if args else kwargs.pop("shape", kwargs.pop("newshape", None))
    order = args[1] if len(args) > 1 else kwargs.pop("order", "C")
    kwargs.pop("copy", None)
    if order != "C" or kwargs:
        raise unsupported("numpy.reshape", f"order={order!r}" if order != "C" else f"arguments {sorted(kwargs)}")
    return ops.reshape(a, shape)


@op("ravel", method="ravel", dtype_rule="same")
def ravel(a: Any, order: str = "C") -> Any:
    """The elements in C order as a 1-D array (a view where the layout allows)."""
    if order != "C":
        raise unsupported("numpy.ravel", f"order={order!r}")
    return ops.reshape(a, (-1,))


@op("transpose", numpy=("transpose", "permute_dims"), dtype_rule="same")
def transpose(a: Any, axes: Any = None) -> Any:
    """Permute dims (``axes=None`` reverses them)."""
    return ops.transpose(a, None if axes is None else tuple(axes))


@op("matrix_transpose", dtype_rule="same")
def matrix_transpose(x: Any) -> Any:
    """Swap the last two dims."""
    return x.mT


@op("astype", method="astype", dtype_rule="explicit")
def astype(x: Any, dtype: Any, copy: bool = True, **kwargs: Any) -> Any:
    """Convert to ``dtype`` (NumPy casting semantics)."""
    return ops.astype(x, dtype, copy=copy)


@op("copyto", dtype_rule="explicit")
def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """``np.copyto(dst, src)`` into a traced array."""
    inplace.copyto(dst, src, casting, where)


@op("ndim", dtype_rule="explicit")
def ndim(a: Any) -> int:
    """The number of dims."""
    return a.ndim  # type: ignore[no-any-return]


@op("shape", dtype_rule="explicit")
def shape(a: Any) -> tuple[Any, ...]:
    """The shape (dynamic sizes as SymbolicDims)."""
    return a.shape  # type: ignore[no-any-return]

