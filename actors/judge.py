"""JudgeActor: one actor hosts the judge behind every session's judgements.

The judge is whatever ``build_judge`` makes of the settings (the evidence judge,
or the LLM judge over vLLM or an endpoint), behind the one JudgePort. All
sessions call this actor; an LLM engine batches their requests. A bounded
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

from actors.actor_class import actor_class
from actors.metrics import JudgeMetrics
from fathom_ray.adapters.llm_backends import build_judge
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.judges.llm import answers
from fathom_ray.judges.llm.judge import Judge, LLMBackend
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact, Usage
from fathom_ray.ports import Judged, JudgeFailure, JudgeInfo, JudgePort
from fathom_ray.settings import EmbedderSettings, LLMSettings

logger = logging.getLogger(__name__)
A = TypeVar("A", bound=answers.Answer)


class JudgeService:
    """Build with settings; ``start()`` loads the judge (no I/O in ``__init__``).

    ``backend_factory`` puts an LLM judge over the backend it makes (tests pass a scripted one).
    """

    def __init__(
        self,
        settings: LLMSettings,
        backend_factory: Callable[[LLMSettings], LLMBackend] | None = None,
        embedder: EmbedderSettings | None = None,
        shared_embedder: tuple[str, str] | None = None,
    ) -> None:
        self._settings = settings
        self._backend_factory = backend_factory
        self._embedder = embedder
        self._shared_embedder = shared_embedder  # (name, namespace) of the engine's Embedder actor
        self._judge: JudgePort | None = None
        self._info = JudgeInfo(settings.backend, "", "not started")
        self._slots = asyncio.Semaphore(settings.max_queue)
        self._judge_metrics: JudgeMetrics | None = None
        self._in_flight = 0  # admitted calls not yet answered: the batch an LLM engine sees
        self._calls = 0

    def _build(self) -> JudgePort:
        if self._backend_factory is not None:
            return Judge(self._backend_factory(self._settings), self._settings, self._settings.page_chars)
        if self._shared_embedder is not None and self._settings.backend == "evidence":
            # the engine's Embedder actor, not a second copy of the model in this process: one load
            # at start-up (its cache shared with source memory), the same vectors
            from actors.directory import Remote  # noqa: PLC0415 (only the evidence judge uses it)

            name, namespace = self._shared_embedder
            embedder = Remote(ray.get_actor(name, namespace))  # it loads its model at the engine's start
            return EvidenceJudge(embedder, self._settings.evidence_threshold, warm=False)
        return build_judge(self._settings, self._embedder)

    async def start(self) -> JudgeInfo:
        if self._judge is None:
            judge = self._build()
            self._info = await judge.start()
            self._judge = judge
        return self._info

    async def stop(self) -> None:
        if self._judge is not None:
            await self._judge.close()

    def load(self) -> tuple[int, int]:
        """(calls in flight now, calls admitted since start)."""
        return self._in_flight, self._calls

    def usage(self) -> Usage:
        return Usage() if self._judge is None else self._judge.usage

    async def _admitted(self, judgement: str, call: Callable[[JudgePort], Awaitable[Judged[A]]]) -> Judged[A]:
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
        self._in_flight += 1
        self._calls += 1
        self._metrics().in_flight(self._in_flight)
        try:
            judged = await call(self._judge)
        finally:
            self._in_flight -= 1
            self._metrics().in_flight(self._in_flight)
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
        self,
        goal: str,
        open_items: Sequence[ChecklistItem],
        done: Sequence[str],
        count: int,
        facts: Sequence[Fact] = (),
    ) -> Judged[answers.Queries]:
        return await self._admitted(
            "discover_queries", lambda j: j.discover_queries(goal, open_items, done, count, facts)
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

    async def rerank(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.Relevance]:
        return await self._admitted("rerank", lambda j: j.rerank(question, pages))

    async def grade(
        self, question: str, gold: str, aliases: Sequence[str], answer_text: str
    ) -> Judged[answers.Verdict]:
        return await self._admitted("grade", lambda j: j.grade(question, gold, aliases, answer_text))


def judge_actor(settings: LLMSettings, gpu: bool = False, name: str | None = None, **placement: Any) -> Any:
    """The Ray actor class: one GPU when the engine runs on CUDA, no CPU reservation otherwise."""
    return actor_class(JudgeService).options(
        num_cpus=0,
        num_gpus=1 if gpu else 0,
        max_concurrency=settings.max_queue + 16,
        max_restarts=3,
        name=name,
        **placement,
    )
