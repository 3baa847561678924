"""CPU kernels run their parallel loops on several threads (issue 13): results stay NumPy's with
one thread or two, on strided inputs and from several Python threads at once; the thread count
is set from Python or DLBRIDGE_NUM_THREADS; failed run-time checks still raise."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import dlbridge
import numpy as np
import pytest

# Far above the grain below which a loop stays on the calling thread.
ROWS, COLS = 700, 900


@pytest.fixture(params=[1, 2], ids=["1-thread", "2-threads"])
def threads(request: pytest.FixtureRequest) -> Iterator[int]:
    before = dlbridge.get_num_threads()
    dlbridge.set_num_threads(request.param)
    yield request.param
    dlbridge.set_num_threads(before)


@dlbridge.jit
def scaled_sum(a, b):
    return 2.0 * a + np.sin(b)


@dlbridge.jit
def row_sums(a):
    return a.sum(axis=1)


@dlbridge.jit
def column_sums(a):
    return a.sum(axis=0)


def _inputs(layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Two ROWS x COLS float64 arrays, contiguous or as strided views (every other column of a wider
    array, and a transposed one)."""
    rng = np.random.default_rng(13)
    if layout == "contiguous":
        return rng.standard_normal((ROWS, COLS)), rng.standard_normal((ROWS, COLS))
    wide = rng.standard_normal((ROWS, 2 * COLS))[:, ::2]
    transposed = rng.standard_normal((COLS, ROWS)).T
    return wide, transposed


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_results_are_numpys(threads: int, layout: str) -> None:
    a, b = _inputs(layout)
    np.testing.assert_allclose(scaled_sum(a, b), 2.0 * a + np.sin(b), rtol=1e-12)
    np.testing.assert_allclose(row_sums(a), a.sum(axis=1), rtol=1e-10)
    np.testing.assert_allclose(column_sums(b), b.sum(axis=0), rtol=1e-10)


def test_the_loops_are_parallel_regions() -> None:
    a, b = _inputs("contiguous")
    for function, args in [(scaled_sum, (a, b)), (row_sums, (a,)), (column_sums, (a,))]:
        lowered = dict(function.inspect(*args))["to-llvm"]
        assert "omp.parallel" in lowered and "dlrt_parallel_claim" in lowered, function


def test_calls_from_four_threads_at_once(threads: int) -> None:
    rng = np.random.default_rng(4)
    inputs = [(rng.standard_normal((ROWS, COLS)), rng.standard_normal((ROWS, COLS))) for _ in range(4)]

    def work(index: int) -> bool:
        a, b = inputs[index]
        return all(
            np.allclose(scaled_sum(a, b), 2.0 * a + np.sin(b), rtol=1e-12)
            and np.allclose(row_sums(a), a.sum(axis=1), rtol=1e-10)
            and np.allclose(column_sums(b), b.sum(axis=0), rtol=1e-10)
            for _ in range(10)
        )

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(work, range(4))) == [True] * 4


def test_set_num_threads_round_trips() -> None:
    before = dlbridge.get_num_threads()
    try:
        for n in (1, 3, np.int64(2)):
            dlbridge.set_num_threads(n)
            assert dlbridge.get_num_threads() == n
    finally:
        dlbridge.set_num_threads(before)
    assert dlbridge.get_num_threads() == before


@pytest.mark.parametrize("bad", [2.0, "2", True, None])
def test_set_num_threads_wants_an_int(bad: object) -> None:
    before = dlbridge.get_num_threads()
    with pytest.raises(TypeError, match=r"set_num_threads\(\): argument 'n' must be an int, got "):
        dlbridge.set_num_threads(bad)  # type: ignore[arg-type]
    assert dlbridge.get_num_threads() == before


@pytest.mark.parametrize("bad", [0, -1, 1025, 2**70])
def test_set_num_threads_wants_a_count(bad: int) -> None:
    before = dlbridge.get_num_threads()
    with pytest.raises(ValueError, match=rf"argument 'n' must be from 1 to 1024, got {bad}$"):
        dlbridge.set_num_threads(bad)
    assert dlbridge.get_num_threads() == before


# Runs in a fresh process: prints the thread count, then how many OS threads the process has after a
# small and after a large parallel kernel (libomp starts helpers on the first region that uses
# them, and keeps them).
_COUNT_THREADS = textwrap.dedent("""
    import os, sys
    import dlbridge, numpy as np
    def tasks():
        return len(os.listdir("/proc/self/task"))
    add = dlbridge.jit(lambda a, b: a + b, cache=False)
    small, large = np.ones(100), np.ones(1_000_000)
    print(dlbridge.get_num_threads())
    add(small, small)
    start = tasks()
    assert (add(small, small) == 2).all()
    print(tasks() - start)
    assert (add(large, large) == 2).all()
    print(tasks() - start)
""")


def _count_threads(setting: str | None) -> tuple[list[int], str]:
    env = {k: v for k, v in os.environ.items() if k != "DLBRIDGE_NUM_THREADS"}
    if setting is not None:
        env["DLBRIDGE_NUM_THREADS"] = setting
    run = subprocess.run([sys.executable, "-c", _COUNT_THREADS], env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    return [int(line) for line in run.stdout.split()], run.stderr


def test_dlbridge_num_threads_is_honoured() -> None:
    (count, small, large), _ = _count_threads("2")
    assert (count, small, large) == (2, 0, 1)
    (count, small, large), _ = _count_threads("1")
    assert (count, small, large) == (1, 0, 0)


@pytest.mark.parametrize("setting", ["zero", "0", "-3", "2.5", "99999"])
def test_a_bad_dlbridge_num_threads_falls_back_to_the_cores(setting: str) -> None:
    (count, _, _), stderr = _count_threads(setting)
    assert count == len(os.sched_getaffinity(0))
    assert f"ignoring DLBRIDGE_NUM_THREADS='{setting}': expected an integer from 1 to 1024" in stderr


# A gather whose run-time index check sits inside a loop that would otherwise run on threads: the
# loop stays on the calling thread, and the failure ends the call with the check's error.
CHECKED_GATHER = """
func.func @gather(%x: memref<?xf32> {dlpack.name = "x"}, %idx: memref<?xi64> {dlpack.name = "idx"},
                  %out: memref<?xf32> {dlpack.name = "out"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %idx, %c0 : memref<?xi64>
  %size = memref.dim %x, %c0 : memref<?xf32>
  %size64 = arith.index_cast %size : index to i64
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %k = memref.load %idx[%i] : memref<?xi64>
    %ok = arith.cmpi ult, %k, %size64 : i64
    dlpack.assert %ok, index_out_of_range, "index {0} is out of bounds for size {1}" (%k, %size64 : i64, i64)
    %j = arith.index_cast %k : i64 to index
    %v = memref.load %x[%j] : memref<?xf32>
    memref.store %v, %out[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
"""


def test_a_failed_check_in_a_parallel_loop_still_raises(threads: int) -> None:
    gather = dlbridge.compile(CHECKED_GATHER)
    x = np.arange(1000, dtype=np.float32)
    idx = np.arange(500_000, dtype=np.int64) % 1000
    out = np.zeros(idx.size, np.float32)
    gather(x, idx, out)
    np.testing.assert_array_equal(out, x[idx])
    idx[300_000] = 1000
    with pytest.raises(IndexError, match=r"index 1000 is out of bounds for size 1000"):
        gather(x, idx, out)
    assert "omp.parallel" not in gather.mlir["llvm"]


def test_a_failed_gather_check_still_raises(threads: int) -> None:
    @dlbridge.jit
    def take(x, idx):
        return x[idx] * 2.0

    x = np.arange(ROWS * COLS, dtype=np.float64)
    idx = np.arange(x.size)[::-1].copy()
    np.testing.assert_array_equal(take(x, idx), x[idx] * 2.0)
    idx[x.size // 2] = x.size
    with pytest.raises(IndexError, match=rf"an index is out of bounds for axis 0 with size {x.size}"):
        take(x, idx)
