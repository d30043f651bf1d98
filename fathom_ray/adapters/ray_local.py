"""A local Ray for one command: the head without the processes such a command never uses.

``ray.init`` of a local cluster starts, beside the GCS and the raylet (and the agents it starts),
an API server (the dashboard's process; without the dashboard it loads only the usage-stats
module, and usage stats are off here), the autoscaler's monitor (a single machine has nothing to
scale) and a log monitor (it streams workers' logs to a driver; our commands do not ask for them).
On 2 cores the API server's start is on ``ray.init``'s path (it polls for it: about 0.5 s), each
is a Python process that imports Ray beside the engine's own starting, and at ``ray.shutdown``
the monitor ignores SIGTERM until Ray's one-second grace ends. A command's own engine skips the
three; an engine kept for others (`fathom up`, `fathom serve`) starts Ray whole, with its
dashboard. Where this Ray has no such hooks (another version), Ray starts as it would.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

SKIPPED = ("start_api_server", "start_monitor", "start_log_monitor")  # the Node methods that start them


@contextlib.contextmanager
def lean_head() -> Iterator[None]:
    """Within the block, a local Ray head starts without its API server, monitor and log monitor."""
    from ray._private import node  # noqa: PLC0415 (Ray starts only for the commands that need it)

    kept: dict[str, Any] = {}
    for name in SKIPPED:
        if callable(getattr(node.Node, name, None)):
            kept[name] = getattr(node.Node, name)
            setattr(node.Node, name, _skip)
    try:
        yield
    finally:
        for name, method in kept.items():
            setattr(node.Node, name, method)


def _skip(self: Any, *args: Any, **kwargs: Any) -> None:
    if hasattr(self, "_webui_url"):
        self._webui_url = ""  # no API server: no dashboard address (as Ray says without one)
