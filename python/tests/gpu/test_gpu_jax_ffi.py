"""dlbridge kernels inside JAX programs on the GPU, through XLA's FFI (dlbridge.jax): the CUDA
handler runs the kernel on XLA's stream and device, in jit, vmap, grad and shard_map, and XLA
keeps it out of command buffers (the handler does not declare the trait)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import dlbridge
import numpy as np
import pytest
from dlbridge import _dlbridge

if not hasattr(_dlbridge, "_xla_ffi_handlers"):
    pytest.skip("dlbridge was built without XLA FFI support", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@dlbridge.jit
def affine(x: Any, y: Any) -> Any:
    return x * 2 + y, x.sum()


@dlbridge.jit
def accumulate(total: Any, x: Any) -> None:
    total += x


@dlbridge.jit
def mlp(x: Any, w: Any) -> Any:
    return np.tanh(x @ w)


@dlbridge.jit
def mlp_grad(x: Any, w: Any, g: Any) -> Any:
    t = np.tanh(x @ w)
    d = g * (1 - t * t)
    return d @ w.T, x.T @ d


def _gpu(jax: Any, array: np.ndarray) -> Any:
    return jax.device_put(array, jax.devices("gpu")[0])


def test_jitted_op_on_gpu_arrays_matches_numpy(jax: Any) -> None:
    import dlbridge.jax as djax

    rng = np.random.default_rng(0)
    for shape in [(2, 3), (1, 4), (0, 3), (257, 33)]:
        x = rng.normal(size=shape).astype(np.float32)
        y = rng.normal(size=shape[-1:]).astype(np.float32)
        got, total = jax.jit(djax.ffi_op(affine))(_gpu(jax, x), _gpu(jax, y))
        assert next(iter(got.devices())).platform == "gpu"
        np.testing.assert_allclose(np.asarray(got), x * 2 + y, rtol=1e-6)
        np.testing.assert_allclose(float(total), x.sum(), rtol=1e-4, atol=1e-4)


def test_kernel_runs_in_order_on_xlas_stream(jax: Any) -> None:
    """A large product XLA computes just before the op and a reduction just after: were the
    kernel on another stream, it would read the product before it is written."""
    n = 4096
    a = _gpu(jax, np.full((n, n), 1.0 / n, np.float32))

    @jax.jit
    def program(a: Any) -> Any:
        p = a @ a @ a @ a
        out, _ = affine(p, p[0])
        return out.sum()

    for _ in range(3):  # every entry of p is 1/n, of out 3/n
        np.testing.assert_allclose(float(program(a)), 3.0 * n, rtol=1e-3)


def test_written_argument_is_aliased_on_the_gpu(jax: Any) -> None:
    import dlbridge.jax as djax

    total = _gpu(jax, np.zeros(5, np.float32))
    got = jax.jit(djax.ffi_op(accumulate))(total, _gpu(jax, np.arange(5, dtype=np.float32)))
    np.testing.assert_array_equal(np.asarray(got), np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(total), np.zeros(5, np.float32))


def test_vmap_and_grad_on_the_gpu(jax: Any) -> None:
    import dlbridge.jax as djax

    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 2, 3)).astype(np.float32)
    w = rng.normal(size=(4, 3, 2)).astype(np.float32)
    got = jax.jit(jax.vmap(mlp))(_gpu(jax, x), _gpu(jax, w))
    np.testing.assert_allclose(np.asarray(got), np.tanh(np.matmul(x, w)), rtol=1e-5)
    dense = djax.ffi_op(mlp, backward=mlp_grad)
    grads = jax.jit(jax.grad(lambda a, b: dense(a, b).sum(), argnums=(0, 1)))(_gpu(jax, x[0]), _gpu(jax, w[0]))
    ref = jax.grad(lambda a, b: jax.numpy.tanh(a @ b).sum(), argnums=(0, 1))(x[0], w[0])
    for g, r in zip(grads, ref):
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-4, atol=1e-5)


def test_traced_numbers_are_read_from_the_gpu(jax: Any) -> None:
    @dlbridge.jit
    def scale(x: Any, a: Any) -> Any:
        return x * a

    x = np.arange(5).astype(np.float16)
    got = jax.jit(scale)(_gpu(jax, x), 2.5)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(np.asarray(got), x * np.float16(2.5))


def test_a_cpu_kernel_is_refused_for_gpu_arrays(jax: Any) -> None:
    import dlbridge.jax as djax

    kernel = dlbridge.compile(open(os.path.join(ROOT, "examples", "axpy.mlir")).read(), target="cpu")
    x = _gpu(jax, np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"axpy\(\): the kernel was compiled for cpu, but XLA runs this call on cuda"):
        jax.jit(djax.ffi_op(kernel), static_argnums=2)(x, x, 1.0)


def _run(args: list[str], flags: str = "") -> str:
    env = dict(os.environ, JAX_PLATFORMS="cuda")
    if flags:
        env["XLA_FLAGS"] = flags
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_command_buffers_leave_the_op_outside(jax: Any) -> None:
    """With XLA's command buffers on for custom calls, the op is not captured (no trait) and a
    program calling it twice in a loop still computes the right numbers."""
    code = """
import numpy as np, jax, jax.numpy as jnp, dlbridge
@dlbridge.jit
def affine(x, y):
    return x * 2 + y, x.sum()
@jax.jit
def program(x, y):
    for _ in range(3):
        x, _ = affine(jnp.sin(x), y)
    return x
x, y = np.ones((64, 8), np.float32), np.ones(8, np.float32)
want = x
for _ in range(3):
    want = np.sin(want) * 2 + y
for _ in range(3):
    np.testing.assert_allclose(np.asarray(program(x, y)), want, rtol=1e-5)
print("ok")
"""
    out = _run(["-c", code], "--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL,CUBLAS")
    assert out.strip() == "ok"


def test_data_parallel_example_on_every_gpu(jax: Any) -> None:
    out = _run([os.path.join(ROOT, "examples", "jax_shard_map.py")])
    assert " gpu devices" in out or " cuda devices" in out, out
    first, last = (float(v) for v in out.split("loss ")[1].split(" -> "))
    assert last < 0.2 * first
