"""The simulated cluster's scenarios, one row each, from ``tests/cluster_run.py`` (a head and two
worker nodes of one CPU on this machine, the workers offering the stand-in resources ``judge_gpu``
and ``browser``). Scenarios not yet run on it are listed as such.

    .venv/bin/python scripts/bench_cluster.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_report import table, write_section

ROOT = Path(__file__).resolve().parents[1]
WANTED = {
    "judge": "judge_gpu node",
    "browser": "browser node",
    "frontier": "head",
    "memory": "head",
    "documents": "head",
    "ledger": "head",
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
    placement, session = report["placement"], report["session"]
    placed = [f"{part} on the {placement.get(part, '?')}" for part in WANTED]
    right = sum(placement.get(part) == node for part, node in WANTED.items())
    doctor_ok = report["doctor"]["rc"] == 0 and "the node offering judge_gpu" in report["doctor"]["out"]
    rows = [
        [
            "placement by resources",
            f"{right} of {len(WANTED)} parts where the plan says ({'; '.join(placed)}); "
            f"extractor on the {placement.get('extractor', '?')}, "
            f"embedder on the {placement.get('embedder', '?')}",
        ],
        [
            "a session on the cluster",
            f"{session['status']}: {session['pages']} pages, {session['facts']} facts "
            "(glance, evidence judge)",
        ],
        ["fathom doctor --address", "prints the same plan" if doctor_ok else "FAILED"],
        ["batch job on the cluster's job server", "not run yet"],
        ["Serve with two replicas on two nodes", "not run yet"],
        ["node loss mid-session", "not run yet (facts before and after)"],
    ]
    body = "\n".join(
        [
            "A head and two worker nodes of one CPU each on this machine (`ray.cluster_utils.Cluster`), "
            "one worker offering `judge_gpu`, the other `browser`; the whole run took "
            f"{seconds:.0f} s.",
            "",
            table(["scenario", "outcome"], rows),
        ]
    )
    write_section("cluster", "The cluster, simulated on one machine", "python scripts/bench_cluster.py", body)


if __name__ == "__main__":
    main()
