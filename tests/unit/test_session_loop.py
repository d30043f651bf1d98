"""The round driver with in-process fakes of the other actors: deterministic orchestration checks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from fathom_ray.adapters.memory_points import Suggestion
from fathom_ray.errors import SearchError, SessionError
from fathom_ray.models import (
    Candidate,
    Event,
    EventType,
    ExtractedPage,
    FetchResult,
    FetchStatus,
    Link,
    Preview,
    ResearchRequest,
    SearchResult,
)
from fathom_ray.research.frontier import SessionFrontier
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_loop import ResearchSession, Services
from fathom_ray.research.session_state import SessionState
from fathom_ray.research.shared_reads import SharedReads
from fathom_ray.settings import ResearchSettings
from tests.fakes import FakeFrontier, WordEmbedder
from tests.scripted_judge import ScriptedJudge

TEXT = "Assignment expressions were added in Python 3.8 by PEP 572, written by Chris Angelico and others."


def page_url(name: str) -> str:
    return f"http://docs.python.test/3.11/{name}.html"


@dataclass
class FakeWeb:
    links: dict[str, list[str]] = field(default_factory=dict)
    unusable: set[str] = field(default_factory=set)
    fetched: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    suggest_calls: int = 0
    search_fails: bool = False
    by_query: dict[str, list[str]] = field(default_factory=dict)  # else every query finds ``results``
    snippets: dict[str, str] = field(default_factory=dict)  # what the engine shows of a page, else ""

    # browser
    async def fetch(self, url: str) -> FetchResult:
        self.fetched.append(url)
        return FetchResult(
            url, FetchStatus.OK, final_url=url, http_status=200, content_type="text/html", body=url
        )

    async def crawl_delay(self, url: str) -> float | None:
        return 2.0 if "robots" in url else None

    async def preview(self, url: str) -> Preview:
        status = FetchStatus.OK
        return Preview(url, status, text_chars=0 if url in self.unusable else 500)

    # extractor
    async def extract(self, result: FetchResult) -> ExtractedPage:
        links = tuple(Link(u, "next page") for u in self.links.get(result.url, []))
        return ExtractedPage(result.url, result.url.rsplit("/", 1)[-1], TEXT, links)

    # embedder
    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await WordEmbedder().embed(texts)  # similar wording, similar vectors

    # memory
    async def domain_qualities(self, domains: Sequence[str]) -> dict[str, float]:
        return dict.fromkeys(domains, 0.5)

    async def suggest(self, vector: Sequence[float], limit: int, exclude: Sequence[str]) -> list[Suggestion]:
        self.suggest_calls += 1
        return [Suggestion(u, "remembered", 0.9) for u in self.suggestions if u not in exclude][:limit]

    async def record_page(self, url: str, **kwargs: Any) -> None:
        return None

    # search
    async def search(self, queries: Sequence[str], limit: int) -> list[SearchResult]:
        if self.search_fails:
            raise SearchError("fake", "unreachable")
        found = self.by_query.get(queries[0], self.results)
        shown = self.snippets
        return [SearchResult(u, u, shown.get(u, ""), i, "fake", queries[0]) for i, u in enumerate(found, 1)]


class FakeStore:
    def __init__(self) -> None:
        self.checkpoints = 0

    async def checkpoint(self, state: SessionState, events: Sequence[Event]) -> None:
        self.checkpoints += 1


def make_loop(
    web: FakeWeb,
    request: ResearchRequest,
    divergence: float = 0.0,
    temperature: float = 0.0,
    frontier: FakeFrontier | None = None,
) -> tuple[ResearchSession, FakeFrontier]:
    frontier, store = frontier or FakeFrontier(), FakeStore()

    class Memory:
        domain_qualities = web.domain_qualities
        suggest = web.suggest
        record_page = web.record_page
        checkpoint = store.checkpoint

    services = Services(
        judge=ScriptedJudge(),  # mypy checks it against JudgePort here
        browser=web,
        extractor=web,
        embedder=web,
        memory=Memory(),
        frontier=frontier,
        search=web,
    )
    settings = ResearchSettings(seed=3, divergence=divergence, temperature=temperature)
    loop = ResearchSession(SessionState("s1", request), EventLog("s1"), services, settings)
    return loop, frontier


def run(
    web: FakeWeb, request: ResearchRequest, divergence: float = 0.0
) -> tuple[SessionState, EventLog, FakeFrontier]:
    loop, frontier = make_loop(web, request, divergence)
    return asyncio.run(loop.run()), loop.events, frontier


GOAL = "Which Python version introduced assignment expressions?"


def test_second_half_of_a_batch_waits_for_a_usable_preview() -> None:
    web = FakeWeb(results=[page_url("a"), page_url("b")], unusable={page_url("a"), page_url("b")})
    _, events, _ = run(web, ResearchRequest(GOAL, depth="focused", max_pages=2))  # a batch of two
    failed = [e for e in events.events if e.type is EventType.FETCH_FAILED]
    assert len(web.fetched) == 1  # the first half is fetched unconditionally, the second never was
    assert len(failed) == 1
    assert str(failed[0].data["reason"]).startswith("preview:")
    assert failed[0].data["url"] not in web.fetched


def test_a_quick_session_reads_one_page_a_round() -> None:
    # quick's budget (3 pages) is under two of its batches (2): each page is chosen knowing what the
    # pages before it said; focused (8 pages, batch 3) reads its batch of three at once
    for depth, sizes in (("quick", [1, 1, 1]), ("focused", [3, 3, 2])):
        web = FakeWeb(results=[page_url(str(i)) for i in range(12)])
        _, events, _ = run(web, ResearchRequest(GOAL, depth=depth))
        fetching = [e.data["count"] for e in events.events if e.type is EventType.FETCHING]
        assert fetching == sizes, depth


def test_followed_links_enter_the_frontier_and_are_fetched() -> None:
    web = FakeWeb(results=[page_url("a")], links={page_url("a"): [page_url("linked")]})
    _, _, frontier = run(web, ResearchRequest(GOAL, depth="glance", max_pages=1))
    assert page_url("linked") in frontier.pool.entries
    assert frontier.pool.entries[page_url("linked")].candidate.origin.value == "link"
    assert frontier.pool.entries[page_url("linked")].candidate.rank == 1  # first of the judge's links
    web2 = FakeWeb(results=[page_url("a")], links={page_url("a"): [page_url("linked")]})
    run(web2, ResearchRequest(GOAL, depth="quick", max_pages=2))
    assert page_url("linked") in web2.fetched


def test_the_first_round_reads_the_goals_own_results_then_each_discovery_querys_best_page() -> None:
    # the first batch is what one pass would read (the goal's own top results, in order); then both
    # of the judge's queries find page "a" first: the second query's lead is its next page
    web = FakeWeb(
        results=[page_url("x")],
        by_query={
            GOAL: [page_url("g"), page_url("h"), page_url("i")],
            "q one": [page_url("a"), page_url("x")],
            "q two": [page_url("a"), page_url("b")],
        },
    )
    loop, _ = make_loop(web, ResearchRequest(GOAL, depth="focused", max_pages=6))
    assert isinstance(loop._services.judge, ScriptedJudge)
    loop._services.judge.queries = ["q one", "q two"]
    asyncio.run(loop.run())
    first, second = [e for e in loop.events.events if e.type is EventType.RANKED][:2]
    assert first.data["urls"] == [page_url("g"), page_url("h"), page_url("i")]
    assert second.data["leads"] == [page_url("a"), page_url("b")]
    assert web.fetched[:5] == [page_url(n) for n in ("g", "h", "i", "a", "b")]


def test_later_rounds_take_a_page_the_searches_point_to_over_the_goals_tail() -> None:
    # the first batch is the goal's own top results; a later round scores every waiting page
    # (page_choice): a page on a site not read yet that the goal names, found by a discovery query,
    # whose snippet holds an open question's words, comes before the goal's next results; pages that
    # only one query found, on a site read already or below that query's first result, do not
    goal = "Which Python version introduced assignment expressions, and which PEP specifies them?"
    goal_results = [page_url(f"g{n}") for n in range(1, 10)]
    pep, other = "http://pep.test/pep-0572/", "http://www.sqlite.test/lang_expr.html"

    def ranked_with(pep_snippet: str) -> tuple[list[list[str]], list[str]]:
        web = FakeWeb(  # the checklist's own searches find nothing here: only the discovery's do
            by_query={
                goal: goal_results,
                "q same": [page_url("a")],
                "q far": [page_url("b"), other],
                "q pep": [pep],
            },
            snippets={pep: pep_snippet},
        )
        loop, _ = make_loop(web, ResearchRequest(goal, depth="focused", max_pages=8))
        assert isinstance(loop._services.judge, ScriptedJudge)
        loop._services.judge.queries = ["q same", "q far", "q pep"]
        asyncio.run(loop.run())
        ranked = [e.data["urls"] for e in loop.events.events if e.type is EventType.RANKED]
        return [[str(u) for u in urls] for urls in ranked if isinstance(urls, list)], web.fetched

    batches, fetched = ranked_with("PEP 572, the proposal Chris Angelico wrote for the version of it")
    assert batches[0] == goal_results[:3]
    assert batches[1] == [pep, *goal_results[3:5]]
    assert batches[2] == goal_results[5:7]
    assert fetched.count(pep) == 1
    assert page_url("a") not in fetched
    assert page_url("b") not in fetched
    assert other not in fetched
    # the same page, its snippet about something else: the goal's results fill the budget
    batches, fetched = ranked_with("Index of documents")
    assert [u for batch in batches for u in batch] == goal_results[:8]


def test_a_settled_checklist_ends_the_session_only_once_what_one_pass_reads_is_read() -> None:
    # the judge settles every item after the first batch: the session still reads the goal's other
    # results within the budget (what one pass reads), and nothing else: no discovery, no lead
    goal_results = [page_url(f"g{n}") for n in range(1, 10)]
    web = FakeWeb(results=[page_url("x")], by_query={GOAL: goal_results, "q lead": [page_url("a")]})
    loop, _ = make_loop(web, ResearchRequest(GOAL, depth="focused", max_pages=6))
    assert isinstance(loop._services.judge, ScriptedJudge)
    loop._services.judge.satisfy, loop._services.judge.queries = True, ["q lead"]
    state = asyncio.run(loop.run())
    assert state.stop_reason == "checklist satisfied"
    assert web.fetched == goal_results[:6]
    assert state.round == 2
    assert all(i.satisfied for i in state.checklist)
    ranked = [e for e in loop.events.events if e.type is EventType.RANKED]
    assert len(ranked) == 1  # the second batch was the pages one pass still owed, not a ranking


def test_seeds_are_read_first_in_the_order_given_and_those_past_the_budget_are_said_at_once() -> None:
    seeds = [page_url(f"seed{n}") for n in range(5)]
    web = FakeWeb(results=[page_url("found")], by_query={GOAL: [page_url("g"), seeds[3]]})
    request = ResearchRequest(GOAL, depth="focused", max_pages=4, seeds=tuple(seeds))
    _, events, _ = run(web, request)
    assert web.fetched == seeds[:4]  # the seed the goal's search found too keeps its place
    failed = [e for e in events.events if e.type is EventType.FETCH_FAILED]
    assert [e.data["url"] for e in failed] == [seeds[4]]
    assert str(failed[0].data["reason"]).startswith("over the page budget")
    assert failed[0].seq < min(e.seq for e in events.events if e.type is EventType.FETCHING)


def test_seeds_then_the_goals_results_fill_the_first_batch() -> None:
    web = FakeWeb(results=[page_url("x")], by_query={GOAL: [page_url("g"), page_url("h")]})
    request = ResearchRequest(GOAL, depth="focused", max_pages=3, seeds=(page_url("seed"),))
    run(web, request)
    assert web.fetched == [page_url("seed"), page_url("g"), page_url("h")]


def test_a_seed_is_read_though_the_goals_results_and_memory_fill_the_pool() -> None:
    # glance's pool holds 10 URLs: the goal's search and remembered pages once filled it before the
    # seed came, and the seed was dropped without a word
    found = [page_url(f"found{n}") for n in range(12)]
    web = FakeWeb(results=found, suggestions=[page_url("remembered"), page_url("again")])
    request = ResearchRequest(GOAL, depth="glance", seeds=("http://169.254.169.254/latest/meta-data/",))
    loop, frontier = make_loop(web, request)
    frontier.pool = SessionFrontier(request.preset.url_pool)  # as the frontier actor opens it
    asyncio.run(loop.run())
    assert web.fetched[0] == "http://169.254.169.254/latest/meta-data/"
    assert len(frontier.pool.entries) == frontier.pool.url_pool  # the cap holds for the rest


def test_divergence_injects_remembered_sources_from_round_two() -> None:
    web = FakeWeb(results=[page_url("a")], suggestions=[page_url("remembered")])
    _, events, frontier = run(web, ResearchRequest(GOAL, depth="quick"), divergence=1.0)
    assert web.suggest_calls >= 2  # at set-up, and again from round 2
    assert any(e.type is EventType.MEMORY_SOURCES for e in events.events)
    assert frontier.pool.entries[page_url("remembered")].candidate.origin.value == "memory"
    assert frontier.pool.entries[page_url("remembered")].candidate.rank == 1


def test_memory_offers_only_pages_the_frontier_has_not_seen() -> None:
    web = FakeWeb(results=[page_url("a"), page_url("b")], suggestions=[page_url("a"), page_url("new")])
    _, events, _ = run(web, ResearchRequest(GOAL, depth="glance"))
    memory = [e for e in events.events if e.type is EventType.MEMORY_SOURCES]
    sources: list[Any] = [s for e in memory for s in e.data["sources"]]  # type: ignore[union-attr]
    offered = [s["url"] for s in sources]
    assert offered == [page_url("new")]  # "a" is already a search result


def test_the_token_budget_stops_new_rounds() -> None:
    web = FakeWeb(results=[page_url(n) for n in "abcdef"])
    state, _, _ = run(web, ResearchRequest(GOAL, depth="standard", token_budget=500))
    assert state.stop_reason == "token budget reached"
    assert state.round == 1


def test_an_unreachable_search_with_nothing_else_to_read_is_an_error() -> None:
    web = FakeWeb(search_fails=True)
    with pytest.raises(SessionError, match="unreachable"):
        run(web, ResearchRequest(GOAL, depth="quick"))


def test_crawl_delay_reaches_the_shared_politeness() -> None:
    web = FakeWeb(results=["http://robots.test/public.html"])
    _, _, frontier = run(web, ResearchRequest(GOAL, depth="glance"))
    assert frontier.delays == {"http://robots.test/public.html": 2.0}


class SlowWeb(FakeWeb):
    async def fetch(self, url: str) -> FetchResult:
        await asyncio.sleep(30)
        return await super().fetch(url)


def test_cancel_stops_the_work_in_flight_and_composes_what_there_is() -> None:
    web = SlowWeb(results=[page_url("a"), page_url("b")])
    loop, _ = make_loop(web, ResearchRequest(GOAL, depth="quick"), temperature=1.0)

    async def run() -> SessionState:
        task = asyncio.create_task(loop.run())
        await asyncio.sleep(0.5)  # the first batch is fetching (slowly)
        loop.cancel()
        return await asyncio.wait_for(task, timeout=5)

    state = asyncio.run(run())
    assert state.status == "cancelled"
    assert state.stop_reason == "cancelled"
    assert loop.events.events[-1].type is EventType.COMPLETE


class SwarmFrontier(FakeFrontier):
    """The frontier as a swarm's researcher sees it: another researcher of its swarm ("s0") claims
    some pages while this one ranks its first batch (they are still pending when it looks); from
    then on they are not pending for it (as the Frontier actor's ``pending``)."""

    def __init__(self, taken: Sequence[str]) -> None:
        super().__init__()
        self.shared = SharedReads()
        for session_id in ("s0", "s1"):
            self.shared.join(session_id, "w-swarm")
        self.taken = list(taken)

    async def pending(self, session_id: str) -> list[Candidate]:
        return self.shared.unclaimed(session_id, await super().pending(session_id))

    async def claim(self, session_id: str, urls: Sequence[str]) -> list[str]:
        self.shared.claim("s0", self.taken)  # s0 was first, while this one ranked its batch
        return self.shared.claim(session_id, urls)


def test_a_swarms_researcher_never_reads_a_page_another_of_its_researchers_claimed() -> None:
    results = [page_url(n) for n in "ghijk"]
    web = FakeWeb(results=results, by_query={GOAL: results})
    frontier = SwarmFrontier(taken=[page_url("g"), page_url("i")])
    loop, _ = make_loop(web, ResearchRequest(GOAL, depth="quick", max_pages=3), frontier=frontier)
    state = asyncio.run(loop.run())
    assert web.fetched  # it read on: the budget goes to pages no one of the swarm read
    assert not {page_url("g"), page_url("i")} & set(web.fetched)
    assert state.pages_fetched == len(web.fetched)
