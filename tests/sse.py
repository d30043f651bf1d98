"""An SSE reader written from the original service's contract alone (independent of fathom_ray.client)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import httpx


def read_stream(
    response: httpx.Response, limit: int = 100, on_first: Callable[[], None] | None = None
) -> list[tuple[str, int, dict[str, Any], float]]:
    """(event type, id, data, arrival time) for every message until the stream ends; ``on_first`` is
    called as soon as the first message has arrived (to look at the session while it streams)."""
    events = []
    fields: dict[str, str] = {}
    for line in response.iter_lines():
        if line.startswith(":"):
            continue
        if not line:
            if fields:
                events.append(
                    (fields["event"], int(fields["id"]), json.loads(fields["data"]), time.monotonic())
                )
                fields = {}
                if len(events) == 1 and on_first is not None:
                    on_first()
                if len(events) >= limit:
                    break
            continue
        key, _, value = line.partition(": ")
        fields[key] = value
    return events


async def concurrent_stream_outcomes(
    base_url: str, body: dict[str, Any], clients: int, *, client_timeout_s: float, timeout_s: float
) -> list[str]:
    """``clients`` streaming POSTs at once; each one's last event type, or its status code if not 200."""

    async def one() -> str:
        async with (
            httpx.AsyncClient(base_url=base_url, timeout=client_timeout_s) as http,
            http.stream("POST", "/research", json=body, headers={"Accept": "text/event-stream"}) as stream,
        ):
            if stream.status_code != 200:
                return str(stream.status_code)
            last = ""
            async for line in stream.aiter_lines():
                if line.startswith("event: "):
                    last = line.removeprefix("event: ")
            return last

    return await asyncio.wait_for(asyncio.gather(*(one() for _ in range(clients))), timeout=timeout_s)
