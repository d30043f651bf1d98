"""Source memory embedded in this process: Qdrant Edge, two shards under ``path``: ``pages``
(a page's vector, url, title, domain, facts) and ``domains`` (a domain's visit counts). The rules
are fathom_ray/adapters/memory_points.py's. One process holds the folder at a time; a write on a
full or read-only disk is refused with a StoreError (edge_documents.check_writable).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from fathom_ray.adapters.edge_documents import failing, open_shard, writing
from fathom_ray.adapters.memory_points import SourceMemory


class EdgeSourceMemory(SourceMemory):
    def __init__(self, path: Path, dimension: int) -> None:
        self._path = path
        self._dimension = dimension
        self._pages: qe.EdgeShard | None = None
        self._domain_shard: qe.EdgeShard | None = None
        self._lock = threading.RLock()

    def folder_exists(self) -> bool:
        return self._path.exists()

    def start(self) -> None:
        with self._lock:
            if self._pages is not None:
                return
            with failing(f"opening {self._path}"):
                pages = open_shard(
                    self._path / "pages",
                    qe.EdgeConfig(
                        vectors=qe.EdgeVectorParams(size=self._dimension, distance=qe.Distance.Cosine)
                    ),
                )
                try:
                    domains = open_shard(
                        self._path / "domains",
                        qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=1, distance=qe.Distance.Dot)),
                    )
                except BaseException:
                    pages.close()
                    raise
            self._pages, self._domain_shard = pages, domains

    def close(self) -> None:
        with self._lock:
            for shard in (self._pages, self._domain_shard):
                if shard is not None:
                    shard.flush()
                    shard.close()
            self._pages = self._domain_shard = None

    def put_points(self, pages: list[qe.Point], domains: list[qe.Point]) -> None:
        """Points copied from another store as they are (a migration)."""
        page_shard, domain_shard = self._shards
        with writing(self._lock, self._path, "copying points"):
            for shard, points in ((page_shard, pages), (domain_shard, domains)):
                if points:
                    shard.update(qe.UpdateOperation.upsert_points(points))
                shard.flush()

    @property
    def _shards(self) -> tuple[qe.EdgeShard, qe.EdgeShard]:
        self.start()
        assert self._pages is not None
        assert self._domain_shard is not None
        return self._pages, self._domain_shard

    def _domains(self, ids: list[str]) -> list[dict[str, Any]]:
        with self._lock, failing("reading domains"):
            found = self._shards[1].retrieve(list(ids), True, False)
        return [dict(r.payload) for r in found if r.payload]

    def _put_domain(self, key: str, payload: dict[str, Any]) -> None:
        with writing(self._lock, self._path, "writing a domain"):
            self._shards[1].update(qe.UpdateOperation.upsert_points([qe.Point(key, [1.0], payload)]))

    def _put_page(self, key: str, vector: list[float], payload: dict[str, Any]) -> None:
        with writing(self._lock, self._path, "writing a page"):
            self._shards[0].update(qe.UpdateOperation.upsert_points([qe.Point(key, vector, payload)]))

    def _nearest(
        self, vector: list[float], limit: int, skip: list[str]
    ) -> list[tuple[dict[str, Any], float]]:
        condition = qe.Filter(must_not=[qe.HasIdCondition(set(skip))]) if skip else None
        request = qe.QueryRequest(
            limit=limit, query=qe.Query.Nearest(vector), filter=condition, with_payload=True
        )
        with self._lock, failing("searching pages"):
            found = self._shards[0].query(request)
        return [(dict(p.payload), float(p.score)) for p in found if p.payload]
