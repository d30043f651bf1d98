"""Any OpenAI-compatible chat endpoint (vLLM serve, Ray Serve LLM, llama.cpp, Ollama, hosted APIs).

Structured output through ``response_format`` with the answer's JSON schema;
429 and 5xx are retried with back-off (``Retry-After`` honoured); a timeout or
an unusable answer raises ``JudgeError`` for the Judge to record.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx

from fathom_ray.errors import JudgeError, JudgeTimeoutError
from fathom_ray.judges.llm.judge import Completion, CompletionRequest
from fathom_ray.settings import LLMSettings

logger = logging.getLogger(__name__)
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0


class OpenAIBackend:
    name = "openai"

    def __init__(self, settings: LLMSettings, http_attempts: int = 4, backoff_s: float = 1.0) -> None:
        if not settings.base_url or not settings.model:
            raise JudgeError(self.name, "needs FATHOM_LLM__BASE_URL and FATHOM_LLM__MODEL")
        self.model = settings.model
        self._attempts = http_attempts
        self._backoff_s = backoff_s
        headers = (
            {"Authorization": f"Bearer {settings.api_key.get_secret_value()}"} if settings.api_key else {}
        )
        self._client = httpx.AsyncClient(
            base_url=settings.base_url.rstrip("/") + "/", headers=headers, timeout=settings.timeout_s
        )

    async def start(self) -> None:
        return None  # the endpoint is someone else's; its first call says whether it answers

    async def close(self) -> None:
        await self._client.aclose()

    async def aclose(self) -> None:
        await self.close()

    async def complete(self, request: CompletionRequest) -> Completion:
        body = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": request.schema, "strict": True},
            },
        }
        for attempt in range(1, self._attempts + 1):
            try:
                response = await self._client.post("chat/completions", json=body)
            except httpx.TimeoutException as e:
                raise JudgeTimeoutError(self.name, f"no answer in time ({type(e).__name__})") from e
            except httpx.HTTPError as e:
                raise JudgeError(self.name, f"{type(e).__name__}: {e}") from e
            if response.status_code in RETRY_STATUSES and attempt < self._attempts:
                delay = _retry_after(response) or self._backoff_s * 2 ** (attempt - 1)
                logger.info("endpoint answered %d; retrying in %.1f s", response.status_code, delay)
                await asyncio.sleep(min(delay, MAX_BACKOFF_S))
                continue
            if response.status_code >= 400:
                raise JudgeError(self.name, f"HTTP {response.status_code}: {response.text[:200]}")
            return _completion(response.json())
        raise JudgeError(self.name, f"still failing after {self._attempts} attempts")


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return max(0.0, float(response.headers.get("retry-after", "")))
    except ValueError:
        return None


def _completion(payload: Any) -> Completion:
    try:
        choice = payload["choices"][0]
        usage = payload.get("usage") or {}
        return Completion(
            text=str(choice["message"]["content"] or ""),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            finish_reason=str(choice.get("finish_reason") or "stop"),
        )
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise JudgeError("openai", f"not a chat completion: {e!r}") from e
