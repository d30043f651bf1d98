"""Where a session's shared actors are, and calling them: light to import.

Every actor process that talks to the engine's parts imports this module (the swarm's analyst and
verifier, the document store, the judge), so it imports no research loop, store or search client.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import ray
from ray.exceptions import RayError

from fathom_ray.web.browser_fleet import BrowserFleet, PoolLost
from fathom_ray.web.search import search_all

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fathom_ray.models import FetchResult, Preview, SearchResult
    from fathom_ray.ports import Searcher


@dataclass(frozen=True, slots=True)
class Handles:
    """The shared actors a session talks to."""

    browser: Any
    extractor: Any
    judge: Any
    embedder: Any
    memory: Any
    frontier: Any
    documents: Any  # None in an engine started without it (``OPTIONAL_PARTS``)
    ledger: Any  # the swarms' task ledgers; None in an engine started without it


# browser, extractor, judge, embedder, memory, frontier, documents, ledger
ENGINE_PARTS = tuple(f.name for f in fields(Handles))
# what a command's own engine may start without: the user's documents, the swarms' task ledgers
OPTIONAL_PARTS = frozenset({"documents", "ledger"})


@dataclass(frozen=True, slots=True)
class ActorDirectory:
    """Where the shared actors are: ``prefix`` + part in a Ray namespace, unless ``overrides`` names one.

    Names, not handles, are what a Session actor is created with: an actor created with
    handles among its arguments cannot count on restarting (Ray keeps such arguments in the
    object store without lineage, ray issue 53727), and restarting is how a session resumes.
    """

    namespace: str
    prefix: str
    overrides: tuple[tuple[str, str], ...] = ()
    browser_pools: int = 1  # one per browser node: ``browser``, ``browser-2``, ...
    absent: frozenset[str] = frozenset()  # optional parts this engine did not start

    def name(self, part: str) -> str:
        return dict(self.overrides).get(part, f"{self.prefix}{part}")

    def browser_names(self) -> list[str]:
        return [self.name("browser"), *(self.name(f"browser-{i}") for i in range(2, self.browser_pools + 1))]

    def resolve(self) -> Handles:
        """The shared actors (``browser``: the first pool; ``browsers`` finds them all)."""
        return Handles(
            **{
                part: None if part in self.absent else ray.get_actor(self.name(part), self.namespace)
                for part in ENGINE_PARTS
            }
        )

    def browsers(self, start: int = 0) -> BrowserFleet:
        """Every browser pool as one browser: the calls spread over them (``web.browser_fleet``)."""
        pools = [_Pool(ray.get_actor(name, self.namespace)) for name in self.browser_names()]
        return BrowserFleet(pools, start)


class Remote:
    """Calls an actor's methods as coroutines: ``await proxy.method(...)``."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._handle, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await method.remote(*args, **kwargs)

        return call


class _Pool:
    """One browser pool actor; a Ray error is ``PoolLost``, for the fleet to pass the call on."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    async def _call(self, method: str, url: str) -> Any:
        try:
            return await getattr(self._handle, method).remote(url)
        except RayError as e:
            raise PoolLost(type(e).__name__) from e

    async def fetch(self, url: str) -> FetchResult:
        return await self._call("fetch", url)  # type: ignore[no-any-return]

    async def preview(self, url: str) -> Preview:
        return await self._call("preview", url)  # type: ignore[no-any-return]

    async def crawl_delay(self, url: str) -> float | None:
        return await self._call("crawl_delay", url)  # type: ignore[no-any-return]


class RemoteJudge(Remote):
    """The judge actor's calls; a lost judge is a failure value for the call, never an exception."""

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._handle, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return await method.remote(*args, **kwargs)
            except RayError as e:
                from fathom_ray.ports import Judged, JudgeFailure  # noqa: PLC0415 (heavy; on failure only)

                return Judged(name, None, JudgeFailure("backend_error", f"judge lost: {type(e).__name__}", 1))

        return call


class WebSearch:
    """A searcher as the loops' ``SearchCalls``: several queries, their results merged."""

    def __init__(self, searcher: Searcher) -> None:
        self._searcher = searcher

    async def search(self, queries: Sequence[str], limit: int) -> list[SearchResult]:
        return await search_all(self._searcher, queries, limit)
