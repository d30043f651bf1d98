"""The local backend: a BM25 index built by ``fathom index``, searched in process."""

from __future__ import annotations

from pathlib import Path

from fathom_ray.bm25 import Bm25Index
from fathom_ray.errors import SearchError
from fathom_ray.models import SearchResult


class LocalSearcher:
    name = "local"

    def __init__(self, index_path: Path) -> None:
        self._path = index_path
        self._index: Bm25Index | None = None

    def _loaded(self) -> Bm25Index:
        if self._index is None:
            if not self._path.is_file():
                raise SearchError(self.name, f"no index at {self._path}; build one with `fathom index PATH`")
            try:
                self._index = Bm25Index.load(self._path)
            except ValueError as e:
                raise SearchError(self.name, str(e)) from e
        return self._index

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        return [
            SearchResult(hit.title, hit.url, hit.snippet, rank, self.name, query)
            for rank, hit in enumerate(self._loaded().search(query, limit), start=1)
        ]
