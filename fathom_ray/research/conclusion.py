"""A session's end, one rule for the session loop and the swarm: the judge's composed report becomes
the answers (held to their evidence), the ticked checklist and the Markdown report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fathom_ray.judges.llm.answers import Report
from fathom_ray.models import ChecklistItem, Fact
from fathom_ray.research import report
from fathom_ray.research.answer_sheet import AnswerSheet, answer_sheet, ticked


@dataclass(frozen=True, slots=True)
class Conclusion:
    checklist: tuple[ChecklistItem, ...]
    sheet: AnswerSheet
    markdown: str


def conclude(
    goal: str,
    checklist: Sequence[ChecklistItem],
    composed: Report | None,
    facts: Sequence[Fact],
    *,
    pages_read: int,
    tried: Sequence[str],
    stop_reason: str,
    titles: Mapping[str, str],
) -> Conclusion:
    """The answers, the checklist with every answered item ticked, and the report that opens with them."""
    claims = composed.answers if composed is not None else []
    findings = composed.findings if composed is not None else []
    sheet = answer_sheet(checklist, claims, facts, pages_read, tried)
    done = ticked(checklist, sheet.answers)
    markdown = report.render(goal, done, findings, facts, stop_reason, answers=sheet.answers, titles=titles)
    return Conclusion(tuple(done), sheet, markdown)
