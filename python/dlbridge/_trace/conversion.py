"""Array conversion inside a traced function: ``np.asarray``, ``np.asanyarray``,
``np.ascontiguousarray``, ``np.asfortranarray``, ``np.array`` and ``ndarray.item``.

NumPy's own ``np.asarray`` cannot return a traced value (``TracedArray.__array__`` refuses), so
these are op-table functions that the NumPy proxy hands out.  They take traced arrays, dynamic
sizes (``SymbolicDim``) and (nested) lists and tuples mixing traced values and numbers, which
become the stack of their items (``np.array([a[0, 0], a[1, 1]])``, ``np.array(x.shape)``), with
NumPy 2's copy semantics: ``np.array`` copies unless ``copy=False``/``None``, the ``as*array``
functions give the argument itself when no conversion is needed (so writes through the result
update it, as in NumPy), and ``copy=False`` where a copy is needed is NumPy's ValueError.
Called on nothing traced, each is NumPy's own function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as D
from . import elementwise, lowering, shapes
from .creation import array_operand
from .errors import trace_error, unsupported
from .indexing import getitem
from .registry import op
from .traced_array import SymbolicDim, TracedArray

__all__ = ["array", "asarray", "item"]

_NO_COPY = (
    "Unable to avoid copy while creating an array as requested.\n"
    "If using `np.array(obj, copy=False)` replace it with `np.asarray(obj)` to allow a copy when "
    "needed (no behavior change in NumPy 1.x).\n"
    "For more details, see https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
    "#adapting-to-changes-in-the-copy-keyword."
)


def _is_numpy_array(x: TracedArray) -> bool:
    """Whether NumPy would hold ``x`` as an array, not as a scalar (``a.sum()``, ``a[0, 0]``,
    a Python number argument): converting a scalar always makes a new array."""
    return not x.is_scalar and (x.ndim > 0 or x._arg is not None) and x.weak is None


def _laid_out(x: TracedArray, order: Any) -> bool:
    """Whether ``x`` already has the memory order ``order`` asks for, so that NumPy would give
    it back without a copy: arrays of at most one dim have every order; for more, ``"C"`` holds
    for whole arrays and views of a block of leading rows' shape (not a transposed or strided
    view), ``"F"`` only for the transpose of a whole array."""
    if order in (None, "K", "A") or x.ndim <= 1:
        return True
    base, perm, region = x._base, x._perm, x._region
    if order == "C":
        return base is None or (perm is not None and list(perm) == list(range(len(perm))) and region is None)
    return base is not None and perm is not None and list(perm) == list(range(len(perm)))[::-1] and region is None


def _convert(name: str, a: Any, dtype: Any, copy: Any, order: Any, ndmin: int) -> Any:
    """``a`` as a traced array of ``dtype`` with at least ``ndmin`` dims; ``copy``: True (always
    a new array), None (only when needed) or False (never: NumPy's ValueError when needed)."""
    if order not in (None, "K", "A", "C", "F"):
        raise trace_error(f"{name}: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})", ValueError)
    if isinstance(copy, np.bool_):
        copy = bool(copy)
    ctx = lowering.context_of(*(v for v in (a,) if isinstance(v, TracedArray)))
    if isinstance(a, (list, tuple)):
        if copy is False:
            raise trace_error(_NO_COPY, ValueError)
        x = array_operand(ctx, a, f"numpy.{name}")
        fresh = True
    elif isinstance(a, SymbolicDim):
        if copy is False:
            raise trace_error(_NO_COPY, ValueError)
        x = lowering.to_tensor(ctx, a.as_array(weak=False))
        fresh = True
    elif isinstance(a, TracedArray):
        x = lowering.lift(ctx, a, f"numpy.{name}")
        fresh = not _is_numpy_array(x)
        if fresh:
            if copy is False:
                raise trace_error(_NO_COPY, ValueError)
            x = lowering.to_tensor(ctx, x) if x.is_scalar else lowering.copy(x)
            if x.weak is not None:
                x = elementwise.astype(x, x.element_type.name)
    else:
        raise unsupported(f"numpy.{name}", f"an argument of type {type(a).__name__}")
    if dtype is not None:
        try:
            dt = D.dtype(dtype)
        except TypeError as error:
            raise unsupported(f"numpy.{name}", str(error)) from None
        if dt != x.element_type:
            if copy is False and not fresh:
                raise trace_error(_NO_COPY, ValueError)
            x = elementwise.astype(x, dt.name)
            fresh = True
    if not fresh and not _laid_out(x, order):
        if copy is False:
            raise trace_error(_NO_COPY, ValueError)
        x, fresh = lowering.copy(x), True
    if copy is True and not fresh:
        x = lowering.copy(x)
    if x.ndim < ndmin:
        x = lowering.expand_units(ctx, x, list(range(ndmin - x.ndim)))
    return x


def _numpy_copy_arg(copy: Any) -> dict[str, Any]:
    return {} if copy is None else {"copy": copy}


@op("asarray")
def asarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None, copy: Any = None,
            like: Any = None) -> Any:
    """``a`` as an array: ``a`` itself when it is one of ``dtype`` already."""
    if not lowering.holds_traced(a):
        return np.asarray(a, dtype=dtype, order=order, **_numpy_copy_arg(copy))
    return _convert("asarray", a, dtype, copy, order, 0)


@op("asanyarray")
def asanyarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None, copy: Any = None,
               like: Any = None) -> Any:
    """``a`` as an array (traced arrays have no subclasses: ``asarray``)."""
    if not lowering.holds_traced(a):
        return np.asanyarray(a, dtype=dtype, order=order, **_numpy_copy_arg(copy))
    return _convert("asanyarray", a, dtype, copy, order, 0)


@op("ascontiguousarray")
def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> Any:
    """``a`` as an array of at least one dim in C order (``a`` itself when it is one)."""
    if not lowering.holds_traced(a):
        return np.ascontiguousarray(a, dtype=dtype)
    return _convert("ascontiguousarray", a, dtype, None, "C", 1)


@op("asfortranarray")
def asfortranarray(a: Any, dtype: Any = None, *, like: Any = None) -> Any:
    """``a`` as an array of at least one dim in Fortran order: a copy unless ``a`` is one."""
    if not lowering.holds_traced(a):
        return np.asfortranarray(a, dtype=dtype)
    return _convert("asfortranarray", a, dtype, None, "F", 1)


@op("array")
def array(object: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K", subok: bool = False,  # noqa: A002
          ndmin: int = 0, like: Any = None) -> Any:
    """A new array holding ``object`` (with ``copy=None``/``False``, ``object`` itself where no
    conversion is needed)."""
    if not lowering.holds_traced(object):
        return np.array(object, dtype=dtype, copy=copy, order=order, subok=subok, ndmin=ndmin)
    if isinstance(ndmin, bool) or not isinstance(ndmin, (int, np.integer)):
        raise trace_error(f"numpy.array: ndmin must be an integer, not {type(ndmin).__name__}", TypeError)
    if ndmin > 64:
        raise trace_error("ndmin bigger than allowable number of dimensions NPY_MAXDIMS (=64)", ValueError)
    return _convert("array", object, dtype, copy, order, int(ndmin))


@op("item", numpy=(), method="item")
def item(a: Any, *args: Any) -> Any:
    """One element of ``a`` as a Python scalar would be: a weakly typed traced scalar (a Python
    float, int, complex or bool in NumPy's arithmetic). Without arguments ``a`` must have one
    element; one argument is a flat index (C order), several a multi-index."""
    ctx = lowering.context_of(a)
    x = lowering.to_tensor(ctx, lowering.lift(ctx, a, "ndarray.item"))
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if not args:
        if any(d is not None and d != 1 for d in x.dims):
            raise trace_error("can only convert an array of size 1 to a Python scalar", ValueError)
        if x.ndim:
            flat = shapes.reshape(x, -1)
            size = flat.shape[0]
            if isinstance(size, SymbolicDim):
                lowering.runtime_check(elementwise.binary("equal", size.as_array(), 1), "invalid_argument",
                                       "can only convert an array of size 1 to a Python scalar")
            x = getitem(flat, 0)
    elif len(args) == 1:
        x = getitem(shapes.reshape(x, -1), args[0])
    else:
        if len(args) != x.ndim:
            raise trace_error("incorrect number of indices for array", ValueError)
        x = getitem(x, tuple(args))
    if isinstance(x, TracedArray) and x.ndim:
        raise trace_error("ndarray.item: an index must be an integer", TypeError)
    dt = x.element_type
    kind = "bool" if dt.is_bool else "int" if dt.is_int else "complex" if dt.is_complex else "float"
    scalar = elementwise.astype(x, D.default_dtype_of_kind(kind).name)
    return TracedArray(ctx, lowering.scalar_ssa(scalar), scalar.element_type, (), weak=kind, is_scalar=True)
