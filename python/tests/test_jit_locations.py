"""Source locations are MLIR locations, not part of the compiled code's identity."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import dlbridge
import numpy as np
import pytest

PROGRAM = textwrap.dedent(
    """
    import numpy as np
    import dlbridge

    def make():
        def f(x, y):
            return x * 2 + y
        return f

    first = dlbridge.jit(make())

    # the same body, defined in another place


    def f(x, y):
        return x * 2 + y

    second = dlbridge.jit(f)
    x = np.arange(6.0)
    assert (np.asarray(first(x, x)) == np.asarray(second(x, x))).all()
    """
)


def test_the_same_body_defined_elsewhere_compiles_once(tmp_path: pathlib.Path) -> None:
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    cache = tmp_path / "cache"
    env = dict(os.environ, DLBRIDGE_CACHE_DIR=str(cache))
    subprocess.run([sys.executable, str(script)], check=True, env=env)
    assert len(list(cache.glob("llvmcache-dlbridge-*"))) == 1


def test_run_time_checks_name_the_python_line() -> None:
    def f(x, y):
        return x + y  # the line the error names

    with pytest.raises(ValueError, match=r"could not be broadcast.* at test_jit_locations\.py:\d+: return x \+ y"):
        dlbridge.jit(f)(np.zeros(3), np.zeros(4))


def test_ops_carry_the_python_line() -> None:
    def f(x):
        return np.exp(x)

    text = dlbridge.jit(f).lower(np.zeros(3))
    line = f.__code__.co_firstlineno + 1
    assert f'test_jit_locations.py:{line}: return np.exp(x)"(' in text
    assert f'test_jit_locations.py":{line}:' in text
