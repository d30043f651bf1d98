"""Source memory on a Qdrant server (``FATHOM_QDRANT__URL``) through qdrant-client, or in its
local mode (what the embedded memory was before Qdrant Edge; read to migrate it). The rules are
fathom_ray/adapters/memory_points.py's; this is where the points go.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import UnexpectedResponse
from qdrant_client.models import Distance, Filter, HasIdCondition, PointStruct, Record, VectorParams

from fathom_ray.adapters.memory_points import SourceMemory, Suggestion
from fathom_ray.errors import StoreError
from fathom_ray.settings import QdrantSettings

__all__ = [
    "QDRANT_FAILURES",
    "QdrantSourceMemory",
    "Suggestion",
    "failing_as_store_error",
    "move_local_mode",
    "open_client",
]


# what a Qdrant client raises when its store fails: a server's answer, or local mode's files
# (its SQLite, on a disk gone read-only or full)
class Closing(Protocol):
    def close(self) -> None: ...


QDRANT_FAILURES = (UnexpectedResponse, RuntimeError, ValueError, OSError, sqlite3.Error)


@contextmanager
def failing_as_store_error(store: str) -> Iterator[None]:
    """A store's own failure as a ``StoreError`` naming the store (a session stops on it)."""
    try:
        yield
    except QDRANT_FAILURES as e:
        raise StoreError(store, f"{type(e).__name__}: {e}") from e


def move_local_mode(legacy: Path, kept_name: str, what: str, old: Closing, copy: Callable[[], None]) -> Path:
    """Run ``copy`` (reading the local-mode store ``old`` at ``legacy`` into its successor), close
    ``old``, then keep its folder beside, renamed ``kept_name``: nothing is deleted. A folder that
    cannot be read is a ``StoreError`` saying so, and stays where it was."""
    try:
        copy()
    except StoreError:
        raise
    except Exception as e:  # a local-mode folder we cannot read: say so, lose nothing
        raise StoreError("qdrant", f"could not read the earlier {what} at {legacy}: {e}") from e
    finally:
        old.close()
    kept = legacy.with_name(kept_name)
    legacy.rename(kept)
    return kept


def open_client(settings: QdrantSettings, path: Path) -> QdrantClient:
    """The Qdrant server of ``settings.url``, or embedded local mode under ``path``."""
    if settings.url:
        key = settings.api_key.get_secret_value() if settings.api_key else None
        return QdrantClient(url=settings.url, api_key=key)
    path.mkdir(parents=True, exist_ok=True)
    return QdrantClient(path=str(path))


class QdrantSourceMemory(SourceMemory):
    """On the Qdrant server of ``settings.url``, or in local mode under ``path`` (the embedded
    engine before Qdrant Edge, still read to migrate it)."""

    def __init__(self, settings: QdrantSettings, path: Path, dimension: int) -> None:
        self._settings = settings
        self._path = path
        self._dimension = dimension
        self._client: QdrantClient | None = None
        self._pages = settings.collection
        self._domain_collection = f"{settings.collection}_domains"

    def start(self) -> None:
        if self._client is not None:
            return
        try:
            self._client = open_client(self._settings, self._path)
            for name, size in ((self._pages, self._dimension), (self._domain_collection, 1)):
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

    def points(self, pages: bool) -> Iterator[Record]:
        """Every page point (with its vector) or every domain point (for a migration)."""
        collection = self._pages if pages else self._domain_collection
        offset = None
        while True:
            with failing_as_store_error("qdrant"):
                found, offset = self.client.scroll(
                    collection, limit=256, offset=offset, with_payload=True, with_vectors=pages
                )
            yield from found
            if offset is None:
                return

    def _domains(self, ids: list[str]) -> list[dict[str, Any]]:
        with failing_as_store_error("qdrant"):
            points = self.client.retrieve(self._domain_collection, ids, with_payload=True)
        return [dict(p.payload) for p in points if p.payload]

    def _put_domain(self, key: str, payload: dict[str, Any]) -> None:
        with failing_as_store_error("qdrant"):
            self.client.upsert(self._domain_collection, [PointStruct(id=key, vector=[1.0], payload=payload)])

    def _put_page(self, key: str, vector: list[float], payload: dict[str, Any]) -> None:
        with failing_as_store_error("qdrant"):
            self.client.upsert(self._pages, [PointStruct(id=key, vector=vector, payload=payload)])

    def _nearest(
        self, vector: list[float], limit: int, skip: list[str]
    ) -> list[tuple[dict[str, Any], float]]:
        with failing_as_store_error("qdrant"):
            hits = self.client.query_points(
                self._pages,
                query=vector,
                query_filter=Filter(must_not=[HasIdCondition(has_id=skip)]) if skip else None,
                limit=limit,
            ).points
        return [(dict(h.payload), float(h.score)) for h in hits if h.payload]
