"""EmbedderActor: sentence embeddings for ranking and memory, batched, cached, GPU when present."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from actors.actor_class import actor_class
from fathom_ray.adapters.sentence_embedder import SentenceEmbedder
from fathom_ray.settings import EmbedderSettings


class EmbedderService:
    def __init__(self, settings: EmbedderSettings) -> None:
        self._embedder = SentenceEmbedder.of(settings)
        self._lock = asyncio.Lock()

    async def start(self) -> int:
        async with self._lock:  # the judge's first embed may come at once: one load
            await asyncio.to_thread(self._embedder.start)
        return self._embedder.dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        async with self._lock:  # one batch at a time through the model
            return await asyncio.to_thread(self._embedder.embed, list(texts))

    def encoded(self) -> int:
        return self._embedder.encoded


def embedder_actor(gpu: bool = False, name: str | None = None, **placement: Any) -> Any:
    """Embedding is idempotent, so a call the actor was killed under is made again on its restart
    (without a count of its own: the restarts bound it)."""
    return actor_class(EmbedderService).options(
        num_cpus=0, num_gpus=1 if gpu else 0, max_restarts=3, max_task_retries=-1, name=name, **placement
    )
