"""Pages fetched by a real Chromium through Playwright, every request through the egress proxy.

Chromium is launched locally (Debian's binary, the house flags) or reached
over CDP (a Browserless-style endpoint). Several pages run at once, each
with a timeout, in tabs kept for the next page (``browser_tabs``); after
load the fetcher waits for the page to settle (``page_settle``: its scripts
have nothing pending, or its network is idle) so script-rendered content is
there. A bad page is a ``FetchResult`` value; a
crashed or disconnected browser is relaunched on the next fetch and the
fetches in flight come back as ``browser_crashed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from dataclasses import replace

from playwright.async_api import (
    Browser,
    BrowserContext,
    BrowserType,
    Error,
    Page,
    Playwright,
    Request,
    Response,
    async_playwright,
)
from playwright.async_api import TimeoutError as PlaywrightTimeout

from fathom_ray.adapters.browser_tabs import Tabs
from fathom_ray.adapters.egress_proxy import REFUSED_HEADER, TOO_LARGE_HEADER, EgressProxy
from fathom_ray.adapters.http_client import SafeHttpClient
from fathom_ray.adapters.page_settle import ACTIVITY, InFlight, settle
from fathom_ray.models import FetchResult, FetchStatus
from fathom_ray.settings import BrowserSettings
from fathom_ray.web.security import content_kind

logger = logging.getLogger(__name__)
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
SETTLE_S = 2.0
CDP_ATTACH_S = 15.0
CDP_ATTEMPTS = 2


class PlaywrightFetcher:
    """``start()`` before use, ``stop()`` after; ``fetch`` never raises for a bad page."""

    def __init__(
        self,
        settings: BrowserSettings,
        proxy: EgressProxy,
        http: SafeHttpClient,
        user_agent: str,
        resolver_rules: str = "",
    ) -> None:
        self._settings = settings
        self._resolver_rules = resolver_rules
        self._http = http
        self._proxy = proxy
        self._user_agent = user_agent
        self._pages = asyncio.Semaphore(settings.pages_per_browser)
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._launch_lock = asyncio.Lock()
        self._tabs = Tabs(settings.tab_uses)
        self._printer: Page | None = None  # the page reports are printed on, kept
        self._printing = asyncio.Lock()  # one print at a time on it
        self.print_pages = 0  # print pages opened: one, while each print goes well
        self.launches = 0
        self.settled: Counter[str] = Counter()  # how loaded pages settled: quiet, network idle, limit

    async def start(self) -> None:
        """Raises Playwright's ``Error`` when no browser can be had; nothing is left running."""
        self._playwright = await async_playwright().start()
        try:
            await self._ensure_browser()
        except BaseException:
            await self.stop()
            raise

    @property
    def tabs_opened(self) -> int:
        return self._tabs.opened

    @property
    def peak_pages(self) -> int:
        """The most pages this browser has loaded side by side."""
        return self._tabs.peak_in_use

    async def stop(self) -> None:
        await self._tabs.close_all()
        await self._drop_printer()
        with contextlib.suppress(Error):
            if self._context is not None:
                await self._context.close()
            if self._browser is not None:
                await self._browser.close()
        if self._playwright is not None:
            await self._playwright.stop()
        self._playwright = self._browser = self._context = None

    async def _ensure_browser(self) -> BrowserContext:
        async with self._launch_lock:
            if self._context is not None and self._browser is not None and self._browser.is_connected():
                return self._context
            assert self._playwright is not None, "start() first"
            proxy = {"server": self._proxy.address, "bypass": "<-loopback>"}
            chromium = self._playwright.chromium
            if self._settings.cdp_url:
                self._browser = await _attach(chromium, self._settings.cdp_url)
            else:
                self._browser = await chromium.launch(
                    executable_path=str(self._settings.executable),
                    args=self._launch_args(),
                    proxy=proxy,  # type: ignore[arg-type]
                    handle_sigint=False,
                    handle_sigterm=False,
                )
            self._context = await self._browser.new_context(
                proxy=proxy,  # type: ignore[arg-type]
                user_agent=self._user_agent,
                accept_downloads=False,
                java_script_enabled=True,
            )
            await self._context.add_init_script(script=ACTIVITY)
            self.launches += 1
            logger.info("browser ready (%s)", "cdp" if self._settings.cdp_url else "local launch")
            return self._context

    def _launch_args(self) -> list[str]:
        """The house flags; with a host map, Chromium's own resolver knows only the proxy's address."""
        if not self._resolver_rules:
            return list(CHROMIUM_FLAGS)
        return [*CHROMIUM_FLAGS, f"--host-resolver-rules={self._resolver_rules}, EXCLUDE 127.0.0.1"]

    async def fetch(self, url: str) -> FetchResult:
        async with self._pages:
            started = time.monotonic()
            try:
                context = await self._ensure_browser()
            except Error as e:
                return FetchResult(url, FetchStatus.BROWSER_CRASHED, error=f"browser unavailable: {e}")
            try:
                async with asyncio.timeout(self._settings.page_timeout_s + SETTLE_S + 5):
                    result = await self._fetch_in(context, url)
            except TimeoutError:
                result = FetchResult(url, FetchStatus.TIMEOUT, error="the page never finished")
            return _with_elapsed(result, time.monotonic() - started)

    async def pdf(self, html: str) -> bytes:
        """``html`` printed to an A4 PDF by the same Chromium, on a page of its own context that runs
        no script and loads nothing (every request it would make is aborted). The page is kept for
        the next report (a new one costs Chromium a renderer: about 0.5 CPU-s here, four times the
        print); one that failed or timed out is closed and the next print gets a new one."""
        async with self._printing:
            page = await self._print_page()
            try:
                async with asyncio.timeout(self._settings.page_timeout_s):
                    await page.set_content(html, wait_until="load")
                    return await page.pdf(
                        format="A4",
                        print_background=True,
                        margin={"top": "18mm", "bottom": "18mm", "left": "16mm", "right": "16mm"},
                    )
            except BaseException:
                await self._drop_printer()
                raise

    async def _print_page(self) -> Page:
        """The kept print page, or a new one where there is none or its browser is gone."""
        await self._ensure_browser()
        browser = self._browser
        assert browser is not None
        if self._printer is not None:
            if self._printer.context.browser is browser and not self._printer.is_closed():
                return self._printer
            await self._drop_printer()
        context = await browser.new_context(java_script_enabled=False, offline=True)
        await context.route("**/*", lambda route: route.abort())
        page = await context.new_page()
        self._printer = page
        self.print_pages += 1
        return page

    async def _drop_printer(self) -> None:
        if self._printer is not None:
            page, self._printer = self._printer, None
            with contextlib.suppress(Error):
                await page.context.close()

    async def _fetch_in(self, context: BrowserContext, url: str) -> FetchResult:
        try:
            page = await self._tabs.take(context, url)
        except Error as e:
            return self._crashed(url, e)
        result: FetchResult | None = None
        try:
            result = await self._load(url, page)
            return result
        finally:  # a cancelled fetch (its timeout) has no result: its tab is closed with the rest
            await self._tabs.give_back(page, reusable=result is not None and result.ok)

    async def _load(self, url: str, page: Page) -> FetchResult:
        timeout_ms = self._settings.page_timeout_s * 1000
        in_flight = InFlight(page)
        try:
            response = await page.goto(url, timeout=timeout_ms, wait_until="load")
            self.settled[await settle(page, in_flight, SETTLE_S)] += 1
            if response is None:
                return FetchResult(url, FetchStatus.NETWORK_ERROR, error="no response")
            return await self._page_result(url, page, response)
        except PlaywrightTimeout:
            return FetchResult(
                url, FetchStatus.TIMEOUT, error=f"no load within {self._settings.page_timeout_s:g} s"
            )
        except Error as e:
            return await self._classify_error(url, e)
        finally:
            in_flight.detach()

    async def _page_result(self, url: str, page: Page, response: Response) -> FetchResult:
        headers = await response.all_headers()
        chain = _redirect_chain(response.request)
        seen = self._proxy.seen.get(page.url)
        refused = headers.get(REFUSED_HEADER.lower())
        too_large = headers.get(TOO_LARGE_HEADER.lower()) or (seen and seen.too_large and "body cut off")
        content_type = headers.get("content-type", "")
        kind = content_kind(content_type)
        failure: tuple[FetchStatus, str] | None = None
        if refused:
            failure = FetchStatus.BLOCKED, refused
        elif too_large:
            failure = FetchStatus.TOO_LARGE, too_large
        elif kind is None:
            failure = FetchStatus.UNSUPPORTED_TYPE, f"content type {content_type!r} is not HTML, text or PDF"
        elif kind == "pdf" and response.ok:
            return await self._http.fetch(page.url)  # the browser shows a viewer; we want the bytes
        if failure is not None:
            return FetchResult(url, failure[0], final_url=page.url, error=failure[1], redirects=chain)
        return FetchResult(
            url,
            FetchStatus.OK if response.ok else FetchStatus.HTTP_ERROR,
            final_url=page.url,
            http_status=response.status,
            content_type=content_type,
            body=await page.content(),
            error="" if response.ok else f"HTTP {response.status}",
            redirects=chain,
        )

    async def _classify_error(self, url: str, error: Error) -> FetchResult:
        message = str(error).splitlines()[0]
        if self._browser is None or not self._browser.is_connected() or "closed" in message.lower():
            return self._crashed(url, error)
        seen = self._proxy.seen.get(url)
        if seen is not None and seen.too_large:
            return FetchResult(url, FetchStatus.TOO_LARGE, error="body passed the size limit")
        if seen is not None and content_kind(seen.content_type) == "pdf":
            return await self._http.fetch(url)  # Chromium downloads PDFs; fetch the bytes instead
        if seen is not None and seen.content_type and content_kind(seen.content_type) is None:
            return FetchResult(
                url,
                FetchStatus.UNSUPPORTED_TYPE,
                content_type=seen.content_type,
                error=f"content type {seen.content_type!r} is not HTML, text or PDF",
            )
        status = next((s for code, s in _NET_ERRORS.items() if code in message), FetchStatus.NETWORK_ERROR)
        return FetchResult(url, status, error=message)

    def _crashed(self, url: str, error: Error) -> FetchResult:
        logger.warning("browser lost while fetching %s: %s", url, error, extra={"url": url})
        self._context = None
        return FetchResult(url, FetchStatus.BROWSER_CRASHED, error=str(error).splitlines()[0])


_NET_ERRORS = {
    "ERR_UNSAFE_REDIRECT": FetchStatus.BLOCKED,  # to file:, data: or another scheme a page may not reach
    "ERR_TOO_MANY_REDIRECTS": FetchStatus.TOO_MANY_REDIRECTS,
}


def _redirect_chain(request: Request) -> tuple[str, ...]:
    """The URLs after the first one, in the order the browser followed them."""
    chain: list[str] = []
    current: Request | None = request
    while current is not None:
        chain.append(current.url)
        current = current.redirected_from
    return tuple(reversed(chain))[1:]


async def _attach(chromium: BrowserType, cdp_url: str) -> Browser:
    """A remote Chromium still starting (or one with a tab stuck in its first load) can take the
    debugging connection and never finish Playwright's attach; a fresh connection usually does."""
    for _ in range(CDP_ATTEMPTS - 1):
        with contextlib.suppress(PlaywrightTimeout):
            return await chromium.connect_over_cdp(cdp_url, timeout=CDP_ATTACH_S * 1000)
        logger.warning("no attach to %s within %g s; trying again", cdp_url, CDP_ATTACH_S)
    return await chromium.connect_over_cdp(cdp_url, timeout=CDP_ATTACH_S * 1000)


def _with_elapsed(result: FetchResult, elapsed_s: float) -> FetchResult:
    return replace(result, elapsed_s=elapsed_s)
