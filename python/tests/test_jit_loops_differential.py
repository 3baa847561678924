"""Random loop programs under ``@dlbridge.jit`` give plain Python's answers (or Python's error).

Each program is generated from a seeded RNG: range loops with dynamic, small and large static
trip counts (zero, one, many trips), nested loops sharing targets, names rebound in the body,
names bound only in it, Python numbers that change, arrays updated in place, and a return of the
names after the loops (some of which Python may leave unbound). The jitted program (``n`` static for every
fourth seed) must return what Python returns for several trip counts, or raise where Python raises UnboundLocalError
(Python's own error where the loop runs as Python, else an error naming the name).
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

import dlbridge
import numpy as np
import pytest

_TARGETS = ("i", "j")
_BOUNDS = ("n", "m", "0", "1", "3", "11", "1, n", "n, 0, -1", "0, m, 2", "m, n", "n - 1, -1, -2")
_CALLS = ((0, 0), (1, 2), (4, 0), (9, 3))
_STATIC_CALLS = ((0, 2), (9, 3))


def _body(rng: random.Random, target: str, depth: int, indent: str) -> list[str]:
    """The statements of a loop body over ``target``."""
    pool = [
        f"a = a + {target}",
        f"a = a * 0.5 + {target}",
        f"s = s + {target} * 0.25",
        "k = k + 1",
        f"y[{target} % 3] += 1.0",
        f"z = a + {target}",
        f"c = {target}",
        "s = s + a[0]",
        "y += 0.5",
    ]
    lines: list[str] = []
    for _ in range(rng.randint(1, 3)):
        if depth < 2 and rng.random() < 0.35:
            lines += _loop(rng, depth + 1, indent)
        else:
            lines.append(indent + rng.choice(pool))
    return lines


def _loop(rng: random.Random, depth: int, indent: str) -> list[str]:
    target = rng.choice(_TARGETS)
    head = f"{indent}for {target} in range({rng.choice(_BOUNDS)}):"
    return [head, *_body(rng, target, depth, indent + "    ")]


def program(seed: int) -> str:
    """The source of the random program ``prog(x, n, m)`` of ``seed``."""
    rng = random.Random(seed)
    lines = ["def prog(x, n, m):", "    a = x * 0.5", "    y = x.copy()", "    s = 0.0", "    k = 0"]
    for name, init in (("i", "i = 5"), ("z", "z = x * 0"), ("c", "c = 1")):
        if rng.random() < 0.4:
            lines.append(f"    {init}")
        del name
    for _ in range(rng.randint(1, 2)):
        lines += _loop(rng, 1, "    ")
    bound = {line.split()[1] if line.split()[0] == "for" else line.split()[0] for line in lines[1:]}
    extra = [n for n in ("i", "j", "z", "c") if n in bound and rng.random() < 0.7]
    lines.append(f"    return (a, y, s, k{''.join(', ' + n for n in extra)})")
    return "\n".join(lines) + "\n"


def _load(source: str, directory: Path, seed: int) -> Any:
    path = directory / f"loopgen_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"loopgen_{seed}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.prog


def _check(seed: int, directory: Path) -> None:
    source = program(seed)
    prog = _load(source, directory, seed)
    # every fourth seed: n is static (known while tracing: unrolled, or scf.for with a constant
    # trip count), each n a compile of its own
    static = seed % 4 == 3
    jitted = dlbridge.jit(prog, static_argnums=(1,) if static else ())
    x = np.array([1.0, 2.0, 3.0])
    for n, m in _STATIC_CALLS if static else _CALLS:
        where = f"seed {seed}, n={n}, m={m}:\n{source}"
        try:
            want = prog(x.copy(), n, m)
        except UnboundLocalError:
            # Python's own error where the loop runs as Python, else one naming an unbound name
            # (the trace may find another one first: which is unbound is known while tracing)
            with pytest.raises((ValueError, dlbridge.TraceError, UnboundLocalError),
                               match=r"'\w+' (has no value|may have no value)|local variable '\w+'"):
                jitted(x.copy(), n, m)
            continue
        got = jitted(x.copy(), n, m)
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, err_msg=where)


@pytest.mark.parametrize("seed", range(24))
def test_random_loop_programs_match_python(seed: int, tmp_path: Path) -> None:
    _check(seed, tmp_path)


def test_a_fresh_random_loop_program_matches_python(tmp_path: Path) -> None:
    seed = random.SystemRandom().randrange(1 << 30)
    sys.stderr.write(f"fresh loop program seed: {seed}\n")
    try:
        _check(seed, tmp_path)
    except BaseException as e:
        raise AssertionError(f"fresh seed {seed} (rerun with program({seed})): {e}") from e
