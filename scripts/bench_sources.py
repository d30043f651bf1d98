"""Where the loop's pages come from, and what each source is worth: the ceiling of the loop's gain.

The loop reads as many pages as one pass; it can only gain where a page it reads instead of one of
the goal's own results is an evidence page more often than the result it displaced. For each
question of the dev, held-out and validation sets, at quick and focused, the session runs in one
process over the offline web (``scripts/sim_research.py``: the real round driver, evidence judge,
extraction, frontier and search index), and every page it read is put down to its source:

- goal: one of the pages one pass reads (the goal's own search results within the page budget);
- lead: what a later round's page choice took beside those (research/page_choice.py: a page the other
  searches pointed to, or one of the goal's results past the budget), or a discovery's best result
  once the goal's results run out;
- ranking: the frontier's fused ranking, once the goal's results and the leads run out.

Per source: pages read and the share of them that are evidence pages; beside them, the pages one
pass reads that the loop left unread (what the leads and the ranking displaced) and their share.
The loop beats one pass exactly when its leads' and ranking's evidence pages outnumber those.
A second table gives the share of evidence pages at each rank of the goal's own results, over the
set: how much one pass has left to lose at the tail of its budget.

    .venv/bin/python scripts/bench_sources.py [--seed 7] [--sets dev,held-out,validation]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from typing import Any

from bench_report import table, write_section
from sim_research import SETS, load, offline_web, one

DEPTHS = ("quick", "focused")
SOURCES = ("goal", "lead", "ranking")
RANKS = 8


def share(hits: int, pages: int) -> str:
    return f"{pages} ({hits / pages:.2f})" if pages else "0"


def source_row(name: str, depth: str, rows: Sequence[dict[str, Any]]) -> list[object]:
    """Pages per source with their evidence share, then the one-pass pages left unread."""
    counts = {s: [0, 0] for s in SOURCES}
    unread = [0, 0]
    for row in rows:
        evidence = set(row["evidence"])
        for url, source in row["sources"].items():
            counts[source][0] += url in evidence
            counts[source][1] += 1
        for url in set(row["one_pass"]) - set(row["read"]):
            unread[0] += url in evidence
            unread[1] += 1
    gained = counts["lead"][0] + counts["ranking"][0]
    return [
        name,
        depth,
        *(share(*counts[s]) for s in SOURCES),
        share(*unread),
        f"{gained - unread[0]:+d}",
    ]


def rank_row(name: str, rows: Sequence[dict[str, Any]]) -> list[object]:
    """The share of questions whose goal result at each rank is one of their evidence pages."""
    hits = [0] * RANKS
    for row in rows:
        evidence = set(row["evidence"])
        for rank, url in enumerate(row["goal_ranking"][:RANKS]):
            hits[rank] += url in evidence
    return [name, len(rows), *(f"{h / len(rows):.2f}" for h in hits)]


async def run(sets: Sequence[str], seed: int) -> dict[tuple[str, str], list[dict[str, Any]]]:
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    async with offline_web() as web:
        for name in sets:
            questions = load(name)
            for depth in DEPTHS:
                results[(name, depth)] = [await one(web, q, depth, seed) for q in questions]
                print(f"{name} {depth}: {len(questions)} questions", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args()
    sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(SETS)}")
    results = asyncio.run(run(sets, args.seed))
    sources = table(
        [
            "set",
            "depth",
            "from the goal's results (evidence share)",
            "from leads",
            "from the ranking",
            "one pass's pages left unread",
            "evidence pages gained",
        ],
        [source_row(name, depth, rows) for (name, depth), rows in results.items()],
    )
    ranks = table(
        ["set", "questions", *(f"rank {r}" for r in range(1, RANKS + 1))],
        [rank_row(name, results[(name, "focused")]) for name in sets],
    )
    body = "\n\n".join(
        [
            "The loop reads as many pages as one pass, so it gains only where a page it reads in place "
            "of one of the goal's own results is an evidence page more often than the result it "
            "displaced. Each question of the sets runs as a session in one process over the offline "
            "web (`scripts/sim_research.py`: the real round driver, evidence judge, extraction, "
            "frontier and search index, no Ray or Chromium), and each page it read is put down to its "
            "source: the pages one pass reads (the goal's own search results within the budget), a "
            "lead (what a later round's page choice, research/page_choice.py, took beside those: a "
            "page the other searches pointed to or one of the goal's results past the budget; or a "
            "discovery's best result once the goal's results run out), or the frontier's fused "
            "ranking (once both run out).",
            f"Pages read per source, with the share that are evidence pages (seed {args.seed}); the "
            "last column is the loop's gain over one pass in evidence pages (its leads' and ranking's "
            "evidence pages less those of the one-pass pages it left unread):",
            sources,
            "The share of questions whose goal search result at each rank is an evidence page:",
            ranks,
        ]
    )
    write_section(
        "sources",
        "Sources: where the loop's pages come from, and what each is worth",
        f"python scripts/bench_sources.py --seed {args.seed}",
        body,
    )


if __name__ == "__main__":
    main()
