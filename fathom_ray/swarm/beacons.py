"""What a researcher tells its coordinator, read from its own session's events.

- **blocked**: its first ``BLOCKED_AFTER`` page visits all failed (no page could be fetched): an
  attention kind, so the coordinator hears it at once;
- at its end, **budget exhausted** when a budget stopped it, beside its completion record.
"""

from __future__ import annotations

from dataclasses import dataclass

from fathom_ray.models import Event, EventType, JsonValue
from fathom_ray.swarm.task_ledger import Beacon

BLOCKED_AFTER = 3
BUDGET_STOPS = frozenset({"max pages reached", "token budget reached", "time budget reached"})


@dataclass(slots=True)
class BeaconWatch:
    failed: int = 0
    analysed: int = 0
    blocked: bool = False

    def observe(self, event: Event) -> tuple[Beacon, dict[str, JsonValue]] | None:
        """The beacon this event raises, once; None for the rest."""
        if event.type is EventType.ANALYZED:
            self.analysed += 1
        elif event.type is EventType.FETCH_FAILED:
            self.failed += 1
        if not self.blocked and self.analysed == 0 and self.failed >= BLOCKED_AFTER:
            self.blocked = True
            return Beacon.BLOCKED, {"why": f"its first {self.failed} page visits all failed"}
        return None


def at_end(stop_reason: str) -> tuple[Beacon, dict[str, JsonValue]] | None:
    """The beacon a researcher's end raises: budget exhausted when a budget stopped it."""
    return (Beacon.BUDGET_EXHAUSTED, {"why": stop_reason}) if stop_reason in BUDGET_STOPS else None
