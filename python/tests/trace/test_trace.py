"""Tests of the tracer: MLIR verifies and lowers, promotion matches NumPy, errors, determinism."""

from __future__ import annotations

import re

import dlbridge as dl
import numpy as np
import pytest
from _mlir import check_lowers, check_verifies
from dlbridge._trace import ArraySpec, ScalarSpec, TraceError, trace
from dlbridge._trace import dtypes as D
from reference import CASES, specs_for

NP_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
]


def _check(fn, specs, name="f"):
    r = trace(fn, specs, name=name)
    check_verifies(r.mlir)
    check_lowers(r.mlir)
    return r


F2 = ArraySpec("float32", 2)

# ---------------------------------------------------------------- promotion


@pytest.mark.parametrize("a", NP_DTYPES)
@pytest.mark.parametrize("b", NP_DTYPES)
def test_result_type_matches_numpy(a, b):
    assert D.result_type(D.dtype(a), D.dtype(b)).name == np.result_type(a, b).name


@pytest.mark.parametrize("a", NP_DTYPES)
@pytest.mark.parametrize("scalar", [True, 1, 1.5, 1j])
def test_weak_scalar_matches_numpy(a, scalar):
    want = (np.ones(2, a) + scalar).dtype if not (a == "bool" and scalar is True) else np.dtype(bool)
    got = D.weak_result_type(D.dtype(a), D.scalar_kind_of(scalar))
    assert got.name == want.name


def test_bfloat16_promotion():
    bf, f16 = D.dtype("bfloat16"), D.dtype("float16")
    assert D.result_type(bf, f16).name == "float32"
    assert D.result_type(bf, D.dtype("int8")).name == "bfloat16"
    assert D.result_type(bf, D.dtype("float64")).name == "float64"
    assert D.weak_result_type(bf, "float").name == "bfloat16"


@pytest.mark.parametrize("a", NP_DTYPES)
@pytest.mark.parametrize("b", ["int8", "uint8", "float32", "int64"])
def test_traced_add_dtype(a, b):
    r = trace(lambda x, y: x + y, [ArraySpec(a, 1), ArraySpec(b, 1)], name="f")
    want = "bool" if a == "bool" == b else np.result_type(a, b).name
    assert r.results[0].dtype == want


@pytest.mark.parametrize(
    "fn,dt",
    [
        (lambda x: x / x, "int8"),
        (lambda x: x // x, "bool"),
        (lambda x: x % x, "bool"),
        (lambda x: x ** x, "bool"),
        (lambda x: np.exp(x), "int8"),
        (lambda x: np.exp(x), "int16"),
        (lambda x: np.exp(x), "bool"),
        (lambda x: np.sqrt(x), "int32"),
        (lambda x: x.sum(), "int8"),
        (lambda x: x.sum(), "uint16"),
        (lambda x: x.sum(), "bool"),
        (lambda x: x.mean(), "int32"),
        (lambda x: x.mean(), "float16"),
        (lambda x: x.max(), "bool"),
        (lambda x: np.abs(x), "complex64"),
        (lambda x: x * 2.5, "int8"),
        (lambda x: x + 1, "uint8"),
        (lambda x: x + True, "bool"),
        (lambda x: x * 2, "bool"),
        (lambda x: x > 1, "float16"),
    ],
)
def test_result_dtype_matches_numpy(fn, dt):
    r = trace(fn, [ArraySpec(dt, 1)], name="f")
    with np.errstate(all="ignore"):
        want = np.asarray(fn(np.ones(3, dt))).dtype.name
    assert r.results[0].dtype == want


def test_python_int_out_of_range():
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        trace(lambda x: x + 1000, [ArraySpec("int8", 1)], name="f")


# ---------------------------------------------------------------- ops verify and lower

UNARY = {
    "neg": lambda x: -x,
    "abs": lambda x: abs(x),
    "exp": dl.exp,
    "log": dl.log,
    "sqrt": dl.sqrt,
    "tanh": dl.tanh,
    "sin": dl.sin,
    "cos": dl.cos,
    "erf": dl.erf,
    "sigmoid": dl.sigmoid,
    "np_exp": np.exp,
    "np_abs": np.abs,
    "square": np.square,
}
BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "floordiv": lambda x, y: x // y,
    "mod": lambda x, y: x % y,
    "pow": lambda x, y: x ** y,
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "maximum": dl.maximum,
    "minimum": dl.minimum,
    "np_maximum": np.maximum,
    "np_minimum": np.minimum,
    "np_power": np.power,
}
BITWISE = {
    "and": lambda x, y: x & y,
    "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y,
    "invert": lambda x, y: ~x,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_not": lambda x, y: np.logical_not(x),
}


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16", "int32"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op, dt):
    _check(UNARY[op], [ArraySpec(dt, 2, (False, True))])


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "int8", "int64", "uint8", "uint32"])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary(op, dt):
    _check(BINARY[op], [ArraySpec(dt, 2), ArraySpec(dt, 1)])


@pytest.mark.parametrize("dt", ["bool", "int16", "uint64"])
@pytest.mark.parametrize("op", sorted(BITWISE))
def test_bitwise(op, dt):
    _check(BITWISE[op], [ArraySpec(dt, 2), ArraySpec(dt, 2, (True, False))])


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_binary(op, dt):
    _check(BINARY[op], [ArraySpec(dt, 1), ArraySpec(dt, 1)])


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_unary(dt):
    _check(lambda x: (np.abs(x), np.exp(x), -x, x * 2.0, x + 1j), [ArraySpec(dt, 1)])


@pytest.mark.parametrize("op", ["log", "sin", "tanh", "sqrt"])
def test_complex_transcendental_functions_verify_and_lower(op):
    """Written on the parts (complex_math.py; values in test_jit_elementwise_surface.py)."""
    _check(UNARY[op], [ArraySpec("complex64", 1)])


@pytest.mark.parametrize("fn", [np.floor, np.cbrt, lambda x: np.fmod(x, x)])
def test_complex_rejects_what_numpy_has_no_loop_for(fn):
    with pytest.raises(TraceError, match="complex"):
        trace(fn, [ArraySpec("complex64", 1)], name="f")
    # complex numbers compare in NumPy's lexicographic order (test_jit_numpy_surface.py)
    trace(lambda x: x < x, [ArraySpec("complex64", 1)], name="f")


def test_mixed_dtypes_and_broadcasting():
    _check(
        lambda a, b, c: (a + b) * c,
        [ArraySpec("uint8", 3, (True, False, False)), ArraySpec("int8", 1), ArraySpec("float16", 2, (False, True))],
    )


def test_scalar_params():
    r = _check(
        lambda x, s, n, flag: (x * s + n, np.where(flag, x, -x), s * n, n + 1),
        [F2, ScalarSpec("float"), ScalarSpec("int"), ScalarSpec("bool")],
    )
    assert "%s: f64" in r.mlir and "%n: i64" in r.mlir and "%flag: i1" in r.mlir
    assert [x.dtype for x in r.results] == ["float32", "float32", "float64", "int64"]
    assert [x.rank for x in r.results] == [2, 2, 0, 0]


def test_scalar_spec_with_value_specialises():
    r = _check(lambda x, ax: x.sum(axis=ax), [F2, ScalarSpec("int", 1)])
    assert r.results[0].rank == 1


def test_where():
    r = _check(lambda c, x, y: dl.where(c, x, y), [ArraySpec("bool", 2), ArraySpec("float32", 1), ArraySpec("int8", 2, (True, False))])
    assert r.results[0].dtype == "float32"
    _check(lambda x: np.where(x > 0, x, 0), [F2])
    _check(lambda x: np.where(x > 0, 1.0, -1.0), [F2])


@pytest.mark.parametrize("src", ["bool", "int8", "uint16", "int64", "float16", "bfloat16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("dst", ["bool", "int8", "uint8", "int32", "uint64", "float16", "bfloat16", "float32", "float64", "complex128"])
def test_astype(src, dst):
    r = _check(lambda x: dl.astype(x, dst), [ArraySpec(src, 1)])
    assert r.results[0].dtype == dst


@pytest.mark.parametrize("kind", ["sum", "max", "min", "mean"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(kind, axis, keepdims):
    fn = getattr(dl, kind)
    r = _check(lambda x: fn(x, axis=axis, keepdims=keepdims), [ArraySpec("float32", 3, (False, True, False))])
    want = np.asarray(getattr(np, kind)(np.ones((2, 1, 3)), axis=axis, keepdims=keepdims))
    assert r.results[0].rank == want.ndim
    assert r.results[0].unit_dims == tuple(d == 1 for d in want.shape) or not keepdims


@pytest.mark.parametrize("dt", ["bool", "int8", "uint8", "int64", "float16"])
def test_reductions_dtypes(dt):
    r = _check(lambda x: (x.sum(axis=0), x.max(), x.min(axis=1), x.mean()), [ArraySpec(dt, 2)])
    a = np.ones((2, 2), dt)
    assert [x.dtype for x in r.results] == [a.sum(axis=0).dtype.name, a.max().dtype.name, a.min(axis=1).dtype.name, a.mean().dtype.name]


def test_numpy_reduction_functions():
    _check(
        lambda x: (np.sum(x, axis=1), np.max(x), np.amin(x, axis=0, keepdims=True), np.mean(x, axis=(0, 1)), np.add.reduce(x)),
        [F2],
    )


@pytest.mark.parametrize(
    "ra,rb",
    [(2, 2), (1, 2), (2, 1), (1, 1), (3, 3), (3, 2), (2, 3), (4, 3)],
)
def test_matmul(ra, rb):
    r = _check(lambda a, b: a @ b, [ArraySpec("float32", ra), ArraySpec("float32", rb)])
    want = (np.ones((2,) * ra) @ np.ones((2,) * rb)).ndim
    assert r.results[0].rank == want


def test_matmul_mixed_and_unit():
    r = _check(lambda a, b: np.matmul(a, b), [ArraySpec("int32", 2, (True, False)), ArraySpec("float32", 2)])
    assert r.results[0].dtype == "float64" and r.results[0].unit_dims == (True, False)
    _check(lambda a, b: a @ b, [ArraySpec("int64", 3, (True, False, False)), ArraySpec("int64", 3)])
    _check(lambda a, b: a @ b, [ArraySpec("complex64", 2), ArraySpec("complex64", 2)])


def test_transpose():
    r = _check(lambda x: (x.T, np.transpose(x, (1, 2, 0)), x.transpose(0, 2, 1), dl.transpose(x)), [ArraySpec("float32", 3, (True, False, False))])
    assert r.results[0].unit_dims == (False, False, True)
    assert r.results[1].unit_dims == (False, False, True)


def test_reshape():
    r = _check(
        lambda x: (x.reshape(-1), x.reshape(2, -1), np.reshape(x, (-1, 1, 3)), x.reshape((x.shape[0], -1)), dl.reshape(x, [3, -1])),
        [ArraySpec("float32", 3)],
    )
    assert [s.shape for s in r.results] == [(None,), (2, None), (None, 1, 3), (None, None), (3, None)]


def test_reshape_static_and_0d():
    r = _check(lambda x: (x.reshape(()), x.reshape(1, 1, 1)), [ArraySpec("float32", 2, (True, True))])
    assert r.results[0].rank == 0 and r.results[1].shape == (1, 1, 1)


def test_zero_d_and_constants():
    r = _check(lambda x: (x + 1, x.sum(), 3.0, np.float32(2) * x), [ArraySpec("float64", 0)])
    assert [x.rank for x in r.results] == [0, 0, 0, 0]
    assert [x.dtype for x in r.results] == ["float64", "float64", "float64", "float64"]


def test_returned_argument_is_copied():
    r = _check(lambda x: (x, x, x.reshape(-1)), [F2])
    assert r.mlir.count("linalg.copy") == 3


def test_unsigned_attrs():
    r = trace(lambda x: x + 1, [ArraySpec("uint8", 1)], name="f")
    assert "dlpack.dtype = #dlpack.dtype<uint, 8>" in r.mlir
    assert r.results[0].dtype == "uint8"
    check_lowers(r.mlir)
    check_verifies(r.mlir)


def test_signature_and_names():
    r = trace(lambda x, y: x + y, [F2, ArraySpec("float32", 2, (True, False))], name="my_fn")
    assert r.entry == "my_fn" and r.num_outputs == 1 and r.result_tree == 0
    assert 'func.func @my_fn(%x: tensor<?x?xf32> {dlpack.name = "x"}, %y: tensor<1x?xf32> {dlpack.name = "y"})' in r.mlir
    assert "attributes {dlpack.entry}" in r.mlir


def test_shape_properties():
    seen = {}

    def fn(x):
        seen["ndim"] = x.ndim
        seen["dtype"] = x.dtype
        s = x.shape
        seen["unit"] = s[1]
        return x * int(s[0])

    # without the call's sizes, a size Python needs as a number cannot be had
    with pytest.raises(TraceError, match=r"int\(shape entry\)"):
        trace(fn, [ArraySpec("float32", 2, (False, True))], name="f")
    assert seen == {"ndim": 2, "dtype": np.dtype("float32"), "unit": 1}
    fixed = trace(fn, [ArraySpec("float32", 2, (False, True))], name="f", hints=[(5, 1)])
    assert fixed.guards == ((0, 0, 5),)
    assert "tensor<5x1xf32>" in fixed.mlir


def test_source_comments_and_locations():
    r = trace(lambda x: np.exp(x) + 1, [F2], name="f")
    assert re.search(r"// test_trace\.py:\d+: r = trace\(lambda x: np\.exp\(x\) \+ 1", r.mlir)
    # every op carries the user's line: named by its source text, at its file, line and column
    assert re.search(
        r'math\.exp .* loc\("test_trace\.py:(\d+): r = trace\(lambda x: np\.exp\(x\) \+ 1, '
        r'\[F2\], name=\\"f\\"\)"\(".*test_trace\.py":\1:\d+\)\)',
        r.mlir,
    ), r.mlir


# ---------------------------------------------------------------- numpy dispatch == dlbridge functions


def _body(text: str) -> str:
    """``text`` without comments and locations (which name the lambda's column)."""
    lines = (ln for ln in text.splitlines() if not ln.strip().startswith("//"))
    return "\n".join(re.sub(r' loc\(".*\)$', "", ln) for ln in lines)


@pytest.mark.parametrize(
    "np_fn,dl_fn",
    [
        (lambda x: np.exp(x), lambda x: dl.exp(x)),
        (lambda x: np.where(x > 0, x, 1.0), lambda x: dl.where(x > 0, x, 1.0)),
        (lambda x: np.sum(x, axis=1, keepdims=True), lambda x: dl.sum(x, axis=1, keepdims=True)),
        (lambda x: np.maximum(x, 0.0), lambda x: dl.maximum(x, 0.0)),
        (lambda x: np.matmul(x, x), lambda x: dl.matmul(x, x)),
        (lambda x: np.transpose(x), lambda x: dl.transpose(x)),
        (lambda x: np.abs(x), lambda x: dl.abs(x)),
        (lambda x: np.mean(x), lambda x: dl.mean(x)),
    ],
)
def test_numpy_dispatch_same_as_functions(np_fn, dl_fn):
    a = trace(np_fn, [F2], name="f").mlir
    b = trace(dl_fn, [F2], name="f").mlir
    assert _body(a) == _body(b)


def test_functions_eager_fallback():
    x = np.array([[1.0, -2.0]], np.float32)
    np.testing.assert_allclose(dl.sigmoid(x), 1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(dl.sum(x, axis=1), [-1.0])


# ---------------------------------------------------------------- errors


def _raises_at(fn, opname, specs=None):
    with pytest.raises(TraceError) as ei:
        trace(fn, specs or [F2], name="f")
    msg = str(ei.value)
    assert opname in msg, msg
    assert re.search(r"test_trace\.py:\d+", msg), msg
    return msg


def test_error_unsupported_numpy_function():
    def fn(x):
        y = np.linalg.eig(x)
        return y

    msg = _raises_at(fn, "numpy.linalg.eig")
    assert "y = np.linalg.eig(x)" in msg


def test_error_fft():
    def fn(x):
        return np.fft.fft(x)

    _raises_at(fn, "numpy.fft.fft")


def test_error_method():
    def fn(x):
        return x.tofile("out.bin")

    _raises_at(fn, "ndarray.tofile")


def test_error_control_flow():
    def fn(x):
        if x > 0:
            return x
        return -x

    msg = _raises_at(fn, "bool(array)")
    assert "if x > 0:" in msg


def test_error_mask_length():
    def f(x):
        return x * len(x[x > 0])

    msg = _raises_at(f, "len(x[mask])")
    assert "known only when the kernel runs" in msg, msg


def test_error_np_asarray_and_object_constant():
    def f1(x):
        return np.asarray(x, dtype=object)  # np.asarray(x) itself is x

    c = np.array(["a", "b"])

    def f2(x):
        return x + c

    _raises_at(f1, "numpy.asarray")
    _raises_at(f2, "NumPy array constant of dtype")


def test_error_bool_negative():
    def fn(x):
        return -x

    _raises_at(fn, "negative", [ArraySpec("bool", 1)])


def test_error_broadcast_and_axis():
    with pytest.raises(ValueError, match="broadcast"):
        trace(lambda x: x.reshape(2, -1) + x.reshape(3, -1), [F2], name="f")
    with pytest.raises(ValueError, match="axis"):
        trace(lambda x: x.sum(axis=2), [F2], name="f")


# ---------------------------------------------------------------- determinism


def test_determinism():
    def fn(x, y, s):
        z = np.exp(x) * s + y.T
        return z.sum(axis=0), np.where(z > 0, z, 0.0), z @ y

    specs = [F2, ArraySpec("float32", 2, (True, False)), ScalarSpec("float")]
    texts = {trace(fn, specs, name="k").mlir for _ in range(3)}
    assert len(texts) == 1


# ---------------------------------------------------------------- reference cases all trace


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_reference_cases_trace(case):
    _check(case.fn, specs_for(case.inputs))
