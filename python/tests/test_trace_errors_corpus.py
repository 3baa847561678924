"""A corpus of constructs the tracer cannot take, or that are wrong in NumPy too, run through
``@dlbridge.jit`` (traced, not compiled).

Every construct must fail with the error a user can act on: a ``TraceError`` naming the operation
for what NumPy runs but the tracer cannot, or NumPy's own error type (checked against NumPy on
real arrays) for what is wrong in NumPy too; and always with the user's line (the one marked
``# <-``) and none of the tracer's internal names. Any other exception (an ``AttributeError``
from inside the tracer, an internal class name in the message) fails the test.
"""

from __future__ import annotations

import inspect
import os
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

X = np.arange(12.0).reshape(3, 4)
TraceError = dlbridge.TraceError

#: name → (function, its arguments, the error it must raise)
CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...], type[BaseException]]] = {}


def case(expected: type[BaseException], *args: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Adds the decorated function to the corpus, called on ``args`` (default: ``X``)."""

    def add(fn: Callable[..., Any]) -> Callable[..., Any]:
        CASES[fn.__name__] = (fn, args or (X,), expected)
        return fn

    return add


# ---------------------------------------------------------------- indexing


@case(TypeError)
def slice_with_a_tuple_step(a):
    return a[::(1, 2)]  # <-


@case(TypeError)
def slice_with_a_tuple_start(a):
    return a[(1, 2):]  # <-


@case(TypeError)
def assignment_through_a_tuple_stop(a):
    a[1:(2,)] = 1  # <-
    return a


@case(IndexError)
def float_index(a):
    return a[1.5]  # <-


@case(IndexError)
def string_index(a):
    return a["x"]  # <-


@case(IndexError)
def dict_index(a):
    return a[{1: 2}]  # <-


@case(IndexError)
def float_array_index(a):
    return a[a[0, 0]]  # <-


@case(IndexError)
def mixed_list_index(a):
    return a[[0, "a"]]  # <-


@case(IndexError)
def two_ellipses(a):
    return a[..., ...]  # <-


@case(IndexError)
def too_many_indices(a):
    return a[0, 0, 0]  # <-


@case(TypeError)
def slice_bound_is_an_array(a):
    return a[a:]  # <-


@case(TraceError)
def slice_step_from_a_loop_index(a, n):
    for i in range(n):
        a[i, ::i + 1] = 0  # <-
    return a


CASES["slice_step_from_a_loop_index"] = (slice_step_from_a_loop_index, (X, 2), TraceError)


# ---------------------------------------------------------------- scalars and Python values


@case(TypeError, X, 2.0)
def float_parameter_as_a_slice_bound(a, s):
    return a[:s]  # <-


@case(TypeError, X, 2.0)
def float_parameter_as_a_size(a, s):
    return np.zeros(s) + a  # <-


@case(TraceError)
def string_operand(a):
    return a + "s"  # <-


@case(TraceError)
def none_operand(a):
    return a + None  # <-


@case(TraceError)
def function_operand(a):
    return a + (lambda: 1)  # <-


@case(TraceError)
def set_operand(a):
    return a * {1, 2}  # <-


@case(TraceError)
def list_of_arrays_operand(a):
    return a + [a, a]  # <-


@case(TraceError)
def draw_from_the_global_random_state(a):
    return a + np.random.rand(4)  # <-


@case(TraceError)
def generator_without_a_seed(a):
    return a + np.random.default_rng().standard_normal(4)  # <-


@case(TraceError)
def string_result(a):
    return "hello"  # <-


@case(TraceError)
def dict_result_holding_a_string(a):
    return {"a": a, "name": "text"}  # <-


@case(TraceError)
def generator_result(a):
    return (v for v in range(3))  # <-


@case(TypeError)
def len_of_a_0d_result(a):
    return len(a.sum())  # <-


@case(TraceError, X, 2.0)
def formatting_a_float_argument(a, s):
    return a * float(f"{s:.2f}")  # <-


@case(TypeError)
def builtin_round_of_an_array(a):
    return round(a)  # <-


@case(TypeError)
def calling_an_array(a):
    return a(1)  # <-


@case(NameError)
def undefined_name(a):
    return a + undefined_global  # noqa: F821  # <-


# ---------------------------------------------------------------- data-dependent control flow


@case(TraceError)
def data_dependent_if_returning_from_a_loop(a):
    for i in range(a.shape[0]):
        if a[i].sum() > 0:  # <-
            return a
    return -a


@case(TraceError)
def data_dependent_while_returning(a):
    while a.sum() > 0:  # <-
        a = a - 1
        if a[0, 0] < -3:
            return a
    return a


@case(TraceError)
def data_dependent_break_whose_index_is_read_after(a):
    for i in range(a.shape[0]):
        if a[i, 0] > 3:  # <-
            break
    return a[i]


@case(TraceError)
def data_dependent_if_appending_to_a_list(a):
    parts = []
    if a.sum() > 0:  # <-
        parts.append(a)
    return a


@case(TraceError)
def data_dependent_if_changing_the_rank(a):
    if a.sum() > 0:  # <-
        b = a[0]
    else:
        b = a
    return b


@case(TraceError)
def name_set_by_one_branch_only_used_as_an_object(a):
    if a.sum() > 0:
        b = "positive"
    return a * len(b)  # <-


@case(TraceError)
def data_dependent_while_changing_the_rank(a):
    b = a[0]
    while b.sum() < 100:  # <-
        b = b[None] * 2
    return b


@case(TraceError)
def int_of_an_array(a):
    return int(a)  # <-


@case(TraceError)
def formatted_result(a):
    return a * len(f"{a.sum():.3f}")  # <-


@case(TypeError)
def iterating_over_a_0d_result(a):
    return [v for v in a.sum()]  # <-


@case(TypeError)
def range_of_a_float(a):
    for _ in range(2.5):  # <-
        a = a + 1
    return a


@case(TypeError)
def range_with_a_tuple_step(a):
    for _ in range(0, 3, (1,)):  # <-
        a = a + 1
    return a


# ---------------------------------------------------------------- functions and methods


@case(TraceError)
def numpy_fft(a):
    return np.fft.fft(a)  # <-


@case(TraceError)
def numpy_polyfit(a):
    return np.polyfit(a[0], a[1], 2)  # <-


@case(TraceError)
def numpy_savetxt(a):
    np.savetxt("never-written.txt", a)  # <-
    return a


@case(TraceError)
def numpy_unique_by_rows(a):
    return np.unique(a, axis=0)  # <-


@case(TraceError)
def numpy_linalg_eig(a):
    return np.linalg.eig(a)  # <-


@case(IndexError)
def ufunc_at_with_too_many_indices(a):
    np.add.at(a, ([0], [0], [0]), 1.0)  # <-
    return a


@case(TraceError)
def ufunc_reduceat(a):
    return np.add.reduceat(a, [0, 2])  # <-


@case(TraceError)
def order_dependent_reduce(a):
    return np.subtract.reduce(a)  # <-


@case(TraceError)
def unknown_keyword(a):
    return np.sum(a, bogus=1)  # <-


@case(TraceError)
def unknown_method_keyword(a):
    return a.sum(foo=3)  # <-


@case(TraceError)
def string_axis(a):
    return a.sum(axis="x")  # <-


@case(TypeError)
def string_axis_of_flip(a):
    return np.flip(a, "0")  # <-


@case(TraceError)
def ndarray_method_without_a_trace(a):
    return a.tolist()  # <-


@case(AttributeError)
def unknown_attribute(a):
    return a.frobnicate()  # <-


@case(AttributeError)
def attribute_assignment(a):
    a.foo = 1  # <-
    return a


@case(TraceError)
def shape_assignment(a):
    a.shape = (12,)  # <-
    return a


@case(ValueError)
def transpose_with_repeated_axes(a):
    return a.transpose((0, 0))  # <-


@case(TraceError)
def astype_to_object(a):
    return a.astype(object)  # <-


@case(TypeError)
def zeros_of_a_string(a):
    return np.zeros("3") + a  # <-


@case(TypeError)
def zeros_of_a_float(a):
    return np.zeros(2.5) + a  # <-


@case(ValueError)
def where_with_two_arguments(a):
    return np.where(a > 0, a)  # <-


@case(ValueError)
def matmul_with_a_scalar(a):
    return a @ 2.0  # <-


@case(TraceError)
def concatenate_of_one_array(a):
    return np.concatenate(a)  # <-


@case(TraceError)
def concatenate_of_strings(a):
    return np.concatenate([a[0], ["x"]])  # <-


@case(ValueError)
def roll_shifts_and_axes_differ(a):
    return np.roll(a, (1, 2, 3), axis=(0, 1))  # <-


@case(TraceError)
def roll_by_a_float(a):
    return np.roll(a, 1.5)  # <-


@case(TraceError)
def tile_by_a_dynamic_size(a):
    return np.tile(a, a.shape[0])  # <-


@case(TypeError)
def repeat_float_counts(a):
    return np.repeat(a, np.array([1.5, 2.0, 3.0]), axis=0)  # <-


@case(TypeError)
def diff_of_a_float_order(a):
    return np.diff(a, n=1.5)  # <-


@case(ValueError)
def diff_of_a_negative_order(a):
    return np.diff(a, n=-1)  # <-


@case(ValueError)
def cov_of_3_dims(a):
    return np.cov(a.reshape(2, 2, 3))  # <-


@case(TypeError)
def average_with_unaligned_weights(a):
    return np.average(a, weights=[1.0, 2.0])  # <-


@case(ValueError)
def accumulate_over_all_axes(a):
    return np.add.accumulate(a, axis=None)  # <-


@case(TypeError)
def outer_of_three(a):
    return np.add.outer(a, a, a)  # <-


@case(TraceError)
def ndarray_over_a_buffer(a):
    return np.ndarray((3,), buffer=b"abcdefghijklmnopqrstuvwx") + a[0, :3]  # <-


@case(TraceError)
def copyto_into_a_float(a, s):
    np.copyto(s, a)  # <-
    return a


CASES["copyto_into_a_float"] = (copyto_into_a_float, (X, 2.0), TraceError)


@case(TypeError)
def item_assignment_on_a_float(a, s):
    s[0] = 1  # <-
    return a


CASES["item_assignment_on_a_float"] = (item_assignment_on_a_float, (X, 2.0), TypeError)


@case(ValueError)
def unknown_sort_kind(a):
    return np.sort(a, kind="bogus")  # <-


@case(TraceError)
def numpy_general_eigenvalues(a):
    return np.linalg.eig(a[:, :3])  # <-


@case(TraceError)
def numpy_inverse_fft(a):
    return np.fft.ifft(a)  # <-


@case(TraceError)
def subtracting_booleans(a):
    return (a > 0) - (a > 1)  # <-


@case(TraceError)
def shift_of_a_float_array(a):
    return a << 1  # <-


# ---------------------------------------------------------------- inside loops traced as scf.for


def unsupported_in_a_loop(a, n):
    for _ in range(n):
        a = np.fft.fft(a)  # <-
    return a


def unsupported_in_a_nested_loop(a, n):
    for i in range(n):
        for j in range(n):
            a[i, j] = np.fft.ifft(a)  # <-
    return a


def list_grown_in_a_loop(a, n):
    parts = []
    for i in range(n):
        for j in range(i):  # <-
            parts.append(a[j])
    return parts[0]


def tile_by_the_loop_index(a, n):
    for i in range(n):
        a = np.tile(a, i)  # <-
    return a


def sort_kind_from_the_loop_index(a, n):
    for i in range(n):
        a = np.sort(a, kind=i)  # <-
    return a


for _fn, _expected in ((unsupported_in_a_loop, TraceError), (unsupported_in_a_nested_loop, TraceError),
                       (list_grown_in_a_loop, TraceError), (tile_by_the_loop_index, TraceError),
                       (sort_kind_from_the_loop_index, TypeError)):
    CASES[_fn.__name__] = (_fn, (X, 3), _expected)


# ---------------------------------------------------------------- the checks

INTERNAL = ("TracedArray", "SymbolicDim", "_arg", "_value", "internal error", "OpDef", "TraceContext")


def _marked_line(fn: Callable[..., Any]) -> int:
    """The line of ``fn`` marked ``# <-``."""
    lines, first = inspect.getsourcelines(fn)
    marked = [first + i for i, text in enumerate(lines) if text.rstrip().endswith("# <-")]
    assert len(marked) == 1, fn.__name__
    return marked[0]


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", list(CASES))
def test_construct_fails_with_a_user_error(name: str) -> None:
    fn, args, expected = CASES[name]
    with pytest.raises(Exception) as caught:
        dlbridge.jit(fn).lower(*args)
    error = caught.value
    # exactly the expected type: a TraceError where that is expected, NumPy's type (not a
    # TraceError, which is a TypeError too) otherwise
    assert type(error) is expected or (expected is not TraceError and type(error).__mro__[1] is expected
                                       and not isinstance(error, TraceError)), repr(error)
    message = str(error)
    where = f"{os.path.basename(__file__)}:{_marked_line(fn)}"
    assert where in message, message
    for word in INTERNAL:
        assert word not in message, message


@pytest.mark.parametrize("name", [n for n, (_, _, e) in CASES.items() if e is not TraceError])
def test_numpy_raises_the_same_type(name: str) -> None:
    """Where the corpus expects NumPy's own error, NumPy raises it on real arrays."""
    fn, args, expected = CASES[name]
    with pytest.raises(expected):
        fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
