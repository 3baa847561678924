"""Functions whose sizes, checks or branches come from the data compile for CUDA (no GPU needed):
host code needs a scalar kernels computed (a count that sizes ``x[mask]``, ``np.nonzero`` or
``np.unique``, the maximum that sizes ``np.bincount``, the emptiness of a selection ``max``
checks, weights of ``np.average`` that sum to zero, an all-NaN slice of ``nanargmax``, bins
that are not monotonic, a singular matrix, an index out of bounds), and the compiled host code
copies it back from the device and waits for it rather than being refused. python/tests/gpu/test_gpu_host_reads.py runs them."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

X = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
SPD = np.eye(4) * 3.0 + 0.5

#: name -> (function, example arguments): each needs a value of the data on the host
FUNCTIONS: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "mask": (lambda x: x[x > 0], (X,)),
    "mask_mean_of_array": (lambda x: x[x > 0] * 2.0, (X,)),
    "nonzero": (lambda x: np.nonzero(x), (X,)),
    "flatnonzero": (lambda x: np.flatnonzero(x), (X,)),
    "argwhere": (lambda x: np.argwhere(x > 0), (X,)),
    "extract": (lambda x: np.extract(x > 0, x), (X,)),
    "bincount": (lambda i: np.bincount(i), (np.arange(6),)),
    "bincount_weights": (lambda i, w: np.bincount(i, weights=w), (np.arange(6), np.ones(6))),
    "histogram": (lambda x: np.histogram(x, 5), (X.ravel(),)),
    "average_weights": (lambda x, w: np.average(x, axis=1, weights=w), (X, np.ones(4))),
    "nanargmax": (lambda x: np.nanargmax(x, axis=1), (X,)),
    "digitize_traced_bins": (lambda x, b: np.digitize(x, b), (X.ravel(), np.array([-0.5, 0.0, 0.5]))),
    "unravel_index": (lambda i: np.unravel_index(i, (3, 4)), (np.arange(6),)),
    "unique": (lambda x: np.unique(x, return_index=True, return_inverse=True, return_counts=True), (X,)),
    "masked_max": (lambda x: (x[x > 0].max(), np.min(x[x > 0])), (X,)),
    "solve": (lambda a, b: np.linalg.solve(a, b), (SPD, np.ones(4))),
    "inv": (lambda a: np.linalg.inv(a), (SPD,)),
    "det": (lambda a: np.linalg.det(a), (SPD,)),
    "cholesky": (lambda a: np.linalg.cholesky(a), (SPD,)),
    "gather": (lambda x, i: x[i], (X.ravel(), np.array([3, 0, 11]))),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda d: np.dtype(d).name)
def test_compiles_for_cuda_reading_scalars_back(name: str, dtype: Any) -> None:
    fn, args = FUNCTIONS[name]
    args = tuple(a.astype(dtype) if a.dtype.kind == "f" else a for a in args)
    stages = dlbridge.jit(fn, target="cuda").inspect(*args)
    host = stages["host-to-llvm"]
    # A copy from the device, then a wait for the call's stream, before host code goes on.
    assert "llvm.call @mgpuMemcpy" in host
    assert "llvm.call @dlrt_call_synchronize" in host


def test_a_compiled_source_has_the_same_signature_as_on_the_cpu() -> None:
    source = dlbridge.jit(lambda x: x[x > 0], target="cuda").inspect(X)["input"]
    cuda = dlbridge.compile(source, target="cuda", cache=False)
    cpu = dlbridge.compile(source, target="cpu", cache=False)
    assert cuda.signature["results"] == cpu.signature["results"]
    assert [a["access"] for a in cuda.signature["args"]] == ["read"]



def test_flattening_a_strided_array_reads_nothing_back() -> None:
    """``reshape(-1)`` of a strided view is a copy and a ``collapse_shape``: no shape operand the
    host would have to read back from the device."""
    host = dlbridge.jit(lambda x: (x[:, ::2].reshape(-1), np.reshape(x.sum(), (1,))), target="cuda").inspect(X)
    assert "llvm.call @dlrt_call_synchronize" not in host["host-to-llvm"]
