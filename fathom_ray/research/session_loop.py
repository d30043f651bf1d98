"""One research session, round by round (DESIGN.md, "One round of a session").

The loop is orchestration only: every judgement goes to the judge, every
fetch to the browser pool, and the ranking is the published maths. It talks
to the other actors through the small protocols below, so the Session actor
hands it actor handles and tests can hand it anything with the same methods.
State is checkpointed after the set-up and after every round, so a restarted
session resumes from its last round.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from fathom_ray.errors import SearchError, SessionError
from fathom_ray.judges.evidence.terms import title_match
from fathom_ray.judges.llm import answers
from fathom_ray.judges.llm.prompts import MAX_LINKS_IN_PROMPT
from fathom_ray.models import (
    Candidate,
    CandidateOrigin,
    ChecklistItem,
    EventType,
    ExtractedPage,
    JsonValue,
    SearchResult,
)
from fathom_ray.ports import (
    Browser,
    DocumentSearch,
    Embedder,
    ExtractorCalls,
    FrontierCalls,
    Judged,
    JudgeInfo,
    JudgePort,
    MemoryCalls,
    SearchCalls,
)
from fathom_ray.research import checklist as checklists
from fathom_ray.research import page_choice
from fathom_ray.research.answer_sheet import to_json as answer_json
from fathom_ray.research.frontier import FAILED, FETCHED, rank_and_sample
from fathom_ray.research.presets import PRESETS
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_state import CANCELLED, COMPLETE, RUNNING, PageRecord, SessionState
from fathom_ray.settings import ResearchSettings
from fathom_ray.text.term_match import match_scores
from fathom_ray.web.search import merge, search_each
from fathom_ray.web.urls import canonical_or_none, document_chunk, domain_of, is_hub, names_site

logger = logging.getLogger(__name__)
T = TypeVar("T")
EXPLORING_PAGES = PRESETS["standard"].max_pages  # a budget from which sampling explores fully
REFILL_BATCHES = 3  # fewer waiting candidates than this many batches: the round discovers more first
ROUNDS_PER_PAGE = 4  # a round that reads nothing still counts: at most this many per page (and 3 more)
LEAD_DEPTH = 3  # a lead query's results that may lead


@dataclass(frozen=True, slots=True)
class Services:
    judge: JudgePort
    browser: Browser
    extractor: ExtractorCalls
    embedder: Embedder
    memory: MemoryCalls
    frontier: FrontierCalls
    search: SearchCalls
    documents: DocumentSearch | None = None  # the user's documents, for sessions that research them


class ResearchSession:
    """Drive one session to its end; ``run`` is safe to call again after a crash (it resumes)."""

    def __init__(
        self,
        state: SessionState,
        events: EventLog,
        services: Services,
        settings: ResearchSettings,
        *,
        results_per_query: int = 8,
    ) -> None:
        self.state = state
        self.events = events
        self._services = services
        self._preset = state.request.preset  # its batch and checklist sizes; its limits: the budget
        self._settings = settings
        self._results_per_query = results_per_query
        self._started = time.monotonic() - state.elapsed_s
        self._cancelled = False
        self._text_vectors: dict[str, list[float]] = {}
        self._search_error: SearchError | None = None
        self._delays_known: set[str] = set()
        self._work: asyncio.Future[Any] | None = None
        self._leads: list[str] = []  # the queries of the latest discovery, whose best results lead
        self._discovered: list[str] = []  # the queries of the latest discovery, for the next ranks too
        self._rankings: dict[str, list[str]] = {}  # each web query's results, best first
        self._snippets: dict[str, list[str]] = {}  # each page's snippets, one per query that found it
        self._owed: list[str] = []  # what one pass would read that no batch has taken yet
        digest = hashlib.sha1(state.session_id.encode(), usedforsecurity=False).hexdigest()
        self._seed = settings.seed if settings.seed is not None else int(digest[:8], 16)

    def cancel(self) -> None:
        """Stop now: the work in flight is abandoned (its pages released) and the findings so far composed."""
        self._cancelled = True
        if self._work is not None:
            self._work.cancel()

    @property
    def _goal(self) -> str:
        return self.state.request.goal

    def _rng(self, purpose: int) -> np.random.Generator:
        return np.random.default_rng([self._seed, self.state.round, purpose])

    async def run(self) -> SessionState:
        if self.state.status is not RUNNING:
            return self.state
        if not self.state.decomposed:
            if await self._cancellable(self._set_up()):
                await self._checkpoint()
            else:
                self.state.stop_reason = "cancelled"
        while not self.state.stop_reason:
            if reason := self._stop_reason():
                self.state.stop_reason = reason
                break
            self.state.round += 1
            done = await self._cancellable(self._round())
            await self._checkpoint()
            if done is None:
                self.state.stop_reason = "cancelled"
            elif not done:
                self.state.stop_reason = "frontier exhausted"
        await self._compose()
        return self.state

    async def _cancellable(self, work: Coroutine[Any, Any, T]) -> T | None:
        """Run one stage; None when ``cancel`` stopped it (a cancellation from outside still propagates)."""
        if self._cancelled:
            work.close()
            return None
        task: asyncio.Future[T] = asyncio.ensure_future(work)
        self._work = task
        try:
            return await task
        except asyncio.CancelledError:
            if self._cancelled:
                return None
            raise
        finally:
            self._work = None

    # -- set-up -------------------------------------------------------------------------------------
    async def _set_up(self) -> bool:
        await self._add_seeds()  # before anything a search or memory brings: seeds are read first
        # The goal is searched while the judge decomposes it: the first event comes at once.
        goal_search = asyncio.ensure_future(self._search([self._goal]))
        try:
            info = await self._services.judge.start()  # started already: it says which judge it is
            self.state.judge = info.label if isinstance(info, JudgeInfo) else "unknown"
            made = await checklists.decompose(
                self._services.judge, self._goal, self._preset.checklist_size, self._account
            )
        except BaseException:
            goal_search.cancel()  # cancelled: do not wait for the search
            raise
        await goal_search
        self.state.checklist = made
        self.events.emit(EventType.DECOMPOSE, {"questions": [i.question for i in self.state.checklist]})
        await self._suggest_from_memory(limit=self._preset.batch_size * 2)
        await self._search([i.question for i in self.state.checklist])
        await self._discover()  # the judge's queries too (short ones of each part's subject): they lead
        if self._search_error is not None and not await self._services.frontier.pending(
            self.state.session_id
        ):
            raise SessionError(self.state.session_id, f"nothing to research: {self._search_error}")
        self.state.decomposed = True
        return True

    async def _add_seeds(self) -> None:
        """The user's seeds enter the frontier in the order given; those past the page budget are said
        now (a ``fetch_failed`` each), not left to wait: seeds are read first, so they never fit later."""
        limit = self.state.request.budget.pages
        given = list(dict.fromkeys(self.state.request.seeds))
        seeds = [Candidate(url, CandidateOrigin.SEED, rank=n) for n, url in enumerate(given[:limit], 1)]
        await self._services.frontier.add(self.state.session_id, seeds)
        for url in given[limit:]:
            reason = f"over the page budget: {limit} pages, {len(given)} seeds"
            self.events.emit(EventType.FETCH_FAILED, {"url": url, "reason": reason})

    async def _search(self, queries: Sequence[str]) -> int:
        fresh = [q for q in dict.fromkeys(queries) if q not in self.state.queries_done]
        if not fresh:
            return 0
        self.events.emit(EventType.SEARCHING, {"queries": list(fresh)})
        self.state.queries_done += fresh
        found = await self._search_documents(fresh)
        results: list[SearchResult] = []
        if "web" in self.state.request.sources:
            try:
                results = await self._search_web(fresh)
            except SearchError as e:
                logger.warning("search failed: %s", e, extra={"session_id": self.state.session_id})
                self._search_error = e
                return await self._services.frontier.add(self.state.session_id, found) if found else 0
        candidates = [
            Candidate(r.url, CandidateOrigin.SEARCH, r.title, r.snippet, r.query, r.rank) for r in results
        ]
        return await self._services.frontier.add(self.state.session_id, [*found, *candidates])

    async def _search_web(self, queries: Sequence[str]) -> list[SearchResult]:
        """Every query's results, merged by URL; each query's own ranking is kept for its leads. A
        query that fails is skipped, and when all fail the first failure is raised."""
        limit = self._results_per_query
        found = await search_each(lambda query: self._services.search.search([query], limit), queries)
        for query, results in found.items():
            ranked = [r.url for r in sorted(results, key=lambda r: r.rank)]
            self._rankings[query] = [*self._rankings.get(query, []), *ranked]
            for r in results:
                if r.snippet:
                    self._snippets.setdefault(r.url, []).append(r.snippet)
        return merge(list(found.values()))

    async def _search_documents(self, queries: Sequence[str]) -> list[Candidate]:
        """The user's document chunks for ``queries`` (hybrid search), when the session asks for them."""
        documents = self._services.documents
        if "documents" not in self.state.request.sources or documents is None or not queries:
            return []
        vectors = await self._services.embedder.embed(list(queries))
        found: list[Candidate] = []
        for query, vector in zip(queries, vectors, strict=True):
            hits = await documents.search(query, vector, self._results_per_query)
            for rank, hit in enumerate(hits, start=1):
                heading = f" / {hit.chunk.heading}" if hit.chunk.heading else ""
                title, snippet = f"{hit.title}{heading}", " ".join(hit.chunk.text.split())[:300]
                found.append(
                    Candidate(hit.chunk.source, CandidateOrigin.DOCUMENT, title, snippet, query, rank)
                )
            self._rankings[query] = [hit.chunk.source for hit in hits]  # the web's results follow
        return found

    async def _suggest_from_memory(self, limit: int) -> None:
        """Offer remembered pages related to the goal that the frontier has not seen yet."""
        if "web" not in self.state.request.sources:
            return  # memory remembers web pages: a session on documents alone takes none
        vector = (await self._topics())[0]
        known = await self._services.frontier.known(self.state.session_id)  # fetched pages included
        suggestions = await self._services.memory.suggest(vector, limit, known)
        if not suggestions:
            return
        candidates = [
            Candidate(s.url, CandidateOrigin.MEMORY, s.title, rank=n) for n, s in enumerate(suggestions, 1)
        ]
        added = await self._services.frontier.add(self.state.session_id, candidates)
        if added:
            self.events.emit(
                EventType.MEMORY_SOURCES,
                {
                    "sources": [
                        {"url": s.url, "title": s.title, "score": round(s.score, 4)} for s in suggestions
                    ]
                },
            )

    async def _topics(self) -> list[list[float]]:
        return await self._vectors([self._goal, *(i.question for i in self.state.checklist)])

    async def _vectors(self, texts: Sequence[str]) -> list[list[float]]:
        """Embeddings of questions, queries and the waiting pages' snippets, each embedded once per
        session."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._text_vectors]
        if missing:
            self._text_vectors.update(zip(missing, await self._services.embedder.embed(missing), strict=True))
        return [self._text_vectors[t] for t in texts]

    # -- one round ----------------------------------------------------------------------------------
    async def _round(self) -> bool:
        per_round = self._preset.pages_per_round
        settled = self._settled()
        if not settled:
            pending = await self._services.frontier.pending(self.state.session_id)
            if len(pending) < REFILL_BATCHES * per_round and not self._leads:  # leads: the last round found
                await self._discover()
            if self.state.round >= 2 and self._rng(1).random() < self._settings.divergence:
                await self._suggest_from_memory(limit=per_round)
        pending = await self._services.frontier.pending(self.state.session_id)
        if not pending:
            return False
        n = min(per_round, self._pages_left())
        batch = self._owed_batch(pending, n) if settled else await self._rank(pending, n)
        batch = await self._claim(batch)
        waiting = {c.url for c in pending} - {c.url for c in batch}
        self._owed = [u for u in self._one_pass() if u in waiting]
        self.events.emit(EventType.FETCHING, {"count": len(batch), "urls": [c.url for c in batch]})
        half = (len(batch) + 1) // 2
        results = await asyncio.gather(
            *(self._visit(c, preview_first=False) for c in batch[:half]),
            *(self._visit(c, preview_first=True) for c in batch[half:]),
        )
        await self._update_checklist()
        if sum(results) and self._pages_left() > 0 and not all(i.satisfied for i in self.state.checklist):
            await self._discover()  # the multi-hop step: what this round's facts name, searched now
        self.events.emit(
            EventType.ROUND_END,
            {
                "round": self.state.round,
                "round_facts": sum(results),
                "total_facts": len(self.state.fact_ledger.facts),
                "total_pages": self.state.pages_fetched,
            },
        )
        return True

    async def _discover(self) -> None:
        open_items = [i for i in self.state.checklist if not i.satisfied]
        judged = self._account(
            await self._services.judge.discover_queries(
                self._goal, open_items, self.state.queries_done, 3, self.state.fact_ledger.facts
            )
        )
        if judged.answer:
            searched = [q for q in dict.fromkeys(judged.answer.queries) if q not in self.state.queries_done]
            await self._search(searched)
            if searched:  # nothing new to search: the leads not yet taken keep their turn
                self._leads = searched
                self._discovered = searched

    async def _rank(self, pending: list[Candidate], n: int) -> list[Candidate]:
        # Seeds first, in the order given; then the first round reads what one pass would read (the
        # goal's own search results, best first). From the second round on, while the goal's results
        # last, every waiting page is scored by what the searches say of it (``page_choice``: the
        # goal's rank, the other queries' ranks, the site, the snippets against the open questions)
        # and the best are read: the goal's next result unless the searches point to a better page
        # (the multi-hop step one search misses). Once the goal's results run out, the newest
        # discovery's leads and then the ranking fill the batch.
        waiting = {c.url: c for c in pending}
        seeds = self._seed_urls(waiting)
        opening = [*seeds, *self._goal_results(waiting)]
        leads: list[str] = []
        pointed: list[str] = []  # what the page choice took beside the goal's results
        if self.state.round > 1 and not seeds and opening:
            goal = set(opening)
            opening = page_choice.choose(await self._page_signals(pending), n)
            pointed = [u for u in opening if u not in goal]
            self._leads = []  # their queries' results were among the signals
        elif self.state.round > 1 and not seeds:
            picks = self._lead_urls(waiting)
            leads = [url for _, url in picks][:n]
            self._leads = [query for query, url in picks if url not in leads]  # they wait their turn
        first = list(dict.fromkeys([*opening[: max(0, n - len(leads))], *leads, *opening]))
        # seeds, the goal's results and the leads take the whole batch while they last; leads
        # alone, all but one slot (the rest is the ranking's)
        lead_slots = n if opening or self.state.round == 1 else None
        foci = self._foci()
        taken_first = [waiting[u] for u in first if u in waiting][:n]
        if lead_slots == n and len(taken_first) == n:
            # the batch is ``first``'s alone, as rank_and_sample would take it: no ranking to compute
            # (the pool's embeddings were most of a round's CPU on the judge's side)
            batch = taken_first
            similarity = await self._similarity(batch, foci)
        else:
            similarity = await self._similarity(pending, foci)
            texts = [_text(c) for c in pending]
            lexical = match_scores(texts, foci)
            relevance = {c.url: max(row[i] for row in lexical) for i, c in enumerate(pending)}
            qualities = await self._services.memory.domain_qualities(sorted({domain_of(u) for u in waiting}))
            batch = rank_and_sample(
                pending,
                similarity=similarity,
                relevance=relevance,
                domain_quality=qualities,
                n=n,
                temperature=self._temperature(),
                rng=self._rng(2),
                first=first,
                lead_slots=lead_slots,
            )
        self.events.emit(
            EventType.RANKED,
            {
                "count": len(pending),
                "urls": [c.url for c in batch],
                "scores": [round(similarity[c.url], 4) for c in batch],
                "leads": [u for u in [*pointed, *leads] if u in {c.url for c in batch}],
                "foci": list[JsonValue](foci),
            },
        )
        return batch

    async def _similarity(self, candidates: Sequence[Candidate], foci: Sequence[str]) -> dict[str, float]:
        """Each candidate's best cosine to the foci (its title, URL and snippet embedded)."""
        vectors = np.array(await self._services.embedder.embed([_text(c) for c in candidates]))
        cosine = vectors @ np.array(await self._vectors(foci)).T
        return dict(zip((c.url for c in candidates), cosine.max(axis=1).tolist(), strict=True))

    def _one_pass(self) -> list[str]:
        """What the single pass would read on this budget: the seeds, then the goal's own search
        results, best first (``single_pass``)."""
        seeds = (canonical_or_none(url) for url in self.state.request.seeds)
        urls = [*(u for u in seeds if u is not None), *self._rankings.get(self._goal, [])]
        return list(dict.fromkeys(urls))[: self.state.request.budget.pages]

    async def _claim(self, batch: list[Candidate]) -> list[Candidate]:
        """The batch less what another session of its group (a swarm's researchers) claimed first."""
        if not batch:
            return batch
        granted = set(await self._services.frontier.claim(self.state.session_id, [c.url for c in batch]))
        return [c for c in batch if c.url in granted]

    def _owed_batch(self, pending: Sequence[Candidate], n: int) -> list[Candidate]:
        """A settled session's batch: only the pages one pass would read that are still unread."""
        waiting = {c.url: c for c in pending}
        return [waiting[u] for u in self._owed if u in waiting][:n]

    def _settled(self) -> bool:
        checklist = self.state.checklist
        return bool(checklist) and all(i.satisfied for i in checklist)

    def _seed_urls(self, waiting: Mapping[str, Candidate]) -> list[str]:
        """The user's seeds still waiting, in the order given (a seed a search found too included)."""
        seeds = (canonical_or_none(url) for url in self.state.request.seeds)
        return [u for u in dict.fromkeys(seeds) if u is not None and u in waiting]

    def _goal_results(self, waiting: Mapping[str, Candidate]) -> list[str]:
        """The goal's own search results still waiting, in the search engine's order."""
        return [u for u in self._rankings.get(self._goal, []) if u in waiting]

    async def _page_signals(self, pending: Sequence[Candidate]) -> dict[str, page_choice.Signals]:
        """What the searches so far say of each waiting page (``page_choice``), in the goal's order
        first, then the frontier's."""
        read = {domain_of(p.url) for p in self.state.pages if p.status == "ok"}
        questions = [i.question for i in self.state.checklist if not i.satisfied] or [self._goal]
        asked = page_choice.asked_terms(questions)
        ranks = {query: _ranks(urls) for query, urls in self._rankings.items()}
        goal = ranks.pop(self._goal, {})
        order = sorted(pending, key=lambda c: goal.get(c.url, len(goal) + 1))
        semantic = await self._snippet_similarity(order, page_choice.asked_texts(questions))
        top = max(semantic.values(), default=0.0)
        said = page_choice.said_by(f.evidence for f in self.state.fact_ledger.facts)
        return {
            c.url: page_choice.Signals(
                goal_rank=goal.get(c.url),
                other_ranks=tuple(found[c.url] for found in ranks.values() if c.url in found),
                site_read=domain_of(c.url) in read,
                named=names_site(self._goal, c.url),
                snippet_cover=page_choice.snippet_cover(self._snippets_of(c), asked),
                hub=is_hub(c.url),
                semantic=semantic[c.url],
                semantic_gap=semantic[c.url] - top,
                fact_named=page_choice.named_by_facts(c.url, self._goal, said),
            )
            for c in order
        }

    async def _snippet_similarity(
        self, pending: Sequence[Candidate], asked: Sequence[str]
    ) -> dict[str, float]:
        """Each waiting page's best cosine of its title and one of its snippets to an asked text."""
        texts = {c.url: [f"{c.title} {s}".strip() for s in self._snippets_of(c)] for c in pending}
        flat = list(dict.fromkeys(t for group in texts.values() for t in group))
        if not flat or not asked:
            return {c.url: 0.0 for c in pending}
        cosine = np.array(await self._vectors(flat)) @ np.array(await self._vectors(asked)).T
        best = dict(zip(flat, cosine.max(axis=1).tolist(), strict=True))
        return {url: max((best[t] for t in group), default=0.0) for url, group in texts.items()}

    def _snippets_of(self, candidate: Candidate) -> list[str]:
        """What the search engines showed of a page, one snippet per query that found it."""
        return self._snippets.get(candidate.url, [candidate.snippet])

    def _lead_urls(self, waiting: Mapping[str, Candidate]) -> list[tuple[str, str]]:
        """In query order, one lead per query of the latest discovery, as (query, url): among its
        first ``LEAD_DEPTH`` results still waiting that no query before it took, the one whose title
        is most what the query asks (``title_match``), the engine's order breaking ties. Two parts'
        queries that find one page first lead to it and to the second one's next."""
        leads: list[tuple[str, str]] = []
        for query in self._leads:
            ranking = self._rankings.get(query, [])[:LEAD_DEPTH]
            options = [u for u in ranking if u in waiting and u not in {url for _, url in leads}]
            if options:
                named = {u: title_match(waiting[u].title, query) for u in options}
                leads.append((query, max(options, key=lambda u: (named[u], -options.index(u)))))
        return leads

    def _foci(self) -> list[str]:
        """What the session still needs, which candidates are ranked by their similarity to: the open
        parts of the goal, the queries of its latest discovery (the names its facts hold), then the
        goal itself while open. A settled question no longer pulls pages its way."""
        checklist = self.state.checklist
        goal, parts = (checklist[0], checklist[1:]) if len(checklist) > 1 else (None, checklist)
        foci = [i.question for i in parts if not i.satisfied]
        foci += self._discovered
        if goal is not None and not goal.satisfied:
            foci.append(goal.question)
        return list(dict.fromkeys(foci)) or [self._goal]

    def _temperature(self) -> float:
        """The sampling temperature scaled to the page budget: a budget of a few pages cannot afford to
        explore, so it follows the ranking; from ``EXPLORING_PAGES`` pages on the setting holds."""
        share = min(1.0, self.state.request.budget.pages / EXPLORING_PAGES)
        return self._settings.temperature * share

    async def _visit(self, candidate: Candidate, preview_first: bool) -> int:
        """Fetch, extract and analyse one page; returns the number of facts kept."""
        sid, url = self.state.session_id, candidate.url
        document = document_chunk(url)
        if document is not None:
            if self._pages_left() <= 0 or self._out_of_time():
                return 0
            hit = (
                await self._services.documents.chunk(*document)
                if self._services.documents is not None
                else None
            )
            if hit is None:
                return await self._failed(url, "document chunk not found (removed?)")
            heading = f" / {hit.chunk.heading}" if hit.chunk.heading else ""
            page = ExtractedPage(url, f"{hit.title}{heading}", hit.chunk.text, method="document")
            final_url = url
        else:
            if preview_first:
                preview = await self._services.browser.preview(url)
                if not preview.usable:
                    return await self._failed(url, f"preview: {preview.status.value} {preview.error}".strip())
            await self._honour_crawl_delay(url)
            await asyncio.sleep(await self._services.frontier.reserve(url))
            if self._pages_left() <= 0 or self._out_of_time():
                return 0
            result = await self._services.browser.fetch(url)
            if not result.ok:
                return await self._failed(url, f"{result.status.value}: {result.error}")
            page = await self._services.extractor.extract(result)
            page = ExtractedPage(url, page.title, page.text, page.links, page.metadata, page.method)
            final_url = result.final_url or url
        await self._services.frontier.mark(sid, url, FETCHED)
        self.state.pages.append(PageRecord(url, final_url, "ok", page.title, page.text))
        judged = self._account(
            await self._services.judge.analyse_page(
                self._goal, self.state.checklist, self.state.fact_ledger.facts, page
            )
        )
        analysis = judged.answer or answers.PageAnalysis()
        kept, rejected = self.state.fact_ledger.add_analysis(
            analysis, page, (i.id for i in self.state.checklist)
        )
        self.state.pages[-1].quality = analysis.page_quality
        await self._follow(page, analysis)
        self._add_questions(analysis.new_questions)
        facts: list[JsonValue] = [
            {
                "id": f.id,
                "claim": f.claim,
                "evidence": f.evidence,
                "confidence": f.confidence,
                "topic": f.topic,
            }
            for f in kept
        ]
        items: list[JsonValue] = [
            {"claim": f.claim, "confidence": f.confidence, "topic": f.topic} for f in kept
        ]
        self.events.emit(
            EventType.ANALYZED,
            {"url": url, "title": page.title, "fact_count": len(kept), "facts": facts, "rejected": rejected},
        )
        if kept:
            self.events.emit(
                EventType.FACTS,
                {
                    "items": items,
                    "source_url": url,
                    "source_title": page.title,
                    "summary": analysis.summary,
                },
            )
        if document is None:  # source memory is the web's: a user's document is not suggested to others
            vector = (await self._services.embedder.embed([f"{page.title} {page.text[:1000]}"]))[0]
            signal = (analysis.page_quality + (1.0 if kept else 0.0)) / 2
            await self._services.memory.record_page(
                url, title=page.title, vector=vector, signal=signal, facts=len(kept)
            )
        return len(kept)

    async def _honour_crawl_delay(self, url: str) -> None:
        """Tell the shared politeness a host's robots.txt Crawl-delay, once per host and session."""
        host = domain_of(url)
        if host in self._delays_known:
            return
        self._delays_known.add(host)
        delay = await self._services.browser.crawl_delay(url)
        if delay is not None:
            await self._services.frontier.set_crawl_delay(url, delay)

    async def _failed(self, url: str, reason: str) -> int:
        await self._services.frontier.mark(self.state.session_id, url, FAILED, reason)
        self.state.failures += 1
        self.events.emit(EventType.FETCH_FAILED, {"url": url, "reason": reason})
        return 0

    async def _follow(self, page: ExtractedPage, analysis: answers.PageAnalysis) -> None:
        links = page.links[:MAX_LINKS_IN_PROMPT]
        chosen = [links[i] for i in dict.fromkeys(analysis.follow_links) if 0 <= i < len(links)]
        candidates = [
            Candidate(link.url, CandidateOrigin.LINK, link.text, link.context, rank=n)
            for n, link in enumerate(chosen, 1)
        ]
        if candidates:
            await self._services.frontier.add(self.state.session_id, candidates)

    def _add_questions(self, questions: Sequence[str]) -> None:
        known = {i.question for i in self.state.checklist}
        for question in questions:
            if len(self.state.checklist) >= self._preset.checklist_size or question in known:
                continue
            self.state.checklist.append(ChecklistItem(f"Q{len(self.state.checklist) + 1}", question))
            known.add(question)

    async def _update_checklist(self) -> None:
        facts = self.state.fact_ledger.facts
        if not facts:
            return
        self.state.checklist = await checklists.settle(
            self._services.judge, self._goal, self.state.checklist, facts, self._account
        )
        self.events.emit_checklist(self.state.checklist)

    # -- budgets and the end ------------------------------------------------------------------------
    def _pages_left(self) -> int:
        return self.state.request.budget.pages - self.state.pages_fetched

    def _out_of_time(self) -> bool:
        return time.monotonic() - self._started >= self.state.request.budget.time_s

    def _stop_reason(self) -> str | None:
        """Why no further round may start, or None; the first that holds wins."""
        reasons = (
            (self._cancelled, "cancelled"),
            # a settled checklist ends the session once what one pass would read is read: never
            # below one pass by construction, whatever the judge settles on
            (self._settled() and (not self._owed or self._pages_left() <= 0), "checklist satisfied"),
            (self._pages_left() <= 0, "max pages reached"),
            (self._out_of_time(), "time budget reached"),
            (self.state.usage.total_tokens >= self.state.request.budget.tokens, "token budget reached"),
            (self.state.round >= ROUNDS_PER_PAGE * self.state.request.budget.pages + 3, "no progress"),
        )
        return next((reason for holds, reason in reasons if holds), None)

    async def _compose(self) -> None:
        facts = self.state.fact_ledger.facts
        self.events.emit(EventType.COMPOSING, {"facts": len(facts)})
        conclusion = await checklists.compose(
            self._services.judge,
            self._goal,
            self.state.checklist,
            facts,
            self._account,
            pages_read=self.state.pages_fetched,
            tried=self.state.queries_done,
            stop_reason=self.state.stop_reason,
            titles={p.url: p.title for p in self.state.pages if p.title},
        )
        self.state.answers = list(conclusion.sheet.answers)
        self.state.answers_dropped = conclusion.sheet.dropped
        if conclusion.checklist != tuple(self.state.checklist):
            self.state.checklist = list(conclusion.checklist)
            self.events.emit_checklist(self.state.checklist)
        self.state.report_markdown = conclusion.markdown
        self.state.status = CANCELLED if self.state.stop_reason == "cancelled" else COMPLETE
        self.events.emit(
            EventType.COMPLETE,
            {
                "facts": len(facts),
                "pages": self.state.pages_fetched,
                "answers": [answer_json(a) for a in self.state.answers],
            },
        )
        await self._checkpoint()

    def _account(self, judged: Judged[Any]) -> Judged[Any]:
        self.state.usage += judged.usage
        if judged.failure is not None:
            logger.info(
                "%s failed: %s", judged.judgement, judged.failure, extra={"session_id": self.state.session_id}
            )
        return judged

    async def _checkpoint(self) -> None:
        self.state.elapsed_s = time.monotonic() - self._started
        await self._services.frontier.checkpoint(self.state.session_id)
        await self._services.memory.checkpoint(self.state, self.events.take_unsaved())


def _ranks(urls: Sequence[str]) -> dict[str, int]:
    """Each URL's rank in one query's results, from 1 (a URL listed twice keeps its first)."""
    ranks: dict[str, int] = {}
    for n, url in enumerate(urls, start=1):
        ranks.setdefault(url, n)
    return ranks


def _text(candidate: Candidate) -> str:
    """What a candidate is ranked by: its title, URL and snippet."""
    return f"{candidate.title} {candidate.url} {candidate.snippet}".strip()
