"""A Python client for the fathom-ray HTTP API (and the original Fathom service's contract).

    async with ResearchClient("http://localhost:8000") as client:
        session_id = await client.start("Which Python version introduced assignment expressions?")
        async for event in client.events(session_id):
            print(event.type, event.data)
        result = await client.result(session_id)

A dropped stream is resumed with ``Last-Event-ID``, so no event is missed or repeated.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from fathom_ray.documents.reading import files_under
from fathom_ray.errors import FathomError
from fathom_ray.models import Event, EventType

RECONNECT_ERRORS = (httpx.RemoteProtocolError, httpx.ReadError, httpx.ConnectError, httpx.ReadTimeout)


class ResearchClient:
    def __init__(
        self, base_url: str, token: str | None = None, timeout_s: float = 30.0, reconnects: int = 5
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        timeout = httpx.Timeout(timeout_s, read=None)  # streams may be quiet between heartbeats
        self._http = httpx.AsyncClient(base_url=base_url, headers=headers, timeout=timeout)
        self._reconnects = reconnects

    async def __aenter__(self) -> ResearchClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def start(
        self,
        goal: str,
        depth: str = "standard",
        seeds: Sequence[str] = (),
        max_pages: int | None = None,
        agents: int | None = None,
    ) -> str:
        """A new session's id; with ``agents``, a swarm of that many researchers."""
        body: dict[str, Any] = {"goal": goal, "depth": depth, "seeds": list(seeds)}
        if max_pages is not None:
            body["max_pages"] = max_pages
        if agents is not None:
            body |= {"mode": "swarm", "agents": agents}
        response = await self._http.post("/research", json=body)
        _raise_for(response)
        return str(response.json()["id"])

    async def events(self, session_id: str, after: int = 0) -> AsyncIterator[Event]:
        """Every event after ``after`` until ``complete`` or ``error``, reconnecting when dropped."""
        failures = 0
        while True:
            headers = {"Accept": "text/event-stream", "Last-Event-ID": str(after)}
            try:
                async with self._http.stream(
                    "GET", f"/research/{session_id}/stream", headers=headers
                ) as stream:
                    if stream.status_code >= 400:
                        await stream.aread()
                        _raise_for(stream)
                    async for event in parse_sse(session_id, stream.aiter_lines()):
                        after = event.seq
                        failures = 0
                        yield event
                        if event.type.is_terminal:
                            return
            except RECONNECT_ERRORS as e:
                failures += 1
                if failures > self._reconnects:
                    raise FathomError(f"the event stream of {session_id} kept dropping: {e}") from e
                await asyncio.sleep(min(0.2 * 2**failures, 5.0))

    async def result(self, session_id: str) -> dict[str, Any]:
        response = await self._http.get(f"/research/{session_id}")
        _raise_for(response)
        return dict(response.json())

    async def bundle(self, session_id: str) -> bytes:
        """A finished swarm's report bundle, as a zip."""
        response = await self._http.get(f"/research/{session_id}/bundle")
        _raise_for(response)
        return response.content

    async def cancel(self, session_id: str) -> None:
        _raise_for(await self._http.delete(f"/research/{session_id}"))

    async def add_documents(self, paths: Iterable[str | Path]) -> list[dict[str, Any]]:
        """Upload files (folders are walked for .txt .md .html .pdf); one outcome per file."""
        outcomes: list[dict[str, Any]] = []
        for path in files_under([Path(p) for p in paths]):
            upload = {"files": (path.name, path.read_bytes())}
            response = await self._http.post("/documents", files=upload)
            _raise_for(response)
            outcomes += list(response.json())
        return outcomes

    async def documents(self) -> list[dict[str, Any]]:
        response = await self._http.get("/documents")
        _raise_for(response)
        return list(response.json())

    async def remove_document(self, document_id: str) -> None:
        _raise_for(await self._http.delete(f"/documents/{document_id}"))

    async def ask(self, question: str, reflect: bool = True) -> dict[str, Any]:
        """A cited answer from the documents: answer, citations, numbered passages, trace id, timings."""
        response = await self._http.post("/ask", json={"question": question, "reflect": reflect})
        _raise_for(response)
        return dict(response.json())

    async def research(self, goal: str, depth: str = "standard", **options: Any) -> dict[str, Any]:
        """Start a session, follow it to its end, and return its result."""
        session_id = await self.start(goal, depth, **options)
        async for _ in self.events(session_id):
            pass
        return await self.result(session_id)


async def parse_sse(session_id: str, lines: AsyncIterator[str]) -> AsyncIterator[Event]:
    fields: dict[str, str] = {}
    async for line in lines:
        if line.startswith(":"):
            continue
        if line:
            key, _, value = line.partition(":")
            fields[key] = value.removeprefix(" ")
            continue
        if "event" in fields and "id" in fields:
            yield Event(
                session_id,
                int(fields["id"]),
                EventType(fields["event"]),
                json.loads(fields.get("data", "{}")),
            )
        fields = {}


def _raise_for(response: httpx.Response) -> None:
    if response.status_code >= 400:
        detail = _detail(response)
        raise FathomError(f"HTTP {response.status_code} from {response.request.url.path}: {detail}")


def _detail(response: httpx.Response) -> str:
    try:
        payload = response.json()
    except ValueError:
        return response.text[:200]
    detail = payload.get("detail", payload) if isinstance(payload, dict) else payload
    return (
        json.dumps(detail)[:300]
        if isinstance(detail, Iterable) and not isinstance(detail, str)
        else str(detail)
    )
