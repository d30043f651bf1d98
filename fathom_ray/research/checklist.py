"""The checklist's three steps, one contract for the session loop and the swarm's coordinator.

A goal is decomposed into items (``decompose``), the items are settled by the judge and the facts
that back them (``settle``), and the conclusion is composed from the items and the facts
(``compose``). Both loops call these, so a session's and a swarm's checklists follow the same
rules: an item is satisfied only when the judge says so and a fact is linked to it, and every
item lists the facts linked to it. Every judge call goes through the caller's ``account``, which
adds its usage to the run's and logs its failure.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from fathom_ray.judges.llm import answers
from fathom_ray.models import ChecklistItem, Fact
from fathom_ray.ports import Judged, JudgePort
from fathom_ray.research.conclusion import Conclusion, conclude

Account = Callable[[Judged[Any]], Judged[Any]]


def items(goal: str, questions: Sequence[str], size: int) -> list[ChecklistItem]:
    """Numbered items ``Q1``.. from the judge's questions: blank and repeated ones dropped, at most
    ``size``; the goal alone when none is left."""
    unique = list(dict.fromkeys(q.strip() for q in questions if q.strip()))[: max(size, 1)]
    return [ChecklistItem(f"Q{n}", q) for n, q in enumerate(unique or [goal], start=1)]


async def decompose(judge: JudgePort, goal: str, size: int, account: Account) -> list[ChecklistItem]:
    """The goal's checklist as the judge decomposes it (the goal alone when the judge fails)."""
    judged = account(await judge.decompose(goal, size))
    return items(goal, judged.answer.questions if judged.answer else [goal], size)


def settled(
    checklist: Sequence[ChecklistItem], satisfied: Collection[str], facts: Sequence[Fact]
) -> list[ChecklistItem]:
    """The items with the judge's verdicts applied: one stays satisfied once it was, becomes so when
    the judge says so and a fact backs it; each lists the ids of the facts linked to it."""
    backed = {cid for f in facts for cid in f.checklist_ids}
    return [
        ChecklistItem(
            i.id,
            i.question,
            i.satisfied or (i.id in satisfied and i.id in backed),
            tuple(f.id for f in facts if i.id in f.checklist_ids),
        )
        for i in checklist
    ]


async def settle(
    judge: JudgePort, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact], account: Account
) -> list[ChecklistItem]:
    """The checklist settled by the judge on ``facts`` (unchanged, and no call, without facts)."""
    if not facts:
        return list(checklist)
    judged = account(await judge.judge_completeness(goal, checklist, facts))
    return settled(checklist, judged.answer.satisfied if judged.answer else (), facts)


async def compose(
    judge: JudgePort,
    goal: str,
    checklist: Sequence[ChecklistItem],
    facts: Sequence[Fact],
    account: Account,
    *,
    pages_read: int,
    tried: Sequence[str],
    stop_reason: str,
    titles: dict[str, str],
) -> Conclusion:
    """The answers, checklist and report: the judge's composition of the facts (none without facts),
    checked and rendered by ``conclude``."""
    composed: answers.Report | None = None
    if facts:
        composed = account(await judge.compose(goal, checklist, facts)).answer
    return conclude(
        goal,
        checklist,
        composed,
        facts,
        pages_read=pages_read,
        tried=tried,
        stop_reason=stop_reason,
        titles=titles,
    )
