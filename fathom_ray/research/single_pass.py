"""The single-pass baseline: search the question, fetch the top pages up to the page budget, one answer.

What a simple research pipeline does, on the same budget, for `fathom eval` to compare against: no
checklist, no rounds, no links followed, and its cited claims are kept as the model wrote them (the
evaluation checks them against the pages, as it checks the engine's).
"""

from __future__ import annotations

import asyncio
import time

from fathom_ray.errors import SearchError
from fathom_ray.judges.llm import answers
from fathom_ray.models import ChecklistItem, EventType, ExtractedPage, Fact, JsonValue
from fathom_ray.ports import AnswerCalls, Browser, ExtractorCalls, FrontierCalls, JudgeInfo, SearchCalls
from fathom_ray.research import report
from fathom_ray.research.answer_sheet import answer_sheet
from fathom_ray.research.answer_sheet import to_json as answer_json
from fathom_ray.research.fact_ledger import FactLedger
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_state import COMPLETE, PageRecord, SessionState

STOP_REASON = "single pass"


async def single_pass(
    state: SessionState,
    events: EventLog,
    *,
    judge: AnswerCalls,
    browser: Browser,
    extractor: ExtractorCalls,
    frontier: FrontierCalls,
    search: SearchCalls,
    results_per_query: int = 8,
) -> tuple[SessionState, dict[str, float]]:
    """Run the baseline for ``state.request``; the finished state and the seconds spent per stage."""
    stages: dict[str, float] = {}
    question, limit = state.request.goal, state.request.budget.pages
    info = await judge.start()  # started already: it says which judge it is
    state.judge = info.label if isinstance(info, JudgeInfo) else "unknown"
    started = time.monotonic()
    events.emit(EventType.SEARCHING, {"queries": [question]})
    state.queries_done.append(question)
    try:
        results = await search.search([question], max(results_per_query, limit))
    except SearchError as e:
        results = []
        events.emit(EventType.FETCH_FAILED, {"url": "", "reason": f"search: {e}"})
    urls = list(dict.fromkeys([*state.request.seeds, *(r.url for r in results)]))[:limit]  # canonical
    stages["search"] = time.monotonic() - started

    started = time.monotonic()
    events.emit(EventType.FETCHING, {"count": len(urls), "urls": list[JsonValue](urls)})
    parts = (browser, extractor, frontier)
    fetched = await asyncio.gather(*(_fetch(url, state, events, parts) for url in urls))
    pages = [page for page in fetched if page is not None]
    stages["fetch"] = time.monotonic() - started

    started = time.monotonic()
    events.emit(EventType.COMPOSING, {"facts": 0})
    judged = await judge.answer(question, pages)
    state.usage += judged.usage
    reply = judged.answer or answers.SinglePassAnswer(answer="")
    facts = [
        Fact(f"F{n}", c.claim, c.evidence, pages[c.source - 1].url, confidence=1.0)
        for n, c in enumerate(reply.citations, start=1)
        if c.source <= len(pages)
    ]
    state.fact_ledger = FactLedger(facts)
    items = [ChecklistItem(f"Q{n}", q) for n, q in enumerate(reply.parts or [question], start=1)]
    sheet = answer_sheet(items, reply.answers, facts, state.pages_fetched, state.queries_done)
    state.answers, state.answers_dropped = list(sheet.answers), sheet.dropped
    failure = judged.failure
    state.stop_reason = (
        f"{STOP_REASON}, no answer ({failure.kind}: {failure.detail})" if failure is not None else STOP_REASON
    )
    titles = {p.url: p.title for p in pages if p.title}
    state.report_markdown = report.render_answer(
        question, reply.answer, facts, state.stop_reason, answers=state.answers, titles=titles
    )
    state.status = COMPLETE
    stages["answer"] = time.monotonic() - started
    found: list[JsonValue] = [answer_json(a) for a in state.answers]
    events.emit(EventType.COMPLETE, {"facts": len(facts), "pages": state.pages_fetched, "answers": found})
    return state, stages


async def _fetch(
    url: str,
    state: SessionState,
    events: EventLog,
    actors: tuple[Browser, ExtractorCalls, FrontierCalls],
) -> ExtractedPage | None:
    browser, extractor, frontier = actors
    await asyncio.sleep(await frontier.reserve(url))  # the same per-host politeness as a session
    result = await browser.fetch(url)
    if not result.ok:
        state.failures += 1
        events.emit(EventType.FETCH_FAILED, {"url": url, "reason": f"{result.status.value}: {result.error}"})
        return None
    page = await extractor.extract(result)
    page = ExtractedPage(url, page.title, page.text, page.links, page.metadata, page.method)
    state.pages.append(PageRecord(url, result.final_url or url, "ok", page.title, page.text))
    return page
