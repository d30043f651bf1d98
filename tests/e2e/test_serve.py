"""The API through Ray Serve on local Ray and the offline web, with the scripted judge.

The tests run in file order against one deployment; each leaves no session running.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
import time
import zipfile
from collections.abc import Iterator
from typing import Any

import httpx
import psutil
import pytest
import ray
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from playwright.sync_api import expect, sync_playwright
from pydantic import SecretStr
from ray import serve
from ray.util.state import list_actors
from schemathesis.core.result import Ok

from actors.engine import Engine
from fathom_ray.settings import BrowserSettings
from serve.deployment import api_application, run_api, shutdown
from tests.net import free_port, wait_until_healthy
from tests.pdf import pdf_text
from tests.ray_state import alive, chromium_processes
from tests.sse import concurrent_stream_outcomes, read_stream

pytestmark = [pytest.mark.e2e]
GOAL = {"goal": "Which Python version introduced assignment expressions?", "depth": "glance"}
LONG_GOAL = {**GOAL, "depth": "thorough"}
TOKEN = "s3cret-serve"


@pytest.fixture(scope="module")
def api_url(scripted_engine: tuple[Engine, Any]) -> Iterator[str]:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    port = free_port()
    settings = engine.settings.model_copy(
        update={"api": engine.settings.api.model_copy(update={"port": port})}
    )
    run_api(dataclasses.replace(engine, settings=settings))
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(url, timeout_s=120)
    secured = settings.model_copy(update={"api": settings.api.model_copy(update={"token": SecretStr(TOKEN)})})
    secured_app = api_application(dataclasses.replace(engine, settings=secured))
    serve.run(secured_app, name="fathom-secured", route_prefix="/secured", blocking=False)
    wait_until_healthy(f"{url}/secured", timeout_s=120)
    yield url
    shutdown()


def settle(client: httpx.Client, session_ids: list[str], timeout_s: float = 120) -> list[str]:
    """Wait until none of ``session_ids`` is running (or ``timeout_s`` passed); their statuses."""
    deadline = time.monotonic() + timeout_s
    statuses = ["running"]
    while "running" in statuses and time.monotonic() < deadline:
        time.sleep(0.5)
        statuses = [client.get(f"/research/{i}").json()["status"] for i in session_ids]
    if session_ids:
        time.sleep(1.0)  # the manager frees a session's slot once its actor has returned
    return statuses


def cancel_all(client: httpx.Client) -> None:
    running = [s["id"] for s in client.get("/research").json() if s["status"] == "running"]
    for session_id in running:
        client.delete(f"/research/{session_id}")
    settle(client, running)


def test_a_session_streams_through_serve(api_url: str) -> None:
    seen: list[str] = []
    with httpx.Client(base_url=api_url, timeout=120) as client:
        with client.stream("POST", "/research", json=GOAL, headers={"Accept": "text/event-stream"}) as stream:
            assert stream.status_code == 200
            session_id = stream.headers["x-session-id"]
            look = lambda: seen.append(client.get(f"/research/{session_id}").json()["status"])  # noqa: E731
            events = read_stream(stream, on_first=look)
        kinds = [e[0] for e in events]
        assert kinds[0] == "searching"  # the goal is searched while the judge decomposes it
        assert "decompose" in kinds
        assert kinds[-1] == "complete"
        assert seen == ["running"]  # events stream while the session runs, not flushed at its end
        listed = client.get("/research").json()
        session_id = listed[0]["id"]
        result = client.get(f"/research/{session_id}").json()
        # deleted from the stores once it has ended: neither listed nor readable any more
        assert client.delete(f"/research/{session_id}/record").json()["status"] == "deleted"
        assert client.get(f"/research/{session_id}").status_code == 404
        assert session_id not in {s["id"] for s in client.get("/research").json()}
    assert result["status"] == "complete"
    assert {"id", "status", "goal", "pages_scraped", "facts", "checklist", "report", "usage"} <= set(result)


def test_a_client_of_the_original_service_through_serve(api_url: str) -> None:
    """POST, then GET .../stream, then GET the result: the original contract, resumed once midway."""
    with httpx.Client(base_url=api_url, timeout=120) as client:
        started = client.post("/research", json=GOAL).json()
        assert set(started) == {"id", "status"}
        stream_url = f"/research/{started['id']}/stream"
        with client.stream("GET", stream_url) as stream:
            first = [e[1] for e in read_stream(stream, limit=2)]
        with client.stream("GET", stream_url, headers={"Last-Event-ID": str(first[-1])}) as stream:
            rest = read_stream(stream)
        assert rest[-1][0] == "complete"
        result = client.get(f"/research/{started['id']}").json()
    assert first == [1, 2]
    assert {"id", "status", "goal", "pages_scraped", "facts", "checklist"} <= set(result)


def test_the_cap_holds_and_delete_cancels_through_serve(api_url: str) -> None:
    with httpx.Client(base_url=api_url, timeout=120) as client:
        first = client.post("/research", json=LONG_GOAL).json()["id"]
        listed = {s["id"]: s for s in client.get("/research").json()}  # at once, before any checkpoint
        assert (listed[first]["status"], listed[first]["depth"]) == ("running", LONG_GOAL["depth"])
        second = client.post("/research", json=LONG_GOAL).json()["id"]
        busy = client.post("/research", json=LONG_GOAL)
        assert busy.status_code == 429
        assert int(busy.headers["retry-after"]) > 0
        for session_id in (first, second):
            deleted = client.delete(f"/research/{session_id}")
            assert deleted.json().get("status") == "cancelled", deleted.text
        assert settle(client, [first, second]) == ["cancelled", "cancelled"]


def test_a_replica_that_did_not_start_a_session_streams_and_cancels_it(api_url: str) -> None:
    """Any replica answers for any running session (found by its actor's name): the secured app, a
    deployment of its own on the same engine, stands in for a second replica."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with (
        httpx.Client(base_url=api_url, timeout=120) as starter,
        httpx.Client(base_url=f"{api_url}/secured", headers=auth, timeout=120) as other,
    ):
        session_id = starter.post("/research", json=LONG_GOAL).json()["id"]
        with other.stream("GET", f"/research/{session_id}/stream") as stream:
            first = next(line for line in stream.iter_lines() if line.startswith("event:"))
        assert first.startswith("event: ")
        assert other.get("/status").json()["running"] == 0  # each replica counts what it started
        assert other.delete(f"/research/{session_id}").json()["status"] == "cancelled"
        assert settle(starter, [session_id]) == ["cancelled"]


def kill_replicas(app: str) -> int:
    """Kill the Serve replicas of ``app`` (Serve starts new ones); how many there were."""
    address = ray.get_runtime_context().gcs_address
    replicas = [
        a
        for a in list_actors(address=address, filters=[("state", "=", "ALIVE")], limit=1000)
        if str(a.name or "").startswith(f"SERVE_REPLICA::{app}#")
    ]
    for replica in replicas:
        ray.kill(ray.get_actor(str(replica.name), namespace="serve"), no_restart=True)
    return len(replicas)


def test_a_replica_lost_mid_stream_the_client_resumes_with_last_event_id(api_url: str) -> None:
    """The replica that started a session dies (and its session actor with it): the client asks the
    next replica with Last-Event-ID, which resumes the session from its checkpoint and streams on."""
    stream_headers = {"Accept": "text/event-stream"}
    body = {**GOAL, "depth": "quick", "keep_running": True}
    with httpx.Client(base_url=api_url, timeout=120) as client:
        last = 0
        with client.stream("POST", "/research", json=body, headers=stream_headers) as stream:
            session_id = stream.headers["x-session-id"]
            for line in stream.iter_lines():
                if line.startswith("id: "):
                    last = int(line.removeprefix("id: "))
                if line == "event: round_end":  # the first round is checkpointed
                    break
            assert kill_replicas("fathom") == 1
        wait_until_healthy(api_url, timeout_s=120)
        resumed = {"Accept": "text/event-stream", "Last-Event-ID": str(last)}
        with client.stream("GET", f"/research/{session_id}/stream", headers=resumed) as stream:
            events = read_stream(stream)
        assert events, "nothing streamed after the resume"
        assert all(seq > last for _, seq, _, _ in events)
        assert events[-1][0] == "complete"
        result = client.get(f"/research/{session_id}/result").json()
    assert result["status"] == "complete"
    fetched = [page["url"] for page in result["pages"] if page["status"] == "ok"]
    assert fetched
    assert len(fetched) == len(set(fetched))  # none fetched twice across the resume


def test_hanging_up_cancels_unless_asked_to_keep_running(api_url: str) -> None:
    stream_headers = {"Accept": "text/event-stream"}
    with httpx.Client(base_url=api_url, timeout=120) as client:
        ids = []
        for body in (LONG_GOAL, {**GOAL, "keep_running": True}):
            with client.stream("POST", "/research", json=body, headers=stream_headers) as stream:
                ids.append(stream.headers["x-session-id"])
                next(stream.iter_lines())  # the first event has begun; then hang up
        assert settle(client, ids) == ["cancelled", "complete"]


def test_a_swarm_streams_its_agents_and_ships_its_bundle_through_serve(api_url: str) -> None:
    body = {**GOAL, "mode": "swarm", "agents": 2, "max_pages": 1}
    with httpx.Client(base_url=api_url, timeout=120) as client:
        with client.stream("POST", "/research", json=body, headers={"Accept": "text/event-stream"}) as stream:
            swarm_id = stream.headers["x-session-id"]
            events = read_stream(stream, limit=1000)
        assert swarm_id.startswith("w-")
        kinds = [kind for kind, *_ in events]
        assert kinds[0] == "decompose"
        assert kinds[-1] == "complete"
        assert kinds.count("complete") == 1  # a researcher's end is an agent event, not the swarm's
        agents = [data for kind, _, data, _ in events if kind == "agent"]
        assert [a["status"] for a in agents][:1] == ["assigned"]
        assert any(a["status"] == "complete" for a in agents)
        relayed = [data for kind, _, data, _ in events if kind in ("fetching", "analyzed")]
        assert relayed
        assert all(str(d["agent"]).startswith("r1-researcher") for d in relayed)
        assert [seq for _, seq, _, _ in events] == list(range(1, len(events) + 1))
        assert settle(client, [swarm_id]) == ["complete"]
        result = client.get(f"/research/{swarm_id}").json()
        assert result["facts"]
        bundle = client.get(f"/research/{swarm_id}/bundle")
        assert bundle.status_code == 200, bundle.text
        names = zipfile.ZipFile(io.BytesIO(bundle.content)).namelist()
        assert {f"{swarm_id}/index.md", f"{swarm_id}/summary.md", f"{swarm_id}/report.pdf"} <= set(names)
        assert client.get(f"/research/{swarm_id}/stream").status_code == 200  # replayed from the stores
        assert swarm_id in {s["id"] for s in client.get("/research").json()}


def test_delete_cancels_a_swarm_and_leaves_no_agent_through_serve(api_url: str) -> None:
    body = {**LONG_GOAL, "mode": "swarm", "agents": 2}
    with httpx.Client(base_url=api_url, timeout=120) as client:
        swarm_id = client.post("/research", json=body).json()["id"]
        deadline = time.monotonic() + 120
        while not alive(f"{swarm_id}-") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert alive(f"{swarm_id}-")  # a researcher runs
        assert client.delete(f"/research/{swarm_id}").json()["status"] == "cancelled"
        assert settle(client, [swarm_id]) == ["cancelled"]
        deadline = time.monotonic() + 60
        while alive(swarm_id) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not alive(swarm_id)
        assert client.get(f"/research/{swarm_id}/bundle").status_code == 200  # what it had still ships
        # its researchers' sessions ended too (one cancelled before its sub-goal reached it included)
        listed = {s["id"]: s["status"] for s in client.get("/research").json()}
        assert not [i for i, status in listed.items() if i.startswith(f"{swarm_id}-") and status == "running"]


def test_the_page_through_serve_live_reload_stop_and_permalink_after_a_restart(
    api_url: str, scripted_engine: tuple[Engine, Any]
) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(BrowserSettings().executable), args=["--no-sandbox"]
        )
        page = browser.new_page()
        page.goto(f"{api_url}/")
        page.get_by_label("Goal").fill(GOAL["goal"])
        page.get_by_label("Depth").select_option("glance")
        metadata = "http://169.254.169.254/latest/meta-data/"  # a seed the engine refuses: named, with why
        page.get_by_label("Start from these URLs (one per line, optional)").fill(metadata)
        page.get_by_role("button", name="Start research").click()
        expect(page.locator("#s-status")).to_contain_text("complete", timeout=120_000)
        refused = page.locator("#s-pages li.failed", has_text="169.254.169.254")
        expect(refused.locator(".outcome")).to_have_text(re.compile(r"^failed: \S"))
        expect(page.locator("#s-report-box")).to_be_visible()
        expect(page.locator("#s-checklist li")).not_to_have_count(0)
        expect(page.locator("#s-pages li")).not_to_have_count(0)
        finished = page.url.rsplit("/", 1)[1]
        with page.expect_download() as download:  # printed by the engine's browser pool
            page.get_by_role("button", name="Download report.pdf").click()
        assert GOAL["goal"] in pdf_text(download.value.path())
        # a long session: reloaded mid-stream it replays without a duplicate, then Stop cancels it
        page.goto(f"{api_url}/")
        page.get_by_label("Goal").fill(LONG_GOAL["goal"])
        page.get_by_label("Depth").select_option("thorough")
        page.get_by_role("button", name="Start research").click()
        expect(page.locator("#s-pages li")).not_to_have_count(0, timeout=120_000)
        page.reload()
        expect(page.locator("#s-pages li")).not_to_have_count(0, timeout=120_000)
        pages = page.locator("#s-pages li a").evaluate_all("links => links.map(a => a.href)")
        assert len(pages) == len(set(pages))
        page.get_by_role("button", name="Stop").click()
        expect(page.locator("#s-status")).to_contain_text("cancelled", timeout=120_000)
        expect(page.locator("#s-pages li.fetching")).to_have_count(0)  # every page ends in a final state
        # the API's replica restarts: the permalink renders from the stores
        engine, _ = scripted_engine
        port = int(api_url.rsplit(":", 1)[1])
        settings = engine.settings.model_copy(
            update={"api": engine.settings.api.model_copy(update={"port": port})}
        )
        serve.delete("fathom")
        serve.run(
            api_application(dataclasses.replace(engine, settings=settings)), name="fathom", route_prefix="/"
        )
        wait_until_healthy(api_url, timeout_s=120)
        page.goto(f"{api_url}/sessions/{finished}")
        expect(page.locator("#s-status")).to_contain_text("complete", timeout=60_000)
        expect(page.locator("#s-report-box")).to_be_visible()
        browser.close()


def test_auth_on_and_off_through_serve(api_url: str) -> None:
    with httpx.Client(base_url=api_url, timeout=60) as client:
        assert client.get("/research").status_code == 200  # this deployment has no token
        assert client.get("/secured/health").status_code == 200
        for method, path in [("GET", "/research"), ("POST", "/research"), ("GET", "/research/x/stream")]:
            answer = client.request(method, f"/secured{path}", json=GOAL)
            assert answer.status_code == 401, (method, path)
            assert answer.headers["www-authenticate"] == "Bearer"
        wrong = client.get("/secured/research", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        right = client.get("/secured/research", headers={"Authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 200


def test_twenty_concurrent_clients_through_serve_get_a_whole_stream_or_429(api_url: str) -> None:
    outcomes = asyncio.run(
        concurrent_stream_outcomes(api_url, GOAL, clients=20, client_timeout_s=120, timeout_s=300)
    )
    assert set(outcomes) <= {"complete", "429"}, outcomes
    assert 1 <= outcomes.count("complete") <= 2  # the cap of 2


def test_a_short_soak_leaves_no_session_actor_pool_or_chromium_behind(
    api_url: str, scripted_engine: tuple[Engine, Any]
) -> None:
    """The soak's short form (scripts/bench_reliability.py runs 300): a dozen sessions one after
    another, and every per-session structure is let go once they end."""
    engine, _ = scripted_engine
    chromium_before = chromium_processes(engine.handles.browser)
    with httpx.Client(base_url=api_url, timeout=120) as client:
        ids = []
        for _ in range(12):
            ids.append(client.post("/research", json=GOAL).json()["id"])
            assert settle(client, ids[-1:]) == ["complete"]
        client.get("/research")  # the manager ends the actors of finished sessions as it answers
    assert not [name for name in alive("s-") if name in ids]
    assert ray.get(engine.handles.frontier.sessions.remote()) == []
    # a leak per session would leave a dozen more; Chromium keeps a spare renderer or two by itself,
    # and each tab kept for the next page keeps one (at most one tab per page in flight)
    kept_tabs = engine.settings.browser.pages_per_browser
    assert chromium_processes(engine.handles.browser) <= chromium_before + 2 + kept_tabs
    # the replica, spawning an actor per session, runs with few malloc arenas (they fragment)
    address = ray.get_runtime_context().gcs_address
    replicas = list_actors(address=address, filters=[("state", "=", "ALIVE")], detail=True, limit=1000)
    pids = [a.pid for a in replicas if str(a.class_name).startswith("ServeReplica") and a.pid]
    assert pids
    assert all(psutil.Process(pid).environ().get("MALLOC_ARENA_MAX") == "2" for pid in pids)


def test_documents_upload_ask_and_delete_through_serve(api_url: str) -> None:
    text = b"# WAL\n\nWAL mode was added to SQLite in version 3.7.0.\n"
    with httpx.Client(base_url=api_url, timeout=120) as client:
        added = client.post("/documents", files=[("files", ("serve-wal.md", text, "text/markdown"))])
        assert added.status_code == 200, added.text
        document = added.json()[0]["document"]
        assert document["id"] in [d["id"] for d in client.get("/documents").json()]
        question = {"question": "Which SQLite version added WAL mode?"}
        with client.stream("POST", "/ask", json=question, headers={"Accept": "text/event-stream"}) as stream:
            assert stream.status_code == 200
            events = read_stream(stream)
        kinds = [e[0] for e in events]
        assert kinds[0] == "plan"
        assert kinds[-2:] == ["answer", "complete"]
        answered = client.post("/ask", json=question).json()
        assert answered["passages"][0]["source"] == f"doc://{document['id']}#0"
        # the scripted judge also cites a quote no passage holds: it never reaches the answer
        passages = answered["passages"]
        assert all(c["evidence"] in passages[c["passage"] - 1]["text"] for c in answered["citations"])
        assert client.delete(f"/documents/{document['id']}").status_code == 200
        assert document["id"] not in [d["id"] for d in client.get("/documents").json()]


def test_no_input_makes_serve_fail(api_url: str) -> None:
    """Schemathesis cases from the served OpenAPI schema, every operation, through Serve: never a 5xx."""
    schema = schemathesis.openapi.from_url(f"{api_url}/openapi.json")
    operations = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result  # the served schema parses, every operation of it
        operations.append(result.ok())
    assert len(operations) >= 6
    statuses: list[int] = []

    def check(case: schemathesis.Case[Any]) -> None:
        if case.headers and "text/event-stream" in str(case.headers.get("accept", "")):
            case.headers["accept"] = "application/json"  # a stream lasts as long as its session
        try:
            response = case.call(timeout=60)
            statuses.append(response.status_code)
            assert response.status_code < 500, (case.method, case.path, response.text)
        finally:
            with httpx.Client(base_url=api_url, timeout=60) as client:
                cancel_all(client)

    for operation in operations:
        for mode in schemathesis.GenerationMode:  # valid input, and input that breaks the schema
            run = settings(  # derandomized: the same cases every run, so a run cannot miss a 422 by chance
                max_examples=6, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
            )(given(case=operation.as_strategy(mode))(check))
            try:
                run()
            except Unsatisfiable:
                assert mode is schemathesis.GenerationMode.NEGATIVE  # an operation without input to break
    assert len(statuses) >= 3 * len(operations)
    assert {200, 404, 422} <= set(statuses), sorted(set(statuses))
