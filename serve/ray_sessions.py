"""The SessionManager over Ray: one Session actor per session, the shared actors found by name."""

from __future__ import annotations

import uuid
from typing import Any

import ray
from ray.exceptions import RayError

from actors.detached import detached
from actors.engine import Engine
from fathom_ray.errors import SessionNotFoundError
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.session_state import SessionState
from serve.sessions import SessionBusyError


class RaySessionManager:
    """Admits at most ``max_sessions`` running sessions; finished ones are read from the stores."""

    def __init__(self, engine: Engine, max_sessions: int) -> None:
        self._engine = engine
        self._max_sessions = max_sessions
        self._running: dict[str, tuple[Any, Any]] = {}
        self._requests: dict[str, ResearchRequest] = {}

    def _prune(self) -> None:
        for session_id, (actor, done) in list(self._running.items()):
            ready, _ = ray.wait([done], timeout=0)
            if ready:  # finished: its state is in the stores from now on
                del self._running[session_id]
                self._requests.pop(session_id, None)
                ray.kill(actor)

    async def start(self, request: ResearchRequest) -> str:
        self._prune()
        if len(self._running) >= self._max_sessions:
            raise SessionBusyError(len(self._running))
        session_id = f"s-{uuid.uuid4().hex[:12]}"
        actor = self._engine.spawn_session(session_id, request)
        self._running[session_id] = (actor, detached(actor.run.remote))
        self._requests[session_id] = request
        return session_id

    async def events(self, session_id: str, after_seq: int) -> list[Event]:
        running = self._running.get(session_id)
        if running is not None:
            try:
                return await running[0].events_since.remote(after_seq)  # type: ignore[no-any-return]
            except RayError:
                pass  # restarting or gone: the stores have every checkpointed event
        stored: list[Event] = await self._engine.handles.memory.events.remote(session_id, after_seq)
        if (
            not stored
            and running is None
            and await self._engine.handles.memory.load_session.remote(session_id) is None
        ):
            raise SessionNotFoundError(session_id)
        return stored

    async def result(self, session_id: str) -> SessionState:
        state: SessionState | None = await self._engine.handles.memory.load_session.remote(session_id)
        if state is not None:
            return state
        if session_id in self._requests:  # started, not yet checkpointed
            return SessionState(session_id, self._requests[session_id])
        raise SessionNotFoundError(session_id)

    async def cancel(self, session_id: str) -> bool:
        running = self._running.get(session_id)
        if running is None:
            await self.result(session_id)  # 404 for an unknown id
            return False
        await detached(running[0].cancel.remote)
        return True

    async def list(self) -> list[dict[str, str]]:
        rows = await self._engine.handles.memory.list_sessions.remote()
        return [{"id": i, "goal": g, "status": s} for i, g, s in rows]
