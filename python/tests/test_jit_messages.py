"""Every error a user can cause while tracing names the user's line and no tracer internals.

A corpus of mistakes and unsupported constructs, each as a NumPy user writes it: the error
raised must be one a Python user expects (its type kept where Python or NumPy would raise it),
its message must start with ``dlbridge.jit:``, point at the line marked ``# <- here`` and name
no class, SSA value or MLIR syntax of the tracer's."""

from __future__ import annotations

import inspect
import math
import re
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from dlbridge import TraceError

#: Words of the tracer's that a user must never read in a message.
INTERNAL = re.compile(r"TracedArray|SymbolicDim|_LoopLocal|ArgSlot|IntSlot|SSA|tensor<|memref<|"
                      r"linalg\.|<source>|%[a-z_0-9]+")


def call_arr(x):
    return x(3)  # <- here


def missing_attribute(x):
    y = x * 2
    return y.no_such_attribute  # <- here


def set_shape(x):
    x.shape = (16,)  # <- here
    return x


def undefined_name(x):
    return x + no_such_name  # noqa: F821  # <- here


def unbound_local(x):
    if x is None:
        y = 1
    return x + y  # <- here


def string_operand(x):
    return x + "a"  # <- here


def float_of_array(x):
    return float(x)  # <- here


def math_on_loop_index(x):
    for i in range(x.shape[0]):
        x[i] = math.sqrt(i)  # <- here
    return x


def format_loop_index(x):
    for i in range(x.shape[0]):
        x[i] = len(f"{i:d}")  # <- here
    return x


def compare_loop_index(x):
    for i in range(x.shape[0]):
        late = i > 3  # <- here
        x[i] = late
    return x


def negative_size(x):
    y = x + 1
    return np.zeros(-5) + y.sum()  # <- here


def negative_size_in_loop(x):
    for i in range(x.shape[0]):
        x[i] = 1.0
        np.zeros(-5)  # <- here
    return x


def axis_out_of_range(x):
    return x.sum(axis=5)  # <- here


def float_index(x):
    return x[1.5]  # <- here


def bad_dtype(x):
    return x.astype("no-such-dtype")  # <- here


def scalar_item_assignment(x):
    s = x.sum()
    s[0] = 1.0  # <- here
    return s


def iterate_0d_array(x):
    return [v for v in x.sum()]  # <- here


def division_of_size_by_zero(x):
    return x[: x.shape[0] // 0]  # <- here


CORPUS: list[tuple[Callable[..., Any], type[Exception], str]] = [
    (call_arr, TypeError, "'numpy.ndarray' object is not callable"),
    (missing_attribute, AttributeError, "'numpy.ndarray' object has no attribute 'no_such_attribute'"),
    (set_shape, TraceError, "setting ndarray.shape"),
    (undefined_name, NameError, "name 'no_such_name' is not defined"),
    (unbound_local, UnboundLocalError, "'y'"),
    (string_operand, TraceError, "operand of type str"),
    (float_of_array, TraceError, "float"),
    (math_on_loop_index, TraceError, "float(shape entry)"),
    (format_loop_index, TraceError, "formatting a shape entry"),
    (compare_loop_index, TraceError, "shape comparison"),
    (negative_size, ValueError, "negative dimensions"),
    (negative_size_in_loop, ValueError, "negative dimensions"),
    (axis_out_of_range, ValueError, "axis 5 is out of bounds"),
    (float_index, IndexError, "not float"),
    (bad_dtype, TraceError, "no-such-dtype"),
    (scalar_item_assignment, IndexError, "0-dimensional"),
    (iterate_0d_array, TypeError, "iteration over a 0-d array"),
    (division_of_size_by_zero, ZeroDivisionError, "division or modulo by zero"),
]


def marked_line(fn: Callable[..., Any]) -> int:
    """The line of ``fn``'s source marked ``# <- here``."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, text in enumerate(lines) if "# <- here" in text)


@pytest.mark.parametrize(("fn", "kind", "words"), CORPUS, ids=[c[0].__name__ for c in CORPUS])
def test_error_names_the_users_line_and_no_internals(
    fn: Callable[..., Any], kind: type[Exception], words: str
) -> None:
    with pytest.raises(Exception) as caught:
        dlbridge.jit(fn)(np.ones((4, 4)))
    error = caught.value
    message = str(error)
    assert isinstance(error, kind), f"{type(error).__name__}: {message}"
    # Python's, dlbridge's or NumPy's own error types (AxisError), never an internal one
    assert type(error).__module__ in ("builtins", "dlbridge._trace.errors", "numpy.exceptions"), type(error)
    assert message.startswith("dlbridge.jit: "), message
    assert f"test_jit_messages.py:{marked_line(fn)}" in message, message
    assert words in message
    assert not INTERNAL.search(message), message


def test_a_name_error_keeps_the_missing_name() -> None:
    with pytest.raises(NameError) as caught:
        dlbridge.jit(undefined_name)(np.ones(3))
    assert caught.value.name == "no_such_name"


def test_the_users_own_exceptions_pass_unchanged() -> None:
    class Refused(Exception):
        pass

    def f(x):
        raise Refused("not today")

    with pytest.raises(Refused, match="^not today$"):
        dlbridge.jit(f)(np.ones(3))


def test_numpy_ufuncs_take_a_dynamic_size_as_numpy_takes_an_int() -> None:
    def f(q):
        return q / np.sqrt(q.shape[-1]) + np.maximum(q.shape[0], 2)

    for dtype in (np.float32, np.float64, np.int32):
        q = np.arange(12, dtype=dtype).reshape(3, 4)
        got = np.asarray(dlbridge.jit(f)(q))
        want = f(q)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_unparsable_trace_names_the_users_line_not_the_mlir() -> None:
    """A tracer fault that emits MLIR that does not parse is reported as dlbridge's, at the
    user's line that emitted the faulty op, with none of the parser's words."""
    mlir = "\n".join([
        "module {",
        "  func.func @f() {",
        "    // kernel.py:3: y = x * 2",
        "    %0 = arith.constant 1.0 : f32",
        "    // kernel.py:4: return y",
        "    return %undefined : f32",
        "  }",
        "}",
    ])
    error = dlbridge._trace.unparsable_trace(
        "f", mlir, "<source>:6:12: error: use of undeclared SSA value name")
    assert isinstance(error, TraceError)
    assert "internal error" in str(error) and "kernel.py:4: return y" in str(error)
    assert not INTERNAL.search(str(error))
    assert dlbridge._trace.unparsable_trace("f", mlir, "kernel.py:4: error: shapes differ") is None


def test_jit_reports_an_unparsable_trace_as_its_own_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    import dlbridge._api as api

    real_trace = api.trace

    def faulty_trace(*args: Any, **kwargs: Any) -> Any:
        traced = real_trace(*args, **kwargs)
        traced.mlir = traced.mlir.replace("return %", "return %undefined_", 1)
        return traced

    def g(x):
        return x * 3

    monkeypatch.setattr(api, "trace", faulty_trace)
    with pytest.raises(TraceError, match="internal error: g\\(\\) was traced into code") as caught:
        dlbridge.jit(g, cache=False)(np.ones(3))
    assert not INTERNAL.search(str(caught.value))


def test_a_fault_inside_the_tracer_is_reported_as_dlbridges(monkeypatch: pytest.MonkeyPatch) -> None:
    import dlbridge._trace.lowering as lowering

    # a function whose code is dlbridge's, failing as a tracer bug would
    namespace: dict[str, Any] = {}
    exec(compile("def broken(*args, **kwargs):\n    return (1.5)._arg\n", lowering.__file__, "exec"),
         namespace)
    broken = namespace["broken"]

    def h(x):
        return x - 1  # <- here

    monkeypatch.setattr(lowering, "promote", broken)
    with pytest.raises(TraceError, match="internal error while tracing") as caught:
        dlbridge.jit(h, cache=False)(np.ones(3))
    assert f"test_jit_messages.py:{marked_line(h)}" in str(caught.value)
