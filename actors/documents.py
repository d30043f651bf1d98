"""DocumentStoreActor: the one owner of the document store (Qdrant Edge in a folder, or a server).

It hosts ``Documents`` (add uploads, list, remove, hybrid search) and embeds on the engine's
Embedder actor; ``fathom ask`` runs where it is asked (the Serve replica) and calls it to search.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ray

from actors.actor_class import actor_class
from actors.directory import Remote
from fathom_ray.adapters.document_stores import DocumentStoreImpl, open_document_store
from fathom_ray.documents.models import AddOutcome, Chunk, Document, DocumentHit
from fathom_ray.documents.service import Documents
from fathom_ray.settings import Settings


class DocumentStoreService:
    def __init__(self, settings: Settings, embedder: str, namespace: str) -> None:
        self._settings = settings
        self._embedder_name = embedder
        self._namespace = namespace
        self._store: DocumentStoreImpl | None = None
        self._documents: Documents | None = None

    def start(self) -> None:
        if self._documents is not None:
            return
        self._store = open_document_store(self._settings)
        embedder = Remote(ray.get_actor(self._embedder_name, self._namespace))
        uploads = self._settings.data_dir / "uploads"
        self._documents = Documents(self._store, embedder, self._settings.docs, uploads)

    @property
    def documents(self) -> Documents:
        self.start()
        assert self._documents is not None
        return self._documents

    def stop(self) -> None:
        if self._store is not None:
            self._store.close()
        self._store = self._documents = None

    async def document(self, document_id: str) -> Document | None:
        return await self.documents.document(document_id)

    async def put(
        self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None:
        """A file prepared elsewhere (an ingestion task), written whole."""
        await self.documents.put(document, chunks, vectors)

    async def add_upload(self, name: str, data: bytes) -> AddOutcome:
        return await self.documents.add_upload(name, data)

    async def list_documents(self) -> list[Document]:
        return await self.documents.list_documents()

    async def chunk(self, document_id: str, index: int) -> DocumentHit | None:
        return await self.documents.chunk(document_id, index)

    async def remove(self, document_id: str) -> bool:
        return await self.documents.remove(document_id)

    async def search(
        self, query: str, vector: Sequence[float], limit: int, mode: str = "hybrid"
    ) -> list[DocumentHit]:
        return await self.documents.search(query, vector, limit, mode)


def document_store_actor(name: str | None = None, **placement: Any) -> Any:
    return actor_class(DocumentStoreService).options(num_cpus=0, max_restarts=3, name=name, **placement)
