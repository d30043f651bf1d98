"""Swarm mode on a real engine with the scripted judge: the coordinator actor, its researchers as
Session actors it owns, the ledger, and what killing the coordinator leaves behind (nothing)."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
import ray
from ray.util.state import list_actors

from actors.coordinator import coordinator_actor, run_swarm
from actors.engine import Engine
from fathom_ray.models import ResearchRequest
from fathom_ray.swarm.task_ledger import RecordKind, read

pytestmark = [pytest.mark.e2e]
GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"
PARTS = ["Which Python version introduced assignment expressions?", "Who wrote the PEP?"]


def alive(prefix: str) -> list[str]:
    actors = list_actors(filters=[("state", "=", "ALIVE")], limit=1000)
    return [str(a.name) for a in actors if (a.name or "").startswith(prefix)]


def test_a_swarm_runs_its_researchers_and_writes_its_ledger(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(questions=[GOAL, *PARTS]))
    swarm_id = f"w-{uuid.uuid4().hex[:8]}"
    result = run_swarm(engine, ResearchRequest(GOAL, depth="quick", max_pages=6), swarm_id, 2)
    complete = {a["agent"] for a in result.agents if a["status"] == "complete"}
    assert {"r1-researcher-1", "r1-researcher-2"} <= complete
    assert result.facts
    assert result.receipts
    records = read(engine.settings.data_dir / "ledger", swarm_id)
    assert records[0].kind is RecordKind.PLAN
    assert records[-1].kind is RecordKind.COMPLETION
    assert not alive(swarm_id)  # the researchers ended with their coordinator


def test_killing_the_coordinator_leaves_no_actor_of_the_swarm(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(questions=[GOAL, *PARTS]))
    swarm_id = f"w-{uuid.uuid4().hex[:8]}"
    request = ResearchRequest(GOAL, depth="focused", max_pages=12)
    coordinator = coordinator_actor().remote(
        engine.settings, swarm_id, request, 2, engine.directory, engine.network
    )
    done = coordinator.run.remote()
    deadline = time.monotonic() + 120
    while not alive(swarm_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert alive(swarm_id)  # its researchers run, by name
    ray.kill(coordinator, no_restart=True)
    with pytest.raises(ray.exceptions.RayActorError):
        ray.get(done, timeout=60)
    deadline = time.monotonic() + 60
    while alive(swarm_id) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not alive(swarm_id)
