"""Engine metrics through ray.util.metrics, exported by Ray's metrics agent (the dashboard's endpoint).

Session actors count from their events; the Judge actor counts its calls.
Metrics objects are made inside the actor process that records them.
"""

from __future__ import annotations

import time
from typing import Any

from ray.util.metrics import Counter, Gauge, Histogram

from fathom_ray.models import Event, EventType
from fathom_ray.ports import Judged

ROUND_BOUNDARIES = [1.0, 5.0, 15.0, 60.0, 300.0, 900.0]
LATENCY_BOUNDARIES = [0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0]


class SessionMetrics:
    def __init__(self, session_id: str) -> None:
        self._tags = {"session": session_id}
        self._active = Gauge("fathom_sessions_active", description="sessions running", tag_keys=("session",))
        self._finished = Counter(
            "fathom_sessions_finished_total", description="sessions ended", tag_keys=("status",)
        )
        self._pages = Counter("fathom_pages_total", description="pages by outcome", tag_keys=("outcome",))
        self._facts = Counter(
            "fathom_facts_total", description="facts kept or rejected", tag_keys=("verdict",)
        )
        self._rounds = Histogram(
            "fathom_round_seconds", description="round duration", boundaries=ROUND_BOUNDARIES, tag_keys=()
        )
        self._round_started = time.monotonic()

    def started(self) -> None:
        self._active.set(1, tags=self._tags)

    def observe(self, event: Event) -> None:
        data: Any = event.data
        if event.type is EventType.ANALYZED:
            self._pages.inc(1, tags={"outcome": "fetched"})
            if data.get("fact_count"):
                self._facts.inc(float(data["fact_count"]), tags={"verdict": "kept"})
            if data.get("rejected"):
                self._facts.inc(float(data["rejected"]), tags={"verdict": "rejected"})
        elif event.type is EventType.FETCH_FAILED:
            reason = str(data.get("reason", "")).split(":", 1)[0] or "unknown"
            self._pages.inc(1, tags={"outcome": reason})
        elif event.type is EventType.ROUND_END:
            self._rounds.observe(time.monotonic() - self._round_started)
            self._round_started = time.monotonic()
        elif event.type in (EventType.COMPLETE, EventType.ERROR):
            self._active.set(0, tags=self._tags)
            self._finished.inc(1, tags={"status": event.type.value})


class JudgeMetrics:
    def __init__(self) -> None:
        self._calls = Counter(
            "fathom_judge_calls_total", description="judge calls", tag_keys=("judgement", "outcome")
        )
        self._tokens = Counter("fathom_judge_tokens_total", description="LLM tokens", tag_keys=("direction",))
        self._latency = Histogram(
            "fathom_judge_latency_seconds",
            description="judge call latency",
            boundaries=LATENCY_BOUNDARIES,
            tag_keys=(),
        )
        self._in_flight = Gauge("fathom_judge_in_flight", description="judge calls admitted, not answered")

    def in_flight(self, calls: int) -> None:
        self._in_flight.set(calls)

    def judged(self, judged: Judged[Any]) -> None:
        outcome = "ok" if judged.ok else (judged.failure.kind if judged.failure else "failed")
        self._calls.inc(1, tags={"judgement": judged.judgement, "outcome": outcome})
        if judged.usage.prompt_tokens:
            self._tokens.inc(judged.usage.prompt_tokens, tags={"direction": "in"})
        if judged.usage.completion_tokens:
            self._tokens.inc(judged.usage.completion_tokens, tags={"direction": "out"})
        self._latency.observe(judged.usage.latency_s)
