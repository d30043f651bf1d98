"""A session's event log: numbered events, kept for live readers and flushed to the store."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fathom_ray.models import ChecklistItem, Event, EventType, JsonValue


@dataclass(slots=True)
class EventLog:
    session_id: str
    events: list[Event] = field(default_factory=list)
    unsaved: list[Event] = field(default_factory=list)
    next_seq: int = 1
    listener: Callable[[Event], None] | None = None

    @classmethod
    def resume(
        cls, session_id: str, stored: list[Event], listener: Callable[[Event], None] | None = None
    ) -> EventLog:
        return cls(session_id, list(stored), [], (stored[-1].seq + 1) if stored else 1, listener)

    def emit(self, kind: EventType, data: Mapping[str, JsonValue]) -> Event:
        event = Event(self.session_id, self.next_seq, kind, dict(data))
        self.next_seq += 1
        self.events.append(event)
        self.unsaved.append(event)
        if self.listener is not None:
            self.listener(event)
        return event

    def emit_checklist(self, checklist: Sequence[ChecklistItem]) -> Event:
        """``checklist_progress``: how many items are satisfied, and each item's state."""
        items: list[JsonValue] = [
            {"id": i.id, "question": i.question, "satisfied": i.satisfied} for i in checklist
        ]
        done = sum(i.satisfied for i in checklist)
        return self.emit(
            EventType.CHECKLIST_PROGRESS, {"satisfied": done, "total": len(checklist), "items": items}
        )

    def emit_error(self, status: str) -> Event:
        return self.emit(EventType.ERROR, {"status": status})

    def since(self, seq: int) -> list[Event]:
        return [e for e in self.events if e.seq > seq]

    def take_unsaved(self) -> list[Event]:
        taken, self.unsaved = self.unsaved, []
        return taken
