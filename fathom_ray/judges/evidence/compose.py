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

The answers are each item's typed span (``spans``) from its best fact: the fact whose evidence
best offers the answer type, then (for a version, date, person or number) the one that says most of
what the question is about ("assignment expressions", not another feature's "New in version 3.6"),
then the most confident; for a "which" question, the fact that says more of the sentence that asks
(past the statements before it, which the bridge's fact says), then among equals a fact that names
what it asks before one that offers a name in code's form (the term a reference page's description
defines among them: "inherit_errexit" over "If set, ..."), and that before one that offers a clause
alone, before a name's capitals or confidence count (a wrong name said beside the bridge is worse
than the sentence that answers); a person comes only
from a fact that says a word of the question itself. A version, date, person or number question
whose facts hold no such span has no answer. Another page's fact about the item that offers a
different value as well and nearly as confidently (or that the ledger marks as contradicting the
best) is the other value of a conflicting answer, unless its own evidence also holds the best one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from fathom_ray.judges.evidence.answer_types import TYPE_WORDS, AnswerType, expected_type, type_match
from fathom_ray.judges.evidence.decompose import question_sentences
from fathom_ray.judges.evidence.queries import FRAME_WORDS
from fathom_ray.judges.evidence.spans import code_span, name_span, term_span, typed_span
from fathom_ray.judges.evidence.terms import keywords, terms
from fathom_ray.judges.llm.answers import Finding, ItemAnswer
from fathom_ray.models import ChecklistItem, Fact

FINDINGS_PER_ITEM = 3
MAX_FINDINGS = 40
NEAR_DUPLICATE = 0.7
TYPE_BAR = 1.0
SETTLE_MARGIN = 0.2
CHECKABLE = frozenset((AnswerType.VERSION, AnswerType.DATE, AnswerType.PERSON, AnswerType.NUMBER))
CONFLICT_MARGIN = 0.1  # how much less confident than the best a conflicting fact may be
_BACK_REFERENCE = re.compile(r"\b(?:the|that|this|these|those)\s+([\w-]+)", re.I)
_ASKED_KIND = re.compile(r"\b(?:which|what)\s+([\w-]+)", re.I)


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


def item_answers(checklist: Sequence[ChecklistItem], facts: Sequence[Fact]) -> list[ItemAnswer]:
    """Each item's answer from its best fact's evidence, a multi-part goal's parts only."""
    whole = checklist[0].id if len(checklist) > 1 else None
    items = checklist[1:] if len(checklist) > 1 else checklist
    found = (_item_answer(item, facts, whole) for item in items)
    return [answer for answer in found if answer is not None]


def _item_answer(item: ChecklistItem, facts: Sequence[Fact], whole: str | None = None) -> ItemAnswer | None:
    """``whole``: the multi-part goal's item, whose facts may answer any part (a swarm's researcher
    links a fact to its own part and the goal: the version fact found for "which PEP" answers "which
    version" too)."""
    kind = expected_type(item.question)
    spans = [
        (f, s)
        for f in facts
        if (item.id in f.checklist_ids or (whole is not None and whole in f.checklist_ids))
        and (kind is not AnswerType.PERSON or _names_its_subject(f, item))
        if (s := typed_span(f.evidence, item.question, kind))
    ]
    if not spans:
        return None

    def unnamed(fact: Fact) -> int:
        """0: the fact names what a "which PEP" question asks; 1: it offers a name in code's form
        ("OVERRIDING SYSTEM VALUE"); 2: a clause alone."""
        if kind is not AnswerType.NAME or name_span(fact.evidence, item.question) is not None:
            return 0
        offered = term_span(fact.evidence, item.question) or code_span(fact.evidence, item.question)
        return 1 if offered is not None else 2

    named = kind is AnswerType.NAME  # a name's form says little (capitals): the asking sentence first
    subject = _subject_words(item.question) if kind in CHECKABLE or named else set()
    asking = _asking_words(item.question)

    def order(pair: tuple[Fact, str]) -> tuple[float | str, ...]:
        fact = pair[0]
        said = _said(fact.evidence)
        asks = -len(asking & said)  # what the asking sentence says, not its statements
        about = -len(subject & said)  # a value about what is asked: "assignment expressions"
        if named:  # the asking sentence, then a name, then one said with what is asked (PEP 498 ...)
            return (asks, unnamed(fact), about, -(type_match(fact.evidence, kind) or 0.0), *_rank(fact))
        return (unnamed(fact), -(type_match(fact.evidence, kind) or 0.0), about, asks, *_rank(fact))

    spans.sort(key=order)
    best, span = spans[0]
    twins = [f.id for f, s in spans[1:] if _same(s, span)][:3]
    other = _conflict(best, span, spans[1:], item.question)
    if other is None:
        return ItemAnswer(item=item.id, answer=span, fact_ids=[best.id, *twins])
    value = other[1]
    others = [f.id for f, s in spans[1:] if _same(s, value)][:4]
    return ItemAnswer(
        item=item.id, answer=span, fact_ids=[best.id, *twins], other_answer=value, other_fact_ids=others
    )


def _names_its_subject(fact: Fact, item: ChecklistItem) -> bool:
    """Whether a fact says a word of the question itself (before the context decomposition added):
    "Who wrote the PEP" is not answered by "The augmented assignment patch was implemented by
    Thomas Wouters", a person with no PEP in sight; nor, when the context says which PEP, by "PEP
    written by Guido van Rossum" under another PEP's heading, with none of the context's words. A
    question without such words passes."""
    own_text, _, context = item.question.partition(" (")
    own, said = _said(own_text), _said(fact.evidence)
    if own and not own & said:
        return False
    referred = {w.casefold() for w in _BACK_REFERENCE.findall(own_text)}
    if not context or not own & referred:
        return True
    # "the PEP" is the one the context names: "PEP written by ..." under another PEP will not do
    return bool(((own - referred) | _said(context.rstrip(")?"))) & said)


def _conflict(
    best: Fact, span: str, rest: Sequence[tuple[Fact, str]], question: str
) -> tuple[Fact, str] | None:
    """A fact of another page offering a different value of the type, or one the ledger says
    contradicts the best; None when the sources agree. A name is only rivalled by a name ("PEP
    572" by another PEP, never by a fact's first clause), and a value only by one that says as much
    of what is asked as the best does ("3.7" of asynchronous generator expressions does not rival
    "3.8" of assignment expressions)."""
    kind = expected_type(question)
    if kind not in CHECKABLE and kind is not AnswerType.NAME:
        return None
    match = type_match(best.evidence, kind) or 0.0
    subject = _subject_words(question)
    about = len(subject & _said(best.evidence))
    for fact, value in rest:
        if _same(value, span) or span.casefold() in fact.evidence.casefold():
            continue
        if kind is AnswerType.NAME and name_span(fact.evidence, question) is None:
            continue
        if not _about_its_subject(fact, question):  # "PEP 1" on PEPs at large rivals no "which PEP"
            continue
        if len(subject & _said(fact.evidence)) < about:  # "generator expressions" vs "assignment ..."
            continue
        contradicts = fact.id in best.contradicts or best.id in fact.contradicts
        rival = (
            fact.source_url != best.source_url
            and (type_match(fact.evidence, kind) or 0.0) >= match
            and fact.confidence >= best.confidence - CONFLICT_MARGIN
        )
        if contradicts or rival:
            return fact, value
    return None


def _about_its_subject(fact: Fact, question: str) -> bool:
    """Whether a fact says a word of what the question is about, past what kind of answer it wants
    ("introduced", "assignment", "expressions" of "Which PEP introduced assignment expressions?")."""
    own = _asked_words(question)
    return not own or bool(own & _said(fact.evidence))


def _subject_words(question: str) -> set[str]:
    """What a question is about, past the words that frame it too ("which Python version introduced
    assignment expressions": python, assignment, expressions)."""
    return _asked_words(question, FRAME_WORDS)


def _asked_words(question: str, framing: frozenset[str] = frozenset()) -> set[str]:
    """A question's own words (before the context decomposition added), past the kind of answer it
    wants ("which PEP", "version") and ``framing``."""
    asked = question.split(" (", 1)[0]
    head = _ASKED_KIND.search(asked)
    return _said(asked) - {*TYPE_WORDS, *framing, *([head.group(1).casefold()] if head else [])}


def _asking_words(question: str) -> set[str]:
    """The words of the sentence that asks, past those of the statements before it ("Debian Policy
    says scripts should start with a set option. Which shopt option makes command substitution
    inherit that option's value?": shopt, makes, command, substitution, ...): the fact that says
    them answers it; one that says the statements names the bridge. Of a goal's part made
    standalone, the statements are the context decomposition added in parentheses ("Which shopt
    option ... (Debian Policy shell scripts)?"). Empty for one sentence without context."""
    own, _, context = question.partition(" (")
    sentences = question_sentences(own)
    if len(sentences) < 2 and not context:
        return set()
    said_before = _said(" ".join([*sentences[:-1], context.rstrip(")?")]))
    return _asked_words(sentences[-1], FRAME_WORDS) - said_before


def _said(text: str) -> set[str]:
    return {w.casefold() for w in keywords(text)}


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())
