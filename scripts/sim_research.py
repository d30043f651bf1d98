"""The research loop in one process, for tuning: every question of a set through the real round driver.

`fathom eval` runs each session through Ray, Chromium and the actors: a faithful measure, at about
15 s a question. This runs the same ``ResearchSession`` with the same evidence judge, embedder,
extraction, frontier and offline search index, in one process: pages are read from the offline web
over plain HTTP (its pages are static, so the text is Chromium's), source memory is empty (as in an
eval run) and there is no Ray. A set of 58 questions takes a few minutes, so a change to the loop
can be tried on the dev set at once; the numbers that count stay those of `fathom eval`
(scripts/bench_eval.py), which this never writes.

Per question it prints the evidence pages one pass reads (the goal's top results) and those the
loop reads, then the means and their ratio:

    .venv/bin/python scripts/sim_research.py dev quick [--only q08,q15] [--seed 7] [--show] [--out RUN.jsonl]

``--out`` writes each question's row: the pages read and one pass's, the queries, the answers, and
the checklist and kept facts in full, from which ``scripts/recompose_answers.py`` composes the
answers anew with the code as it is now.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from fathom_ray.adapters.memory_points import Suggestion
from fathom_ray.adapters.search_backends import open_searcher
from fathom_ray.adapters.sentence_embedder import SentenceEmbedder
from fathom_ray.evaluation.scoring import answer_lines
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.models import (
    Event,
    EventType,
    ExtractedPage,
    FetchResult,
    FetchStatus,
    JsonValue,
    Preview,
    ResearchRequest,
    SearchResult,
)
from fathom_ray.ports import Searcher
from fathom_ray.research.answer_sheet import to_json as answer_json
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_loop import ResearchSession, Services
from fathom_ray.research.session_state import SessionState
from fathom_ray.settings import load_settings
from fathom_ray.testweb.server import TestWeb
from fathom_ray.text.normalise import answer_match
from fathom_ray.web.extraction import extract_main_text
from fathom_ray.web.network import NetworkMap, settings_for
from fathom_ray.web.search import search_all

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.fakes import FakeFrontier  # noqa: E402

DATA = ROOT / "tests" / "data"
SETS = {
    "dev": DATA / "dev_questions.jsonl",
    "held-out": DATA / "heldout_questions.jsonl",
    "validation": DATA / "validation_questions.jsonl",
}


def load(name: str) -> list[dict[str, Any]]:
    """The questions of the set called ``name``, as the file gives them."""
    return [json.loads(line) for line in SETS[name].read_text().splitlines() if line.strip()]


class OfflineWeb:
    """Browser, extractor, embedder, memory and search over the offline web, in this process."""

    def __init__(self, port: int, searcher: Searcher, embedder: SentenceEmbedder) -> None:
        self._http = httpx.AsyncClient(timeout=30.0)
        self._port = port
        self._searcher = searcher
        self._embedder = embedder
        self._pages: dict[str, str] = {}
        self._extracting = asyncio.Lock()

    async def close(self) -> None:
        await self._http.aclose()

    async def _get(self, url: str) -> tuple[int, str, str]:
        if url not in self._pages:
            parts = httpx.URL(url)
            response = await self._http.get(
                f"http://127.0.0.1:{self._port}{parts.raw_path.decode()}", headers={"Host": parts.host}
            )
            self._pages[url] = f"{response.status_code}\n{response.headers.get('content-type', '')}\n"
            self._pages[url] += response.text
        status, kind, body = self._pages[url].split("\n", 2)
        return int(status), kind, body

    # browser
    async def fetch(self, url: str) -> FetchResult:
        status, kind, body = await self._get(url)
        if status != 200:
            return FetchResult(url, FetchStatus.HTTP_ERROR, http_status=status)
        return FetchResult(url, FetchStatus.OK, final_url=url, http_status=200, content_type=kind, body=body)

    async def crawl_delay(self, url: str) -> float | None:
        return None

    async def preview(self, url: str) -> Preview:
        status, _, body = await self._get(url)
        return Preview(url, FetchStatus.OK if status == 200 else FetchStatus.HTTP_ERROR, text_chars=len(body))

    # extractor: one page at a time, as a worker process of the ExtractorPool takes them (trafilatura
    # parses with a module-level lxml parser, which two threads at once can corrupt: "double free")
    async def extract(self, result: FetchResult) -> ExtractedPage:
        async with self._extracting:
            return await asyncio.to_thread(extract_main_text, result.body, result.final_url or result.url)

    # embedder
    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embedder.embed(texts)

    # memory: empty, as in an eval run
    async def domain_qualities(self, domains: Sequence[str]) -> dict[str, float]:
        return dict.fromkeys(domains, 0.5)

    async def suggest(self, vector: Sequence[float], limit: int, exclude: Sequence[str]) -> list[Suggestion]:
        return []

    async def record_page(self, url: str, **kwargs: Any) -> None:
        return None

    # search
    async def search(self, queries: Sequence[str], limit: int) -> list[SearchResult]:
        return await search_all(self._searcher, queries, limit)


class Memory:
    def __init__(self, web: OfflineWeb) -> None:
        self.domain_qualities = web.domain_qualities
        self.suggest = web.suggest
        self.record_page = web.record_page

    async def checkpoint(self, state: SessionState, events: Sequence[Event]) -> None:
        return None


async def one(
    web: OfflineWeb,
    question: dict[str, Any],
    depth: str,
    seed: int,
    kind: type[ResearchSession] = ResearchSession,
) -> dict[str, Any]:
    """One question's session; ``kind`` may be a subclass that records what the session does."""
    settings = load_settings()
    research = settings.research.model_copy(update={"seed": seed})
    judge = EvidenceJudge(web, settings.llm.evidence_threshold)
    services = Services(judge, web, web, web, Memory(web), FakeFrontier(1000), web)
    request = ResearchRequest(question["question"], depth=depth)
    session = kind(SessionState(question["id"], request), EventLog(question["id"]), services, research)
    state = await session.run()
    read = [p.url for p in state.pages if p.status == "ok"]
    goal = [r.url for r in await web.search([question["question"]], max(8, request.budget.pages))]
    one_pass = goal[: request.budget.pages]
    evidence = set(question["evidence_urls"])
    queries = [e.data["queries"] for e in session.events.events if e.type is EventType.SEARCHING]
    leads: set[str] = set()
    for event in session.events.events:
        taken = event.data.get("leads") if event.type is EventType.RANKED else None
        if isinstance(taken, list):
            leads.update(str(u) for u in taken)
    answers: list[JsonValue] = [answer_json(a) for a in state.answers]
    return {
        "id": question["id"],
        "fathom": len(evidence & set(read)) / len(evidence),
        "single": len(evidence & set(one_pass)) / len(evidence),
        "read": read,
        "one_pass": one_pass,
        "evidence": sorted(evidence),
        "queries": queries,
        # where each page read came from: what one pass reads too (the goal's results within the budget),
        # a lead (the page choice beside those, a goal result past them included, or a discovery's
        # best result), or the ranking
        "sources": {
            u: "goal" if u in one_pass else "lead" if u in leads or u in goal else "ranking" for u in read
        },
        "goal_ranking": goal,
        "checklist": [(i.question, i.satisfied) for i in state.checklist],
        "facts": len(state.fact_ledger.facts),
        "answers": answers,
        # the checklist and every kept fact in full, so answers can be composed anew from a run
        "ledger": {
            "checklist": [dataclasses.asdict(i) for i in state.checklist],
            "facts": [dataclasses.asdict(f) for f in state.fact_ledger.facts],
        },
        "answer_line": answer_match(
            answer_lines({"answers": answers}),
            question["answer"],
            question.get("answer_aliases", []),
        ),
        "stop": state.stop_reason,
    }


@contextlib.asynccontextmanager
async def offline_web() -> AsyncIterator[OfflineWeb]:
    """The offline web served here, its search engine and the embedder, as one ``OfflineWeb``."""
    settings = load_settings()
    embedder = SentenceEmbedder()
    embedder.start()
    with TestWeb() as testweb:
        network = NetworkMap.offline(testweb.port)
        async with open_searcher(settings_for(settings, network), network) as searcher:
            web = OfflineWeb(testweb.port, searcher, embedder)
            try:
                yield web
            finally:
                await web.close()


def mark(ours: float, theirs: float) -> str:
    """'+' where ours is higher, '-' where lower, ' ' where equal."""
    return "+" if ours > theirs else "-" if ours < theirs else " "


async def main_async(args: argparse.Namespace) -> None:
    questions = load(args.set)
    if args.only:
        questions = [q for q in questions if q["id"] in set(args.only.split(","))]
    rows = []
    async with offline_web() as web:
        for question in questions:
            row = await one(web, question, args.depth, args.seed)
            rows.append(row)
            print(
                f"{mark(row['fathom'], row['single'])} {row['id']} fathom {row['fathom']:.2f} "
                f"single {row['single']:.2f}",
                flush=True,
            )
            if args.show:
                print(
                    json.dumps(
                        {k: row[k] for k in ("read", "one_pass", "evidence", "queries", "checklist", "stop")},
                        indent=1,
                    )
                )
    fathom = sum(r["fathom"] for r in rows) / len(rows)
    single = sum(r["single"] for r in rows) / len(rows)
    lines = sum(bool(r["answer_line"]) for r in rows) / len(rows)
    wins = sum(r["fathom"] > r["single"] for r in rows)
    losses = sum(r["fathom"] < r["single"] for r in rows)
    print(
        f"{args.set} {args.depth}: fathom {fathom:.3f} single {single:.3f} ratio {fathom / single:.2f} "
        f"(better {wins}, worse {losses}, of {len(rows)}); answer lines {lines:.3f}"
    )
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=sorted(SETS))
    parser.add_argument("depth", choices=["glance", "quick", "focused", "standard"])
    parser.add_argument("--only", default="")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--out", default="")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
