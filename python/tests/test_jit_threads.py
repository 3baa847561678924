"""``@dlbridge.jit`` under threads: specialisations compiled by several
threads at once while other calls are running."""

from __future__ import annotations

import threading
from typing import Any, Callable

import dlbridge
import numpy as np

_DTYPES = ["float32", "float64", "int32", "int64", "int16", "uint8"]


def _run_all(workers: list[Callable[[], None]]) -> list[BaseException]:
    errors: list[BaseException] = []

    def guarded(work: Callable[[], None]) -> None:
        try:
            work()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_new_specialisations_compiled_while_calls_are_in_flight() -> None:
    @dlbridge.jit
    def f(x):
        return x * 2 + 1

    big = np.arange(1 << 18, dtype=np.float64)
    f(big)
    start = threading.Barrier(1 + len(_DTYPES) * 2)

    def in_flight() -> None:
        start.wait()
        for _ in range(60):
            np.testing.assert_array_equal(f(big), big * 2 + 1)

    def compile_new(dtype: str, rank: int) -> Callable[[], None]:
        def work() -> None:
            x = np.arange(6).astype(dtype).reshape((6,) if rank == 1 else (2, 3))
            start.wait()
            np.testing.assert_array_equal(f(x), x * 2 + 1)
        return work

    workers = [in_flight] + [compile_new(d, r) for d in _DTYPES for r in (1, 2)]
    assert _run_all(workers) == []
    assert f.num_specialisations == len(_DTYPES) * 2  # big's (float64, rank 1) among them


def test_a_key_compiled_by_two_threads_at_once_is_inserted_once() -> None:
    both_tracing = threading.Barrier(2, timeout=60)

    @dlbridge.jit
    def f(x):
        both_tracing.wait()  # runs while tracing: both threads have missed
        return x + 1

    x = np.arange(4, dtype=np.float32)
    results: list[Any] = []
    errors = _run_all([lambda: results.append(f(x)) for _ in range(2)])
    assert errors == []
    assert f.num_specialisations == 1
    for out in results:
        np.testing.assert_array_equal(out, x + 1)
