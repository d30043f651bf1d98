"""Ranking the frontier: RRF of similarity and domain productivity, then a softmax sample."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fathom_ray.models import Candidate, CandidateOrigin
from fathom_ray.research.frontier import SessionFrontier, rank_and_sample
from fathom_ray.research.ranking import rrf_fuse, rrf_fuse_scores, tied_ranks


def test_equal_values_share_the_best_rank() -> None:
    assert tied_ranks({"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}) == {"a": 1, "b": 2, "c": 2, "d": 3}


def test_rrf_of_scores_is_rrf_of_the_rankings_when_nothing_ties() -> None:
    signals = [{"a": 3.0, "b": 2.0, "c": 1.0}, {"a": 0.1, "b": 0.7}]
    assert rrf_fuse_scores(signals) == pytest.approx(rrf_fuse([["a", "b", "c"], ["b", "a"]]))


@given(st.dictionaries(st.text(max_size=3), st.sampled_from([0.0, 0.5, 1.0]), min_size=1))
def test_keys_with_equal_signals_get_equal_scores(values: dict[str, float]) -> None:
    fused = rrf_fuse_scores([values, dict.fromkeys(values, 0.5)])
    for a, value_a in values.items():
        for b, value_b in values.items():
            if value_a == value_b:
                assert fused[a] == fused[b]


def test_rrf_of_scores_rejects_non_positive_k() -> None:
    with pytest.raises(ValueError, match="k must be positive"):
        rrf_fuse_scores([{"a": 1.0}], k=0)


def test_unknown_domains_do_not_rank_urls_alphabetically() -> None:
    # the most similar page has the alphabetically last URL; every domain is unknown (0.5)
    urls = [f"http://{host}.test/page" for host in "abcdefghij"]
    pending = [Candidate(u, CandidateOrigin.SEARCH) for u in urls]
    similarity = {u: 0.1 + 0.05 * i for i, u in enumerate(urls)}
    for seed in range(20):
        batch = rank_and_sample(
            pending,
            similarity=similarity,
            domain_quality={},
            n=2,
            temperature=0.0,
            rng=np.random.default_rng(seed),
        )
        assert [c.url for c in batch] == [urls[-1], urls[-2]]


def test_a_productive_domain_lifts_its_pages() -> None:
    pending = [Candidate(u, CandidateOrigin.SEARCH) for u in ("http://a.test/1", "http://b.test/1")]
    batch = rank_and_sample(
        pending,
        similarity={"http://a.test/1": 0.5, "http://b.test/1": 0.5},
        domain_quality={"a.test": 0.4, "b.test": 0.9},
        n=1,
        temperature=0.0,
        rng=np.random.default_rng(0),
    )
    assert [c.url for c in batch] == ["http://b.test/1"]


def test_the_rank_where_a_url_was_found_counts() -> None:
    # the same similarity and domain: the search engine's first result comes first, a URL that no
    # list ranked (0) comes last
    pending = [
        Candidate("http://a.test/third", CandidateOrigin.SEARCH, rank=3),
        Candidate("http://a.test/unranked", CandidateOrigin.LINK),
        Candidate("http://a.test/first", CandidateOrigin.SEARCH, rank=1),
    ]
    batch = rank_and_sample(
        pending,
        similarity=dict.fromkeys((c.url for c in pending), 0.5),
        domain_quality={},
        n=3,
        temperature=0.0,
        rng=np.random.default_rng(0),
    )
    assert [c.url for c in batch] == ["http://a.test/first", "http://a.test/third", "http://a.test/unranked"]


def candidates(count: int) -> list[Candidate]:
    return [Candidate(f"http://site{n}.test/", CandidateOrigin.SEARCH, rank=n + 1) for n in range(count)]


@given(st.integers(min_value=1, max_value=6), st.integers(min_value=0, max_value=2**32 - 1))
def test_the_batch_holds_the_most_supported_and_the_best_fused_candidate(n: int, seed: int) -> None:
    pool = candidates(12)
    similarity = {c.url: 1.0 - i / 12 for i, c in enumerate(reversed(pool))}  # the last is most similar
    batch = rank_and_sample(
        pool, similarity=similarity, domain_quality={}, n=n, temperature=5.0, rng=np.random.default_rng(seed)
    )
    urls = [c.url for c in batch]
    assert pool[0].url in urls  # what the search engine ranked first, whatever the sample drew
    assert len(urls) == len(set(urls)) == n


def test_leads_come_first_and_leave_a_slot_for_the_ranking() -> None:
    pool = candidates(10)
    leads = [pool[7].url, pool[8].url, pool[9].url, "http://not-pending.test/"]
    batch = rank_and_sample(
        pool,
        similarity={},
        domain_quality={},
        n=3,
        temperature=0.0,
        rng=np.random.default_rng(1),
        first=leads,
    )
    assert [c.url for c in batch] == [pool[7].url, pool[8].url, pool[0].url]


def test_a_full_pool_turns_away_a_found_url_but_never_a_seed() -> None:
    pool = SessionFrontier(url_pool=2)
    pool.add([Candidate(f"http://a.test/{n}", CandidateOrigin.SEARCH, rank=n) for n in range(1, 4)])
    assert len(pool.entries) == 2
    added = pool.add(
        [
            Candidate("http://b.test/found", CandidateOrigin.SEARCH, rank=1),
            Candidate("http://b.test/seed", CandidateOrigin.SEED, rank=1),
        ]
    )
    assert [c.url for c in added] == ["http://b.test/seed"]
