"""Real Chromium through Playwright and the egress proxy, against the offline web."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import psutil
import pytest
import pytest_asyncio
from playwright.async_api import Error

from fathom_ray.adapters import playwright_fetcher
from fathom_ray.adapters.egress_proxy import EgressProxy
from fathom_ray.adapters.http_client import SafeHttpClient
from fathom_ray.adapters.playwright_fetcher import CHROMIUM_FLAGS, PlaywrightFetcher
from fathom_ray.adapters.resolver import MappedResolver
from fathom_ray.models import FetchStatus
from fathom_ray.settings import BrowserSettings, FetchSettings
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.security import UrlPolicy
from tests.integration.fault_cases import ENDLESS, FAULT_CASES, HOSTILE_PAGES
from tests.net import free_port
from tests.pdf import pdf_text

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]


@dataclass
class Rig:
    proxy: EgressProxy
    http: SafeHttpClient
    fetcher: PlaywrightFetcher


async def make_rig(network: NetworkMap, policy: UrlPolicy, browser: BrowserSettings) -> Rig:
    fetch_settings = FetchSettings(timeout_s=5.0, max_body_bytes=5_000_000)
    resolver = MappedResolver(network)
    proxy = EgressProxy(policy, network, resolver, fetch_settings.max_body_bytes)
    await proxy.start()
    http = SafeHttpClient(fetch_settings, policy, network, resolver)
    fetcher = PlaywrightFetcher(browser, proxy, http, "fathom-ray-test", network.chromium_rules())
    try:
        await fetcher.start()
    except BaseException:
        await http.aclose()
        await proxy.stop()
        raise
    return Rig(proxy, http, fetcher)


async def close_rig(rig: Rig) -> None:
    await rig.fetcher.stop()
    await rig.http.aclose()
    await rig.proxy.stop()


@contextlib.asynccontextmanager
async def own_rig(network: NetworkMap, policy: UrlPolicy, browser: BrowserSettings) -> AsyncIterator[Rig]:
    """A rig of the test's own, closed when the test ends."""
    made = await make_rig(network, policy, browser)
    try:
        yield made
    finally:
        await close_rig(made)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def rig(offline_network: NetworkMap, offline_policy: UrlPolicy) -> AsyncIterator[Rig]:
    made = await make_rig(
        offline_network, offline_policy, BrowserSettings(page_timeout_s=3.0, pages_per_browser=4)
    )
    yield made
    await close_rig(made)


async def test_fetches_a_real_page(rig: Rig) -> None:
    result = await rig.fetcher.fetch("http://www.sqlite.test/wal.html")
    assert result.ok
    assert result.http_status == 200
    assert "Write-Ahead Logging" in result.body
    assert result.elapsed_s > 0


@pytest.mark.parametrize(
    ("url", "text"),
    [
        ("http://js.test/", "forty-two"),  # a timer renders it after "load"
        ("http://js.test/fetched", "seventeen"),  # a request a timer starts, answered late
        ("http://js.test/inserted", "nineteen"),  # a script inserted on "load", served late
    ],
)
async def test_waits_for_script_rendered_content(rig: Rig, url: str, text: str) -> None:
    result = await rig.fetcher.fetch(url)
    assert result.ok
    assert text in result.body
    assert "Loading..." not in result.body


async def test_a_still_page_settles_when_its_scripts_are_done_a_busy_one_on_network_idle(rig: Rig) -> None:
    before = rig.fetcher.settled.copy()
    still = await rig.fetcher.fetch("http://docs.python.test/3.11/whatsnew/3.8.html")  # nine scripts
    assert still.ok
    assert rig.fetcher.settled - before == Counter({"quiet": 1})
    before = rig.fetcher.settled.copy()
    busy = await rig.fetcher.fetch("http://js.test/busy")
    assert busy.ok
    assert "counts for ever" in busy.body
    assert rig.fetcher.settled - before == Counter({"network idle": 1})


async def test_follows_safe_redirects(rig: Rig) -> None:
    result = await rig.fetcher.fetch("http://docs.python.test/")
    assert result.ok
    assert result.final_url == "http://docs.python.test/3.11/"
    assert result.redirects == ("http://docs.python.test/3.11/",)


async def test_pdf_comes_back_as_bytes(rig: Rig) -> None:
    result = await rig.fetcher.fetch("http://pdf.test/report.pdf")
    assert result.ok
    assert result.data.startswith(b"%PDF")


async def test_reports_print_on_one_kept_page_each_with_its_own_text_and_no_script(rig: Rig) -> None:
    script = "<script>document.body.innerHTML = '<p>Scripted away</p>'</script>"
    first = await rig.fetcher.pdf(f"<html><body><p>First report</p>{script}</body></html>")
    second = await rig.fetcher.pdf("<html><body><p>Second report</p></body></html>")
    assert first.startswith(b"%PDF")
    assert second.startswith(b"%PDF")
    first_text, second_text = pdf_text(first), pdf_text(second)
    assert "First report" in first_text
    assert "Scripted" not in first_text
    assert "Second report" in second_text
    assert "First" not in second_text
    assert rig.fetcher.print_pages == 1  # the second report was printed on the first one's page


@pytest.mark.parametrize(("url", "status"), FAULT_CASES)
async def test_fault_hosts_give_the_right_status(rig: Rig, url: str, status: FetchStatus) -> None:
    result = await rig.fetcher.fetch(url)
    assert result.status is status, result.error
    assert result.error


async def test_an_endless_chunked_body_ends(rig: Rig) -> None:
    url, statuses = ENDLESS
    result = await rig.fetcher.fetch(url)
    assert result.status in statuses, result.error


@pytest.mark.parametrize("url", HOSTILE_PAGES)
async def test_hostile_pages_that_load_come_back_whole_or_time_out(rig: Rig, url: str) -> None:
    """Chromium may lay out 100,000 links past a short page timeout: then it ends as a timeout."""
    result = await rig.fetcher.fetch(url)
    assert result.status in {FetchStatus.OK, FetchStatus.TIMEOUT}, result.error
    assert result.ok == ("<title>" in result.body)


async def test_pages_run_concurrently(offline_network: NetworkMap, offline_policy: UrlPolicy) -> None:
    urls = [f"http://www.sqlite.test/{name}.html" for name in ("lang", "wal", "fts5", "json1", "about")]
    settings = BrowserSettings(page_timeout_s=5.0, pages_per_browser=4)
    async with own_rig(offline_network, offline_policy, settings) as rig:
        results = await asyncio.gather(*(rig.fetcher.fetch(u) for u in urls))
        assert all(r.ok for r in results)
        assert rig.fetcher.peak_pages == 4  # side by side, up to the browser's limit and no further


async def test_a_tab_serves_page_after_page_each_whole(
    offline_network: NetworkMap, offline_policy: UrlPolicy
) -> None:
    """One fetch at a time: one tab serves them all, and each result is its own page, not the last one's."""
    settings = BrowserSettings(page_timeout_s=5.0, tab_uses=20)
    async with own_rig(offline_network, offline_policy, settings) as rig:
        pages = {"wal": "Write-Ahead Logging", "fts5": "FTS5", "json1": "JSON", "lang": "Query Language"}
        for name, title in [*pages.items(), ("wal", pages["wal"])]:
            result = await rig.fetcher.fetch(f"http://www.sqlite.test/{name}.html")
            assert result.ok
            assert result.final_url == f"http://www.sqlite.test/{name}.html"
            assert title in result.body.split("</title>")[0]
        assert rig.fetcher.tabs_opened == 1
        again = await rig.fetcher.fetch("http://www.sqlite.test/wal.html#ckpt")  # the tab shows it: a new one
        assert again.ok
        assert "Write-Ahead Logging" in again.body
        assert rig.fetcher.tabs_opened == 2


async def test_a_page_that_fails_takes_its_tab_with_it(
    offline_network: NetworkMap, offline_policy: UrlPolicy
) -> None:
    settings = BrowserSettings(page_timeout_s=2.0, tab_uses=20)
    async with own_rig(offline_network, offline_policy, settings) as rig:
        assert (await rig.fetcher.fetch("http://www.sqlite.test/wal.html")).ok
        assert (await rig.fetcher.fetch("http://slow.test/")).status is FetchStatus.TIMEOUT
        assert (await rig.fetcher.fetch("http://www.sqlite.test/fts5.html")).ok
        assert rig.fetcher.tabs_opened == 2  # the slow page's tab was closed, not handed to the next page


async def test_one_tab_per_page_when_tabs_serve_one_page(
    offline_network: NetworkMap, offline_policy: UrlPolicy
) -> None:
    async with own_rig(
        offline_network, offline_policy, BrowserSettings(page_timeout_s=5.0, tab_uses=1)
    ) as rig:
        for name in ("wal", "fts5", "lang"):
            assert (await rig.fetcher.fetch(f"http://www.sqlite.test/{name}.html")).ok
        assert rig.fetcher.tabs_opened == 3


async def test_loopback_redirect_is_followed_only_when_loopback_is_allowed(
    offline_network: NetworkMap,
) -> None:
    policy = UrlPolicy.allowing((*offline_network.allowed_hosts, "127.0.0.1"))
    rig = await make_rig(offline_network, policy, BrowserSettings(page_timeout_s=3.0))
    try:
        result = await rig.fetcher.fetch("http://redirect-private.test/")
        assert result.status is FetchStatus.HTTP_ERROR  # reached the server, which has no site by that name
        assert result.http_status == 404
    finally:
        await close_rig(rig)


def _browser_processes() -> list[psutil.Process]:
    return [
        p
        for p in psutil.Process().children(recursive=True)
        if "chrom" in p.name() and not any(a.startswith("--type=") for a in p.cmdline())
    ]


async def test_crashed_browser_is_relaunched(offline_network: NetworkMap, offline_policy: UrlPolicy) -> None:
    rig = await make_rig(offline_network, offline_policy, BrowserSettings(page_timeout_s=5.0))
    try:
        in_flight = asyncio.create_task(rig.fetcher.fetch("http://slow.test/"))
        await asyncio.sleep(1.0)
        for process in _browser_processes():
            process.send_signal(signal.SIGKILL)
        crashed = await in_flight
        assert crashed.status is FetchStatus.BROWSER_CRASHED
        again = await rig.fetcher.fetch("http://www.sqlite.test/wal.html")
        assert again.ok
        assert rig.fetcher.launches == 2
    finally:
        await close_rig(rig)


@pytest.fixture(scope="module")
def remote_chromium() -> Iterator[str]:
    """A Chromium we start ourselves with a debugging port: a Browserless-style CDP endpoint."""
    port = free_port()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:  # Chromium's helpers may lag
        process = subprocess.Popen(
            [
                "/usr/bin/chromium",
                *CHROMIUM_FLAGS,
                f"--remote-debugging-port={port}",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_a_page(port)
            yield f"http://127.0.0.1:{port}"
        finally:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=10)


def _wait_for_a_page(port: int) -> None:
    """Until Chromium's debugging endpoint answers and lists its first tab, loaded: an open port
    alone is too early under load (the attach then waits on a tab still starting)."""
    for _ in range(300):
        with contextlib.suppress(OSError, ValueError):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as answer:
                targets = json.load(answer)
            if any(t.get("type") == "page" and t.get("url") == "about:blank" for t in targets):
                return
        time.sleep(0.1)
    raise RuntimeError(f"Chromium's debugging port {port} never listed its first tab")


async def test_cdp_endpoint(
    remote_chromium: str, offline_network: NetworkMap, offline_policy: UrlPolicy
) -> None:
    rig = await make_rig(
        offline_network, offline_policy, BrowserSettings(cdp_url=remote_chromium, page_timeout_s=5)
    )
    try:
        result = await rig.fetcher.fetch("http://js.test/")
        assert result.ok
        assert "forty-two" in result.body
        blocked = await rig.fetcher.fetch("http://redirect-private.test/")
        assert blocked.status is FetchStatus.BLOCKED
    finally:
        await close_rig(rig)


@contextlib.asynccontextmanager
async def _silent_cdp_endpoint(attaches: list[str]) -> AsyncIterator[str]:
    """A debugging endpoint that names its WebSocket, takes the upgrade, and then never answers."""
    connections: list[asyncio.StreamWriter] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        port = writer.get_extra_info("sockname")[1]
        if "upgrade: websocket" not in head.lower():
            body = json.dumps({"webSocketDebuggerUrl": f"ws://127.0.0.1:{port}/devtools/browser/x"})
            writer.write(f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode())
            await writer.drain()
            writer.close()
            return
        key = next(
            line.split(":", 1)[1].strip()
            for line in head.split("\r\n")
            if line.lower().startswith("sec-websocket-key")
        )
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        writer.write(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept}\r\n\r\n".encode()
        )
        await writer.drain()
        attaches.append(head.split(" ", 2)[1])
        await reader.read()  # whatever Playwright asks goes unanswered until it hangs up

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        for writer in connections:
            writer.close()
        await server.wait_closed()


async def test_a_cdp_endpoint_that_never_answers_is_tried_again_then_reported(
    offline_network: NetworkMap, offline_policy: UrlPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(playwright_fetcher, "CDP_ATTACH_S", 1.0)
    attaches: list[str] = []
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    async with _silent_cdp_endpoint(attaches) as endpoint:
        with pytest.raises(Error, match="connect_over_cdp: Timeout"):
            await make_rig(offline_network, offline_policy, BrowserSettings(cdp_url=endpoint))
    assert attaches == ["/devtools/browser/x"] * playwright_fetcher.CDP_ATTEMPTS
    _, alive = psutil.wait_procs(
        [p for p in psutil.Process().children(recursive=True) if p.pid not in before], timeout=10
    )
    assert not alive, "Playwright's driver outlived the failed start"
