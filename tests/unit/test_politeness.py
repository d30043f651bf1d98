from __future__ import annotations

import asyncio
import itertools

from hypothesis import given
from hypothesis import strategies as st

from fathom_ray.web.politeness import Politeness, RobotsRules


@given(st.lists(st.tuples(st.sampled_from(["a.test", "b.test"]), st.floats(0, 100)), max_size=40))
def test_slots_for_one_host_are_at_least_the_delay_apart(requests: list[tuple[str, float]]) -> None:
    politeness = Politeness(min_delay_s=2.0)
    starts: dict[str, list[float]] = {}
    for host, now in sorted(requests, key=lambda r: r[1]):
        start = politeness.reserve(host, now)
        assert start >= now
        starts.setdefault(host, []).append(start)
    for times in starts.values():
        assert all(later - earlier >= 2.0 - 1e-9 for earlier, later in itertools.pairwise(times))


def test_crawl_delay_wins_when_longer() -> None:
    politeness = Politeness(min_delay_s=1.0)
    politeness.set_crawl_delay("slow.test", 5)
    assert politeness.reserve("slow.test", 0.0) == 0.0
    assert politeness.reserve("slow.test", 0.0) == 5.0
    assert politeness.reserve("other.test", 0.0) == 0.0
    politeness.set_crawl_delay("slow.test", None)
    assert politeness.delay_for("slow.test") == 1.0


def test_robots_rules_are_fetched_once_per_origin() -> None:
    fetched: list[str] = []

    async def fetch(url: str) -> str | None:
        fetched.append(url)
        return "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"

    async def run() -> tuple[bool, bool, float | None]:
        rules = RobotsRules(user_agent="fathom-ray")
        public = await rules.allowed("http://robots.test/public.html", fetch)
        private = await rules.allowed("http://robots.test/private/x.html", fetch)
        return public, private, await rules.crawl_delay("http://robots.test/", fetch)

    assert asyncio.run(run()) == (True, False, 2.0)
    assert fetched == ["http://robots.test/robots.txt"]


def test_missing_robots_allows_everything() -> None:
    async def fetch(url: str) -> str | None:
        return None

    assert asyncio.run(RobotsRules(user_agent="x").allowed("http://a.test/anything", fetch))
