"""The pipeline spellings the README and docs/ show run as written: each is
copied from the page and given to dl-opt on a module, through a shell."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DL_OPT = os.environ.get("DL_OPT", str(ROOT / "build" / "bin" / "dl-opt"))
# A pipeline flag as a page writes it, with its options when it has some.
SPELLING = re.compile(r'--dlbridge-(?:cpu|cuda)-pipeline(?:=(?:"[^"`]*"|[^\s`"]+)|\{[^}`]*\})?')
MODULE = ROOT / "examples" / "axpy.mlir"


def spellings() -> list[tuple[str, str]]:
    found = {(page.name, m.group(0)) for page in PAGES for m in SPELLING.finditer(page.read_text())}
    return sorted(found)


def test_the_pages_show_pipeline_spellings() -> None:
    assert len(spellings()) >= 4


@pytest.mark.parametrize(("page", "flag"), spellings())
def test_a_documented_pipeline_spelling_runs(page: str, flag: str) -> None:
    if "cuda" in flag and shutil.which("ptxas", path=os.environ.get("PATH", "") + ":/usr/local/cuda/bin") is None:
        pytest.skip("no CUDA toolkit (ptxas) to assemble kernels")
    result = subprocess.run(f"{DL_OPT} {MODULE} {flag} -o /dev/null", shell=True,
                            capture_output=True, text=True)
    assert result.returncode == 0, f"{page}: `{flag}` fails: {result.stderr}"
