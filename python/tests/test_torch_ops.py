"""dlbridge functions as PyTorch operators (dlbridge.torch): schemas, eager calls, fake
implementations, torch.compile with no graph break (explicit and automatic operators),
dynamic shapes, torch.export, gradients, the distributed example and the errors.

Compiled functions are shared between tests (torch.compile is slow); the backends record
the graphs they are given, so the tests read what Dynamo and AOTAutograd captured."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import dlbridge
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import dlbridge.torch as dltorch  # noqa: E402
from functorch.compile import make_boxed_func  # noqa: E402
from torch._dynamo.backends.common import aot_autograd  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
Tensor = torch.Tensor


class Recorder:
    """A torch.compile backend that records Dynamo's graphs and AOTAutograd's forward
    graphs and runs the latter as they are."""

    def __init__(self) -> None:
        self.dynamo: list[Any] = []
        self.aot: list[Any] = []
        self._aot = aot_autograd(fw_compiler=self._forward, bw_compiler=lambda gm, _: make_boxed_func(gm.forward))

    def _forward(self, gm: Any, _inputs: Any) -> Callable[..., Any]:
        self.aot.append(gm)
        return make_boxed_func(gm.forward)

    def __call__(self, gm: Any, inputs: Any) -> Any:
        self.dynamo.append(gm)
        return self._aot(gm, inputs)

    def targets(self) -> list[str]:
        """The operators the latest AOT graph calls, as strings (a written argument's operator
        is called through auto_functionalized)."""
        calls = [n for n in self.aot[-1].graph.nodes if n.op == "call_function"]
        return [str(n.args[0] if "auto_functionalized" in str(n.target) else n.target) for n in calls]


# --------------------------------------------------------------------------------------------------
# Functions and their operators


@dltorch.custom_op("dlbridge_test::scaled_add")
@dlbridge.jit
def scaled_add(x, y, alpha: float) -> Tensor:
    return alpha * x + y


@dltorch.custom_op("dlbridge_test::stats")
@dlbridge.jit
def stats(x, shift: int = 1, center: bool = True) -> tuple[Tensor, Tensor]:
    m = x.mean(axis=0)
    y = np.where(center, x[shift:] - m, x[shift:])
    return y, m


@dltorch.custom_op("dlbridge_test::accumulate", mutates_args=("total",))
@dlbridge.jit
def accumulate(total, x) -> None:
    total += x


@dltorch.custom_op("dlbridge_test::pair_sum")
@dlbridge.jit
def pair_sum(x) -> tuple[Tensor]:
    return (x[::2] + x[1::2],)


@dlbridge.jit(static_argnames=("axis",))
def total(x, axis):
    return x.sum(axis=axis)


total_rows = dltorch.custom_op("dlbridge_test::total_rows", total, schema="(Tensor x) -> Tensor",
                               static_args={"axis": 1})

AXPY = dlbridge.compile(open(os.path.join(ROOT, "examples", "axpy.mlir")).read())
axpy = dltorch.custom_op("dlbridge_test::axpy", AXPY)


@dlbridge.jit
def softplus_backward(x, grad):
    return grad / (1 + np.exp(-x))


@dltorch.custom_op("dlbridge_test::softplus", backward=softplus_backward)
@dlbridge.jit
def softplus(x) -> Tensor:
    return np.log1p(np.exp(x))


@dlbridge.jit
def blend_backward(x, y, a, grad_mix, grad_prod):
    return a * grad_mix + grad_prod * y, (1 - a) * grad_mix + grad_prod * x


@dltorch.custom_op("dlbridge_test::blend", backward=blend_backward)
@dlbridge.jit
def blend(x, y, a: float) -> tuple[Tensor, Tensor]:
    return a * x + (1 - a) * y, x * y


# plain jitted functions, never registered: inside torch.compile they become automatic operators
@dlbridge.jit
def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


@dlbridge.jit
def nested(x, y):
    return x + y, [x.sum(axis=0), None]


@dlbridge.jit
def bump(counts, x):
    counts += x * 2


def _rand(*shape: int, dtype: Any = None) -> Any:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape) + 7), dtype=dtype)


# --------------------------------------------------------------------------------------------------
# Registration and eager calls


def test_schemas_come_from_annotations_defaults_and_kernel_signatures() -> None:
    assert scaled_add.schema == "(Tensor x, Tensor y, float alpha) -> Tensor"
    assert stats.schema == "(Tensor x, SymInt shift=1, bool center=True) -> (Tensor, Tensor)"
    assert accumulate.schema == "(Tensor(a!) total, Tensor x) -> ()"
    assert axpy.schema == "(Tensor x, Tensor(a!) y, float alpha) -> ()"
    assert total_rows.schema == "(Tensor x) -> Tensor"
    assert str(torch.ops.dlbridge_test.stats.default._schema) == \
        "dlbridge_test::stats(Tensor x, SymInt shift=1, bool center=True) -> (Tensor, Tensor)"
    assert torch.ops.dlbridge_test.accumulate.default._schema.arguments[0].alias_info.is_write


def test_eager_calls_give_numpys_numbers_in_the_functions_structure() -> None:
    x, y = _rand(5, 3), _rand(5, 3)
    out = torch.ops.dlbridge_test.scaled_add(x, y, 2.5)
    assert isinstance(out, torch.Tensor)
    np.testing.assert_allclose(out.numpy(), 2.5 * x.numpy() + y.numpy(), rtol=1e-6)
    assert scaled_add(x, y, 2.5).equal(out)
    dev, mean = stats(x, 2, False)
    np.testing.assert_allclose(mean.numpy(), x.numpy().mean(axis=0), rtol=1e-6)
    assert dev.equal(x[2:])
    dev, _ = torch.ops.dlbridge_test.stats(x)  # the defaults
    np.testing.assert_allclose(dev.numpy(), x.numpy()[1:] - x.numpy().mean(axis=0), rtol=1e-5)
    (pairs,) = pair_sum(x[:4])  # a 1-tuple as the function returns it
    assert pairs.equal(x[0:4:2] + x[1:4:2])
    np.testing.assert_allclose(total_rows(x).numpy(), x.numpy().sum(axis=1), rtol=1e-5)


def test_written_arguments_are_updated_where_they_lie() -> None:
    base = torch.zeros(4, 6)
    view = base[:, ::2]  # strided: written in place, not through a copy
    version = view._version
    assert accumulate(view, torch.ones(4, 3)) is None
    assert view._version > version
    assert base[:, ::2].eq(1).all() and base[:, 1::2].eq(0).all()
    y = torch.ones(4)
    axpy(torch.arange(4.0), y, 10.0)
    assert y.tolist() == [1.0, 11.0, 21.0, 31.0]


def test_fake_implementation_gives_shapes_and_dtypes_without_running() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(6, 4, dtype=torch.float64)
        dev, mean = torch.ops.dlbridge_test.stats(x, 2)
        assert (dev.shape, mean.shape, dev.dtype) == ((4, 4), (4,), torch.float64)
        (pairs,) = pair_sum(torch.empty(8, 2))
        assert pairs.shape == (4, 2)
        assert total_rows(torch.empty(3, 5, dtype=torch.int32)).dtype == torch.int64
        out = scaled_add(torch.empty(1, 4, dtype=torch.float32), torch.empty(3, 1), 2.0)
        assert out.shape == (3, 4)


# --------------------------------------------------------------------------------------------------
# torch.compile, dynamic shapes, torch.export


def _model(x: Any, y: Any) -> Any:
    dev, mean = stats(scaled_add(x, y, 0.5), 1, True)
    return torch.sin(dev).sum() + mean.sum()


def _eager_model(x: Any, y: Any) -> Any:
    z = 0.5 * x + y
    return torch.sin(z[1:] - z.mean(0)).sum() + z.mean(0).sum()


def test_compile_captures_the_operators_with_no_graph_break() -> None:
    recorder = Recorder()
    compiled = torch.compile(_model, fullgraph=True, backend=recorder)
    x, y = _rand(6, 3), _rand(6, 3)
    torch.testing.assert_close(compiled(x, y), _eager_model(x, y))
    assert "dlbridge_test.scaled_add.default" in recorder.targets()
    assert "dlbridge_test.stats.default" in recorder.targets()
    explained = torch._dynamo.explain(_model)(x, y)
    assert explained.graph_break_count == 0 and explained.graph_count == 1


def test_dynamic_shapes_compile_once() -> None:
    recorder = Recorder()
    compiled = torch.compile(_model, fullgraph=True, backend=recorder, dynamic=True)
    for rows, cols in [(6, 3), (9, 5), (17, 2)]:
        x, y = _rand(rows, cols), _rand(rows, cols)
        torch.testing.assert_close(compiled(x, y), _eager_model(x, y))
    assert len(recorder.dynamo) == 1  # the fake implementation took symbolic sizes
    placeholders = [n for n in recorder.aot[0].graph.nodes if n.op == "placeholder"]
    assert any(isinstance(n.meta.get("val"), torch.SymInt) for n in placeholders)


def test_inductor_runs_the_operators_and_updates_written_arguments() -> None:
    def step(counts: Any, x: Any, y: Any) -> Any:
        accumulate(counts, scaled_add(x, y, 2.0))
        return counts * 1

    compiled = torch.compile(step, fullgraph=True)
    counts, x, y = torch.zeros(3, 4), _rand(3, 4), _rand(3, 4)
    out = compiled(counts, x, y)
    torch.testing.assert_close(counts, 2 * x + y)
    torch.testing.assert_close(out, 2 * x + y)


def test_export_holds_the_operators_and_runs() -> None:
    class Module(torch.nn.Module):
        def forward(self, x: Any, y: Any) -> Any:
            return _model(x, y)

    x, y = _rand(6, 3), _rand(6, 3)
    rows = torch.export.Dim("rows", min=3)  # PyTorch guards that the rows of x[1:] are not 1
    exported = torch.export.export(Module(), (x, y), dynamic_shapes={"x": {0: rows}, "y": {0: rows}})
    targets = [str(n.target) for n in exported.graph.nodes if n.op == "call_function"]
    assert "dlbridge_test.scaled_add.default" in targets and "dlbridge_test.stats.default" in targets
    x2, y2 = _rand(11, 3), _rand(11, 3)
    torch.testing.assert_close(exported.module()(x2, y2), _eager_model(x2, y2))


def test_kernels_compile_as_operators() -> None:
    recorder = Recorder()
    compiled = torch.compile(lambda x, y: axpy(x, y, 3.0), fullgraph=True, backend=recorder)
    x, y = torch.arange(5.0), torch.ones(5)
    compiled(x, y)
    assert y.tolist() == [1.0, 4.0, 7.0, 10.0, 13.0]
    assert any("dlbridge_test.axpy" in t for t in recorder.targets())


def test_a_kernels_scalar_results_become_0d_tensors() -> None:
    kernel = dlbridge.compile("""
func.func @with_scale(%a: memref<?xf32>) -> (memref<?xf32>, f32) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %r = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %r : memref<?xf32> to memref<?xf32>
  %s = arith.constant 2.5 : f32
  return %r, %s : memref<?xf32>, f32
}""")
    op = dltorch.custom_op("dlbridge_test::with_scale", kernel)
    assert op.schema == "(Tensor arg0) -> (Tensor, Tensor)"
    copy, scale = torch.compile(op, fullgraph=True, backend="aot_eager")(torch.arange(3.0))
    assert copy.tolist() == [0.0, 1.0, 2.0] and scale.shape == () and scale.item() == 2.5


# --------------------------------------------------------------------------------------------------
# Plain jitted functions inside torch.compile and torch.export


def _plain(x: Any, y: Any) -> Any:
    s, (col, none) = nested(gelu(x), y)
    assert none is None
    return s * 2, col


def _plain_eager(x: Any, y: Any) -> Any:
    g = torch.nn.functional.gelu(x, approximate="tanh")
    return (g + y) * 2, g.sum(0)


def test_plain_jitted_functions_become_automatic_operators() -> None:
    recorder = Recorder()
    compiled = torch.compile(_plain, fullgraph=True, backend=recorder, dynamic=True)
    for rows in (4, 7):
        x, y = _rand(rows, 3), _rand(rows, 3)
        for got, want in zip(compiled(x, y), _plain_eager(x, y)):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert len(recorder.dynamo) == 1
    names = [t for t in recorder.targets() if t.startswith("dlbridge.")]
    assert sorted(n.rsplit("_", 1)[0] for n in names) == ["dlbridge.gelu", "dlbridge.nested"]
    assert torch._dynamo.explain(_plain)(x, y).graph_break_count == 0


@dlbridge.jit
def scaled_add_plain(x, y, alpha):
    return alpha * x + y


@dlbridge.jit
def pad(x, n):
    return np.concatenate([x, np.zeros(n, dtype=x.dtype)])


def test_symbolic_sizes_broadcast_and_int_scalars_compile_once() -> None:
    recorder = Recorder()
    compiled = torch.compile(lambda x, y, n: pad(scaled_add(x, y, 1.0).reshape(-1), n), fullgraph=True,
                             dynamic=True, backend=recorder)
    for rows, cols, n in [(3, 4, 2), (5, 7, 3), (2, 9, 4)]:
        x, y = _rand(rows, 1), _rand(1, cols)
        assert compiled(x, y, n).equal(torch.cat([(x + y).reshape(-1), torch.zeros(n)]))
    assert len(recorder.dynamo) == 1


@dlbridge.jit
def row_sums(x, rows):
    return x.reshape(rows, -1).sum(axis=1)


def test_sizes_a_function_needs_as_numbers_are_specialised() -> None:
    recorder = Recorder()
    compiled = torch.compile(lambda x, n: row_sums(x * 2, n), fullgraph=True, dynamic=True, backend=recorder)
    for size, rows in [(12, 3), (12, 4), (20, 4)]:
        x = _rand(size)
        torch.testing.assert_close(compiled(x, rows), (x * 2).reshape(rows, -1).sum(1))
    assert len(recorder.dynamo) >= 2  # PyTorch guards on the value reshape needed, as dlbridge does


def test_plain_jitted_functions_write_in_place_and_export() -> None:
    counts = torch.zeros(5)
    compiled = torch.compile(lambda c, x: bump(c, x), fullgraph=True)
    compiled(counts, torch.arange(5.0))
    assert counts.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]

    class Module(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return total(gelu(x), axis=0)

    x = _rand(4, 3)
    exported = torch.export.export(Module(), (x,))
    targets = [str(n.target) for n in exported.graph.nodes if n.op == "call_function"]
    assert any(t.startswith("dlbridge.total_") for t in targets), targets
    torch.testing.assert_close(exported.module()(x), torch.nn.functional.gelu(x, approximate="tanh").sum(0))


def test_a_function_with_an_operator_is_captured_as_that_operator() -> None:
    recorder = Recorder()
    inner = scaled_add.function  # the jitted function custom_op registered
    compiled = torch.compile(lambda x: inner(x, x, 1.0), fullgraph=True, backend=recorder)
    x = _rand(3)
    torch.testing.assert_close(compiled(x), 2 * x)
    assert "dlbridge_test.scaled_add.default" in recorder.targets()


def test_import_dlbridge_leaves_torch_alone_and_functions_made_before_torch_compile() -> None:
    script = """
import sys
import dlbridge
assert "torch" not in sys.modules
@dlbridge.jit
def triple(x):
    return x * 3
import torch
assert "torch._dynamo" not in sys.modules and "dlbridge.torch" not in sys.modules
import dlbridge.torch
assert "torch._dynamo" not in sys.modules  # registering operators does not load Dynamo (a second)
out = torch.compile(lambda x: triple(x) + 1, fullgraph=True, backend="eager")(torch.ones(2))
assert out.tolist() == [4.0, 4.0], out
print("ok")
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]


# --------------------------------------------------------------------------------------------------
# Gradients


def test_gradcheck_with_jitted_backwards() -> None:
    x = _rand(3, 4, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(softplus, (x,))
    y = _rand(3, 4, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(lambda a, b: blend(a, b, 0.25), (x, y))
    softplus(x).sum().backward()
    torch.testing.assert_close(x.grad, torch.sigmoid(x.detach()))


def test_kernels_forward_and_backward() -> None:
    spec = (np.ones((2, 2)),)
    fwd = softplus.function._trace(softplus.function.specs(*spec))
    bwd = softplus_backward._trace(softplus_backward.specs(*spec, *spec))
    op = dltorch.custom_op("dlbridge_test::softplus_kernel", dlbridge.compile(fwd.mlir, fwd.entry),
                           backward=dlbridge.compile(bwd.mlir, bwd.entry))
    x = _rand(2, 5, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(op, (x,))


def test_gradients_under_compile() -> None:
    def loss(x: Any, y: Any) -> Any:
        mixed, prod = blend(softplus(x), y, 0.75)
        return (mixed * prod).sum()

    recorder = Recorder()
    compiled = torch.compile(loss, fullgraph=True, backend=recorder)
    x = _rand(4, 3, dtype=torch.float64).requires_grad_()
    y = _rand(4, 3, dtype=torch.float64).requires_grad_()
    compiled(x, y).backward()
    got = (x.grad.clone(), y.grad.clone())
    x.grad = y.grad = None
    sp = torch.nn.functional.softplus(x)
    ((0.75 * sp + 0.25 * y) * (sp * y)).sum().backward()
    torch.testing.assert_close(got, (x.grad, y.grad))
    assert "dlbridge_test.softplus.default" in recorder.targets()


# --------------------------------------------------------------------------------------------------
# The distributed example


def test_ddp_example_trains_on_two_processes() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "torch_ddp.py"), "--steps", "5"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert "parameters agree on both ranks" in run.stdout and "loss decreased" in run.stdout, run.stdout


# --------------------------------------------------------------------------------------------------
# Errors


@dlbridge.jit
def head(x):
    return x[: x[0]]


@dlbridge.jit
def double(x):
    return x * 2


@dlbridge.jit
def nonzeros(x):
    return np.nonzero(x)[0]


@dlbridge.jit
def listed(x) -> list[Tensor]:
    return [x, x]


@dlbridge.jit
def halves(x) -> tuple[Half, Half]:  # noqa: F821 - unresolvable: read as written
    return x[: len(x) // 2], x[len(x) // 2 :]


def test_data_dependent_sizes_are_refused_when_tracing() -> None:
    op = dltorch.custom_op("dlbridge_test::head", head, schema="(Tensor x) -> Tensor")
    assert op(torch.tensor([2, 5, 7])).tolist() == [2, 5]  # eager runs
    with pytest.raises(Exception, match=r"dlbridge_test::head: head\(\): result 0, dim 0: its size depends on the values"):
        torch.compile(op, fullgraph=True, backend="eager")(torch.tensor([2, 5, 7]))
    assert nonzeros(torch.tensor([0.0, 1.0, 2.0])).tolist() == [1, 2]
    with pytest.raises(Exception, match=r"dlbridge::nonzeros_\d+: nonzeros\(\): result 0, dim 0: its size depends"):
        torch.compile(lambda x: nonzeros(x), fullgraph=True, backend="eager")(torch.tensor([0.0, 1.0, 2.0]))
    kernel = dlbridge.compile("""
func.func @count(%a: memref<?xi64>) -> memref<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xi64>
  %n = arith.index_cast %v : i64 to index
  %r = memref.alloc(%n) : memref<?xf32>
  return %r : memref<?xf32>
}""")
    with pytest.raises(ValueError, match="result 0, dim 0: its size depends on the values"):
        dltorch.custom_op("dlbridge_test::count", kernel)


def test_unresolvable_return_annotations_are_read_as_written() -> None:
    op = dltorch.custom_op("dlbridge_test::halves", halves)
    assert op.schema == "(Tensor x) -> (Tensor, Tensor)"
    first, second = op(torch.arange(6.0))
    assert first.tolist() == [0.0, 1.0, 2.0] and second.tolist() == [3.0, 4.0, 5.0]


def test_unsupported_dtypes_are_named() -> None:
    op = dltorch.custom_op("dlbridge_test::double", double, schema="(Tensor x) -> Tensor")
    x = torch.ones(3, dtype=torch.float8_e4m3fn)
    with pytest.raises(Exception, match=r"argument 'x': dtype torch.float8_e4m3fn is not supported"):
        torch.compile(lambda a: double(a), fullgraph=True, backend="eager")(x)
    with pytest.raises(Exception, match=r"dlbridge_test::double: argument 'x': dtype torch.float8_e5m2 is not supported"):
        torch.compile(op, fullgraph=True, backend="eager")(torch.ones(3, dtype=torch.float8_e5m2))
    with pytest.raises(TypeError, match=r"dlbridge_test::double: argument 'x': dtype torch.float8_e5m2 is not supported"):
        op(torch.ones(3, dtype=torch.float8_e5m2))
    with pytest.raises(Exception, match=r"dlbridge_test::axpy: argument 'y': expected float32, got float64"):
        torch.compile(axpy, fullgraph=True, backend="eager")(torch.ones(3), torch.ones(3, dtype=torch.float64), 1.0)


def test_arguments_no_operator_takes_are_named_when_tracing() -> None:
    with pytest.raises(Exception, match=r"scaled_add_plain\(\): argument 'y': (immutable_)?list values cannot be passed to a jitted function"):
        torch.compile(lambda x: scaled_add_plain(x, [1.0, 2.0, 3.0], 1.0), fullgraph=True, backend="eager")(torch.ones(3))


def test_a_cuda_kernel_refuses_cpu_tensors() -> None:
    kernel = dlbridge.compile(open(os.path.join(ROOT, "examples", "axpy.mlir")).read(), target="cuda")
    op = dltorch.custom_op("dlbridge_test::axpy_cuda", kernel)
    message = r"dlbridge_test::axpy_cuda: argument 'x': a tensor on cpu, but axpy was compiled for cuda"
    with pytest.raises(ValueError, match=message):
        op(torch.ones(3), torch.ones(3), 1.0)
    with pytest.raises(Exception, match=message):
        torch.compile(op, fullgraph=True, backend="eager")(torch.ones(3), torch.ones(3), 1.0)


@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda: dltorch.custom_op("no_namespace", double), ValueError, "name: expected 'namespace::name'"),
    (lambda: dltorch.custom_op("a b::c", double), ValueError, "name: expected 'namespace::name'"),
    (lambda: dltorch.custom_op("dlbridge_test::scaled_add", double, schema="(Tensor x) -> Tensor"),
     ValueError, "an operator named dlbridge_test::scaled_add is already registered"),
    (lambda: dltorch.custom_op("dlbridge_test::e1", double), TypeError, r"double\(\) has no return annotation"),
    (lambda: dltorch.custom_op("dlbridge_test::e2", double, schema="(Tensor y) -> Tensor"),
     ValueError, r"its parameters \['y'\] are not double\(\)'s \['x'\]"),
    (lambda: dltorch.custom_op("dlbridge_test::e3", double, schema="(Tensor x, str s) -> Tensor"),
     ValueError, "argument 's': type str is not one of"),
    (lambda: dltorch.custom_op("dlbridge_test::e4", bump, schema="(Tensor counts, Tensor x) -> ()",
                               mutates_args=("y",)), ValueError, r"mutates_args: 'y' is not a Tensor parameter of bump\(\)"),
    (lambda: dltorch.custom_op("dlbridge_test::e5", AXPY, mutates_args=("x",)),
     ValueError, r"mutates_args: the kernel does not write 'x' \(it writes \['y'\]\)"),
    (lambda: dltorch.custom_op("dlbridge_test::e6", AXPY, schema="(Tensor x, Tensor y, float alpha) -> ()"),
     ValueError, "does not match the kernel's signature"),
    (lambda: dltorch.custom_op("dlbridge_test::e7", total, schema="(Tensor x) -> Tensor"),
     TypeError, r"parameter 'axis' is static: give its value with static_args"),
    (lambda: dltorch.custom_op("dlbridge_test::e8", lambda x: x), TypeError, "expected a @dlbridge.jit function"),
    (lambda: dltorch.custom_op("dlbridge_test::e11", listed), TypeError, "a list return annotation does not say"),
    (lambda: dltorch.custom_op("dlbridge_test::e9", double, schema="(Tensor x) -> Tensor", backward=double),
     TypeError, r"backward double\(\) takes 1 parameters; it must take .* 2"),
    (lambda: dltorch.custom_op("dlbridge_test::e10", bump, schema="(Tensor(a!) counts, Tensor x) -> ()",
                               backward=double), ValueError, "PyTorch differentiates functional operators only"),
], ids=["no_namespace", "space", "taken", "no_results", "schema_names", "schema_type", "mutates_unknown",
        "kernel_mutates", "kernel_schema", "static", "python_function", "list_results", "backward_arity",
        "backward_mutating"])
def test_registration_errors_name_what_is_wrong(make: Callable[[], Any], error: type, message: str | None) -> None:
    with pytest.raises(error, match=message):
        make()
    assert not any(hasattr(torch.ops.dlbridge_test, f"e{i}") for i in range(1, 12))  # nothing half-registered


def test_writes_the_schema_does_not_declare_are_refused_when_tracing() -> None:
    op = dltorch.custom_op("dlbridge_test::bump_undeclared", bump, schema="(Tensor counts, Tensor x) -> ()")
    with pytest.raises(Exception, match=r"bump\(\) writes argument 'counts', which the operator's schema does not mark"):
        torch.compile(op, fullgraph=True, backend="eager")(torch.zeros(2), torch.ones(2))
    wrong = dltorch.custom_op("dlbridge_test::double_two", double, schema="(Tensor x) -> (Tensor, Tensor)")
    with pytest.raises(Exception, match=r"double\(\) returns 1 result\(s\) for these arguments, the operator's schema 2"):
        torch.compile(wrong, fullgraph=True, backend="eager")(torch.ones(2))
