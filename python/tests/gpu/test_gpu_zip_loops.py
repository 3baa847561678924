"""Loops over arrays' rows under ``@dlbridge.jit`` on PyTorch CUDA tensors: the ``zip`` and
``enumerate`` kernels of ``test_jit_loops.py`` (one ``scf.for`` over the shortest array's first
dim, its body's kernels launched per row) give NumPy's numbers on the same values, for equal and
unequal lengths, empty and strided inputs (PyTorch has no negative strides: reversed inputs are
CPU-only), with one specialisation for every length; results stay on the device and ``strict=True``
raises Python's ValueError. Compiling needs no GPU, so that check runs everywhere; running needs
PyTorch with a CUDA device, and skips without one."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest
from test_jit_loops import enumerated_zip, zipped_dot, zipped_into, zipped_strict, zipped_three

KERNELS = [
    (zipped_dot, (np.ones((5, 4)), np.ones((7, 4)))),
    (zipped_three, (np.ones((5, 3)), np.ones((4, 3)), np.ones((6, 3)))),
    (enumerated_zip, (np.ones((5, 2)), np.ones((6, 2)))),
    (zipped_into, (np.ones((5, 5)), np.ones((4, 2)))),
    (zipped_strict, (np.ones(20), np.ones(20), np.ones(20))),
]


@pytest.mark.parametrize(("fn", "args"), KERNELS, ids=[fn.__name__ for fn, _ in KERNELS])
def test_row_loops_compile_for_cuda(fn: Any, args: tuple[np.ndarray, ...]) -> None:
    text = dlbridge.jit(fn).lower(*args)
    assert text.count("scf.for") == 1
    assert dlbridge.compile(text, target="cuda", format="ptx", cache=False).signature is not None


def _host(value: Any, torch: Any) -> np.ndarray:
    assert isinstance(value, torch.Tensor) and value.device.type == "cuda", type(value)
    return value.cpu().numpy()


@pytest.mark.parametrize("rows", [(0, 0), (3, 3), (30, 7), (7, 30), (200, 200)])
def test_zip_of_two_cuda_tensors(torch: Any, rows: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(rows))
    x, y = rng.normal(size=(rows[0], 4)), rng.normal(size=(rows[1], 4))
    got = dlbridge.jit(zipped_dot)(torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda())
    np.testing.assert_allclose(_host(got, torch), zipped_dot(x, y), rtol=1e-10, atol=1e-12)


def test_zip_of_three_strided_cuda_tensors_one_specialisation(torch: Any) -> None:
    rng = np.random.default_rng(1)
    base = [rng.normal(size=(80, 6)) for _ in range(3)]
    jitted = dlbridge.jit(zipped_three)
    for n, m, k in [(40, 40, 40), (12, 40, 31), (40, 9, 20), (2, 33, 3)]:
        host = (base[0][: 2 * n : 2, ::2], base[1][:m, ::2], base[2][: 2 * k : 2, ::2])
        device = (torch.from_numpy(base[0]).cuda()[: 2 * n : 2, ::2], torch.from_numpy(base[1]).cuda()[:m, ::2],
                  torch.from_numpy(base[2]).cuda()[: 2 * k : 2, ::2])
        got = jitted(*device)
        for g, w in zip(got, zipped_three(*host)):
            np.testing.assert_allclose(_host(g, torch), w, rtol=1e-10, atol=1e-12)
    assert jitted.num_specialisations == 1


@pytest.mark.parametrize("rows", [0, 1, 25])
def test_enumerate_of_zip_on_cuda(torch: Any, rows: int) -> None:
    rng = np.random.default_rng(rows)
    x, y = rng.normal(size=(rows, 2)), rng.normal(size=(rows + 3, 2))
    got, last = dlbridge.jit(enumerated_zip)(torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda())
    want, want_last = enumerated_zip(x, y)
    np.testing.assert_allclose(_host(got, torch), want, rtol=1e-10, atol=1e-12)
    assert int(_host(last, torch)) == want_last


@pytest.mark.parametrize("rows", [(0, 3), (9, 40), (40, 9)])
def test_enumerate_of_zip_writes_rows_of_a_cuda_output(torch: Any, rows: tuple[int, int]) -> None:
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=(rows[0], 5)), rng.normal(size=(rows[1], 2))
    got = dlbridge.jit(zipped_into)(torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda())
    np.testing.assert_allclose(_host(got, torch), zipped_into(x, y), rtol=1e-10, atol=1e-12)


def test_zip_strict_on_cuda_raises_pythons_value_error(torch: Any) -> None:
    x = np.random.default_rng(5).normal(size=20)
    device = torch.from_numpy(x).cuda()
    jitted = dlbridge.jit(zipped_strict)
    np.testing.assert_allclose(_host(jitted(device, device, device), torch), zipped_strict(x, x, x), rtol=1e-10)
    with pytest.raises(ValueError, match="zip\\(\\) argument 3 is shorter than arguments 1-2"):
        jitted(device, device, device[:12])
    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is longer than argument 1"):
        jitted(device[:12], device, device)
