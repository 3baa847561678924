#!/usr/bin/env python3
"""Per-call cost of a dlbridge kernel in JAX: through XLA's FFI (``dlbridge.jax``) against a
plain dlbridge call on JAX arrays and against the same computation in ``jax.numpy``.

    PYTHONPATH=build/python python3 bench/jax_ffi.py              # CPU
    PYTHONPATH=build/python python3 bench/jax_ffi.py --sizes 16   # one size, quicker

The kernel is ``x * 2 + y`` on float32 vectors. Columns, each the best of ``--repeats`` runs of
enough calls to fill about 0.2 s, per call, results waited for (``block_until_ready``):

- ``jax.jit(ffi_op(f))``: the op inside a jitted program, XLA calling the FFI handler;
- ``jax.jit(f)``: the plain ``@dlbridge.jit`` function jitted, routed to the same FFI target;
- ``f(x, y)``: the eager dlbridge call on JAX arrays (DLPack in, JAX array out, no XLA);
- ``jax.jit(jnp)``: the same arithmetic compiled by XLA itself.

The FFI columns include JAX's dispatch of a jitted program and the copy of the kernel's result
into XLA's buffer; the difference to ``jax.jit(jnp)`` at the smallest size is what calling out
of XLA costs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import dlbridge
import dlbridge.jax
import jax
import jax.numpy as jnp
import numpy as np


@dlbridge.jit
def scaled_add(x: Any, y: Any) -> Any:
    """The benchmarked kernel."""
    return x * 2 + y


def per_call(fn: Callable[[], Any], repeats: int) -> float:
    """Seconds per call of ``fn`` (whose result is waited for): the best of ``repeats`` runs
    of as many calls as fill about 0.2 s."""
    jax.block_until_ready(fn())
    count, start = 1, time.perf_counter()
    while time.perf_counter() - start < 0.05:
        jax.block_until_ready(fn())
        count += 1
    calls = max(1, int(count * 4))
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            out = fn()
        jax.block_until_ready(out)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def rows(config: Any) -> list[Any]:
    """The per-call row at 16 elements, in the harness's form (``bench/run.py --only frameworks``)."""
    from harness import Candidate, measure_row

    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.normal(size=16).astype(np.float32))
    y = jnp.asarray(rng.normal(size=16).astype(np.float32))
    ffi = jax.jit(dlbridge.jax.ffi_op(scaled_add))
    routed = jax.jit(scaled_add)
    native = jax.jit(lambda a, b: a * 2 + b)

    def timed(fn: Callable[..., Any]) -> Callable[[], Any]:
        return lambda: jax.block_until_ready(fn(x, y))

    def check(fn: Callable[..., Any]) -> Callable[[], str | None]:
        return lambda: None if np.allclose(np.asarray(fn(x, y)), np.asarray(native(x, y))) else "differs"

    candidates = [
        Candidate("jax.jit(ffi_op(f))", timed(ffi), note="XLA calls the FFI handler", check=check(ffi)),
        Candidate("jax.jit(f)", timed(routed), note="a plain @jit function, routed", check=check(routed)),
        Candidate("f(x, y)", timed(scaled_add), note="eager, DLPack in and out", check=check(scaled_add)),
        Candidate("jax.jit(jnp)", timed(native), note="XLA's own code"),
    ]
    return [measure_row("JAX operators", "x * 2 + y, float32[16], inside jax.jit", "jax.jit(jnp)",
                        candidates, config)]


def main() -> None:
    """Prints one row per size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 65536, 4194304])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    ffi = jax.jit(dlbridge.jax.ffi_op(scaled_add))
    routed = jax.jit(scaled_add)
    native = jax.jit(lambda x, y: x * 2 + y)
    columns = ["jax.jit(ffi_op(f))", "jax.jit(f)", "f(x, y)", "jax.jit(jnp)"]
    print(f"device: {jax.devices()[0].platform}; times per call")
    print(f"{'size':>10}  " + "  ".join(f"{c:>18}" for c in columns))
    for size in args.sizes:
        rng = np.random.default_rng(0)
        x = jnp.asarray(rng.normal(size=size).astype(np.float32))
        y = jnp.asarray(rng.normal(size=size).astype(np.float32))
        np.testing.assert_allclose(np.asarray(ffi(x, y)), np.asarray(native(x, y)), rtol=1e-6)
        times = [per_call(lambda fn=fn: fn(x, y), args.repeats) for fn in (ffi, routed, scaled_add, native)]
        print(f"{size:>10}  " + "  ".join(f"{t * 1e6:>15.1f} us" for t in times))


if __name__ == "__main__":
    main()
