"""The evidence judge: every judgement from the pages' own sentences, with no generative model.

It answers the JudgePort with the LLM judge's answer types. A fact is a
verbatim sentence of the page it cites (faithful by construction), chosen by
the fused score of ``passages`` against the open checklist questions; a
sentence that is instruction-like, holds markup, an active link or a secret is
never one. Deterministic, and bounded per page: BM25 narrows before the
embedder is asked for anything.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from typing import TypeVar

from fathom_ray.judges.evidence import compose as composing
from fathom_ray.judges.evidence.decompose import decompose, is_described
from fathom_ray.judges.evidence.passages import (
    Embed,
    Question,
    Score,
    SentenceIndex,
    open_questions,
    score_sentences,
)
from fathom_ray.judges.evidence.queries import STATEMENT_MATCH, discover, statement_terms
from fathom_ray.judges.evidence.sentences import Sentence, split_sentences
from fathom_ray.judges.evidence.spans import defined_term
from fathom_ray.judges.llm import answers
from fathom_ray.judges.llm.prompts import MAX_LINKS_IN_PROMPT
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact, Usage
from fathom_ray.ports import Embedder, Judged, JudgeInfo
from fathom_ray.text.normalise import answer_match
from fathom_ray.text.untrusted import unfit_for_fact

MAX_EMBEDDED = 8
# While a checklist item has no fact, a page's best sentence for it is kept at this share of the
# threshold: the threshold is calibrated on the dev pages, and a question whose pages all score
# a little under it would end with nothing to show.
FIRST_FACT_SHARE = 0.8
FACTS_PER_QUESTION = 3
MAX_FACTS = 12
MAX_LINKS = 5
MIN_LINK_SCORE = 0.34
MAX_CLAIM_CHARS, MAX_EVIDENCE_CHARS = 400, 600
A = TypeVar("A", bound=answers.Answer)
# A site's name after the page's own title: "What's New In Python 3.8 - Python 3.11.2 documentation"
_TITLE_SUFFIX = re.compile("\\s+[\u2014|\u00b7\u2013-]\\s+[^\u2014|\u00b7\u2013]{3,60}$")
# Lines that say nothing about the subject, however well they match its words: thanks and
# acknowledgements, a page's copyright and build footer.
_BOILERPLATE = re.compile(
    r"^\W*(?:(?:many|special|big)\s+)?thanks\b|^\W*thank you\b|^\W*we (?:would like to )?thank\b"
    r"|^\W*(?:\u00a9|copyright\s+(?:\u00a9\s*)?(?:\(c\)\s*)?\d{4})|\ball rights reserved\b"
    r"|^\W*(?:last updated on|created using sphinx|found a bug\?)",
    re.I,
)
_LEANING = ("it ", "its ", "this ", "these ", "they ", "that ", "those ", "such ", "he ", "she ", "there ")


class EvidenceJudge:
    """Judgements as retrieval over a sentence embedder (``None``: BM25 and answer types only)."""

    def __init__(self, embedder: Embedder | None, threshold: float = 0.45, *, warm: bool = True) -> None:
        self._embed: Embed | None = embedder.embed if embedder is not None else None
        self._threshold = threshold
        self._warm = warm  # False: the embedder is loaded by its owner (the engine's Embedder actor)
        self.usage = Usage()

    async def start(self) -> JudgeInfo:
        """Load the embedder now (its first call), not under the first page."""
        if self._embed is not None and self._warm:
            await self._embed(["start"])
        return self.info()

    async def close(self) -> None:
        return None

    def info(self) -> JudgeInfo:
        model = "all-MiniLM-L6-v2 + BM25" if self._embed is not None else "BM25"
        return JudgeInfo("evidence", model, "")

    def _judged(self, judgement: str, answer: A, started: float) -> Judged[A]:
        usage = Usage(calls=1, latency_s=time.monotonic() - started)
        self.usage += usage
        return Judged(judgement, answer, None, usage)

    async def decompose(self, goal: str, count: int) -> Judged[answers.Checklist]:
        started = time.monotonic()
        # Built, not validated: the schema's bounds hold a model's output in, and these items are the
        # user's goal (up to GOAL_MAX_CHARS) and its parts, which a bound of 300 would throw away.
        checklist = answers.Checklist.model_construct(questions=decompose(goal, count))
        return self._judged("decompose", checklist, started)

    async def analyse_page(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact], page: ExtractedPage
    ) -> Judged[answers.PageAnalysis]:
        started = time.monotonic()
        held = {n for fact in facts for n in fact.checklist_ids}
        bare = frozenset(item.id for item in checklist if item.id not in held)
        analysis = await self.analyse(goal, checklist, page, bare)
        return self._judged("analyse_page", analysis, started)

    async def analyse(
        self,
        goal: str,
        checklist: Sequence[ChecklistItem],
        page: ExtractedPage,
        bare: frozenset[str] = frozenset(),
    ) -> answers.PageAnalysis:
        """The page's facts, links and quality for the open items; an item in ``bare`` (one with no
        fact yet) takes its best sentence at ``FIRST_FACT_SHARE`` of the threshold, and an open item
        that is one of the goal's statements the sentence with the most of its words
        (``_statement_lines``)."""
        questions = open_questions(checklist) or [Question.of("Q1", goal)]
        # Sentences and BM25 statistics off the event loop: a huge page must not stall other sessions.
        index = await asyncio.to_thread(_index_of, page)
        scores = await score_sentences(index, questions, self._embed, MAX_EMBEDDED)
        kept = self._facts(index, page.text, scores, bare)
        kept += _statement_lines(open_statements(goal, checklist), index, page.text, kept, scores)
        relevant = {s.sentence for s in scores if s.fused >= self._threshold * 0.8}
        best = scores[0].fused if scores else 0.0
        share = len(relevant) / max(len(index.sentences), 1)
        return answers.PageAnalysis(
            facts=kept,
            follow_links=_links(index, questions, page),
            page_quality=round(min(1.0, 0.5 * best + 0.5 * min(1.0, 5 * share)), 4),
            summary=kept[0].claim[:500] if kept else "",
        )

    def _facts(
        self, index: SentenceIndex, text: str, scores: Sequence[Score], bare: frozenset[str]
    ) -> list[answers.FactClaim]:
        sentences = index.sentences
        first: dict[str, Score] = {}
        for score in scores:
            if score.question_id in bare and score.fused >= self._threshold * FIRST_FACT_SHARE:
                first.setdefault(score.question_id, score)
        above = [s for s in scores if s.fused >= self._threshold or first.get(s.question_id) is s]
        per_question: dict[str, int] = {}
        chosen: dict[int, float] = {}
        for score in above:
            if len(chosen) >= MAX_FACTS or score.sentence in chosen:
                continue
            if per_question.get(score.question_id, 0) >= FACTS_PER_QUESTION:
                continue
            if not _fit(sentences[score.sentence].plain):
                continue
            per_question[score.question_id] = per_question.get(score.question_id, 0) + 1
            chosen[score.sentence] = score.fused
        claims = []
        for number, fused in chosen.items():
            ids = sorted({s.question_id for s in above if s.sentence == number})
            claim, evidence = _claim(sentences, text, number)
            topic = _topic(index.title, sentences[number].heading)
            claims.append(
                answers.FactClaim(
                    claim=claim, evidence=evidence, checklist_ids=ids[:10], confidence=fused, topic=topic
                )
            )
        return claims

    async def discover_queries(
        self,
        goal: str,
        open_items: Sequence[ChecklistItem],
        done: Sequence[str],
        count: int,
        facts: Sequence[Fact] = (),
    ) -> Judged[answers.Queries]:
        started = time.monotonic()
        queries = discover(goal, open_items, facts, done, count) or [goal[:300]]
        return self._judged("discover_queries", answers.Queries(queries=queries[:10]), started)

    async def judge_completeness(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Completeness]:
        started = time.monotonic()
        satisfied = composing.settled(checklist, facts, self._threshold)
        return self._judged("completeness", answers.Completeness(satisfied=satisfied), started)

    async def compose(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Report]:
        started = time.monotonic()
        report = answers.Report(
            answers=composing.item_answers(checklist, facts), findings=composing.findings(checklist, facts)
        )
        return self._judged("compose", report, started)

    async def answer(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.SinglePassAnswer]:
        """The single-pass baseline's answer: the best facts of all pages for the question's parts,
        and each part's answer from them (fact ids F<k> naming the k-th citation)."""
        started = time.monotonic()
        items = [ChecklistItem(f"Q{n}", q) for n, q in enumerate(decompose(question, 10), start=1)]
        found: list[tuple[int, answers.FactClaim]] = []
        for number, page in enumerate(pages, start=1):
            analysis = await self.analyse(question, items, page)
            found += [(number, claim) for claim in analysis.facts]
        found.sort(key=lambda pair: -pair[1].confidence)
        kept = [(n, c) for n, c in found[:12] if n <= 99]
        citations = [answers.Citation(claim=c.claim, evidence=c.evidence, source=n) for n, c in kept]
        text = " ".join(c.claim for c in citations[: len(items) + 1])[:1500] or "The sources do not say."
        facts = [
            Fact(f"F{k}", c.claim, c.evidence, pages[n - 1].url, tuple(c.checklist_ids), c.confidence)
            for k, (n, c) in enumerate(kept, start=1)
        ]
        reply = answers.SinglePassAnswer(
            answer=text,
            citations=citations,
            parts=[i.question[:300] for i in items],
            answers=composing.item_answers(items, facts),
        )
        return self._judged("answer", reply, started)

    async def rerank(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.Relevance]:
        """Each passage scored by its best sentence for the question (BM25 within it, embedder
        similarity, answer-type match: the fused score of ``passages``), as 0-9."""
        started = time.monotonic()
        asked = [Question.of("Q1", question)]
        scores: list[float] = []
        for page in pages[: answers.MAX_RERANKED]:
            found = await score_sentences(_index_of(page), asked, self._embed, MAX_EMBEDDED)
            best = max((s.fused for s in found), default=0.0)
            scores.append(round(9.0 * min(1.0, max(0.0, best)), 4))
        return self._judged("rerank", answers.Relevance(scores=scores), started)

    async def grade(
        self, question: str, gold: str, aliases: Sequence[str], answer_text: str
    ) -> Judged[answers.Verdict]:
        started = time.monotonic()
        said = answer_match(answer_text, gold, aliases)
        verdict = answers.Verdict(
            verdict="correct" if said else "wrong",
            reason="answer match: the gold answer or an alias occurs in the answer (the evidence judge "
            "has no model to grade with)",
        )
        return self._judged("grade", verdict, started)


def _index_of(page: ExtractedPage) -> SentenceIndex:
    return SentenceIndex(split_sentences(page.text), page.title)


def _topic(title: str, heading: str) -> str:
    """Where a fact sits: the page's title and the heading above it (what the sentence leaves unsaid)."""
    title, heading = _TITLE_SUFFIX.sub("", " ".join(title.split())).rstrip("¶ "), heading.rstrip("¶ ")
    parts = [p for p in dict.fromkeys((title, heading)) if p]
    return " \u203a ".join(parts)[:80]


def _claim(sentences: Sequence[Sentence], text: str, index: int) -> tuple[str, str]:
    """The sentence as claim and evidence; the sentence before joins both when this one leans on it,
    and the line after when this one introduces it ("Use the following command to ...:" says what
    the command does, the command names what it uses)."""
    sentence = sentences[index]
    previous = sentences[index - 1] if index > 0 else None
    following = sentences[index + 1] if index + 1 < len(sentences) else None
    leans = sentence.text[:1].islower() or sentence.text.lower().startswith(_LEANING)
    if previous is not None and ((leans and not previous.is_heading) or defined_term(previous.plain)):
        joined = _joined(previous, sentence, text)
        if joined is not None:
            return joined
    introduces = sentence.plain.rstrip().endswith(":")
    if introduces and following is not None and not following.is_heading and _fit(following.plain):
        joined = _joined(sentence, following, text)
        if joined is not None:
            return joined
    return sentence.plain[:MAX_CLAIM_CHARS], sentence.text


def _fit(plain: str) -> bool:
    """Whether a sentence may be (part of) a fact: nothing instruction-like, no markup, link or
    secret (``unfit_for_fact``), no thanks or footer line."""
    return unfit_for_fact(plain) is None and not _BOILERPLATE.search(plain)


def _joined(first: Sentence, second: Sentence, text: str) -> tuple[str, str] | None:
    """Two neighbouring sentences as one claim and its evidence, None when that is too long."""
    evidence = text[first.start : second.end]
    claim = f"{first.plain} {second.plain}"
    return (
        (claim, evidence) if len(claim) <= MAX_CLAIM_CHARS and len(evidence) <= MAX_EVIDENCE_CHARS else None
    )


def _links(index: SentenceIndex, questions: Sequence[Question], page: ExtractedPage) -> list[int]:
    """Indices of the links whose anchor text and URL best match the open questions."""
    scored: list[tuple[float, int]] = []
    for n, link in enumerate(page.links[:MAX_LINKS_IN_PROMPT]):
        words = f"{link.text} {link.url.rsplit('/', 1)[-1].replace('_', ' ').replace('-', ' ')}"
        best = max(index.coverage(q.terms, words) for q in questions)
        if best >= MIN_LINK_SCORE:
            scored.append((best, n))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [n for _, n in scored[:MAX_LINKS]]


def open_statements(goal: str, checklist: Sequence[ChecklistItem]) -> list[ChecklistItem]:
    """The open items that are the goal's statements made items (``decompose.described``)."""
    return [i for i in checklist if not i.satisfied and is_described(goal, i.question)]


def _statement_lines(
    items: Sequence[ChecklistItem],
    index: SentenceIndex,
    text: str,
    kept: Sequence[answers.FactClaim],
    scores: Sequence[Score],
) -> list[answers.FactClaim]:
    """For each open item that is one of the goal's statements: the page's sentence holding the largest
    share of its terms (over ``STATEMENT_MATCH``), or the two neighbouring sentences that together hold
    more (``SentenceIndex.most_held``: a definition over two lines), kept for that item alone when not
    kept already. The embedder ranks first the lines that share the statement's standing words
    ("Officially added support for Python 3.10" for "Requests 2.28.0 added provisional support for a
    Python version still in beta"); the line that says the statement's rarer words ("Added
    provisional 3.11 support with current beta build") names what the goal leaves unnamed, the
    statement hop's lead. Kept for the statement's item only, it never answers what the goal asks."""
    said = {c.evidence for c in kept}
    found: list[answers.FactClaim] = []
    for item in items:
        held = index.most_held(statement_terms(item.question))
        if held is None or held[2] <= STATEMENT_MATCH:
            continue
        best, last, _ = held
        span = range(best, last + 1)
        if not all(_fit(index.sentences[n].plain) for n in span):
            continue
        pair = _joined(index.sentences[best], index.sentences[last], text) if last > best else None
        claim, evidence = pair or _claim(index.sentences, text, best)
        if evidence in said:
            continue
        topic = _topic(index.title, index.sentences[best].heading)
        fused = max((x.fused for x in scores if x.sentence in span and x.question_id == item.id), default=0.0)
        found.append(
            answers.FactClaim(
                claim=claim, evidence=evidence, checklist_ids=[item.id], confidence=fused, topic=topic
            )
        )
    return found
