"""The extractor pool's time bounds, with a real worker process."""

from __future__ import annotations

import asyncio

import pytest

from actors.extractor_pool import ExtractorPool
from fathom_ray.models import FetchResult, FetchStatus

pytestmark = pytest.mark.integration

BIG = "<html><body>" + "<p>Some words of a paragraph that goes on.</p>" * 20_000 + "</body></html>"


def test_an_overrun_replaces_the_worker_and_comes_back_empty() -> None:
    pool = ExtractorPool(timeout_s=0.05)
    try:
        page = asyncio.run(pool.extract(FetchResult("http://a.test/", FetchStatus.OK, body=BIG)))
        assert page.method == "timeout"
        assert page.text == ""
        assert pool.restarts == 2  # the trafilatura bound ran out, then the selectolax one
    finally:
        pool.stop()


def test_a_generous_bound_extracts() -> None:
    pool = ExtractorPool(timeout_s=60)
    try:
        html = (
            "<html><body><article><p>"
            + "A real sentence about WAL mode. " * 30
            + "</p></article></body></html>"
        )
        page = asyncio.run(pool.extract(FetchResult("http://a.test/", FetchStatus.OK, body=html)))
        assert "WAL mode" in page.text
    finally:
        pool.stop()
