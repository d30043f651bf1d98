"""Batch research submitted as a Ray job to the local cluster the tests started (its job server)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ray.job_submission import JobStatus, JobSubmissionClient

pytestmark = [pytest.mark.e2e]
ROOT = Path(__file__).resolve().parents[2]
AGENT_WAIT_S = 120


def test_batch_research_as_a_ray_job(dashboard_url: str, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        '{"id": "q1", "question": "Which Python version introduced assignment expressions?"}\n'
        '{"id": "q2", "question": "When did SQLite add write-ahead logging?"}\n'
    )
    out = tmp_path / "results.jsonl"
    client = JobSubmissionClient(dashboard_url)
    job = _submit(
        client,
        entrypoint=(
            f"{sys.executable} scripts/batch_research.py {questions} --out {out} --web offline --depth glance"
        ),
        runtime_env={"working_dir": str(ROOT), "env_vars": {"FATHOM_DATA_DIR": str(tmp_path / "data")}},
    )
    deadline = time.monotonic() + 600
    while client.get_job_status(job) not in {JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.STOPPED}:
        assert time.monotonic() < deadline, client.get_job_logs(job)[-3000:]
        time.sleep(2)
    logs = client.get_job_logs(job)
    assert client.get_job_status(job) == JobStatus.SUCCEEDED, logs[-3000:]
    assert "2 questions to run" in logs
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == ["q1", "q2"]
    assert all(line["status"] == "complete" for line in lines)


def _submit(client: JobSubmissionClient, **job: Any) -> str:
    """Submit once the head node's job agent is up: the dashboard answers before it, and on a busy
    machine the agent can take a minute ("No available agent to submit job, please try again later")."""
    deadline = time.monotonic() + AGENT_WAIT_S
    while True:
        try:
            return client.submit_job(**job)
        except RuntimeError as e:
            if "No available agent" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(2)
