"""The evidence judge's cost per page beside extraction's, and passage selection beside the head of the page.

For the evidence pages of the dev question set, read from the Debian documentation packages the
offline web serves:
- CPU seconds (process time, every thread) of trafilatura's extraction, and of the evidence judge's
  page analysis (sentences, BM25, answer types; then the embedder on the narrowed sentences), per
  10,000 characters of extracted text, the embedder's share given apart; peak RSS added by the judge;
- what an LLM judge would read of each page: the head of the page (the old prompt) or the page's best
  passages for the question (``evidence.select``), each cut to the same ``page_chars``: prompt size
  in characters and the share of the question's gold evidence quotes the prompt holds.

    .venv/bin/python scripts/bench_evidence.py [--page-chars 6000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from bench_report import table, write_section

from fathom_ray.adapters.llm_backends import ThreadedEmbedder
from fathom_ray.judges.evidence.decompose import decompose
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.judges.evidence.select import select_passages
from fathom_ray.models import ChecklistItem, ExtractedPage
from fathom_ray.settings import EmbedderSettings
from fathom_ray.testweb.sites import read_body, site_for
from fathom_ray.web.extraction import extract_main_text

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "tests" / "data" / "dev_questions.jsonl"


def served_html(url: str) -> str:
    """The page at ``url`` as the offline web serves it, read from its file."""
    parts = urlsplit(url)
    site = site_for(parts.hostname or "")
    path = site.file_for(parts.path) if site is not None else None
    if path is None:
        raise SystemExit(f"{url} is not a page of the offline web")
    return read_body(path).decode("utf-8", errors="replace")


class CountingEmbedder(ThreadedEmbedder):
    """The judge's embedder, with the CPU it spends counted apart."""

    cpu_s = 0.0

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        started = time.process_time()
        vectors = await super().embed(texts)
        CountingEmbedder.cpu_s += time.process_time() - started
        return vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page-chars", type=int, default=6000)
    args = parser.parse_args()
    questions = [json.loads(line) for line in DEV.read_text().splitlines() if line.strip()]
    cases: list[tuple[dict[str, object], str, str]] = []
    for question in questions:
        for url in question["evidence_urls"]:
            cases.append((question, url, served_html(url)))

    extract_cpu = 0.0
    pages: list[tuple[dict[str, object], ExtractedPage]] = []
    for question, url, html in cases:
        started = time.process_time()
        pages.append((question, extract_main_text(html, url)))
        extract_cpu += time.process_time() - started
    chars = sum(len(p.text) for _, p in pages)

    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    embedder = CountingEmbedder(EmbedderSettings())
    judge = EvidenceJudge(embedder)
    asyncio.run(judge.start())
    rss_embedder = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    CountingEmbedder.cpu_s = 0.0
    judge_cpu = 0.0
    for question, page in pages:
        checklist = [
            ChecklistItem(f"Q{n}", q) for n, q in enumerate(decompose(str(question["question"]), 10), 1)
        ]
        started = time.process_time()
        asyncio.run(judge.analyse_page(str(question["question"]), checklist, [], page))
        judge_cpu += time.process_time() - started
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    per_10k = 10_000 / chars
    own_cpu = judge_cpu - CountingEmbedder.cpu_s
    cost_rows = [
        ["extraction (trafilatura; baseline)", f"{extract_cpu * per_10k * 1000:.1f}", "1.00"],
        [
            "evidence judge without the embedder",
            f"{own_cpu * per_10k * 1000:.1f}",
            f"{own_cpu / extract_cpu:.2f}",
        ],
        [
            "evidence judge's embedder calls",
            f"{CountingEmbedder.cpu_s * per_10k * 1000:.1f}",
            f"{CountingEmbedder.cpu_s / extract_cpu:.2f}",
        ],
        ["evidence judge in all", f"{judge_cpu * per_10k * 1000:.1f}", f"{judge_cpu / extract_cpu:.2f}"],
    ]

    prompt_rows = []
    for name, choose in (("head of the page (before)", _head), ("best passages (now)", _passages)):
        sizes, held, total, kept, gold_kept = [], 0, 0, 0, 0
        for question, page in pages:
            checklist = [
                ChecklistItem(f"Q{n}", q) for n, q in enumerate(decompose(str(question["question"]), 10), 1)
            ]
            text = choose(page, checklist, args.page_chars)
            prompt = " ".join(text.split())
            sizes.append(len(prompt))
            quotes = [e["quote"] for e in question["evidence"] if e["url"] == page.url]  # type: ignore[attr-defined]
            held += sum(" ".join(q.split()) in prompt for q in quotes)
            total += len(quotes)
            # a reader of that text alone: the evidence judge, on a page that is only the prompt
            seen = ExtractedPage(page.url, page.title, text)
            analysis = asyncio.run(judge.analyse_page(str(question["question"]), checklist, [], seen)).answer
            facts = analysis.facts if analysis else []
            kept += len(facts)
            said = " ".join(" ".join(f.evidence.split()) for f in facts)
            gold_kept += sum(" ".join(q.split()) in said for q in quotes)
        prompt_rows.append(
            [
                name,
                f"{sum(sizes) / len(sizes):.0f}",
                f"{sum(sizes) / len(sizes) / 4:.0f}",
                f"{held}/{total} ({held / total:.2f})",
                f"{kept / len(pages):.1f}",
                f"{gold_kept}/{total} ({gold_kept / total:.2f})",
            ]
        )

    body = "\n".join(
        [
            f"{len(pages)} evidence pages of the dev question set ({chars:,} characters of extracted text), "
            "each analysed for its question's checklist by the evidence judge in this process. "
            "CPU is process time over every thread, per 10,000 characters of extracted text:",
            "",
            table(["stage", "CPU ms per 10,000 chars", "ratio to extraction"], cost_rows),
            "",
            f"Peak RSS: {rss_before / 1024:.0f} MiB before the judge, {rss_embedder / 1024:.0f} MiB with its "
            f"embedder loaded, {rss_after / 1024:.0f} MiB after every page: the judge adds "
            f"{(rss_after - rss_embedder) / 1024:.0f} MiB beside the embedder's own.",
            "",
            f"What an LLM judge reads of the same pages, cut to page_chars = {args.page_chars} "
            "(tokens estimated as characters / 4), how many of the questions' gold evidence quotes "
            "on that page it can see, and the facts a reader of that text alone keeps: the evidence "
            "judge analysing a page that is only the prompt text (no capable model reaches these "
            "machines, and the CPU model keeps none either way), and how many gold quotes those "
            "facts hold:",
            "",
            table(
                [
                    "prompt text",
                    "chars per page",
                    "~tokens per page",
                    "gold quotes in the prompt",
                    "facts kept per page",
                    "gold quotes in the facts",
                ],
                prompt_rows,
            ),
        ]
    )
    write_section(
        "evidence",
        "Evidence judge: cost per page, and passage selection for LLM judges",
        "python scripts/bench_evidence.py",
        body,
    )


def _head(page: ExtractedPage, checklist: list[ChecklistItem], budget: int) -> str:
    return page.text[:budget]


def _passages(page: ExtractedPage, checklist: list[ChecklistItem], budget: int) -> str:
    return select_passages(page.text, page.title, checklist, budget)


if __name__ == "__main__":
    main()
