"""Where a running engine says it is, and who holds the stores of a FATHOM_DATA_DIR.

An engine kept for other commands (``fathom up``, ``fathom serve``) writes ``engine.json`` in the data
folder once it is ready: its process, its Ray's address and namespace, and which web it researches.
A command reads it to attach. A file whose process is gone (the engine was killed) is stale: it is
removed on reading, so the next command starts cleanly.

Whoever runs the stores of a data folder (an engine kept for others, or a command's own engine) holds
``stores.lock`` (an ``flock``, released by the kernel when its process ends, however it ends), so a
second engine on the same folder is known before its stores refuse to open.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

ENGINE_FILE = "engine.json"
DOOR = "engine.sock"
SOCKET_PATH_BYTES = 100  # a Unix socket's path holds 108 bytes
# the settings a command's session through the door takes from the engine, not the command: its
# judge, its stores and its API (the ones that hold secrets, which are never written out)
ENGINE_SECTIONS = frozenset({"llm", "qdrant", "neo4j", "graph", "api"})
STORES_LOCK = "stores.lock"


@dataclass(frozen=True, slots=True)
class EngineFile:
    pid: int  # the process that keeps the engine
    address: str  # its Ray's GCS address, for ray.init(address=...)
    namespace: str  # where its named actors live
    keeper: str  # the name of its keeper actor
    web: str  # "internet" or "offline"
    offline_port: int | None  # the offline web's port, when web is "offline"
    started: float  # epoch seconds
    by: str  # "fathom up" or "fathom serve"
    idle_timeout_s: float | None  # None: kept until stopped
    dashboard: str | None = None
    metrics: str | None = None  # its node's Prometheus endpoint
    door: str | None = None  # its Unix socket, where commands run sessions in its process (``fathom up``'s)


def door_path(data_dir: Path) -> Path | None:
    """Where the door of the engine kept for ``data_dir`` is (``actors.engine_door``), or None where
    the path is too long for a Unix socket (commands then attach through Ray)."""
    path = data_dir.resolve() / DOOR
    return path if len(os.fsencode(path)) < SOCKET_PATH_BYTES else None


def engine_path(data_dir: Path) -> Path:
    return data_dir / ENGINE_FILE


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (one that has ended but is not yet reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True  # no /proc here: the signal said it lives
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def read_engine(data_dir: Path) -> EngineFile | None:
    """The engine kept for this data folder, or None; a stale or unreadable file is removed."""
    path = engine_path(data_dir)
    try:
        found = EngineFile(**json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError):
        path.unlink(missing_ok=True)
        return None
    if not pid_alive(found.pid):
        path.unlink(missing_ok=True)
        return None
    return found


def write_engine(data_dir: Path, engine: EngineFile) -> None:
    """Write ``engine.json`` whole (a reader never sees half of it), readable by its owner only."""
    data_dir.mkdir(parents=True, exist_ok=True)
    part = data_dir / f".{ENGINE_FILE}.{os.getpid()}"
    part.write_text(json.dumps(asdict(engine), indent=2), encoding="utf-8")
    part.chmod(0o600)
    part.replace(engine_path(data_dir))


def remove_engine(data_dir: Path, pid: int) -> None:
    """Remove ``engine.json`` if it is still the one process ``pid`` wrote."""
    found = read_engine(data_dir)
    if found is not None and found.pid == pid:
        engine_path(data_dir).unlink(missing_ok=True)


def since(engine: EngineFile) -> str:
    """How the CLI names a running engine."""
    started = time.strftime("%H:%M:%S", time.localtime(engine.started))
    return f"the engine {engine.by} started at {started} (pid {engine.pid}, {engine.web} web)"


@dataclass(slots=True)
class StoresLock:
    """The held lock on a data folder's stores; ``release`` (or the process's end) frees it."""

    handle: IO[str]

    def release(self) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def lock_stores(data_dir: Path, holder: str) -> StoresLock | None:
    """The lock on ``data_dir``'s stores for this process, or None when another process holds it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    handle = (data_dir / STORES_LOCK).open("a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()} {holder}\n")
    handle.flush()
    return StoresLock(handle)


def stores_holder(data_dir: Path) -> str:
    """Who holds the stores' lock, as it wrote itself ("pid command"), or "another process"."""
    try:
        said = (data_dir / STORES_LOCK).read_text(encoding="utf-8").strip()
    except OSError:
        said = ""
    pid, _, holder = said.partition(" ")
    return f"{holder} (pid {pid})" if pid.isdigit() and holder else "another process"
