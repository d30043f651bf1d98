"""The ddgs adapter's retry and error mapping, with the library call replaced (no network in unit tests)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from ddgs.exceptions import DDGSException, RatelimitException

from fathom_ray.adapters.search_ddgs import DdgsSearcher
from fathom_ray.errors import SearchError
from fathom_ray.settings import SearchSettings


def searcher_answering(*answers: object) -> tuple[DdgsSearcher, list[str]]:
    searcher = DdgsSearcher(SearchSettings(), attempts=3, backoff_s=0.0)
    calls: list[str] = []
    queue = list(answers)

    def text(query: str, limit: int) -> list[dict[str, Any]]:
        calls.append(query)
        answer = queue.pop(0)
        if isinstance(answer, Exception):
            raise answer
        assert isinstance(answer, list)
        return answer

    searcher._text = text  # type: ignore[method-assign]
    return searcher, calls


def test_rate_limits_are_retried_then_answered() -> None:
    rows = [{"title": "WAL", "href": "https://sqlite.org/wal.html", "body": "Write-ahead log"}]
    searcher, calls = searcher_answering(RatelimitException("202"), rows)
    results = asyncio.run(searcher.search("sqlite wal", 5))
    assert len(calls) == 2
    assert [(r.url, r.rank, r.backend, r.query) for r in results] == [
        ("https://sqlite.org/wal.html", 1, "ddgs", "sqlite wal")
    ]


def test_persistent_rate_limit_is_an_error() -> None:
    searcher, _ = searcher_answering(*(RatelimitException("202") for _ in range(3)))
    with pytest.raises(SearchError, match="rate limited"):
        asyncio.run(searcher.search("q", 5))


def test_no_results_is_an_empty_answer_but_other_failures_are_errors() -> None:
    searcher, _ = searcher_answering(DDGSException("No results found."))
    assert asyncio.run(searcher.search("q", 5)) == []
    searcher, _ = searcher_answering(DDGSException("DNSError: no records"))
    with pytest.raises(SearchError, match="DNSError"):
        asyncio.run(searcher.search("q", 5))
