"""Running many queries at once and merging their results by canonical URL."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from fathom_ray.errors import InvalidURLError, SearchError
from fathom_ray.models import SearchResult
from fathom_ray.web.urls import canonicalize

if TYPE_CHECKING:  # the ports import the judges' answers and numpy: not for a light process
    from fathom_ray.ports import Searcher

logger = logging.getLogger(__name__)


async def search_all(searcher: Searcher, queries: Sequence[str], limit: int) -> list[SearchResult]:
    """Results of every query, run in parallel, one per canonical URL (its best rank kept).

    A query that fails is logged and skipped; when every query fails the first
    ``SearchError`` is raised, so an unreachable engine is never an empty success.
    """
    found = await search_each(lambda query: searcher.search(query, limit), queries)
    return merge(list(found.values()))


async def search_each(
    search: Callable[[str], Awaitable[list[SearchResult]]], queries: Sequence[str]
) -> dict[str, list[SearchResult]]:
    """Each query's own results, the queries run in parallel. A query that fails with a
    ``SearchError`` is logged and left out; when every query fails the first one is raised; any
    other error is raised as it is."""
    if not queries:
        return {}
    outcomes = await asyncio.gather(*(search(q) for q in queries), return_exceptions=True)
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    for error in errors:
        if not isinstance(error, SearchError):
            raise error
        logger.warning("search failed: %s", error)
    if len(errors) == len(outcomes):
        raise errors[0]
    return {q: o for q, o in zip(queries, outcomes, strict=True) if not isinstance(o, BaseException)}


def merge(result_lists: Sequence[Sequence[SearchResult]]) -> list[SearchResult]:
    """Best rank first (query order breaks ties); URLs canonical; duplicates and bad URLs dropped."""
    ordered = sorted(
        ((result.rank, index, result) for index, results in enumerate(result_lists) for result in results),
        key=lambda item: (item[0], item[1]),
    )
    merged: dict[str, SearchResult] = {}
    for _, _, result in ordered:
        try:
            url = canonicalize(result.url)
        except InvalidURLError:
            continue
        merged.setdefault(url, replace(result, url=url))
    return list(merged.values())
