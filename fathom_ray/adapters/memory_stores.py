"""Which source memory a setting means, opened: Qdrant Edge under ``data_dir/memory`` (embedded,
the default) or the Qdrant server of ``FATHOM_QDRANT__URL``. An earlier version's memory
(qdrant-client's local mode under ``data_dir/qdrant``) is copied in on first use, with a message,
and its folder kept as ``qdrant.local-mode``.
"""

from __future__ import annotations

import logging
from pathlib import Path

import qdrant_edge as qe

from fathom_ray.adapters.edge_memory import EdgeSourceMemory
from fathom_ray.adapters.memory_points import SourceMemory
from fathom_ray.settings import Settings

LEGACY_FOLDER = "qdrant"
LEGACY_KEPT = "qdrant.local-mode"
EMBEDDED_FOLDER = "memory"

logger = logging.getLogger(__name__)


def open_source_memory(settings: Settings, dimension: int) -> SourceMemory:
    """The source memory of ``settings``, started (an earlier version's migrated first)."""
    legacy = settings.data_dir / LEGACY_FOLDER
    if settings.qdrant.url:  # qdrant-client (a third of a second to import) only for a server
        from fathom_ray.adapters.qdrant_memory import QdrantSourceMemory  # noqa: PLC0415

        server = QdrantSourceMemory(settings.qdrant, legacy, dimension)
        server.start()
        return server
    memory = EdgeSourceMemory(settings.data_dir / EMBEDDED_FOLDER / settings.qdrant.collection, dimension)
    fresh = not memory.folder_exists()
    memory.start()
    if fresh and (legacy / "meta.json").is_file():
        migrate(legacy, settings, memory, dimension)
    return memory


def migrate(legacy: Path, settings: Settings, memory: EdgeSourceMemory, dimension: int) -> None:
    """Copy the local-mode memory at ``legacy`` into ``memory``; keep the old folder, renamed."""
    logger.warning("moving the source memory at %s into Qdrant Edge; this runs once", legacy)
    from fathom_ray.adapters.qdrant_memory import QdrantSourceMemory, move_local_mode  # noqa: PLC0415

    old = QdrantSourceMemory(settings.qdrant, legacy, dimension)
    pages: list[qe.Point] = []
    domains: list[qe.Point] = []

    def copy() -> None:
        pages.extend(
            qe.Point(str(p.id), [float(x) for x in p.vector], dict(p.payload or {}))  # type: ignore[arg-type]
            for p in old.points(pages=True)
            if isinstance(p.vector, list)
        )
        domains.extend(qe.Point(str(p.id), [1.0], dict(p.payload or {})) for p in old.points(pages=False))
        memory.put_points(pages, domains)

    kept = move_local_mode(legacy, LEGACY_KEPT, "source memory", old, copy)
    logger.warning(
        "moved %d pages and %d domains; the old memory is kept at %s", len(pages), len(domains), kept
    )
