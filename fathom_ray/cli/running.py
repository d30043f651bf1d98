"""Ray and the engine for the commands that need them: started once here, stopped whatever happens.

``running_engine`` joins or starts Ray, starts the shared actors, yields the engine and shuts Ray
down on the way out; a Ray error on the way becomes a ``FathomError`` that names its cause (the last
line of a remote traceback). ``serve_until_interrupted`` holds a serving command until Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console

from fathom_ray.cli.attach import ENGINE_NAMESPACE, EngineChoice, attached_engine, own_stores
from fathom_ray.errors import FathomError
from fathom_ray.settings import RaySettings, Settings, load_settings
from fathom_ray.web.network import NetworkMap

if TYPE_CHECKING:
    from actors.engine import Engine

RAY_PART = "Ray (a local cluster, or joining one)"
STARTING = "starting an engine of its own: browser, judge, embedder, stores ..."


def start_ray(
    address: str | None, dashboard: RaySettings | None = None, namespace: str | None = None
) -> RayUrls:
    """Join the Ray cluster at ``address``, or start a local one on every CPU; with ``dashboard``,
    the local one has its dashboard and metrics endpoint on 127.0.0.1 (a port in use: the next
    free one). Where they are, as far as this Ray says. ``namespace``: this driver's (None: its own)."""
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray  # noqa: PLC0415 (Ray starts only for the commands that need it)

    if address:
        context = ray.init(address=address, namespace=namespace, log_to_driver=False)
        return RayUrls(_http(context.dashboard_url), None)
    if dashboard is None:
        from fathom_ray.adapters.ray_local import lean_head  # noqa: PLC0415

        with lean_head():
            ray.init(
                num_cpus=os.cpu_count() or 2,
                include_dashboard=False,
                namespace=namespace,
                log_to_driver=False,
            )
        return RayUrls(None, None)
    metrics_port = free_port_from(dashboard.metrics_port)
    context = ray.init(
        num_cpus=os.cpu_count() or 2,
        include_dashboard=True,
        dashboard_host="127.0.0.1",
        dashboard_port=free_port_from(dashboard.dashboard_port, avoid={metrics_port}),
        _metrics_export_port=metrics_port,
        namespace=namespace,
        log_to_driver=False,
    )
    return RayUrls(_http(context.dashboard_url), f"http://127.0.0.1:{metrics_port}/metrics")


@dataclass(frozen=True, slots=True)
class RayUrls:
    dashboard: str | None  # the Ray dashboard
    metrics: str | None  # this node's Prometheus endpoint, where known


def _http(address: str | None) -> str | None:
    if not address:
        return None
    return address if address.startswith(("http://", "https://")) else f"http://{address}"


def free_port_from(port: int, avoid: set[int] | None = None, tries: int = 50) -> int:
    """``port`` if nothing listens on it on 127.0.0.1, else the next free one."""
    for candidate in range(port, min(port + tries, 65_536)):
        if candidate in (avoid or set()):
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return candidate
    raise FathomError(f"no free port on 127.0.0.1 from {port} to {port + tries - 1}")


def ray_error_cause(error: BaseException) -> str:
    """The last line of what a Ray error carries: the remote exception, not the traceback's head."""
    cause = getattr(error, "cause", None) or error
    lines = str(cause).strip().splitlines()
    return lines[-1] if lines else type(cause).__name__


@contextmanager
def running_engine(
    settings: Settings,
    network: NetworkMap,
    address: str | None,
    what: str,
    report: Callable[[str], None],
    *,
    dashboard: bool = False,
    choice: EngineChoice | None = None,
    wait_embedder: bool = True,
    kept: bool = False,
    without: frozenset[str] = frozenset(),
) -> Iterator[Engine]:
    """The engine for the ``with`` block; ``what`` names the work in an error. ``choice`` (from
    ``choose_engine``) may name a kept engine to attach to; otherwise one is started on a running Ray,
    holding the data folder's stores (or its own, when another process holds those). With
    ``dashboard`` a local Ray has its dashboard and metrics endpoint; their URLs are said. Without
    ``wait_embedder`` a started engine is handed over while its embedder's model still loads (a
    command's sessions start beside the load; an engine kept for others waits for it). ``kept``: the
    engine serves many commands (``fathom up``, ``fathom serve``): its embedder runs on torch.
    ``without``: optional parts a started engine leaves out (``actors.session.OPTIONAL_PARTS``); an
    engine attached to has them all."""
    import ray  # noqa: PLC0415

    choice = choice or EngineChoice()
    if choice.note:
        report(choice.note)
    with contextlib.ExitStack() as stack:
        if choice.attach is not None:
            engine = stack.enter_context(attached_engine(choice.attach, settings, report))
        else:
            engine = stack.enter_context(
                _started_engine(
                    settings,
                    network,
                    address,
                    report,
                    dashboard=dashboard,
                    wait_embedder=wait_embedder,
                    kept=kept,
                    without=without,
                )
            )
        try:
            yield engine
        except ray.exceptions.RayError as e:
            raise FathomError(f"{what} failed: {ray_error_cause(e)}") from e


@contextmanager
def _started_engine(
    settings: Settings,
    network: NetworkMap,
    address: str | None,
    report: Callable[[str], None],
    *,
    dashboard: bool,
    wait_embedder: bool,
    kept: bool,
    without: frozenset[str],
) -> Iterator[Engine]:
    """A new engine, on the Ray at ``address`` or a local one started here, stopped on the way out."""
    import ray  # noqa: PLC0415

    from actors.engine import start_engine  # noqa: PLC0415

    with contextlib.ExitStack() as stack:
        if not address:  # a local engine runs the stores of this machine's data folder
            settings = stack.enter_context(own_stores(settings, command_name(), report))
        began = time.monotonic()
        urls = start_ray(address, settings.ray if dashboard else None, ENGINE_NAMESPACE)
        ray_s = time.monotonic() - began
        stack.callback(ray.shutdown)
        if urls.dashboard:
            metrics = f" (metrics: {urls.metrics})" if urls.metrics else ""
            report(f"Ray dashboard: {urls.dashboard}{metrics}")
        report(STARTING)
        try:
            engine = start_engine(settings, network, wait_embedder=wait_embedder, kept=kept, without=without)
        except ray.exceptions.RayError as e:
            raise FathomError(f"the engine could not start: {ray_error_cause(e)}") from e
        startup = {RAY_PART: ray_s, **engine.startup}
        try:
            yield replace(engine, dashboard_url=urls.dashboard, metrics_url=urls.metrics, startup=startup)
        finally:
            _say_if_failed(engine.embedder_warming, "embedder", report)


def _say_if_failed(start: Any, part: str, report: Callable[[str], None]) -> None:
    """Say so when a part's start that nobody waited for ended in an error."""
    import ray  # noqa: PLC0415

    if start is None or not ray.wait([start], timeout=0)[0]:
        return
    try:
        ray.get(start)
    except ray.exceptions.RayError as e:
        report(f"the {part} could not start: {ray_error_cause(e)}; the judge worked without it")


def parts_unused(sources: Sequence[str]) -> frozenset[str]:
    """The optional engine parts one session on ``sources`` never calls: the swarms' task ledger
    always, the document store unless it researches the user's documents."""
    return frozenset({"ledger"} if "documents" in sources else {"ledger", "documents"})


def command_name() -> str:
    """This command as the user typed its first word ("fathom research"), for messages to others."""
    return " ".join(["fathom", *sys.argv[1:2]])


def serve_until_interrupted(say: Callable[[str], None]) -> None:
    """Return when Ctrl-C (SIGINT) arrives, saying so."""
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        say("stopping")


def settings_or_exit(console: Console) -> Settings:
    """The settings, or a clear error and exit code 2."""
    try:
        return load_settings()
    except FathomError as e:
        fail(console, e)


def fail(console: Console, error: Exception) -> NoReturn:
    console.print(f"[red]error:[/red] {error}")
    raise typer.Exit(code=2) from error
