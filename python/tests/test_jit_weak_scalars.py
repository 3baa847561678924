"""Python scalars are weakly typed in ``@dlbridge.jit`` functions (NEP 50, as NumPy 2 and JAX):
an array's dtype wins over a Python literal or a Python scalar argument of the same kind, and the
scalar is converted to it exactly as NumPy converts it."""

from __future__ import annotations

import dlbridge
import numpy as np
import pytest


def mul(x, s):
    return x * s


def add(x, s):
    return x + s


def sub_from(x, s):
    return s - x


def literal_float(x):
    return x * 2.5 + 0.1


def literal_int(x):
    return x + 1 - 3


_DTYPES = ["float16", "float32", "float64", "int8", "uint8", "int16", "int32", "uint64"]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("fn,scalar", [(mul, 2.5), (add, 3), (sub_from, 7), (add, True)])
def test_scalar_argument_takes_the_arrays_dtype(dtype, fn, scalar):
    if isinstance(scalar, float) and np.dtype(dtype).kind != "f":
        scalar = 2  # a float would make it float64, tested below
    x = np.arange(6, dtype=dtype).reshape(2, 3)
    want = fn(x, scalar)
    got = dlbridge.jit(fn)(x, scalar)
    assert got.dtype == want.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("fn", [literal_float, literal_int])
def test_literals_take_the_arrays_dtype(dtype, fn):
    x = np.arange(6, dtype=dtype)[::-1]
    want = fn(x)
    got = dlbridge.jit(fn)(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == "float16" else 1e-6)


def test_float_scalar_with_an_int_array_is_float64():
    x = np.arange(4, dtype=np.int8)
    got = dlbridge.jit(mul)(x, 0.5)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x * 0.5)


@np.errstate(over="ignore")  # NumPy's own casts of the values beyond float16's range
def test_float16_conversion_of_float_arguments_is_correctly_rounded():
    """Rounding a float64 argument to float16 through float32 would round twice: these values lie
    just off a float16 rounding boundary, and float32 rounds them onto it."""
    half_ulp = 2.0**-11
    values = [
        1 + half_ulp + 2**-40,  # just above a tie: up
        1 + half_ulp - 2**-40,  # just below: down
        1 + 3 * half_ulp + 2**-40,
        -(1 + half_ulp + 2**-40),
        2**-24 * 0.5 + 2**-60,  # just above half the smallest subnormal: up to it
        65519.99,  # rounds to the largest float16
        65520.0,  # rounds to inf
        1e300,
        5e-324,
        float("inf"),
        float("nan"),
        0.1,
        -0.0,
    ]
    f = dlbridge.jit(mul)
    one = np.ones(1, np.float16)
    for v in values:
        got = f(one, v)
        want = one * v
        assert got.dtype == np.float16
        np.testing.assert_array_equal(got, want, err_msg=repr(v))
    rng = np.random.default_rng(3)
    # and astype(float16) of float64 arrays, whose magnitudes span float16's range and beyond
    many = rng.standard_normal(2000) * np.exp2(rng.integers(-30, 20, 2000))
    g = dlbridge.jit(lambda x: x.astype(np.float16))
    np.testing.assert_array_equal(g(many), many.astype(np.float16))
    np.testing.assert_array_equal(g(many.astype(np.float32)), many.astype(np.float32).astype(np.float16))


def test_bfloat16_with_python_scalars():
    jnp = pytest.importorskip("jax.numpy")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = jnp.arange(6, dtype=jnp.bfloat16)
    ref = np.arange(6, dtype=np.float32)
    for fn, s in ((mul, 2.5), (add, 3), (sub_from, -0.5)):
        got = np.asarray(dlbridge.jit(fn)(x, s))
        assert got.dtype == ml_dtypes.bfloat16  # as JAX: weak scalars keep bfloat16
        np.testing.assert_array_equal(got.astype(np.float32), fn(ref, s))
    # just above the tie between 1 and the next bfloat16: up (float32 would round onto the tie)
    got = np.asarray(dlbridge.jit(mul)(jnp.ones(3, jnp.bfloat16), 1 + 2**-8 + 2**-40))
    np.testing.assert_array_equal(got.astype(np.float32), 1 + 2**-7)
    assert np.asarray(dlbridge.jit(literal_float)(x)).dtype == ml_dtypes.bfloat16


def _iadd(c, s):
    c += s


@pytest.mark.parametrize("fn", [add, np.maximum, _iadd], ids=["add", "maximum", "iadd"])
@pytest.mark.parametrize("dtype,value,error", [
    ("int8", 1000, OverflowError), ("int16", -40000, OverflowError),
    ("uint8", -1, ValueError), ("uint32", 2**32 + 7, ValueError)])
def test_int_argument_out_of_the_arrays_range_is_refused(fn, dtype, value, error):
    """NumPy refuses (OverflowError) a Python int that does not fit the array's dtype rather than
    wrapping it; so does the call, naming the argument (a ValueError raised by the kernel for
    unsigned dtypes, which scalar parameters cannot have)."""
    x = np.arange(3, dtype=dtype)
    with pytest.raises(OverflowError):
        fn(x.copy(), value)
    jitted = dlbridge.jit(fn)
    actual = x.copy()
    with pytest.raises(error, match=rf"argument 1 '\w+': expected {dtype} in \[.*\], got {value}"):
        jitted(actual, value)
    np.testing.assert_array_equal(actual, x)
    expected = x.copy()
    out = fn(expected, 5)
    result = jitted(actual, 5)
    np.testing.assert_array_equal(actual, expected)
    if out is not None:
        np.testing.assert_array_equal(result, out)
        assert result.dtype == out.dtype


@pytest.mark.parametrize("dtype,scalar", [
    ("float32", np.float64(0.1)), ("int8", np.int64(300)), ("float16", np.float32(1.5)),
    ("int8", np.uint8(200)), ("float32", np.int64(3)), ("int16", np.bool_(True)),
    ("uint8", np.int8(-1)), ("float64", np.float16(0.1)), ("int32", np.uint32(7)),
    ("uint16", np.uint64(2**40))])
def test_numpy_scalars_are_strongly_typed(dtype, scalar):
    """A NumPy scalar keeps its dtype (NEP 50), unlike a Python scalar: float32 + float64(0.1)
    is float64 and int8 + int64(300) is int64, as in NumPy."""
    x = np.arange(4, dtype=dtype)
    expected = add(x, scalar)
    result = dlbridge.jit(add)(x, scalar)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint32", "int64"])
def test_comparisons_with_python_ints_beyond_the_dtype_are_exact(dtype: str) -> None:
    """NumPy 2 compares an integer array with a Python int its dtype cannot hold exactly
    (``uint8_array == -1`` is all False) rather than raising as arithmetic does."""
    info = np.iinfo(dtype)
    x = np.arange(5).astype(dtype)
    big, small = int(info.max) + 1, int(info.min) - 1
    f = dlbridge.jit(lambda a: (a == big, a != big, a < big, a <= big, a > big, a >= big,
                                a == small, a > small, small < a, big <= a))
    want = (x == big, x != big, x < big, x <= big, x > big, x >= big, x == small, x > small, small < x, big <= x)
    for got, w in zip(f(x), want):
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, w)
    with pytest.raises(OverflowError, match=f"Python integer {big} out of bounds for {dtype}"):
        dlbridge.jit(lambda a: a + big)(x)
