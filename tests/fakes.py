"""Test doubles of the ports. They live in tests/, never in the package."""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
from collections.abc import Sequence

from fathom_ray.errors import JudgeError
from fathom_ray.judges.llm.judge import Completion, CompletionRequest
from fathom_ray.models import Candidate
from fathom_ray.research.frontier import EntryState, SessionFrontier

Script = str | Exception | float  # an answer text, an error to raise, or seconds to hang


class ScriptedBackend:
    """Answers LLM calls from a script, in order, recording every request it saw."""

    name = "scripted"
    model = "scripted-model"

    def __init__(self, script: Sequence[Script], finish_reason: str = "stop") -> None:
        self._script = list(script)
        self._finish_reason = finish_reason
        self.requests: list[CompletionRequest] = []

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

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


class WordEmbedder:
    """Unit vectors of hashed word counts: similar wording, similar vectors (no model, deterministic)."""

    def __init__(self, dimension: int = 256) -> None:
        self.dimension = dimension
        self.calls = 0

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(t) for t in texts]

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimension
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            digest = hashlib.sha1(word.encode(), usedforsecurity=False).digest()
            vector[int.from_bytes(digest[:4], "big") % self.dimension] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        return [x / norm for x in vector]


class FakeFrontier:
    """The frontier actor's calls over one in-process SessionFrontier (every session id shares it)."""

    def __init__(self, capacity: int = 100) -> None:
        self.pool = SessionFrontier(capacity)
        self.delays: dict[str, float | None] = {}

    async def add(self, session_id: str, candidates: Sequence[Candidate]) -> int:
        return len(self.pool.add(candidates))

    async def pending(self, session_id: str) -> list[Candidate]:
        return self.pool.pending()

    async def claim(self, session_id: str, urls: Sequence[str]) -> list[str]:
        return list(urls)

    async def known(self, session_id: str) -> list[str]:
        return self.pool.urls()

    async def mark(self, session_id: str, url: str, state: str, reason: str = "") -> None:
        self.pool.mark(url, EntryState(state), reason)

    async def reserve(self, url: str) -> float:
        return 0.0

    async def set_crawl_delay(self, url: str, delay_s: float | None) -> None:
        self.delays[url] = delay_s

    async def checkpoint(self, session_id: str) -> None:
        return None
