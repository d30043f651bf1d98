"""Everything a session knows, as one value (the stores' adapters turn it into JSON and back)."""

from __future__ import annotations

import enum
import re
import uuid
from dataclasses import dataclass, field

from fathom_ray.models import ChecklistItem, ResearchRequest, Usage
from fathom_ray.research.answer_sheet import Answer
from fathom_ray.research.fact_ledger import FactLedger

STARTED_ID = re.compile(r"[sw]-[0-9a-f]{12}")  # the ids ``new_session_id`` gives sessions and swarms


def new_session_id(kind: str = "s") -> str:
    """A fresh id: ``kind`` (``s`` a session, ``w`` a swarm, ``e`` an evaluation's run), a hyphen and
    12 hex digits."""
    return f"{kind}-{uuid.uuid4().hex[:12]}"


class SessionStatus(enum.StrEnum):
    """Where a session stands; the values are the API's ``status`` strings."""

    RUNNING = "running"
    COMPLETE = "complete"
    FAILED = "error"
    CANCELLED = "cancelled"


RUNNING, COMPLETE, FAILED, CANCELLED = (
    SessionStatus.RUNNING,
    SessionStatus.COMPLETE,
    SessionStatus.FAILED,
    SessionStatus.CANCELLED,
)


@dataclass(slots=True)
class PageRecord:
    url: str
    final_url: str
    status: str
    title: str = ""
    text: str = ""
    error: str = ""
    quality: float = 0.0


@dataclass(slots=True)
class SessionState:
    session_id: str
    request: ResearchRequest
    status: SessionStatus = RUNNING
    round: int = 0
    checklist: list[ChecklistItem] = field(default_factory=list)
    fact_ledger: FactLedger = field(default_factory=FactLedger)
    pages: list[PageRecord] = field(default_factory=list)
    queries_done: list[str] = field(default_factory=list)
    stop_reason: str = ""
    usage: Usage = field(default_factory=Usage)
    elapsed_s: float = 0.0
    report_markdown: str = ""
    failures: int = 0
    decomposed: bool = False
    judge: str = ""  # which judge answered: "evidence (all-MiniLM-L6-v2 + BM25)", "vllm (model)", ...
    answers: list[Answer] = field(default_factory=list)  # one per answered item, once composed
    answers_dropped: int = 0  # the judge's answers whose span was not in their cited evidence

    @property
    def pages_fetched(self) -> int:
        return sum(1 for p in self.pages if p.status == "ok")


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A row of the session list: what a history shows without loading the session."""

    id: str
    goal: str
    status: str
    pages: int = 0  # fetched
    facts: int = 0  # kept
    updated: float = 0.0  # when it was last saved, seconds since the epoch
    owner: str = ""  # ``ResearchRequest.owner``
    depth: str = ""  # ``ResearchRequest.depth``


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    """What a Session actor answers when its run ends: the final state, and seconds per stage where
    the run measured them (the single-pass baseline does; a session's stages come from its events)."""

    state: SessionState
    stages_s: tuple[tuple[str, float], ...] = ()
