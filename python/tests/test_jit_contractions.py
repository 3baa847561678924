"""``einsum``, ``dot`` (N-D), ``outer``, ``inner`` and ``tensordot`` under ``@dlbridge.jit``."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

RNG = np.random.default_rng(7)
A = RNG.random((2, 3, 4))
B = RNG.random((5, 4, 6))
V = RNG.random(4)
M = RNG.random((4, 4))
INTS = np.arange(12, dtype=np.int32).reshape(3, 4)

CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("dot-nd", lambda a, b: np.dot(a, b), (A, B)),
    ("dot-nd-vector", lambda a, b: np.dot(a, b), (A, V)),
    ("dot-method", lambda a, b: a.dot(b), (M, V)),
    ("dot-scalar", lambda a: np.dot(a, 2.0), (V,)),
    ("dot-strided", lambda a, b: np.dot(a, b), (A[:, ::-1], B[::2, :, ::3])),
    ("outer", lambda a, b: np.outer(a, b), (V, A[0])),
    ("matmul-einsum", lambda a: np.einsum("ij,jk->ik", a, a.T), (M,)),
    ("diagonal", lambda a: np.einsum("ii->i", a), (M,)),
    ("trace", lambda a: np.einsum("ii", a), (M,)),
    ("batched", lambda a, b: np.einsum("bij,kjl->bikl", a, b), (A, B)),
    ("implicit", lambda a, b: np.einsum("ijk,k", a, b), (A, V)),
    ("total-int", lambda a: np.einsum("ij->", a), (INTS,)),
    ("three-operands", lambda a, b, c: np.einsum("i,ij,j->", a, b, c), (V, M, V)),
    ("tensordot", lambda a, b: np.tensordot(a, b, axes=([2], [1])), (A, B)),
    ("tensordot-int", lambda a, b: np.tensordot(a, b, axes=1), (M, M)),
    ("inner", lambda a, b: np.inner(a, b), (A, M)),
    ("ellipsis-batched-matmul", lambda a, b: np.einsum("...ij,...jk", a, b), (A, B[:2, :, :5])),
    ("ellipsis-broadcast-dot", lambda a, b: np.einsum("...i,...i", a, b), (A[:, :1], B[0, :, :3].T)),
    ("ellipsis-trailing", lambda a, b: np.einsum("ij...,jk...->ik...", a, b), (A, RNG.random((3, 5, 4)))),
    ("ellipsis-diagonal", lambda a: np.einsum("...ii->...i", a), (RNG.random((2, 4, 4)),)),
    ("ellipsis-sum", lambda a: np.einsum("i...->...", a), (A,)),
    ("broadcast-label", lambda a, b: np.einsum("ij,j", a, b), (A[0, :, :1], V)),
]


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_against_numpy(name: str) -> None:
    _, fn, args = next(c for c in CASES if c[0] == name)
    want = np.asarray(fn(*args))
    got = np.asarray(dlbridge.jit(fn)(*args))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_einsum_mismatched_sizes() -> None:
    f = dlbridge.jit(lambda a, b: np.einsum("ij,jk->ik", a, b))
    with pytest.raises(ValueError, match="einsum"):
        f(np.zeros((2, 3)), np.zeros((4, 2)))


def test_einsum_bad_subscripts_are_errors() -> None:
    with pytest.raises(ValueError, match="subscript"):
        dlbridge.jit(lambda a: np.einsum("ij->k", a))(M)
    with pytest.raises(ValueError, match="no '...' ellipsis provided"):
        dlbridge.jit(lambda a: np.einsum("...i->i", a))(M)
    with pytest.raises(ValueError, match="'.' that is not part of an ellipsis"):
        dlbridge.jit(lambda a: np.einsum(".i", a))(M)
    with pytest.raises(ValueError, match="more subscripts than operand dimensions"):
        dlbridge.jit(lambda a: np.einsum("...ijk", a))(M)
