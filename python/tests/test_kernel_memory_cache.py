"""The in-memory kernel cache is bounded (``DLBRIDGE_MEMORY_CACHE_MAX`` kernels): the least
recently called kernels, a jitted function's specialisations and compile()'s alike, are
unloaded; an evicted specialisation compiles again when called; a kernel being called or held is
never unloaded under its caller; the disk cache prunes distinct static values to its limit."""

from __future__ import annotations

import logging
import os
import pathlib
import subprocess
import sys
import threading
from typing import Any

import dlbridge
import numpy as np
import pytest

SOURCE = """
func.func @k(%x: tensor<?xf64> {dlpack.name = "x"}) -> tensor<?xf64> attributes {dlpack.entry} {
  %c = arith.constant VALUE : f64
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} ins(%x : tensor<?xf64>) outs(%e : tensor<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %y = arith.addf %a, %c : f64
    linalg.yield %y : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}
"""


def _shift(x: Any, s: Any) -> Any:
    return x + s


@pytest.fixture
def cache_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.setenv("DLBRIDGE_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_least_recently_called_specialisations_are_evicted(
        cache_dir: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_MEMORY_CACHE_MAX", "3")
    f = dlbridge.jit(_shift, static_argnums=1)
    x = np.arange(4.0)
    for s in (0, 1, 2):
        np.testing.assert_array_equal(f(x, s), x + s)
    f(x, 0)  # 1 is now the least recently called
    f(x, 3)
    assert f.num_specialisations == 4
    assert f.num_loaded == 3
    assert dlbridge._dlbridge.memory_cache_size() <= 3
    np.testing.assert_array_equal(f(x, 0), x)  # kept
    assert f.num_specialisations == 4
    np.testing.assert_array_equal(f(x, 1), x + 1)  # evicted: compiled again, right answer
    assert f.num_specialisations == 5


def test_compile_kernels_are_evicted_alike_and_held_ones_keep_working(
        cache_dir: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_MEMORY_CACHE_MAX", "2")
    x = np.arange(3.0)
    held = [dlbridge.compile(SOURCE.replace("VALUE", f"{i}.5")) for i in range(4)]
    assert dlbridge._dlbridge.memory_cache_size() <= 2
    for i, kernel in enumerate(held):
        np.testing.assert_array_equal(kernel(x), x + i + 0.5)
    # the most recent is found in memory; the first was evicted and comes back from disk
    assert not dlbridge.compile(SOURCE.replace("VALUE", "3.5")).from_disk_cache
    assert dlbridge.compile(SOURCE.replace("VALUE", "0.5")).from_disk_cache


def test_a_bad_limit_is_named(cache_dir: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_MEMORY_CACHE_MAX", "lots")
    with pytest.raises(ValueError, match="DLBRIDGE_MEMORY_CACHE_MAX: expected a positive number"):
        dlbridge.compile(SOURCE.replace("VALUE", "7.25"))
    with pytest.raises(ValueError, match="DLBRIDGE_MEMORY_CACHE_MAX"):
        dlbridge.jit(_shift, static_argnums=1)(np.ones(2), 0.125)


def test_eviction_while_another_thread_calls(cache_dir: pathlib.Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_MEMORY_CACHE_MAX", "1")
    f = dlbridge.jit(_shift, static_argnums=1)
    x = np.arange(50_000.0)
    wrong: list[str] = []
    done = threading.Event()

    def hot() -> None:
        while not done.is_set():
            if not np.array_equal(f(x, 0.5), x + 0.5):
                wrong.append("hot")

    thread = threading.Thread(target=hot)
    thread.start()
    try:
        for s in range(1, 12):
            if not np.array_equal(f(x, float(s)), x + s):
                wrong.append(str(s))
    finally:
        done.set()
        thread.join()
    assert wrong == []


_RSS_CHILD = """
import os, numpy as np, dlbridge
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
f = dlbridge.jit(lambda x, s: x * s + 1.0, static_argnums=1)
x = np.ones(16)
for s in range(-8, 0):
    f(x, float(s))
before = rss()
for s in range(100):
    f(x, float(s))
print((rss() - before) // 1024)
"""


def test_evicted_kernels_release_their_memory(cache_dir: pathlib.Path) -> None:
    # Kept, each of these kernels costs ~180 KiB (bench/kernel_memory.py); evicted, the
    # 100 of them must leave far less than that behind.
    env = dict(os.environ, DLBRIDGE_MEMORY_CACHE_MAX="8")
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD], env=env, capture_output=True,
                         text=True, check=True)
    grown_kib = int(out.stdout.strip())
    assert grown_kib < 100 * 60, grown_kib


def test_distinct_static_values_are_pruned_from_disk(cache_dir: pathlib.Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_CACHE_MAX_SIZE", "100k")
    f = dlbridge.jit(_shift, static_argnums=1)
    for s in range(10):
        f(np.ones(2), float(s))
    total = sum(p.stat().st_size for p in cache_dir.glob("llvmcache-*"))
    assert 0 < total <= 100 * 1024


def test_compile_log_names_new_static_types_and_unloaded_kernels(
        caplog: pytest.LogCaptureFixture, cache_dir: pathlib.Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_MEMORY_CACHE_MAX", "1")

    def shift(x: Any, s: Any) -> Any:
        return x + s[0]

    f = dlbridge.jit(shift, static_argnums=1)
    x = np.ones(2, np.int64)  # int64 + 1 and int64 + 1.0 trace apart
    with caplog.at_level(logging.INFO, logger="dlbridge"):
        f(x, (1,))
        f(x, (1.0,))
        f(x, (1,))  # evicted by (1.0,): compiled again
    reasons = [r.getMessage() for r in caplog.records]
    assert len(reasons) == 3, reasons
    assert reasons[1].endswith("(new static value of s ((1,) -> (1.0,)))")
    assert reasons[2].endswith("(compiled before, then unloaded (DLBRIDGE_MEMORY_CACHE_MAX, clear_cache()))")
