"""The coordinator loop with a scripted judge and in-process researchers: orchestration checks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from fathom_ray.judges.llm.answers import Completeness
from fathom_ray.models import ChecklistItem, Fact, ResearchRequest, SearchResult, Usage
from fathom_ray.ports import Judged
from fathom_ray.research.presets import Budget
from fathom_ray.swarm.coordinator import Coordinator, ResearcherOutcome
from fathom_ray.swarm.plan import SubGoal, with_seeds
from fathom_ray.swarm.receipts import CheckKind, Verdict
from fathom_ray.swarm.results import swarm_result, swarm_state
from fathom_ray.swarm.task_ledger import RecordKind, TaskLedger, read
from tests.scripted_judge import ScriptedJudge

GOAL = "Which Python version added assignment expressions, and who wrote the PEP?"
PARTS = ["Which Python version added assignment expressions?", "Who wrote the PEP?"]
PAGES = {
    "http://docs.python.test/3.8.html": "Assignment expressions were added in Python 3.8 by PEP 572.",
    "http://peps.example/572.html": (
        "PEP 572 was written by Chris Angelico. Python 3.8 added assignment expressions."
    ),
    "http://blog.example/wrong.html": "Assignment expressions were added in Python 3.9 by PEP 572.",
}
RESEARCH = Usage(calls=5, prompt_tokens=1000, completion_tokens=100)  # one researcher's judge calls


def fact(evidence: str, url: str) -> Fact:
    return Fact("F1", evidence, evidence, url, ("Q1",), 0.7)


class Researchers:
    def __init__(self, crash: set[str]) -> None:
        self.crash = crash
        self.calls: list[SubGoal] = []

    async def research(self, sub: SubGoal) -> ResearcherOutcome:
        self.calls.append(sub)
        if sub.agent in self.crash:
            raise RuntimeError("the actor died")
        facts: tuple[Fact, ...]
        if "version" in sub.goal:
            facts = (
                fact("Assignment expressions were added in Python 3.8", "http://docs.python.test/3.8.html"),
                fact("Python 3.8 added assignment expressions.", "http://peps.example/572.html"),
                fact("Assignment expressions were added in Python 3.9", "http://blog.example/wrong.html"),
            )
        else:
            facts = (fact("PEP 572 was written by Chris Angelico.", "http://peps.example/572.html"),)
        pages = {f.source_url: PAGES[f.source_url] for f in facts}
        return ResearcherOutcome(
            sub.agent, facts, pages, len(pages), "max pages reached", usage=RESEARCH, failures=1
        )


class Served:
    """The web now: the blog post has since been rewritten; over HTTP the PEP's page is a script's
    shell (its text comes in the browser)."""

    def __init__(self) -> None:
        self.fetched: list[str] = []
        self.rendered: list[str] = []

    async def page_text(self, url: str, *, rendered: bool = True) -> str | None:
        (self.rendered if rendered else self.fetched).append(url)
        if "blog" in url:
            return "This post was rewritten."
        if "peps" in url and not rendered:
            return "Loading..."
        return PAGES.get(url)


def coordinator(
    tmp_path: Path,
    researchers: Researchers,
    satisfy: bool,
    served: Served | None = None,
    *,
    search: GoalSearch | None = None,
    agents: int = 3,
    parallel: int = 0,
    judge: ScriptedJudge | None = None,
) -> tuple[Coordinator, ScriptedJudge]:
    judge = judge or ScriptedJudge()
    judge.configure(satisfy=satisfy, questions=[GOAL, *PARTS])
    ledger = TaskLedger(tmp_path, "swarm1")
    swarm = Coordinator(
        "swarm1",
        GOAL,
        judge=judge,
        researchers=researchers,
        pages=served or Served(),
        ledger=ledger,
        agents=agents,
        budget=Budget(pages=30, time_s=600.0, tokens=90_000),
        checklist_size=10,
        search=search,
        parallel=parallel,
    )
    return swarm, judge


def test_a_swarm_fans_out_reassigns_a_crash_verifies_and_fills_gaps(tmp_path: Path) -> None:
    researchers = Researchers(crash={"r1-researcher-2"})
    served = Served()
    swarm, _ = coordinator(tmp_path, researchers, satisfy=False, served=served)
    result = asyncio.run(swarm.run())
    first = [s for s in researchers.calls if s.agent.startswith("r1-")]
    # one part each, the researcher to spare on the goal whole; the crash's part again
    assert {s.agent: s.item_ids for s in first} == {
        "r1-researcher-1": ("Q2",),
        "r1-researcher-2": ("Q3",),
        "r1-researcher-3": ("Q1",),
        "r1-researcher-2-again": ("Q3",),
    }
    assert sum(s.budget.pages for s in first if "again" not in s.agent) == 21  # the round's share of 30
    assert result.rounds == 3  # the scripted judge never settles: two gap-filling rounds
    assert result.stop_reason == "replan rounds spent"
    records = read(tmp_path, "swarm1")
    kinds = [r.kind for r in records]
    assert kinds[0] is RecordKind.PLAN
    assert kinds[-1] is RecordKind.COMPLETION
    failure = next(r for r in records if r.kind is RecordKind.FAILURE)
    assert failure.agent == "r1-researcher-2"
    assert "the actor died" in str(failure.data["error"])
    beacons = [r for r in records if r.kind is RecordKind.BEACON and r.attention]
    assert beacons
    assert beacons[0].data["beacon"] == "found a contradiction"
    by_text = {m.fact.evidence: m.fact for m in result.facts}
    right = by_text["Assignment expressions were added in Python 3.8"]
    wrong = by_text["Assignment expressions were added in Python 3.9"]
    assert wrong.id in right.contradicts
    assert by_text["Python 3.8 added assignment expressions."].id in right.confirms
    # the blog's page as stored held the quote, as served now it does not: the fact is left out
    blog = [r for r in result.receipts if r.fact_id == wrong.id]
    assert {(r.kind, r.verdict) for r in blog} == {
        (CheckKind.STORED, Verdict.PASS),
        (CheckKind.SERVED, Verdict.FAIL),
    }
    assert wrong.id not in {f.id for f in swarm.verified()}
    assert "Python 3.9" not in result.report_markdown
    assert "Chris Angelico" in result.report_markdown
    assert {a["status"] for a in result.agents} == {"complete", "failed"}
    assert sorted(served.fetched) == sorted(set(served.fetched))  # each page fetched again once
    # in the browser only the pages whose HTTP text lacked a quote, each once: the PEP's (its text
    # comes from a script, and there it holds) and the rewritten blog's
    assert sorted(served.rendered) == ["http://blog.example/wrong.html", "http://peps.example/572.html"]


def test_a_settled_checklist_stops_after_the_first_round(tmp_path: Path) -> None:
    swarm, judge = coordinator(tmp_path, Researchers(crash=set()), satisfy=True)
    result = asyncio.run(swarm.run())
    assert result.rounds == 1
    assert result.stop_reason == "checklist satisfied"
    assert all(i.satisfied for i in result.checklist)
    assert judge.calls["compose"] == 1
    # as a session's: every item lists its facts, every judge call and failed fetch is counted
    assert all(i.fact_ids for i in result.checklist)
    researched = sum(a["status"] == "complete" for a in result.agents)
    assert result.usage.calls == researched * RESEARCH.calls + sum(judge.calls.values())
    assert result.failures == researched
    document = swarm_result(result, "standard", "scripted", 1.0).to_json()
    assert document["usage"]["llm_calls"] == result.usage.calls
    assert document["usage"]["tokens_in"] == result.usage.prompt_tokens
    request = ResearchRequest(GOAL)
    state = swarm_state(result, request, swarm.verified(), 1.0, "scripted")
    assert (state.usage, state.failures) == (result.usage, result.failures)


class CancelledMidway(Researchers):
    """The first researcher's run is cut short by a cancel: the actor it ran in is killed."""

    swarm: Coordinator | None = None

    async def research(self, sub: SubGoal) -> ResearcherOutcome:
        await asyncio.sleep(0)  # every researcher of the round starts before the cancel
        if sub.agent == "r1-researcher-1" and self.swarm is not None:
            self.swarm.cancel()
            self.calls.append(sub)
            raise RuntimeError("killed by the cancel")
        return await super().research(sub)


def test_a_cancelled_swarm_reassigns_nothing_and_composes_what_it_has(tmp_path: Path) -> None:
    researchers = CancelledMidway(crash=set())
    swarm, _ = coordinator(tmp_path, researchers, satisfy=False)
    researchers.swarm = swarm
    result = asyncio.run(swarm.run())
    assert result.stop_reason == "cancelled"
    assert result.rounds == 1
    assert not any(s.agent.endswith("-again") for s in researchers.calls)
    statuses = {a["agent"]: a["status"] for a in result.agents}
    assert statuses["r1-researcher-1"] == "cancelled"
    assert "Chris Angelico" in result.report_markdown  # the other researcher's facts still count
    records = read(tmp_path, "swarm1")
    assert any(r.data.get("error") == "cancelled" for r in records)
    assert records[-1].data["stop_reason"] == "cancelled"


def test_gap_filling_rounds_search_what_the_facts_so_far_name(tmp_path: Path) -> None:
    researchers = Researchers(crash=set())
    swarm, judge = coordinator(tmp_path, researchers, satisfy=False)
    result = asyncio.run(swarm.run())
    assert result.rounds == 3
    second = [s for s in researchers.calls if s.agent.startswith("r2-")]
    # the judge's multi-hop step over every researcher's facts: its search is the round's sub-goal
    assert [s.goal for s in second] == judge.queries
    assert len({s.item_ids for s in second}) == 1  # every hop for the items the first round left open
    assert second[0].item_ids
    third = [s for s in researchers.calls if s.agent.startswith("r3-")]
    # that search was tried: the next round goes back to the open items' own questions
    assert {s.goal for s in third} <= {GOAL, *PARTS}


class GoalSearch:
    """The goal's own results, best first, as a search engine would rank them."""

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.queries: list[str] = []

    async def search(self, queries: Sequence[str], limit: int) -> list[SearchResult]:
        self.queries += queries
        found = [
            SearchResult("", url, "", n, "test", queries[0]) for n, url in enumerate(self.urls[:limit], 1)
        ]
        return found[::-1]  # merged results come in any order: the rank says


def test_a_first_round_with_no_researcher_on_the_goal_whole_reads_the_goals_own_results(
    tmp_path: Path,
) -> None:
    urls = [f"http://docs.python.test/r{n}.html" for n in range(1, 6)]
    search = GoalSearch(urls)
    researchers = Researchers(crash=set())
    swarm, _ = coordinator(tmp_path, researchers, satisfy=True, search=search, agents=2)
    asyncio.run(swarm.run())
    first = {s.agent: s for s in researchers.calls if s.agent.startswith("r1-")}
    assert {a: s.item_ids for a, s in first.items()} == {
        "r1-researcher-1": ("Q2",),
        "r1-researcher-2": ("Q3",),
    }
    # one pass's pages, in the search engine's order, dealt out in turn
    assert first["r1-researcher-1"].seeds == (urls[0], urls[2], urls[4])
    assert first["r1-researcher-2"].seeds == (urls[1], urls[3])
    assert search.queries == [GOAL]
    search = GoalSearch(urls)
    researchers = Researchers(crash=set())
    swarm, _ = coordinator(tmp_path / "whole", researchers, satisfy=True, search=search, agents=3)
    asyncio.run(swarm.run())
    assert all(not s.seeds for s in researchers.calls)  # one researcher has the goal whole: it reads them
    assert not search.queries


def test_seeds_are_dealt_in_turn_within_each_budget() -> None:
    subs = [
        SubGoal("a", "A?", ("Q2",), Budget(1, 60.0, 100)),
        SubGoal("b", "B?", ("Q3",), Budget(3, 60.0, 100)),
    ]
    dealt = with_seeds(subs, ["u1", "u2", "u3", "u2", "u4", "u5"])
    assert [s.seeds for s in dealt] == [("u1",), ("u2", "u3", "u4")]


class Overlapping(Researchers):
    """Counts how many researchers are at work at once."""

    def __init__(self) -> None:
        super().__init__(crash=set())
        self.at_work = self.most = 0

    async def research(self, sub: SubGoal) -> ResearcherOutcome:
        self.at_work += 1
        self.most = max(self.most, self.at_work)
        await asyncio.sleep(0.01)
        try:
            return await super().research(sub)
        finally:
            self.at_work -= 1


def test_researchers_work_at_once_unless_the_swarm_is_told_one_at_a_time(tmp_path: Path) -> None:
    together = Overlapping()
    swarm, _ = coordinator(tmp_path / "together", together, satisfy=True)
    asyncio.run(swarm.run())
    assert together.most == 3
    alone = Overlapping()
    swarm, _ = coordinator(tmp_path / "alone", alone, satisfy=True, parallel=1)  # bench_swarm's critical path
    result = asyncio.run(swarm.run())
    assert alone.most == 1
    assert [s.agent for s in alone.calls] == [s.agent for s in together.calls]  # the same work
    assert result.stop_reason == "checklist satisfied"


class HeldServed(Served):
    """The web now, held back: no page comes back before ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.order: list[str] = []

    async def page_text(self, url: str, *, rendered: bool = True) -> str | None:
        await self.release.wait()
        self.order.append(f"served {url}")
        return await super().page_text(url, rendered=rendered)


class ReleasingAtRoundTwo(Researchers):
    def __init__(self, served: HeldServed, *, blog_only: bool = False) -> None:
        super().__init__(crash=set())
        self.served, self.blog_only = served, blog_only

    async def research(self, sub: SubGoal) -> ResearcherOutcome:
        if sub.agent.startswith("r2-") and not self.served.release.is_set():
            self.served.order.append("round 2 starts")
            self.served.release.set()
        if self.blog_only:
            wrong = fact("Assignment expressions were added in Python 3.9", "http://blog.example/wrong.html")
            return ResearcherOutcome(
                sub.agent, (wrong,), {wrong.source_url: PAGES[wrong.source_url]}, 1, "done"
            )
        return await super().research(sub)


def test_the_served_look_runs_on_while_the_next_round_does(tmp_path: Path) -> None:
    served = HeldServed()
    researchers = ReleasingAtRoundTwo(served)
    swarm, _ = coordinator(tmp_path, researchers, satisfy=False, served=served)
    result = asyncio.run(asyncio.wait_for(swarm.run(), 10))  # a round waiting on the look would hang here
    assert served.order[0] == "round 2 starts"
    assert len(served.order) > 1
    assert result.rounds == 3
    # every fact has both looks in the end; the report cites only facts that passed both
    kinds = {(r.fact_id, r.kind) for r in result.receipts}
    assert all((m.fact.id, k) in kinds for m in result.facts for k in CheckKind)
    passed = {f.id for f in swarm.verified()}
    wrong = next(m.fact for m in result.facts if "3.9" in m.fact.evidence)
    assert wrong.id not in passed
    assert "3.9" not in result.report_markdown
    assert "Chris Angelico" in result.report_markdown


class ReleasingJudge(ScriptedJudge):
    """Lets the served looks return once the first goal check has been made."""

    served: HeldServed | None = None

    async def judge_completeness(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[Completeness]:
        judged = await super().judge_completeness(goal, checklist, facts)
        if self.served is not None:
            self.served.release.set()
        return judged


def test_a_checklist_settled_on_a_fact_that_fails_its_served_look_is_settled_anew(tmp_path: Path) -> None:
    served = HeldServed()
    judge = ReleasingJudge()
    judge.served = served
    researchers = ReleasingAtRoundTwo(served, blog_only=True)  # every fact: the rewritten blog's
    swarm, _ = coordinator(tmp_path, researchers, satisfy=True, served=served, judge=judge)
    result = asyncio.run(asyncio.wait_for(swarm.run(), 10))
    # round 1's goal check settled every item on the blog's stored look; its served look failed,
    # so the swarm did not stop there: nothing verified settles an item
    assert result.rounds == 3
    assert result.stop_reason == "replan rounds spent"
    assert not any(i.satisfied for i in result.checklist)
    assert swarm.verified() == []
    assert "3.9" not in result.report_markdown
