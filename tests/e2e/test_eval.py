"""`fathom eval`'s runs on local Ray and the offline web with the scripted judge: both methods, scored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import ray

from actors.engine import Engine
from fathom_ray.cli.evaluation import grade_one, run_one
from fathom_ray.evaluation.questions import parse_questions
from fathom_ray.evaluation.run import METHODS, evaluate, read_rows
from fathom_ray.research.presets import PRESETS

pytestmark = [pytest.mark.e2e]
DEV = Path(__file__).resolve().parents[1] / "data" / "dev_questions.jsonl"


def test_both_methods_run_and_are_scored(scripted_engine: tuple[Engine, Any], tmp_path: Path) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    questions, _ = parse_questions(DEV.read_text().splitlines())
    summary = evaluate(
        questions[:2],
        METHODS,
        tmp_path,
        lambda question, method: run_one(engine, question, method, "quick"),
        grade=lambda question, text: grade_one(engine, question, text),
        concurrency=2,
        report=lambda _: None,
    )
    rows = {(r["method"], r["id"]): r for r in read_rows(tmp_path / "results.jsonl")}
    assert len(rows) == 4
    for (method, _), row in rows.items():
        assert row["status"] == "complete", row
        assert 1 <= row["pages_fetched"] <= PRESETS["quick"].max_pages
        assert row["llm_verdict"] in {"correct", "wrong"}
        assert row["evidence_recall"] is not None
        if method == "single-pass":
            assert row["stop_reason"] == "single pass"
            assert row["llm_calls"] == 1  # one answer for the whole question
            assert set(row["stages_s"]) == {"search", "fetch", "answer"}
            assert 0 < row["citation_faithfulness"] < 1  # the scripted answer cites one quote no page has
        else:
            assert set(row["stages_s"]) == {"plan and search", "rounds", "compose"}
            assert row["citation_faithfulness"] in {None, 1.0}  # the ledger kept only facts on their pages
    assert summary["methods"]["single-pass"]["completed"] == 2
    assert (tmp_path / "report.md").exists()
