"""The faults part of ``scripts/bench_reliability.py``: each part of the engine killed mid-session.

A local Ray runs the engine with the scripted judge on the offline web. For each victim, one
``focused`` session runs; once its first round is checkpointed with facts, the victim is killed
as the next page is fetched (Chromium: its processes under the browser pool; every other part:
its actor, which Ray restarts). Survived: the session completes, every fact kept before the kill
is in its result, and no page is fetched twice.
"""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray

from actors.engine import Engine, start_engine
from fathom_ray.models import Event, EventType, ResearchRequest
from fathom_ray.research.session_state import SessionState
from fathom_ray.settings import Settings, load_settings
from fathom_ray.testweb.server import TestWeb
from fathom_ray.web.network import NetworkMap
from tests.ray_state import kill_chromium
from tests.scripted_judge import ScriptedJudge

GOAL = "How does SQLite's write-ahead logging compare with PostgreSQL's, and when did each add it?"
VICTIMS = ("session", "browser", "chromium", "extractor", "judge", "frontier", "memory", "embedder")


def offline_settings(data_dir: Path, network: NetworkMap, **sections: Any) -> Settings:
    """The engine's settings on the offline web for the reliability benches (``sections``: more)."""
    return load_settings(
        data_dir=data_dir,
        fetch={"min_host_delay_s": 0.05, "timeout_s": 5, "allow_hosts": list(network.allowed_hosts)},
        browser={"page_timeout_s": 10},
        search={"backend": "searxng", "searxng_url": "http://search.test", "max_results": 8},
        **sections,
    )


def faults(web: TestWeb, data_dir: Path) -> tuple[list[list[str]], int, int]:
    """A row per victim, how many sessions survived, and the facts lost in all."""
    network = NetworkMap.offline(web.port)
    settings = offline_settings(data_dir, network)
    ray.init(log_to_driver=False)  # with the dashboard: the state API finds Chromium's parent
    try:
        name = f"scripted-judge-{uuid.uuid4().hex[:8]}"
        judge: Any = ray.remote(ScriptedJudge).options(num_cpus=0, name=name, max_restarts=3).remote()
        engine = start_engine(settings, network, judge=name)
        rows, survived, lost = [], 0, 0
        for victim in VICTIMS:
            ray.get(judge.configure.remote(satisfy=False), timeout=120)
            row, ok, facts_lost = _one(engine, victim)
            rows.append(row)
            survived += ok
            lost += facts_lost
        return rows, survived, lost
    finally:
        ray.shutdown()


def _one(engine: Engine, victim: str) -> tuple[list[str], bool, int]:
    session_id = f"f-{victim}-{uuid.uuid4().hex[:6]}"
    actor = engine.spawn_session(session_id, ResearchRequest(GOAL, depth="focused", max_pages=8))
    done = actor.run.remote()
    before: list[SessionState] = []
    killed = threading.Event()
    seen, round_ended = 0, False
    while not ray.wait([done], timeout=0.3)[0]:
        try:
            events: list[Event] = ray.get(actor.events_since.remote(seen), timeout=30)
        except ray.exceptions.RayError:
            continue
        if events:
            seen = events[-1].seq
        round_ended = round_ended or any(e.type is EventType.ROUND_END for e in events)
        if round_ended and not killed.is_set() and any(e.type is EventType.FETCHING for e in events):
            saved = ray.get(engine.handles.memory.load_session.remote(session_id))
            if saved is not None:
                before.append(saved)
            _kill(engine, victim, actor)
            killed.set()
    try:
        state: SessionState = ray.get(done).state
    except ray.exceptions.RayError as e:
        return [victim, "not killed" if not killed.is_set() else f"failed: {type(e).__name__}"], False, 0
    kept = {f.claim for f in before[0].fact_ledger.facts} if before else set()
    after = {f.claim for f in state.fact_ledger.facts}
    fetched = [p.url for p in state.pages if p.status == "ok"]
    twice = len(fetched) - len(set(fetched))
    lost = len(kept - after)
    ok = killed.is_set() and state.status == "complete" and lost == 0 and twice == 0
    outcome = state.status if killed.is_set() else f"{state.status}, ended before the kill"
    return [victim, outcome, str(len(kept)), str(len(after)), str(lost), str(twice)], ok, lost


def _kill(engine: Engine, victim: str, session: Any) -> None:
    if victim == "chromium":
        kill_chromium(engine.handles.browser)
    elif victim == "session":
        ray.kill(session, no_restart=False)
    else:
        ray.kill(getattr(engine.handles, victim), no_restart=False)
