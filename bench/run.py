#!/usr/bin/env python3
"""dlbridge's benchmarks (issue 7): one entry point, every peer side by side.

    python3 bench/run.py            # full run (< 15 min on 2 cores)
    python3 bench/run.py --quick    # smoke test: small sizes, few repeats (< 1 min)

Installs missing peers from PyPI (bench/requirements.txt), builds the nanobind
floor and the tvm-ffi peer into bench/build/, runs the call-overhead,
zero-copy, kernel-speed, whole-kernel, compile-time, framework-operator and GPU sections in this one process
(compile-time samples in fresh subprocesses), prints the table and writes
bench/results/latest.json and bench/results/latest.md.

dlbridge is imported from the environment, else from ``--build-dir``/python
(default: <repo>/build).
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import harness  # noqa: E402
import kernels_suite  # noqa: E402
import peers as peers_mod  # noqa: E402
import suites  # noqa: E402

SECTIONS = ("call", "zero-copy", "kernels", "whole-kernels", "compile", "frameworks", "gpu")


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes and few repeats (smoke test)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections")
    parser.add_argument("--build-dir", type=Path, default=BENCH_DIR.parent / "build",
                        help="dlbridge's CMake build directory (its python/ is put on sys.path)")
    parser.add_argument("--zero-copy-mib", type=int, default=None,
                        help="size of each large zero-copy input in MiB (default 1024; 16 with --quick)")
    parser.add_argument("--no-install", action="store_true", help="never pip-install missing peers")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results", help="where latest.{json,md} go")
    return parser.parse_args()


def _import_dlbridge(build_dir: Path) -> tuple[Any, str]:
    """dlbridge from the environment, else from the build tree."""
    build_python = str((build_dir / "python").resolve())
    try:
        return importlib.import_module("dlbridge"), ""
    except ImportError:
        sys.path.insert(0, build_python)
        return importlib.import_module("dlbridge"), build_python


def _versions(peers: peers_mod.Peers, dlbridge: Any) -> dict[str, str]:
    versions = {"python": platform.python_version(), "dlbridge": str(dlbridge._dlbridge.version_string)}
    for name, module in peers.modules.items():
        version = getattr(module, "__version__", None)
        if version:
            versions[name] = str(version)
    return versions


def _framework_rows(config: harness.TimingConfig) -> list[harness.Row]:
    """The per-call cost of dlbridge kernels as PyTorch operators and JAX FFI calls
    (bench/torch_ops.py, bench/jax_ffi.py), for the frameworks that are installed."""
    rows: list[harness.Row] = []
    for framework, module in (("torch", "torch_ops"), ("jax", "jax_ffi")):
        if peers_mod._try_import(framework) is None:
            print(f"[bench] frameworks: {framework} is not installed", flush=True)
            continue
        rows += importlib.import_module(module).rows(config)
    return rows


def main() -> int:
    """Runs the selected sections and writes the results."""
    args = _parse_args()
    sections = args.only or SECTIONS
    dlbridge, build_python = _import_dlbridge(args.build_dir)
    peers = peers_mod.Peers()
    peers_mod.ensure_packages(peers, install=not args.no_install)
    peers_mod.build_native(peers)
    torch = peers_mod._try_import("torch")
    if torch is not None:
        peers.modules["torch"] = torch
    for name, why in peers.missing.items():
        print(f"[bench] peer {name} unavailable: {why}", flush=True)

    sizes = suites.QUICK if args.quick else suites.FULL
    if args.zero_copy_mib is not None:
        sizes = suites.Sizes(sizes.elements, sizes.softmax, sizes.rowsum, sizes.matmuls, args.zero_copy_mib << 20)
    cores = os.cpu_count() or 1
    ctx = suites.Context(
        peers=peers, dlbridge=dlbridge, sizes=sizes, cores=cores,
        call_timing=(harness.TimingConfig(repeats=9, warmup=20, min_sample_s=0.002) if args.quick
                     else harness.TimingConfig(repeats=41, warmup=200, min_sample_s=0.01)),
        kernel_timing=(harness.TimingConfig(repeats=5, warmup=1, min_sample_s=0.0) if args.quick
                       else harness.TimingConfig(repeats=15, warmup=2, min_sample_s=0.0)),
        compile_runs=3 if args.quick else 10,
        quick=args.quick,
    )

    started = harness.now()
    rows: list[harness.Row] = []
    runners = {
        "call": lambda: suites.run_call_overhead(ctx),
        "zero-copy": lambda: suites.run_zero_copy(ctx),
        "kernels": lambda: suites.run_kernels(ctx),
        "whole-kernels": lambda: kernels_suite.run_whole_kernels(ctx),
        "compile": lambda: suites.run_compile_time(ctx, build_python or str(Path(dlbridge.__file__).parent.parent)),
        "frameworks": lambda: _framework_rows(ctx.call_timing),
        "gpu": lambda: suites.run_gpu(ctx),
    }
    for name in SECTIONS:
        if name not in sections:
            continue
        t0 = harness.now()
        print(f"[bench] {name} ...", flush=True)
        new_rows = runners[name]()
        rows += new_rows
        print(harness.render_text(new_rows), flush=True)
        print(f"[bench] {name} took {harness.now() - t0:.1f} s", flush=True)
    elapsed = harness.now() - started

    command = "python3 bench/run.py" + (" " + " ".join(sys.argv[1:]) if sys.argv[1:] else "")
    machine = {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
               "cores": cores}
    missed = [r for r in rows if r.target_met is False]
    summary = (f"{len(rows)} rows, {sum(r.target_met is True for r in rows)} targets met, "
               f"{len(missed)} missed, in {elapsed:.0f} s")
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    payload = {
        "command": command, "date": stamp, "mode": "quick" if args.quick else "full",
        "machine": machine, "versions": _versions(peers, dlbridge),
        "unavailable": peers.missing, "elapsed_s": elapsed, "summary": summary,
        "sizes": sizes.__dict__, "rows": [r.to_json() for r in rows],
    }
    (args.out / "latest.json").write_text(json.dumps(payload, indent=1, default=str) + "\n")
    versions = ", ".join(f"{k} {v}" for k, v in payload["versions"].items())
    markdown = (f"Measured {stamp} with `{command}` ({payload['mode']} mode) on {machine['processor']}, "
                f"{cores} cores; {versions}. Times are medians over repeated samples, peers alternated "
                f"in one process; spread is the interquartile range relative to the median. "
                f"dlbridge's loops run on OpenMP threads and its f32/f64 products on NumPy's BLAS.\n\n"
                + harness.render_markdown(rows) + "\n\n" + summary + "\n")
    (args.out / "latest.md").write_text(markdown)
    print(f"\n[bench] {summary}; wrote {args.out / 'latest.json'} and {args.out / 'latest.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
