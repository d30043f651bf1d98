"""The document store in Qdrant: chunks with a dense and a sparse (BM25, IDF applied by Qdrant)
vector, hybrid search as one query (two prefetches fused by Reciprocal Rank Fusion).

Two collections: ``<name>_chunks`` (the points searched) and ``<name>`` (one record per document:
title, source, content hash, flags). A document's record is written first marked incomplete, then
its chunks, then the record marked complete; ``start`` removes whatever an interrupted ``put`` left
(incomplete records and their chunks), so nothing half-ingested survives. Deleting a document's
chunks is one call (a payload filter). Embedded local mode (``path=``) by default, a server with
``FATHOM_QDRANT__URL``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import UnexpectedResponse
from qdrant_client.models import (
    Distance,
    FieldCondition,
    Filter,
    FilterSelector,
    Fusion,
    FusionQuery,
    MatchValue,
    Modifier,
    PointStruct,
    Prefetch,
    SparseVector,
    SparseVectorParams,
    VectorParams,
)

from fathom_ray.adapters.qdrant_memory import open_client
from fathom_ray.documents.models import Chunk, Document, DocumentHit
from fathom_ray.documents.sparse import document_vector, query_vector
from fathom_ray.errors import StoreError
from fathom_ray.settings import QdrantSettings, Settings

EMBEDDING_DIMENSION = 384  # all-MiniLM-L6-v2
NAMESPACE = uuid.UUID("0c7f3b52-8f0e-4d59-9a57-3b7a4b1f2d64")
PREFETCH = 20
UPSERT_BATCH = 256
MODES = ("hybrid", "dense", "sparse")
_ERRORS = (UnexpectedResponse, RuntimeError, ValueError, OSError)


def _point_id(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, key))


def _of_document(document_id: str) -> Filter:
    return Filter(must=[FieldCondition(key="document_id", match=MatchValue(value=document_id))])


class QdrantDocumentStore:
    def __init__(self, settings: QdrantSettings, path: Path, dimension: int, collection: str) -> None:
        self._settings = settings
        self._path = path
        self._dimension = dimension
        self._records = collection
        self._chunks = f"{collection}_chunks"
        self._client: QdrantClient | None = None

    def start(self) -> None:
        if self._client is not None:
            return
        try:
            self._client = open_client(self._settings, self._path)
            if not self._client.collection_exists(self._chunks):
                self._client.create_collection(
                    self._chunks,
                    vectors_config={"dense": VectorParams(size=self._dimension, distance=Distance.COSINE)},
                    sparse_vectors_config={"sparse": SparseVectorParams(modifier=Modifier.IDF)},
                )
            if not self._client.collection_exists(self._records):
                self._client.create_collection(
                    self._records, vectors_config=VectorParams(size=1, distance=Distance.DOT)
                )
        except _ERRORS as e:
            raise StoreError("qdrant", str(e)) from e
        for record in self._scroll_records():
            if not record.get("complete"):
                self._drop(str(record["id"]))

    @property
    def client(self) -> QdrantClient:
        self.start()
        assert self._client is not None
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def document(self, document_id: str) -> Document | None:
        found = self.client.retrieve(self._records, [_point_id(document_id)], with_payload=True)
        payload = found[0].payload if found else None
        return _document(payload) if payload and payload.get("complete") else None

    def documents(self) -> list[Document]:
        records = [_document(r) for r in self._scroll_records() if r.get("complete")]
        return sorted(records, key=lambda d: (d.title.lower(), d.id))

    def put(self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> None:
        """Store ``document`` with exactly these chunks (its old chunks go)."""
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        try:
            self._write_record(document, complete=False)
            self.client.delete(self._chunks, points_selector=FilterSelector(filter=_of_document(document.id)))
            points = [self._point(document, c, v) for c, v in zip(chunks, vectors, strict=True)]
            for at in range(0, len(points), UPSERT_BATCH):
                self.client.upsert(self._chunks, points[at : at + UPSERT_BATCH])
            self._write_record(document, complete=True)
        except _ERRORS as e:
            raise StoreError("qdrant", str(e)) from e

    def remove(self, document_id: str) -> bool:
        """Delete a document and its chunks; False when there was no such document."""
        found = self.client.retrieve(self._records, [_point_id(document_id)])
        if not found:
            return False
        self._drop(document_id)
        return True

    def chunk(self, document_id: str, index: int) -> DocumentHit | None:
        """One chunk by its document and index (a research session reads ``doc://ID#chunk`` so)."""
        found = self.client.retrieve(self._chunks, [_point_id(f"{document_id}#{index}")], with_payload=True)
        return hit_of(found[0].payload, 1.0) if found and found[0].payload else None

    def chunk_count(self, document_id: str | None = None) -> int:
        flt = _of_document(document_id) if document_id is not None else None
        return int(self.client.count(self._chunks, count_filter=flt, exact=True).count)

    def search(
        self, query: str, vector: Sequence[float], limit: int, mode: str = "hybrid"
    ) -> list[DocumentHit]:
        """The best ``limit`` chunks: ``hybrid`` (dense and sparse prefetches fused by RRF), or one."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        indices, values = query_vector(query)
        sparse = SparseVector(indices=indices, values=values)
        try:
            if mode == "dense":
                result = self.client.query_points(
                    self._chunks, query=list(vector), using="dense", limit=limit
                )
            elif mode == "sparse":
                if not indices:
                    return []
                result = self.client.query_points(self._chunks, query=sparse, using="sparse", limit=limit)
            else:
                prefetch = [Prefetch(query=list(vector), using="dense", limit=max(PREFETCH, limit))]
                if indices:
                    prefetch.append(Prefetch(query=sparse, using="sparse", limit=max(PREFETCH, limit)))
                result = self.client.query_points(
                    self._chunks, prefetch=prefetch, query=FusionQuery(fusion=Fusion.RRF), limit=limit
                )
        except _ERRORS as e:
            raise StoreError("qdrant", str(e)) from e
        return [hit_of(p.payload, float(p.score)) for p in result.points if p.payload]

    # -- internals -----------------------------------------------------------------------------------
    def _point(self, document: Document, chunk: Chunk, vector: Sequence[float]) -> PointStruct:
        indices, values = document_vector(f"{document.title} {chunk.heading} {chunk.text}")
        payload = {
            "document_id": chunk.document_id,
            "index": chunk.index,
            "text": chunk.text,
            "heading": chunk.heading,
            "start": chunk.start,
            "end": chunk.end,
            "title": document.title,
        }
        vectors: dict[str, Any] = {
            "dense": list(vector),
            "sparse": SparseVector(indices=indices, values=values),
        }
        return PointStruct(
            id=_point_id(f"{chunk.document_id}#{chunk.index}"), vector=vectors, payload=payload
        )

    def _write_record(self, document: Document, complete: bool) -> None:
        payload = {
            "id": document.id,
            "title": document.title,
            "source": document.source,
            "sha256": document.sha256,
            "chunks": document.chunks,
            "chars": document.chars,
            "flags": list(document.flags),
            "complete": complete,
        }
        self.client.upsert(
            self._records, [PointStruct(id=_point_id(document.id), vector=[1.0], payload=payload)]
        )

    def _drop(self, document_id: str) -> None:
        try:
            self.client.delete(self._records, points_selector=[_point_id(document_id)])
            self.client.delete(self._chunks, points_selector=FilterSelector(filter=_of_document(document_id)))
        except _ERRORS as e:
            raise StoreError("qdrant", str(e)) from e

    def _scroll_records(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        offset = None
        while True:
            points, offset = self.client.scroll(self._records, limit=256, offset=offset, with_payload=True)
            records += [dict(p.payload) for p in points if p.payload]
            if offset is None:
                return records


def _document(payload: dict[str, Any]) -> Document:
    return Document(
        str(payload["id"]),
        str(payload["title"]),
        str(payload["source"]),
        str(payload["sha256"]),
        int(payload["chunks"]),
        int(payload["chars"]),
        tuple(str(f) for f in payload.get("flags", [])),
    )


def hit_of(payload: dict[str, Any], score: float) -> DocumentHit:
    """A stored chunk's payload as a hit."""
    chunk = Chunk(
        str(payload["document_id"]),
        int(payload["index"]),
        str(payload["text"]),
        str(payload["heading"]),
        int(payload["start"]),
        int(payload["end"]),
    )
    return DocumentHit(chunk, str(payload["title"]), score)


def open_document_store(settings: Settings) -> QdrantDocumentStore:
    """The store of ``settings``: under ``data_dir/documents``, or on the Qdrant server; started."""
    store = QdrantDocumentStore(
        settings.qdrant, settings.data_dir / "documents", EMBEDDING_DIMENSION, settings.docs.collection
    )
    store.start()
    return store
