"""The analyst: the researchers' ledgers merged, grouped by checklist item, confirmations and conflicts.

Facts keep their wording and evidence; they are numbered afresh across the swarm (``F1``...) with
their agent and original id kept. Two facts about one subject (their words without the values
overlap by ``SAME_SUBJECT``) confirm each other when they come from different domains and state
the same values (versions, dates, numbers), and contradict each other when both state values of
one kind and share none: "added in 3.8" beside "added in 3.9"; the words that frame a value ("new
in version") are not part of a subject. Wording alone never confirms: two
pages that say the same thing in the same domain are one source.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from fathom_ray.judges.evidence.terms import terms
from fathom_ray.models import Fact
from fathom_ray.web.urls import domain_of

SAME_SUBJECT = 0.5
# stems of the words that introduce a value rather than name a subject
VALUE_FRAMES = frozenset(terms("new version changed added introduced released deprecated removed since see"))
_VALUES = {
    "version": re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+){0,2}(?![\w.]*\d)"),
    "date": re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    "year": re.compile(r"\b(?:19|20)\d{2}\b"),
}


@dataclass(frozen=True, slots=True)
class MergedFact:
    fact: Fact  # numbered afresh; confirms / contradicts name merged ids
    agent: str
    original_id: str


def values(text: str) -> dict[str, frozenset[str]]:
    """The values a sentence states, by kind (a date's year is not a year of its own)."""
    found = {kind: frozenset(p.findall(text)) for kind, p in _VALUES.items()}
    years_in_dates = {d[:4] for d in found["date"]}
    found["year"] = frozenset(found["year"] - years_in_dates)
    return {k: v for k, v in found.items() if v}


def _subject(text: str) -> set[str]:
    """What a sentence is about: its terms without its values and the words that frame a value
    ("New in version 3.8: ..." and "New in version 3.6: ..." are not one subject for that)."""
    plain = text
    for pattern in _VALUES.values():
        plain = pattern.sub(" ", plain)
    return {t for t in terms(plain) if not t.isdigit() and t not in VALUE_FRAMES}


def _overlap(a: set[str], b: set[str]) -> float:
    """The share of the smaller subject the other holds; two words at least where both have two."""
    shared = len(a & b)
    if not a or not b or shared < min(2, len(a), len(b)):
        return 0.0
    return shared / min(len(a), len(b))


def merge(ledgers: Sequence[tuple[str, Sequence[Fact]]]) -> list[MergedFact]:
    """The facts of every (agent, facts) ledger, numbered afresh, with confirmations and conflicts;
    a fact another agent also kept from the same page with the same evidence is kept once."""
    merged: list[MergedFact] = []
    seen: set[tuple[str, str]] = set()
    for agent, facts in ledgers:
        for fact in facts:
            key = (fact.source_url, " ".join(fact.evidence.split()).lower())
            if key in seen:
                continue
            seen.add(key)
            fresh = replace(fact, id=f"F{len(merged) + 1}", confirms=(), contradicts=())
            merged.append(MergedFact(fresh, agent, fact.id))
    return _relate(merged)


def _relate(merged: list[MergedFact]) -> list[MergedFact]:
    subjects = [_subject(m.fact.evidence) for m in merged]
    stated = [values(m.fact.evidence) for m in merged]
    confirms: dict[str, list[str]] = {m.fact.id: [] for m in merged}
    contradicts: dict[str, list[str]] = {m.fact.id: [] for m in merged}
    for i, a in enumerate(merged):
        for j in range(i + 1, len(merged)):
            b = merged[j]
            if _overlap(subjects[i], subjects[j]) < SAME_SUBJECT:
                continue
            shared_kinds = stated[i].keys() & stated[j].keys()
            if not shared_kinds:
                continue
            if any(not (stated[i][k] & stated[j][k]) for k in shared_kinds):
                contradicts[a.fact.id].append(b.fact.id)
                contradicts[b.fact.id].append(a.fact.id)
            elif domain_of(a.fact.source_url) != domain_of(b.fact.source_url):
                confirms[a.fact.id].append(b.fact.id)
                confirms[b.fact.id].append(a.fact.id)
    related = []
    for m in merged:
        mine = m.fact.id
        fact = replace(m.fact, confirms=tuple(confirms[mine]), contradicts=tuple(contradicts[mine]))
        related.append(replace(m, fact=fact))
    return related


def by_item(merged: Sequence[MergedFact], item_ids: Sequence[str]) -> dict[str, list[MergedFact]]:
    """Per checklist item, its facts: confirmed ones first, then by confidence."""
    groups: dict[str, list[MergedFact]] = {i: [] for i in item_ids}
    for m in merged:
        for item in m.fact.checklist_ids:
            if item in groups:
                groups[item].append(m)
    for facts in groups.values():
        facts.sort(key=lambda m: (-len(m.fact.confirms), -m.fact.confidence, m.fact.id))
    return groups
