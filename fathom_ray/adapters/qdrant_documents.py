"""The document store on a Qdrant server (``FATHOM_QDRANT__URL``), or in qdrant-client's local
mode (a folder; what the embedded store was before Qdrant Edge, still read to migrate it).

The same points as the embedded store (fathom_ray/adapters/document_points.py) in two
collections: ``<name>_chunks`` (the points searched) and ``<name>`` (one record per document).
A document's record is written first marked incomplete, then its chunks, then the record marked
complete; ``start`` removes whatever an interrupted ``put`` left. Deleting a document's chunks is
one call (a payload filter); hybrid search is one query, two prefetches fused by weighted RRF.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import UnexpectedResponse
from qdrant_client.models import (
    Distance,
    FieldCondition,
    Filter,
    FilterSelector,
    MatchValue,
    Modifier,
    PointStruct,
    Prefetch,
    Record,
    Rrf,
    RrfQuery,
    SparseVector,
    SparseVectorParams,
    VectorParams,
)

from fathom_ray.adapters.document_points import (
    PREFETCH,
    RRF_K,
    SPARSE_WEIGHT,
    DocumentRecords,
    check_mode,
    chunk_payload,
    chunk_point_id,
    chunk_sparse,
    hit_of,
    point_id,
    sparse_weight_of,
)
from fathom_ray.adapters.qdrant_memory import open_client
from fathom_ray.documents.models import Chunk, Document, DocumentHit
from fathom_ray.documents.sparse import query_vector
from fathom_ray.errors import StoreError
from fathom_ray.settings import QdrantSettings

UPSERT_BATCH = 256
_ERRORS = (UnexpectedResponse, RuntimeError, ValueError, OSError)


def _of_document(document_id: str) -> Filter:
    return Filter(must=[FieldCondition(key="document_id", match=MatchValue(value=document_id))])


class QdrantDocumentStore(DocumentRecords):
    def __init__(
        self,
        settings: QdrantSettings,
        path: Path,
        dimension: int,
        collection: str,
        sparse_weight: float = SPARSE_WEIGHT,
    ) -> None:
        self._settings = settings
        self._path = path
        self._dimension = dimension
        self._records = collection
        self._chunks = f"{collection}_chunks"
        self.sparse_weight = sparse_weight  # the BM25 side's weight in hybrid's RRF (dense 1)
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
        self._sweep()

    @property
    def client(self) -> QdrantClient:
        self.start()
        assert self._client is not None
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def chunk(self, document_id: str, index: int) -> DocumentHit | None:
        """One chunk by its document and index (a research session reads ``doc://ID#chunk`` so)."""
        found = self.client.retrieve(self._chunks, [chunk_point_id(document_id, index)], with_payload=True)
        return hit_of(found[0].payload, 1.0) if found and found[0].payload else None

    def chunk_count(self, document_id: str | None = None) -> int:
        flt = _of_document(document_id) if document_id is not None else None
        return int(self.client.count(self._chunks, count_filter=flt, exact=True).count)

    def search(
        self, query: str, vector: Sequence[float], limit: int, mode: str = "hybrid"
    ) -> list[DocumentHit]:
        """The best ``limit`` chunks: ``hybrid`` (dense and sparse prefetches fused by weighted RRF;
        ``pool`` weighs them equally, for a rerank), or one side alone."""
        check_mode(mode)
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
                wide = max(PREFETCH, limit)
                prefetch = [Prefetch(query=list(vector), using="dense", limit=wide)]
                if indices:
                    prefetch.append(Prefetch(query=sparse, using="sparse", limit=wide))
                fusion = RrfQuery(
                    rrf=Rrf(
                        k=RRF_K, weights=[1.0, sparse_weight_of(mode, self.sparse_weight)][: len(prefetch)]
                    )
                )
                result = self.client.query_points(self._chunks, prefetch=prefetch, query=fusion, limit=limit)
        except _ERRORS as e:
            raise StoreError("qdrant", str(e)) from e
        return [hit_of(p.payload, float(p.score)) for p in result.points if p.payload]

    def chunk_points(self) -> Iterator[Record]:
        """Every chunk point with its payload and both vectors (for a migration)."""
        return self._scroll(self._chunks, True)

    # -- internals -----------------------------------------------------------------------------------
    def _point(self, document: Document, chunk: Chunk, vector: Sequence[float]) -> PointStruct:
        indices, values = chunk_sparse(document, chunk)
        vectors: dict[str, Any] = {
            "dense": list(vector),
            "sparse": SparseVector(indices=indices, values=values),
        }
        return PointStruct(
            id=chunk_point_id(chunk.document_id, chunk.index),
            vector=vectors,
            payload=chunk_payload(document, chunk),
        )

    @contextmanager
    def _writing(self, action: str) -> Iterator[None]:
        try:
            yield
        except _ERRORS as e:
            raise StoreError("qdrant", str(e)) from e

    def _record(self, document_id: str) -> dict[str, Any] | None:
        found = self.client.retrieve(self._records, [point_id(document_id)], with_payload=True)
        return dict(found[0].payload) if found and found[0].payload else None

    def records(self) -> list[dict[str, Any]]:
        """Every document record's payload, complete or not."""
        return [dict(p.payload) for p in self._scroll(self._records, False) if p.payload]

    def _put_record(self, document_id: str, payload: dict[str, Any]) -> None:
        point = PointStruct(id=point_id(document_id), vector=[1.0], payload=payload)
        self.client.upsert(self._records, [point])

    def _put_chunks(
        self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None:
        points = [self._point(document, c, v) for c, v in zip(chunks, vectors, strict=True)]
        for at in range(0, len(points), UPSERT_BATCH):
            self.client.upsert(self._chunks, points[at : at + UPSERT_BATCH])

    def _delete_chunks(self, document_id: str) -> None:
        self.client.delete(self._chunks, points_selector=FilterSelector(filter=_of_document(document_id)))

    def _delete_record(self, document_id: str) -> None:
        self.client.delete(self._records, points_selector=[point_id(document_id)])

    def _scroll(self, collection: str, with_vectors: bool) -> Iterator[Record]:
        offset = None
        while True:
            points, offset = self.client.scroll(
                collection, limit=256, offset=offset, with_payload=True, with_vectors=with_vectors
            )
            yield from points
            if offset is None:
                return
