"""Building the judge the settings name: the evidence judge, or the LLM judge over its backend."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from fathom_ray.adapters.openai_http import OpenAIBackend
from fathom_ray.adapters.sentence_embedder import SentenceEmbedder
from fathom_ray.adapters.vllm_engine import VllmBackend, cuda_available
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.judges.llm.judge import Judge, LLMBackend
from fathom_ray.ports import JudgePort
from fathom_ray.settings import EmbedderSettings, LLMSettings


def build_backend(settings: LLMSettings) -> LLMBackend:
    if settings.backend == "openai":
        return OpenAIBackend(settings)
    return VllmBackend(settings)


class ThreadedEmbedder:
    """The sentence embedder in the judge's own process, off its event loop (torch releases the GIL)."""

    def __init__(self, settings: EmbedderSettings) -> None:
        self._embedder = SentenceEmbedder.of(settings)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await asyncio.to_thread(self._embedder.embed, texts)


def build_judge(settings: LLMSettings, embedder: EmbedderSettings | None = None) -> JudgePort:
    """The judge for ``settings.backend`` (``auto`` resolved against this machine's GPU)."""
    backend = settings.resolved_backend(gpu=settings.backend == "auto" and cuda_available())
    if backend == "evidence":
        return EvidenceJudge(ThreadedEmbedder(embedder or EmbedderSettings()), settings.evidence_threshold)
    return Judge(
        build_backend(settings.model_copy(update={"backend": backend})), settings, settings.page_chars
    )
