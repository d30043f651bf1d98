"""The engine's door (``actors.engine_door``): what it makes of a command's request line."""

from __future__ import annotations

import json

import pytest

from actors.engine_door import request_from
from fathom_ray.errors import FathomError
from fathom_ray.operations.engine_file import ENGINE_SECTIONS
from fathom_ray.settings import FetchSettings, LLMSettings, Settings


def test_a_request_through_the_door_takes_the_engines_judge_and_stores_and_refuses_garbage() -> None:
    engine = Settings(llm=LLMSettings(backend="openai", base_url="http://judge.test/v1", api_key="sk-x"))
    command = Settings(fetch=FetchSettings(min_host_delay_s=0.2))
    goal = "Which Python version introduced assignment expressions?"
    sent: dict[str, object] = {
        "settings": command.model_dump(mode="json", exclude=set(ENGINE_SECTIONS)),
        "request": {
            "goal": goal,
            "depth": "quick",
            "seeds": [],
            "max_pages": 2,
            "time_budget_s": None,
            "token_budget": None,
            "sources": ["web"],
        },
        "pid": 4321,
    }
    settings, request, pid = request_from(json.dumps(sent).encode(), engine)
    assert settings.fetch.min_host_delay_s == 0.2  # the command's own
    assert settings.llm == engine.llm  # the engine's judge, its key never written out
    assert (request.goal, request.depth, request.max_pages, pid) == (
        goal,
        "quick",
        2,
        4321,
    )
    for garbage in (b"not json", b"{}", json.dumps({**sent, "request": {"goal": "?"}}).encode()):
        with pytest.raises(FathomError):
            request_from(garbage, engine)
