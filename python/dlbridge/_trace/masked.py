"""``x[mask]`` for a traced boolean mask: a selection whose size only the mask's values give.

NumPy programs use such selections in a few ways that need no array of that size: arithmetic
on selections by the same mask (``Z[M] ** 2 + C[M]``), reductions over them
(``data[mask].mean()``), and assigning them back through the mask
(``x[x > 0] = x[x > 0] ** -1.5``). A :class:`MaskedSelection` keeps the whole arrays and the
mask instead: arithmetic runs at every element (the unselected results are never read), a
reduction is a masked reduction, and the assignment is a select. Used any other way (returned,
reshaped, indexed, combined with an array), the selection becomes an array: its elements are
gathered at the positions the mask selects (``compaction``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as D
from . import lowering, shapes
from .compaction import flat_positions
from .errors import trace_error, unsupported
from .traced_array import TracedArray

#: NumPy functions of the elements of their array operands, besides ufuncs.
_ELEMENTWISE = {np.where, np.clip}

_ESCAPES = "the number of selected elements is known only when the kernel runs"


class MaskedSelection:
    """``values[mask]`` kept lazily: ``mask`` covers the leading dims of ``values``."""

    __array_priority__ = 1001.0

    def __init__(self, values: TracedArray, mask: TracedArray) -> None:
        self.values = values
        self.mask = mask

    @staticmethod
    def select(x: TracedArray, mask: TracedArray) -> MaskedSelection:
        """``x[mask]``: the mask's dims must be ``x``'s leading dims (checked when they are
        dynamic); ``x``'s contents are taken now, as NumPy copies them."""
        if mask.ndim > x.ndim:
            raise trace_error(f"too many indices for array: array is {x.ndim}-dimensional, but "
                              f"{mask.ndim} were indexed", IndexError)
        for k in range(mask.ndim):
            size, flag = x.shape[k], mask.shape[k]
            if isinstance(size, int) and isinstance(flag, int):
                if size != flag:
                    raise trace_error(f"boolean index did not match indexed array along axis {k}; "
                                      f"size of axis is {size} but size of corresponding boolean "
                                      f"axis is {flag}", IndexError)
                continue
            same = np.equal(lowering.lift(x.context, size), lowering.lift(x.context, flag))
            lowering.runtime_check(same, "index_out_of_range",
                    f"boolean index did not match indexed array along axis {k}; size of axis is "
                    "{0} but size of corresponding boolean axis is {1}", (size, flag))
        return MaskedSelection(lowering.copy(x), mask)

    # ---- what the selection's elements are

    def _wide_mask(self) -> TracedArray:
        """The mask with unit dims for the values' trailing dims."""
        extra = self.values.ndim - self.mask.ndim
        return lowering.expand_units(self.mask.context, self.mask, list(range(self.mask.ndim, self.mask.ndim + extra)))

    def _same_selection(self, other: MaskedSelection, what: str) -> None:
        """Checks that ``other`` selects the same positions: NumPy pairs the k-th selected
        elements of both, which are the same elements only then."""
        mine, theirs = self.mask, other.mask
        if theirs is mine or theirs.value == mine.value or (
                mine._recipe is not None and theirs._recipe == mine._recipe):
            return
        if other.mask.ndim != self.mask.ndim:
            raise unsupported(what, "selections by masks of different ranks")
        same = np.all(np.equal(self.mask, other.mask))
        lowering.runtime_check(same, "shape_mismatch",
                f"{what}: selections by different masks are supported only when the masks are "
                "equal")

    def compact(self) -> TracedArray:
        """The selection as an array: the selected elements (rows, for a mask over leading
        dims) in order, gathered at the positions the mask selects."""
        trailing = tuple(self.values.shape[self.mask.ndim:])
        rows = shapes.reshape(self.values, (-1, *trailing))
        return rows[flat_positions(self.mask)]  # type: ignore[no-any-return]

    def _map(self, fn: Any, *operands: Any, **kwargs: Any) -> Any:
        """``fn`` of the selections and scalars ``operands``: a selection by the same mask; with
        an array among them, ``fn`` of the selections as arrays (NumPy pairs them by position)."""
        if any(isinstance(o, (TracedArray, np.ndarray)) and np.ndim(o) > 0 for o in operands):
            return fn(*(o.compact() if isinstance(o, MaskedSelection) else o for o in operands), **kwargs)
        name = getattr(fn, "__name__", "operation")
        values = []
        for o in operands:
            if isinstance(o, MaskedSelection):
                self._same_selection(o, name)
                o = o.values
            values.append(o)
        return MaskedSelection(fn(*values, **kwargs), self.mask)

    # ---- NumPy protocols

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or "out" in kwargs:
            raise unsupported(f"numpy.{ufunc.__name__}.{method}" if method != "__call__" else
                              f"numpy.{ufunc.__name__}(out=...)", "on x[mask]: " + _ESCAPES)
        if ufunc.nout != 1:
            raise unsupported(f"numpy.{ufunc.__name__}", "on x[mask]: " + _ESCAPES)
        return self._map(ufunc, *inputs, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in _ELEMENTWISE:
            return self._map(func, *args, **kwargs)
        reduction = _REDUCTIONS.get(func.__name__)
        if reduction is not None and args and args[0] is self:
            return reduction(self, *args[1:], **kwargs)
        return func(*_compacted(args), **dict(zip(kwargs, _compacted(kwargs.values()))))

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise unsupported("numpy.asarray", "of x[mask]: " + _ESCAPES)

    def __dlbridge_array__(self) -> TracedArray:
        """What the tracer's operations take this selection as: an array."""
        return self.compact()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compact(), name)

    def __len__(self) -> int:
        raise unsupported("len(x[mask])", _ESCAPES)

    def __iter__(self) -> Any:
        raise unsupported("iteration over x[mask]", _ESCAPES)

    def __bool__(self) -> bool:
        raise unsupported("bool(x[mask])", _ESCAPES)

    def __getitem__(self, key: Any) -> Any:
        return self.compact()[key]

    # ---- methods

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> MaskedSelection:
        return MaskedSelection(self.values.astype(dtype, *args, **kwargs), self.mask)

    def copy(self) -> MaskedSelection:
        return self

    @property
    def dtype(self) -> Any:
        return self.values.dtype

    @property
    def ndim(self) -> int:
        return 1 + self.values.ndim - self.mask.ndim

    @property
    def size(self) -> Any:
        """The number of selected elements (a traced int64)."""
        return _count(self, None)

    def sum(self, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        return _sum(self, axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        return _prod(self, axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        return _mean(self, axis, dtype=dtype, keepdims=keepdims)

    def var(self, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
        return _var(self, axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def std(self, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
        return np.sqrt(_var(self, axis, dtype=dtype, ddof=ddof, keepdims=keepdims))

    def max(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _extreme(self, axis, "max", keepdims=keepdims)

    def min(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _extreme(self, axis, "min", keepdims=keepdims)

    def any(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _any(self, axis, keepdims=keepdims)

    def all(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _all(self, axis, keepdims=keepdims)


def _compacted(values: Any) -> list[Any]:
    """``values`` with every selection as an array, in lists and tuples too."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, MaskedSelection):
            v = v.compact()
        elif isinstance(v, (list, tuple)):
            v = type(v)(_compacted(v))
        out.append(v)
    return out


def _binary(ufunc: Any, reflected: bool = False) -> Any:
    def method(self: MaskedSelection, other: Any) -> Any:
        return self._map(ufunc, other, self) if reflected else self._map(ufunc, self, other)
    return method


for _name, _ufunc in [
    ("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
    ("floordiv", np.floor_divide), ("mod", np.remainder), ("pow", np.power), ("and", np.bitwise_and),
    ("or", np.bitwise_or), ("xor", np.bitwise_xor),
]:
    setattr(MaskedSelection, f"__{_name}__", _binary(_ufunc))
    setattr(MaskedSelection, f"__r{_name}__", _binary(_ufunc, reflected=True))
for _name, _ufunc in [("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                      ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)]:
    setattr(MaskedSelection, f"__{_name}__", _binary(_ufunc))
MaskedSelection.__neg__ = lambda self: self._map(np.negative, self)  # type: ignore[attr-defined]
MaskedSelection.__pos__ = lambda self: self  # type: ignore[attr-defined]
MaskedSelection.__abs__ = lambda self: self._map(np.absolute, self)  # type: ignore[attr-defined]
MaskedSelection.__invert__ = lambda self: self._map(np.invert, self)  # type: ignore[attr-defined]
MaskedSelection.__hash__ = None  # type: ignore[assignment]


# --------------------------------------------------------------------------------------------------
# reductions: over the selected elements (axis None or 0) or along the values' own trailing dims


def _axes(sel: MaskedSelection, axis: Any, what: str) -> tuple[tuple[int, ...], bool]:
    """The values' axes a reduction over the selection's ``axis`` reduces, and whether they
    include the selected axis (else the result is still a selection by the same mask)."""
    if axis is None:
        return tuple(range(sel.values.ndim)), True
    out: set[int] = set()
    for a in axis if isinstance(axis, tuple) else (axis,):
        a = int(a)
        if not -sel.ndim <= a < sel.ndim:
            raise trace_error(f"{what}: axis {a} is out of bounds for array of dimension {sel.ndim}",
                              ValueError)
        a %= sel.ndim
        out.update(range(sel.mask.ndim) if a == 0 else [sel.mask.ndim + a - 1])
    return tuple(sorted(out)), any(a < sel.mask.ndim for a in out)


def _reduce(sel: MaskedSelection, axis: Any, what: str, fill: Any, fn: Any, **kwargs: Any) -> Any:
    axes, selected = _axes(sel, axis, what)
    if not selected:
        return MaskedSelection(fn(sel.values, axis=axes, **kwargs), sel.mask)
    return fn(np.where(sel._wide_mask(), sel.values, fill), axis=axes, **kwargs)


def _count(sel: MaskedSelection, axis: Any, keepdims: bool = False) -> Any:
    axes, _ = _axes(sel, axis, "count")
    ones = np.where(sel._wide_mask(), np.ones_like(sel.values, dtype=np.int64), 0)
    return np.sum(ones, axis=axes, keepdims=keepdims)


def _sum(sel: MaskedSelection, axis: Any, **kwargs: Any) -> Any:
    return _reduce(sel, axis, "sum", 0, np.sum, **kwargs)


def _prod(sel: MaskedSelection, axis: Any, **kwargs: Any) -> Any:
    return _reduce(sel, axis, "prod", 1, np.prod, **kwargs)


def _mean(sel: MaskedSelection, axis: Any, dtype: Any = None, keepdims: bool = False) -> Any:
    if not _axes(sel, axis, "mean")[1]:
        return _reduce(sel, axis, "mean", 0, np.mean, dtype=dtype, keepdims=keepdims)
    elements = sel.values.dtype
    total_dtype = dtype if dtype is not None else (elements if elements.kind in "fc" else np.float64)
    total = _sum(sel, axis, dtype=total_dtype, keepdims=keepdims)
    return np.true_divide(total, _count(sel, axis, keepdims=keepdims).astype(total.dtype))


def _var(sel: MaskedSelection, axis: Any, dtype: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
    if not _axes(sel, axis, "var")[1]:
        return _reduce(sel, axis, "var", 0, np.var, dtype=dtype, ddof=ddof, keepdims=keepdims)
    centred = sel.values - _mean(sel, axis, dtype=dtype, keepdims=True)
    squares = (centred * np.conj(centred)).real if centred.dtype.kind == "c" else centred * centred
    total = _sum(MaskedSelection(squares, sel.mask), axis, keepdims=keepdims)
    return np.true_divide(total, (_count(sel, axis, keepdims=keepdims) - ddof).astype(total.dtype))


def _extreme(sel: MaskedSelection, axis: Any, which: str, keepdims: bool = False) -> Any:
    fn = np.max if which == "max" else np.min
    axes, selected = _axes(sel, axis, which)
    if not selected:
        return _reduce(sel, axis, which, 0, fn, keepdims=keepdims)
    dt = D.dtype(sel.values.dtype)
    if dt.is_bool:
        fill: Any = which != "max"
    elif dt.is_int:
        info = np.iinfo(sel.values.dtype)
        fill = info.min if which == "max" else info.max
    else:
        fill = -np.inf if which == "max" else np.inf
    count = _count(sel, axis)
    lowering.runtime_check(np.all(np.greater(count, 0)), "invalid_argument",
            f"zero-size array to reduction operation {'maximum' if which == 'max' else 'minimum'} "
            "which has no identity")
    return fn(np.where(sel._wide_mask(), sel.values, fill), axis=axes, keepdims=keepdims)


def _any(sel: MaskedSelection, axis: Any, keepdims: bool = False) -> Any:
    return _reduce(sel, axis, "any", False, np.any, keepdims=keepdims)


def _all(sel: MaskedSelection, axis: Any, keepdims: bool = False) -> Any:
    return _reduce(sel, axis, "all", True, np.all, keepdims=keepdims)


_REDUCTIONS: dict[str, Any] = {
    "sum": lambda s, axis=None, dtype=None, out=None, keepdims=False: _sum(s, axis, dtype=dtype, keepdims=keepdims),
    "prod": lambda s, axis=None, dtype=None, out=None, keepdims=False: _prod(s, axis, dtype=dtype, keepdims=keepdims),
    "mean": lambda s, axis=None, dtype=None, out=None, keepdims=False: _mean(s, axis, dtype=dtype, keepdims=keepdims),
    "var": lambda s, axis=None, dtype=None, out=None, ddof=0, keepdims=False: _var(s, axis, dtype, ddof, keepdims),
    "std": lambda s, axis=None, dtype=None, out=None, ddof=0, keepdims=False: np.sqrt(_var(s, axis, dtype, ddof,
                                                                                          keepdims)),
    "max": lambda s, axis=None, out=None, keepdims=False: _extreme(s, axis, "max", keepdims),
    "amax": lambda s, axis=None, out=None, keepdims=False: _extreme(s, axis, "max", keepdims),
    "min": lambda s, axis=None, out=None, keepdims=False: _extreme(s, axis, "min", keepdims),
    "amin": lambda s, axis=None, out=None, keepdims=False: _extreme(s, axis, "min", keepdims),
    "any": lambda s, axis=None, out=None, keepdims=False: _any(s, axis, keepdims),
    "all": lambda s, axis=None, out=None, keepdims=False: _all(s, axis, keepdims),
    "count_nonzero": lambda s, axis=None, keepdims=False: _sum(
        MaskedSelection(np.not_equal(s.values, 0), s.mask), axis, dtype=np.int64, keepdims=keepdims),
    "average": lambda s, axis=None, weights=None: _mean(s, axis) if weights is None else _weighted(s, axis, weights),
}


def _weighted(sel: MaskedSelection, axis: Any, weights: Any) -> Any:
    if not isinstance(weights, MaskedSelection):
        raise unsupported("numpy.average", "weights for x[mask] other than w[mask]: " + _ESCAPES)
    sel._same_selection(weights, "numpy.average")
    return np.true_divide(_sum(MaskedSelection(sel.values * weights.values, sel.mask), axis),
                          _sum(weights, axis))
