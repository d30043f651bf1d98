"""``fathom doctor --timings``: how long each part of the engine takes to start here.

Without a kept engine, it starts one as a command does (Ray, then every part at once), prints each
part's seconds until ready (the embedder's model loads beside a session's first steps: its row says
when it was loaded) and stops it. With one kept for this data folder (`fathom up`), it prints
that engine's own start-up and how long attaching to it through Ray takes (what docs, ask and eval
pay; research runs its session through the engine's door instead).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from fathom_ray.cli.attach import EngineChoice, attached_engine
from fathom_ray.cli.running import RAY_PART, parts_unused, running_engine
from fathom_ray.settings import Settings
from fathom_ray.web.network import NetworkMap

if TYPE_CHECKING:
    from actors.engine import Engine

ALL_PARTS = "every part a session waits for"
READY = "the command, until a session can start"
EMBEDDER_LOADED = "the embedder's model loaded (beside a session's first steps)"
ATTACH = "attaching to the kept engine through Ray (what docs, ask and eval pay)"


def startup_timings(
    settings: Settings, network: NetworkMap, choice: EngineChoice, say: Callable[[str], None], began: float
) -> list[tuple[str, float]]:
    """(part, seconds) rows: Ray, then each part in the order it was ready (seconds from the
    parts' start), the whole since ``began`` (the command's start); or, when ``choice`` attaches,
    the kept engine's rows and the attach."""
    if choice.attach is not None:
        with attached_engine(choice.attach, settings, say) as engine:
            attach_s = time.monotonic() - began
        return [*_rows(engine.startup), (ATTACH, attach_s)]
    unused = parts_unused(("web",))  # as `fathom research` starts its engine
    with running_engine(
        settings, network, None, "start-up", say, wait_embedder=False, without=unused
    ) as engine:
        whole = time.monotonic() - began
        loaded = _loaded(engine)
    rows = [*_rows(engine.startup), (READY, whole)]
    return rows if loaded is None else [*rows, (EMBEDDER_LOADED, loaded)]


def _loaded(engine: Engine) -> float | None:
    """Seconds from the parts' start until the embedder's model, loading beside a session, was loaded."""
    import ray  # noqa: PLC0415

    if engine.embedder_warming is None:
        return None
    ray.get(engine.embedder_warming)
    return time.monotonic() - engine.started_at


def _rows(startup: Mapping[str, float]) -> list[tuple[str, float]]:
    parts = dict(startup)
    ray_s = parts.pop(RAY_PART, None)
    rows = [(RAY_PART, ray_s)] if ray_s is not None else []
    rows += list(parts.items())
    if parts:
        rows.append((ALL_PARTS, max(parts.values())))
    return rows
