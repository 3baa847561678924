"""``@dlbridge.jit`` functions that update an argument in place (``c += a``, ``c[...] = v``,
``out=``): the caller's array changes where it lies, exactly as the same NumPy code changes it;
what cannot be traced raises a TraceError naming the line, never drops the update."""

from __future__ import annotations

import operator
import re

import dlbridge
import numpy as np
import pytest
from dlbridge._trace import TraceError


def _layouts(shape: tuple[int, ...], dtype: str, lo: float, hi: float) -> dict[str, np.ndarray]:
    """Fresh arrays of ``shape`` in several memory layouts, filled from [lo, hi)."""
    rng = np.random.default_rng(7)

    def values(s: tuple[int, ...]) -> np.ndarray:
        v = rng.uniform(lo, hi, s)
        return np.asarray(v if np.dtype(dtype).kind in "fc" else np.floor(v)).astype(dtype)

    out = {"contiguous": values(shape), "zero_d": values(())}
    if shape:
        big = values(tuple(3 * n for n in shape))
        out["strided"] = big[tuple(slice(None, None, 3) for _ in shape)]
        out["reversed"] = values(shape)[tuple(slice(None, None, -1) for _ in shape)]
    return out


def _run(fn, *args):
    """Calls ``fn`` through @jit on ``args`` and in NumPy on copies of them; returns both
    results and both argument lists."""
    np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*np_args)
    got = dlbridge.jit(fn)(*args)
    return got, want, list(args), np_args


def _assert_same(got_args, want_args, rtol=1e-6):
    for g, w in zip(got_args, want_args):
        if isinstance(w, np.ndarray):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=rtol, equal_nan=True)


# what `c <op>= a` does
_AUGMENTED = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
}
_CASES = [
    (op, dt)
    for op in _AUGMENTED
    for dt in (["int32", "uint8", "bool"] if op in ("&=", "|=", "^=") else ["float32", "int16", "float64"])
    if not (op == "/=" and dt == "int16")
]


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "zero_d"])
@pytest.mark.parametrize("op,dtype", _CASES)
def test_augmented_assignment_updates_the_callers_array(op, dtype, layout):
    update = _AUGMENTED[op]

    def f(c, a):
        c = update(c, a)  # what `c <op>= a` compiles to

    lo, hi = (1, 3) if op == "**=" else (1, 9)
    c = _layouts((3, 4), dtype, lo, hi)[layout]
    a = _layouts((4, 3), dtype, lo, hi)["zero_d" if layout == "zero_d" else "contiguous"].T.copy()
    a_before = a.copy()
    base = c.base if c.base is not None else c
    base_before = base.copy()
    got, want, got_args, want_args = _run(f, c, a)
    assert got is None and want is None
    _assert_same(got_args, want_args)
    np.testing.assert_array_equal(a, a_before)  # the other argument is not written
    # only the elements c views changed in the buffer it lies in
    untouched = np.ones(base.shape, bool)
    if layout == "strided":
        untouched[::3, ::3] = False
        np.testing.assert_array_equal(base[untouched], base_before[untouched])


def test_statement_forms_and_later_reads_see_the_update():
    def f(c, a, s):
        c += a
        c *= s
        c -= 1
        return c * 2, a + c

    c = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::-1]
    a = np.ones((3, 4), np.float32)
    got, want, got_args, want_args = _run(f, c, a, 3.0)
    _assert_same(got_args, want_args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_the_same_object_and_buffer_are_updated():
    @dlbridge.jit
    def f(c, a):
        c += a

    c = np.zeros(5, np.float64)
    ident, ptr = id(c), c.ctypes.data
    f(c, np.arange(5.0))
    assert id(c) == ident and c.ctypes.data == ptr
    np.testing.assert_array_equal(c, np.arange(5.0))
    f(c, np.arange(5.0))
    np.testing.assert_array_equal(c, 2 * np.arange(5.0))


def test_broadcast_operand_and_python_scalars():
    def f(c, row, s):
        c += row
        c *= 2
        c -= s

    c = np.ones((4, 3), np.float32)
    got, want, got_args, want_args = _run(f, c, np.arange(3, dtype=np.float32)[None, :], 1.5)
    _assert_same(got_args, want_args)


def test_square_array_updated_with_its_own_transpose():
    def f(c):
        c += c.T

    c = np.arange(16, dtype=np.float32).reshape(4, 4)
    _, _, got_args, want_args = _run(f, c)
    _assert_same(got_args, want_args)


def test_in_place_matmul_reads_the_old_value():
    def f(c, b):
        before = c.astype(c.dtype)  # a copy of the old contents
        c @= b
        c += before
        return before

    c = np.arange(6, dtype=np.float32).reshape(2, 3)[::-1]
    b = np.arange(9, dtype=np.float32).reshape(3, 3)
    got, want, got_args, want_args = _run(f, c, b)
    _assert_same(got_args, want_args)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "zero_d"])
@pytest.mark.parametrize(
    "assign",
    [
        lambda c, v: c.__setitem__(Ellipsis, v),
        lambda c, v: c.__setitem__(slice(None), v) if c.ndim else c.__setitem__((), v),
        lambda c, v: c.__setitem__((slice(None), Ellipsis) if c.ndim else Ellipsis, v),
        lambda c, v: c.__setitem__(Ellipsis, 7),
    ],
    ids=["ellipsis", "colon", "colon_ellipsis", "python_scalar"],
)
def test_whole_array_assignment(assign, layout):
    def f(c, v):
        assign(c, v * 2)
        return c + 1

    c = _layouts((3, 4), "float32", 0, 1)[layout]
    v = _layouts((3, 4), "float32", 0, 1)["zero_d" if layout == "zero_d" else "contiguous"]
    got, want, got_args, want_args = _run(f, c, v)
    _assert_same(got_args, want_args)
    np.testing.assert_array_equal(got, want)


def test_assignment_broadcasts_and_casts_unsafely():
    def f(c, row):
        c[...] = row * 1.75
        c[:, :] = c + 0.5  # int + float -> float64, stored truncated

    c = np.zeros((3, 4), np.int32)
    got, want, got_args, want_args = _run(f, c, np.arange(4, dtype=np.float64))
    _assert_same(got_args, want_args)

    def g(c):
        c[...] = 2.9

    _, _, got_args, want_args = _run(g, np.zeros(3, np.int16))
    _assert_same(got_args, want_args)


def test_ufunc_out_and_copyto():
    def f(c, a, b):
        np.add(a, b, out=c)
        np.multiply(c, 2, out=(c,))
        np.copyto(c, c - a)

    c = np.zeros((2, 3), np.float32)[:, ::-1]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((1, 3), np.float32)
    got, want, got_args, want_args = _run(f, c, a, b)
    _assert_same(got_args, want_args)


def test_local_arrays_updated_in_place():
    def f(a):
        t = a * 2
        u = t
        t += 1  # u is t
        k = a.astype(a.dtype)  # a copy: a is not written
        k += 100
        p = +a
        p -= 100
        return u, k, p

    a = np.arange(4, dtype=np.float32)
    got, want, got_args, want_args = _run(f, a)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(a, np.arange(4, dtype=np.float32))


def test_astype_without_copy_is_the_array_itself():
    def f(c):
        same = c.astype(c.dtype, copy=False)
        same += 1
        np.astype(c, c.dtype, copy=False)[...] *= 3

    _, _, got_args, want_args = _run(f, np.arange(4, dtype=np.float32)[::-1])
    _assert_same(got_args, want_args)


def test_python_scalar_arguments_stay_immutable():
    def f(c, s):
        s += 1  # rebinds s, as for any Python number
        c += s

    _, _, got_args, want_args = _run(f, np.zeros(3, np.float32), 2.0)
    _assert_same(got_args, want_args)


def test_returned_written_argument_is_its_updated_value():
    @dlbridge.jit
    def f(c):
        c += 1
        return c

    c = np.zeros(3, np.float32)
    out = f(c)
    np.testing.assert_array_equal(out, np.ones(3))
    np.testing.assert_array_equal(c, np.ones(3))


# ---------------------------------------------------------------- signature and MLIR


def test_written_argument_is_a_read_write_memref_parameter():
    @dlbridge.jit
    def f(c, a):
        c += a

    c = np.zeros((2, 3), np.float32)
    text = f.lower(c, c)
    assert re.search(r"%c_buf: memref<\?x\?xf32, strided<\[\?, \?\], offset: \?>>", text), text
    assert "bufferization.to_tensor %c_buf restrict writable" in text
    assert "bufferization.materialize_in_destination" in text and "in restrict writable %c_buf" in text
    assert re.search(r"%a: tensor<\?x\?xf32>", text), text
    access = {p["name"]: p["access"] for p in dlbridge.compile(text).signature["args"]}
    assert access == {"c": "read_write", "a": "read"}


# ---------------------------------------------------------------- refused arguments


def test_read_only_numpy_array_is_refused_for_a_written_argument():
    @dlbridge.jit
    def f(c, a):
        c += a

    c = np.zeros(3, np.float32)
    c.flags.writeable = False
    a = np.ones(3, np.float32)
    a.flags.writeable = False  # read-only is fine for an argument that is only read
    with pytest.raises(BufferError, match="argument 0 'c'.*READ_ONLY"):
        f(c, a)
    np.testing.assert_array_equal(c, 0)
    w = np.zeros(3, np.float32)
    f(w, a)
    np.testing.assert_array_equal(w, 1)


def test_jax_array_is_refused_for_a_written_argument():
    jnp = pytest.importorskip("jax.numpy")

    @dlbridge.jit
    def f(c, a):
        c += a

    c = jnp.zeros(3, np.float32)
    with pytest.raises(BufferError, match="argument 0 'c'"):
        f(c, np.ones(3, np.float32))
    np.testing.assert_array_equal(np.asarray(c), 0)


def test_written_argument_sharing_memory_with_another_is_refused():
    @dlbridge.jit
    def f(c, a):
        c += a

    x = np.arange(6, dtype=np.float32)
    for other in (x, x[::-1], x[2:]):
        with pytest.raises(ValueError, match="argument 0 'c' is written and shares memory with argument 1 'a'"):
            f(x, other)
    np.testing.assert_array_equal(x, np.arange(6))
    f(x[:3], x[3:])  # disjoint halves of one buffer are fine
    np.testing.assert_array_equal(x, [3, 5, 7, 3, 4, 5])


# ---------------------------------------------------------------- dtype rules


def test_same_kind_casting_of_augmented_assignment():
    def f(c, a):
        c += a

    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'add' output from dtype\('float64'\) to dtype\('int32'\) with casting rule 'same_kind'"):
        dlbridge.jit(f)(np.zeros(3, np.int32), np.ones(3))
    with pytest.raises(TypeError, match="same_kind"):
        f(np.zeros(3, np.int32), np.ones(3))  # NumPy's UFuncTypeError is a TypeError too

    def g(c):
        c += 1.5

    with pytest.raises(TraceError, match=r"\+=.*dtype\('float64'\) to dtype\('int8'\).*test_jit_inplace\.py:\d+"):
        dlbridge.jit(g)(np.zeros(3, np.int8))

    def h(c):
        c /= 2

    with pytest.raises(TraceError, match="divide"):
        dlbridge.jit(h)(np.zeros(3, np.int64))
    # float64 into float32 and int into float are the same kind or up: allowed
    _, _, got_args, want_args = _run(f, np.ones(3, np.float32), np.full(3, 0.1))
    _assert_same(got_args, want_args)
    _, _, got_args, want_args = _run(f, np.ones(3, np.float16), np.arange(3, dtype=np.int64))
    _assert_same(got_args, want_args)


def test_weak_python_integers_in_augmented_assignment():
    def f(c):
        c += 1
        c *= 3

    _, _, got_args, want_args = _run(f, np.full(4, 40, np.int8))
    _assert_same(got_args, want_args)  # wraps in int8, as NumPy does

    def g(c):
        c -= 300

    with pytest.raises(OverflowError, match="300 out of bounds for uint8"):
        dlbridge.jit(g)(np.zeros(2, np.uint8))


# ---------------------------------------------------------------- refused at trace time


def _trace_error(fn, *args) -> str:
    with pytest.raises(TraceError) as info:
        dlbridge.jit(fn)(*args)
    msg = str(info.value)
    assert re.search(r"test_jit_inplace\.py:\d+", msg), msg
    return msg


def test_assignment_through_a_traced_mask_with_other_indices_is_numpy_s():
    def masked_column(c):
        c[c[:, 0] > 0, 1] = 1

    c = np.array([[1, 0], [-1, 0], [2, 0]], np.float32).repeat(2, axis=1)
    expected = c.copy()
    masked_column(expected)
    dlbridge.jit(masked_column)(c)
    np.testing.assert_array_equal(c, expected)


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed"])
def test_updates_through_views_and_views_taken_before_updates(layout):
    def f(c, a):
        whole = c[...]
        t = c.T
        c[...] += a  # getitem, += on the view, setitem
        c[:] *= 2
        t -= 1  # writes c
        c.T[...] = t * 3  # writes c
        whole += 1
        return t, whole, c.T.T

    c = _layouts((3, 4), "float32", 0, 1)[layout]
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    got, want, got_args, want_args = _run(f, c, a)
    _assert_same(got_args, want_args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_writing_through_a_reshape_is_refused():
    def reshaped(c):
        v = c.reshape(-1)
        v += 1

    c = np.zeros((2, 3), np.float32)
    msg = _trace_error(reshaped, c)
    assert "reshape of an array whose memory layout is not known" in msg and "v += 1" in msg
    np.testing.assert_array_equal(c, 0)


def test_reading_a_reshape_taken_before_an_update_is_refused():
    def f(c):
        v = c.reshape(-1)
        c += 1
        return v

    msg = _trace_error(f, np.zeros((2, 3), np.float32))
    assert "reading a view made by reshape" in msg and "c += 1" in msg


def test_out_into_a_numpy_array_is_refused():
    other = np.zeros(3, np.float32)

    def f(a):
        np.add(a, 1, out=other)

    assert "numpy.add" in _trace_error(f, np.ones(3, np.float32))
    np.testing.assert_array_equal(other, 0)


def test_output_shape_mismatch():
    def f(c, a):
        c += a

    with pytest.raises(ValueError, match=r"non-broadcastable output operand with shape \(1, \?\)"):
        dlbridge.jit(f)(np.zeros((1, 3), np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        dlbridge.jit(f)(np.zeros(3, np.float32), np.zeros((2, 3), np.float32))


def test_elementwise_updates_write_the_arguments_without_temporaries():
    def sgd_momentum(w, grad, velocity, lr, momentum):
        velocity *= momentum
        velocity -= lr * grad
        w += velocity

    w, grad, velocity = (np.linspace(-1, 1, 1000, dtype=np.float32) * k for k in (1, 2, 3))
    got, want, got_args, want_args = _run(sgd_momentum, w, grad, velocity, 0.01, 0.9)
    _assert_same(got_args, want_args)
    buffers = dlbridge.jit(sgd_momentum).inspect(w, grad, velocity, 0.01, 0.9)["tensors-to-buffers"]
    assert "memref.alloc" not in buffers and "memref.copy" not in buffers, buffers


def test_written_arguments_whose_elements_overlap_are_refused():
    from numpy.lib.stride_tricks import as_strided

    def add(w, v):
        w += v

    base = np.zeros(4, np.float32)
    broadcast = as_strided(base, shape=(4,), strides=(0,), writeable=True)
    with pytest.raises(ValueError, match="argument 0 'w': expected a written tensor whose elements do not overlap"):
        dlbridge.jit(add)(broadcast, np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(base, 0)
