"""ResearchClient against the real HTTP API (uvicorn) with the in-process sessions of test_api."""

from __future__ import annotations

import asyncio
import io
import zipfile
from collections.abc import Iterator

import pytest

from fathom_ray.client import ResearchClient
from fathom_ray.errors import FathomError
from fathom_ray.models import Event, EventType
from fathom_ray.settings import ApiSettings
from tests.fake_sessions import SCRIPT, FakeSessions, Server

pytestmark = pytest.mark.integration
GOAL = "Which Python version introduced assignment expressions?"


class DroppingSessions(FakeSessions):
    """Breaks the first stream after three events, as a flaky proxy would."""

    def __init__(self) -> None:
        super().__init__()
        self.dropped = False

    async def events(self, session_id: str, after_seq: int) -> list[Event]:
        events = await super().events(session_id, after_seq)
        if not self.dropped and after_seq >= 3:
            self.dropped = True
            raise ConnectionError("the stream broke")
        return events


@pytest.fixture
def dropping() -> Iterator[Server]:
    server = Server(DroppingSessions(), ApiSettings(heartbeat_s=0.3))
    yield server
    server.stop()


def test_research_follows_a_session_to_its_result(dropping: Server) -> None:
    async def run() -> tuple[list[Event], dict[str, object]]:
        async with ResearchClient(dropping.url) as client:
            session_id = await client.start(GOAL, depth="glance")
            events = [e async for e in client.events(session_id)]
            return events, await client.result(session_id)

    events, result = asyncio.run(run())
    assert [e.seq for e in events] == list(range(1, len(SCRIPT) + 1))  # resumed, nothing missed or repeated
    assert events[-1].type is EventType.COMPLETE
    assert dropping.sessions.dropped  # type: ignore[attr-defined]
    assert result["goal"] == GOAL


def test_a_swarm_through_the_client_and_its_bundle() -> None:
    server = Server(FakeSessions(step_s=0.01), ApiSettings())

    async def run() -> tuple[str, bytes]:
        async with ResearchClient(server.url) as client:
            swarm_id = await client.start(GOAL, depth="glance", agents=2)
            async for _ in client.events(swarm_id):
                pass
            while not server.sessions.tasks[swarm_id].done():
                await asyncio.sleep(0.02)
            return swarm_id, await client.bundle(swarm_id)

    try:
        swarm_id, bundle = asyncio.run(asyncio.wait_for(run(), timeout=30))
    finally:
        server.stop()
    assert server.sessions.agents[swarm_id] == 2
    assert zipfile.ZipFile(io.BytesIO(bundle)).read(f"{swarm_id}/index.md").decode().startswith(f"# {GOAL}")


def test_errors_are_clear() -> None:
    server = Server(FakeSessions(), ApiSettings())
    try:

        async def run() -> None:
            async with ResearchClient(server.url) as client:
                with pytest.raises(FathomError, match="422"):
                    await client.start("hi")
                with pytest.raises(FathomError, match="404"):
                    await client.result("nope")
                session_id = await client.start(GOAL)
                await client.cancel(session_id)

        asyncio.run(run())
    finally:
        server.stop()
