"""Picking the search backend the settings name."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

from fathom_ray.adapters.http_client import SafeHttpClient
from fathom_ray.adapters.resolver import MappedResolver
from fathom_ray.adapters.search_ddgs import DdgsSearcher
from fathom_ray.adapters.search_local import LocalSearcher
from fathom_ray.adapters.search_searxng import SearxngSearcher
from fathom_ray.errors import ConfigError
from fathom_ray.ports import Searcher
from fathom_ray.settings import Settings
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.security import UrlPolicy


def local_index_path(settings: Settings) -> Path:
    """Where ``fathom index`` writes and the local backend reads, unless settings say otherwise."""
    return settings.search.local_index or settings.data_dir / "index"


@asynccontextmanager
async def open_searcher(settings: Settings, network: NetworkMap) -> AsyncIterator[Searcher]:
    """The configured backend, with whatever client it holds closed on exit."""
    backend = settings.search.backend
    if backend == "ddgs":
        yield DdgsSearcher(settings.search)
    elif backend == "local":
        yield LocalSearcher(local_index_path(settings))
    else:
        url = settings.search.searxng_url
        if not url:
            raise ConfigError("the searxng backend needs FATHOM_SEARCH__SEARXNG_URL")
        # The operator named this instance, so its host is trusted even on a private address.
        policy = UrlPolicy.allowing((urlsplit(url).hostname or "", *network.allowed_hosts))
        async with SafeHttpClient(settings.fetch, policy, network, MappedResolver(network)) as http:
            yield SearxngSearcher(url, http)
