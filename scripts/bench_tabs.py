"""Chromium's CPU per page: a fresh tab for every page (baseline) beside tabs kept for the next page.

The same pages of the offline web (a fixed random sample over its three sites) go through the real
browser pool (the BrowserPool class in this process: its PlaywrightFetcher and egress proxy),
``--concurrency`` at a time, once with ``tab_uses=1`` (a new tab, so a new renderer process, per
page) and once with tabs reused; the two alternate for
``--rounds`` rounds in one run. Chromium's CPU is the user and system time of its processes
(psutil), the browser's launch left out. The offline web has three sites, so most pages find a tab
of their own site; on the open web, where a session's pages spread over many sites, fewer do.

    .venv/bin/python scripts/bench_tabs.py [--pages 60] [--concurrency 4] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time

import psutil
from bench_report import cpu_times, table, write_section

from actors.browser_pool import BrowserPool
from fathom_ray.settings import BrowserSettings, FetchSettings
from fathom_ray.testweb.server import TestWeb
from fathom_ray.testweb.sites import SITES
from fathom_ray.web.network import NetworkMap

MODES = {"a fresh tab per page (baseline)": 1, "tabs kept for the next page": 20}


def chromium_cpu_s() -> float:
    """User and system seconds of this process's Chromium processes, those that ended included."""
    total = 0.0
    for process in psutil.Process().children(recursive=True):
        try:
            if "chrom" in process.name():
                times = process.cpu_times()
                total += times.user + times.system + times.children_user + times.children_system
        except psutil.Error:
            continue
    return total


Run = tuple[float, float, float, int]  # Chromium CPU s, machine CPU s, wall s, pages loaded


async def one_run(network: NetworkMap, urls: list[str], tab_uses: int, concurrency: int) -> Run:
    """Chromium's CPU seconds, all cores' busy seconds, wall seconds and pages loaded for ``urls``."""
    browser = BrowserSettings(pages_per_browser=concurrency, tab_uses=tab_uses)
    pool = BrowserPool(browser, FetchSettings(timeout_s=10.0, respect_robots=False), network)
    try:
        await pool.start()
        await asyncio.sleep(1.0)  # the launch's own work settles
        cpu_before, busy_before, started = chromium_cpu_s(), cpu_times()[0], time.perf_counter()
        results = await asyncio.gather(*(pool.fetch(url) for url in urls))
        wall_s, cpu_s = time.perf_counter() - started, chromium_cpu_s() - cpu_before
        busy_s = (cpu_times()[0] - busy_before) / os.sysconf("SC_CLK_TCK")
    finally:
        await pool.stop()
    return cpu_s, busy_s, wall_s, sum(r.ok for r in results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[Run]] = {mode: [] for mode in MODES}
    with TestWeb() as web:
        candidates = sorted(url for site in SITES for url, _ in site.pages() if "genindex" not in url)
        urls = random.Random(7).sample(candidates, args.pages)
        network = NetworkMap.offline(web.port)
        for round_ in range(args.rounds):
            for mode, uses in MODES.items():
                runs[mode].append(asyncio.run(one_run(network, urls, uses, args.concurrency)))
                cpu_s, busy_s, wall_s, ok = runs[mode][-1]
                print(
                    f"round {round_ + 1}, {mode}: Chromium {cpu_s:.1f} CPU s, machine {busy_s:.1f} CPU s, "
                    f"{wall_s:.1f} s, {ok} pages",
                    flush=True,
                )
    baseline = [statistics.median(run[i] for run in runs[next(iter(MODES))]) for i in range(3)]
    rows = []
    for mode, measured in runs.items():
        cpu, busy, wall = (statistics.median(run[i] for run in measured) for i in range(3))
        rows.append(
            [
                mode,
                min(run[3] for run in measured),
                f"{cpu / args.pages:.3f}",
                f"{cpu / baseline[0]:.2f}",
                f"{busy / args.pages:.3f}",
                f"{busy / baseline[1]:.2f}",
                f"{wall:.1f}",
                f"{wall / baseline[2]:.2f}",
            ]
        )
    body = (
        f"{args.pages} pages of the offline web (a fixed random sample over its three sites), "
        f"{args.concurrency} at a time through the browser pool (its PlaywrightFetcher and egress proxy) "
        "in one process; "
        f"the two modes alternate, {args.rounds} rounds each, medians shown. Chromium CPU: the user and "
        "system time of its processes while the pages loaded; machine CPU: all cores' busy time then "
        "(the proxy, Playwright's driver and the offline web's server included). Most of these pages "
        "find a tab of their own site; a session on the open web, spread over more sites, saves less.\n\n"
        + table(
            [
                "tabs",
                "pages loaded (fewest)",
                "Chromium CPU s per page",
                "ratio",
                "machine CPU s per page",
                "ratio",
                "wall s",
                "wall ratio",
            ],
            rows,
        )
    )
    write_section("tabs", "Chromium tabs: fresh per page or kept", "python scripts/bench_tabs.py", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
