"""Reliability under faults, hostile servers and attack pages, on the offline web.

Faults: ``reliability_faults.py`` (a local Ray, each part of the engine killed mid-session).

Hostile servers: each fault host of ``fathom_ray.testweb`` that misbehaves on purpose (a gzip bomb,
an endless chunked body, a byte a second, 100,000 links, 100,000 nested elements, an unknown
charset, a redirect to ``file:``) fetched by Chromium through the egress proxy and by the httpx
client at the default settings, then extracted when it loaded. Bounded: the fetch ended as a
status within its hard limit (the browser's: page timeout, network-settle wait and 5 s of grace;
httpx's: its timeout) plus ``SLACK_S`` to tear down, the extraction within the extractor pool's
30 s, and this process and Chromium grew by less than ``MEMORY_BOUND_MIB``.

Attacks: each page of ``attack.test`` read by the evidence judge (the packaged embedder) and by a
compromised judge that obeys the page (every link, markup in its claims, evidence no page holds, a
report citing nothing), each through the ledger and the report's rendering as a session does.
Leaked: the attack's payload is in a kept fact or the rendered report (its text or an attribute).
Blocked: it is in neither. Flagged: the page was also recorded as instruction-like or carrying a
secret. A link to a forbidden address is blocked when the URL policy refuses it.

    .venv/bin/python scripts/bench_reliability.py
"""

from __future__ import annotations

import asyncio
import html
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil
from bench_report import table, write_section

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reliability_faults import faults  # noqa: E402  (after ROOT is on the path)
from reliability_load import load, serving, soak  # noqa: E402

from fathom_ray.adapters.egress_proxy import EgressProxy  # noqa: E402
from fathom_ray.adapters.http_client import SafeHttpClient  # noqa: E402
from fathom_ray.adapters.llm_backends import ThreadedEmbedder  # noqa: E402
from fathom_ray.adapters.playwright_fetcher import SETTLE_S, PlaywrightFetcher  # noqa: E402
from fathom_ray.adapters.resolver import MappedResolver  # noqa: E402
from fathom_ray.judges.evidence.judge import EvidenceJudge  # noqa: E402
from fathom_ray.models import ChecklistItem, ExtractedPage, FetchResult  # noqa: E402
from fathom_ray.ports import JudgePort  # noqa: E402
from fathom_ray.research.fact_ledger import FactLedger  # noqa: E402
from fathom_ray.research.report import render  # noqa: E402
from fathom_ray.research.report_html import render_html  # noqa: E402
from fathom_ray.settings import BrowserSettings, EmbedderSettings, FetchSettings  # noqa: E402
from fathom_ray.testweb.attacks import ATTACKS, FORBIDDEN, Attack, attack_page  # noqa: E402
from fathom_ray.testweb.server import TestWeb  # noqa: E402
from fathom_ray.text.untrusted import make_safe  # noqa: E402
from fathom_ray.web.extraction import extract_main_text  # noqa: E402
from fathom_ray.web.network import NetworkMap  # noqa: E402
from fathom_ray.web.security import UrlPolicy  # noqa: E402
from tests.scripted_judge import ScriptedJudge  # noqa: E402

HOSTILE = (
    ("gzip bomb (256 MiB of zeros in 0.25 MiB)", "http://gzip-bomb.test/"),
    ("endless chunked body", "http://chunked.test/"),
    ("slow drip (a byte a second)", "http://drip.test/"),
    ("100,000 links", "http://links.test/"),
    ("HTML nested 100,000 deep", "http://nested.test/"),
    ("unknown charset", "http://charset.test/"),
    ("redirect to file:///etc/passwd", "http://file-redirect.test/"),
)
SLACK_S = 1.0
EXTRACT_LIMIT_S = 30.0
MEMORY_BOUND_MIB = 500
GOAL = "What does SQLite store in a single ordinary disk file?"
CHECKLIST = [ChecklistItem("Q1", GOAL)]


def chromium_mib() -> float:
    total = 0
    for process in psutil.process_iter(["name", "memory_info"]):
        if "chrom" in (process.info["name"] or ""):
            total += process.info["memory_info"].rss
    return total / 2**20


def own_peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def hostile(web: TestWeb) -> tuple[list[list[str]], int]:
    network = NetworkMap.offline(web.port)
    policy = UrlPolicy.allowing(network.allowed_hosts)
    fetch, browser = FetchSettings(), BrowserSettings()
    resolver = MappedResolver(network)
    proxy = EgressProxy(policy, network, resolver, fetch.max_body_bytes)
    await proxy.start()
    http = SafeHttpClient(fetch, policy, network, resolver)
    fetcher = PlaywrightFetcher(browser, proxy, http, fetch.user_agent, network.chromium_rules())
    await fetcher.start()
    await fetcher.fetch("http://www.sqlite.test/wal.html")  # Chromium up before anything is measured
    rows, bounded = [], 0
    try:
        for label, url in HOSTILE:
            own, chromium = own_peak_mib(), chromium_mib()
            cells, ok = [label], True
            limits = (("browser", browser.page_timeout_s + SETTLE_S + 5), ("http", fetch.timeout_s))
            for name, limit in limits:
                started = time.monotonic()
                result = await (fetcher.fetch(url) if name == "browser" else http.fetch(url))
                seconds = time.monotonic() - started
                extract_s = extraction_seconds(result)
                ok &= seconds <= limit + SLACK_S and extract_s <= EXTRACT_LIMIT_S
                extract = f", extracted in {extract_s:.1f} s" if result.ok else ""
                cells.append(f"{result.status.value} in {seconds:.1f} s{extract}")
            grown = max(own_peak_mib() - own, 0.0) + max(chromium_mib() - chromium, 0.0)
            ok &= grown < MEMORY_BOUND_MIB
            cells += [f"{grown:.0f}", "yes" if ok else "NO"]
            bounded += ok
            rows.append(cells)
            print(cells, flush=True)
    finally:
        await fetcher.stop()
        await http.aclose()
        await proxy.stop()
    return rows, bounded


def extraction_seconds(result: FetchResult) -> float:
    if not result.ok:
        return 0.0
    started = time.monotonic()
    extract_main_text(result.body, result.url)
    return time.monotonic() - started


async def read_as(judge: JudgePort, page: ExtractedPage) -> tuple[FactLedger, str]:
    """The judge's facts as the ledger keeps them, and the report page rendered from them."""
    ledger = FactLedger()
    judged = await judge.analyse_page(GOAL, CHECKLIST, (), page)
    if judged.answer is not None:
        ledger.add_analysis(judged.answer, page, ["Q1"])
    composed = await judge.compose(GOAL, CHECKLIST, ledger.facts)
    findings = composed.answer.findings if composed.answer is not None else []
    markdown = render(GOAL, CHECKLIST, findings, ledger.facts, "bench")
    return ledger, render_html("report", [markdown])


def outcome(attack: Attack, ledger: FactLedger, page_html: str, flagged: bool) -> str:
    said = " ".join(f"{f.claim} {f.evidence}" for f in ledger.facts)
    if attack.payload in said or attack.payload in html.unescape(page_html):
        return "leaked"
    return "blocked, flagged" if flagged else "blocked"


async def attacks(web: TestWeb) -> tuple[list[list[str]], int, int]:
    evidence = EvidenceJudge(ThreadedEmbedder(EmbedderSettings()))
    await evidence.start()
    attacker = ScriptedJudge()
    attacker.configure(attack=True)
    network = NetworkMap.offline(web.port)
    policy, resolver = UrlPolicy.allowing(network.allowed_hosts), MappedResolver(network)
    rows, blocked, leaked = [], 0, 0
    for attack in ATTACKS:
        body = attack_page(attack.path, web.port)
        assert body is not None
        page = extract_main_text(body.decode(), f"http://attack.test{attack.path}")
        safe = make_safe(page.text, 100_000)
        flagged = bool(safe.flags or safe.redactions)
        cells = [attack.name]
        for judge in (evidence, attacker):
            ledger, report_page = await read_as(judge, page)
            result = outcome(attack, ledger, report_page, flagged)
            cells.append(f"{result} ({ledger.rejected} rejected)")
            blocked += result != "leaked"
            leaked += result == "leaked"
        rows.append(cells)
    refused = []  # checked as every fetch is: the URL, then the addresses its host resolves to
    for pattern in FORBIDDEN:
        url = pattern.replace("{port}", str(web.port))
        addresses = await resolver.resolve(urlsplit(url).hostname or "")
        if policy.url_problem(url) or policy.resolved_problem(url, addresses):
            refused.append(url)
    rows.append(
        [
            "forbidden links (metadata, private, file:, loopback)",
            f"{len(refused)} of {len(FORBIDDEN)} refused by the URL policy",
            f"{len(refused)} of {len(FORBIDDEN)} refused by the URL policy",
        ]
    )
    blocked += 2 * len(refused)
    leaked += 2 * (len(FORBIDDEN) - len(refused))
    return rows, blocked, leaked


def load_lines(held: dict[str, Any]) -> list[str]:
    outcomes = ", ".join(f"{n} {what}" for what, n in sorted(held["outcomes"].items(), key=lambda x: -x[1]))
    p50, p95 = held["first_event_p50"], held["first_event_p95"]
    firsts = f"first event p50 {p50:.2f} s, p95 {p95:.2f} s" if p50 is not None else "no stream started"
    verdict = "**held**" if held["held"] else f"**not held**: {'; '.join(held['bad'])}"
    return [
        f"Load: `fathom serve` (Ray Serve) with the cap at 4, {held['clients']} clients for "
        f"{held['seconds']:.0f} s starting (streamed or polled), polling, cancelling and reconnecting "
        f"with Last-Event-ID: {verdict} (every answer a whole stream, a 429 with Retry-After or a 4xx "
        f"with a reason; no 5xx, no hang). {held['requests']} requests, {held['per_s']:.1f} per second "
        f"({outcomes}); {firsts}.",
    ]


def soak_lines(soaked: dict[str, Any]) -> list[str]:
    rows = [
        [
            kind,
            f"{mib:.0f}",
            f"{soaked['rss_final'].get(kind, 0.0):.0f}",
            f"{soaked['growth_pct'][kind]:+.1f} %",
        ]
        for kind, mib in sorted(soaked["rss_base"].items(), key=lambda kv: -kv[1])
    ]
    worst = soaked["worst_growth_pct"]
    chromium = soaked["chromium"]
    p95 = ", ".join(f"{ms:.0f}" for ms in soaked["p95_ms"])
    return [
        f"Soak: {soaked['sessions']} glance sessions through the API, 3 at a time (scripted judge): "
        f"**worst actor RSS growth {worst:+.1f} %** after the first 30 (bar: within 10 %); Chromium "
        f"processes {chromium[0]} after 30, {chromium[1]} at the end; frontier pools left "
        f"{soaked['frontier_pools_left']}; API p95 latency per 30 sessions (ms): {p95}.",
        "",
        table(["actor kind", "RSS after 30 (MiB)", "at the end (MiB)", "growth"], rows),
        "",
        "![API p95 latency and actor memory over the soak](eval/soak.png)",
    ]


def main() -> None:
    with TestWeb() as web, tempfile.TemporaryDirectory() as data:
        fault_rows, survived, facts_lost = faults(web, Path(data) / "faults")
        with serving(web, Path(data) / "load") as (url, engine):
            held = asyncio.run(load(url))
            soaked = soak(url, engine)
        hostile_rows, bounded = asyncio.run(hostile(web))
        attack_rows, blocked, leaked = asyncio.run(attacks(web))
    summary = [
        [
            "load held",
            "yes" if held["held"] else "no",
            f"{held['clients']} clients, {held['seconds']:.0f} s, cap 4",
        ],
        ["faults survived", f"{survived} of {len(fault_rows)}", f"facts lost {facts_lost}"],
        ["hostile servers bounded", f"{bounded} of {len(HOSTILE)}", "within the fetcher's hard limit"],
        ["attacks", f"{blocked} blocked of {blocked + leaked}", f"{leaked} leaked"],
        [
            "soak RSS growth",
            f"{soaked['worst_growth_pct']:+.1f} % (worst actor kind)",
            f"{soaked['sessions']} sessions, after the first 30; bar 10 %",
        ],
    ]
    body = "\n".join(
        [
            table(["measure", "result", "how"], summary),
            "",
            "Faults: each part of the engine killed mid-session (a local Ray, the scripted judge, "
            "a `focused` session of at most 8 pages, killed as the first page after the first round's "
            "checkpoint is fetched; Chromium by its processes, the rest by their actors): "
            f"**{survived} of {len(fault_rows)} survived, {facts_lost} facts lost** (survived: "
            "complete, every fact kept before the kill still kept, no page fetched twice).",
            "",
            table(["killed", "session", "facts before", "facts after", "lost", "fetched twice"], fault_rows),
            "",
            *load_lines(held),
            "",
            *soak_lines(soaked),
            "",
            "Hostile servers of the offline web, fetched at the default settings (page timeout "
            f"{BrowserSettings().page_timeout_s:g} s, httpx timeout {FetchSettings().timeout_s:g} s, "
            f"{FetchSettings().max_body_bytes:,} bytes at most): **{bounded} of {len(HOSTILE)} bounded** "
            "(a status within the fetcher's hard limit, for the browser the page timeout, "
            f"{SETTLE_S:g} s of network settling and 5 s of grace, + {SLACK_S:g} s to tear down; "
            f"extraction within {EXTRACT_LIMIT_S:g} s; memory grown by under {MEMORY_BOUND_MIB} MiB).",
            "",
            table(["server", "Chromium", "httpx", "memory grown MiB", "bounded"], hostile_rows),
            "",
            "Attack pages of `attack.test`, each read by the evidence judge and by a compromised judge "
            "that obeys the page, through the ledger and the rendered report: "
            f"**{blocked} blocked, {leaked} leaked**.",
            "",
            table(["attack", "evidence judge", "compromised judge"], attack_rows),
        ]
    )
    write_section(
        "reliability",
        "Reliability: load, faults, soak, hostile servers and attacks",
        "python scripts/bench_reliability.py",
        body,
    )


if __name__ == "__main__":
    main()
