"""Timing, statistics and table rendering for ``bench/run.py``.

Every benchmark row is a set of *candidates* (one per peer) timed side by side
in this process: the candidates of a row are calibrated once, then sampled in
rotating order (``repeats`` rounds, each round visiting every candidate once,
starting one further along each time), so that slow drifts of a shared, noisy
machine land on every peer alike instead of on whichever ran last.
"""

from __future__ import annotations

import gc
import statistics
import time
import timeit
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class TimingConfig:
    """How long and how often each candidate is sampled.

    Attributes:
        repeats: samples per candidate (rounds of the rotation).
        warmup: untimed calls before calibration.
        min_sample_s: a sample loops the call until it lasts at least this long,
            so that timer resolution and loop overhead stay negligible.
    """

    repeats: int
    warmup: int
    min_sample_s: float


@dataclass
class Stats:
    """Summary of per-call times in seconds."""

    median: float
    q1: float
    q3: float
    min: float
    max: float
    samples: int
    loops: int

    @classmethod
    def of(cls, times: Sequence[float], loops: int) -> Stats:
        """Median, quartiles and extremes of ``times``."""
        ordered = sorted(times)
        if len(ordered) >= 2:
            q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
        else:
            q1 = q3 = ordered[0]
        return cls(statistics.median(ordered), q1, q3, ordered[0], ordered[-1], len(ordered), loops)

    @property
    def iqr_pct(self) -> float:
        """Interquartile range relative to the median, in percent."""
        return 100.0 * (self.q3 - self.q1) / self.median if self.median else 0.0


@dataclass
class Candidate:
    """One peer's implementation of a row.

    Attributes:
        peer: who runs it ("dlbridge.jit", "NumPy", ...).
        fn: the zero-argument call that is timed (it must block until done).
        threads: how many threads the peer uses for this row, in words.
        note: anything a reader must know to compare it fairly.
        check: optional zero-argument callable returning ``None`` when the
            peer's result is right, or a message when it is not.
    """

    peer: str
    fn: Callable[[], Any]
    threads: str = "1"
    note: str = ""
    check: Callable[[], str | None] | None = None


@dataclass
class Result:
    """A measured (or skipped) cell of the results table."""

    section: str
    row: str
    peer: str
    threads: str
    stats: Stats | None
    baseline: str
    ratio: float | None = None
    note: str = ""
    status: str = "ok"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (times in seconds)."""
        data = asdict(self)
        data["stats"] = None if self.stats is None else asdict(self.stats)
        return data


@dataclass
class Row:
    """A benchmark row: its cells, the baseline and the target verdict."""

    section: str
    name: str
    baseline: str
    results: list[Result] = field(default_factory=list)
    target: str = ""
    target_met: bool | None = None
    verdict: str = ""

    def time_of(self, peer: str) -> float | None:
        """The median of ``peer``'s cell, or ``None`` when it was not measured."""
        for result in self.results:
            if result.peer == peer and result.stats is not None:
                return result.stats.median
        return None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "section": self.section, "row": self.name, "baseline": self.baseline,
            "target": self.target, "target_met": self.target_met, "verdict": self.verdict,
            "results": [r.to_json() for r in self.results],
        }


def _calibrate(fn: Callable[[], Any], min_sample_s: float) -> int:
    """Loop count so that one sample lasts at least ``min_sample_s``."""
    timer = timeit.Timer(fn)
    loops = 1
    while True:
        elapsed = timer.timeit(loops)
        if elapsed >= min_sample_s:
            return loops
        # Aim a bit past the target; at least double.
        scale = min_sample_s / elapsed * 1.2 if elapsed > 0 else 10.0
        loops = max(loops * 2, int(loops * scale))


def measure_row(section: str, name: str, baseline: str, candidates: Sequence[Candidate],
                config: TimingConfig) -> Row:
    """Times ``candidates`` side by side and returns the row with ratios to ``baseline``.

    A candidate whose warm-up or check raises is recorded as failed (with the
    error) instead of aborting the run.
    """
    row = Row(section, name, baseline)
    live: list[tuple[Candidate, timeit.Timer, int]] = []
    for cand in candidates:
        try:
            for _ in range(config.warmup):
                cand.fn()
            problem = cand.check() if cand.check else None
            if problem:
                row.results.append(Result(section, name, cand.peer, cand.threads, None, baseline,
                                          note=f"{cand.note} wrong result: {problem}".strip(),
                                          status="wrong"))
                continue
            loops = _calibrate(cand.fn, config.min_sample_s)
        except Exception as error:  # noqa: BLE001 - a failing peer is a result, not a crash
            row.results.append(Result(section, name, cand.peer, cand.threads, None, baseline,
                                      note=f"failed: {type(error).__name__}: {error}"[:300],
                                      status="failed"))
            continue
        live.append((cand, timeit.Timer(cand.fn), loops))

    samples: dict[str, list[float]] = {cand.peer: [] for cand, _, _ in live}
    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for round_index in range(config.repeats):
            shift = round_index % max(len(live), 1)
            for cand, timer, loops in live[shift:] + live[:shift]:
                samples[cand.peer].append(timer.timeit(loops) / loops)
    finally:
        if gc_was_enabled:
            gc.enable()

    for cand, _, loops in live:
        row.results.append(Result(section, name, cand.peer, cand.threads,
                                  Stats.of(samples[cand.peer], loops), baseline, note=cand.note))
    base = row.time_of(baseline)
    for result in row.results:
        if result.stats is not None and base:
            result.ratio = result.stats.median / base
    return row


def skipped_row(section: str, name: str, peers: Iterable[str], reason: str) -> Row:
    """A row that could not run here (e.g. no GPU), naming the peers it would compare."""
    row = Row(section, name, baseline="")
    for peer in peers:
        row.results.append(Result(section, name, peer, "", None, "", note=reason, status="skipped"))
    row.verdict = reason
    return row


def format_time(seconds: float | None) -> str:
    """A time with a unit that keeps 3–4 significant digits."""
    if seconds is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.0f} ns"


def _cells(result: Result) -> list[str]:
    stats = result.stats
    if stats is None:
        text = result.status
        if result.status != "skipped" and result.note:
            text += ": " + result.note
        return [result.peer, result.threads, "—", "—", "—", text]
    spread = f"IQR {stats.iqr_pct:.1f}% (min {format_time(stats.min)})"
    ratio = "baseline" if result.peer == result.baseline else (
        f"{result.ratio:.2f}×" if result.ratio is not None else "—")
    return [result.peer, result.threads, format_time(stats.median), spread, ratio, result.note]


HEADER = ["peer", "threads", "median", "spread", "vs baseline", "note"]


def render_text(rows: Sequence[Row]) -> str:
    """A fixed-width table for the terminal, one block per row."""
    lines: list[str] = []
    section = None
    for row in rows:
        if row.section != section:
            section = row.section
            lines += ["", f"== {section} " + "=" * max(0, 90 - len(section))]
        verdict = {True: "MET", False: "MISSED", None: "n/a"}[row.target_met]
        lines.append(f"-- {row.name}" + (f"   [target: {row.target} -> {verdict}]" if row.target else ""))
        if row.verdict:
            lines.append(f"   {row.verdict}")
        table = [HEADER] + [_cells(r) for r in row.results]
        widths = [max(len(line[i]) for line in table) for i in range(len(HEADER) - 1)]
        for line in table:
            lines.append("   " + "  ".join(c.ljust(w) for c, w in zip(line[:-1], widths)) + "  " + line[-1])
    return "\n".join(lines)


def render_markdown(rows: Sequence[Row]) -> str:
    """One Markdown table per section: a line per (row, peer), plus the target verdict."""
    out: list[str] = []
    section = None
    for row in rows:
        if row.section != section:
            section = row.section
            out += ["", f"### {section}", "",
                    "| row | peer | threads | median | spread (IQR, min) | vs baseline | target met? | note |",
                    "|---|---|---|---|---|---|---|---|"]
        verdict = {True: "yes", False: "**no**", None: "—"}[row.target_met]
        for index, result in enumerate(row.results):
            cells = _cells(result)
            first = index == 0
            target = (f"{verdict}: {row.target}" if row.target else verdict) if first else ""
            note = cells[5]
            if first and row.verdict:
                note = (row.verdict + ("; " + note if note else ""))
            out.append("| " + " | ".join([row.name if first else "", cells[0], cells[1], cells[2],
                                           cells[3], cells[4], target, note.replace("|", "\\|")]) + " |")
    return "\n".join(out).lstrip("\n")


def now() -> float:
    """A monotonic clock in seconds."""
    return time.perf_counter()
