"""What bench/gpu.py's sections share: rows of candidates, and timers that
measure GPU work with CUDA events or the host clock."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch


@dataclass
class Candidate:
    """One peer's result in a row: a time per call, or why there is none."""

    peer: str
    seconds: float | None = None
    metric: str = ""
    note: str = ""


@dataclass
class Row:
    """Candidates of one benchmark, with the target and whether it was met."""

    name: str
    target: str
    candidates: list[Candidate] = field(default_factory=list)
    met: bool | None = None
    verdict: str = ""


def gpu_time(fn: Callable[[], Any], iterations: int, repeats: int) -> float:
    """Median seconds per call of ``fn`` on the GPU (CUDA events around
    ``iterations`` calls), after warm-up calls."""
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    # Slow candidates (a scan that launches per step) get fewer calls per sample.
    iterations = max(1, min(iterations, int(0.05 / max(time.perf_counter() - start, 1e-9))))
    samples = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iterations):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / 1e3 / iterations)
    return statistics.median(samples)


def host_time(fn: Callable[[], Any], iterations: int, repeats: int) -> float:
    """Median wall seconds per call of ``fn`` issued back to back from Python,
    the GPU drained after each sample: what a launch costs the caller."""
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        samples.append((time.perf_counter() - start) / iterations)
        torch.cuda.synchronize()
    return statistics.median(samples)


def measure(row: Row, peer: str, make: Callable[[], Callable[[], Any]], timer: Callable[[Callable[[], Any]], float],
            metric: Callable[[float], str] = lambda s: "", note: str = "") -> Candidate:
    """Times ``make()``'s callable with ``timer``; a peer that fails to build or
    run is recorded with the reason instead of ending the run."""
    candidate = Candidate(peer, note=note)
    try:
        fn = make()
        candidate.seconds = timer(fn)
        candidate.metric = metric(candidate.seconds)
    except Exception as error:  # a missing or failing peer is reported, not fatal
        candidate.note = f"failed: {type(error).__name__}: {str(error).splitlines()[0][:160]}"
    row.candidates.append(candidate)
    return candidate


def seconds_of(row: Row, peer: str) -> float | None:
    return next((c.seconds for c in row.candidates if c.peer == peer), None)
