"""The ports: what the core needs from the outside world, as Protocols.

Adapters in ``fathom_ray/adapters/`` implement them with one technology
each; tests use fakes from ``tests/``.
"""

from __future__ import annotations

from typing import Protocol

from fathom_ray.models import ExtractedPage, FetchResult, Preview, SearchResult


class Resolver(Protocol):
    async def resolve(self, host: str) -> list[str]:
        """The IP addresses of ``host``; empty when it does not resolve."""
        ...


class Searcher(Protocol):
    name: str

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        """Ranked results, best first; ``SearchError`` when the backend cannot answer."""
        ...


class Fetcher(Protocol):
    async def fetch(self, url: str) -> FetchResult:
        """The page at ``url``; a failure is a ``FetchResult`` value, never an exception."""
        ...


class Previewer(Protocol):
    async def preview(self, url: str) -> Preview:
        """The head of the page at ``url``, read cheaply; failures are values."""
        ...


class Extractor(Protocol):
    def extract(self, html: str, url: str) -> ExtractedPage: ...
