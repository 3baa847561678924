"""Control flow on values known only at run time (``if``/``elif``/``else``, ``a if c else b``,
``while``, ``and``/``or``/``not``) under ``@dlbridge.jit`` on PyTorch CUDA tensors: the constructs
of ``test_jit_control_flow.py``, whose conditions are device values the host reads back, give
NumPy's numbers on every input (every branch, 0 and many iterations), arrays written in place
included, with one specialisation per dtype; results stay on the device. Skipped without PyTorch
or a CUDA device."""

from __future__ import annotations

import copy
from typing import Any

import dlbridge
import numpy as np
import pytest
from test_jit_control_flow import CONSTRUCTS, checked_sqrt, positive_only


def _to_device(value: Any, torch: Any) -> Any:
    return torch.from_numpy(np.ascontiguousarray(value)).cuda() if isinstance(value, np.ndarray) else value


def _host(value: Any, torch: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_host(v, torch) for v in value)
    if isinstance(value, torch.Tensor):
        assert value.device.type == "cuda", value.device
        return value.cpu().numpy()
    return np.asarray(value)


def _compare(got: Any, want: Any, dtype: str) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w, dtype)
        return
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_on_cuda_matches_numpy(torch: Any, name: str) -> None:
    fn, dtypes, make, _ = CONSTRUCTS[name]
    jitted = dlbridge.jit(fn)
    for dtype in dtypes:
        for args in make(dtype):
            want_args = copy.deepcopy(args)
            device_args = tuple(_to_device(a, torch) for a in args)
            want = fn(*want_args)
            got = _host(jitted(*device_args), torch)
            _compare(got, want, dtype)
            for g, w in zip(device_args, want_args):
                if isinstance(w, np.ndarray):
                    np.testing.assert_array_equal(_host(g, torch), w)
    assert jitted.num_specialisations == len(dtypes)


def test_a_name_bound_in_one_branch_only_on_cuda(torch: Any) -> None:
    jitted = dlbridge.jit(positive_only)
    got = jitted(torch.tensor([1.0, 2.0], device="cuda"))
    np.testing.assert_array_equal(_host(got, torch), [2.0, 4.0])
    with pytest.raises(ValueError, match="'y' has no value"):
        jitted(torch.tensor([-1.0, -2.0], device="cuda"))


def test_a_branch_that_raises_checks_a_device_value(torch: Any) -> None:
    jitted = dlbridge.jit(checked_sqrt)
    np.testing.assert_allclose(_host(jitted(torch.tensor([1.0, 4.0], device="cuda")), torch), [1.0, 2.0])
    with pytest.raises(ValueError, match="negative input"):
        jitted(torch.tensor([-1.0, 4.0], device="cuda"))
