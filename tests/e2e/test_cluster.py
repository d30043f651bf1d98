"""The engine on a simulated cluster (tests/cluster_run.py, in a process of its own with its own
Ray nodes): a batch job through the head's job server, parts placed where the resources say, one
browser pool per browser node with a session's pages spread over them, Serve replicas on two nodes,
a worker node lost mid-session, and doctor reading the plan."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e
SCRIPT = Path(__file__).resolve().parents[1] / "cluster_run.py"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path_factory.mktemp("cluster") / "data")],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_a_batch_job_runs_through_the_cluster_job_server(report: dict[str, Any]) -> None:
    job = report["job"]
    assert job["status"] == "SUCCEEDED", job["log_tail"]
    assert job["results"] == [{"id": "q1", "status": "complete"}]


def test_parts_are_placed_by_the_resources_nodes_offer(report: dict[str, Any]) -> None:
    placement = report["placement"]
    assert placement["judge"] == "judge_gpu node"
    assert {placement["browser"], placement["browser-2"]} == {"judge_gpu node", "browser node"}
    for owner in ("frontier", "memory", "documents", "ledger"):
        assert placement[owner] == "head"
    doctor = report["doctor"]
    assert doctor["rc"] == 0, doctor["err"]
    assert "the node offering judge_gpu" in doctor["out"]
    assert "one pool on each node offering browser" in doctor["out"]


def test_a_session_fetches_through_the_pools_of_both_browser_nodes(report: dict[str, Any]) -> None:
    session = report["session"]
    assert session["status"] == "complete"
    assert set(session["fetched_by"]) == {"judge_gpu node", "browser node"}
    assert all(count >= 1 for count in session["fetched_by"].values())
    assert sum(session["fetched_by"].values()) >= session["pages"]


def test_serve_replicas_on_two_nodes_both_answer(report: dict[str, Any]) -> None:
    serve = report["serve"]
    assert len(serve["answered"]) == 2
    assert len(set(serve["answered"].values())) == 2  # two replicas, two nodes


def test_a_node_lost_mid_session_loses_no_fact_and_fetches_nothing_twice(report: dict[str, Any]) -> None:
    lost = report["node_loss"]
    assert lost["removed_mid_session"]
    assert "cluster-lost-node" in lost["held"]  # the session itself was on the lost node
    assert all(where not in {"gone", "browser node"} for where in lost["moved_to"].values())
    assert lost["status"] == "complete", lost["stop_reason"]
    assert lost["facts_before"] >= 1
    assert lost["facts_lost"] == 0
    assert lost["facts_after"] >= lost["facts_before"]
    assert lost["pages_after"] >= lost["pages_before"]
    assert lost["fetched_twice"] == 0
