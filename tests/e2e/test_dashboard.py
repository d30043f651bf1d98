"""`fathom serve` as a user starts it: the Ray dashboard on its port with the engine's actors under
readable names, the metrics endpoint with the fathom_* series after a session, `fathom metrics`
and `fathom doctor` reading them, and the API's /status linking the dashboard."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.net import free_port, interrupt, wait_until_healthy

pytestmark = [pytest.mark.e2e]
FATHOM = str(Path(sys.executable).parent / "fathom")
GOAL = {"goal": "Which Python version introduced assignment expressions?", "depth": "glance"}


def names_in(payload: Any) -> list[str]:
    """Every actor name in an answer of the dashboard's state API, wherever it nests them."""
    if isinstance(payload, dict):
        found = [str(payload["name"])] if payload.get("name") and "actor_id" in payload else []
        return found + [n for value in payload.values() for n in names_in(value)]
    if isinstance(payload, list):
        return [n for item in payload for n in names_in(item)]
    return []


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    ports = {"api": free_port(), "dashboard": free_port(), "metrics": free_port()}
    env = {
        **{k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"},
        "FATHOM_DATA_DIR": str(tmp_path_factory.mktemp("served")),
        "FATHOM_RAY__DASHBOARD_PORT": str(ports["dashboard"]),
        "FATHOM_RAY__METRICS_PORT": str(ports["metrics"]),
        "FATHOM_API__MAX_SESSIONS": "1",
    }
    process = subprocess.Popen(
        [FATHOM, "serve", "--web", "offline", "--port", str(ports["api"])],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout or []), daemon=True)
    reader.start()
    api = f"http://127.0.0.1:{ports['api']}"
    try:
        wait_until_healthy(api, timeout_s=300)
        yield {"api": api, "ports": ports, "lines": lines, "env": env}
    finally:
        interrupt(process)
        reader.join(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def test_serve_prints_and_runs_its_dashboard_with_named_actors(served: dict[str, Any]) -> None:
    dashboard = f"http://127.0.0.1:{served['ports']['dashboard']}"
    assert any(f"Ray dashboard: {dashboard}" in line for line in served["lines"])
    with httpx.Client(base_url=served["api"], timeout=60) as client:
        assert client.get("/status").json()["dashboard_url"] == dashboard
        health = client.get("/health").json()  # the offline web: the page says where its links lead
        assert health == {"status": "ok", "dashboard_url": dashboard, "web": "offline"}
        session_id = client.post("/research", json=GOAL).json()["id"]
        deadline = time.monotonic() + 180
        while client.get(f"/research/{session_id}").json()["status"] == "running":
            assert time.monotonic() < deadline
            time.sleep(1)
    names = names_in(httpx.get(f"{dashboard}/api/v0/actors", params={"limit": 1000}, timeout=30).json())
    for part in ("judge", "browser", "frontier", "memory", "extractor", "embedder", "documents", "ledger"):
        assert any(n.startswith("fathom-") and n.endswith(f"-{part}") for n in names), part
    assert session_id in names  # the session's actor, by its id
    served["session"] = session_id


def test_the_metrics_endpoint_and_fathom_metrics_show_the_session(served: dict[str, Any]) -> None:
    metrics = f"http://127.0.0.1:{served['ports']['metrics']}/metrics"
    wanted = ("ray_fathom_pages_total", "ray_fathom_judge_calls_total", "ray_fathom_sessions_finished_total{")
    deadline, text = time.monotonic() + 120, ""
    while time.monotonic() < deadline:  # each worker exports on its own schedule: wait for every series
        text = httpx.get(metrics, timeout=10).text
        finished = [line for line in text.splitlines() if line.startswith(wanted[2])]
        if all(name in text for name in wanted) and any('status="complete"' in line for line in finished):
            break
        time.sleep(2)
    for name in wanted:
        assert name in text
    shown = subprocess.run(
        [FATHOM, "metrics", "--url", metrics],
        env=served["env"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "sessions finished: complete" in shown.stdout
    doctor = subprocess.run(
        [FATHOM, "doctor"], env=served["env"], capture_output=True, text=True, timeout=60, check=False
    )
    assert f"answers at http://127.0.0.1:{served['ports']['dashboard']}" in doctor.stdout
