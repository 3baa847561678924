"""One set of compile options everywhere: ``dlbridge.compile``'s keywords, their
checks, and the drift test that keeps dl-opt, dl-run, Python, C++ and
docs/Options.md naming the same options (the table in Options.h is the source)."""

from __future__ import annotations

import inspect
import os
import pathlib
import re
import subprocess
from typing import Any

import dlbridge
import numpy as np
import pytest
from _mlir import require_dl_opt
from dlbridge import _options_doc

REPO = pathlib.Path(__file__).resolve().parents[2]

DOUBLE = """
func.func @double(%x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%x, %x : tensor<?xf32>, tensor<?xf32>)
                  outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

OWN_BUFFER = """
func.func @inc(%x: memref<4xf32>) attributes {dlpack.entry} {
  %t = memref.alloc() : memref<4xf32>
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %one : f32
    linalg.yield %s : f32
  }
  memref.copy %t, %x : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return
}
"""


def _table() -> list[dict[str, Any]]:
    return dlbridge.options()


# -- compile()'s keywords -------------------------------------------------------------------


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_every_opt_level_computes_the_same(opt_level: int) -> None:
    kernel = dlbridge.compile(DOUBLE, opt_level=opt_level, cache=False)
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(kernel(x)), 2 * x)


def test_bufferize_false_leaves_buffers_alone() -> None:
    x = np.arange(4, dtype=np.float32)
    dlbridge.compile(OWN_BUFFER, bufferize=False, cache=False)(x)
    np.testing.assert_array_equal(x, [1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"arg 0 of entry @double: has type 'tensor<\?xf32>'"):
        dlbridge.compile(DOUBLE, bufferize=False)


def test_cuda_options_compile_without_a_gpu() -> None:
    kernel = dlbridge.compile(DOUBLE, "double", "cuda", chip="sm_90", ptx_version="ptx80",
                              format="ptx", opt_level=1, toolkit=None, cache=False)
    assert kernel.signature["device"] == "cuda"
    assert '#nvvm.target<O = 1, chip = "sm_90", features = "+ptx80">' in kernel.mlir["llvm"]
    # Compact CUDA tensors take a specialisation of their own, as on the CPU.
    assert kernel.has_contiguous_variant


@pytest.mark.parametrize(("keywords", "message"), [
    ({"opt_level": 7}, "opt_level: expected 0, 1, 2 or 3, got '7'"),
    ({"opt_level": -1}, "opt_level: expected 0, 1, 2 or 3, got '-1'"),
    ({"target": "tpu"}, "target: expected cpu or cuda, got 'tpu'"),
    ({"target": "cuda", "format": "elf"}, "format: expected ptx, cubin or fatbin, got 'elf'"),
    ({"target": "cuda", "chip": "sm_70"}, "chip: expected sm_75, sm_80, "),
    ({"target": "cuda", "format": "ptx", "ptx_version": "6.0"},
     "PTX 6.0 cannot target sm_80, which needs PTX 7.0 or newer"),
    ({"chip": "sm_90"},
     "chip applies to target cuda only; compile with target='cuda' or leave it out"),
    ({"format": "cubin"}, "format applies to target cuda only"),
    ({"ptx_version": "ptx80"}, "ptx_version applies to target cuda only"),
    ({"toolkit": "/usr/local/cuda"}, "toolkit applies to target cuda only"),
])
def test_bad_values_name_the_keyword(keywords: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        dlbridge.compile(DOUBLE, **keywords)


@pytest.mark.parametrize(("keywords", "message"), [
    ({"opt_level": "3"}, "opt_level: expected int or None, got str"),
    ({"opt_level": True}, "opt_level: expected int or None, got bool"),
    ({"bufferize": 1}, "bufferize: expected bool or None, got int"),
    ({"chip": 90}, "chip: expected str or None, got int"),
    ({"format": b"ptx"}, "format: expected str or None, got bytes"),
    ({"cache": None}, "cache: expected bool, got NoneType"),
    ({"target": None}, "target: expected str, got NoneType"),
    ({"toolkit": 1}, "toolkit: expected str, os.PathLike or None, got int"),
])
def test_wrong_types_are_type_errors(keywords: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        dlbridge.compile(DOUBLE, **keywords)


# -- the drift test --------------------------------------------------------------------------


def test_the_documentation_is_generated_from_the_table() -> None:
    text = (REPO / "docs" / "Options.md").read_text()
    assert _options_doc.update(text) == text, (
        "docs/Options.md is out of date: python -m dlbridge._options_doc docs/Options.md")
    assert "docs/Options.md" in (REPO / "README.md").read_text()


def test_python_takes_every_python_option() -> None:
    parameters = set(inspect.signature(dlbridge.compile).parameters) - {"source"}
    expected = {row["python"] for row in _table() if "python" in row["interfaces"]}
    assert parameters == expected


def test_cpp_has_every_cpp_option() -> None:
    header = (REPO / "include" / "dlbridge" / "Pipelines" / "Options.h").read_text()
    struct = header[header.index("struct CompileOptions {"):header.index("};", header.index(
        "struct CompileOptions {"))]
    fields = set(re.findall(r"^\s+[\w:<>]+ (\w+)(?: = [^;]+)?;", struct, re.MULTILINE))
    expected = {row["cpp"].removeprefix("CompileOptions::") for row in _table()
                if "c++" in row["interfaces"] and row["cpp"].startswith("CompileOptions::")}
    assert fields == expected
    kernel = (REPO / "include" / "dlbridge" / "JIT" / "Kernel.h").read_text()
    assert "CompileResult compile(const std::string &source, const std::string &entry," in kernel


def _help(tool: str) -> str:
    return subprocess.run([tool, "--help"], capture_output=True, text=True, check=True).stdout


def _pipeline_options(help_text: str, pipeline: str) -> set[str]:
    """The options listed under ``--<pipeline>`` in dl-opt's help."""
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"--{pipeline} "))
    indent = len(lines[start + 1]) - len(lines[start + 1].lstrip())
    names = set()
    for line in lines[start + 1:]:
        if len(line) - len(line.lstrip()) != indent:
            break
        names.add(re.match(r"--([\w-]+)", line.strip()).group(1))
    return names


def test_dl_opt_pipelines_take_their_options() -> None:
    text = _help(require_dl_opt())
    for pipeline in ("dlbridge-cpu-pipeline", "dlbridge-cuda-pipeline"):
        expected = {row["name"] for row in _table() if pipeline in row["interfaces"]}
        assert _pipeline_options(text, pipeline) == expected, pipeline
    for row in _table():
        if any(name.endswith("-pipeline") for name in row["interfaces"]):
            assert row["description"] in " ".join(text.split()), row["name"]


def test_dl_run_takes_its_options() -> None:
    dl_run = os.path.join(os.path.dirname(require_dl_opt()), "dl-run")
    text = " ".join(_help(dl_run).split())
    for row in _table():
        flag = f"--{row['name']}"
        if "dl-run" in row["interfaces"]:
            assert re.search(rf"{flag}[ =]", text) and row["description"] in text, flag
        else:
            assert not re.search(rf"{flag}[ =]", text), flag
