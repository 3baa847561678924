"""Fixtures of the GPU tests: each framework's CUDA arrays, or a skip that says
why not. `make gpu-check` runs these on a GPU machine; elsewhere they skip."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
# JAX takes 75% of the GPU's memory at its first use unless told otherwise; the
# tests share the GPU with PyTorch, CuPy and each other (pytest-xdist).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


@pytest.fixture(scope="session")
def torch() -> Any:
    """PyTorch with a CUDA device."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


@pytest.fixture(scope="session")
def cupy() -> Any:
    """CuPy with a CUDA device."""
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # CuPy raises its own CUDARuntimeError without a driver.
        pytest.skip(f"CuPy sees no CUDA device ({error})")
    if count == 0:
        pytest.skip("CuPy sees no CUDA device")
    return cupy


@pytest.fixture(scope="session")
def jax() -> Any:
    """JAX with a GPU backend."""
    jax = pytest.importorskip("jax")
    try:
        jax.devices("gpu")
    except RuntimeError as error:
        pytest.skip(f"JAX has no GPU backend ({error})")
    return jax


@pytest.fixture
def busy(torch: Any) -> Any:
    """A function that keeps the current PyTorch stream busy for about 50 ms, so
    that work not ordered after it would run first."""
    return lambda: torch.cuda._sleep(100_000_000)
