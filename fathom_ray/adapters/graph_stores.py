"""Picking the graph store the settings name (its client imported only then: an actor handle's
module loads wherever the handle goes)."""

from __future__ import annotations

from fathom_ray.adapters.sqlite_graph import SqliteGraphStore
from fathom_ray.ports import GraphStore
from fathom_ray.settings import Settings


def open_graph_store(settings: Settings) -> GraphStore:
    """SQLite under the data folder by default; Neo4j when FATHOM_GRAPH__BACKEND=neo4j."""
    if settings.graph.backend == "neo4j":
        from fathom_ray.adapters.neo4j_graph import Neo4jGraphStore  # noqa: PLC0415 (neo4j only when named)

        return Neo4jGraphStore(settings.neo4j)
    return SqliteGraphStore(settings.data_dir / "graph.sqlite")
