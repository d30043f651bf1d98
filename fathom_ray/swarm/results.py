"""A swarm's result.json (the session's shape, plus its agents, rounds and verification receipts),
and the swarm as a session's state, so the stores, the API and the history read it as they read a
session."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fathom_ray.answer_sheet import to_json
from fathom_ray.ledger import FactLedger
from fathom_ray.models import Fact, ResearchRequest
from fathom_ray.session_state import CANCELLED, COMPLETE, PageRecord, SessionState
from fathom_ray.swarm.coordinator import SwarmResult
from fathom_ray.swarm.receipts import verdicts


def swarm_state(
    result: SwarmResult, request: ResearchRequest, verified: Sequence[Fact], elapsed_s: float, judge: str
) -> SessionState:
    """The finished swarm as a session: its checklist, its verified facts, its report; its pages by
    URL only (each researcher's session keeps their text)."""
    return SessionState(
        result.swarm_id,
        request,
        status=CANCELLED if result.stop_reason == "cancelled" else COMPLETE,
        round=result.rounds,
        checklist=list(result.checklist),
        ledger=FactLedger(list(verified)),
        pages=[PageRecord(url, url, "ok") for url in result.pages],
        stop_reason=result.stop_reason,
        elapsed_s=elapsed_s,
        report_markdown=result.report_markdown,
        judge=judge,
        answers=list(result.answers),
    )


def swarm_document(result: SwarmResult, depth: str, judge: str, wall_s: float) -> dict[str, Any]:
    passed = verdicts(result.receipts)
    pages = sum(int(str(a.get("pages", 0))) for a in result.agents)  # every fetch, stored or not
    return {
        "session_id": result.swarm_id,
        "mode": "swarm",
        "goal": result.goal,
        "depth": depth,
        "status": "cancelled" if result.stop_reason == "cancelled" else "complete",
        "stop_reason": result.stop_reason,
        "answers": [to_json(a) for a in result.answers],
        "checklist": [
            {"id": i.id, "question": i.question, "satisfied": i.satisfied} for i in result.checklist
        ],
        "facts": [
            {
                "id": m.fact.id,
                "claim": m.fact.claim,
                "evidence": m.fact.evidence,
                "source_url": m.fact.source_url,
                "confidence": m.fact.confidence,
                "topic": m.fact.topic,
                "checklist_ids": list(m.fact.checklist_ids),
                "confirms": list(m.fact.confirms),
                "contradicts": list(m.fact.contradicts),
                "agent": m.agent,
                "verified": passed.get(m.fact.id, "unchecked"),
            }
            for m in result.facts
        ],
        "facts_rejected": sum(1 for v in passed.values() if v == "FAIL"),
        "pages": [
            {"url": url, "final_url": url, "status": "ok", "title": "", "text": text}
            for url, text in result.pages.items()
        ],
        "receipts": [
            {"fact_id": r.fact_id, "kind": r.kind.value, "verdict": r.verdict.value, "detail": r.detail}
            for r in result.receipts
        ],
        "agents": result.agents,
        "rounds": result.rounds,
        "report_markdown": result.report_markdown,
        "usage": {"pages_fetched": pages, "llm_calls": 0, "wall_s": round(wall_s, 2), "judge": judge},
    }
