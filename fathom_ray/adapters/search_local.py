"""The local backend: a tantivy index built by ``fathom index``, searched in process."""

from __future__ import annotations

from pathlib import Path

from fathom_ray.errors import SearchError
from fathom_ray.models import SearchResult
from fathom_ray.text.text_index import TextIndex


class LocalSearcher:
    name = "local"

    def __init__(self, index_path: Path) -> None:
        self._path = index_path
        self._index: TextIndex | None = None

    def _loaded(self) -> TextIndex:
        if self._index is None:
            if not self._path.exists():
                raise SearchError(self.name, f"no index at {self._path}; build one with `fathom index PATH`")
            try:
                self._index = TextIndex.open(self._path)
            except ValueError as e:
                raise SearchError(self.name, str(e)) from e
        return self._index

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        return [
            SearchResult(hit.title, hit.url, hit.snippet, rank, self.name, query)
            for rank, hit in enumerate(self._loaded().search(query, limit), start=1)
        ]
