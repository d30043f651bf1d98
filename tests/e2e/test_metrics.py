"""Engine metrics read back from Ray's metrics endpoint after a session and judge calls."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
import ray

from actors.engine import Engine, run_session
from actors.judge import judge_actor
from fathom_ray.models import ResearchRequest
from fathom_ray.settings import LLMSettings
from tests.fakes import ScriptedBackend

pytestmark = [pytest.mark.e2e]
NAMES = (
    "ray_fathom_pages_total",
    "ray_fathom_facts_total",
    "ray_fathom_sessions_finished_total",
    "ray_fathom_round_seconds",
    "ray_fathom_judge_calls_total",
    "ray_fathom_judge_tokens_total",
)


def test_metrics_reach_the_metrics_endpoint(scripted_engine: tuple[Engine, Any], metrics_url: str) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    run_session(
        engine, ResearchRequest("Which Python version introduced assignment expressions?", "glance"), "m-1"
    )
    settings = LLMSettings(max_retries=0)
    answer = json.dumps({"questions": ["Which version?"]})
    service = judge_actor(settings).remote(settings, backend_factory=lambda _: ScriptedBackend([answer]))
    assert ray.get(service.decompose.remote("a goal to split", 3)).ok
    deadline, missing = time.monotonic() + 60, set(NAMES)
    while missing and time.monotonic() < deadline:
        text = httpx.get(metrics_url, timeout=5).text
        missing = {name for name in NAMES if not any(line.startswith(name) for line in text.splitlines())}
        time.sleep(2)
    assert not missing
    ray.kill(service)
