"""The verifier's typed receipts: each fact's evidence checked against its page, as stored and as served.

A receipt says of one fact what was checked (``kind``: the page as the session stored it, or as
the site serves it now), of which value (the evidence quote), and whether it held (PASS or FAIL).
Checks may run again: the latest receipt per (fact, kind, value) wins, and a fact passes only when
every kind's latest receipt passes, so a PASS of one kind never hides a FAIL of another.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from fathom_ray.models import Fact
from fathom_ray.research.fact_ledger import evidence_in, normalise_for_match

_BULLET = re.compile(r"(^|\n)\s*[-*\u2022]\s+")  # a list item's mark, as the extractor writes it


class CheckKind(enum.StrEnum):
    STORED = "stored"  # the page's text as the session stored it
    SERVED = "served"  # the page as its site serves it now, fetched again


class Verdict(enum.StrEnum):
    PASS = "PASS"  # noqa: S105 (a verdict, not a password)
    FAIL = "FAIL"


@dataclass(frozen=True, slots=True)
class Receipt:
    fact_id: str
    kind: CheckKind
    value: str
    verdict: Verdict
    at: float
    detail: str = ""


def check(fact: Fact, kind: CheckKind, page_text: str | None, at: float, detail: str = "") -> Receipt:
    """A receipt for ``fact`` against ``page_text``; no text (not stored, or not fetched) fails."""
    if page_text is None:
        return Receipt(fact.id, kind, fact.evidence, Verdict.FAIL, at, detail or "no page text")
    held = (
        evidence_in(fact.evidence, page_text)
        if kind is CheckKind.STORED
        else served_in(fact.evidence, page_text)
    )
    verdict = Verdict.PASS if held else Verdict.FAIL
    return Receipt(fact.id, kind, fact.evidence, verdict, at, detail or ("" if held else "quote not on page"))


def served_in(evidence: str, page_text: str) -> bool:
    """Whether a page as served now still holds ``evidence``: its characters in order, spaces,
    table rules and list marks aside (the quote was cut from the extractor's text, which lays a
    page out with them; the served look reads the page's text as it comes)."""
    quote = _squeezed(_BULLET.sub("\n", evidence))
    return bool(quote) and quote in _squeezed_page(page_text)


@functools.lru_cache(maxsize=16)
def _squeezed_page(page_text: str) -> str:
    """A page's squeezed text, made once for all its facts (the verifier looks at each page's
    quotes one after another, before the browser and again for the receipts)."""
    return _squeezed(page_text)


def _squeezed(text: str) -> str:
    return "".join(normalise_for_match(text).replace("|", " ").split())


def latest(receipts: Iterable[Receipt]) -> dict[tuple[str, CheckKind, str], Receipt]:
    """The latest receipt per (fact, kind, value); on equal times the one listed later."""
    chosen: dict[tuple[str, CheckKind, str], Receipt] = {}
    for receipt in receipts:
        key = (receipt.fact_id, receipt.kind, receipt.value)
        if key not in chosen or receipt.at >= chosen[key].at:
            chosen[key] = receipt
    return chosen


def verdicts(receipts: Iterable[Receipt]) -> dict[str, Verdict]:
    """Per fact: FAIL when any kind's latest receipt fails, else PASS (facts without receipts absent)."""
    result: dict[str, Verdict] = {}
    for (fact_id, _, _), receipt in latest(receipts).items():
        failed = receipt.verdict is Verdict.FAIL or result.get(fact_id) is Verdict.FAIL
        result[fact_id] = Verdict.FAIL if failed else Verdict.PASS
    return result
