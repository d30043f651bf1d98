"""The Judge: one structured LLM call per judgement, retried when the answer is not valid, accounted.

The backend is a port (``LLMBackend``): the vLLM engine, any OpenAI-compatible
endpoint, or a scripted double in tests. Invalid or truncated JSON, a timeout
or a backend error is an expected outcome: after ``max_retries`` the call
returns a ``JudgeFailure`` value the session records, never an exception.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pydantic import ValidationError

from fathom_ray.errors import JudgeError, JudgeTimeoutError
from fathom_ray.judges.llm import answers, prompts
from fathom_ray.judges.llm.models import PLUMBING_WARNING
from fathom_ray.judges.llm.prompts import Message
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact, Usage
from fathom_ray.ports import Judged, JudgeFailure, JudgeInfo
from fathom_ray.settings import LLMSettings, Price

logger = logging.getLogger(__name__)
A = TypeVar("A", bound=answers.Answer)


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    messages: tuple[Message, ...]
    schema: dict[str, Any]
    max_tokens: int
    temperature: float
    request_id: str


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str = "stop"


class LLMBackend(Protocol):
    name: str
    model: str

    async def start(self) -> None:
        """Load the engine or open the connection; ``JudgeError`` when it cannot."""
        ...

    async def close(self) -> None: ...

    async def complete(self, request: CompletionRequest) -> Completion:
        """One completion constrained by ``request.schema``; ``JudgeError`` when the backend fails."""
        ...


def cost_usd(price: Price | None, prompt_tokens: int, completion_tokens: int) -> float | None:
    if price is None:
        return None
    return (prompt_tokens * price.prompt_per_mtok + completion_tokens * price.completion_per_mtok) / 1e6


class Judge:
    """Every judgement the engine makes, over one LLM backend (the JudgePort of ``ports``)."""

    def __init__(self, backend: LLMBackend, settings: LLMSettings, page_chars: int = 6000) -> None:
        self._backend = backend
        self._settings = settings
        self._page_chars = page_chars
        self._ids = itertools.count(1)
        self.usage = Usage()

    async def start(self) -> JudgeInfo:
        await self._backend.start()
        return self.info()

    async def close(self) -> None:
        await self._backend.close()

    def info(self) -> JudgeInfo:
        plumbing = self._backend.name == "vllm" and self._settings.model is None
        return JudgeInfo(self._backend.name, self._backend.model, PLUMBING_WARNING if plumbing else "")

    async def decompose(self, goal: str, count: int) -> Judged[answers.Checklist]:
        return await self._call("decompose", prompts.decompose(goal, count), answers.Checklist)

    async def analyse_page(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact], page: ExtractedPage
    ) -> Judged[answers.PageAnalysis]:
        messages, safe = prompts.analyse_page(goal, checklist, facts, page, self._page_chars)
        judged = await self._call("analyse_page", messages, answers.PageAnalysis)
        return Judged(judged.judgement, judged.answer, judged.failure, judged.usage, safe.flags)

    async def discover_queries(
        self,
        goal: str,
        open_items: Sequence[ChecklistItem],
        done: Sequence[str],
        count: int,
        facts: Sequence[Fact] = (),
    ) -> Judged[answers.Queries]:
        messages = prompts.discover_queries(goal, open_items, done, count, facts)
        return await self._call("discover_queries", messages, answers.Queries)

    async def judge_completeness(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Completeness]:
        return await self._call(
            "completeness", prompts.completeness(goal, checklist, facts), answers.Completeness
        )

    async def compose(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Report]:
        return await self._call("compose", prompts.compose(goal, checklist, facts), answers.Report)

    async def answer(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.SinglePassAnswer]:
        """The single-pass baseline's one call: the sources share one and a half pages' worth of text."""
        messages = prompts.answer(question, pages, self._page_chars * 3 // 2)
        return await self._call("answer", messages, answers.SinglePassAnswer)

    async def rerank(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.Relevance]:
        """One call scoring every passage 0-9 (at most ``MAX_RERANKED``; each cut to share three pages)."""
        shown = pages[: answers.MAX_RERANKED]
        each = max(300, self._page_chars * 3 // max(1, len(shown)))
        messages = prompts.rerank(question, shown, each)
        return await self._call("rerank", messages, answers.Relevance.for_sources(len(shown)))

    async def grade(
        self, question: str, gold: str, aliases: Sequence[str], answer_text: str
    ) -> Judged[answers.Verdict]:
        messages = prompts.grade(question, gold, aliases, answer_text, self._page_chars)
        return await self._call("grade", messages, answers.Verdict)

    async def _call(self, judgement: str, messages: tuple[Message, ...], model: type[A]) -> Judged[A]:
        usage = Usage()
        failure = JudgeFailure("backend_error", "no attempt made", 0)
        schema = model.schema_for_decoding()
        price = self._settings.prices.get(self._backend.model)
        for attempt in range(1, self._settings.max_retries + 2):
            request = CompletionRequest(
                messages,
                schema,
                self._settings.max_tokens,
                self._settings.temperature,
                f"{judgement}-{next(self._ids)}",
            )
            started = time.monotonic()
            try:
                async with asyncio.timeout(self._settings.timeout_s):
                    completion = await self._backend.complete(request)
            except (TimeoutError, JudgeTimeoutError):
                failure = JudgeFailure("timeout", f"no answer within {self._settings.timeout_s:g} s", attempt)
                usage += Usage(calls=1, latency_s=time.monotonic() - started)
                continue
            except JudgeError as e:
                failure = JudgeFailure("backend_error", e.reason, attempt)
                usage += Usage(calls=1, latency_s=time.monotonic() - started)
                continue
            usage += Usage(
                calls=1,
                prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens,
                latency_s=time.monotonic() - started,
                cost_usd=cost_usd(price, completion.prompt_tokens, completion.completion_tokens),
            )
            try:
                answer = model.model_validate_json(completion.text)
            except ValidationError as e:
                kind = "truncated" if completion.finish_reason == "length" else "invalid_json"
                failure = JudgeFailure(kind, _first_error(e), attempt)
                logger.info("%s answer was %s (attempt %d): %s", judgement, kind, attempt, failure.detail)
                continue
            self.usage += usage
            return Judged(judgement, answer, None, usage)
        self.usage += usage
        return Judged(judgement, None, failure, usage)


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "answer"
    return f"{where}: {first['msg']} ({error.error_count()} errors)"
