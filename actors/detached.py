"""Submitting a Ray call outside the task that is running now."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def detached(submit: Callable[[], T]) -> T:
    """Call ``submit`` (one ``.remote()``) in an empty context, so the call is no child of the current task.

    Ray cancels a cancelled task's children: Serve cancels a request when its client hangs up, yet the
    session that request started must live on, and the cancel (or checkpoint) sent on the way out must land.
    """
    return contextvars.Context().run(submit)
