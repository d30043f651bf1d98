"""The MCP tool web_research, called in process, over the HTTP API of test_api's in-process sessions."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from mcp.client.client import Client

from fathom_ray.settings import ApiSettings
from serve.mcp_server import build_mcp
from tests.integration.test_api import SCRIPT, FakeSessions, Server

pytestmark = pytest.mark.integration


@pytest.fixture
def api() -> Iterator[Server]:
    server = Server(FakeSessions(step_s=0.05), ApiSettings())
    yield server
    server.stop()


def test_web_research_reports_progress_and_returns_facts(api: Server) -> None:
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async def run() -> object:
        async with Client(build_mcp(api.url)) as client:
            tools = await client.list_tools()
            assert [t.name for t in tools.tools] == ["web_research"]
            return await client.call_tool(
                "web_research",
                {"goal": "Which Python version introduced assignment expressions?", "depth": "glance"},
                progress_callback=on_progress,
            )

    result = asyncio.run(run())
    assert not result.is_error  # type: ignore[attr-defined]
    structured = result.structured_content  # type: ignore[attr-defined]
    assert structured["status"] == "complete"
    assert structured["facts"][0]["source_url"].startswith("http://docs.python.test/")
    assert [m for _, m in seen] == [kind.value for kind, _ in SCRIPT]
