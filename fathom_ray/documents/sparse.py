"""Sparse BM25-style vectors, computed by us; the store multiplies in the IDF (Qdrant's IDF modifier).

A chunk's vector holds, per term, BM25's saturated term frequency ``tf * (k1 + 1) / (tf + k1 * (1 -
b + b * length / average))``; a query's holds 1 per distinct term. Their dot product with IDF
applied is the chunk's BM25 score for the query. Terms are the BM25 index's tokens (lower case,
stop words out, dotted names whole: ``sqlite3.connect`` is one term), hashed to 31-bit indices.
"""

from __future__ import annotations

import zlib
from collections import Counter

from fathom_ray.text.term_match import tokenize

K1 = 1.2
B = 0.75
AVERAGE_TERMS = 120.0  # about a 900-character chunk's terms; chunks are of near equal length
# Hybrid search's fusion: RRF with rank constant 1, the BM25 side weighted 5 (dense 1). BM25 leads
# and the vectors fill in where it finds little (a paraphrase with no word in common). Equal weights
# lost to BM25 alone on the doc questions' 8 passages (full hit 0.59 vs 0.72). A pool of candidates
# for a rerank (mode "pool") fuses both sides equally: there recall counts, and the 20 candidates
# held every gold quote for 0.88 of the dev questions with equal weights, 0.69 with BM25 weighted 5.
# Both chosen on the doc questions' dev part (scripts/bench_docs.py, docs/benchmarks.md "Documents").
RRF_K = 1
SPARSE_WEIGHT = 5.0


def term_index(term: str) -> int:
    return zlib.crc32(term.encode("utf-8")) & 0x7FFFFFFF


def document_vector(text: str) -> tuple[list[int], list[float]]:
    counts = _by_index(tokenize(text))
    length = sum(counts.values())
    norm = K1 * (1 - B + B * length / AVERAGE_TERMS)
    indices = sorted(counts)
    return indices, [round(counts[i] * (K1 + 1) / (counts[i] + norm), 6) for i in indices]


def query_vector(text: str) -> tuple[list[int], list[float]]:
    indices = sorted(_by_index(tokenize(text)))
    return indices, [1.0] * len(indices)


def _by_index(terms: list[str]) -> Counter[int]:
    return Counter(term_index(t) for t in terms)
