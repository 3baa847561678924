"""Typed Python: the extension's generated stub and ``py.typed`` let
``mypy --strict`` check user code against dlbridge's real signatures, and every
public function and method has a docstring."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import pathlib
import re
import subprocess
import sys
import typing
from typing import Any

import dlbridge
import pytest
from dlbridge import _dlbridge, _typing

PACKAGE_DIR = pathlib.Path(dlbridge.__file__).parent

needs_mypy = pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is not installed (python/requirements-test.txt)")

SCALE = """
func.func @scale(%x: tensor<?xf32> {dlpack.name = "x"}, %a: f32 {dlpack.name = "a"})
    -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.map ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>)
    (%v: f32, %o: f32) {
      %p = arith.mulf %v, %a : f32
      linalg.yield %p : f32
    }
  return %r : tensor<?xf32>
}
"""

# Uses everything users type against; it also runs, so the types describe
# what the calls really do.
USER_SCRIPT = f'''
from typing import Any

import numpy as np
import numpy.typing as npt

import dlbridge
from dlbridge import Kernel, Tensor

SOURCE = {SCALE!r}


def scale(x: npt.NDArray[np.float32]) -> Tensor:
    kernel: Kernel = dlbridge.compile(SOURCE, "scale", opt_level=2, cache=False)
    for param in kernel.signature["args"]:
        if param["kind"] == "tensor":
            dims: tuple[int | None, ...] = param["shape"]
            assert param["access"] == "read" and dims == (None,)
    assert "llvm.func" in kernel.mlir["llvm"] and not kernel.from_disk_cache
    doubled = kernel(x, 2.0)
    assert (kernel(x, np.float32(3)) == 3 * x).all()
    return dlbridge.from_dlpack(doubled, device="cpu", copy=False)


@dlbridge.jit
def add(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return a + b


@dlbridge.jit(static_argnames="axis")
def total(a: npt.NDArray[np.float32], axis: int) -> Any:
    return a.sum(axis=axis)


t = scale(np.arange(4, dtype=np.float32))
shape: tuple[int, ...] = t.shape
device_type, device_id = t.__dlpack_device__()
described: str = t.dtype + " on " + t.device
back = np.from_dlpack(t)
assert shape == (4,) and (device_type, device_id) == (1, 0), (shape, device_type)
assert described == "float32 on cpu:0", described
assert "func.func" in add.lower(back, back)
assert add(back, back).tolist() == [0, 4, 8, 12]
assert total(back, axis=0) == 12 and total.num_specialisations == 1
'''

# Wrong uses, one a line, each with the mypy error it must draw at its line;
# no other line may draw one.
WRONG_PREAMBLE = f"""import numpy as np

import dlbridge

SOURCE = {SCALE!r}
"""
WRONG_USES = [
    ('kernel = dlbridge.compile(SOURCE, opt_level="2")',
     'Argument "opt_level" to "compile" has incompatible type "str"; expected "int | None"'),
    ('kernel("x", 2.0)',
     'Argument 1 to "__call__" of "Kernel" has incompatible type "str"'),
    ('kernel.signature["entry"]',
     'TypedDict "KernelSignature" has no key "entry"'),
    ('kernel.signature["args"][0]["shape"]',
     'TypedDict "ScalarParamInfo" has no key "shape"'),
    ("tensor = dlbridge.from_dlpack([1.0, 2.0])",
     'Argument 1 to "from_dlpack" has incompatible type "list[float]"; '
     'expected "SupportsDLPack"'),
    ("dims: tuple[str, ...] = tensor.shape",
     'Incompatible types in assignment (expression has type "tuple[int, ...]", '
     'variable has type "tuple[str, ...]")'),
    ("size: int = tensor.device",
     'Incompatible types in assignment (expression has type "str", variable has type "int")'),
    ("tensor.__dlpack__(max_version=1)",
     'Argument "max_version" to "__dlpack__" of "Tensor" has incompatible type "int"; '
     'expected "tuple[int, int] | None"'),
    ("dlbridge.jit(lambda a: a, target=1)",
     'No overload variant of "jit" matches argument types'),
    ("np.from_dlpack(tensor, copy=1.0)",
     'Argument "copy" to "from_dlpack" has incompatible type "float"; expected "bool | None"'),
]


def _mypy(tmp_path: pathlib.Path, script: str) -> subprocess.CompletedProcess[str]:
    """Runs ``mypy --strict`` on ``script`` with dlbridge found as an installed
    package would be: on the search path, typed by its ``py.typed``."""
    path = tmp_path / "script.py"
    path.write_text(script)
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    env["PYTHONPATH"] = str(PACKAGE_DIR.parent)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
         "--cache-dir", str(tmp_path / "cache"), str(path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)


def test_stub_and_marker_lie_beside_the_extension() -> None:
    assert (PACKAGE_DIR / "py.typed").is_file()
    stub = ast.parse((PACKAGE_DIR / "_dlbridge.pyi").read_text())
    declared = {node.name for node in stub.body
                if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    declared |= {node.target.id for node in stub.body
                 if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    public = {name for name in vars(_dlbridge) if not name.startswith("_")}
    assert declared == public


@needs_mypy
def test_user_script_type_checks_and_runs(tmp_path: pathlib.Path) -> None:
    checked = _mypy(tmp_path, USER_SCRIPT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_DIR.parent))
    ran = subprocess.run([sys.executable, str(tmp_path / "script.py")],
                         capture_output=True, text=True, env=env, timeout=600)
    assert ran.returncode == 0, ran.stderr


@needs_mypy
def test_wrong_calls_are_reported_at_their_lines(tmp_path: pathlib.Path) -> None:
    first = WRONG_PREAMBLE.count("\n") + 1
    script = WRONG_PREAMBLE + "".join(f"{code}\n" for code, _ in WRONG_USES)
    expected = {first + i: message for i, (_, message) in enumerate(WRONG_USES)}
    checked = _mypy(tmp_path, script)
    reported: dict[int, list[str]] = {}
    for match in re.finditer(r"^script\.py:(\d+): error: (.*)$", checked.stdout, re.M):
        reported.setdefault(int(match.group(1)), []).append(match.group(2))
    assert set(reported) == set(expected), checked.stdout + checked.stderr
    for number, message in expected.items():
        assert any(message in error for error in reported[number]), (number, reported[number])


@needs_mypy
def test_package_api_is_strictly_typed(tmp_path: pathlib.Path) -> None:
    # The tracer (_trace) is followed for its types but not checked here.
    modules = ["__init__.py", "_api.py", "_frameworks.py", "_options_doc.py", "_typing.py",
               "_dlbridge.pyi"]
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"),
         *(str(PACKAGE_DIR / module) for module in modules)],
        capture_output=True, text=True, cwd=PACKAGE_DIR.parent, timeout=600)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_typed_dicts_match_what_kernels_report() -> None:
    kernel = dlbridge.compile(SCALE, cache=False)
    signature = kernel.signature
    assert signature.keys() == _typing.KernelSignature.__required_keys__
    assert kernel.mlir.keys() == _typing.KernelStages.__required_keys__
    params = [*signature["args"], *signature["results"]]
    assert sorted(p["kind"] for p in params) == ["scalar", "tensor", "tensor"]
    for param in params:
        typed = _typing.TensorParamInfo if param["kind"] == "tensor" else _typing.ScalarParamInfo
        assert param.keys() == typed.__required_keys__
        for key, hint in typing.get_type_hints(typed).items():
            if typing.get_origin(hint) is typing.Literal:
                assert param[key] in typing.get_args(hint), (key, param[key])


def _docstring(member: Any) -> str:
    """A member's own docstring: for nanobind's functions and properties the
    text given with the binding, not the signature nanobind puts first."""
    if isinstance(member, property):
        member = member.fget
    signatures = getattr(member, "__nb_signature__", None)
    if signatures is not None:
        return "".join(doc or "" for _, doc, _ in signatures).strip()
    return (inspect.getdoc(member) or "").strip()


def _public_members() -> list[tuple[str, Any]]:
    members = [(name, getattr(dlbridge, name)) for name in dlbridge.__all__]
    for cls in (dlbridge.Kernel, dlbridge.Tensor, dlbridge.JitFunction):
        for name in dir(cls):
            if not name.startswith("_") or name in ("__call__", "__dlpack__", "__dlpack_device__"):
                members.append((f"{cls.__name__}.{name}", inspect.getattr_static(cls, name)))
    return members


def test_every_public_function_has_a_docstring() -> None:
    members = _public_members()
    names = dict(members).keys()
    assert {"compile", "Kernel.__call__", "Tensor.shape", "JitFunction.lower"} <= names
    undocumented = [name for name, member in members if not _docstring(member)]
    assert undocumented == []
