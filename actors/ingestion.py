"""Adding files as Ray tasks: each file is read, chunked and flagged by a task wherever the
cluster has a CPU, embedded on the Embedder actor, and written whole by the DocumentStore actor.

The files must be readable where the tasks run: on one machine they are; on a cluster the folder
is on storage every node mounts (the same path everywhere). At most ``in_flight`` files are in
the works at once, so a large folder never floods the object store; outcomes come back in the
order the files were found, and ``progress`` hears of each as it ends.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ray
from ray.exceptions import RayError

from actors.directory import Remote
from actors.documents import document_store_actor
from actors.embedder import embedder_actor
from actors.engine import STARTUP_TIMEOUT_S, resolve_judge, wants_gpu
from actors.ray_errors import failure_reason
from fathom_ray.documents.ingest import Progress, add_file
from fathom_ray.documents.models import AddOutcome, Chunk, Document
from fathom_ray.documents.reading import files_under
from fathom_ray.settings import DocsSettings, Settings, ingest_embedder

TASK_NAME = "fathom-ingest-file"


class _StoreOwner:
    """The DocumentWriter port over the DocumentStore actor (its calls block: ``add_file`` runs
    them in a thread)."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def document(self, document_id: str) -> Document | None:
        found: Document | None = ray.get(self._handle.document.remote(document_id))
        return found

    def put(self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> None:
        ray.get(self._handle.put.remote(document, list(chunks), [list(v) for v in vectors]))


def _ingest_file(path: str, documents: Any, embedder: Any, settings: DocsSettings) -> AddOutcome:
    return asyncio.run(add_file(Path(path), _StoreOwner(documents), Remote(embedder), settings))


def start_document_parts(settings: Settings, prefix: str | None = None) -> tuple[Any, Any]:
    """An Embedder and a DocumentStore actor of this ingestion's own, started: (documents, embedder)."""
    prefix = prefix or f"fathom-ingest-{uuid.uuid4().hex[:8]}-"
    namespace = ray.get_runtime_context().namespace
    embedder = embedder_actor(wants_gpu(resolve_judge(settings)), f"{prefix}embedder").remote(
        ingest_embedder(settings)
    )
    documents = document_store_actor(f"{prefix}documents").remote(settings, f"{prefix}embedder", namespace)
    ray.get([embedder.start.remote(), documents.start.remote()], timeout=STARTUP_TIMEOUT_S)
    return documents, embedder


_task = ray.remote(_ingest_file).options(num_cpus=1, max_retries=1, name=TASK_NAME)


def ingest_on_ray(
    paths: Sequence[Path],
    documents: Any,
    embedder: Any,
    settings: DocsSettings,
    *,
    progress: Progress | None = None,
    in_flight: int | None = None,
) -> list[AddOutcome]:
    """Add every file under ``paths`` with one Ray task per file; a lost task fails its file only."""
    files = list(files_under(list(paths)))
    limit = in_flight or max(2, int(ray.cluster_resources().get("CPU", 2)))  # type: ignore[no-untyped-call]
    outcomes: dict[int, AddOutcome] = {}
    pending: dict[Any, int] = {}
    submitted = 0
    while submitted < len(files) or pending:
        while submitted < len(files) and len(pending) < limit:
            pending[_task.remote(str(files[submitted]), documents, embedder, settings)] = submitted
            submitted += 1
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            number = pending.pop(ref)
            outcomes[number] = _outcome(ref, files[number])
            if progress is not None:
                progress(outcomes[number], len(outcomes), len(files))
    return [outcomes[n] for n in range(len(files))]


def _outcome(ref: Any, path: Path) -> AddOutcome:
    try:
        outcome: AddOutcome = ray.get(ref)
    except RayError as e:
        return AddOutcome(str(path), "failed", error=f"the ingestion task was lost: {failure_reason(e)}")
    return outcome
