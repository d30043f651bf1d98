"""FrontierActor: every session's candidate pool and the per-host politeness they all share.

Pools live in memory and are saved to the graph store at each checkpoint, so a
restarted actor (or a resumed session) finds them again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from actors.actor_class import actor_class
from fathom_ray.adapters.graph_stores import open_graph_store
from fathom_ray.models import Candidate
from fathom_ray.ports import GraphStore
from fathom_ray.research.frontier import EntryState, SessionFrontier
from fathom_ray.research.shared_reads import SharedReads
from fathom_ray.settings import Settings
from fathom_ray.web.politeness import Politeness


class FrontierService:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._store: GraphStore | None = None
        self._pools: dict[str, SessionFrontier] = {}
        self._politeness = Politeness(settings.fetch.min_host_delay_s)
        self._shared = SharedReads()  # a swarm's researchers read each page once between them

    def _graph(self) -> GraphStore:
        if self._store is None:
            self._store = open_graph_store(self._settings)
        return self._store

    def open(self, session_id: str, url_pool: int, group: str = "") -> dict[str, int]:
        """The session's pool, loaded from the store when it was saved before; ``group`` (a swarm's
        id) shares which pages are claimed with the group's other sessions."""
        self._shared.join(session_id, group)
        if session_id not in self._pools:
            saved = self._graph().load_frontier(session_id)
            self._pools[session_id] = saved or SessionFrontier(url_pool)
        return self._pools[session_id].counts()

    def _pool(self, session_id: str) -> SessionFrontier:
        if session_id not in self._pools:
            saved = self._graph().load_frontier(session_id)
            if saved is None:
                raise KeyError(f"no frontier for session {session_id}; open it first")
            self._pools[session_id] = saved
        return self._pools[session_id]

    def add(self, session_id: str, candidates: Sequence[Candidate]) -> int:
        return len(self._pool(session_id).add(candidates))

    def pending(self, session_id: str) -> list[Candidate]:
        """The session's candidates not yet read, less those another session of its group claimed."""
        return self._shared.unclaimed(session_id, self._pool(session_id).pending())

    def claim(self, session_id: str, urls: Sequence[str]) -> list[str]:
        """Of ``urls`` (the session's next batch), those it may read: no other session of its group
        claimed them first."""
        return self._shared.claim(session_id, urls)

    def drop_group(self, group: str) -> None:
        """The group's swarm ended: let go of its claims."""
        self._shared.drop(group)

    def known(self, session_id: str) -> list[str]:
        return self._pool(session_id).urls()

    def mark(self, session_id: str, url: str, state: str, reason: str = "") -> None:
        self._pool(session_id).mark(url, EntryState(state), reason)

    def counts(self, session_id: str) -> dict[str, int]:
        return self._pool(session_id).counts()

    def reserve(self, url: str) -> float:
        """Seconds to wait before fetching ``url`` so its host sees requests at most once per delay."""
        host = urlsplit(url).hostname or ""
        now = time.monotonic()
        return max(0.0, self._politeness.reserve(host, now) - now)

    def set_crawl_delay(self, url: str, delay_s: float | None) -> None:
        self._politeness.set_crawl_delay(urlsplit(url).hostname or "", delay_s)

    def checkpoint(self, session_id: str) -> None:
        self._graph().save_frontier(session_id, self._pool(session_id))

    def close(self, session_id: str) -> None:
        """Save the session's pool and let go of it (a later call for the session reloads it)."""
        self._shared.leave(session_id)
        if session_id in self._pools:
            self.checkpoint(session_id)
            self._pools.pop(session_id, None)

    def sessions(self) -> list[str]:
        """The sessions whose pools are held in memory now."""
        return list(self._pools)


def frontier_actor(name: str | None = None, **placement: Any) -> Any:
    return actor_class(FrontierService).options(
        num_cpus=0, max_restarts=3, max_task_retries=3, name=name, **placement
    )
