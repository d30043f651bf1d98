"""The document store embedded in this process: Qdrant Edge (``qdrant-edge-py``), Qdrant's own
engine in Rust, with the same points as a Qdrant server (fathom_ray/adapters/document_points.py).

Two shards under ``path/<collection>``: ``chunks`` (a dense and a sparse vector per chunk, the
IDF applied by the engine; hybrid search is one query, two prefetches fused by RRF) and
``records`` (one point per document: title, source, content hash, flags). A document's record is
written first marked incomplete, then its chunks, then the record marked complete; ``start``
removes whatever an interrupted ``put`` left, so nothing half-ingested survives. Every update
goes through the shard's write-ahead log. One process holds the folder at a time: a second gets
a ``StoreError`` that says so.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import qdrant_edge as qe

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
from fathom_ray.documents.models import Chunk, Document, DocumentHit
from fathom_ray.documents.sparse import query_vector
from fathom_ray.errors import StoreError

UPSERT_BATCH = 512
STORE = "qdrant-edge"
MIN_FREE_BYTES = 64 * 2**20  # a few of the engine's 32 MiB write-ahead-log segments


def _of_document(document_id: str) -> qe.Filter:
    return qe.Filter(must=[qe.FieldCondition(key="document_id", match=qe.MatchValue(document_id))])


@contextmanager
def failing(action: str) -> Iterator[None]:
    """The engine's failure (a plain Exception) as a ``StoreError`` saying what was being done."""
    try:
        yield
    except StoreError:
        raise
    except Exception as e:  # the engine raises plain Exception for its own failures
        raise StoreError(STORE, f"{action}: {e}") from e


def check_writable(folder: Path) -> None:
    """Refuse a write the engine could not survive. Qdrant Edge writes through memory maps into
    files it allocated sparsely: on a full disk such a write kills the process (SIGBUS), and on a
    folder made read-only it lands in memory only. So a write first checks the folder: writable,
    and at least ``MIN_FREE_BYTES`` free."""
    try:
        stats = os.statvfs(folder)
    except OSError as e:
        raise StoreError(STORE, f"cannot reach {folder}: {e}") from e
    free = stats.f_bavail * stats.f_frsize
    if free < MIN_FREE_BYTES:
        need = MIN_FREE_BYTES // 2**20
        raise StoreError(STORE, f"No space left: {free // 2**20} MiB free under {folder}, {need} MiB needed")
    if not os.access(folder, os.W_OK):
        raise StoreError(STORE, f"{folder} is read-only (not permitted to write)")


@contextmanager
def writing(lock: threading.RLock, folder: Path, action: str) -> Iterator[None]:
    """One write of an embedded store: under its lock, the disk checked first, failures as a
    ``StoreError`` naming ``action``."""
    with lock, failing(action):
        check_writable(folder)
        yield


def open_shard(path: Path, config: qe.EdgeConfig) -> qe.EdgeShard:
    """The shard at ``path``, created with ``config`` when there is none yet."""
    if path.is_dir() and any(path.iterdir()):
        try:
            return qe.EdgeShard.load(str(path))
        except Exception as e:
            if "WouldBlock" in str(e):
                raise StoreError(
                    STORE,
                    f"{path} is open in another process (fathom serve, research, docs ...): one process at "
                    "a time per FATHOM_DATA_DIR; use that one, or give this command another FATHOM_DATA_DIR",
                ) from e
            raise
    return qe.EdgeShard.create(str(path), config)


class EdgeDocumentStore(DocumentRecords):
    def __init__(
        self, path: Path, dimension: int, collection: str, sparse_weight: float = SPARSE_WEIGHT
    ) -> None:
        self._folder = path / collection
        self._dimension = dimension
        self.sparse_weight = sparse_weight  # the BM25 side's weight in hybrid's RRF (dense 1)
        self._chunks: qe.EdgeShard | None = None
        self._records: qe.EdgeShard | None = None
        self._lock = threading.RLock()

    @property
    def folder(self) -> Path:
        return self._folder

    def start(self) -> None:
        with self._lock:
            if self._chunks is not None:
                return
            with failing(f"opening {self._folder}"):
                chunks = open_shard(
                    self._folder / "chunks",
                    qe.EdgeConfig(
                        vectors={
                            "dense": qe.EdgeVectorParams(size=self._dimension, distance=qe.Distance.Cosine)
                        },
                        sparse_vectors={"sparse": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
                    ),
                )
                try:
                    records = open_shard(
                        self._folder / "records",
                        qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=1, distance=qe.Distance.Dot)),
                    )
                except BaseException:
                    chunks.close()
                    raise
            self._chunks, self._records = chunks, records
            if "document_id" not in chunks.info().payload_schema:  # a document's chunks found by index
                with failing("indexing document ids"):
                    chunks.update(
                        qe.UpdateOperation.create_field_index("document_id", qe.PayloadSchemaType.Keyword)
                    )
            self._sweep()

    def close(self) -> None:
        with self._lock:
            for shard in (self._chunks, self._records):
                if shard is not None:
                    shard.flush()
                    shard.close()
            self._chunks = self._records = None

    def put_points(self, records: Sequence[dict[str, Any]], chunks: Sequence[qe.Point]) -> None:
        """Points copied from another store as they are (a migration); records written last."""
        chunk_shard, record_shard = self._shards
        with self._writing("copying points"):
            for at in range(0, len(chunks), UPSERT_BATCH):
                chunk_shard.update(qe.UpdateOperation.upsert_points(list(chunks[at : at + UPSERT_BATCH])))
            points = [qe.Point(point_id(str(r["id"])), [1.0], dict(r)) for r in records]
            if points:
                record_shard.update(qe.UpdateOperation.upsert_points(points))
            chunk_shard.flush()
            record_shard.flush()

    def chunk_points(self) -> Iterator[tuple[dict[str, Any], list[float]]]:
        """Every chunk's payload and dense vector (an export, a benchmark's corpus)."""
        offset = None
        while True:
            with self._lock, failing("listing chunks"):
                found, offset = self._shards[0].scroll(
                    qe.ScrollRequest(offset=offset, limit=512, with_payload=True, with_vector=["dense"])
                )
            for record in found:
                vectors = record.vector
                if record.payload and isinstance(vectors, dict):
                    yield dict(record.payload), [float(x) for x in vectors["dense"]]  # type: ignore[union-attr,arg-type]
            if offset is None:
                return

    def chunk(self, document_id: str, index: int) -> DocumentHit | None:
        """One chunk by its document and index (a research session reads ``doc://ID#chunk`` so)."""
        payload = self._retrieve(self._shards[0], chunk_point_id(document_id, index))
        return hit_of(payload, 1.0) if payload else None

    def chunk_count(self, document_id: str | None = None) -> int:
        flt = _of_document(document_id) if document_id is not None else None
        with self._lock, failing("counting"):
            return int(self._shards[0].count(qe.CountRequest(exact=True, filter=flt)))

    def search(
        self, query: str, vector: Sequence[float], limit: int, mode: str = "hybrid"
    ) -> list[DocumentHit]:
        """The best ``limit`` chunks: ``hybrid`` (dense and sparse prefetches fused by weighted RRF;
        ``pool`` weighs them equally, for a rerank), or one side alone."""
        check_mode(mode)
        indices, values = query_vector(query)
        dense = qe.Query.Nearest(list(vector), using="dense")
        sparse = qe.Query.Nearest(qe.SparseVector(indices, values), using="sparse")
        if mode == "dense":
            request = qe.QueryRequest(limit=limit, query=dense, with_payload=True)
        elif mode == "sparse":
            if not indices:
                return []
            request = qe.QueryRequest(limit=limit, query=sparse, with_payload=True)
        else:
            wide = max(PREFETCH, limit)
            prefetches = [qe.Prefetch(limit=wide, query=dense)]
            if indices:
                prefetches.append(qe.Prefetch(limit=wide, query=sparse))
            # the stub's QueryRequest omits Fusion.Rrf among its query types; the engine takes it
            fusion: Any = qe.Fusion.Rrf(
                k=RRF_K, weights=[1.0, sparse_weight_of(mode, self.sparse_weight)][: len(prefetches)]
            )
            request = qe.QueryRequest(limit=limit, prefetches=prefetches, query=fusion, with_payload=True)
        with self._lock, failing("searching"):
            found = self._shards[0].query(request)
        return [hit_of(dict(p.payload), float(p.score)) for p in found if p.payload]

    # -- internals -----------------------------------------------------------------------------------
    @property
    def _shards(self) -> tuple[qe.EdgeShard, qe.EdgeShard]:
        self.start()
        assert self._chunks is not None
        assert self._records is not None
        return self._chunks, self._records

    def _retrieve(self, shard: qe.EdgeShard, key: str) -> dict[str, Any] | None:
        with self._lock, failing("reading"):
            found = shard.retrieve([key], True, False)
        return dict(found[0].payload) if found and found[0].payload else None

    def _point(self, document: Document, chunk: Chunk, vector: Sequence[float]) -> qe.Point:
        indices, values = chunk_sparse(document, chunk)
        vectors: dict[str, Any] = {"dense": list(vector), "sparse": qe.SparseVector(indices, values)}
        return qe.Point(
            chunk_point_id(chunk.document_id, chunk.index), vectors, chunk_payload(document, chunk)
        )

    @contextmanager
    def _writing(self, action: str) -> Iterator[None]:
        self.start()
        with writing(self._lock, self._folder, action):
            yield

    def _record(self, document_id: str) -> dict[str, Any] | None:
        return self._retrieve(self._shards[1], point_id(document_id))

    def records(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        offset = None
        with self._lock, failing("listing"):
            while True:
                found, offset = self._shards[1].scroll(
                    qe.ScrollRequest(offset=offset, limit=256, with_payload=True, with_vector=False)
                )
                records += [dict(r.payload) for r in found if r.payload]
                if offset is None:
                    return records

    def _put_record(self, document_id: str, payload: dict[str, Any]) -> None:
        point = qe.Point(point_id(document_id), [1.0], payload)
        self._shards[1].update(qe.UpdateOperation.upsert_points([point]))

    def _put_chunks(
        self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None:
        for at in range(0, len(chunks), UPSERT_BATCH):
            batch = zip(chunks[at : at + UPSERT_BATCH], vectors[at : at + UPSERT_BATCH], strict=True)
            points = [self._point(document, c, v) for c, v in batch]
            self._shards[0].update(qe.UpdateOperation.upsert_points(points))

    def _delete_chunks(self, document_id: str) -> None:
        self._shards[0].update(qe.UpdateOperation.delete_points_by_filter(_of_document(document_id)))

    def _delete_record(self, document_id: str) -> None:
        self._shards[1].update(qe.UpdateOperation.delete_points([point_id(document_id)]))
