"""The httpx client against the real offline web: previews, limits, redirects, SSRF refusals."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from fathom_ray.adapters.http_client import SafeHttpClient
from fathom_ray.adapters.resolver import MappedResolver
from fathom_ray.models import FetchStatus
from fathom_ray.settings import FetchSettings
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.security import UrlPolicy
from tests.integration.fault_cases import ENDLESS, FAULT_CASES, HOSTILE_PAGES

pytestmark = pytest.mark.integration
T = TypeVar("T")


def run_with(
    network: NetworkMap,
    policy: UrlPolicy,
    call: Callable[[SafeHttpClient], Awaitable[T]],
    timeout_s: float = 5.0,
) -> T:
    async def go() -> T:
        settings = FetchSettings(timeout_s=timeout_s, max_body_bytes=2_000_000)
        async with SafeHttpClient(settings, policy, network, MappedResolver(network)) as client:
            return await call(client)

    return asyncio.run(go())


def test_preview_reads_title_and_text(offline_network: NetworkMap, offline_policy: UrlPolicy) -> None:
    preview = run_with(
        offline_network, offline_policy, lambda c: c.preview("http://www.sqlite.test/wal.html")
    )
    assert preview.usable
    assert preview.http_status == 200
    assert "Write-Ahead Logging" in preview.title
    assert preview.text_chars > 1000


def test_site_root_redirects_to_its_prefix(offline_network: NetworkMap, offline_policy: UrlPolicy) -> None:
    result = run_with(offline_network, offline_policy, lambda c: c.fetch("http://docs.python.test/"))
    assert result.ok
    assert result.final_url == "http://docs.python.test/3.11/"
    assert result.redirects == ("http://docs.python.test/3.11/",)


@pytest.mark.parametrize(("url", "status"), [*FAULT_CASES, ("ftp://docs.python.test/", FetchStatus.BLOCKED)])
def test_fault_hosts_give_the_right_status(
    offline_network: NetworkMap, offline_policy: UrlPolicy, url: str, status: FetchStatus
) -> None:
    result = run_with(offline_network, offline_policy, lambda c: c.fetch(url), timeout_s=2.0)
    assert result.status is status, result.error
    assert result.error


def test_an_endless_chunked_body_ends(offline_network: NetworkMap, offline_policy: UrlPolicy) -> None:
    url, statuses = ENDLESS
    result = run_with(offline_network, offline_policy, lambda c: c.fetch(url), timeout_s=2.0)
    assert result.status in statuses, result.error


@pytest.mark.parametrize("url", HOSTILE_PAGES)
def test_hostile_pages_that_load_come_back_whole(
    offline_network: NetworkMap, offline_policy: UrlPolicy, url: str
) -> None:
    result = run_with(offline_network, offline_policy, lambda c: c.fetch(url))
    assert result.ok, result.error
    assert "<title>" in result.body
    if url == "http://charset.test/":  # an unknown charset is read as UTF-8, not an error
        assert "Café crème" in result.body


def test_redirect_to_loopback_is_refused_unless_loopback_is_allowed(
    offline_network: NetworkMap, offline_policy: UrlPolicy
) -> None:
    refused = run_with(offline_network, offline_policy, lambda c: c.fetch("http://redirect-private.test/"))
    assert refused.status is FetchStatus.BLOCKED
    assert "loopback" in refused.error
    allowing = UrlPolicy.allowing((*offline_network.allowed_hosts, "127.0.0.1"))
    followed = run_with(offline_network, allowing, lambda c: c.fetch("http://redirect-private.test/"))
    assert followed.status is FetchStatus.HTTP_ERROR  # reached the web server, which knows no such site
    assert followed.http_status == 404


def test_robots_txt(offline_network: NetworkMap, offline_policy: UrlPolicy) -> None:
    text = run_with(offline_network, offline_policy, lambda c: c.robots_txt("http://robots.test/robots.txt"))
    assert text is not None
    assert "Disallow: /private" in text
    missing = run_with(
        offline_network, offline_policy, lambda c: c.robots_txt("http://docs.python.test/robots.txt")
    )
    assert missing is None
