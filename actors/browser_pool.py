"""BrowserPoolActor: Chromium pages, preview fetches and robots.txt behind one actor.

Owns the egress proxy, the safe httpx client and the Playwright fetcher.
Nothing starts in ``__init__``; ``start()`` does the I/O, so a broken browser
cannot trap the actor in a restart loop.
"""

from __future__ import annotations

import logging
from typing import Any

from actors.actor_class import actor_class
from fathom_ray.adapters.egress_proxy import EgressProxy
from fathom_ray.adapters.http_client import SafeHttpClient
from fathom_ray.adapters.playwright_fetcher import PlaywrightFetcher
from fathom_ray.adapters.resolver import MappedResolver
from fathom_ray.models import FetchResult, FetchStatus, Preview
from fathom_ray.settings import BrowserSettings, FetchSettings
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.politeness import RobotsRules
from fathom_ray.web.security import UrlPolicy

logger = logging.getLogger(__name__)


class BrowserPool:
    """Fetch pages in Chromium after robots.txt allows them; preview them cheaply with httpx."""

    def __init__(self, browser: BrowserSettings, fetch: FetchSettings, network: NetworkMap) -> None:
        self._browser_settings = browser
        self._fetch_settings = fetch
        self._network = network
        self._policy = UrlPolicy.allowing((*fetch.allow_hosts, *network.allowed_hosts))
        self._robots = RobotsRules(user_agent=fetch.user_agent)
        self._proxy: EgressProxy | None = None
        self._http: SafeHttpClient | None = None
        self._fetcher: PlaywrightFetcher | None = None
        self._fetched = 0  # pages this pool fetched in Chromium, robots.txt refusals not counted

    async def start(self) -> None:
        if self._fetcher is not None:
            return
        resolver = MappedResolver(self._network)
        self._proxy = EgressProxy(self._policy, self._network, resolver, self._fetch_settings.max_body_bytes)
        await self._proxy.start()
        self._http = SafeHttpClient(self._fetch_settings, self._policy, self._network, resolver)
        self._fetcher = PlaywrightFetcher(
            self._browser_settings,
            self._proxy,
            self._http,
            self._fetch_settings.user_agent,
            resolver_rules=self._network.chromium_rules(),
        )
        await self._fetcher.start()

    async def stop(self) -> None:
        if self._fetcher is not None:
            await self._fetcher.stop()
        if self._http is not None:
            await self._http.aclose()
        if self._proxy is not None:
            await self._proxy.stop()
        self._fetcher = self._http = self._proxy = None

    async def fetch(self, url: str) -> FetchResult:
        """The rendered page; robots.txt refusals and every failure come back as values."""
        await self.start()
        assert self._fetcher is not None
        if not await self.robots_allow(url):
            return FetchResult(url, FetchStatus.ROBOTS, error="robots.txt disallows this URL")
        self._fetched += 1
        return await self._fetcher.fetch(url)

    async def preview(self, url: str) -> Preview:
        await self.start()
        assert self._http is not None
        if not await self.robots_allow(url):
            return Preview(url, FetchStatus.ROBOTS, error="robots.txt disallows this URL")
        return await self._http.preview(url)

    async def fetch_plain(self, url: str) -> FetchResult:
        """The page's HTML over HTTP, not rendered (the verifier's cheap look); robots.txt and the
        egress rules hold as for ``fetch``."""
        await self.start()
        assert self._http is not None
        if not await self.robots_allow(url):
            return FetchResult(url, FetchStatus.ROBOTS, error="robots.txt disallows this URL")
        return await self._http.fetch(url)

    async def pdf(self, html: str) -> bytes:
        """A report page printed to PDF by the pool's Chromium (nothing it names is loaded)."""
        await self.start()
        assert self._fetcher is not None
        return await self._fetcher.pdf(html)

    async def robots_allow(self, url: str) -> bool:
        if not self._fetch_settings.respect_robots:
            return True
        assert self._http is not None
        return await self._robots.allowed(url, self._http.robots_txt)

    async def crawl_delay(self, url: str) -> float | None:
        """The Crawl-delay robots.txt asks of us for ``url``'s host, for the frontier's politeness."""
        await self.start()
        assert self._http is not None
        return await self._robots.crawl_delay(url, self._http.robots_txt)

    def launches(self) -> int:
        return 0 if self._fetcher is None else self._fetcher.launches

    def fetched(self) -> int:
        """Pages fetched since this actor (re)started: how a cluster's fetches spread over its pools."""
        return self._fetched


def browser_pool_actor(name: str | None = None, **placement: Any) -> Any:
    """The Ray actor class: I/O-bound, so it asks for no CPU."""
    return actor_class(BrowserPool).options(num_cpus=0, max_restarts=3, name=name, **placement)
