"""What a test asks of Ray's state API: the live actors of this test's Ray, by name."""

from __future__ import annotations

import ray
from ray.util.state import list_actors


def alive(prefix: str) -> list[str]:
    """The names of the live actors whose name starts with ``prefix``."""
    address = ray.get_runtime_context().gcs_address  # this test's Ray, whatever else runs here
    actors = list_actors(address=address, filters=[("state", "=", "ALIVE")], limit=1000)
    return [str(a.name) for a in actors if (a.name or "").startswith(prefix)]
