"""Warming a kept engine (actors.warm_up) on a real engine: the evidence judge, its embedder,
Chromium and the extractor on local Ray and the offline web."""

from __future__ import annotations

import ray

from actors.engine import Engine
from actors.warm_up import warm_up


def test_warming_calls_every_part_once_and_stores_nothing(evidence_engine: Engine) -> None:
    handles = evidence_engine.handles
    encoded = ray.get(handles.embedder.encoded.remote())
    judged = ray.get(handles.judge.load.remote())[1]
    fetched = ray.get(handles.browser.fetched.remote())
    assert warm_up(evidence_engine) > 0
    assert ray.get(handles.embedder.encoded.remote()) > encoded  # the model ran
    assert ray.get(handles.judge.load.remote())[1] == judged + 1  # one analysis by the evidence judge
    assert ray.get(handles.browser.fetched.remote()) == fetched + 1  # the offline web's own page
    assert ray.get(handles.frontier.sessions.remote()) == []  # no session was opened
    assert ray.get(handles.memory.list_sessions.remote()) == []  # and nothing was kept


def test_a_slow_warm_up_is_left_never_raised(evidence_engine: Engine) -> None:
    assert warm_up(evidence_engine, timeout_s=0.0) >= 0
