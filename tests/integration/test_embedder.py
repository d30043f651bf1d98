"""The real all-MiniLM-L6-v2 from its PyPI package, offline."""

from __future__ import annotations

import numpy as np
import pytest

from fathom_ray.adapters.sentence_embedder import SentenceEmbedder

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
