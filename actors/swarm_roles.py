"""The swarm's analyst and verifier as actors of their own, owned by its coordinator (so they end
with it), named after the swarm (``w-...-analyst``, ``w-...-verifier``) so the dashboard shows the
task tree. Their work is ``fathom_ray.swarm.roles``; a call is made again after a restart (both
are idempotent: a merge, a check against pages fetched once more)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ray.exceptions import RayError

from actors.actor_class import actor_class
from actors.directory import ActorDirectory, Remote
from fathom_ray.models import Fact, FetchResult
from fathom_ray.swarm.analyst import MergedFact, merge
from fathom_ray.web.browser_fleet import BrowserFleet
from fathom_ray.web.extraction import served_text
from fathom_ray.web.security import content_kind

if TYPE_CHECKING:  # the verifier's work imports the fact ledger and the judges' answers: in its process only
    from fathom_ray.swarm.receipts import Receipt
    from fathom_ray.swarm.roles import Verifier


class ServedPages:
    """The verifier's second look: the page as its site serves it now, over HTTP through the first
    browser pool (its egress rules and robots.txt), its text read here as it comes (no extractor:
    a quote is looked for, not a page's main text); or rendered by the fleet and extracted as the
    researchers' pages were."""

    def __init__(self, browser: BrowserFleet, pool: Any, extractor: Any) -> None:
        self._browser, self._pool, self._extractor = browser, pool, Remote(extractor)

    async def page_text(self, url: str, *, rendered: bool = True) -> str | None:
        result: FetchResult
        if rendered:
            result = await self._browser.fetch(url)
        else:
            try:
                result = await self._pool.fetch_plain.remote(url)
            except RayError:
                return None  # the pool is gone: the rendered look decides
        if not result.ok:
            return None
        if not rendered and content_kind(result.content_type) == "html":
            return served_text(result.body)
        page = await self._extractor.extract(result)
        return str(page.text)


class AnalystService:
    """The analyst's merge (``fathom_ray.swarm.roles.Analyst``); its process imports nothing more."""

    async def merge(self, ledgers: Sequence[tuple[str, Sequence[Fact]]]) -> list[MergedFact]:
        return merge(ledgers)


class VerifierService:
    """No I/O in ``__init__``: the engine's browser pools and extractor are looked up on first use."""

    def __init__(self, parts: ActorDirectory) -> None:
        self._parts = parts
        self._verifier: Verifier | None = None

    def _ready(self) -> Verifier:
        if self._verifier is None:
            from fathom_ray.swarm.roles import Verifier  # noqa: PLC0415 (the verifier's process only)

            handles = self._parts.resolve()
            self._verifier = Verifier(ServedPages(self._parts.browsers(), handles.browser, handles.extractor))
        return self._verifier

    async def prefetch(self, urls: Sequence[str]) -> None:
        await self._ready().prefetch(urls)

    async def check_stored(self, facts: Sequence[Fact], stored: Mapping[str, str]) -> list[Receipt]:
        return await self._ready().check_stored(facts, stored)

    async def check_served(self, facts: Sequence[Fact]) -> list[Receipt]:
        return await self._ready().check_served(facts)


def role_actors(swarm_id: str, parts: ActorDirectory) -> tuple[Any, Any]:
    """The swarm's analyst and verifier actors (I/O-bound: no CPU asked), owned by the caller."""
    options = {"num_cpus": 0, "max_restarts": 1, "max_task_retries": -1}
    analyst = actor_class(AnalystService).options(name=f"{swarm_id}-analyst", **options).remote()
    verifier = actor_class(VerifierService).options(name=f"{swarm_id}-verifier", **options).remote(parts)
    return analyst, verifier
