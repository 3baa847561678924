#!/usr/bin/env python3
"""Memory per cached kernel and per specialisation (issue 27), and the in-memory cache's bound.

    PYTHONPATH=build/python python3 bench/kernel_memory.py            # 200 kernels per row
    PYTHONPATH=build/python python3 bench/kernel_memory.py --count 50 # quicker

Each row runs in a fresh process with a private, empty disk cache (``DLBRIDGE_CACHE_DIR``) and
reports the growth of its resident set (``/proc/self/statm``) per kernel while it compiles
``--count`` distinct kernels, after one warm-up kernel:

- ``jit specialisations``: one ``@dlbridge.jit`` function called with ``--count`` distinct
  static values (each a new specialisation), the in-memory cache large enough to keep them all;
- ``compile() kernels``: ``dlbridge.compile`` of ``--count`` distinct sources, the Kernel objects
  dropped (the cache keeps them);
- ``jit, DLBRIDGE_MEMORY_CACHE_MAX=8``: as the first row with the cache bounded to 8 kernels: the
  growth is what the evicted kernels leave behind (allocator slack, traces), not their code;

plus the disk cache's bytes per entry, and the kernel's own texts (the input MLIR and the LLVM
dialect it keeps for ``Kernel.mlir``). Writes bench/results/kernel-memory.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent

_CHILD = r'''
import json, os, sys
import numpy as np
import dlbridge

def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

mode, count = sys.argv[1], int(sys.argv[2])
x = np.ones(16)
SOURCE = """
func.func @k(%x: tensor<?xf64> {dlpack.name = "x"}) -> tensor<?xf64> attributes {dlpack.entry} {
  %c = arith.constant %s : f64
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} ins(%x : tensor<?xf64>) outs(%e : tensor<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %y = arith.mulf %a, %c : f64
    linalg.yield %y : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}
"""

def scale(x, s):
    return x * s + 1.0

def make(i):
    if mode == "compile":
        return dlbridge.compile(SOURCE.replace("%s", f"{i}.5"))(x)
    return f(x, float(i))

f = dlbridge.jit(scale, static_argnums=1)
make(-1)
before = rss()
kernel = None
for i in range(count):
    make(i)
after = rss()
k = dlbridge.compile(SOURCE.replace("%s", "0.25"))
texts = sum(len(v) for v in k.mlir.values())
print(json.dumps({"per_kernel": (after - before) / count, "texts": texts,
                  "loaded": getattr(dlbridge._dlbridge, "memory_cache_size", lambda: None)(),
                  "compiled": f.num_specialisations}))
'''


def _run(mode: str, count: int, limit: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, DLBRIDGE_CACHE_DIR=cache)
        env.pop("DLBRIDGE_MEMORY_CACHE_MAX", None)
        if limit is not None:
            env["DLBRIDGE_MEMORY_CACHE_MAX"] = str(limit)
        out = subprocess.run([sys.executable, "-c", _CHILD, mode, str(count)], env=env,
                             capture_output=True, text=True, check=True)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        sizes = [p.stat().st_size for p in Path(cache).glob("llvmcache-*")]
        result["disk_per_entry"] = sum(sizes) / max(len(sizes), 1)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200, help="distinct kernels per row")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results")
    args = parser.parse_args()
    rows = [
        ("jit specialisations (static values)", _run("jit", args.count, args.count + 16)),
        ("compile() kernels", _run("compile", args.count, args.count + 16)),
        ("jit, DLBRIDGE_MEMORY_CACHE_MAX=8", _run("jit", args.count, 8)),
    ]
    lines = [
        f"`python3 bench/kernel_memory.py --count {args.count}`: resident-set growth per kernel over "
        f"{args.count} distinct kernels, each row in a fresh process with an empty disk cache.",
        "",
        "| row | RSS per kernel | kernels loaded at the end | disk per entry | kernel texts (MLIR kept) |",
        "|---|---|---|---|---|",
    ]
    for name, r in rows:
        lines.append(f"| {name} | {r['per_kernel'] / 1024:.0f} KiB | {r['loaded']} | "
                     f"{r['disk_per_entry'] / 1024:.0f} KiB | {r['texts'] / 1024:.1f} KiB |")
    text = "\n".join(lines)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kernel-memory.md").write_text(text + "\n")
    (args.out / "kernel-memory.json").write_text(json.dumps(dict(rows), indent=2) + "\n")


if __name__ == "__main__":
    main()
