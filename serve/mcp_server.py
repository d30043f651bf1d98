"""`fathom mcp`: an MCP server with one tool, ``web_research``, over the fathom-ray HTTP API.

Agents delegate research to it; each event of the session becomes a progress
notification, and the tool returns the answers (one per checklist item, citing fact ids), then
the facts with their evidence and sources.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from fathom_ray.client import ResearchClient

INSTRUCTIONS = (
    "fathom-ray researches a question on the web and returns facts, each with a verbatim quote from the page "
    "that states it and that page's URL. Use web_research for questions that need current or cited sources."
)


def build_mcp(api_url: str, token: str | None = None) -> MCPServer:
    server = MCPServer(name="fathom-ray", instructions=INSTRUCTIONS)

    @server.tool(
        description=(
            "Research a goal on the web; facts come with verbatim evidence and source URLs. "
            "agents > 0 runs a swarm of that many researchers on the goal's parts."
        )
    )
    async def web_research(goal: str, ctx: Context, depth: str = "quick", agents: int = 0) -> dict[str, Any]:
        async with ResearchClient(api_url, token) as client:
            session_id = await client.start(goal, depth, agents=agents or None)
            done = 0
            async for event in client.events(session_id):
                done += 1
                await ctx.report_progress(done, None, event.type.value)
            result = await client.result(session_id)
        return {
            "id": session_id,
            "status": result["status"],
            "stop_reason": result.get("stop_reason", ""),
            "answers": result.get("answers", []),  # one per checklist item, citing fact ids, first
            "facts": [
                {
                    "id": f.get("id", ""),
                    "claim": f["claim"],
                    "evidence": f.get("evidence", ""),
                    "source_url": f["source_url"],
                    "confidence": f["confidence"],
                }
                for f in result["facts"]
            ],
            "report": result.get("report", ""),
        }

    return server
