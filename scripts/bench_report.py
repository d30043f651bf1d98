"""Shared by the benchmark scripts: print a markdown table and keep it in docs/benchmarks.md.

Each benchmark owns one section, between ``<!-- bench:NAME -->`` markers,
rewritten on every run; the rest of the file is left as it is.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
HEADER = """# Benchmarks

Every table is written by the script named under it, on the machine it names. Machines here are
shared and noisy, so each result is read as a ratio against a baseline measured in the same run.
"""


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def write_section(name: str, title: str, command: str, body: str) -> None:
    """Replace (or append) the section ``name`` of docs/benchmarks.md and print it."""
    stamp = time.strftime("%Y-%m-%d")
    machine = f"{platform.machine()}, {_cpus()} CPUs, Python {platform.python_version()}"
    section = (
        f"<!-- bench:{name} -->\n## {title}\n\n{body}\n\n"
        f"Produced by `{command}` on {stamp} ({machine}).\n<!-- /bench:{name} -->"
    )
    print(section)
    text = DOC.read_text() if DOC.exists() else HEADER
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    if start in text and end in text:
        text = text[: text.index(start)] + section + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text)


def _cpus() -> int:
    return len(os.sched_getaffinity(0))


def cpu_times() -> tuple[int, int]:
    """(busy, idle) clock ticks of all cores since boot."""
    first = Path("/proc/stat").read_text(encoding="ascii").splitlines()[0]
    ticks = [int(t) for t in first.split()[1:8]]  # user nice system idle iowait irq softirq
    idle = ticks[3] + ticks[4]  # idle, iowait
    return sum(ticks) - idle, idle


def busy_seconds(before: tuple[int, int], after: tuple[int, int]) -> float:
    """CPU-seconds the machine's cores spent busy between two ``cpu_times``, all processes."""
    return (after[0] - before[0]) / os.sysconf("SC_CLK_TCK")


def busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    busy, idle = after[0] - before[0], after[1] - before[1]
    return busy / (busy + idle) if busy + idle else 0.0
