"""What `fathom research` writes: ``result.json`` and ``report.md``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fathom_ray.answer_sheet import to_json
from fathom_ray.models import JsonValue
from fathom_ray.session_state import SessionState, SessionSummary


def result_document(state: SessionState, wall_s: float) -> dict[str, Any]:
    """The result.json fields, from a finished session's state."""
    usage = state.usage
    return {
        "session_id": state.session_id,
        "goal": state.request.goal,
        "depth": state.request.depth,
        "status": state.status,
        "stop_reason": state.stop_reason,
        "answers": [to_json(a) for a in state.answers],
        "answers_dropped": state.answers_dropped,
        "checklist": [
            {"id": i.id, "question": i.question, "satisfied": i.satisfied} for i in state.checklist
        ],
        "facts": [
            {
                "id": f.id,
                "claim": f.claim,
                "evidence": f.evidence,
                "source_url": f.source_url,
                "confidence": f.confidence,
                "topic": f.topic,
                "checklist_ids": list(f.checklist_ids),
                "confirms": list(f.confirms),
                "contradicts": list(f.contradicts),
            }
            for f in state.ledger.facts
        ],
        "facts_rejected": state.ledger.rejected,
        "pages": [
            {"url": p.url, "final_url": p.final_url, "status": p.status, "title": p.title, "text": p.text}
            for p in state.pages
        ],
        "report_markdown": state.report_markdown,
        "usage": {
            "pages_fetched": state.pages_fetched,
            "llm_calls": usage.calls,
            "tokens_in": usage.prompt_tokens,
            "tokens_out": usage.completion_tokens,
            "cost_usd": usage.cost_usd,
            "wall_s": round(wall_s, 2),
            "session_s": round(state.elapsed_s, 2),  # the session itself, once the engine was up
            "judge": state.judge,
        },
    }


def status_document(state: SessionState) -> dict[str, Any]:
    """``GET /research/{id}``: the original service's fields, then ours (evidence, report, usage)."""
    quality = {p.url: p.quality for p in state.pages}
    return {
        "id": state.session_id,
        "status": state.status,
        "goal": state.request.goal,
        "depth": state.request.depth,
        "pages_scraped": state.pages_fetched,
        "facts": [
            {
                "id": f.id,
                "claim": f.claim,
                "confidence": f.confidence,
                "source_quality": quality.get(f.source_url, 0.0),
                "source_url": f.source_url,
                "topic": f.topic,
                "evidence": f.evidence,
                "checklist_ids": list(f.checklist_ids),
            }
            for f in state.ledger.facts
        ],
        "checklist": [
            {"id": i.id, "question": i.question, "satisfied": i.satisfied} for i in state.checklist
        ],
        "stop_reason": state.stop_reason,
        "answers": [to_json(a) for a in state.answers],
        "report": state.report_markdown,
        "usage": {
            "llm_calls": state.usage.calls,
            "tokens_in": state.usage.prompt_tokens,
            "tokens_out": state.usage.completion_tokens,
            "cost_usd": state.usage.cost_usd,
            "judge": state.judge,
        },
    }


def summary_record(summary: SessionSummary) -> dict[str, JsonValue]:
    """``GET /research``: a row of the history (the original service's id, goal and status first)."""
    return {
        "id": summary.id,
        "goal": summary.goal,
        "status": summary.status,
        "pages": summary.pages,
        "facts": summary.facts,
        "updated": round(summary.updated, 3),
        "owner": summary.owner,  # the token's name that started it ("" where tokens are not named)
        "depth": summary.depth,
    }


def write_results(out: Path, document: dict[str, Any]) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    result, report = out / "result.json", out / "report.md"
    result.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    report.write_text(document["report_markdown"], encoding="utf-8")
    return result, report
