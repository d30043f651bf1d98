"""Start-up: a quick research on the offline web, cold (its own engine) and attached (`fathom up`),
beside the same command of an earlier commit ("before"), in the same run.

The earlier commit is checked out into a temporary git worktree and run by this interpreter with
that tree first on PYTHONPATH and as the working directory, so both use the same packages: Ray's
workers put the driver's working directory first on their path, so a "before" command started
from this checkout ran its actors on this checkout's code (runs before 2026-12-04 did). Runs
alternate (before, now cold, now attached) and each takes the median over the rounds. For every
run: the command's wall time, the session's own seconds (result.json) and the rest (start-up and
shut-down: Ray, the actors, Chromium, the models, the stores). Then each part's start-up time now,
from ``fathom doctor --timings``, cold and attached.

    .venv/bin/python scripts/bench_startup.py [--rounds 3] [--before b54653b]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_report import table, write_section

ROOT = Path(__file__).resolve().parents[1]
GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"
BEFORE = "b54653b"  # main before issue 30: every command started its own engine
CLI = "import sys; from fathom_ray.cli.app import main; sys.argv[0] = 'fathom'; main()"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default=BEFORE, help="the earlier commit to compare with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fathom-bench-startup-") as scratch:
        base = Path(scratch)
        before = base / "before-tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.before], check=True
        )
        try:
            runs, parts = _measure(base, before, args.rounds)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=False
            )
    write_section(
        "startup",
        "Start-up: a command on its own engine, or attached to one",
        "python scripts/bench_startup.py",
        _body(runs, parts, args.rounds, args.before),
    )


def _measure(
    base: Path, before: Path, rounds: int
) -> tuple[dict[str, list[tuple[float, float]]], dict[str, object]]:
    runs: dict[str, list[tuple[float, float]]] = {"before": [], "cold": [], "attached": []}
    kept = base / "kept"  # the data folder of the engine `fathom up` keeps
    for n in range(rounds):
        runs["before"].append(_research(before, base / f"before-{n}"))
        runs["cold"].append(_research(ROOT, base / f"cold-{n}"))
        _fathom(ROOT, kept, "up", "--web", "offline")
        try:
            runs["attached"].append(_research(ROOT, base / f"attached-{n}", data=kept))
        finally:
            _fathom(ROOT, kept, "down")
    parts: dict[str, object] = {"cold": _timings(base / "timings-cold")}
    _fathom(ROOT, kept, "up", "--web", "offline")
    try:
        parts["attached"] = _timings(kept)
    finally:
        _fathom(ROOT, kept, "down")
    return runs, parts


def _env(tree: Path, data: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(tree),
        "FATHOM_DATA_DIR": str(data),
        "FATHOM_RESEARCH__SEED": "7",
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
    }


def _fathom(tree: Path, data: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CLI, *args],
        env=_env(tree, data),
        cwd=tree,  # Ray's workers import from the driver's working directory first
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"fathom {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done.stdout


def _research(tree: Path, out: Path, data: Path | None = None) -> tuple[float, float]:
    """(the command's wall seconds, the session's own seconds) of one quick research."""
    started = time.monotonic()
    _fathom(
        tree,
        data or out / "data",
        "research",
        GOAL,
        "--web",
        "offline",
        "--depth",
        "quick",
        "--out",
        str(out),
    )
    wall = time.monotonic() - started
    result = json.loads((out / "result.json").read_text())
    assert result["facts"], f"no facts in {out}"
    return wall, float(result["usage"]["session_s"])


def _timings(data: Path) -> list[tuple[str, float]]:
    said = _fathom(ROOT, data, "doctor", "--timings", "--web", "offline", "--json")
    return [(part, float(seconds)) for part, seconds in json.loads(said.strip().splitlines()[-1])]


def _body(
    runs: dict[str, list[tuple[float, float]]], parts: dict[str, object], rounds: int, before: str
) -> str:
    def median(kind: str, pick: int) -> float:
        return statistics.median(run[pick] for run in runs[kind])

    names = {
        "before": f"before (`{before}`): its own engine (baseline)",
        "cold": "now, cold: its own engine",
        "attached": "now, attached to `fathom up`'s engine (the session in its process, through its door)",
    }
    rows = []
    for kind, name in names.items():
        wall, session = median(kind, 0), median(kind, 1)
        rest = statistics.median(run[0] - run[1] for run in runs[kind])
        rows.append(
            (
                name,
                f"{wall:.1f}",
                f"{session:.1f}",
                f"{rest:.1f}",
                f"{wall / median('before', 0):.2f}",
                f"{rest / statistics.median(r[0] - r[1] for r in runs['before']):.2f}",
            )
        )
    attached_vs_cold = median("attached", 0) / median("cold", 0)
    lines = [
        f"`fathom research` of the README's goal at `quick` on the offline web, {rounds} rounds, medians; "
        "each round runs before, now cold and now attached in turn (an engine `fathom up` started for "
        'the round, stopped after it). "Outside the session" is the command\'s wall time less the '
        "session's own seconds: Ray, the actors, Chromium, the models and the stores starting and "
        "stopping.",
        "",
        table(
            (
                "command",
                "wall s",
                "session s",
                "outside the session s",
                "wall ratio to before",
                "outside ratio to before",
            ),
            rows,
        ),
        "",
        f"Attached against cold, now: {attached_vs_cold:.2f}x the wall time.",
        "",
        "An attached `fathom research` runs its session in the kept engine's process, through the "
        "engine's door (a Unix socket; `actors/engine_door.py`): the command loads no Ray, so what it "
        "pays outside the session is its own start (Python, the CLI) and the socket.",
        "",
        "Each part's start-up now (`fathom doctor --timings --web offline`): cold, the seconds until each "
        "part was ready from the parts' start (Ray before them); attached, the kept engine's own and "
        "what attaching through Ray costs a command that joins the engine's cluster (docs, ask, eval).",
        "",
    ]
    for kind in ("cold", "attached"):
        timed = parts[kind]
        assert isinstance(timed, list)
        lines += [f"{kind}:", "", table(("part", "seconds"), [(p, f"{s:.2f}") for p, s in timed]), ""]
    return "\n".join(lines).rstrip()


if __name__ == "__main__":
    main()
