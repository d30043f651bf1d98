"""What the HTTP API needs from the engine: start, read, cancel and list sessions.

The app builder takes any ``SessionManager``; ``serve/ray_sessions.py`` is the
one over Ray actors, tests use an in-process one.
"""

from __future__ import annotations

from typing import Protocol

from fathom_ray.errors import FathomError
from fathom_ray.models import Event, JsonValue, ResearchRequest
from fathom_ray.research.session_state import SessionState


class SessionBusyError(FathomError):
    """The cap on concurrent sessions is reached; try again after ``retry_after_s``."""

    def __init__(self, running: int, retry_after_s: int = 30) -> None:
        super().__init__(f"{running} sessions are running, the most allowed")
        self.running = running
        self.retry_after_s = retry_after_s


class NoBundleError(FathomError):
    """A session has no report bundle (only a finished swarm has one)."""

    def __init__(self, session_id: str, why: str) -> None:
        super().__init__(f"{session_id} has no report bundle: {why}")
        self.running = why == "still running"


class NoReportError(FathomError):
    """A session's report cannot be printed: it still runs, or the printer failed."""

    def __init__(self, session_id: str, why: str) -> None:
        super().__init__(f"{session_id} has no printed report: {why}")
        self.running = why == "still running"


class SessionRunningError(FathomError):
    """A running session cannot be deleted; stop it first."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"{session_id} is still running: stop it first, then delete it")


class SessionManager(Protocol):
    async def start(self, request: ResearchRequest, agents: int | None = None) -> str:
        """A new session's id, or with ``agents`` a swarm's; ``SessionBusyError`` over the cap."""
        ...

    async def bundle(self, session_id: str) -> bytes:
        """A finished swarm's report bundle as a zip; ``NoBundleError`` for a session or a swarm
        still running, ``SessionNotFoundError`` for an unknown id."""
        ...

    async def report_pdf(self, session_id: str) -> bytes:
        """A finished session's report (with its facts' evidence) printed to PDF by the engine's
        Chromium; ``NoReportError`` while it runs or when printing fails."""
        ...

    async def events(self, session_id: str, after_seq: int) -> list[Event]:
        """Events after ``after_seq``; ``SessionNotFoundError`` for an unknown id."""
        ...

    async def result(self, session_id: str) -> SessionState:
        """The session's state as it stands; ``SessionNotFoundError`` for an unknown id."""
        ...

    async def cancel(self, session_id: str) -> bool: ...

    async def forget(self, session_id: str) -> None:
        """Delete a session that has ended from the stores (and a swarm's bundle);
        ``SessionRunningError`` while it runs, ``SessionNotFoundError`` for an unknown id."""
        ...

    async def operations(self) -> dict[str, JsonValue]:
        """What an operator looks at: the judge, the cap, the sessions running, the dashboard's URL."""
        ...

    async def list(self) -> list[dict[str, JsonValue]]:
        """A row per session (``results.summary_record``), the last saved first."""
        ...
