"""The simulated cluster's scenarios, one row each, from ``tests/cluster_run.py`` (a head and two
worker nodes of one CPU on this machine, one worker offering the stand-in resources ``judge_gpu``
and ``browser``, the other ``browser``).

    .venv/bin/python scripts/bench_cluster.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_report import table, write_section

ROOT = Path(__file__).resolve().parents[1]
WANTED = {
    "judge": {"judge_gpu node"},
    "browser": {"judge_gpu node", "browser node"},
    "browser-2": {"judge_gpu node", "browser node"},
    "frontier": {"head"},
    "memory": {"head"},
    "documents": {"head"},
    "ledger": {"head"},
}


def main() -> None:
    with tempfile.TemporaryDirectory() as data:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(ROOT / "tests" / "cluster_run.py"), data],
            capture_output=True,
            text=True,
            timeout=900,
            check=True,
        )
        seconds = time.monotonic() - started
    report = json.loads(done.stdout.strip().splitlines()[-1])
    body = "\n".join(
        [
            "A head and two worker nodes of one CPU each on this machine (`ray.cluster_utils.Cluster`), "
            "one worker offering `judge_gpu` and `browser`, the other `browser`; the scenarios run in "
            f"this order, the whole run took {seconds:.0f} s.",
            "",
            table(["scenario", "outcome"], rows(report)),
        ]
    )
    write_section("cluster", "The cluster, simulated on one machine", "python scripts/bench_cluster.py", body)


def rows(report: dict[str, Any]) -> list[list[str]]:
    placement, session, job = report["placement"], report["session"], report["job"]
    pools = {placement.get("browser", "?"), placement.get("browser-2", "?")}
    right = sum(placement.get(part) in nodes for part, nodes in WANTED.items()) - (len(pools) < 2)
    placed = [f"{part} on the {placement.get(part, '?')}" for part in WANTED]
    doctor_ok = report["doctor"]["rc"] == 0 and "the node offering judge_gpu" in report["doctor"]["out"]
    answered = report["serve"]["answered"]
    lost = report["node_loss"]
    fetched = ", ".join(f"{n} by the {node}'s pool" for node, n in sorted(session["fetched_by"].items()))
    return [
        [
            "batch job on the head's job server",
            f"{job['status']}: " + ", ".join(f"{r['id']} {r['status']}" for r in job["results"]),
        ],
        [
            "placement by resources",
            f"{right} of {len(WANTED)} parts where the plan says ({'; '.join(placed)}); "
            f"extractor on the {placement.get('extractor', '?')}, "
            f"embedder on the {placement.get('embedder', '?')}",
        ],
        [
            "a session over both browser nodes",
            f"{session['status']}: {session['pages']} pages, {session['facts']} facts (quick, evidence "
            f"judge); pages fetched: {fetched}",
        ],
        [
            "Serve, 2 replicas",
            f"{len(answered)} replicas answered /status, on " + " and ".join(sorted(set(answered.values()))),
        ],
        [
            "node loss mid-session",
            f"the browser node removed after round 1 (it held {', '.join(lost['held'])}); "
            f"{lost['status']} ({lost['stop_reason']}); facts {lost['facts_before']} before, "
            f"{lost['facts_after']} after, {lost['facts_lost']} lost; pages {lost['pages_before']} "
            f"before, {lost['pages_after']} after, {lost['fetched_twice']} fetched twice",
        ],
        ["fathom doctor --address", "prints the same plan" if doctor_ok else "FAILED"],
    ]


if __name__ == "__main__":
    main()
