"""Python control flow on values known only at run time under ``@dlbridge.jit``.

``if``/``elif``/``else``, conditional expressions (``a if c else b``), ``while`` loops and
``and``/``or``/``not`` whose condition is a traced value (data, a loop index) are traced as
``scf.if``/``scf.while``: each construct gives NumPy's numbers on inputs taking every branch (0,
one and many iterations of a ``while``), float32/float64/int64 where NumPy's program allows
it, with one specialisation serving every input of a dtype (the branch is taken at run time,
not while tracing). Names bound in one branch only, arrays updated in place in a branch, nesting
(an ``if`` in a ``for`` in a ``while``) and conditions Python can evaluate (which keep running as
Python, with no ``scf.if``) are checked; what cannot be traced is a TraceError naming the
construct and the user's line. Every construct also compiles for CUDA (PTX through ptxas).
"""

from __future__ import annotations

import copy
import os
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from control_flow_asserts import asserted_log

TraceError = dlbridge.TraceError
FILE = os.path.basename(__file__)


# ---------------------------------------------------------------------------------------------
# the constructs, as NumPy users write them


def scale_by_sign(x):
    s = x.sum()
    if s > 0:
        y = x / s
    elif s < 0:
        y = -x
    else:
        y = np.zeros_like(x)
    return y


def doubled_if_any(x, m):
    return x * 2 if m.any() else x - 1


def newton_sqrt(a, tol):
    x = a.copy()
    err = np.inf
    while err > tol:
        x_new = 0.5 * (x + a / x)
        err = np.max(np.abs(x_new - x))
        x = x_new
    return x


def leading_positive(r):
    k = 0
    n = r.shape[0]
    while k < n and r[k] > 0:
        k += 1
    return k


def forward_differences(x):
    n = x.shape[0]
    out = np.zeros_like(x)
    for i in range(n):
        if i + 1 < n:
            out[i] = x[i + 1] - x[i]
    return out


def rows_clamped_in_place(x):
    for i in range(x.shape[0]):
        if x[i].sum() < 0:
            x[i] = 0
        else:
            x[i] *= 2
    return x


def normalised_in_place(x):
    top = np.abs(x).max()
    if top > 1:
        x /= top
    return x


def bisect_root(c, lo, hi, tol):
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - c > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def halving_sweeps(x, tol):
    err = 1.0
    sweeps = 0
    while err > tol:
        total = 0.0
        for i in range(x.shape[0]):
            if x[i] > 0:
                total = total + x[i]
            else:
                total = total - x[i] * 0.5
        x = x * 0.5
        err = total
        sweeps += 1
    return x, sweeps


def not_and_or(x, m):
    s = x.sum()
    if not (m.any() or s > 10):
        return_value = x + 1
    else:
        return_value = x * 3
    return return_value


def after_the_peak(x):
    i = np.argmax(x)
    return x[i + 1] if i + 1 < x.shape[0] else x[i] * 0


def count_in_branch(x):
    hits = 0
    if x.mean() > 0:
        hits = hits + 1
    return hits, x


def grows_until_large(x):
    y = x
    while y.sum() < 100:
        y = np.concatenate([y, y + 1])
    return y


def shifted_if_negative(x):
    if x.min() < 0:
        x = x - x.min()
    return x


def sign_scale_returning(x):
    s = x.sum()
    if s > 0:
        return x / s
    elif s < 0:
        return -x
    return np.zeros_like(x)


def nested_returns(x):
    if x.max() > 10:
        y = x / 10
        if y.min() < 0:
            return y, 1
        return y, 2
    x = x + 1
    return x, 3


def newton_until_break(a, tol):
    x = a.copy()
    while True:
        x_new = 0.5 * (x + a / x)
        if np.max(np.abs(x_new - x)) < tol:
            break
        x = x_new
    return x


def positive_sum_until_large(x):
    k = 0
    total = 0
    while k < x.shape[0]:
        k += 1
        if x[k - 1] < 0:
            continue
        if x[k - 1] > 100:
            break
        total = total + x[k - 1]
    else:
        total = total * 2
    return total


def head_or_all(x):
    if x.sum() > 0:
        y = x[:2]
    else:
        y = x[::-1]
    return y * 2


def leading_positive_chained(x):
    i = 0
    n = x.shape[0]
    while 0 <= i < n and x[i] > 0:
        i += 1
    return i


def doubled_in_range(x):
    if 0 < x.sum() <= 10:
        return x * 2
    return x


def python_conditions(x, axis=None):
    if x.ndim == 2 and axis is None:
        return x.sum()
    if axis is None:
        return x.max()
    return x.sum(axis=axis)


def _shift_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([1, -2, 3], dtype),), (np.array([1, 2], dtype),), (np.arange(6).astype(dtype)[::-2],)]


def _nested_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([20, 1], dtype),), (np.array([20, -1], dtype),), (np.array([2, -1], dtype),)]


def _break_inputs(dtype: str) -> list[tuple[Any, ...]]:
    # each adds an element: with none added 'total' is NumPy's int 0, where the traced loop carries a float
    return [(np.array([1, -2, 3], dtype),), (np.array([1, 200, 3, -1], dtype),), (np.array([-5, 3, 101], dtype),)]


def _floats(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    if dtype == "int64":
        return rng.integers(-5, 6, n).astype(dtype)
    return rng.normal(size=n).astype(dtype)


def _sign_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([1, 2, 3], dtype),), (np.array([-1, -2, 0, -5], dtype),), (np.zeros(5, dtype),),
            (np.array([3, -3], dtype),)]


def _doubled_inputs(dtype: str) -> list[tuple[Any, ...]]:
    x = np.arange(6).astype(dtype)
    return [(x, np.array([False, True, False])), (x, np.zeros(4, bool)), (x[::2], np.zeros(0, bool))]


def _newton_inputs(dtype: str) -> list[tuple[Any, ...]]:
    tol = 1e-5 if dtype == "float32" else 1e-12
    return [(np.array([2.0, 9.0, 16.0], dtype), tol), (np.array([1.0, 1.0], dtype), tol),
            (np.array([1e6, 0.25, 3.0, 7.0], dtype), tol)]


def _leading_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([1, 2, -1, 3], dtype),), (np.array([1, 2, 1, 3], dtype),), (np.array([-1, 2], dtype),),
            (np.zeros(0, dtype),)]


def _diff_inputs(dtype: str) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(2)
    return [(_floats(rng, 12, dtype),), (_floats(rng, 2, dtype),), (_floats(rng, 0, dtype),)]


def _rows_inputs(dtype: str) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(3)
    return [(_floats(rng, 20, dtype).reshape(5, 4),), (_floats(rng, 6, dtype).reshape(3, 2)[::-1],)]


def _normalised_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([0.5, -3.0, 2.0], dtype),), (np.array([0.5, -0.25], dtype),)]


def _bisect_inputs(dtype: str) -> list[tuple[Any, ...]]:
    t = np.dtype(dtype).type
    return [(t(2.0), t(0.0), t(2.0), t(1e-5)), (t(27.0), t(0.0), t(10.0), t(1e-4)), (t(5.0), t(1.0), t(1.0), t(0.1))]


def _sweeps_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([1.0, -2.0, 3.0], dtype), 1e-3), (np.array([0.1, -0.1], dtype), 10.0),
            (np.array([8.0, 4.0], dtype), 1.0)]


def _not_and_or_inputs(dtype: str) -> list[tuple[Any, ...]]:
    x = np.arange(4).astype(dtype)
    return [(x, np.array([False, False])), (x, np.array([True, False])), (x * 5, np.array([False, False]))]


def _peak_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([1, 5, 2], dtype),), (np.array([1, 2, 9], dtype),)]


def _count_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([1, 2], dtype),), (np.array([-1, -2], dtype),)]


def _grows_inputs(dtype: str) -> list[tuple[Any, ...]]:
    return [(np.array([1, 2], dtype),), (np.array([200, 1], dtype),), (np.array([30, 20, 10], dtype),)]


FLOATS = ("float32", "float64")
ALL = ("float32", "float64", "int64")

#: name -> (function, dtypes, inputs per dtype, how many scf.if / scf.while its MLIR has)
CONSTRUCTS: dict[str, tuple[Callable[..., Any], tuple[str, ...], Callable[[str], list[tuple[Any, ...]]], str]] = {
    "if_elif_else": (scale_by_sign, FLOATS, _sign_inputs, "scf.if"),
    "conditional_expression": (doubled_if_any, ALL, _doubled_inputs, "scf.if"),
    "while_tolerance": (newton_sqrt, FLOATS, _newton_inputs, "scf.while"),
    "while_and": (leading_positive, ALL, _leading_inputs, "scf.while"),
    "if_on_loop_index": (forward_differences, ALL, _diff_inputs, "scf.if"),
    "if_in_place_in_loop": (rows_clamped_in_place, ALL, _rows_inputs, "scf.if"),
    "if_in_place": (normalised_in_place, FLOATS, _normalised_inputs, "scf.if"),
    "bisection": (bisect_root, FLOATS, _bisect_inputs, "scf.while"),
    "if_in_for_in_while": (halving_sweeps, FLOATS, _sweeps_inputs, "scf.while"),
    "not_and_or": (not_and_or, ALL, _not_and_or_inputs, "scf.if"),
    "conditional_expression_guarding_an_index": (after_the_peak, ALL, _peak_inputs, "scf.if"),
    "python_number_in_a_branch": (count_in_branch, ALL, _count_inputs, "scf.if"),
    "returns_in_branches": (sign_scale_returning, FLOATS, _sign_inputs, "scf.if"),
    "nested_returns_of_tuples": (nested_returns, FLOATS, _nested_inputs, "scf.if"),
    "while_true_with_break": (newton_until_break, FLOATS, _newton_inputs, "scf.while"),
    "while_with_break_continue_else": (positive_sum_until_large, ALL, _break_inputs, "scf.while"),
    "branches_of_different_sizes": (head_or_all, ALL, _sign_inputs, "scf.if"),
    "chained_comparison_in_while": (leading_positive_chained, ALL, _leading_inputs, "scf.while"),
    "chained_comparison_in_if": (doubled_in_range, ALL, _nested_inputs, "scf.if"),
    "if_giving_the_argument_back": (shifted_if_negative, ALL, _shift_inputs, "scf.if"),
    "while_growing_an_array": (grows_until_large, ("int64", "float64"), _grows_inputs, "scf.while"),
}


def _has_op(text: str, op: str) -> bool:
    """Whether the MLIR ``text`` has an ``op`` operation (not merely the name in a comment)."""
    return any(line.strip().startswith(op) or f"= {op} " in line.split(" loc(")[0]
               for line in text.splitlines() if not line.strip().startswith("//"))


def _copies(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(copy.deepcopy(a) for a in args)


def _compare(got: Any, want: Any, dtype: str) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w, dtype)
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype or (want.dtype.kind == "i" and got.dtype.kind == "i"), (got.dtype, want.dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_matches_numpy_with_one_specialisation_per_dtype(name: str) -> None:
    fn, dtypes, make, op = CONSTRUCTS[name]
    jitted = dlbridge.jit(fn)
    for dtype in dtypes:
        for args in make(dtype):
            want_args, got_args = _copies(args), _copies(args)
            want = fn(*want_args)
            got = jitted(*got_args)
            _compare(got, want, dtype)
            for g, w in zip(got_args, want_args):  # in-place updates as NumPy's, the rest untouched
                if isinstance(w, np.ndarray):
                    np.testing.assert_array_equal(g, w)
    assert jitted.num_specialisations == len(dtypes)
    assert _has_op(jitted.lower(*make(dtypes[-1])[0]), op)


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_compiles_for_cuda(name: str) -> None:
    fn, dtypes, make, _ = CONSTRUCTS[name]
    dlbridge.jit(fn, target="cuda").inspect(*make(dtypes[-1])[0])


def test_python_conditions_run_as_python() -> None:
    """Conditions on ranks, ``None`` and static arguments stay Python: no scf.if."""
    x = np.arange(6.0).reshape(2, 3)
    jitted = dlbridge.jit(python_conditions, static_argnames=("axis",))
    for axis in (None, 0, 1):
        np.testing.assert_allclose(jitted(x, axis), python_conditions(x, axis))
    np.testing.assert_allclose(jitted(np.arange(4.0)), 3.0)
    assert not _has_op(jitted.lower(x), "scf.if")


def specialised_size(x):
    n = x.shape[0]
    if n < 3:
        return x * 0
    return x + 1


def test_conditions_on_argument_sizes_still_specialise() -> None:
    """A size from an argument is specialised, as before: a kernel per outcome, no scf.if."""
    jitted = dlbridge.jit(specialised_size)
    for n in (2, 5, 7):
        np.testing.assert_array_equal(jitted(np.ones(n)), specialised_size(np.ones(n)))
    assert not _has_op(jitted.lower(np.ones(5)), "scf.if")


def positive_only(x):
    if x.sum() > 0:
        y = x * 2
    return y


def unused_after_one_branch(x):
    if x.sum() > 0:
        y = x * 2
        x = y + 1
    return x


def test_a_name_bound_in_one_branch_only() -> None:
    """Used after the if, it holds the branch's value where that branch ran and raises (a
    ValueError naming it, as Python's UnboundLocalError) where it did not; unused, nothing."""
    jitted = dlbridge.jit(positive_only)
    np.testing.assert_array_equal(jitted(np.array([1.0, 2.0])), [2.0, 4.0])
    with pytest.raises(ValueError, match="'y' has no value"):
        jitted(np.array([-1.0, -2.0]))
    with pytest.raises(UnboundLocalError):
        positive_only(np.array([-1.0, -2.0]))
    assert jitted.num_specialisations == 1
    other = dlbridge.jit(unused_after_one_branch)
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0])):
        np.testing.assert_array_equal(other(x), unused_after_one_branch(x.copy()))


def returns_in_a_loop(x):
    for i in range(x.shape[0]):
        if x[i] > 0:  # <- return
            return x
    return -x


def returns_in_a_traced_while(x):
    err = x.sum()
    while err > 1e-3:  # <- return
        x = x * 0.5
        err = x.sum()
        if err < 0:
            return x
    return x


def appends_in_a_branch(x):
    parts = []
    if x.max() > 0:  # <- list
        parts.append(x)
    return x


@pytest.mark.parametrize(("fn", "words"), [
    (returns_in_a_loop, ("if on a condition known only at run time", "return")),
    (returns_in_a_traced_while, ("while loop on a condition known only at run time", "return")),
    (appends_in_a_branch, ("if on a condition known only at run time", "the list 'parts'")),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_cannot_be_traced_is_a_trace_error_at_the_line(fn: Callable[..., Any], words: tuple[str, ...]) -> None:
    with pytest.raises(TraceError) as caught:
        dlbridge.jit(fn).lower(np.arange(4.0))
    message = str(caught.value)
    for word in words:
        assert word in message, message
    source = open(__file__).read().splitlines()
    line = next(i + 1 for i, text in enumerate(source) if text.strip().startswith(("if ", "while "))
                and i > source.index(f"def {fn.__name__}(x):"))
    assert f"{FILE}:{line}" in message, message


def test_a_traced_while_can_run_zero_times() -> None:
    """The first test traced and false: the loop's names keep their values."""
    jitted = dlbridge.jit(leading_positive)
    assert int(jitted(np.array([-1.0, 2.0]))) == 0
    assert int(jitted(np.zeros(0))) == 0
    assert int(jitted(np.ones(300))) == 300
    assert jitted.num_specialisations == 1


def test_only_the_branch_taken_runs() -> None:
    """Reading past the end in the branch not taken raises nothing (the peak is last)."""
    jitted = dlbridge.jit(after_the_peak)
    assert float(jitted(np.array([1.0, 2.0, 9.0]))) == 0.0
    assert float(jitted(np.array([1.0, 9.0, 2.0]))) == 2.0


def checked_sqrt(x):
    if x.min() < 0:
        raise ValueError("negative input")
    return np.sqrt(x)


def checked_pick(x, k):
    if x.sum() > 0:
        y = x[k] * 2
    else:
        raise RuntimeError("no positive total")
    return y


def test_a_branch_that_raises_is_a_run_time_check() -> None:
    """``if <traced>: raise ...`` (input validation) raises where the branch runs, a ValueError
    with the message (the exception's type named where it is another), and only there."""
    jitted = dlbridge.jit(checked_sqrt)
    np.testing.assert_allclose(jitted(np.array([1.0, 4.0])), [1.0, 2.0])
    with pytest.raises(ValueError, match="negative input"):
        jitted(np.array([-1.0, 4.0]))
    picked = dlbridge.jit(checked_pick)
    assert float(picked(np.array([1.0, 4.0]), 1)) == 8.0
    with pytest.raises(ValueError, match="RuntimeError: no positive total"):
        picked(np.array([-1.0, -4.0]), 0)
    assert jitted.num_specialisations == 1 and picked.num_specialisations == 1
    dlbridge.jit(checked_sqrt, target="cuda").inspect(np.ones(3))


def test_an_assert_on_data_is_a_run_time_check() -> None:
    """(In a module of its own: pytest rewrites the asserts of test modules, whose source then
    no longer matches their code and is not rewritten by dlbridge.)"""
    jitted = dlbridge.jit(asserted_log)
    np.testing.assert_allclose(jitted(np.array([1.0, 4.0])), np.log([1.0, 4.0]))
    with pytest.raises(ValueError, match="AssertionError: positive values only"):
        jitted(np.array([1.0, -4.0]))
    assert jitted.num_specialisations == 1


def branches_of_two_dtypes(x):
    if x.sum() > 0:
        y = x.astype(np.float32)
    else:
        y = x.astype(np.int64)
    return y


def test_branches_of_two_dtypes_promote_as_numpy() -> None:
    """A name that is float32 after one branch and int64 after the other is NumPy's promotion of
    the two (float64) whichever branch runs, as numba unifies them."""
    jitted = dlbridge.jit(branches_of_two_dtypes)
    for x in (np.arange(4.0), -np.arange(4.0)):
        got = jitted(x)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, branches_of_two_dtypes(x))


def power_iteration_to_tolerance(a, tol):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    lam = 0.0
    for _ in range(1000):
        w = a @ v
        new = np.linalg.norm(w)
        v = w / new
        if abs(new - lam) < tol:
            break
        lam = new
    return lam, v


def first_negative(x):
    found = -1
    for i in range(x.shape[0]):
        if x[i] < 0:
            found = i
            break
    return found


def positive_sum_backwards(x, stop):
    total = 0.0
    for k in range(x.shape[0] - 1, stop, -1):
        if x[k] < 0:
            continue
        total += x[k]
    return total


def test_for_loops_left_early_on_traced_conditions_are_traced_whiles() -> None:
    """``break``/``continue`` on a value the kernel computes, in a ``for`` over a range: the loop
    runs as the ``while`` Python runs it by, one kernel for every length and outcome."""
    rng = np.random.default_rng(8)
    a = rng.random((6, 6))
    a = a + a.T
    power = dlbridge.jit(power_iteration_to_tolerance)
    for tol in (1e-3, 1e-12):
        for g, w in zip(power(a, tol), power_iteration_to_tolerance(a, tol)):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    first = dlbridge.jit(first_negative)
    for x in (np.array([1.0, 2.0, -3.0, -1.0]), np.array([1.0, 2.0]), np.zeros(0), -np.ones(7)):
        assert int(first(x)) == first_negative(x)
    assert first.num_specialisations <= 2
    assert "scf.while" in first.lower(np.ones(3))
    backwards = dlbridge.jit(positive_sum_backwards)
    for x, stop in ((np.array([1.0, -2.0, 3.0, 4.0]), -1), (np.array([1.0, -2.0, 3.0, 4.0]), 1), (np.zeros(0), -1)):
        np.testing.assert_allclose(backwards(x, stop), positive_sum_backwards(x, stop))


def zero_leading_until_small(x):
    r = x.copy()
    i = 0
    while r.sum() > 1:
        r[i] = 0
        i += 1
    return r


def clear_negatives_skipping(x):
    r = x.copy()
    i = 0
    while i < r.shape[0]:
        if r[i] < 0:
            r[i] = 0
            i += 2
            continue
        i += 1
    return r


@pytest.mark.parametrize("fn", [zero_leading_until_small, clear_negatives_skipping])
def test_traced_while_bodies_update_arrays_in_place(fn: Callable[..., Any]) -> None:
    """A traced ``while`` carries the arrays its body writes (the condition reads them)."""
    jitted = dlbridge.jit(fn)
    for x in (np.array([0.5, 0.7, 0.2, 0.9]), np.array([0.1, 0.2]), np.array([1.0, -2.0, 3.0, -4.0, -1.0, 2.0])):
        np.testing.assert_array_equal(jitted(x), fn(x.copy()))
    assert "scf.while" in jitted.lower(np.ones(3))
