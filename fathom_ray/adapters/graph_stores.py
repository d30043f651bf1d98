"""Picking the graph store the settings name."""

from __future__ import annotations

from fathom_ray.adapters.sqlite_graph import SqliteGraphStore
from fathom_ray.errors import ConfigError
from fathom_ray.ports import GraphStore
from fathom_ray.settings import Settings


def open_graph_store(settings: Settings) -> GraphStore:
    if settings.graph.backend == "sqlite":
        return SqliteGraphStore(settings.data_dir / "graph.sqlite")
    raise ConfigError(
        "the neo4j graph store is not available in this build; use FATHOM_GRAPH__BACKEND=sqlite"
    )
