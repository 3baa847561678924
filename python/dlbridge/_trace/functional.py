"""NumPy's functional forms: ``apply_along_axis``, ``apply_over_axes``, ``piecewise`` and
``vectorize``.

``apply_along_axis`` is NumPy's own algorithm as a traced program: the function's result on the
first 1-d slice fixes the result's shape and dtype, and the other slices are one ``scf.for`` (the
loop rewrite of a user's function, ``loop_source``) whose body is the user's function traced
once, so any number of slices compiles to the same few lines.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import creation, elementwise, lowering
from .errors import trace_error, unsupported
from .loop_source import rewrite_loops
from .numpy_proxy import as_traced
from .numpy_proxy import numpy_proxy as xp
from .registry import op

__all__ = ["Vectorized", "apply_along_axis", "apply_over_axes", "piecewise", "vectorize"]


def _axis(axis: Any, ndim: int, name: str) -> int:
    """``axis`` within ``ndim`` dims, NumPy's AxisError when it is not."""
    try:
        return int(normalize_axis_index(operator.index(axis), ndim))
    except TypeError:
        raise trace_error(f"numpy.{name}: axis must be an integer, not {axis!r}", TypeError) from None
    except np.exceptions.AxisError as error:
        raise trace_error(str(error), np.exceptions.AxisError) from None


def _slices_applied(func1d: Callable[..., Any], rows: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``func1d`` of each row of ``rows``, stacked: the first row's result gives the shape and
    dtype the others are stored in (cast as NumPy's assignment casts)."""
    first = xp.asanyarray(func1d(rows[0], *args, **kwargs))
    out = xp.empty_like(rows, shape=(rows.shape[0], *first.shape), dtype=first.dtype)
    out[0] = first
    for i in range(1, rows.shape[0]):
        out[i] = func1d(rows[i], *args, **kwargs)
    return out


_traced_slices_applied = rewrite_loops(_slices_applied)[0]


@op("apply_along_axis")
@lowering.numpy_unless_traced(np.apply_along_axis)
def apply_along_axis(func1d: Callable[..., Any], axis: Any, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """``func1d`` of every 1-d slice along ``axis``; its result's dims replace ``axis``."""
    a = creation.array_operand(lowering.context_of(arr, *args, *kwargs.values()), arr, "numpy.apply_along_axis")
    ax = _axis(axis, a.ndim, "apply_along_axis")
    moved = xp.moveaxis(a, ax, -1)
    lead = tuple(moved.shape[:-1])
    count: Any = 1
    for d in lead:
        count = count * d
    if isinstance(count, int):
        if count == 0:
            raise trace_error("Cannot apply_along_axis when any iteration dimensions are 0", ValueError)
    else:
        lowering.runtime_check(elementwise.binary("greater", count.as_array(), 0), "invalid_argument",
                               "Cannot apply_along_axis when any iteration dimensions are 0")
    rows = xp.reshape(moved, (count, moved.shape[-1]))
    out = _traced_slices_applied(func1d, rows, args, kwargs)
    result_dims = tuple(out.shape[1:])
    out = xp.reshape(out, (*lead, *result_dims))
    k, n_lead = len(result_dims), len(lead)
    perm = [*range(ax), *range(n_lead, n_lead + k), *range(ax, n_lead)]
    return xp.transpose(out, perm) if perm != list(range(n_lead + k)) else out


@op("apply_over_axes")
@lowering.numpy_unless_traced(np.apply_over_axes)
def apply_over_axes(func: Callable[..., Any], a: Any, axes: Any) -> Any:
    """``func(a, axis)`` for each of ``axes`` in turn, keeping the reduced axis (NumPy's rule)."""
    val = creation.array_operand(lowering.context_of(a), a, "numpy.apply_over_axes")
    for axis in np.atleast_1d(np.asarray(axes)):
        ax = int(axis) + val.ndim if axis < 0 else int(axis)  # unchecked: func decides, as in NumPy
        res = func(val, ax)
        if np.ndim(res) != val.ndim:
            res = xp.expand_dims(res, ax)
            if np.ndim(res) != val.ndim:
                raise trace_error("function is not returning an array of the correct shape", ValueError)
        val = res
    return val


@op("piecewise")
@lowering.numpy_unless_traced(np.piecewise)
def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Any:
    """``funclist[i]`` (a function of the selected elements, or a value) where ``condlist[i]``
    holds, later conditions winning, 0 elsewhere or the extra function's values where none
    holds (NumPy's algorithm: ``y[cond] = func(x[cond])``, a select for elementwise functions)."""
    x = xp.asanyarray(x)
    n2 = len(funclist)
    first = condlist[0] if not np.isscalar(condlist) else None
    if np.isscalar(condlist) or (not (isinstance(first, (list, np.ndarray)) or getattr(first, "ndim", 0) > 0)
                                 and x.ndim != 0):
        condlist = [condlist]
    conds = [xp.asarray(c, dtype=bool) for c in condlist]
    n = len(conds)
    if n == n2 - 1:  # the "otherwise" condition
        conds.append(xp.logical_not(xp.any(xp.stack(conds), axis=0)))
        n += 1
    elif n != n2:
        raise trace_error(f"with {n} condition(s), either {n} or {n + 1} functions are expected", ValueError)
    y = xp.zeros_like(x)
    for cond, func in zip(conds, funclist):
        if x.ndim == 0:  # a 0-d selection is the element or nothing
            value = func(x, *args, **kw) if callable(func) else func
            y = xp.where(cond, xp.asarray(value).astype(y.dtype), y)
        elif not callable(func):
            y[cond] = func
        else:
            y[cond] = func(x[cond], *args, **kw)
    return y


def _elements_applied(func: Callable[..., Any], flats: list[Any], dtype: Any, first: Any) -> Any:
    """``func`` of the elements at each position of the equal-length 1-d ``flats``, stored in
    ``dtype`` (NumPy's assignment casts); ``first`` is its result at position 0 when computed."""
    n = flats[0].shape[0]
    out = xp.empty_like(flats[0], shape=(n,), dtype=dtype)
    start = 0
    if first is not None:
        out[0] = first
        start = 1
    for i in range(start, n):
        out[i] = func(*[f[i] for f in flats])
    return out


_traced_elements_applied = rewrite_loops(_elements_applied)[0]


class Vectorized:
    """``np.vectorize(pyfunc, otypes=..., excluded=...)`` in a traced function: called on traced
    arrays, ``pyfunc`` runs on the elements of their broadcast, one loop whose body is ``pyfunc``
    traced once on scalars (its branches on the values become ``scf.if``), the result dtype the
    first ``otypes`` entry or that of ``pyfunc``'s result on the first elements, as NumPy's."""

    def __init__(self, pyfunc: Callable[..., Any], otypes: Any = None, doc: Any = None, excluded: Any = None,
                 cache: bool = False, signature: Any = None) -> None:
        self._numpy = np.vectorize(pyfunc, otypes=otypes, doc=doc, excluded=excluded, cache=cache,
                                   signature=signature)
        self.pyfunc = as_traced(pyfunc)
        self.__doc__ = self._numpy.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not lowering.holds_traced(args, kwargs):
            return self._numpy(*args, **kwargs)
        numpy = self._numpy
        if numpy.signature is not None:
            raise unsupported("numpy.vectorize", "signature= (a generalised ufunc)")
        excluded = numpy.excluded
        positions = [k for k in range(len(args)) if k not in excluded]
        names = [k for k in kwargs if k not in excluded]
        ctx = lowering.context_of(*args, *kwargs.values())
        operands = [creation.array_operand(ctx, args[k], "numpy.vectorize") for k in positions]
        operands += [creation.array_operand(ctx, kwargs[k], "numpy.vectorize") for k in names]
        broadcast = xp.broadcast_arrays(*operands)
        shape = tuple(broadcast[0].shape)
        flats = [xp.reshape(b, (-1,)) for b in broadcast]

        def func(*elements: Any) -> Any:
            call_args = list(args)
            for k, e in zip(positions, elements):
                call_args[k] = e
            call_kwargs = dict(kwargs)
            call_kwargs.update(zip(names, elements[len(positions):]))
            return self.pyfunc(*call_args, **call_kwargs)

        first = None
        if numpy.otypes:
            dtype = np.dtype(numpy.otypes[0])
        else:
            count = flats[0].shape[0]
            message = "cannot call `vectorize` on size 0 inputs unless `otypes` is set"
            if isinstance(count, int):
                if count == 0:
                    raise trace_error(message, ValueError)
            else:
                lowering.runtime_check(elementwise.binary("greater", count.as_array(), 0), "invalid_argument", message)
            first = func(*[f[0] for f in flats])
            if isinstance(first, tuple):
                raise unsupported("numpy.vectorize", "a function with several results")
            first = xp.asarray(first)
            dtype = first.dtype
        out = _traced_elements_applied(func, flats, dtype, first)
        return xp.reshape(out, shape)


@op("vectorize")
def vectorize(pyfunc: Any = None, otypes: Any = None, doc: Any = None, excluded: Any = None, cache: bool = False,
              signature: Any = None) -> Any:
    """``np.vectorize``: a :class:`Vectorized` (``@np.vectorize(otypes=...)`` without ``pyfunc``
    gives the decorator)."""
    if pyfunc is None:
        return lambda f: Vectorized(f, otypes, doc, excluded, cache, signature)
    return Vectorized(pyfunc, otypes, doc, excluded, cache, signature)
