"""The analyst's and the verifier's work, behind the calls the coordinator makes of them.

In production each runs as an actor of its own, owned by the swarm's coordinator (actors/
swarm_roles.py); in process (tests, or ``Coordinator``'s defaults) these classes run as they are.
Their calls are ports (``AnalystCalls``, ``VerifierCalls``, ``PageCalls`` in fathom_ray/ports.py).

- The analyst merges the researchers' ledgers (``analyst.merge``): facts that two independent
  domains confirm, facts that disagree.
- The verifier checks each fact's evidence against its page as stored and, where it can fetch the
  page again, as served now; it fetches each page once, ``SERVED_AT_ONCE`` at a time, and can start
  on a researcher's pages as soon as that researcher reports (``prefetch``). It fetches a page over
  HTTP first and reads its text as it comes (no extractor: ``receipts.served_in`` looks for the
  quote's characters in order, the extractor's layout aside); only a page whose HTTP text lacks a
  fact's quote (its content comes from a script, or the quote is gone) is fetched again in the
  browser and extracted, and that text decides. The stored look is instant (``check_stored``); the
  served look (``check_served``) may run on while the swarm's next round does.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fathom_ray.models import Fact
from fathom_ray.swarm.analyst import MergedFact, merge
from fathom_ray.swarm.receipts import CheckKind, Receipt, check, served_in

if TYPE_CHECKING:  # the ports module imports the judges' answers and numpy: not for the roles' processes
    from fathom_ray.ports import PageCalls

SERVED_AT_ONCE = 4  # the verifier's fetches of pages as served now, in flight together


class Analyst:
    async def merge(self, ledgers: Sequence[tuple[str, Sequence[Fact]]]) -> list[MergedFact]:
        return merge(ledgers)


class Verifier:
    """``pages``: how to fetch a page as served now; None checks against the stored pages only."""

    def __init__(self, pages: PageCalls | None) -> None:
        self._pages = pages
        self._served: dict[str, str | None] = {}  # pages as served now, each fetched once (HTTP)
        self._rendered: dict[str, str | None] = {}  # pages whose HTTP text failed a quote: the browser's
        self._fetching: dict[str, asyncio.Future[None]] = {}  # pages being fetched now
        self._gate = asyncio.Semaphore(SERVED_AT_ONCE)

    async def prefetch(self, urls: Sequence[str]) -> None:
        """Fetch the pages as served now, over HTTP (those not fetched yet, nor being fetched)."""
        pages = self._pages
        if pages is None:
            return

        async def one(url: str) -> None:
            async with self._gate:
                self._served[url] = await pages.page_text(url, rendered=False)

        wanted = sorted(set(urls) - self._served.keys() - self._fetching.keys())
        for url in wanted:
            self._fetching[url] = asyncio.ensure_future(one(url))
        waits = [self._fetching[url] for url in dict.fromkeys(urls) if url in self._fetching]
        try:
            await asyncio.gather(*waits)
        finally:
            for url in wanted:
                self._fetching.pop(url, None)

    async def _render(self, facts: Sequence[Fact]) -> None:
        """The pages of ``facts`` whose quote their HTTP text lacks, fetched in the browser (once)."""
        pages = self._pages
        if pages is None:
            return
        wanted = sorted(
            {
                f.source_url
                for f in facts
                if f.source_url not in self._rendered
                and not served_in(f.evidence, self._served.get(f.source_url) or "")
            }
        )

        async def one(url: str) -> None:
            async with self._gate:
                self._rendered[url] = await pages.page_text(url, rendered=True)

        await asyncio.gather(*(one(url) for url in wanted))

    def _served_text(self, url: str) -> str | None:
        return self._rendered[url] if url in self._rendered else self._served.get(url)

    async def check_stored(self, facts: Sequence[Fact], stored: Mapping[str, str]) -> list[Receipt]:
        """A receipt per fact against its page as the researcher stored it (no fetch: at once)."""
        return [check(fact, CheckKind.STORED, stored.get(fact.source_url), time.time()) for fact in facts]

    async def check_served(self, facts: Sequence[Fact]) -> list[Receipt]:
        """A receipt per fact against its page as served now (none without ``pages``): the pages
        fetched once, over HTTP, then in the browser where the HTTP text lacks a quote."""
        if self._pages is None:
            return []
        await self.prefetch([f.source_url for f in facts])
        await self._render(facts)
        return [check(f, CheckKind.SERVED, self._served_text(f.source_url), time.time()) for f in facts]
