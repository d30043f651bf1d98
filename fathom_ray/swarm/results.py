"""A swarm's result.json: the session's shape, plus its agents, rounds and verification receipts."""

from __future__ import annotations

from typing import Any

from fathom_ray.swarm.coordinator import SwarmResult
from fathom_ray.swarm.receipts import verdicts


def swarm_document(result: SwarmResult, depth: str, judge: str, wall_s: float) -> dict[str, Any]:
    passed = verdicts(result.receipts)
    pages = sum(int(str(a.get("pages", 0))) for a in result.agents)
    return {
        "session_id": result.swarm_id,
        "mode": "swarm",
        "goal": result.goal,
        "depth": depth,
        "status": "cancelled" if result.stop_reason == "cancelled" else "complete",
        "stop_reason": result.stop_reason,
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
        "pages": [],
        "receipts": [
            {"fact_id": r.fact_id, "kind": r.kind.value, "verdict": r.verdict.value, "detail": r.detail}
            for r in result.receipts
        ],
        "agents": result.agents,
        "rounds": result.rounds,
        "report_markdown": result.report_markdown,
        "usage": {"pages_fetched": pages, "llm_calls": 0, "wall_s": round(wall_s, 2), "judge": judge},
    }
