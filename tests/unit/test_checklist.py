"""The checklist's steps that the session loop and the swarm share: decompose, settle, compose."""

from __future__ import annotations

import asyncio
from typing import Any

from fathom_ray.models import ChecklistItem, Fact, Usage
from fathom_ray.ports import Judged
from fathom_ray.research import checklist
from tests.scripted_judge import ScriptedJudge

GOAL = "Which Python version added assignment expressions, and who wrote the PEP?"


class Ledger:
    """What a loop's ``account`` does: add each call's usage up."""

    def __init__(self) -> None:
        self.usage = Usage()

    def __call__(self, judged: Judged[Any]) -> Judged[Any]:
        self.usage += judged.usage
        return judged


def test_items_drop_blank_and_repeated_questions_and_keep_the_goal_when_none_is_left() -> None:
    made = checklist.items(GOAL, [" A? ", "", "A?", "B?", "C?"], 2)
    assert [(i.id, i.question) for i in made] == [("Q1", "A?"), ("Q2", "B?")]
    assert [i.question for i in checklist.items(GOAL, ["  ", ""], 5)] == [GOAL]


def test_decompose_accounts_for_the_call() -> None:
    judge, ledger = ScriptedJudge(), Ledger()
    judge.configure(questions=[GOAL, "Which version?", "Who wrote it?"])
    made = asyncio.run(checklist.decompose(judge, GOAL, 10, ledger))
    assert [i.id for i in made] == ["Q1", "Q2", "Q3"]
    assert ledger.usage.calls == 1


def test_an_item_is_settled_only_when_a_fact_backs_it_and_lists_its_facts() -> None:
    items = [ChecklistItem("Q1", GOAL), ChecklistItem("Q2", "Which version?"), ChecklistItem("Q3", "Who?")]
    facts = [
        Fact("F1", "3.8", "New in version 3.8.", "http://a.test/", ("Q1", "Q2")),
        Fact("F2", "PEP 572", "PEP 572", "http://b.test/", ("Q2",)),
    ]
    settled = checklist.settled(items, {"Q1", "Q2", "Q3"}, facts)
    assert [(i.id, i.satisfied, i.fact_ids) for i in settled] == [
        ("Q1", True, ("F1",)),
        ("Q2", True, ("F1", "F2")),
        ("Q3", False, ()),  # the judge said so, but no fact backs it
    ]
    once = [ChecklistItem("Q3", "Who?", satisfied=True)]
    assert checklist.settled(once, set(), facts)[0].satisfied  # a settled item stays settled


def test_settle_without_facts_asks_the_judge_nothing() -> None:
    judge, ledger = ScriptedJudge(), Ledger()
    items = [ChecklistItem("Q1", GOAL)]
    assert asyncio.run(checklist.settle(judge, GOAL, items, [], ledger)) == items
    assert judge.calls["completeness"] == 0
    assert ledger.usage.calls == 0


def test_compose_calls_the_judge_only_with_facts_and_renders_the_report() -> None:
    judge, ledger = ScriptedJudge(), Ledger()
    items = [ChecklistItem("Q1", GOAL)]
    fact = Fact("F1", "Python 3.8 added them.", "Python 3.8 added them.", "http://a.test/", ("Q1",))
    kw: dict[str, Any] = {"pages_read": 1, "tried": [GOAL], "stop_reason": "max pages reached", "titles": {}}
    empty = asyncio.run(checklist.compose(judge, GOAL, items, [], ledger, **kw))
    assert judge.calls["compose"] == 0
    assert "Python 3.8" not in empty.markdown
    made = asyncio.run(checklist.compose(judge, GOAL, items, [fact], ledger, **kw))
    assert judge.calls["compose"] == 1
    assert ledger.usage.calls == 1
    assert "Python 3.8 added them." in made.markdown
