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
from .traced_array import SymbolicDim, TracedArray, derived_view, known_c_contiguous

__all__ = ["array", "asarray", "item", "require"]

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


def _c_layout(x: TracedArray) -> str:
    """Whether NumPy's ``x`` is C-contiguous: ``"yes"``, ``"no"`` or ``"unknown"`` (it depends on
    the memory layout of the argument it is, or views, which the trace does not know)."""
    if x.ndim == 0 or known_c_contiguous(x):
        return "yes"
    root = x._base if x._base is not None else x
    if x._base is not None and any(s.write is None or s.op in ("real", "imag") for s in x._path):
        return "no"  # broadcast, a diagonal, a complex part: strided
    if root._arg is not None:
        return "unknown"
    return "no"  # a view of an array the function made that is not all of it in order


def _layout(x: TracedArray, order: Any) -> str:
    """Whether ``x`` already has the memory order ``order`` asks for, so that NumPy gives it back
    without a copy (see :func:`_c_layout`); ``"F"``: the transpose of a C-contiguous array."""
    if order in (None, "K", "A"):
        return "yes"
    if order == "C" or x.ndim <= 1:
        return _c_layout(x)
    if sum(d != 1 for d in x.dims) <= 1 and all(d is not None for d in x.dims):
        return _c_layout(x)
    if x._base is not None and x._perm is not None and list(x._perm) == list(range(x.ndim))[::-1] \
            and x._region is None:
        return _c_layout(x._base)
    return "no" if _c_layout(x) == "yes" else _c_layout(x)


def _layout_dependent(x: TracedArray, name: str, condition: str) -> TracedArray:
    """A copy of ``x`` where NumPy's ``name`` gives ``x`` itself when it is ``condition`` and a
    copy otherwise, which the trace cannot tell: reading it is right either way; writing it, or
    reading it after ``x`` changed, is refused (a TraceError naming why)."""
    why = (f"writing the result of numpy.{name} of an array whose memory layout is not known while "
           f"tracing (an argument, or a view of one): NumPy's result is the array itself when it is "
           f"{condition} and a copy otherwise; use numpy.array(x) for a copy, or update the array itself")
    return derived_view(x, lowering.copy(x), f"numpy.{name}", lowering.copy, lambda _p, new: new, layout=why)


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
    laid = "yes" if fresh else _layout(x, order)
    if laid == "no":
        if copy is False:
            raise trace_error(_NO_COPY, ValueError)
        x, fresh = lowering.copy(x), True
    elif laid == "unknown" and copy is not False:
        if copy is True:
            x = lowering.copy(x)
        else:
            x = _layout_dependent(x, name, "C-contiguous" if order == "C" else "Fortran-contiguous")
        fresh = True
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


#: ``numpy.require``'s requirement names.
_REQUIREMENTS = {
    "C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C",
    "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
    "A": "A", "ALIGNED": "A",
    "W": "W", "WRITEABLE": "W",
    "O": "O", "OWNDATA": "O",
    "E": "E", "ENSUREARRAY": "E",
}


@op("require")
def require(a: Any, dtype: Any = None, requirements: Any = None, *, like: Any = None) -> Any:
    """``a`` as an array of ``dtype`` meeting ``requirements`` (``"C"``/``"F"`` contiguous,
    ``"A"`` aligned, ``"W"`` writeable, ``"O"`` owning its data, ``"E"`` a base-class array): ``a``
    itself when it meets them, else a copy, as NumPy's."""
    if not lowering.holds_traced(a):
        return np.require(a, dtype=dtype, requirements=requirements)
    if not requirements:
        return _convert("require", a, dtype, None, None, 0)
    reqs: set[str] = set()
    for r in requirements:  # a string is its letters, as NumPy reads it
        if str(r).upper() not in _REQUIREMENTS:
            raise trace_error(f"numpy.require: unknown requirement {r!r} (NumPy's KeyError)")
        reqs.add(_REQUIREMENTS[str(r).upper()])
    reqs.discard("E")
    reqs.discard("A")
    if {"C", "F"} <= reqs:
        raise trace_error('Cannot specify both "C" and "F" order', ValueError)
    order = "C" if "C" in reqs else "F" if "F" in reqs else "A"
    x = _convert("require", a, dtype, None, order, 0)
    if x is not a:
        return x  # a new array: it owns its data and is writeable
    readonly = x._base is not None and any(s.write is None for s in x._path)
    if ("W" in reqs and readonly) or ("O" in reqs and x._base is not None):
        return lowering.copy(x)
    if "O" in reqs and x._arg is not None:
        return _layout_dependent(x, "require", "the owner of its data")
    return x


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
