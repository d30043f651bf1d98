"""The real all-MiniLM-L6-v2 from its PyPI package, offline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fathom_ray.adapters.sentence_embedder import SentenceEmbedder, native_bf16

pytestmark = pytest.mark.integration


def test_unit_vectors_meaning_and_cache() -> None:
    embedder = SentenceEmbedder()
    texts = ["SQLite write-ahead logging", "WAL mode in the SQLite database", "PostgreSQL release notes"]
    vectors = np.array(embedder.embed(texts))
    assert vectors.shape == (3, embedder.dimension)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    encoded = embedder.encoded
    again = embedder.embed([texts[1], texts[0]])
    assert embedder.encoded == encoded
    assert np.allclose(again, vectors[[1, 0]])


def test_bfloat16_keeps_the_meaning_and_unit_length() -> None:
    texts = [
        "SQLite write-ahead logging lets readers run beside one writer.",
        "WAL mode in the SQLite database",
        "Tomatoes need full sun and regular watering.",
    ]
    exact = np.array(SentenceEmbedder().embed(texts))
    brief = np.array(SentenceEmbedder(precision="bfloat16").embed(texts))
    assert np.allclose(np.linalg.norm(brief, axis=1), 1.0, atol=1e-5)
    assert np.all((exact * brief).sum(axis=1) > 0.99)  # each vector nearly float32's
    assert brief[0] @ brief[1] > brief[0] @ brief[2]


def test_auto_precision_follows_the_cpu(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f\n")
    assert not native_bf16(cpuinfo)
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx512f avx512_bf16 amx_tile\n")
    assert native_bf16(cpuinfo)
    assert not native_bf16(tmp_path / "missing")
    with pytest.raises(ValueError, match="precision must be"):
        SentenceEmbedder(precision="half")


def test_the_numpy_runtime_gives_torchs_vectors() -> None:
    """fathom_ray.adapters.minilm runs the same network: long texts truncated as sentence-transformers
    truncates them, whitespace stripped, any script, batches padded (texts of unlike lengths)."""
    texts = [
        "Python 3.8 introduced assignment expressions (PEP 572).",
        "   The walrus operator := was written up by Chris Angelico.  \n",
        "Kubernetes evicts pods when a node runs low on memory. " * 60,  # past 256 tokens
        "x",
        "",
        "Ünïcödé naïve café, “quotes”, 東京 and an emoji 🙂.",
        "New in version 3.8: See PEP 572 for more details about assignment expressions.",
    ] * 2
    torch_vectors = np.array(SentenceEmbedder().embed(texts))
    numpy_embedder = SentenceEmbedder(runtime="numpy")
    numpy_vectors = np.array(numpy_embedder.embed(texts))
    assert numpy_embedder.dimension == 384
    assert np.abs(numpy_vectors - torch_vectors).max() < 1e-5
    assert np.allclose(np.linalg.norm(numpy_vectors, axis=1), 1.0, atol=1e-5)


def test_the_numpy_runtime_is_float32_only() -> None:
    with pytest.raises(ValueError, match="float32"):
        SentenceEmbedder(precision="bfloat16", runtime="numpy")
    with pytest.raises(ValueError, match="runtime must be"):
        SentenceEmbedder(runtime="onnx")
