"""The live Rich view of a running session, rebuilt from its events."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.console import Group
from rich.table import Table
from rich.text import Text

from fathom_ray.models import Event, EventType


@dataclass(slots=True)
class LiveView:
    goal: str
    judge: str = ""
    checklist: list[tuple[str, str, bool]] = field(default_factory=list)
    pages: list[tuple[str, str]] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    status: str = "starting"

    def update(self, events: Sequence[Event]) -> None:
        for event in events:
            data = event.data
            self.status = event.type.value
            if event.type is EventType.DECOMPOSE:
                questions = data.get("questions")
                if isinstance(questions, list):
                    self.checklist = [(f"Q{i}", str(q), False) for i, q in enumerate(questions, start=1)]
            elif event.type is EventType.CHECKLIST_PROGRESS and isinstance(data.get("items"), list):
                items = data["items"]
                assert isinstance(items, list)
                self.checklist = [
                    (str(i["id"]), str(i["question"]), bool(i["satisfied"]))
                    for i in items
                    if isinstance(i, dict)
                ]
            elif event.type is EventType.ANALYZED:
                self.pages.append((str(data.get("url")), f"{data.get('fact_count')} facts"))
            elif event.type is EventType.FETCH_FAILED:
                self.pages.append((str(data.get("url")), f"failed: {data.get('reason')}"))
            elif event.type is EventType.FACTS and isinstance(data.get("items"), list):
                items = data["items"]
                assert isinstance(items, list)
                self.facts += [str(i.get("claim")) for i in items if isinstance(i, dict)]

    def render(self) -> Group:
        judge = f"  judge: {self.judge}" if self.judge else ""
        checklist = Table(title=f"{self.goal}  [{self.status}]{judge}", show_header=False, expand=True)
        checklist.add_column(width=3)
        checklist.add_column(ratio=1)
        for _, question, satisfied in self.checklist:
            checklist.add_row("[green]✓[/green]" if satisfied else "·", question)
        pages = Table("page", "outcome", title=f"pages ({len(self.pages)})", expand=True)
        for url, outcome in self.pages[-8:]:
            pages.add_row(url, outcome)
        facts = Text("\n".join(f"• {claim}" for claim in self.facts[-6:]) or "no facts yet")
        return Group(checklist, pages, facts)
