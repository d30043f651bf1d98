"""A session run through the kept engine's door (``actors.engine_door``): no Ray in this process.

The command writes its request as one JSON line to the engine's Unix socket and reads frames back:
the session's events as they come, then its result. Ctrl-C asks the engine to stop the session (it
is composed and recorded as cancelled, as an attached session's is; the command reads on to the
end); a second Ctrl-C leaves at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from fathom_ray.errors import FathomError
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.operations.door_frames import CANCEL, read_frame
from fathom_ray.operations.engine_file import ENGINE_SECTIONS, EngineFile, since
from fathom_ray.research.results import ResearchResult
from fathom_ray.settings import Settings


def through_door(
    found: EngineFile,
    settings: Settings,
    request: ResearchRequest,
    on_events: Callable[[list[Event]], None],
    report: Callable[[str], None],
) -> ResearchResult | None:
    """The session's result, run by the kept engine ``found`` in its process; None when it has no
    door or the door does not open (the command then attaches through Ray)."""
    if found.door is None:
        return None
    door = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        door.connect(found.door)
    except OSError:
        door.close()
        return None
    with door:
        door.sendall(_request_line(settings, request))
        with _cancel_on_interrupt(door):
            report(f"attached to {since(found)}; the session runs in its process")
            return _follow(door, on_events)


@contextmanager
def _cancel_on_interrupt(door: socket.socket) -> Iterator[None]:
    """For the block, Ctrl-C asks the engine to stop the session (which it composes and sends, as
    cancelled) instead of interrupting this process, whose reading of a frame may be under way; a
    second Ctrl-C leaves at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    asked = False

    def stop(number: int, frame: FrameType | None) -> None:
        nonlocal asked
        if asked:
            raise KeyboardInterrupt
        asked = True
        with contextlib.suppress(OSError):  # the engine went: the reading says so
            door.sendall(CANCEL)

    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _request_line(settings: Settings, request: ResearchRequest) -> bytes:
    asked = {
        "settings": settings.model_dump(mode="json", exclude=set(ENGINE_SECTIONS)),
        "request": request.to_json(),
        "pid": os.getpid(),
    }
    return json.dumps(asked).encode() + b"\n"


def _follow(door: socket.socket, on_events: Callable[[list[Event]], None]) -> ResearchResult:
    while True:
        kind, value = read_frame(door)
        if kind == "events" and isinstance(value, list):
            on_events(value)
        elif kind == "result" and isinstance(value, ResearchResult):
            return value
        else:
            raise FathomError(f"the engine could not run the session: {value}")
