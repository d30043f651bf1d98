"""What a test asks of Ray's state API: the live actors of this test's Ray by name, finished tasks."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import psutil
import ray
from ray.util.state import list_actors, list_tasks


def alive(prefix: str) -> list[str]:
    """The names of the live actors whose name starts with ``prefix``."""
    address = ray.get_runtime_context().gcs_address  # this test's Ray, whatever else runs here
    actors = list_actors(address=address, filters=[("state", "=", "ALIVE")], limit=1000)
    return [str(a.name) for a in actors if (a.name or "").startswith(prefix)]


def ever(prefix: str) -> list[str]:
    """The names of the actors, alive or dead, whose name starts with ``prefix``."""
    address = ray.get_runtime_context().gcs_address
    actors = list_actors(address=address, limit=10_000)
    return sorted({str(a.name) for a in actors if (a.name or "").startswith(prefix)})


def finished_tasks(name: str, at_least: int, timeout_s: float = 30.0) -> int:
    """How many tasks named ``name`` Ray's state API reports finished, waiting (it hears of them a
    moment late) until there are ``at_least`` or ``timeout_s`` has passed."""
    address = ray.get_runtime_context().gcs_address
    deadline = time.monotonic() + timeout_s
    while True:
        filters = [("name", "=", name), ("state", "=", "FINISHED")]
        count = len(list_tasks(address=address, filters=filters, limit=1000))  # type: ignore[arg-type]
        if count >= at_least or time.monotonic() > deadline:
            return count
        time.sleep(0.5)


def actor_pid(handle: Any) -> int:
    """The process id of the actor behind ``handle`` (alive now)."""
    address = ray.get_runtime_context().gcs_address
    actor_id = handle._actor_id.hex()  # Ray's handle keeps its id there
    actors = list_actors(address=address, filters=[("actor_id", "=", actor_id)], detail=True)
    pid = actors[0].pid
    assert pid is not None, f"actor {actor_id} has no process"
    return pid


def kill_chromium(browser_pool: Any) -> int:
    """SIGKILL the Chromium processes under a browser pool actor (the actor lives on); how many."""
    chromium = [c for c in psutil.Process(actor_pid(browser_pool)).children(recursive=True) if _chrome(c)]
    for child in chromium:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
    return len(chromium)


def chromium_processes(browser_pool: Any) -> int:
    """The Chromium processes under a browser pool actor now."""
    children = psutil.Process(actor_pid(browser_pool)).children(recursive=True)
    return sum(1 for child in children if _chrome(child))


def _chrome(process: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return "chrom" in process.name().lower()
    return False
