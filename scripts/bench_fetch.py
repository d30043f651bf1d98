"""Fetch + extract throughput on the offline web, through the real actors in a local Ray.

Baseline: the same pages one at a time through the same actors. Then the
extraction alone on the fetched HTML: ours beside plain trafilatura in one
process (the overhead ratio).

    .venv/bin/python scripts/bench_fetch.py [--pages 200] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from typing import Any

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray
import trafilatura
from bench_report import table, write_section

from actors.browser_pool import browser_pool_actor
from actors.extractor_pool import extractor_pool_actor
from fathom_ray.models import FetchResult
from fathom_ray.settings import BrowserSettings, FetchSettings
from fathom_ray.testweb.server import TestWeb
from fathom_ray.testweb.sites import SITES
from fathom_ray.web.extraction import extract_main_text
from fathom_ray.web.network import NetworkMap


async def run_pages(pool: Any, extractors: list[Any], urls: list[str], concurrency: int) -> tuple[float, int]:
    """Seconds to fetch and extract every URL with ``concurrency`` in flight; pages with text."""
    gate = asyncio.Semaphore(concurrency)
    done = 0

    async def one(index: int, url: str) -> None:
        nonlocal done
        async with gate:
            result: FetchResult = await pool.fetch.remote(url)
            if result.ok:
                page = await extractors[index % len(extractors)].extract.remote(result)
                done += bool(page.text)

    start = time.perf_counter()
    await asyncio.gather(*(one(i, u) for i, u in enumerate(urls)))
    return time.perf_counter() - start, done


def sample_urls(web: TestWeb, count: int) -> list[str]:
    urls = [url for site in SITES for url, _ in site.pages() if "genindex" not in url]
    return random.Random(7).sample(urls, count)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    with TestWeb() as web:
        urls = sample_urls(web, args.pages)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            network = NetworkMap.offline(web.port)
            settings = BrowserSettings(pages_per_browser=args.concurrency)
            pool = browser_pool_actor().remote(settings, FetchSettings(respect_robots=False), network)
            extractors = [extractor_pool_actor().remote(timeout_s=30.0) for _ in range(2)]
            ray.get(pool.start.remote())
            ray.get([e.start.remote() for e in extractors])
            asyncio.run(run_pages(pool, extractors, urls[:4], 4))  # warm up browser and workers
            concurrent_s, concurrent_ok = asyncio.run(run_pages(pool, extractors, urls, args.concurrency))
            serial_s, serial_ok = asyncio.run(run_pages(pool, extractors, urls, 1))
            bodies: list[FetchResult] = ray.get([pool.fetch.remote(u) for u in urls[:60]])
            ray.get(pool.stop.remote())
        finally:
            ray.shutdown()
    pages = [(b.body, b.url) for b in bodies if b.ok]
    plain_s = timed(lambda: [trafilatura.extract(h, url=u) for h, u in pages])
    ours_s = timed(lambda: [extract_main_text(h, u) for h, u in pages])
    rows = [
        ("one page at a time (baseline)", len(urls), serial_ok, f"{len(urls) / serial_s:.2f}", "1.00"),
        (
            f"{args.concurrency} pages in flight",
            len(urls),
            concurrent_ok,
            f"{len(urls) / concurrent_s:.2f}",
            f"{serial_s / concurrent_s:.2f}",
        ),
    ]
    extraction_rows = [
        ("plain trafilatura.extract (baseline)", len(pages), f"{len(pages) / plain_s:.1f}", "1.00"),
        ("fathom-ray extract_main_text", len(pages), f"{len(pages) / ours_s:.1f}", f"{ours_s / plain_s:.2f}"),
    ]
    body = (
        f"{len(urls)} pages of the offline web (a fixed random sample), fetched by BrowserPoolActor "
        "(Chromium through the egress proxy, waiting for the network to settle) and extracted by two "
        "ExtractorPoolActors, in a local Ray with 2 CPUs.\n\n"
        + table(("mode", "pages", "with text", "pages/s", "speed-up"), rows)
        + f"\n\nExtraction alone on {len(pages)} of those pages, in one process, best of 3:\n\n"
        + table(("extractor", "pages", "pages/s", "time ratio to baseline"), extraction_rows)
    )
    write_section("fetch", "Fetch and extract throughput", "python scripts/bench_fetch.py", body)
    return 0


def timed(work: Any, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


if __name__ == "__main__":
    sys.exit(main())
