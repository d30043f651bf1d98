"""The values of the document store: a document, its chunks, a search hit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Chunk:
    """A slice of a document's text: ``text == document_text[start:end]``."""

    document_id: str
    index: int
    text: str
    heading: str
    start: int
    end: int

    @property
    def source(self) -> str:
        """How a fact cites it: ``doc://ID#chunk``."""
        return f"doc://{self.document_id}#{self.index}"


@dataclass(frozen=True, slots=True)
class Document:
    """What one file is in the store: where it came from, what it held, what was flagged."""

    id: str
    title: str
    source: str
    sha256: str
    chunks: int
    chars: int
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DocumentHit:
    chunk: Chunk
    title: str
    score: float


@dataclass(frozen=True, slots=True)
class AddOutcome:
    """One file of an ``add``: added, replaced (it changed), unchanged, or failed with why."""

    path: str
    status: str
    document: Document | None = None
    error: str = ""
