"""A store that turns read-only or full mid-session: the session stops with a clear error and what
the stores took before stays readable.

The engine's data folder is a small tmpfs of its own, made immutable (``chattr -R +i``: writes
fail even through files already open, as on a volume gone read-only) or filled up once the
session's first round is checkpointed. Mounting needs the privilege to; without it these tests skip.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from actors.engine import Engine, run_session, start_engine
from actors.ray_errors import failure_reason
from fathom_ray.models import Event, EventType, ResearchRequest
from fathom_ray.research.session_state import FAILED, RUNNING, SessionState
from fathom_ray.web.network import NetworkMap
from serve.ray_sessions import RaySessionManager
from tests.e2e.conftest import e2e_settings
from tests.scripted_judge import ScriptedJudge

pytestmark = [pytest.mark.e2e]
GOAL = "How does SQLite's write-ahead logging compare with PostgreSQL's, and when did each add it?"
SIZE = "256m"


def _mount(*args: str) -> bool:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False, timeout=30)
    return done.returncode == 0


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("tmpfs")
    if not _mount("-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(folder)):
        pytest.skip("cannot mount a tmpfs here (no privilege to)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, timeout=30)


@pytest.fixture(scope="module")
def engine(data_dir: Path, offline_network: NetworkMap, ray_session: None) -> Iterator[Engine]:
    name = f"scripted-judge-{uuid.uuid4().hex[:8]}"
    judge: Any = ray.remote(ScriptedJudge).options(num_cpus=0, name=name).remote()
    ray.get(judge.configure.remote(satisfy=False))
    started = start_engine(e2e_settings(data_dir / "data", offline_network), offline_network, judge=name)
    yield started
    with contextlib.suppress(ray.exceptions.RayError):
        ray.get(started.handles.browser.stop.remote(), timeout=60)
    for field in dataclasses.fields(started.handles):
        ray.kill(getattr(started.handles, field.name))
    ray.kill(judge)


def _fill(folder: Path) -> None:
    """Write zeros until the tmpfs is full."""
    with (folder / "filler").open("wb") as out, contextlib.suppress(OSError):
        while True:
            out.write(bytes(4 * 2**20))
            out.flush()


@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_a_store_gone_read_only_or_full_stops_the_session_and_keeps_what_it_took(
    engine: Engine, data_dir: Path, fault: str
) -> None:
    broken = threading.Event()
    session_id = f"t-{fault}-{uuid.uuid4().hex[:6]}"
    kept_at_break: list[Any] = []

    def on_events(events: list[Event]) -> None:
        if not broken.is_set() and any(e.type is EventType.ROUND_END for e in events):
            # the round's end is told before its checkpoint is written: wait for the checkpoint
            deadline = time.monotonic() + 60
            saved = ray.get(engine.handles.memory.load_session.remote(session_id))
            while (saved is None or saved.round < 1) and time.monotonic() < deadline:
                time.sleep(0.1)
                saved = ray.get(engine.handles.memory.load_session.remote(session_id))
            kept_at_break.append(saved)
            if fault == "read-only":
                subprocess.run(["chattr", "-R", "+i", str(data_dir / "data")], check=True, timeout=60)
            else:
                _fill(data_dir)
            broken.set()

    try:
        with pytest.raises(ray.exceptions.RayError) as failed:
            run_session(engine, ResearchRequest(GOAL, depth="focused"), session_id, on_events)
        reason = failure_reason(failed.value)
        assert broken.is_set()
        assert reason.startswith("StoreError: store ")  # which store, and why, in one line
        why = ("readonly", "read-only", "unable to open", "not permitted", "full", "No space")
        assert any(w in reason for w in why), reason
        saved = ray.get(engine.handles.memory.load_session.remote(session_id))  # reading still works
        assert saved is not None
        before = kept_at_break[0]
        assert before is not None
        assert before.fact_ledger.facts
        assert {f.claim for f in before.fact_ledger.facts} <= {f.claim for f in saved.fact_ledger.facts}
    finally:
        if fault == "read-only":
            subprocess.run(["chattr", "-R", "-i", str(data_dir / "data")], check=False, timeout=60)
        (data_dir / "filler").unlink(missing_ok=True)


def test_through_the_api_manager_a_store_failure_ends_the_stream_and_reads_as_failed(
    engine: Engine, data_dir: Path
) -> None:
    """The stores cannot record how the run ended: the manager that ran it still says so."""
    manager = RaySessionManager(engine, max_sessions=2)

    async def run() -> tuple[list[Event], SessionState, list[Event]]:
        session_id = await manager.start(ResearchRequest(GOAL, depth="focused"))
        seen: list[Event] = []
        deadline = time.monotonic() + 300  # a run that never ends fails here, not at CI's limit
        while not (seen and seen[-1].type.is_terminal) and time.monotonic() < deadline:
            events = await manager.events(session_id, seen[-1].seq if seen else 0)
            if any(e.type is EventType.ROUND_END for e in events) and not (data_dir / "broken").exists():
                (data_dir / "broken").touch()
                subprocess.run(["chattr", "-R", "+i", str(data_dir / "data")], check=True, timeout=60)
            seen.extend(events)
            await asyncio.sleep(0.2)
        for _ in range(100):  # the run's end reaches the manager a moment after its last event
            state = await manager.result(session_id)
            if state.status != RUNNING:
                break
            await asyncio.sleep(0.2)
        return seen, state, await manager.events(session_id, 0)

    try:
        streamed, state, replayed = asyncio.run(run())
    finally:
        subprocess.run(["chattr", "-R", "-i", str(data_dir / "data")], check=False, timeout=60)
        (data_dir / "broken").unlink(missing_ok=True)
    assert streamed, "the run streamed nothing"
    assert streamed[-1].type is EventType.ERROR, f"the stream ended on {streamed[-1].type}"
    assert state.status == FAILED
    assert state.stop_reason.startswith("StoreError: store ")
    assert state.fact_ledger.facts  # what the stores took before stays readable
    assert replayed[-1].type is EventType.ERROR  # a stream opened later ends too
