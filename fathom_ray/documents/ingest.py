"""Adding files to the document store: read, flag, chunk, embed, store; one outcome per file.

A file whose bytes the store already holds under its id (the same path, the same content hash)
is left alone; a changed file replaces its chunks; a file that cannot be read gets its error and
the others go on. Instruction-like content and secrets are flagged on the document, not blocked.
Chunks are embedded with a contextual header (the document's title and the chunk's heading)
when the settings ask for it.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from fathom_ray.documents.chunking import chunk_document
from fathom_ray.documents.models import AddOutcome, Chunk, Document
from fathom_ray.documents.reading import DocumentText, files_under, read_document
from fathom_ray.errors import DocumentError, StoreError
from fathom_ray.ports import DocumentWriter, Embedder
from fathom_ray.settings import DocsSettings
from fathom_ray.text.untrusted import instruction_flags, redact_secrets, strip_invisible

EMBED_BATCH = 64
Progress = Callable[[AddOutcome, int, int], None]


def document_id(path: Path) -> str:
    """A stable id per file: the same path is the same document."""
    return hashlib.sha1(str(path.resolve()).encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


def flags_of(text: str) -> tuple[str, ...]:
    cleaned = strip_invisible(text)
    found = [f"instruction-like: {label}" for label in instruction_flags(cleaned)]
    if redact_secrets(cleaned)[1]:
        found.append("secret")
    return tuple(found)


def embedding_text(document: DocumentText, chunk: Chunk, contextual: bool) -> str:
    if not contextual:
        return chunk.text
    header = " / ".join(part for part in (document.title, chunk.heading) if part)
    return f"{header}\n{chunk.text}" if header else chunk.text


async def add_paths(
    paths: Sequence[Path],
    store: DocumentWriter,
    embedder: Embedder,
    settings: DocsSettings,
    progress: Progress | None = None,
) -> list[AddOutcome]:
    """Add every file under ``paths``; outcomes in the order the files were found."""
    files = list(files_under(list(paths)))
    outcomes: list[AddOutcome] = []
    for number, path in enumerate(files, start=1):
        outcome = await add_file(path, store, embedder, settings)
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome, number, len(files))
    return outcomes


async def add_file(
    path: Path, store: DocumentWriter, embedder: Embedder, settings: DocsSettings
) -> AddOutcome:
    try:
        text, data = await asyncio.to_thread(read_document, path, settings.max_bytes)
    except DocumentError as e:
        return AddOutcome(str(path), "failed", error=e.reason)
    identifier = document_id(path)
    digest = hashlib.sha256(data).hexdigest()
    known = await asyncio.to_thread(store.document, identifier)
    if known is not None and known.sha256 == digest:
        return AddOutcome(str(path), "unchanged", known)
    chunks = chunk_document(identifier, text, settings.chunk_chars, settings.overlap_chars)
    texts = [embedding_text(text, c, settings.contextual_header) for c in chunks]
    vectors: list[list[float]] = []
    for at in range(0, len(texts), EMBED_BATCH):
        vectors += await embedder.embed(texts[at : at + EMBED_BATCH])
    document = Document(
        identifier, text.title, str(path.resolve()), digest, len(chunks), len(text.text), flags_of(text.text)
    )
    try:
        await asyncio.to_thread(store.put, document, chunks, vectors)
    except StoreError as e:
        return AddOutcome(str(path), "failed", error=str(e))
    return AddOutcome(str(path), "replaced" if known is not None else "added", document)
