"""Everything a session knows, as one value that round-trips through JSON for the stores."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

from fathom_ray.ledger import FactLedger
from fathom_ray.models import ChecklistItem, Fact, ResearchRequest, Usage


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
    ledger: FactLedger = field(default_factory=FactLedger)
    pages: list[PageRecord] = field(default_factory=list)
    queries_done: list[str] = field(default_factory=list)
    stop_reason: str = ""
    usage: Usage = field(default_factory=Usage)
    elapsed_s: float = 0.0
    report_markdown: str = ""
    failures: int = 0
    decomposed: bool = False
    judge: str = ""  # which judge answered: "evidence (all-MiniLM-L6-v2 + BM25)", "vllm (model)", ...

    @property
    def pages_fetched(self) -> int:
        return sum(1 for p in self.pages if p.status == "ok")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["request"] = asdict(self.request)
        data["ledger"] = {"facts": [asdict(f) for f in self.ledger.facts], "rejected": self.ledger.rejected}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionState:
        request = data["request"]
        return cls(
            session_id=data["session_id"],
            request=ResearchRequest(
                goal=request["goal"],
                depth=request["depth"],
                seeds=tuple(request["seeds"]),
                max_pages=request["max_pages"],
                n=request["n"],
                time_budget_s=request.get("time_budget_s"),
                token_budget=request.get("token_budget"),
            ),
            status=SessionStatus(data["status"]),
            round=data["round"],
            checklist=[
                ChecklistItem(c["id"], c["question"], c["satisfied"], tuple(c["fact_ids"]))
                for c in data["checklist"]
            ],
            ledger=FactLedger([_fact(f) for f in data["ledger"]["facts"]], int(data["ledger"]["rejected"])),
            pages=[PageRecord(**p) for p in data["pages"]],
            queries_done=list(data["queries_done"]),
            stop_reason=data["stop_reason"],
            usage=Usage(**data["usage"]),
            elapsed_s=float(data["elapsed_s"]),
            report_markdown=data["report_markdown"],
            failures=int(data["failures"]),
            decomposed=bool(data["decomposed"]),
            judge=str(data.get("judge", "")),
        )


def _fact(raw: dict[str, Any]) -> Fact:
    return Fact(
        id=raw["id"],
        claim=raw["claim"],
        evidence=raw["evidence"],
        source_url=raw["source_url"],
        checklist_ids=tuple(raw["checklist_ids"]),
        confidence=float(raw["confidence"]),
        topic=raw["topic"],
        confirms=tuple(raw["confirms"]),
        contradicts=tuple(raw["contradicts"]),
    )
