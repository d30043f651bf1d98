"""SourceMemoryActor: the one owner of the embedded stores (Qdrant Edge, the graph store).

Remembers which domains and pages were productive across sessions, and keeps
each session's state, events, questions and facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from actors.actor_class import actor_class
from fathom_ray.adapters.graph_stores import open_graph_store
from fathom_ray.adapters.memory_points import SourceMemory, Suggestion
from fathom_ray.adapters.memory_stores import open_source_memory
from fathom_ray.models import Event
from fathom_ray.ports import GraphStore
from fathom_ray.research.session_state import SessionState, SessionSummary
from fathom_ray.settings import Settings

EMBEDDING_DIMENSION = 384


class SourceMemoryService:
    def __init__(self, settings: Settings, dimension: int = EMBEDDING_DIMENSION) -> None:
        self._settings = settings
        self._dimension = dimension
        self._vectors: SourceMemory | None = None
        self._store: GraphStore | None = None

    def start(self) -> None:
        if self._vectors is None:
            self._vectors = open_source_memory(self._settings, self._dimension)
        if self._store is None:
            self._store = open_graph_store(self._settings)

    @property
    def vectors(self) -> SourceMemory:
        self.start()
        assert self._vectors is not None
        return self._vectors

    @property
    def store(self) -> GraphStore:
        self.start()
        assert self._store is not None
        return self._store

    def stop(self) -> None:
        if self._vectors is not None:
            self._vectors.close()
        if self._store is not None:
            self._store.close()
        self._vectors = self._store = None

    def domain_qualities(self, domains: Sequence[str]) -> dict[str, float]:
        return self.vectors.domain_qualities(domains)

    def suggest(self, vector: Sequence[float], limit: int, exclude: Sequence[str]) -> list[Suggestion]:
        return self.vectors.suggest(vector, limit, exclude)

    def record_page(
        self, url: str, *, title: str, vector: Sequence[float], signal: float, facts: int
    ) -> float:
        self.vectors.remember_page(url, title, vector, facts)
        return self.vectors.record_visit(url, signal)

    def checkpoint(self, state: SessionState, events: Sequence[Event]) -> None:
        self.store.save_session(state)
        self.store.append_events(state.session_id, events)
        self.store.record_facts(state.session_id, state.checklist, state.fact_ledger.facts)

    def load_session(self, session_id: str) -> SessionState | None:
        return self.store.load_session(session_id)

    def events(self, session_id: str, after_seq: int = 0) -> list[Event]:
        return self.store.events(session_id, after_seq)

    def list_sessions(self) -> list[SessionSummary]:
        return self.store.list_sessions()

    def delete_session(self, session_id: str) -> bool:
        return self.store.delete_session(session_id)


def source_memory_actor(name: str | None = None, **placement: Any) -> Any:
    return actor_class(SourceMemoryService).options(
        num_cpus=0, max_restarts=3, max_task_retries=3, name=name, **placement
    )
