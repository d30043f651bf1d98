"""What `fathom research` and `fathom serve` do once their options are parsed."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.live import Live

from fathom_ray.cli.attach import EngineChoice, published
from fathom_ray.cli.door import through_door
from fathom_ray.cli.live_view import LiveView
from fathom_ray.cli.running import parts_unused, running_engine, serve_until_interrupted
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.research.answer_sheet import AnswerStatus
from fathom_ray.research.results import ResearchResult
from fathom_ray.research.session_state import new_session_id
from fathom_ray.settings import Settings
from fathom_ray.web.network import NetworkMap


def answer_lines(result: ResearchResult) -> list[str]:
    """The answer lines a finished run prints first: each item's answer with the number of its source
    and its fact ids, then the sources those numbers name."""
    sources = {f.id: f.source_url for f in result.facts}
    numbers: dict[str, int] = {}

    def cite(ids: Sequence[str]) -> str:
        known = [i for i in ids if i in sources]
        for i in known:
            numbers.setdefault(sources[i], len(numbers) + 1)
        marks = "".join(f"[{n}]" for n in sorted({numbers[sources[i]] for i in known}))
        return f" {marks} ({', '.join(known)})" if known else ""

    lines = []
    for answer in result.answers:
        if answer.status is AnswerStatus.NOT_FOUND:
            said = f"not found in {answer.pages_read} pages read"
        else:
            said = f"{answer.answer}{cite(answer.fact_ids)}"
            if answer.status is AnswerStatus.CONFLICTING:
                said += f"; other sources say {answer.other_answer}{cite(answer.other_fact_ids)}"
        lines.append(f"{answer.question} -> {said}")
    return [*lines, *(f"  [{n}] {url}" for url, n in numbers.items())]


def serve_forever(settings: Settings, network: NetworkMap, address: str | None, console: Console) -> None:
    """Start the engine and the HTTP API, and serve until interrupted."""
    from serve.deployment import run_api, shutdown  # noqa: PLC0415 (Serve loads only for this command)

    with (
        running_engine(
            settings, network, address, "serving", console.print, dashboard=True, kept=True
        ) as engine,
        published(engine, network, "fathom serve", None),
    ):
        try:
            run_api(engine)
            api = settings.api
            console.print(f"serving the API on http://{api.host}:{api.port} (OpenAPI at /docs); Ctrl-C stops")
            serve_until_interrupted(console.print)
        finally:
            shutdown()


def run_research(  # noqa: PLR0917 (the command's options, passed on)
    settings: Settings,
    network: NetworkMap,
    request: ResearchRequest,
    address: str | None,
    console: Console,
    dashboard: bool = False,
    choice: EngineChoice | None = None,
) -> ResearchResult:
    """One session with a live view, on the engine ``choice`` names (or a new one); its result.
    Attached to ``fathom up``'s engine, the session runs in the engine's process, through its door
    (``fathom_ray.cli.door``): this process loads no Ray."""
    started = time.monotonic()
    if choice is not None and choice.attach is not None and address is None and not dashboard:
        with live_view(console, request.goal) as show:
            done = through_door(choice.attach, settings, request, show, console.print)
        if done is not None:
            return replace(done, wall_s=time.monotonic() - started)
    from actors.engine import run_session_here  # noqa: PLC0415

    with (
        running_engine(
            settings,
            network,
            address,
            "the session",
            console.print,
            dashboard=dashboard,
            choice=choice,
            wait_embedder=False,
            without=parts_unused(request.sources),
        ) as engine,
        live_view(console, request.goal, engine.judge.label) as show,
    ):
        outcome = run_session_here(engine, request, new_session_id("s"), show)
    return ResearchResult.from_session(outcome.state, time.monotonic() - started)


@contextmanager
def live_view(console: Console, goal: str, judge: str = "") -> Iterator[Callable[[list[Event]], None]]:
    """A session's live view for the block, and what to hand its events to. Transient: the view is
    progress, gone at the end, so the answer lines come first."""
    view = LiveView(goal, judge=judge)
    with Live(view.render(), console=console, refresh_per_second=4, transient=True) as live:

        def show(events: list[Event]) -> None:
            view.update(events)
            live.update(view.render())

        yield show


def run_swarm(
    settings: Settings,
    network: NetworkMap,
    request: ResearchRequest,
    *,
    agents: int,
    address: str | None,
    console: Console,
    out: Path,
    dashboard: bool = False,
    choice: EngineChoice | None = None,
) -> ResearchResult:
    """A swarm of ``agents`` researchers on the goal, its report bundle written to ``out``; its
    result."""
    from actors.coordinator import run_swarm as run  # noqa: PLC0415

    swarm_id = new_session_id("w")
    with running_engine(
        settings,
        network,
        address,
        "the swarm",
        console.print,
        dashboard=dashboard,
        choice=choice,
        wait_embedder=False,
    ) as engine:
        console.print(f"swarm {swarm_id}: {agents} researchers on {request.goal!r} ...")
        report = run(engine, request, swarm_id, agents)
    for agent in report.result.agents:
        console.print(f"  {agent['agent']}: {agent['status']}, {agent.get('facts', 0)} facts")
    from fathom_ray.swarm.bundle import write_bundle  # noqa: PLC0415 (a swarm's command only)

    written = write_bundle(out, report.files, report.pdf)
    console.print(f"wrote the report bundle: {out / 'index.md'} and {len(written) - 1} more files")
    return report.research
