"""`fathom up` and `fathom down`: one engine kept in the background for the commands of a data folder.

``up`` starts a process that holds the engine (``fathom engine-hold``, hidden) and returns once the
engine is ready, saying where its log is; the engine stops after ``FATHOM_ENGINE__IDLE_TIMEOUT_S``
with no command on it, on ``fathom down``, or with its process. ``up`` with an engine running says
which and starts nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from fathom_ray.errors import FathomError
from fathom_ray.operations.engine_file import (
    EngineFile,
    lock_stores,
    pid_alive,
    read_engine,
    remove_engine,
    since,
    stores_holder,
)
from fathom_ray.settings import Settings
from fathom_ray.web.network import NetworkMap

ENGINE_LOG = "engine.log"
UP = "fathom up"  # who a kept engine says started it
READY_TIMEOUT_S = 600.0
STOP_TIMEOUT_S = 60.0


def start_kept_engine(settings: Settings, web: str, say: Callable[[str], None]) -> tuple[EngineFile, bool]:
    """The engine kept for ``settings.data_dir``: the running one (False), or a new one once it is
    ready (True)."""
    running = read_engine(settings.data_dir)
    if running is not None and running.web != web:
        raise FathomError(
            f"{since(running)} is running for this data folder: stop it first to start one for the {web} web"
        )
    if running is not None:
        return running, False
    refuse_if_held(settings)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    log = settings.data_dir / ENGINE_LOG
    command = [sys.executable, "-m", "fathom_ray.cli", "engine-hold", "--web", web]
    with log.open("w", encoding="utf-8") as out:
        holder = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    say(f"starting the engine (log: {log}) ...")
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        found = read_engine(settings.data_dir)
        if found is not None and found.pid == holder.pid:
            return found, True
        if holder.poll() is not None:
            raise FathomError(f"the engine did not start:\n{_tail(log)}")
        time.sleep(0.3)
    holder.kill()
    raise FathomError(f"the engine was not ready in {READY_TIMEOUT_S:.0f} s:\n{_tail(log)}")


def stop_kept_engine(settings: Settings, say: Callable[[str], None]) -> bool:
    """Stop the engine kept for ``settings.data_dir``; False when none runs."""
    running = read_engine(settings.data_dir)
    if running is None:
        return False
    if running.by != UP:
        raise FathomError(f"{since(running)}: stop it where it runs (Ctrl-C), not with `fathom down`")
    say(f"stopping {since(running)} ...")
    os.kill(running.pid, signal.SIGINT)  # as Ctrl-C: Ray takes SIGTERM over in its processes
    if not wait_gone(running.pid, STOP_TIMEOUT_S):
        say(f"it did not stop in {STOP_TIMEOUT_S:.0f} s: killing it")
        os.kill(running.pid, signal.SIGKILL)
        wait_gone(running.pid, 10.0)
    remove_engine(settings.data_dir, running.pid)  # a killed one left its file
    return True


def wait_gone(pid: int, within_s: float) -> bool:
    """Whether process ``pid`` has ended, waiting up to ``within_s`` for it."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.2)
    return not pid_alive(pid)


def _tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {log})"


def hold_engine(settings: Settings, network: NetworkMap, say: Callable[[str], None]) -> None:
    """Start the engine, keep it for other commands until it is idle (or SIGTERM, Ctrl-C), stop it."""
    from fathom_ray.cli.attach import hold_until_idle, published  # noqa: PLC0415
    from fathom_ray.cli.running import running_engine  # noqa: PLC0415

    refuse_if_held(settings)
    idle = settings.engine.idle_timeout_s
    with (
        running_engine(settings, network, None, "the engine", say, dashboard=True, kept=True) as engine,
        published(engine, network, UP, idle, door=True) as keeper,
    ):
        say(f"ready; it stops after {idle:g} s with no command on it, or on `fathom down`")
        waited = hold_until_idle(keeper, idle)
        say(f"idle for {waited:.0f} s: stopping" if waited else "stopping")


def refuse_if_held(settings: Settings) -> None:
    """A ``FathomError`` when another process runs the stores of ``settings.data_dir``."""
    held = lock_stores(settings.data_dir, UP)
    if held is None:
        raise FathomError(
            f"the stores in {settings.data_dir} are in use by {stores_holder(settings.data_dir)}: "
            "let it end, then `fathom up` (or give this one another FATHOM_DATA_DIR)"
        )
    held.release()
