"""Test doubles of the ports. They live in tests/, never in the package."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from fathom_ray.errors import JudgeError
from fathom_ray.llm.judge import Completion, CompletionRequest

Script = str | Exception | float  # an answer text, an error to raise, or seconds to hang


class ScriptedBackend:
    """Answers LLM calls from a script, in order, recording every request it saw."""

    name = "scripted"
    model = "scripted-model"

    def __init__(self, script: Sequence[Script], finish_reason: str = "stop") -> None:
        self._script = list(script)
        self._finish_reason = finish_reason
        self.requests: list[CompletionRequest] = []

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        step = self._script.pop(0)
        if isinstance(step, Exception):
            raise step
        if isinstance(step, float):
            await asyncio.sleep(step)
            raise JudgeError(self.name, "script said hang")
        prompt = sum(len(m.content) for m in request.messages) // 4
        return Completion(
            step, prompt_tokens=prompt, completion_tokens=len(step) // 4, finish_reason=self._finish_reason
        )
