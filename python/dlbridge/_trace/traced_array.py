"""The values a trace is made of: the ``TraceContext`` that collects the emitted MLIR, the
``SymbolicDim`` sizes and the ``TracedArray``s, with their views and the guards on their use, and
the slots of the arguments the trace reads (``ArgSlot``, ``IntSlot``)."""

from __future__ import annotations

import contextvars
import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import dtypes as D
from . import registry
from .dtypes import DType
from .errors import (
    ALL_SIZES,
    TraceError,
    format_location,
    frame_column,
    merge_sources,
    need_value,
    trace_error,
    unsupported,
    user_frame,
    user_location,
)
from .mlir_text import Block, NameTable, set_location, tensor_type

__all__ = [
    "ArgSlot",
    "GuardedSSA",
    "IntSlot",
    "SymbolicDim",
    "TraceContext",
    "TracedArray",
    "UseGuard",
    "ViewStep",
    "begin_trace",
    "current_context",
    "derived_view",
    "end_trace",
    "known_c_contiguous",
    "make_view",
    "public_type",
    "read_through",
    "region_hooks",
    "sync_view",
]


# --------------------------------------------------------------------------------------------------
# argument slots


@dataclass
class ArgSlot:
    """An array argument of the traced function.

    Attributes:
        name: the parameter name.
        ssa: the tensor value the body reads the argument as (``%c``).
        index: the argument's position.
        array: the argument's :class:`TracedArray`; after in-place updates its value is the
            argument's final contents.
        written: whether the function updated the argument in place.
        buffer: the memref parameter of a written argument (set when the trace ends).
    """

    name: str
    ssa: str
    array: TracedArray
    index: int = 0
    written: bool = False
    buffer: str = ""


@dataclass
class IntSlot:
    """A Python int argument of the traced function (read as ``i64``).

    NEP 50 converts a Python int to the dtype of the array it meets and refuses one that does not
    fit instead of wrapping it. The parameter therefore takes the narrowest signed dtype it is
    converted to, whose range the call checks (OverflowError naming the argument); unsigned
    dtypes, which scalar parameters cannot have, are checked by the kernel (ValueError).

    Attributes:
        index: the argument's position.
        name: the parameter name.
        ssa: the ``i64`` value the body reads the argument as.
        narrowed: integer dtypes narrower than ``int64`` the argument was converted to.
    """

    index: int
    name: str
    ssa: str
    narrowed: list[DType] = field(default_factory=list)

    def param_dtype(self) -> DType | None:
        """The narrowest signed dtype the argument was converted to, if any."""
        signed = [d for d in self.narrowed if not d.is_unsigned]
        return min(signed, key=lambda d: d.bits) if signed else None

    def unsigned_bound(self) -> DType | None:
        """The narrowest unsigned dtype the argument was converted to, if any."""
        unsigned = [d for d in self.narrowed if d.is_unsigned]
        return min(unsigned, key=lambda d: d.bits) if unsigned else None


def public_type(value: Any) -> str:
    """The type of ``value`` as the user's NumPy code would see it: ``float`` for a Python float
    argument, ``numpy.float32`` for a NumPy scalar, ``numpy.ndarray`` for an array, ``int`` for
    a size."""
    if isinstance(value, TracedArray):
        if value._weak is not None:
            return value._weak
        return f"numpy.{value._dtype.name}" if value._is_scalar else "numpy.ndarray"
    if isinstance(value, SymbolicDim):
        return "int"
    return type(value).__name__


# --------------------------------------------------------------------------------------------------
# context

_current: contextvars.ContextVar[TraceContext | None] = contextvars.ContextVar(
    "dlbridge_trace_ctx", default=None
)


class TraceContext:
    """State of one trace: names, the function body, location comments."""

    def __init__(self, target: str = "cpu") -> None:
        #: the target the trace is compiled for (``"cpu"``, ``"cuda"``): operations without a path
        #: on one of them refuse it while tracing
        self.target = target
        self.names = NameTable()
        self.names.dead_error = _dead_value_error
        self.top = Block(self.names, indent=2)
        self._last_loc: tuple[str, int] | None = None
        self.finished = False
        self.args: list[ArgSlot] = []
        self.int_args: dict[str, IntSlot] = {}
        self._versions = 0
        self._serials = 0
        # while a loop body is traced: the arrays updated in place, and the dim sizes cached on
        # arrays (which must not outlive the loop's region)
        self.update_log: dict[int, tuple[TracedArray, tuple[Any, ...]]] | None = None
        # per array updated in place (by id): every value it held, all in its one buffer
        self.buffer_values: dict[int, set[str]] = {}
        self.dim_log: list[tuple[TracedArray, int]] | None = None
        #: how many conditions of rewritten ``if``/``while`` statements are being evaluated: there
        #: a comparison of sizes that cannot be specialised is a traced ``i1`` (``branches``)
        self.conditions = 0
        #: how many of those are conditions of ``while`` loops, where sizes and int arguments are
        #: not specialised either: the loop is one ``scf.while`` for every value
        self.loop_conditions = 0

    def fresh_serial(self) -> int:
        """A number larger than that of every array created so far."""
        self._serials += 1
        return self._serials

    def fresh_version(self) -> int:
        """A version number never given before, for an array updated in place."""
        self._versions += 1
        return self._versions

    def note_update(self, root: TracedArray) -> None:
        """Called before ``root`` is updated in place: a loop being traced records it, with its
        state before the loop's first update of it."""
        if self.update_log is not None and id(root) not in self.update_log:
            written = root._arg.written if root._arg is not None else False
            state = (root._value, root._version, dict(root._dim_ssa), root._updated_at, written)
            self.update_log[id(root)] = (root, state)

    def begin_op(self) -> None:
        """Called before an operation emits code: the ops it emits carry the user's location, and
        a comment shows the user's line when it changed since the last operation."""
        frame = user_frame()
        loc = user_location()
        if frame is None or loc is None:
            return
        set_location(frame.f_code.co_filename, frame.f_lineno, frame_column(frame), format_location(loc))
        key = (loc[0], loc[1])
        if key != self._last_loc:
            self._last_loc = key
            self.top.comment(format_location(loc))

    def dim(self, arr: TracedArray, k: int) -> str:
        """The SSA ``index`` value of dim ``k`` of ``arr`` (a constant for static dims)."""
        d = arr._dims[k]
        if d is not None:
            return self.top.const(d, "index")
        cached = arr._dim_ssa.get(k)
        if cached is None:
            assert not arr._is_scalar
            c = self.top.const(k, "index")
            cached = self.top.op(
                "dim", f"tensor.dim {arr._value}, {c} : {arr.mlir_type}"
            )
            arr._dim_ssa[k] = cached
            if self.dim_log is not None:
                self.dim_log.append((arr, k))
        return cached


def _dead_value_error(name: str, where: str) -> Exception:
    if where.startswith("the "):  # a branch of an if, or a while loop (``branches``)
        return trace_error(
            f"a value computed in {where}, which is traced once as a region of the generated code, "
            "is used after it; only the names it assigns are carried out of it, not values kept in "
            "lists, dicts, attributes or closures"
        )
    return trace_error(
        f"a value computed in the body of the loop at {where}, which is traced once as scf.for, is "
        "used after the loop; only the names the body assigns are carried out of it, not values "
        "kept in lists, dicts, attributes or closures"
    )


def begin_trace(ctx: TraceContext) -> contextvars.Token[TraceContext | None]:
    """Makes ``ctx`` the trace that operations on traced arrays emit into."""
    if _current.get() is not None:
        raise TraceError("dlbridge.jit: trace() called while another trace is running")
    return _current.set(ctx)


def end_trace(token: contextvars.Token[TraceContext | None]) -> None:
    """Ends the trace :func:`begin_trace` began."""
    _current.reset(token)


def current_context() -> TraceContext | None:
    """The trace running now, if any."""
    return _current.get()


class UseGuard:
    """Run-time checks that a traced value exists, emitted before its first use in each block.

    A name a traced loop gives a value has none (Python raises UnboundLocalError) when the loop
    runs 0 times; where the trip count is only known at run time, reading the value asserts each
    ``(cond, message)`` of ``checks`` (``i1`` values of the blocks around the use)."""

    def __init__(self, checks: Sequence[tuple[str, str]]) -> None:
        self.checks = list(checks)
        self._blocks: list[Block] = []

    def check(self, ctx: TraceContext) -> None:
        """Emits the assertions into the current block unless they are there already."""
        top = ctx.top
        if any(b is top for b in self._blocks):
            return
        self._blocks.append(top)
        ctx.begin_op()
        for cond, message in self.checks:
            text = message.replace("\\", "\\\\").replace('"', '\\"').replace("{", "(").replace("}", ")")
            top.raw(f'dlpack.assert {cond}, invalid_argument, "{text}"')


# --------------------------------------------------------------------------------------------------
# symbolic arrays


_PY_OPERATOR = {"addi": "add", "subi": "sub", "muli": "mul", "floordivsi": "floordiv", "remsi": "mod",
                "andi": "and_", "ori": "or_", "xori": "xor", "shli": "lshift", "shrsi": "rshift"}


class GuardedSSA:
    """The ``_value`` of a traced value (a size or an array): its SSA name, read after the check
    of its guard (see :class:`UseGuard`); set as a plain name."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        if obj._guard is not None:
            obj._guard.check(obj._ctx)
        return obj._ssa

    def __set__(self, obj: Any, value: str) -> None:
        obj._ssa = value


class SymbolicDim:
    """A dynamic size: a dim of a traced array, or integer arithmetic on such sizes.

    @jit specialises on dtypes, ranks and size-1 dims only, so one kernel serves every size and
    compiles stay rare; the price is that other sizes are unknown while tracing.  A SymbolicDim
    stands for one: ``+ - * // %``, unary ``-``/``abs`` with ints and other SymbolicDims give
    SymbolicDims (``index`` arithmetic in the generated code), ``/`` and array arithmetic treat it
    as a weak Python int, and it is accepted wherever NumPy takes a size or an index (reshape,
    slicing, creation functions).  Comparisons, ``int()``, ``float()`` and ``bool()`` need the
    value: for a size computed from the arguments' sizes the trace starts again with them fixed
    at the call's values (:class:`NeedsValue`); others (a loop index) raise a TraceError, except
    comparisons in the condition of a rewritten ``if``/``while`` (``branches``), which are traced
    bools there (in a ``while``, those of argument sizes too)."""

    __slots__ = ("_ctx", "_ssa", "_desc", "_guard", "_sources")

    def __init__(self, ctx: TraceContext, value: str, desc: str, sources: Any = None) -> None:
        self._ctx = ctx
        self._ssa = value
        self._desc = desc
        self._guard: UseGuard | None = None
        self._sources = sources

    _value = GuardedSSA()

    @property
    def value(self) -> str:
        """The ``index`` SSA value of the size."""
        return self._value

    @property
    def context(self) -> TraceContext:
        """The trace this size belongs to."""
        return self._ctx

    def _fail(self, what: str) -> BaseException:
        return need_value(self._sources,
                          unsupported(what, f"{self._desc} is a dynamic size, unknown while tracing"))

    def __index__(self) -> int:
        raise self._fail("int(shape entry)")

    __int__ = __index__

    def __float__(self) -> float:
        raise self._fail("float(shape entry)")

    def __format__(self, spec: str) -> str:
        raise self._fail("formatting a shape entry")

    def __bool__(self) -> bool:
        raise self._fail("bool(shape entry)")

    def _compare(self, predicate: str, other: object) -> Any:
        """``self <predicate> other``: Python's answer where the sizes can be specialised (see
        :class:`NeedsValue`); in the condition of a rewritten ``if``/``while`` where they cannot
        (a loop index), a traced bool computed at run time (``arith.cmpi``)."""
        if isinstance(other, TracedArray):
            return NotImplemented  # the array's comparison, with the size as a Python int
        rhs = self._operand(other)
        ctx = self._ctx
        sources = None if rhs is None else merge_sources(self._sources, rhs[2])
        if rhs is not None and ctx.conditions and (sources is None or ctx.loop_conditions):
            value = ctx.top.op("cmp", f"arith.cmpi {predicate}, {self._value}, {rhs[0]} : index")
            out = TracedArray(ctx, value, D.BOOL, (), is_scalar=True)
            out._sources = sources
            return out
        raise self._fail("shape comparison")

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        return True if other is self else self._compare("eq", other)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        return False if other is self else self._compare("ne", other)

    def __lt__(self, other: object) -> Any:
        return self._compare("slt", other)

    def __le__(self, other: object) -> Any:
        return self._compare("sle", other)

    def __gt__(self, other: object) -> Any:
        return self._compare("sgt", other)

    def __ge__(self, other: object) -> Any:
        return self._compare("sge", other)

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<dynamic size {self._desc}>"

    # ---- integer arithmetic

    def _operand(self, other: object) -> tuple[str, str, Any] | None:
        """``other``'s SSA value, description and sources, or None when it is not an integer
        size."""
        if isinstance(other, SymbolicDim):
            if other._ctx is not self._ctx:
                raise TraceError("dlbridge.jit: a shape entry from another trace was used")
            return other._value, other._desc, other._sources
        if isinstance(other, int) and not isinstance(other, bool):
            return self._ctx.top.const(other, "index"), str(other), frozenset()
        return None

    def _binary(self, op: str, symbol: str, other: object, reflected: bool) -> Any:
        rhs = self._operand(other)
        if rhs is None:
            if isinstance(other, (bool, float, complex, np.number, np.bool_)):
                # a float (or NumPy scalar) operand: the size as a weak Python int, as Python would
                fn = getattr(operator, _PY_OPERATOR[op])
                x = self.as_array()
                return fn(other, x) if reflected else fn(x, other)
            return NotImplemented
        (a, da), (b, db) = ((self._value, self._desc), rhs[:2])
        sources = merge_sources(self._sources, rhs[2])
        if reflected:
            (a, da), (b, db) = (b, db), (a, da)
        if op in ("floordivsi", "remsi"):
            if isinstance(other, int) and not reflected and other == 0:
                raise trace_error("integer division or modulo by zero", ZeroDivisionError)
            if not isinstance(other, int) or reflected:
                zero = self._ctx.top.const(0, "index")
                nonzero = self._ctx.top.op("nonzero", f"arith.cmpi ne, {b}, {zero} : index")
                self._ctx.top.raw(
                    f'dlpack.assert {nonzero}, invalid_argument, "integer division or modulo by '
                    f'zero ({db})"'
                )
        top = self._ctx.top
        if op in ("shli", "shrsi"):
            value = self._shift(op, a, b, db, other if not reflected else None)
        elif op == "remsi":  # Python's modulo takes the divisor's sign
            q = top.op("q", f"arith.floordivsi {a}, {b} : index")
            qb = top.op("qb", f"arith.muli {q}, {b} : index")
            value = top.op("mod", f"arith.subi {a}, {qb} : index")
        else:
            value = top.op("size", f"arith.{op} {a}, {b} : index")
        return SymbolicDim(self._ctx, value, f"({da} {symbol} {db})", sources)

    def _shift(self, op: str, a: str, b: str, db: str, count: object) -> str:
        """``a << b`` or ``a >> b`` as Python shifts an int: a negative count is Python's
        ValueError; ``>>`` by 64 or more gives the sign, ``<<`` by 64 or more overflows to 0 as
        every size beyond ``index`` does."""
        top = self._ctx.top
        if isinstance(count, int):
            if count < 0:
                raise trace_error("negative shift count", ValueError)
        else:
            zero = top.const(0, "index")
            ok = top.op("count_ok", f"arith.cmpi sge, {b}, {zero} : index")
            top.raw(f'dlpack.assert {ok}, invalid_argument, "negative shift count ({db})"')
        last = top.const(63, "index")
        clamped = top.op("count", f"arith.minsi {b}, {last} : index")
        shifted = top.op("shifted", f"arith.{op} {a}, {clamped} : index")
        if op == "shrsi":
            return shifted
        within = top.op("within", f"arith.cmpi sle, {b}, {last} : index")
        return top.op("shifted", f"arith.select {within}, {shifted}, {top.const(0, 'index')} : index")

    def __add__(self, o: object) -> Any:
        return self._binary("addi", "+", o, False)

    def __radd__(self, o: object) -> Any:
        return self._binary("addi", "+", o, True)

    def __sub__(self, o: object) -> Any:
        return self._binary("subi", "-", o, False)

    def __rsub__(self, o: object) -> Any:
        return self._binary("subi", "-", o, True)

    def __mul__(self, o: object) -> Any:
        return self._binary("muli", "*", o, False)

    def __rmul__(self, o: object) -> Any:
        return self._binary("muli", "*", o, True)

    def __floordiv__(self, o: object) -> Any:
        return self._binary("floordivsi", "//", o, False)

    def __rfloordiv__(self, o: object) -> Any:
        return self._binary("floordivsi", "//", o, True)

    def __mod__(self, o: object) -> Any:
        return self._binary("remsi", "%", o, False)

    def __rmod__(self, o: object) -> Any:
        return self._binary("remsi", "%", o, True)

    def __and__(self, o: object) -> Any:
        return self._binary("andi", "&", o, False)

    def __rand__(self, o: object) -> Any:
        return self._binary("andi", "&", o, True)

    def __or__(self, o: object) -> Any:
        return self._binary("ori", "|", o, False)

    def __ror__(self, o: object) -> Any:
        return self._binary("ori", "|", o, True)

    def __xor__(self, o: object) -> Any:
        return self._binary("xori", "^", o, False)

    def __rxor__(self, o: object) -> Any:
        return self._binary("xori", "^", o, True)

    def __lshift__(self, o: object) -> Any:
        return self._binary("shli", "<<", o, False)

    def __rlshift__(self, o: object) -> Any:
        return self._binary("shli", "<<", o, True)

    def __rshift__(self, o: object) -> Any:
        return self._binary("shrsi", ">>", o, False)

    def __rrshift__(self, o: object) -> Any:
        return self._binary("shrsi", ">>", o, True)

    def __invert__(self) -> SymbolicDim:
        return self ^ -1  # type: ignore[no-any-return]

    def __divmod__(self, o: object) -> Any:
        return self // o, self % o

    def __rdivmod__(self, o: object) -> Any:
        return o // self, o % self  # type: ignore[operator]

    def __neg__(self) -> SymbolicDim:
        return 0 - self  # type: ignore[no-any-return]

    def __pos__(self) -> SymbolicDim:
        return self

    def __abs__(self) -> SymbolicDim:
        top = self._ctx.top
        zero = top.const(0, "index")
        neg = top.op("neg", f"arith.subi {zero}, {self._value} : index")
        value = top.op("abs", f"arith.maxsi {self._value}, {neg} : index")
        return SymbolicDim(self._ctx, value, f"abs({self._desc})", self._sources)

    def as_array(self, weak: bool = True) -> TracedArray:
        """The size as a traced ``int64`` scalar: a weak Python int for array arithmetic, or
        (``weak=False``) the strong ``int64`` NumPy makes of a Python int a ufunc receives."""
        value = self._ctx.top.op("n", f"arith.index_cast {self._value} : index to i64")
        scalar = TracedArray(self._ctx, value, D.dtype("int64"), (), weak="int" if weak else None,
                             is_scalar=True)
        scalar._sources = self._sources
        return scalar

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """A NumPy ufunc (``np.sqrt(x.shape[-1])``) takes the size as a traced Python int."""
        inputs = tuple(i.as_array(weak=False) if isinstance(i, SymbolicDim) else i for i in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __truediv__(self, o: object) -> Any:
        return self.as_array().__truediv__(o.as_array() if isinstance(o, SymbolicDim) else o)

    def __rtruediv__(self, o: object) -> Any:
        return self.as_array().__rtruediv__(o)

    def __pow__(self, o: object) -> Any:
        return self.as_array().__pow__(o.as_array() if isinstance(o, SymbolicDim) else o)


class TracedArray:
    """A symbolic array standing for a function argument or an intermediate value while tracing.

    It supports NumPy's operators, methods and (through ``__array_ufunc__`` /
    ``__array_function__``) NumPy functions; each operation appends MLIR to the trace."""

    __slots__ = (
        "_ctx", "_ssa", "_guard", "_dtype", "_dims", "_weak", "_is_scalar", "_dim_ssa", "_alias",
        "_base", "_base_version", "_view_op", "_perm", "_region", "_version", "_updated_at",
        "_arg", "_serial", "_sources", "_recipe", "_path",
    )
    __array_priority__ = 1000.0

    def __init__(
        self,
        ctx: TraceContext,
        value: str,
        dt: DType,
        dims: Sequence[int | None],
        *,
        weak: str | None = None,
        is_scalar: bool = False,
        alias: bool = False,
        sizes: Sequence[str | None] = (),
    ) -> None:
        self._ctx = ctx
        self._ssa = value
        self._guard: UseGuard | None = None
        self._dtype = dt
        self._dims: tuple[int | None, ...] = tuple(dims)
        self._weak = weak
        self._is_scalar = is_scalar
        # the SSA sizes of dynamic dims, once computed (``sizes``: those known at creation)
        self._dim_ssa: dict[int, str] = {k: z for k, z in enumerate(sizes) if z is not None}
        self._alias = alias  # may share storage with a function argument
        # NumPy views (x[...], transpose, reshape): the array whose storage this one views, that
        # array's _version when this value was taken, the operation that made the view, and the
        # permutation of the array's dims it is (None when it is not one: reshape).
        self._base: TracedArray | None = None
        self._base_version = 0
        self._view_op = ""
        self._perm: tuple[int, ...] | None = None
        # for a view made by basic indexing: the region of the base it shows (indexing.Region)
        self._region: Any = None
        # for a view: the operations that made it from its base, in order (ViewStep)
        self._path: tuple[ViewStep, ...] = ()
        # in-place updates of this array so far, and the user's line of the last one
        self._version = 0
        self._updated_at = ""
        self._arg: ArgSlot | None = None
        # where a scalar's value comes from, when it is a size or an int argument (Sources)
        self._sources: Any = None
        # how a comparison computed the array from immutable operands (equal recipes, equal
        # values), or None
        self._recipe: Any = None
        self._serial = ctx.fresh_serial()  # creation order: arrays made inside a loop body are its own

    # ---- what the emitters read (lowering and the op families)
    _value = GuardedSSA()

    @property
    def context(self) -> TraceContext:
        """The trace this array belongs to."""
        return self._ctx

    @property
    def value(self) -> str:
        """The SSA value of the array's current contents."""
        return self._value

    @property
    def dims(self) -> tuple[int | None, ...]:
        """The static sizes (None: dynamic)."""
        return self._dims

    @property
    def element_type(self) -> DType:
        """The tracer's dtype of the elements."""
        return self._dtype

    @property
    def weak(self) -> str | None:
        """The Python scalar kind of a weakly typed value (NEP 50), else None."""
        return self._weak

    @property
    def is_scalar(self) -> bool:
        """Whether the value is an MLIR scalar rather than a tensor."""
        return self._is_scalar

    @property
    def may_alias_argument(self) -> bool:
        """Whether the array may share storage with an argument of the traced function."""
        return self._alias

    def known_size(self, k: int) -> str | None:
        """The SSA size of dynamic dim ``k`` when already computed."""
        return self._dim_ssa.get(k)

    def set_size(self, k: int, size: str) -> None:
        """Records ``size`` as the SSA size of dynamic dim ``k``."""
        self._dim_ssa[k] = size

    def copy_sizes_from(self, other: TracedArray) -> None:
        """Takes the SSA sizes ``other`` knows (an array of the same shape)."""
        self._dim_ssa = dict(other._dim_ssa)

    # ---- metadata
    @property
    def mlir_type(self) -> str:
        return self._dtype.mlir if self._is_scalar else tensor_type(self._dims, self._dtype)

    @property
    def dtype(self) -> Any:
        """The dtype: a NumPy dtype when NumPy knows it (so ``x.dtype == np.float32`` works), else
        the tracer's :class:`DType` (bfloat16)."""
        try:
            return np.dtype(self._dtype.name)
        except Exception:
            return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._dims)

    @property
    def shape(self) -> tuple[Any, ...]:
        out: list[Any] = []
        for k, d in enumerate(self._dims):
            if d is not None:
                out.append(d)
            else:
                out.append(SymbolicDim(self._ctx, self._ctx.dim(self, k), f"dim {k}",
                                       self._dim_sources(k)))
        return tuple(out)

    @shape.setter
    def shape(self, value: Any) -> None:
        raise unsupported("setting ndarray.shape", "assign the result of reshape instead")

    def _dim_sources(self, k: int) -> Any:
        """Where dynamic dim ``k``'s size comes from: an argument's own dim, or any argument's."""
        if self._arg is not None and self._arg.array is self:
            return frozenset({(self._arg.index, k)})
        return ALL_SIZES

    @property
    def size(self) -> Any:
        """The number of elements: an int, or a SymbolicDim when a dim is dynamic."""
        total: Any = 1
        for d in self.shape:
            total = d * total if isinstance(d, SymbolicDim) else total * d
        return total

    @property
    def T(self) -> TracedArray:
        return registry.lookup("transpose").impl(self)  # type: ignore[union-attr, no-any-return]

    @property
    def mT(self) -> TracedArray:
        if self.ndim < 2:
            raise trace_error("mT needs at least 2 dims", ValueError)
        axes = list(range(self.ndim))
        axes[-1], axes[-2] = axes[-2], axes[-1]
        return registry.lookup("transpose").impl(self, tuple(axes))  # type: ignore[union-attr, no-any-return]

    def __repr__(self) -> str:
        dims = ", ".join("?" if d is None else str(d) for d in self._dims)
        return f"<traced array shape=({dims}) dtype={self._dtype.name}>"

    # ---- things that need concrete data
    def __bool__(self) -> bool:
        raise need_value(self._sources, unsupported(
            "bool(array)", "its truth is known only at run time: dlbridge traces that as the condition "
            "of an if, elif, while or conditional expression ('a if c else b') in a function whose "
            "source it reads, not here; use where()"))

    def __len__(self) -> int:
        if self._dims and self._dims[0] is not None:
            return self._dims[0]
        raise need_value(self._dim_sources(0) if self._dims else None,
                         unsupported("len(array)", "the size is dynamic"))

    def __iter__(self) -> Any:
        """The sub-arrays along the first dim, as NumPy iterates (``dx, dy = p - q``): its size
        must be known while tracing, or fixed at the call's (see NeedsValue)."""
        if not self._dims or self._is_scalar:
            raise trace_error("iteration over a 0-d array", TypeError)
        if self._dims[0] is None:
            raise need_value(self._dim_sources(0), unsupported(
                "iteration over an array", "its first dim is dynamic; use for i in range(len(x))"))
        return (self[k] for k in range(self._dims[0]))

    def __index__(self) -> int:
        raise need_value(self._sources, unsupported("operator.index(array)"))

    def __int__(self) -> int:
        raise need_value(self._sources, unsupported("int(array)"))

    def __float__(self) -> float:
        raise need_value(self._sources, unsupported("float(array)"))

    def __complex__(self) -> complex:
        raise unsupported("complex(array)")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise unsupported("numpy.asarray", "a traced array has no data to convert")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        declared = registry.lookup_method(name)
        if declared is not None:
            return functools.partial(declared.impl, self)
        if hasattr(np.ndarray, name):
            raise unsupported(f"ndarray.{name}")
        raise trace_error(f"'numpy.ndarray' object has no attribute {name!r}", AttributeError)

    def __hash__(self) -> int:
        return id(self)

    # Operators, NumPy's protocols, indexing and methods: installed from the op table by
    # array_methods.py.


@dataclass(frozen=True)
class ViewStep:
    """One view-making operation in the chain from an array to a view of it (``x.T``, ``x[1:]``,
    ``x[:, None]``, a reshape, ``x.real``): how the view's contents are read from its parent's
    (``read``), and how new contents of the view give new contents of the parent (``write``;
    None: NumPy's result is read-only, ``readonly`` says why). ``layout`` is empty when NumPy's
    result is a view whatever the memory layout, else why it may be a copy (a reshape of an
    array whose layout the trace does not know): writes through it, and reads of it after
    its base changed, are refused."""

    op: str
    read: Callable[[TracedArray], TracedArray]
    write: Callable[[TracedArray, TracedArray], TracedArray] | None
    readonly: str = ""
    layout: str = ""


def make_view(
    x: TracedArray,
    value: str,
    dims: Sequence[int | None],
    op: str,
    perm: Sequence[int] | None = None,
    region: Any = None,
    step: ViewStep | None = None,
) -> TracedArray:
    """A NumPy view of ``x`` (``op`` made it) whose current contents are ``value``; ``perm`` when
    it is ``x`` with its dims permuted (``view dim i`` is ``x`` dim ``perm[i]``), ``region``
    (an ``indexing.Region`` of ``x``) when basic indexing made it; ``step`` how it is read from
    and written into ``x`` (see :class:`ViewStep`).

    The view records the chain of steps from the array that owns the storage (its base), and,
    when it can, how it maps to that array as one permutation or one region of it: writes
    through it update the base.
    """
    root = x._base if x._base is not None else x
    view = TracedArray(x._ctx, value, x._dtype, dims, alias=x._alias)
    view._base = root
    view._base_version = root._version
    view._view_op = op
    if step is not None and (x._base is None or x._path):
        view._path = (x._path if x._base is not None else ()) + (step,)
    outer = x._perm if x._base is not None else tuple(range(root.ndim))
    x_is_whole = outer is not None and list(outer) == list(range(root.ndim))
    if region is not None:
        if x._base is None or (x_is_whole and x._region is None):
            view._region = region
        elif x._region is not None:
            view._region = region_hooks["compose"](x._ctx, x._region, region)
        elif outer is not None:
            view._region = region_hooks["permute"](outer, region)
    elif perm is not None and outer is not None:
        view._perm = tuple(outer[p] for p in perm)
    elif perm is not None and x._region is not None and list(perm) == list(range(len(perm))):
        view._region = x._region
    return view


def derived_view(x: TracedArray, out: TracedArray, op: str, read: Callable[[TracedArray], TracedArray],
                 write: Callable[[TracedArray, TracedArray], TracedArray] | None, layout: str = "") -> TracedArray:
    """``out`` (computed from ``x`` by ``read``) as NumPy's view of ``x``: it shows later updates
    of ``x``, and writes through it reach ``x`` by ``write`` (None: NumPy's view is read-only);
    ``layout``: why NumPy's result may be a view or a copy (see :class:`ViewStep`)."""
    step = ViewStep(op, read, write, readonly="" if write is not None else f"numpy.{op} is a read-only view",
                    layout=layout)
    view = make_view(x, out._value, out._dims, op, step=step)
    view._dtype = out._dtype
    view._dim_ssa = dict(out._dim_ssa)
    return view


def known_c_contiguous(x: TracedArray) -> bool:
    """Whether NumPy's ``x`` is known to be C-contiguous while tracing: an array the function
    made (not an argument, whose layout is the caller's), or a reshape of one. (A copy in
    NumPy's order ``"K"`` of a transposed array, ``np.copy(x.T)``, is Fortran-ordered in NumPy;
    it is taken as C-contiguous here.)"""
    root = x._base if x._base is not None else x
    if root._arg is not None:
        return False
    return x._base is None or all(s.op == "reshape" and not s.layout for s in x._path)


def read_through(x: TracedArray, steps: Sequence[ViewStep]) -> TracedArray:
    """The contents of the view ``steps`` make of ``x``'s current contents."""
    v = TracedArray(x._ctx, x._value, x._dtype, x._dims, alias=x._alias)
    v._dim_ssa = dict(x._dim_ssa)
    for s in steps:
        v = s.read(v)
    return v


#: Set by the indexing module (which imports this one): ``compose(outer, inner)`` is the region
#: of a view's region ``inner`` in the view's base, ``extract(base, region)`` its contents,
#: ``permute(perm, region)`` the region of the base that ``region`` of the base's transpose by
#: ``perm`` is (None when it shows the base's dims out of order).
region_hooks: dict[str, Callable[..., Any]] = {}


def sync_view(x: TracedArray) -> None:
    """Brings a view of an array updated in place since the view was taken up to date, as NumPy
    shows the update through it; raises a TraceError for a view that is not a permutation of the
    array (whether NumPy's reshape made a view depends on the memory layout)."""
    base = x._base
    if base is None or base._version == x._base_version:
        return
    if x._region is not None or (x._perm is None and x._path and not any(s.layout for s in x._path)):
        # one region of the array, read directly; else the chain of steps
        fresh_value = region_hooks["extract"](base, x._region) if x._region is not None else \
            read_through(base, x._path)
        x._value = fresh_value._value
        x._dim_ssa = dict(fresh_value._dim_ssa)
        x._base_version = base._version
        return
    if x._perm is None:
        raise unsupported(
            f"reading a view made by {x._view_op}",
            f"the array it views was updated in place at {base._updated_at} after the view was "
            "taken; take the view after the update",
        )
    fresh = registry.lookup("transpose").impl(base, x._perm)  # type: ignore[union-attr]
    x._value = fresh._value
    x._dim_ssa = dict(fresh._dim_ssa)
    x._base_version = base._version
