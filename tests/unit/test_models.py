from __future__ import annotations

import dataclasses
import pickle

import pytest

from fathom_ray.errors import InvalidRequestError
from fathom_ray.models import Event, EventType, FetchResult, FetchStatus, ResearchRequest, Usage


def test_request_is_checked_and_normalised() -> None:
    request = ResearchRequest(
        "  When was SQLite's WAL mode added?  ",
        depth="quick",
        seeds=("HTTP://www.SQLite.test:80/wal.html#x",),
        max_pages=2,
    )
    assert request.goal == "When was SQLite's WAL mode added?"
    assert request.seeds == ("http://www.sqlite.test/wal.html",)
    assert request.budget.pages == 2
    assert ResearchRequest("a goal of sorts", depth="quick").budget.pages == 3
    # the user's page budget holds at any depth, above the preset's too
    assert ResearchRequest("a goal of sorts", depth="focused", max_pages=10).budget.pages == 10


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"goal": "hey"}, "goal"),
        ({"goal": "x" * 2001}, "goal"),
        ({"goal": "valid goal", "depth": "bottomless"}, "depth"),
        ({"goal": "valid goal", "seeds": ("ftp://a.example/",)}, "seeds"),
        ({"goal": "valid goal", "seeds": tuple(f"http://a{i}.example/" for i in range(21))}, "seeds"),
        ({"goal": "valid goal", "max_pages": 0}, "max_pages"),
        ({"goal": "valid goal", "max_pages": 201}, "max_pages"),
    ],
)
def test_request_rejects_bad_input_naming_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        ResearchRequest(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_values_are_frozen_and_picklable() -> None:
    result = FetchResult("http://a.example/", FetchStatus.TIMEOUT, error="no answer in 20 s")
    assert not result.ok
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.status = FetchStatus.OK  # type: ignore[misc]
    event = Event("s1", 3, EventType.ROUND_END, {"round": 1, "total_facts": 4})
    assert pickle.loads(pickle.dumps(event)) == event
    assert EventType.COMPLETE.is_terminal
    assert not EventType.FACTS.is_terminal


def test_usage_adds_and_keeps_unknown_cost_unknown() -> None:
    priced = Usage(calls=1, prompt_tokens=100, completion_tokens=20, latency_s=0.5, cost_usd=0.01)
    unpriced = Usage(calls=2, prompt_tokens=10, completion_tokens=5, latency_s=1.0)
    total = priced + unpriced
    assert (total.calls, total.total_tokens, total.cost_usd) == (3, 135, 0.01)
    assert (unpriced + unpriced).cost_usd is None


def test_a_request_names_its_sources() -> None:
    assert ResearchRequest("a goal here").sources == ("web",)
    assert ResearchRequest("a goal here", sources=("documents", "web", "web")).sources == ("documents", "web")
    for bad in ((), ("intranet",)):
        with pytest.raises(InvalidRequestError, match="sources"):
            ResearchRequest("a goal here", sources=bad)
