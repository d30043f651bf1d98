"""Source memory's rules over any vector store: what a visit does to its domain's productivity, and
which remembered pages to suggest. An engine gives four calls (read and write a domain's counts,
remember a page, find the nearest pages); fathom_ray/adapters/edge_memory.py (embedded) and
qdrant_memory.py (a Qdrant server) are the two.

Domain productivity is the Beta(1, 1)-smoothed rate of productive visits; a remembered page is
suggested with ``suggestion_score(cosine, domain quality)``.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from fathom_ray.research.ranking import domain_quality, suggestion_score
from fathom_ray.web.urls import domain_of

MIN_SIMILARITY = 0.3  # below this cosine a remembered page is not "related to the goal"
NAMESPACE = uuid.UUID("5b0f4f7e-4d0c-4a43-9b61-0f3f6c1c7a11")


@dataclass(frozen=True, slots=True)
class Suggestion:
    url: str
    title: str
    score: float


def point_id(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, key))


class SourceMemory(ABC):
    """The rules; an engine subclass stores the points."""

    @abstractmethod
    def start(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def _domains(self, ids: list[str]) -> list[dict[str, Any]]:
        """The stored domain payloads among ``ids``."""

    @abstractmethod
    def _put_domain(self, key: str, payload: dict[str, Any]) -> None: ...

    @abstractmethod
    def _put_page(self, key: str, vector: list[float], payload: dict[str, Any]) -> None: ...

    @abstractmethod
    def _nearest(
        self, vector: list[float], limit: int, skip: list[str]
    ) -> list[tuple[dict[str, Any], float]]:
        """The pages nearest ``vector`` (payload, cosine), none of ``skip``."""

    def domain_stats(self, domains: Iterable[str]) -> dict[str, tuple[float, int]]:
        wanted = list(dict.fromkeys(domains))
        found = {
            str(p["domain"]): (float(p["quality_sum"]), int(p["visits"]))
            for p in self._domains([point_id(d) for d in wanted])
        }
        return {d: found.get(d, (0.0, 0)) for d in wanted}

    def domain_qualities(self, domains: Iterable[str]) -> dict[str, float]:
        return {d: domain_quality(q, n) for d, (q, n) in self.domain_stats(domains).items()}

    def record_visit(self, url: str, signal: float) -> float:
        """Add one visit's productivity signal (0 to 1) to the URL's domain; returns its new quality."""
        domain = domain_of(url)
        quality_sum, visits = self.domain_stats([domain])[domain]
        quality_sum, visits = quality_sum + min(1.0, max(0.0, signal)), visits + 1
        self._put_domain(point_id(domain), {"domain": domain, "quality_sum": quality_sum, "visits": visits})
        return domain_quality(quality_sum, visits)

    def remember_page(self, url: str, title: str, vector: Sequence[float], fact_count: int) -> None:
        payload = {"url": url, "title": title, "domain": domain_of(url), "facts": fact_count}
        self._put_page(point_id(url), list(vector), payload)

    def suggest(self, vector: Sequence[float], limit: int, exclude: Iterable[str] = ()) -> list[Suggestion]:
        """Remembered pages related to ``vector``, best ``suggestion_score`` first."""
        skip = [point_id(url) for url in dict.fromkeys(exclude)]
        hits = self._nearest(list(vector), limit * 3, skip)  # re-ranked below by suggestion_score
        pages = [(p, s) for p, s in hits if s >= MIN_SIMILARITY]
        qualities = self.domain_qualities(str(p["domain"]) for p, _ in pages)
        suggestions = [
            Suggestion(
                str(p["url"]),
                str(p.get("title", "")),
                suggestion_score(max(0.0, s), qualities[str(p["domain"])]),
            )
            for p, s in pages
        ]
        return sorted(suggestions, key=lambda s: -s.score)[:limit]
