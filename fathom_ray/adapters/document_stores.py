"""Which document store a setting means, opened: Qdrant Edge under ``data_dir/docstore`` (the
embedded default), or the Qdrant server of ``FATHOM_QDRANT__URL``; both keep the same points and
answer the same calls (fathom_ray.ports.DocumentStore).

A store of an earlier version (qdrant-client's local mode under ``data_dir/documents``) is copied
into the embedded store on first use, vectors and all (nothing is embedded again), with a message;
the old folder is then renamed ``documents.local-mode`` and kept until the user deletes it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import qdrant_edge as qe

from fathom_ray.adapters.document_points import EMBEDDING_DIMENSION
from fathom_ray.adapters.edge_documents import EdgeDocumentStore
from fathom_ray.settings import QdrantSettings, Settings

if TYPE_CHECKING:  # qdrant-client loads only for a server or a migration (a third of a second)
    from fathom_ray.adapters.qdrant_documents import QdrantDocumentStore

DocumentStoreImpl: TypeAlias = "EdgeDocumentStore | QdrantDocumentStore"  # for annotations

LEGACY_FOLDER = "documents"  # qdrant-client local mode, before Qdrant Edge
LEGACY_KEPT = "documents.local-mode"
EMBEDDED_FOLDER = "docstore"
COPY_BATCH = 1024

logger = logging.getLogger(__name__)
Notice = Callable[[str], None]


def open_document_store(settings: Settings, notice: Notice | None = None) -> DocumentStoreImpl:
    """The store of ``settings``, started (an earlier version's store migrated first)."""
    say = notice or logger.warning
    weight = settings.docs.sparse_weight
    collection = settings.docs.collection
    if settings.qdrant.url:
        from fathom_ray.adapters.qdrant_documents import QdrantDocumentStore  # noqa: PLC0415

        server = QdrantDocumentStore(
            settings.qdrant, settings.data_dir / LEGACY_FOLDER, EMBEDDING_DIMENSION, collection, weight
        )
        server.start()
        return server
    store = EdgeDocumentStore(settings.data_dir / EMBEDDED_FOLDER, EMBEDDING_DIMENSION, collection, weight)
    legacy = settings.data_dir / LEGACY_FOLDER
    fresh = not store.folder.exists()
    store.start()
    if fresh and (legacy / "meta.json").is_file():
        migrate(legacy, collection, store, say)
    return store


def migrate(legacy: Path, collection: str, store: EdgeDocumentStore, say: Notice) -> int:
    """Copy every complete document of the local-mode store at ``legacy`` into ``store``; then
    keep the old folder beside it, renamed. The number of chunks copied."""
    started = time.monotonic()
    say(f"moving the document store at {legacy} into Qdrant Edge ({store.folder}); this runs once")
    from fathom_ray.adapters.qdrant_documents import QdrantDocumentStore  # noqa: PLC0415
    from fathom_ray.adapters.qdrant_memory import move_local_mode  # noqa: PLC0415

    old = QdrantDocumentStore(QdrantSettings(), legacy, EMBEDDING_DIMENSION, collection)
    records: list[dict[str, Any]] = []
    copied = 0

    def copy() -> None:
        nonlocal copied
        old.start()
        records.extend(r for r in old.records() if r.get("complete"))
        complete = {str(r["id"]) for r in records}
        batch: list[qe.Point] = []
        for point in old.chunk_points():
            payload = dict(point.payload or {})
            if str(payload.get("document_id")) not in complete or not isinstance(point.vector, dict):
                continue
            batch.append(qe.Point(str(point.id), _vectors(point.vector), payload))
            if len(batch) >= COPY_BATCH:
                store.put_points([], batch)
                copied += len(batch)
                batch = []
        store.put_points(records, batch)
        copied += len(batch)

    kept = move_local_mode(legacy, LEGACY_KEPT, "document store", old, copy)
    say(
        f"moved {len(records)} documents ({copied} chunks) in {time.monotonic() - started:.1f} s; "
        f"the old store is kept at {kept} (delete it when you no longer need it)"
    )
    return copied


def _vectors(stored: dict[str, Any]) -> dict[str, Any]:
    sparse = stored["sparse"]
    return {
        "dense": [float(x) for x in stored["dense"]],
        "sparse": qe.SparseVector(list(sparse.indices), [float(v) for v in sparse.values]),
    }
