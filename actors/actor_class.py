"""One Ray actor class per Python class, made once in each process."""

from __future__ import annotations

import functools
from typing import Any

import ray


@functools.cache
def actor_class(cls: type) -> Any:
    """``ray.remote(cls)``, made once: each ``ray.remote`` makes a new class that the process keeps
    (the API replica, spawning one Session actor per session, kept one class per session).
    Callers set names and placement per actor with ``.options``.

    Every one runs its calls as they arrive (``allow_out_of_order_execution``; an async actor does
    anyway). A synchronous actor run in order waits for each caller's calls by sequence number, and
    a call that Ray cancels before it reaches the actor (Serve cancels a request when its client
    hangs up, with the calls that request made) leaves a gap: the actor then held that caller's
    next calls for 30 s and failed them all (the source memory, after a page reload in the UI)."""
    return ray.remote(allow_out_of_order_execution=True)(cls)  # type: ignore[call-overload]  # (missing in Ray's stubs)
