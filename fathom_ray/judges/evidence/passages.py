"""Scoring a page's sentences against checklist questions: BM25 within the page, embedder similarity
and the answer-type match, fused into one score in [0, 1].

- **lexical**: Okapi BM25 of the question's terms over the page's sentences (each sentence with the
  terms of its heading), divided by the sum of the terms' IDF, which is what a sentence of average
  length holding each term once would score; clipped to 1. A term the page never uses counts with
  the IDF of the rarest term the page has, so a page that lacks the question's words scores lower.
  Blended with proximity: the share of the question's adjacent term pairs ("assignment
  expression") that the sentence or its heading holds side by side, so "augmented assignment
  operators" does not pass for "assignment expressions"; and with its window: the share of the
  question's terms in the sentences around it, so "(Contributed by Emily Morehouse.)" two lines
  after "the walrus operator" is read as part of that passage.
- **semantic**: cosine of the sentence (prefixed by its heading, cut to ``EMBEDDED_WORDS``) and
  the question, from the embedder, mapped from [``COSINE_FLOOR``, ``COSINE_FLOOR + COSINE_SPAN``] onto [0, 1].
- **type**: ``answer_types.type_match`` of the sentence for the question's expected type, or half
  that of its heading and the page's title when the sentence itself has none ("What's New In
  Python 3.8" answers a version question for the sentences under it).

BM25 narrows first: only the best ``max_embedded`` sentences of the page (by lexical and type
scores) are embedded, so the work per page stays bounded whatever the page's size.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from fathom_ray.judges.evidence.answer_types import TYPE_WORDS, AnswerType, expected_type, type_match
from fathom_ray.judges.evidence.decompose import asked_apart, question_sentences, subject_named
from fathom_ray.judges.evidence.sentences import Sentence
from fathom_ray.judges.evidence.terms import query_terms, terms
from fathom_ray.models import ChecklistItem

K1, B = 1.2, 0.75
COSINE_FLOOR, COSINE_SPAN = 0.1, 0.8
WEIGHTS = {"lexical": 0.35, "semantic": 0.45, "type": 0.2}
CONTEXT_TYPE_WEIGHT = 0.5  # an answer of the wanted type in the sentence's heading or the page title
LEXICAL_PER_QUESTION = 24
PHRASE_WEIGHT = 0.25
WINDOW_WEIGHT = 0.25
WINDOW = 2
MIN_FACT_WORDS = 5
MIN_HEADING_FACT_WORDS = 3
# The embedder reads at most this many words of a sentence (with its heading): the encoder's cost
# grows with the tokens, and a long table row or list says what it is about in its first words.
EMBEDDED_WORDS = 40

Embed = Callable[[Sequence[str]], Awaitable[list[list[float]]]]


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    kind: AnswerType
    terms: tuple[str, ...]
    subject: tuple[str, ...] = ()  # the terms of the one thing it asks about, of several in its item

    @classmethod
    def of(cls, item_id: str, text: str, subject: str = "") -> Question:
        """The question's terms leave out the words that name its answer type ("version", "date"):
        the type feature stands for them, and every release note would match them."""
        kind = expected_type(text)
        words = tuple(t for t in query_terms(text) if t not in TYPE_WORDS) or tuple(query_terms(text))
        return cls(item_id, text, kind, words, tuple(dict.fromkeys(terms(subject))))


def open_questions(checklist: Sequence[ChecklistItem]) -> list[Question]:
    """The checklist's open items as questions, all of them once every one is settled; an item
    about several things is asked of each apart, under the item's id, and an item of several
    sentences sentence by sentence ("Flask 2.2.0 raised the minimum version of its WSGI toolkit.
    On what date was that release published?"): a page that says one of them says part of the
    item, and the whole, matched at once, dilutes every sentence's words."""
    items = [i for i in checklist if not i.satisfied] or list(checklist)
    listed = [about for _, about in asked_apart(checklist[0].question) if about] if checklist else []
    return [
        Question.of(i.id, sentence, about or subject_named(asked, listed))
        for i in items
        for asked, about in asked_apart(i.question)
        for sentence in question_sentences(asked)
    ]


@dataclass(frozen=True, slots=True)
class Score:
    """How well one sentence answers one question."""

    question_id: str
    sentence: int
    fused: float
    lexical: float
    semantic: float
    type: float | None


class SentenceIndex:
    """BM25 statistics of one page's sentences (a sentence is a document)."""

    def __init__(self, sentences: Sequence[Sentence], title: str = "") -> None:
        self.sentences = list(sentences)
        self.title = title
        self._tf: list[Counter[str]] = []
        self._pairs: list[set[tuple[str, str]]] = []
        self._own: list[frozenset[str]] = []  # the sentence's own terms, without its heading's
        for sentence in self.sentences:
            own, heading = terms(sentence.text), terms(sentence.heading)
            self._own.append(frozenset(own))
            self._tf.append(Counter(own + heading))
            self._pairs.append({*pairwise(own), *pairwise(heading)})
        self._lengths = [sum(tf.values()) for tf in self._tf]
        self._average = (sum(self._lengths) / len(self._lengths) or 1.0) if self._lengths else 1.0
        self._postings: dict[str, list[int]] = {}
        for index, tf in enumerate(self._tf):
            for term in tf:
                self._postings.setdefault(term, []).append(index)
        total = len(self.sentences)
        self._rarest = self._idf(1, total)

    @staticmethod
    def _idf(df: int, total: int) -> float:
        return math.log(1 + (total - df + 0.5) / (df + 0.5))

    def idf(self, term: str) -> float:
        df = len(self._postings.get(term, ()))
        return self._idf(df, len(self.sentences)) if df else self._rarest

    def lexical(self, question_terms: Sequence[str]) -> dict[int, float]:
        """Lexical score of every sentence that holds, or sits beside one that holds, a question term:
        normalised BM25 of the sentence (with its heading), its share of the question's adjacent term
        pairs, and the IDF-weighted share of the question's terms in its window (``WINDOW`` sentences
        either side under the same heading), blended."""
        weights = {t: self.idf(t) for t in question_terms}
        total_weight = sum(weights.values())
        if not total_weight:
            return {}
        bm25: dict[int, float] = {}
        for term, idf in weights.items():
            for index in self._postings.get(term, ()):
                tf = self._tf[index][term]
                norm = K1 * (1 - B + B * self._lengths[index] / self._average)
                bm25[index] = bm25.get(index, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
        pairs = set(pairwise(question_terms))
        near = {j for i in bm25 for j in self._window(i)}
        scores: dict[int, float] = {}
        for i in near:
            own = min(1.0, bm25.get(i, 0.0) / total_weight)
            phrase = len(pairs & self._pairs[i]) / len(pairs) if pairs else own
            seen = {t for j in self._window(i) for t in self._tf[j]}
            window = sum(w for t, w in weights.items() if t in seen) / total_weight
            scores[i] = (
                (1 - PHRASE_WEIGHT - WINDOW_WEIGHT) * own + PHRASE_WEIGHT * phrase + WINDOW_WEIGHT * window
            )
        return scores

    def most_held(self, wanted: frozenset[str]) -> tuple[int, int, float] | None:
        """The first span of one sentence, or two neighbours under one heading, holding the largest
        share of ``wanted`` in its own words (not its heading's): (first, last, share), a single
        sentence where it holds as much as the pair. A definition says one thing over two sentences
        ("Information returned by distutils.sysconfig... or computed from ...". "If package
        distutils.sysconfig is not available, sysconfig... are used."). None for a page without
        sentences or nothing wanted."""
        if not wanted or not self._own:
            return None
        held = [len(wanted & own) for own in self._own]
        spans = [(count, -n, n) for n, count in enumerate(held)]  # (held, -first, last)
        for n in range(len(self._own) - 1):
            if not self._neighbours(n, n + 1):
                continue
            both = len(wanted & (self._own[n] | self._own[n + 1]))
            if both > max(held[n], held[n + 1]):  # the pair adds words: it never ties its own sentence
                spans.append((both, -n, n + 1))
        count, first, last = max(spans)
        return -first, last, count / len(wanted)

    def _neighbours(self, first: int, second: int) -> bool:
        one, two = self.sentences[first], self.sentences[second]
        return one.heading == two.heading and not one.is_heading and not two.is_heading

    def _window(self, index: int) -> list[int]:
        heading = self.sentences[index].heading
        low, high = max(0, index - WINDOW), min(len(self.sentences), index + WINDOW + 1)
        return [j for j in range(low, high) if self.sentences[j].heading == heading]

    def names(self, subject: Sequence[str], index: int) -> bool:
        """Whether the sentence, its neighbours under its heading, its heading or the page's title
        hold ``subject``'s terms, all of two, all but one of three or more (any sentence does for no
        subject): "Bran Castle" is not named on the page of Himeji Castle."""
        if not subject:
            return True
        seen = {t for j in self._window(index) for t in self._tf[j]} | set(terms(self.title))
        missing = sum(t not in seen for t in subject)
        return missing <= (len(subject) - 1) // 2

    def coverage(self, question_terms: Sequence[str], text: str) -> float:
        """IDF-weighted share of the question's terms that ``text`` holds (for links and titles)."""
        weights = {t: self.idf(t) for t in question_terms}
        total = sum(weights.values())
        present = set(terms(text))
        return sum(w for t, w in weights.items() if t in present) / total if total else 0.0


def fuse(lexical: float, semantic: float | None, kind_match: float | None) -> float:
    parts = [(WEIGHTS["lexical"], lexical)]
    if semantic is not None:
        parts.append((WEIGHTS["semantic"], semantic))
    if kind_match is not None:
        parts.append((WEIGHTS["type"], kind_match))
    return sum(w * v for w, v in parts) / sum(w for w, _ in parts)


def candidates(
    index: SentenceIndex, questions: Sequence[Question], limit: int
) -> tuple[list[int], dict[tuple[int, int], float]]:
    """The sentences worth embedding (best lexical-and-type first, at most ``limit``) and every
    (question's place in ``questions``, sentence) lexical score."""
    lexical: dict[tuple[int, int], float] = {}
    best: dict[int, float] = {}
    for qi, question in enumerate(questions):
        scores = index.lexical(question.terms)
        ranked = sorted(
            scores,
            key=lambda i: -(scores[i] + 0.3 * (_type_score(index, i, question.kind) or 0.0)),
        )
        for rank, i in enumerate(ranked):
            lexical[(qi, i)] = scores[i]
            if rank < LEXICAL_PER_QUESTION and _fact_like(index.sentences[i]):
                best[i] = max(best.get(i, 0.0), scores[i] + 1.0 / (rank + 2))
    chosen = sorted(best, key=lambda i: -best[i])[:limit]
    return sorted(chosen), lexical


def _type_score(index: SentenceIndex, i: int, kind: AnswerType) -> float | None:
    sentence = index.sentences[i]
    own = type_match(sentence.plain, kind)
    if own is None or own > 0:
        return own
    context = type_match(f"{index.title}. {sentence.heading}", kind) or 0.0
    return CONTEXT_TYPE_WEIGHT * context


def _fact_like(sentence: Sentence) -> bool:
    """A sentence of some length, or a short line that states a number ("Release date: 2022-10-13",
    "New in version 3.11"); a heading of words alone ("Assignment expressions") is context only."""
    words = len(sentence.text.split())
    if sentence.is_heading:
        return words >= MIN_HEADING_FACT_WORDS and any(c.isdigit() for c in sentence.text)
    return words >= MIN_FACT_WORDS


async def score_sentences(
    index: SentenceIndex, questions: Sequence[Question], embed: Embed | None, max_embedded: int
) -> list[Score]:
    """Fused scores of the narrowed sentences against every question, best first."""
    if not questions or not index.sentences:
        return []
    chosen, lexical = candidates(index, questions, max_embedded)
    if not chosen:
        return []
    semantic = await _similarities(index, questions, chosen, embed)
    scores: list[Score] = []
    for qi, question in enumerate(questions):
        for ci, i in enumerate(chosen):
            if not index.names(question.subject, i):
                continue  # about another of the item's things
            lex = lexical.get((qi, i), 0.0)
            sem = None if semantic is None else float(semantic[ci, qi])
            kind = _type_score(index, i, question.kind)
            scores.append(Score(question.id, i, round(fuse(lex, sem, kind), 4), lex, sem or 0.0, kind))
    scores.sort(key=lambda s: (-s.fused, s.sentence))
    return scores


async def _similarities(
    index: SentenceIndex, questions: Sequence[Question], chosen: Sequence[int], embed: Embed | None
) -> np.ndarray | None:
    if embed is None:
        return None
    texts = [_with_heading(index.sentences[i]) for i in chosen]
    vectors = await embed([*texts, *(q.text for q in questions)])
    matrix = np.asarray(vectors, dtype=np.float64)
    cosine = matrix[: len(texts)] @ matrix[len(texts) :].T
    return np.clip((cosine - COSINE_FLOOR) / COSINE_SPAN, 0.0, 1.0)


def _with_heading(sentence: Sentence) -> str:
    text = sentence.plain
    if sentence.heading and sentence.heading not in sentence.text:
        text = f"{sentence.heading}: {text}"
    words = text.split()
    return " ".join(words[:EMBEDDED_WORDS]) if len(words) > EMBEDDED_WORDS else text


def lexical_best(index: SentenceIndex, questions: Sequence[Question]) -> dict[int, float]:
    """Each sentence's best lexical-and-type score over the questions (no embedder: cheap)."""
    best: dict[int, float] = {}
    for question in questions:
        for i, lexical in index.lexical(question.terms).items():
            kind = _type_score(index, i, question.kind)
            best[i] = max(best.get(i, 0.0), fuse(lexical, None, kind))
    return best
