"""Source memory in Qdrant: page vectors for suggestions and domain productivity across sessions.

Embedded local mode (``path=``) by default, one owning process per path; a
Qdrant server with ``FATHOM_QDRANT__URL``. Domain productivity is the
Beta(1, 1)-smoothed rate of productive visits; a remembered page is suggested
with ``suggestion_score(cosine, domain quality)``.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import UnexpectedResponse
from qdrant_client.models import Distance, Filter, HasIdCondition, PointStruct, VectorParams

from fathom_ray.errors import StoreError
from fathom_ray.ranking import domain_quality, suggestion_score
from fathom_ray.settings import QdrantSettings
from fathom_ray.urls import domain_of

MIN_SIMILARITY = 0.3  # below this cosine a remembered page is not "related to the goal"
NAMESPACE = uuid.UUID("5b0f4f7e-4d0c-4a43-9b61-0f3f6c1c7a11")


@dataclass(frozen=True, slots=True)
class Suggestion:
    url: str
    title: str
    score: float


# what a Qdrant client raises when its store fails: a server's answer, or local mode's files
# (its SQLite, on a disk gone read-only or full)
QDRANT_FAILURES = (UnexpectedResponse, RuntimeError, ValueError, OSError, sqlite3.Error)


@contextmanager
def failing_as_store_error(store: str) -> Iterator[None]:
    """A store's own failure as a ``StoreError`` naming the store (a session stops on it)."""
    try:
        yield
    except QDRANT_FAILURES as e:
        raise StoreError(store, f"{type(e).__name__}: {e}") from e


def open_client(settings: QdrantSettings, path: Path) -> QdrantClient:
    """The Qdrant server of ``settings.url``, or embedded local mode under ``path``."""
    if settings.url:
        key = settings.api_key.get_secret_value() if settings.api_key else None
        return QdrantClient(url=settings.url, api_key=key)
    path.mkdir(parents=True, exist_ok=True)
    return QdrantClient(path=str(path))


def _point_id(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, key))


class QdrantSourceMemory:
    def __init__(self, settings: QdrantSettings, path: Path, dimension: int) -> None:
        self._settings = settings
        self._path = path
        self._dimension = dimension
        self._client: QdrantClient | None = None
        self._pages = settings.collection
        self._domains = f"{settings.collection}_domains"

    def start(self) -> None:
        if self._client is not None:
            return
        try:
            self._client = open_client(self._settings, self._path)
            for name, size in ((self._pages, self._dimension), (self._domains, 1)):
                if not self._client.collection_exists(name):
                    self._client.create_collection(
                        name, vectors_config=VectorParams(size=size, distance=Distance.COSINE)
                    )
        except QDRANT_FAILURES as e:
            raise StoreError("qdrant", str(e)) from e

    @property
    def client(self) -> QdrantClient:
        self.start()
        assert self._client is not None
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def domain_stats(self, domains: Iterable[str]) -> dict[str, tuple[float, int]]:
        wanted = list(dict.fromkeys(domains))
        with failing_as_store_error("qdrant"):
            points = self.client.retrieve(self._domains, [_point_id(d) for d in wanted], with_payload=True)
        found = {
            str(p.payload["domain"]): (float(p.payload["quality_sum"]), int(p.payload["visits"]))
            for p in points
            if p.payload
        }
        return {d: found.get(d, (0.0, 0)) for d in wanted}

    def domain_qualities(self, domains: Iterable[str]) -> dict[str, float]:
        return {d: domain_quality(q, n) for d, (q, n) in self.domain_stats(domains).items()}

    def record_visit(self, url: str, signal: float) -> float:
        """Add one visit's productivity signal (0 to 1) to the URL's domain; returns its new quality."""
        domain = domain_of(url)
        quality_sum, visits = self.domain_stats([domain])[domain]
        quality_sum, visits = quality_sum + min(1.0, max(0.0, signal)), visits + 1
        payload = {"domain": domain, "quality_sum": quality_sum, "visits": visits}
        point = PointStruct(id=_point_id(domain), vector=[1.0], payload=payload)
        with failing_as_store_error("qdrant"):
            self.client.upsert(self._domains, [point])
        return domain_quality(quality_sum, visits)

    def remember_page(self, url: str, title: str, vector: Sequence[float], fact_count: int) -> None:
        payload = {"url": url, "title": title, "domain": domain_of(url), "facts": fact_count}
        with failing_as_store_error("qdrant"):
            self.client.upsert(
                self._pages, [PointStruct(id=_point_id(url), vector=list(vector), payload=payload)]
            )

    def suggest(self, vector: Sequence[float], limit: int, exclude: Iterable[str] = ()) -> list[Suggestion]:
        """Remembered pages related to ``vector``, best ``suggestion_score`` first."""
        skip = [_point_id(url) for url in dict.fromkeys(exclude)]
        with failing_as_store_error("qdrant"):
            hits = self.client.query_points(
                self._pages,
                query=list(vector),
                query_filter=Filter(must_not=[HasIdCondition(has_id=skip)]) if skip else None,
                limit=limit * 3,  # re-ranked below by suggestion_score
            ).points
        pages = [(h.payload, float(h.score)) for h in hits if h.payload and h.score >= MIN_SIMILARITY]
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
