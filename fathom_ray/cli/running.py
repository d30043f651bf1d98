"""Ray and the engine for the commands that need them: started once here, stopped whatever happens.

``running_engine`` joins or starts Ray, starts the shared actors, yields the engine and shuts Ray
down on the way out; a Ray error on the way becomes a ``FathomError`` that names its cause (the last
line of a remote traceback). ``serve_until_interrupted`` holds a serving command until Ctrl-C.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

import typer
from rich.console import Console

from fathom_ray.errors import FathomError
from fathom_ray.network import NetworkMap
from fathom_ray.settings import Settings, load_settings

if TYPE_CHECKING:
    from actors.engine import Engine

STARTING = "starting the browser pool, the judge, the embedder and the stores ..."


def start_ray(address: str | None) -> None:
    """Join the Ray cluster at ``address``, or start a local one on every CPU."""
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray  # noqa: PLC0415 (Ray starts only for the commands that need it)

    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)


def ray_error_cause(error: BaseException) -> str:
    """The last line of what a Ray error carries: the remote exception, not the traceback's head."""
    cause = getattr(error, "cause", None) or error
    lines = str(cause).strip().splitlines()
    return lines[-1] if lines else type(cause).__name__


@contextmanager
def running_engine(
    settings: Settings, network: NetworkMap, address: str | None, what: str, report: Callable[[str], None]
) -> Iterator[Engine]:
    """The engine on a running Ray, for the ``with`` block; ``what`` names the work in an error."""
    start_ray(address)
    import ray  # noqa: PLC0415

    from actors.engine import start_engine  # noqa: PLC0415

    try:
        report(STARTING)
        yield start_engine(settings, network)
    except ray.exceptions.RayError as e:
        raise FathomError(f"{what} failed: {ray_error_cause(e)}") from e
    finally:
        ray.shutdown()


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
