"""A finished run as a value (``ResearchResult``), what `fathom research` writes (``result.json``
and ``report.md``), and the API's views of sessions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fathom_ray.models import ChecklistItem, Fact, JsonValue, Usage
from fathom_ray.research.answer_sheet import Answer, to_json
from fathom_ray.research.session_state import PageRecord, SessionState, SessionSummary


@dataclass(frozen=True, slots=True)
class SwarmDetail:
    """What a swarm's result adds to a session's: its researchers' runs, its rounds, the verifier's
    receipts, and for each fact the researcher that found it and its verdict."""

    agents: tuple[dict[str, JsonValue], ...]
    rounds: int
    receipts: tuple[dict[str, JsonValue], ...]  # fact_id, kind, verdict, detail
    fact_agents: dict[str, str]  # fact id -> agent
    verdicts: dict[str, str]  # fact id -> PASS, FAIL or unchecked


@dataclass(frozen=True, slots=True)
class ResearchResult:
    """A finished run, session or swarm, as the CLI, the API, batch jobs and bundles hand it on;
    ``to_json`` is result.json. Made by ``from_session`` here and ``swarm_result`` for a swarm."""

    session_id: str
    goal: str
    depth: str
    status: str
    stop_reason: str
    answers: tuple[Answer, ...]
    checklist: tuple[ChecklistItem, ...]
    facts: tuple[Fact, ...]
    pages: tuple[PageRecord, ...]
    report_markdown: str
    usage: Usage
    pages_fetched: int
    judge: str
    wall_s: float
    answers_dropped: int = 0
    facts_rejected: int = 0
    session_s: float | None = None  # the session itself, once the engine was up (a session's only)
    swarm: SwarmDetail | None = None

    @classmethod
    def from_session(cls, state: SessionState, wall_s: float) -> ResearchResult:
        """A finished session's result, from its state."""
        return cls(
            state.session_id,
            state.request.goal,
            state.request.depth,
            state.status,
            state.stop_reason,
            tuple(state.answers),
            tuple(state.checklist),
            tuple(state.fact_ledger.facts),
            tuple(state.pages),
            state.report_markdown,
            state.usage,
            state.pages_fetched,
            state.judge,
            wall_s,
            answers_dropped=state.answers_dropped,
            facts_rejected=state.fact_ledger.rejected,
            session_s=state.elapsed_s,
        )

    @property
    def mode(self) -> str:
        return "session" if self.swarm is None else "swarm"

    def to_json(self) -> dict[str, Any]:
        """result.json: the run's fields; a swarm's facts say their agent and verdict, and its
        agents, rounds and receipts follow."""
        usage = self.usage
        document: dict[str, Any] = {
            "session_id": self.session_id,
            "mode": self.mode,
            "goal": self.goal,
            "depth": self.depth,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "answers": [to_json(a) for a in self.answers],
            "answers_dropped": self.answers_dropped,
            "checklist": [
                {"id": i.id, "question": i.question, "satisfied": i.satisfied} for i in self.checklist
            ],
            "facts": [self._fact(f) for f in self.facts],
            "facts_rejected": self.facts_rejected,
            "pages": [
                {"url": p.url, "final_url": p.final_url, "status": p.status, "title": p.title, "text": p.text}
                for p in self.pages
            ],
            "report_markdown": self.report_markdown,
            "usage": {
                "pages_fetched": self.pages_fetched,
                "llm_calls": usage.calls,
                "tokens_in": usage.prompt_tokens,
                "tokens_out": usage.completion_tokens,
                "cost_usd": usage.cost_usd,
                "wall_s": round(self.wall_s, 2),
                **({} if self.session_s is None else {"session_s": round(self.session_s, 2)}),
                "judge": self.judge,
            },
        }
        if self.swarm is not None:
            document |= {
                "receipts": list(self.swarm.receipts),
                "agents": list(self.swarm.agents),
                "rounds": self.swarm.rounds,
            }
        return document

    def _fact(self, fact: Fact) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": fact.id,
            "claim": fact.claim,
            "evidence": fact.evidence,
            "source_url": fact.source_url,
            "confidence": fact.confidence,
            "topic": fact.topic,
            "checklist_ids": list(fact.checklist_ids),
            "confirms": list(fact.confirms),
            "contradicts": list(fact.contradicts),
        }
        if self.swarm is not None:
            data |= {
                "agent": self.swarm.fact_agents.get(fact.id, ""),
                "verified": self.swarm.verdicts.get(fact.id, "unchecked"),
            }
        return data


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
            for f in state.fact_ledger.facts
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


def write_results(out: Path, research: ResearchResult) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    result, report = out / "result.json", out / "report.md"
    result.write_text(json.dumps(research.to_json(), indent=2, ensure_ascii=False), encoding="utf-8")
    report.write_text(research.report_markdown, encoding="utf-8")
    return result, report
