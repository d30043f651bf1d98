"""A session's state, its facts and its frontier pool as JSON, for the stores that keep them (only them).

Values travel between actors as themselves; this is the one place they become JSON and back.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fathom_ray.models import Candidate, CandidateOrigin, ChecklistItem, Fact, ResearchRequest, Usage
from fathom_ray.research.answer_sheet import from_json as answer_from_json
from fathom_ray.research.answer_sheet import to_json as answer_to_json
from fathom_ray.research.fact_ledger import FactLedger
from fathom_ray.research.frontier import Entry, EntryState, SessionFrontier
from fathom_ray.research.session_state import PageRecord, SessionState, SessionStatus


def state_to_json(state: SessionState) -> dict[str, Any]:
    data = asdict(state)
    data["request"] = state.request.to_json()
    data["fact_ledger"] = {
        "facts": [fact_to_json(f) for f in state.fact_ledger.facts],
        "rejected": state.fact_ledger.rejected,
    }
    data["answers"] = [answer_to_json(a) for a in state.answers]
    return data


def state_from_json(data: dict[str, Any]) -> SessionState:
    request = data["request"]
    ledger = (
        data["fact_ledger"] if "fact_ledger" in data else data["ledger"]
    )  # "ledger": as earlier versions stored it
    return SessionState(
        session_id=data["session_id"],
        request=ResearchRequest.from_json(request),
        status=SessionStatus(data["status"]),
        round=data["round"],
        checklist=[
            ChecklistItem(c["id"], c["question"], c["satisfied"], tuple(c["fact_ids"]))
            for c in data["checklist"]
        ],
        fact_ledger=FactLedger([fact_from_json(f) for f in ledger["facts"]], int(ledger["rejected"])),
        pages=[PageRecord(**p) for p in data["pages"]],
        queries_done=list(data["queries_done"]),
        stop_reason=data["stop_reason"],
        usage=Usage(**data["usage"]),
        elapsed_s=float(data["elapsed_s"]),
        report_markdown=data["report_markdown"],
        failures=int(data["failures"]),
        decomposed=bool(data["decomposed"]),
        judge=str(data.get("judge", "")),
        answers=[answer_from_json(a) for a in data.get("answers", [])],
        answers_dropped=int(data.get("answers_dropped", 0)),
    )


def fact_to_json(fact: Fact) -> dict[str, Any]:
    return {
        "id": fact.id,
        "claim": fact.claim,
        "evidence": fact.evidence,
        "source_url": fact.source_url,
        "checklist_ids": list(fact.checklist_ids),
        "confidence": fact.confidence,
        "topic": fact.topic,
        "confirms": list(fact.confirms),
        "contradicts": list(fact.contradicts),
    }


def fact_from_json(raw: dict[str, Any]) -> Fact:
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


def frontier_to_json(frontier: SessionFrontier) -> dict[str, Any]:
    return {
        "url_pool": frontier.url_pool,
        "entries": [
            {
                **asdict(e.candidate),
                "origin": e.candidate.origin.value,
                "state": e.state.value,
                "reason": e.reason,
            }
            for e in frontier.entries.values()
        ],
    }


def frontier_from_json(data: dict[str, Any]) -> SessionFrontier:
    frontier = SessionFrontier(int(data["url_pool"]))
    for raw in data["entries"]:
        item = dict(raw)
        state, reason = item.pop("state"), item.pop("reason")
        item["origin"] = CandidateOrigin(item["origin"])
        candidate = Candidate(**item)
        frontier.entries[candidate.url] = Entry(candidate, EntryState(state), reason)
    return frontier
