"""The fact ledger: facts whose verbatim evidence really occurs in the page they cite.

A fact the judge reports is kept only when its evidence occurs in the
extracted text of its page after Unicode and whitespace normalisation (a
mechanical integrity check, not judgement), and when neither its claim nor
its evidence is instruction-like or holds markup, an image, an active link or
a secret (``untrusted.unfit_for_fact``), whatever judge reported it; the
others are counted as rejected and never reach the findings.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from fathom_ray.llm.answers import PageAnalysis
from fathom_ray.models import ExtractedPage, Fact
from fathom_ray.untrusted import unfit_for_fact

_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
_SPACE = re.compile(r"\s+")


def normalise_for_match(text: str) -> str:
    """NFKC, typographic quotes and dashes made plain, whitespace collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip()


def _unfit(claim: str, evidence: str) -> bool:
    return unfit_for_fact(claim) is not None or unfit_for_fact(evidence) is not None


def evidence_in(evidence: str, page_text: str) -> bool:
    quote = normalise_for_match(evidence)
    return bool(quote) and quote in normalise_for_match(page_text)


@dataclass(slots=True)
class FactLedger:
    facts: list[Fact] = field(default_factory=list)
    rejected: int = 0

    def next_id(self) -> str:
        return f"F{len(self.facts) + 1}"

    def add_analysis(
        self, analysis: PageAnalysis, page: ExtractedPage, checklist_ids: Iterable[str]
    ) -> tuple[list[Fact], int]:
        """Keep the facts of one analysed page whose evidence is on it; returns (kept, rejected)."""
        known_checklist = set(checklist_ids)
        known_facts = {f.id for f in self.facts}
        kept: list[Fact] = []
        rejected = 0
        for claim in analysis.facts:
            if not evidence_in(claim.evidence, page.text) or _unfit(claim.claim, claim.evidence):
                rejected += 1
                continue
            fact = Fact(
                id=self.next_id(),
                claim=claim.claim.strip(),
                evidence=claim.evidence.strip(),
                source_url=page.url,
                checklist_ids=tuple(i for i in claim.checklist_ids if i in known_checklist),
                confidence=claim.confidence,
                topic=claim.topic,
                confirms=tuple(i for i in analysis.confirms if i in known_facts),
                contradicts=tuple(i for i in analysis.contradicts if i in known_facts),
            )
            self.facts.append(fact)
            kept.append(fact)
        self.rejected += rejected
        return kept, rejected

    def by_id(self) -> dict[str, Fact]:
        return {f.id: f for f in self.facts}

    def cited(self, ids: Sequence[str]) -> list[Fact]:
        known = self.by_id()
        return [known[i] for i in ids if i in known]
