"""Cited answers over the user's documents: plan, search, rerank, reflect, answer.

1. Plan: a multi-part question is split into up to ``MAX_PARTS`` standalone searches (the evidence
   judge's decomposition, no model); a simple question is searched as it is.
2. Search: hybrid search per part, in parallel, ``CANDIDATES`` chunks each.
3. Rerank: the judge rates each chunk for the part (the evidence judge by its best sentence: BM25
   within the chunk, embedder similarity, answer-type match; a model judge in one call scoring
   0-9), fused with its search rank by RRF; the best ``KEEP`` per part are kept.
4. Reflect: the question's names and identifiers ("PostgreSQL", "PEP 572") that no kept passage
   holds get a follow-up search; then the judge reads each search's best passages (its page
   analysis) and asks for the searches their facts lead to (its query discovery: the second hop
   of a multi-hop question). At most ``FOLLOW_UPS``; ``reflect=False`` skips the stage.
5. Evidence: passages de-duplicated, capped at ``MAX_PASSAGES``, numbered; the judge answers from
   them alone and every citation must quote its numbered passage (one that does not is dropped).
6. Answer (``answering``): a line per part first, then the claims, each with its ``[n]``, each
   passage cited once; a question asking for several obligations or steps is answered by the
   enumerated list its first cited quote sits in, read on into the neighbouring chunks (``lists``).

Every request has a trace id, stage timings and the judge's token count and cost.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fathom_ray.documents.answering import NOTHING, Cited, Composed, Line, compose, held_quotes, unanswered
from fathom_ray.documents.lists import Listed, asks_for_list, list_at, whole_list
from fathom_ray.documents.models import DocumentHit
from fathom_ray.errors import InvalidRequestError
from fathom_ray.judges.evidence.decompose import decompose, standalone
from fathom_ray.judges.evidence.queries import identifiers
from fathom_ray.judges.evidence.terms import keywords
from fathom_ray.judges.llm import answers
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact, Usage
from fathom_ray.ports import DocumentSearch, Embedder, JudgePort
from fathom_ray.research.ranking import rrf_fuse_scores

logger = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 1_000
MAX_PARTS = 4
CANDIDATES = 20
KEEP = 5
MAX_PASSAGES = 8
FOLLOW_UPS = 2  # follow-up searches of the reflect stage
READ_PER_SEARCH = 3  # passages of each search the judge reads to reflect


@dataclass(frozen=True, slots=True)
class AskResult:
    trace_id: str
    question: str
    answer: str
    citations: tuple[Cited, ...]
    passages: tuple[DocumentHit, ...]
    parts: tuple[str, ...]
    follow_ups: tuple[str, ...]
    stages_s: dict[str, float] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    judge_failure: str = ""
    asked_as: str = ""  # the question as searched: with an earlier turn's subject when it leaned on one
    answers: tuple[Line, ...] = ()  # the answer lines: a part's span, or an item of a listed answer


StageHook = Callable[[str, dict[str, Any]], None]


def _quiet(stage: str, data: dict[str, Any]) -> None:
    """A stage hook that tells nobody."""


def passage_record(number: int, passage: DocumentHit) -> dict[str, Any]:
    chunk = passage.chunk
    return {
        "number": number,
        "source": chunk.source,
        "title": passage.title,
        "heading": chunk.heading,
        "text": chunk.text,
        "start": chunk.start,
        "end": chunk.end,
    }


def check_question(question: str) -> str:
    text = " ".join(question.split())
    if not text:
        raise InvalidRequestError("question", "is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidRequestError("question", f"is {len(text)} characters; at most {MAX_QUESTION_CHARS}")
    return text


def plan(question: str) -> list[str]:
    """The standalone searches for ``question``: the question itself, then its parts (a passage
    that answers two parts at once is found by the whole question best)."""
    return decompose(question, MAX_PARTS)


@dataclass(frozen=True, slots=True)
class Retrieved:
    parts: tuple[str, ...]
    passages: tuple[DocumentHit, ...]
    follow_ups: tuple[str, ...]
    stages_s: dict[str, float]


async def retrieve(
    question: str,
    store: DocumentSearch,
    embedder: Embedder,
    judge: JudgePort,
    *,
    mode: str = "hybrid",
    rerank: bool = True,
    reflect: bool = True,
    use_plan: bool = True,
    on_stage: StageHook | None = None,
) -> Retrieved:
    """The evidence for ``question``: plan, search per part, rerank, reflect, at most ``MAX_PASSAGES``."""
    stages: dict[str, float] = {}
    clock = time.monotonic()
    parts = plan(question) if use_plan else [question]
    stages["plan"] = time.monotonic() - clock
    tell = on_stage or _quiet
    tell("plan", {"parts": list(parts)})

    clock = time.monotonic()
    width = CANDIDATES if rerank else MAX_PASSAGES
    if rerank and mode == "hybrid":
        mode = "pool"  # candidates for the rerank: both sides equally (documents/sparse.py)
    found = await asyncio.gather(*(search(part, store, embedder, width, mode) for part in parts))
    stages["search"] = time.monotonic() - clock
    tell("search", {"candidates": [len(hits) for hits in found]})

    clock = time.monotonic()
    keep = KEEP if len(parts) > 1 else MAX_PASSAGES
    kept = [
        await best(p, hits, judge, keep) if rerank else hits[:keep]
        for p, hits in zip(parts, found, strict=True)
    ]
    stages["rerank"] = time.monotonic() - clock
    tell("rerank", {"kept": [len(hits) for hits in kept]})

    follow_ups: list[str] = []
    if reflect:
        clock = time.monotonic()
        follow_ups = await reflect_queries(question, parts, kept, judge)
        more = await asyncio.gather(*(search(q, store, embedder, width, mode) for q in follow_ups))
        for n, (query, hits) in enumerate(zip(follow_ups, more, strict=True), start=1):
            # what was missing comes right after the question's own best
            kept.insert(n, await best(query, hits, judge) if rerank else hits[:KEEP])
        stages["reflect"] = time.monotonic() - clock
        tell("reflect", {"follow_ups": follow_ups})
    return Retrieved(tuple(parts), tuple(evidence(kept)), tuple(follow_ups), stages)


async def ask(
    question: str,
    store: DocumentSearch,
    embedder: Embedder,
    judge: JudgePort,
    *,
    rerank: bool = True,
    reflect: bool = True,
    use_plan: bool = True,
    on_stage: StageHook | None = None,
    history: Sequence[str] = (),
) -> AskResult:
    """Answer ``question`` from the documents in ``store``, citing numbered passages. ``history``
    holds the conversation's earlier questions: a question that leans on them ("when was it
    released?") is searched and answered with their subject carried in."""
    question = check_question(question)
    asked = standalone(question, list(history)) if history else question
    trace_id = uuid.uuid4().hex[:16]
    found = await retrieve(
        asked, store, embedder, judge, rerank=rerank, reflect=reflect, use_plan=use_plan, on_stage=on_stage
    )
    if on_stage is not None:
        on_stage("passages", {"passages": [passage_record(n, p) for n, p in enumerate(found.passages, 1)]})
    clock = time.monotonic()
    composed, usage, failure = await _answer(asked, found.passages, judge, store)
    stages = {**found.stages_s, "answer": time.monotonic() - clock}
    return AskResult(
        trace_id,
        question,
        composed.text,
        composed.citations,
        composed.passages,
        found.parts,
        found.follow_ups,
        {k: round(v, 4) for k, v in stages.items()},
        usage,
        failure,
        asked,
        composed.answers,
    )


async def search(
    query: str, store: DocumentSearch, embedder: Embedder, limit: int, mode: str = "hybrid"
) -> list[DocumentHit]:
    vector = (await embedder.embed([query]))[0]
    return await store.search(query, vector, limit, mode)


async def best(
    part: str, hits: Sequence[DocumentHit], judge: JudgePort, keep: int = KEEP
) -> list[DocumentHit]:
    """The ``keep`` hits the judge rates best for ``part`` (its rerank: the evidence judge's
    sentence scores, or one model call scoring 0-9), fused with their search order by RRF. A
    rerank that fails keeps the search order."""
    if not hits:
        return []
    judged = await judge.rerank(part, [_page(hit) for hit in hits])
    if judged.answer is None:
        logger.warning("rerank failed, search order kept: %s", judged.failure)
        return list(hits[:keep])
    rated = dict(enumerate(judged.answer.scores))
    fused = rrf_fuse_scores([{n: -float(n) for n in range(len(hits))}, rated])
    order = sorted(range(len(hits)), key=lambda n: (-fused.get(n, 0.0), n))
    return [hits[n] for n in order[:keep]]


def missing_query(question: str, passages: Sequence[DocumentHit]) -> str | None:
    """A follow-up search for the question's names that no passage holds, or None when all are."""
    held = " ".join(f"{p.title} {p.chunk.heading} {p.chunk.text}" for p in passages).lower()
    missing = [name for name in identifiers(question) if name.lower() not in held]
    if not missing:
        return None
    extra = [w for w in keywords(question) if all(w.lower() not in m.lower() for m in missing)]
    return " ".join([*missing, *extra[:4]])


async def reflect_queries(
    question: str, parts: Sequence[str], kept: Sequence[Sequence[DocumentHit]], judge: JudgePort
) -> list[str]:
    """Up to ``FOLLOW_UPS`` follow-up searches: first the question's names that no kept passage
    holds; then what the judge asks after reading each search's best ``READ_PER_SEARCH``
    passages for the question's parts (its page analysis gives facts with their evidence, its
    query discovery the searches they lead to: the name a part leans on, "that other engine",
    joined to the part's own words, before plainer ones). Searches already made are not repeated."""
    wanted: list[str] = []
    if missing := missing_query(question, [h for hits in kept for h in hits]):
        wanted.append(missing)
    items = [ChecklistItem(f"Q{n}", part) for n, part in enumerate(parts[1:] or parts, start=1)]
    read: dict[str, DocumentHit] = {}
    for hits in kept:
        for h in hits[:READ_PER_SEARCH]:
            read.setdefault(h.chunk.source, h)
    analyses = await asyncio.gather(
        *(judge.analyse_page(question, items, (), _page(h)) for h in read.values())
    )
    facts = [
        Fact(f"F{n}-{m}", c.claim, c.evidence, hit.chunk.source, tuple(c.checklist_ids), c.confidence)
        for n, (hit, judged) in enumerate(zip(read.values(), analyses, strict=True))
        if judged.answer is not None
        for m, c in enumerate(judged.answer.facts)
    ]
    asked = await judge.discover_queries(question, items, list(parts), FOLLOW_UPS, facts)
    wanted += asked.answer.queries if asked.answer is not None else []
    done = {_key(p) for p in parts}
    queries: list[str] = []
    for query in wanted:
        if _key(query) not in done and len(queries) < FOLLOW_UPS:
            done.add(_key(query))
            queries.append(query)
    return queries


def _key(query: str) -> str:
    return " ".join(sorted(query.lower().split()))


def _page(hit: DocumentHit) -> ExtractedPage:
    return ExtractedPage(hit.chunk.source, hit.title, hit.chunk.text)


def evidence(kept: Sequence[Sequence[DocumentHit]]) -> list[DocumentHit]:
    """Each search's passages in turn (its best first), without repeats, at most ``MAX_PASSAGES``."""
    chosen: dict[str, DocumentHit] = {}
    for rank in range(max((len(k) for k in kept), default=0)):
        for hits in kept:
            if rank < len(hits) and len(chosen) < MAX_PASSAGES:
                chosen.setdefault(hits[rank].chunk.source, hits[rank])
    return list(chosen.values())


async def _answer(
    question: str, passages: Sequence[DocumentHit], judge: JudgePort, store: DocumentSearch
) -> tuple[Composed, Usage, str]:
    if not passages:
        return unanswered(NOTHING, passages), Usage(), ""
    pages = [
        ExtractedPage(p.chunk.source, " / ".join(x for x in (p.title, p.chunk.heading) if x), p.chunk.text)
        for p in passages
    ]
    judged = await judge.answer(question, pages)
    reply: answers.SinglePassAnswer | None = judged.answer
    if reply is None:
        failure = f"{judged.failure.kind}: {judged.failure.detail}" if judged.failure else "no answer"
        return unanswered("The judge gave no answer.", passages), judged.usage, failure
    listed = await listed_answer(question, passages, reply, store) if asks_for_list(question) else []
    return compose(question, passages, reply, listed), judged.usage, ""


async def listed_answer(
    question: str, passages: Sequence[DocumentHit], reply: answers.SinglePassAnswer, store: DocumentSearch
) -> list[Listed]:
    """The enumerated list the first cited quote sits in, whole; empty when no quote is in a list
    of two items or more."""
    by_source = {p.chunk.source: p for p in passages}
    for quote in held_quotes(reply, passages):
        if quote is None:
            continue
        hit = by_source[quote.source]
        run = list_at(hit, quote.start)
        if run is not None:
            items = await whole_list(store, hit, run)
            if len(items) >= 2:
                return items
    return []
