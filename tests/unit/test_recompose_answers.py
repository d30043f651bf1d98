"""scripts/recompose_answers.py: a sim run's answers composed anew from the facts it kept."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from fathom_ray.models import ChecklistItem, Fact

ROOT = Path(__file__).resolve().parents[2]
GOLD = next(
    question
    for question in map(
        json.loads, (ROOT / "tests" / "data" / "dev_questions.jsonl").read_text().splitlines()
    )
    if question["id"] == "q03"  # "Which SQLite release first supported window functions, ...": 3.25.0
)


def row(facts: list[Fact], answer_line: bool) -> dict[str, object]:
    checklist = [ChecklistItem("Q1", "Which SQLite release first supported window functions?")]
    return {
        "id": "q03",
        "answer_line": answer_line,
        "answers": [],
        "ledger": {
            "checklist": [dataclasses.asdict(i) for i in checklist],
            "facts": [dataclasses.asdict(f) for f in facts],
        },
    }


def recompose(tmp_path: Path, rows: list[dict[str, object]]) -> str:
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in rows))
    script = ROOT / "scripts" / "recompose_answers.py"
    done = subprocess.run(
        [sys.executable, str(script), "dev", str(run)], check=False, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_answers_are_composed_from_the_kept_facts_and_changes_are_marked(tmp_path: Path) -> None:
    said = f"Window functions were added to SQLite with release {GOLD['answer']}."
    named = Fact("F1", "", said, "http://a.test/", ("Q1",), 0.7)
    printed = recompose(tmp_path, [row([named], answer_line=False)])
    assert f"+ q03 gold {GOLD['answer']!r}: {GOLD['answer']!r}" in printed
    assert printed.rstrip().endswith("answer lines 1/1 = 1.000")
    lost = recompose(tmp_path, [row([], answer_line=True)])  # no fact: nothing to answer with
    assert lost.startswith("- q03")
    assert lost.rstrip().endswith("answer lines 0/1 = 0.000")


def test_a_run_without_its_facts_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "old.jsonl"
    run.write_text(json.dumps({"id": "q03", "answer_line": False}) + "\n")
    script = ROOT / "scripts" / "recompose_answers.py"
    done = subprocess.run(
        [sys.executable, str(script), "dev", str(run)], check=False, capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "sim_research.py --out" in done.stderr
