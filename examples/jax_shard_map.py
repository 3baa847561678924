"""A data-parallel training step under ``jax.shard_map`` whose model calls a dlbridge kernel.

The model's layer, ``tanh(x @ w + b)``, is a ``@dlbridge.jit`` function made a differentiable XLA
op by ``dlbridge.jax.ffi_op(layer, backward=layer_grad)``. Each of the devices gets a slice of the
batch, runs the layer and its backward through XLA's FFI on its own buffers, and the gradients are
averaged across devices with ``jax.lax.pmean`` before the SGD update; the loss goes down.

On the CPU the example asks XLA for 4 host devices (``--xla_force_host_platform_device_count=4``,
set before JAX starts). On a machine with GPUs the same code shards over every GPU JAX sees
(``JAX_PLATFORMS=cuda``): the kernels are compiled for CUDA, and XLA calls the handler once per
shard with that shard's device ordinal and stream, so each GPU runs its slice on its own stream
with no host synchronisation in between; the ``pmean`` becomes an NCCL all-reduce.

Run: ``PYTHONPATH=build/python python3 examples/jax_shard_map.py``
"""

from __future__ import annotations

import os

if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=4").strip()

from functools import partial  # noqa: E402
from typing import Any  # noqa: E402

import dlbridge  # noqa: E402
import dlbridge.jax  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402


@dlbridge.jit
def layer(x: Any, w: Any, b: Any) -> Any:
    """One dense layer: ``tanh(x @ w + b)``."""
    return np.tanh(x @ w + b)


@dlbridge.jit
def layer_grad(x: Any, w: Any, b: Any, g: Any) -> Any:
    """The gradients of ``(layer(x, w, b) * g).sum()`` with respect to x, w and b."""
    t = np.tanh(x @ w + b)
    d = g * (1 - t * t)
    return d @ w.T, x.T @ d, d.sum(axis=0)


dense = dlbridge.jax.ffi_op(layer, backward=layer_grad)


def loss(params: tuple[Any, Any], x: Any, y: Any) -> Any:
    """Mean squared error of the one-layer model on this shard's slice of the batch."""
    w, b = params
    return jnp.mean((dense(x, w, b) - y) ** 2)


def make_step(mesh: jax.sharding.Mesh, rate: float) -> Any:
    """One SGD step: per-shard gradients averaged over the ``data`` axis, the same update
    everywhere; returns the new parameters and the mean loss."""

    @jax.jit
    @partial(jax.shard_map, mesh=mesh, in_specs=((P(), P()), P("data"), P("data")),
             out_specs=((P(), P()), P()))
    def step(params: tuple[Any, Any], x: Any, y: Any) -> Any:
        # this shard's copy of the replicated parameters: its gradients are this shard's
        local = jax.lax.pcast(params, "data", to="varying")
        value, grads = jax.value_and_grad(loss)(local, x, y)
        grads = jax.lax.pmean(grads, "data")
        new = tuple(p - rate * g for p, g in zip(params, grads))
        return new, jax.lax.pmean(value, "data")

    return step


def main() -> list[float]:
    """Trains for 30 steps on a random regression problem; returns the losses."""
    devices = jax.devices()
    mesh = jax.make_mesh((len(devices),), ("data",), devices=devices)
    rng = np.random.default_rng(0)
    features, outputs, batch = 8, 4, 16 * len(devices)
    true_w = rng.normal(size=(features, outputs)).astype(np.float32) * 0.5
    x = rng.normal(size=(batch, features)).astype(np.float32)
    y = np.tanh(x @ true_w).astype(np.float32)
    sharded = jax.sharding.NamedSharding(mesh, P("data"))
    replicated = jax.sharding.NamedSharding(mesh, P())
    x, y = jax.device_put(x, sharded), jax.device_put(y, sharded)
    params = jax.device_put((jnp.zeros((features, outputs), jnp.float32),
                             jnp.zeros((outputs,), jnp.float32)), replicated)
    step = make_step(mesh, rate=0.5)
    losses = []
    for _ in range(30):
        params, value = step(params, x, y)
        losses.append(float(value))
    print(f"{len(devices)} {devices[0].platform} devices; loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    return losses


if __name__ == "__main__":
    main()
