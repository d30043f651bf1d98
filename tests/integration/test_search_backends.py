"""The three search backends as real components: SearXNG's API on search.test, the local index, ddgs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fathom_ray.adapters.search_backends import open_searcher
from fathom_ray.cli.web import build_index
from fathom_ray.errors import SearchError
from fathom_ray.models import SearchResult
from fathom_ray.settings import Settings, load_settings
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.search import search_all

pytestmark = pytest.mark.integration


def run(settings: Settings, network: NetworkMap, queries: list[str], limit: int = 5) -> list[SearchResult]:
    async def go() -> list[SearchResult]:
        async with open_searcher(settings, network) as searcher:
            return await search_all(searcher, queries, limit)

    return asyncio.run(go())


def test_searxng_api_of_the_offline_search_engine(offline_network: NetworkMap) -> None:
    settings = load_settings(search={"backend": "searxng", "searxng_url": "http://search.test"})
    results = run(settings, offline_network, ["write-ahead logging", "python sqlite3 module"], limit=10)
    urls = [r.url for r in results]
    assert "http://www.sqlite.test/wal.html" in urls
    assert "http://docs.python.test/3.11/library/sqlite3.html" in urls
    assert len(urls) == len(set(urls))
    assert all(r.backend == "searxng" and r.rank >= 1 and r.title for r in results)


def test_searxng_that_cannot_be_reached_is_an_error() -> None:
    settings = load_settings(search={"backend": "searxng", "searxng_url": "http://127.0.0.1:9"})
    with pytest.raises(SearchError, match="searxng"):
        run(settings, NetworkMap(), ["anything"])


def test_local_index(tmp_path: Path) -> None:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "a.html").write_text("<title>Alpha</title><p>The frobnicator needs oiling.</p>")
    (folder / "b.html").write_text("<title>Beta</title><p>Nothing to see.</p>")
    (folder / "Ninja Multi-Config.html").write_text("<title>Gamma</title><p>Several configurations.</p>")
    settings = load_settings(data_dir=tmp_path, search={"backend": "local"})
    report = build_index(
        settings,
        [str(folder)],
        base_url="http://intranet.example/",
        out=tmp_path / "index",
        network=NetworkMap(),
    )
    assert report.documents == 3
    results = run(settings, NetworkMap(), ["frobnicator"])
    assert [r.url for r in results] == ["http://intranet.example/a.html"]
    spaced = run(settings, NetworkMap(), ["configurations"])
    assert [r.url for r in spaced] == ["http://intranet.example/Ninja%20Multi-Config.html"]


def test_an_index_of_the_old_format_asks_for_a_rebuild(tmp_path: Path) -> None:
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "meta.json").write_text("{}")
    settings = load_settings(data_dir=tmp_path, search={"backend": "local"})
    with pytest.raises(SearchError, match="build it again"):
        run(settings, NetworkMap(), ["x"])


def test_local_backend_without_an_index_says_how_to_build_one(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, search={"backend": "local"})
    with pytest.raises(SearchError, match="fathom index"):
        run(settings, NetworkMap(), ["x"])


def test_ddgs_unreachable_is_an_error_not_an_empty_success() -> None:
    """This machine has no internet: the real ddgs client must fail loudly."""
    settings = load_settings(search={"backend": "ddgs"})
    with pytest.raises(SearchError, match="ddgs"):
        run(settings, NetworkMap(), ["python sqlite wal"])
