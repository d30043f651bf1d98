"""Starting the shared actors and running sessions on them: what `fathom research` drives."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.exceptions import RayError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from actors.browser_pool import browser_pool_actor
from actors.directory import OPTIONAL_PARTS, ActorDirectory, Handles
from actors.documents import document_store_actor
from actors.embedder import embedder_actor
from actors.extractor_pool import extractor_pool_actor
from actors.frontier import frontier_actor
from actors.judge import judge_actor
from actors.ray_errors import failure_reason
from actors.session import SessionService, session_actor
from actors.source_memory import source_memory_actor
from actors.task_ledger import task_ledger_actor
from fathom_ray.errors import FathomError
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.operations.placement import PartPlacement, plan_placement
from fathom_ray.ports import JudgeInfo
from fathom_ray.research.session_state import SessionOutcome
from fathom_ray.settings import Settings
from fathom_ray.web.network import NetworkMap

STARTUP_TIMEOUT_S = 600
EMBEDDER = "embedder"


@dataclass(frozen=True, slots=True)
class Engine:
    settings: Settings  # with the judge's backend resolved (never ``auto``)
    network: NetworkMap
    handles: Handles
    directory: ActorDirectory  # what Session actors are created with
    judge: JudgeInfo
    dashboard_url: str | None = None  # the Ray dashboard, where the command that started Ray knows it
    metrics_url: str | None = None  # this node's Prometheus endpoint, where that command knows it
    placement: Mapping[str, PartPlacement] = field(default_factory=dict)  # where each part went
    browser_pools: tuple[Any, ...] = ()  # every pool (``handles.browser`` is the first): held, so they live
    startup: Mapping[str, float] = field(default_factory=dict)  # each part's seconds until ready
    started_at: float = 0.0  # time.monotonic() when the parts began to start, on the starting machine
    embedder_warming: Any = None  # the embedder's start, when the engine did not wait for it

    def spawn_session(self, session_id: str, request: ResearchRequest) -> Any:
        """A new Session actor for ``request`` on this engine (not started: call its ``run``)."""
        options = self.placement["session"].options if "session" in self.placement else {}
        return session_actor(session_id, **options).remote(
            self.settings, session_id, request, self.directory, self.network
        )


def cluster_placement(gpu: bool) -> dict[str, PartPlacement]:
    """The plan for this Ray's alive nodes (``fathom_ray.operations.placement``)."""
    alive = [node for node in ray.nodes() if node.get("Alive")]  # type: ignore[no-untyped-call]
    return plan_placement({node["NodeID"]: node["Resources"] for node in alive}, judge_on_gpu=gpu)


def _pool_label(i: int, count: int) -> str:
    return "browser pool (Chromium)" if count == 1 else f"browser pool {i + 1} of {count} (Chromium)"


def _kept_to(nodes: tuple[str, ...], i: int) -> dict[str, Any]:
    """The i-th of one-per-node actors on its node while that node lives, elsewhere (where the
    part's resources are) when it does not."""
    if not nodes:
        return {}
    return {"scheduling_strategy": NodeAffinitySchedulingStrategy(nodes[i], soft=True)}


def cluster_has_gpu() -> bool:
    return bool(ray.cluster_resources().get("GPU", 0))  # type: ignore[no-untyped-call]


def wants_gpu(settings: Settings) -> bool:
    """Where the Judge and Embedder go (``settings`` resolved by ``resolve_judge``): FATHOM_LLM__DEVICE,
    or a GPU if the judge is a vLLM engine and the cluster has a GPU now."""
    if settings.llm.device != "auto":
        return settings.llm.device == "cuda"
    return settings.llm.backend == "vllm" and cluster_has_gpu()


def resolve_judge(settings: Settings) -> Settings:
    """``settings`` with ``FATHOM_LLM__BACKEND=auto`` replaced by the judge it stands for here."""
    gpu = settings.llm.device == "cuda" or (settings.llm.device == "auto" and cluster_has_gpu())
    return settings.model_copy(update={"llm": settings.llm.resolved(gpu)})


def start_engine(
    settings: Settings,
    network: NetworkMap,
    gpu: bool | None = None,
    judge: str | None = None,
    name_prefix: str = "",
    *,
    wait_embedder: bool = True,
    kept: bool = False,
    without: frozenset[str] = frozenset(),
) -> Engine:
    """Create and start every shared actor; a part that cannot start is a ``FathomError`` naming it.

    ``judge`` names a running actor with the Judge's methods that replaces the Judge actor (tests
    pass a scripted one). Every actor is named, ``name_prefix`` + part (``fathom-judge``, ...) so
    operators can find them, or a prefix unique to this engine. Without ``wait_embedder`` the engine
    is returned before the embedder's model has loaded (``Engine.embedder_warming``): a session's
    first steps (its checklist, search, first fetches) run beside the load, and its first embedding
    waits for it. ``kept``: an engine kept for many commands (its embedder's runtime, see
    ``EmbedderSettings.runtime``). ``without``: optional parts (``OPTIONAL_PARTS``) not to start, for
    a command that will not use them (each part is a process to start: on 2 cores, about half a
    second of the engine's start).
    """
    if not without <= OPTIONAL_PARTS:
        raise ValueError(
            f"only {sorted(OPTIONAL_PARTS)} may be left out, not {sorted(without - OPTIONAL_PARTS)}"
        )
    began = time.monotonic()
    settings = resolve_judge(settings)
    if gpu is None:
        gpu = wants_gpu(settings)
    settings = settings.model_copy(update={"embedder": settings.embedder.resolved(kept=kept, gpu=gpu)})
    plan = cluster_placement(gpu)
    directory = ActorDirectory(
        ray.get_runtime_context().namespace,
        name_prefix or f"fathom-{uuid.uuid4().hex[:8]}-",
        (("judge", judge),) if judge is not None else (),
        browser_pools=max(1, len(plan["browser"].nodes)),
        absent=without,
    )
    name = directory.name

    def where(part: str) -> dict[str, Any]:
        return dict(plan[part].options)

    # the longest part first: the embedder's model loads while the other parts start
    embedder = embedder_actor(gpu, name("embedder"), **where("embedder")).remote(settings.embedder)
    warming = embedder.start.remote()
    starts = {EMBEDDER: warming} if wait_embedder else {}
    pools = [
        browser_pool_actor(pool, **where("browser"), **_kept_to(plan["browser"].nodes, i)).remote(
            settings.browser, settings.fetch, network
        )
        for i, pool in enumerate(directory.browser_names())
    ]
    handles = Handles(
        browser=pools[0],
        extractor=extractor_pool_actor(name=name("extractor"), **where("extractor")).remote(timeout_s=30.0),
        judge=ray.get_actor(judge)
        if judge is not None
        else judge_actor(settings.llm, gpu, name("judge"), **where("judge")).remote(
            settings.llm, embedder=settings.embedder, shared_embedder=(name("embedder"), directory.namespace)
        ),
        embedder=embedder,
        memory=source_memory_actor(name("memory"), **where("memory")).remote(settings),
        frontier=frontier_actor(name("frontier"), **where("frontier")).remote(settings),
        documents=None
        if "documents" in without
        else document_store_actor(name("documents"), **where("documents")).remote(
            settings, name("embedder"), directory.namespace
        ),
        ledger=None
        if "ledger" in without
        else task_ledger_actor(name("ledger"), **where("ledger")).remote(settings.data_dir / "ledger"),
    )
    starts = starts | {
        **{_pool_label(i, len(pools)): pool.start.remote() for i, pool in enumerate(pools)},
        "judge": handles.judge.start.remote(),
        "source memory (Qdrant, graph store)": handles.memory.start.remote(),
        "extractor (trafilatura)": handles.extractor.start.remote(),
    }
    if handles.documents is not None:
        starts["document store (Qdrant)"] = handles.documents.start.remote()
    started, ready_s = _started(starts, began)
    info = started["judge"]
    judge_info = info if isinstance(info, JudgeInfo) else JudgeInfo("", "")
    return Engine(
        settings,
        network,
        handles,
        directory,
        judge_info,
        placement=plan,
        browser_pools=tuple(pools),
        startup=ready_s,
        started_at=began,
        embedder_warming=None if wait_embedder else warming,
    )


def _started(starts: Mapping[str, Any], since: float) -> tuple[dict[str, Any], dict[str, float]]:
    """What each part's ``start`` returned, and the seconds from ``since`` until it was ready, in the
    order the parts became ready; the first part that fails is a ``FathomError`` naming it."""
    pending = {ref: part for part, ref in starts.items()}
    started: dict[str, Any] = {}
    ready_s: dict[str, float] = {}
    deadline = since + STARTUP_TIMEOUT_S
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
        if not done:
            raise FathomError(f"the {', '.join(pending.values())} did not start in {STARTUP_TIMEOUT_S} s")
        part = pending.pop(done[0])
        try:
            started[part] = ray.get(done[0])
        except RayError as e:
            raise FathomError(f"the {part} could not start: {failure_reason(e)}") from e
        ready_s[part] = time.monotonic() - since
    return started, ready_s


def run_session(
    engine: Engine,
    request: ResearchRequest,
    session_id: str,
    on_events: Callable[[list[Event]], None] = lambda _: None,
    *,
    poll_s: float = 0.5,
    method: str = "fathom",
) -> tuple[Any, SessionOutcome]:
    """Run one session to its end, handing new events to ``on_events`` as they come.

    ``method`` "single-pass" runs the evaluation's baseline in the Session actor instead of the rounds.
    """
    actor = engine.spawn_session(session_id, request)
    done = (actor.run_single_pass if method == "single-pass" else actor.run).remote()
    seen = 0
    while True:
        ready, _ = ray.wait([done], timeout=poll_s)
        try:
            events = ray.get(actor.events_since.remote(seen), timeout=30)
        except RayError:
            events = []  # the session actor is restarting; its events come back from the store
        seen = _handed_on(events, seen, on_events)
        if ready:
            break
    return actor, ray.get(done)


def run_session_here(
    engine: Engine,
    request: ResearchRequest,
    session_id: str,
    on_events: Callable[[list[Event]], None] = lambda _: None,
    *,
    poll_s: float = 0.25,
) -> SessionOutcome:
    """One session in this process, on the engine's shared actors: the Session actor's own code
    (``SessionService``) without a process to start for it. What `fathom research` runs for its one
    session (a command that ends with its session gains nothing from an actor's restarts); serve,
    eval, swarms and batch jobs run Session actors. A Ctrl-C cancels the session, recorded as such."""
    service = SessionService(
        engine.settings, session_id, request, engine.directory, engine.network, own_process=False
    )
    return asyncio.run(follow_session(service, on_events, poll_s))


async def follow_session(
    service: SessionService, on_events: Callable[[list[Event]], None], poll_s: float
) -> SessionOutcome:
    """Run ``service``'s session here, handing its events on every ``poll_s`` as they come (the
    last of them before it returns); its outcome."""
    run = asyncio.ensure_future(service.run())
    seen = 0
    while True:
        done, _ = await asyncio.wait([run], timeout=poll_s)
        seen = _handed_on(await service.events_since(seen), seen, on_events)
        if done:
            return run.result()


def _handed_on(events: list[Event], seen: int, on_events: Callable[[list[Event]], None]) -> int:
    """Hand ``events`` (those after ``seen``) on, if any; the last sequence number handed on."""
    if not events:
        return seen
    on_events(events)
    return events[-1].seq
