"""PyTorch tensors carry state DLPack does not describe, and PyTorch's DLPack
exchange API exports them as if it were absent: lazy conjugate and negative
views (stored unconjugated/unnegated) and autograd's rules on in-place writes.
dlbridge gives PyTorch's numbers for read parameters, refuses lazy views for
written ones, and writes in place only what PyTorch's own in-place operations
would write, recording the write in the tensor's version counter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dlbridge
import numpy as np
import pytest

torch = pytest.importorskip("torch")


@dlbridge.jit
def twice(x):
    return x * 2


@dlbridge.jit
def bump(x):
    x += 1


def _complex() -> Any:
    return torch.tensor([[1 + 2j, 3 - 4j, -5 + 6j], [7 - 8j, 0 + 1j, -2 - 3j]], dtype=torch.complex128)


def _real() -> Any:
    return torch.tensor([[1.5, -2.0, 3.0], [0.0, 4.25, -6.0]], dtype=torch.float32)


# Lazy views of real and complex tensors, each with the tensor PyTorch says it
# equals. `.conj()` of a real tensor is the tensor itself (no bit).
LAZY_VIEWS: dict[str, Callable[[], Any]] = {
    "conj": lambda: _complex().conj(),
    "conj_complex64": lambda: _complex().to(torch.complex64).conj(),
    "conj_transposed": lambda: _complex().conj().T,
    "conj_strided": lambda: _complex().conj()[:, ::2],
    "neg_real": lambda: torch._neg_view(_real()),
    "neg_complex": lambda: torch._neg_view(_complex()),
    "neg_of_conj": lambda: torch._neg_view(_complex().conj()),
    "imag_of_conj": lambda: _complex().conj().imag,  # a real view with the negative bit
    "real_of_conj": lambda: _complex().conj().real,
    "conj_of_real": lambda: _real().conj(),
    "neg_int": lambda: torch._neg_view(torch.arange(6, dtype=torch.int32).reshape(2, 3)),
    "neg_detached": lambda: torch._neg_view(_real()).detach(),  # not a view, still negative
}


@pytest.mark.parametrize("make", LAZY_VIEWS.values(), ids=LAZY_VIEWS.keys())
def test_lazy_views_are_read_with_torchs_numbers(make: Callable[[], Any]) -> None:
    x = make()
    out = twice(x)
    assert isinstance(out, torch.Tensor)
    assert torch.equal(out, x.resolve_conj().resolve_neg() * 2)


@pytest.mark.parametrize("make", LAZY_VIEWS.values(), ids=LAZY_VIEWS.keys())
def test_from_dlpack_materialises_lazy_views(make: Callable[[], Any]) -> None:
    x = make()
    expected = x.resolve_conj().resolve_neg().numpy()
    np.testing.assert_array_equal(np.from_dlpack(dlbridge.from_dlpack(x)), expected)
    np.testing.assert_array_equal(np.from_dlpack(dlbridge.from_dlpack(x, copy=True)), expected)


@pytest.mark.parametrize(("make", "bit"), [
    (lambda: _complex().conj(), "conjugate"),
    (lambda: torch._neg_view(_real()), "negative"),
    (lambda: _complex().conj().imag, "negative"),
], ids=["conj", "neg", "imag_of_conj"])
def test_from_dlpack_without_a_copy_refuses_lazy_views(make: Callable[[], Any], bit: str) -> None:
    with pytest.raises(BufferError, match=f"from_dlpack\\(\\): .*PyTorch's {bit} bit set"):
        dlbridge.from_dlpack(make(), copy=False)


def test_materialised_views_are_the_callers_copies() -> None:
    c = _complex()
    t = dlbridge.from_dlpack(c.conj())
    assert not t.readonly
    assert t.data_ptr != c.data_ptr()
    np.from_dlpack(t)[...] = 0
    assert torch.equal(c, _complex())


@pytest.mark.parametrize(("make", "bit", "resolve"), [
    (lambda: _complex().conj(), "conjugate", "resolve_conj"),
    (lambda: torch._neg_view(_real()), "negative", "resolve_neg"),
    (lambda: torch._neg_view(_complex().conj()), "conjugate", "resolve_conj"),
    (lambda: _complex().conj().imag, "negative", "resolve_neg"),
], ids=["conj", "neg", "neg_of_conj", "imag_of_conj"])
def test_written_lazy_views_are_refused(make: Callable[[], Any], bit: str, resolve: str) -> None:
    x = make()
    before = x.clone()
    with pytest.raises(BufferError, match=f"bump\\(\\): argument 0 'x': .*PyTorch's {bit} bit set.*{resolve}"):
        bump(x)
    assert torch.equal(x, before)


def test_a_written_argument_reads_a_lazy_view_of_itself() -> None:
    @dlbridge.jit
    def add_into(out, x):
        out += x

    c = _complex()
    add_into(c, c.conj())
    assert torch.equal(c, _complex() + _complex().conj())


# -- autograd ---------------------------------------------------------------------------------


LEAF = "a leaf Variable that requires grad is being used in an in-place operation"
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation"


@pytest.mark.parametrize(("make", "message"), [
    (lambda: torch.ones(3, requires_grad=True), LEAF),
    (lambda: torch.nn.Parameter(torch.ones(3)), LEAF),
    (lambda: torch.ones(5, requires_grad=True)[1:4], VIEW_OF_LEAF),
    (lambda: torch.ones(3, 2, requires_grad=True).T[0], VIEW_OF_LEAF),
    (lambda: torch.ones(3, requires_grad=True) * 1, "a Variable that requires grad is being written in place"),
], ids=["leaf", "parameter", "view_of_leaf", "transposed_view_of_leaf", "non_leaf"])
def test_what_autograd_forbids_is_never_written_in_place(make: Callable[[], Any], message: str) -> None:
    x = make()
    with pytest.raises(RuntimeError, match=f"bump\\(\\): argument 0 'x': {message}"):
        bump(x)
    assert torch.equal(x.detach(), torch.ones_like(x))
    assert x._version == 0


def test_reading_a_tensor_that_requires_grad_is_allowed() -> None:
    x = torch.arange(3.0, requires_grad=True)
    assert torch.equal(twice(x), torch.tensor([0.0, 2.0, 4.0]))


def test_no_grad_writes_leaves_as_pytorch_does() -> None:
    # How optimisers update parameters: in place under torch.no_grad().
    weight = torch.nn.Parameter(torch.ones(3))
    with torch.no_grad():
        bump(weight)
    assert torch.equal(weight.detach(), torch.full((3,), 2.0))
    assert weight.requires_grad and weight._version == 1
    detached = torch.ones(3, requires_grad=True).detach()
    bump(detached)
    assert torch.equal(detached, torch.full((3,), 2.0))


def test_writes_bump_the_version_so_backward_refuses_overwritten_values() -> None:
    # exp saves its result for backward: overwriting it must not silently
    # give a wrong gradient (PyTorch's own in-place ops make backward refuse).
    x = torch.zeros(3, requires_grad=True)
    y = x.exp()
    with torch.no_grad():
        bump(y)
    assert torch.equal(y.detach(), torch.full((3,), 2.0))
    assert y._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_each_written_tensor_of_a_call_is_recorded() -> None:
    @dlbridge.jit
    def swap_add(a, b, c):
        a += c
        b += c

    a, b, c = torch.zeros(2), torch.zeros(2), torch.ones(2)
    swap_add(a, b, c)
    assert (a._version, b._version, c._version) == (1, 1, 0)


def test_inference_tensors_are_written_only_in_inference_mode() -> None:
    with torch.inference_mode():
        x = torch.ones(3)
    with pytest.raises(RuntimeError, match="bump\\(\\): argument 0 'x': Inplace update to inference tensor"):
        bump(x)
    assert torch.equal(x, torch.ones(3))
    with torch.inference_mode():
        bump(x)
    assert torch.equal(x, torch.full((3,), 2.0))


def test_from_dlpack_keeps_writes_away_from_tensors_that_require_grad() -> None:
    leaf = torch.ones(3, requires_grad=True)
    t = dlbridge.from_dlpack(leaf)
    assert t.readonly
    with pytest.raises(BufferError, match="argument 0 'x': expected a writable tensor"):
        bump(t)
    assert torch.equal(leaf.detach(), torch.ones(3))
    assert not dlbridge.from_dlpack(leaf.detach()).readonly


# -- the __dlpack__ path (PyTorch without the exchange API) ------------------------------------


class _NoExchangeAPI(torch.Tensor):
    """A tensor type PyTorch's DLPack exchange API does not cover: dlbridge asks
    its ``__dlpack__``, as for PyTorch releases before the exchange API."""

    __dlpack_c_exchange_api__ = None


@pytest.mark.parametrize("make", LAZY_VIEWS.values(), ids=LAZY_VIEWS.keys())
def test_lazy_views_through_dlpack_give_torchs_numbers(make: Callable[[], Any]) -> None:
    x = make().as_subclass(_NoExchangeAPI)
    expected = x.resolve_conj().resolve_neg().numpy()
    np.testing.assert_array_equal(np.from_dlpack(dlbridge.from_dlpack(x)), expected)


def test_written_lazy_views_through_dlpack_are_refused() -> None:
    x = torch._neg_view(_real()).as_subclass(_NoExchangeAPI)
    with pytest.raises(BufferError, match="argument 0 'x': .*negative bit set"):
        bump(x)
    leaf = torch.ones(3).as_subclass(_NoExchangeAPI).requires_grad_()
    assert leaf.is_leaf
    with pytest.raises(RuntimeError, match=f"argument 0 'x': {LEAF}"):
        bump(leaf)
    assert torch.equal(twice(leaf), torch.full((3,), 2.0))
    with torch.no_grad():
        bump(leaf)
    assert torch.equal(leaf.detach(), torch.full((3,), 2.0))
    assert leaf._version == 1
