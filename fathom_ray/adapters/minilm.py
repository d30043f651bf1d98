"""all-MiniLM-L6-v2 in numpy: the packaged model's weights and tokenizer, without torch.

The same network sentence-transformers runs (a 6-layer BERT, mean pooling over the tokens, unit
length), in float32 on the CPU: its vectors agree with sentence-transformers' float32 ones to about
1e-6 (tests/integration/test_embedder.py). What it saves is the start: torch and
sentence-transformers take about 4 CPU-seconds to import and load in every engine, this about 0.2;
what it costs is about 1.5x torch's CPU per text (one thread each).
The weights are read with safetensors and the text split by the model's own tokenizer.json
(Hugging Face ``tokenizers``), both already installed with sentence-transformers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
# erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7, under float32's resolution)
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv: Matrix  # (hidden, 3 * hidden): query, key and value at once
    qkv_bias: Matrix
    out: Matrix
    out_bias: Matrix
    norm1: tuple[Matrix, Matrix]
    up: Matrix
    up_bias: Matrix
    down: Matrix
    down_bias: Matrix
    norm2: tuple[Matrix, Matrix]


class MiniLM:
    """A sentence-transformers BERT model folder (config.json, model.safetensors, tokenizer.json,
    sentence_bert_config.json) run in numpy; ``encode`` gives unit vectors."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file  # noqa: PLC0415 (loaded with the model)
        from tokenizers import Tokenizer  # noqa: PLC0415

        config = json.loads((model_dir / "config.json").read_text())
        absolute = config.get("position_embedding_type", "absolute") == "absolute"
        if config.get("hidden_act") != "gelu" or not absolute:
            raise ValueError(f"not a BERT model this runs: {model_dir}")
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        max_length = int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length)
        self._tokenizer.no_padding()
        w: dict[str, Any] = load_file(str(model_dir / "model.safetensors"))
        self._words = w["embeddings.word_embeddings.weight"]
        self._positions = w["embeddings.position_embeddings.weight"]
        self._token_type = w["embeddings.token_type_embeddings.weight"][0]
        self._norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._layers = [_layer(w, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))]
        self.dimension = int(self._words.shape[1])

    def encode(self, texts: Sequence[str], batch_size: int = 8) -> Matrix:
        """One unit vector per text, in order; texts are sorted by length and padded per batch."""
        encodings = self._tokenizer.encode_batch([t.strip() for t in texts])
        ids = [e.ids for e in encodings]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        vectors = np.zeros((len(ids), self.dimension), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            vectors[chosen] = self._forward([ids[i] for i in chosen])
        return vectors

    def _forward(self, batch: list[list[int]]) -> Matrix:
        length = max(len(ids) for ids in batch)
        tokens = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1.0
        x = self._words[tokens] + self._positions[:length] + self._token_type
        x = _layer_norm(x.reshape(-1, self.dimension), *self._norm, self._eps).reshape(x.shape)
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]  # padding gets no attention
        for layer in self._layers:
            x = self._block(x, layer, bias)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)  # type: ignore[no-any-return]

    def _block(self, x: Matrix, layer: _Layer, bias: Matrix) -> Matrix:
        """One encoder layer on ``x`` of (batch, length, hidden); the linear maps run on the tokens
        as one 2-D matrix (one BLAS call, not one per text: about 1.8x faster)."""
        batch, length, hidden = x.shape
        width = hidden // self._heads
        flat = x.reshape(-1, hidden)
        qkv = (flat @ layer.qkv + layer.qkv_bias).reshape(batch, length, 3, self._heads, width)
        q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))  # (batch, heads, length, width)
        scores = q @ k.transpose(0, 1, 3, 2)
        scores *= np.float32(1.0 / np.sqrt(width))
        scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        attended = (scores @ v).transpose(0, 2, 1, 3).reshape(-1, hidden)
        flat = _layer_norm(flat + attended @ layer.out + layer.out_bias, *layer.norm1, self._eps)
        inner = _gelu(flat @ layer.up + layer.up_bias)
        flat = _layer_norm(flat + inner @ layer.down + layer.down_bias, *layer.norm2, self._eps)
        return flat.reshape(batch, length, hidden)


def _layer(w: dict[str, Any], p: str) -> _Layer:
    def linear(name: str) -> tuple[Matrix, Matrix]:
        return np.ascontiguousarray(w[f"{p}{name}.weight"].T), w[f"{p}{name}.bias"]

    parts = [linear(f"attention.self.{name}") for name in ("query", "key", "value")]
    out, up, down = linear("attention.output.dense"), linear("intermediate.dense"), linear("output.dense")
    return _Layer(
        qkv=np.ascontiguousarray(np.concatenate([m for m, _ in parts], axis=1)),
        qkv_bias=np.concatenate([b for _, b in parts]),
        out=out[0],
        out_bias=out[1],
        norm1=(w[f"{p}attention.output.LayerNorm.weight"], w[f"{p}attention.output.LayerNorm.bias"]),
        up=up[0],
        up_bias=up[1],
        down=down[0],
        down_bias=down[1],
        norm2=(w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"]),
    )


def _layer_norm(x: Matrix, weight: Matrix, bias: Matrix, eps: float) -> Matrix:
    centred = x - x.mean(axis=-1, keepdims=True)
    scale = np.einsum("ij,ij->i", centred, centred)[:, None]  # the squares' sums, row by row
    scale /= np.float32(x.shape[-1])
    scale += np.float32(eps)
    np.sqrt(scale, out=scale)
    centred /= scale
    centred *= weight
    centred += bias
    return centred  # type: ignore[no-any-return]


def _gelu(x: Matrix) -> Matrix:
    """GELU with the exact (erf) form BERT uses, erf from its polynomial approximation; in place
    where it can be (each temporary of a batch is a few MB)."""
    z = np.abs(x)
    z *= np.float32(1.0 / np.sqrt(2.0))
    gauss = z * z
    np.negative(gauss, out=gauss)
    np.exp(gauss, out=gauss)
    t = z
    t *= np.float32(_ERF_P)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    a1, a2, a3, a4, a5 = (np.float32(a) for a in _ERF_A)
    tail = a5 * t
    for a in (a4, a3, a2, a1):
        tail += a
        tail *= t
    tail *= gauss  # c = 1 - erf(|x| / sqrt 2)
    tail *= np.float32(0.5)
    tail *= x  # c x / 2: the GELU of x < 0; for x >= 0 it is x (1 + erf) / 2 = x - c x / 2
    return np.where(x >= 0, x - tail, tail)
