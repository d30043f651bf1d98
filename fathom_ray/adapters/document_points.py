"""What every document store writes and reads back: point ids, a chunk's and a record's payload,
the chunk's sparse vector, and the values they turn back into.

Both stores (Qdrant Edge embedded, a Qdrant server) keep the same points, so a store moves from
one to the other by copying points, and a hit reads the same from either.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from fathom_ray.documents.models import Chunk, Document, DocumentHit
from fathom_ray.documents.sparse import RRF_K, SPARSE_WEIGHT, document_vector

__all__ = ["RRF_K", "SPARSE_WEIGHT"]

EMBEDDING_DIMENSION = 384  # all-MiniLM-L6-v2
NAMESPACE = uuid.UUID("0c7f3b52-8f0e-4d59-9a57-3b7a4b1f2d64")
PREFETCH = 20  # candidates per side before fusion
MODES = ("hybrid", "dense", "sparse", "pool")  # pool: hybrid with both sides weighted equally


def sparse_weight_of(mode: str, weight: float) -> float:
    """The BM25 side's weight in RRF for a hybrid ``mode``."""
    return 1.0 if mode == "pool" else weight


def point_id(key: str) -> str:
    """A stable UUID per key: a record's key is its document id, a chunk's ``ID#index``."""
    return str(uuid.uuid5(NAMESPACE, key))


def chunk_point_id(document_id: str, index: int) -> str:
    return point_id(f"{document_id}#{index}")


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


def chunk_sparse(document: Document, chunk: Chunk) -> tuple[list[int], list[float]]:
    """The chunk's BM25 vector over its document's title, its heading and its text."""
    return document_vector(f"{document.title} {chunk.heading} {chunk.text}")


def chunk_payload(document: Document, chunk: Chunk) -> dict[str, Any]:
    return {
        "document_id": chunk.document_id,
        "index": chunk.index,
        "text": chunk.text,
        "heading": chunk.heading,
        "start": chunk.start,
        "end": chunk.end,
        "title": document.title,
    }


def record_payload(document: Document, complete: bool) -> dict[str, Any]:
    return {
        "id": document.id,
        "title": document.title,
        "source": document.source,
        "sha256": document.sha256,
        "chunks": document.chunks,
        "chars": document.chars,
        "flags": list(document.flags),
        "complete": complete,
    }


def document_of(payload: dict[str, Any]) -> Document:
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


def sorted_documents(records: list[dict[str, Any]]) -> list[Document]:
    """The complete records as documents, by title."""
    documents = [document_of(r) for r in records if r.get("complete")]
    return sorted(documents, key=lambda d: (d.title.lower(), d.id))


class DocumentRecords(ABC):
    """What every document store keeps, whatever its engine: a document's record is written first
    marked incomplete, then its chunks (its old ones gone), then the record marked complete; what an
    interrupted ``put`` left (an incomplete record, some chunks) is swept when the store opens, so
    nothing half-ingested is ever listed or kept. An engine gives the calls below."""

    @abstractmethod
    def _writing(self, action: str) -> AbstractContextManager[None]:
        """Around every write: the engine's failures as a ``StoreError`` naming ``action``."""

    @abstractmethod
    def _record(self, document_id: str) -> dict[str, Any] | None: ...

    @abstractmethod
    def records(self) -> list[dict[str, Any]]:
        """Every document record's payload, complete or not."""

    @abstractmethod
    def _put_record(self, document_id: str, payload: dict[str, Any]) -> None: ...

    @abstractmethod
    def _put_chunks(
        self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None: ...

    @abstractmethod
    def _delete_chunks(self, document_id: str) -> None: ...

    @abstractmethod
    def _delete_record(self, document_id: str) -> None: ...

    def document(self, document_id: str) -> Document | None:
        found = self._record(document_id)
        return document_of(found) if found and found.get("complete") else None

    def documents(self) -> list[Document]:
        return sorted_documents(self.records())

    def put(self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> None:
        """Store ``document`` with exactly these chunks (its old chunks go)."""
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        with self._writing(f"writing {document.id}"):
            self._write_record(document, complete=False)
            self._delete_chunks(document.id)
            self._put_chunks(document, chunks, vectors)
            self._write_record(document, complete=True)

    def remove(self, document_id: str) -> bool:
        """Delete a document and its chunks; False when there was no such document."""
        if self._record(document_id) is None:
            return False
        self._drop(document_id)
        return True

    def _sweep(self) -> None:
        """Remove what an interrupted ``put`` left: incomplete records and their chunks."""
        for record in self.records():
            if not record.get("complete"):
                self._drop(str(record["id"]))

    def _write_record(self, document: Document, complete: bool) -> None:
        self._put_record(document.id, record_payload(document, complete))

    def _drop(self, document_id: str) -> None:
        with self._writing(f"removing {document_id}"):
            self._delete_record(document_id)
            self._delete_chunks(document_id)
