"""The published ranking maths the session uses: no judgement lives here.

- Reciprocal Rank Fusion (Cormack, Clarke and Büttcher, 2009): a key's score
  is the sum over rankings of ``1 / (k + rank)``, rank counted from 1. Where a
  signal gives keys equal values they share the best of their ranks
  and the next value takes the next rank (dense ranking, "1223"), so a tie never turns into an
  order of its own, and a coarse signal (three hosts' qualities among fifty candidates) moves a
  candidate by a rank or two, not by the size of a whole host's share of the pool.
- Softmax with temperature over fused scores, and sampling a batch without
  replacement from it (Gumbel top-k, which draws the same distribution as
  sequential sampling without replacement and stays exact as the temperature
  approaches zero).
- Domain quality with a Beta(1, 1) prior (Laplace's rule of succession).
- The suggestion score of a remembered source.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def rrf_fuse(rankings: Iterable[Sequence[K]], k: int = RRF_K) -> dict[K, float]:
    """Fuse best-first rankings; a key absent from a ranking gains nothing from it.

    A key listed twice in one ranking counts at its best rank only.
    """
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    scores: dict[K, float] = {}
    for ranking in rankings:
        seen: set[K] = set()
        for rank, key in enumerate(ranking, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores


def tied_ranks(values: Mapping[K, float]) -> dict[K, int]:
    """Rank keys by value, best (highest) first from 1; equal values share a rank ("1223")."""
    distinct = sorted(set(values.values()), reverse=True)
    rank = {value: n for n, value in enumerate(distinct, start=1)}
    return {key: rank[value] for key, value in values.items()}


def rrf_fuse_scores(signals: Iterable[Mapping[K, float]], k: int = RRF_K) -> dict[K, float]:
    """RRF over signals given as values (higher is better), ranked with ties shared."""
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    fused: dict[K, float] = {}
    for signal in signals:
        for key, rank in tied_ranks(signal).items():
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return fused


def softmax(scores: Sequence[float] | npt.NDArray[np.float64], temperature: float) -> npt.NDArray[np.float64]:
    """Probabilities proportional to ``exp(score / temperature)``.

    Temperature 0 puts all mass on the best score (split evenly among ties).
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("softmax needs a non-empty one-dimensional sequence of scores")
    if not np.all(np.isfinite(values)):
        raise ValueError("softmax scores must be finite")
    if temperature < 0 or not np.isfinite(temperature):
        raise ValueError(f"temperature must be finite and >= 0, got {temperature}")
    if temperature == 0:
        best = (values == values.max()).astype(np.float64)
        return np.asarray(best / best.sum(), dtype=np.float64)
    weights = np.exp(_scaled(values, temperature))
    return np.asarray(weights / weights.sum(), dtype=np.float64)


def _scaled(values: npt.NDArray[np.float64], temperature: float) -> npt.NDArray[np.float64]:
    """``(values - max) / temperature``: 0 for the best, -inf where the quotient overflows."""
    with np.errstate(over="ignore"):
        return np.asarray((values - values.max()) / temperature, dtype=np.float64)


def sample_without_replacement(
    keys: Sequence[K],
    scores: Sequence[float],
    n: int,
    temperature: float,
    rng: np.random.Generator | int,
) -> list[K]:
    """Draw ``min(n, len(keys))`` distinct keys, each draw proportional to softmax weight.

    The same seed (or a generator in the same state) gives the same keys in the
    same order, so a session can be replayed.
    """
    if len(keys) != len(scores):
        raise ValueError(f"{len(keys)} keys but {len(scores)} scores")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if len(set(keys)) != len(keys):
        raise ValueError("keys must be distinct")
    count = min(n, len(keys))
    if count == 0:
        return []
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    values = np.asarray(scores, dtype=np.float64)
    softmax(values, temperature)  # validates scores and temperature
    noise = generator.gumbel(size=len(keys))
    perturbed = np.full(len(keys), -np.inf) if temperature == 0 else _scaled(values, temperature) + noise
    # Sort by the perturbed score; where it is -inf (temperature 0 or an
    # underflow), fall back to the limit it tends to: best score first, ties
    # broken by the noise.
    order = np.lexsort((-noise, -values, -perturbed))
    return [keys[int(i)] for i in order[:count]]


def domain_quality(quality_sum: float, visit_count: int) -> float:
    """Beta(1, 1)-smoothed productivity of a domain: 0.5 before any visit.

    ``quality_sum`` adds one value in [0, 1] per visit.
    """
    if visit_count < 0:
        raise ValueError(f"visit_count must be >= 0, got {visit_count}")
    if not 0 <= quality_sum <= visit_count:
        raise ValueError(f"quality_sum must lie in [0, visit_count], got {quality_sum}")
    return (quality_sum + 1.0) / (visit_count + 2.0)


def suggestion_score(cosine: float, quality: float) -> float:
    """Score of a remembered source: similarity damped by the square root of quality."""
    if not 0 <= quality <= 1:
        raise ValueError(f"quality must lie in [0, 1], got {quality}")
    return cosine * math.sqrt(quality)
