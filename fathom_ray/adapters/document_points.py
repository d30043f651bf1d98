"""What every document store writes and reads back: point ids, a chunk's and a record's payload,
the chunk's sparse vector, and the values they turn back into.

Both stores (Qdrant Edge embedded, a Qdrant server) keep the same points, so a store moves from
one to the other by copying points, and a hit reads the same from either.
"""

from __future__ import annotations

import uuid
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
