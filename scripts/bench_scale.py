"""Agents at once on one machine: sessions per minute and the judge's batch, at 1, 2, 4 and 8.

For each concurrency N, a fresh engine (its own empty stores) on the offline web runs the first
``--questions`` questions of the dev set at ``--depth`` as research sessions, N at a time (the
researchers of a swarm are such sessions on a shared engine). Measured: sessions finished per
minute of wall time, its ratio to N = 1 in the same run, and the judge's batch: the calls in
flight at the Judge actor, sampled every 0.1 s while any is (the mean and the peak). The curve is
plotted to docs/eval/scale.png.

    .venv/bin/python scripts/bench_scale.py [--depth quick] [--questions 8] [--agents 1 --agents 2 ...]
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import ray
from bench_report import table, write_section

from fathom_ray.cli.evaluation import run_one
from fathom_ray.cli.running import running_engine
from fathom_ray.evaluation.questions import EvalQuestion, parse_questions
from fathom_ray.evaluation.run import evaluate
from fathom_ray.settings import load_settings
from fathom_ray.testweb.server import TestWeb
from fathom_ray.web.network import NetworkMap, settings_for

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "tests" / "data" / "dev_questions.jsonl"
PLOT = ROOT / "docs" / "eval" / "scale.png"
SAMPLE_S = 0.1


class JudgeSampler:
    """The Judge actor's calls in flight, sampled on a thread while the runs go."""

    def __init__(self, judge: Any) -> None:
        self._judge, self.samples, self._stop = judge, list[int](), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> JudgeSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            in_flight, _ = ray.get(self._judge.load.remote(), timeout=30)
            self.samples.append(int(in_flight))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", default="quick")
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--agents", type=int, action="append")
    args = parser.parse_args()
    levels = args.agents or [1, 2, 4, 8]
    questions, _ = parse_questions(DEV.read_text(encoding="utf-8").splitlines())
    questions = questions[: args.questions]
    base = Path(tempfile.mkdtemp(prefix="fathom-bench-scale-"))
    rows = [_measure(level, questions, base, args.depth) for level in levels]
    first = rows[0]["per_minute"]
    body = "\n".join(
        [
            f"The first {len(questions)} dev questions at `{args.depth}` as research sessions, N at a time "
            "on one engine (fresh stores for each N) on the offline web with the evidence judge; the judge's "
            f"batch is its calls in flight, sampled every {SAMPLE_S:g} s while any was:",
            "",
            table(
                [
                    "agents at once",
                    "sessions",
                    "wall s",
                    "sessions per minute",
                    "ratio to 1",
                    "judge batch (mean)",
                    "judge batch (peak)",
                ],
                [
                    [
                        int(r["agents"]),
                        int(r["sessions"]),
                        f"{r['wall_s']:.1f}",
                        f"{r['per_minute']:.2f}",
                        f"{r['per_minute'] / first:.2f}",
                        f"{r['batch_mean']:.2f}",
                        int(r["batch_peak"]),
                    ]
                    for r in rows
                ],
            ),
            "",
            f"![sessions per minute and judge batch by agents at once](eval/{PLOT.name})",
        ]
    )
    _plot(rows)
    write_section("scale", "Scale: agents at once on one machine", "python scripts/bench_scale.py", body)


def _measure(level: int, questions: list[EvalQuestion], base: Path, depth: str) -> dict[str, float]:
    """``questions`` run ``level`` at a time on a fresh engine: sessions per minute, the judge's batch."""
    settings = load_settings(data_dir=base / f"data-{level}")
    with contextlib.ExitStack() as stack:
        web = stack.enter_context(TestWeb())
        network = NetworkMap.offline(web.port)
        engine = stack.enter_context(
            running_engine(settings_for(settings, network), network, None, "scale", print)
        )
        with JudgeSampler(engine.handles.judge) as sampler:
            started = time.monotonic()
            summary = evaluate(
                questions,
                ["fathom"],
                base / f"runs-{level}",
                lambda question, method: run_one(engine, question, method, depth),
                concurrency=level,
                report=print,
            )
            wall = time.monotonic() - started
    busy = [s for s in sampler.samples if s > 0]
    done = summary["methods"]["fathom"]["completed"]
    return {
        "agents": level,
        "sessions": done,
        "wall_s": wall,
        "per_minute": done / wall * 60,
        "batch_mean": sum(busy) / len(busy) if busy else 0.0,
        "batch_peak": max(busy, default=0),
    }


def _plot(rows: list[dict[str, float]]) -> None:
    agents = [r["agents"] for r in rows]
    figure, left = plt.subplots(figsize=(6, 3.6))
    left.plot(agents, [r["per_minute"] for r in rows], marker="o", color="tab:blue")
    left.set_xlabel("agents at once")
    left.set_ylabel("sessions per minute", color="tab:blue")
    left.set_xscale("log", base=2)
    left.set_xticks(agents, [str(int(a)) for a in agents])
    right = left.twinx()
    right.plot(agents, [r["batch_mean"] for r in rows], marker="s", color="tab:orange")
    right.set_ylabel("judge calls in flight (mean)", color="tab:orange")
    figure.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(PLOT, dpi=110)
    plt.close(figure)


if __name__ == "__main__":
    main()
