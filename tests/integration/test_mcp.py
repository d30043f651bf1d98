"""The MCP tool web_research over the HTTP API of test_api's in-process sessions: called in process, and
through `fathom mcp` as a subprocess on both transports (stdio and streamable HTTP)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from fathom_ray.settings import ApiSettings
from serve.mcp_server import build_mcp
from tests.fake_sessions import SCRIPT, FakeSessions, Server
from tests.net import free_port, wait_for_port

pytestmark = pytest.mark.integration
GOAL = {"goal": "Which Python version introduced assignment expressions?", "depth": "glance"}
FATHOM = [str(Path(sys.executable).parent / "fathom")]


@pytest.fixture
def api() -> Iterator[Server]:
    server = Server(FakeSessions(step_s=0.05), ApiSettings())
    yield server
    server.stop()


def research(
    server: MCPServer | StdioServerParameters | str, arguments: dict[str, Any] = GOAL
) -> tuple[Any, list[str | None]]:
    """Call web_research once through ``server``; the result and the progress messages seen."""
    seen: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    async def run() -> object:
        async with Client(server, read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            assert [t.name for t in tools.tools] == ["web_research"]
            return await client.call_tool("web_research", arguments, progress_callback=on_progress)

    return asyncio.run(asyncio.wait_for(run(), timeout=90)), seen


def assert_researched(result: Any, seen: list[str | None]) -> None:
    assert not result.is_error
    structured = result.structured_content
    assert structured["status"] == "complete"
    assert structured["facts"][0]["source_url"].startswith("http://docs.python.test/")
    assert structured["facts"][0]["evidence"] == "Assignment expressions"
    assert seen == [kind.value for kind, _ in SCRIPT]


def test_web_research_reports_progress_and_returns_facts(api: Server) -> None:
    assert_researched(*research(build_mcp(api.url)))


def test_web_research_runs_a_swarm_when_asked_for_agents(api: Server) -> None:
    result, seen = research(build_mcp(api.url), {**GOAL, "agents": 2})
    assert_researched(result, seen)
    assert result.structured_content["id"].startswith("w")
    assert list(api.sessions.agents.values()) == [2]


def test_fathom_mcp_over_stdio(api: Server) -> None:
    params = StdioServerParameters(command=FATHOM[0], args=[*FATHOM[1:], "mcp", "--api", api.url])
    assert_researched(*research(params))


def test_fathom_mcp_over_streamable_http(api: Server) -> None:
    port = free_port()
    command = [*FATHOM, "mcp", "--api", api.url, "--transport", "streamable-http", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert wait_for_port(port, timeout_s=60), process.stderr.read() if process.stderr else b""
        assert_researched(*research(f"http://127.0.0.1:{port}/mcp"))
    finally:
        process.terminate()
        process.wait(timeout=20)
        if process.stderr:
            process.stderr.close()
