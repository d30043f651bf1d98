"""Batch research on local Ray and the offline web with the scripted judge: concurrency, resume, bad lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import ray

from actors.batch import read_questions, run_batch
from actors.engine import Engine

pytestmark = [pytest.mark.e2e]


def test_a_batch_runs_resumes_and_reports_bad_lines(
    scripted_engine: tuple[Engine, Any], tmp_path: Path
) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        '{"id": "q1", "question": "Which Python version introduced assignment expressions?"}\n'
        "not json\n"
        '{"id": "q2", "question": "When did SQLite add write-ahead logging?", "max_pages": 1}\n'
        '{"id": "q3", "question": "hey"}\n'
        '{"id": "q 4", "question": "Which PEP added assignment expressions?", "agents": 2, "max_pages": 1}\n'
        '{"id": "q5", "question": "Which PEP added assignment expressions?", "agents": 99}\n'
    )
    messages: list[str] = []
    parsed = list(read_questions(questions, "glance", messages.append))
    assert [q.id for q in parsed] == ["q1", "q2", "q 4"]
    assert [q.agents for q in parsed] == [None, None, 2]
    assert any(m.startswith("line 2:") for m in messages)
    assert any(m.startswith("line 4:") for m in messages)
    assert any(m.startswith("line 6:") and "agents" in m for m in messages)
    out = tmp_path / "results.jsonl"
    assert run_batch(engine, parsed, out, concurrency=2, report=messages.append) == 3
    lines = {json.loads(line)["id"]: json.loads(line) for line in out.read_text().splitlines()}
    assert sorted(lines) == ["q 4", "q1", "q2"]
    assert all(
        line["status"] == "complete" and "usage" in line and "facts" in line for line in lines.values()
    )
    assert lines["q 4"]["mode"] == "swarm"
    assert (engine.settings.data_dir / "bundles" / "w-b-q-4" / "index.md").is_file()
    assert run_batch(engine, parsed, out, concurrency=2, report=messages.append) == 0  # resumed: nothing left
    assert len(out.read_text().splitlines()) == 3
