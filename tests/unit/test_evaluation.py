"""Evaluation: the question file, the scores recomputed from result.json, the summary and resuming."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from fathom_ray.evaluation.questions import EvalQuestion, parse_questions
from fathom_ray.evaluation.run import evaluate, read_rows
from fathom_ray.evaluation.scoring import (
    citation_faithfulness,
    evidence_fact_share,
    evidence_recall,
    score,
)
from fathom_ray.evaluation.summary import METRICS
from fathom_ray.text.normalise import answer_match

DATA = Path(__file__).resolve().parents[1] / "data"
HAND_MADE = json.loads((DATA / "unfaithful_result.json").read_text())
SQLITE = "http://www.sqlite.test/lang_returning.html"
POSTGRES = "http://www.postgresql.test/docs/15/dml-returning.html"


def test_a_fact_citing_a_page_without_its_evidence_is_unfaithful() -> None:
    assert (
        citation_faithfulness(HAND_MADE) == 0.0
    )  # the quote is on the SQLite page, the fact cites PostgreSQL's
    mended = copy.deepcopy(HAND_MADE)
    mended["facts"][0]["source_url"] = SQLITE
    assert citation_faithfulness(mended) == 1.0
    mended["facts"].append({**HAND_MADE["facts"][0], "id": "F2", "evidence": "Version 4 is out"})
    assert citation_faithfulness(mended) == 0.5


def test_faithfulness_forgives_typography_but_not_words() -> None:
    document = {
        "facts": [
            {"evidence": "sqlite\u2019s  syntax for\nreturning", "source_url": SQLITE},
            {"evidence": "SQLite's syntax for RETURNING is copied from Oracle", "source_url": SQLITE},
        ],
        "pages": HAND_MADE["pages"],
    }
    assert citation_faithfulness(document) == 0.5
    assert citation_faithfulness({"facts": [], "pages": HAND_MADE["pages"]}) is None


def test_evidence_recall_compares_canonical_urls_of_pages_fetched() -> None:
    urls = [
        "HTTP://WWW.SQLite.test:80/lang_returning.html",
        POSTGRES + "#intro",
        "http://www.sqlite.test/json1.html",
    ]
    assert evidence_recall(urls, HAND_MADE) == pytest.approx(2 / 3)
    failed = copy.deepcopy(HAND_MADE)
    failed["pages"][0]["status"] = "failed"
    assert evidence_recall([POSTGRES], failed) == 0.0
    assert evidence_recall([], HAND_MADE) is None
    odd = {
        "pages": [{"url": "http://[::1", "status": "ok"}],
        "facts": [{"evidence": "x", "source_url": "http://[::1"}],
    }
    assert (
        evidence_recall(["http://[::1", SQLITE], odd) == 0.5
    )  # an URL that cannot be canonical is kept as written
    assert citation_faithfulness(odd) == 0.0


def test_the_evidence_fact_share_is_the_share_of_facts_citing_an_evidence_page() -> None:
    document = {
        "facts": [
            {"evidence": "a", "source_url": "HTTP://www.sqlite.test/lang_returning.html#x"},
            {"evidence": "b", "source_url": POSTGRES},
            {"evidence": "c", "source_url": "http://www.sqlite.test/json1.html"},
            {"evidence": "d"},
        ],
    }
    assert evidence_fact_share([SQLITE], document) == 0.25
    assert evidence_fact_share([SQLITE, POSTGRES], document) == 0.5
    assert evidence_fact_share([], document) is None
    assert evidence_fact_share([SQLITE], {"facts": []}) is None


@pytest.mark.parametrize(
    ("text", "answer", "aliases", "matched"),
    [
        ("Supported since SQLite version 3.35.0 (2021).", "3.35.0", (), True),
        ("It needs SQLite 3.7.15 or newer.", "3.7.0", (), False),  # whole words: 3.7.0 is not in 3.7.15
        ("Written by Gerhard Haring.", "Gerhard Häring", ("Gerhard Haring",), True),
        ("WRITTEN BY THE GERHARD HÄRING!", "Gerhard Häring", (), True),
        ("It was released on 2022-10-13.", "October 13, 2022", ("2022-10-13",), True),
        ("Nothing relevant.", "MERGE", (), False),
    ],
)
def test_answer_match_normalises(text: str, answer: str, aliases: tuple[str, ...], matched: bool) -> None:
    assert answer_match(text, answer, aliases) is matched


def test_malformed_lines_are_reported_by_number_and_skipped() -> None:
    good = {"id": "a", "question": "Which version added it?", "answer": "3.35.0", "evidence_urls": [SQLITE]}
    lines = [
        json.dumps(good),
        "",
        "{not json",
        json.dumps({"id": "b", "question": "Which version added it?"}),
        json.dumps({**good, "id": "c", "evidence_urls": ["ftp://x.test/"]}),
        json.dumps({**good, "id": "a"}),
        json.dumps(["a", "list"]),
        json.dumps({**good, "id": "d", "hops": 0}),
        json.dumps({**good, "id": 7, "answer_aliases": ["v3.35"]}),
    ]
    questions, problems = parse_questions(lines)
    assert [q.id for q in questions] == ["a", "7"]
    assert questions[0].hops == 1
    assert questions[1].answer_aliases == ("v3.35",)
    assert [p.split(":")[0] for p in problems] == ["line 3", "line 4", "line 5", "line 6", "line 7", "line 8"]
    assert "missing answer" in problems[1]
    assert "repeats" in problems[3]


QUESTIONS = [
    EvalQuestion("r", "Since which version is RETURNING supported?", "3.35.0", (), (SQLITE, POSTGRES), 2),
    EvalQuestion("u", "Since which version is UPSERT supported?", "3.24.0", ("v3.24",), (SQLITE,), 1),
    EvalQuestion("x", "Which question makes the run fail?", "never", (), (), 1),
]


def fake_run(question: EvalQuestion, method: str) -> tuple[dict[str, Any], dict[str, float]]:
    if question.id == "x":
        # as a remote error reads: the traceback first, the exception last
        raise RuntimeError(
            'ray::SessionService.run() (pid=1)\n  File "x.py", line 1, in run\n    raise self._exception\n'
            "ValueError: the session actor died"
        )
    document = copy.deepcopy(HAND_MADE)
    if method == "single-pass":
        document["pages"] = document["pages"][:1]
        document["usage"]["pages_fetched"] = 1
    return document, {"search": 1.0, "answer": 2.0}


def test_evaluate_writes_outputs_the_summary_recomputes_and_a_rerun_resumes(tmp_path: Path) -> None:
    messages: list[str] = []
    summary = evaluate(
        QUESTIONS,
        ["fathom", "single-pass"],
        tmp_path,
        fake_run,
        grade=lambda q, text: "correct" if q.answer in text else "wrong",
        report=messages.append,
    )
    rows = read_rows(tmp_path / "results.jsonl")
    assert len(rows) == 6
    assert json.loads((tmp_path / "summary.json").read_text()) == summary
    for method in ("fathom", "single-pass"):
        mine = [r for r in rows if r["method"] == method]
        for metric in METRICS:
            values = [float(r[metric]) for r in mine if r[metric] is not None]
            expected = round(sum(values) / len(values), 4) if values else None
            assert summary["methods"][method]["metrics"][metric] == {"mean": expected, "count": len(values)}
    by_key = {(r["id"], r["method"]): r for r in rows}
    assert by_key["r", "fathom"]["evidence_recall"] == 1.0
    assert by_key["r", "single-pass"]["evidence_recall"] == 0.5
    assert by_key["r", "fathom"]["citation_faithfulness"] == 0.0
    assert by_key["r", "fathom"]["answer_match"] is True
    assert by_key["u", "fathom"]["answer_match"] is False
    assert by_key["r", "fathom"]["llm_verdict"] == "correct"
    assert by_key["x", "fathom"]["status"] == "error"
    assert by_key["x", "fathom"]["error"] == "ValueError: the session actor died"
    assert "x (fathom): error: ValueError: the session actor died" in messages
    assert summary["methods"]["fathom"]["completed"] == 2
    report = (tmp_path / "report.md").read_text()
    assert "| evidence_recall |" in report
    assert "single-pass" in report
    for png in ("plot_per_question.png", "plot_pages_vs_recall.png", "plot_stages.png"):
        assert (tmp_path / png).read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "runs" / "fathom" / "r.json").exists()

    def must_not_run(question: EvalQuestion, method: str) -> tuple[dict[str, Any], dict[str, float]]:
        raise AssertionError(f"{question.id} {method} ran again")

    with (tmp_path / "results.jsonl").open("a") as handle:
        handle.write('{"id": "u", "meth')  # a line cut short by a crash
    again = evaluate(QUESTIONS, ["fathom", "single-pass"], tmp_path, must_not_run, report=messages.append)
    assert again == summary
    assert messages[-1].startswith("0 runs to do (6 already in")


def test_score_counts_usage_and_stages() -> None:
    row = score(QUESTIONS[0], "fathom", HAND_MADE, {"rounds": 3.21})
    assert row["tokens"] == 1020
    assert row["pages_fetched"] == 2
    assert row["stages_s"] == {"rounds": 3.21}
    assert row["llm_verdict"] is None


def test_answer_lines_are_scored_alone_beside_the_whole_report() -> None:
    question = EvalQuestion("a", "Which version added it?", "3.8", ("Python 3.8",), (), 1)
    facts = [{"id": "F1", "evidence": "New in version 3.8.", "claim": "New in version 3.8."}]
    answered = {"item": "Q1", "answer": "3.8", "fact_ids": ["F1"], "status": "answered"}
    unfaithful = {"item": "Q2", "answer": "3.9", "fact_ids": ["F1"], "status": "answered"}
    missing = {"item": "Q3", "answer": "", "fact_ids": [], "status": "not_found", "pages_read": 2}
    document: dict[str, Any] = {"status": "complete", "facts": facts, "report_markdown": "Python 3.8"}
    row = score(question, "fathom", {**document, "answers": [answered, missing]}, {})
    assert (row["answer_match"], row["answer_line_match"], row["answer_faithfulness"]) == (True, True, 1.0)
    row = score(question, "fathom", {**document, "answers": [missing]}, {})
    assert (row["answer_match"], row["answer_line_match"], row["answer_faithfulness"]) == (True, False, None)
    row = score(question, "fathom", {**document, "answers": [answered, unfaithful]}, {})
    assert row["answer_faithfulness"] == 0.5
    assert {"answer_line_match", "answer_faithfulness"} <= set(METRICS)
