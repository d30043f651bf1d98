"""Picking the graph store the settings name."""

from __future__ import annotations

from fathom_ray.adapters.neo4j_graph import Neo4jGraphStore
from fathom_ray.adapters.sqlite_graph import SqliteGraphStore
from fathom_ray.ports import GraphStore
from fathom_ray.settings import Settings


def open_graph_store(settings: Settings) -> GraphStore:
    """SQLite under the data folder by default; Neo4j when FATHOM_GRAPH__BACKEND=neo4j."""
    if settings.graph.backend == "neo4j":
        return Neo4jGraphStore(settings.neo4j)
    return SqliteGraphStore(settings.data_dir / "graph.sqlite")
