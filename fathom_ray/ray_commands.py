"""What `fathom research` and `fathom serve` do once their options are parsed.

An outer shell like ``cli.py``: it starts Ray, the actors and Serve, so the core never imports it.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from rich.console import Console
from rich.live import Live

from fathom_ray.errors import FathomError
from fathom_ray.live_view import LiveView
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.network import NetworkMap
from fathom_ray.results import result_document
from fathom_ray.session_state import SessionState
from fathom_ray.settings import Settings


def start_ray(address: str | None) -> None:
    """Join the Ray cluster at ``address``, or start a local one on every CPU."""
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray  # noqa: PLC0415 (Ray starts only for the commands that need it)

    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)


def serve_forever(settings: Settings, network: NetworkMap, address: str | None, console: Console) -> None:
    """Start the engine and the HTTP API, and serve until interrupted."""
    start_ray(address)
    import ray  # noqa: PLC0415

    from actors.engine import start_engine  # noqa: PLC0415
    from serve.deployment import run_api, shutdown  # noqa: PLC0415

    try:
        console.print("starting the browser pool, the judge, the embedder and the stores ...")
        engine = start_engine(settings, network)
        run_api(engine)
        api = settings.api
        console.print(f"serving the API on http://{api.host}:{api.port} (OpenAPI at /docs); Ctrl-C stops")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        console.print("stopping")
    finally:
        shutdown()
        ray.shutdown()


def run_research(
    settings: Settings, network: NetworkMap, request: ResearchRequest, address: str | None, console: Console
) -> dict[str, Any]:
    started = time.monotonic()
    start_ray(address)
    import ray  # noqa: PLC0415 (Ray starts only for the commands that need it)

    from actors.engine import run_session, start_engine  # noqa: PLC0415

    try:
        console.print("starting the browser pool, the judge, the embedder and the stores ...")
        engine = start_engine(settings, network)
        view = LiveView(request.goal, judge=f"{engine.judge.backend} ({engine.judge.model})")
        with Live(view.render(), console=console, refresh_per_second=4, transient=False) as live:

            def show(events: list[Event]) -> None:
                view.update(events)
                live.update(view.render())

            _, state_json = run_session(engine, request, f"s-{uuid.uuid4().hex[:12]}", show)
        console.print()
    except ray.exceptions.RayError as e:
        cause = getattr(e, "cause", None) or e
        raise FathomError(f"the session failed: {str(cause).strip().splitlines()[-1]}") from e
    finally:
        ray.shutdown()
    return result_document(SessionState.from_json(state_json), time.monotonic() - started)
