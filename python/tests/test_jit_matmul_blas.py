"""f32/f64 products through BLAS: ``@``, ``np.dot``, ``np.matmul`` on every layout and shape class.

2-D products, N-D @ 2-D (one matmul over the rows of every leading dim), equal-batch 3-D
products, matvec and vecmat call the BLAS NumPy uses; integers and broadcast batches stay in
generated loops. Each result is checked against NumPy, and the inputs must be left untouched.
"""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest
from dlbridge import _dlbridge

RNG = np.random.default_rng(11)


@dlbridge.jit
def product(a: Any, b: Any) -> Any:
    return a @ b


SHAPES = [
    ((33, 17), (17, 21)),  # matmul
    ((5, 33, 17), (17, 21)),  # N-D @ 2-D
    ((2, 3, 9, 17), (17, 4)),  # 4-D @ 2-D
    ((6, 33, 17), (6, 17, 21)),  # batch_matmul
    ((33, 17), (17,)),  # matvec
    ((17,), (17, 21)),  # vecmat
    ((6, 33, 17), (17,)),  # N-D @ vector
    ((1, 33, 17), (6, 17, 21)),  # broadcast batch: loops
    ((4, 1, 9, 17), (3, 17, 5)),  # broadcast batch: loops
    ((0, 17), (17, 21)),  # empty rows
    ((33, 0), (0, 21)),  # empty contraction: zeros
]


def _layouts(x: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """``x`` as C, Fortran, sliced, reversed and broadcast arrays with the same values."""
    out = [("C", x), ("F", np.asfortranarray(x))]
    if x.ndim >= 1 and x.shape[-1] > 0:
        wide = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)
        wide[..., ::2] = x
        out.append(("strided", wide[..., ::2]))
        out.append(("reversed", np.flip(np.flip(x, -1).copy(), -1)))
    if x.ndim >= 2 and x.shape[-2] > 0:
        out.append(("broadcast-row", np.broadcast_to(x[..., :1, :], x.shape)))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: f"{s[0]}@{s[1]}")
def test_products_match_numpy_on_every_layout(dtype: type, shapes: tuple[tuple[int, ...], ...]) -> None:
    a0 = RNG.standard_normal(shapes[0]).astype(dtype)
    b0 = RNG.standard_normal(shapes[1]).astype(dtype)
    tolerance = 1e-4 if dtype is np.float32 else 1e-12
    for name_a, a in _layouts(a0):
        for name_b, b in _layouts(b0):
            before = (a.copy(), b.copy())
            got = product(a, b)
            want = np.matmul(a, b)
            assert got.shape == want.shape and got.dtype == want.dtype, (name_a, name_b)
            np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance, err_msg=f"{name_a} @ {name_b}")
            np.testing.assert_array_equal(a, before[0])
            np.testing.assert_array_equal(b, before[1])


def test_integer_products_stay_exact() -> None:
    a = RNG.integers(-1000, 1000, (40, 30)).astype(np.int64)
    b = RNG.integers(-1000, 1000, (30, 20)).astype(np.int64)
    np.testing.assert_array_equal(product(a, b), a @ b)
    np.testing.assert_array_equal(product(a[None].repeat(3, 0), b), a[None].repeat(3, 0) @ b)


def test_products_fused_with_elementwise_code() -> None:
    @dlbridge.jit
    def layer(x: Any, w: Any, bias: Any) -> Any:
        return np.maximum(x @ w + bias, 0)

    x = RNG.standard_normal((8, 50, 64)).astype(np.float32)
    w = RNG.standard_normal((64, 32)).astype(np.float32)
    bias = RNG.standard_normal(32).astype(np.float32)
    np.testing.assert_allclose(layer(x, w, bias), np.maximum(x @ w + bias, 0), rtol=1e-4, atol=1e-4)


def test_in_place_product_into_an_argument() -> None:
    @dlbridge.jit
    def update(c: Any, a: Any, b: Any) -> Any:
        np.matmul(a, b, out=c[1:])
        return c

    a = RNG.standard_normal((9, 7))
    b = RNG.standard_normal((7, 5))
    c = np.zeros((10, 5))
    want = c.copy()
    want[1:] = a @ b
    np.testing.assert_allclose(update(c, a, b), want, rtol=1e-12)


def test_the_blas_is_numpys() -> None:
    used = _dlbridge.blas_library()
    assert used, "no BLAS found: products would run in loops"
    config = np.show_config(mode="dicts")
    name = config["Build Dependencies"]["blas"]["name"].replace("-", "_")
    assert name.split("_")[-1] in used or name in used, (name, used)


def test_set_blas_names_the_path_it_refuses() -> None:
    before = _dlbridge.blas_library()
    with pytest.raises(ValueError, match="set_blas: path: '/no/such/libblas.so'"):
        _dlbridge.set_blas("/no/such/libblas.so")
    with pytest.raises(TypeError):
        _dlbridge.set_blas(None)  # type: ignore[arg-type]
    assert _dlbridge.blas_library() == before


def test_loaded_blas_libraries_reads_the_mapped_files(tmp_path: Any) -> None:
    from dlbridge import _blas

    maps = tmp_path / "maps"
    maps.write_text(
        "7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/libc.so.6\n"
        "7f01-7f02 r-xp 00000000 08:01 2 /site/numpy.libs/libscipy_openblas64_-32a4b2a6.so\n"
        "7f02-7f03 r--p 00000000 08:01 2 /site/numpy.libs/libscipy_openblas64_-32a4b2a6.so\n"
        "7f03-7f04 r-xp 00000000 08:01 3 /usr/lib/x86_64-linux-gnu/libblas.so.3\n"
        "7f04-7f05 rw-p 00000000 00:00 0\n"
        "7f05-7f06 r-xp 00000000 08:01 4 /usr/lib/libblas_helper_not_a_blas.txt\n"
    )
    assert _blas.loaded_blas_libraries(str(maps)) == [
        "/site/numpy.libs/libscipy_openblas64_-32a4b2a6.so",
        "/usr/lib/x86_64-linux-gnu/libblas.so.3",
    ]
    assert _blas.loaded_blas_libraries(str(tmp_path / "missing")) == []


def test_epilogue_writes_into_the_product() -> None:
    @dlbridge.jit
    def layer(x: Any, w: Any, bias: Any) -> Any:
        return np.maximum(x @ w + bias, 0)

    x = RNG.standard_normal((40, 16)).astype(np.float32)
    w = RNG.standard_normal((16, 8)).astype(np.float32)
    bias = RNG.standard_normal(8).astype(np.float32)
    buffers = layer.inspect(x, w, bias)["tensors-to-buffers"]
    body = buffers.split("func.func @layer(")[1].split("func.func")[0]
    assert body.count("memref.alloc(") == 1, "the epilogue allocated a second full-size buffer"
    assert "memref.copy" not in body
    np.testing.assert_allclose(layer(x, w, bias), np.maximum(x @ w + bias, 0), rtol=1e-5, atol=1e-5)
