"""The swarm's coordinator loop: plan, fan out, collect, analyse, verify, check the goal, fill gaps.

Orchestration only, like the session loop: researchers run behind ``ResearcherCalls`` (Session
actors on the shared engine in production, anything with the method in tests), judgements go to
the judge, every decision goes to the task ledger. A researcher that crashes is recorded and its
sub-goal re-assigned once; a swarm with crashed researchers still composes what the others found.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

from fathom_ray.errors import SearchError
from fathom_ray.models import ChecklistItem, EventType, Fact, JsonValue, Usage
from fathom_ray.ports import (
    AnalystCalls,
    Judged,
    JudgePort,
    LedgerWriter,
    PageCalls,
    ResearcherCalls,
    SearchCalls,
    VerifierCalls,
)
from fathom_ray.research import checklist as checklists
from fathom_ray.research.answer_sheet import Answer
from fathom_ray.research.presets import Budget
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_state import SessionState
from fathom_ray.swarm.analyst import MergedFact
from fathom_ray.swarm.beacons import at_end
from fathom_ray.swarm.plan import FINDINGS_PER_AGENT, SubGoal, plan, plan_hops, split, with_seeds
from fathom_ray.swarm.receipts import Receipt, Verdict, verdicts
from fathom_ray.swarm.roles import Analyst, Verifier
from fathom_ray.swarm.task_ledger import Beacon, RecordKind

logger = logging.getLogger(__name__)
FIRST_ROUND_SHARE = 0.7  # of the pages, for the first fan-out; gap filling shares the rest
GOAL_RESULTS = 8  # the goal's own results dealt out as seeds (a session's results per query)


@dataclass(frozen=True, slots=True)
class ResearcherOutcome:
    agent: str
    facts: tuple[Fact, ...]
    pages: dict[str, str]  # url -> the text the researcher stored
    pages_fetched: int
    stop_reason: str
    reported: bool = False  # it wrote its own completion (and beacons) to the ledger
    usage: Usage = field(default_factory=Usage)  # its judge calls
    failures: int = 0  # the pages it could not fetch

    @classmethod
    def of(cls, agent: str, state: SessionState, *, reported: bool = False) -> ResearcherOutcome:
        """What a researcher's finished session found: its facts, the pages it stored with text."""
        return cls(
            agent,
            tuple(state.fact_ledger.facts),
            {p.url: p.text for p in state.pages if p.text},
            state.pages_fetched,
            state.stop_reason,
            reported=reported,
            usage=state.usage,
            failures=state.failures,
        )


@dataclass(slots=True)
class SwarmResult:
    swarm_id: str
    goal: str
    checklist: list[ChecklistItem]
    facts: list[MergedFact] = field(default_factory=list)
    receipts: list[Receipt] = field(default_factory=list)
    agents: list[dict[str, JsonValue]] = field(default_factory=list)
    rounds: int = 0
    report_markdown: str = ""
    stop_reason: str = ""
    budget: Budget | None = None
    pages: dict[str, str] = field(default_factory=dict)  # url -> the text its researchers stored
    answers: list[Answer] = field(default_factory=list)  # one per answered item, once composed
    usage: Usage = field(default_factory=Usage)  # every judge call: the researchers' and its own
    failures: int = 0  # the pages its researchers could not fetch

    @property
    def pages_read(self) -> int:
        """Every fetch of every researcher, stored or not."""
        return sum(int(str(a.get("pages", 0))) for a in self.agents)


class Coordinator:
    def __init__(
        self,
        swarm_id: str,
        goal: str,
        *,
        judge: JudgePort,
        researchers: ResearcherCalls,
        pages: PageCalls | None = None,
        ledger: LedgerWriter,
        agents: int,
        budget: Budget,
        checklist_size: int,
        replan_rounds: int = 2,
        parallel: int = 0,
        events: EventLog | None = None,
        analyst: AnalystCalls | None = None,
        verifier: VerifierCalls | None = None,
        search: SearchCalls | None = None,
    ) -> None:
        """``analyst`` and ``verifier``: their actors in production; in process by default, the
        verifier fetching pages as served now through ``pages`` (None: stored pages only).
        ``parallel``: researchers at work at once (0: every one of a round)."""
        self.result = SwarmResult(swarm_id, goal, [], budget=budget)
        self.events = events or EventLog(swarm_id)
        self._judge, self._researchers, self._ledger = judge, researchers, ledger
        self._search = search  # the goal's own results, for the seeds of a first round without it whole
        self._analyst = analyst or Analyst()
        self._verifier = verifier or Verifier(pages)
        self._agents, self._budget, self._size = agents, budget, checklist_size
        self._replan_rounds = replan_rounds
        self._parallel = parallel
        self._outcomes: list[ResearcherOutcome] = []
        self._early: list[asyncio.Future[None]] = []  # the verifier's fetches as each researcher reports
        self._served: list[asyncio.Future[list[Receipt]]] = []  # served looks running on past their round
        self._counted: set[str] = set()  # the facts a goal check was given
        self._tried: list[str] = []  # the hop searches gap-filling rounds were given
        self.cancelled = False

    def use_search(self, search: SearchCalls) -> None:
        """The search the goal's own results come from (opened once the coordinator runs)."""
        self._search = search

    def cancel(self) -> None:
        """Start no researcher from now on (the caller ends the running ones); compose what was found."""
        self.cancelled = True
        self._ledger.append("coordinator", RecordKind.FAILURE, {"error": "cancelled"})

    async def run(self) -> SwarmResult:
        result = self.result
        result.checklist = await checklists.decompose(self._judge, result.goal, self._size, self._account)
        unique = [i.question for i in result.checklist]
        self._ledger.append("coordinator", RecordKind.PLAN, {"checklist": list[JsonValue](unique)})
        self.events.emit(EventType.DECOMPOSE, {"questions": list[JsonValue](unique)})
        pages_left = self._budget.pages
        for round_number in range(self._replan_rounds + 1):
            share = FIRST_ROUND_SHARE if round_number == 0 and self._replan_rounds else 1.0
            pages = max(1, int(pages_left * share)) if pages_left > 0 else 0
            if self.cancelled:
                result.stop_reason = "cancelled"
                break
            if pages == 0:
                result.stop_reason = "page budget spent"
                break
            round_budget = Budget(
                pages, self._budget.time_s, split(self._budget.tokens, self._replan_rounds + 1)[0]
            )
            prefix = f"r{round_number + 1}-researcher"
            hops = await self._hops() if round_number else []
            subs = (
                plan_hops(hops, self._open_ids(), self._agents, round_budget, prefix=prefix)
                if hops
                else plan(result.goal, result.checklist, self._agents, round_budget, prefix=prefix)
            )
            if round_number == 0 and not any("Q1" in sub.item_ids for sub in subs):
                subs = with_seeds(subs, await self._goal_results())  # no researcher has the goal whole
            result.rounds = round_number + 1
            outcomes = await self._fan_out(subs)
            pages_left -= sum(o.pages_fetched for o in outcomes if o is not None)
            await self._collect()
            open_items = await self._goal_check()
            if not open_items:  # the swarm stops on facts whose every look passed
                open_items = await self._settle_verified()
            if self.cancelled:
                result.stop_reason = "cancelled"
                break
            if not open_items:
                result.stop_reason = "checklist satisfied"
                break
            if round_number < self._replan_rounds:
                self._ledger.append(
                    "coordinator", RecordKind.PLAN, {"gap_filling": list[JsonValue](open_items)}
                )
        else:
            result.stop_reason = result.stop_reason or "replan rounds spent"
        await self._compose()
        self._ledger.append("coordinator", RecordKind.COMPLETION, {"stop_reason": result.stop_reason})
        return result

    async def _fan_out(self, subs: list[SubGoal]) -> list[ResearcherOutcome | None]:
        """Every sub-goal's researcher, at most ``parallel`` at work at once (0: all)."""
        limit = asyncio.Semaphore(self._parallel or max(1, len(subs)))

        async def limited(sub: SubGoal) -> ResearcherOutcome | None:
            async with limit:
                return await self._run_one(sub)

        return await asyncio.gather(*(limited(sub) for sub in subs))

    async def _run_one(self, sub: SubGoal) -> ResearcherOutcome | None:
        for attempt in (1, 2):
            if self.cancelled:
                return None
            agent = sub.agent if attempt == 1 else f"{sub.agent}-again"
            task = replace(sub, agent=agent)
            self._ledger.append(
                "coordinator",
                RecordKind.ASSIGNMENT,
                {
                    "agent": agent,
                    "goal": sub.goal,
                    "items": list[JsonValue](sub.item_ids),
                    "attempt": attempt,
                },
            )
            self._ledger.append(
                "coordinator",
                RecordKind.BUDGET,
                {
                    "agent": agent,
                    "pages": sub.budget.pages,
                    "time_s": sub.budget.time_s,
                    "tokens": sub.budget.tokens,
                },
            )
            self._agent_event(agent, "assigned", goal=sub.goal, pages=sub.budget.pages, attempt=attempt)
            started = time.monotonic()
            try:
                outcome = await self._researchers.research(task)
            except Exception as e:  # noqa: BLE001 (any crash: an actor died, a session failed) re-assigned once
                logger.warning("researcher %s failed: %s", agent, e)
                status = "cancelled" if self.cancelled else "failed"
                self._ledger.append(agent, RecordKind.FAILURE, {"error": f"{type(e).__name__}: {e}"[:500]})
                self.result.agents.append({"agent": agent, "goal": sub.goal, "status": status})
                self._agent_event(agent, status, error=f"{type(e).__name__}: {e}"[:300])
                continue
            self.result.usage += outcome.usage
            self.result.failures += outcome.failures
            facts = sorted(outcome.facts, key=lambda f: -f.confidence)[:FINDINGS_PER_AGENT]
            ids = tuple(dict.fromkeys([*sub.item_ids, "Q1"]))  # what it found answers its items
            capped = replace(outcome, facts=tuple(replace(f, checklist_ids=ids) for f in facts))
            self._outcomes.append(capped)
            seconds = round(time.monotonic() - started, 2)
            if outcome.reported:  # its completion is in the ledger: the coordinator adds its collection
                data: dict[str, JsonValue] = {"collected": agent, "kept": len(facts), "seconds": seconds}
                self._ledger.append("coordinator", RecordKind.COMPLETION, data)
            else:
                data = {
                    "facts": len(outcome.facts),
                    "kept": len(facts),
                    "pages": outcome.pages_fetched,
                    "stop_reason": outcome.stop_reason,
                    "seconds": seconds,
                }
                self._ledger.append(agent, RecordKind.COMPLETION, data)
                raised = at_end(outcome.stop_reason)
                if raised is not None:
                    self._ledger.append(agent, RecordKind.BEACON, raised[1], beacon=raised[0])
            self.result.agents.append(
                {
                    "agent": agent,
                    "goal": sub.goal,
                    "status": "complete",
                    "facts": len(facts),
                    "pages": outcome.pages_fetched,
                }
            )
            self._agent_event(agent, "complete", facts=len(facts), pages=outcome.pages_fetched)
            # the verifier starts on this researcher's pages while the others still run
            self._early.append(
                asyncio.ensure_future(self._verifier.prefetch(sorted({f.source_url for f in facts})))
            )
            return capped
        return None

    async def _goal_results(self) -> list[str]:
        """The goal's own search results, best first (what one pass would read); none without a
        search to ask, or when it fails."""
        if self._search is None:
            return []
        try:
            found = await self._search.search([self.result.goal], GOAL_RESULTS)
        except SearchError as e:
            logger.warning("the goal's search failed: %s", e)
            return []
        return [r.url for r in sorted(found, key=lambda r: r.rank)]

    async def _hops(self) -> list[str]:
        """Searches for a gap-filling round: what the facts found so far name that leads to the open
        items (the judge's multi-hop step over every researcher's facts, so one researcher's find,
        "that other engine" is PostgreSQL, becomes another's search)."""
        result = self.result
        open_items = [i for i in result.checklist if not i.satisfied]
        facts = self.verified()
        if not open_items or not facts:
            return []
        judged = self._account(
            await self._judge.discover_queries(result.goal, open_items, self._tried, self._agents, facts)
        )
        found = judged.answer.queries if judged.answer else []
        hops = [q for q in dict.fromkeys(found) if q not in self._tried]
        self._tried += hops
        return hops

    def _open_ids(self) -> tuple[str, ...]:
        return tuple(i.id for i in self.result.checklist if not i.satisfied)

    def _account(self, judged: Judged[Any]) -> Judged[Any]:
        """The coordinator's own judge calls count in the swarm's usage; a failure is logged."""
        self.result.usage += judged.usage
        if judged.failure is not None:
            logger.info("%s failed: %s", judged.judgement, judged.failure)
        return judged

    def _agent_event(self, agent: str, status: str, **data: JsonValue) -> None:
        self.events.emit(EventType.AGENT, {"agent": agent, "status": status, **data})

    async def _collect(self) -> None:
        """The analyst's merge of every ledger so far, then the verifier's receipts for new facts."""
        result = self.result
        merged = await self._analyst.merge([(o.agent, o.facts) for o in self._outcomes])
        known = {(m.fact.source_url, m.fact.evidence) for m in result.facts}
        result.facts = merged
        for m in merged:
            if m.fact.contradicts and (m.fact.source_url, m.fact.evidence) not in known:
                self._ledger.append(
                    "analyst",
                    RecordKind.BEACON,
                    {"fact": m.fact.id, "contradicts": list[JsonValue](m.fact.contradicts)},
                    beacon=Beacon.CONTRADICTION,
                )
        stored = {url: text for o in self._outcomes for url, text in o.pages.items()}
        result.pages = stored
        new = [m.fact for m in merged if (m.fact.source_url, m.fact.evidence) not in known]
        self._receive(
            await self._verifier.check_stored(
                new, {f.source_url: stored[f.source_url] for f in new if f.source_url in stored}
            )
        )
        if new:  # the served look runs on while the next round does
            self._served.append(asyncio.ensure_future(self._verifier.check_served(new)))

    def _receive(self, receipts: list[Receipt]) -> None:
        self.result.receipts += receipts
        for receipt in receipts:
            self._ledger.append(
                "verifier",
                RecordKind.COMPLETION,
                {"fact": receipt.fact_id, "kind": receipt.kind.value, "verdict": receipt.verdict.value},
            )

    def _receive_served(self) -> None:
        """The receipts of the served looks that are done; the others run on."""
        for look in self._served:
            if look.done():
                self._receive(look.result())
        self._served = [look for look in self._served if not look.done()]

    async def _verify_all(self) -> None:
        """Every served look and early fetch, awaited; their receipts taken."""
        early, self._early = self._early, []
        await asyncio.gather(*early, *self._served)
        self._receive_served()

    def verified(self) -> list[Fact]:
        """The merged facts whose receipts so far all pass: a fact whose served look still runs
        counts on its stored look, until ``_settle_verified`` has every verdict."""
        passed = verdicts(self.result.receipts)
        return [m.fact for m in self.result.facts if passed.get(m.fact.id) is Verdict.PASS]

    async def _goal_check(self) -> list[str]:
        self._receive_served()
        facts = self.verified()
        self._counted.update(f.id for f in facts)
        return await self._settle(self.result.checklist, facts)

    async def _settle(self, checklist: list[ChecklistItem], facts: list[Fact]) -> list[str]:
        """``checklist`` settled by the judge on ``facts``, shown; the items still open."""
        result = self.result
        result.checklist = await checklists.settle(self._judge, result.goal, checklist, facts, self._account)
        self.events.emit_checklist(result.checklist)
        return [i.id for i in result.checklist if not i.satisfied]

    async def _settle_verified(self) -> list[str]:
        """Every served look awaited; a checklist settled on a fact whose served look then failed
        is settled anew on the facts that passed. The items still open."""
        result = self.result
        await self._verify_all()
        facts = self.verified()
        if self._counted - {f.id for f in facts}:
            self._counted = {f.id for f in facts}
            return await self._settle([replace(i, satisfied=False) for i in result.checklist], facts)
        return [i.id for i in result.checklist if not i.satisfied]

    async def _compose(self) -> None:
        result = self.result
        await self._settle_verified()
        facts = self.verified()
        self.events.emit(EventType.COMPOSING, {"facts": len(facts)})
        conclusion = await checklists.compose(
            self._judge,
            result.goal,
            result.checklist,
            facts,
            self._account,
            pages_read=result.pages_read,
            tried=[],
            stop_reason=result.stop_reason,
            titles={},
        )
        result.answers = list(conclusion.sheet.answers)
        result.checklist = list(conclusion.checklist)
        result.report_markdown = conclusion.markdown
