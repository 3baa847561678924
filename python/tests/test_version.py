"""dlbridge.__version__: one version, CMakeLists.txt's, everywhere it shows."""

import pathlib
import re

import dlbridge
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cmake_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(dlbridge VERSION ([0-9.]+)", text)
    assert match, "CMakeLists.txt declares no project(dlbridge VERSION ...)"
    return match.group(1)


def test_version_is_the_cmake_projects() -> None:
    assert dlbridge.__version__ == cmake_version()


def test_wheel_reads_the_same_version() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" in pyproject["project"]["dynamic"]
    rule = pyproject["tool"]["scikit-build"]["metadata"]["version"]
    text = (ROOT / rule["input"]).read_text()
    assert re.search(rule["regex"], text).group("value") == dlbridge.__version__


def test_version_names_dlbridge_and_llvm_for_cache_keys() -> None:
    assert dlbridge._dlbridge.version_string.startswith(f"dlbridge {dlbridge.__version__}; LLVM 22.")
