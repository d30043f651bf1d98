"""Cited answers over the user's documents: plan, search, rerank, reflect, answer.

1. Plan: a multi-part question is split into up to ``MAX_PARTS`` standalone searches (the evidence
   judge's decomposition, no model); a simple question is searched as it is.
2. Search: hybrid search per part, in parallel, ``CANDIDATES`` chunks each.
3. Rerank: each chunk scored by its best sentence for the part (BM25 within the chunk, embedder
   similarity, answer-type match: the evidence judge's sentence scores), fused with its search rank
   by RRF; the best ``KEEP`` per part are kept.
4. Reflect: the question's names and identifiers ("PostgreSQL", "PEP 572") that no kept passage
   holds get one follow-up search (``reflect=False`` skips it).
5. Evidence: passages de-duplicated, capped at ``MAX_PASSAGES``, numbered; the judge answers from
   them alone and every citation must quote its numbered passage (one that does not is dropped).

Every request has a trace id, stage timings and the judge's token count and cost.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fathom_ray.documents.models import DocumentHit
from fathom_ray.errors import InvalidRequestError
from fathom_ray.evidence.decompose import decompose, standalone
from fathom_ray.evidence.passages import Question, SentenceIndex, score_sentences
from fathom_ray.evidence.queries import identifiers
from fathom_ray.evidence.sentences import split_sentences
from fathom_ray.evidence.terms import keywords
from fathom_ray.llm import answers
from fathom_ray.models import ExtractedPage, Usage
from fathom_ray.ports import DocumentSearch, Embedder, JudgePort
from fathom_ray.ranking import rrf_fuse_scores

MAX_QUESTION_CHARS = 1_000
MAX_PARTS = 4
CANDIDATES = 20
KEEP = 5
MAX_PASSAGES = 8
SENTENCES_EMBEDDED = 8
HOP_PASSAGES = 3
_VERSION = re.compile(r"v?\d+(?:\.\d+)+")


@dataclass(frozen=True, slots=True)
class Cited:
    number: int  # the passage it cites, from 1
    claim: str
    evidence: str


@dataclass(frozen=True, slots=True)
class AskResult:
    trace_id: str
    question: str
    answer: str
    citations: tuple[Cited, ...]
    passages: tuple[DocumentHit, ...]
    parts: tuple[str, ...]
    follow_up: str | None
    stages_s: dict[str, float] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    judge_failure: str = ""
    asked_as: str = ""  # the question as searched: with an earlier turn's subject when it leaned on one


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
    follow_up: str | None
    stages_s: dict[str, float]


async def retrieve(
    question: str,
    store: DocumentSearch,
    embedder: Embedder,
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
    found = await asyncio.gather(*(search(part, store, embedder, width, mode) for part in parts))
    stages["search"] = time.monotonic() - clock
    tell("search", {"candidates": [len(hits) for hits in found]})

    clock = time.monotonic()
    keep = KEEP if len(parts) > 1 else MAX_PASSAGES
    kept = [
        await best(p, hits, embedder, keep) if rerank else hits[:keep]
        for p, hits in zip(parts, found, strict=True)
    ]
    stages["rerank"] = time.monotonic() - clock
    tell("rerank", {"kept": [len(hits) for hits in kept]})

    follow_up = None
    if reflect:
        clock = time.monotonic()
        follow_up = missing_query(question, [h for hits in kept for h in hits]) or hop_query(parts, kept)
        if follow_up:
            more = await search(follow_up, store, embedder, width, mode)
            # what was missing comes right after the question's own best
            kept.insert(1, await best(follow_up, more, embedder) if rerank else more[:KEEP])
        stages["reflect"] = time.monotonic() - clock
        tell("reflect", {"follow_up": follow_up})
    return Retrieved(tuple(parts), tuple(evidence(kept)), follow_up, stages)


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
        asked, store, embedder, rerank=rerank, reflect=reflect, use_plan=use_plan, on_stage=on_stage
    )
    if on_stage is not None:
        on_stage("passages", {"passages": [passage_record(n, p) for n, p in enumerate(found.passages, 1)]})
    clock = time.monotonic()
    answer, citations, usage, failure = await _answer(asked, found.passages, judge)
    stages = {**found.stages_s, "answer": time.monotonic() - clock}
    return AskResult(
        trace_id,
        question,
        answer,
        citations,
        found.passages,
        found.parts,
        found.follow_up,
        {k: round(v, 4) for k, v in stages.items()},
        usage,
        failure,
        asked,
    )


async def search(
    query: str, store: DocumentSearch, embedder: Embedder, limit: int, mode: str = "hybrid"
) -> list[DocumentHit]:
    vector = (await embedder.embed([query]))[0]
    return await store.search(query, vector, limit, mode)


async def best(
    part: str, hits: Sequence[DocumentHit], embedder: Embedder, keep: int = KEEP
) -> list[DocumentHit]:
    """The ``keep`` hits whose best sentence answers ``part`` best, fused with their search order."""
    if not hits:
        return []
    question = Question.of("Q1", part)
    sentence_scores: dict[int, float] = {}
    for n, hit in enumerate(hits):
        index = SentenceIndex(split_sentences(hit.chunk.text), hit.title)
        scores = await score_sentences(index, [question], embedder.embed, SENTENCES_EMBEDDED)
        sentence_scores[n] = max((s.fused for s in scores), default=0.0)
    fused = rrf_fuse_scores([{n: -float(n) for n in range(len(hits))}, sentence_scores])
    order = sorted(range(len(hits)), key=lambda n: (-fused[n], n))
    return [hits[n] for n in order[:keep]]


def missing_query(question: str, passages: Sequence[DocumentHit]) -> str | None:
    """A follow-up search for the question's names that no passage holds, or None when all are."""
    held = " ".join(f"{p.title} {p.chunk.heading} {p.chunk.text}" for p in passages).lower()
    missing = [name for name in identifiers(question) if name.lower() not in held]
    if not missing:
        return None
    extra = [w for w in keywords(question) if all(w.lower() not in m.lower() for m in missing)]
    return " ".join([*missing, *extra[:4]])


def hop_query(parts: Sequence[str], kept: Sequence[Sequence[DocumentHit]]) -> str | None:
    """For a part that leans on another ("that other engine", marked by the context decomposition
    added in brackets), the name the other parts' best passages hold that the question does not
    say, joined to the part's own words: the second hop of a multi-hop question, or None."""
    leaning = [n for n, part in enumerate(parts) if " (" in part]
    if not leaning:
        return None
    asked = " ".join(parts).lower()
    weight: dict[str, float] = {}
    for n, hits in enumerate(kept):
        if n in leaning:
            continue
        for rank, hit in enumerate(hits[:HOP_PASSAGES]):
            for name in identifiers(hit.chunk.text):
                if name.lower() not in asked and not _VERSION.fullmatch(name):
                    weight[name] = weight.get(name, 0.0) + 1.0 / (rank + 1)
    if not weight:
        return None
    name = min(weight, key=lambda k: (-weight[k], k))
    own = parts[leaning[0]].split(" (", 1)[0]
    return " ".join([name, *keywords(own)[:5]])


def evidence(kept: Sequence[Sequence[DocumentHit]]) -> list[DocumentHit]:
    """Each search's passages in turn (its best first), without repeats, at most ``MAX_PASSAGES``."""
    chosen: dict[str, DocumentHit] = {}
    for rank in range(max((len(k) for k in kept), default=0)):
        for hits in kept:
            if rank < len(hits) and len(chosen) < MAX_PASSAGES:
                chosen.setdefault(hits[rank].chunk.source, hits[rank])
    return list(chosen.values())


async def _answer(
    question: str, passages: Sequence[DocumentHit], judge: JudgePort
) -> tuple[str, tuple[Cited, ...], Usage, str]:
    if not passages:
        return "No passage of the documents bears on the question.", (), Usage(), ""
    pages = [
        ExtractedPage(p.chunk.source, " / ".join(x for x in (p.title, p.chunk.heading) if x), p.chunk.text)
        for p in passages
    ]
    judged = await judge.answer(question, pages)
    reply: answers.SinglePassAnswer | None = judged.answer
    if reply is None:
        failure = f"{judged.failure.kind}: {judged.failure.detail}" if judged.failure else "no answer"
        return "The judge gave no answer.", (), judged.usage, failure
    cited = tuple(
        Cited(c.source, c.claim, c.evidence)
        for c in reply.citations
        if 1 <= c.source <= len(passages) and c.evidence in passages[c.source - 1].chunk.text
    )
    return reply.answer, cited, judged.usage, ""
