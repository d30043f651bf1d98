from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fathom_ray.research.ranking import (
    domain_quality,
    rrf_fuse,
    sample_without_replacement,
    softmax,
    suggestion_score,
)

keys = st.lists(st.integers(0, 40), min_size=1, max_size=25, unique=True)
finite = st.floats(-50, 50, allow_nan=False)


def test_rrf_matches_the_formula() -> None:
    fused = rrf_fuse([["a", "b", "c"], ["b", "a"]], k=60)
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63)


def test_rrf_counts_a_repeated_key_once_per_ranking() -> None:
    assert rrf_fuse([["a", "a", "b"]]) == pytest.approx({"a": 1 / 61, "b": 1 / 63})


def test_rrf_rejects_non_positive_k() -> None:
    with pytest.raises(ValueError, match="k must be positive"):
        rrf_fuse([["a"]], k=0)


@given(
    st.lists(st.permutations(list(range(8))), min_size=1, max_size=5),
    st.integers(0, 7),
    st.integers(0, 7),
)
def test_rrf_key_ranked_better_everywhere_never_scores_lower(
    rankings: list[list[int]], a: int, b: int
) -> None:
    assume(a != b)
    fixed = []
    for ranking in rankings:
        order = list(ranking)
        ia, ib = order.index(a), order.index(b)
        if ia > ib:  # make a better than b in this list
            order[ia], order[ib] = order[ib], order[ia]
        fixed.append(order)
    fused = rrf_fuse(fixed)
    assert fused[a] >= fused[b]


@given(st.lists(st.lists(st.integers(0, 20), max_size=10), max_size=5))
def test_rrf_keys_are_the_union_and_scores_positive(rankings: list[list[int]]) -> None:
    fused = rrf_fuse(rankings)
    assert set(fused) == {key for ranking in rankings for key in ranking}
    assert all(score > 0 for score in fused.values())


@given(st.lists(finite, min_size=1, max_size=30), st.floats(0.01, 100))
def test_softmax_sums_to_one(scores: list[float], temperature: float) -> None:
    probs = softmax(scores, temperature)
    assert probs.sum() == pytest.approx(1.0)
    assert np.all(probs >= 0)


@given(st.lists(finite, min_size=2, max_size=30, unique=True))
def test_softmax_tends_to_argmax_as_temperature_falls(scores: list[float]) -> None:
    gap = sorted(scores)[-1] - sorted(scores)[-2]
    assume(gap > 1e-3)
    probs = softmax(scores, temperature=gap / 100)
    assert probs[int(np.argmax(scores))] > 0.99
    assert softmax(scores, 0.0).tolist() == [1.0 if s == max(scores) else 0.0 for s in scores]


@given(st.lists(finite, min_size=1, max_size=30))
def test_softmax_tends_to_uniform_as_temperature_grows(scores: list[float]) -> None:
    probs = softmax(scores, temperature=1e9)
    assert probs == pytest.approx(np.full(len(scores), 1 / len(scores)), rel=1e-6)


def test_softmax_splits_ties_at_zero_temperature() -> None:
    assert softmax([1.0, 3.0, 3.0], 0.0).tolist() == [0.0, 0.5, 0.5]


@pytest.mark.parametrize(
    ("scores", "temperature"), [([], 1.0), ([1.0], -1.0), ([math.nan], 1.0), ([1.0], math.inf)]
)
def test_softmax_rejects_bad_input(scores: list[float], temperature: float) -> None:
    with pytest.raises(ValueError, match=r"softmax|temperature"):
        softmax(scores, temperature)


@given(keys, st.integers(0, 30), st.floats(0, 10), st.integers(0, 2**32 - 1), st.data())
def test_sampling_gives_n_distinct_keys_reproducibly(
    pool: list[int], n: int, temperature: float, seed: int, data: st.DataObject
) -> None:
    scores = data.draw(st.lists(finite, min_size=len(pool), max_size=len(pool)))
    first = sample_without_replacement(pool, scores, n, temperature, seed)
    again = sample_without_replacement(pool, scores, n, temperature, np.random.default_rng(seed))
    assert len(first) == min(n, len(pool))
    assert len(set(first)) == len(first)
    assert set(first) <= set(pool)
    assert first == again


def test_sampling_at_zero_temperature_takes_the_best_in_order() -> None:
    picked = sample_without_replacement(["a", "b", "c", "d"], [0.1, 0.9, 0.5, 0.3], 3, 0.0, 7)
    assert picked == ["b", "c", "d"]


def test_sampling_follows_the_softmax_distribution() -> None:
    rng = np.random.default_rng(0)
    firsts = [sample_without_replacement(["x", "y"], [0.0, math.log(3)], 1, 1.0, rng)[0] for _ in range(4000)]
    assert firsts.count("y") / len(firsts) == pytest.approx(0.75, abs=0.03)


def test_sampling_rejects_mismatched_or_duplicate_keys() -> None:
    with pytest.raises(ValueError, match="keys but"):
        sample_without_replacement(["a"], [1.0, 2.0], 1, 1.0, 0)
    with pytest.raises(ValueError, match="distinct"):
        sample_without_replacement(["a", "a"], [1.0, 2.0], 1, 1.0, 0)


def test_domain_quality_starts_at_one_half() -> None:
    assert domain_quality(0, 0) == 0.5


@given(st.floats(0, 1), st.integers(1, 10_000))
def test_domain_quality_converges_to_the_observed_rate(rate: float, visits: int) -> None:
    quality = domain_quality(rate * visits, visits)
    assert abs(quality - rate) <= 1 / (visits + 2) + 1e-12
    assert 0 < quality < 1


def test_domain_quality_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="quality_sum"):
        domain_quality(3, 2)
    with pytest.raises(ValueError, match="visit_count"):
        domain_quality(0, -1)


def test_suggestion_score() -> None:
    assert suggestion_score(0.8, 0.25) == pytest.approx(0.4)
    assert suggestion_score(0.8, 1.0) == pytest.approx(0.8)
    with pytest.raises(ValueError, match="quality"):
        suggestion_score(0.5, 1.5)
