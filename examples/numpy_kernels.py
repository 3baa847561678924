"""Whole numeric kernels written the way NumPy users write them (issue 12, items 8-9; issue 26).

Each kernel is a plain NumPy function over ``np``: matrix chains, stencils with
time-step loops, an n-body step, ML layers, finance, optimiser updates of their
arguments in place. They are not written for what any one compiler supports;
``python/tests/test_jit_kernels.py`` runs them unchanged under ``@dlbridge.jit``
and ``bench/kernels_suite.py`` times them against NumPy, numba and JAX.

``KERNELS`` describes each one: how to make its inputs for a size ``n``, a small
test size, a benchmark size where NumPy takes at least 5 ms on a 2-core x86
machine, which arguments the kernel writes in place, and the relative tolerance
of its float result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# ---------------------------------------------------------------- linear algebra


def matrix_chain(a, b, c):
    """The product of three matrices."""
    return a @ b @ c


def power_iteration(a, v, iters):
    """The dominant eigenvector of ``a`` after ``iters`` normalised products."""
    for _ in range(iters):
        w = a @ v
        v = w / np.linalg.norm(w)
    return v


def gram(x):
    """The Gram matrix of the columns of ``x``, centred."""
    xc = x - x.mean(axis=0)
    return xc.T @ xc / (x.shape[0] - 1)


# ---------------------------------------------------------------- stencils


def jacobi_2d(u, iters):
    """Jacobi relaxation of Laplace's equation; updates ``u`` in place."""
    for _ in range(iters):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def heat_1d(u, alpha, nt):
    """Explicit heat equation in 1-D with fixed ends."""
    un = u.copy()
    for _ in range(nt):
        un[1:-1] = un[1:-1] + alpha * (un[2:] - 2.0 * un[1:-1] + un[:-2])
    return un


def heat_2d(u, alpha, nt):
    """Explicit heat equation in 2-D: a Laplacian into a zeroed buffer each step."""
    v = u.copy()
    for _ in range(nt):
        lap = np.zeros_like(v)
        lap[1:-1, 1:-1] = v[:-2, 1:-1] + v[2:, 1:-1] + v[1:-1, :-2] + v[1:-1, 2:] - 4.0 * v[1:-1, 1:-1]
        v = v + alpha * lap
    return v


def gradient_1d(f, dx):
    """Central differences inside, one-sided at the ends (like ``np.gradient``)."""
    g = np.zeros_like(f)
    g[1:-1] = (f[2:] - f[:-2]) / (2 * dx)
    g[0] = (f[1] - f[0]) / dx
    g[-1] = (f[-1] - f[-2]) / dx
    return g


def haar_step(x):
    """One level of the Haar wavelet transform: averages, then details."""
    n = x.shape[0]
    out = np.empty_like(x)
    out[: n // 2] = (x[0::2] + x[1::2]) / 2
    out[n // 2 :] = (x[0::2] - x[1::2]) / 2
    return out


# ---------------------------------------------------------------- physics


def nbody_step(pos, vel, mass, dt, eps):
    """One leapfrog step of an n-body system; updates ``pos`` and ``vel`` in place."""
    diff = pos[None, :, :] - pos[:, None, :]
    dist2 = np.sum(diff**2, axis=-1) + eps**2
    inv3 = dist2**-1.5
    acc = np.sum(diff * (mass[None, :, None] * inv3[:, :, None]), axis=1)
    vel += dt * acc
    pos += dt * vel


# ---------------------------------------------------------------- ML layers


def softmax(x):
    """Row-wise softmax, shifted by the row maximum."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def logsumexp(x):
    """Row-wise log-sum-exp."""
    m = np.max(x, axis=-1)
    return m + np.log(np.sum(np.exp(x - m[:, None]), axis=-1))


def layer_norm(x, gamma, beta, eps=1e-5):
    """Layer normalisation over the last axis."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def mlp(x, w1, b1, w2, b2):
    """Two dense layers: ReLU, then GELU (tanh form)."""
    h = np.maximum(x @ w1 + b1, 0)
    z = h @ w2 + b2
    return 0.5 * z * (1.0 + np.tanh(0.7978845608 * (z + 0.044715 * z**3)))


def conv1d(x, w):
    """'valid' 1-D correlation by summing shifted slices."""
    k = len(w)
    n = len(x) - k + 1
    out = np.zeros(n, dtype=x.dtype)
    for j in range(k):
        out += w[j] * x[j : j + n]
    return out


def conv2d(img, kern):
    """'valid' 2-D correlation by summing shifted slices."""
    kh, kw = kern.shape
    h = img.shape[0] - kh + 1
    w = img.shape[1] - kw + 1
    out = np.zeros((h, w), dtype=img.dtype)
    for i in range(kh):
        for j in range(kw):
            out += kern[i, j] * img[i : i + h, j : j + w]
    return out


def pairwise_distances(x, y):
    """Euclidean distances between the rows of ``x`` and of ``y``."""
    d2 = np.sum(x**2, axis=1)[:, None] + np.sum(y**2, axis=1)[None, :] - 2 * x @ y.T
    return np.sqrt(np.maximum(d2, 0))


def cosine_similarity(a, b):
    """Cosine similarity between the rows of ``a`` and of ``b``."""
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    return an @ bn.T


def kmeans_assign(x, centroids):
    """The index of each point's nearest centroid."""
    d = ((x[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    return np.argmin(d, axis=1)


# ---------------------------------------------------------------- finance, fractals


def black_scholes(S, K, T, r, sigma):
    """European call and put prices (Abramowitz-Stegun normal CDF, as in numba's example)."""

    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
        ret = 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
        return np.where(d > 0, 1.0 - ret, ret)

    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    discount = np.exp(-r * T)
    call = S * cnd(d1) - K * discount * cnd(d2)
    put = K * discount * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))
    return call, put


def mandelbrot(c_re, c_im, max_iter):
    """Escape counts of the Mandelbrot iteration after ``max_iter`` steps."""
    zr = np.zeros_like(c_re)
    zi = np.zeros_like(c_im)
    count = np.zeros(c_re.shape, dtype=np.int64)
    for _ in range(max_iter):
        inside = zr * zr + zi * zi <= 4.0
        zr, zi = np.where(inside, zr * zr - zi * zi + c_re, zr), np.where(inside, 2.0 * zr * zi + c_im, zi)
        count += inside
    return count


def cumulative_returns(prices):
    """Growth of each asset (columns) from its log returns (rows are days)."""
    log_returns = np.log(prices[1:] / prices[:-1])
    return np.exp(np.cumsum(log_returns, axis=0)) - 1.0


# ---------------------------------------------------------------- the everyday NumPy of issue 26


def wave_1d_periodic(u, u_prev, c, nt):
    """Leapfrog steps of the 1-D wave equation on a ring, the Laplacian by ``np.roll``."""
    for _ in range(nt):
        lap = np.roll(u, 1) - 2.0 * u + np.roll(u, -1)
        u, u_prev = 2.0 * u - u_prev + c * c * lap, u
    return u


def periodic_gradient_2d(f, dx):
    """The gradient magnitude of a periodic field (central differences by ``np.roll``) and its
    total variation (forward differences by ``np.diff``)."""
    gx = (np.roll(f, -1, axis=1) - np.roll(f, 1, axis=1)) / (2.0 * dx)
    gy = (np.roll(f, -1, axis=0) - np.roll(f, 1, axis=0)) / (2.0 * dx)
    tv = np.abs(np.diff(f, axis=0)).sum() + np.abs(np.diff(f, axis=1)).sum()
    return np.sqrt(gx**2 + gy**2), tv


def feature_correlations(x):
    """Covariance and correlation of the columns of ``x`` (samples in rows), and the strongest
    correlation between two different features (the upper triangle)."""
    cov = np.cov(x, rowvar=False)
    corr = np.corrcoef(x, rowvar=False)
    strongest = np.abs(np.triu(corr, 1)).max()
    return cov, corr, strongest


def portfolio_stats(prices, weights):
    """Per-day weighted mean price across assets (columns), daily log returns by ``np.diff``,
    and each asset's drawdown from its running peak (``np.maximum.accumulate``)."""
    mean_price = np.average(prices, axis=1, weights=weights)
    log_returns = np.diff(np.log(prices), axis=0)
    drawdown = prices / np.maximum.accumulate(prices, axis=0) - 1.0
    return mean_price, log_returns, drawdown


def dft_power(x):
    """The power spectrum of ``x`` by the DFT matrix (``np.multiply.outer`` of the indices and
    complex ``np.exp``), the product's magnitude by ``.conj()`` and ``.real``."""
    n = x.shape[0]
    k = np.arange(n)
    w = np.exp(-2j * np.pi * np.multiply.outer(k, k) / n)
    spectrum = w @ x
    return (spectrum * spectrum.conj()).real


# ---------------------------------------------------------------- optimisers


def conv2d_layer(img, kern, bias):
    """A 'valid' convolution layer with ReLU, written as loops over the output positions."""
    kh, kw = kern.shape
    h = img.shape[0] - kh + 1
    w = img.shape[1] - kw + 1
    out = np.empty((h, w))
    for i in range(h):
        for j in range(w):
            out[i, j] = np.sum(img[i:i + kh, j:j + kw] * kern) + bias
    return np.maximum(out, 0.0)


def max_pool_2x2(x):
    """2x2 max pooling with stride 2, written as loops over the output positions."""
    h, w = x.shape[0] // 2, x.shape[1] // 2
    out = np.empty((h, w), dtype=x.dtype)
    for i in range(h):
        for j in range(w):
            out[i, j] = x[2 * i:2 * i + 2, 2 * j:2 * j + 2].max()
    return out


def mandelbrot_masked(c, max_iter):
    """Escape counts of the Mandelbrot map, updating only the points still inside."""
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for _ in range(max_iter):
        inside = np.abs(z) <= 2.0
        z[inside] = z[inside] ** 2 + c[inside]
        counts[inside] += 1
    return counts


def histogram_equalize(img, bins):
    """Histogram equalisation of an image with values in [0, 1)."""
    counts, _ = np.histogram(img, bins=bins, range=(0.0, 1.0))
    cdf = np.cumsum(counts).astype(np.float64)
    cdf = (cdf - cdf.min()) / (cdf.max() - cdf.min())
    index = np.minimum((img * bins).astype(np.int64), bins - 1)
    return cdf[index]


def forward_substitution(low, b):
    """Solves low @ x = b for a lower triangular matrix, row by row."""
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        x[i] = (b[i] - low[i, :i] @ x[:i]) / low[i, i]
    return x


def fft_radix2(x):
    """The DFT of a signal whose length is a power of two, by radix-2 butterflies."""
    n = x.shape[0]
    m = min(n, 16)
    k = np.arange(m)
    spectrum = np.exp(-2j * np.pi * k[:, None] * k / m) @ x.reshape(m, -1).astype(np.complex128)
    while spectrum.shape[0] < n:
        half = spectrum.shape[1] // 2
        even, odd = spectrum[:, :half], spectrum[:, half:]
        twiddle = np.exp(-1j * np.pi * np.arange(spectrum.shape[0]) / spectrum.shape[0])[:, None]
        spectrum = np.concatenate([even + twiddle * odd, even - twiddle * odd])
    return spectrum.ravel()


def sgd_momentum(w, grad, velocity, lr, momentum):
    """SGD with momentum; updates ``w`` and ``velocity`` in place."""
    velocity *= momentum
    velocity -= lr * grad
    w += velocity


def adam_update(w, grad, m, v, t, lr, beta1, beta2, eps):
    """One Adam step; updates ``w``, ``m`` and ``v`` in place."""
    m[:] = beta1 * m + (1 - beta1) * grad
    v[:] = beta2 * v + (1 - beta2) * grad * grad
    m_hat = m / (1 - beta1**t)
    v_hat = v / (1 - beta2**t)
    w -= lr * m_hat / (np.sqrt(v_hat) + eps)


# ---------------------------------------------------------------- iterations to a tolerance, branches


def newton_cube_root(a, tol):
    """Cube roots of positive values by Newton's method, until the largest update is below tol."""
    x = np.maximum(a, 1.0)
    step = np.inf
    while step > tol:
        x_new = x - (x * x * x - a) / (3.0 * x * x)
        step = np.max(np.abs(x_new - x))
        x = x_new
    return x


def bisection_roots(c, tol):
    """The real root of x**3 + x = c for each c, by bisection until every bracket is narrower than tol."""
    lo = np.minimum(c, 0.0)
    hi = np.maximum(c, 0.0)
    while np.max(hi - lo) > tol:
        mid = 0.5 * (lo + hi)
        above = mid * mid * mid + mid > c
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return 0.5 * (lo + hi)


def jacobi_solve(a, b, tol, max_iter):
    """Solves a diagonally dominant system by Jacobi iteration until the residual is below tol."""
    d = np.diag(a)
    rest = a - np.diag(d)
    x = np.zeros_like(b)
    residual = np.linalg.norm(b)
    it = 0
    while residual > tol and it < max_iter:
        x = (b - rest @ x) / d
        residual = np.linalg.norm(a @ x - b)
        it += 1
    return x, it


def clip_outliers(x, k):
    """Values more than k standard deviations from the mean replaced by the mean, if there are any;
    constant data centred."""
    mu = x.mean()
    sd = x.std()
    if sd > 0:
        outliers = np.abs(x - mu) > k * sd
        if outliers.any():
            x = np.where(outliers, mu, x)
    else:
        x = x - mu
    return x


# ---------------------------------------------------------------- scalar programs, decompositions


def edit_distance(a, b):
    """The Levenshtein distance between two integer sequences, by the textbook dynamic program."""
    n, m = a.shape[0], b.shape[0]
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    d[:, 0] = np.arange(n + 1)
    d[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[n, m]


def huber_loss(residuals, delta):
    """The mean Huber loss, its per-element rule written as a Python function and vectorised."""
    def one(r):
        if abs(r) <= delta:
            return 0.5 * r * r
        return delta * (abs(r) - 0.5 * delta)

    return np.vectorize(one)(residuals).mean()


def polynomial_fit(x, y, degree):
    """Least-squares polynomial coefficients (highest power first), their fitted values' residual
    and the design matrix's singular values."""
    design = np.vander(x, degree + 1)
    coef, residual, _, singular = np.linalg.lstsq(design, y, rcond=None)
    return coef, design @ coef, singular


def explained_variance(samples):
    """The share of the variance each principal component explains, largest first."""
    centred = samples - samples.mean(axis=0)
    cov = centred.T @ centred / (samples.shape[0] - 1)
    eigenvalues = np.linalg.eigvalsh(cov)[::-1]
    return eigenvalues / eigenvalues.sum()


# ---------------------------------------------------------------- inputs


def _rng(n: int) -> np.random.Generator:
    return np.random.default_rng(1234 + n)


def _matrices(n: int, count: int, dtype: Any = np.float64) -> tuple[np.ndarray, ...]:
    rng = _rng(n)
    return tuple((rng.standard_normal((n, n)) / np.sqrt(n)).astype(dtype) for _ in range(count))


def _field_2d(n: int) -> np.ndarray:
    u = np.zeros((n, n))
    u[0, :] = 1.0
    u[:, 0] = np.linspace(0.0, 1.0, n)
    u[n // 4 : n // 2, n // 4 : n // 2] = _rng(n).random((n // 2 - n // 4, n // 2 - n // 4))
    return u


def _nbody(n: int) -> tuple[Any, ...]:
    rng = _rng(n)
    return (rng.standard_normal((n, 3)), rng.standard_normal((n, 3)) * 0.1, rng.random(n) + 0.5, 0.01, 0.1)


def _black_scholes(n: int) -> tuple[Any, ...]:
    rng = _rng(n)
    return (rng.uniform(5.0, 30.0, n), rng.uniform(1.0, 100.0, n), rng.uniform(0.25, 10.0, n), 0.02, 0.30)


def _mandelbrot(n: int) -> tuple[Any, ...]:
    re = np.linspace(-2.0, 0.6, 2 * n)
    im = np.linspace(-1.2, 1.2, n)
    c_re, c_im = np.meshgrid(re, im)
    return c_re, c_im, 20


def _adam(n: int) -> tuple[Any, ...]:
    rng = _rng(n)
    w, g = rng.standard_normal((2, n), dtype=np.float32)
    m = rng.standard_normal(n, dtype=np.float32) * np.float32(0.1)
    v = rng.random(n, dtype=np.float32) * np.float32(0.01)
    return w, g, m, v, 3, 1e-3, 0.9, 0.999, 1e-8


def _f32(n: int, *shapes: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    rng = _rng(n)
    return tuple(rng.standard_normal(shape, dtype=np.float32) for shape in shapes)


@dataclass(frozen=True)
class KernelSpec:
    """One kernel with everything needed to test and time it.

    Attributes:
        fn: the NumPy function, unchanged.
        make: the inputs for a size ``n`` (fresh arrays on every call).
        small: a size for tests (seconds to run, every code path exercised).
        bench: a size at which NumPy takes at least 5 ms.
        writes: positions of the arguments the kernel writes in place.
        static: names of the arguments a tracer must treat as compile-time
            constants (loop trip counts), as ``jax.jit(static_argnames=...)``.
        rtol: relative tolerance of float results against NumPy.
    """

    fn: Callable[..., Any]
    make: Callable[[int], tuple[Any, ...]]
    small: int
    bench: int
    writes: tuple[int, ...] = ()
    static: tuple[str, ...] = ()
    rtol: float = 1e-9

    @property
    def name(self) -> str:
        """The kernel's function name."""
        return self.fn.__name__


KERNELS: tuple[KernelSpec, ...] = (
    KernelSpec(matrix_chain, lambda n: _matrices(n, 3), 8, 600),
    KernelSpec(power_iteration, lambda n: (*_matrices(n, 1), np.ones(n), 50), 8, 1_600, static=("iters",)),
    KernelSpec(gram, lambda n: (_rng(n).standard_normal((4 * n, n)),), 8, 500),
    KernelSpec(jacobi_2d, lambda n: (_field_2d(n), 20), 8, 450, writes=(0,), static=("iters",)),
    KernelSpec(heat_1d, lambda n: (np.sin(np.linspace(0.0, 3.0, n)) + 1.0, 0.25, 100), 16, 100_000,
               static=("nt",)),
    KernelSpec(heat_2d, lambda n: (_field_2d(n), 0.2, 10), 8, 500, static=("nt",)),
    KernelSpec(gradient_1d, lambda n: (np.cos(np.linspace(0.0, 10.0, n)) * 3.0, 0.01), 16, 3_000_000),
    KernelSpec(haar_step, lambda n: (_rng(n).standard_normal(2 * n),), 8, 2_000_000),
    KernelSpec(nbody_step, _nbody, 8, 400, writes=(0, 1)),
    KernelSpec(softmax, lambda n: _f32(n, (n, 256)), 8, 16_000, rtol=1e-5),
    KernelSpec(logsumexp, lambda n: _f32(n, (n, 256)), 8, 16_000, rtol=1e-5),
    KernelSpec(layer_norm, lambda n: _f32(n, (n, 256), (256,), (256,)), 8, 12_000, rtol=1e-4),
    KernelSpec(mlp, lambda n: _f32(n, (n, 64), (64, 128), (128,), (128, 32), (32,)), 8, 8_000, rtol=1e-4),
    KernelSpec(conv1d, lambda n: (_rng(n).standard_normal(n), _rng(n + 1).standard_normal(15)), 32, 1_500_000),
    KernelSpec(conv2d, lambda n: (_rng(n).standard_normal((n, n)), _rng(n + 1).standard_normal((5, 5))),
               12, 700),
    KernelSpec(pairwise_distances, lambda n: (_rng(n).standard_normal((n, 16)),
                                              _rng(n + 1).standard_normal((n // 2, 16))), 8, 2_000, rtol=1e-7),
    KernelSpec(cosine_similarity, lambda n: _f32(n, (n, 64), (n // 2, 64)), 8, 4_000, rtol=1e-5),
    KernelSpec(kmeans_assign, lambda n: (_rng(n).standard_normal((n, 8)), _rng(n + 1).standard_normal((16, 8))),
               16, 40_000),
    KernelSpec(black_scholes, _black_scholes, 16, 400_000),
    KernelSpec(mandelbrot, _mandelbrot, 8, 300, static=("max_iter",)),
    KernelSpec(cumulative_returns, lambda n: (np.exp(_rng(n).standard_normal((n, 8)) * 0.01) * 100.0,),
               8, 200_000),
    KernelSpec(wave_1d_periodic, lambda n: (np.sin(np.linspace(0.0, 2 * np.pi, n, endpoint=False)),
                                            np.sin(np.linspace(0.0, 2 * np.pi, n, endpoint=False) - 0.01),
                                            0.5, 50), 16, 40_000, static=("nt",)),
    KernelSpec(periodic_gradient_2d, lambda n: (_field_2d(n), 0.1), 8, 500),
    KernelSpec(feature_correlations, lambda n: (_rng(n).standard_normal((8 * n, n)) @ _matrices(n, 1)[0],), 8, 300,
               rtol=1e-8),
    KernelSpec(portfolio_stats, lambda n: (np.exp(np.cumsum(_rng(n).standard_normal((n, 8)) * 0.01, axis=0)) * 100.0,
                                           _rng(n + 1).random(8) + 0.1), 8, 200_000),
    KernelSpec(dft_power, lambda n: (_rng(n).standard_normal(n),), 16, 600, rtol=1e-8),
    KernelSpec(conv2d_layer, lambda n: (_rng(n).standard_normal((n, n)), _rng(n + 1).standard_normal((3, 3)), 0.1),
               10, 60),
    KernelSpec(max_pool_2x2, lambda n: (_rng(n).standard_normal((n, n + 2)),), 8, 128),
    KernelSpec(mandelbrot_masked, lambda n: (np.linspace(-2.2, 1.0, 2 * n)[None, :]
                                             + 1j * np.linspace(-1.2, 1.2, n)[:, None], 30), 8, 200),
    KernelSpec(histogram_equalize, lambda n: (_rng(n).random((n, n)), 16), 8, 1_000),
    KernelSpec(forward_substitution, lambda n: (np.tril(_rng(n).standard_normal((n, n))) + n * np.eye(n),
                                                _rng(n + 1).standard_normal(n)), 8, 2_000),
    KernelSpec(fft_radix2, lambda n: (_rng(n).standard_normal(2 ** int(n).bit_length()),), 6, 65_535,
               rtol=1e-8),
    KernelSpec(newton_cube_root, lambda n: (_rng(n).uniform(0.5, 1000.0, n), 1e-10), 16, 400_000),
    KernelSpec(bisection_roots, lambda n: (_rng(n).uniform(-50.0, 50.0, n), 1e-9), 16, 100_000),
    KernelSpec(jacobi_solve, lambda n: (_matrices(n, 1)[0] + n * np.eye(n), _rng(n + 1).standard_normal(n), 1e-10,
                                        200), 8, 1_000),
    KernelSpec(clip_outliers, lambda n: (_rng(n).standard_normal(n) * (1 + 9 * (_rng(n + 1).random(n) < 0.05)), 2.5),
               16, 2_000_000),
    KernelSpec(sgd_momentum, lambda n: (*_f32(n, (n,), (n,), (n,)), 0.01, 0.9), 16, 8_000_000,
               writes=(0, 2), rtol=1e-5),
    KernelSpec(adam_update, _adam, 16, 3_000_000, writes=(0, 2, 3), rtol=1e-5),
    KernelSpec(edit_distance, lambda n: (_rng(n).integers(0, 4, n), _rng(n + 1).integers(0, 4, n + 3)), 12, 80),
    KernelSpec(huber_loss, lambda n: (_rng(n).standard_normal(n) * 3, 1.5), 16, 20_000),
    KernelSpec(polynomial_fit, lambda n: (np.linspace(-1.0, 1.0, n), np.cos(3 * np.linspace(-1.0, 1.0, n)), 4),
               16, 200_000, static=("degree",), rtol=1e-8),
    KernelSpec(explained_variance, lambda n: (_rng(n).standard_normal((4 * n, n)) @ _matrices(n, 1)[0],), 8, 120,
               rtol=1e-8),
)
