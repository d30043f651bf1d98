"""Open tabs kept for the next page.

A new tab costs Chromium a renderer process; a tab that navigates on keeps its renderer for
pages of the same site (about half the browser's CPU per page on the offline web, measured by
``scripts/bench_tabs.py``). A tab goes back for reuse only after a page that loaded well, and
serves at most ``uses`` pages: a page that failed, hung or timed out takes its tab with it.
"""

from __future__ import annotations

import contextlib
from urllib.parse import urldefrag

from playwright.async_api import BrowserContext, Error, Page


class Tabs:
    def __init__(self, uses: int) -> None:
        """``uses``: pages one tab serves before it is closed (1: a fresh tab for every page)."""
        self._uses = uses
        self._idle: list[Page] = []
        self._served: dict[Page, int] = {}
        self.opened = 0
        self.in_use = 0  # tabs showing a page now
        self.peak_in_use = 0  # the most at once: how many pages loaded side by side

    async def take(self, context: BrowserContext, url: str) -> Page:
        """An idle tab of ``context`` (not one showing ``url`` now: it would only scroll), or a new one."""
        self.in_use += 1  # counted from the moment it is asked for
        self.peak_in_use = max(self.peak_in_use, self.in_use)
        try:
            return await self._idle_or_new(context, url)
        except BaseException:
            self.in_use -= 1
            raise

    async def _idle_or_new(self, context: BrowserContext, url: str) -> Page:
        while self._idle:
            page = self._idle.pop()
            if (
                page.context is context
                and not page.is_closed()
                and urldefrag(page.url)[0] != urldefrag(url)[0]
            ):
                return page
            await self._close(page)
        page = await context.new_page()
        self._served[page] = 0
        self.opened += 1
        return page

    async def give_back(self, page: Page, *, reusable: bool) -> None:
        """Keep ``page`` for the next fetch when ``reusable`` and it has uses left; else close it."""
        self.in_use -= 1
        self._served[page] = self._served.get(page, 0) + 1
        if reusable and self._served[page] < self._uses and not page.is_closed():
            self._idle.append(page)
        else:
            await self._close(page)

    async def close_all(self) -> None:
        while self._idle:
            await self._close(self._idle.pop())
        self._served.clear()

    async def _close(self, page: Page) -> None:
        self._served.pop(page, None)
        with contextlib.suppress(Error):
            await page.close()
