"""BrowserPoolActor and ExtractorPoolActor in a real local Ray, against the offline web."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import ray

from actors.browser_pool import browser_pool_actor
from actors.extractor_pool import extractor_pool_actor
from fathom_ray.models import ExtractedPage, FetchResult, FetchStatus, Preview
from fathom_ray.settings import BrowserSettings, FetchSettings
from fathom_ray.web.network import NetworkMap

Handle = Any  # Ray's handles are untyped at their methods

pytestmark = [pytest.mark.actors, pytest.mark.usefixtures("ray_session")]


@pytest.fixture(scope="module")
def pool(offline_network: NetworkMap) -> Iterator[Handle]:
    actor = browser_pool_actor().remote(
        BrowserSettings(page_timeout_s=5.0), FetchSettings(timeout_s=5.0), offline_network
    )
    ray.get(actor.start.remote(), timeout=60)
    yield actor
    ray.get(actor.stop.remote(), timeout=60)
    ray.kill(actor)


def test_fetch_then_extract(pool: Handle) -> None:
    extractor = extractor_pool_actor().remote(timeout_s=30.0)
    result: FetchResult = ray.get(pool.fetch.remote("http://www.sqlite.test/wal.html"), timeout=60)
    assert result.ok
    page: ExtractedPage = ray.get(extractor.extract.remote(result), timeout=60)
    assert page.method.startswith("trafilatura")
    assert "write-ahead log" in page.text.lower()
    assert any(link.url.startswith("http://www.sqlite.test/") for link in page.links)
    pdf: FetchResult = ray.get(pool.fetch.remote("http://pdf.test/report.pdf"), timeout=60)
    assert "PostgreSQL 15 was released" in ray.get(extractor.extract.remote(pdf), timeout=60).text
    ray.get(extractor.stop.remote())
    ray.kill(extractor)


def test_robots_txt_is_honoured(pool: Handle) -> None:
    refused: FetchResult = ray.get(pool.fetch.remote("http://robots.test/private/page.html"), timeout=60)
    assert refused.status is FetchStatus.ROBOTS
    assert ray.get(pool.fetch.remote("http://robots.test/public.html"), timeout=60).ok
    assert ray.get(pool.crawl_delay.remote("http://robots.test/public.html"), timeout=60) == 2.0


def test_preview(pool: Handle) -> None:
    preview: Preview = ray.get(
        pool.preview.remote("http://www.postgresql.test/docs/15/index.html"), timeout=60
    )
    assert preview.usable
    assert "PostgreSQL" in preview.title
    assert not ray.get(pool.preview.remote("http://binary.test/"), timeout=60).usable
