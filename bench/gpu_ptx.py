"""What the PTX of bench/gpu.py's kernels shows, on a machine with no GPU: for
the contiguous specialisation a call on compact CUDA tensors runs, each
kernel's block size, global load and store widths, whether it uses shared
memory, and its instruction count. For predicting a change's effect before a
GPU measures it.

    PYTHONPATH=build/python python3 bench/gpu_ptx.py [--chip sm_90] [--dump DIR] [NAME ...]
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path
from typing import Any

import dlbridge
import gpu
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ASSEMBLY = re.compile(r'assembly = "((?:[^"\\]|\\.)*)"')
ENTRY = re.compile(r"\.entry (\w+)\(.*?\n\}", re.S)


def cases() -> dict[str, tuple[Any, tuple[np.ndarray, ...]]]:
    """Each bench kernel with host arrays shaped like the benchmark's."""
    vector = np.ones(1 << 20, np.float32)
    rows = np.ones((4096, 16384), np.float32)
    gamma = np.ones(16384, np.float32)
    return {
        "add3": (gpu.add3, (vector, vector, vector)),
        "scale_shift": (gpu.scale_shift, (vector,)),
        "gelu_tanh": (gpu.gelu_tanh, (vector,)),
        "gelu_erf": (gpu.gelu_erf, (vector,)),
        "silu": (gpu.silu, (vector,)),
        "softplus": (gpu.softplus, (vector,)),
        "row_sum": (gpu.row_sum, (rows,)),
        "softmax": (gpu.softmax, (rows,)),
        "softmax_f16": (gpu.softmax, (rows.astype(np.float16),)),
        "log_softmax": (gpu.log_softmax, (rows,)),
        "logsumexp": (gpu.logsumexp, (rows,)),
        "layer_norm": (gpu.layer_norm, (rows, gamma, gamma)),
        "rms_norm": (gpu.rms_norm, (rows, gamma)),
        "column_sum": (gpu.column_sum, (rows,)),
        "middle_sum": (gpu.middle_sum, (rows.reshape(64, 64, 16384),)),
        "cumsum_rows": (gpu.cumsum_rows, (rows,)),
        "cumsum_columns": (gpu.cumsum_columns, (rows,)),
    }


def unescape(text: str) -> str:
    """MLIR's string escapes (``\\0A``, ``\\22``) decoded."""
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text).replace("\\\\", "\\")


def kernel_ptx(fn: Any, args: tuple[np.ndarray, ...], chip: str) -> str:
    """The PTX of the contiguous specialisation of ``fn`` for arguments like ``args``."""
    source = dlbridge.jit(fn.__wrapped__, target="cuda").inspect(*args)["input"]
    pipeline = f"--dlbridge-cuda-pipeline=identity-layouts=true chip={chip} format=isa"
    lowered = subprocess.run([str(ROOT / "build/bin/dl-opt"), "-", pipeline], input=source, text=True,
                             capture_output=True, check=True).stdout
    return "\n".join(unescape(m.group(1)) for m in ASSEMBLY.finditer(lowered))


def facts(ptx: str) -> list[str]:
    """One line per kernel of ``ptx``."""
    lines = []
    for match in ENTRY.finditer(ptx):
        body = match.group(0)
        block = re.search(r"\.maxntid (\d+), (\d+), (\d+)", body)
        loads = sorted(set(re.findall(r"ld\.global(?:\.\w+)*?\.(v\d\.)?[a-z]+(\d+)", body)))
        stores = sorted(set(re.findall(r"st\.global(?:\.\w+)*?\.(v\d\.)?[a-z]+(\d+)", body)))
        instructions = sum(1 for line in body.splitlines() if re.match(r"\s+[a-z@]", line))
        width = lambda pairs: ",".join(f"{v or ''}{b}" for v, b in pairs) or "-"  # noqa: E731
        lines.append(f"  {match.group(1)}: block {block.groups() if block else '?'}, loads {width(loads)}, "
                     f"stores {width(stores)}, shared {'yes' if '.shared' in body else 'no'}, "
                     f"{instructions} instructions")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="kernels to show (default: all)")
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--dump", type=Path, help="write each kernel's PTX to DIR/NAME.ptx")
    args = parser.parse_args()
    for name, (fn, arrays) in cases().items():
        if args.names and name not in args.names:
            continue
        ptx = kernel_ptx(fn, arrays, args.chip)
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            (args.dump / f"{name}.ptx").write_text(ptx)
        kernels = facts(ptx)
        print(f"{name}: {len(kernels)} kernel(s)")
        print("\n".join(kernels))


if __name__ == "__main__":
    main()
