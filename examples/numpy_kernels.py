"""Whole numeric kernels written as NumPy users write them, run unchanged by ``@dlbridge.jit``.

Each entry of :data:`KERNELS` names a plain NumPy function and a function making its inputs for a
size ``n``; ``python/tests/test_jit_kernels.py`` compares every kernel under ``dlbridge.jit`` with
NumPy, and the benchmarks time them.  Kernels that update arguments in place return nothing or
a summary, as the NumPy code does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

Inputs = Callable[[int, np.random.Generator], tuple[Any, ...]]


# --------------------------------------------------------------------------------------------------
# linear algebra


def matrix_chain(a: Any, b: Any, c: Any) -> Any:
    return a @ b @ c


def power_iteration(a: Any, iterations: int) -> Any:
    v = np.ones(a.shape[0])
    for _ in range(iterations):
        v = a @ v
        v = v / np.sqrt(np.sum(v * v))
    return v


def gram(x: Any) -> Any:
    return x.T @ x / x.shape[0]


def cosine_similarity(x: Any, y: Any) -> Any:
    xn = x / np.sqrt((x * x).sum(axis=1, keepdims=True))
    yn = y / np.sqrt((y * y).sum(axis=1, keepdims=True))
    return xn @ yn.T


def pairwise_distances(x: Any) -> Any:
    sq = np.sum(x * x, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (x @ x.T)
    return np.sqrt(np.maximum(d2, 0.0))


# --------------------------------------------------------------------------------------------------
# stencils


def jacobi_2d(u: Any, steps: int) -> Any:
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u.sum()


def heat_1d(u: Any, alpha: float, steps: int) -> Any:
    n = len(u)
    out = u.copy()
    for _ in range(steps):
        out[1 : n - 1] = out[1 : n - 1] + alpha * (out[2:] - 2 * out[1 : n - 1] + out[: n - 2])
    return out


def laplacian_2d(u: Any) -> Any:
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    return lap


def convolve_1d(x: Any, w: Any) -> Any:
    k = w.shape[0]
    n = x.shape[0] - k + 1
    out = np.zeros(n)
    for j in range(k):
        out += w[j] * x[j : j + n]
    return out


# --------------------------------------------------------------------------------------------------
# physics


def nbody_step(pos: Any, vel: Any, mass: Any, dt: float) -> None:
    diff = pos[None, :, :] - pos[:, None, :]
    dist2 = (diff * diff).sum(axis=2) + 0.01
    inv3 = dist2 ** -1.5
    acc = (diff * (mass[None, :] * inv3)[:, :, None]).sum(axis=1)
    vel += dt * acc
    pos += dt * vel


def mandelbrot(cr: Any, ci: Any, iterations: int) -> Any:
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    count = np.zeros(cr.shape, dtype=np.int64)
    for _ in range(iterations):
        inside = zr * zr + zi * zi <= 4.0
        zr, zi = np.where(inside, zr * zr - zi * zi + cr, zr), np.where(inside, 2 * zr * zi + ci, zi)
        count += inside
    return count


# --------------------------------------------------------------------------------------------------
# machine learning layers


def softmax(x: Any) -> Any:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def log_sum_exp(x: Any) -> Any:
    m = np.max(x, axis=1)
    return m + np.log(np.sum(np.exp(x - m[:, None]), axis=1))


def layer_norm(x: Any, gamma: Any, beta: Any) -> Any:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta


def mlp(x: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> Any:
    h = x @ w1 + b1
    h = 0.5 * h * (1.0 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))
    return np.maximum(h @ w2 + b2, 0.0)


def kmeans_assign(points: Any, centers: Any) -> Any:
    d = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    return np.argmin(d, axis=1)


def adam_update(w: Any, g: Any, m: Any, v: Any, lr: float, t: int) -> None:
    m[...] = 0.9 * m + 0.1 * g
    v[...] = 0.999 * v + 0.001 * g * g
    m_hat = m / (1 - 0.9**t)
    v_hat = v / (1 - 0.999**t)
    w -= lr * m_hat / (np.sqrt(v_hat) + 1e-8)


# --------------------------------------------------------------------------------------------------
# finance and statistics


def black_scholes(s: Any, k: Any, t: Any, r: float, sigma: float) -> Any:
    d1 = (np.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * np.sqrt(t))
    d2 = d1 - sigma * np.sqrt(t)
    cdf1 = 0.5 * (1.0 + np.tanh(0.7978845608 * (d1 + 0.044715 * d1**3)))
    cdf2 = 0.5 * (1.0 + np.tanh(0.7978845608 * (d2 + 0.044715 * d2**3)))
    return s * cdf1 - k * np.exp(-r * t) * cdf2


def cumulative_returns(prices: Any) -> Any:
    returns = prices[1:] / prices[:-1] - 1.0
    return np.cumprod(1.0 + returns) - 1.0


def standardize_columns(x: Any) -> Any:
    return (x - x.mean(axis=0)) / x.std(axis=0)


def moving_average(x: Any, window: int) -> Any:
    c = np.cumsum(x)
    out = np.empty(len(x) - window + 1)
    out[0] = c[window - 1]
    out[1:] = c[window:] - c[:-window]
    return out / window


# --------------------------------------------------------------------------------------------------
# the table


@dataclass(frozen=True)
class Kernel:
    """A kernel, its inputs for a size, and the size at which NumPy takes at least ~5 ms."""

    fn: Callable[..., Any]
    inputs: Inputs
    bench_size: int


KERNELS: dict[str, Kernel] = {
    "matrix_chain": Kernel(matrix_chain, lambda n, r: (r.random((n, n)), r.random((n, n)), r.random((n, 4))), 512),
    "power_iteration": Kernel(power_iteration, lambda n, r: (r.random((n, n)), 30), 700),
    "gram": Kernel(gram, lambda n, r: (r.random((4 * n, n)),), 400),
    "cosine_similarity": Kernel(cosine_similarity, lambda n, r: (r.random((n, 64)), r.random((n, 64))), 1500),
    "pairwise_distances": Kernel(pairwise_distances, lambda n, r: (r.random((n, 3)),), 1500),
    "jacobi_2d": Kernel(jacobi_2d, lambda n, r: (r.random((n, n)), 20), 500),
    "heat_1d": Kernel(heat_1d, lambda n, r: (r.random(n), 0.2, 50), 200_000),
    "laplacian_2d": Kernel(laplacian_2d, lambda n, r: (r.random((n, n)),), 2000),
    "convolve_1d": Kernel(convolve_1d, lambda n, r: (r.random(n + 8), r.random(9)), 1_000_000),
    "nbody_step": Kernel(nbody_step, lambda n, r: (r.random((n, 3)), r.random((n, 3)), r.random(n), 0.01), 400),
    "mandelbrot": Kernel(mandelbrot, lambda n, r: tuple(np.meshgrid(np.linspace(-2, 1, n), np.linspace(-1.5, 1.5, n))) + (20,), 300),
    "softmax": Kernel(softmax, lambda n, r: (r.random((n, 512)),), 2000),
    "log_sum_exp": Kernel(log_sum_exp, lambda n, r: (r.random((n, 512)),), 2000),
    "layer_norm": Kernel(layer_norm, lambda n, r: (r.random((n, 256)), r.random(256), r.random(256)), 4000),
    "mlp": Kernel(mlp, lambda n, r: (r.random((n, 128)), r.random((128, 256)), r.random(256), r.random((256, 64)), r.random(64)), 2000),
    "kmeans_assign": Kernel(kmeans_assign, lambda n, r: (r.random((n, 4)), r.random((16, 4))), 50_000),
    "adam_update": Kernel(adam_update, lambda n, r: (r.random(n), r.random(n), r.random(n), r.random(n), 1e-3, 3), 1_000_000),
    "black_scholes": Kernel(black_scholes, lambda n, r: (r.random(n) + 1, r.random(n) + 1, r.random(n) + 0.1, 0.02, 0.3), 1_000_000),
    "cumulative_returns": Kernel(cumulative_returns, lambda n, r: (r.random(n) + 1,), 1_000_000),
    "standardize_columns": Kernel(standardize_columns, lambda n, r: (r.random((n, 32)),), 100_000),
    "moving_average": Kernel(moving_average, lambda n, r: (r.random(n + 9), 10), 2_000_000),
}
