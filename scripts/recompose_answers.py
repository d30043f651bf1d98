"""Compose a sim run's answers anew with the code as it is now, for tuning how answers are chosen.

`scripts/sim_research.py --out RUN.jsonl` keeps each question's checklist and kept facts in full;
composing answers from them (``compose.item_answers``, the evidence judge's own step) takes
milliseconds, so a change to spans or to the answer's ranking can be tried on a whole set at once
without running the research again (the research does not depend on how answers are composed). It
prints each question whose answer lines now match the gold answer where they did not in the run
("+") or no longer do ("-") (every question with ``--all``), then the share that match:

    .venv/bin/python scripts/recompose_answers.py dev RUN.jsonl [--all]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from sim_research import load  # noqa: E402

from fathom_ray.evaluation.scoring import answer_lines  # noqa: E402
from fathom_ray.judges.evidence.compose import item_answers  # noqa: E402
from fathom_ray.models import ChecklistItem, Fact  # noqa: E402
from fathom_ray.research.answer_sheet import answer_sheet, to_json  # noqa: E402
from fathom_ray.text.normalise import answer_match  # noqa: E402


def ledger(row: dict[str, Any]) -> tuple[list[ChecklistItem], list[Fact]]:
    """A run's checklist and facts, as the session held them."""
    kept = row["ledger"]
    items = [
        ChecklistItem(i["id"], i["question"], i["satisfied"], tuple(i["fact_ids"])) for i in kept["checklist"]
    ]
    tuples = ("checklist_ids", "confirms", "contradicts")
    facts = [Fact(**{**f, **{k: tuple(f[k]) for k in tuples}}) for f in kept["facts"]]
    return items, facts


def lines(row: dict[str, Any]) -> str:
    """The answer lines composed now, through the session's own answer sheet (each answer held to
    its cited evidence), as ``sim_research`` scores them."""
    checklist, facts = ledger(row)
    sheet = answer_sheet(
        checklist, item_answers(checklist, facts), facts, pages_read=len(row.get("read", []))
    )
    return answer_lines({"answers": [to_json(a) for a in sheet.answers]})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("set")
    parser.add_argument("run", type=Path)
    parser.add_argument("--all", action="store_true")
    args = parser.parse_args()
    gold = {q["id"]: q for q in load(args.set)}
    rows = [json.loads(line) for line in args.run.read_text().splitlines() if line.strip()]
    if any("ledger" not in row for row in rows):
        raise SystemExit(f"{args.run} has no checklist and facts: make it anew with sim_research.py --out")
    matched = 0
    for row in rows:
        question = gold[row["id"]]
        said = lines(row)
        now = answer_match(said, question["answer"], question.get("answer_aliases", []))
        matched += now
        before = bool(row["answer_line"])
        if args.all or now != before:
            mark = "+" if now and not before else "-" if before and not now else " "
            print(f"{mark} {row['id']} gold {question['answer']!r}: {said[:160]!r}")
    print(f"answer lines {matched}/{len(rows)} = {matched / len(rows):.3f}")


if __name__ == "__main__":
    main()
