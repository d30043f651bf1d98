"""Completeness and the report, from kept facts alone: nothing is written that no fact says.

An item is settled when a kept fact linked to it clears the threshold by ``SETTLE_MARGIN`` and
offers in its own words the answer type the question wants (a version, a date, a person, a
number). A question whose answer has no such surface form (a name, a definition, yes or no)
is never settled by the evidence judge: a sentence that matches its words cannot show that it
answers it ("which commands of that other engine" is matched as well by this engine's page),
so the session keeps its budget for it. Settling stops the session, so the bar is above the
one for keeping a fact. A multi-part goal (the first item, when others follow) is settled when
every other item is. The findings are each item's best facts, near-duplicates merged into one
finding that cites them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from fathom_ray.evidence.answer_types import AnswerType, expected_type, type_match
from fathom_ray.evidence.terms import terms
from fathom_ray.llm.answers import Finding
from fathom_ray.models import ChecklistItem, Fact

FINDINGS_PER_ITEM = 3
MAX_FINDINGS = 40
NEAR_DUPLICATE = 0.7
TYPE_BAR = 1.0
SETTLE_MARGIN = 0.2
CHECKABLE = frozenset((AnswerType.VERSION, AnswerType.DATE, AnswerType.PERSON, AnswerType.NUMBER))


def answers_item(fact: Fact, item: ChecklistItem, threshold: float) -> bool:
    if item.id not in fact.checklist_ids:
        return False
    kind = expected_type(item.question)
    if kind not in CHECKABLE:
        return False
    match = type_match(fact.evidence, kind) or 0.0
    return fact.confidence >= threshold + SETTLE_MARGIN and match >= TYPE_BAR


def settled(checklist: Sequence[ChecklistItem], facts: Sequence[Fact], threshold: float) -> list[str]:
    """Ids of the items a kept fact answers; the goal item (when others follow) once all the others
    are, and not before: a fact answering one part of a multi-part goal does not answer the goal."""
    if len(checklist) <= 1:
        return [i.id for i in checklist if any(answers_item(f, i, threshold) for f in facts)]
    goal, parts = checklist[0], checklist[1:]
    done = [i.id for i in parts if any(answers_item(f, i, threshold) for f in facts)]
    return [goal.id, *done] if len(done) == len(parts) else done


def findings(checklist: Sequence[ChecklistItem], facts: Sequence[Fact]) -> list[Finding]:
    """Per item, in checklist order, its best facts; a fact is reported once, its duplicates cited with it."""
    ordered = [*checklist[1:], *checklist[:1]] if len(checklist) > 1 else list(checklist)
    used: set[str] = set()
    result: list[Finding] = []
    for item in ordered:
        mine = sorted((f for f in facts if item.id in f.checklist_ids and f.id not in used), key=_rank)
        for fact in mine[:FINDINGS_PER_ITEM]:
            if fact.id in used:
                continue
            twins = [f for f in facts if f.id not in used and f.id != fact.id and _similar(f, fact)]
            ids = [fact.id, *(f.id for f in twins)][:8]
            used.update(ids)
            result.append(Finding(sentence=fact.claim[:600], fact_ids=ids))
    return result[:MAX_FINDINGS]


def _rank(fact: Fact) -> tuple[float, str]:
    return (-fact.confidence, fact.id)


def _similar(a: Fact, b: Fact) -> bool:
    left, right = set(terms(a.evidence)), set(terms(b.evidence))
    if not left or not right:
        return False
    return len(left & right) / len(left | right) >= NEAR_DUPLICATE
