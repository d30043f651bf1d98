"""JudgeActor: the LLM engine behind every session's judgements.

All sessions call one actor; its engine batches their requests. A bounded
number of calls are admitted at once (``max_queue``); a caller that cannot get
a slot within ``queue_wait_s`` gets an ``overloaded`` failure value, so back-
pressure reaches the sessions instead of an unbounded queue.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import ray

from actors.metrics import JudgeMetrics
from fathom_ray.adapters.llm_backends import build_backend
from fathom_ray.adapters.vllm_engine import VllmBackend
from fathom_ray.llm import answers
from fathom_ray.llm.judge import Judge, Judged, JudgeFailure, LLMBackend
from fathom_ray.llm.models import PLUMBING_WARNING
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact, Usage
from fathom_ray.settings import LLMSettings

logger = logging.getLogger(__name__)
A = TypeVar("A", bound=answers.Answer)


class JudgeService:
    """Build with settings; ``start()`` loads the engine (no I/O in ``__init__``)."""

    def __init__(
        self, settings: LLMSettings, backend_factory: Callable[[LLMSettings], LLMBackend] = build_backend
    ) -> None:
        self._settings = settings
        self._backend_factory = backend_factory
        self._judge: Judge | None = None
        self._backend: Any = None
        self._slots = asyncio.Semaphore(settings.max_queue)
        self._judge_metrics: JudgeMetrics | None = None

    async def start(self) -> dict[str, str]:
        if self._judge is None:
            self._backend = self._backend_factory(self._settings)
            if isinstance(self._backend, VllmBackend):
                await self._backend.start()
            self._judge = Judge(self._backend, self._settings, self._settings.page_chars)
        return self.info()

    def info(self) -> dict[str, str]:
        plumbing = self._settings.backend == "vllm" and self._settings.model is None
        return {
            "backend": self._settings.backend,
            "model": getattr(self._backend, "model", ""),
            "note": PLUMBING_WARNING if plumbing else "",
        }

    def stop(self) -> None:
        if isinstance(self._backend, VllmBackend):
            self._backend.shutdown()

    def usage(self) -> Usage:
        return Usage() if self._judge is None else self._judge.usage

    async def _admitted(self, judgement: str, call: Callable[[Judge], Awaitable[Judged[A]]]) -> Judged[A]:
        await self.start()
        assert self._judge is not None
        try:
            async with asyncio.timeout(self._settings.queue_wait_s):
                await self._slots.acquire()
        except TimeoutError:
            detail = (
                f"more than {self._settings.max_queue} calls in flight for {self._settings.queue_wait_s:g} s"
            )
            return Judged(judgement, None, JudgeFailure("overloaded", detail, 0))
        try:
            judged = await call(self._judge)
        finally:
            self._slots.release()
        self._metrics().judged(judged)
        return judged

    def _metrics(self) -> JudgeMetrics:
        if self._judge_metrics is None:
            self._judge_metrics = JudgeMetrics()
        return self._judge_metrics

    async def decompose(self, goal: str, count: int) -> Judged[answers.Checklist]:
        return await self._admitted("decompose", lambda j: j.decompose(goal, count))

    async def analyse_page(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact], page: ExtractedPage
    ) -> Judged[answers.PageAnalysis]:
        return await self._admitted("analyse_page", lambda j: j.analyse_page(goal, checklist, facts, page))

    async def discover_queries(
        self, goal: str, open_items: Sequence[ChecklistItem], done_queries: Sequence[str], count: int
    ) -> Judged[answers.Queries]:
        return await self._admitted(
            "discover_queries", lambda j: j.discover_queries(goal, open_items, done_queries, count)
        )

    async def judge_completeness(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Completeness]:
        return await self._admitted("completeness", lambda j: j.judge_completeness(goal, checklist, facts))

    async def compose(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Report]:
        return await self._admitted("compose", lambda j: j.compose(goal, checklist, facts))

    async def answer(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.SinglePassAnswer]:
        return await self._admitted("answer", lambda j: j.answer(question, pages))

    async def grade(
        self, question: str, gold: str, aliases: Sequence[str], answer_text: str
    ) -> Judged[answers.Verdict]:
        return await self._admitted("grade", lambda j: j.grade(question, gold, aliases, answer_text))


def judge_actor(settings: LLMSettings, gpu: bool = False, name: str | None = None) -> Any:
    """The Ray actor class: one GPU when the engine runs on CUDA, no CPU reservation otherwise."""
    return ray.remote(JudgeService).options(
        num_cpus=0,
        num_gpus=1 if gpu else 0,
        max_concurrency=settings.max_queue + 16,
        max_restarts=3,
        name=name,
    )
