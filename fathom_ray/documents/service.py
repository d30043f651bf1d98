"""The document store as one async service: add (files or uploads), list, remove, search.

It owns a sync ``DocumentStore`` (its calls run in threads) and an ``Embedder``; the CLI runs it
in process and the DocumentStore actor hosts it. An upload is kept under ``uploads`` by its file
name, so uploading a changed file of the same name replaces its chunks and the same bytes again
do nothing.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path

from fathom_ray.documents.ingest import Progress, add_file, add_paths
from fathom_ray.documents.models import AddOutcome, Chunk, Document, DocumentHit
from fathom_ray.documents.reading import SUFFIXES
from fathom_ray.ports import DocumentStore, Embedder
from fathom_ray.settings import DocsSettings

_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")


def upload_name(name: str) -> str:
    """A file name safe to keep: its last path part, odd characters replaced, never hidden."""
    base = _UNSAFE.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip(" .")
    return base or "upload"


class Documents:
    def __init__(
        self, store: DocumentStore, embedder: Embedder, settings: DocsSettings, uploads: Path
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._settings = settings
        self._uploads = uploads

    async def search(
        self, query: str, vector: Sequence[float], limit: int, mode: str = "hybrid"
    ) -> list[DocumentHit]:
        return await asyncio.to_thread(self._store.search, query, list(vector), limit, mode)

    async def chunk(self, document_id: str, index: int) -> DocumentHit | None:
        return await asyncio.to_thread(self._store.chunk, document_id, index)

    async def document(self, document_id: str) -> Document | None:
        return await asyncio.to_thread(self._store.document, document_id)

    async def put(
        self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None:
        await asyncio.to_thread(self._store.put, document, chunks, vectors)

    async def list_documents(self) -> list[Document]:
        return await asyncio.to_thread(self._store.documents)

    async def remove(self, document_id: str) -> bool:
        return await asyncio.to_thread(self._store.remove, document_id)

    async def add_paths(self, paths: Sequence[Path], progress: Progress | None = None) -> list[AddOutcome]:
        return await add_paths(paths, self._store, self._embedder, self._settings, progress)

    async def add_upload(self, name: str, data: bytes) -> AddOutcome:
        """One uploaded file; an unsupported or oversized one is refused before anything is written."""
        safe = upload_name(name)
        suffix = Path(safe).suffix.lower()
        if suffix not in SUFFIXES:
            supported = " ".join(sorted(SUFFIXES))
            return AddOutcome(
                name, "failed", error=f"unsupported file type {suffix or '(none)'}; supported: {supported}"
            )
        if len(data) > self._settings.max_bytes:
            limit = f"the limit of {self._settings.max_bytes} (FATHOM_DOCS__MAX_BYTES)"
            return AddOutcome(name, "failed", error=f"{len(data)} bytes is over {limit}")
        path = self._uploads / safe
        await asyncio.to_thread(_write, path, data)
        outcome = await add_file(path, self._store, self._embedder, self._settings)
        return AddOutcome(name, outcome.status, outcome.document, outcome.error)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    partial.replace(path)
