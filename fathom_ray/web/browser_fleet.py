"""Fetches spread over the browser pools, one per browser node of a cluster (one on a laptop).

Each call goes to the working pool with the fewest of this fleet's calls in flight, the ties
taken in turn. A pool that is lost (its actor died with its node or its Chromium) is passed over
while another pool works, and the call is made again on the next one: the page was never
handed back, so it was never fetched. When every pool is lost the call is a failure value, as
one pool's loss always was.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from fathom_ray.models import FetchResult, FetchStatus, Preview

if TYPE_CHECKING:  # the ports module imports the judges' answers and numpy: not for a light process
    from fathom_ray.ports import Browser

T = TypeVar("T")


class PoolLost(Exception):  # noqa: N818 (a state, like ConnectionError's kin)
    """A browser pool that did not answer: its actor is gone or restarting."""


class BrowserFleet:
    """The session's browser, a ``Browser`` of Browsers: ``fetch``, ``preview`` and ``crawl_delay``
    over ``pools`` (each raising ``PoolLost`` when it cannot answer)."""

    def __init__(self, pools: Sequence[Browser], start: int = 0) -> None:
        """``start``: the pool the first call goes to (sessions start apart, so their calls spread)."""
        if not pools:
            raise ValueError("a browser fleet needs at least one pool")
        self._pools = tuple(pools)
        self._in_flight = [0] * len(pools)
        self._lost: set[int] = set()
        self._turn = start % len(pools)
        self.calls = [0] * len(pools)  # answered calls per pool

    async def fetch(self, url: str) -> FetchResult:
        def lost(error: str) -> FetchResult:
            return FetchResult(url, FetchStatus.BROWSER_CRASHED, error=f"browser pool lost: {error}")

        return await self._call(lambda pool: pool.fetch(url), lost)

    async def preview(self, url: str) -> Preview:
        def lost(error: str) -> Preview:
            return Preview(url, FetchStatus.BROWSER_CRASHED, error=f"browser pool lost: {error}")

        return await self._call(lambda pool: pool.preview(url), lost)

    async def crawl_delay(self, url: str) -> float | None:
        return await self._call(lambda pool: pool.crawl_delay(url), lambda _: None)

    def order(self) -> list[int]:
        """The pools to try, in order: working ones by calls in flight (ties from the turn), then lost."""
        n = len(self._pools)
        turn = [(self._turn + k) % n for k in range(n)]
        working = sorted((i for i in turn if i not in self._lost), key=lambda i: self._in_flight[i])
        return working + [i for i in turn if i in self._lost]

    async def _call(self, call: Callable[[Browser], Awaitable[T]], lost: Callable[[str], T]) -> T:
        order = self.order()
        self._turn = (order[0] + 1) % len(self._pools)
        error = ""
        for i in order:
            self._in_flight[i] += 1
            try:
                answer = await call(self._pools[i])
            except PoolLost as e:
                self._lost.add(i)
                error = str(e)
                continue
            finally:
                self._in_flight[i] -= 1
            self._lost.discard(i)
            self.calls[i] += 1
            return answer
        return lost(error)
