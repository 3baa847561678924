"""``@dlbridge.jit``: every traced operation against NumPy on every layout,
results in the caller's framework without copies, errors, threads and
memory."""

from __future__ import annotations

import resource
import threading

import dlbridge
import numpy as np
import pytest
from reference import CASES, check


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_operation_matches_numpy(case) -> None:
    check(case, dlbridge.jit(case.fn))


def test_numpy_in_numpy_out_sharing_dlbridges_buffer() -> None:
    @dlbridge.jit
    def scale(x):
        return x * 3

    x = np.arange(8, dtype=np.float32)
    out = scale(x)
    assert type(out) is np.ndarray
    # The array views the buffer dlbridge allocated (64-byte aligned), and
    # importing it back shares that buffer too: nothing was copied.
    assert out.ctypes.data % 64 == 0
    assert dlbridge.from_dlpack(out).data_ptr == out.ctypes.data


def test_jax_in_jax_out() -> None:
    jnp = pytest.importorskip("jax.numpy")
    import jax

    @dlbridge.jit
    def f(x, y):
        return np.tanh(x) + y.sum(axis=0)

    x = jnp.asarray(np.random.rand(4, 3).astype(np.float32))
    y = jnp.asarray(np.random.rand(2, 3).astype(np.float32))
    out = f(x, y)
    assert isinstance(out, jax.Array)
    np.testing.assert_allclose(np.asarray(out), np.tanh(np.asarray(x)) + np.asarray(y).sum(axis=0), rtol=1e-6)


def test_torch_in_torch_out() -> None:
    torch = pytest.importorskip("torch")

    @dlbridge.jit
    def f(x):
        return x * 2

    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    out = f(x)
    assert isinstance(out, torch.Tensor)
    assert torch.equal(out, x * 2)


def test_mixed_frameworks_return_the_first_arrays() -> None:
    jnp = pytest.importorskip("jax.numpy")

    @dlbridge.jit
    def add(x, y):
        return x + y

    a = np.ones(3, np.float32)
    assert type(add(a, jnp.ones(3, np.float32))) is np.ndarray
    assert not isinstance(add(jnp.ones(3, np.float32), a), np.ndarray)


def test_no_tensor_argument_gives_numpy_arrays() -> None:
    @dlbridge.jit
    def f(s):
        return dlbridge.exp(s)

    out = f(1.0)
    assert type(out) is np.ndarray and out.shape == () and out.dtype == np.float64
    assert out[()] == pytest.approx(np.e)

    @dlbridge.jit
    def g(n, s):
        return np.arange(n) * s, np.zeros((2, 3), np.float32)

    r, z = g(4, 2.0)
    assert type(r) is np.ndarray and type(z) is np.ndarray
    np.testing.assert_array_equal(r, np.arange(4) * 2.0)
    assert z.dtype == np.float32 and z.shape == (2, 3)


def test_one_specialisation_per_kind_of_arguments() -> None:
    @dlbridge.jit
    def f(x):
        return x + 1

    f(np.zeros((2, 3), np.float32))
    f(np.zeros((5, 7), np.float32))             # same kind: no new compile
    f(np.zeros((5, 7), np.float32)[:, ::2])      # strided: same kernel, other variant
    assert f.num_specialisations == 1
    f(np.zeros((5, 7), np.float64))
    f(np.zeros((1, 7), np.float32))              # a size-1 dim broadcasts differently
    assert f.num_specialisations == 3


def test_lower_shows_the_mlir() -> None:
    @dlbridge.jit
    def f(x, y):
        return np.maximum(x, y)

    text = f.lower(np.zeros(3, np.float32), np.zeros(3, np.float32))
    assert "func.func @f(" in text and "dlpack.entry" in text and "arith.maximumf" in text


def test_unsupported_operation_names_itself_and_its_line() -> None:
    @dlbridge.jit
    def f(x):
        return np.linalg.eig(x)

    with pytest.raises(TypeError, match=r"unsupported operation 'numpy.linalg.eig' at test_jit.py:\d+: return np.linalg.eig\(x\)"):
        f(np.zeros(3, np.float32))


def test_non_dlpack_argument_is_a_type_error() -> None:
    @dlbridge.jit
    def f(x):
        return x

    with pytest.raises(TypeError, match=r"f\(\): argument 0: expected an array supporting DLPack"):
        f("not an array")


def test_wrong_argument_count() -> None:
    @dlbridge.jit
    def f(x, y):
        return x + y

    with pytest.raises(TypeError):
        f(np.zeros(3, np.float32))


def test_calls_from_several_threads() -> None:
    @dlbridge.jit
    def f(x):
        return x * 2 + 1

    x = np.arange(1000, dtype=np.float64)
    expected = x * 2 + 1
    f(x)
    failures = []

    def worker() -> None:
        for _ in range(200):
            if not np.array_equal(f(x), expected):
                failures.append(1)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_a_hundred_thousand_calls_keep_rss_flat() -> None:
    @dlbridge.jit
    def f(x, y):
        return x * y + 1

    x = np.ones(256, np.float32)
    y = np.ones(256, np.float32)
    for _ in range(2000):
        f(x, y)
    before = _rss_kib()
    for _ in range(100_000):
        f(x, y)
    grown = _rss_kib() - before
    # Each result is 1 KiB: a leak of results alone would add ~100 MiB.
    assert grown < 8 * 1024, f"RSS grew by {grown} KiB over 1e5 calls"


def test_numpy_scalars_are_scalar_arguments() -> None:
    @dlbridge.jit
    def scale(x, s):
        return x * s

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(scale(x, np.float32(2)), x * 2)
    np.testing.assert_array_equal(scale(x, np.int64(4)), x * 4)
    np.testing.assert_array_equal(scale(x, 3.0), x * 3)
    # NumPy scalars keep their dtype (NEP 50), Python scalars are weak.
    assert scale(x, np.int64(4)).dtype == (x * np.int64(4)).dtype == np.float64
    assert scale.specs(x, np.float32(2))[1] == ("scalar", "float", "float32")
    assert scale.specs(x, 2.0)[1] == ("scalar", "float", None)
    assert scale.specs(x, np.bool_(True))[1] == ("scalar", "bool", "bool")


class _UserArray(np.ndarray):
    pass


@pytest.mark.parametrize("make", [
    lambda a: a.view(_UserArray),
    lambda a: np.lib.stride_tricks.as_strided(a).view(_UserArray)[::1],
], ids=["user-subclass", "user-subclass-view"])
def test_ndarray_subclasses_give_plain_ndarrays(make) -> None:
    @dlbridge.jit
    def twice(x):
        return x * 2

    a = make(np.arange(4, dtype=np.float32))
    out = twice(a)
    assert type(out) is np.ndarray
    np.testing.assert_array_equal(out, np.arange(4, dtype=np.float32) * 2)


def test_memmap_gives_plain_ndarrays(tmp_path) -> None:
    @dlbridge.jit
    def twice(x):
        return x * 2

    m = np.memmap(tmp_path / "m.bin", dtype=np.float32, mode="w+", shape=(4,))
    m[:] = np.arange(4)
    out = twice(m)
    assert type(out) is np.ndarray
    np.testing.assert_array_equal(out, np.arange(4, dtype=np.float32) * 2)
