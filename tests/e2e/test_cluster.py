"""The engine on a simulated cluster (tests/cluster_run.py, in a process of its own with its own
Ray nodes): its parts land where the resources say, a session completes, doctor reads the plan."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
SCRIPT = Path(__file__).resolve().parents[1] / "cluster_run.py"


def test_parts_are_placed_by_the_resources_nodes_offer(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    placement = report["placement"]
    assert placement["judge"] == "judge_gpu node"
    assert placement["browser"] == "browser node"
    for owner in ("frontier", "memory", "documents", "ledger"):
        assert placement[owner] == "head"
    assert report["session"]["status"] == "complete"
    assert report["session"]["pages"] >= 1
    doctor = report["doctor"]
    assert doctor["rc"] == 0, doctor["err"]
    assert "the node offering judge_gpu" in doctor["out"]
    assert "a node offering browser" in doctor["out"]
