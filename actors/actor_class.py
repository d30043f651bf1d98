"""One Ray actor class per Python class, made once in each process."""

from __future__ import annotations

import functools
from typing import Any

import ray


@functools.cache
def actor_class(cls: type) -> Any:
    """``ray.remote(cls)``, made once: each ``ray.remote`` makes a new class that the process keeps
    (the API replica, spawning one Session actor per session, kept one class per session).
    Callers set names and placement per actor with ``.options``."""
    return ray.remote(cls)
