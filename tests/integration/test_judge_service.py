"""JudgeService's back-pressure, with a scripted backend swapped in (no engine, no Ray)."""

from __future__ import annotations

import asyncio
import json

import pytest

from actors.judge import JudgeService
from fathom_ray.settings import LLMSettings
from tests.fakes import ScriptedBackend

pytestmark = pytest.mark.integration


class SlowBackend(ScriptedBackend):
    async def complete(self, request):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.5)
        return await super().complete(request)


def test_calls_beyond_the_queue_bound_are_refused_as_overloaded() -> None:
    settings = LLMSettings(max_queue=2, queue_wait_s=0.1, timeout_s=5, max_retries=0)
    answer = json.dumps({"questions": ["Q?"]})
    service = JudgeService(settings, backend_factory=lambda _: SlowBackend([answer] * 5))

    async def run() -> list[str]:
        results = await asyncio.gather(*(service.decompose("a goal to split", 3) for _ in range(4)))
        return sorted(r.failure.kind if r.failure else "ok" for r in results)

    kinds = asyncio.run(run())
    assert kinds == ["ok", "ok", "overloaded", "overloaded"]


def test_admitted_calls_answer() -> None:
    settings = LLMSettings(max_queue=4, timeout_s=5, max_retries=0)
    answer = json.dumps({"questions": ["Q?"]})
    service = JudgeService(settings, backend_factory=lambda _: ScriptedBackend([answer] * 4))

    async def run() -> list[bool]:
        return [
            r.ok for r in await asyncio.gather(*(service.decompose("a goal to split", 3) for _ in range(4)))
        ]

    assert asyncio.run(run()) == [True] * 4
    assert service.usage().calls == 4
