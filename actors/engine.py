"""Starting the shared actors and running sessions on them: what `fathom research` drives."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import ray
from ray.exceptions import RayError

from actors.browser_pool import browser_pool_actor
from actors.embedder import embedder_actor
from actors.extractor_pool import extractor_pool_actor
from actors.frontier import frontier_actor
from actors.judge import judge_actor
from actors.session import ActorNames, Handles, session_actor
from actors.source_memory import source_memory_actor
from fathom_ray.errors import FathomError
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.network import NetworkMap
from fathom_ray.settings import Settings

STARTUP_TIMEOUT_S = 600


@dataclass(frozen=True, slots=True)
class Engine:
    settings: Settings
    network: NetworkMap
    handles: Handles
    names: ActorNames  # what Session actors are created with


def wants_gpu(settings: Settings) -> bool:
    """Where the Judge and Embedder go: FATHOM_LLM__DEVICE, or a GPU if the cluster has one now."""
    if settings.llm.device != "auto":
        return settings.llm.device == "cuda"
    gpus = ray.cluster_resources().get("GPU", 0)  # type: ignore[no-untyped-call]
    return settings.llm.backend == "vllm" and gpus > 0


ENGINE_PARTS = tuple(f.name for f in fields(Handles))  # browser, extractor, judge, embedder, memory, frontier


def start_engine(
    settings: Settings,
    network: NetworkMap,
    gpu: bool | None = None,
    judge: str | None = None,
    name_prefix: str = "",
) -> Engine:
    """Create and start every shared actor; a part that cannot start is a ``FathomError`` naming it.

    ``judge`` names a running actor with the Judge's methods that replaces the Judge actor (tests
    pass a scripted one). Every actor is named, ``name_prefix`` + part (``fathom-judge``, ...) so
    operators can find them, or a prefix unique to this engine.
    """
    if gpu is None:
        gpu = wants_gpu(settings)
    prefix = name_prefix or f"fathom-{uuid.uuid4().hex[:8]}-"

    def name(part: str) -> str:
        return judge if part == "judge" and judge is not None else f"{prefix}{part}"

    handles = Handles(
        browser=browser_pool_actor(name("browser")).remote(settings.browser, settings.fetch, network),
        extractor=extractor_pool_actor(name=name("extractor")).remote(timeout_s=30.0),
        judge=ray.get_actor(judge)
        if judge is not None
        else judge_actor(settings.llm, gpu, name("judge")).remote(settings.llm),
        embedder=embedder_actor(gpu, name("embedder")).remote(settings.embedder),
        memory=source_memory_actor(name("memory")).remote(settings),
        frontier=frontier_actor(name("frontier")).remote(settings),
    )
    starts = {
        "browser pool (Chromium)": handles.browser.start.remote(),
        "judge (LLM engine)": handles.judge.start.remote(),
        "embedder": handles.embedder.start.remote(),
        "source memory (Qdrant, graph store)": handles.memory.start.remote(),
    }
    for part, ref in starts.items():
        try:
            ray.get(ref, timeout=STARTUP_TIMEOUT_S)
        except RayError as e:
            raise FathomError(f"the {part} could not start: {_cause(e)}") from e
    namespace = ray.get_runtime_context().namespace
    return Engine(
        settings, network, handles, ActorNames(namespace, **{part: name(part) for part in ENGINE_PARTS})
    )


def _cause(error: RayError) -> str:
    cause = getattr(error, "cause", None)
    return str(cause or error).strip().splitlines()[-1]


def run_session(
    engine: Engine,
    request: ResearchRequest,
    session_id: str,
    on_events: Callable[[list[Event]], None] = lambda _: None,
    *,
    poll_s: float = 0.5,
    method: str = "fathom",
) -> tuple[Any, dict[str, Any]]:
    """Run one session to its end, handing new events to ``on_events`` as they come.

    ``method`` "single-pass" runs the evaluation's baseline in the Session actor instead of the rounds.
    """
    actor = session_actor().remote(engine.settings, session_id, request, engine.names, engine.network)
    done = (actor.run_single_pass if method == "single-pass" else actor.run).remote()
    seen = 0
    while True:
        ready, _ = ray.wait([done], timeout=poll_s)
        try:
            events = ray.get(actor.events_since.remote(seen), timeout=30)
        except RayError:
            events = []  # the session actor is restarting; its events come back from the store
        if events:
            seen = events[-1].seq
            on_events(events)
        if ready:
            break
    return actor, ray.get(done)
