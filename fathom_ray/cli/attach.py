"""Which engine a command runs on: the one kept for this data folder, or its own.

``choose_engine`` reads ``engine.json`` (``fathom up`` and ``fathom serve`` write it): a command on
the same web attaches to that engine unless told ``--no-attach``. A command that starts its own
engine takes the stores' lock of the data folder; when another process holds it, the command's
engine keeps its stores in a folder of its own (said, with where), so two commands never meet on a
lock. ``attached_engine`` joins the kept engine for a ``with`` block; ``publish`` makes a started
engine one that others can attach to.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from fathom_ray.errors import FathomError
from fathom_ray.operations.engine_file import (
    EngineFile,
    lock_stores,
    read_engine,
    remove_engine,
    since,
    stores_holder,
    write_engine,
)
from fathom_ray.settings import Settings
from fathom_ray.web.network import NetworkMap

if TYPE_CHECKING:
    from actors.engine import Engine

ENGINE_NAMESPACE = "fathom-engine"  # a kept engine's Ray namespace: its actors are found by name there
SIDE = "side"  # under the data folder: the stores of commands that found them held


@dataclass(frozen=True, slots=True)
class EngineChoice:
    attach: EngineFile | None = None  # the kept engine to run on; None: start one
    note: str | None = None  # why not the kept engine, when there is one


def choose_engine(settings: Settings, web: str, address: str | None, no_attach: bool) -> EngineChoice:
    """The kept engine of this data folder if it researches ``web``; else an engine of the command's own."""
    if address:
        return EngineChoice()
    found = read_engine(settings.data_dir)
    if found is None:
        return EngineChoice()
    if no_attach:
        return EngineChoice(note=f"not attaching to {since(found)} (--no-attach)")
    if found.web != web:
        return EngineChoice(note=f"not attaching to {since(found)}: this command researches the {web} web")
    return EngineChoice(attach=found)


def web_of(network: NetworkMap) -> str:
    """The name of the web a network reaches, as the ``--web`` option says it."""
    return "offline" if network.exclusive else "internet"


def engine_network(found: EngineFile) -> NetworkMap:
    """The network a kept engine was started with (its browsers fetch through it)."""
    if found.web == "offline" and found.offline_port is not None:
        return NetworkMap.offline(found.offline_port)
    return NetworkMap()


@contextmanager
def own_stores(settings: Settings, what: str, report: Callable[[str], None]) -> Iterator[Settings]:
    """``settings`` whose stores this process holds for the block: the data folder's, or, when
    another process holds those, the first free side folder under it (said): ``side/1``, ``side/2``,
    ..., so side folders are as many as commands ever ran at once, and the next command that finds
    the stores held takes up a side folder's sources where the last one left them."""
    held = lock_stores(settings.data_dir, what)
    data_dir, n = settings.data_dir, 0
    while held is None:
        n += 1
        data_dir = settings.data_dir / SIDE / str(n)
        held = lock_stores(data_dir, what)
    if data_dir != settings.data_dir:
        report(
            f"the stores in {settings.data_dir} are in use by {stores_holder(settings.data_dir)}; "
            f"this command keeps its own in {data_dir} (its sources are not shared with that engine; "
            "`fathom up` runs one engine that commands share)"
        )
    try:
        yield settings.model_copy(update={"data_dir": data_dir})
    finally:
        held.release()


@contextmanager
def attached_engine(found: EngineFile, settings: Settings, report: Callable[[str], None]) -> Iterator[Engine]:
    """The kept engine, joined as a client for the block; sessions it spawns get ``settings`` (the
    command's) with the engine's judge."""
    import ray  # noqa: PLC0415

    try:
        ray.init(
            address=found.address,
            namespace=found.namespace,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
    except (ConnectionError, RuntimeError) as e:  # its Ray went in the meantime
        raise FathomError(f"could not attach to {since(found)}: {e} (--no-attach starts an engine)") from e
    client = uuid.uuid4().hex
    try:
        keeper = ray.get_actor(found.keeper)
        engine = cast("Engine", ray.get(keeper.engine.remote(), timeout=60))
        ray.get(keeper.join.remote(client, os.getpid()), timeout=60)
    except (ray.exceptions.RayError, ValueError) as e:
        ray.shutdown()
        raise FathomError(f"could not attach to {since(found)}: {e}") from e
    report(f"attached to {since(found)}")
    try:
        yield replace(engine, settings=settings.model_copy(update={"llm": engine.settings.llm}))
    finally:
        with contextlib.suppress(ray.exceptions.RayError):  # the engine went first: nothing to leave
            ray.get(keeper.leave.remote(client), timeout=10)
        ray.shutdown()


@contextmanager
def published(
    engine: Engine, network: NetworkMap, by: str, idle_timeout_s: float | None, *, door: bool = False
) -> Iterator[Any]:
    """``engine`` kept for other commands for the block, warmed first (``actors.warm_up``): its
    keeper actor and ``engine.json``; with ``door``, the socket through which commands run their
    sessions in this process (``actors.engine_door``)."""
    import ray  # noqa: PLC0415

    from actors.engine_door import open_door  # noqa: PLC0415
    from actors.engine_keeper import engine_keeper_actor  # noqa: PLC0415
    from actors.warm_up import warm_up  # noqa: PLC0415

    warm_up(engine)

    name = engine.directory.name("keeper")
    keeper = engine_keeper_actor(name).remote(engine)
    ray.get(keeper.clients.remote(), timeout=60)
    opened = open_door(engine, keeper) if door else None
    context = ray.get_runtime_context()
    data_dir = engine.settings.data_dir
    write_engine(
        data_dir,
        EngineFile(
            pid=os.getpid(),
            address=context.gcs_address,
            namespace=context.namespace,
            keeper=name,
            web=web_of(network),
            offline_port=network.routes[0].port if network.exclusive and network.routes else None,
            started=time.time(),
            by=by,
            idle_timeout_s=idle_timeout_s,
            dashboard=engine.dashboard_url,
            metrics=engine.metrics_url,
            door=str(opened.path) if opened is not None else None,
        ),
    )
    try:
        yield keeper
    finally:
        remove_engine(data_dir, os.getpid())
        if opened is not None:
            opened.close()


def hold_until_idle(keeper: Any, idle_timeout_s: float, poll_s: float = 2.0) -> float:
    """Return once the kept engine has had no client for ``idle_timeout_s``: the seconds it was idle.
    Ctrl-C (or SIGTERM made one) returns at once."""
    import ray  # noqa: PLC0415

    try:
        while True:
            idle = float(ray.get(keeper.idle_s.remote(), timeout=60))
            if idle >= idle_timeout_s:
                return idle
            time.sleep(min(poll_s, max(0.1, idle_timeout_s - idle)))
    except KeyboardInterrupt:
        return 0.0
