"""``for i in range(...)`` inside ``@dlbridge.jit`` becomes ``scf.for`` and gives NumPy's answers."""

from __future__ import annotations

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


def test_loop_variable_used_after_the_loop_needs_a_value_before() -> None:
    def f(x: Any, n: int) -> Any:
        for i in range(n):
            y = x * i
        return y

    with pytest.raises(dlbridge.TraceError, match="'y' is assigned only inside a loop"):
        dlbridge.jit(f)(np.zeros(2), 20)


def test_zero_step_is_value_error() -> None:
    def f(x: Any, s: int) -> Any:
        for _ in range(0, 10, s):
            x = x + 1
        return x

    with pytest.raises(ValueError, match="must not be zero"):
        dlbridge.jit(f)(np.zeros(2), 0)


def test_break_keeps_python_semantics_or_refuses() -> None:
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

    with pytest.raises(dlbridge.TraceError, match="dynamic size"):
        dlbridge.jit(g)(np.zeros(3))


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
