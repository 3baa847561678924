"""``for i in range(...)`` inside ``@dlbridge.jit`` becomes ``scf.for`` and gives NumPy's answers."""

from __future__ import annotations

import builtins
import functools
import importlib.util
import linecache
import os
import re
from pathlib import Path
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from dlbridge._trace.loops import UNROLL_LIMIT


def _same(fn: Callable[..., Any], *args: Any) -> dlbridge.JitFunction:
    ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    jitted = dlbridge.jit(fn)
    got = jitted(*ours)
    if want is not None:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
    for o, a in zip(ours, args):
        if isinstance(a, np.ndarray):
            want_arg = a.copy()
            fn(*[want_arg if b is a else (b.copy() if isinstance(b, np.ndarray) else b) for b in args])
            np.testing.assert_allclose(o, want_arg, rtol=1e-10, atol=1e-12)
    return jitted


def power_iteration(A: Any, k: int) -> Any:
    v = np.ones(A.shape[0])
    for _ in range(k):
        v = A @ v
        v = v / np.sqrt((v * v).sum())
    return v


def test_traced_trip_count_is_one_loop() -> None:
    A = np.random.default_rng(0).random((6, 6))
    jitted = _same(power_iteration, A, 25)
    text = jitted.lower(A, 25)
    assert text.count("scf.for") == 1
    assert text.count("linalg.matmul") + text.count("linalg.matvec") + text.count("linalg.generic") < 10
    for k in (0, 1, 3):
        np.testing.assert_allclose(np.asarray(jitted(A, k)), power_iteration(A, k))


def heat(u: Any, steps: int) -> None:
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])


@pytest.mark.parametrize("layout", ["c", "reversed"])
def test_argument_updated_in_place_in_a_loop(layout: str) -> None:
    u = np.linspace(0.0, 1.0, 40) ** 2
    _same(heat, u if layout == "c" else u[::-1], 50)


def sgd(w: Any, g: Any, lr: float, steps: int) -> None:
    for _ in range(steps):
        w -= lr * g
        g *= 0.5


def test_several_arguments_updated_in_a_loop() -> None:
    _same(sgd, np.arange(5.0), np.ones(5), 0.1, 30)


def running_sum(x: Any) -> Any:
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * i
    return s


@pytest.mark.parametrize("n", [0, 1, 17])
def test_python_scalar_becomes_a_carried_value(n: int) -> None:
    _same(running_sum, np.arange(float(n)))


def prefix(x: Any) -> Any:
    out = np.zeros_like(x)
    for i in range(1, len(x)):
        out[i] = out[i - 1] + x[i]
    return out


def test_loop_index_reads_and_writes_elements() -> None:
    _same(prefix, np.arange(30.0))


def outer_product(a: Any, b: Any) -> Any:
    out = np.zeros((a.shape[0], b.shape[0]))
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = a[i] * b[j] + i - j
    return out


def test_nested_loops() -> None:
    jitted = _same(outer_product, np.arange(12.0), np.arange(9.0))
    assert jitted.lower(np.zeros(12), np.zeros(9)).count("scf.for") == 2


def strided(x: Any, start: int) -> Any:
    y = x * 0
    for i in range(len(x) - 1, start - 1, -2):
        y[i] = x[i] + i
    for i in range(start, len(x), 3):
        y[i] -= 1
    return y


@pytest.mark.parametrize("start", [0, 1, 5, 40])
def test_negative_and_dynamic_steps_follow_python(start: int) -> None:
    _same(strided, np.arange(20.0), start)


def dtype_changes(x: Any, k: int) -> Any:
    acc = np.zeros(x.shape[0], dtype=np.int64)
    for _ in range(k):
        acc = acc + x / 2
    return acc


def test_carried_array_takes_the_dtype_it_settles_on() -> None:
    _same(dtype_changes, np.arange(6, dtype=np.int64), 11)


def test_short_static_loops_unroll_and_keep_python_side_effects() -> None:
    def f(x: Any) -> Any:
        parts = []
        for i in range(3):
            parts.append(x * i)
        return parts[0] + parts[1] + parts[2]

    jitted = _same(f, np.arange(4.0))
    assert "scf.for" not in jitted.lower(np.zeros(4))


def test_long_static_loops_do_not_unroll() -> None:
    def f(x: Any) -> Any:
        for _ in range(UNROLL_LIMIT * 100):
            x = x * 0.999 + 0.001
        return x

    jitted = _same(f, np.arange(3.0))
    assert len(jitted.lower(np.zeros(3))) < 5000


def test_name_assigned_only_in_a_loop_has_its_last_value_or_an_error_naming_it() -> None:
    def f(x: Any, n: int) -> Any:
        for i in range(n):
            y = x * i
        return y

    jitted = dlbridge.jit(f)
    np.testing.assert_array_equal(jitted(np.ones(2), 20), [19.0, 19.0])
    with pytest.raises(ValueError, match="'y' has no value: the loop at test_jit_loops.py:[0-9]+ that "
                       "assigns it ran 0 times"):
        jitted(np.ones(2), 0)


def test_zero_step_is_value_error() -> None:
    def f(x: Any, s: int) -> Any:
        for _ in range(0, 10, s):
            x = x + 1
        return x

    with pytest.raises(ValueError, match="must not be zero"):
        dlbridge.jit(f)(np.zeros(2), 0)


def test_break_keeps_python_semantics() -> None:
    """A loop that breaks runs as the ``while`` Python runs it by: as Python over a range known
    while tracing, traced over a size or a loop index (one kernel for every size)."""
    def f(x: Any) -> Any:
        for i in range(4):
            if i == 2:
                break
            x = x + i
        return x

    _same(f, np.zeros(3))

    def g(x: Any) -> Any:
        for i in range(x.shape[0]):
            if i == 2:
                break
            x = x + i
        return x

    jitted = dlbridge.jit(g)
    for n in (3, 2, 5, 3):
        np.testing.assert_array_equal(jitted(np.zeros(n)), g(np.zeros(n)))
    assert jitted.num_specialisations == 1

    def h(x: Any) -> Any:
        for i in range(x.shape[0]):
            for _ in range(i):
                if x[0] > 1:
                    break
                x = x + 1
        return x

    jitted = dlbridge.jit(h)
    for n in (3, 4):
        np.testing.assert_array_equal(jitted(np.zeros(n)), h(np.zeros(n)))


def test_float_range_argument_is_type_error() -> None:
    def f(x: Any) -> Any:
        for _ in range(x.sum()):
            x = x + 1
        return x

    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        dlbridge.jit(f)(np.zeros(2))


def test_arrays_created_and_written_inside_the_body_stay_inside() -> None:
    def smooth(u: Any, nt: int) -> Any:
        for _ in range(nt):
            next_u = np.empty_like(u)
            next_u[0], next_u[-1] = u[0], u[-1]
            next_u[1:-1] = (u[:-2] + u[1:-1] + u[2:]) / 3
            u = next_u
        return u

    jitted = _same(smooth, np.random.default_rng(3).random(17), 30)
    assert jitted.lower(np.zeros(17), 30).count("scf.for") == 1


# --------------------------------------------------------------------------------------------------
# Python's values after the loop


def target_after(x: Any, n: int) -> Any:
    i = 7
    for i in range(n):  # noqa: B007
        x = x + 1
    return x * i


@pytest.mark.parametrize("n", [0, 1, 5, UNROLL_LIMIT + 1, 100])
def test_target_has_its_last_value_after_the_loop(n: int) -> None:
    _same(target_after, np.ones(3), n)
    dlbridge.jit(target_after, static_argnums=1)(np.ones(3), n)
    np.testing.assert_array_equal(dlbridge.jit(target_after, static_argnums=1)(np.ones(3), n),
                                  target_after(np.ones(3), n))


def nested_shared_target(x: Any, n: int, m: int) -> Any:
    for i in range(n):
        for i in range(m):  # noqa: B007
            x = x + 1
    return x * i


@pytest.mark.parametrize("n, m", [(3, 4), (20, 30), (3, 0), (12, 2)])
def test_nested_loops_sharing_a_target(n: int, m: int) -> None:
    _same(nested_shared_target, np.ones(2), n, m)


def test_unbound_target_after_zero_trips_is_an_error_naming_it() -> None:
    def f(x: Any, n: int) -> Any:
        for i in range(n):  # noqa: B007
            x = x + 1
        return x * i

    jitted = dlbridge.jit(f)
    np.testing.assert_array_equal(jitted(np.ones(2), 5), [24.0, 24.0])
    with pytest.raises(ValueError, match="'i' has no value: the loop at test_jit_loops.py:[0-9]+ "
                       "that assigns it ran 0 times"):
        jitted(np.ones(2), 0)

    def unused(x: Any, n: int) -> Any:
        for i in range(n):  # noqa: B007
            x = x + 1
        return x

    np.testing.assert_array_equal(dlbridge.jit(unused)(np.ones(2), 0), [1.0, 1.0])


def shadowed_argument(x: Any, i: int, n: int) -> Any:
    for i in range(n):  # noqa: B007
        x = x + 1
    return x * i


@pytest.mark.parametrize("n", [0, 4, 30])
def test_loop_target_shadowing_an_argument(n: int) -> None:
    _same(shadowed_argument, np.ones(2), 3, n)


def target_rebound(x: Any, n: int) -> Any:
    for i in range(n):
        i = i * 10
        x = x + i
    return x * i


@pytest.mark.parametrize("n", [3, 12])
def test_target_rebound_in_the_body_keeps_its_rebound_value(n: int) -> None:
    _same(target_rebound, np.ones(2), n)


def later_loop_rebinds(x: Any, n: int, k: int) -> Any:
    for i in range(n):
        y = x * i
    for j in range(k):
        y = x + j
    return y


@pytest.mark.parametrize("n, k", [(0, 5), (5, 0), (3, 4)])
def test_a_later_loop_gives_a_value_the_first_did_not(n: int, k: int) -> None:
    _same(later_loop_rebinds, np.ones(2), n, k)


def test_walrus_in_a_comprehension_binds_in_the_function() -> None:
    def f(x: Any, n: int) -> Any:
        out = x
        for i in range(n):
            ys = [(y := x * i) for _ in range(2)]
            out = out + ys[0]
        return out + y

    _same(f, np.ones(2), 12)


def test_for_else_runs_after_a_traced_loop() -> None:
    def f(x: Any, n: int) -> Any:
        for _ in range(n):
            x = x + 1
        else:
            x = x * 2
        return x

    _same(f, np.ones(2), 12)


# --------------------------------------------------------------------------------------------------
# trip counts


def count(x: Any, a: int, b: int, s: int) -> Any:
    c = 0
    for _ in range(a, b, s):
        c = c + 1
    return x * c


@pytest.mark.parametrize("a, b, s", [(-2**63 + 1, 2**63 - 1, 2**62), (2**63 - 1, -2**63, -2**62),
                                     (2**63 - 1, -2**63, -2**63), (-2**62, 2**62, 2**61), (5, -5, 1)])
def test_trip_counts_of_huge_spans_do_not_wrap(a: int, b: int, s: int) -> None:
    _same(count, np.ones(2), a, b, s)


def test_a_trip_count_beyond_int64_is_refused() -> None:
    with pytest.raises(ValueError, match=r"more than 2\*\*63 - 1 iterations"):
        dlbridge.jit(count)(np.ones(2), -2**63, 2**63 - 1, 1)

    def static(x: Any) -> Any:
        for _ in range(2**70, 2**70 + 20):
            x = x + 1
        return x

    with pytest.raises(dlbridge.TraceError, match="64-bit"):
        dlbridge.jit(static)(np.ones(2))

    def few(x: Any) -> Any:
        for _ in range(0, 2**66, 2**63):
            x = x + 1
        return x

    _same(few, np.ones(2))


# --------------------------------------------------------------------------------------------------
# the function object is what runs


def _twice(f: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(f)
    def wrapper(*args: Any) -> Any:
        return 2 * f(*args)

    return wrapper


@_twice
def decorated(x: Any) -> Any:
    s = x * 0
    for _ in range(10):
        s = s + 1
    return s


def test_a_decorator_under_jit_runs() -> None:
    np.testing.assert_array_equal(dlbridge.jit(decorated)(np.ones(2)), [20.0, 20.0])


def test_a_module_edited_after_import_runs_the_imported_code(tmp_path: Path) -> None:
    path = tmp_path / "edited_after_import.py"
    path.write_text("def f(x, n):\n    for i in range(n):\n        x = x + 1\n    return x\n")
    spec = importlib.util.spec_from_file_location("edited_after_import", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path.write_text("def f(x, n):\n    for i in range(n):\n        x = x + 1000\n    return x\n")
    os.utime(path, (1e9, 2e9))
    got = dlbridge.jit(module.f, static_argnums=1)(np.ones(2), 12)
    np.testing.assert_array_equal(got, [13.0, 13.0])
    # the loop runs as Python, so its trip count is fixed at the call's value
    np.testing.assert_array_equal(dlbridge.jit(module.f)(np.ones(2), 12), [13.0, 13.0])


def test_exec_code_does_not_run_what_linecache_holds() -> None:
    source = "def h(x, n):\n    for i in range(n):\n        x = x + 1\n    return x * i\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<dlbridge-loops-test>", "exec"), namespace)  # noqa: S102
    other = source.replace("x + 1", "x + 2").splitlines(True)
    linecache.cache["<dlbridge-loops-test>"] = (len(source), None, other, "<dlbridge-loops-test>")
    try:
        got = dlbridge.jit(namespace["h"], static_argnums=1)(np.ones(2), 12)
        np.testing.assert_array_equal(got, [143.0, 143.0])
        np.testing.assert_array_equal(dlbridge.jit(namespace["h"])(np.ones(2), 12), [143.0, 143.0])
    finally:
        del linecache.cache["<dlbridge-loops-test>"]


class _Scaler:
    def __init__(self, k: float) -> None:
        self.__k = k

    def scale(self, x: Any, n: int) -> Any:
        for _ in range(n):
            x = x * self.__k
        return x


def test_partials_and_bound_methods_are_traced_with_their_loops() -> None:
    jitted = dlbridge.jit(functools.partial(_Scaler(2.0).scale, n=12))
    assert jitted.__name__ == "scale"
    np.testing.assert_array_equal(jitted(np.ones(2)), [4096.0, 4096.0])
    assert "scf.for" in jitted.lower(np.ones(2))
    by_keyword = dlbridge.jit(functools.partial(target_after, n=30))
    assert by_keyword.__name__ == "target_after"
    np.testing.assert_array_equal(by_keyword(np.ones(2)), target_after(np.ones(2), 30))
    method = dlbridge.jit(_Scaler(0.5).scale)
    np.testing.assert_array_equal(method(np.ones(2), 3), [0.125, 0.125])

    class Callable_:
        def __call__(self, x: Any, n: int) -> Any:
            for _ in range(n):
                x = x * 2
            return x

    np.testing.assert_array_equal(dlbridge.jit(Callable_())(np.ones(2), 12), [4096.0, 4096.0])


# --------------------------------------------------------------------------------------------------
# what a traced loop cannot do: it runs as Python, over the call's trip count (guarded)


def closure_reads_the_loop_state(x: Any, n: int) -> Any:
    acc = x
    g = lambda: acc * 2  # noqa: E731
    for _ in range(n):
        acc = acc + 1
        x = x + g()
    return x


def global_counter(x: Any, n: int) -> Any:
    global _COUNTER
    for _ in range(n):
        _COUNTER = _COUNTER + 1
        x = x + 1
    return x


_COUNTER = 0


def dict_state(x: Any, n: int) -> Any:
    d = {}
    for i in range(n):
        d[i] = x * i
    return sum(d.values())


def list_state(x: Any, n: int) -> Any:
    parts = []
    for i in range(n):
        parts.append(x * i)
    return parts[-1]


def breaks(x: Any, n: int) -> Any:
    for i in range(n):
        if i == 15:
            break
        x = x + i
    return x


def continues(x: Any, n: int) -> Any:
    for i in range(n):
        if i == 5:
            continue
        x = x + i
    return x


@pytest.mark.parametrize("fn, what", [
    (closure_reads_the_loop_state, "'acc', which a closure created outside its body"),
    (global_counter, "'_COUNTER', which is declared global or nonlocal"),
    (dict_state, "changes the dict 'd'"),
    (list_state, "changes the list 'parts'"),
])
def test_loops_python_must_run_fix_their_trip_count(fn: Callable[..., Any], what: str) -> None:
    """A loop scf.for cannot carry (``what``) runs as Python: with a static trip count as it is,
    with an int argument's by tracing again for each value, guarded."""
    global _COUNTER
    for n in (20, 7):
        _COUNTER = 0
        want = fn(np.ones(2), n)
        for jitted in (dlbridge.jit(fn, static_argnums=1), dlbridge.jit(fn)):
            _COUNTER = 0
            np.testing.assert_allclose(jitted(np.ones(2), n), want)
    jitted = dlbridge.jit(fn)
    for n in (20, 7, 20):
        _COUNTER = 0
        jitted(np.ones(2), n)
    assert jitted.num_specialisations == 2, what


@pytest.mark.parametrize("fn", [breaks, continues])
def test_loops_left_early_over_an_int_argument_are_one_kernel(fn: Callable[..., Any]) -> None:
    """A range loop that breaks or continues runs as the ``while`` Python runs it by: its trip
    count stays an argument of one kernel."""
    jitted = dlbridge.jit(fn)
    for n in (20, 7, 0, 20):
        np.testing.assert_allclose(jitted(np.ones(2), n), fn(np.ones(2), n))
    assert jitted.num_specialisations == 1


def test_nonlocal_rebound_in_a_loop() -> None:
    def make() -> Callable[..., Any]:
        c = 0

        def f(x: Any, n: int) -> Any:
            nonlocal c
            for _ in range(n):
                c = c + 1
                x = x + c
            return x

        return f

    np.testing.assert_allclose(dlbridge.jit(make(), static_argnums=1)(np.ones(2), 12), make()(np.ones(2), 12))
    # traced as Python over the call's n: the nonlocal changes once, while tracing
    np.testing.assert_allclose(dlbridge.jit(make())(np.ones(2), 12), make()(np.ones(2), 12))


def test_messages_name_the_variable_not_internals() -> None:
    def read_first(x: Any, n: int) -> Any:
        for _ in range(n):
            y = y + x  # noqa: F821, F841
        return x

    with pytest.raises(dlbridge.TraceError, match="'y' is used in the loop at .* before it is assigned"):
        dlbridge.jit(read_first)(np.ones(2), 3)

    def python_object(x: Any, n: int) -> Any:
        for i in range(n):
            label = "row"
            x = x + i
        return x, len(label)

    with pytest.raises(dlbridge.TraceError, match="'label' may have no value after the loop") as err:
        dlbridge.jit(python_object)(np.ones(2), 12)
    assert "_NoValue" not in str(err.value) and "_LoopLocal" not in str(err.value)

    def escapes(x: Any, n: int) -> Any:
        keep = [x]
        for i in range(n):
            for j in range(i):
                keep[0] = x * j
        return keep[0]

    with pytest.raises(dlbridge.TraceError, match="changes the list 'keep'"):
        dlbridge.jit(escapes)(np.ones(2), 12)


class _Holder:
    value: Any = None


def test_a_value_leaving_a_traced_loop_unseen_is_a_trace_error() -> None:
    def f(x: Any, n: int) -> Any:
        for i in range(n):
            _Holder.value = x * i
        return _Holder.value + 1

    with pytest.raises(dlbridge.TraceError, match="computed in the body of the loop at test_jit_loops.py:"
                       "[0-9]+, which is traced once as scf.for, is used after the loop.* at "
                       "test_jit_loops.py:[0-9]+: +return _Holder.value"):
        dlbridge.jit(f)(np.ones(2), 12)


def test_source_text_in_locations_is_not_taken_for_values() -> None:
    def f(x: Any, n: int) -> Any:
        for iv in range(n):  # noqa: B007
            x = x + 1
        return x %iv

    _same(f, np.arange(1.0, 4.0), 12)


def row_energy(x: Any) -> Any:
    s = 0.0
    for row in x:
        s = s + (row * row).sum()
    return s


def path_length(points: Any) -> Any:
    total = np.zeros(points.shape[1])
    last = points[0]
    for p in points:
        d = p - last
        total = total + d * d
        last = p
    return np.sqrt(total), last


def ramp_weighted(x: Any) -> Any:
    s = x[0] * 0
    for i, row in enumerate(x):
        s = s + row * i
    return s, i


def doubled_rows(xs: Any) -> Any:
    out = []
    for r in xs:
        out.append(r * 2)
    return out[0] + out[-1]


def weighted(x: Any) -> Any:
    acc = x * 0
    for w in (1.0, 2.0, 3.0):
        acc = acc + x * w
    return acc


@pytest.mark.parametrize("rows", [0, 3, UNROLL_LIMIT + 1, 1000])
def test_iterating_over_an_arrays_rows_is_one_loop(rows: int) -> None:
    """``for row in x`` over a dynamic first dim is one ``scf.for``, like a range loop over
    ``x.shape[0]``: one kernel for every length, rows bound as ``x[i]``."""
    x = np.random.default_rng(rows).normal(size=(rows, 3))
    jitted = _same(row_energy, x)
    assert jitted.lower(x).count("scf.for") == 1


def test_rows_carried_in_tuples_and_the_last_row_after_the_loop() -> None:
    points = np.random.default_rng(0).random((50, 2))
    jitted = dlbridge.jit(path_length)
    for n in (50, 7, 50):
        got, last = jitted(points[:n])
        want, want_last = path_length(points[:n])
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_array_equal(last, want_last)
    assert jitted.num_specialisations == 1


def test_enumerate_over_rows_is_one_loop_with_its_index() -> None:
    x = np.random.default_rng(1).normal(size=(40, 3))
    jitted = dlbridge.jit(ramp_weighted)
    got, last = jitted(x)
    want, want_last = ramp_weighted(x)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert int(last) == want_last == 39
    assert jitted.lower(x).count("scf.for") == 1


def test_iterations_scf_for_cannot_carry_run_as_python() -> None:
    """A body that appends to a list iterates in Python, over rows fixed at the call's length;
    tuples and lists iterate as Python always."""
    _same(doubled_rows, np.arange(6.0).reshape(3, 2))
    _same(weighted, np.ones(4))


def zipped_dot(x: Any, y: Any) -> Any:
    s = 0.0
    for a, b in zip(x, y):
        s = s + (a * b).sum()
    return s


def zipped_three(x: Any, y: Any, z: Any) -> Any:
    acc = x[0] * 0
    for (a, b, c) in zip(x, y, z):
        acc = acc + a * b - c
    return acc, a, c


def enumerated_zip(x: Any, y: Any) -> Any:
    s = np.zeros(x.shape[1])
    i = -1
    for i, (a, b) in enumerate(zip(x, y)):
        s = s + (a - b) * i
    return s, i


def enumerated_from_one(x: Any) -> Any:
    s = x[0] * 0
    for k, row in enumerate(x, 1):
        s = s + row / k
    return s


def enumerated_from(x: Any, k: int) -> Any:
    s = np.zeros(x.shape[1:])
    for i, row in enumerate(x, start=k):
        s = s + row * i
    return s, i


def zipped_with_else(x: Any, y: Any) -> Any:
    m = np.zeros(x.shape[1])
    for a, b in zip(x, y):
        m = np.maximum(m, a - b)
    else:
        m = m + 1
    return m


def zipped_strict(x: Any, y: Any, z: Any) -> Any:
    s = 0.0
    for a, b, c in zip(x, y, z, strict=True):
        s = s + a * b * c
    return s


def zipped_with_a_list(x: Any) -> Any:
    acc = x[0] * 0
    for w, row in zip([1.0, -2.0, 0.5], x):
        acc = acc + w * row
    return acc


def zipped_appends(x: Any, y: Any) -> Any:
    out = []
    for a, b in zip(x, y):
        out.append(a - b)
    return out[-1] * len(out)


def zipped_by_a_local_zip(x: Any, y: Any) -> Any:
    zip = lambda *its: reversed(list(builtins.zip(*its)))  # noqa: A001, E731
    acc = x[0] * 0
    for a, b in zip(x, y):
        acc = acc * 2 + a - b
    return acc


def _zip_loop_text(fn: Callable[..., Any], *args: Any) -> str:
    """The traced MLIR of ``fn``, checked to hold its loop over rows as one ``scf.for`` whose
    body reads one row of each array (no unrolling)."""
    text = dlbridge.jit(fn).inspect(*args)["input"]
    assert text.count("scf.for") == 1
    assert text.count("tensor.extract_slice") <= 2 * len(args)
    return text


@pytest.mark.parametrize("rows", [(0, 0), (3, 3), (UNROLL_LIMIT + 1, UNROLL_LIMIT + 1), (200, 200),
                                  (30, 7), (7, 30), (0, 5)])
def test_zip_over_two_arrays_is_one_loop_over_the_shortest(rows: tuple[int, int]) -> None:
    """``for a, b in zip(x, y)`` pairs the rows of two arrays of dynamic lengths in one
    ``scf.for``, and stops at the shorter as Python's zip does."""
    rng = np.random.default_rng(sum(rows))
    x, y = rng.normal(size=(rows[0], 4)), rng.normal(size=(rows[1], 4))
    _same(zipped_dot, x, y)
    _zip_loop_text(zipped_dot, x, y)


def test_one_specialisation_zips_arrays_of_every_length() -> None:
    rng = np.random.default_rng(2)
    x, y, z = rng.normal(size=(40, 3)), rng.normal(size=(40, 3)), rng.normal(size=(40, 3))
    jitted = dlbridge.jit(zipped_three)
    for n, m, k in [(40, 40, 40), (12, 40, 31), (40, 9, 20), (17, 33, 2), (25, 25, 25)]:
        got, want = jitted(x[:n], y[:m], z[:k]), zipped_three(x[:n], y[:m], z[:k])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    assert jitted.num_specialisations == 1
    _zip_loop_text(zipped_three, x, y[:20], z)


@pytest.mark.parametrize("layout", ["strided", "reversed", "transposed"])
def test_zip_over_strided_and_reversed_arrays(layout: str) -> None:
    base = np.random.default_rng(3).normal(size=(60, 12))
    view = {"strided": lambda a: a[::3, ::2], "reversed": lambda a: a[::-1, ::-1],
            "transposed": lambda a: a.T}[layout]
    x, y, z = view(base), view(base[:, ::-1] * 2.0), view(base[::-1].copy())
    _same(zipped_three, x, y, z)
    _same(zipped_dot, x, y[1:])


@pytest.mark.parametrize("rows", [0, 1, 25])
def test_enumerate_of_zip_is_one_loop_with_its_index(rows: int) -> None:
    rng = np.random.default_rng(rows)
    x, y = rng.normal(size=(rows, 2)), rng.normal(size=(rows + 3, 2))
    jitted = dlbridge.jit(enumerated_zip)
    got, last = jitted(x, y)
    want, want_last = enumerated_zip(x, y)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert int(last) == want_last == rows - 1
    _zip_loop_text(enumerated_zip, x, y)


def test_enumerate_counts_from_its_start() -> None:
    """``enumerate(x, 1)``, and ``start=k`` with ``k`` an int argument: one loop, and one
    specialisation for every ``k``."""
    x = np.random.default_rng(4).normal(size=(30, 3))
    _same(enumerated_from_one, x)
    _zip_loop_text(enumerated_from_one, x)
    jitted = dlbridge.jit(enumerated_from)
    for k in (0, 5, -40, 2**40):
        got, last = jitted(x, k)
        want, want_last = enumerated_from(x, k)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        assert int(last) == want_last
    assert jitted.num_specialisations == 1
    assert jitted.lower(x, 3).count("scf.for") == 1


@pytest.mark.parametrize("rows", [(0, 4), (12, 10)])
def test_zip_loop_runs_its_else_clause(rows: tuple[int, int]) -> None:
    x, y = np.arange(rows[0] * 2.0).reshape(-1, 2), np.ones((rows[1], 2))
    _same(zipped_with_else, x, y)


def test_zip_strict_checks_lengths_with_pythons_message() -> None:
    x = np.random.default_rng(5).normal(size=20)
    jitted = dlbridge.jit(zipped_strict)
    np.testing.assert_allclose(jitted(x, x[::-1], x * 2), zipped_strict(x, x[::-1], x * 2), rtol=1e-12)
    for n, m, k in [(20, 12, 20), (20, 20, 12), (20, 12, 5), (12, 20, 20), (12, 12, 20), (5, 20, 12)]:
        with pytest.raises(ValueError) as want:
            zipped_strict(x[:n], x[:m], x[:k])
        with pytest.raises(ValueError, match=re.escape(str(want.value))):
            jitted(x[:n], x[:m], x[:k])
    assert jitted.num_specialisations == 1
    _zip_loop_text(zipped_strict, x, x, x)


def test_zip_with_a_python_list_runs_as_python() -> None:
    """A zip whose iterables are not all traced arrays is Python's zip (here unrolled over the
    list's three items, the rows fixed at the call's count)."""
    x = np.random.default_rng(6).normal(size=(5, 3))
    jitted = _same(zipped_with_a_list, x)
    assert "scf.for" not in jitted.lower(x)
    _same(zipped_with_a_list, x[:2])


def test_zip_loops_scf_for_cannot_carry_and_a_local_zip_run_as_python() -> None:
    x, y = np.arange(8.0).reshape(4, 2), np.ones((6, 2))
    _same(zipped_appends, x, y)
    _same(zipped_by_a_local_zip, x, y)


def zipped_into(x: Any, y: Any) -> Any:
    out = np.zeros((min(x.shape[0], y.shape[0]), x.shape[1]))
    for i, (a, b) in enumerate(zip(x, y)):
        out[i] = a * b.sum()
    return out


def zipped_enumerate(x: Any, y: Any) -> Any:
    acc = np.zeros(x.shape[1:])
    for (i, a), b in zip(enumerate(x), y):
        acc = acc + a * i - b
    return acc


@pytest.mark.parametrize("dtypes", [("int32", "float32"), ("float32", "float64"), ("int64", "int64"),
                                    ("bool", "int16")])
def test_zip_over_arrays_of_mixed_dtypes_carries_the_dtype_numpy_gives(dtypes: tuple[str, str]) -> None:
    rng = np.random.default_rng(7)
    x = (rng.normal(size=(19, 3)) * 5).astype(dtypes[0])
    y = (rng.normal(size=(23, 3)) * 5).astype(dtypes[1])
    z = (rng.normal(size=(21, 3)) * 5).astype(dtypes[1])
    got, want = dlbridge.jit(zipped_three)(x, y, z), zipped_three(x, y, z)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.parametrize("rows", [(0, 3), (9, 40), (40, 9)])
def test_enumerate_of_zip_writes_rows_of_an_output(rows: tuple[int, int]) -> None:
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=(rows[0], 5)), rng.normal(size=(rows[1], 2))
    _same(zipped_into, x, y)
    _zip_loop_text(zipped_into, x, y)


def test_zip_of_an_enumerate_is_one_loop() -> None:
    rng = np.random.default_rng(9)
    x, y = rng.normal(size=(30, 4)), rng.normal(size=(17, 4))
    _same(zipped_enumerate, x, y)
    _zip_loop_text(zipped_enumerate, x, y)


def welford(x: Any) -> Any:
    mean = 0.0
    m2 = 0.0
    for k in range(x.shape[0]):
        d = x[k] - mean
        mean += d / (k + 1)
        m2 += d * (x[k] - mean)
    return mean, m2 / x.shape[0]


def int_total_of_floats(x: Any) -> Any:
    total = 0
    count = 0
    for k in range(x.shape[0]):
        total += x[k] * 0.5
        count += 1
    return total / count


@pytest.mark.parametrize("fn", [welford, int_total_of_floats])
def test_python_numbers_augmented_with_elements_are_carried_values(fn: Callable[..., Any]) -> None:
    """``mean += d`` of a Python number rebinds it (numbers are immutable): the loop carries the
    value and leaves the name holding it, whatever the 0-d values it is augmented with."""
    x = np.random.default_rng(3).random(11)
    jitted = dlbridge.jit(fn)
    for n in (11, 4):
        got, want = jitted(x[:n]), fn(x[:n])
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    assert "scf.for" in jitted.lower(x)
