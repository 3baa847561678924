"""Per-call cost of a dlbridge kernel as a PyTorch operator (``dlbridge.torch``).

Times one small kernel (``x + y`` on float32[16] tensors, so that the call's fixed costs
dominate) called five ways: directly as a ``@dlbridge.jit`` function (the baseline); through
the operator ``dlbridge.torch.custom_op`` registers (``torch.ops.<ns>.<name>``, the cheap
``Library.define``/``impl`` path); through the ``CustomOp`` it returns; through an
equivalent ``torch.library.custom_op`` whose Python body calls the same jitted function; and
PyTorch's own ``torch.add`` for scale. A second row times the same calls inside graphs
``torch.compile(fullgraph=True)`` compiled (Inductor calls the operators as extern kernels).

    PYTHONPATH=build/python python3 bench/torch_ops.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dlbridge  # noqa: E402
import dlbridge.torch  # noqa: E402
import torch  # noqa: E402
from harness import Candidate, Row, TimingConfig, measure_row, render_text  # noqa: E402


@dlbridge.jit
def add(x, y):
    return x + y


add_op = dlbridge.torch.custom_op("bench::add", add, schema="(Tensor x, Tensor y) -> Tensor")


@torch.library.custom_op("bench::python_add", mutates_args=())
def python_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The same kernel behind ``torch.library.custom_op``'s own registration."""
    return add(x, y)


@python_add.register_fake
def _(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


def _check(fn: Callable[[], Any], x: torch.Tensor, y: torch.Tensor) -> Callable[[], str | None]:
    return lambda: None if torch.equal(fn(), x + y) else "differs from x + y"


def rows(config: TimingConfig) -> list[Row]:
    """The eager and the compiled row."""
    x, y = torch.randn(16), torch.randn(16)
    eager = [
        ("dlbridge.jit call", lambda: add(x, y), "the baseline"),
        ("torch.ops (dlbridge.torch)", lambda: torch.ops.bench.add(x, y), "Library.define/impl"),
        ("CustomOp (dlbridge.torch)", lambda: add_op(x, y), "the object custom_op returns"),
        ("torch.library.custom_op", lambda: python_add(x, y), "its body calls the same jitted function"),
        ("torch.add", lambda: torch.add(x, y), "PyTorch's own kernel, for scale"),
    ]
    out = [measure_row("PyTorch operators", "eager call, float32[16] + float32[16]", "dlbridge.jit call",
                       [Candidate(peer, fn, note=note, check=_check(fn, x, y)) for peer, fn, note in eager],
                       config)]
    compiled = [
        ("torch.compile: plain dlbridge.jit", torch.compile(lambda a, b: add(a, b), fullgraph=True),
         "an automatic operator"),
        ("torch.compile: dlbridge.torch op", torch.compile(lambda a, b: add_op(a, b), fullgraph=True), ""),
        ("torch.compile: torch.library.custom_op", torch.compile(lambda a, b: python_add(a, b), fullgraph=True),
         ""),
        ("torch.compile: torch.add", torch.compile(lambda a, b: torch.add(a, b), fullgraph=True),
         "Inductor's generated C++"),
    ]
    out.append(measure_row(
        "PyTorch operators", "inside torch.compile(fullgraph=True), Inductor", "torch.compile: plain dlbridge.jit",
        [Candidate(peer, (lambda f=f: f(x, y)), note=note, check=_check(lambda f=f: f(x, y), x, y))
         for peer, f, note in compiled], config))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
    args = parser.parse_args(argv)
    config = TimingConfig(repeats=5, warmup=20, min_sample_s=0.02) if args.quick else \
        TimingConfig(repeats=15, warmup=100, min_sample_s=0.1)
    print(render_text(rows(config)))
    # PyTorch's operator registry keeps python_add, and through its globals the jitted function,
    # alive past the extension's exit, where nanobind would report it as leaked
    globals().update(add=None, add_op=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
