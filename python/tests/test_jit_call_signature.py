"""``@dlbridge.jit`` calls bind like Python calls, static arguments specialise like ``jax.jit``,
and results come back in the structure the function returns."""

from __future__ import annotations

from typing import Any, NamedTuple

import dlbridge
import numpy as np
import pytest

X = np.arange(12.0).reshape(3, 4)


def test_keywords_and_defaults_bind_like_python() -> None:
    @dlbridge.jit
    def scale(x: Any, alpha: float = 0.5, beta: float = 1.0) -> Any:
        return x * alpha + beta

    for args, kwargs in [((X,), {}), ((X, 2.0), {}), ((X,), {"beta": -1.0}),
                         ((), {"x": X, "alpha": 3.0}), ((X,), {"beta": 2.0, "alpha": 0.0})]:
        np.testing.assert_array_equal(np.asarray(scale(*args, **kwargs)),
                                      scale.__wrapped__(*args, **kwargs))


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((X,), {"gamma": 1}, "unexpected keyword argument 'gamma'"),
        ((), {"alpha": 1.0}, "missing required argument 'x'"),
        ((X, 1.0), {"alpha": 2.0}, "multiple values for argument 'alpha'"),
        ((X, 1.0, 2.0, 3.0), {}, "takes 3 positional arguments but 4 were given"),
    ],
)
def test_binding_errors_are_type_errors(args: Any, kwargs: Any, message: str) -> None:
    @dlbridge.jit
    def scale(x: Any, alpha: float = 0.5, beta: float = 1.0) -> Any:
        return x * alpha + beta

    with pytest.raises(TypeError, match=message):
        scale(*args, **kwargs)


def test_a_parameter_named_stream_is_the_functions() -> None:
    @dlbridge.jit
    def f(x: Any, stream: int = 2) -> Any:
        return x * stream

    np.testing.assert_array_equal(np.asarray(f(X, stream=3)), X * 3)


def test_static_argnames_specialise_on_the_value() -> None:
    @dlbridge.jit(static_argnames=("axis", "keepdims"))
    def total(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return x.sum(axis=axis, keepdims=keepdims)

    for axis in (None, 0, 1, (0, 1), -1):
        for keepdims in (False, True):
            got = np.asarray(total(X, axis=axis, keepdims=keepdims))
            np.testing.assert_array_equal(got, X.sum(axis=axis, keepdims=keepdims))
    assert total.num_specialisations == 10
    total(X, axis=0)
    total(X, 0)
    assert total.num_specialisations == 10


def test_static_argnums_with_tuples_and_strings() -> None:
    @dlbridge.jit(static_argnums=(1, 2))
    def reshape(x: Any, shape: tuple[int, ...], order: str) -> Any:
        assert isinstance(shape, tuple) and order == "C"
        return x.reshape(shape) + len(shape)

    np.testing.assert_array_equal(np.asarray(reshape(X, (4, 3), "C")), X.reshape(4, 3) + 2)
    np.testing.assert_array_equal(np.asarray(reshape(X, (2, 2, 3), "C")), X.reshape(2, 2, 3) + 3)
    assert reshape.num_specialisations == 2


def test_static_values_are_compared_by_type() -> None:
    @dlbridge.jit(static_argnums=1)
    def f(x: Any, k: Any) -> Any:
        return x * 0 + (k / 2 if isinstance(k, float) else k // 2)

    np.testing.assert_array_equal(np.asarray(f(X, 3)), X * 0 + 1)
    np.testing.assert_array_equal(np.asarray(f(X, 3.0)), X * 0 + 1.5)


def test_unhashable_static_value_is_a_type_error() -> None:
    f = dlbridge.jit(lambda x, shape: x.reshape(shape), static_argnums=1)
    with pytest.raises(TypeError, match="static argument 'shape' must be hashable, got list"):
        f(X, [4, 3])


def test_bad_static_declarations_fail_at_decoration() -> None:
    with pytest.raises(ValueError, match="'axes' is not a parameter"):
        dlbridge.jit(lambda x, axis: x, static_argnames="axes")
    with pytest.raises(ValueError, match="out of range"):
        dlbridge.jit(lambda x, axis: x, static_argnums=5)


class Moments(NamedTuple):
    mean: Any
    spread: Any


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: (x,),
        lambda x: [x, x + 1],
        lambda x: (x, None),
        lambda x: ((x, x * 2), [x.sum()]),
        lambda x: None,
        lambda x: x,
        lambda x: (x, x * 2),
        lambda x: {"sum": x.sum(), "max": x.max(), "rows": [x[0], None]},
        lambda x: Moments(x.mean(), {"var": x.var()}),
        lambda x: ({}, x),
    ],
)
def test_results_keep_the_structure_returned(fn: Any) -> None:
    """Tuples, lists, named tuples and dicts (their keys in order) come back as returned."""
    want = fn(X)
    got = dlbridge.jit(fn)(X)

    def same(g: Any, w: Any) -> None:
        if w is None:
            assert g is None
        elif isinstance(w, dict):
            assert type(g) is dict and list(g) == list(w)
            for k in w:
                same(g[k], w[k])
        elif isinstance(w, (tuple, list)):
            assert type(g) is type(w) and len(g) == len(w)
            for a, b in zip(g, w):
                same(a, b)
        else:
            np.testing.assert_array_equal(np.asarray(g), w)

    same(got, want)
