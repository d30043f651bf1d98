"""The load and soak parts of ``scripts/bench_reliability.py``: the API through Ray Serve.

A local Ray runs the engine with the scripted judge on the offline web and the API on Serve with
the cap at 4 (``FATHOM_API__MAX_SESSIONS``).

Load: ``CLIENTS`` clients for ``LOAD_S`` seconds, each starting sessions (streamed, or polled),
polling, cancelling its own and reconnecting with Last-Event-ID. Held: every answer is a whole
stream (one that ends in ``complete`` or ``error``), a 429 with Retry-After, or a 4xx with a reason;
never a 5xx or a hang (no answer in ``HANG_S``).

Soak: ``SOAK`` glance sessions, 3 at a time, started and polled through the API. After the first
``SOAK_BASE`` and at the end: every engine actor's resident memory, and the Chromium processes;
per window of ``SOAK_BASE`` sessions, the API's p95 latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import random
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import httpx
import matplotlib
import psutil
import ray
from ray.util.state import list_actors
from reliability_faults import offline_settings

from actors.engine import Engine, start_engine
from fathom_ray.testweb.server import TestWeb
from fathom_ray.web.network import NetworkMap
from serve.deployment import run_api, shutdown
from tests.net import free_port, wait_until_healthy
from tests.ray_state import chromium_processes as chromium_under
from tests.scripted_judge import ScriptedJudge

matplotlib.use("Agg")
import matplotlib.pyplot as plt

CLIENTS, LOAD_S, HANG_S = 50, 120.0, 60.0
SOAK, SOAK_BASE, SOAK_AT_ONCE = 300, 30, 3
GOAL = {"goal": "Which Python version introduced assignment expressions?", "depth": "glance"}
ROOT = Path(__file__).resolve().parents[1]
PLOT = ROOT / "docs" / "eval" / "soak.png"


@contextlib.contextmanager
def serving(web: TestWeb, data_dir: Path) -> Iterator[tuple[str, Engine]]:
    """The API on Serve over an engine with the scripted judge: its URL."""
    network = NetworkMap.offline(web.port)
    settings = offline_settings(
        data_dir, network, api={"port": free_port(), "max_sessions": 4, "heartbeat_s": 5}
    )
    ray.init(log_to_driver=False)
    try:
        name = f"scripted-judge-{uuid.uuid4().hex[:8]}"
        judge: Any = ray.remote(ScriptedJudge).options(num_cpus=0, name=name, max_restarts=3).remote()
        ray.get(judge.configure.remote(satisfy=True), timeout=120)
        engine = start_engine(settings, network, judge=name)
        run_api(dataclasses.replace(engine, settings=settings))
        url = f"http://127.0.0.1:{settings.api.port}"
        wait_until_healthy(url, timeout_s=120)
        try:
            yield url, engine
        finally:
            shutdown()
    finally:
        ray.shutdown()


# --- load ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class Tally:
    outcomes: Counter[str] = dataclasses.field(default_factory=Counter)
    first_event_s: list[float] = dataclasses.field(default_factory=list)
    requests: int = 0
    bad: list[str] = dataclasses.field(default_factory=list)  # what was neither whole nor a clear no

    def answer(self, response: httpx.Response, what: str) -> None:
        self.requests += 1
        code = response.status_code
        if code == 429 and response.headers.get("retry-after", "").isdigit():
            self.outcomes["429 with Retry-After"] += 1
        elif 400 <= code < 500 and code != 429 and "detail" in response.text:
            self.outcomes["4xx with a reason"] += 1
        elif code < 300:
            self.outcomes["answered"] += 1
        else:
            self.outcomes[f"{code}"] += 1
            self.bad.append(f"{what}: {code} {response.text[:120]}")


async def load(url: str) -> dict[str, Any]:
    """``CLIENTS`` clients for ``LOAD_S`` seconds; the tally of what they were answered."""
    tally = Tally()
    deadline = time.monotonic() + LOAD_S
    started = time.monotonic()
    await asyncio.gather(*(_client(url, tally, deadline, random.Random(i)) for i in range(CLIENTS)))
    wall = time.monotonic() - started
    firsts = sorted(tally.first_event_s)
    return {
        "clients": CLIENTS,
        "seconds": wall,
        "requests": tally.requests,
        "per_s": tally.requests / wall,
        "outcomes": dict(tally.outcomes),
        "first_event_p50": statistics.median(firsts) if firsts else None,
        "first_event_p95": firsts[int(0.95 * (len(firsts) - 1))] if firsts else None,
        "bad": tally.bad[:10],
        "held": not tally.bad,
    }


async def _client(url: str, tally: Tally, deadline: float, rng: random.Random) -> None:
    mine: list[tuple[str, int]] = []  # (session id, last event seen)
    async with httpx.AsyncClient(base_url=url, timeout=HANG_S) as http:
        while time.monotonic() < deadline:
            action = rng.choices(["stream", "start", "poll", "cancel", "reconnect"], [4, 2, 2, 1, 1])[0]
            try:
                await _act(http, action, mine, tally, rng)
            except httpx.TimeoutException:
                tally.requests += 1
                tally.outcomes["hang"] += 1
                tally.bad.append(f"{action}: no answer in {HANG_S:g} s")
            await asyncio.sleep(rng.uniform(0.05, 0.5))


async def _act(
    http: httpx.AsyncClient, action: str, mine: list[tuple[str, int]], tally: Tally, rng: random.Random
) -> None:
    if action == "stream" or (action == "reconnect" and mine):
        if action == "stream":
            request = http.stream("POST", "/research", json=GOAL, headers={"Accept": "text/event-stream"})
        else:
            session_id, seen = rng.choice(mine)
            headers = {"Accept": "text/event-stream", "Last-Event-ID": str(seen)}
            request = http.stream("GET", f"/research/{session_id}/stream", headers=headers)
        await _stream(request, action, mine, tally)
    elif action == "start":
        answer = await http.post("/research", json=GOAL)
        tally.answer(answer, action)
        if answer.status_code == 200:
            mine.append((answer.json()["id"], 0))
    elif action == "cancel" and mine:
        session_id, _ = mine.pop(rng.randrange(len(mine)))
        tally.answer(await http.delete(f"/research/{session_id}"), action)
    else:
        path = f"/research/{rng.choice(mine)[0]}" if mine and rng.random() < 0.5 else "/research"
        tally.answer(await http.get(path), "poll")


async def _ended(stream: httpx.Response, session_id: str, mine: list[tuple[str, int]]) -> bool:
    """Whether a stream resumed with nothing in it was one resumed after its session's end (right)."""
    session_id = session_id or stream.url.path.split("/")[2]
    seen = max((last for sid, last in mine if sid == session_id), default=0)
    async with httpx.AsyncClient(base_url=f"{stream.url.scheme}://{stream.url.netloc.decode()}") as http:
        status = (await http.get(f"/research/{session_id}")).json().get("status")
    return seen > 0 and status != "running"


async def _stream(request: Any, what: str, mine: list[tuple[str, int]], tally: Tally) -> None:
    sent = time.monotonic()
    async with request as stream:
        if stream.status_code != 200:
            await stream.aread()
            tally.answer(stream, what)
            return
        session_id = stream.headers.get("x-session-id")
        last_type, last_id, first = "", 0, True
        last_event = time.monotonic()
        async for line in stream.aiter_lines():
            if time.monotonic() - last_event > HANG_S:  # heartbeats, and no event: a hang
                tally.requests += 1
                tally.outcomes["hang"] += 1
                tally.bad.append(f"{what}: heartbeats only for {HANG_S:g} s after {last_type or 'nothing'}")
                return
            if line.startswith("event: "):
                last_event = time.monotonic()
                last_type = line.removeprefix("event: ")
                if first and what == "stream":
                    tally.first_event_s.append(time.monotonic() - sent)
                first = False
            elif line.startswith("id: "):
                last_id = int(line.removeprefix("id: "))
        tally.requests += 1
        if last_type in {"complete", "error"}:
            tally.outcomes["whole stream"] += 1
        elif what == "reconnect" and not last_type and await _ended(stream, session_id or "", mine):
            tally.outcomes["resumed after its end: nothing more"] += 1
        else:
            tally.outcomes["cut stream"] += 1
            tally.bad.append(f"{what}: the stream ended after {last_type or 'nothing'}")
        if session_id:
            mine.append((session_id, last_id))


# --- soak ---------------------------------------------------------------------------------------


def soak(url: str, engine: Engine) -> dict[str, Any]:
    """``SOAK`` glance sessions through the API; memory and Chromium after ``SOAK_BASE`` and at the end."""
    latencies: list[list[float]] = []
    base: dict[str, float] = {}
    chromium_base = 0
    with httpx.Client(base_url=url, timeout=HANG_S) as http:
        for window_index in range(SOAK // SOAK_BASE):
            window: list[float] = []
            for _ in range(SOAK_BASE // SOAK_AT_ONCE):
                _run_batch(http, SOAK_AT_ONCE, window)
            latencies.append(window)
            if window_index == 0:
                base, chromium_base = actor_rss_mib(), chromium_processes(engine)
        frontier_pools = ray.get(engine.handles.frontier.sessions.remote())
    final, chromium_final = actor_rss_mib(), chromium_processes(engine)
    growth = {kind: (final.get(kind, 0.0) - mib) / mib * 100 for kind, mib in base.items() if mib}
    p95s = [sorted(w)[int(0.95 * (len(w) - 1))] * 1000 for w in latencies if w]
    _plot(p95s, base, final)
    return {
        "sessions": SOAK,
        "rss_base": base,
        "rss_final": final,
        "growth_pct": growth,
        "worst_growth_pct": max(growth.values(), default=0.0),
        "chromium": (chromium_base, chromium_final),
        "frontier_pools_left": len(frontier_pools),
        "p95_ms": p95s,
    }


def _run_batch(http: httpx.Client, batch: int, window: list[float]) -> None:
    ids = []
    for _ in range(batch):
        sent = time.monotonic()
        answer = http.post("/research", json=GOAL)
        window.append(time.monotonic() - sent)
        answer.raise_for_status()
        ids.append(answer.json()["id"])
    waiting = set(ids)
    while waiting:
        time.sleep(0.3)
        for session_id in list(waiting):
            sent = time.monotonic()
            status = http.get(f"/research/{session_id}").json()["status"]
            window.append(time.monotonic() - sent)
            if status != "running":
                waiting.discard(session_id)
    time.sleep(0.5)  # the replica frees a finished session's slot on its next request


def actor_rss_mib() -> dict[str, float]:
    """Resident memory per actor kind (class), MiB, summed over its live actors."""
    address = ray.get_runtime_context().gcs_address
    rss: dict[str, float] = {}
    for actor in list_actors(address=address, filters=[("state", "=", "ALIVE")], detail=True, limit=1000):
        with contextlib.suppress(psutil.Error, TypeError):
            mib = psutil.Process(actor.pid).memory_info().rss / 2**20
            kind = str(actor.class_name).split(":")[0]
            rss[kind] = rss.get(kind, 0.0) + mib
    return rss


def chromium_processes(engine: Engine) -> int:
    """Chromium processes under this engine's browser pools (not another Chromium on the machine)."""
    return sum(chromium_under(pool) for pool in engine.browser_pools)


def _plot(p95s: list[float], base: dict[str, float], final: dict[str, float]) -> None:
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    left.plot([SOAK_BASE * (i + 1) for i in range(len(p95s))], p95s, marker="o")
    left.set_xlabel("sessions done")
    left.set_ylabel("API p95 latency (ms)")
    left.set_ylim(bottom=0)
    kinds = sorted(base, key=lambda k: -base[k])[:8]
    positions = range(len(kinds))
    right.barh([p + 0.2 for p in positions], [base[k] for k in kinds], height=0.4, label=f"after {SOAK_BASE}")
    right.barh([p - 0.2 for p in positions], [final.get(k, 0) for k in kinds], height=0.4, label="at the end")
    right.set_yticks(list(positions), kinds, fontsize=7)
    right.set_xlabel("resident memory (MiB)")
    right.legend(fontsize=7)
    figure.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(PLOT, dpi=100)
    plt.close(figure)
