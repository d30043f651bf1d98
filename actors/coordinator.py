"""The Coordinator actor: a swarm's coordinator loop, its researchers as Researcher actors it owns.

Each researcher is a Researcher actor (actors/researcher.py), made once and handed sub-goals one
after another, each run there as a session on the shared engine (its judge calls batch with the
others', its frontier shares politeness and memory). Created by this actor and so owned by it:
when the coordinator ends, is cancelled or is killed, Ray ends its researchers too. A new
researcher that does not answer within ``swarm.ready_s`` is killed and recorded; one that crashes
is recorded, never used again, and its sub-goal given once more (the loop in
``fathom_ray.swarm.coordinator``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

import ray
from ray.exceptions import RayActorError, RayError

from actors.actor_class import actor_class
from actors.directory import ActorDirectory, Remote, RemoteJudge, WebSearch
from actors.researcher import researcher_actor
from actors.swarm_roles import role_actors
from fathom_ray.adapters.search_backends import open_searcher
from fathom_ray.models import Event, EventType, JsonValue, ResearchRequest
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_state import FAILED, SessionOutcome, SessionState
from fathom_ray.settings import Settings
from fathom_ray.swarm.bundle import SwarmReport, bundle_files, report_page, write_bundle
from fathom_ray.swarm.coordinator import Coordinator, ResearcherOutcome
from fathom_ray.swarm.plan import SubGoal, check_agents
from fathom_ray.swarm.results import swarm_result, swarm_state
from fathom_ray.swarm.task_ledger import Beacon, LedgerRecord, RecordKind, read_text
from fathom_ray.web.network import NetworkMap

if TYPE_CHECKING:  # the engine's module imports every store and the browser: not for the actor's process
    from actors.engine import Engine

logger = logging.getLogger(__name__)
RELAY_S = 0.5  # how often a researcher's new events are relayed to the swarm's log


class _Researchers:
    """The swarm's researchers: Researcher actors made once each (at most one per agent at a time)
    and handed sub-goals one after another; one that crashed or was killed is let go and replaced."""

    def __init__(self, service: CoordinatorService) -> None:
        self._service = service
        self._idle: list[Any] = []  # researchers between sub-goals
        self.made: list[Any] = []  # every researcher this swarm made, to end with it

    def _researcher(self) -> tuple[Any, bool]:
        """An idle researcher, or a new one (True: not yet known to be ready)."""
        if self._idle:
            return self._idle.pop(0), False
        service = self._service
        name = f"{service.swarm_id}-researcher-{len(self.made) + 1}"
        actor = researcher_actor(name, scheduling_strategy="SPREAD").remote(  # as the engine's sessions
            service.settings, service.swarm_id, service.parts, service.network
        )
        self.made.append(actor)
        return actor, True

    async def research(self, sub: SubGoal) -> ResearcherOutcome:
        service = self._service
        request = ResearchRequest(
            sub.goal,
            depth=service.request.depth,
            max_pages=max(1, sub.budget.pages),
            time_budget_s=max(1.0, sub.budget.time_s),
            token_budget=max(1, sub.budget.tokens),
            sources=service.request.sources,
            owner=service.request.owner,  # a swarm's researchers are its owner's
            seeds=sub.seeds,
        )
        session_id = service.session_of(sub.agent)
        actor, fresh = self._researcher()
        service.running[sub.agent] = actor
        try:
            if fresh:
                await self._ready(actor, sub.agent)
            outcome = await self._run_relaying(actor, session_id, request, sub.agent)
        except RayActorError:
            ray.kill(actor, no_restart=True)  # lost or killed: never handed another sub-goal
            raise
        except TimeoutError:
            raise  # not ready: killed already
        except Exception:
            self._idle.append(actor)  # its session failed, not the researcher: it may take another
            raise
        finally:
            service.running.pop(sub.agent, None)
        self._idle.append(actor)  # its session is in the stores; the next sub-goal may come
        return ResearcherOutcome.of(sub.agent, outcome.state, reported=True)

    async def _ready(self, actor: Any, agent: str) -> None:
        """A new researcher answers within ``swarm.ready_s``, or is killed (``TimeoutError``)."""
        ready_s = self._service.settings.swarm.ready_s
        try:
            await asyncio.wait_for(actor.ready.remote(), ready_s)
        except TimeoutError:
            ray.kill(actor, no_restart=True)
            raise TimeoutError(f"{agent} not ready within {ready_s:g} s") from None

    async def _run_relaying(
        self, actor: Any, session_id: str, request: ResearchRequest, agent: str
    ) -> SessionOutcome:
        """The researcher's run; meanwhile its events go on in the swarm's log with its agent id
        (its ``complete`` or ``error`` is not the swarm's: the agent event says how it ended)."""
        run = asyncio.ensure_future(_outcome(actor.research.remote(session_id, request, agent)))
        seen = 0
        while True:
            await asyncio.wait({run}, timeout=RELAY_S)
            try:
                events: list[Event] = await actor.events_since.remote(session_id, seen)
            except RayError:
                events = []  # gone: its run says what happened
            for event in events:
                seen = event.seq
                if not event.type.is_terminal:
                    self._service.events.emit(event.type, {**event.data, "agent": agent})
            if run.done():
                return run.result()

    def end(self) -> None:
        """End every researcher this swarm made (they end with the coordinator anyway)."""
        for actor in self.made:
            ray.kill(actor, no_restart=True)


async def _outcome(call: Any) -> SessionOutcome:
    outcome: SessionOutcome = await call
    return outcome


class _RemoteLedger:
    """The swarm's records sent to the ledger actor in order, without waiting on each."""

    def __init__(self, handle: Any, swarm_id: str) -> None:
        self._handle, self._swarm_id = handle, swarm_id

    def append(
        self,
        agent: str,
        kind: RecordKind,
        data: dict[str, JsonValue] | None = None,
        *,
        beacon: Beacon | None = None,
    ) -> None:
        self._handle.append.remote(self._swarm_id, agent, kind, data, beacon)

    async def flush(self) -> None:
        """Answered once every record sent before it is written."""
        await self._handle.flush.remote(self._swarm_id)


class CoordinatorService:
    """No I/O in ``__init__``; ``run`` drives the swarm to its report and its bundle (kept under
    ``DATA_DIR/bundles/<swarm_id>/``)."""

    def __init__(  # noqa: PLR0917 (Ray builds actors from positional arguments)
        self,
        settings: Settings,
        swarm_id: str,
        request: ResearchRequest,
        agents: int,
        parts: ActorDirectory,
        network: NetworkMap,
        judge_label: str = "",
    ) -> None:
        self.settings, self.swarm_id, self.request = settings, swarm_id, request
        self.agents = check_agents(agents)
        self.parts, self.network, self.judge_label = parts, network, judge_label
        self.running: dict[str, Any] = {}
        self.events = EventLog(swarm_id)
        self._swarm: Coordinator | None = None
        self._cancel_requested = False

    async def run(self) -> SwarmReport:
        started = time.monotonic()
        handles = self.parts.resolve()
        folder = self.settings.data_dir / "ledger"
        ledger = _RemoteLedger(handles.ledger, self.swarm_id)
        await handles.ledger.watch.remote(self.swarm_id, ray.get_runtime_context().current_actor)
        analyst, verifier = role_actors(self.swarm_id, self.parts)  # owned here: they end with the swarm
        researchers = _Researchers(self)
        self._swarm = swarm = Coordinator(
            self.swarm_id,
            self.request.goal,
            judge=RemoteJudge(handles.judge),
            researchers=researchers,
            ledger=ledger,
            agents=self.agents,
            budget=self.request.budget,
            checklist_size=self.request.preset.checklist_size,
            replan_rounds=self.settings.swarm.replan_rounds,
            parallel=self.settings.swarm.parallel,
            events=self.events,
            analyst=Remote(analyst),
            verifier=Remote(verifier),
        )
        if self._cancel_requested:
            swarm.cancel()
        memory = Remote(handles.memory)
        try:
            async with open_searcher(self.settings, self.network) as searcher:
                swarm.use_search(WebSearch(searcher))
                result = await swarm.run()
            await ledger.flush()
        except Exception as e:
            state = SessionState(
                self.swarm_id, self.request, status=FAILED, stop_reason=f"{type(e).__name__}: {e}"
            )
            self.events.emit_error(state.stop_reason)
            await memory.checkpoint(state, self.events.take_unsaved())
            raise
        finally:  # the researchers, the analyst and the verifier are done with the swarm's run
            researchers.end()
            for role in (analyst, verifier):
                ray.kill(role, no_restart=True)
            handles.frontier.drop_group.remote(self.swarm_id)  # its researchers' claims on pages
        elapsed = time.monotonic() - started
        research = swarm_result(result, self.request.depth, self.judge_label, elapsed)
        page = report_page(result)
        pdf = await self._pdf(handles.browser, page)
        ledger_jsonl = read_text(folder, self.swarm_id)
        files = bundle_files(result, research, ledger_jsonl, with_pdf=pdf is not None, page=page)
        write_bundle(self.settings.data_dir / "bundles" / self.swarm_id, files, pdf)
        state = swarm_state(result, self.request, swarm.verified(), elapsed, self.judge_label)
        self.events.emit(
            EventType.COMPLETE,
            {"facts": len(state.fact_ledger.facts), "pages": state.pages_fetched, "bundle": True},
        )
        await memory.checkpoint(state, self.events.take_unsaved())
        handles.ledger.close.remote(self.swarm_id)
        return SwarmReport(result, research, files, pdf)

    async def wake(self, record: LedgerRecord) -> None:
        """An attention record of this swarm, at once: into the stream; a blocked researcher is asked
        to stop and hand back what it has (its sub-goal stays open for the gap-filling rounds)."""
        data = {k: v for k, v in record.data.items() if k != "agent"}
        self.events.emit(EventType.AGENT, {"agent": record.agent, "status": "attention", **data})
        actor = self.running.get(record.agent)
        if record.data.get("beacon") == Beacon.BLOCKED.value and actor is not None:
            actor.cancel.remote(self.session_of(record.agent))

    def session_of(self, agent: str) -> str:
        """The id of the session ``agent``'s sub-goal runs as (its records and its events)."""
        return f"{self.swarm_id}-{agent}"

    async def events_since(self, seq: int) -> list[Event]:
        return self.events.since(seq)

    async def started_with(self) -> ResearchRequest:
        """The request this swarm runs (for an API replica that did not start it)."""
        return self.request

    async def _pdf(self, browser: Any, html: str) -> bytes | None:
        try:
            pdf: bytes = await browser.pdf.remote(html)
        except Exception as e:  # noqa: BLE001 (no browser, no PDF: the bundle ships without it)
            logger.warning("swarm %s: report.pdf not printed: %s", self.swarm_id, e)
            return None
        return pdf

    async def researchers(self) -> list[str]:
        """The researchers running now, by agent name."""
        return sorted(self.running)

    async def cancel(self) -> None:
        """Start no more researchers; ask the running ones to stop and hand back what they found,
        kill those still running after ``swarm.cancel_grace_s``; the swarm composes what it has."""
        self._cancel_requested = True
        if self._swarm is not None:
            self._swarm.cancel()
        for agent, actor in list(self.running.items()):
            actor.cancel.remote(self.session_of(agent))
        deadline = time.monotonic() + self.settings.swarm.cancel_grace_s
        while self.running and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        for actor in list(self.running.values()):
            ray.kill(actor, no_restart=True)


def coordinator_actor(name: str | None = None) -> Any:
    """The Coordinator actor class; ``name`` (the swarm's id) heads the task tree in the dashboard."""
    return actor_class(CoordinatorService).options(num_cpus=0, max_restarts=0, name=name)


def run_swarm(engine: Engine, request: ResearchRequest, swarm_id: str, agents: int) -> SwarmReport:
    """Run a swarm on ``engine`` to its report (its coordinator, and so its researchers, end with it)."""
    coordinator = coordinator_actor(swarm_id).remote(
        engine.settings, swarm_id, request, agents, engine.directory, engine.network, engine.judge.label
    )
    try:
        result: SwarmReport = ray.get(coordinator.run.remote())
    finally:
        ray.kill(coordinator, no_restart=True)
    return result
