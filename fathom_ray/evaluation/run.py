"""Running an evaluation: every (question, method) not yet in results.jsonl, then summary.json and report.md.

How one run happens is passed in (``RunOne``; Ray sessions in `fathom eval`, anything in tests), so
resuming, scoring and writing the outputs do not depend on Ray.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fathom_ray.evaluation.questions import EvalQuestion
from fathom_ray.evaluation.report import write_report
from fathom_ray.evaluation.scoring import answer_text, score
from fathom_ray.evaluation.summary import summarise

METHODS = ("fathom", "single-pass")
RunOne = Callable[[EvalQuestion, str], tuple[dict[str, Any], dict[str, float]]]
"""(question, method) -> (the result.json document, seconds per stage)."""
Grade = Callable[[EvalQuestion, str], str | None]
"""(question, answer text) -> "correct", "partial", "wrong", or None when the judge gave no verdict."""


def read_rows(results: Path) -> list[dict[str, Any]]:
    """The rows of results.jsonl; a line cut short by a crash is ignored (it is run again)."""
    if not results.exists():
        return []
    rows = []
    for line in results.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and "id" in row and "method" in row:
            rows.append(row)
    return rows


def evaluate(
    questions: Sequence[EvalQuestion],
    methods: Sequence[str],
    out: Path,
    run_one: RunOne,
    *,
    grade: Grade | None = None,
    concurrency: int = 2,
    report: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run what results.jsonl lacks, appending a row per run as it ends; then write the summary and report."""
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    done = {(str(r["id"]), str(r["method"])) for r in read_rows(results)}
    todo = [(q, m) for q in questions for m in methods if (q.id, m) not in done]
    report(f"{len(todo)} runs to do ({len(questions) * len(methods) - len(todo)} already in {results})")
    lock = threading.Lock()

    def one(item: tuple[EvalQuestion, str]) -> None:
        question, method = item
        try:
            document, stages = run_one(question, method)
        except Exception as e:  # noqa: BLE001 (a failed run is a row, never the end of the evaluation)
            document, stages = {"status": "error", "stop_reason": "", "error": error_text(e)}, {}
        runs = out / "runs" / method
        runs.mkdir(parents=True, exist_ok=True)
        (runs / f"{_file_name(question.id)}.json").write_text(
            json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        verdict = None
        if grade is not None and document.get("status") == "complete":
            verdict = grade(question, answer_text(document))
        row = score(question, method, document, stages, verdict)
        with lock:
            with results.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            if row["status"] == "error":
                report(f"{question.id} ({method}): error: {row['error']}")
                return
            report(
                f"{question.id} ({method}): {row['status']}, evidence recall {_fmt(row['evidence_recall'])}, "
                f"citations {_fmt(row['citation_faithfulness'])}, "
                f"answer {'matched' if row['answer_match'] else 'missed'}, "
                f"answer lines {'matched' if row['answer_line_match'] else 'missed'}"
            )

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        list(pool.map(one, todo))
    return finish(out, questions, methods)


def error_text(error: BaseException, limit: int = 500) -> str:
    """What a failed run says: the last line of the error (a remote traceback ends with the exception)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    text = last if type(error).__name__ in last or ":" in last else f"{type(error).__name__}: {last}"
    return text[:limit]


def finish(out: Path, questions: Sequence[EvalQuestion], methods: Sequence[str]) -> dict[str, Any]:
    """summary.json and report.md from the rows of results.jsonl for these questions and methods."""
    ids = {q.id for q in questions}
    rows = [r for r in read_rows(out / "results.jsonl") if r["id"] in ids and r["method"] in methods]
    order = {(q.id, m): n for n, (q, m) in enumerate((q, m) for q in questions for m in methods)}
    rows.sort(key=lambda r: order.get((str(r["id"]), str(r["method"])), len(order)))
    summary = summarise(rows)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    write_report(out, rows, summary, f"fathom eval: {len(ids)} questions, {', '.join(methods)}")
    return summary


def _file_name(identifier: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in identifier)[:100] or "question"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
