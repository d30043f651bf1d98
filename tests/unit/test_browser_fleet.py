"""Fetches spread over the browser pools; a lost pool's call goes to the next one, once per call."""

from __future__ import annotations

import asyncio

import pytest

from fathom_ray.models import FetchResult, FetchStatus, Preview
from fathom_ray.web.browser_fleet import BrowserFleet, PoolLost


class Pool:
    def __init__(self, name: str, delay_s: float = 0.0) -> None:
        self.name, self.delay_s = name, delay_s
        self.fetched: list[str] = []
        self.lost = False

    async def fetch(self, url: str) -> FetchResult:
        await asyncio.sleep(self.delay_s)
        if self.lost:
            raise PoolLost("RayActorError")
        self.fetched.append(url)
        return FetchResult(url, FetchStatus.OK, body=f"<p>{self.name}</p>")

    async def preview(self, url: str) -> Preview:
        if self.lost:
            raise PoolLost("RayActorError")
        return Preview(url, FetchStatus.OK)

    async def crawl_delay(self, url: str) -> float | None:
        if self.lost:
            raise PoolLost("RayActorError")
        return 1.0


def test_calls_take_turns_over_the_pools_and_concurrent_ones_spread() -> None:
    a, b = Pool("a", 0.01), Pool("b", 0.01)
    fleet = BrowserFleet([a, b])

    async def go() -> None:
        for i in range(4):
            await fleet.fetch(f"http://x.test/{i}")
        await asyncio.gather(*(fleet.fetch(f"http://y.test/{i}") for i in range(6)))

    asyncio.run(go())
    assert len(a.fetched) == len(b.fetched) == 5
    assert fleet.calls == [5, 5]


def test_a_lost_pool_is_passed_over_and_nothing_is_fetched_twice() -> None:
    a, b = Pool("a"), Pool("b")
    fleet = BrowserFleet([a, b], start=1)
    a.lost = True

    async def go() -> list[FetchResult]:
        return [await fleet.fetch(f"http://x.test/{i}") for i in range(5)]

    results = asyncio.run(go())
    assert all(r.ok for r in results)
    assert b.fetched == [f"http://x.test/{i}" for i in range(5)]
    assert fleet.order() == [1, 0]  # the lost pool last, for as long as the other works
    assert asyncio.run(fleet.crawl_delay("http://x.test/")) == 1.0


def test_every_pool_lost_is_a_failure_value_and_a_pool_back_is_used_again() -> None:
    a, b = Pool("a"), Pool("b")
    fleet = BrowserFleet([a, b])
    a.lost = b.lost = True
    failed = asyncio.run(fleet.fetch("http://x.test/"))
    assert failed.status == FetchStatus.BROWSER_CRASHED
    assert failed.error == "browser pool lost: RayActorError"
    assert asyncio.run(fleet.preview("http://x.test/")).status == FetchStatus.BROWSER_CRASHED
    assert asyncio.run(fleet.crawl_delay("http://x.test/")) is None
    b.lost = False  # restarted
    assert asyncio.run(fleet.fetch("http://x.test/")).ok
    assert b.fetched == ["http://x.test/"]


def test_a_fleet_needs_a_pool() -> None:
    with pytest.raises(ValueError, match="at least one pool"):
        BrowserFleet([])
