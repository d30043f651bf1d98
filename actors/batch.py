"""Batch research: many questions, sessions run concurrently up to the cap, resumable by id."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from actors.coordinator import run_swarm
from actors.engine import Engine, run_session
from fathom_ray.errors import FathomError
from fathom_ray.models import ResearchRequest
from fathom_ray.research.results import ResearchResult
from fathom_ray.swarm.plan import check_agents


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    request: ResearchRequest
    agents: int | None = None  # a swarm of this many researchers instead of one session


def read_questions(
    path: Path, default_depth: str, report: Callable[[str], None], default_agents: int | None = None
) -> Iterator[Question]:
    """Questions of a JSONL file: {id, question or goal, depth?, max_pages?, agents?}; bad lines
    reported, skipped. ``agents`` (or ``default_agents``) runs the question as a swarm."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            goal = item.get("question") or item.get("goal")
            request = ResearchRequest(
                str(goal), str(item.get("depth") or default_depth), max_pages=item.get("max_pages")
            )
            agents = item.get("agents", default_agents)
            yield Question(str(item["id"]), request, check_agents(int(agents)) if agents else None)
        except (ValueError, KeyError, TypeError, AttributeError, FathomError) as e:
            report(f"line {number}: skipped ({type(e).__name__}: {e})")


def done_ids(out: Path) -> set[str]:
    if not out.exists():
        return set()
    ids = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            ids.add(str(json.loads(line)["id"]))
        except (ValueError, KeyError, TypeError):
            continue
    return ids


def run_batch(
    engine: Engine,
    questions: list[Question],
    out: Path,
    concurrency: int,
    report: Callable[[str], None] = print,
) -> int:
    """Run every question not yet in ``out``; append one result line per question. Returns how many ran."""
    skip = done_ids(out)
    todo = [q for q in questions if q.id not in skip]
    report(
        f"{len(todo)} questions to run ({len(questions) - len(todo)} already in {out}), {concurrency} at once"
    )
    lock = threading.Lock()
    out.parent.mkdir(parents=True, exist_ok=True)

    def one(question: Question) -> None:
        started = time.monotonic()
        try:
            line: dict[str, Any] = {"id": question.id}
            if question.agents is not None:  # its bundle stays in DATA_DIR/bundles/<swarm id>
                swarm_id = f"w-b-{_plain(question.id)}"
                line |= run_swarm(engine, question.request, swarm_id, question.agents).research.to_json()
            else:
                _, outcome = run_session(engine, question.request, f"b-{question.id}")
                line |= ResearchResult.from_session(outcome.state, time.monotonic() - started).to_json()
        except Exception as e:  # noqa: BLE001 (one failed question is a result line, not the end of the batch)
            line = {
                "id": question.id,
                "goal": question.request.goal,
                "status": "error",
                "error": str(e)[:500],
            }
        with lock, out.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        report(f"{question.id}: {line['status']} ({len(line.get('facts', []))} facts)")

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        list(pool.map(one, todo))
    return len(todo)


def _plain(question_id: str) -> str:
    """A question id as it may go into a swarm id (letters, digits, ``_`` and ``-``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", question_id)[:50] or "q"
