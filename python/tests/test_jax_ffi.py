"""dlbridge kernels inside JAX programs through XLA's FFI (dlbridge.jax), on the CPU.

Every number is checked against NumPy; the errors are the ones JAX users see when tracing."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dlbridge  # noqa: E402
from dlbridge import _dlbridge  # noqa: E402

if not hasattr(_dlbridge, "_xla_ffi_handlers"):
    pytest.skip("dlbridge was built without XLA FFI support", allow_module_level=True)

import dlbridge.jax as djax  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _on_the_cpu() -> Any:
    """Every test runs on JAX's CPU device, also where JAX has a GPU (the GPU tests are
    tests/gpu/test_gpu_jax_ffi.py)."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield


@dlbridge.jit
def affine(x: Any, y: Any) -> Any:
    return x * 2 + y, x.sum()


@dlbridge.jit
def accumulate(total: Any, x: Any) -> None:
    total += x


@dlbridge.jit
def square(x: Any) -> Any:
    return x * x


@dlbridge.jit
def square_grad(x: Any, g: Any) -> Any:
    return 2 * x * g


@dlbridge.jit
def mlp(x: Any, w: Any) -> Any:
    return np.tanh(x @ w)


@dlbridge.jit
def mlp_grad(x: Any, w: Any, g: Any) -> Any:
    t = np.tanh(x @ w)
    d = g * (1 - t * t)
    return d @ w.T, x.T @ d


def _sample(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 5, size=shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int8", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(2, 3), (1, 4), (0, 3), (5, 1)])
def test_jitted_op_matches_numpy(dtype: str, shape: tuple[int, ...]) -> None:
    x, y = _sample(shape, dtype), _sample(shape[-1:], dtype, 1)
    op = jax.jit(djax.ffi_op(affine))
    with jax.enable_x64(True):  # integer sums are int64, as in NumPy
        got, total = op(jnp.asarray(x), jnp.asarray(y))
    want, want_total = affine(x, y)
    assert got.dtype == want.dtype and total.dtype == want_total.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3)
    np.testing.assert_allclose(np.asarray(total), want_total, rtol=1e-3)


def test_booleans_and_zero_dim_arrays() -> None:
    @dlbridge.jit
    def masked(m: Any, x: Any, s: Any) -> Any:
        return np.where(m, x, s), np.logical_not(m)

    m, x = _sample((3, 4), np.bool_), _sample((3, 4), np.float32)
    s = np.float32(7.0)
    got, inverted = jax.jit(djax.ffi_op(masked))(jnp.asarray(m), jnp.asarray(x), jnp.asarray(s))
    np.testing.assert_array_equal(np.asarray(got), np.where(m, x, s))
    np.testing.assert_array_equal(np.asarray(inverted), ~m)
    # a 0-d array in and out
    got0 = jax.jit(djax.ffi_op(square))(jnp.asarray(np.float32(3.0)))
    assert got0.shape == () and float(got0) == 9.0


def test_transposed_and_strided_inputs_as_jax_gives_them() -> None:
    x = _sample((3, 6), np.float32)
    y = _sample((3,), np.float32, 1)

    @jax.jit
    def program(a: Any, b: Any) -> Any:
        return djax.ffi_op(affine)(a.T[::2], b[::-1])

    got, total = program(jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_allclose(np.asarray(got), x.T[::2] * 2 + y[::-1], rtol=1e-6)
    np.testing.assert_allclose(float(total), x.T[::2].sum(), rtol=1e-5)


def test_plain_jit_function_inside_jax_jit_goes_through_the_ffi_target() -> None:
    x, y = _sample((2, 3), np.float32), _sample((3,), np.float32, 1)
    got, total = jax.jit(affine)(jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_allclose(np.asarray(got), x * 2 + y, rtol=1e-6)
    # the lowered program calls the FFI target, not a host callback
    text = jax.jit(affine).lower(jnp.asarray(x), jnp.asarray(y)).as_text()
    assert djax.TARGET in text


def test_results_come_back_in_the_structure_the_function_returns() -> None:
    @dlbridge.jit
    def nested(x: Any, y: Any) -> Any:
        return [x + 1, None, (y * 2,)]

    x, y = _sample((2,), np.float32), _sample((3,), np.float32, 1)
    got = jax.jit(nested)(jnp.asarray(x), jnp.asarray(y))
    assert isinstance(got, list) and got[1] is None and isinstance(got[2], tuple) and len(got[2]) == 1
    np.testing.assert_allclose(np.asarray(got[0]), x + 1, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got[2][0]), y * 2, rtol=1e-6)


def test_python_scalars_and_static_arguments() -> None:
    @dlbridge.jit(static_argnames=("axis",))
    def scaled_sum(x: Any, alpha: float, axis: int = 0) -> Any:
        return (x * alpha).sum(axis=axis)

    x = _sample((3, 5), np.float32)
    for axis in (0, 1):
        got = jax.jit(lambda a, axis=axis: scaled_sum(a, 2.5, axis=axis))(jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(got), (x * np.float32(2.5)).sum(axis=axis), rtol=1e-5)


def test_sizes_needed_as_numbers_specialise_per_size() -> None:
    import math

    @dlbridge.jit
    def normalised(q: Any, rows: int) -> Any:
        return q.reshape(int(rows), -1) / math.sqrt(q.shape[-1])

    for shape, rows in [((2, 4), 4), ((2, 9), 3), ((2, 4), 2), ((3, 4), 6)]:
        q = _sample(shape, np.float32)
        got = jax.jit(lambda a, rows=rows: normalised(a, rows))(jnp.asarray(q))
        np.testing.assert_allclose(np.asarray(got), q.reshape(rows, -1) / np.sqrt(shape[-1]), rtol=1e-6)


def test_numbers_jax_traces_are_python_scalars_to_the_function() -> None:
    """jax.jit makes every number argument a weakly typed tracer: the function still sees a
    Python scalar (NumPy's promotion: float16 * 2.5 is float16), read from XLA's buffer."""

    @dlbridge.jit
    def scale(x: Any, a: Any) -> Any:
        return x * a

    for dtype, factor in [(np.float16, 2.5), (np.int32, 3), (np.float32, -1.5), (np.uint8, True)]:
        x = np.arange(4).astype(dtype)
        got = jax.jit(scale)(jnp.asarray(x), factor)
        want = scale(x, factor)
        assert got.dtype == want.dtype, (dtype, factor)
        np.testing.assert_array_equal(np.asarray(got), want)
    kernel = dlbridge.compile(open(os.path.join(ROOT, "examples", "axpy.mlir")).read())
    got = jax.jit(djax.ffi_op(kernel))(jnp.arange(3.0), jnp.ones(3), 10.0)
    np.testing.assert_allclose(np.asarray(got), [1.0, 11.0, 21.0])

    @dlbridge.jit
    def rows(x: Any, n: int) -> Any:
        return x.reshape(int(n), -1)

    op = djax.ffi_op(rows)
    assert op(jnp.ones(6), 2).shape == (2, 3)  # a Python int: the kernel is guarded on its value
    for call in (jax.jit(op), jax.jit(rows)):
        with pytest.raises(ValueError, match=r"rows\(\): argument 1 'n' is needed as a Python number, but "
                                             r"JAX traces it; make it static"):
            call(jnp.ones(6), 2)
    assert jax.jit(rows, static_argnums=1)(jnp.ones(6), 2).shape == (2, 3)

    @dlbridge.jit
    def filled(x: Any, n: int) -> Any:
        return np.zeros(n, x.dtype) + x[0]

    np.testing.assert_array_equal(np.asarray(jax.jit(lambda a: filled(a, 3))(jnp.ones(2))), np.ones(3))
    with pytest.raises(ValueError, match=r"filled\(\): the result shapes depend on argument 1 'n', which JAX "
                                         r"traces; make it static"):
        jax.jit(filled)(jnp.ones(2), 3)

    @dlbridge.jit
    def shift(x: Any, k: Any) -> Any:
        return x + k

    with pytest.raises(TypeError, match=r"argument 1 'k': expected an integer for the kernel's int32 "
                                        r"scalar, got a traced float32"):
        jax.jit(djax.ffi_op(dlbridge.compile(shift.lower(np.ones(2, np.int32), 1))))(jnp.ones(2, jnp.int32), 1.5)


def test_written_arguments_become_aliased_results() -> None:
    total, x = np.zeros(4, np.float32), np.arange(4, dtype=np.float32)
    total_jax = jnp.asarray(total)
    op = jax.jit(djax.ffi_op(accumulate))
    got = op(total_jax, jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(got), x)
    np.testing.assert_array_equal(np.asarray(total_jax), total)  # the input is left untouched
    assert "output_operand_aliases" in op.lower(total_jax, jnp.asarray(x)).as_text()


def test_compiled_kernel_with_scalar_and_in_place_parameter() -> None:
    kernel = dlbridge.compile(open(os.path.join(ROOT, "examples", "axpy.mlir")).read())
    x, y = np.arange(5, dtype=np.float32), np.ones(5, np.float32)
    got = jax.jit(lambda a, b: djax.ffi_op(kernel)(a, b, 10.0))(jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_allclose(np.asarray(got), 10 * x + 1)


def test_vmap_calls_the_kernel_per_batch_element() -> None:
    x = _sample((4, 2, 3), np.float32)
    y = _sample((3,), np.float32, 1)
    got, totals = jax.jit(jax.vmap(djax.ffi_op(affine), in_axes=(0, None)))(jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_allclose(np.asarray(got), x * 2 + y, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(totals), x.sum(axis=(1, 2)), rtol=1e-5)
    # a reduction along an axis of the unbatched shape stays per element
    w = _sample((4, 3, 2), np.float32, 2)
    prods = jax.vmap(mlp)(jnp.asarray(x), jnp.asarray(w))
    np.testing.assert_allclose(np.asarray(prods), np.tanh(np.matmul(x, w)), rtol=1e-5)


@dlbridge.jit
def scaled_add(x: Any, y: Any) -> Any:
    return x * 2 + y


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, None)])
def test_vmap_broadcast_calls_the_kernel_once_for_the_batch(in_axes: tuple[Any, Any]) -> None:
    x = _sample((4, 2, 3), np.float32)
    y = _sample((4, 3), np.float32, 1)
    xs = x if in_axes[0] is not None else x[0]
    if in_axes[0] == 1:
        xs = np.moveaxis(x, 0, 1)
    ys = y if in_axes[1] is not None else y[0]
    op = djax.ffi_op(scaled_add, vmap="broadcast")
    batched = jax.vmap(op, in_axes=in_axes)
    got = jax.jit(batched)(jnp.asarray(xs), jnp.asarray(ys))
    want = np.stack([(x[k] if in_axes[0] is not None else x[0]) * 2
                     + (y[k] if in_axes[1] is not None else y[0]) for k in range(4)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    jaxpr = str(jax.make_jaxpr(batched)(jnp.asarray(xs), jnp.asarray(ys)))
    assert jaxpr.count("ffi_call") == 1 and "while" not in jaxpr


def test_vmap_broadcast_batches_matrix_products_and_refuses_full_reductions() -> None:
    x, w = _sample((5, 2, 3), np.float32), _sample((3, 4), np.float32, 1)
    got = jax.vmap(djax.ffi_op(mlp, vmap="broadcast"), in_axes=(0, None))(jnp.asarray(x), jnp.asarray(w))
    np.testing.assert_allclose(np.asarray(got), np.tanh(x @ w), rtol=1e-5)
    with pytest.raises(ValueError, match=r"affine\(\): vmap='broadcast': result 1 of the batched call has "
                                         r"shape \(\), not a leading batch of 5"):
        jax.vmap(djax.ffi_op(affine, vmap="broadcast"), in_axes=(0, None))(jnp.asarray(x), jnp.ones(3))
    with pytest.raises(ValueError, match="vmap='broadcast' needs a @dlbridge.jit function"):
        djax.ffi_op(dlbridge.compile(open(os.path.join(ROOT, "examples", "axpy.mlir")).read()), vmap="broadcast")


def test_gradients_with_a_backward() -> None:
    from jax.test_util import check_grads

    op = djax.ffi_op(square, backward=square_grad)
    x = jnp.asarray(_sample((3, 2), np.float32))
    check_grads(op, (x,), order=1, modes=["rev"], atol=1e-2, rtol=1e-2)
    np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(lambda a: op(a).sum()))(x)), 2 * np.asarray(x),
                               rtol=1e-6)
    dense = djax.ffi_op(mlp, backward=mlp_grad)
    with jax.enable_x64(True):
        a, w = jnp.asarray(_sample((4, 3), np.float64)), jnp.asarray(_sample((3, 2), np.float64, 1))
        check_grads(dense, (a, w), order=1, modes=["rev"])
        check_grads(jax.jit(dense), (a, w), order=1, modes=["rev"])
        # per example, with the forward batched by broadcasting
        batched = djax.ffi_op(mlp, backward=mlp_grad, vmap="broadcast")
        xs = jnp.asarray(_sample((3, 4, 3), np.float64, 2))
        grads = jax.vmap(jax.grad(lambda a, b: batched(a, b).sum(), argnums=1), in_axes=(0, None))(xs, w)
        want = [jax.grad(lambda b, a=xs[k]: jnp.tanh(a @ b).sum())(w) for k in range(3)]
        np.testing.assert_allclose(np.asarray(grads), np.stack(want), rtol=1e-10)


def test_an_op_without_backward_says_how_to_differentiate_it() -> None:
    x = jnp.ones(3, jnp.float32)
    with pytest.raises(TypeError, match=r"square\(\) has no derivative: .*ffi_op\(square, backward=g\)"):
        jax.grad(lambda a: square(a).sum())(x)
    with pytest.raises(TypeError, match=r"square\(\) has no derivative"):
        jax.jit(jax.grad(lambda a: djax.ffi_op(square)(a).sum()))(x)
    # an op whose inputs do not depend on the variable needs no derivative
    assert float(jax.grad(lambda a: (a * square(jnp.ones(3, jnp.float32))).sum())(2.0 * x)[0]) == 1.0


def test_numbers_get_no_gradient() -> None:
    @dlbridge.jit
    def scaled(x: Any, s: float) -> Any:
        return x * s

    @dlbridge.jit
    def scaled_grad(x: Any, s: float, g: Any) -> Any:
        return g * s

    op = djax.ffi_op(scaled, backward=scaled_grad)
    x = jnp.arange(3.0, dtype=jnp.float32)
    want = np.full(3, 2.5, np.float32)
    np.testing.assert_allclose(np.asarray(jax.grad(lambda a: op(a, 2.5).sum())(x)), want)
    # inside jax.jit the number is traced, and still gets no gradient from the backward
    np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(lambda a, s: op(a, s).sum()))(x, 2.5)), want)
    with pytest.raises(TypeError, match=r"scaled\(\): argument 1 is a number, which gets no gradient: pass "
                                        r"it as a 0-d array"):
        jax.jit(jax.grad(lambda a, s: op(a, s).sum(), argnums=1))(x, 2.5)


def test_a_backward_returning_the_wrong_count_is_refused() -> None:
    @dlbridge.jit
    def input_grad_only(x: Any, w: Any, g: Any) -> Any:
        t = np.tanh(x @ w)
        return (g * (1 - t * t)) @ w.T

    op = djax.ffi_op(mlp, backward=input_grad_only)
    a, w = jnp.ones((2, 3), jnp.float32), jnp.ones((3, 2), jnp.float32)
    with pytest.raises(ValueError, match=r"returned 1 gradients for 2 array arguments"):
        jax.grad(lambda a, w: op(a, w).sum())(a, w)


def test_sizes_that_depend_on_the_data_are_refused_when_tracing() -> None:
    kernel = dlbridge.compile("""
func.func @count(%a: memref<?xi32>) -> memref<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xi32>
  %n = arith.index_cast %v : i32 to index
  %r = memref.alloc(%n) : memref<?xf32>
  return %r : memref<?xf32>
}""")
    with pytest.raises(ValueError, match=r"count\(\): JAX needs every result's shape.*result 0, dim 0"):
        jax.jit(djax.ffi_op(kernel))(jnp.ones(3, jnp.int32))


def test_unsupported_and_mismatched_dtypes_name_the_argument() -> None:
    with pytest.raises(TypeError, match=r"affine\(\): argument 1: dlbridge has no float8_e4m3fn dtype"):
        jax.jit(affine)(jnp.ones(3, jnp.float32), jnp.ones(3, jnp.float8_e4m3fn))
    kernel = dlbridge.compile(open(os.path.join(ROOT, "examples", "axpy.mlir")).read())
    with pytest.raises(TypeError, match=r"axpy\(\): argument 1 'y': expected float32, got int32"):
        jax.jit(djax.ffi_op(kernel), static_argnums=2)(jnp.ones(3), jnp.ones(3, jnp.int32), 1.0)
    with pytest.raises(ValueError, match=r"axpy\(\): argument 0 'x': expected rank 1, got 2"):
        jax.jit(djax.ffi_op(kernel), static_argnums=2)(jnp.ones((3, 1)), jnp.ones(3), 1.0)
    # int32 sums are int64 in NumPy, which JAX holds only with x64 on
    with pytest.raises(TypeError, match=r"result 1 is int64, which JAX represents only with jax_enable_x64"):
        jax.jit(affine)(jnp.ones((2, 3), jnp.int32), jnp.ones(3, jnp.int32))


def test_kernel_compiled_for_another_device_is_refused_when_tracing() -> None:
    source = open(os.path.join(ROOT, "examples", "axpy.mlir")).read()
    kernel = dlbridge.compile(source, target="cuda")
    with pytest.raises(ValueError, match=r"axpy\(\): the kernel was compiled for cuda, but XLA runs this "
                                         r"call on cpu \(argument 0 is\): compile it with target='cpu'"):
        jax.jit(djax.ffi_op(kernel), static_argnums=2)(jnp.ones(3), jnp.ones(3), 1.0)


def test_kernel_failures_become_jax_errors() -> None:
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"affine\(\): operands could not be broadcast"):
        jax.jit(affine)(jnp.ones((2, 3)), jnp.ones(4)).block_until_ready()


def test_plain_call_writing_a_traced_argument_is_refused() -> None:
    with pytest.raises(BufferError, match=r"accumulate\(\): argument 0 'total' is written.*ffi_op\(accumulate\)"):
        jax.jit(accumulate)(jnp.zeros(3), jnp.ones(3))


def test_ffi_op_refuses_what_is_not_a_kernel() -> None:
    with pytest.raises(TypeError, match=r"expected a @dlbridge.jit function or a dlbridge.compile\(\)d Kernel"):
        djax.ffi_op(np.sin)


def test_without_xla_ffi_support_the_error_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(djax, "_registered", False)
    monkeypatch.delattr(_dlbridge, "_xla_ffi_handlers")
    with pytest.raises(RuntimeError, match="built without XLA FFI support"):
        jax.jit(djax.ffi_op(square))(jnp.ones(3))


_SHARD_MAP = """
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
from functools import partial
import numpy as np, jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P
import dlbridge, dlbridge.jax

@dlbridge.jit
def affine(x, y):
    return x * 2 + y, x.sum()

mesh = jax.make_mesh((4,), ("i",))
x = np.arange(24, dtype=np.float32).reshape(8, 3)
y = np.ones(3, np.float32)
xs = jax.device_put(x, jax.sharding.NamedSharding(mesh, P("i")))
ys = jax.device_put(y, jax.sharding.NamedSharding(mesh, P()))

@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=(P("i"), P()), out_specs=(P("i"), P("i")))
def program(a, b):
    out, total = dlbridge.jax.ffi_op(affine)(a, b)
    return out, total[None]

out, totals = program(xs, ys)
assert len(jax.devices()) == 4
np.testing.assert_allclose(np.asarray(out), x * 2 + y)
np.testing.assert_allclose(np.asarray(totals), x.reshape(4, 2, 3).sum(axis=(1, 2)))
print("ok")
"""


def _run(code_or_path: list[str]) -> str:
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    result = subprocess.run([sys.executable, *code_or_path], capture_output=True, text=True, env=env,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_shard_map_over_four_host_devices() -> None:
    assert _run(["-c", _SHARD_MAP]).strip() == "ok"


def test_data_parallel_training_example_trains() -> None:
    """examples/jax_shard_map.py: the loss of 30 steps of SGD on 4 devices goes down, and the
    dlbridge op's gradients equal the same model's in jax.numpy."""
    code = f"""
import sys
sys.path.insert(0, {os.path.join(ROOT, 'examples')!r})
import numpy as np, jax, jax.numpy as jnp
import jax_shard_map as ex
losses = ex.main()
assert losses[-1] < 0.2 * losses[0], losses
x = jnp.asarray(np.random.default_rng(1).normal(size=(6, 8)).astype(np.float32))
y = jnp.asarray(np.random.default_rng(2).normal(size=(6, 4)).astype(np.float32))
params = (jnp.full((8, 4), 0.1, jnp.float32), jnp.full((4,), 0.2, jnp.float32))
ref = lambda p, x, y: jnp.mean((jnp.tanh(x @ p[0] + p[1]) - y) ** 2)
got, want = jax.grad(ex.loss)(params, x, y), jax.grad(ref)(params, x, y)
for g, w in zip(got, want):
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)
print("ok")
"""
    out = _run(["-c", code])
    assert "4 cpu devices" in out and out.strip().endswith("ok")
