"""The ``fathom`` command's options and output; the work of each command is in its own module here.

The cli subpackage is the one part of fathom_ray that may reach ``actors/`` and ``serve/``;
``import fathom_ray`` never imports it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import signal
import time
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from fathom_ray.cli.attach import EngineChoice, choose_engine, engine_network
from fathom_ray.cli.choices import DEPTHS, Method, Search, Transport, Web
from fathom_ray.cli.docs import ask_command, docs_app
from fathom_ray.cli.engine import hold_engine, start_kept_engine, stop_kept_engine
from fathom_ray.cli.ledger import ledger_command
from fathom_ray.cli.metrics import metrics_command
from fathom_ray.cli.research import answer_lines, run_research, run_swarm, serve_forever
from fathom_ray.cli.running import fail, serve_until_interrupted, settings_or_exit
from fathom_ray.cli.tables import table
from fathom_ray.errors import FathomError, InvalidRequestError
from fathom_ray.models import MAX_PAGES, ResearchRequest
from fathom_ray.operations.engine_file import since
from fathom_ray.research.presets import PRESETS
from fathom_ray.research.results import write_results
from fathom_ray.settings import Settings
from fathom_ray.swarm.plan import MAX_AGENTS
from fathom_ray.web.network import NetworkMap, settings_for

MAX_FACTS_PRINTED = 12
NO_ATTACH = "Start an engine of this command's own, even when `fathom up` (or serve) keeps one."
app = typer.Typer(
    name="fathom",
    help="fathom-ray: autonomous web research in which every claim cites a page that says it.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
app.add_typer(docs_app, name="docs")
app.command("ask")(ask_command)
app.command("ledger")(ledger_command)
app.command("metrics")(metrics_command)


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version  # noqa: PLC0415 (loaded for this command only)

        console.print(f"fathom-ray {version('fathom-ray')}")
        raise typer.Exit


@app.callback()
def root(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """fathom-ray: autonomous web research in which every claim cites a page that says it."""


@app.command()
def presets() -> None:
    """List the depth presets and their budgets."""
    figures = ("batch", "pages", "checklist", "URL pool", "time", "tokens")
    rows = [
        (
            preset.name,
            str(preset.batch_size),
            str(preset.max_pages),
            str(preset.checklist_size),
            f"{preset.url_pool:,}",
            f"{preset.time_budget_s / 60:g} min",
            _compact(preset.token_budget),
        )
        for preset in PRESETS.values()
    ]
    console.print(table(("preset", *figures), rows, title="Depth presets", right=figures))
    for preset in PRESETS.values():
        if preset.pages_per_round != preset.batch_size:
            console.print(
                f"{preset.name} reads {preset.pages_per_round} page a round: its {preset.max_pages} pages are"
                " under two batches, so each choice knows what the pages before it said"
            )


def _compact(count: int) -> str:
    return f"{count / 1e6:g}M" if count >= 1_000_000 else f"{count / 1e3:g}k"


@app.command()
def config() -> None:
    """Print the effective settings (environment applied, secrets masked) as JSON, and the judge they pick."""
    settings = _settings()
    judge: str = settings.llm.resolved_backend(gpu=False)
    if settings.llm.backend == "auto":
        judge += " (backend auto; vllm instead if a GPU is found when the engine starts)"
    typer.echo(json.dumps({**settings.model_dump(mode="json"), "judge": judge}, indent=2))


@app.command()
def doctor(
    address: Annotated[
        str | None, typer.Option(help="A Ray cluster: also print where each part would run on it.")
    ] = None,
    timings: Annotated[
        bool,
        typer.Option("--timings", help="Start the engine (or attach) and print each part's start-up time."),
    ] = False,
    web: Annotated[Web, typer.Option(help="With --timings: the web the engine is for.")] = Web.INTERNET,
    json_out: Annotated[
        bool, typer.Option("--json", help="With --timings: the rows as one JSON list of [part, seconds].")
    ] = False,
) -> None:
    """Check what a research session needs (browser, documentation sites, models) and say what is missing."""
    settings = _settings()
    if timings:
        _print_timings(settings, web, json_out)
        return
    from fathom_ray.cli.doctor import cluster_plan, run_checks  # noqa: PLC0415 (loaded for this command only)

    checks = [
        (check.name, "[green]ok[/green]" if check.ok else "[yellow]attention[/yellow]", check.detail)
        for check in run_checks(settings)
    ]
    console.print(table(("part", "state", "detail"), checks, title="fathom doctor"))
    if address:
        try:
            placement = cluster_plan(settings, address)
        except FathomError as e:
            _fail(e)
        rows = [
            (part.part, part.where, f"[yellow]{part.missing}[/yellow]" if part.missing else "")
            for part in placement
        ]
        console.print(table(("part", "runs on", "missing"), rows, title=f"placement on {address}"))


def _print_timings(settings: Settings, web: Web, json_out: bool) -> None:
    said_on = Console(stderr=True) if json_out else console  # --json: stdout holds the rows alone
    say = functools.partial(said_on.print, markup=False, highlight=False)
    began = time.monotonic()
    choice = choose_engine(settings, web.value, None, no_attach=False)
    with contextlib.ExitStack() as stack:
        network = _network(stack, settings, web, choice)
        try:
            from fathom_ray.cli.startup import startup_timings  # noqa: PLC0415 (loaded for this command only)

            rows = startup_timings(settings_for(settings, network), network, choice, say, began)
        except FathomError as e:
            _fail(e)
    if json_out:
        typer.echo(json.dumps(rows))
        return
    body = [(part, f"{seconds:.2f}") for part, seconds in rows]
    console.print(table(("part", "seconds"), body, title="start-up", right=("seconds",)))


@app.command()
def research(  # noqa: PLR0917 (one parameter per command-line option)
    goal: Annotated[str, typer.Argument(help="The research goal (5-2,000 characters).")],
    depth: Annotated[str, typer.Option(help=f"{DEPTHS} (default: from settings).")] = "",
    seed: Annotated[list[str] | None, typer.Option(help="A URL to start from (repeatable).")] = None,
    search: Annotated[
        Search | None, typer.Option(help="ddgs, searxng or local (default: from settings).")
    ] = None,
    web: Annotated[
        Web, typer.Option(help="internet, or offline to research the offline test web.")
    ] = Web.INTERNET,
    out: Annotated[
        Path, typer.Option(help="Where to write report.md and result.json (and a swarm's report bundle).")
    ] = Path("fathom-out"),
    address: Annotated[
        str | None, typer.Option(help="An existing Ray cluster (default: a local one).")
    ] = None,
    max_pages: Annotated[
        int | None, typer.Option(min=1, max=MAX_PAGES, help="The page budget (default: the depth's).")
    ] = None,
    time_budget: Annotated[
        float | None, typer.Option(min=1, help="Start no round after this many seconds.")
    ] = None,
    token_budget: Annotated[
        int | None, typer.Option(min=1, help="Start no round after this many LLM tokens.")
    ] = None,
    docs: Annotated[
        bool, typer.Option("--docs", help="Research your documents (fathom docs add) beside the web.")
    ] = False,
    docs_only: Annotated[bool, typer.Option("--docs-only", help="Research your documents alone.")] = False,
    swarm: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_AGENTS, help="A swarm of this many researchers (the budget split)."),
    ] = None,
    dashboard: Annotated[
        bool, typer.Option("--dashboard", help="Start the local Ray with its dashboard (its URL is printed).")
    ] = False,
    no_attach: Annotated[bool, typer.Option("--no-attach", help=NO_ATTACH)] = False,
) -> None:
    """Research a goal and write a cited report (report.md) and every fact with its evidence (result.json)."""
    settings = _settings()
    try:
        request = ResearchRequest(
            goal,
            depth or settings.research.default_depth,
            tuple(seed or ()),
            max_pages,
            time_budget_s=time_budget,
            token_budget=token_budget,
            sources=("documents",) if docs_only else ("web", "documents") if docs else ("web",),
        )
    except FathomError as e:
        _fail(e)
    choice = choose_engine(settings, web.value, address, no_attach)
    with contextlib.ExitStack() as stack:
        network = _network(stack, settings, web, choice)
        try:
            resolved = settings_for(settings, network, search and search.value)
            if swarm is not None:
                research = run_swarm(
                    resolved,
                    network,
                    request,
                    agents=swarm,
                    address=address,
                    console=console,
                    out=out,
                    dashboard=dashboard,
                    choice=choice,
                )
            else:
                research = run_research(resolved, network, request, address, console, dashboard, choice)
        except FathomError as e:
            _fail(e)
    result, report = write_results(out, research)
    for line in answer_lines(research):
        console.print(
            line, markup=False, highlight=False, style="bold" if not line.startswith(" ") else "dim"
        )
    for fact in research.facts[:MAX_FACTS_PRINTED]:
        console.print(f"{fact.id}. {fact.claim}", markup=False, highlight=False)
        console.print(f"    {fact.source_url}", markup=False, highlight=False, style="dim")
    console.print(
        f"{research.status}: {research.stop_reason}; {len(research.facts)} facts from "
        f"{research.pages_fetched} pages, judge {research.judge} ({research.usage.calls} calls), "
        f"{round(research.wall_s, 2)} s"
    )
    console.print(f"wrote {report} and {result}")
    if research.status != "complete":
        raise typer.Exit(code=1)


@app.command("serve")
def serve_api(
    web: Annotated[
        Web, typer.Option(help="internet, or offline to research the offline test web.")
    ] = Web.INTERNET,
    address: Annotated[
        str | None, typer.Option(help="An existing Ray cluster (default: a local one).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="HTTP port (default: FATHOM_API__PORT, 8000).")] = None,
) -> None:
    """Serve the HTTP API (SSE event streams) on Ray Serve until Ctrl-C."""
    settings = _settings()
    if port is not None:
        settings = settings.model_copy(update={"api": settings.api.model_copy(update={"port": port})})
    _stop_on(signal.SIGINT)
    with contextlib.ExitStack() as stack:
        network = _network(stack, settings, web, kept=True)
        try:
            serve_forever(settings_for(settings, network), network, address, console)
        except FathomError as e:
            _fail(e)


@app.command("mcp")
def mcp_server(
    api: Annotated[
        str, typer.Option(help="The fathom-ray HTTP API to research through.")
    ] = "http://127.0.0.1:8000",
    transport: Annotated[Transport, typer.Option(help="stdio, or streamable-http.")] = Transport.STDIO,
    port: Annotated[int, typer.Option(help="Port for streamable-http (path /mcp).")] = 8001,
) -> None:
    """Serve an MCP tool, web_research(goal, depth), over the HTTP API (start `fathom serve` first)."""
    from serve.mcp_server import build_mcp  # noqa: PLC0415 (the mcp package loads only for this command)

    settings = _settings()
    token = settings.api.token.get_secret_value() if settings.api.token else None
    server = build_mcp(api, token)
    if transport is Transport.STDIO:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=port)


@app.command()
def up(
    web: Annotated[
        Web, typer.Option(help="internet, or offline to research the offline test web.")
    ] = Web.INTERNET,
) -> None:
    """Start the engine in the background for the commands of this data folder; they attach to it
    (`fathom down` stops it; it stops itself after FATHOM_ENGINE__IDLE_TIMEOUT_S with no command)."""
    settings = _settings()
    try:
        found, started = start_kept_engine(settings, web.value, console.print)
    except FathomError as e:
        _fail(e)
    said = "engine up" if started else "already running"
    console.print(f"{said}: {since(found)}", markup=False, highlight=False)
    if found.dashboard:
        console.print(f"Ray dashboard: {found.dashboard}", markup=False, highlight=False)


@app.command()
def down() -> None:
    """Stop the engine `fathom up` started for this data folder."""
    settings = _settings()
    try:
        stopped = stop_kept_engine(settings, lambda line: console.print(line, markup=False, highlight=False))
    except FathomError as e:
        _fail(e)
    if stopped:
        console.print("stopped")
    else:
        console.print(f"no engine is running for {settings.data_dir}", markup=False)


@app.command("engine-hold", hidden=True)
def engine_hold(web: Annotated[Web, typer.Option()] = Web.INTERNET) -> None:
    """Hold the engine until idle, SIGTERM or Ctrl-C (what `fathom up` runs in the background)."""
    settings = _settings()
    _stop_on(signal.SIGINT, signal.SIGTERM)
    say = functools.partial(console.print, markup=False, highlight=False)
    try:
        with contextlib.ExitStack() as stack:
            network = _network(stack, settings, web, kept=True)
            hold_engine(settings_for(settings, network), network, say)
    except FathomError as e:
        _fail(e)
    except KeyboardInterrupt:
        say("stopped while starting")


def _stop_on(*signals: signal.Signals) -> None:
    """Let these signals stop a command that serves until Ctrl-C, even if it was started with them
    ignored (a background job, or a parent that ignores Ctrl-C, passes SIGINT on as ignored)."""
    for number in signals:
        signal.signal(number, signal.default_int_handler)


def _settings() -> Settings:
    return settings_or_exit(console)


def _fail(error: Exception) -> NoReturn:
    fail(console, error)


@app.command("testweb")
def serve_testweb(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).")] = 8180,
) -> None:
    """Serve the offline test web (Debian's documentation sites, search.test, fault hosts) until Ctrl-C."""
    console.print("starting the offline web (a first start builds its search index, about a minute)")
    try:
        from fathom_ray.testweb.server import TestWeb  # noqa: PLC0415 (loaded for this command only)
        from fathom_ray.testweb.sites import SITES  # noqa: PLC0415

        web = TestWeb(port=port).start()
    except (FileNotFoundError, OSError) as e:
        _fail(e)
    console.print(f"serving on 127.0.0.1:{web.port}; hosts: {', '.join(web.hosts)}")
    for site in SITES:
        console.print(f"  {site.base_url}  {site.package}", markup=False, highlight=False)
    console.print(f"try: curl -H 'Host: www.sqlite.test' http://127.0.0.1:{web.port}/wal.html")
    console.print(f"     curl -H 'Host: search.test' 'http://127.0.0.1:{web.port}/search?q=wal&format=json'")
    console.print(f'Chromium: --host-resolver-rules="{NetworkMap.offline(web.port).chromium_rules()}"')
    _stop_on(signal.SIGINT, signal.SIGTERM)
    try:
        serve_until_interrupted(console.print)
    finally:
        web.stop()


@app.command()
def index(
    paths: Annotated[list[str], typer.Argument(help="Folders of HTML files, files listing URLs, or URLs.")],
    base_url: Annotated[
        str | None, typer.Option(help="The URL a folder is served under (its files' URLs start with it).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="The folder to write the index into (default: DATA_DIR/index).")
    ] = None,
    allow_host: Annotated[
        list[str] | None, typer.Option(help="A host on a private address that may be fetched (repeatable).")
    ] = None,
    web: Annotated[
        Web, typer.Option(help="internet, or offline to fetch URLs from the offline test web.")
    ] = Web.INTERNET,
) -> None:
    """Build the local search index (tantivy, BM25) that `--search local` uses."""
    from fathom_ray.adapters.search_backends import local_index_path  # noqa: PLC0415

    settings = _settings()
    target = out or local_index_path(settings)
    with contextlib.ExitStack() as stack:
        network = _network(stack, settings, web)
        try:
            from fathom_ray.cli.web import build_index  # noqa: PLC0415 (loaded for this command only)

            report = build_index(
                settings,
                paths,
                base_url=base_url,
                out=target,
                network=network,
                allow_hosts=allow_host or (),
                progress=console.print,
            )
        except FathomError as e:
            _fail(e)
    for url, reason in report.failed:
        console.print(f"[yellow]skipped[/yellow] {url}: {reason}")
    console.print(f"indexed {report.documents} documents into {report.path}")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    backend: Annotated[
        Search | None, typer.Option(help="ddgs, searxng or local (default: from settings).")
    ] = None,
    web: Annotated[
        Web, typer.Option(help="internet, or offline to search the offline test web.")
    ] = Web.INTERNET,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 10,
) -> None:
    """Run one search through a backend and print the ranked results."""
    settings = _settings()
    with contextlib.ExitStack() as stack:
        network = _network(stack, settings, web)
        used = settings_for(settings, network, backend and backend.value)
        try:
            from fathom_ray.cli.web import run_search  # noqa: PLC0415 (loaded for this command only)

            results = run_search(used, network, query, limit)
        except FathomError as e:
            _fail(e)
    rows = [(str(result.rank), result.title, result.url) for result in results]
    title = f"{query!r} via {used.search.backend}"
    console.print(table(("#", "title", "url"), rows, title=title) if results else "no results")


@app.command("eval")
def evaluate(  # noqa: PLR0917 (one parameter per command-line option)
    questions: Annotated[
        Path, typer.Argument(help="JSONL: {id, question, answer, answer_aliases, evidence_urls, hops}.")
    ],
    out: Annotated[Path, typer.Option(help="Where results.jsonl, summary.json and report.md go.")] = Path(
        "fathom-eval"
    ),
    depth: Annotated[str, typer.Option(help=f"The depth preset of every session: {DEPTHS}.")] = "quick",
    web: Annotated[Web, typer.Option(help="internet, or offline for the offline test web.")] = Web.INTERNET,
    method: Annotated[
        Method, typer.Option(help="fathom, single-pass (the baseline), both, or swarm.")
    ] = Method.FATHOM,
    agents: Annotated[
        int, typer.Option(min=1, max=MAX_AGENTS, help="With --method swarm: researchers per swarm.")
    ] = 3,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Runs at once (default: FATHOM_API__MAX_SESSIONS).")
    ] = None,
    llm: Annotated[
        list[str] | None, typer.Option(help="Override an llm setting, KEY=VALUE (repeatable), e.g. model=...")
    ] = None,
    verdict: Annotated[
        bool, typer.Option(help="Also ask the judge for a correct/partial/wrong verdict.")
    ] = True,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N questions.")] = None,
    address: Annotated[
        str | None, typer.Option(help="An existing Ray cluster (default: a local one).")
    ] = None,
    no_attach: Annotated[bool, typer.Option("--no-attach", help=NO_ATTACH)] = False,
) -> None:
    """Score research on questions with known answers; resumable (runs already in OUT are kept)."""
    from fathom_ray.cli.evaluation import run_eval, with_llm  # noqa: PLC0415
    from fathom_ray.evaluation.questions import parse_questions  # noqa: PLC0415
    from fathom_ray.evaluation.run import METHODS  # noqa: PLC0415

    methods = list(METHODS) if method is Method.BOTH else [method.value]
    try:
        settings = with_llm(_settings(), llm or ())
        ResearchRequest("depth check", depth)
        parsed, problems = parse_questions(questions.read_text(encoding="utf-8").splitlines())
    except (FathomError, OSError, UnicodeDecodeError) as e:
        _fail(e)
    for problem in problems:
        console.print(f"{questions}: {problem}; skipped", style="yellow", markup=False, soft_wrap=True)
    parsed = parsed[:limit] if limit else parsed
    if not parsed:
        _fail(InvalidRequestError("QUESTIONS", "holds no valid question"))
    choice = choose_engine(settings, web.value, address, no_attach)
    with contextlib.ExitStack() as stack:
        network = _network(stack, settings, web, choice)
        try:
            summary = run_eval(
                settings_for(settings, network),
                network,
                parsed,
                methods,
                depth=depth,
                out=out,
                concurrency=concurrency or settings.api.max_sessions,
                verdict=verdict,
                address=address,
                report=lambda line: console.print(line, markup=False, soft_wrap=True),
                agents=agents,
                choice=choice,
            )
        except FathomError as e:
            _fail(e)
    methods = list(summary["methods"])
    rows = []
    for metric in summary["methods"][methods[0]]["metrics"]:
        cells = [summary["methods"][m]["metrics"][metric] for m in methods]
        rows.append(
            (metric, *("-" if c["mean"] is None else f"{c['mean']:.3f} ({c['count']})" for c in cells))
        )
    title = f"{len(parsed)} questions, depth {depth}"
    console.print(table(("metric", *methods), rows, title=title, right=methods))
    console.print(f"wrote {out / 'results.jsonl'}, {out / 'summary.json'} and {out / 'report.md'}")


def _network(
    stack: contextlib.ExitStack,
    settings: Settings,
    web: Web,
    choice: EngineChoice | None = None,
    *,
    kept: bool = False,
) -> NetworkMap:
    """The plain internet, or the offline web: a kept engine's (``choice``), or one started for the
    length of the command. ``kept``: an engine kept for other commands waits for the offline web's
    search index (a command's own engine searches while it loads)."""
    if choice is not None and choice.attach is not None:
        return engine_network(choice.attach)
    if web is Web.INTERNET:
        return NetworkMap()
    try:
        from fathom_ray.testweb.server import TestWeb  # noqa: PLC0415 (the offline web's commands only)

        test_web = stack.enter_context(TestWeb())
        if kept:
            test_web.index  # noqa: B018 (waits for the load; a failed load raises)
    except (FileNotFoundError, OSError, RuntimeError) as e:
        _fail(e)
    return NetworkMap.offline(test_web.port)


def main() -> None:
    """Entry point of the console script."""
    app()
