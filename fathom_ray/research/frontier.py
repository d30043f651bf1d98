"""A session's candidate URLs: pending, fetched and failed, one entry per canonical URL.

Ranking is the published maths of ``ranking``: Reciprocal Rank Fusion of
embedding similarity, domain productivity and the support of the lists that
proposed each candidate (RRF over them: the search engines' result ranks for
every query that found it, the judge's order of links to follow, memory's
order of suggestions, the user's order of seeds),
then softmax-temperature sampling without replacement from a seeded generator.
Fusing the proposers' own rankings is what RRF was made for: the search
engine's order is evidence about a page that a title and snippet embedding
cannot see.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from fathom_ray.errors import InvalidURLError
from fathom_ray.models import Candidate, CandidateOrigin
from fathom_ray.research.ranking import RRF_K, rrf_fuse_scores, sample_without_replacement
from fathom_ray.web.urls import canonicalize, domain_of


class EntryState(enum.StrEnum):
    """Where a candidate URL stands in its session's pool."""

    PENDING = "pending"
    FETCHED = "fetched"
    FAILED = "failed"


PENDING, FETCHED, FAILED = EntryState.PENDING, EntryState.FETCHED, EntryState.FAILED


@dataclass(slots=True)
class Entry:
    candidate: Candidate
    state: EntryState = PENDING
    reason: str = ""


@dataclass(slots=True)
class SessionFrontier:
    """Candidate pool of one session, capped at ``url_pool`` entries."""

    url_pool: int
    entries: dict[str, Entry] = field(default_factory=dict)

    def add(self, candidates: Iterable[Candidate]) -> list[Candidate]:
        """Add new canonical URLs while the pool has room (a seed always); returns what was added.

        A pending URL proposed again (another query found it, another page links to it) is not
        added twice, but its ``support`` grows by what the new list's rank gives it.
        """
        added: list[Candidate] = []
        for candidate in candidates:
            try:
                url = canonicalize(candidate.url)
            except InvalidURLError:
                continue
            vote = rrf_vote(candidate.rank)
            if url in self.entries:
                entry = self.entries[url]
                if entry.state == PENDING:
                    entry.candidate = replace(entry.candidate, support=entry.candidate.support + vote)
                continue
            if len(self.entries) >= self.url_pool and candidate.origin is not CandidateOrigin.SEED:
                continue  # the user's seeds (as many as the page budget) are never turned away
            entry = Entry(replace(candidate, url=url, support=vote))
            self.entries[url] = entry
            added.append(entry.candidate)
        return added

    def pending(self) -> list[Candidate]:
        return [e.candidate for e in self.entries.values() if e.state == PENDING]

    def urls(self) -> list[str]:
        """Every URL the pool has seen: pending, fetched or failed."""
        return list(self.entries)

    def mark(self, url: str, state: EntryState, reason: str = "") -> None:
        key = canonicalize(url)
        entry = self.entries.get(key)
        if entry is None:
            entry = Entry(Candidate(key, CandidateOrigin.LINK))
            self.entries[key] = entry
        entry.state, entry.reason = state, reason

    def known(self, url: str) -> bool:
        try:
            return canonicalize(url) in self.entries
        except InvalidURLError:
            return True

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {PENDING: 0, FETCHED: 0, FAILED: 0}
        for entry in self.entries.values():
            counts[entry.state] += 1
        return counts


def rrf_vote(rank: int) -> float:
    """What one proposing list's rank adds to a candidate's support (RRF's 1 / (k + rank)); 0 unranked."""
    return 1.0 / (RRF_K + rank) if rank > 0 else 0.0


def rank_and_sample(
    pending: list[Candidate],
    *,
    similarity: Mapping[str, float],
    relevance: Mapping[str, float] | None = None,
    domain_quality: Mapping[str, float],
    n: int,
    temperature: float,
    rng: np.random.Generator,
    first: Sequence[str] = (),
    lead_slots: int | None = None,
) -> list[Candidate]:
    """RRF of (similarity, lexical relevance, domain productivity, source support), then a softmax
    sample of ``n`` candidates.

    Source support is RRF over the lists that proposed a candidate: a page that the goal's search
    and two checklist questions' searches all return outranks one that a single list proposed at
    the same rank. A candidate no list ranked (0) ranks below every one with support.

    Some candidates are always taken before the rest of the batch is sampled: those in ``first``
    (the caller's leads, at most ``lead_slots``, by default all but one slot of the batch), the
    one the proposing lists support most (what the search engines rank first) and the best fused
    one. At a small page budget a sample must not lose the page the search engine ranks first, nor
    the one every signal together ranks first.
    """
    if not pending or n <= 0:
        return []
    urls = [c.url for c in pending]
    support = {c.url: (c.support or rrf_vote(c.rank)) or -math.inf for c in pending}
    fused = rrf_fuse_scores(
        [
            {u: similarity.get(u, 0.0) for u in urls},
            *([{u: relevance.get(u, 0.0) for u in urls}] if relevance is not None else []),
            {u: domain_quality.get(domain_of(u), 0.5) for u in urls},
            support,
        ]
    )
    known = set(urls)
    slots = max(1, n - 1) if lead_slots is None else lead_slots
    leads = [u for u in dict.fromkeys(first) if u in known][:slots]
    best = [min(urls, key=lambda u: (-support[u], -fused[u], u)), min(urls, key=lambda u: (-fused[u], u))]
    sure = list(dict.fromkeys([*leads, *best]))[:n]
    rest = [u for u in urls if u not in sure]
    # RRF scores are small (about 1/60); scaled so the temperature acts on rank differences.
    scores = [fused[u] * 1000.0 for u in rest]
    picked = {*sure, *sample_without_replacement(rest, scores, n - len(sure), temperature, rng)}
    place = {u: i for i, u in enumerate(sure)}  # leads first, then the sure picks, then the sample
    order = {
        u: i for i, u in enumerate(sorted(picked, key=lambda u: (place.get(u, len(sure)), -fused[u], u)))
    }
    return sorted((c for c in pending if c.url in picked), key=lambda c: order[c.url])
