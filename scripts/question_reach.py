"""What one pass reaches: where each question's evidence pages rank in the offline web's results for it.

A single pass searches the question and reads its top pages (3 at quick, 8 at focused), so a question
whose evidence all ranks in the top 8 leaves the loop nothing to add at focused. This prints, per
question, the rank of each evidence page among the question's results (``-`` past ``--top``) and the
share of its evidence in the top 3 and top 8, then the set's means; or, with ``--query``, a search's
results as a question writer sees them (rank, url, title).

    .venv/bin/python scripts/question_reach.py tests/data/heldout_questions.jsonl [--top 50]
    .venv/bin/python scripts/question_reach.py --query "PEP 615 zoneinfo" [--top 10]

Needs only the offline web's index (scripts/setup builds it); no server, no session.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fathom_ray.testweb.index import DEFAULT_CACHE, load_or_build
from fathom_ray.text.text_index import TextIndex

QUICK, FOCUSED = 3, 8


def ranks(index: TextIndex, question: str, evidence: list[str], top: int) -> list[int | None]:
    """Each evidence page's 1-based rank among the question's first ``top`` results, None past them."""
    urls = [hit.url for hit in index.search(question, top)]
    return [urls.index(url) + 1 if url in urls else None for url in evidence]


def share(found: list[int | None], depth: int) -> float:
    return sum(rank is not None and rank <= depth for rank in found) / len(found)


def report(index: TextIndex, path: Path, top: int) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    quick = focused = 0.0
    for row in rows:
        found = ranks(index, row["question"], row["evidence_urls"], top)
        quick += share(found, QUICK)
        focused += share(found, FOCUSED)
        shown = " ".join("-" if rank is None else str(rank) for rank in found)
        top3, top8 = share(found, QUICK), share(found, FOCUSED)
        print(f"{row['id']}: ranks {shown:<12} top3 {top3:.2f} top8 {top8:.2f}")
    if rows:
        print(
            f"{path.name}: {len(rows)} questions, one pass reaches top3 {quick / len(rows):.3f} "
            f"top8 {focused / len(rows):.3f} of the evidence"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="*")
    parser.add_argument("--query", help="print this search's results instead")
    parser.add_argument("--top", type=int, default=50)
    args = parser.parse_args()
    if not args.files and not args.query:
        parser.error("give a question file or --query")
    index = load_or_build(DEFAULT_CACHE)
    if args.query:
        for rank, hit in enumerate(index.search(args.query, args.top), 1):
            print(f"{rank:>3} {hit.url}  {hit.title}")
    for path in args.files:
        report(index, path, args.top)


if __name__ == "__main__":
    main()
