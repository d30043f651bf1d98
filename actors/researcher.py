"""The Researcher actor: one of a swarm's researchers, kept for the swarm's life.

A swarm creates at most one Researcher per agent, once; its coordinator hands each one sub-goal
after another (round after round, and a lost one's sub-goal to another), and each sub-goal runs
here as a session (``SessionService``) on the engine's shared actors. So a sub-goal costs no
process and no set-up of its own: the imports and the actor handles are paid once per researcher.

A researcher is never restarted and its calls are never retried: one that crashes or is killed is
let go, and its sub-goal is given once more to a new one (the coordinator's loop), so no call of a
dead swarm runs on after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actors.actor_class import actor_class
from actors.directory import ActorDirectory
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.settings import Settings
from fathom_ray.web.network import NetworkMap

if TYPE_CHECKING:  # the coordinator creates researchers: the session loop is the researcher's to import
    from actors.session import SessionService
    from fathom_ray.research.session_state import SessionOutcome


class ResearcherService:
    """No I/O in ``__init__``; ``research`` runs one sub-goal's session at a time."""

    def __init__(self, settings: Settings, swarm_id: str, parts: ActorDirectory, network: NetworkMap) -> None:
        self._settings, self._swarm_id = settings, swarm_id
        self._parts, self._network = parts, network
        self._current: tuple[str, SessionService] | None = None
        self._cancelled: set[str] = set()  # sub-goals cancelled, perhaps before they started here

    async def ready(self) -> bool:
        """Answers once the actor runs (the coordinator's readiness check)."""
        return True

    async def research(self, session_id: str, request: ResearchRequest, agent: str) -> SessionOutcome:
        """The sub-goal's session, run here to its end: it writes the agent's ledger records."""
        from actors.session import SessionService  # noqa: PLC0415 (this process's, not its creator's)

        service = SessionService(
            self._settings, session_id, request, self._parts, self._network, (self._swarm_id, agent)
        )
        self._current = (session_id, service)
        if session_id in self._cancelled:  # the swarm was cancelled while this call was on its way
            await service.cancel()
        return await service.run()

    async def events_since(self, session_id: str, seq: int) -> list[Event]:
        """The events of ``session_id`` after ``seq``, while it is this researcher's current one."""
        if self._current is None or self._current[0] != session_id:
            return []
        return await self._current[1].events_since(seq)

    async def cancel(self, session_id: str) -> None:
        """Stop the sub-goal ``session_id``'s session, now or as soon as it starts here (the cancel
        may come first: a new researcher is alive, and cancellable, before it is handed its
        sub-goal); it hands back what it found."""
        self._cancelled.add(session_id)
        if self._current is not None and self._current[0] == session_id:
            await self._current[1].cancel()


def researcher_actor(name: str, **placement: Any) -> Any:
    """The Researcher actor class, named for the task tree in the dashboard (``<swarm>-researcher-N``)."""
    return actor_class(ResearcherService).options(
        num_cpus=0, max_restarts=0, max_task_retries=0, name=name, **placement
    )
