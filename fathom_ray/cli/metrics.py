"""``fathom metrics``: the engine's current figures from Ray's metrics endpoint."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from fathom_ray.cli.running import fail, settings_or_exit
from fathom_ray.cli.tables import table
from fathom_ray.errors import FathomError
from fathom_ray.operations.engine_file import read_engine
from fathom_ray.operations.metrics_text import figures

console = Console()


def metrics_command(
    url: Annotated[
        str | None,
        typer.Option(
            help="A Prometheus endpoint (default: the kept engine's, else FATHOM_RAY__METRICS_PORT's)."
        ),
    ] = None,
) -> None:
    """Print sessions, pages, facts, judge calls, queue and latency, and round time, as Ray exports them."""
    settings = settings_or_exit(console)
    kept = read_engine(settings.data_dir)
    endpoint = url or (kept and kept.metrics) or f"http://127.0.0.1:{settings.ray.metrics_port}/metrics"
    import httpx  # noqa: PLC0415 (loaded for this command only)

    try:
        response = httpx.get(endpoint, timeout=10)
        response.raise_for_status()
    except httpx.HTTPError as e:
        fail(
            console, FathomError(f"no metrics at {endpoint} ({e}); is `fathom serve` or `fathom up` running?")
        )
    rows = figures(response.text)
    if not rows:
        fail(console, FathomError(f"{endpoint} answers, but holds no fathom_* metric yet (run a session)"))
    console.print(
        table(("figure", "value"), rows, title=f"fathom-ray metrics from {endpoint}", right=("value",))
    )
