"""The offline web at research scale: every site serves its pages, and search.test finds pages of each."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx
import pytest

from fathom_ray.testweb.index import cache_key, installed_versions
from fathom_ray.testweb.sites import SITES

if TYPE_CHECKING:
    from fathom_ray.testweb.server import TestWeb

pytestmark = pytest.mark.integration


def _get(web: TestWeb, url: str) -> httpx.Response:
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    return httpx.get(f"http://127.0.0.1:{web.port}{path}", headers={"Host": parts.hostname or ""}, timeout=30)


def test_sixteen_sites_each_on_its_own_host() -> None:
    assert len(SITES) == 16
    assert len({site.host for site in SITES}) == 16
    assert all(site.root.is_dir() for site in SITES), [s.package for s in SITES if not s.root.is_dir()]


@pytest.mark.parametrize("site", SITES, ids=[s.host for s in SITES])
def test_search_finds_pages_of_every_site(testweb: TestWeb, site: object) -> None:
    from fathom_ray.web.local_index import document_for, read_html  # noqa: PLC0415

    host = site.host  # type: ignore[attr-defined]
    pages = [(url, file) for url, file in site.pages() if "genindex" not in url]  # type: ignore[attr-defined]
    url, file = pages[len(pages) // 2]
    title = document_for(url, read_html(file)).title
    answer = _get(testweb, f"http://search.test/api?q={httpx.QueryParams({'q': title})['q']}&n=20")
    assert answer.status_code == 200
    hosts = {urlsplit(r["url"]).hostname for r in answer.json()["results"]}
    assert host in hosts, (title, hosts)
    assert _get(testweb, url).status_code == 200


def test_names_with_spaces_and_folders_named_like_pages_are_served(testweb: TestWeb) -> None:
    spaced = _get(testweb, "http://cmake.test/cmake/help/v3.25/generator/Ninja%20Multi-Config.html")
    assert spaced.status_code == 200
    assert "Ninja Multi-Config" in spaced.text
    folder = _get(testweb, "http://policy.debian.test/policy.html/")
    assert folder.status_code == 200
    assert "Debian Policy Manual" in folder.text
    chapter = _get(testweb, "http://policy.debian.test/policy.html/ch-source.html")
    assert chapter.status_code == 200


def test_the_three_first_hosts_keep_their_urls(testweb: TestWeb) -> None:
    for url in (
        "http://docs.python.test/3.11/whatsnew/3.8.html",
        "http://www.postgresql.test/docs/15/dml-returning.html",
        "http://www.sqlite.test/lang_returning.html",
    ):
        assert _get(testweb, url).status_code == 200, url


def test_the_index_is_keyed_by_the_packages_versions() -> None:
    versions = installed_versions()
    assert all(site.package in versions for site in SITES)
    key = cache_key(SITES, versions)
    assert key == cache_key(SITES, dict(versions))
    bumped = {**versions, "cmake-doc": versions["cmake-doc"] + "+1"}
    assert cache_key(SITES, bumped) != key
    assert cache_key(SITES[:3], versions) != key
