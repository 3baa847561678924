"""The settings users reach for: ``jit(cache=)``, ``DLBRIDGE_DISABLE_JIT``,
``DLBRIDGE_LOG=compile``, ``inspect()``, the disk cache's size limit and
``clear_cache()``."""

from __future__ import annotations

import itertools
import logging
import os
import pathlib
import subprocess
import sys
import textwrap

import dlbridge
import numpy as np
import pytest

_unique = itertools.count()


def fresh_function() -> dlbridge.JitFunction:
    """A jitted function no other test compiled (so no cache holds it)."""
    offset = float(next(_unique)) + 0.5 + os.getpid()
    namespace: dict[str, object] = {"np": np, "dlbridge": dlbridge}
    exec(textwrap.dedent(f"""
        def shifted(x, y):
            return np.sqrt(x) + y * {offset!r}
    """), namespace)
    return dlbridge.jit(namespace["shifted"])  # type: ignore[arg-type]


def entries(cache_dir: pathlib.Path) -> list[pathlib.Path]:
    return sorted(cache_dir.glob("llvmcache-dlbridge-*"))


@pytest.fixture
def cache_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.setenv("DLBRIDGE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DLBRIDGE_DISK_CACHE", raising=False)
    monkeypatch.delenv("DLBRIDGE_CACHE_MAX_SIZE", raising=False)
    return tmp_path


ones = np.ones(4, dtype=np.float32)


# --- jit(cache=) ---------------------------------------------------------


def test_jit_cache_false_writes_no_disk_entry(cache_dir: pathlib.Path) -> None:
    f = fresh_function()
    g = dlbridge.jit(f.__wrapped__, cache=False)
    np.testing.assert_allclose(g(ones, ones), np.sqrt(ones) + ones * float(f.__wrapped__(1.0, 1.0) - 1.0))
    assert entries(cache_dir) == []
    f(ones, ones)
    assert len(entries(cache_dir)) == 1


def test_jit_cache_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match=r"jit\(\): cache: expected bool, got str"):
        dlbridge.jit(lambda x: x, cache="no")  # type: ignore[call-overload]


# --- DLBRIDGE_DISABLE_JIT ---------------------------------------------------


def test_disable_jit_returns_the_python_function(monkeypatch: pytest.MonkeyPatch) -> None:
    def double(x: np.ndarray) -> np.ndarray:
        return x * 2

    monkeypatch.setenv("DLBRIDGE_DISABLE_JIT", "1")
    assert dlbridge.jit(double) is double
    assert dlbridge.jit(static_argnums=0)(double) is double
    monkeypatch.setenv("DLBRIDGE_DISABLE_JIT", "0")
    assert isinstance(dlbridge.jit(double), dlbridge.JitFunction)


def test_disable_jit_refuses_other_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_DISABLE_JIT", "yes")
    with pytest.raises(ValueError, match="DLBRIDGE_DISABLE_JIT: expected 0 or 1, got 'yes'"):
        dlbridge.jit(lambda x: x)


# --- DLBRIDGE_LOG=compile ---------------------------------------------------


def test_every_compile_is_logged_with_its_reason(caplog: pytest.LogCaptureFixture,
                                                   cache_dir: pathlib.Path) -> None:
    f = fresh_function()
    with caplog.at_level(logging.INFO, logger="dlbridge"):
        f(ones, ones)
        f(ones, ones)  # a hit: no compile, no line
        f(ones.astype(np.float64), ones)
        f(np.ones((2, 4)), ones)
        f(np.ones((1, 4)), ones)
    reasons = [r.getMessage() for r in caplog.records]
    assert len(reasons) == 4, reasons
    assert reasons[0].startswith("shifted: compiled in ") and reasons[0].endswith("(first call)")
    assert reasons[1].endswith("(new dtype of x (float32 -> float64))")
    assert reasons[2].endswith("(new rank of x (1 -> 2))")
    assert reasons[3].endswith("(new size-1 dims of x ([] -> [0]))")


def test_the_environment_variable_logs_to_stderr(cache_dir: pathlib.Path) -> None:
    script = textwrap.dedent("""
        import numpy as np, dlbridge
        f = dlbridge.jit(lambda x, y: x * y + 0.25)
        f(np.ones(3), np.ones(3))
        f(np.ones(3, dtype=np.float32), np.ones(3))
    """)
    env = dict(os.environ, DLBRIDGE_LOG="compile", DLBRIDGE_DISK_CACHE="0")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, check=True)
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith("dlbridge: <lambda>: compiled in ") and "(first call)" in lines[0]
    assert "(new dtype of x (float64 -> float32))" in lines[1]


def test_an_unknown_log_topic_is_named() -> None:
    env = dict(os.environ, DLBRIDGE_LOG="compiles")
    result = subprocess.run([sys.executable, "-W", "error", "-c", "import dlbridge"], env=env,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "DLBRIDGE_LOG: unknown topic(s) compiles; accepted: compile" in result.stderr


# --- inspect ----------------------------------------------------------------

ADD_ONE = """
func.func @add_one(%x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %one = arith.constant dense<1.0> : tensor<f32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%x : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


def test_inspect_shows_every_cpu_stage() -> None:
    stages = dlbridge.inspect(ADD_ONE)
    assert list(stages) == ["input", "tensors-to-buffers", "loops-and-vectors", "element-math",
                            "to-llvm", "llvm-ir", "asm"]
    assert stages["input"] == ADD_ONE
    assert "memref<" in stages["tensors-to-buffers"] and "scf.for" not in stages["tensors-to-buffers"]
    # The elementwise loop is parallel: it runs on OpenMP threads when large.
    assert "omp.parallel" in stages["loops-and-vectors"]
    assert "dlrt_parallel_claim" in stages["loops-and-vectors"]
    assert "llvm.func @add_one" in stages["to-llvm"] and "scf.for" not in stages["to-llvm"]
    assert "define " in stages["llvm-ir"] and "fadd" in stages["llvm-ir"]
    assert "add_one:" in stages["asm"] and "ret" in stages["asm"]


def test_inspect_follows_the_options() -> None:
    unoptimised = dlbridge.inspect(ADD_ONE, opt_level=0)["llvm-ir"]
    optimised = dlbridge.inspect(ADD_ONE, opt_level=3)["llvm-ir"]
    assert unoptimised != optimised


def test_inspect_of_a_jitted_function_is_its_specialisation() -> None:
    @dlbridge.jit
    def scale(x: np.ndarray) -> np.ndarray:
        return x * 3.0

    stages = scale.inspect(np.ones((2, 3), dtype=np.float64))
    assert "tensor<?x?xf64>" in stages["input"]
    assert "fmul" in stages["llvm-ir"] and "double" in stages["llvm-ir"]
    assert list(stages)[-1] == "asm"


def test_inspect_shows_cuda_kernels_as_ptx() -> None:
    stages = dlbridge.inspect(ADD_ONE, target="cuda", chip="sm_80", format="ptx")
    assert list(stages)[1:] == ["tensors-to-buffers", "loops-to-kernels",
                                "entries-and-common-lowering", "kernels-to-nvvm", "host-to-llvm",
                                "binary", "llvm-ir", "asm", "ptx"]
    assert "gpu.launch_func" in stages["host-to-llvm"]
    assert ".entry" in stages["ptx"] and ".target sm_80" in stages["ptx"]


def test_inspect_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match=r"inspect\(\): opt_level: expected int or None, got str"):
        dlbridge.inspect(ADD_ONE, opt_level="3")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="opt_level"):
        dlbridge.inspect(ADD_ONE, opt_level=7)
    with pytest.raises(ValueError, match="no 'dlpack.entry' function named @nope"):
        dlbridge.inspect(ADD_ONE, "nope")


# --- the disk cache's limit, clear_cache --------------------------------------


def test_entries_beyond_the_size_limit_are_pruned(cache_dir: pathlib.Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_CACHE_MAX_SIZE", "1")
    f = fresh_function()
    np.testing.assert_allclose(f(ones, ones), f.__wrapped__(ones, ones), rtol=1e-6)
    assert entries(cache_dir) == []  # written, then pruned: one byte holds nothing


def test_a_bad_size_limit_is_named(cache_dir: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLBRIDGE_CACHE_MAX_SIZE", "lots")
    with pytest.raises(ValueError, match="DLBRIDGE_CACHE_MAX_SIZE: expected a size in bytes"):
        fresh_function()(ones, ones)


def test_clear_cache_removes_entries_and_nothing_else(cache_dir: pathlib.Path) -> None:
    f = fresh_function()
    expected = f(ones, ones)
    (cache_dir / "notes.txt").write_text("mine")
    assert len(entries(cache_dir)) == 1
    assert dlbridge.clear_cache() == 1
    assert entries(cache_dir) == []
    assert (cache_dir / "notes.txt").read_text() == "mine"
    np.testing.assert_array_equal(f(ones, ones), expected)  # compiled kernels keep working
    # A new function with the same body compiles again rather than finding it anywhere.
    g = dlbridge.jit(f.__wrapped__)
    g(ones, ones)
    assert len(entries(cache_dir)) == 1
