"""The swarm's pure parts: the task-tree ledger, the plan and budgets, the analyst, the receipts."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from fathom_ray.errors import InvalidRequestError
from fathom_ray.models import ChecklistItem, Event, EventType, Fact, JsonValue
from fathom_ray.research import fact_ledger
from fathom_ray.research.presets import Budget
from fathom_ray.swarm.analyst import by_item, merge, values
from fathom_ray.swarm.beacons import BeaconWatch, at_end
from fathom_ray.swarm.plan import plan, split
from fathom_ray.swarm.receipts import CheckKind, Receipt, Verdict, check, verdicts
from fathom_ray.swarm.task_ledger import Beacon, RecordKind, TaskLedger, file_of, read


def test_the_ledger_appends_marks_attention_and_resumes(tmp_path: Path) -> None:
    ledger = TaskLedger(tmp_path, "s1")
    ledger.append("coordinator", RecordKind.PLAN, {"sub_goals": ["a", "b"]})
    facts: dict[str, JsonValue] = {"facts": ["F1", "F2"]}
    found = ledger.append("researcher-1", RecordKind.BEACON, facts, beacon=Beacon.CONTRADICTION)
    quiet = ledger.append("researcher-2", RecordKind.BEACON, beacon=Beacon.PROGRESS)
    assert found.kind is RecordKind.BEACON
    assert found.attention
    assert found.data["beacon"] == "found a contradiction"
    assert not quiet.attention
    again = TaskLedger(tmp_path, "s1")  # a restarted coordinator goes on where the file ends
    again.append("coordinator", RecordKind.COMPLETION)
    records = read(tmp_path, "s1")
    assert [r.seq for r in records] == [1, 2, 3, 4]
    assert [r.kind for r in records][-1] is RecordKind.COMPLETION
    with (tmp_path / "s1.jsonl").open("a") as out:
        out.write('{"seq": 5, "agent": "torn')  # a crash mid-line: the rest still reads
    assert len(read(tmp_path, "s1")) == 4


def test_a_long_row_is_cut_and_a_full_file_rolls_with_a_pointer(tmp_path: Path) -> None:
    ledger = TaskLedger(tmp_path, "big", row_chars=400, file_bytes=2_000)
    cut = ledger.append("researcher-1", RecordKind.COMPLETION, {"text": "x" * 5_000})
    assert cut.data["truncated"] is True
    assert cut.data["chars"] == len(json.dumps({"text": "x" * 5_000}))
    for n in range(20):
        ledger.append("coordinator", RecordKind.ASSIGNMENT, {"n": n, "pad": "y" * 150})
    first = file_of(tmp_path, "big", 0)
    assert first.stat().st_size <= 2_000
    assert all(len(line) <= 400 for line in first.read_text().splitlines())
    last = json.loads(first.read_text().splitlines()[-1])
    assert last["kind"] == "roll"
    assert last["data"]["next"] == "big.1.jsonl"
    records = read(tmp_path, "big")
    assert [r.data.get("n") for r in records[1:]] == list(range(20))  # in order across the files
    assert len({r.seq for r in records}) == len(records)
    with pytest.raises(InvalidRequestError):
        TaskLedger(tmp_path, "../escape")


def test_the_plan_deals_parts_round_robin_and_splits_the_budgets() -> None:
    checklist = [ChecklistItem(f"Q{n}", f"Question {n}?") for n in range(1, 6)]  # the goal, then 4 parts
    subs = plan("goal", checklist, 3, Budget(pages=30, time_s=600.0, tokens=1_000))
    assert [s.item_ids for s in subs] == [("Q2", "Q5"), ("Q3",), ("Q4",)]
    assert [s.budget.pages for s in subs] == [10, 10, 10]
    assert sum(s.budget.tokens for s in subs) == 1_000
    assert all(s.budget.time_s < 600.0 for s in subs)  # they run at once; synthesis keeps a share
    assert subs[0].goal == "Question 2? Question 5?"
    # fewer parts than agents: one researcher per part, one more on the goal whole; a goal without
    # parts is one sub-goal
    spare = plan("goal", checklist[:2], 4, Budget(8, 60.0, 100))
    assert [(s.item_ids, s.goal) for s in spare] == [(("Q2",), "Question 2?"), (("Q1",), "Question 1?")]
    settled = [replace(checklist[0], satisfied=True), checklist[1]]
    assert len(plan("goal", settled, 4, Budget(8, 60.0, 100))) == 1
    assert plan("only", [], 2, Budget(8, 60.0, 100))[0].goal == "only"
    assert split(7, 3) == [3, 2, 2]
    with pytest.raises(InvalidRequestError):
        plan("goal", checklist, 0, Budget(8, 60.0, 100))


def fact(fid: str, evidence: str, url: str, items: tuple[str, ...] = ("Q1",)) -> Fact:
    return Fact(fid, evidence, evidence, url, items, 0.6)


def test_the_analyst_confirms_across_domains_and_finds_conflicts() -> None:
    a = fact("F1", "Assignment expressions were added in Python 3.8.", "http://docs.python.test/a.html")
    b = fact("F1", "Python 3.8 added assignment expressions.", "http://peps.example/pep-572.html")
    same_site = fact(
        "F2", "Assignment expressions were added in Python 3.8!", "http://docs.python.test/b.html"
    )
    other = fact("F3", "Assignment expressions were added in Python 3.9.", "http://blog.example/wrong.html")
    unrelated = fact(
        "F4", "The sqlite3 module was written by Gerhard Häring.", "http://docs.python.test/c.html"
    )
    merged = merge([("researcher-1", [a, same_site, unrelated]), ("researcher-2", [b, other, a])])
    ids = {m.fact.evidence: m.fact for m in merged}
    assert len(merged) == 5  # researcher-2's copy of F1 from the same page is kept once
    assert [m.fact.id for m in merged] == ["F1", "F2", "F3", "F4", "F5"]
    first, peps, wrong = ids[a.evidence], ids[b.evidence], ids[other.evidence]
    assert peps.id in first.confirms
    assert first.id in peps.confirms
    assert ids[same_site.evidence].id not in first.confirms  # one domain is one source
    assert wrong.id in first.contradicts
    assert first.id in wrong.contradicts
    assert not ids[unrelated.evidence].confirms
    assert not ids[unrelated.evidence].contradicts
    assert merged[3].agent == "researcher-2"
    assert merged[3].original_id == "F1"
    grouped = by_item(merged, ["Q1", "Q2"])
    assert grouped["Q2"] == []
    assert grouped["Q1"][0].fact.confirms
    assert values("Released 2022-10-13 as 15.0 in 2022") == {"version": {"15.0"}, "date": {"2022-10-13"}}


def test_the_words_that_frame_a_value_make_no_subject_of_their_own() -> None:
    walrus = fact("F1", "New in version 3.8: See PEP 572 for assignment expressions.", "http://a.test/x.html")
    generators = fact("F2", "New in version 3.6: Asynchronous generator expressions.", "http://b.test/y.html")
    later = fact("F3", "Assignment expressions were new in version 3.9.", "http://c.test/z.html")
    merged = merge([("researcher-1", [walrus, generators, later])])
    assert merged[0].fact.contradicts == ("F3",)  # the same subject with another version
    assert not merged[1].fact.contradicts  # "new in version" alone is not a shared subject


def test_receipts_the_latest_per_kind_wins_and_a_pass_never_hides_a_fail() -> None:
    f = fact("F1", "added in Python 3.8", "http://a.test/")
    stored = check(f, CheckKind.STORED, "It was added in Python 3.8 by PEP 572.", at=1.0)
    gone = check(f, CheckKind.SERVED, "This page moved.", at=2.0)
    assert stored.verdict is Verdict.PASS
    assert gone.verdict is Verdict.FAIL
    assert check(f, CheckKind.SERVED, None, at=2.0).detail == "no page text"
    assert verdicts([stored, gone]) == {"F1": Verdict.FAIL}  # the stored PASS does not hide it
    back = Receipt("F1", CheckKind.SERVED, f.evidence, Verdict.PASS, 3.0)
    assert verdicts([stored, gone, back]) == {"F1": Verdict.PASS}  # the latest served check wins
    assert verdicts([back, gone, stored]) == {"F1": Verdict.PASS}  # by time, not by order listed


def test_the_stored_check_matches_as_the_fact_ledger_does_normalising_a_page_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said = "The \u201cRETURNING\u201d clause\n  arrived in  SQLite 3.35.0 \u2013 2021-03-12. "
    page = said * 40 + "\uff26\uff55\uff4c\uff4c width."  # the last two words in full width
    quotes = [
        'The "RETURNING" clause arrived in SQLite 3.35.0 - 2021-03-12.',  # quotes and dashes made plain
        "arrived in SQLite 3.35.0",
        "Full width.",  # NFKC
        "arrived in SQLite 3.36.0",  # not on the page
        "   ",  # nothing to match
    ]
    calls: list[int] = []
    plain = fact_ledger.normalise_for_match

    def counted(text: str) -> str:
        calls.append(len(text))
        return plain(text)

    monkeypatch.setattr(fact_ledger, "normalise_for_match", counted)
    fact_ledger._normalised_page.cache_clear()
    held = [check(fact("F1", q, "http://a.test/"), CheckKind.STORED, page, at=1.0).verdict for q in quotes]
    assert held == [Verdict.PASS, Verdict.PASS, Verdict.PASS, Verdict.FAIL, Verdict.FAIL]
    assert held == [Verdict.PASS if fact_ledger.evidence_in(q, page) else Verdict.FAIL for q in quotes]
    assert sum(n == len(page) for n in calls) == 1  # the page once, for all five quotes


def test_a_researcher_is_blocked_when_its_first_visits_all_fail_and_says_so_once() -> None:
    watch = BeaconWatch()
    failed = Event("s", 1, EventType.FETCH_FAILED, {"url": "http://a.test/", "reason": "timeout"})
    assert watch.observe(failed) is None
    assert watch.observe(failed) is None
    raised = watch.observe(failed)
    assert raised is not None
    assert raised[0] is Beacon.BLOCKED
    assert watch.observe(failed) is None  # once
    lucky = BeaconWatch()
    lucky.observe(Event("s", 1, EventType.ANALYZED, {"url": "http://a.test/"}))
    assert all(lucky.observe(failed) is None for _ in range(5))  # a page was read: not blocked
    assert at_end("max pages reached") == (Beacon.BUDGET_EXHAUSTED, {"why": "max pages reached"})
    assert at_end("checklist satisfied") is None
