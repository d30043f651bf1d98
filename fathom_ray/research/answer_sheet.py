"""The answers: one per checklist item, its span verbatim from the fact it cites, whatever judge wrote it.

A judge claims answers (``ItemAnswer``: item, span, fact ids, and where sources disagree the
other value with its facts). The sheet holds each claim to one mechanical rule: the span occurs in
the evidence of a fact it cites, after the ledger's normalisation and case folding. A claim that
breaks it is dropped and counted, a cited fact that does not hold the span is uncited, and an
item with no kept claim is "not found" with the pages read and the queries tried. Where a
multi-part goal heads the checklist (its first item, others following), the goal is answered by
its parts' lines, not by a span of its own.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from fathom_ray.judges.llm.answers import ItemAnswer
from fathom_ray.models import ChecklistItem, Fact, JsonValue
from fathom_ray.research.fact_ledger import normalise_for_match

MAX_TRIED = 3  # queries a "not found" line names


class AnswerStatus(enum.StrEnum):
    ANSWERED = "answered"
    CONFLICTING = "conflicting"
    NOT_FOUND = "not_found"


@dataclass(frozen=True, slots=True)
class Answer:
    """One checklist item's answer; ``pages_read`` and ``tried`` say what a "not found" rests on."""

    item_id: str
    question: str
    status: AnswerStatus
    answer: str = ""
    fact_ids: tuple[str, ...] = ()
    other_answer: str = ""
    other_fact_ids: tuple[str, ...] = ()
    pages_read: int = 0
    tried: tuple[str, ...] = ()

    @property
    def found(self) -> bool:
        return self.status is not AnswerStatus.NOT_FOUND


@dataclass(frozen=True, slots=True)
class AnswerSheet:
    answers: tuple[Answer, ...] = ()
    dropped: int = 0  # claims whose span is in none of their cited facts' evidence, or name no item


def answered_items(checklist: Sequence[ChecklistItem]) -> list[ChecklistItem]:
    """The items that get an answer line: the parts of a multi-part goal, or the goal alone."""
    return list(checklist[1:]) if len(checklist) > 1 else list(checklist)


def answer_sheet(
    checklist: Sequence[ChecklistItem],
    claims: Sequence[ItemAnswer],
    facts: Sequence[Fact],
    pages_read: int,
    tried: Sequence[str] = (),
) -> AnswerSheet:
    """Every answered item's answer from the judge's claims, each held to its cited evidence."""
    by_id = {f.id: f for f in facts}
    items = answered_items(checklist)
    wanted = {i.id for i in items}
    kept: dict[str, ItemAnswer] = {}
    dropped = 0
    for claim in claims:
        checked = _checked(claim, by_id)
        if checked is None or claim.item not in wanted:
            dropped += 1
        else:
            kept.setdefault(claim.item, checked)
    not_found = Answer("", "", AnswerStatus.NOT_FOUND, pages_read=pages_read, tried=tuple(tried[-MAX_TRIED:]))
    answers = tuple(
        _answer(i, kept[i.id]) if i.id in kept else replace(not_found, item_id=i.id, question=i.question)
        for i in items
    )
    return AnswerSheet(answers, dropped)


def faithful_ids(span: str, fact_ids: Iterable[str], facts: Mapping[str, Fact]) -> list[str]:
    """The cited facts whose evidence holds ``span`` (normalised, case folded)."""
    needle = normalise_for_match(span).casefold()
    if not needle:
        return []
    return [i for i in dict.fromkeys(fact_ids) if i in facts and needle in _haystack(facts[i])]


def _haystack(fact: Fact) -> str:
    return normalise_for_match(fact.evidence).casefold()


def _checked(claim: ItemAnswer, facts: Mapping[str, Fact]) -> ItemAnswer | None:
    """The claim cut to the facts that hold its spans; None when none holds the answer."""
    ids = faithful_ids(claim.answer, claim.fact_ids, facts)
    if not ids:
        return None
    other_ids = faithful_ids(claim.other_answer, claim.other_fact_ids, facts) if claim.other_answer else []
    differs = (
        normalise_for_match(claim.other_answer).casefold() != normalise_for_match(claim.answer).casefold()
    )
    other = claim.other_answer if other_ids and differs else ""
    return claim.model_copy(
        update={"fact_ids": ids, "other_answer": other, "other_fact_ids": other_ids if other else []}
    )


def _answer(item: ChecklistItem, claim: ItemAnswer) -> Answer:
    status = AnswerStatus.CONFLICTING if claim.other_answer else AnswerStatus.ANSWERED
    answer = " ".join(claim.answer.split())
    other = " ".join(claim.other_answer.split())
    return Answer(
        item.id, item.question, status, answer, tuple(claim.fact_ids), other, tuple(claim.other_fact_ids)
    )


def ticked(checklist: Sequence[ChecklistItem], answers: Sequence[Answer]) -> list[ChecklistItem]:
    """The checklist with every answered item ticked, and a multi-part goal once all its parts are."""
    found = {a.item_id for a in answers if a.found}
    parts = answered_items(checklist)
    goal_done = len(checklist) > 1 and all(i.id in found for i in parts)
    return [
        replace(i, satisfied=True) if i.id in found or (n == 0 and goal_done) else i
        for n, i in enumerate(checklist)
    ]


def to_json(answer: Answer) -> dict[str, JsonValue]:
    """An answer as result.json, the API and the events carry it."""
    data: dict[str, JsonValue] = {
        "item": answer.item_id,
        "question": answer.question,
        "answer": answer.answer,
        "fact_ids": list[JsonValue](answer.fact_ids),
        "status": answer.status.value,
    }
    if answer.status is AnswerStatus.CONFLICTING:
        data |= {
            "other_answer": answer.other_answer,
            "other_fact_ids": list[JsonValue](answer.other_fact_ids),
        }
    if answer.status is AnswerStatus.NOT_FOUND:
        data |= {"pages_read": answer.pages_read, "tried": list[JsonValue](answer.tried)}
    return data


def from_json(data: Mapping[str, object]) -> Answer:
    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key)
        return tuple(str(v) for v in value) if isinstance(value, list) else ()

    pages = data.get("pages_read", 0)
    return Answer(
        item_id=str(data.get("item", "")),
        question=str(data.get("question", "")),
        status=AnswerStatus(str(data.get("status", AnswerStatus.NOT_FOUND.value))),
        answer=str(data.get("answer", "")),
        fact_ids=strings("fact_ids"),
        other_answer=str(data.get("other_answer", "")),
        other_fact_ids=strings("other_fact_ids"),
        pages_read=pages if isinstance(pages, int) else 0,
        tried=strings("tried"),
    )
