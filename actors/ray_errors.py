"""What a Ray error says, in one line."""

from __future__ import annotations

from ray.exceptions import RayError


def failure_reason(error: BaseException) -> str:
    """What stopped a call, in one line: for a Ray error, the remote exception, not its traceback."""
    inner = (getattr(error, "cause", None) or error) if isinstance(error, RayError) else error
    lines = str(inner).strip().splitlines()
    return f"{type(inner).__name__}: {lines[-1]}" if lines else type(inner).__name__
