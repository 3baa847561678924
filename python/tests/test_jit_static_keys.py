"""Static arguments key a jitted function's kernels by type and value at every level: ``1``,
``1.0``, ``True``, ``0.0`` and ``-0.0`` each compile their own kernel, inside tuples and
frozensets too, and every NaN reuses one."""

from __future__ import annotations

import math
import re
from typing import Any

import dlbridge
import numpy as np
import pytest


def _add_first(x: Any, s: Any) -> Any:
    return x + s[0]


def _divide(x: Any, s: Any) -> Any:
    return x / s


def _check(jitted: Any, fn: Any, *args: Any) -> None:
    got, want = jitted(*args), fn(*args)
    assert got.dtype == want.dtype, args
    np.testing.assert_array_equal(got, want)


def test_int_then_float_in_a_tuple_gives_numpys_dtype() -> None:
    f = dlbridge.jit(_add_first, static_argnums=1)
    x = np.array([100], np.int8)
    _check(f, _add_first, x, (100,))  # int8 arithmetic: wraps to -56
    _check(f, _add_first, x, (100.0,))  # a Python float: float64, 200.0
    assert f.num_specialisations == 2


def test_true_and_one_in_a_tuple_are_different_keys() -> None:
    f = dlbridge.jit(_add_first, static_argnums=1)
    b = np.array([True, False])
    _check(f, _add_first, b, (True,))  # bool: logical or
    _check(f, _add_first, b, (1,))  # int64: 2, 1
    assert f.num_specialisations == 2


@pytest.mark.parametrize("wrap", [lambda v: v, lambda v: (v,), lambda v: ((v, 2),)],
                         ids=["bare", "tuple", "nested"])
def test_negative_zero_is_its_own_key(wrap: Any) -> None:
    def divide(x: Any, s: Any) -> Any:
        while isinstance(s, tuple):
            s = s[0]
        return x / s

    f = dlbridge.jit(divide, static_argnums=1)
    ones = np.ones(3)
    np.testing.assert_array_equal(f(ones, wrap(0.0)), np.full(3, math.inf))
    np.testing.assert_array_equal(f(ones, wrap(-0.0)), np.full(3, -math.inf))
    assert f.num_specialisations == 2


@pytest.mark.parametrize("make", [lambda: float("nan"), lambda: (float("nan"),),
                                  lambda: np.float32("nan"), lambda: (1, (float("-nan"),))],
                         ids=["float", "tuple", "float32", "nested"])
def test_a_fresh_nan_reuses_the_kernel(make: Any) -> None:
    def plus(x: Any, s: Any) -> Any:
        while isinstance(s, tuple):
            s = s[-1]
        return x + s

    f = dlbridge.jit(plus, static_argnums=1)
    for _ in range(4):
        assert np.isnan(f(np.ones(2), make())).all()
    assert f.num_specialisations == 1


def test_nested_tuples_and_frozensets_key_by_type() -> None:
    def first(x: Any, s: Any) -> Any:
        v = s
        while isinstance(v, (tuple, frozenset)):
            v = next(iter(v))
        return x + v

    f = dlbridge.jit(first, static_argnums=1)
    x = np.array([100], np.int8)
    for s in [((100,),), ((100.0,),), frozenset({100}), frozenset({100.0}), frozenset({True})]:
        _check(f, first, x, s)
    assert f.num_specialisations == 5
    # equal values of the same types reuse their kernels
    for s in [((100,),), frozenset({100.0})]:
        _check(f, first, x, s)
    assert f.num_specialisations == 5


def test_lower_traces_each_key_apart() -> None:
    f = dlbridge.jit(_add_first, static_argnums=1)
    x = np.ones(2, np.int8)

    def result_type(text: str) -> str:
        match = re.search(r"\) -> \((tensor<[^>]*>)", text)
        assert match, text
        return match.group(1)

    assert result_type(f.lower(x, (1,))) == "tensor<?xi8>"
    assert result_type(f.lower(x, (1.0,))) == "tensor<?xf64>"
    assert result_type(f.lower(x, (True,))) == "tensor<?xi8>"
