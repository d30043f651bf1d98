"""The HTTP API over real HTTP (uvicorn), with an in-process session manager (no Ray here)."""

from __future__ import annotations

import asyncio
import io
import re
import time
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import SecretStr

from fathom_ray.settings import ApiSettings
from serve.app import build_app
from serve.documents import DocumentsApi
from serve.web import PAGES
from tests.fake_sessions import SCRIPT, FakeSessions, Server
from tests.sse import concurrent_stream_outcomes, read_stream

pytestmark = pytest.mark.integration


@pytest.fixture
def api() -> Iterator[Server]:
    server = Server(FakeSessions(), ApiSettings(heartbeat_s=0.3))
    yield server
    server.stop()


GOAL = {"goal": "Which Python version introduced assignment expressions?", "depth": "glance"}


def test_a_client_of_the_original_service_works_unchanged(api: Server) -> None:
    with httpx.Client(base_url=api.url, timeout=10) as client:
        started = client.post("/research", json=GOAL).json()
        assert set(started) == {"id", "status"}
        with client.stream("GET", f"/research/{started['id']}/stream") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert stream.headers["cache-control"] == "no-cache"
            events = read_stream(stream)
        assert [e[0] for e in events] == [kind.value for kind, _ in SCRIPT]
        assert events[-1][2] == {"facts": 1, "pages": 1}
        result = client.get(f"/research/{started['id']}").json()
    assert {"id", "status", "goal", "pages_scraped", "facts", "checklist"} <= set(result)
    assert set(result["facts"][0]) >= {"claim", "confidence", "source_quality", "source_url", "topic"}


def test_post_can_answer_the_stream_itself_as_events_happen(api: Server) -> None:
    seen: list[str] = []
    with httpx.Client(base_url=api.url, timeout=10) as client:
        with client.stream("POST", "/research", json=GOAL, headers={"Accept": "text/event-stream"}) as stream:
            session_id = stream.headers["x-session-id"]
            look = lambda: seen.append(client.get(f"/research/{session_id}").json()["status"])  # noqa: E731
            events = read_stream(stream, on_first=look)
        assert client.get(f"/research/{session_id}").json()["status"] == "complete"
    assert seen == ["running"]  # the first event came while the session ran, not flushed at its end
    assert events[-1][0] == "complete"


def test_last_event_id_resumes_with_nothing_missed(api: Server) -> None:
    with httpx.Client(base_url=api.url, timeout=10) as client:
        session_id = client.post("/research", json=GOAL).json()["id"]
        with client.stream("GET", f"/research/{session_id}/stream") as stream:
            first = read_stream(stream, limit=3)
        with client.stream(
            "GET", f"/research/{session_id}/stream", headers={"Last-Event-ID": str(first[-1][1])}
        ) as stream:
            rest = read_stream(stream)
    assert [e[1] for e in first + rest] == list(range(1, len(SCRIPT) + 1))


def test_a_third_concurrent_session_gets_429(api: Server) -> None:
    with httpx.Client(base_url=api.url, timeout=10) as client:
        assert client.post("/research", json=GOAL).status_code == 200
        assert client.post("/research", json=GOAL).status_code == 200
        busy = client.post("/research", json=GOAL)
    assert busy.status_code == 429
    assert busy.headers["retry-after"] == "7"


def test_delete_and_disconnect_cancel(api: Server) -> None:
    with httpx.Client(base_url=api.url, timeout=10) as client:
        session_id = client.post("/research", json=GOAL).json()["id"]
        assert client.delete(f"/research/{session_id}").json() == {"id": session_id, "status": "cancelled"}
        with client.stream("POST", "/research", json=GOAL, headers={"Accept": "text/event-stream"}) as stream:
            read_stream(stream, limit=1)  # then hang up
        wait_until(lambda: "s2" in api.sessions.cancelled)
        kept = {**GOAL, "keep_running": True}
        with client.stream("POST", "/research", json=kept, headers={"Accept": "text/event-stream"}) as stream:
            read_stream(stream, limit=1)
        wait_until(lambda: all(t.done() for t in api.sessions.tasks.values()))  # s3 plays to its end
    assert api.sessions.cancelled == {"s1", "s2"}


def wait_until(condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Return once ``condition`` holds; fail after ``timeout_s`` (a bound for a hang, not a timing)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_a_stream_resumed_after_its_last_event_ends_at_once(api: Server) -> None:
    """Last-Event-ID at the terminal event: nothing more to send, and the stream says so by ending
    (it idled on with heartbeats before)."""
    with httpx.Client(base_url=api.url, timeout=10) as client:
        session_id = client.post("/research", json=GOAL).json()["id"]
        with client.stream("GET", f"/research/{session_id}/stream") as stream:
            last = read_stream(stream)[-1][1]
        started, lines = time.monotonic(), []
        resumed = {"Last-Event-ID": str(last)}
        with client.stream("GET", f"/research/{session_id}/stream", headers=resumed) as stream:
            for line in stream.iter_lines():  # heartbeats every 0.3 s while it idles
                lines.append(line)
                assert time.monotonic() - started < 20, "the stream idles on after the session's end"
    assert not [line for line in lines if line.startswith("event:")]


def test_a_client_past_the_end_it_was_never_sent_gets_that_end() -> None:
    """A run resumed from its checkpoint numbers on from its last saved event, so a client may stand
    past the end (Last-Event-ID beyond the terminal event): it is sent that end, and the stream ends.
    A log that holds no end (the run's failure lost with its actor) ends the stream with nothing."""
    unended = [step for step in SCRIPT if not step[0].is_terminal]
    server = Server(FakeSessions(), ApiSettings(heartbeat_s=0.3))
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            session_id = client.post("/research", json=GOAL).json()["id"]
            with client.stream("GET", f"/research/{session_id}/stream") as stream:
                last = read_stream(stream)[-1]
            assert last[0] == "complete"
            past = {"Last-Event-ID": str(last[1] + 5)}
            with client.stream("GET", f"/research/{session_id}/stream", headers=past) as stream:
                assert [e[:3] for e in read_stream(stream)] == [last[:3]]
            before = {"Last-Event-ID": str(last[1] - 1)}  # the client not yet at the end reads on to it
            with client.stream("GET", f"/research/{session_id}/stream", headers=before) as stream:
                assert [e[:3] for e in read_stream(stream)] == [last[:3]]
    finally:
        server.stop()
    server = Server(FakeSessions(script=unended), ApiSettings(heartbeat_s=0.3))
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            session_id = client.post("/research", json=GOAL).json()["id"]
            with client.stream("GET", f"/research/{session_id}/stream") as stream:
                events = read_stream(stream)
            assert [e[0] for e in events] == [kind.value for kind, _ in unended]
            assert client.get(f"/research/{session_id}").json()["status"] == "complete"
    finally:
        server.stop()


def test_bearer_token_guards_everything_but_health() -> None:
    server = Server(FakeSessions(), ApiSettings(token=SecretStr("s3cret")))
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            assert client.get("/health").status_code == 200
            assert client.get("/research").status_code == 401
            assert client.post("/research", json=GOAL).status_code == 401
            authorised = {"Authorization": "Bearer s3cret"}
            assert client.get("/research", headers=authorised).status_code == 200
            assert client.get("/research", headers={"Authorization": "Bearer wrong"}).status_code == 401
    finally:
        server.stop()


def test_named_tokens_see_only_their_own_sessions_and_the_operator_sees_all() -> None:
    tokens = {"alice": SecretStr("alice-token"), "bob": SecretStr("bob-token")}
    server = Server(FakeSessions(), ApiSettings(token=SecretStr("operator"), tokens=tokens))
    alice, bob, operator = (
        {"Authorization": f"Bearer {t}"} for t in ("alice-token", "bob-token", "operator")
    )
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            mine = client.post("/research", json=GOAL, headers=alice).json()["id"]
            theirs = client.post("/research", json=GOAL, headers=bob).json()["id"]
            listed = client.get("/research", headers=alice).json()
            assert [row["id"] for row in listed] == [mine]
            assert listed[0]["owner"] == "alice"
            for path in ("", "/result", "/report", "/stream", "/bundle"):  # as if it did not exist
                assert client.get(f"/research/{theirs}{path}", headers=alice).status_code == 404, path
            assert client.delete(f"/research/{theirs}", headers=alice).status_code == 404
            assert client.get(f"/research/{mine}", headers=alice).json()["id"] == mine
            assert client.get(f"/research/{theirs}", headers=bob).status_code == 200
            every = {row["id"]: row["owner"] for row in client.get("/research", headers=operator).json()}
            assert every == {mine: "alice", theirs: "bob"}
            assert client.get(f"/research/{mine}", headers=operator).status_code == 200
            assert client.get("/research", headers={"Authorization": "Bearer alice"}).status_code == 401
            latin = {b"Authorization": "Bearer al\xefce-token".encode("latin-1")}  # not ASCII: still a 401
            assert client.get("/research", headers=latin).status_code == 401
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"goal": "hey"}, "goal"),
        ({"goal": "x" * 2001}, "goal"),
        ({"goal": "a valid goal", "depth": "bottomless"}, "depth"),
        ({"goal": "a valid goal", "seeds": ["ftp://x.example/"]}, "seeds"),
        ({"goal": "a valid goal", "seeds": [f"http://a{i}.example/" for i in range(21)]}, "seeds"),
        ({"goal": "a valid goal", "max_pages": 0}, "max_pages"),
        ({"goal": "a valid goal", "mode": "crowd"}, "mode"),
        ({"goal": "a valid goal", "mode": "swarm", "agents": 17}, "agents"),
    ],
)
def test_invalid_input_is_422_naming_the_field(api: Server, body: dict[str, Any], field: str) -> None:
    response = httpx.post(f"{api.url}/research", json=body, timeout=10)
    assert response.status_code == 422
    assert any(field in error["loc"] for error in response.json()["detail"])


def test_a_swarm_starts_streams_and_ships_its_bundle_once_finished(api: Server) -> None:
    with httpx.Client(base_url=api.url, timeout=10) as client:
        alone = client.post("/research", json={**GOAL, "agents": 2})
        assert alone.status_code == 422
        assert "swarm" in alone.text
        started = client.post("/research", json={**GOAL, "mode": "swarm", "agents": 2}).json()
        swarm_id = started["id"]
        assert api.sessions.agents[swarm_id] == 2
        assert client.get(f"/research/{swarm_id}/bundle").status_code == 409  # still running
        with client.stream("GET", f"/research/{swarm_id}/stream") as response:
            events = read_stream(response)
        assert events[-1][0] == "complete"
        deadline = time.monotonic() + 10
        while not api.sessions.tasks[swarm_id].done() and time.monotonic() < deadline:
            time.sleep(0.05)
        bundle = client.get(f"/research/{swarm_id}/bundle")
        assert bundle.status_code == 200
        assert bundle.headers["content-type"] == "application/zip"
        assert f'filename="{swarm_id}-bundle.zip"' in bundle.headers["content-disposition"]
        names = zipfile.ZipFile(io.BytesIO(bundle.content)).namelist()
        assert names == [f"{swarm_id}/index.md", f"{swarm_id}/report.pdf"]
        default = client.post("/research", json={**GOAL, "mode": "swarm"}).json()["id"]
        assert api.sessions.agents[default] == 3
        session_id = client.post("/research", json=GOAL).json()["id"]
        assert api.sessions.agents[session_id] is None
        assert client.get(f"/research/{session_id}/bundle").status_code == 404  # a session has none
        assert client.get("/research/nope/bundle").status_code == 404


def test_unknown_sessions_are_404(api: Server) -> None:
    with httpx.Client(base_url=api.url, timeout=10) as client:
        assert client.get("/research/nope").status_code == 404
        assert client.get("/research/nope/stream").status_code == 404
        assert client.delete("/research/nope").status_code == 404
        assert "/research" in client.get("/openapi.json").json()["paths"]


def test_twenty_concurrent_clients_get_a_whole_stream_or_429(api: Server) -> None:
    outcomes = asyncio.run(
        concurrent_stream_outcomes(api.url, GOAL, clients=20, client_timeout_s=30, timeout_s=60)
    )
    assert set(outcomes) <= {"complete", "429"}
    assert outcomes.count("complete") == 2  # the cap


def test_every_route_but_health_and_the_page_refuses_a_missing_or_wrong_token() -> None:
    """Every API route, the documents' included, found by walking the app (none can be forgotten)."""
    documents = DocumentsApi(None, None, None, 1_000)  # type: ignore[arg-type]  # never reached: 401 first
    app = build_app(FakeSessions(), ApiSettings(token=SecretStr("s3cret")), documents=documents)
    public = {"/health", "/static/{name}", *PAGES}
    checked = []
    with TestClient(app) as client:
        for route in app.routes:
            if not isinstance(route, APIRoute) or route.path in public:
                continue
            path = re.sub(r"\{[^}]+\}", "x", route.path)
            for method in sorted(route.methods):
                for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
                    answer = client.request(method, path, headers=headers)
                    assert answer.status_code == 401, (method, route.path, headers)
                checked.append(f"{method} {route.path}")
    assert "POST /research" in checked
    assert "POST /ask" in checked
    assert "DELETE /documents/{document_id}" in checked
    assert len(checked) >= 12
