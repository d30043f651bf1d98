"""Picking the LLM backend the settings name."""

from __future__ import annotations

from fathom_ray.adapters.openai_http import OpenAIBackend
from fathom_ray.adapters.vllm_engine import VllmBackend
from fathom_ray.llm.judge import LLMBackend
from fathom_ray.settings import LLMSettings


def build_backend(settings: LLMSettings) -> LLMBackend:
    if settings.backend == "openai":
        return OpenAIBackend(settings)
    return VllmBackend(settings)
