"""SharedReads: a swarm's researchers claim pages so that none is read twice in one swarm."""

from __future__ import annotations

from fathom_ray.models import Candidate, CandidateOrigin
from fathom_ray.research.shared_reads import SharedReads

A, B, C = "http://a.test/1.html", "http://a.test/2.html", "http://b.test/3.html"


def candidates(*urls: str) -> list[Candidate]:
    return [Candidate(url, CandidateOrigin.SEARCH) for url in urls]


def test_a_page_goes_to_the_first_session_of_a_group_that_claims_it() -> None:
    shared = SharedReads()
    for session_id in ("r1", "r2"):
        shared.join(session_id, "w1")
    assert shared.claim("r1", [A, B]) == [A, B]
    assert shared.claim("r2", [B, C]) == [C]
    assert shared.claim("r1", [A, B]) == [A, B]  # its own claims are still its own
    assert [c.url for c in shared.unclaimed("r2", candidates(A, B, C))] == [C]
    assert [c.url for c in shared.unclaimed("r1", candidates(A, B, C))] == [A, B]


def test_sessions_outside_the_group_and_in_other_groups_claim_freely() -> None:
    shared = SharedReads()
    shared.join("r1", "w1")
    shared.join("x1", "w2")
    shared.join("solo", "")  # a session of no swarm
    shared.claim("r1", [A])
    assert shared.claim("x1", [A]) == [A]
    assert shared.claim("solo", [A]) == [A]
    assert shared.claim("unknown", [A]) == [A]
    assert len(shared.unclaimed("solo", candidates(A, B))) == 2


def test_claims_outlive_the_session_until_the_group_is_dropped() -> None:
    shared = SharedReads()
    shared.join("r1-researcher-1", "w1")
    shared.claim("r1-researcher-1", ["http://a.test/1.html?"])  # the same page, canonically
    shared.leave("r1-researcher-1")
    shared.join("r2-researcher-1", "w1")  # a gap-filling round's researcher
    assert shared.claim("r2-researcher-1", [A, B]) == [B]
    shared.drop("w1")
    shared.join("r3", "w1")
    assert shared.claim("r3", [A]) == [A]
