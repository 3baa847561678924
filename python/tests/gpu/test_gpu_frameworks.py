"""@dlbridge.jit on PyTorch, CuPy and JAX CUDA arrays: results in the caller's
framework on the caller's device, inputs untouched, errors that name the
argument."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest


@dlbridge.jit
def axpy(a: Any, x: Any, y: Any) -> Any:
    return a * x + y


@dlbridge.jit
def add(x: Any, y: Any) -> Any:
    return x + y


@dlbridge.jit
def row_stats(x: Any) -> Any:
    return x.sum(axis=-1), x.max(axis=1), x.mean(axis=0)


@dlbridge.jit
def total(x: Any) -> Any:
    return x.sum()


@dlbridge.jit
def softmax(x: Any) -> Any:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@dlbridge.jit
def increment(x: Any) -> None:
    x += 1


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32"])
def test_elementwise_on_torch_cuda_tensors(torch: Any, dtype: str) -> None:
    t = getattr(torch, dtype)
    x = (torch.arange(3 * 1000, device="cuda") % 17).to(t).reshape(3, 1000)
    y = torch.ones(3, 1000, device="cuda", dtype=t)
    before = x.clone()
    out = add(x, y)
    assert isinstance(out, torch.Tensor)
    assert out.device == x.device and out.dtype == t
    assert torch.equal(out, x + y)
    assert torch.equal(x, before)


def test_views_broadcasting_and_scalars(torch: Any) -> None:
    base = torch.randn(64, 130, device="cuda")
    x = base[::2, 1:-1].T  # strided, offset, transposed
    y = torch.randn(x.shape[1], device="cuda")
    out = axpy(2.5, x, y)
    torch.testing.assert_close(out, 2.5 * x + y)


@pytest.mark.parametrize("shape", [(1, 1), (3, 31), (7, 33), (5, 1000), (2, 100003), (257, 1024)])
def test_reductions_match_torch(torch: Any, shape: tuple[int, int]) -> None:
    x = torch.randn(*shape, device="cuda")
    sums, maxima, means = row_stats(x)
    torch.testing.assert_close(sums, x.sum(dim=-1), rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(maxima, x.amax(dim=1))
    torch.testing.assert_close(means, x.mean(dim=0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [1, 1000, 1 << 20, 10_000_019])
def test_full_sum_matches_torch(torch: Any, n: int) -> None:
    x = torch.rand(n, device="cuda", dtype=torch.float64)
    torch.testing.assert_close(total(x), x.sum())


def test_softmax_rows_match_torch(torch: Any) -> None:
    x = torch.randn(300, 777, device="cuda") * 10
    torch.testing.assert_close(softmax(x), torch.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)


def test_written_argument_is_updated_in_place(torch: Any) -> None:
    x = torch.zeros(4, 5, device="cuda")
    increment(x)
    assert torch.equal(x, torch.ones(4, 5, device="cuda"))


def test_shape_mismatch_names_the_argument(torch: Any) -> None:
    x = torch.ones(4, 5, device="cuda")
    y = torch.ones(4, 6, device="cuda")
    with pytest.raises(ValueError, match=r"add\(\)"):
        add(x, y)


def test_cpu_and_cuda_arguments_are_refused(torch: Any) -> None:
    with pytest.raises(ValueError, match="expected device"):
        add(torch.ones(3, device="cuda"), torch.ones(3))


def test_cupy_arrays(cupy: Any) -> None:
    x = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
    y = cupy.full((3, 4), 2, dtype=cupy.float32)
    out = axpy(3.0, x, y)
    assert isinstance(out, cupy.ndarray)
    cupy.testing.assert_allclose(out, 3 * x + y)
    sums, maxima, means = row_stats(x[:, ::2])
    cupy.testing.assert_allclose(sums, x[:, ::2].sum(axis=-1))


def test_cupy_runs_on_cupys_current_stream(cupy: Any) -> None:
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        x = cupy.zeros(1 << 20, dtype=cupy.float32)
        cupy.cuda.runtime.deviceSynchronize()
        x += 1  # on `stream`: the call must see it without a synchronisation
        out = add(x, x)
        assert float(out.sum()) == 2.0 * (1 << 20)


def test_jax_gpu_arrays(jax: Any) -> None:
    jnp = jax.numpy
    x = jax.device_put(jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4), jax.devices("gpu")[0])
    out = axpy(2.0, x, x)
    assert isinstance(out, jax.Array)
    assert out.devices() == x.devices()
    np.testing.assert_allclose(np.asarray(out), 3 * np.asarray(x))


def test_results_on_every_device(torch: Any) -> None:
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA device: kernels on device 1 need a second")
    for index in range(torch.cuda.device_count()):
        x = torch.arange(10.0, device=f"cuda:{index}")
        out = add(x, x)
        assert out.device == x.device
        assert torch.equal(out, 2 * x)


def test_lazy_views_of_cuda_tensors_give_torchs_numbers(torch: Any) -> None:
    # PyTorch's exchange API exports them as if their bits were unset.
    x = torch.randn(3, 1000, device="cuda")
    c = torch.randn(3, 1000, device="cuda", dtype=torch.complex64)
    for view in (torch._neg_view(x), c.conj().imag, torch._neg_view(x).T):
        assert view.is_neg()
        torch.testing.assert_close(add(view, view), view.resolve_neg() * 2)
        before = view.resolve_neg()
        with pytest.raises(BufferError, match="argument 0 'x': .*negative bit set"):
            increment(view)
        assert torch.equal(view, before)


def test_cuda_leaves_that_require_grad_are_not_written(torch: Any) -> None:
    w = torch.zeros(4, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="argument 0 'x': a leaf Variable that requires grad"):
        increment(w)
    with torch.no_grad():
        increment(w)
    assert torch.equal(w.detach(), torch.ones(4, device="cuda")) and w._version == 1


def test_jax_gpu_arrays_go_back_to_jax_without_a_copy(jax: Any) -> None:
    x = jax.device_put(jax.numpy.arange(12.0, dtype=jax.numpy.float32), jax.devices("gpu")[0])
    y = jax.dlpack.from_dlpack(dlbridge.from_dlpack(x))
    assert y.devices() == x.devices()
    assert y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.asarray(y), np.arange(12.0))
