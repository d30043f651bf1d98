"""The keeper of an engine kept for other commands: hands them the engine and knows when it is idle.

A command that attaches asks the keeper for the ``Engine`` (its settings, network, judge and actor
handles), joins as a client with its process id, and leaves when it is done. The keeper counts a
client whose process has ended (killed, crashed) as gone, so an engine is idle once no live client
holds it, and idle for the seconds since the last one left (or since it started).
"""

from __future__ import annotations

import time
from typing import Any

from actors.actor_class import actor_class
from actors.engine import Engine
from fathom_ray.operations.engine_file import pid_alive


class EngineKeeper:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._clients: dict[str, int] = {}  # client id -> its process id
        self._since = time.monotonic()

    def engine(self) -> Engine:
        return self._engine

    def join(self, client: str, pid: int) -> None:
        self._clients[client] = pid

    def leave(self, client: str) -> None:
        if self._clients.pop(client, None) is not None and not self._clients:
            self._since = time.monotonic()

    def clients(self) -> int:
        for client, pid in list(self._clients.items()):
            if not pid_alive(pid):
                self.leave(client)
        return len(self._clients)

    def idle_s(self) -> float:
        """0 while a live client holds the engine, else the seconds since the last one left."""
        return 0.0 if self.clients() else time.monotonic() - self._since


def engine_keeper_actor(name: str) -> Any:
    """Bookkeeping only: it asks for no CPU, and ends with the process that keeps the engine."""
    return actor_class(EngineKeeper).options(num_cpus=0, name=name, max_restarts=0)
