"""An SSE reader written from the original service's contract alone (independent of fathom_ray.client)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx


def read_stream(response: httpx.Response, limit: int = 100) -> list[tuple[str, int, dict[str, Any], float]]:
    """(event type, id, data, arrival time) for every message until the stream ends."""
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
                if len(events) >= limit:
                    break
            continue
        key, _, value = line.partition(": ")
        fields[key] = value
    return events
