from __future__ import annotations

import asyncio

import pytest

from fathom_ray.errors import SearchError
from fathom_ray.models import SearchResult
from fathom_ray.web.search import merge, search_all


def result(url: str, rank: int, query: str = "q") -> SearchResult:
    return SearchResult(title=url, url=url, snippet="", rank=rank, backend="fake", query=query)


def test_merge_keeps_the_best_rank_per_canonical_url() -> None:
    first = [result("http://a.example/x?b=1&a=2", 1, "q1"), result("http://b.example/", 2, "q1")]
    second = [result("HTTP://B.example:80/#top", 1, "q2"), result("ftp://c.example/", 2, "q2")]
    merged = merge([first, second])
    assert [(r.url, r.rank, r.query) for r in merged] == [
        ("http://a.example/x?a=2&b=1", 1, "q1"),
        ("http://b.example/", 1, "q2"),
    ]


class FakeSearcher:
    name = "fake"

    def __init__(self, failing: set[str]) -> None:
        self.failing = failing

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        if query in self.failing:
            raise SearchError(self.name, f"{query} failed")
        return [result(f"http://{query}.example/{i}", i, query) for i in range(1, limit + 1)]


def test_search_all_skips_failed_queries() -> None:
    merged = asyncio.run(search_all(FakeSearcher({"bad"}), ["good", "bad", "fine"], 2))
    assert {r.query for r in merged} == {"good", "fine"}
    assert len(merged) == 4


def test_search_all_raises_when_every_query_fails() -> None:
    with pytest.raises(SearchError, match="failed"):
        asyncio.run(search_all(FakeSearcher({"a", "b"}), ["a", "b"], 3))
    assert asyncio.run(search_all(FakeSearcher(set()), [], 3)) == []
