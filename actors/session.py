"""SessionActor: drives one research session, talking to the shared actors.

It restarts after a crash (``max_restarts``) and Ray retries ``run`` on the new
instance (``max_task_retries``); ``run`` loads the last checkpoint and resumes.
A lost browser pool, extractor or judge call is a failure value for one page,
never the end of the session.
"""

from __future__ import annotations

import asyncio
import logging
import time
import zlib
from typing import Any

from ray.exceptions import RayError, TaskCancelledError

from actors.actor_class import actor_class
from actors.detached import detached
from actors.directory import ActorDirectory, Handles, Remote, RemoteJudge, WebSearch
from actors.metrics import SessionMetrics
from actors.ray_errors import failure_reason
from actors.task_ledger import AgentReports
from fathom_ray.adapters.search_backends import open_searcher
from fathom_ray.errors import SessionError
from fathom_ray.models import (
    Event,
    ExtractedPage,
    FetchResult,
    ResearchRequest,
)
from fathom_ray.ports import Searcher
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_loop import ResearchSession, Services
from fathom_ray.research.session_state import CANCELLED, FAILED, SessionOutcome, SessionState
from fathom_ray.research.single_pass import single_pass
from fathom_ray.settings import Settings
from fathom_ray.web.network import NetworkMap

logger = logging.getLogger(__name__)


class _Extractor(Remote):
    async def extract(self, result: FetchResult) -> ExtractedPage:
        try:
            return await self._handle.extract.remote(result)  # type: ignore[no-any-return]
        except RayError as e:
            logger.warning("extractor lost on %s: %s", result.url, e)
            return ExtractedPage(result.url, "", "", method="extractor-lost")


class SessionService:
    """No I/O in ``__init__``; ``run`` does the work and may be retried after a crash."""

    def __init__(  # noqa: PLR0917 (Ray builds actors from positional arguments)
        self,
        settings: Settings,
        session_id: str,
        request: ResearchRequest,
        parts: ActorDirectory,
        network: NetworkMap,
        swarm: tuple[str, str] | None = None,
        *,
        own_process: bool = True,
    ) -> None:
        """``swarm``: (swarm id, agent) of a swarm's researcher, which writes its own ledger records.
        In an actor the process is the session's own (``own_process``): its log lines carry the
        session id; hosted in a command's process (``run_session_here``) the command's logging stays."""
        if own_process:
            logging.basicConfig(
                level=logging.INFO,
                format=f"%(asctime)s {session_id} %(levelname)s %(name)s: %(message)s",
                force=True,
            )
        self._settings = settings
        self._swarm = swarm
        self._session_id = session_id
        self._request = request
        self._parts = parts
        self._found: Handles | None = None
        self._network = network
        self._loop: ResearchSession | None = None
        self._cancel_requested = False
        self._events = EventLog(session_id)

    @property
    def _handles(self) -> Handles:
        """The shared actors, looked up by name on first use (never in ``__init__``)."""
        if self._found is None:
            self._found = self._parts.resolve()
        return self._found

    async def run(self) -> SessionOutcome:
        memory = Remote(self._handles.memory)
        saved: SessionState | None = await memory.load_session(self._session_id)
        state = saved or SessionState(self._session_id, self._request)
        metrics = SessionMetrics(self._session_id)
        metrics.started()
        reports = AgentReports(self._handles.ledger, *self._swarm) if self._swarm is not None else None

        def observe(event: Event) -> None:
            metrics.observe(event)
            if reports is not None:
                reports.observe(event)

        self._events = EventLog.resume(self._session_id, await memory.events(self._session_id), observe)
        group = self._swarm[0] if self._swarm is not None else ""  # a swarm's researchers share claims
        await Remote(self._handles.frontier).open(self._session_id, self._request.preset.url_pool, group)
        try:
            async with open_searcher(self._settings, self._network) as searcher:
                services = self._services(searcher)
                self._loop = ResearchSession(state, self._events, services, self._settings.research)
                if self._cancel_requested:
                    self._loop.cancel()
                state = await self._loop.run()
        except (asyncio.CancelledError, TaskCancelledError):
            # the task itself was cancelled (ray.cancel): no report, but a record. Ray's cancel is
            # recursive, so a call of this run's may be cancelled (TaskCancelledError) before the run is.
            state.status, state.stop_reason = CANCELLED, "cancelled"
            self._events.emit_error(CANCELLED)
            unsaved = self._events.take_unsaved()
            detached(lambda: self._handles.memory.checkpoint.remote(state, unsaved))
            raise
        except Exception as e:
            state.status, state.stop_reason = FAILED, failure_reason(e)
            self._events.emit_error(state.stop_reason)
            try:
                await memory.checkpoint(state, self._events.take_unsaved())
            except Exception as saving:  # noqa: BLE001 (the store itself failed: it keeps what it last took)
                logger.error("the failure could not be saved: %s", failure_reason(saving))
            raise
        finally:
            # the frontier keeps a session's pool only while it runs (it is saved, so a retried run
            # reloads it); sent outside this task, so a cancelled run still lets go of it
            detached(lambda: self._handles.frontier.close.remote(self._session_id))
        if reports is not None:
            await reports.finish(state)
        return SessionOutcome(state)

    def _services(self, searcher: Searcher) -> Services:
        return Services(
            judge=RemoteJudge(self._handles.judge),
            browser=self._parts.browsers(start=zlib.crc32(self._session_id.encode())),
            extractor=_Extractor(self._handles.extractor),
            embedder=Remote(self._handles.embedder),
            memory=Remote(self._handles.memory),
            frontier=Remote(self._handles.frontier),
            search=WebSearch(searcher),
            documents=self._documents(),
        )

    def _documents(self) -> Remote | None:
        """The document store, for a session that researches the user's documents."""
        if "documents" not in self._request.sources:
            return None
        if self._handles.documents is None:
            raise SessionError(self._session_id, "this engine was started without the document store")
        return Remote(self._handles.documents)

    async def run_single_pass(self) -> SessionOutcome:
        """The single-pass baseline on this request (for `fathom eval`): its state and stage times."""
        state = SessionState(self._session_id, self._request)
        started = time.monotonic()
        async with open_searcher(self._settings, self._network) as searcher:
            s = self._services(searcher)
            state, stages = await single_pass(
                state,
                self._events,
                judge=s.judge,
                browser=s.browser,
                extractor=s.extractor,
                frontier=s.frontier,
                search=s.search,
            )
        state.elapsed_s = time.monotonic() - started
        await Remote(self._handles.memory).checkpoint(state, self._events.take_unsaved())
        return SessionOutcome(state, tuple(stages.items()))

    async def events_since(self, seq: int) -> list[Event]:
        return self._events.since(seq)

    async def started_with(self) -> ResearchRequest:
        """The request this session runs (for an API replica that did not start it)."""
        return self._request

    async def cancel(self) -> None:
        """Stop the session now (on the actor's event loop, where its work runs), or as soon as it starts."""
        self._cancel_requested = True
        if self._loop is not None:
            self._loop.cancel()


def session_actor(name: str | None = None, **placement: Any) -> Any:
    """The Session actor class; ``name`` (a swarm's researcher) shows the task tree in the dashboard.

    ``run`` is retried without a count of its own: the restarts bound it. While a lost node is not
    yet known to be dead, each retry fails at once as "temporarily unavailable"; a count (3) ran
    out in those seconds, before the actor restarted on another node.
    """
    return actor_class(SessionService).options(
        num_cpus=0, max_restarts=3, max_task_retries=-1, name=name, **placement
    )
