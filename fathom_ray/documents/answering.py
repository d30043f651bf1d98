"""A documents answer in the research report's shape: the answer first, every claim cited inline.

The judge's reply (``SinglePassAnswer``: claims quoting numbered passages, the question's parts
and their spans) is held to the passages: a quote that is not in its passage is dropped, a quote
already cited is not cited again, and each part's span must occur in a quote it cites (the
research sessions' ``answer_sheet`` rule). The answer opens with a line per part ("3.35.0 [1]"),
then the claims, each with its ``[n]``; a question that asks for several obligations or steps is
answered by the enumerated list the first cited quote sits in (``lists``), an item a line, each
cited. The citations name each passage once: claims quoting one passage share one citation whose
evidence is the passage's text from the first quote to the last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fathom_ray.documents.lists import Listed
from fathom_ray.documents.models import DocumentHit
from fathom_ray.judges.llm.answers import SinglePassAnswer
from fathom_ray.models import ChecklistItem, Fact, JsonValue
from fathom_ray.research.answer_sheet import Answer, AnswerStatus, answer_sheet
from fathom_ray.research.fact_ledger import normalise_for_match

MAX_PASSAGES = 8
NOTHING = "No passage of the documents bears on the question."


@dataclass(frozen=True, slots=True)
class Cited:
    number: int  # the passage it cites, from 1
    claim: str
    evidence: str


@dataclass(frozen=True, slots=True)
class Quote:
    """A held claim: the passage it quotes (by source) and where in the passage's text."""

    source: str
    claim: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Line:
    """One answer line: a part's span, or one item of a listed answer, with the passages it cites."""

    item: str
    question: str
    status: AnswerStatus
    answer: str = ""
    passages: tuple[int, ...] = ()
    other_answer: str = ""
    other_passages: tuple[int, ...] = ()
    passages_read: int = 0


@dataclass(frozen=True, slots=True)
class Composed:
    text: str
    citations: tuple[Cited, ...]
    answers: tuple[Line, ...]
    passages: tuple[DocumentHit, ...]
    dropped: int = 0  # span claims not in any quote they cite


def held_quotes(reply: SinglePassAnswer, passages: Sequence[DocumentHit]) -> list[Quote | None]:
    """Each reply citation as a quote of its passage, or None where the passage does not hold it."""
    quotes: list[Quote | None] = []
    for citation in reply.citations:
        text = passages[citation.source - 1].chunk.text if 1 <= citation.source <= len(passages) else ""
        at = text.find(citation.evidence) if citation.evidence else -1
        source = passages[citation.source - 1].chunk.source if at >= 0 else ""
        quotes.append(Quote(source, citation.claim, at, at + len(citation.evidence)) if at >= 0 else None)
    return quotes


def compose(
    question: str,
    passages: Sequence[DocumentHit],
    reply: SinglePassAnswer,
    listed: Sequence[Listed] = (),
) -> Composed:
    """The answer to ``question``: ``listed`` items when given, else a line per part and the claims."""
    quotes = held_quotes(reply, passages)
    if listed:
        return _listed_answer(question, passages, listed)
    items = [ChecklistItem(f"Q{n}", q) for n, q in enumerate(reply.parts or [question], start=1)]
    by_source = {p.chunk.source: p for p in passages}
    facts = [
        Fact(f"F{k}", q.claim, by_source[q.source].chunk.text[q.start : q.end], q.source)
        for k, q in enumerate(quotes, start=1)
        if q is not None
    ]
    sheet = answer_sheet(items, reply.answers, facts, len(passages))
    fact_quotes = {f"F{k}": q for k, q in enumerate(quotes, start=1) if q is not None}
    shown = _shown([q for q in quotes if q is not None], sheet.answers, fact_quotes)
    twins = {_key(q): q for q in shown}  # a fact's quote as shown: the first of its words
    shown_quotes = {i: twins[_key(q)] for i, q in fact_quotes.items() if _key(q) in twins}
    kept = _kept_passages(passages, [q.source for q in shown])
    numbers = {p.chunk.source: n for n, p in enumerate(kept, start=1)}
    lines = [_line(a, shown_quotes, numbers) for a in sheet.answers]
    text = _text(lines, shown, numbers, several=len(lines) > 1)
    return Composed(text, _citations(shown, kept, numbers), tuple(lines), tuple(kept), sheet.dropped)


def _shown(quotes: Sequence[Quote], lines: Sequence[Answer], by_fact: Mapping[str, Quote]) -> list[Quote]:
    """The claims the answer says: the best few, and the first quote of each line's value and other value."""
    shown = _distinct(quotes)[: len(lines) + 1]
    wanted = [by_fact[ids[0]] for a in lines for ids in (a.fact_ids, a.other_fact_ids) if ids]
    return _distinct([*shown, *wanted])


def _distinct(quotes: Sequence[Quote]) -> list[Quote]:
    """The quotes without repeats: one whose words were already quoted (an overlapping chunk) is left out."""
    seen: set[str] = set()
    kept: list[Quote] = []
    for quote in quotes:
        if _key(quote) not in seen:
            seen.add(_key(quote))
            kept.append(quote)
    return kept


def _key(quote: Quote) -> str:
    return normalise_for_match(quote.claim).casefold()


def _kept_passages(
    passages: Sequence[DocumentHit], cited: Sequence[str], extra: Sequence[DocumentHit] = ()
) -> list[DocumentHit]:
    """The passages, then ``extra`` ones read for the answer, at most ``MAX_PASSAGES``: uncited
    passages make room from the end."""
    wanted = set(cited)
    room = MAX_PASSAGES - len(extra)
    uncited_room = room - sum(1 for p in passages if p.chunk.source in wanted)
    kept: list[DocumentHit] = []
    for passage in passages:
        if passage.chunk.source in wanted:
            kept.append(passage)
        elif uncited_room > 0:
            kept.append(passage)
            uncited_room -= 1
    return [*kept, *extra]


def _line(answer: Answer, quotes: Mapping[str, Quote], numbers: Mapping[str, int]) -> Line:
    def cited(ids: Sequence[str]) -> tuple[int, ...]:
        return tuple(dict.fromkeys(numbers[quotes[i].source] for i in ids if i in quotes))

    return Line(
        answer.item_id,
        answer.question,
        answer.status,
        answer.answer,
        cited(answer.fact_ids),
        answer.other_answer,
        cited(answer.other_fact_ids),
        answer.pages_read,
    )


def _markers(numbers: Sequence[int]) -> str:
    return "".join(f" [{n}]" for n in numbers)


def line_text(line: Line) -> str:
    """An answer line as the answer, the CLI and the page say it."""
    if line.status is AnswerStatus.NOT_FOUND:
        return f"not found in the {line.passages_read} passages read"
    said = f"{line.answer}{_markers(line.passages)}"
    if line.status is AnswerStatus.CONFLICTING:
        said += f"; other passages say {line.other_answer}{_markers(line.other_passages)}"
    return said


def _text(lines: Sequence[Line], shown: Sequence[Quote], numbers: Mapping[str, int], *, several: bool) -> str:
    if not shown and all(line.status is AnswerStatus.NOT_FOUND for line in lines):
        return "The passages do not say."
    heads = [f"{line.question} {line_text(line)}" if several else line_text(line) for line in lines]
    claims = " ".join(f"{_sentence(q.claim)} [{numbers[q.source]}]." for q in shown)
    return "\n".join([*heads, "", claims]) if claims else "\n".join(heads)


def _sentence(claim: str) -> str:
    return " ".join(claim.split()).rstrip(" .;,")


def _citations(
    shown: Sequence[Quote], kept: Sequence[DocumentHit], numbers: Mapping[str, int]
) -> tuple[Cited, ...]:
    """One citation per cited passage: its claims together, its text from the first quote to the last."""
    cited: list[Cited] = []
    for passage in kept:
        mine = [q for q in shown if q.source == passage.chunk.source]
        if mine:
            start, end = min(q.start for q in mine), max(q.end for q in mine)
            claims = " ".join(_sentence(q.claim) + "." for q in mine)
            cited.append(Cited(numbers[passage.chunk.source], claims, passage.chunk.text[start:end]))
    return tuple(cited)


def _listed_answer(question: str, passages: Sequence[DocumentHit], listed: Sequence[Listed]) -> Composed:
    """A line per list item, each citing a passage that holds it: one already cited when one does."""
    pool = {p.chunk.source: p for p in passages} | {x.hit.chunk.source: x.hit for x in listed}
    order = [p.chunk.source for p in passages] + [
        s for s in pool if s not in {p.chunk.source for p in passages}
    ]
    chosen: list[Quote] = []
    for item in listed:
        holders = [s for s in order if _holds(pool[s], item)]
        used = [q.source for q in chosen]
        source = next((s for s in holders if s in used), holders[0] if holders else item.hit.chunk.source)
        start = item.document_start - pool[source].chunk.start
        chosen.append(Quote(source, item.text, start, start + len(item.text)))
    originals = {p.chunk.source for p in passages}
    extra = [pool[s] for s in dict.fromkeys(q.source for q in chosen) if s not in originals]
    kept = _kept_passages(passages, [q.source for q in chosen], extra)
    numbers = {p.chunk.source: n for n, p in enumerate(kept, start=1)}
    lines = [
        Line(
            f"Q1.{n}",
            question,
            AnswerStatus.ANSWERED,
            _sentence(q.claim),
            (numbers[q.source],),
        )
        for n, q in enumerate(chosen, start=1)
    ]
    text = "\n".join(f"- {line.answer} [{line.passages[0]}]" for line in lines)
    return Composed(text, _citations(chosen, kept, numbers), tuple(lines), tuple(kept))


def _holds(hit: DocumentHit, item: Listed) -> bool:
    chunk = hit.chunk
    same = chunk.document_id == item.hit.chunk.document_id
    return same and chunk.start <= item.document_start and item.document_end <= chunk.end


def line_json(line: Line) -> dict[str, JsonValue]:
    """An answer line as ``fathom ask --json`` and ``POST /ask`` carry it (result.json's shape,
    passages in place of fact ids)."""
    data: dict[str, JsonValue] = {
        "item": line.item,
        "question": line.question,
        "answer": line.answer,
        "passages": list[JsonValue](line.passages),
        "status": line.status.value,
    }
    if line.status is AnswerStatus.CONFLICTING:
        data |= {"other_answer": line.other_answer, "other_passages": list[JsonValue](line.other_passages)}
    if line.status is AnswerStatus.NOT_FOUND:
        data["passages_read"] = line.passages_read
    return data


def unanswered(text: str, passages: Sequence[DocumentHit]) -> Composed:
    """No answer: ``text`` says why."""
    return Composed(text, (), (), tuple(passages))
