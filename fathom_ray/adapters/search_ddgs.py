"""DuckDuckGo and the other engines ddgs aggregates, with back-off on rate limits."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ddgs import DDGS
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

from fathom_ray.errors import SearchError
from fathom_ray.models import SearchResult
from fathom_ray.settings import SearchSettings

logger = logging.getLogger(__name__)
NO_RESULTS = "no results found"


class DdgsSearcher:
    name = "ddgs"

    def __init__(self, settings: SearchSettings, attempts: int = 3, backoff_s: float = 2.0) -> None:
        self._settings = settings
        self._attempts = attempts
        self._backoff_s = backoff_s

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        for attempt in range(self._attempts):
            try:
                rows = await asyncio.to_thread(self._text, query, limit)
            except (RatelimitException, TimeoutException) as e:
                delay = self._backoff_s * 2**attempt
                logger.info("ddgs %s on %r; retrying in %.0f s", type(e).__name__, query, delay)
                await asyncio.sleep(delay)
                continue
            except DDGSException as e:
                if NO_RESULTS in str(e).lower():
                    return []
                raise SearchError(self.name, f"cannot search for {query!r}: {e}") from e
            return [
                SearchResult(
                    title=str(row.get("title", "")),
                    url=str(row.get("href", "")),
                    snippet=str(row.get("body", "")),
                    rank=rank,
                    backend=self.name,
                    query=query,
                )
                for rank, row in enumerate(rows, start=1)
                if row.get("href")
            ]
        raise SearchError(self.name, f"still rate limited after {self._attempts} attempts for {query!r}")

    def _text(self, query: str, limit: int) -> list[dict[str, Any]]:
        settings = self._settings
        return DDGS(timeout=10).text(
            query,
            region=settings.region,
            safesearch=settings.safesearch,
            timelimit=settings.timelimit,
            max_results=limit,
        )
