"""A swarm's result (the session's shape, plus its agents, rounds and verification receipts),
and the swarm as a session's state, so the stores, the API and the history read it as they read a
session."""

from __future__ import annotations

from collections.abc import Sequence

from fathom_ray.models import Fact, ResearchRequest
from fathom_ray.research.fact_ledger import FactLedger
from fathom_ray.research.results import ResearchResult, SwarmDetail
from fathom_ray.research.session_state import CANCELLED, COMPLETE, PageRecord, SessionState, SessionStatus
from fathom_ray.swarm.coordinator import SwarmResult
from fathom_ray.swarm.receipts import verdicts


def status_of(result: SwarmResult) -> SessionStatus:
    return CANCELLED if result.stop_reason == "cancelled" else COMPLETE


def swarm_state(
    result: SwarmResult, request: ResearchRequest, verified: Sequence[Fact], elapsed_s: float, judge: str
) -> SessionState:
    """The finished swarm as a session: its checklist, its verified facts, its report; its pages by
    URL only (each researcher's session keeps their text)."""
    return SessionState(
        result.swarm_id,
        request,
        status=status_of(result),
        round=result.rounds,
        checklist=list(result.checklist),
        fact_ledger=FactLedger(list(verified)),
        pages=[PageRecord(url, url, "ok") for url in result.pages],
        stop_reason=result.stop_reason,
        elapsed_s=elapsed_s,
        report_markdown=result.report_markdown,
        judge=judge,
        answers=list(result.answers),
        usage=result.usage,
        failures=result.failures,
    )


def swarm_result(result: SwarmResult, depth: str, judge: str, wall_s: float) -> ResearchResult:
    """The finished swarm as a run's result: every merged fact with its agent and verdict, the pages
    its researchers stored, its agents, rounds and receipts."""
    passed = verdicts(result.receipts)
    detail = SwarmDetail(
        agents=tuple(result.agents),
        rounds=result.rounds,
        receipts=tuple(
            {"fact_id": r.fact_id, "kind": r.kind.value, "verdict": r.verdict.value, "detail": r.detail}
            for r in result.receipts
        ),
        fact_agents={m.fact.id: m.agent for m in result.facts},
        verdicts={m.fact.id: str(passed.get(m.fact.id, "unchecked")) for m in result.facts},
    )
    return ResearchResult(
        result.swarm_id,
        result.goal,
        depth,
        status_of(result),
        result.stop_reason,
        tuple(result.answers),
        tuple(result.checklist),
        tuple(m.fact for m in result.facts),
        tuple(PageRecord(url, url, "ok", text=text) for url, text in result.pages.items()),
        result.report_markdown,
        result.usage,
        result.pages_read,
        judge,
        wall_s,
        facts_rejected=sum(1 for v in passed.values() if v == "FAIL"),
        swarm=detail,
    )
