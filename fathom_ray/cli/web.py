"""What ``fathom index`` and ``fathom search`` do, apart from printing.

It wires adapters together, which is the shell's work, not the core's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from fathom_ray.adapters.http_client import SafeHttpClient
from fathom_ray.adapters.resolver import MappedResolver
from fathom_ray.adapters.search_backends import open_searcher
from fathom_ray.errors import InvalidRequestError
from fathom_ray.models import FetchResult, SearchResult
from fathom_ray.settings import FetchSettings, Settings
from fathom_ray.text.text_index import IndexedDocument, TextIndex
from fathom_ray.web.local_index import document_for, folder_documents
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.search import search_all
from fathom_ray.web.security import UrlPolicy


@dataclass(frozen=True, slots=True)
class IndexReport:
    path: Path
    documents: int
    failed: tuple[tuple[str, str], ...]


def build_index(
    settings: Settings,
    sources: Sequence[str],
    *,
    base_url: str | None,
    out: Path,
    network: NetworkMap,
    allow_hosts: Sequence[str] = (),
    progress: Callable[[str], None] = lambda _: None,
) -> IndexReport:
    """Index folders of HTML (served under ``base_url``), URL list files and URLs into the folder ``out``."""
    documents: list[IndexedDocument] = []
    urls: list[str] = []
    for source in sources:
        path = Path(source)
        if source.startswith(("http://", "https://")):
            urls.append(source)
        elif path.is_dir():
            if not base_url:
                raise InvalidRequestError(
                    "--base-url", f"a folder ({source}) needs the URL it is served under"
                )
            found = list(folder_documents(path, base_url))
            documents += found
            progress(f"read {len(found)} pages from {source}")
        elif path.is_file():
            lines = (line.strip() for line in path.read_text().splitlines())
            urls += [line for line in lines if line and not line.startswith("#")]
        else:
            raise InvalidRequestError("PATH", f"{source} is not a folder, a file of URLs or a URL")
    failed: list[tuple[str, str]] = []
    if urls:
        policy = UrlPolicy.allowing((*settings.fetch.allow_hosts, *allow_hosts, *network.allowed_hosts))
        for result in asyncio.run(_fetch_all(settings.fetch, policy, network, urls)):
            if result.ok and result.body:
                documents.append(document_for(result.final_url or result.url, result.body))
            else:
                failed.append((result.url, f"{result.status.value}: {result.error}"))
        progress(f"fetched {len(urls) - len(failed)} of {len(urls)} URLs")
    if not documents:
        raise InvalidRequestError("PATH", "nothing could be indexed")
    return IndexReport(out, len(TextIndex.build(out, documents)), tuple(failed))


async def _fetch_all(
    settings: FetchSettings, policy: UrlPolicy, network: NetworkMap, urls: Sequence[str]
) -> list[FetchResult]:
    async with SafeHttpClient(settings, policy, network, MappedResolver(network)) as http:
        return await asyncio.gather(*(http.fetch(url) for url in urls))


def run_search(settings: Settings, network: NetworkMap, query: str, limit: int) -> list[SearchResult]:
    async def go() -> list[SearchResult]:
        async with open_searcher(settings, network) as searcher:
            return await search_all(searcher, [query], limit)

    return asyncio.run(go())
