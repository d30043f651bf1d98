"""The kept engine's door: a command on this machine runs its session in the engine's own process.

A command attached through Ray pays for Ray in its own process (importing it, joining the cluster
as a driver, leaving it): about a second of a quick session's four. Through the door it pays for
none of that: ``fathom up``'s process listens on a Unix socket in the data folder (its owner's
alone), a command writes its request there as one JSON line, and the engine runs the session in
its process, on its actors, as an attached command would (``SessionService``), sending back the
session's events as they come and then its result. A command that goes away (Ctrl-C, killed)
cancels its session, which is recorded as cancelled.

Frames from the engine (``fathom_ray.operations.door_frames``) carry ``("events", [Event, ...])``,
``("result", ResearchResult)`` or ``("error", message)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ray.exceptions import RayError

from actors.engine import Engine, follow_session
from actors.session import SessionService
from fathom_ray.errors import FathomError
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.operations.door_frames import frame
from fathom_ray.operations.engine_file import ENGINE_SECTIONS, door_path
from fathom_ray.research.results import ResearchResult
from fathom_ray.research.session_state import new_session_id
from fathom_ray.settings import Settings

logger = logging.getLogger(__name__)

MAX_REQUEST_BYTES = 1 << 20  # a request line (a goal, seeds and settings) is far shorter
POLL_S = 0.1


def request_from(line: bytes, engine: Settings) -> tuple[Settings, ResearchRequest, int]:
    """The command's settings (with ``engine``'s judge, stores and API), its request and its process
    id, from its JSON line."""
    try:
        asked = json.loads(line)
        sent = {k: v for k, v in dict(asked["settings"]).items() if k not in ENGINE_SECTIONS}
        own = {name: getattr(engine, name) for name in ENGINE_SECTIONS}
        settings = Settings.model_validate(sent).model_copy(update=own)
        return settings, ResearchRequest.from_json(asked["request"]), int(asked["pid"])
    except FathomError:
        raise
    except (ValueError, KeyError, TypeError, ValidationError) as e:
        raise FathomError(f"the engine's door could not read the request: {e}") from e


class EngineDoor:
    """Runs commands' sessions in this process, on ``engine``; ``keeper`` counts each as a client."""

    def __init__(self, engine: Engine, keeper: Any, path: Path) -> None:
        self._engine = engine
        self._keeper = keeper
        self._path = path
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._serve, name="engine-door", daemon=True)

    @property
    def path(self) -> Path:
        return self._path

    def open(self) -> None:
        """Listen, in a thread of its own; return once listening."""
        self._path.unlink(missing_ok=True)
        self._thread.start()
        if not self._ready.wait(timeout=30) or not self._path.exists():
            raise FathomError(f"the engine's door at {self._path} did not open")

    def close(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._path.unlink(missing_ok=True)

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        server = loop.run_until_complete(
            asyncio.start_unix_server(self._one, path=str(self._path), limit=MAX_REQUEST_BYTES)
        )
        self._path.chmod(0o600)
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            loop.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readuntil(b"\n")
            settings, request, pid = request_from(line, self._engine.settings)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, FathomError) as e:
            await _send(writer, "error", str(e) if isinstance(e, FathomError) else "no request read")
            writer.close()
            return
        client = uuid.uuid4().hex
        with contextlib.suppress(RayError):
            await self._keeper.join.remote(client, pid)
        try:
            await self._run(settings, request, reader, writer)
        finally:
            with contextlib.suppress(RayError):
                await self._keeper.leave.remote(client)
            writer.close()

    async def _run(
        self,
        settings: Settings,
        request: ResearchRequest,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        engine = self._engine
        service = SessionService(
            settings,
            new_session_id("s"),
            request,
            engine.directory,
            engine.network,
            own_process=False,
        )
        started = time.monotonic()

        async def stop_when_asked() -> None:  # "cancel", or the command gone: the session stops
            with contextlib.suppress(OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                await reader.readuntil(b"\n")
            await service.cancel()

        watch = asyncio.ensure_future(stop_when_asked())
        sent: list[asyncio.Future[None]] = []

        def hand_on(events: list[Event]) -> None:
            sent.append(asyncio.ensure_future(_send(writer, "events", events)))

        try:
            outcome = await follow_session(service, hand_on, POLL_S)
            await asyncio.gather(*sent)
            result = ResearchResult.from_session(outcome.state, time.monotonic() - started)
            await _send(writer, "result", result)
        except Exception as e:  # noqa: BLE001 (the session failed: the command says why)
            logger.warning("a session through the door failed: %s", e)
            await _send(writer, "error", f"the session failed: {e}")
        finally:
            watch.cancel()


async def _send(writer: asyncio.StreamWriter, kind: str, value: object) -> None:
    with contextlib.suppress(OSError):  # the command went: its session is being cancelled
        writer.write(frame(kind, value))
        await writer.drain()


def open_door(engine: Engine, keeper: Any) -> EngineDoor | None:
    """The door of ``engine``, open; None where its data folder's path is too long for a socket."""
    path = door_path(engine.settings.data_dir)
    if path is None:
        return None
    door = EngineDoor(engine, keeper, path)
    door.open()
    return door
