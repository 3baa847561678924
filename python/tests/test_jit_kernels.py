"""Whole NumPy kernels (examples/numpy_kernels.py) run unchanged under ``dlbridge.jit``.

Each kernel's source is the NumPy user's: ``dlbridge.jit(kernel)``, nothing
rewritten. Every result is compared with NumPy's on the same inputs, in C order
and as strided, reversed (negative strides) and Fortran-order views; arguments
the kernel writes in place must hold NumPy's in-place result afterwards, and
the arguments NumPy leaves alone must stay untouched.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import numpy_kernels  # noqa: E402
from numpy_kernels import KERNELS, KernelSpec  # noqa: E402

# Escape counts of an iterated map may flip at a boundary point when the compiler
# contracts a*b+c into one fused multiply-add; no other integer result may differ.
CHAOTIC = {"mandelbrot", "mandelbrot_masked"}


def _all_axes_reversed(a: np.ndarray) -> tuple[slice, ...]:
    return (slice(None, None, -1),) * a.ndim


def _strided(a: np.ndarray) -> np.ndarray:
    """The values of ``a`` in a view with every stride doubled."""
    big = np.zeros(tuple(2 * s for s in a.shape), a.dtype)
    view = big[(slice(None, None, 2),) * a.ndim]
    view[...] = a
    return view


def _reversed(a: np.ndarray) -> np.ndarray:
    """The values of ``a`` in a view with every stride negative."""
    flipped = np.ascontiguousarray(a[_all_axes_reversed(a)])
    return flipped[_all_axes_reversed(flipped)]


LAYOUTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "C": np.ascontiguousarray,
    "strided": _strided,
    "reversed": _reversed,
    "fortran": np.asfortranarray,
}


def _has_matrix(spec: KernelSpec) -> bool:
    return any(isinstance(a, np.ndarray) and a.ndim >= 2 for a in spec.make(spec.small))


CASES = [
    pytest.param(spec, layout, id=f"{spec.name}-{layout}")
    for spec in KERNELS
    for layout in LAYOUTS
    if layout != "fortran" or _has_matrix(spec)
]


def _in_layout(args: tuple[Any, ...], layout: str) -> tuple[Any, ...]:
    return tuple(LAYOUTS[layout](a) if isinstance(a, np.ndarray) and a.ndim else a for a in args)


def _assert_matches(got: Any, want: Any, rtol: float, name: str, what: str) -> None:
    """``got`` has NumPy's structure, shapes and dtypes, and its values within ``rtol``."""
    if want is None or isinstance(want, tuple):
        assert type(got) is type(want), f"{what}: {type(got).__name__}, NumPy gives {type(want).__name__}"
        for index, (g, w) in enumerate(zip(got or (), want or ())):
            _assert_matches(g, w, rtol, name, f"{what}[{index}]")
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, NumPy gives {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, NumPy gives {want.dtype}"
    if want.dtype.kind in "fc":
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)
    elif name in CHAOTIC:
        differing = int(np.count_nonzero(got != want))
        assert differing <= 1 + want.size // 100, f"{what}: {differing} of {want.size} entries differ"
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _run_both(spec: KernelSpec, args: tuple[Any, ...], jitted: Callable[..., Any]) -> None:
    """Runs NumPy and ``jitted`` on equal copies of ``args``; results and arguments must agree."""
    numpy_args = copy.deepcopy(args)
    dl_args = copy.deepcopy(args)
    want = spec.fn(*numpy_args)
    got = jitted(*dl_args)
    _assert_matches(got, want, spec.rtol, spec.name, "result")
    for index, (original, after_numpy, after_dl) in enumerate(zip(args, numpy_args, dl_args)):
        if not isinstance(original, np.ndarray):
            continue
        what = f"argument {index}"
        if index in spec.writes:
            _assert_matches(after_dl, after_numpy, spec.rtol, spec.name, what + " written in place")
        else:
            np.testing.assert_array_equal(after_dl, original, err_msg=what + " must stay untouched")


@pytest.mark.parametrize("spec", [pytest.param(s, id=s.name) for s in KERNELS])
def test_kernel_writes_exactly_the_declared_arguments(spec: KernelSpec) -> None:
    """The table's ``writes`` is what NumPy itself writes (the other tests rely on it)."""
    args = spec.make(spec.small)
    after = copy.deepcopy(args)
    spec.fn(*after)
    changed = {i for i, (a, b) in enumerate(zip(args, after))
               if isinstance(a, np.ndarray) and not np.array_equal(a, b)}
    assert changed == set(spec.writes)


@pytest.mark.parametrize(("spec", "layout"), CASES)
def test_kernel_unchanged_matches_numpy(spec: KernelSpec, layout: str) -> None:
    """The kernel, jitted as written, gives NumPy's results and in-place updates."""
    _run_both(spec, _in_layout(spec.make(spec.small), layout), dlbridge.jit(spec.fn))


@pytest.mark.parametrize("spec", [pytest.param(s, id=s.name) for s in KERNELS])
def test_kernel_reused_at_a_second_size(spec: KernelSpec) -> None:
    """One jitted kernel serves two sizes, each matching NumPy."""
    jitted = dlbridge.jit(spec.fn)
    for n in (spec.small, spec.small + 4):
        _run_both(spec, spec.make(n), jitted)


def test_every_kernel_of_the_module_is_in_the_table() -> None:
    """No kernel defined in examples/numpy_kernels.py escapes these tests."""
    defined = {name for name, value in vars(numpy_kernels).items()
               if callable(value) and getattr(value, "__module__", "") == numpy_kernels.__name__
               and not name.startswith("_") and name[0].islower()}
    assert defined == {spec.name for spec in KERNELS}
