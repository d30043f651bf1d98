"""Server-Sent Events: one event per message, its sequence number as the id."""

from __future__ import annotations

import json

from fathom_ray.models import Event

HEARTBEAT = b": heartbeat\n\n"


def encode(event: Event) -> bytes:
    data = json.dumps(dict(event.data), ensure_ascii=False, separators=(",", ":"))
    return f"event: {event.type.value}\nid: {event.seq}\ndata: {data}\n\n".encode()
