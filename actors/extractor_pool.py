"""ExtractorPoolActor: main-text extraction in a worker process it can kill.

trafilatura runs first with a time limit; when it runs out the worker is
replaced and the linear-time selectolax path runs instead, also bounded. A
page that beats both comes back empty with ``method="timeout"``, never hung.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from actors.actor_class import actor_class
from fathom_ray.models import ExtractedPage, FetchResult
from fathom_ray.web.extraction import extract_main_text, extract_pdf, extract_visible_text
from fathom_ray.web.security import content_kind

logger = logging.getLogger(__name__)
WARM_PAGE = (
    "<!doctype html><html><head><title>Warm-up</title></head><body><h1>Warm-up</h1>"
    + "<p>A paragraph that the extractor's worker reads once, before the first real page.</p>" * 8
    + "</body></html>"
)


class ExtractorPool:
    """Extraction with time bounds; ``workers`` processes, replaced when one overruns."""

    def __init__(self, timeout_s: float = 10.0, workers: int = 1) -> None:
        self._timeout_s = timeout_s
        self._workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self.restarts = 0

    def start(self) -> None:
        """Start the worker processes; each loads trafilatura and extracts a small page in the
        background (half a second of a first page's extraction otherwise), so ``start`` returns at once."""
        if self._executor is None:
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(self._workers, mp_context=context)
            for _ in range(self._workers):
                self._executor.submit(extract_main_text, WARM_PAGE, "http://warm-up.invalid/")

    def stop(self) -> None:
        if self._executor is not None:
            _kill(self._executor)
            self._executor = None

    async def extract(self, result: FetchResult) -> ExtractedPage:
        """The page of a successful fetch: HTML and text through trafilatura/selectolax, PDF through pypdf."""
        url = result.final_url or result.url
        if content_kind(result.content_type) == "pdf":
            page = await self._bounded(extract_pdf, result.data, url)
            return page or ExtractedPage(url, "", "", method="timeout")
        page = await self._bounded(extract_main_text, result.body, url)
        if page is None:
            logger.warning("trafilatura overran %.0f s on %s", self._timeout_s, url, extra={"url": url})
            page = await self._bounded(extract_visible_text, result.body, url)
        return page or ExtractedPage(url, "", "", method="timeout")

    async def _bounded(self, function: Callable[..., ExtractedPage], *args: Any) -> ExtractedPage | None:
        self.start()
        assert self._executor is not None
        future = asyncio.get_running_loop().run_in_executor(self._executor, function, *args)
        try:
            return await asyncio.wait_for(future, self._timeout_s)
        except (TimeoutError, BrokenProcessPool):
            self._replace_workers()
            return None

    def _replace_workers(self) -> None:
        self.restarts += 1
        self.stop()
        self.start()


def _kill(executor: ProcessPoolExecutor) -> None:
    for process in list(getattr(executor, "_processes", {}).values()):
        process.kill()
    executor.shutdown(wait=False, cancel_futures=True)


def extractor_pool_actor(num_cpus: float = 0, name: str | None = None, **placement: Any) -> Any:
    """The Ray actor class; CPU-bound work runs in its own worker process."""
    return actor_class(ExtractorPool).options(num_cpus=num_cpus, max_restarts=3, name=name, **placement)
