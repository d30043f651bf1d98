"""A swarm beside one session in one process, for tuning: the real coordinator loop and round driver.

`scripts/bench_swarm.py` runs both methods through `fathom eval` (Ray, Chromium, the actors): the
numbers that count, at about 50 s a question. This runs the same ``Coordinator`` (plan, fan-out,
analyst, gap filling, compose) with each researcher a ``ResearchSession`` in this process, and one
session beside it, on the offline web as ``scripts/sim_research.py`` does (pages over plain HTTP,
the evidence judge, empty source memory; the verifier checks stored pages only). Evidence recall
is what both fetched, so a change to the swarm's plan can be tried on the multi-part questions at
once; it never writes docs/benchmarks.md.

    .venv/bin/python scripts/sim_swarm.py [--depth standard] [--agents 3] [--sets dev,held-out]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from sim_research import SETS, Memory, OfflineWeb, mark, offline_web

from fathom_ray.judges.evidence.decompose import decompose
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.models import ResearchRequest
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_loop import ResearchSession, Services
from fathom_ray.research.session_state import SessionState
from fathom_ray.settings import Settings, load_settings
from fathom_ray.swarm.coordinator import Coordinator, ResearcherOutcome
from fathom_ray.swarm.plan import SubGoal
from fathom_ray.swarm.task_ledger import TaskLedger
from tests.fakes import FakeFrontier


class Sessions:
    """Sessions in this process on the offline web; the swarm's researchers are such sessions."""

    def __init__(self, web: OfflineWeb, settings: Settings, depth: str, seed: int) -> None:
        self.web, self._settings, self._depth = web, settings, depth
        self._research = settings.research.model_copy(update={"seed": seed})
        self.judge = EvidenceJudge(web, settings.llm.evidence_threshold)

    async def run(self, session_id: str, request: ResearchRequest) -> SessionState:
        web = self.web
        services = Services(self.judge, web, web, web, Memory(web), FakeFrontier(10_000), web)
        session = ResearchSession(
            SessionState(session_id, request), EventLog(session_id), services, self._research
        )
        return await session.run()

    async def research(self, sub: SubGoal) -> ResearcherOutcome:
        request = ResearchRequest(
            sub.goal,
            depth=self._depth,
            max_pages=max(1, sub.budget.pages),
            seeds=sub.seeds,
        )
        return ResearcherOutcome.of(sub.agent, await self.run(sub.agent, request))


async def one(
    sessions: Sessions, question: dict[str, Any], depth: str, agents: int, settings: Settings
) -> dict[str, Any]:
    request = ResearchRequest(question["question"], depth=depth)
    single = await sessions.run(question["id"], request)
    with tempfile.TemporaryDirectory() as folder:
        swarm = Coordinator(
            f"w-{question['id']}",
            question["question"],
            judge=sessions.judge,
            researchers=sessions,
            ledger=TaskLedger(Path(folder), f"w-{question['id']}"),
            agents=agents,
            budget=request.budget,
            checklist_size=request.preset.checklist_size,
            replan_rounds=settings.swarm.replan_rounds,
            search=sessions.web,
        )
        result = await swarm.run()
    evidence = set(question["evidence_urls"])
    session_read = {p.url for p in single.pages if p.status == "ok"}
    return {
        "id": question["id"],
        "session": len(evidence & session_read) / len(evidence),
        "swarm": len(evidence & set(result.pages)) / len(evidence),
        "session_pages": single.pages_fetched,
        "swarm_pages": result.pages_read,
        "rounds": result.rounds,
        "missed_by_swarm": sorted(evidence & session_read - set(result.pages)),
    }


async def main_async(args: argparse.Namespace) -> None:
    questions = [
        json.loads(line)
        for name in args.sets.split(",")
        for line in SETS[name].read_text().splitlines()
        if line.strip() and len(decompose(json.loads(line)["question"], 10)) > 1
    ]
    settings = load_settings()
    rows = []
    async with offline_web() as web:
        sessions = Sessions(web, settings, args.depth, args.seed)
        for question in questions:
            row = await one(sessions, question, args.depth, args.agents, settings)
            rows.append(row)
            print(
                f"{mark(row['swarm'], row['session'])} {row['id']} session {row['session']:.2f} "
                f"swarm {row['swarm']:.2f} pages {row['session_pages']}/{row['swarm_pages']} "
                f"rounds {row['rounds']} {' '.join(row['missed_by_swarm'])}",
                flush=True,
            )
    session = sum(r["session"] for r in rows) / len(rows)
    swarm = sum(r["swarm"] for r in rows) / len(rows)
    wins = sum(r["swarm"] > r["session"] for r in rows)
    losses = sum(r["swarm"] < r["session"] for r in rows)
    print(
        f"{args.sets} {args.depth}: session {session:.3f} swarm {swarm:.3f} ratio {swarm / session:.2f} "
        f"(swarm better {wins}, worse {losses}, of {len(rows)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", default="standard")
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--sets", default="dev")
    parser.add_argument("--seed", type=int, default=7)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
