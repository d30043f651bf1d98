"""Any SearXNG instance through its JSON API (``/search?q=...&format=json``)."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from fathom_ray.adapters.http_client import SafeHttpClient
from fathom_ray.errors import SearchError
from fathom_ray.models import SearchResult


class SearxngSearcher:
    name = "searxng"

    def __init__(self, base_url: str, http: SafeHttpClient, safesearch: int = 1) -> None:
        self._base_url = base_url.rstrip("/")
        self._http = http
        self._safesearch = safesearch

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        params = urlencode({"q": query, "format": "json", "safesearch": self._safesearch})
        result = await self._http.fetch_json(f"{self._base_url}/search?{params}")
        if not result.ok:
            raise SearchError(self.name, f"{self._base_url} answered {result.status.value}: {result.error}")
        try:
            payload = json.loads(result.body)
            rows = payload["results"]
        except (ValueError, KeyError, TypeError) as e:
            raise SearchError(self.name, f"{self._base_url} sent no SearXNG results: {e}") from e
        return [
            SearchResult(
                title=str(row.get("title", "")),
                url=str(row["url"]),
                snippet=str(row.get("content", "")),
                rank=rank,
                backend=self.name,
                query=query,
            )
            for rank, row in enumerate(rows[:limit], start=1)
            if isinstance(row, dict) and row.get("url")
        ]
