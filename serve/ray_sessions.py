"""The SessionManager over Ray: one Session actor per session, the shared actors found by name."""

from __future__ import annotations

import asyncio
import logging
import shutil
import time
from typing import Any

import ray
from ray.exceptions import RayError

from actors.coordinator import coordinator_actor
from actors.detached import detached
from actors.engine import Engine
from actors.ray_errors import failure_reason
from fathom_ray.errors import InvalidRequestError, SessionNotFoundError
from fathom_ray.models import Event, EventType, JsonValue, ResearchRequest
from fathom_ray.research.report_html import session_page
from fathom_ray.research.results import summary_record
from fathom_ray.research.session_state import (
    FAILED,
    RUNNING,
    STARTED_ID,
    SessionState,
    SessionSummary,
    new_session_id,
)
from fathom_ray.swarm.bundle import bundle_zip, read_bundle
from fathom_ray.swarm.task_ledger import check_swarm_id
from serve.sessions import NoBundleError, NoReportError, SessionBusyError, SessionRunningError

logger = logging.getLogger(__name__)
ENDING_POLLS, ENDING_POLL_S = 60, 0.5  # how long a delete waits for an ended session's run to return
FAILURES_KEPT = 1000  # runs that raised, remembered for when the stores could not record it


class RaySessionManager:
    """Admits at most ``max_sessions`` running sessions; finished ones are read from the stores.

    With several Serve replicas, each admits its own; a session another replica started is found
    by its actor's name (session and coordinator actors are named by their id). A session whose
    actor is gone while its checkpoint says it runs (the replica that started it was lost, and its
    actors with it) is started again from that checkpoint by the replica that is asked about it.
    """

    def __init__(self, engine: Engine, max_sessions: int, replica: str = "") -> None:
        self._engine = engine
        self._max_sessions = max_sessions
        self._replica = replica
        self._running: dict[str, tuple[Any, Any]] = {}
        self._requests: dict[str, ResearchRequest] = {}
        self._swarms: set[str] = set()
        self._failures: dict[str, str] = {}  # runs that raised, by id: their reasons

    def _prune(self) -> None:
        """End the actors whose run has returned (a swarm's coordinator takes its researchers along);
        a run that raised is remembered with its reason, for when the stores could not record it."""
        for session_id in list(self._running):
            self._reap(session_id)

    def _reap(self, session_id: str) -> bool:
        """End one run's actor if its run has returned; whether it had (False for a run of another
        replica's, which this one cannot see end)."""
        running = self._running.get(session_id)
        if running is None:
            return False
        actor, done = running
        ready, _ = ray.wait([done], timeout=0)
        if not ready:
            return False
        try:  # finished: its state is in the stores from now on
            ray.get(done, timeout=0)
        except RayError as e:
            self._failures[session_id] = failure_reason(e)
            if len(self._failures) > FAILURES_KEPT:  # the oldest go: memory stays bounded
                del self._failures[next(iter(self._failures))]
        del self._running[session_id]
        self._requests.pop(session_id, None)
        self._swarms.discard(session_id)
        ray.kill(actor)
        return True

    async def start(self, request: ResearchRequest, agents: int | None = None) -> str:
        """A session, or with ``agents`` a swarm: its coordinator counts as one running session
        (its researchers share the swarm's page budget)."""
        self._prune()
        if len(self._running) >= self._max_sessions:
            raise SessionBusyError(len(self._running))
        if agents is None:
            session_id = new_session_id("s")
            actor = self._engine.spawn_session(session_id, request)
        else:
            session_id = new_session_id("w")
            engine = self._engine
            self._swarms.add(session_id)
            actor = coordinator_actor(session_id).remote(
                engine.settings,
                session_id,
                request,
                agents,
                engine.directory,
                engine.network,
                engine.judge.label,
            )
        self._running[session_id] = (actor, detached(actor.run.remote))
        self._requests[session_id] = request
        return session_id

    async def bundle(self, session_id: str) -> bytes:
        try:  # a bundle's folder is named as its ledger is: by the swarm id
            check_swarm_id(session_id)
        except InvalidRequestError:
            raise SessionNotFoundError(session_id) from None
        folder = self._engine.settings.data_dir / "bundles" / session_id
        if folder.is_dir():
            files, pdf = read_bundle(folder)
            return bundle_zip(session_id, files, pdf)
        if session_id in self._swarms and session_id in self._running:
            raise NoBundleError(session_id, "still running")
        await self.result(session_id)  # 404 for an unknown id
        raise NoBundleError(session_id, "only a finished swarm has one")

    async def forget(self, session_id: str) -> None:
        state = await self.result(session_id)  # 404 for an unknown id
        for _ in range(ENDING_POLLS):  # its end is stored: its run returns a moment later
            if state.status == RUNNING or session_id not in self._running or self._reap(session_id):
                break
            await asyncio.sleep(ENDING_POLL_S)
        if state.status == RUNNING or self._actor(session_id) is not None:
            raise SessionRunningError(session_id)
        if not await self._engine.handles.memory.delete_session.remote(session_id):
            raise SessionNotFoundError(session_id)
        if STARTED_ID.fullmatch(session_id):  # a swarm's bundle is named by its id
            shutil.rmtree(self._engine.settings.data_dir / "bundles" / session_id, ignore_errors=True)

    async def report_pdf(self, session_id: str) -> bytes:
        state = await self.result(session_id)
        if state.status == RUNNING:
            raise NoReportError(session_id, "still running")
        page = session_page(state.request.goal, state.report_markdown, state.fact_ledger.facts)
        try:
            pdf: bytes = await self._engine.handles.browser.pdf.remote(page)
        except RayError as e:
            raise NoReportError(session_id, f"printing failed: {failure_reason(e)}") from e
        return pdf

    def _actor(self, session_id: str) -> Any | None:
        """The running session's (or swarm's) actor, this replica's or another's; None when none runs."""
        running = self._running.get(session_id)
        if running is not None:
            return running[0]
        if not STARTED_ID.fullmatch(session_id):  # an id this API gives, never another actor's name
            return None
        try:
            return ray.get_actor(session_id)
        except ValueError:
            return None

    async def events(self, session_id: str, after_seq: int) -> list[Event]:
        """Polled by every open stream, so it prunes no other run (``result`` and the others do). A
        run of this replica's that has returned is ended here, and its stream then reads the stores
        (with the run's failure when they could not take its end): a stream never waits on a run
        that is over for an event its actor never logged."""
        running = self._actor(session_id)
        found: list[Event] = []
        if running is not None:
            try:
                found = await running.events_since.remote(after_seq)
            except RayError:
                pass  # restarting or gone: the stores have every checkpointed event
            else:
                if (found and found[-1].type.is_terminal) or not self._reap(session_id):
                    return found
            running = self._actor(session_id)
        state: SessionState | None = await self._engine.handles.memory.load_session.remote(session_id)
        if running is None and state is not None:
            self._adopt(state)
        after = found[-1].seq if found else after_seq
        stored: list[Event] = [*found, *await self._engine.handles.memory.events.remote(session_id, after)]
        if not stored and running is None and state is None:
            raise SessionNotFoundError(session_id)
        failure = self._failures.get(session_id)
        if failure is not None and not (stored and stored[-1].type.is_terminal):
            # the run failed and the stores could not take its last events: end the stream here
            seq = max(after_seq, stored[-1].seq if stored else 0) + 1
            stored.append(Event(session_id, seq, EventType.ERROR, {"status": failure}))
        return stored

    def _adopt(self, state: SessionState) -> None:
        """Run an orphaned session again from its checkpoint on this replica (``state`` says it runs
        but no actor by its name lives). A swarm is not resumed: its coordinator keeps no checkpoint."""
        session_id = state.session_id
        if (
            state.status != RUNNING
            or not session_id.startswith("s-")
            or session_id in self._failures
            or self._actor(session_id) is not None
        ):
            return
        try:
            actor = self._engine.spawn_session(session_id, state.request)
        except ValueError:  # another replica adopted it a moment ago
            return
        logger.info("session %s lost its actor: resuming it from its checkpoint", session_id)
        self._running[session_id] = (actor, detached(actor.run.remote))
        self._requests[session_id] = state.request

    async def result(self, session_id: str) -> SessionState:
        self._prune()
        state: SessionState | None = await self._engine.handles.memory.load_session.remote(session_id)
        if state is not None:
            failure = self._failures.get(session_id)
            if failure is not None and state.status == RUNNING:  # the stores missed how it ended
                state.status, state.stop_reason = FAILED, failure
                return state
            self._adopt(state)
            return state
        if session_id in self._requests:  # started, not yet checkpointed
            return SessionState(session_id, self._requests[session_id])
        running = self._actor(session_id)  # started by another replica, not yet checkpointed
        if running is not None:
            try:
                request: ResearchRequest = await running.started_with.remote()
            except RayError:
                raise SessionNotFoundError(session_id) from None
            return SessionState(session_id, request)
        raise SessionNotFoundError(session_id)

    async def cancel(self, session_id: str) -> bool:
        running = self._actor(session_id)
        if running is None:
            await self.result(session_id)  # 404 for an unknown id; an orphan is adopted, and so cancelled
            running = self._actor(session_id)
            if running is None:
                return False
        try:
            await detached(running.cancel.remote)
        except RayError:  # it ended as it was asked
            return False
        return True

    async def operations(self) -> dict[str, JsonValue]:
        self._prune()
        return {
            "judge": self._engine.judge.label,
            "max_sessions": self._max_sessions,
            "running": len(self._running),
            "dashboard_url": self._engine.dashboard_url,
            "web": "offline" if self._engine.network.exclusive else "internet",
            "replica": self._replica,  # which replica answered, and on which Ray node
            "node": ray.get_runtime_context().get_node_id(),
        }

    async def list(self) -> list[dict[str, JsonValue]]:
        self._prune()
        rows: list[SessionSummary] = await self._engine.handles.memory.list_sessions.remote()
        saved = {row.id for row in rows}
        unsaved = [  # started here and not yet checkpointed: listed at once, as running
            SessionSummary(i, r.goal, RUNNING, updated=time.time(), owner=r.owner, depth=r.depth)
            for i, r in reversed(self._requests.items())
            if i not in saved
        ]
        return [summary_record(row) for row in (*unsaved, *rows)]
