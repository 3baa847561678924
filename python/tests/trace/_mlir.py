"""Helpers to run dl-opt on traced modules (tests skip when dl-opt is not built)."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess

import pytest

_REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

@functools.cache
def dl_opt() -> str | None:
    p = os.environ.get("DL_OPT") or os.path.join(_REPO, "build", "bin", "dl-opt")
    if os.path.exists(p):
        return p
    return shutil.which("dl-opt")


def require_dl_opt() -> str:
    tool = dl_opt()
    if tool is None:
        pytest.skip("dl-opt is not built (build/bin/dl-opt)")
    return tool


def run_dl_opt(text: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([require_dl_opt(), *args, "-"], input=text, capture_output=True, text=True)


def check_verifies(text: str) -> None:
    """dl-opt parses and verifies ``text``."""
    r = run_dl_opt(text, [])
    assert r.returncode == 0, r.stderr + "\n" + text


def _unlowered(out: str) -> list[str]:
    """Lines with ops of a dialect that should be lowered (string literals, such as the messages
    of run-time checks naming the op they check, are not ops)."""
    ops = [(ln, re.sub(r'"(?:[^"\\]|\\.)*"', '""', ln)) for ln in out.splitlines()]
    return [ln for ln, code in ops if re.search(r"\b(linalg|tensor|math|complex|memref|scf|arith)\.", code)]


def check_lowers(text: str) -> str:
    """The module goes through ``--dlbridge-cpu-pipeline`` to the LLVM dialect."""
    r = run_dl_opt(text, ["--dlbridge-cpu-pipeline"])
    assert r.returncode == 0, r.stderr[-4000:] + "\n" + text
    bad = _unlowered(r.stdout)
    assert not bad, "not lowered:\n" + "\n".join(bad[:10])
    return r.stdout
